// Run-time checks that cannot fail in the loops they are in are removed
// (tdsl-fold-checks); those that can stay.
// RUN: tdsl-opt %s --tdsl-fold-checks | FileCheck %s
// RUN: tdsl-opt %s --tdsl-fold-checks --canonicalize | FileCheck %s --check-prefix=HOIST

func.func private @tdsl_fatal(!llvm.ptr, !llvm.ptr)

// In a generic over 32 x 56: i < 32 and j + 2 < 58 hold, j + 3 < 58 may not;
// a loop of run-time size is below the size its output was made with. The
// check that may fail moves before the op, as one check of its subscript
// at the first and the last iteration (j + 3 = 58 at j = 55), made only
// when the op has iterations.
// CHECK-LABEL: func.func @in_generic(
// CHECK-NOT: "ok"
// CHECK: arith.cmpi sge, %{{.*}}, %c58 : index
// CHECK: scf.if
// CHECK-NEXT: func.call @tdsl_fatal
// CHECK-NEXT: } {tdsl.check = "may fail"}
// CHECK-NEXT: linalg.generic
// CHECK-NOT: scf.if
// CHECK: linalg.generic
// CHECK-NOT: scf.if
// CHECK: return
func.func @in_generic(%p: !llvm.ptr, %x: tensor<32x58xf32>, %n: index) -> (tensor<32x56xf32>, tensor<?xf32>) {
  %e = tensor.empty() : tensor<32x56xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(a, b) -> (a, b)>], iterator_types = ["parallel", "parallel"]}
      outs(%e : tensor<32x56xf32>) {
  ^bb0(%o: f32):
    %c32 = arith.constant 32 : index
    %c58 = arith.constant 58 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %bad0 = arith.cmpi uge, %i, %c32 : index
    scf.if %bad0 { func.call @tdsl_fatal(%p, %p) : (!llvm.ptr, !llvm.ptr) -> () } {tdsl.check = "ok"}
    %j2 = arith.addi %j, %c2 : index
    %bad1 = arith.cmpi uge, %j2, %c58 : index
    scf.if %bad1 { func.call @tdsl_fatal(%p, %p) : (!llvm.ptr, !llvm.ptr) -> () } {tdsl.check = "ok"}
    %j3 = arith.addi %j, %c3 : index
    %bad2 = arith.cmpi uge, %j3, %c58 : index
    scf.if %bad2 { func.call @tdsl_fatal(%p, %p) : (!llvm.ptr, !llvm.ptr) -> () } {tdsl.check = "may fail"}
    %v = tensor.extract %x[%i, %j2] : tensor<32x58xf32>
    linalg.yield %v : f32
  } -> tensor<32x56xf32>
  %f = tensor.empty(%n) : tensor<?xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(a) -> (a)>], iterator_types = ["parallel"]}
      outs(%f : tensor<?xf32>) {
  ^bb0(%o: f32):
    %k = linalg.index 0 : index
    %bad = arith.cmpi uge, %k, %n : index
    scf.if %bad { func.call @tdsl_fatal(%p, %p) : (!llvm.ptr, !llvm.ptr) -> () } {tdsl.check = "ok"}
    linalg.yield %o : f32
  } -> tensor<?xf32>
  return %r, %s : tensor<32x56xf32>, tensor<?xf32>
}

// In scf loops: i in [0, 10) with i % 4 < 4 and i - 1 >= 0 only from 1.
// CHECK-LABEL: func.func @in_loops(
// CHECK: scf.for
// CHECK-NOT: "ok"
// CHECK: tdsl.check = "may fail"
// CHECK-NOT: "ok"
// CHECK: return
func.func @in_loops(%p: !llvm.ptr) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c10 = arith.constant 10 : index
  scf.for %i = %c0 to %c10 step %c1 {
    %r = arith.remui %i, %c4 : index
    %bad = arith.cmpi uge, %r, %c4 : index
    scf.if %bad { func.call @tdsl_fatal(%p, %p) : (!llvm.ptr, !llvm.ptr) -> () } {tdsl.check = "ok"}
    %m = arith.subi %i, %c1 : index
    %neg = arith.cmpi slt, %m, %c0 : index
    scf.if %neg { func.call @tdsl_fatal(%p, %p) : (!llvm.ptr, !llvm.ptr) -> () } {tdsl.check = "may fail"}
    %big = arith.cmpi sgt, %i, %c10 : index
    scf.if %big { func.call @tdsl_fatal(%p, %p) : (!llvm.ptr, !llvm.ptr) -> () } {tdsl.check = "ok"}
  }
  return
}

