// Reads at a linalg body's loop indices become inputs of the op
// (tdsl-raise-extracts); reads that could leave their tensor stay.
// RUN: tdsl-opt %s --tdsl-raise-extracts | FileCheck %s

// x[n, k, i, j] and w[k, 0] are raised, with their maps; the read of x at
// j + 1 is not (not a loop index), nor the read of the smaller y.
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[WM:.*]] = affine_map<(d0, d1, d2, d3) -> (d1, 0)>
// The maps of @strided, below.
// CHECK-DAG: #[[SW:.*]] = affine_map<(d0, d1) -> (d0 * 2 + d1)>
// CHECK-DAG: #[[S3:.*]] = affine_map<(d0, d1) -> (d0 * 3)>
// CHECK-LABEL: func.func @reads(
// CHECK-SAME: %[[X:[^:]*]]: tensor<2x3x4x5xf32>, %[[W:[^:]*]]: tensor<3x2xf32>, %[[Y:[^:]*]]: tensor<2x3x4x4xf32>
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[WM]], #[[ID]]], {{.*}}} ins(%[[X]], %[[W]] : tensor<2x3x4x5xf32>, tensor<3x2xf32>) outs(%{{.*}} : tensor<2x3x4x5xf32>) attrs = {tdsl.kernel_id = "k#0"} {
// CHECK-NEXT: ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32, %{{.*}}: f32):
// CHECK: tensor.extract %[[X]][
// CHECK: tensor.extract %[[Y]][
// CHECK: arith.mulf %[[A]], %[[B]]
func.func @reads(%x: tensor<2x3x4x5xf32>, %w: tensor<3x2xf32>, %y: tensor<2x3x4x4xf32>) -> tensor<2x3x4x5xf32> {
  %e = tensor.empty() : tensor<2x3x4x5xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (a, b, c, d)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      outs(%e : tensor<2x3x4x5xf32>) attrs = {tdsl.kernel_id = "k#0"} {
  ^bb0(%o: f32):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %n = linalg.index 0 : index
    %k = linalg.index 1 : index
    %i = linalg.index 2 : index
    %j = linalg.index 3 : index
    %a = tensor.extract %x[%n, %k, %i, %j] : tensor<2x3x4x5xf32>
    %b = tensor.extract %w[%k, %c0] : tensor<3x2xf32>
    %j1 = arith.addi %j, %c1 : index
    %jc = arith.minui %j1, %c4 : index
    %s = tensor.extract %x[%n, %k, %i, %jc] : tensor<2x3x4x5xf32>
    %jy = arith.minui %j, %c4 : index
    %t = tensor.extract %y[%n, %k, %i, %jy] : tensor<2x3x4x4xf32>
    %m = arith.mulf %a, %b : f32
    %u = arith.addf %m, %s : f32
    %v = arith.addf %u, %t : f32
    linalg.yield %v : f32
  } -> tensor<2x3x4x5xf32>
  return %r : tensor<2x3x4x5xf32>
}

// Reads at loops plus constants (a stencil) read slices that start at the
// constants, as long as the loops (also at offset 0: a[i, j] over 8 x 8 of
// a 10 x 10 tensor); i - 1 in a loop from 0 could leave the tensor and
// stays a read.
// CHECK-LABEL: func.func @stencil(
// CHECK-SAME: %[[A:[^:]*]]: tensor<10x10xf64>
// CHECK-DAG: %[[R:.*]] = tensor.extract_slice %[[A]][2, 1] [8, 8] [1, 1]
// CHECK-DAG: %[[D:.*]] = tensor.extract_slice %[[A]][1, 2] [8, 8] [1, 1]
// CHECK-DAG: %[[Z:.*]] = tensor.extract_slice %[[A]][0, 0] [8, 8] [1, 1]
// CHECK: linalg.generic {{.*}} ins(%[[R]], %[[D]], %[[Z]] : tensor<8x8xf64>, tensor<8x8xf64>, tensor<8x8xf64>)
// CHECK: tensor.extract %[[A]]
func.func @stencil(%a: tensor<10x10xf64>) -> tensor<8x8xf64> {
  %e = tensor.empty() : tensor<8x8xf64>
  %r = linalg.generic {indexing_maps = [affine_map<(a, b) -> (a, b)>], iterator_types = ["parallel", "parallel"]}
      outs(%e : tensor<8x8xf64>) {
  ^bb0(%o: f64):
    %c1 = arith.constant 1 : index
    %c1_i64 = arith.constant 1 : i64
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %i1 = arith.addi %i, %c1 : index
    %j1 = arith.addi %j, %c1 : index
    %i64 = arith.index_cast %i1 : index to i64
    %i2 = arith.addi %i64, %c1_i64 : i64
    %i2x = arith.index_cast %i2 : i64 to index
    %right = tensor.extract %a[%i2x, %j1] : tensor<10x10xf64>
    %j2 = arith.addi %j1, %c1 : index
    %down = tensor.extract %a[%i1, %j2] : tensor<10x10xf64>
    %im = arith.subi %i, %c1 : index
    %up = tensor.extract %a[%im, %j] : tensor<10x10xf64>
    %corner = tensor.extract %a[%i, %j] : tensor<10x10xf64>
    %s = arith.addf %right, %down : f64
    %t = arith.addf %s, %up : f64
    %u = arith.addf %t, %corner : f64
    linalg.yield %u : f64
  } -> tensor<8x8xf64>
  return %r : tensor<8x8xf64>
}

