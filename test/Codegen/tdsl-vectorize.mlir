// Register tiling with scf.for and vectorization of linalg ops on tensors.
// RUN: tdsl-opt %s --tdsl-vectorize | FileCheck %s
// RUN: tdsl-opt %s --tdsl-vectorize="vector-width=8 contraction-rows=4" | FileCheck %s --check-prefix=OPT

// CHECK-DAG: #[[AMAP:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[BMAP:.*]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-DAG: #[[CMAP:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[DMIN:.*]] = affine_map<(d0)[s0] -> (-d0 + s0, 16)>

// A contraction tile: 8 rows x 32 columns (2 x 16 lanes) x 1 step of k, the
// reduction loop innermost; the 8x1 column of A and the 1x32 row of B are
// read as they are and contracted (an outer product) into the 8x32
// accumulator by a vector.contract, which later lowers to FMAs.
// CHECK-LABEL: func.func @matmul_tile(
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : index
// CHECK-DAG: %[[C32:.*]] = arith.constant 32 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %[[C8]] iter_args
// CHECK: scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %[[C32]] iter_args
// CHECK: scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %[[C1]] iter_args(%[[ACC:.*]] = %{{.*}}) -> (tensor<64x64xf32>)
// CHECK: %[[AS:.*]] = tensor.extract_slice %{{.*}}[%[[I]], %[[K]]] [8, 1] [1, 1] : tensor<64x128xf32> to tensor<8x1xf32>
// CHECK: %[[BS:.*]] = tensor.extract_slice %{{.*}}[%[[K]], %[[J]]] [1, 32] [1, 1] : tensor<128x64xf32> to tensor<1x32xf32>
// CHECK: %[[CS:.*]] = tensor.extract_slice %[[ACC]][%[[I]], %[[J]]] [8, 32] [1, 1] : tensor<64x64xf32> to tensor<8x32xf32>
// CHECK: %[[VA:.*]] = vector.transfer_read %[[AS]]{{.*}} : tensor<8x1xf32>, vector<8x1xf32>
// CHECK: %[[VB:.*]] = vector.transfer_read %[[BS]]{{.*}} : tensor<1x32xf32>, vector<1x32xf32>
// CHECK: %[[VC:.*]] = vector.transfer_read %[[CS]]{{.*}} : tensor<8x32xf32>, vector<8x32xf32>
// CHECK-NOT: arith.mulf
// CHECK-NOT: vector.multi_reduction
// CHECK: %[[R:.*]] = vector.contract {indexing_maps = [#[[AMAP]], #[[BMAP]], #[[CMAP]]], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %[[VA]], %[[VB]], %[[VC]] : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
// CHECK: %[[W:.*]] = vector.transfer_write %[[R]], %[[CS]]{{.*}} : vector<8x32xf32>, tensor<8x32xf32>
// CHECK: tensor.insert_slice %[[W]] into %[[ACC]][%[[I]], %[[J]]] [8, 32] [1, 1]
// CHECK-NOT: linalg.matmul
// OPT-LABEL: func.func @matmul_tile(
// OPT-NOT: vector.multi_reduction
// OPT: vector.contract {{.*}} : vector<4x1xf32>, vector<1x16xf32> into vector<4x16xf32>
func.func @matmul_tile(%a: tensor<64x128xf32>, %b: tensor<128x64xf32>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<64x128xf32>, tensor<128x64xf32>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}

