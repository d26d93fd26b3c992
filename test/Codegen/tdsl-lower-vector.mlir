// n-D vector ops to the 1-D forms LLVM has.
// RUN: tdsl-opt %s --tdsl-lower-vector | FileCheck %s

// Contraction -> outer products -> one FMA per row of the result, on a
// broadcast element of the column of A and the row of B.
// CHECK-LABEL: func.func @contract(
// CHECK-SAME: %[[A:.*]]: vector<8x1xf32>, %[[B:.*]]: vector<1x32xf32>, %[[C:.*]]: vector<8x32xf32>
// CHECK: %[[BROW:.*]] = vector.extract %[[B]][0] : vector<32xf32> from vector<1x32xf32>
// CHECK: %[[A0:.*]] = vector.extract %[[A]][0, 0] : f32 from vector<8x1xf32>
// CHECK: %[[A0V:.*]] = vector.broadcast %[[A0]] : f32 to vector<32xf32>
// CHECK: %[[C0:.*]] = vector.extract %[[C]][0] : vector<32xf32> from vector<8x32xf32>
// CHECK: %[[R0:.*]] = vector.fma %[[A0V]], %[[BROW]], %[[C0]] : vector<32xf32>
// CHECK: vector.insert %[[R0]], %{{.*}} [0] : vector<32xf32> into vector<8x32xf32>
// CHECK-COUNT-7: vector.fma %{{.*}}, %[[BROW]], %{{.*}} : vector<32xf32>
// CHECK-NOT: vector.fma
// CHECK-NOT: vector.contract
// CHECK-NOT: vector.outerproduct
// CHECK: return
func.func @contract(%a: vector<8x1xf32>, %b: vector<1x32xf32>, %c: vector<8x32xf32>) -> vector<8x32xf32> {
  %r = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %a, %b, %c : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
  return %r : vector<8x32xf32>
}

// multi_reduction -> inner vector.reduction.
// CHECK-LABEL: func.func @multi_reduction(
// CHECK-SAME: %[[V:.*]]: vector<1x8xf32>, %[[ACC:.*]]: vector<1xf32>
// CHECK: %[[ROW:.*]] = vector.extract %[[V]][0] : vector<8xf32> from vector<1x8xf32>
// CHECK: %[[A:.*]] = vector.extract %[[ACC]][0] : f32 from vector<1xf32>
// CHECK: %[[S:.*]] = vector.reduction <add>, %[[ROW]], %[[A]] : vector<8xf32> into f32
// CHECK: vector.insert %[[S]], %{{.*}} [0] : f32 into vector<1xf32>
// CHECK-NOT: vector.multi_reduction
func.func @multi_reduction(%v: vector<1x8xf32>, %acc: vector<1xf32>) -> vector<1xf32> {
  %r = vector.multi_reduction <add>, %v, %acc [1] : vector<1x8xf32> to vector<1xf32>
  return %r : vector<1xf32>
}

// Transpose -> a 1-D shuffle of the flattened rows.
// CHECK-LABEL: func.func @transpose(
// CHECK: vector.insert_strided_slice %{{.*}}, %{{.*}} {offsets = [0], strides = [1]} : vector<4xf32> into vector<8xf32>
// CHECK: vector.insert_strided_slice %{{.*}}, %{{.*}} {offsets = [4], strides = [1]} : vector<4xf32> into vector<8xf32>
// CHECK: %[[SH:.*]] = vector.shuffle %[[X:.*]], %[[X]] [0, 4, 1, 5, 2, 6, 3, 7] : vector<8xf32>, vector<8xf32>
// CHECK-COUNT-4: vector.extract_strided_slice %[[SH]] {{.*}} : vector<8xf32> to vector<2xf32>
// CHECK-NOT: vector.transpose
func.func @transpose(%v: vector<2x4xf32>) -> vector<4x2xf32> {
  %r = vector.transpose %v, [1, 0] : vector<2x4xf32> to vector<4x2xf32>
  return %r : vector<4x2xf32>
}

// Broadcast of a 1-D vector to 2-D -> inserts of the row.
// CHECK-LABEL: func.func @broadcast_rows(
// CHECK-SAME: %[[V:.*]]: vector<16xf32>
// CHECK: %[[I0:.*]] = vector.insert %[[V]], %{{.*}} [0] : vector<16xf32> into vector<2x16xf32>
// CHECK: vector.insert %[[V]], %[[I0]] [1] : vector<16xf32> into vector<2x16xf32>
// CHECK-NOT: vector.broadcast
func.func @broadcast_rows(%v: vector<16xf32>) -> vector<2x16xf32> {
  %r = vector.broadcast %v : vector<16xf32> to vector<2x16xf32>
  return %r : vector<2x16xf32>
}

// Shape cast -> strided inserts of the rows.
// CHECK-LABEL: func.func @shape_cast(
// CHECK: vector.insert_strided_slice %{{.*}}, %{{.*}} {offsets = [0], strides = [1]} : vector<8xf32> into vector<16xf32>
// CHECK: vector.insert_strided_slice %{{.*}}, %{{.*}} {offsets = [8], strides = [1]} : vector<8xf32> into vector<16xf32>
// CHECK-NOT: vector.shape_cast
func.func @shape_cast(%v: vector<2x8xf32>) -> vector<16xf32> {
  %r = vector.shape_cast %v : vector<2x8xf32> to vector<16xf32>
  return %r : vector<16xf32>
}

