// Runs of loops of one kind that every operand reads contiguously are
// merged into one loop (tdsl-collapse-dims).
// RUN: tdsl-opt %s --tdsl-collapse-dims | FileCheck %s

// A bias b[k] keeps (i, j) together but not (n, k): [32, 64, 3136].
// CHECK-LABEL: func.func @bias(
// CHECK-SAME: %[[X:[^:]*]]: tensor<32x64x56x56xf32>, %[[B:[^:]*]]: tensor<64xf32>
// CHECK: %[[XC:.*]] = tensor.collapse_shape %[[X]] {{\[\[}}0], [1], [2, 3]] : tensor<32x64x56x56xf32> into tensor<32x64x3136xf32>
// CHECK: %[[R:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[XC]], %[[B]] : tensor<32x64x3136xf32>, tensor<64xf32>) outs(%{{.*}} : tensor<32x64x3136xf32>) attrs = {tdsl.kernel_id = "k#1"}
// CHECK: %[[E:.*]] = tensor.expand_shape %[[R]] {{\[\[}}0], [1], [2, 3]] output_shape [32, 64, 56, 56]
// CHECK: return %[[E]]
func.func @bias(%x: tensor<32x64x56x56xf32>, %b: tensor<64xf32>) -> tensor<32x64x56x56xf32> {
  %e = tensor.empty() : tensor<32x64x56x56xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(n, k, i, j) -> (n, k, i, j)>,
                                        affine_map<(n, k, i, j) -> (k)>,
                                        affine_map<(n, k, i, j) -> (n, k, i, j)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %b : tensor<32x64x56x56xf32>, tensor<64xf32>) outs(%e : tensor<32x64x56x56xf32>)
      attrs = {tdsl.kernel_id = "k#1"} {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<32x64x56x56xf32>
  return %r : tensor<32x64x56x56xf32>
}

// One run may hold one loop of run-time size (MLIR 22 cannot expand one
// dimension into two dynamic ones): [?, 4, 5] becomes [?], [?, ?] stays.
// CHECK-LABEL: func.func @dynamic(
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1, 2]] : tensor<?x4x5xf32> into tensor<?xf32>
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel"]}
// CHECK-NOT: tensor.collapse_shape
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]}
func.func @dynamic(%x: tensor<?x4x5xf32>, %y: tensor<?x?xf32>) -> (tensor<?x4x5xf32>, tensor<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %x, %c0 : tensor<?x4x5xf32>
  %e = tensor.empty(%n) : tensor<?x4x5xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(a, b, c) -> (a, b, c)>, affine_map<(a, b, c) -> (a, b, c)>],
                       iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x : tensor<?x4x5xf32>) outs(%e : tensor<?x4x5xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.mulf %a, %a : f32
    linalg.yield %s : f32
  } -> tensor<?x4x5xf32>
  %p = tensor.dim %y, %c0 : tensor<?x?xf32>
  %q = tensor.dim %y, %c1 : tensor<?x?xf32>
  %f = tensor.empty(%p, %q) : tensor<?x?xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(a, b) -> (a, b)>, affine_map<(a, b) -> (a, b)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%y : tensor<?x?xf32>) outs(%f : tensor<?x?xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.mulf %a, %a : f32
    linalg.yield %s : f32
  } -> tensor<?x?xf32>
  return %r, %t : tensor<?x4x5xf32>, tensor<?x?xf32>
}

// Left alone: a transposed read, a broadcast of a static 1 (a constant
// subscript), a reduction.
// CHECK-LABEL: func.func @left_alone(
// CHECK-NOT: tensor.collapse_shape
// CHECK: return
func.func @left_alone(%x: tensor<8x8xf32>, %y: tensor<1x8xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>, tensor<8xf32>) {
  %e = tensor.empty() : tensor<8x8xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(a, b) -> (b, a)>, affine_map<(a, b) -> (a, b)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<8x8xf32>
  %b = linalg.generic {indexing_maps = [affine_map<(a, b) -> (a, b)>, affine_map<(a, b) -> (0, b)>,
                                        affine_map<(a, b) -> (a, b)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : tensor<8x8xf32>, tensor<1x8xf32>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.mulf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<8x8xf32>
  %z = tensor.empty() : tensor<8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(a, b) -> (a, b)>, affine_map<(a, b) -> (a)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<8x8xf32>) outs(%z : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %t, %b, %r : tensor<8x8xf32>, tensor<8x8xf32>, tensor<8xf32>
}

// A contraction's reduction loops that both operands read contiguously
// (the digits CNN's logits, z[n, o] = sum(c, i, j) h[n, c, i, j] *
// w[c, i, j, o]) become one: a product of [8, 128] by [128, 10], with one
// reduction loop of 128 instead of loops of 32, 2 and 2 (LLVM unrolled the
// 2s into copies of the register tile). Parallel and reduction loops never
// share a run.
// CHECK-LABEL: func.func @contraction(
// CHECK-SAME: %[[H:[^:]*]]: tensor<8x32x2x2xf32>, %[[W:[^:]*]]: tensor<32x2x2x10xf32>
// CHECK-DAG: %[[HC:.*]] = tensor.collapse_shape %[[H]] {{\[\[}}0], [1, 2, 3]] : tensor<8x32x2x2xf32> into tensor<8x128xf32>
// CHECK-DAG: %[[WC:.*]] = tensor.collapse_shape %[[W]] {{\[\[}}0, 1, 2], [3]] : tensor<32x2x2x10xf32> into tensor<128x10xf32>
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[HC]], %[[WC]] : tensor<8x128xf32>, tensor<128x10xf32>)
func.func @contraction(%h: tensor<8x32x2x2xf32>, %w: tensor<32x2x2x10xf32>,
                       %z: tensor<8x10xf32>) -> tensor<8x10xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(n, o, c, i, j) -> (n, c, i, j)>,
                                        affine_map<(n, o, c, i, j) -> (c, i, j, o)>,
                                        affine_map<(n, o, c, i, j) -> (n, o)>],
                       iterator_types = ["parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%h, %w : tensor<8x32x2x2xf32>, tensor<32x2x2x10xf32>) outs(%z : tensor<8x10xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<8x10xf32>
  return %r : tensor<8x10xf32>
}
