// RUN: tdsl-opt %s --tdsl-lower-nested-linalg --split-input-file --verify-diagnostics | FileCheck %s

// A linalg op inside the body of another (an arange or a map-form parallel
// for in a loop body) reads its loop indices with linalg.index, like the
// outer op: CSE would merge the two and the inner op would read the outer
// loop's index (test/Examples/nested-generics.tdsl). The pass rewrites each
// nested linalg op as an scf.for nest that extracts its inputs, runs its
// body with linalg.index replaced by the loop's induction variable, and
// inserts into (or accumulates in) its output; an scf.forall in a body runs
// serially as scf.for; and every tensor.empty in a body becomes a
// bufferization.alloc_tensor, which CSE cannot merge with the kernel's own
// output. Outermost ops are left alone.

// An arange in a parallel loop body: the inner linalg.index becomes the
// scf.for's induction variable; the outer one stays.
// CHECK-LABEL: func.func @arange_in_body(
// CHECK:         %[[OUTER_E:.*]] = tensor.empty() : tensor<3xf32>
// CHECK:         linalg.generic {{.*}} outs(%[[OUTER_E]] : tensor<3xf32>)
// CHECK:           %[[I:.*]] = linalg.index 0 : index
// CHECK-NOT:       tensor.empty
// CHECK:           %[[E:.*]] = bufferization.alloc_tensor() : tensor<4xf32>
// CHECK-DAG:       %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:       %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:       %[[C4:.*]] = arith.constant 4 : index
// CHECK:           %[[A:.*]] = scf.for %[[K:.*]] = %[[C0]] to %[[C4]] step %[[C1]] iter_args(%[[T:.*]] = %[[E]]) -> (tensor<4xf32>) {
// CHECK-NOT:         linalg.index
// CHECK:             %[[S:.*]] = arith.addi %[[K]], %[[I]] : index
// CHECK:             %[[SI:.*]] = arith.index_cast %[[S]] : index to i64
// CHECK:             %[[SF:.*]] = arith.sitofp %[[SI]] : i64 to f32
// CHECK:             %[[U:.*]] = tensor.insert %[[SF]] into %[[T]][%[[K]]] : tensor<4xf32>
// CHECK:             scf.yield %[[U]] : tensor<4xf32>
// CHECK:           }
// CHECK:           tensor.extract %[[A]][%{{.*}}] : tensor<4xf32>
// CHECK-NOT:     linalg.generic
#id = affine_map<(d0) -> (d0)>
func.func @arange_in_body() -> tensor<3xf32> {
  %e = tensor.empty() : tensor<3xf32>
  %r = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel"]} outs(%e : tensor<3xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %e4 = tensor.empty() : tensor<4xf32>
    %a = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel"]} outs(%e4 : tensor<4xf32>) {
    ^bb0(%o: f32):
      %k = linalg.index 0 : index
      %s = arith.addi %k, %i : index
      %ki = arith.index_cast %s : index to i64
      %kf = arith.sitofp %ki : i64 to f32
      linalg.yield %kf : f32
    } -> tensor<4xf32>
    %c3 = arith.constant 3 : index
    %v = tensor.extract %a[%c3] : tensor<4xf32>
    linalg.yield %v : f32
  } -> tensor<3xf32>
  return %r : tensor<3xf32>
}

// -----

