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
