// RUN: tdsl-opt %s --pass-pipeline='builtin.module(gpu.module(tdsl-gpu-lower-copies))' | FileCheck %s

// Every memref.copy in a kernel becomes a loop nest of whole-element loads
// and stores. Lowered to LLVM, a copy between memrefs that are not both
// contiguous would call the host's memrefCopy, which no GPU has; a
// contiguous one would be a memcpy aligned to 1, that is byte stores (on an
// H200 they turned a reduce(min) partial of +inf into NaN).

module attributes {gpu.container_module} {
  gpu.module @kernels {
    // CHECK-LABEL: gpu.func @strided_row
    gpu.func @strided_row(%a: memref<3xf32>, %m: memref<3x2xf32>) kernel {
      %sub = memref.subview %m[0, 1] [3, 1] [1, 1] : memref<3x2xf32> to memref<3xf32, strided<[2], offset: 1>>
      // CHECK-NOT: memref.copy
      // CHECK: %[[N:.*]] = memref.dim %{{.*}}, %c0
      // CHECK: scf.for %[[I:.*]] = %c0 to %[[N]] step %c1
      // CHECK-NEXT: %[[V:.*]] = memref.load %{{.*}}[%[[I]]] : memref<3xf32>
      // CHECK-NEXT: memref.store %[[V]], %{{.*}}[%[[I]]] : memref<3xf32, strided<[2], offset: 1>>
      memref.copy %a, %sub : memref<3xf32> to memref<3xf32, strided<[2], offset: 1>>
      gpu.return
    }

    // CHECK-LABEL: gpu.func @dynamic_2d
    gpu.func @dynamic_2d(%a: memref<?x?xf64>, %b: memref<?x?xf64, strided<[?, ?], offset: ?>>) kernel {
      // CHECK-NOT: memref.copy
      // CHECK: scf.for %[[I:.*]] =
      // CHECK: scf.for %[[J:.*]] =
      // CHECK-NEXT: %[[V:.*]] = memref.load %{{.*}}[%[[I]], %[[J]]]
      // CHECK-NEXT: memref.store %[[V]], %{{.*}}[%[[I]], %[[J]]]
      memref.copy %a, %b : memref<?x?xf64> to memref<?x?xf64, strided<[?, ?], offset: ?>>
      gpu.return
    }

    // CHECK-LABEL: gpu.func @contiguous
    gpu.func @contiguous(%a: memref<?xf32>, %b: memref<1xi64>, %c: memref<1xi64, strided<[1], offset: ?>>) kernel {
      // CHECK-NOT: memref.copy
      // CHECK: scf.for %[[I:.*]] =
      // CHECK-NEXT: memref.load %{{.*}}[%[[I]]] : memref<?xf32>
      // CHECK-NEXT: memref.store %{{.*}}[%[[I]]] : memref<?xf32>
      memref.copy %a, %a : memref<?xf32> to memref<?xf32>
      // An extent of 1 has no loop: one load and one store at 0.
      // CHECK-NOT: scf.for
      // CHECK: %[[V:.*]] = memref.load %{{.*}}[%[[Z:c0[_0-9]*]]] : memref<1xi64>
      // CHECK-NEXT: memref.store %[[V]], %{{.*}}[%[[Z]]] : memref<1xi64, strided<[1], offset: ?>>
      memref.copy %b, %c : memref<1xi64> to memref<1xi64, strided<[1], offset: ?>>
      gpu.return
    }
  }

  // Host copies are left to the host's lowering.
  // CHECK-LABEL: func.func @host
  // CHECK: memref.copy
  func.func @host(%a: memref<4xf32>, %b: memref<4xf32>) {
    memref.copy %a, %b : memref<4xf32> to memref<4xf32>
    return
  }
}
