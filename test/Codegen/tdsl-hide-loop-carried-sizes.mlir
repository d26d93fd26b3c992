// RUN: tdsl-opt %s --tdsl-hide-loop-carried-sizes | FileCheck %s
// RUN: tdsl-opt %s --tdsl-hide-loop-carried-sizes --tdsl-remove-size-barriers | FileCheck %s --check-prefix=REMOVED

// The sizes of a tensor an scf.for or scf.while carries go behind a
// tdsl.size_barrier (bufferization derived their bounds through the loop
// and every scf.if in it, once per pair of slices it compared: 2.85 s of
// compile for a `?` product in five nested ifs); other sizes stay as they
// are, and tdsl-remove-size-barriers restores the original IR.

// CHECK-LABEL: func.func @carried
// CHECK-SAME: (%[[A:.*]]: tensor<?x?xf32>, %[[N:.*]]: index)
// CHECK: %[[IN:.*]] = tensor.dim %[[A]], %c0
// CHECK-NOT: tdsl.size_barrier %[[IN]]
// CHECK: %[[R:.*]] = scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[A]])
// CHECK:   %[[D:.*]] = tensor.dim %[[ACC]], %c0
// CHECK:   %[[S:.*]] = tdsl.size_barrier %[[D]]
// CHECK:   tensor.empty(%[[S]], %[[IN]])
// CHECK: %[[OUT:.*]] = tensor.dim %[[R]], %c1
// CHECK: %[[T:.*]] = tdsl.size_barrier %[[OUT]]
// CHECK: return %[[R]], %[[T]]

// REMOVED-LABEL: func.func @carried
// REMOVED-NOT: tdsl.size_barrier
// REMOVED: scf.for
// REMOVED: %[[D:.*]] = tensor.dim %{{.*}}, %c0
// REMOVED: tensor.empty(%[[D]], %{{.*}})
func.func @carried(%a: tensor<?x?xf32>, %n: index) -> (tensor<?x?xf32>, index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %in = tensor.dim %a, %c0 : tensor<?x?xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %a) -> (tensor<?x?xf32>) {
    %d = tensor.dim %acc, %c0 : tensor<?x?xf32>
    %e = tensor.empty(%d, %in) : tensor<?x?xf32>
    scf.yield %e : tensor<?x?xf32>
  }
  %out = tensor.dim %r, %c1 : tensor<?x?xf32>
  return %r, %out : tensor<?x?xf32>, index
}

// CHECK-LABEL: func.func @while_loop
// CHECK: scf.while
// CHECK: } do {
// CHECK: ^bb0(%[[X:.*]]: tensor<?xf32>):
// CHECK:   %[[D:.*]] = tensor.dim %[[X]], %c0
// CHECK:   tdsl.size_barrier %[[D]]
func.func @while_loop(%a: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %w = scf.while (%x = %a) : (tensor<?xf32>) -> tensor<?xf32> {
    %d = tensor.dim %x, %c0 : tensor<?xf32>
    %go = arith.cmpi sgt, %d, %c0 : index
    scf.condition(%go) %x : tensor<?xf32>
  } do {
  ^bb0(%x: tensor<?xf32>):
    %d = tensor.dim %x, %c0 : tensor<?xf32>
    %e = tensor.empty(%d) : tensor<?xf32>
    scf.yield %e : tensor<?xf32>
  }
  return %w : tensor<?xf32>
}