// Element-wise: one row at a time, 16 lanes of the innermost dimension.
// CHECK-LABEL: func.func @elementwise(
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C16:.*]] = arith.constant 16 : index
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %[[C1]]
// CHECK: scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %[[C16]]
// CHECK: %[[XS:.*]] = tensor.extract_slice %{{.*}}[%[[I]], %[[J]]] [1, 16] [1, 1] : tensor<4x64xf32> to tensor<1x16xf32>
// CHECK: %[[V:.*]] = vector.transfer_read %[[XS]]{{.*}} : tensor<1x16xf32>, vector<1x16xf32>
// CHECK: %[[E:.*]] = math.exp %[[V]] : vector<1x16xf32>
// CHECK: vector.transfer_write %[[E]], %{{.*}} : vector<1x16xf32>, tensor<1x16xf32>
// CHECK-NOT: linalg.generic
// OPT-LABEL: func.func @elementwise(
// OPT: math.exp %{{.*}} : vector<1x8xf32>
func.func @elementwise(%x: tensor<4x64xf32>) -> tensor<4x64xf32> {
  %e = tensor.empty() : tensor<4x64xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x64xf32>) outs(%e : tensor<4x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = math.exp %in : f32
    linalg.yield %m : f32
  } -> tensor<4x64xf32>
  return %r : tensor<4x64xf32>
}

// A transpose: 16 x 16 tiles (8 x 8 with 8 lanes), each read as 16 rows of
// the input and transposed in registers, not a gather down a column.
// CHECK-LABEL: func.func @transpose(
// CHECK-DAG: %[[C16:.*]] = arith.constant 16 : index
// CHECK: scf.for %{{.*}} step %[[C16]]
// CHECK: scf.for %{{.*}} step %[[C16]]
// CHECK: %[[XS:.*]] = tensor.extract_slice %{{.*}} [16, 16] [1, 1] : tensor<64x32xf32> to tensor<16x16xf32>
// CHECK: vector.transfer_read %[[XS]]{{.*}}permutation_map = #{{.*}}} : tensor<16x16xf32>, vector<16x16xf32>
// CHECK: vector.transfer_write {{.*}} : vector<16x16xf32>, tensor<16x16xf32>
// OPT-LABEL: func.func @transpose(
// OPT: vector.transfer_read {{.*}} : tensor<8x8xf32>, vector<8x8xf32>
func.func @transpose(%x: tensor<64x32xf32>) -> tensor<32x64xf32> {
  %e = tensor.empty() : tensor<32x64xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<64x32xf32>) outs(%e : tensor<32x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<32x64xf32>
  return %r : tensor<32x64xf32>
}

// No larger than a register tile: vectorized whole, no loop.
// CHECK-LABEL: func.func @small(
// CHECK-SAME: %[[X:.*]]: tensor<8xf32>, %[[Y:.*]]: tensor<8xf32>
// CHECK-NOT: scf.for
// CHECK: %[[VX:.*]] = vector.transfer_read %[[X]]{{.*}} : tensor<8xf32>, vector<8xf32>
// CHECK: %[[VY:.*]] = vector.transfer_read %[[Y]]{{.*}} : tensor<8xf32>, vector<8xf32>
// CHECK: %[[S:.*]] = arith.addf %[[VX]], %[[VY]] : vector<8xf32>
// CHECK: %[[W:.*]] = vector.transfer_write %[[S]], %{{.*}} : vector<8xf32>, tensor<8xf32>
// CHECK: return %[[W]]
func.func @small(%x: tensor<8xf32>, %y: tensor<8xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x, %y : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%in: f32, %in2: f32, %out: f32):
    %m = arith.addf %in, %in2 : f32
    linalg.yield %m : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// A row reduction: 8 rows at a time, 16 elements of each per step, the
// reduction loop innermost.
// CHECK-LABEL: func.func @rowsum(
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c8
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c16
// CHECK: %[[V:.*]] = vector.transfer_read %{{.*}} : tensor<8x16xf32>, vector<8x16xf32>
// CHECK: %[[A:.*]] = vector.transfer_read %{{.*}} : tensor<8xf32>, vector<8xf32>
// CHECK: vector.multi_reduction <add>, %[[V]], %[[A]] [1] : vector<8x16xf32> to vector<8xf32>
func.func @rowsum(%x: tensor<16x64xf32>, %acc: tensor<16xf32>) -> tensor<16xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<16x64xf32>) outs(%acc : tensor<16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.addf %out, %in : f32
    linalg.yield %m : f32
  } -> tensor<16xf32>
  return %r : tensor<16xf32>
}

