// RUN: tdsl-opt %s --pass-pipeline='builtin.module(func.func(tdsl-slice-offset-reads))' | FileCheck %s

// Inputs read at a loop plus a constant (index notation's `x[i + 1]`) become
// shifted slices with plain maps, which linalg's vectorizer takes; a
// constant result becomes a slice of 1 read at 0.

#id1 = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @shifted_1d
func.func @shifted_1d(%x: tensor<8xf32>, %y: tensor<7xf32>, %o: tensor<7xf32>) -> tensor<7xf32> {
  // CHECK: %[[S:.*]] = tensor.extract_slice %{{.*}}[1] [7] [1] : tensor<8xf32> to tensor<7xf32>
  // CHECK: linalg.generic {indexing_maps = [#[[ID:.*]], #[[ID]], #[[ID]]]
  // CHECK-SAME: ins(%[[S]], %{{.*}} : tensor<7xf32>, tensor<7xf32>)
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0 + 1)>, #id1, #id1], iterator_types = ["parallel"]}
      ins(%x, %y : tensor<8xf32>, tensor<7xf32>) outs(%o : tensor<7xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %d = arith.subf %a, %b : f32
    linalg.yield %d : f32
  } -> tensor<7xf32>
  return %r : tensor<7xf32>
}

// Run-time sizes: the slice's sizes are the loops' extents, from the
// output (a dimension read with exactly that loop).
// CHECK-LABEL: func.func @shifted_2d_dynamic
func.func @shifted_2d_dynamic(%x: tensor<?x?xf64>, %o: tensor<?x?xf64>) -> tensor<?x?xf64> {
  // CHECK-DAG: %[[M:.*]] = tensor.dim %{{.*}}, %c0 : tensor<?x?xf64>
  // CHECK-DAG: %[[N:.*]] = tensor.dim %{{.*}}, %c1 : tensor<?x?xf64>
  // CHECK: tensor.extract_slice %{{.*}}[2, 0] [%[[M]], %[[N]]] [1, 1]
  // CHECK: tensor.extract_slice %{{.*}}[0, 3] [1, %[[N]]] [1, 1]
  // CHECK: linalg.generic {indexing_maps = [#[[ID2:.*]], #[[ROW0:.*]], #[[ID2]]]
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0 + 2, d1)>, affine_map<(d0, d1) -> (0, d1 + 3)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x, %x : tensor<?x?xf64>, tensor<?x?xf64>) outs(%o : tensor<?x?xf64>) {
  ^bb0(%a: f64, %b: f64, %c: f64):
    %d = arith.addf %a, %b : f64
    linalg.yield %d : f64
  } -> tensor<?x?xf64>
  return %r : tensor<?x?xf64>
}

// Left alone: a loop read twice (the diagonal plus one), and a window
// (`d0 + d1`), which tdsl-split-strided-windows and the vectorizer handle.
// CHECK-LABEL: func.func @left_alone
func.func @left_alone(%x: tensor<8x9xf32>, %w: tensor<10xf32>, %k: tensor<3xf32>, %o: tensor<8xf32>) -> tensor<8xf32> {
  // CHECK-NOT: tensor.extract_slice
  // CHECK: linalg.generic
  // CHECK-SAME: ins(%{{.*}}, %{{.*}}, %{{.*}} : tensor<8x9xf32>, tensor<10xf32>, tensor<3xf32>)
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d0 + 1)>, affine_map<(d0, d1) -> (d0 + d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%x, %w, %k : tensor<8x9xf32>, tensor<10xf32>, tensor<3xf32>) outs(%o : tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32, %kk: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %n = arith.mulf %m, %kk : f32
    %d = arith.addf %c, %n : f32
    linalg.yield %d : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}
