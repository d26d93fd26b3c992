// Reads of one row at offsets closer than a vector (a stencil's a[i - 1],
// a[i], a[i + 1]) are served by the lowest and highest of them: the ones
// between become shuffles. A loop whose reads are masked is peeled first,
// and only its main part (whole vectors) is rewritten.
//
// RUN: tdsl-opt %s --split-input-file --tdsl-share-shifted-reads | FileCheck %s

#min = affine_map<(d0) -> (-d0 + 1998, 8)>

// CHECK-LABEL: func.func @sweep1d(
// The main loop: two loads, a[i + 0 .. 7] from lanes 1-7 of a[i - 1 ..] and
// lane 6 of a[i + 1 ..].
// CHECK: scf.for %{{.*}} = %c0 to %c1992 step %c8 {
// CHECK: %[[LO:.*]] = vector.transfer_read %{{.*}}[%c0]
// CHECK-NEXT: %[[HI:.*]] = vector.transfer_read %{{.*}}[%c0]
// CHECK-NEXT: %[[MID:.*]] = vector.shuffle %[[LO]], %[[HI]] [1, 2, 3, 4, 5, 6, 7, 14] : vector<8xf64>, vector<8xf64>
// CHECK-NEXT: %[[X:.*]] = arith.addf %[[LO]], %[[MID]]
// CHECK-NEXT: arith.addf %[[X]], %[[HI]]
// The last, partial step keeps its three masked loads.
// CHECK: scf.for %{{.*}} = %c1992 to %c1998 step %c8 {
// CHECK-COUNT-3: vector.transfer_read
// CHECK-NOT: vector.shuffle
// CHECK: return
func.func @sweep1d(%a: memref<2000xf64>, %b: memref<2000xf64>) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c1998 = arith.constant 1998 : index
  %pad = ub.poison : f64
  %lo = memref.subview %a[0] [1998] [1] : memref<2000xf64> to memref<1998xf64, strided<[1]>>
  %mid = memref.subview %a[1] [1998] [1] : memref<2000xf64> to memref<1998xf64, strided<[1], offset: 1>>
  %hi = memref.subview %a[2] [1998] [1] : memref<2000xf64> to memref<1998xf64, strided<[1], offset: 2>>
  %out = memref.subview %b[1] [1998] [1] : memref<2000xf64> to memref<1998xf64, strided<[1], offset: 1>>
  scf.for %i = %c0 to %c1998 step %c8 {
    %n = affine.min #min(%i)
    %s0 = memref.subview %lo[%i] [%n] [1] : memref<1998xf64, strided<[1]>> to memref<?xf64, strided<[1], offset: ?>>
    %s1 = memref.subview %mid[%i] [%n] [1] : memref<1998xf64, strided<[1], offset: 1>> to memref<?xf64, strided<[1], offset: ?>>
    %s2 = memref.subview %hi[%i] [%n] [1] : memref<1998xf64, strided<[1], offset: 2>> to memref<?xf64, strided<[1], offset: ?>>
    %so = memref.subview %out[%i] [%n] [1] : memref<1998xf64, strided<[1], offset: 1>> to memref<?xf64, strided<[1], offset: ?>>
    %m = vector.create_mask %n : vector<8xi1>
    %v0 = vector.transfer_read %s0[%c0], %pad, %m {in_bounds = [true]} : memref<?xf64, strided<[1], offset: ?>>, vector<8xf64>
    %v1 = vector.transfer_read %s1[%c0], %pad, %m {in_bounds = [true]} : memref<?xf64, strided<[1], offset: ?>>, vector<8xf64>
    %v2 = vector.transfer_read %s2[%c0], %pad, %m {in_bounds = [true]} : memref<?xf64, strided<[1], offset: ?>>, vector<8xf64>
    %x = arith.addf %v0, %v1 : vector<8xf64>
    %y = arith.addf %x, %v2 : vector<8xf64>
    vector.transfer_write %y, %so[%c0], %m {in_bounds = [true]} : vector<8xf64>, memref<?xf64, strided<[1], offset: ?>>
  }
  return
}

// -----