// A batch of row reductions (a layer norm's mean over the last dimension of
// x[b, t, c]; every input depends on both output loops): each row as
// above, 8 rows of t by the 8 contiguous elements of c, not a contraction
// tile of 8 x 32 outputs reading vectors across rows with a stride of 8.
// CHECK-LABEL: func.func @batched_rowsum(
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c8
// CHECK: %[[V:.*]] = vector.transfer_read %{{.*}} : tensor<1x8x8xf32>, vector<1x8x8xf32>
// CHECK-NOT: permutation_map
// CHECK: vector.multi_reduction <add>, %[[V]], %{{.*}} [2] : vector<1x8x8xf32> to vector<1x8xf32>
func.func @batched_rowsum(%x: tensor<4x64x8xf32>, %acc: tensor<4x64xf32>) -> tensor<4x64xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x : tensor<4x64x8xf32>) outs(%acc : tensor<4x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.addf %out, %in : f32
    linalg.yield %m : f32
  } -> tensor<4x64xf32>
  return %r : tensor<4x64xf32>
}

// A column reduction: its loops swapped so the vectors are rows of x (not
// read transposed), 64 outputs a tile, one row per step of the inner loop.
// CHECK-LABEL: func.func @colsum(
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c64
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c1
// CHECK: %[[V:.*]] = vector.transfer_read %{{.*}} : tensor<1x64xf32>, vector<1x64xf32>
// CHECK-NOT: permutation_map
// CHECK: %[[A:.*]] = vector.transfer_read %{{.*}} : tensor<64xf32>, vector<64xf32>
// CHECK: vector.multi_reduction <add>, %[[V]], %[[A]] [0] : vector<1x64xf32> to vector<64xf32>
func.func @colsum(%x: tensor<16x128xf32>, %acc: tensor<128xf32>) -> tensor<128xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<16x128xf32>) outs(%acc : tensor<128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.addf %out, %in : f32
    linalg.yield %m : f32
  } -> tensor<128xf32>
  return %r : tensor<128xf32>
}

// Matrix-vector products: A @ x takes 8 rows by 16 columns a step (a
// contraction into 8 outputs), x @ A 64 columns of one row a step.
// CHECK-LABEL: func.func @matvec(
// CHECK: vector.contract {{.*}} : vector<8x16xf32>, vector<16xf32> into vector<8xf32>
// CHECK-LABEL: func.func @vecmat(
// CHECK: vector.contract {{.*}} : vector<1xf32>, vector<1x64xf32> into vector<64xf32>
func.func @matvec(%a: tensor<32x64xf32>, %x: tensor<64xf32>, %y: tensor<32xf32>) -> tensor<32xf32> {
  %r = linalg.matvec ins(%a, %x : tensor<32x64xf32>, tensor<64xf32>) outs(%y : tensor<32xf32>) -> tensor<32xf32>
  return %r : tensor<32xf32>
}
func.func @vecmat(%x: tensor<32xf32>, %a: tensor<32x128xf32>, %y: tensor<128xf32>) -> tensor<128xf32> {
  %r = linalg.vecmat ins(%x, %a : tensor<32xf32>, tensor<32x128xf32>) outs(%y : tensor<128xf32>) -> tensor<128xf32>
  return %r : tensor<128xf32>
}

