// RUN: tdsl-opt %s --canonicalize --split-input-file | FileCheck %s
// RUN: tdsl-opt %s --tdsl-simplify --split-input-file | FileCheck %s
// (tdsl-simplify leaves unused ops in place: one may stop the program.)

// Identities fold when x already has the result's type: x + 0 (integers),
// x + -0.0 (floats: +0.0 would turn -0.0 into +0.0), x - 0, x * 1, x / 1,
// from either side for + and *.

// CHECK-LABEL: func.func @identities
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %[[I:.*]]: tensor<?xi64>)
// CHECK: return %[[X]], %[[X]], %[[X]], %[[X]], %[[I]], %[[I]], %[[I]]
func.func @identities(%x: tensor<4xf32>, %i: tensor<?xi64>)
    -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>,
        tensor<?xi64>, tensor<?xi64>, tensor<?xi64>) {
  %nz = tdsl.constant -0.000000e+00 : f32
  %pz = tdsl.constant 0.000000e+00 : f32
  %one = tdsl.constant 1.000000e+00 : f32
  %ones = tdsl.constant dense<1.000000e+00> : tensor<4xf32>
  %z = tdsl.constant 0 : i64
  %o = tdsl.constant 1 : i64
  %a = tdsl.add %nz, %x : f32, tensor<4xf32> -> tensor<4xf32>
  %s = tdsl.sub %x, %pz : tensor<4xf32>, f32 -> tensor<4xf32>
  %m = tdsl.mul %ones, %x : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  %d = tdsl.div %x, %one : tensor<4xf32>, f32 -> tensor<4xf32>
  %ia = tdsl.add %i, %z : tensor<?xi64>, i64 -> tensor<?xi64>
  %im = tdsl.mul %o, %i : i64, tensor<?xi64> -> tensor<?xi64>
  %id = tdsl.div %i, %o : tensor<?xi64>, i64 -> tensor<?xi64>
  return %a, %s, %m, %d, %ia, %im, %id
      : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>,
        tensor<?xi64>, tensor<?xi64>, tensor<?xi64>
}

// -----

// Not identities: a float x + (+0.0) (x = -0.0 gives +0.0), 0 - x, 1 / x,
// and an identity that broadcasts x to a larger result.

// CHECK-LABEL: func.func @not_identities
// CHECK: tdsl.add
// CHECK: tdsl.sub
// CHECK: tdsl.div
// CHECK: tdsl.mul
func.func @not_identities(%x: tensor<4xf32>, %s: f32)
    -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %pz = tdsl.constant 0.000000e+00 : f32
  %one = tdsl.constant 1.000000e+00 : f32
  %ones = tdsl.constant dense<1.000000e+00> : tensor<4xf32>
  %a = tdsl.add %x, %pz : tensor<4xf32>, f32 -> tensor<4xf32>
  %b = tdsl.sub %pz, %x : f32, tensor<4xf32> -> tensor<4xf32>
  %c = tdsl.div %one, %x : f32, tensor<4xf32> -> tensor<4xf32>
  %d = tdsl.mul %s, %ones : f32, tensor<4xf32> -> tensor<4xf32>
  return %a, %b, %c, %d : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// A fill of static shape feeding an element-wise op becomes its scalar; a
// fill of run-time size stays (it also checks its size against x's).

// CHECK-LABEL: func.func @fill_operand
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>, %[[C:.*]]: f32, %[[Y:.*]]: tensor<?xf32>, %[[N:.*]]: index)
// CHECK: %[[M:.*]] = tdsl.mul %[[X]], %[[C]] : tensor<2x3xf32>, f32 -> tensor<2x3xf32>
// CHECK: %[[F:.*]] = tdsl.fill %[[C]] [%[[N]]]
// CHECK: tdsl.add %[[F]], %[[Y]]
func.func @fill_operand(%x: tensor<2x3xf32>, %c: f32, %y: tensor<?xf32>, %n: index)
    -> (tensor<2x3xf32>, tensor<?xf32>) {
  %f = tdsl.fill %c : f32 -> tensor<2x3xf32>
  %m = tdsl.mul %x, %f : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x3xf32>
  %g = tdsl.fill %c [%n] : f32 -> tensor<?xf32>
  %a = tdsl.add %g, %y : tensor<?xf32>, tensor<?xf32> -> tensor<?xf32>
  return %m, %a : tensor<2x3xf32>, tensor<?xf32>
}

// -----

// A cast of an exact cast (a widening) is one cast; a cast to the input's
// own type disappears. A rounding cast stays: f64 -> f32 -> f64 is not x.

// CHECK-LABEL: func.func @casts
// CHECK-SAME: (%[[H:.*]]: tensor<3xf16>, %[[I:.*]]: i32, %[[D:.*]]: f64)
// CHECK: %[[A:.*]] = tdsl.cast %[[H]] : tensor<3xf16> to tensor<3xf64>
// CHECK: %[[B:.*]] = tdsl.cast %[[I]] : i32 to f32
// CHECK: %[[R:.*]] = tdsl.cast %[[D]] : f64 to f32
// CHECK: %[[R2:.*]] = tdsl.cast %[[R]] : f32 to f64
// CHECK: return %[[A]], %[[B]], %[[H]], %[[R2]]
func.func @casts(%h: tensor<3xf16>, %i: i32, %d: f64)
    -> (tensor<3xf64>, f32, tensor<3xf16>, f64) {
  %0 = tdsl.cast %h : tensor<3xf16> to tensor<3xf32>
  %1 = tdsl.cast %0 : tensor<3xf32> to tensor<3xf64>
  %2 = tdsl.cast %i : i32 to i64
  %3 = tdsl.cast %2 : i64 to f32
  %4 = tdsl.cast %0 : tensor<3xf32> to tensor<3xf16>
  %5 = tdsl.cast %d : f64 to f32
  %6 = tdsl.cast %5 : f32 to f64
  return %1, %3, %4, %6 : tensor<3xf64>, f32, tensor<3xf16>, f64
}