// Rows of a 3-D buffer read through subviews with run-time offsets (the
// i, j, k of a 7-point stencil, k in whole vectors): the k - 1, k, k + 1
// reads share two loads (through 1-D shape casts); reads of rows j - 1 and
// j + 1 are other rows, 120 elements away, and stay loads.
// CHECK-LABEL: func.func @rows3d(
// CHECK: %[[KM:.*]] = vector.transfer_read %{{.*}} : memref<1x1x8xf64, strided<[14400, 120, 1], offset: ?>>, vector<1x1x8xf64>
// CHECK: %[[KP:.*]] = vector.transfer_read %{{.*}} : memref<1x1x8xf64, strided<[14400, 120, 1], offset: ?>>, vector<1x1x8xf64>
// CHECK-NEXT: %[[L:.*]] = vector.shape_cast %[[KM]] : vector<1x1x8xf64> to vector<8xf64>
// CHECK-NEXT: %[[H:.*]] = vector.shape_cast %[[KP]] : vector<1x1x8xf64> to vector<8xf64>
// CHECK-NEXT: %[[S:.*]] = vector.shuffle %[[L]], %[[H]] [1, 2, 3, 4, 5, 6, 7, 14]
// CHECK-NEXT: vector.shape_cast %[[S]] : vector<8xf64> to vector<1x1x8xf64>
// CHECK-COUNT-2: vector.transfer_read
// CHECK-NOT: vector.transfer_read
// CHECK: vector.transfer_write
func.func @rows3d(%a: memref<120x120x120xf64>, %b: memref<120x120x120xf64>, %i: index, %j: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c112 = arith.constant 112 : index
  %pad = ub.poison : f64
  %vkm = memref.subview %a[1, 1, 0] [118, 118, 118] [1, 1, 1] : memref<120x120x120xf64> to memref<118x118x118xf64, strided<[14400, 120, 1], offset: 14520>>
  %vk = memref.subview %a[1, 1, 1] [118, 118, 118] [1, 1, 1] : memref<120x120x120xf64> to memref<118x118x118xf64, strided<[14400, 120, 1], offset: 14521>>
  %vkp = memref.subview %a[1, 1, 2] [118, 118, 118] [1, 1, 1] : memref<120x120x120xf64> to memref<118x118x118xf64, strided<[14400, 120, 1], offset: 14522>>
  %vjm = memref.subview %a[1, 0, 1] [118, 118, 118] [1, 1, 1] : memref<120x120x120xf64> to memref<118x118x118xf64, strided<[14400, 120, 1], offset: 14401>>
  %vjp = memref.subview %a[1, 2, 1] [118, 118, 118] [1, 1, 1] : memref<120x120x120xf64> to memref<118x118x118xf64, strided<[14400, 120, 1], offset: 14641>>
  %vo = memref.subview %b[1, 1, 1] [118, 118, 118] [1, 1, 1] : memref<120x120x120xf64> to memref<118x118x118xf64, strided<[14400, 120, 1], offset: 14521>>
  scf.for %k = %c0 to %c112 step %c8 {
    %r0 = memref.subview %vkm[%i, %j, %k] [1, 1, 8] [1, 1, 1] : memref<118x118x118xf64, strided<[14400, 120, 1], offset: 14520>> to memref<1x1x8xf64, strided<[14400, 120, 1], offset: ?>>
    %r1 = memref.subview %vk[%i, %j, %k] [1, 1, 8] [1, 1, 1] : memref<118x118x118xf64, strided<[14400, 120, 1], offset: 14521>> to memref<1x1x8xf64, strided<[14400, 120, 1], offset: ?>>
    %r2 = memref.subview %vkp[%i, %j, %k] [1, 1, 8] [1, 1, 1] : memref<118x118x118xf64, strided<[14400, 120, 1], offset: 14522>> to memref<1x1x8xf64, strided<[14400, 120, 1], offset: ?>>
    %r3 = memref.subview %vjm[%i, %j, %k] [1, 1, 8] [1, 1, 1] : memref<118x118x118xf64, strided<[14400, 120, 1], offset: 14401>> to memref<1x1x8xf64, strided<[14400, 120, 1], offset: ?>>
    %r4 = memref.subview %vjp[%i, %j, %k] [1, 1, 8] [1, 1, 1] : memref<118x118x118xf64, strided<[14400, 120, 1], offset: 14641>> to memref<1x1x8xf64, strided<[14400, 120, 1], offset: ?>>
    %ro = memref.subview %vo[%i, %j, %k] [1, 1, 8] [1, 1, 1] : memref<118x118x118xf64, strided<[14400, 120, 1], offset: 14521>> to memref<1x1x8xf64, strided<[14400, 120, 1], offset: ?>>
    %x0 = vector.transfer_read %r0[%c0, %c0, %c0], %pad {in_bounds = [true, true, true]} : memref<1x1x8xf64, strided<[14400, 120, 1], offset: ?>>, vector<1x1x8xf64>
    %x1 = vector.transfer_read %r1[%c0, %c0, %c0], %pad {in_bounds = [true, true, true]} : memref<1x1x8xf64, strided<[14400, 120, 1], offset: ?>>, vector<1x1x8xf64>
    %x2 = vector.transfer_read %r2[%c0, %c0, %c0], %pad {in_bounds = [true, true, true]} : memref<1x1x8xf64, strided<[14400, 120, 1], offset: ?>>, vector<1x1x8xf64>
    %x3 = vector.transfer_read %r3[%c0, %c0, %c0], %pad {in_bounds = [true, true, true]} : memref<1x1x8xf64, strided<[14400, 120, 1], offset: ?>>, vector<1x1x8xf64>
    %x4 = vector.transfer_read %r4[%c0, %c0, %c0], %pad {in_bounds = [true, true, true]} : memref<1x1x8xf64, strided<[14400, 120, 1], offset: ?>>, vector<1x1x8xf64>
    %s0 = arith.addf %x0, %x1 : vector<1x1x8xf64>
    %s1 = arith.addf %s0, %x2 : vector<1x1x8xf64>
    %s2 = arith.addf %s1, %x3 : vector<1x1x8xf64>
    %s3 = arith.addf %s2, %x4 : vector<1x1x8xf64>
    vector.transfer_write %s3, %ro[%c0, %c0, %c0] {in_bounds = [true, true, true]} : vector<1x1x8xf64>, memref<1x1x8xf64, strided<[14400, 120, 1], offset: ?>>
  }
  return
}