// Index notation's products are linalg.generic ops: one whose body is
// out + a * b and whose result indexes the leading loops in order becomes a
// linalg.contract, vectorized as a named one (outer products, so FMAs); a
// product into a transposed result (c[j, i]) first has its loops permuted
// into the result's order, and the operand read along the result's last
// loop (a[i, k]) becomes the right-hand side.
// CHECK-LABEL: func.func @index_matmul(
// CHECK: vector.contract {{.*}} : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
// CHECK-NOT: arith.mulf
// CHECK-LABEL: func.func @index_matmul_transposed_result(
// CHECK-NOT: arith.mulf
// CHECK: vector.contract {{.*}} : vector<1x8xf32>, vector<32x1xf32> into vector<8x32xf32>
// sum(k) x[k] * x[i] (a difffuzz find): x[i] does not vary with k, so no
// reduction pair for vector.contract; it stays a generic.
// CHECK-LABEL: func.func @no_contracting_pair(
// CHECK-NOT: vector.contract
// CHECK: return
func.func @index_matmul(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%c : tensor<64x64xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}
func.func @index_matmul_transposed_result(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (j, i)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%c : tensor<64x64xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}

func.func @no_contracting_pair(%x: tensor<7xf64>, %c: tensor<7xf64>) -> tensor<7xf64> {
  %r = linalg.generic {indexing_maps = [affine_map<(i, k) -> (k)>, affine_map<(i, k) -> (i)>, affine_map<(i, k) -> (i)>], iterator_types = ["parallel", "reduction"]} ins(%x, %x : tensor<7xf64>, tensor<7xf64>) outs(%c : tensor<7xf64>) {
  ^bb0(%a: f64, %b: f64, %acc: f64):
    %m = arith.mulf %a, %b : f64
    %s = arith.addf %acc, %m : f64
    linalg.yield %s : f64
  } -> tensor<7xf64>
  return %r : tensor<7xf64>
}

// Shapes known only at run time: tiled by 16 (the last tile clamped) and
// vectorized with masks: a 16-lane mask of the tile's run-time size guards
// the reads and the write.
// CHECK-LABEL: func.func @dynamic(
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[OUT:.*]] = %{{.*}})
// CHECK: %[[SZ:.*]] = affine.min #[[DMIN]](%{{.*}})[%{{.*}}]
// CHECK: %[[XS:.*]] = tensor.extract_slice %{{.*}}[%{{.*}}] [%[[SZ]]] [1] : tensor<?xf32> to tensor<?xf32>
// CHECK: %[[OS:.*]] = tensor.extract_slice %[[OUT]][%{{.*}}] [%[[SZ]]] [1] : tensor<?xf32> to tensor<?xf32>
// CHECK: %[[D:.*]] = tensor.dim %[[XS]], %{{.*}} : tensor<?xf32>
// CHECK: %[[M:.*]] = vector.create_mask %[[D]] : vector<16xi1>
// CHECK: %[[V:.*]] = vector.mask %[[M]] { vector.transfer_read %[[XS]]{{.*}} : tensor<?xf32>, vector<16xf32> } : vector<16xi1> -> vector<16xf32>
// CHECK: %[[P:.*]] = arith.mulf %[[V]], %[[V]] : vector<16xf32>
// CHECK: %[[W:.*]] = vector.mask %[[M]] { vector.transfer_write %[[P]], %[[OS]]{{.*}} : vector<16xf32>, tensor<?xf32> } : vector<16xi1> -> tensor<?xf32>
// CHECK: tensor.insert_slice %[[W]] into %[[OUT]][%{{.*}}] [%[[SZ]]] [1]
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @dynamic(%x: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %d0 = tensor.dim %x, %c0 : tensor<?xf32>
  %e = tensor.empty(%d0) : tensor<?xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x : tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %in : f32
    linalg.yield %m : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// A body the vectorizer rejects (a call) is tiled but stays scalar.
// CHECK-LABEL: func.func @not_vectorizable(
// CHECK: scf.for
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.*}} : tensor<16xf32>)
// CHECK: func.call @ext(%{{.*}}) : (f32) -> f32
// CHECK-NOT: vector.
func.func @not_vectorizable(%x: tensor<64xf32>) -> tensor<64xf32> {
  %e = tensor.empty() : tensor<64xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x : tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = func.call @ext(%in) : (f32) -> f32
    linalg.yield %m : f32
  } -> tensor<64xf32>
  return %r : tensor<64xf32>
}
func.func private @ext(f32) -> f32

