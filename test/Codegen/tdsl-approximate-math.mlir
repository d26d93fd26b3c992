// exp, log and tanh on f32 (scalars and vectors) become inline polynomials,
// with exp and log moved by 2^32 around subnormals; f64 and other functions
// keep their math ops for libm (tdsl-approximate-math).
// RUN: tdsl-opt %s --tdsl-approximate-math | FileCheck %s

// CHECK-LABEL: func.func @vector_exp(
// CHECK-SAME: %[[X:.*]]: vector<16xf32>
// CHECK: %[[EDGE:.*]] = arith.constant dense<-8.700000e+01> : vector<16xf32>
// CHECK: %[[SMALL:.*]] = arith.cmpf olt, %[[X]], %[[EDGE]]
// CHECK: %[[SHIFT:.*]] = arith.constant dense<22.1807098> : vector<16xf32>
// CHECK: %[[MOVED:.*]] = arith.addf %[[X]], %[[SHIFT]]
// CHECK: %[[ARG:.*]] = arith.select %[[SMALL]], %[[MOVED]], %[[X]]
// CHECK-NOT: math.exp
// CHECK: math.fma {{.*}} : vector<16xf32>
// CHECK: %[[SCALE:.*]] = arith.constant dense<2.32830644E-10> : vector<16xf32>
// CHECK: %[[BACK:.*]] = arith.mulf %[[E:.*]], %[[SCALE]]
// CHECK: %[[G:.*]] = arith.select %[[SMALL]], %[[BACK]], %[[E]]
// CHECK: %[[NAN:.*]] = arith.cmpf uno, %[[X]], %[[X]]
// CHECK: %[[R:.*]] = arith.select %[[NAN]], %[[X]], %[[G]]
// CHECK: return %[[R]]
func.func @vector_exp(%x: vector<16xf32>) -> vector<16xf32> {
  %e = math.exp %x : vector<16xf32>
  return %e : vector<16xf32>
}

// CHECK-LABEL: func.func @scalar_log(
// CHECK-SAME: %[[X:.*]]: f32
// CHECK: %[[TINY:.*]] = arith.constant 1.17549435E-38 : f32
// CHECK: %[[SMALL:.*]] = arith.cmpf olt, %[[X]], %[[TINY]]
// CHECK: %[[UP:.*]] = arith.constant 4.2949673E+9 : f32
// CHECK: arith.mulf %[[X]], %[[UP]]
// CHECK-NOT: math.log
// CHECK: %[[SHIFT:.*]] = arith.constant 22.1807098 : f32
// CHECK: arith.subf %{{.*}}, %[[SHIFT]]
// CHECK: arith.select %[[SMALL]]
func.func @scalar_log(%x: f32) -> f32 {
  %l = math.log %x : f32
  return %l : f32
}

// CHECK-LABEL: func.func @tanh_no_guard(
// CHECK-NOT: math.tanh
// CHECK-NOT: 4.2949673E+9
// CHECK-NOT: -8.700000e+01
// CHECK: return
func.func @tanh_no_guard(%x: vector<8xf32>) -> vector<8xf32> {
  %t = math.tanh %x : vector<8xf32>
  return %t : vector<8xf32>
}

// CHECK-LABEL: func.func @left_alone(
// CHECK: math.exp %{{.*}} : vector<4xf64>
// CHECK: math.log %{{.*}} : f64
// CHECK: math.sin %{{.*}} : vector<4xf32>
func.func @left_alone(%a: vector<4xf64>, %b: f64, %c: vector<4xf32>)
    -> (vector<4xf64>, f64, vector<4xf32>) {
  %e = math.exp %a : vector<4xf64>
  %l = math.log %b : f64
  %s = math.sin %c : vector<4xf32>
  return %e, %l, %s : vector<4xf64>, f64, vector<4xf32>
}