// A loop of run-time size reading a tensor of run-time size stays a read
// (its bounds are not proven here)...
// CHECK-LABEL: func.func @dynamic(
// CHECK: linalg.generic {{.*}} outs(
// CHECK: tensor.extract
func.func @dynamic(%x: tensor<?xf32>, %n: index) -> tensor<?xf32> {
  %e = tensor.empty(%n) : tensor<?xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(a) -> (a)>], iterator_types = ["parallel"]}
      outs(%e : tensor<?xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %a = tensor.extract %x[%i] : tensor<?xf32>
    linalg.yield %a : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// ... unless tdsl-fold-checks removed or moved before the op every check of
// its body (tdsl.bounds_checked): then the shifted read is an input, a
// slice from offset 2 as long as the loop.
// CHECK-LABEL: func.func @dynamic_checked(
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[N:.*]] = tensor.dim %{{.*}}, %[[C0]] : tensor<?xf32>
// CHECK: %[[S:.*]] = tensor.extract_slice %arg0[2] [%[[N]]] [1] : tensor<?xf32> to tensor<?xf32>
// CHECK: linalg.generic {{.*}} ins(%[[S]] : tensor<?xf32>)
// CHECK-NOT: tensor.extract
// CHECK: return
func.func @dynamic_checked(%x: tensor<?xf32>, %n: index) -> tensor<?xf32> {
  %c2 = arith.constant 2 : index
  %e = tensor.empty(%n) : tensor<?xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(a) -> (a)>], iterator_types = ["parallel"]}
      outs(%e : tensor<?xf32>) attrs = {tdsl.bounds_checked} {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %i2 = arith.addi %i, %c2 : index
    %a = tensor.extract %x[%i2] : tensor<?xf32>
    linalg.yield %a : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// A read that relies on those checks must use every loop of the op: the
// checks hold only when the op has iterations, and a read of x[j + 2] in
// loops over i and j would still run, moved out of an empty i loop.
// CHECK-LABEL: func.func @dynamic_checked_partial(
// CHECK: linalg.generic
// CHECK: tensor.extract
func.func @dynamic_checked_partial(%x: tensor<?xf32>, %n: index, %m: index) -> tensor<?x?xf32> {
  %c2 = arith.constant 2 : index
  %e = tensor.empty(%n, %m) : tensor<?x?xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(a, b) -> (a, b)>], iterator_types = ["parallel", "parallel"]}
      outs(%e : tensor<?x?xf32>) attrs = {tdsl.bounds_checked} {
  ^bb0(%o: f32):
    %j = linalg.index 1 : index
    %j2 = arith.addi %j, %c2 : index
    %a = tensor.extract %x[%j2] : tensor<?xf32>
    linalg.yield %a : f32
  } -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// Subscripts that are linear in the loops with positive constant factors
// (`2 * i + di + 1`, a strided window that a callee computes from its
// stride parameter) are raised with that map, from the slice that starts
// at the constant; one whose last element would leave the tensor
// (3 * i over 6 values of i reaches 15 in 16 elements, 3 * i + 1 reaches
// 16) stays a read, as does a product of two loops.
// CHECK-LABEL: func.func @strided(
// CHECK-SAME: %[[X:[^:]*]]: tensor<16xf32>
// CHECK: %[[S:.*]] = tensor.extract_slice %[[X]][1] [15] [1] : tensor<16xf32> to tensor<15xf32>
// CHECK: linalg.generic {indexing_maps = [#[[SW]], #[[S3]], #{{.*}}], {{.*}} ins(%[[S]], %[[X]] : tensor<15xf32>, tensor<16xf32>)
// CHECK-COUNT-2: tensor.extract %[[X]]
// CHECK-NOT: tensor.extract
// CHECK: return
func.func @strided(%x: tensor<16xf32>) -> tensor<6x3xf32> {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : i64
  %c3 = arith.constant 3 : index
  %e = tensor.empty() : tensor<6x3xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(a, b) -> (a, b)>], iterator_types = ["parallel", "parallel"]}
      outs(%e : tensor<6x3xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %d = linalg.index 1 : index
    %i64 = arith.index_cast %i : index to i64
    %i2 = arith.muli %i64, %c2 : i64
    %d64 = arith.index_cast %d : index to i64
    %w = arith.addi %i2, %d64 : i64
    %wx = arith.index_cast %w : i64 to index
    %w1 = arith.addi %wx, %c1 : index
    %a = tensor.extract %x[%w1] : tensor<16xf32>
    %i3 = arith.muli %c3, %i : index
    %b = tensor.extract %x[%i3] : tensor<16xf32>
    %i31 = arith.addi %i3, %c1 : index
    %c = tensor.extract %x[%i31] : tensor<16xf32>
    %id = arith.muli %i, %d : index
    %f = tensor.extract %x[%id] : tensor<16xf32>
    %s = arith.addf %a, %b : f32
    %t = arith.addf %s, %c : f32
    %u = arith.addf %t, %f : f32
    linalg.yield %u : f32
  } -> tensor<6x3xf32>
  return %r : tensor<6x3xf32>
}

