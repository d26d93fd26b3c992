// RUN: tdsl-opt %s --inline | FileCheck %s

// tdsl ops, with their regions, may be inlined into a caller (the dialect's
// inliner interface).

// CHECK-LABEL: func.func @caller
// CHECK-NOT: call
// CHECK: tdsl.index_gen
// CHECK: tdsl.mul
// CHECK: tdsl.add
func.func @caller(%x: tensor<3xf32>) -> f32 {
  %0 = call @callee(%x) : (tensor<3xf32>) -> f32
  return %0 : f32
}

func.func private @callee(%x: tensor<3xf32>) -> f32 {
  %s = tdsl.index_gen ins(%x : tensor<3xf32>) {combiner = #tdsl.combiner<sum>, indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = [#tdsl.iterator<reduction>]} -> f32 {
  ^bb0(%a: f32):
    %t = tdsl.mul %a, %a : f32, f32 -> f32
    tdsl.yield %t : f32
  }
  %one = tdsl.constant 1.000000e+00 : f32
  %r = tdsl.add %s, %one : f32, f32 -> f32
  return %r : f32
}
