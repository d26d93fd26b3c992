// Verifier and parser errors of the tdsl dialect, one case per diagnostic.
// RUN: tdsl-opt %s -split-input-file -verify-diagnostics

func.func @constant_sparse() {
  // expected-error @+1 {{tensor constant requires a dense elements attribute}}
  %0 = tdsl.constant sparse<[[0, 0]], [1.0]> : tensor<2x2xf32>
  return
}

// -----

func.func @binary_elem_type(%a: f32, %b: f64) {
  // expected-error @+1 {{requires lhs, rhs and result to have the same element type}}
  %0 = tdsl.add %a, %b : f32, f64 -> f32
  return
}

// -----

func.func @binary_no_broadcast(%a: tensor<3xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{operand #1 of type 'tensor<4xf32>' does not broadcast with the preceding operands}}
  %0 = tdsl.sub %a, %b : tensor<3xf32>, tensor<4xf32> -> tensor<4xf32>
  return
}

// -----

func.func @binary_scalar_result(%a: f32) {
  // expected-error @+1 {{result must be a scalar when all operands are scalars}}
  %0 = tdsl.mul %a, %a : f32, f32 -> tensor<1xf32>
  return
}

// -----

func.func @binary_tensor_result(%a: tensor<2xf32>, %b: f32) {
  // expected-error @+1 {{result must be a ranked tensor when an operand is a tensor}}
  %0 = tdsl.div %a, %b : tensor<2xf32>, f32 -> f32
  return
}

// -----

func.func @binary_result_rank(%a: tensor<3xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{result rank 2 does not match broadcast rank 1}}
  %0 = tdsl.max %a, %b : tensor<3xf32>, tensor<3xf32> -> tensor<4x3xf32>
  return
}

// -----

func.func @binary_result_dim(%a: tensor<4x1xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{result dim 1 is 5 but operands broadcast to 3}}
  %0 = tdsl.min %a, %b : tensor<4x1xf32>, tensor<3xf32> -> tensor<4x5xf32>
  return
}

// -----

func.func @and_float(%a: f32) {
  // expected-error @+1 {{operand #0 must be integer or ranked tensor of integers}}
  %0 = tdsl.and %a, %a : f32, f32 -> f32
  return
}

// -----

func.func @cmp_elem_type(%a: f32, %b: i32) {
  // expected-error @+1 {{requires lhs and rhs to have the same element type}}
  %0 = tdsl.cmp eq, %a, %b : f32, i32 -> i1
  return
}

// -----

func.func @cmp_result_type(%a: f32) {
  // expected-error @+1 {{result #0 must be i1 or ranked tensor of i1}}
  %0 = tdsl.cmp eq, %a, %a : f32, f32 -> f32
  return
}

// -----

func.func @cmp_bad_predicate(%a: f32) {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'predicate' [eq, ne, lt, le, gt, ge]}}
  %0 = tdsl.cmp foo, %a, %a : f32, f32 -> i1
  return
}

// -----

func.func @select_elem_type(%c: i1, %a: f32, %b: f64) {
  // expected-error @+1 {{requires both values and the result to have the same element type}}
  %0 = tdsl.select %c, %a, %b : i1, f32, f64 -> f32
  return
}

// -----

func.func @select_broadcast(%c: tensor<5xi1>, %a: tensor<3xf32>, %b: f32) {
  // expected-error @+1 {{operand #1 of type 'tensor<3xf32>' does not broadcast with the preceding operands}}
  %0 = tdsl.select %c, %a, %b : tensor<5xi1>, tensor<3xf32>, f32 -> tensor<3xf32>
  return
}

// -----

func.func @exp_int(%a: i32) {
  // expected-error @+1 {{operand #0 must be float or ranked tensor of floats}}
  %0 = tdsl.exp %a : i32
  return
}

// -----

func.func @not_float(%a: f32) {
  // expected-error @+1 {{operand #0 must be integer or ranked tensor of integers}}
  %0 = tdsl.not %a : f32
  return
}

// -----

func.func @cast_kind(%a: tensor<1xf32>) {
  // expected-error @+1 {{requires input and result to be both scalars or both tensors}}
  %0 = tdsl.cast %a : tensor<1xf32> to f32
  return
}

// -----