// Checks of subscripts that grow with the loop indices (i + 1, 2 * j, a
// loop-invariant one) move before the op, against run-time sizes; the
// first and last iterations are those with all indices 0 and all at their
// loop's size - 1, and no check runs when a loop is empty. A subscript
// that shrinks as an index grows (%m - i), or that a large factor could
// wrap around (i * 2^62), stays in the body.
// CHECK-LABEL: func.func @hoist(
// CHECK-COUNT-3: } {tdsl.check = "grows"}
// CHECK: linalg.generic
// CHECK-COUNT-2: } {tdsl.check = "shrinks"}
// CHECK-NOT: "grows"
// CHECK: return
// HOIST-LABEL: func.func @hoist(
// HOIST-DAG: %[[C1:.*]] = arith.constant 1 : index
// HOIST-DAG: %[[C0:.*]] = arith.constant 0 : index
// HOIST-DAG: %[[NI:.*]] = tensor.dim %{{.*}}, %[[C0]]
// HOIST-DAG: %[[NJ:.*]] = tensor.dim %{{.*}}, %[[C1]]
// HOIST-DAG: %[[EI:.*]] = arith.cmpi sle, %[[NI]], %[[C0]]
// HOIST-DAG: %[[EJ:.*]] = arith.cmpi sle, %[[NJ]], %[[C0]]
// HOIST-DAG: %[[EMPTY:.*]] = arith.ori %[[EI]], %[[EJ]]
// HOIST-DAG: %[[ABOVE:.*]] = arith.cmpi sge, %[[NI]], %arg1 : index
// A last value below the first would mean the subscript wrapped around.
// HOIST-DAG: %[[WRAPPED:.*]] = arith.cmpi slt, %[[NI]], %[[C1]] : index
// HOIST-DAG: %[[BAD:.*]] = arith.ori %[[ABOVE]], %[[WRAPPED]]
// HOIST-DAG: %[[RUNS:.*]] = arith.xori %[[EMPTY]], %true
// HOIST: %[[FAILS:.*]] = arith.andi %[[RUNS]], %[[BAD]]
// HOIST-NEXT: scf.if %[[FAILS]] {
func.func @hoist(%p: !llvm.ptr, %m: index, %x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c7 = arith.constant 7 : index
  %r = linalg.generic {indexing_maps = [affine_map<(a, b) -> (a, b)>], iterator_types = ["parallel", "parallel"]}
      outs(%x : tensor<?x?xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %i1 = arith.addi %i, %c1 : index
    %bad0 = arith.cmpi uge, %i1, %m : index
    scf.if %bad0 { func.call @tdsl_fatal(%p, %p) : (!llvm.ptr, !llvm.ptr) -> () } {tdsl.check = "grows"}
    %j2 = arith.muli %j, %c2 : index
    %bad1 = arith.cmpi uge, %j2, %m : index
    scf.if %bad1 { func.call @tdsl_fatal(%p, %p) : (!llvm.ptr, !llvm.ptr) -> () } {tdsl.check = "grows"}
    %bad2 = arith.cmpi uge, %c7, %m : index
    scf.if %bad2 { func.call @tdsl_fatal(%p, %p) : (!llvm.ptr, !llvm.ptr) -> () } {tdsl.check = "grows"}
    %huge = arith.constant 4611686018427387904 : index
    %far = arith.muli %i, %huge : index
    %bad4 = arith.cmpi uge, %far, %m : index
    scf.if %bad4 { func.call @tdsl_fatal(%p, %p) : (!llvm.ptr, !llvm.ptr) -> () } {tdsl.check = "shrinks"}
    %back = arith.subi %m, %i : index
    %bad3 = arith.cmpi uge, %back, %m : index
    scf.if %bad3 { func.call @tdsl_fatal(%p, %p) : (!llvm.ptr, !llvm.ptr) -> () } {tdsl.check = "shrinks"}
    linalg.yield %o : f32
  } -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// A lazy `?:` (tdsl.lazy_select) whose checks all went is a select of both
// sides, computed in the body; one whose check may fail (x[i - 1] at i = 0)
// stays an scf.if, and its check stays inside it, where the side is chosen.
// CHECK-LABEL: func.func @lazy_selects(
// CHECK: linalg.generic
// CHECK-NOT: scf.if
// CHECK: tensor.extract
// CHECK: tensor.extract
// CHECK: arith.select
// CHECK: linalg.yield
// CHECK: linalg.generic
// CHECK: scf.if %{{.*}} -> (f32)
// CHECK: scf.if
// CHECK-NEXT: func.call @tdsl_fatal
// CHECK-NEXT: } {tdsl.check = "may fail"}
// CHECK: } {tdsl.lazy_select}
func.func @lazy_selects(%p: !llvm.ptr, %x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %e = tensor.empty() : tensor<8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(a) -> (a)>], iterator_types = ["parallel"]}
      outs(%e : tensor<8xf32>) {
  ^bb0(%o: f32):
    %c3 = arith.constant 3 : index
    %c7 = arith.constant 7 : index
    %c8 = arith.constant 8 : index
    %i = linalg.index 0 : index
    %lt = arith.cmpi ult, %i, %c3 : index
    %v = scf.if %lt -> (f32) {
      %bad = arith.cmpi uge, %i, %c8 : index
      scf.if %bad { func.call @tdsl_fatal(%p, %p) : (!llvm.ptr, !llvm.ptr) -> () } {tdsl.check = "ok"}
      %a = tensor.extract %x[%i] : tensor<8xf32>
      scf.yield %a : f32
    } else {
      %k = arith.subi %c7, %i : index
      %bad = arith.cmpi uge, %k, %c8 : index
      scf.if %bad { func.call @tdsl_fatal(%p, %p) : (!llvm.ptr, !llvm.ptr) -> () } {tdsl.check = "ok"}
      %b = tensor.extract %x[%k] : tensor<8xf32>
      scf.yield %b : f32
    } {tdsl.lazy_select}
    linalg.yield %v : f32
  } -> tensor<8xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(a) -> (a)>], iterator_types = ["parallel"]}
      outs(%e : tensor<8xf32>) {
  ^bb0(%o: f32):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %zero = arith.constant 0.0 : f32
    %i = linalg.index 0 : index
    %gt = arith.cmpi ugt, %i, %c0 : index
    %v = scf.if %gt -> (f32) {
      %k = arith.subi %i, %c1 : index
      %bad = arith.cmpi uge, %k, %c8 : index
      scf.if %bad { func.call @tdsl_fatal(%p, %p) : (!llvm.ptr, !llvm.ptr) -> () } {tdsl.check = "may fail"}
      %a = tensor.extract %x[%k] : tensor<8xf32>
      scf.yield %a : f32
    } else {
      scf.yield %zero : f32
    } {tdsl.lazy_select}
    linalg.yield %v : f32
  } -> tensor<8xf32>
  return %r, %s : tensor<8xf32>, tensor<8xf32>
}

