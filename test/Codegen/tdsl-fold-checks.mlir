// Run-time checks that cannot fail in the loops they are in are removed
// (tdsl-fold-checks); those that can stay.
// RUN: tdsl-opt %s --tdsl-fold-checks | FileCheck %s

func.func private @tdsl_fatal(!llvm.ptr, !llvm.ptr)

// In a generic over 32 x 56: i < 32 and j + 2 < 58 hold, j + 3 < 58 may not;
// a loop of run-time size is below the size its output was made with.
// CHECK-LABEL: func.func @in_generic(
// CHECK: linalg.generic
// CHECK-NOT: "ok"
// CHECK: tdsl.check = "may fail"
// CHECK-NOT: "ok"
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
