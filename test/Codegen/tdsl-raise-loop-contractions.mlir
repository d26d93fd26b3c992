// A parallel body that yields `for k { s = s + x * y }` becomes the loop's
// initial values and a generic with a reduction loop k
// (tdsl-raise-loop-contractions); loops that are not contractions stay.
// RUN: tdsl-opt %s --tdsl-raise-loop-contractions | FileCheck %s
// RUN: tdsl-opt %s --tdsl-raise-loop-contractions --tdsl-raise-extracts --tdsl-fuse-elementwise | FileCheck %s --check-prefix=RAISED

// c[i, j] = bias[j] + sum(k) a[i, k] * b[k, j], in k's order.
// CHECK-DAG: #[[K:.*]] = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @matmul(
// CHECK-SAME: %[[A:[^:]*]]: tensor<4x6xf32>, %[[B:[^:]*]]: tensor<6x5xf32>, %[[BIAS:[^:]*]]: tensor<5xf32>
// CHECK: %[[INIT:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<4x5xf32>) attrs ={{ +}}{tdsl.kernel_id = "k#0"} {
// CHECK: %[[BJ:.*]] = tensor.extract %[[BIAS]]
// CHECK-NOT: scf.for
// CHECK: linalg.yield %[[BJ]] : f32
// CHECK: %[[E:.*]] = tensor.empty() : tensor<6xf32>
// CHECK: linalg.generic {indexing_maps = [#[[K]], #[[OUT]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[E]] : tensor<6xf32>) outs(%[[INIT]] : tensor<4x5xf32>) attrs ={{ +}}{tdsl.kernel_id = "k#0"} {
// CHECK-NEXT: ^bb0(%{{.*}}: f32, %[[ACC:.*]]: f32):
// CHECK-DAG: %[[I:.*]] = linalg.index 0 : index
// CHECK-DAG: %[[J:.*]] = linalg.index 1 : index
// CHECK-DAG: %[[KK:.*]] = linalg.index 2 : index
// CHECK: %[[X:.*]] = tensor.extract %[[A]][%[[I]], %[[KK]]]
// CHECK: %[[Y:.*]] = tensor.extract %[[B]][%[[KK]], %[[J]]]
// CHECK: %[[P:.*]] = arith.mulf %[[X]], %[[Y]] : f32
// CHECK: %[[S:.*]] = arith.addf %[[ACC]], %[[P]] : f32
// CHECK: linalg.yield %[[S]] : f32
// Raised, the reads are the inputs of a contraction.
// RAISED-LABEL: func.func @matmul(
// RAISED: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel", "reduction"]} ins(%{{.*}}, %{{.*}} : tensor<4x6xf32>, tensor<6x5xf32>)
// RAISED-NEXT: ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %[[ACC:.*]]: f32):
// RAISED-NEXT: %[[P:.*]] = arith.mulf %[[X]], %[[Y]] : f32
// RAISED-NEXT: %[[S:.*]] = arith.addf %[[ACC]], %[[P]] : f32
// RAISED-NEXT: linalg.yield %[[S]] : f32
func.func @matmul(%a: tensor<4x6xf32>, %b: tensor<6x5xf32>, %bias: tensor<5xf32>) -> tensor<4x5xf32> {
  %e = tensor.empty() : tensor<4x5xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      outs(%e : tensor<4x5xf32>) attrs = {tdsl.kernel_id = "k#0"} {
  ^bb0(%o: f32):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c6 = arith.constant 6 : index
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %s0 = tensor.extract %bias[%j] : tensor<5xf32>
    %s = scf.for %k = %c0 to %c6 step %c1 iter_args(%acc = %s0) -> (f32) {
      %dead = arith.cmpi uge, %k, %c6 : index
      %x = tensor.extract %a[%i, %k] : tensor<4x6xf32>
      %y = tensor.extract %b[%k, %j] : tensor<6x5xf32>
      %p = arith.mulf %x, %y : f32
      %n = arith.addf %acc, %p : f32
      scf.yield %n : f32
    }
    linalg.yield %s : f32
  } -> tensor<4x5xf32>
  return %r : tensor<4x5xf32>
}

