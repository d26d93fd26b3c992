// Element-wise producers fuse into consumers that read each produced element
// once; consumers that would recompute the producer (broadcast reads,
// contractions) keep it separate.
// RUN: tdsl-opt %s -split-input-file --tdsl-fuse-elementwise | FileCheck %s

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// exp then a row sum: one reduction generic computing exp in its body.
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @exp_then_rowsum(
// CHECK-SAME: %[[X:.*]]: tensor<8x16xf32>
// CHECK: %[[FILL:.*]] = linalg.fill
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ROW]]], iterator_types = ["parallel", "reduction"]}
// CHECK-SAME: ins(%[[X]] : tensor<8x16xf32>) outs(%[[FILL]] : tensor<8xf32>)
// CHECK: ^bb0(%[[IN:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK: %[[E:.*]] = math.exp %[[IN]] : f32
// CHECK: %[[S:.*]] = arith.addf %[[ACC]], %[[E]] : f32
// CHECK: linalg.yield %[[S]] : f32
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]
func.func @exp_then_rowsum(%x: tensor<8x16xf32>) -> tensor<8xf32> {
  %e0 = tensor.empty() : tensor<8x16xf32>
  %e = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x16xf32>) outs(%e0 : tensor<8x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = math.exp %in : f32
    linalg.yield %v : f32
  } -> tensor<8x16xf32>
  %cst = arith.constant 0.0 : f32
  %s0 = tensor.empty() : tensor<8xf32>
  %s1 = linalg.fill ins(%cst : f32) outs(%s0 : tensor<8xf32>) -> tensor<8xf32>
  %s = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%e : tensor<8x16xf32>) outs(%s1 : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.addf %out, %in : f32
    linalg.yield %a : f32
  } -> tensor<8xf32>
  return %s : tensor<8xf32>
}

// A chain of element-wise ops (with a broadcast input) becomes one generic.
// CHECK-LABEL: func.func @chain(
// CHECK-SAME: %[[X:.*]]: tensor<8x16xf32>, %[[Y:.*]]: tensor<16xf32>
// CHECK: %[[R:.*]] = linalg.generic
// CHECK-SAME: ins(%[[X]], %[[Y]] : tensor<8x16xf32>, tensor<16xf32>)
// CHECK: %[[A:.*]] = arith.addf
// CHECK: %[[T:.*]] = math.tanh %[[A]] : f32
// CHECK: linalg.yield %[[T]] : f32
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]
func.func @chain(%x: tensor<8x16xf32>, %y: tensor<16xf32>) -> tensor<8x16xf32> {
  %e0 = tensor.empty() : tensor<8x16xf32>
  %e = linalg.generic {indexing_maps = [#id, affine_map<(d0, d1) -> (d1)>, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : tensor<8x16xf32>, tensor<16xf32>) outs(%e0 : tensor<8x16xf32>) {
  ^bb0(%in: f32, %in2: f32, %out: f32):
    %v = arith.addf %in, %in2 : f32
    linalg.yield %v : f32
  } -> tensor<8x16xf32>
  %f = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%e : tensor<8x16xf32>) outs(%e0 : tensor<8x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = math.tanh %in : f32
    linalg.yield %v : f32
  } -> tensor<8x16xf32>
  return %f : tensor<8x16xf32>
}

// -----

// A contraction reads A[i, k] for every j: exp(A) stays a separate op.
// CHECK-LABEL: func.func @exp_then_matmul(
// CHECK-SAME: %[[A:.*]]: tensor<8x4xf32>, %[[B:.*]]: tensor<4x16xf32>
// CHECK: %[[E:.*]] = linalg.generic
// CHECK-SAME: ins(%[[A]] : tensor<8x4xf32>)
// CHECK: math.exp
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel", "reduction"]
// CHECK-SAME: ins(%[[E]], %[[B]] : tensor<8x4xf32>, tensor<4x16xf32>)
// CHECK-NOT: math.exp
// CHECK: return
func.func @exp_then_matmul(%a: tensor<8x4xf32>, %b: tensor<4x16xf32>) -> tensor<8x16xf32> {
  %e0 = tensor.empty() : tensor<8x4xf32>
  %e = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<8x4xf32>) outs(%e0 : tensor<8x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = math.exp %in : f32
    linalg.yield %v : f32
  } -> tensor<8x4xf32>
  %cst = arith.constant 0.0 : f32
  %c0 = tensor.empty() : tensor<8x16xf32>
  %c1 = linalg.fill ins(%cst : f32) outs(%c0 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %c = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%e, %b : tensor<8x4xf32>, tensor<4x16xf32>) outs(%c1 : tensor<8x16xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %q = arith.addf %o, %p : f32
    linalg.yield %q : f32
  } -> tensor<8x16xf32>
  return %c : tensor<8x16xf32>
}

