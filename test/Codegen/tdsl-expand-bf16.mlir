// Arithmetic on bf16 (scalars and vectors) is computed in f32, and each
// rounding of f32 to bf16 becomes integer ops (round to nearest even, NaN
// made quiet), so that LLVM never calls compiler-rt's __truncsfbf2
// (tdsl-expand-bf16). Conversions between bf16 and f32 and selects stay.
// RUN: tdsl-opt %s --tdsl-expand-bf16 | FileCheck %s

// CHECK-LABEL: func.func @add(
// CHECK-SAME: %[[A:.*]]: bf16, %[[B:.*]]: bf16
// CHECK: %[[X:.*]] = arith.extf %[[A]] : bf16 to f32
// CHECK: %[[Y:.*]] = arith.extf %[[B]] : bf16 to f32
// CHECK: %[[S:.*]] = arith.addf %[[X]], %[[Y]] : f32
// CHECK-NOT: arith.truncf
// CHECK: %[[BITS:.*]] = arith.bitcast %[[S]] : f32 to i32
// CHECK: %[[C16:.*]] = arith.constant 16 : i32
// CHECK: %[[HI:.*]] = arith.shrui %[[BITS]], %[[C16]]
// CHECK: %[[C1:.*]] = arith.constant 1 : i32
// CHECK: %[[KEPT:.*]] = arith.andi %[[HI]], %[[C1]]
// CHECK: %[[BIAS:.*]] = arith.constant 32767 : i32
// CHECK: %[[INC:.*]] = arith.addi %[[KEPT]], %[[BIAS]]
// CHECK: %[[UP:.*]] = arith.addi %[[BITS]], %[[INC]]
// CHECK: %[[NAN:.*]] = arith.cmpf uno, %[[S]], %[[S]]
// CHECK: %[[QUIET:.*]] = arith.constant 4194304 : i32
// CHECK: %[[Q:.*]] = arith.ori %[[BITS]], %[[QUIET]]
// CHECK: %[[SEL:.*]] = arith.select %[[NAN]], %[[Q]], %[[UP]]
// CHECK: %[[C16B:.*]] = arith.constant 16 : i32
// CHECK: %[[TOP:.*]] = arith.shrui %[[SEL]], %[[C16B]]
// CHECK: %[[H:.*]] = arith.trunci %[[TOP]] : i32 to i16
// CHECK: %[[R:.*]] = arith.bitcast %[[H]] : i16 to bf16
// CHECK: return %[[R]]
func.func @add(%a: bf16, %b: bf16) -> bf16 {
  %s = arith.addf %a, %b : bf16
  return %s : bf16
}

// CHECK-LABEL: func.func @vector_exp(
// CHECK: %[[X:.*]] = arith.extf %{{.*}} : vector<16xbf16> to vector<16xf32>
// CHECK: %[[E:.*]] = math.exp %[[X]] : vector<16xf32>
// CHECK: arith.bitcast %[[E]] : vector<16xf32> to vector<16xi32>
// CHECK: arith.trunci %{{.*}} : vector<16xi32> to vector<16xi16>
// CHECK: arith.bitcast %{{.*}} : vector<16xi16> to vector<16xbf16>
func.func @vector_exp(%v: vector<16xbf16>) -> vector<16xbf16> {
  %e = math.exp %v : vector<16xbf16>
  return %e : vector<16xbf16>
}

// A comparison keeps its i1 result; a select and the widening stay.
// CHECK-LABEL: func.func @compare(
// CHECK: %[[X:.*]] = arith.extf %{{.*}} : bf16 to f32
// CHECK: %[[Y:.*]] = arith.extf %{{.*}} : bf16 to f32
// CHECK: %[[LT:.*]] = arith.cmpf olt, %[[X]], %[[Y]] : f32
// CHECK: arith.select %[[LT]], %{{.*}}, %{{.*}} : bf16
// CHECK-NOT: arith.truncf
func.func @compare(%a: bf16, %b: bf16) -> (bf16, f32) {
  %lt = arith.cmpf olt, %a, %b : bf16
  %m = arith.select %lt, %a, %b : bf16
  %w = arith.extf %a : bf16 to f32
  return %m, %w : bf16, f32
}
