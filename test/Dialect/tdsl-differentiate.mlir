// RUN: tdsl-opt --tdsl-differentiate --split-input-file --verify-diagnostics %s | FileCheck %s

// One gradient function per differentiated function, whichever argument
// values the calls pass: @f_grad runs f forward (exp, mul), then the
// adjoint back from the sum: a broadcast of the seed 1.0 to the sum's
// input, times w (the mul's other operand), times exp(x) (exp's result).
// The loss itself is not kept. The tdsl.grad ops become calls.

// CHECK-LABEL: func.func private @f_grad(
// CHECK-SAME:      %[[X:.*]]: tensor<4xf32>, %[[W:.*]]: tensor<4xf32>) -> tensor<4xf32>
// CHECK:         %[[E:.*]] = tdsl.exp %[[X]]
// CHECK-NOT:     combiner<sum>
// CHECK:         %[[ONE:.*]] = tdsl.constant 1.0{{.*}} : f32
// CHECK:         %[[G:.*]] = tdsl.index_gen ins(%{{.*}}, %[[ONE]] : tensor<4xf32>, f32)
// CHECK-SAME:        combiner<none>
// CHECK:         %[[GW:.*]] = tdsl.mul %[[G]], %[[W]]
// CHECK:         %[[GX:.*]] = tdsl.mul %[[GW]], %[[E]]
// CHECK:         return %[[GX]] : tensor<4xf32>
// CHECK-LABEL: func.func @main(
// CHECK:         call @f_grad(%arg0, %arg1)
// CHECK:         call @f_grad(%arg1, %arg0)
// CHECK-NOT:     tdsl.grad
func.func @f(%x: tensor<4xf32>, %w: tensor<4xf32>) -> f32 {
  %e = tdsl.exp %x : tensor<4xf32>
  %p = tdsl.mul %e, %w : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  %s = tdsl.index_gen ins(%p : tensor<4xf32>) {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = [#tdsl.iterator<reduction>], combiner = #tdsl.combiner<sum>} -> f32 {
  ^bb0(%a: f32):
    tdsl.yield %a : f32
  }
  return %s : f32
}

func.func @main(%x: tensor<4xf32>, %w: tensor<4xf32>) -> tensor<4xf32> {
  %g = tdsl.grad @f(%x, %w) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %h = tdsl.grad @f(%w, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %r = tdsl.add %g, %h : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// With two results, the gradient with respect to the first two arguments
// (a model's fields): one function returns both.

// CHECK-LABEL: func.func private @f2_grad2(
// CHECK-SAME:      %[[X:[a-z0-9]+]]: tensor<4xf32>, %[[W:[a-z0-9]+]]: tensor<4xf32>, %{{.*}}: f32) -> (tensor<4xf32>, tensor<4xf32>)
// CHECK:         %[[S:[0-9]+]] = tdsl.index_gen
// CHECK:         %[[GX:[0-9]+]] = tdsl.mul %[[S]], %[[W]]
// CHECK:         %[[GW:[0-9]+]] = tdsl.mul %[[S]], %[[X]]
// CHECK:         return %[[GX]], %[[GW]] : tensor<4xf32>, tensor<4xf32>
// CHECK-LABEL: func.func @use_f2(
// CHECK:         %[[R:.*]]:2 = call @f2_grad2(%arg0, %arg1, %arg2)
// CHECK:         tdsl.add %[[R]]#0, %[[R]]#1
func.func @f2(%x: tensor<4xf32>, %w: tensor<4xf32>, %c: f32) -> f32 {
  %p = tdsl.mul %x, %w : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  %s = tdsl.index_gen ins(%p : tensor<4xf32>) {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = [#tdsl.iterator<reduction>], combiner = #tdsl.combiner<sum>} -> f32 {
  ^bb0(%a: f32):
    tdsl.yield %a : f32
  }
  %r = tdsl.mul %s, %c : f32, f32 -> f32
  return %r : f32
}

func.func @use_f2(%x: tensor<4xf32>, %w: tensor<4xf32>, %c: f32) -> tensor<4xf32> {
  %g:2 = tdsl.grad @f2(%x, %w, %c) : (tensor<4xf32>, tensor<4xf32>, f32) -> (tensor<4xf32>, tensor<4xf32>)
  %r = tdsl.add %g#0, %g#1 : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// The adjoint of a contraction, for each input, is an index_gen over the
// same loops whose output is that input's subscripts: dA[i, k] =
// sum(j) dC[i, j] * B[k, j] (the loop j reduces), with the primal body
// recomputed and differentiated inside.

// CHECK-LABEL: func.func private @mm_grad(
// CHECK:         tdsl.index_gen ins(%arg0, %arg1, %{{.*}} : tensor<2x3xf32>, tensor<3x5xf32>, tensor<2x5xf32>)
// CHECK-SAME:        combiner = #tdsl.combiner<sum>
// CHECK-SAME:        indexing_maps = [#[[A:map[0-9]*]], #[[B:map[0-9]*]], #[[C:map[0-9]*]], #[[A]]]
// CHECK-SAME:        iterator_types = [#tdsl.iterator<parallel>, #tdsl.iterator<reduction>, #tdsl.iterator<parallel>]
// CHECK-NEXT:    ^bb0(%[[a:.*]]: f32, %[[b:.*]]: f32, %[[g:.*]]: f32):
// CHECK:           %[[d:.*]] = tdsl.mul %[[g]], %[[b]] : f32, f32 -> f32
// CHECK:           tdsl.yield %[[d]] : f32
func.func @mm(%a: tensor<2x3xf32>, %b: tensor<3x5xf32>) -> f32 {
  %c = tdsl.index_gen ins(%a, %b : tensor<2x3xf32>, tensor<3x5xf32>) {indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>], iterator_types = [#tdsl.iterator<parallel>, #tdsl.iterator<parallel>, #tdsl.iterator<reduction>], combiner = #tdsl.combiner<sum>} -> tensor<2x5xf32> {
  ^bb0(%x: f32, %y: f32):
    %p = tdsl.mul %x, %y : f32, f32 -> f32
    tdsl.yield %p : f32
  }
  %s = tdsl.index_gen ins(%c : tensor<2x5xf32>) {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>], iterator_types = [#tdsl.iterator<reduction>, #tdsl.iterator<reduction>], combiner = #tdsl.combiner<sum>} -> f32 {
  ^bb0(%x: f32):
    tdsl.yield %x : f32
  }
  return %s : f32
}

func.func @use_mm(%a: tensor<2x3xf32>, %b: tensor<3x5xf32>) -> tensor<2x3xf32> {
  %g = tdsl.grad @mm(%a, %b) : (tensor<2x3xf32>, tensor<3x5xf32>) -> tensor<2x3xf32>
  return %g : tensor<2x3xf32>
}

// -----

// What the sweep cannot differentiate is an error at that op.

func.func @upstream(%x: f32) -> f32 {
  // expected-error @+1 {{cannot differentiate 'arith.mulf' on the path from the argument to the result yet}}
  %y = arith.mulf %x, %x : f32
  return %y : f32
}

func.func @use_upstream(%x: f32) -> f32 {
  %g = tdsl.grad @upstream(%x) : (f32) -> f32
  return %g : f32
}

// -----

// A tdsl.index in a parallel_for nested in an inverted map's body (x[i + 1])
// reads the map's loop, so in the recomputed body it is the solved i = p - 1
// (%[[I]], clamped), not the inverted loop's p.

// CHECK-LABEL: func.func private @shift_nested_grad(
// CHECK:         tdsl.index_gen ins(%arg0 : tensor<4xf32>)
// CHECK:           %[[P:.*]] = tdsl.index 0 : index
// CHECK:           %[[P64:.*]] = tdsl.cast %[[P]] : index to i64
// CHECK:           %[[SUB:.*]] = tdsl.sub %[[P64]], %{{.*}} : i64, i64 -> i64
// CHECK:           %[[I:.*]] = tdsl.select %{{.*}}, %[[SUB]], %{{.*}} : i1, i64, i64 -> i64
// CHECK-NOT:       tdsl.index
// CHECK:           tdsl.parallel_for
// CHECK-NEXT:        tdsl.parallel_for
// CHECK-NOT:         tdsl.index
// CHECK:             tdsl.cast %[[I]] : i64 to index
// CHECK-NOT:       tdsl.index
// CHECK:         return
func.func @shift_nested(%x: tensor<4xf32>) -> f32 {
  %z = tdsl.constant 0.0 : f32
  %y0 = tdsl.fill %z [] : f32 -> tensor<3xf32>
  %y = tdsl.index_gen ins(%x, %y0 : tensor<4xf32>, tensor<3xf32>) {combiner = #tdsl.combiner<none>, indexing_maps = [affine_map<(d0) -> (d0 + 1)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = [#tdsl.iterator<parallel>]} -> tensor<3xf32> {
  ^bb0(%a: f32, %b: f32):
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %s = tdsl.parallel_for (%t) = (%c0) to (%c4) reduce(add) -> f32 {
     %s2 = tdsl.parallel_for (%u) = (%c0) to (%c4) reduce(add) -> f32 {
      %i = tdsl.index 0 : index
      %k = tdsl.cast %i : index to f32
      %m = tdsl.mul %a, %k : f32, f32 -> f32
      tdsl.yield %m : f32
     }
     tdsl.yield %s2 : f32
    }
    tdsl.yield %s : f32
  }
  %p = tdsl.mul %y, %y : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
  %r = tdsl.index_gen ins(%p : tensor<3xf32>) {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = [#tdsl.iterator<reduction>], combiner = #tdsl.combiner<sum>} -> f32 {
  ^bb0(%e: f32):
    tdsl.yield %e : f32
  }
  return %r : f32
}
func.func @use_shift_nested(%x: tensor<4xf32>) -> tensor<4xf32> {
  %g = tdsl.grad @shift_nested(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %g : tensor<4xf32>
}