func.func @cast_shape(%a: tensor<3xi64>) {
  // expected-error @+1 {{requires input and result shapes to match}}
  %0 = tdsl.cast %a : tensor<3xi64> to tensor<4xf32>
  return
}

// -----

func.func @matmul_ranks(%a: tensor<2x2x2xf32>, %b: tensor<2x2xf32>) {
  // expected-error @+1 {{expects operand ranks 2x2, 2x1 or 1x2, got 3x2}}
  %0 = tdsl.matmul %a, %b : tensor<2x2x2xf32>, tensor<2x2xf32> -> tensor<2x2xf32>
  return
}

// -----

func.func @matmul_result_rank(%a: tensor<4x3xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{expects a result of rank 1, got 2}}
  %0 = tdsl.matmul %a, %b : tensor<4x3xf32>, tensor<3xf32> -> tensor<4x1xf32>
  return
}

// -----

func.func @matmul_elem_type(%a: tensor<4x3xf32>, %b: tensor<3x2xf64>) {
  // expected-error @+1 {{requires operands and result to have the same element type}}
  %0 = tdsl.matmul %a, %b : tensor<4x3xf32>, tensor<3x2xf64> -> tensor<4x2xf32>
  return
}

// -----

func.func @matmul_contracted(%a: tensor<4x3xf32>, %b: tensor<5x2xf32>) {
  // expected-error @+1 {{contracted dimensions differ: 3 vs 5}}
  %0 = tdsl.matmul %a, %b : tensor<4x3xf32>, tensor<5x2xf32> -> tensor<4x2xf32>
  return
}

// -----

func.func @matmul_result_dim(%a: tensor<4x3xf32>, %b: tensor<3x?xf32>) {
  // expected-error @+1 {{result dim 0 is 5 but operands imply 4}}
  %0 = tdsl.matmul %a, %b : tensor<4x3xf32>, tensor<3x?xf32> -> tensor<5x?xf32>
  return
}

// -----