// A convolution's tile (one image and output row, 8 output channels x 56
// columns, a 3 x 3 x 3 window): the 56 columns split into 32, 16 and 8 (no
// masked tile, no vector of 24 floats); the register tiles are 8 channels x
// 32 columns (a load of the image serves all 8), and in each the window
// loops, of one step there, drop out of the subscripts
// (x[n, c, i + di, j + dj] with di = dj = 0), so the read is a plain slice
// and the tile a vector.contract, not a scalar loop.
// CHECK-LABEL: func.func @conv_tile(
// CHECK-NOT: linalg.generic
// CHECK-NOT: vector.mask
// CHECK: vector.contract {{.*}} : vector<8x1xf32>, vector<1x1x1x32xf32> into vector<1x8x1x32xf32>
// CHECK-NOT: vector.mask
// CHECK: vector.contract {{.*}} : vector<8x1xf32>, vector<1x1x1x16xf32> into vector<1x8x1x16xf32>
// CHECK-NOT: vector.mask
// CHECK: vector.contract {{.*}} : vector<8x1xf32>, vector<1x1x1x8xf32> into vector<1x8x1x8xf32>
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @conv_tile(%w: tensor<8x3x3x3xf32>, %x: tensor<1x3x3x58xf32>, %out: tensor<1x8x1x56xf32>) -> tensor<1x8x1x56xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(n, k, i, j, c, di, dj) -> (k, c, di, dj)>, affine_map<(n, k, i, j, c, di, dj) -> (n, c, i + di, j + dj)>, affine_map<(n, k, i, j, c, di, dj) -> (n, k, i, j)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%w, %x : tensor<8x3x3x3xf32>, tensor<1x3x3x58xf32>) outs(%out : tensor<1x8x1x56xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x8x1x56xf32>
  return %r : tensor<1x8x1x56xf32>
}

// A stride-2 convolution's tile (x[n, c, 2i + di, 2j + dj], one output row
// of 16 columns): with the window loops dropped, the columns 2j are a
// strided slice of the tile's 31 (and the row, 2i with i of one step, a
// slice of one), read at j: a vector.contract, not a scalar loop.
// CHECK-LABEL: func.func @strided_conv_tile(
// CHECK-NOT: linalg.generic
// CHECK: tensor.extract_slice %{{.*}}[0, 0, 0, 0] [1, 1, 1, 16] [1, 1, 2, 2] : tensor<1x1x1x31xf32> to tensor<1x1x1x16xf32>
// CHECK: vector.contract {{.*}} : vector<8x1xf32>, vector<1x1x1x16xf32> into vector<1x8x1x16xf32>
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @strided_conv_tile(%w: tensor<8x3x3x3xf32>, %x: tensor<1x3x3x33xf32>, %out: tensor<1x8x1x16xf32>) -> tensor<1x8x1x16xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(n, k, i, j, c, di, dj) -> (k, c, di, dj)>, affine_map<(n, k, i, j, c, di, dj) -> (n, c, 2 * i + di, 2 * j + dj)>, affine_map<(n, k, i, j, c, di, dj) -> (n, k, i, j)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%w, %x : tensor<8x3x3x3xf32>, tensor<1x3x3x33xf32>) outs(%out : tensor<1x8x1x16xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x8x1x16xf32>
  return %r : tensor<1x8x1x16xf32>
}

