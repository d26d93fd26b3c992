// A loop that the body reads only as i / k and i % k becomes two loops
// (tdsl-split-divided-loops): the output is written as [range / k, k] along
// it, and the divisions and remainders are those loops.
// RUN: tdsl-opt %s --split-input-file --tdsl-split-divided-loops | FileCheck %s

// Upsampling by 2 along the columns: j / 2 is q, the output 4 x 8 is
// written as 4 x 4 x 2 and collapsed back.
// CHECK-LABEL: func.func @upsample(
// CHECK: %[[E:.*]] = tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2]] output_shape [4, 4, 2] : tensor<4x8xf32> into tensor<4x4x2xf32>
// CHECK: %[[R:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel"]} outs(%[[E]] : tensor<4x4x2xf32>)
// CHECK: %[[Q:.*]] = linalg.index 1 : index
// CHECK: %[[Q64:.*]] = arith.index_cast %[[Q]] : index to i64
// CHECK: %[[QI:.*]] = arith.index_cast %[[Q64]] : i64 to index
// CHECK: tensor.extract %{{.*}}[%{{.*}}, %[[QI]]] : tensor<4x4xf32>
// CHECK: tensor.collapse_shape %[[R]] {{\[}}[0], [1, 2]] : tensor<4x4x2xf32> into tensor<4x8xf32>
func.func @upsample(%x: tensor<4x4xf32>) -> tensor<4x8xf32> {
  %c2 = arith.constant 2 : i64
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(a, b) -> (a, b)>], iterator_types = ["parallel", "parallel"]}
      outs(%e : tensor<4x8xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %j64 = arith.index_cast %j : index to i64
    %q = arith.divsi %j64, %c2 : i64
    %qi = arith.index_cast %q : i64 to index
    %a = tensor.extract %x[%i, %qi] : tensor<4x4xf32>
    linalg.yield %a : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// Left alone: a range that k does not divide, a loop used other than
// divided (i + 1), and a loop an operand's map reads.
// CHECK-LABEL: func.func @others(
// CHECK-NOT: tensor.expand_shape
// CHECK: return
func.func @others(%x: tensor<8xf32>, %y: tensor<9xf32>) -> (tensor<9xf32>, tensor<8xf32>, tensor<8xf32>) {
  %c2 = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  %e9 = tensor.empty() : tensor<9xf32>
  %e8 = tensor.empty() : tensor<8xf32>
  %a = linalg.generic {indexing_maps = [affine_map<(a) -> (a)>], iterator_types = ["parallel"]}
      outs(%e9 : tensor<9xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %q = arith.divui %i, %c2 : index
    %v = tensor.extract %x[%q] : tensor<8xf32>
    linalg.yield %v : f32
  } -> tensor<9xf32>
  %b = linalg.generic {indexing_maps = [affine_map<(a) -> (a)>], iterator_types = ["parallel"]}
      outs(%e8 : tensor<8xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %q = arith.divui %i, %c2 : index
    %i1 = arith.addi %i, %c1 : index
    %v = tensor.extract %x[%q] : tensor<8xf32>
    %w = tensor.extract %y[%i1] : tensor<9xf32>
    %s = arith.addf %v, %w : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  %c = linalg.generic {indexing_maps = [affine_map<(a) -> (a)>, affine_map<(a) -> (a)>], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e8 : tensor<8xf32>) {
  ^bb0(%in: f32, %o: f32):
    %i = linalg.index 0 : index
    %q = arith.divui %i, %c2 : index
    %v = tensor.extract %x[%q] : tensor<8xf32>
    %s = arith.addf %v, %in : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %a, %b, %c : tensor<9xf32>, tensor<8xf32>, tensor<8xf32>
}