func.func @index_gen_map_count(%a: tensor<?xf32>) {
  // expected-error @+1 {{expected 2 indexing maps (one per input plus one for the result), got 1}}
  %0 = tdsl.index_gen ins(%a : tensor<?xf32>) {
      indexing_maps = [affine_map<(i) -> (i)>],
      iterator_types = [#tdsl.iterator<parallel>],
      combiner = #tdsl.combiner<none>} -> tensor<?xf32> {
  ^bb0(%x: f32):
    tdsl.yield %x : f32
  }
  return
}

// -----

func.func @index_gen_map_dims(%a: tensor<?xf32>) {
  // expected-error @+1 {{indexing map #0 has 2 dims but there are 1 iterators}}
  %0 = tdsl.index_gen ins(%a : tensor<?xf32>) {
      indexing_maps = [affine_map<(i, j) -> (i)>, affine_map<(i) -> (i)>],
      iterator_types = [#tdsl.iterator<parallel>],
      combiner = #tdsl.combiner<none>} -> tensor<?xf32> {
  ^bb0(%x: f32):
    tdsl.yield %x : f32
  }
  return
}

// -----

func.func @index_gen_symbols(%a: tensor<?xf32>) {
  // expected-error @+1 {{indexing map #0 must not use symbols}}
  %0 = tdsl.index_gen ins(%a : tensor<?xf32>) {
      indexing_maps = [affine_map<(i)[s] -> (i + s)>, affine_map<(i) -> (i)>],
      iterator_types = [#tdsl.iterator<parallel>],
      combiner = #tdsl.combiner<none>} -> tensor<?xf32> {
  ^bb0(%x: f32):
    tdsl.yield %x : f32
  }
  return
}

// -----

func.func @index_gen_input_rank(%a: tensor<?x?xf32>) {
  // expected-error @+1 {{indexing map #0 has 1 results but input #0 has rank 2}}
  %0 = tdsl.index_gen ins(%a : tensor<?x?xf32>) {
      indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
      iterator_types = [#tdsl.iterator<parallel>],
      combiner = #tdsl.combiner<none>} -> tensor<?xf32> {
  ^bb0(%x: f32):
    tdsl.yield %x : f32
  }
  return
}

// -----

func.func @index_gen_scalar_input(%s: f32) {
  // expected-error @+1 {{indexing map #0 has 1 results but input #0 has rank 0}}
  %0 = tdsl.index_gen ins(%s : f32) {
      indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
      iterator_types = [#tdsl.iterator<parallel>],
      combiner = #tdsl.combiner<none>} -> tensor<4xf32> {
  ^bb0(%x: f32):
    tdsl.yield %x : f32
  }
  return
}

// -----

func.func @index_gen_out_expr(%a: tensor<?xf32>) {
  // expected-error @+1 {{output indexing map result #0 must be a plain iterator}}
  %0 = tdsl.index_gen ins(%a : tensor<?xf32>) {
      indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i + 1)>],
      iterator_types = [#tdsl.iterator<parallel>],
      combiner = #tdsl.combiner<none>} -> tensor<?xf32> {
  ^bb0(%x: f32):
    tdsl.yield %x : f32
  }
  return
}

// -----

func.func @index_gen_out_reduction(%a: tensor<?x?xf32>) {
  // expected-error @+1 {{output indexing map uses reduction iterator d1}}
  %0 = tdsl.index_gen ins(%a : tensor<?x?xf32>) {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>],
      iterator_types = [#tdsl.iterator<parallel>, #tdsl.iterator<reduction>],
      combiner = #tdsl.combiner<sum>} -> tensor<?xf32> {
  ^bb0(%x: f32):
    tdsl.yield %x : f32
  }
  return
}

// -----

func.func @index_gen_out_twice(%a: tensor<?xf32>) {
  // expected-error @+1 {{output indexing map uses iterator d0 twice}}
  %0 = tdsl.index_gen ins(%a : tensor<?xf32>) {
      indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i, i)>],
      iterator_types = [#tdsl.iterator<parallel>],
      combiner = #tdsl.combiner<none>} -> tensor<?x?xf32> {
  ^bb0(%x: f32):
    tdsl.yield %x : f32
  }
  return
}

// -----

func.func @index_gen_out_missing(%a: tensor<?x?xf32>) {
  // expected-error @+1 {{output indexing map must use each of the 2 parallel iterators exactly once}}
  %0 = tdsl.index_gen ins(%a : tensor<?x?xf32>) {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
      iterator_types = [#tdsl.iterator<parallel>, #tdsl.iterator<parallel>],
      combiner = #tdsl.combiner<none>} -> tensor<?xf32> {
  ^bb0(%x: f32):
    tdsl.yield %x : f32
  }
  return
}

// -----

func.func @index_gen_scalar_result(%a: tensor<?xf32>) {
  // expected-error @+1 {{result must be a scalar when there are no parallel iterators}}
  %0 = tdsl.index_gen ins(%a : tensor<?xf32>) {
      indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> ()>],
      iterator_types = [#tdsl.iterator<reduction>],
      combiner = #tdsl.combiner<sum>} -> tensor<f32> {
  ^bb0(%x: f32):
    tdsl.yield %x : f32
  }
  return
}

// -----

func.func @index_gen_result_rank(%a: tensor<?xf32>) {
  // expected-error @+1 {{result must be a ranked tensor of rank 1 (the number of parallel iterators), got 'tensor<?x?xf32>'}}
  %0 = tdsl.index_gen ins(%a : tensor<?xf32>) {
      indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
      iterator_types = [#tdsl.iterator<parallel>],
      combiner = #tdsl.combiner<none>} -> tensor<?x?xf32> {
  ^bb0(%x: f32):
    tdsl.yield %x : f32
  }
  return
}

// -----

func.func @index_gen_combiner_missing(%a: tensor<?xf32>) {
  // expected-error @+1 {{combiner must be 'none' exactly when there are no reduction iterators}}
  %0 = tdsl.index_gen ins(%a : tensor<?xf32>) {
      indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> ()>],
      iterator_types = [#tdsl.iterator<reduction>],
      combiner = #tdsl.combiner<none>} -> f32 {
  ^bb0(%x: f32):
    tdsl.yield %x : f32
  }
  return
}

// -----

func.func @index_gen_combiner_extra(%a: tensor<?xf32>) {
  // expected-error @+1 {{combiner must be 'none' exactly when there are no reduction iterators}}
  %0 = tdsl.index_gen ins(%a : tensor<?xf32>) {
      indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
      iterator_types = [#tdsl.iterator<parallel>],
      combiner = #tdsl.combiner<max>} -> tensor<?xf32> {
  ^bb0(%x: f32):
    tdsl.yield %x : f32
  }
  return
}

// -----

func.func @index_gen_arg_count(%a: tensor<?xf32>) {
  // expected-error @+1 {{body must have one argument per input (1), got 2}}
  %0 = tdsl.index_gen ins(%a : tensor<?xf32>) {
      indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
      iterator_types = [#tdsl.iterator<parallel>],
      combiner = #tdsl.combiner<none>} -> tensor<?xf32> {
  ^bb0(%x: f32, %y: f32):
    tdsl.yield %x : f32
  }
  return
}

// -----

func.func @index_gen_arg_type(%a: tensor<?xf32>) {
  // expected-error @+1 {{body argument #0 has type 'f64' but input #0 needs 'f32'}}
  %0 = tdsl.index_gen ins(%a : tensor<?xf32>) {
      indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
      iterator_types = [#tdsl.iterator<parallel>],
      combiner = #tdsl.combiner<none>} -> tensor<?xf32> {
  ^bb0(%x: f64):
    %c = tdsl.constant 1.0 : f32
    tdsl.yield %c : f32
  }
  return
}

// -----

func.func @index_gen_yield_count(%a: tensor<?xf32>) {
  // expected-error @+1 {{body must yield exactly one value, got 2}}
  %0 = tdsl.index_gen ins(%a : tensor<?xf32>) {
      indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
      iterator_types = [#tdsl.iterator<parallel>],
      combiner = #tdsl.combiner<none>} -> tensor<?xf32> {
  ^bb0(%x: f32):
    tdsl.yield %x, %x : f32, f32
  }
  return
}

// -----

func.func @index_gen_yield_type(%a: tensor<?xf32>) {
  // expected-error @+1 {{yielded type 'i1' does not match the result element type 'f32'}}
  %0 = tdsl.index_gen ins(%a : tensor<?xf32>) {
      indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
      iterator_types = [#tdsl.iterator<parallel>],
      combiner = #tdsl.combiner<none>} -> tensor<?xf32> {
  ^bb0(%x: f32):
    %b = tdsl.cmp gt, %x, %x : f32, f32 -> i1
    tdsl.yield %b : i1
  }
  return
}

// -----

func.func @index_gen_bad_iterator(%a: tensor<?xf32>) {
  %0 = tdsl.index_gen ins(%a : tensor<?xf32>) {
      indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
      // expected-error @+2 {{expected one of [parallel, reduction] for index_gen iterator kind, got: serial}}
      // expected-error @+1 {{failed to parse TDSL_IteratorTypeAttr parameter 'value'}}
      iterator_types = [#tdsl.iterator<serial>],
      combiner = #tdsl.combiner<none>} -> tensor<?xf32> {
  ^bb0(%x: f32):
    tdsl.yield %x : f32
  }
  return
}

// -----

func.func @index_outside() {
  // expected-error @+1 {{must be nested in a tdsl.index_gen}}
  %i = tdsl.index 0 : index
  return
}

// -----

func.func @index_out_of_range() {
  %0 = tdsl.index_gen {
      indexing_maps = [affine_map<(i) -> (i)>],
      iterator_types = [#tdsl.iterator<parallel>],
      combiner = #tdsl.combiner<none>} -> tensor<4xindex> {
    // expected-error @+1 {{dim 1 is out of range: the enclosing tdsl.index_gen has 1 iterators}}
    %i = tdsl.index 1 : index
    tdsl.yield %i : index
  }
  return
}

// -----

func.func @yield_parent(%x: f32) {
  // expected-error @+1 {{expects parent op to be one of 'tdsl.index_gen, tdsl.parallel_for'}}
  tdsl.yield %x : f32
}

// -----

func.func @parallel_for_bound_count(%n: index) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{expected as many lower and upper bounds as induction variables}}
  %t = tdsl.parallel_for (%i, %j) = (%c0) to (%n, %n) -> tensor<?x?xf32> {
    %x = tdsl.constant 1.0 : f32
    tdsl.yield %x : f32
  }
  return
}

// -----

func.func @parallel_for_reduce_kind(%n: index, %x: f32) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{unknown reduction kind 'avg'}}
  %s = tdsl.parallel_for (%i) = (%c0) to (%n) reduce(avg) -> f32 {
    tdsl.yield %x : f32
  }
  return
}

// -----

func.func @parallel_for_bounds_generic(%n: index, %x: f32) {
  // expected-error @+1 {{requires as many upper bounds as lower bounds, got 2 and 1}}
  %t = "tdsl.parallel_for"(%n, %n, %n) <{operandSegmentSizes = array<i32: 1, 2>, reduce = #tdsl.reduce<none>}> ({
  ^bb0(%i: index):
    tdsl.yield %x : f32
  }) : (index, index, index) -> tensor<?xf32>
  return
}

// -----

func.func @parallel_for_zero_dims(%x: f32) {
  // expected-error @+1 {{requires at least one dimension}}
  %t = "tdsl.parallel_for"() <{operandSegmentSizes = array<i32: 0, 0>, reduce = #tdsl.reduce<add>}> ({
    tdsl.yield %x : f32
  }) : () -> f32
  return
}

// -----

func.func @parallel_for_tensor_result(%n: index, %x: f32) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{without a reduction the result must be a ranked tensor of rank 1, got 'f32'}}
  %t = tdsl.parallel_for (%i) = (%c0) to (%n) -> f32 {
    tdsl.yield %x : f32
  }
  return
}

// -----

func.func @parallel_for_scalar_result(%n: index, %x: f32) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{with a reduction the result must be a scalar, got 'tensor<?xf32>'}}
  %t = tdsl.parallel_for (%i) = (%c0) to (%n) reduce(add) -> tensor<?xf32> {
    tdsl.yield %x : f32
  }
  return
}

// -----

func.func @parallel_for_body_args(%n: index, %x: f32) {
  // expected-error @+1 {{body must have one index argument per dimension (1)}}
  %t = "tdsl.parallel_for"(%n, %n) <{operandSegmentSizes = array<i32: 1, 1>, reduce = #tdsl.reduce<none>}> ({
  ^bb0(%i: i64):
    tdsl.yield %x : f32
  }) : (index, index) -> tensor<?xf32>
  return
}

// -----

func.func @parallel_for_yield_tensor(%n: index, %x: tensor<2xf32>) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{body must yield a scalar, got 'tensor<2xf32>'}}
  %t = tdsl.parallel_for (%i) = (%c0) to (%n) -> tensor<?xf32> {
    tdsl.yield %x : tensor<2xf32>
  }
  return
}

