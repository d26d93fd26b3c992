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