// Not contractions, or not safe to move: a batch of dot products (both
// reads use every output loop: vectorized across k it would add in another
// order), a check left in the loop, a loop from 1, a read at k + 1, a
// product with a third factor, and a run-time size.
// CHECK-LABEL: func.func @kept(
// CHECK-NOT: "reduction"
// CHECK: return
func.func @kept(%a: tensor<4x6xf32>, %b: tensor<6x5xf32>, %t: tensor<4x5x6xf32>, %d: tensor<?x6xf32>)
    -> (tensor<4x5xf32>, tensor<4x5xf32>, tensor<4x5xf32>, tensor<4x5xf32>, tensor<4x5xf32>, tensor<?x5xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %c6 = arith.constant 6 : index
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x5xf32>
  %batch = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      outs(%e : tensor<4x5xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %s = scf.for %k = %c0 to %c6 step %c1 iter_args(%acc = %zero) -> (f32) {
      %x = tensor.extract %t[%i, %j, %k] : tensor<4x5x6xf32>
      %y = tensor.extract %t[%i, %j, %k] : tensor<4x5x6xf32>
      %p = arith.mulf %x, %y : f32
      %n = arith.addf %acc, %p : f32
      scf.yield %n : f32
    }
    linalg.yield %s : f32
  } -> tensor<4x5xf32>
  %checked = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      outs(%e : tensor<4x5xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %s = scf.for %k = %c0 to %c6 step %c1 iter_args(%acc = %zero) -> (f32) {
      %bad = arith.cmpi uge, %k, %c5 : index
      scf.if %bad {
        func.call @tdsl_fatal() : () -> ()
      }
      %x = tensor.extract %a[%i, %k] : tensor<4x6xf32>
      %y = tensor.extract %b[%k, %j] : tensor<6x5xf32>
      %p = arith.mulf %x, %y : f32
      %n = arith.addf %acc, %p : f32
      scf.yield %n : f32
    }
    linalg.yield %s : f32
  } -> tensor<4x5xf32>
  %from1 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      outs(%e : tensor<4x5xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %s = scf.for %k = %c1 to %c6 step %c1 iter_args(%acc = %zero) -> (f32) {
      %x = tensor.extract %a[%i, %k] : tensor<4x6xf32>
      %y = tensor.extract %b[%k, %j] : tensor<6x5xf32>
      %p = arith.mulf %x, %y : f32
      %n = arith.addf %acc, %p : f32
      scf.yield %n : f32
    }
    linalg.yield %s : f32
  } -> tensor<4x5xf32>
  %shifted = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      outs(%e : tensor<4x5xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %s = scf.for %k = %c0 to %c5 step %c1 iter_args(%acc = %zero) -> (f32) {
      %k1 = arith.addi %k, %c1 : index
      %x = tensor.extract %a[%i, %k1] : tensor<4x6xf32>
      %y = tensor.extract %b[%k, %j] : tensor<6x5xf32>
      %p = arith.mulf %x, %y : f32
      %n = arith.addf %acc, %p : f32
      scf.yield %n : f32
    }
    linalg.yield %s : f32
  } -> tensor<4x5xf32>
  %three = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      outs(%e : tensor<4x5xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %s = scf.for %k = %c0 to %c6 step %c1 iter_args(%acc = %zero) -> (f32) {
      %x = tensor.extract %a[%i, %k] : tensor<4x6xf32>
      %y = tensor.extract %b[%k, %j] : tensor<6x5xf32>
      %p = arith.mulf %x, %y : f32
      %q = arith.mulf %p, %x : f32
      %n = arith.addf %acc, %q : f32
      scf.yield %n : f32
    }
    linalg.yield %s : f32
  } -> tensor<4x5xf32>
  %rows = tensor.dim %d, %c0 : tensor<?x6xf32>
  %ed = tensor.empty(%rows) : tensor<?x5xf32>
  %dyn = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      outs(%ed : tensor<?x5xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %s = scf.for %k = %c0 to %c6 step %c1 iter_args(%acc = %zero) -> (f32) {
      %x = tensor.extract %d[%i, %k] : tensor<?x6xf32>
      %y = tensor.extract %b[%k, %j] : tensor<6x5xf32>
      %p = arith.mulf %x, %y : f32
      %n = arith.addf %acc, %p : f32
      scf.yield %n : f32
    }
    linalg.yield %s : f32
  } -> tensor<?x5xf32>
  return %batch, %checked, %from1, %shifted, %three, %dyn
      : tensor<4x5xf32>, tensor<4x5xf32>, tensor<4x5xf32>, tensor<4x5xf32>, tensor<4x5xf32>, tensor<?x5xf32>
}
func.func private @tdsl_fatal()