// A batch of one image read as x[0, ...] (no operand reads the batch
// loop): the loop of one step becomes a leading dimension of the kernel's
// operand, and the tile is still a vector.contract.
// CHECK-LABEL: func.func @conv_tile_batch_of_one(
// CHECK: tensor.expand_shape
// CHECK: vector.contract {{.*}} into vector<1x8x1x16xf32>
// CHECK-NOT: arith.mulf
// CHECK: return
func.func @conv_tile_batch_of_one(%w: tensor<8x3x3x3xf32>, %x: tensor<1x3x3x18xf32>, %out: tensor<1x8x1x16xf32>) -> tensor<1x8x1x16xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(n, k, i, j, c, di, dj) -> (k, c, di, dj)>, affine_map<(n, k, i, j, c, di, dj) -> (0, c, i + di, j + dj)>, affine_map<(n, k, i, j, c, di, dj) -> (n, k, i, j)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%w, %x : tensor<8x3x3x3xf32>, tensor<1x3x3x18xf32>) outs(%out : tensor<1x8x1x16xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x8x1x16xf32>
  return %r : tensor<1x8x1x16xf32>
}

// A convolution's input adjoint (the seed's window read against the kernel,
// a reduction over output channels k among the result's loops): once the
// window loops drop out, its loops are put in the result's order, and it
// is a vector.contract (FMAs), not a multiply and an add.
// CHECK-LABEL: func.func @conv_input_adjoint_tile(
// CHECK-NOT: vector.multi_reduction
// CHECK: vector.contract {{.*}} into vector<1x8x1x32xf32>
// CHECK-NOT: vector.multi_reduction
// CHECK: return
func.func @conv_input_adjoint_tile(%w: tensor<8x8x3x3xf32>, %s: tensor<1x8x3x34xf32>, %out: tensor<1x8x1x32xf32>) -> tensor<1x8x1x32xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(n, k, c, di, dj, i, j) -> (k, c, di, dj)>, affine_map<(n, k, c, di, dj, i, j) -> (n, k, di + i, dj + j)>, affine_map<(n, k, c, di, dj, i, j) -> (n, c, i, j)>], iterator_types = ["parallel", "reduction", "parallel", "reduction", "reduction", "parallel", "parallel"]}
      ins(%w, %s : tensor<8x8x3x3xf32>, tensor<1x8x3x34xf32>) outs(%out : tensor<1x8x1x32xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %t = arith.addf %acc, %m : f32
    linalg.yield %t : f32
  } -> tensor<1x8x1x32xf32>
  return %r : tensor<1x8x1x32xf32>
}

// The same tile on run-time sizes: its rows and columns loops are peeled
// (split in arith ops, not affine maps), so the main loops run whole 8 x 32
// tiles on static types and the columns' last partial tile runs tiles of
// 16, then 8; the rest (fewer than 8 columns; the last rows) runs masked
// vectors, its window read x[.., j + dj] as wide as the output tile (the
// same run-time size), so the window loops drop out there too.
// CHECK-LABEL: func.func @conv_tile_dynamic(
// CHECK: arith.remui %{{.*}}, %c8
// CHECK: arith.remui %{{.*}}, %c32
// CHECK: vector.contract {{.*}} into vector<1x8x1x32xf32>
// CHECK: arith.remui %{{.*}}, %c16
// CHECK: vector.contract {{.*}} into vector<1x8x1x16xf32>
// CHECK: vector.contract {{.*}} into vector<1x8x1x8xf32>
// CHECK: vector.mask %{{.*}} { vector.transfer_read {{.*}} : tensor<1x1x1x?xf32>, vector<1x1x1x8xf32> }
// CHECK: vector.contract {{.*}} into vector<1x8x1x8xf32>
// CHECK: vector.mask %{{.*}} { vector.transfer_read {{.*}} : tensor<1x1x1x?xf32>, vector<1x1x1x32xf32> }
// CHECK: vector.contract {{.*}} into vector<1x8x1x32xf32>
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @conv_tile_dynamic(%w: tensor<?x?x?x?xf32>, %x: tensor<1x?x?x?xf32>, %out: tensor<1x?x1x?xf32>) -> tensor<1x?x1x?xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(n, k, i, j, c, di, dj) -> (k, c, di, dj)>, affine_map<(n, k, i, j, c, di, dj) -> (n, c, i + di, j + dj)>, affine_map<(n, k, i, j, c, di, dj) -> (n, k, i, j)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%w, %x : tensor<?x?x?x?xf32>, tensor<1x?x?x?xf32>) outs(%out : tensor<1x?x1x?xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x?x1x?xf32>
  return %r : tensor<1x?x1x?xf32>
}

