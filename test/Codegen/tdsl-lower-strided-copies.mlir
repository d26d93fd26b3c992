// Copies involving a strided buffer become linalg.copy (loops); plain ones
// stay memref.copy (a memcpy) (tdsl-lower-strided-copies).
// RUN: tdsl-opt %s --tdsl-lower-strided-copies | FileCheck %s

// CHECK-LABEL: func.func @copies(
// CHECK: linalg.copy ins(%{{.*}} : memref<4x4xf64>) outs(%{{.*}} : memref<4x4xf64, strided<[6, 1], offset: 7>>)
// CHECK: memref.copy %{{.*}}, %{{.*}} : memref<4x4xf64> to memref<4x4xf64>
func.func @copies(%a: memref<4x4xf64>, %b: memref<6x6xf64>, %c: memref<4x4xf64>) {
  %s = memref.subview %b[1, 1] [4, 4] [1, 1] : memref<6x6xf64> to memref<4x4xf64, strided<[6, 1], offset: 7>>
  memref.copy %a, %s : memref<4x4xf64> to memref<4x4xf64, strided<[6, 1], offset: 7>>
  memref.copy %a, %c : memref<4x4xf64> to memref<4x4xf64>
  return
}

// A copy of run-time sizes (or of 65536 elements and more) runs as a
// parallel loop over its first dimension that is not 1, one slice per
// iteration, timed as a kernel of its own: bytes read and written.
// CHECK-LABEL: func.func @large(
// CHECK: %[[ID:.*]] = call @tdsl_kernel_id(
// CHECK: %[[T0:.*]] = call @tdsl_kernel_begin(%[[ID]])
// CHECK: %[[N:.*]] = memref.dim %{{.*}}, %c1
// CHECK: scf.forall (%[[I:.*]]) in (%[[N]]) {
// CHECK:   %[[FROM:.*]] = memref.subview %{{.*}}[0, %[[I]], 0] [1, 1, %{{.*}}] [1, 1, 1]
// CHECK:   %[[TO:.*]] = memref.subview %{{.*}}[0, %[[I]], 0] [1, 1, %{{.*}}] [1, 1, 1]
// CHECK:   linalg.copy ins(%[[FROM]] : {{.*}}) outs(%[[TO]] : {{.*}})
// CHECK: }
// CHECK: %[[BYTES:.*]] = arith.mulf %{{.*}}, %cst{{.*}} : f64
// CHECK: call @tdsl_kernel_end(%[[ID]], %[[T0]], %{{.*}}, %[[BYTES]])
func.func @large(%a: memref<1x?x?xf32>, %b: memref<1x?x?xf32, strided<[?, ?, 1], offset: ?>>) {
  memref.copy %a, %b : memref<1x?x?xf32> to memref<1x?x?xf32, strided<[?, ?, 1], offset: ?>>
  return
}

// Inside a kernel's timed region it runs in parallel, untimed; inside a
// parallel loop it stays one copy.
// CHECK-LABEL: func.func @in_kernels(
// CHECK: call @tdsl_kernel_begin
// CHECK-NOT: call @tdsl_kernel
// CHECK: scf.forall
// CHECK:   linalg.copy
// CHECK: call @tdsl_kernel_end
// CHECK: scf.forall
// CHECK-NOT: scf.forall
// CHECK:   linalg.copy ins(%{{.*}} : memref<300x300xf32, strided<[302, 1], offset: 303>>)
func.func private @tdsl_kernel_begin(i32) -> i64
func.func private @tdsl_kernel_end(i32, i64, f64, f64) -> i64
func.func @in_kernels(%a: memref<300x300xf32, strided<[302, 1], offset: 303>>, %b: memref<300x300xf32>, %id: i32) {
  %cst = arith.constant 0.0 : f64
  %t0 = func.call @tdsl_kernel_begin(%id) : (i32) -> i64
  memref.copy %a, %b : memref<300x300xf32, strided<[302, 1], offset: 303>> to memref<300x300xf32>
  %t1 = func.call @tdsl_kernel_end(%id, %t0, %cst, %cst) : (i32, i64, f64, f64) -> i64
  scf.forall (%i) in (2) {
    memref.copy %a, %b : memref<300x300xf32, strided<[302, 1], offset: 303>> to memref<300x300xf32>
  }
  return
}
