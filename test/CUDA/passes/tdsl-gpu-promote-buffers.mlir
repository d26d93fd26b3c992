// RUN: tdsl-opt %s --tdsl-gpu-promote-buffers | FileCheck %s
// RUN: tdsl-opt %s --tdsl-gpu-promote-buffers=max-bytes=8 | FileCheck %s --check-prefix=LIMIT

// A small buffer of a kernel's body goes on its stack, its dealloc gone.
// CHECK-LABEL: func.func @in_kernel
// CHECK: scf.forall
// CHECK-NEXT: %[[A:.*]] = memref.alloca() {alignment = 64 : i64} : memref<4xf32>
// CHECK-NOT: memref.dealloc
// LIMIT-LABEL: func.func @in_kernel
// LIMIT: memref.alloc() {alignment = 64 : i64} : memref<4xf32>
func.func @in_kernel(%n: index, %v: f32) {
  %c0 = arith.constant 0 : index
  scf.forall (%i) in (%n) {
    %a = memref.alloc() {alignment = 64 : i64} : memref<4xf32>
    memref.store %v, %a[%c0] : memref<4xf32>
    memref.dealloc %a : memref<4xf32>
  }
  return
}

// Host buffers stay on the heap (a kernel may read them: the GPU cannot
// reach the host's stack), and so do large or dynamic ones.
// CHECK-LABEL: func.func @host
// CHECK: memref.alloc() : memref<f32>
// CHECK: scf.forall
// CHECK: memref.alloc() : memref<1024xf32>
// CHECK: memref.alloc(%{{.*}}) : memref<?xf32>
func.func @host(%n: index) -> memref<f32> {
  %acc = memref.alloc() : memref<f32>
  scf.forall (%i) in (%n) {
    %big = memref.alloc() : memref<1024xf32>
    %dyn = memref.alloc(%n) : memref<?xf32>
  }
  return %acc : memref<f32>
}

// A buffer that an scf.for carries to its next iteration takes one of two
// slots made before the loop, by the iteration's parity (each alloca has one
// stack slot for all iterations, so the next iteration's buffer would
// overwrite the one it reads); one carried through an scf.if stays on the
// heap.
// CHECK-LABEL: func.func @carried
// CHECK: scf.forall
// CHECK: %[[EVEN:.*]] = memref.alloca() {alignment = 64 : i64} : memref<4xf32>
// CHECK-NEXT: %[[ODD:.*]] = memref.alloca() {alignment = 64 : i64} : memref<4xf32>
// CHECK-NEXT: scf.for %[[K:.*]] = %[[LB:.*]] to %{{.*}} step %[[STEP:.*]] iter_args
// CHECK-NEXT: %[[D:.*]] = arith.subi %[[K]], %[[LB]] : index
// CHECK-NEXT: %[[T:.*]] = arith.divui %[[D]], %[[STEP]] : index
// CHECK: %[[R:.*]] = arith.remui %[[T]], %{{.*}} : index
// CHECK-NEXT: %[[E:.*]] = arith.cmpi eq, %[[R]], %{{.*}} : index
// CHECK-NEXT: %[[B:.*]] = arith.select %[[E]], %[[EVEN]], %[[ODD]] : memref<4xf32>
// CHECK: scf.yield %[[B]]
// CHECK: scf.for
// CHECK: scf.if
// CHECK-NEXT: memref.alloc() {alignment = 64 : i64} : memref<4xf32>
func.func @carried(%n: index, %x: memref<4xf32>, %c: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  scf.forall (%i) in (%n) {
    %r = scf.for %k = %c0 to %c3 step %c1 iter_args(%t = %x) -> (memref<4xf32>) {
      %a = memref.alloc() {alignment = 64 : i64} : memref<4xf32>
      %v = memref.load %t[%c0] : memref<4xf32>
      memref.store %v, %a[%c1] : memref<4xf32>
      scf.yield %a : memref<4xf32>
    }
    %s = scf.for %k = %c0 to %c3 step %c1 iter_args(%t = %x) -> (memref<4xf32>) {
      %u = scf.if %c -> (memref<4xf32>) {
        %a = memref.alloc() {alignment = 64 : i64} : memref<4xf32>
        scf.yield %a : memref<4xf32>
      } else {
        scf.yield %t : memref<4xf32>
      }
      scf.yield %u : memref<4xf32>
    }
  }
  return
}