// A convolution kernel's adjoint on run-time sizes: the seed's 8 output
// channels are read through a slice that drops every unit dimension and an
// expand_shape, not a collapse of the 1 x 8 x 1 x 1 slice, which
// bufferization copies into a new buffer when the strides are run-time
// values.
// CHECK-LABEL: func.func @conv_kernel_adjoint_dynamic(
// CHECK-NOT: tensor.collapse_shape
// CHECK: tensor.extract_slice %{{.*}}[0, 0, 0, 0] [1, 8, 1, 1] [1, 1, 1, 1] : tensor<1x8x1x1xf32> to tensor<8xf32>
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0, 1]] output_shape [1, 8] : tensor<8xf32> into tensor<1x8xf32>
// CHECK-NOT: tensor.collapse_shape
// CHECK: return
func.func @conv_kernel_adjoint_dynamic(%s: tensor<?x16x?x?xf32>, %x: tensor<?x1x?x?xf32>, %dw: tensor<16x1x1x3xf32>) -> tensor<16x1x1x3xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(k, c, di, dj, n, i, j) -> (n, k, i, j)>, affine_map<(k, c, di, dj, n, i, j) -> (n, c, i + di, j + dj)>, affine_map<(k, c, di, dj, n, i, j) -> (k, c, di, dj)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%s, %x : tensor<?x16x?x?xf32>, tensor<?x1x?x?xf32>) outs(%dw : tensor<16x1x1x3xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %t = arith.addf %acc, %m : f32
    linalg.yield %t : f32
  } -> tensor<16x1x1x3xf32>
  return %r : tensor<16x1x1x3xf32>
}

// A reduction loop between the output loops (a dense layer's input adjoint,
// dx[n, k] = sum(o) s[n, o] * w[k, o]): the loops are put in the result's
// order first, so it is a vector.contract too (it was a multiply of two
// broadcast 8 x 1 x 32 reads and an add).
// CHECK-LABEL: func.func @reduction_between(
// CHECK-NOT: arith.mulf
// CHECK: vector.contract {{.*}} : vector<8x1xf32>, vector<32x1xf32> into vector<8x32xf32>
func.func @reduction_between(%s: tensor<32x10xf32>, %w: tensor<128x10xf32>, %o: tensor<32x128xf32>) -> tensor<32x128xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(n, o, k) -> (n, o)>, affine_map<(n, o, k) -> (k, o)>, affine_map<(n, o, k) -> (n, k)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%s, %w : tensor<32x10xf32>, tensor<128x10xf32>) outs(%o : tensor<32x128xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %t = arith.addf %acc, %m : f32
    linalg.yield %t : f32
  } -> tensor<32x128xf32>
  return %r : tensor<32x128xf32>
}

// On run-time sizes the register tile's reads and write are masked, its
// vector.contract (rows x columns x 1 step) is not: the lanes a mask would
// turn off are past the edge, zeros in the reads, dropped by the write.
// CHECK-LABEL: func.func @dynamic_product(
// CHECK: vector.mask %{{.*}} { vector.transfer_read
// CHECK-NOT: vector.mask %{{.*}} { vector.contract
// CHECK: vector.contract {{.*}} : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
// CHECK-NOT: vector.mask %{{.*}} { vector.contract
// CHECK: vector.mask %{{.*}} { vector.transfer_write
func.func @dynamic_product(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%c : tensor<?x?xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %t = arith.addf %acc, %m : f32
    linalg.yield %t : f32
  } -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