// On run-time sizes, a generic whose lazy `?:`s keep checks that grow with
// its loops runs in two versions: if a check would fail at the first or the
// last iteration, the op as it is; otherwise a copy without the checks,
// whose `?:` is a select (c[i] > 0 ? a[i] : b[i], `a` and `b` of sizes not
// known to be the loop's).
// CHECK-LABEL: func.func @versioned(
// CHECK: arith.cmpi sge, %{{.*}}, %dim_0
// CHECK: arith.cmpi sge, %{{.*}}, %dim_1
// CHECK: scf.if %{{.*}} -> (tensor<?xf32>) {
// CHECK: linalg.generic
// CHECK: } {tdsl.lazy_select}
// CHECK: } else {
// CHECK: linalg.generic
// CHECK-NOT: scf.if
// CHECK: arith.select
// CHECK: } -> tensor<?xf32>
// CHECK-NEXT: scf.yield
func.func @versioned(%p: !llvm.ptr, %c: tensor<?xf32>, %a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %c, %c0 : tensor<?xf32>
  %na = tensor.dim %a, %c0 : tensor<?xf32>
  %nb = tensor.dim %b, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(a) -> (a)>], iterator_types = ["parallel"]}
      outs(%e : tensor<?xf32>) {
  ^bb0(%o: f32):
    %zero = arith.constant 0.0 : f32
    %i = linalg.index 0 : index
    %x = tensor.extract %c[%i] : tensor<?xf32>
    %pos = arith.cmpf ogt, %x, %zero : f32
    %v = scf.if %pos -> (f32) {
      %bad = arith.cmpi uge, %i, %na : index
      scf.if %bad { func.call @tdsl_fatal(%p, %p) : (!llvm.ptr, !llvm.ptr) -> () } {tdsl.check = "a"}
      %y = tensor.extract %a[%i] : tensor<?xf32>
      scf.yield %y : f32
    } else {
      %bad = arith.cmpi uge, %i, %nb : index
      scf.if %bad { func.call @tdsl_fatal(%p, %p) : (!llvm.ptr, !llvm.ptr) -> () } {tdsl.check = "b"}
      %y = tensor.extract %b[%i] : tensor<?xf32>
      scf.yield %y : f32
    } {tdsl.lazy_select}
    linalg.yield %v : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}
