// RUN: tdsl-opt %s --tdsl-simplify | FileCheck %s

// tdsl-simplify folds identities and applies the tdsl ops' patterns to
// tdsl ops only, and erases only what a fold replaced: an unused op that
// may stop the program (a load of a missing file, an integer division by
// zero) stays, where a greedy rewrite would erase it as dead.

// CHECK-LABEL: func.func @keeps_failing_ops
// CHECK-SAME: (%[[A:.*]]: i64, %[[B:.*]]: i64, %[[X:.*]]: tensor<3xf32>)
// CHECK: tdsl.load "missing.npy"
// CHECK: tdsl.div %[[A]], %[[B]]
// CHECK: %[[C:.*]] = tdsl.constant
// CHECK: %[[M:.*]] = tdsl.mul %[[X]], %[[C]] : tensor<3xf32>, f32
// CHECK: return %[[M]]
func.func @keeps_failing_ops(%a: i64, %b: i64, %x: tensor<3xf32>) -> tensor<3xf32> {
  %l = tdsl.load "missing.npy" : tensor<?xf32>
  %q = tdsl.div %a, %b : i64, i64 -> i64
  %c = tdsl.constant 2.000000e+00 : f32
  %f = tdsl.fill %c : f32 -> tensor<3xf32>
  %m = tdsl.mul %x, %f : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
  %z = tdsl.constant -0.000000e+00 : f32
  %r = tdsl.add %m, %z : tensor<3xf32>, f32 -> tensor<3xf32>
  return %r : tensor<3xf32>
}

// Other dialects' ops are left as written (canonicalize would fold these).
// CHECK-LABEL: func.func @leaves_others
// CHECK: arith.addi
func.func @leaves_others(%n: index) -> index {
  %c0 = arith.constant 0 : index
  %s = arith.addi %n, %c0 : index
  return %s : index
}
