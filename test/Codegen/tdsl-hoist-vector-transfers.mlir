// Loop-invariant vector.transfer_read/transfer_write pairs on buffers move
// out of the loop; the value is carried through iter_args instead.
// RUN: tdsl-opt %s --tdsl-hoist-vector-transfers | FileCheck %s

#mk = affine_map<(m, n, k) -> (m, k)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>

// The accumulator tile of a contraction stays in registers across k.
// CHECK-LABEL: func.func @accumulator(
// CHECK-SAME: %[[A:.*]]: memref<8x128xf32>, %[[B:.*]]: memref<128x32xf32>, %[[C:.*]]: memref<8x32xf32>
// CHECK: %[[INIT:.*]] = vector.transfer_read %[[C]][%{{.*}}, %{{.*}}], %{{.*}} : memref<8x32xf32>, vector<8x32xf32>
// CHECK: %[[R:.*]] = scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %[[INIT]]) -> (vector<8x32xf32>) {
// CHECK-NOT: vector.transfer_read %[[C]]
// CHECK: vector.transfer_read %[[A]][%{{.*}}, %[[K]]]
// CHECK: vector.transfer_read %[[B]][%[[K]], %{{.*}}]
// CHECK: %[[N:.*]] = vector.contract {{.*}}, %[[ACC]] : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
// CHECK-NOT: vector.transfer_write
// CHECK: scf.yield %[[N]] : vector<8x32xf32>
// CHECK: }
// CHECK: vector.transfer_write %[[R]], %[[C]][%{{.*}}, %{{.*}}] {{.*}} : vector<8x32xf32>, memref<8x32xf32>
func.func @accumulator(%A: memref<8x128xf32>, %B: memref<128x32xf32>, %C: memref<8x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %pad = arith.constant 0.0 : f32
  scf.for %k = %c0 to %c128 step %c1 {
    %acc = vector.transfer_read %C[%c0, %c0], %pad {in_bounds = [true, true]} : memref<8x32xf32>, vector<8x32xf32>
    %a = vector.transfer_read %A[%c0, %k], %pad {in_bounds = [true, true]} : memref<8x128xf32>, vector<8x1xf32>
    %b = vector.transfer_read %B[%k, %c0], %pad {in_bounds = [true, true]} : memref<128x32xf32>, vector<1x32xf32>
    %r = vector.contract {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %a, %b, %acc : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
    vector.transfer_write %r, %C[%c0, %c0] {in_bounds = [true, true]} : vector<8x32xf32>, memref<8x32xf32>
  }
  return
}

// The slice moves with the loop: nothing is hoisted.
// CHECK-LABEL: func.func @loop_variant(
// CHECK: scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: vector.transfer_read %{{.*}}[%[[K]], %{{.*}}]
// CHECK: arith.addf
// CHECK: vector.transfer_write %{{.*}}, %{{.*}}[%[[K]], %{{.*}}]{{.*}} : vector<1x32xf32>, memref<128x32xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return
func.func @loop_variant(%C: memref<128x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %pad = arith.constant 0.0 : f32
  scf.for %k = %c0 to %c128 step %c1 {
    %v = vector.transfer_read %C[%k, %c0], %pad {in_bounds = [true, true]} : memref<128x32xf32>, vector<1x32xf32>
    %w = arith.addf %v, %v : vector<1x32xf32>
    vector.transfer_write %w, %C[%k, %c0] {in_bounds = [true, true]} : vector<1x32xf32>, memref<128x32xf32>
  }
  return
}

// Another write to the same buffer inside the loop may alias the slice:
// nothing is hoisted.
// CHECK-LABEL: func.func @conflicting_store(
// CHECK: scf.for
// CHECK: vector.transfer_read
// CHECK: memref.store
// CHECK: vector.transfer_write {{.*}} : vector<8x32xf32>, memref<8x32xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return
func.func @conflicting_store(%C: memref<8x32xf32>, %x: f32, %i: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %pad = arith.constant 0.0 : f32
  scf.for %k = %c0 to %c128 step %c1 {
    %v = vector.transfer_read %C[%c0, %c0], %pad {in_bounds = [true, true]} : memref<8x32xf32>, vector<8x32xf32>
    memref.store %x, %C[%i, %i] : memref<8x32xf32>
    %w = arith.addf %v, %v : vector<8x32xf32>
    vector.transfer_write %w, %C[%c0, %c0] {in_bounds = [true, true]} : vector<8x32xf32>, memref<8x32xf32>
  }
  return
}