// A reduction in a body: one scf.for per loop; inputs are extracted at
// their indexing maps (a constant subscript stays a constant, a scalar
// input is used as it is) and the output element is read, updated and
// inserted back. The named fill before it is generalized and lowered too.
// CHECK-LABEL: func.func @row_sums_in_body(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<4x5xf32>, %[[Y:[^:]*]]: tensor<1xf32>, %[[W:[^:]*]]: f32
// CHECK:         linalg.generic
// CHECK:           %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:           %[[E:.*]] = bufferization.alloc_tensor() : tensor<4xf32>
// CHECK:           %[[F:.*]] = scf.for %[[I0:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[T0:.*]] = %[[E]]) -> (tensor<4xf32>) {
// CHECK:             %[[U0:.*]] = tensor.insert %[[ZERO]] into %[[T0]][%[[I0]]] : tensor<4xf32>
// CHECK:             scf.yield %[[U0]]
// CHECK:           }
// CHECK:           %[[SUMS:.*]] = scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[T:.*]] = %[[F]]) -> (tensor<4xf32>) {
// CHECK:             %[[C5:.*]] = arith.constant 5 : index
// CHECK:             %[[IN:.*]] = scf.for %[[J:.*]] = %{{.*}} to %[[C5]] step %{{.*}} iter_args(%[[TJ:.*]] = %[[T]]) -> (tensor<4xf32>) {
// CHECK:               %[[XV:.*]] = tensor.extract %[[X]][%[[I]], %[[J]]] : tensor<4x5xf32>
// CHECK:               %[[CST0:.*]] = arith.constant 0 : index
// CHECK:               %[[YV:.*]] = tensor.extract %[[Y]][%[[CST0]]] : tensor<1xf32>
// CHECK:               %[[ACC:.*]] = tensor.extract %[[TJ]][%[[I]]] : tensor<4xf32>
// CHECK:               %[[P:.*]] = arith.mulf %[[XV]], %[[YV]] : f32
// CHECK:               %[[PW:.*]] = arith.mulf %[[P]], %[[W]] : f32
// CHECK:               %[[SUM:.*]] = arith.addf %[[ACC]], %[[PW]] : f32
// CHECK:               %[[U:.*]] = tensor.insert %[[SUM]] into %[[TJ]][%[[I]]] : tensor<4xf32>
// CHECK:               scf.yield %[[U]] : tensor<4xf32>
// CHECK:             }
// CHECK:             scf.yield %[[IN]] : tensor<4xf32>
// CHECK:           }
// CHECK:           tensor.extract %[[SUMS]]
#in = affine_map<(d0, d1) -> (d0, d1)>
#bc = affine_map<(d0, d1) -> (0)>
#sc = affine_map<(d0, d1) -> ()>
#out = affine_map<(d0, d1) -> (d0)>
#id = affine_map<(d0) -> (d0)>
func.func @row_sums_in_body(%x: tensor<4x5xf32>, %y: tensor<1xf32>, %w: f32) -> tensor<3xf32> {
  %e = tensor.empty() : tensor<3xf32>
  %r = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel"]} outs(%e : tensor<3xf32>) {
  ^bb0(%out: f32):
    %z = arith.constant 0.0 : f32
    %e4 = tensor.empty() : tensor<4xf32>
    %f = linalg.fill ins(%z : f32) outs(%e4 : tensor<4xf32>) -> tensor<4xf32>
    %sums = linalg.generic {indexing_maps = [#in, #bc, #sc, #out], iterator_types = ["parallel", "reduction"]}
        ins(%x, %y, %w : tensor<4x5xf32>, tensor<1xf32>, f32) outs(%f : tensor<4xf32>) {
    ^bb0(%xv: f32, %yv: f32, %wv: f32, %acc: f32):
      %p = arith.mulf %xv, %yv : f32
      %pw = arith.mulf %p, %wv : f32
      %a = arith.addf %acc, %pw : f32
      linalg.yield %a : f32
    } -> tensor<4xf32>
    %c0 = arith.constant 0 : index
    %v = tensor.extract %sums[%c0] : tensor<4xf32>
    linalg.yield %v : f32
  } -> tensor<3xf32>
  return %r : tensor<3xf32>
}

// -----

// A rank-0 fill has no loop: it becomes one tensor.insert. An scf.forall
// in a body (a reduction of a function inlined there) runs serially: an
// scf.for over the same range carrying its shared output, each
// tensor.parallel_insert_slice a tensor.insert_slice.
// CHECK-LABEL: func.func @fill_and_forall(
// CHECK-SAME:    %[[SRC:[^:]*]]: tensor<6xf32>
// CHECK:         linalg.generic
// CHECK:           %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:           %[[E0:.*]] = bufferization.alloc_tensor() : tensor<f32>
// CHECK-NOT:       scf.for
// CHECK:           %[[FILLED:.*]] = tensor.insert %[[ZERO]] into %[[E0]][] : tensor<f32>
// CHECK:           %[[E6:.*]] = bufferization.alloc_tensor() : tensor<6xf32>
// CHECK-DAG:       %[[LB:.*]] = arith.constant 0 : index
// CHECK-DAG:       %[[UB:.*]] = arith.constant 6 : index
// CHECK-DAG:       %[[STEP:.*]] = arith.constant 2 : index
// CHECK:           %[[P:.*]] = scf.for %[[J:.*]] = %[[LB]] to %[[UB]] step %[[STEP]] iter_args(%[[O:.*]] = %[[E6]]) -> (tensor<6xf32>) {
// CHECK:             %[[S:.*]] = tensor.extract_slice %[[SRC]][%[[J]]] [2] [1]
// CHECK:             %[[U:.*]] = tensor.insert_slice %[[S]] into %[[O]][%[[J]]] [2] [1] : tensor<2xf32> into tensor<6xf32>
// CHECK:             scf.yield %[[U]] : tensor<6xf32>
// CHECK:           }
// CHECK-NOT:       scf.forall
// CHECK:           tensor.extract %[[FILLED]][] : tensor<f32>
// CHECK:           tensor.extract %[[P]][%{{.*}}] : tensor<6xf32>
#id = affine_map<(d0) -> (d0)>
func.func @fill_and_forall(%t: tensor<6xf32>) -> tensor<3xf32> {
  %e = tensor.empty() : tensor<3xf32>
  %r = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel"]} outs(%e : tensor<3xf32>) {
  ^bb0(%out: f32):
    %z = arith.constant 0.0 : f32
    %e0 = tensor.empty() : tensor<f32>
    %f = linalg.fill ins(%z : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
    %e6 = tensor.empty() : tensor<6xf32>
    %p = scf.forall (%j) = (0) to (6) step (2) shared_outs(%o = %e6) -> (tensor<6xf32>) {
      %s = tensor.extract_slice %t[%j] [2] [1] : tensor<6xf32> to tensor<2xf32>
      scf.forall.in_parallel {
        tensor.parallel_insert_slice %s into %o[%j] [2] [1] : tensor<2xf32> into tensor<6xf32>
      }
    }
    %v = tensor.extract %f[] : tensor<f32>
    %c5 = arith.constant 5 : index
    %w = tensor.extract %p[%c5] : tensor<6xf32>
    %a = arith.addf %v, %w : f32
    linalg.yield %a : f32
  } -> tensor<3xf32>
  return %r : tensor<3xf32>
}

// -----

// Nothing nested: the kernel, its linalg.index, its tensor.empty and a
// top-level scf.forall stay as they are.
// CHECK-LABEL: func.func @top_level(
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<4xf32>
// CHECK:         %[[R:.*]] = linalg.generic {{.*}} outs(%[[E]] : tensor<4xf32>)
// CHECK:           linalg.index 0 : index
// CHECK:         scf.forall (%{{.*}}) in (4) shared_outs(%{{.*}} = %[[R]])
// CHECK-NOT:     scf.for %
// CHECK-NOT:     bufferization.alloc_tensor
#id = affine_map<(d0) -> (d0)>
func.func @top_level(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %i = linalg.index 0 : index
    %n = arith.index_cast %i : index to i64
    %f = arith.sitofp %n : i64 to f32
    %a = arith.addf %in, %f : f32
    linalg.yield %a : f32
  } -> tensor<4xf32>
  %z = scf.forall (%i) in (4) shared_outs(%o = %r) -> (tensor<4xf32>) {
    scf.forall.in_parallel {
    }
  }
  return %z : tensor<4xf32>
}

// -----

// A nested op with two outputs has no loop form here: an error, not a
// miscompilation.
#id = affine_map<(d0) -> (d0)>
func.func @two_outputs() -> tensor<3xf32> {
  %e = tensor.empty() : tensor<3xf32>
  %r = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel"]} outs(%e : tensor<3xf32>) {
  ^bb0(%out: f32):
    %e4 = tensor.empty() : tensor<4xf32>
    // expected-error @+1 {{'linalg.generic' op expected one tensor output}}
    %a:2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} outs(%e4, %e4 : tensor<4xf32>, tensor<4xf32>) {
    ^bb0(%o: f32, %o2: f32):
      linalg.yield %o, %o2 : f32, f32
    } -> (tensor<4xf32>, tensor<4xf32>)
    %c3 = arith.constant 3 : index
    %v = tensor.extract %a#0[%c3] : tensor<4xf32>
    linalg.yield %v : f32
  } -> tensor<3xf32>
  return %r : tensor<3xf32>
}