// A loop of a static, positive range is never empty: a read that relies on
// the checks may leave it out (a convolution's image is not read by the
// output channels' loop).
// CHECK-LABEL: func.func @dynamic_checked_static_loop(
// CHECK: %[[S:.*]] = tensor.extract_slice %arg0[2] [%{{.*}}] [1] : tensor<?xf32> to tensor<?xf32>
// CHECK: linalg.generic {{.*}} ins(%[[S]] : tensor<?xf32>)
// CHECK-NOT: tensor.extract
// CHECK: return
func.func @dynamic_checked_static_loop(%x: tensor<?xf32>, %m: index) -> tensor<4x?xf32> {
  %c2 = arith.constant 2 : index
  %e = tensor.empty(%m) : tensor<4x?xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(a, b) -> (a, b)>], iterator_types = ["parallel", "parallel"]}
      outs(%e : tensor<4x?xf32>) attrs = {tdsl.bounds_checked} {
  ^bb0(%o: f32):
    %j = linalg.index 1 : index
    %j2 = arith.addi %j, %c2 : index
    %a = tensor.extract %x[%j2] : tensor<?xf32>
    linalg.yield %a : f32
  } -> tensor<4x?xf32>
  return %r : tensor<4x?xf32>
}

// Reads at the digits of one loop in the mixed radix of the tensor's
// trailing sizes (nn.flatten's x[n, f / 20, f / 5 % 4, f % 5] on 3 x 4 x
// 5) read the tensor with those dimensions collapsed, at the loop: the
// flattening is a copy. Not where the loop could pass their product, or
// where a modulus is not the dimension's size.
// CHECK-LABEL: func.func @flatten(
// CHECK-SAME: %[[X:[^:]*]]: tensor<2x3x4x5xf32>
// CHECK: %[[C:.*]] = tensor.collapse_shape %[[X]] {{\[}}[0], [1, 2, 3]] : tensor<2x3x4x5xf32> into tensor<2x60xf32>
// CHECK: linalg.generic {{.*}} ins(%[[C]] : tensor<2x60xf32>)
// CHECK-NOT: tensor.extract
// CHECK: return
func.func @flatten(%x: tensor<2x3x4x5xf32>) -> tensor<2x60xf32> {
  %c20 = arith.constant 20 : i64
  %c5 = arith.constant 5 : i64
  %c4 = arith.constant 4 : i64
  %e = tensor.empty() : tensor<2x60xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(a, b) -> (a, b)>], iterator_types = ["parallel", "parallel"]}
      outs(%e : tensor<2x60xf32>) {
  ^bb0(%o: f32):
    %n = linalg.index 0 : index
    %f = linalg.index 1 : index
    %f64 = arith.index_cast %f : index to i64
    %c = arith.divsi %f64, %c20 : i64
    %ci = arith.index_cast %c : i64 to index
    %i5 = arith.divsi %f64, %c5 : i64
    %i = arith.remsi %i5, %c4 : i64
    %ii = arith.index_cast %i : i64 to index
    %j = arith.remsi %f64, %c5 : i64
    %ji = arith.index_cast %j : i64 to index
    %a = tensor.extract %x[%n, %ci, %ii, %ji] : tensor<2x3x4x5xf32>
    linalg.yield %a : f32
  } -> tensor<2x60xf32>
  return %r : tensor<2x60xf32>
}

// CHECK-LABEL: func.func @not_flatten(
// CHECK-NOT: tensor.collapse_shape
// CHECK-COUNT-2: tensor.extract
// CHECK: return
func.func @not_flatten(%x: tensor<3x5xf32>) -> tensor<16xf32> {
  %c5 = arith.constant 5 : i64
  %c4 = arith.constant 4 : i64
  %e = tensor.empty() : tensor<16xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(a) -> (a)>], iterator_types = ["parallel"]}
      outs(%e : tensor<16xf32>) {
  ^bb0(%o: f32):
    %f = linalg.index 0 : index
    %f64 = arith.index_cast %f : index to i64
    %c = arith.divsi %f64, %c5 : i64
    %ci = arith.index_cast %c : i64 to index
    %j = arith.remsi %f64, %c5 : i64
    %ji = arith.index_cast %j : i64 to index
    // 16 iterations: f / 5 reaches 3, past the 3 rows.
    %a = tensor.extract %x[%ci, %ji] : tensor<3x5xf32>
    %k = arith.remsi %f64, %c4 : i64
    %ki = arith.index_cast %k : i64 to index
    %c2 = arith.constant 2 : index
    %cm = arith.minui %ci, %c2 : index
    // a modulus of 4 on a dimension of 5
    %b = tensor.extract %x[%cm, %ki] : tensor<3x5xf32>
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<16xf32>
  return %r : tensor<16xf32>
}
