// Vector reads along a dimension of stride 2 to 4 become a masked read of
// the contiguous elements they span and a shuffle of every s-th lane
// (tdsl-deinterleave-strided-reads); other reads stay.
// RUN: tdsl-opt %s --split-input-file --tdsl-deinterleave-strided-reads | FileCheck %s

// Columns 1, 3, ..., 31 of a row: a view of the 31 elements from column 1
// on, read as 32 lanes (the last past the view: not in bounds), lanes 0, 2,
// ..., 30 kept.
// CHECK-LABEL: func.func @stride2(
// CHECK: %[[BASE:[^,]*]], %[[OFF:[^,]*]], %{{.*}} = memref.extract_strided_metadata
// CHECK: %[[FLAT:.*]] = memref.reinterpret_cast %[[BASE]] to offset: [%[[OFF]]], sizes: [31], strides: [1]
// CHECK: %[[W:.*]] = vector.transfer_read %[[FLAT]][%{{.*}}], %{{.*}} : memref<31xf32, strided<[1], offset: ?>>, vector<32xf32>
// CHECK: vector.shuffle %[[W]], %[[W]] [0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30] : vector<32xf32>, vector<32xf32>
// CHECK-NOT: vector.transfer_read
func.func @stride2(%x: memref<4x64xf32>, %i: index) -> vector<1x16xf32> {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %s = memref.subview %x[%i, 1] [1, 16] [1, 2] : memref<4x64xf32> to memref<1x16xf32, strided<[64, 2], offset: ?>>
  %v = vector.transfer_read %s[%c0, %c0], %pad {in_bounds = [true, true]} : memref<1x16xf32, strided<[64, 2], offset: ?>>, vector<1x16xf32>
  return %v : vector<1x16xf32>
}

// -----

// A read broadcast over 8 rows (a convolution's register tile reads its
// inputs so) is first a read of one row, then the shuffle, then the
// broadcast; stride 3, a run-time length n: the view spans 3 * (n - 1) + 1
// elements (none when n = 0), the read starts at 3 * j.
// CHECK-LABEL: func.func @broadcast_stride3(
// CHECK-SAME: %[[X:[^:]*]]: memref<?xf32, strided<[3], offset: ?>>, %[[J:[^:]*]]: index
// CHECK: %[[BASE:[^,]*]], %[[OFF:[^,]*]], %[[N:[^,]*]], %{{.*}} = memref.extract_strided_metadata %[[X]]
// CHECK: %[[M:.*]] = arith.subi %[[N]], %c1
// CHECK: %[[S:.*]] = arith.muli %[[M]], %c3
// CHECK: %[[S1:.*]] = arith.addi %[[S]], %c1
// CHECK: %[[E:.*]] = arith.cmpi eq, %[[N]], %c0
// CHECK: %[[SPAN:.*]] = arith.select %[[E]], %[[N]], %[[S1]]
// CHECK: %[[FLAT:.*]] = memref.reinterpret_cast %[[BASE]] to offset: [%[[OFF]]], sizes: [%[[SPAN]]], strides: [1]
// CHECK: %[[J3:.*]] = arith.muli %[[J]], %c3
// CHECK: %[[W:.*]] = vector.transfer_read %[[FLAT]][%[[J3]]], %{{.*}} : memref<?xf32, strided<[1], offset: ?>>, vector<24xf32>
// CHECK: %[[V:.*]] = vector.shuffle %[[W]], %[[W]] [0, 3, 6, 9, 12, 15, 18, 21] : vector<24xf32>, vector<24xf32>
// CHECK: vector.broadcast %[[V]] : vector<8xf32> to vector<8x8xf32>
func.func @broadcast_stride3(%x: memref<?xf32, strided<[3], offset: ?>>, %j: index) -> vector<8x8xf32> {
  %pad = arith.constant 0.0 : f32
  %v = vector.transfer_read %x[%j], %pad {in_bounds = [true, true], permutation_map = affine_map<(d0) -> (0, d0)>} : memref<?xf32, strided<[3], offset: ?>>, vector<8x8xf32>
  return %v : vector<8x8xf32>
}

// -----

// A row of a 4-row view (the leading dimension stays): the view keeps its
// static sizes and strides, the columns become 31 of unit stride.
// CHECK-LABEL: func.func @rows(
// CHECK: memref.reinterpret_cast %{{.*}} to offset: [0], sizes: [4, 31], strides: [64, 1] : memref<f32> to memref<4x31xf32, strided<[64, 1]>>
// CHECK: vector.transfer_read %{{.*}} {in_bounds = [true, false]} : memref<4x31xf32, strided<[64, 1]>>, vector<1x32xf32>
// CHECK: vector.shuffle
func.func @rows(%x: memref<4x16xf32, strided<[64, 2]>>, %i: index) -> vector<1x16xf32> {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %v = vector.transfer_read %x[%i, %c0], %pad {in_bounds = [true, true]} : memref<4x16xf32, strided<[64, 2]>>, vector<1x16xf32>
  return %v : vector<1x16xf32>
}

// -----

// Left alone: a stride of 5 (the read would load 5 times the lanes), a
// masked read, a read that may leave the view (not in bounds), a read of
// several rows, and a read along a unit-stride dimension.
// CHECK-LABEL: func.func @others(
// CHECK-NOT: vector.shuffle
// CHECK-NOT: memref.reinterpret_cast
// CHECK: return
func.func @others(%a: memref<16xf32, strided<[5]>>, %b: memref<16xf32, strided<[2]>>,
                  %c: memref<4x16xf32, strided<[64, 2]>>, %d: memref<16xf32>, %n: index)
    -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<4x16xf32>, vector<16xf32>) {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %m = vector.create_mask %n : vector<16xi1>
  %0 = vector.transfer_read %a[%c0], %pad {in_bounds = [true]} : memref<16xf32, strided<[5]>>, vector<16xf32>
  %1 = vector.transfer_read %b[%c0], %pad, %m {in_bounds = [true]} : memref<16xf32, strided<[2]>>, vector<16xf32>
  %2 = vector.transfer_read %b[%n], %pad : memref<16xf32, strided<[2]>>, vector<16xf32>
  %3 = vector.transfer_read %c[%c0, %c0], %pad {in_bounds = [true, true]} : memref<4x16xf32, strided<[64, 2]>>, vector<4x16xf32>
  %4 = vector.transfer_read %d[%c0], %pad {in_bounds = [true]} : memref<16xf32>, vector<16xf32>
  return %0, %1, %2, %3, %4 : vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<4x16xf32>, vector<16xf32>
}