// In-bounds rank-1 transfers -> plain vector loads and stores; rank-2 ones
// are left for convert-vector-to-scf.
// CHECK-LABEL: func.func @transfers(
// CHECK-SAME: %[[M:.*]]: memref<64xf32>, %[[I:.*]]: index, %[[M2:.*]]: memref<4x64xf32>
// CHECK: %[[V:.*]] = vector.load %[[M]][%[[I]]] : memref<64xf32>, vector<16xf32>
// CHECK: vector.store %[[V]], %[[M]][%[[I]]] : memref<64xf32>, vector<16xf32>
// CHECK: vector.transfer_read %[[M2]]{{.*}} : memref<4x64xf32>, vector<4x16xf32>
func.func @transfers(%m: memref<64xf32>, %i: index, %m2: memref<4x64xf32>) -> (vector<16xf32>, vector<4x16xf32>) {
  %pad = arith.constant 0.0 : f32
  %r = vector.transfer_read %m[%i], %pad {in_bounds = [true]} : memref<64xf32>, vector<16xf32>
  vector.transfer_write %r, %m[%i] {in_bounds = [true]} : vector<16xf32>, memref<64xf32>
  %r2 = vector.transfer_read %m2[%i, %i], %pad {in_bounds = [true, true]} : memref<4x64xf32>, vector<4x16xf32>
  return %r, %r2 : vector<16xf32>, vector<4x16xf32>
}

// Element-wise ops on vectors with a leading unit dimension run on 1-D
// vectors.
// CHECK-LABEL: func.func @leading_unit_dim(
// CHECK-SAME: %[[A:.*]]: vector<1x16xi32>, %[[B:.*]]: vector<1x16xi32>
// CHECK-DAG: %[[A1:.*]] = vector.extract %[[A]][0] : vector<16xi32> from vector<1x16xi32>
// CHECK-DAG: %[[B1:.*]] = vector.extract %[[B]][0] : vector<16xi32> from vector<1x16xi32>
// CHECK: %[[S:.*]] = arith.addi %[[A1]], %[[B1]] : vector<16xi32>
// CHECK: vector.insert %[[S]], %{{.*}} [0] : vector<16xi32> into vector<1x16xi32>
func.func @leading_unit_dim(%a: vector<1x16xi32>, %b: vector<1x16xi32>) -> vector<1x16xi32> {
  %r = arith.addi %a, %b : vector<1x16xi32>
  return %r : vector<1x16xi32>
}

// A 2-D mask -> 1-D masks selected per row.
// CHECK-LABEL: func.func @mask_2d(
// CHECK-SAME: %[[M:.*]]: index, %[[N:.*]]: index
// CHECK: %[[ROW:.*]] = vector.create_mask %[[N]] : vector<16xi1>
// CHECK: arith.cmpi sgt, %[[M]], %{{.*}} : index
// CHECK: arith.select %{{.*}}, %[[ROW]], %{{.*}} : vector<16xi1>
// CHECK-NOT: vector.create_mask %{{.*}}, %{{.*}} : vector<2x16xi1>
func.func @mask_2d(%m: index, %n: index) -> vector<2x16xi1> {
  %r = vector.create_mask %m, %n : vector<2x16xi1>
  return %r : vector<2x16xi1>
}

// A gather from a buffer with a run-time stride loads lane by lane (LLVM's
// masked gather and upstream's conditional vector.loads need unit stride).
// CHECK-LABEL: func.func @strided_gather(
// CHECK-SAME: %[[B:.*]]: memref<6xf64, strided<[?], offset: ?>>, %[[I:.*]]: vector<2xindex>, %[[M:.*]]: vector<2xi1>, %[[P:.*]]: vector<2xf64>
// CHECK: %[[I0:.*]] = vector.extract %[[I]][0] : index from vector<2xindex>
// CHECK: %[[M0:.*]] = vector.extract %[[M]][0] : i1 from vector<2xi1>
// CHECK: %[[R0:.*]] = scf.if %[[M0]] -> (vector<2xf64>) {
// CHECK: %[[V0:.*]] = memref.load %[[B]][%{{.*}}] : memref<6xf64, strided<[?], offset: ?>>
// CHECK: vector.insert %[[V0]], %[[P]] [0] : f64 into vector<2xf64>
// CHECK: } else {
// CHECK: scf.yield %[[P]] : vector<2xf64>
// CHECK: %[[M1:.*]] = vector.extract %[[M]][1] : i1 from vector<2xi1>
// CHECK: scf.if %[[M1]] -> (vector<2xf64>) {
// CHECK: memref.load %[[B]]
// CHECK-NOT: vector.gather
// CHECK: return
func.func @strided_gather(%b: memref<6xf64, strided<[?], offset: ?>>, %i: vector<2xindex>,
                          %m: vector<2xi1>, %p: vector<2xf64>) -> vector<2xf64> {
  %c0 = arith.constant 0 : index
  %r = vector.gather %b[%c0] [%i], %m, %p : memref<6xf64, strided<[?], offset: ?>>, vector<2xindex>, vector<2xi1>, vector<2xf64> into vector<2xf64>
  return %r : vector<2xf64>
}