// -----

func.func @parallel_for_yield_elem(%n: index, %x: f64) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{yielded type 'f64' does not match the result element type 'f32'}}
  %t = tdsl.parallel_for (%i) = (%c0) to (%n) -> tensor<?xf32> {
    tdsl.yield %x : f64
  }
  return
}

// -----

func.func @parallel_for_yield_reduced(%n: index, %x: i32) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{yielded type 'i32' does not match the result type 'i64'}}
  %t = tdsl.parallel_for (%i) = (%c0) to (%n) reduce(add) -> i64 {
    tdsl.yield %x : i32
  }
  return
}

// -----

func.func @parallel_for_no_value(%n: index) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{body must yield exactly one value, got 0}}
  %t = tdsl.parallel_for (%i) = (%c0) to (%n) reduce(add) -> i64 {
    tdsl.yield
  }
  return
}

// -----

func.func @random_seed(%s: f32, %c: i64) {
  // expected-error @+1 {{operand #0 must be ui64 or i64 seed}}
  %0 = tdsl.random uniform %s, %c : f32, i64 -> f32
  return
}

// -----

func.func @random_tensor_sizes(%s: ui64, %n: index) {
  // expected-error @+1 {{expected 2 dynamic size operands (one per '?' dim of 'tensor<?x?xf32>'), got 1}}
  %0 = tdsl.random_tensor normal %s [%n] : ui64 -> tensor<?x?xf32>
  return
}