// -----

// Rows of a buffer with run-time strides (an image from `load`): views
// that keep the rank and have unit strides share the root's strides, so
// reads are compared by their offset along each dimension. j - 1, j, j + 1
// of row i share two loads; row i + 1 is another row.
// CHECK-LABEL: func.func @dynamic_rows(
// CHECK: %[[L:.*]] = vector.transfer_read %{{.*}}[%c0, %c0]
// CHECK-NEXT: %[[H:.*]] = vector.transfer_read %{{.*}}[%c0, %c0]
// CHECK-NEXT: vector.shape_cast %[[L]]
// CHECK-NEXT: vector.shape_cast %[[H]]
// CHECK-NEXT: vector.shuffle %{{.*}}, %{{.*}} [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 30]
// CHECK-NEXT: vector.shape_cast
// CHECK-NEXT: vector.transfer_read
// CHECK-NOT: vector.shuffle
// CHECK: return
func.func @dynamic_rows(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %i: index, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %pad = ub.poison : f32
  %i1 = arith.addi %i, %c1 : index
  %left = memref.subview %a[1, 0] [%n, %n] [1, 1] : memref<?x?xf32> to memref<?x?xf32, strided<[?, 1], offset: ?>>
  %mid = memref.subview %a[1, 1] [%n, %n] [1, 1] : memref<?x?xf32> to memref<?x?xf32, strided<[?, 1], offset: ?>>
  %right = memref.subview %a[1, 2] [%n, %n] [1, 1] : memref<?x?xf32> to memref<?x?xf32, strided<[?, 1], offset: ?>>
  %below = memref.subview %a[2, 1] [%n, %n] [1, 1] : memref<?x?xf32> to memref<?x?xf32, strided<[?, 1], offset: ?>>
  scf.for %j = %c0 to %n step %c16 {
    %r0 = memref.subview %left[%i, %j] [1, 16] [1, 1] : memref<?x?xf32, strided<[?, 1], offset: ?>> to memref<1x16xf32, strided<[?, 1], offset: ?>>
    %r1 = memref.subview %mid[%i, %j] [1, 16] [1, 1] : memref<?x?xf32, strided<[?, 1], offset: ?>> to memref<1x16xf32, strided<[?, 1], offset: ?>>
    %r2 = memref.subview %right[%i, %j] [1, 16] [1, 1] : memref<?x?xf32, strided<[?, 1], offset: ?>> to memref<1x16xf32, strided<[?, 1], offset: ?>>
    %r3 = memref.subview %below[%i, %j] [1, 16] [1, 1] : memref<?x?xf32, strided<[?, 1], offset: ?>> to memref<1x16xf32, strided<[?, 1], offset: ?>>
    %x0 = vector.transfer_read %r0[%c0, %c0], %pad {in_bounds = [true, true]} : memref<1x16xf32, strided<[?, 1], offset: ?>>, vector<1x16xf32>
    %x1 = vector.transfer_read %r1[%c0, %c0], %pad {in_bounds = [true, true]} : memref<1x16xf32, strided<[?, 1], offset: ?>>, vector<1x16xf32>
    %x2 = vector.transfer_read %r2[%c0, %c0], %pad {in_bounds = [true, true]} : memref<1x16xf32, strided<[?, 1], offset: ?>>, vector<1x16xf32>
    %x3 = vector.transfer_read %r3[%c0, %c0], %pad {in_bounds = [true, true]} : memref<1x16xf32, strided<[?, 1], offset: ?>>, vector<1x16xf32>
    %s0 = arith.addf %x0, %x1 : vector<1x16xf32>
    %s1 = arith.addf %s0, %x2 : vector<1x16xf32>
    %s2 = arith.addf %s1, %x3 : vector<1x16xf32>
    vector.transfer_write %s2, %b[%i, %j] {in_bounds = [true, true]} : vector<1x16xf32>, memref<?x?xf32>
  }
  return
}

