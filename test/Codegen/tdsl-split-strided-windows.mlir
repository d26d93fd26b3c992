// Windows as wide as their stride read through a reshaped operand
// (tdsl-split-strided-windows): x[n, c, 2 * i + di, 2 * j + dj] with di, dj
// in 0..2 becomes x'[n, c, i, di, j, dj].
// RUN: tdsl-opt %s --tdsl-split-strided-windows | FileCheck %s

// The maps of @patches (image, kernel) and @pool.
// CHECK-DAG: #[[IMG:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2, d5, d3, d6)>
// CHECK-DAG: #[[KER:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>
// CHECK-DAG: #[[POOL:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d4, d3, d5)>

// Max pooling of 9 x 8 images: the odd last row is sliced off first.
// CHECK-LABEL: func.func @pool(
// CHECK-SAME: %[[X:[^:]*]]: tensor<2x3x9x8xf32>
// CHECK: %[[S:.*]] = tensor.extract_slice %[[X]][0, 0, 0, 0] [2, 3, 8, 8] [1, 1, 1, 1] : tensor<2x3x9x8xf32> to tensor<2x3x8x8xf32>
// CHECK: %[[E:.*]] = tensor.expand_shape %[[S]] {{\[\[}}0], [1], [2, 3], [4, 5]] output_shape [2, 3, 4, 2, 4, 2] : tensor<2x3x8x8xf32> into tensor<2x3x4x2x4x2xf32>
// CHECK: linalg.generic {indexing_maps = [#[[POOL]], {{.*}}} ins(%[[E]], %{{.*}}, %{{.*}} : tensor<2x3x4x2x4x2xf32>, tensor<2xf32>, tensor<2xf32>)
// CHECK-SAME: attrs = {tdsl.kernel_id = "p#1"}
func.func @pool(%x: tensor<2x3x9x8xf32>) -> tensor<2x3x4x4xf32> {
  %w = tensor.empty() : tensor<2xf32>
  %e = tensor.empty() : tensor<2x3x4x4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(n, c, i, j, di, dj) -> (n, c, i * 2 + di, j * 2 + dj)>,
                                        affine_map<(n, c, i, j, di, dj) -> (di)>,
                                        affine_map<(n, c, i, j, di, dj) -> (dj)>,
                                        affine_map<(n, c, i, j, di, dj) -> (n, c, i, j)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%x, %w, %w : tensor<2x3x9x8xf32>, tensor<2xf32>, tensor<2xf32>) outs(%e : tensor<2x3x4x4xf32>)
      attrs = {tdsl.kernel_id = "p#1"} {
  ^bb0(%a: f32, %u: f32, %v: f32, %o: f32):
    %m = arith.maximumf %o, %a : f32
    linalg.yield %m : f32
  } -> tensor<2x3x4x4xf32>
  return %r : tensor<2x3x4x4xf32>
}

// A window wider than its stride (di in 0..3 at 2 * i) reads elements
// twice, a stride of 1 is a plain window, and a run-time image size is
// left alone: no reshape.
// CHECK-LABEL: func.func @overlapping(
// CHECK-NOT: tensor.expand_shape
// CHECK: return
func.func @overlapping(%x: tensor<9xf32>, %y: tensor<?xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %w3 = tensor.empty() : tensor<3xf32>
  %w2 = tensor.empty() : tensor<2xf32>
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, d) -> (i * 2 + d)>, affine_map<(i, d) -> (d)>, affine_map<(i, d) -> (i)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x, %w3 : tensor<9xf32>, tensor<3xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%a: f32, %u: f32, %o: f32):
    %s = arith.addf %o, %a : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %p = linalg.generic {indexing_maps = [affine_map<(i, d) -> (i + d)>, affine_map<(i, d) -> (d)>, affine_map<(i, d) -> (i)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x, %w2 : tensor<9xf32>, tensor<2xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%a: f32, %u: f32, %o: f32):
    %s = arith.addf %o, %a : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %q = linalg.generic {indexing_maps = [affine_map<(i, d) -> (i * 2 + d)>, affine_map<(i, d) -> (d)>, affine_map<(i, d) -> (i)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%y, %w2 : tensor<?xf32>, tensor<2xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%a: f32, %u: f32, %o: f32):
    %s = arith.addf %o, %a : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %r, %p, %q : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// A convolution whose stride is its kernel's size (2 x 2 patches): the
// image is split, the kernel's plain subscripts stay.
// CHECK-LABEL: func.func @patches(
// CHECK: %[[E:.*]] = tensor.expand_shape %{{.*}} {{\[\[}}0], [1], [2, 3], [4, 5]] output_shape [1, 3, 4, 2, 4, 2] : tensor<1x3x8x8xf32> into tensor<1x3x4x2x4x2xf32>
// CHECK: linalg.generic {indexing_maps = [#[[IMG]], #[[KER]], {{.*}}} ins(%[[E]], %{{.*}} : tensor<1x3x4x2x4x2xf32>, tensor<5x3x2x2xf32>)
func.func @patches(%x: tensor<1x3x8x8xf32>, %k: tensor<5x3x2x2xf32>) -> tensor<1x5x4x4xf32> {
  %e = tensor.empty() : tensor<1x5x4x4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(n, o, i, j, c, di, dj) -> (n, c, i * 2 + di, j * 2 + dj)>,
                                        affine_map<(n, o, i, j, c, di, dj) -> (o, c, di, dj)>,
                                        affine_map<(n, o, i, j, c, di, dj) -> (n, o, i, j)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %k : tensor<1x3x8x8xf32>, tensor<5x3x2x2xf32>) outs(%e : tensor<1x5x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x5x4x4xf32>
  return %r : tensor<1x5x4x4xf32>
}