// -----

func.func @fill_type(%v: f64) {
  // expected-error @+1 {{fill value type 'f64' does not match the element type of 'tensor<2xf32>'}}
  %0 = tdsl.fill %v : f64 -> tensor<2xf32>
  return
}

// -----

func.func @fill_sizes(%v: f32, %n: index) {
  // expected-error @+1 {{expected 0 dynamic size operands (one per '?' dim of 'tensor<2xf32>'), got 1}}
  %0 = tdsl.fill %v [%n] : f32 -> tensor<2xf32>
  return
}

// -----

func.func @arange_missing_size() {
  // expected-error @+1 {{expected 1 dynamic size operands (one per '?' dim of 'tensor<?xi64>'), got 0}}
  %0 = tdsl.arange : tensor<?xi64>
  return
}

// -----

func.func @arange_rank() {
  // expected-error @+1 {{result #0 must be 1D tensor of}}
  %0 = tdsl.arange : tensor<2x2xi64>
  return
}

// -----

func.func @print_nothing() {
  // expected-error @+1 {{requires a message or a value}}
  "tdsl.print"() : () -> ()
  return
}

// -----

func.func @vec(%x: tensor<2xf32>) -> tensor<2xf32> {
  return %x : tensor<2xf32>
}

func.func @grad_of_tensor_function(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'vec' must return one floating-point scalar}}
  %g = tdsl.grad @vec(%x) : (tensor<2xf32>) -> tensor<2xf32>
  return %g : tensor<2xf32>
}

