// Tensors carried by scf.for whose sizes stay those of the initial value
// get the static type (tdsl-refine-loop-shapes); others keep theirs.
// RUN: tdsl-opt %s --tdsl-refine-loop-shapes | FileCheck %s

// CHECK-LABEL: func.func @update(
// CHECK-SAME: %[[A:[^:]*]]: tensor<6x6xf32>, %[[U:[^:]*]]: tensor<4x4xf32>
// CHECK: %[[I:.*]] = tensor.cast %{{.*}} : tensor<?x?xf32> to tensor<6x6xf32>
// CHECK: %[[R:.*]] = scf.for %{{.*}} iter_args(%[[B:.*]] = %[[I]]) -> (tensor<6x6xf32>) {
// CHECK: %[[D:.*]] = tensor.cast %[[B]] : tensor<6x6xf32> to tensor<?x?xf32>
// CHECK: %[[N:.*]] = tensor.insert_slice %[[U]] into %[[D]][1, 1] [4, 4] [1, 1]
// CHECK: %[[S:.*]] = tensor.cast %[[N]] : tensor<?x?xf32> to tensor<6x6xf32>
// CHECK: scf.yield %[[S]] : tensor<6x6xf32>
// CHECK: tensor.cast %[[R]] : tensor<6x6xf32> to tensor<?x?xf32>
func.func @update(%a: tensor<6x6xf32>, %u: tensor<4x4xf32>, %n: index) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d = tensor.cast %a : tensor<6x6xf32> to tensor<?x?xf32>
  %r = scf.for %t = %c0 to %n step %c1 iter_args(%b = %d) -> (tensor<?x?xf32>) {
    %new = tensor.insert_slice %u into %b[1, 1] [4, 4] [1, 1] : tensor<4x4xf32> into tensor<?x?xf32>
    scf.yield %new : tensor<?x?xf32>
  }
  return %r : tensor<?x?xf32>
}

// A tensor that grows on each trip keeps its run-time size.
// CHECK-LABEL: func.func @grows(
// CHECK: scf.for {{.*}} -> (tensor<?xf32>)
func.func @grows(%a: tensor<4xf32>, %n: index) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d = tensor.cast %a : tensor<4xf32> to tensor<?xf32>
  %r = scf.for %t = %c0 to %n step %c1 iter_args(%b = %d) -> (tensor<?xf32>) {
    %m = tensor.dim %b, %c0 : tensor<?xf32>
    %m1 = arith.addi %m, %c1 : index
    %e = tensor.empty(%m1) : tensor<?xf32>
    scf.yield %e : tensor<?xf32>
  }
  return %r : tensor<?xf32>
}
