// Regression test (FAILS at present): tdsl-vectorize on ops with dynamic
// shapes. Vectorize.cpp passes vector sizes to linalg::vectorize but no
// scalable-dims flags; the vectorizer then builds mask types from an empty
// scalable-dims array, and the `vector.mask` ops it creates fail
// verification ("expects a 'vector<16xi1>' mask for the maskable operation")
// or, depending on memory contents, pass. Passing
// SmallVector<bool>(sizes.size(), false) as inputScalableVecDims fixes it.
// RUN: tdsl-opt %s --tdsl-vectorize | FileCheck %s

// CHECK-LABEL: func.func @dynamic_1d(
// CHECK-SAME: %[[X:.*]]: tensor<?xf32>
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}}
// CHECK: %[[SZ:.*]] = affine.min
// CHECK: %[[M:.*]] = vector.create_mask %{{.*}} : vector<16xi1>
// CHECK: %[[V:.*]] = vector.mask %[[M]] { vector.transfer_read {{.*}} : tensor<?xf32>, vector<16xf32> } : vector<16xi1> -> vector<16xf32>
// CHECK: %[[P:.*]] = arith.mulf %[[V]], %[[V]] : vector<16xf32>
// CHECK: vector.mask %[[M]] { vector.transfer_write %[[P]], {{.*}} : vector<16xf32>, tensor<?xf32> } : vector<16xi1> -> tensor<?xf32>
func.func @dynamic_1d(%x: tensor<?xf32>) -> tensor<?xf32> {
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
