// Before bufferization: each op gets its own tensor.empty, and reads of an
// inserted value after the insert read the updated tensor.
// RUN: tdsl-opt %s --tdsl-prepare-in-place-updates | FileCheck %s

#id = affine_map<(d0) -> (d0)>

// Two sweeps of a 1-D stencil (jacobi-1d after fusion and CSE): the sweeps
// share one tensor.empty, and the second reads the first's result `nb`
// directly although `nb` was written into `b`.
// CHECK-LABEL: func.func @two_sweeps(
// CHECK-SAME: %[[A:.*]]: tensor<8xf64>, %[[B:.*]]: tensor<8xf64>
// CHECK: %[[E0:.*]] = tensor.empty() : tensor<6xf64>
// CHECK: %[[E1:.*]] = tensor.empty() : tensor<6xf64>
// CHECK: %[[NB:.*]] = linalg.generic
// CHECK-SAME: outs(%[[E1]] : tensor<6xf64>)
// CHECK: %[[B2:.*]] = tensor.insert_slice %[[NB]] into %[[B]][1] [6] [1]
// CHECK: %[[S:.*]] = tensor.extract_slice %[[B2]][1] [6] [1]
// CHECK: %[[L:.*]] = tensor.extract_slice %[[B2]][0] [6] [1]
// CHECK: %[[NA:.*]] = linalg.generic
// CHECK-SAME: ins(%[[L]], %[[S]] : tensor<6xf64>, tensor<6xf64>) outs(%[[E0]] : tensor<6xf64>)
// CHECK: tensor.insert_slice %[[NA]] into %[[A]][1] [6] [1]
func.func @two_sweeps(%a: tensor<8xf64>, %b: tensor<8xf64>) -> (tensor<8xf64>, tensor<8xf64>) {
  %e = tensor.empty() : tensor<6xf64>
  %a0 = tensor.extract_slice %a[0] [6] [1] : tensor<8xf64> to tensor<6xf64>
  %a2 = tensor.extract_slice %a[2] [6] [1] : tensor<8xf64> to tensor<6xf64>
  %nb = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%a0, %a2 : tensor<6xf64>, tensor<6xf64>) outs(%e : tensor<6xf64>) {
  ^bb0(%x: f64, %y: f64, %out: f64):
    %s = arith.addf %x, %y : f64
    linalg.yield %s : f64
  } -> tensor<6xf64>
  %b2 = tensor.insert_slice %nb into %b[1] [6] [1] : tensor<6xf64> into tensor<8xf64>
  %b0 = tensor.extract_slice %b2[0] [6] [1] : tensor<8xf64> to tensor<6xf64>
  %na = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%b0, %nb : tensor<6xf64>, tensor<6xf64>) outs(%e : tensor<6xf64>) {
  ^bb0(%x: f64, %y: f64, %out: f64):
    %s = arith.addf %x, %y : f64
    linalg.yield %s : f64
  } -> tensor<6xf64>
  %a3 = tensor.insert_slice %na into %a[1] [6] [1] : tensor<6xf64> into tensor<8xf64>
  return %a3, %b2 : tensor<8xf64>, tensor<8xf64>
}
