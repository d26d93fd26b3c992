// A kernel that begins right after another ends starts at the time the end
// read (tdsl_kernel_end returns it), when nothing between them does work;
// a loop whose body starts and ends with a launch carries the last end
// time into the next iteration.
//
// RUN: tdsl-opt %s --split-input-file --tdsl-chain-kernel-clocks | FileCheck %s

func.func private @tdsl_kernel_begin(i32) -> i64
func.func private @tdsl_kernel_end(i32, i64, f64, f64) -> i64
func.func private @work(memref<8xf32>)

// Only a view and a scalar load between the two launches: the second
// starts at the first's end.
// CHECK-LABEL: func.func @straight(
// CHECK: %[[T0:.*]] = call @tdsl_kernel_begin(%arg1)
// CHECK: %[[E0:.*]] = call @tdsl_kernel_end(%arg1, %[[T0]],
// CHECK-NEXT: memref.subview
// CHECK-NEXT: arith.constant
// CHECK-NEXT: memref.load
// CHECK-NOT: tdsl_kernel_begin
// CHECK: call @tdsl_kernel_end(%arg2, %[[E0]],
func.func @straight(%m: memref<16xf32>, %id0: i32, %id1: i32) {
  %f = arith.constant 1.0 : f64
  %t0 = call @tdsl_kernel_begin(%id0) : (i32) -> i64
  %v0 = memref.subview %m[0] [8] [1] : memref<16xf32> to memref<8xf32, strided<[1]>>
  %c0 = memref.cast %v0 : memref<8xf32, strided<[1]>> to memref<8xf32>
  call @work(%c0) : (memref<8xf32>) -> ()
  %e0 = call @tdsl_kernel_end(%id0, %t0, %f, %f) : (i32, i64, f64, f64) -> i64
  %v1 = memref.subview %m[8] [8] [1] : memref<16xf32> to memref<8xf32, strided<[1], offset: 8>>
  %i = arith.constant 3 : index
  %x = memref.load %v1[%i] : memref<8xf32, strided<[1], offset: 8>>
  %t1 = call @tdsl_kernel_begin(%id1) : (i32) -> i64
  call @work(%c0) : (memref<8xf32>) -> ()
  %e1 = call @tdsl_kernel_end(%id1, %t1, %f, %f) : (i32, i64, f64, f64) -> i64
  return
}

// -----

func.func private @tdsl_kernel_begin(i32) -> i64
func.func private @tdsl_kernel_end(i32, i64, f64, f64) -> i64
func.func private @work(memref<8xf32>)

// An allocation between them is work of neither kernel: both keep their
// own clock reads.
// CHECK-LABEL: func.func @apart(
// CHECK: call @tdsl_kernel_end
// CHECK-NEXT: memref.alloc
// CHECK-NEXT: %[[T1:.*]] = call @tdsl_kernel_begin(%arg1)
// CHECK: call @tdsl_kernel_end(%arg1, %[[T1]],
func.func @apart(%id0: i32, %id1: i32) {
  %f = arith.constant 1.0 : f64
  %m = memref.alloc() : memref<8xf32>
  %t0 = call @tdsl_kernel_begin(%id0) : (i32) -> i64
  call @work(%m) : (memref<8xf32>) -> ()
  %e0 = call @tdsl_kernel_end(%id0, %t0, %f, %f) : (i32, i64, f64, f64) -> i64
  %n = memref.alloc() : memref<8xf32>
  %t1 = call @tdsl_kernel_begin(%id1) : (i32) -> i64
  call @work(%n) : (memref<8xf32>) -> ()
  %e1 = call @tdsl_kernel_end(%id1, %t1, %f, %f) : (i32, i64, f64, f64) -> i64
  memref.dealloc %m : memref<8xf32>
  memref.dealloc %n : memref<8xf32>
  return
}

// -----

func.func private @tdsl_kernel_begin(i32) -> i64
func.func private @tdsl_kernel_end(i32, i64, f64, f64) -> i64
func.func private @work(memref<8xf32>)

// A time loop of two sweeps: one clock read before the loop, then only the
// ends read the clock; each iteration's first kernel starts at the previous
// iteration's end.
// CHECK-LABEL: func.func @loop(
// CHECK: %[[T:.*]] = call @tdsl_kernel_begin(%arg1)
// CHECK-NEXT: %{{.*}} = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[LAST:.*]] = %[[T]]) -> (i64) {
// CHECK-NOT: tdsl_kernel_begin
// CHECK: %[[E0:.*]] = func.call @tdsl_kernel_end(%arg1, %[[LAST]],
// CHECK-NOT: tdsl_kernel_begin
// CHECK: %[[E1:.*]] = func.call @tdsl_kernel_end(%arg2, %[[E0]],
// CHECK-NEXT: scf.yield %[[E1]] : i64
func.func @loop(%m: memref<8xf32>, %id0: i32, %id1: i32, %n: index) {
  %f = arith.constant 1.0 : f64
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %t0 = func.call @tdsl_kernel_begin(%id0) : (i32) -> i64
    func.call @work(%m) : (memref<8xf32>) -> ()
    %e0 = func.call @tdsl_kernel_end(%id0, %t0, %f, %f) : (i32, i64, f64, f64) -> i64
    %t1 = func.call @tdsl_kernel_begin(%id1) : (i32) -> i64
    func.call @work(%m) : (memref<8xf32>) -> ()
    %e1 = func.call @tdsl_kernel_end(%id1, %t1, %f, %f) : (i32, i64, f64, f64) -> i64
  }
  return
}

// -----

func.func private @tdsl_kernel_begin(i32) -> i64
func.func private @tdsl_kernel_end(i32, i64, f64, f64) -> i64
func.func private @work(memref<8xf32>)

// Work after the last kernel of the body (here a call), or an id that is
// only known inside the loop: each iteration reads the clock at its start.
// CHECK-LABEL: func.func @loop_with_work(
// CHECK: scf.for
// CHECK-NOT: iter_args
// CHECK: func.call @tdsl_kernel_begin
// CHECK-LABEL: func.func @loop_id_inside(
// CHECK: scf.for
// CHECK-NOT: iter_args
// CHECK: func.call @tdsl_kernel_begin
func.func @loop_with_work(%m: memref<8xf32>, %id0: i32, %n: index) {
  %f = arith.constant 1.0 : f64
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %t0 = func.call @tdsl_kernel_begin(%id0) : (i32) -> i64
    func.call @work(%m) : (memref<8xf32>) -> ()
    %e0 = func.call @tdsl_kernel_end(%id0, %t0, %f, %f) : (i32, i64, f64, f64) -> i64
    func.call @work(%m) : (memref<8xf32>) -> ()
  }
  return
}
func.func @loop_id_inside(%m: memref<8xf32>, %n: index) {
  %f = arith.constant 1.0 : f64
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %ii = arith.index_cast %i : index to i32
    %t0 = func.call @tdsl_kernel_begin(%ii) : (i32) -> i64
    func.call @work(%m) : (memref<8xf32>) -> ()
    %e0 = func.call @tdsl_kernel_end(%ii, %t0, %f, %f) : (i32, i64, f64, f64) -> i64
  }
  return
}