// A consumer that broadcasts the produced row (map (d0, d1) -> (d1)) reads
// each element 8 times: no fusion.
// CHECK-LABEL: func.func @broadcast_read(
// CHECK-SAME: %[[Y:.*]]: tensor<16xf32>, %[[X:.*]]: tensor<8x16xf32>
// CHECK: %[[E:.*]] = linalg.generic
// CHECK-SAME: ins(%[[Y]] : tensor<16xf32>)
// CHECK: math.exp
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[X]], %[[E]] : tensor<8x16xf32>, tensor<16xf32>)
// CHECK-NOT: math.exp
// CHECK: arith.mulf
func.func @broadcast_read(%y: tensor<16xf32>, %x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %e0 = tensor.empty() : tensor<16xf32>
  %e = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%y : tensor<16xf32>) outs(%e0 : tensor<16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = math.exp %in : f32
    linalg.yield %v : f32
  } -> tensor<16xf32>
  %o0 = tensor.empty() : tensor<8x16xf32>
  %f = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x, %e : tensor<8x16xf32>, tensor<16xf32>) outs(%o0 : tensor<8x16xf32>) {
  ^bb0(%in: f32, %in2: f32, %out: f32):
    %v = arith.mulf %in, %in2 : f32
    linalg.yield %v : f32
  } -> tensor<8x16xf32>
  return %f : tensor<8x16xf32>
}

// A producer outside the consumer's loop is not fused into it (it would be
// recomputed on every trip).
// CHECK-LABEL: func.func @producer_outside_loop(
// CHECK: %[[E:.*]] = linalg.generic
// CHECK: math.exp
// CHECK: scf.for
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[E]] : tensor<16xf32>)
// CHECK-NOT: math.exp
// CHECK: math.sqrt
func.func @producer_outside_loop(%y: tensor<16xf32>, %n: index) -> tensor<16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e0 = tensor.empty() : tensor<16xf32>
  %e = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%y : tensor<16xf32>) outs(%e0 : tensor<16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = math.exp %in : f32
    linalg.yield %v : f32
  } -> tensor<16xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %y) -> tensor<16xf32> {
    %g = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
        ins(%e : tensor<16xf32>) outs(%acc : tensor<16xf32>) {
    ^bb0(%in: f32, %out: f32):
      %v = math.sqrt %in : f32
      linalg.yield %v : f32
    } -> tensor<16xf32>
    scf.yield %g : tensor<16xf32>
  }
  return %r : tensor<16xf32>
}

// -----

// A producer whose value is also used before the consumer (a stencil sweep
// written into the tensor the next sweep reads) would stay for that use and
// run twice: no fusion.
// CHECK-LABEL: func.func @use_before_consumer(
// CHECK: %[[E:.*]] = linalg.generic
// CHECK: math.exp
// CHECK: tensor.insert_slice %[[E]]
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[E]], %{{.*}} : tensor<16xf32>, tensor<16xf32>)
// CHECK-NOT: math.exp
// CHECK: return
func.func @use_before_consumer(%y: tensor<16xf32>, %b: tensor<32xf32>) -> tensor<16xf32> {
  %e0 = tensor.empty() : tensor<16xf32>
  %e = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%y : tensor<16xf32>) outs(%e0 : tensor<16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = math.exp %in : f32
    linalg.yield %v : f32
  } -> tensor<16xf32>
  %u = tensor.insert_slice %e into %b[8] [16] [1] : tensor<16xf32> into tensor<32xf32>
  %s = tensor.extract_slice %u[0] [16] [1] : tensor<32xf32> to tensor<16xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%e, %s : tensor<16xf32>, tensor<16xf32>) outs(%e0 : tensor<16xf32>) {
  ^bb0(%in: f32, %in2: f32, %out: f32):
    %v = arith.addf %in, %in2 : f32
    linalg.yield %v : f32
  } -> tensor<16xf32>
  return %g : tensor<16xf32>
}

// A producer also used after the consumer is fused once: the fused op
// returns its value too, and the later use takes it from there.
// CHECK-LABEL: func.func @use_after_consumer(
// CHECK: %[[F:.*]]:2 = linalg.generic
// CHECK: math.exp
// CHECK: arith.addf
// CHECK-NOT: linalg.generic
// CHECK: return %[[F]]#{{[01]}}, %[[F]]#{{[01]}}
func.func @use_after_consumer(%y: tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>) {
  %e0 = tensor.empty() : tensor<16xf32>
  %e = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%y : tensor<16xf32>) outs(%e0 : tensor<16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = math.exp %in : f32
    linalg.yield %v : f32
  } -> tensor<16xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%e : tensor<16xf32>) outs(%e0 : tensor<16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = arith.addf %in, %in : f32
    linalg.yield %v : f32
  } -> tensor<16xf32>
  return %e, %g : tensor<16xf32>, tensor<16xf32>
}

// A consumer that reads one column of a value stored anyway would store
// only that column: the value stays its own op and is read.
// CHECK-LABEL: func.func @column_of_stored(
// CHECK: %[[E:.*]] = linalg.generic
// CHECK: math.exp
// CHECK: %[[C:.*]] = linalg.generic
// CHECK-SAME: ins(%[[E]] : tensor<4x8xf32>)
// CHECK-NOT: math.exp
// CHECK: return %[[E]], %[[C]]
func.func @column_of_stored(%y: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4xf32>) {
  %e0 = tensor.empty() : tensor<4x8xf32>
  %e = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%y : tensor<4x8xf32>) outs(%e0 : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = math.exp %in : f32
    linalg.yield %v : f32
  } -> tensor<4x8xf32>
  %c0 = tensor.empty() : tensor<4xf32>
  %c = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0, 0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%e : tensor<4x8xf32>) outs(%c0 : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = arith.addf %in, %in : f32
    linalg.yield %v : f32
  } -> tensor<4xf32>
  return %e, %c : tensor<4x8xf32>, tensor<4xf32>
}
