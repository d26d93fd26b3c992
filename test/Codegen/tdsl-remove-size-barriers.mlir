// RUN: tdsl-opt %s --tdsl-remove-size-barriers | FileCheck %s

// Each tdsl.size_barrier (tdsl-hide-loop-carried-sizes) gives way to its
// operand after bufferization.

// CHECK-LABEL: func.func @sizes
// CHECK-NOT: tdsl.size_barrier
// CHECK: %[[D:.*]] = memref.dim %{{.*}}, %c0
// CHECK: memref.alloc(%[[D]], %[[D]])
func.func @sizes(%a: memref<?xf32>) -> memref<?x?xf32> {
  %c0 = arith.constant 0 : index
  %d = memref.dim %a, %c0 : memref<?xf32>
  %s = tdsl.size_barrier %d
  %m = memref.alloc(%s, %d) : memref<?x?xf32>
  return %m : memref<?x?xf32>
}