// -----

func.func @loss(%x: tensor<2xf32>) -> f32 {
  %c = tdsl.constant 1.0 : f32
  return %c : f32
}

func.func @grad_wrong_result(%x: tensor<2xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{result type 'tensor<3xf32>' must be argument 0's type 'tensor<2xf32>'}}
  %g = tdsl.grad @loss(%x) : (tensor<2xf32>) -> tensor<3xf32>
  return %g : tensor<3xf32>
}

// -----

func.func @loss2(%x: tensor<2xf32>, %y: f32) -> f32 {
  return %y : f32
}

func.func @grad_too_many_results(%x: tensor<2xf32>, %y: f32) -> f32 {
  // expected-error @+1 {{needs one result per differentiated argument: 1 to 2, not 3}}
  %g:3 = tdsl.grad @loss2(%x, %y) : (tensor<2xf32>, f32) -> (tensor<2xf32>, f32, f32)
  return %g#1 : f32
}

// -----

func.func @loss3(%x: tensor<2xf32>, %n: i64) -> f32 {
  %c = tdsl.constant 1.0 : f32
  return %c : f32
}

func.func @grad_of_integer(%x: tensor<2xf32>, %n: i64) -> i64 {
  // expected-error @+1 {{argument 1 of 'loss3' must be floating-point}}
  %g:2 = tdsl.grad @loss3(%x, %n) : (tensor<2xf32>, i64) -> (tensor<2xf32>, i64)
  return %g#1 : i64
}

// -----

func.func @grad_no_function(%x: f32) -> f32 {
  // expected-error @+1 {{'nowhere' is not a function}}
  %g = tdsl.grad @nowhere(%x) : (f32) -> f32
  return %g : f32
}

// -----

func.func @load_format() -> tensor<?x3xf32> {
  // expected-error @+1 {{format must be "npy" or "csv", not "json"}}
  %t = tdsl.load "t.json" {format = "json"} : tensor<?x3xf32>
  return %t : tensor<?x3xf32>
}

// -----

func.func @load_csv_rank() -> tensor<?xf32> {
  // expected-error @+1 {{a CSV file is read as a rank-2 tensor of f32, f64, i32 or i64, not 'tensor<?xf32>'}}
  %t = tdsl.load "t.csv" {format = "csv"} : tensor<?xf32>
  return %t : tensor<?xf32>
}

// -----

func.func @allreduce_kind(%x: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{kind must be "sum", "max" or "min", not "avg"}}
  %y = tdsl.allreduce "avg" %x : (tensor<3xf32>) -> tensor<3xf32>
  return %y : tensor<3xf32>
}

// -----

func.func @broadcast_types(%x: tensor<3xf32>, %r: i64) -> tensor<4xf32> {
  // expected-error @+1 {{results must have the types of the operands}}
  %y = tdsl.broadcast %x from %r : (tensor<3xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}