// -----

// Left alone:
// - reads a vector or more apart (a[i], a[i + 8], a[i + 16]): no lane of
//   one is in another;
// - reads of different buffers;
// - a third read after a write: it may see what the write stored;
// - only two reads: nothing to share;
// - reads that may be out of bounds (in_bounds false): a lane past the end
//   of one view is padding, not the row's element.
// CHECK-LABEL: func.func @apart(
// CHECK-NOT: vector.shuffle
// CHECK: return
// CHECK-LABEL: func.func @two_buffers(
// CHECK-NOT: vector.shuffle
// CHECK: return
// CHECK-LABEL: func.func @after_write(
// CHECK-NOT: vector.shuffle
// CHECK: return
// CHECK-LABEL: func.func @pair(
// CHECK-NOT: vector.shuffle
// CHECK: return
// CHECK-LABEL: func.func @maybe_out_of_bounds(
// CHECK-NOT: vector.shuffle
// CHECK: return
func.func @apart(%a: memref<64xf32>, %b: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %pad = ub.poison : f32
  %v0 = memref.subview %a[0] [40] [1] : memref<64xf32> to memref<40xf32, strided<[1]>>
  %v8 = memref.subview %a[8] [40] [1] : memref<64xf32> to memref<40xf32, strided<[1], offset: 8>>
  %v16 = memref.subview %a[16] [40] [1] : memref<64xf32> to memref<40xf32, strided<[1], offset: 16>>
  scf.for %i = %c0 to %c32 step %c8 {
    %x = vector.transfer_read %v0[%i], %pad {in_bounds = [true]} : memref<40xf32, strided<[1]>>, vector<8xf32>
    %y = vector.transfer_read %v8[%i], %pad {in_bounds = [true]} : memref<40xf32, strided<[1], offset: 8>>, vector<8xf32>
    %z = vector.transfer_read %v16[%i], %pad {in_bounds = [true]} : memref<40xf32, strided<[1], offset: 16>>, vector<8xf32>
    %s = arith.addf %x, %y : vector<8xf32>
    %t = arith.addf %s, %z : vector<8xf32>
    vector.transfer_write %t, %b[%i] {in_bounds = [true]} : vector<8xf32>, memref<64xf32>
  }
  return
}
func.func @two_buffers(%a: memref<64xf32>, %c: memref<64xf32>, %b: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %c48 = arith.constant 48 : index
  %pad = ub.poison : f32
  scf.for %i = %c0 to %c48 step %c8 {
    %i1 = arith.addi %i, %c1 : index
    %i2 = arith.addi %i, %c2 : index
    %x = vector.transfer_read %a[%i], %pad {in_bounds = [true]} : memref<64xf32>, vector<8xf32>
    %y = vector.transfer_read %c[%i1], %pad {in_bounds = [true]} : memref<64xf32>, vector<8xf32>
    %z = vector.transfer_read %a[%i2], %pad {in_bounds = [true]} : memref<64xf32>, vector<8xf32>
    %s = arith.addf %x, %y : vector<8xf32>
    %t = arith.addf %s, %z : vector<8xf32>
    vector.transfer_write %t, %b[%i] {in_bounds = [true]} : vector<8xf32>, memref<64xf32>
  }
  return
}
func.func @after_write(%a: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c48 = arith.constant 48 : index
  %pad = ub.poison : f32
  %v0 = memref.subview %a[0] [56] [1] : memref<64xf32> to memref<56xf32, strided<[1]>>
  %v2 = memref.subview %a[2] [56] [1] : memref<64xf32> to memref<56xf32, strided<[1], offset: 2>>
  %v4 = memref.subview %a[4] [56] [1] : memref<64xf32> to memref<56xf32, strided<[1], offset: 4>>
  scf.for %i = %c0 to %c48 step %c8 {
    %x = vector.transfer_read %v0[%i], %pad {in_bounds = [true]} : memref<56xf32, strided<[1]>>, vector<8xf32>
    %z = vector.transfer_read %v4[%i], %pad {in_bounds = [true]} : memref<56xf32, strided<[1], offset: 4>>, vector<8xf32>
    vector.transfer_write %x, %v2[%i] {in_bounds = [true]} : vector<8xf32>, memref<56xf32, strided<[1], offset: 2>>
    %y = vector.transfer_read %v2[%i], %pad {in_bounds = [true]} : memref<56xf32, strided<[1], offset: 2>>, vector<8xf32>
    %t = arith.addf %y, %z : vector<8xf32>
    vector.transfer_write %t, %v0[%i] {in_bounds = [true]} : vector<8xf32>, memref<56xf32, strided<[1]>>
  }
  return
}
func.func @pair(%a: memref<64xf32>, %b: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c48 = arith.constant 48 : index
  %pad = ub.poison : f32
  scf.for %i = %c0 to %c48 step %c8 {
    %i1 = arith.addi %i, %c1 : index
    %x = vector.transfer_read %a[%i], %pad {in_bounds = [true]} : memref<64xf32>, vector<8xf32>
    %y = vector.transfer_read %a[%i1], %pad {in_bounds = [true]} : memref<64xf32>, vector<8xf32>
    %t = arith.addf %x, %y : vector<8xf32>
    vector.transfer_write %t, %b[%i] {in_bounds = [true]} : vector<8xf32>, memref<64xf32>
  }
  return
}
func.func @maybe_out_of_bounds(%a: memref<10xf32>, %b: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  %v0 = memref.subview %a[0] [7] [1] : memref<10xf32> to memref<7xf32, strided<[1]>>
  %v1 = memref.subview %a[1] [7] [1] : memref<10xf32> to memref<7xf32, strided<[1], offset: 1>>
  %v2 = memref.subview %a[2] [7] [1] : memref<10xf32> to memref<7xf32, strided<[1], offset: 2>>
  scf.for %i = %c0 to %c8 step %c8 {
    %x = vector.transfer_read %v0[%i], %zero : memref<7xf32, strided<[1]>>, vector<8xf32>
    %y = vector.transfer_read %v1[%i], %zero : memref<7xf32, strided<[1], offset: 1>>, vector<8xf32>
    %z = vector.transfer_read %v2[%i], %zero : memref<7xf32, strided<[1], offset: 2>>, vector<8xf32>
    %s = arith.addf %x, %y : vector<8xf32>
    %t = arith.addf %s, %z : vector<8xf32>
    vector.transfer_write %t, %b[%i] {in_bounds = [true]} : vector<8xf32>, memref<8xf32>
  }
  return
}
