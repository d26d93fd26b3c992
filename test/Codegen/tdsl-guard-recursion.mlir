// Functions in a cycle of calls (recursive, directly or through another)
// check the stack on entry; the others do not.
// RUN: tdsl-opt %s --tdsl-guard-recursion | FileCheck %s

// CHECK-LABEL: func.func @fact(%arg0
// CHECK-NEXT: %[[LEFT:.*]] = call @tdsl_stack_left() : () -> i64
// CHECK-NEXT: %[[MIN:.*]] = arith.constant 262144 : i64
// CHECK-NEXT: %[[LOW:.*]] = arith.cmpi slt, %[[LEFT]], %[[MIN]] : i64
// CHECK-NEXT: scf.if %[[LOW]] {
// CHECK: call @tdsl_fatal
// CHECK: } {tdsl.check = "the recursion of 'fact' is too deep: the stack is exhausted"}
func.func @fact(%n: i64) -> i64 {
  %c1 = arith.constant 1 : i64
  %m = arith.subi %n, %c1 : i64
  %r = call @fact(%m) : (i64) -> i64
  return %r : i64
}

// CHECK-LABEL: func.func @even(%arg0
// CHECK-NEXT: call @tdsl_stack_left
func.func @even(%n: i64) -> i64 {
  %r = call @odd(%n) : (i64) -> i64
  return %r : i64
}

// CHECK-LABEL: func.func @odd(%arg0
// CHECK-NEXT: call @tdsl_stack_left
func.func @odd(%n: i64) -> i64 {
  %r = call @even(%n) : (i64) -> i64
  return %r : i64
}

// CHECK-LABEL: func.func @leaf(%arg0
// CHECK-NOT: tdsl_stack_left
// CHECK: return
func.func @leaf(%n: i64) -> i64 {
  return %n : i64
}

// CHECK-LABEL: func.func @main(%arg0
// CHECK-NOT: tdsl_stack_left
// CHECK: call @fact
func.func @main(%n: i64) -> i64 {
  %a = call @leaf(%n) : (i64) -> i64
  %r = call @fact(%a) : (i64) -> i64
  return %r : i64
}
