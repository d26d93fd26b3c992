// RUN: tdsl-opt %s --tdsl-check-static-shapes --split-input-file --verify-diagnostics | FileCheck %s

// After inlining, a caller's static shapes reach the run-time shape checks
// (scf.if marked tdsl.check) of the function it called. The pass folds
// tensor.dim and integer arithmetic, and nothing else, and reports each
// check whose condition became the constant true as a compile-time error at
// the check's location, so the program is rejected instead of stopping when
// it runs. Checks that pass fold to false; checks of shapes only known at
// run time, and scf.if ops that are not checks, stay as they are.

// f32[3] and f32[4] cast to f32[?] at an inlined call: the extents differ
// for sure. Every failing check is reported, not only the first.
func.func private @tdsl_fatal(!llvm.ptr, !llvm.ptr)
llvm.mlir.global private constant @__tdsl_str_0("m\00") {addr_space = 0 : i32}
func.func @differ(%x: tensor<3xf32>, %y: tensor<4xf32>) {
  %a = tensor.cast %x : tensor<3xf32> to tensor<?xf32>
  %b = tensor.cast %y : tensor<4xf32> to tensor<?xf32>
  %c0 = arith.constant 0 : index
  %da = tensor.dim %a, %c0 : tensor<?xf32>
  %db = tensor.dim %b, %c0 : tensor<?xf32>
  %ok = arith.cmpi eq, %da, %db : index
  %true = arith.constant true
  %bad = arith.xori %ok, %true : i1
  // expected-error @+1 {{an index variable ranges over tensors of different extents (dimension 0 of an operand)}}
  scf.if %bad {
    %p = llvm.mlir.addressof @__tdsl_str_0 : !llvm.ptr
    func.call @tdsl_fatal(%p, %p) : (!llvm.ptr, !llvm.ptr) -> ()
  } {tdsl.check = "an index variable ranges over tensors of different extents (dimension 0 of an operand)"}
  %c5 = arith.constant 5 : index
  %not5 = arith.cmpi ne, %db, %c5 : index
  // expected-error @+1 {{dimension 0 of this tensor is not 5 as its type requires}}
  scf.if %not5 {
    %p = llvm.mlir.addressof @__tdsl_str_0 : !llvm.ptr
    func.call @tdsl_fatal(%p, %p) : (!llvm.ptr, !llvm.ptr) -> ()
  } {tdsl.check = "dimension 0 of this tensor is not 5 as its type requires"}
  return
}

// -----

// The size comes from the op that made the tensor: tensor.dim of a
// linalg.fill's result is the size its tensor.empty was made with.
func.func private @tdsl_fatal()
func.func @reified(%z: f32) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c5 = arith.constant 5 : index
  %e = tensor.empty(%c2) : tensor<?xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %d = tensor.dim %f, %c0 : tensor<?xf32>
  %ok = arith.cmpi eq, %d, %c5 : index
  %true = arith.constant true
  %bad = arith.xori %ok, %true : i1
  // expected-error @+1 {{the inner dimensions of '@' differ}}
  scf.if %bad {
    func.call @tdsl_fatal() : () -> ()
  } {tdsl.check = "the inner dimensions of '@' differ"}
  return %f : tensor<?xf32>
}

// -----

// Equal static extents: the check folds to false and no error is reported.
// Only shape arithmetic is folded: the casts stay operands of the
// linalg.generic and the tensor.empty keeps its dynamic type (a linalg
// canonicalization would absorb the static shapes into the ops, where a
// conflicting pair would no longer be seen by this pass).
// CHECK-LABEL: func.func @agree(
// CHECK-SAME:    %[[X:.*]]: tensor<3xf32>, %[[Y:.*]]: tensor<3xf32>
// CHECK:         %[[A:.*]] = tensor.cast %[[X]] : tensor<3xf32> to tensor<?xf32>
// CHECK:         %[[B:.*]] = tensor.cast %[[Y]] : tensor<3xf32> to tensor<?xf32>
// CHECK-DAG:     %[[C3:.*]] = arith.constant 3 : index
// CHECK-DAG:     %[[FALSE:.*]] = arith.constant false
// CHECK-NOT:     tensor.dim
// CHECK-NOT:     arith.cmpi
// CHECK:         scf.if %[[FALSE]] {
// CHECK:           call @tdsl_fatal
// CHECK:         } {tdsl.check = "differ"}
// CHECK:         %[[E:.*]] = tensor.empty(%[[C3]]) : tensor<?xf32>
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%[[A]], %[[B]] : tensor<?xf32>, tensor<?xf32>) outs(%[[E]] : tensor<?xf32>)
func.func private @tdsl_fatal()
func.func @agree(%x: tensor<3xf32>, %y: tensor<3xf32>) -> tensor<?xf32> {
  %a = tensor.cast %x : tensor<3xf32> to tensor<?xf32>
  %b = tensor.cast %y : tensor<3xf32> to tensor<?xf32>
  %c0 = arith.constant 0 : index
  %da = tensor.dim %a, %c0 : tensor<?xf32>
  %db = tensor.dim %b, %c0 : tensor<?xf32>
  %ok = arith.cmpi eq, %da, %db : index
  %true = arith.constant true
  %bad = arith.xori %ok, %true : i1
  scf.if %bad {
    func.call @tdsl_fatal() : () -> ()
  } {tdsl.check = "differ"}
  %e = tensor.empty(%da) : tensor<?xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%a, %b : tensor<?xf32>, tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%i: f32, %j: f32, %o: f32):
    %s = arith.addf %i, %j : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

// Extents known only at run time: the check stays, comparison and all. An
// scf.if without tdsl.check is no check, even when it runs for sure.
// CHECK-LABEL: func.func @unknown(
// CHECK:         %[[DA:.*]] = tensor.dim %arg0
// CHECK:         %[[DB:.*]] = tensor.dim %arg1
// CHECK:         %[[OK:.*]] = arith.cmpi eq, %[[DA]], %[[DB]] : index
// CHECK:         %[[BAD:.*]] = arith.xori %[[OK]], %{{.*}} : i1
// CHECK:         scf.if %[[BAD]] {
// CHECK:         } {tdsl.check = "differ"}
// CHECK:         scf.if %true {
func.func private @tdsl_fatal()
func.func @unknown(%a: tensor<?xf32>, %b: tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %da = tensor.dim %a, %c0 : tensor<?xf32>
  %db = tensor.dim %b, %c0 : tensor<?xf32>
  %ok = arith.cmpi eq, %da, %db : index
  %true = arith.constant true
  %bad = arith.xori %ok, %true : i1
  scf.if %bad {
    func.call @tdsl_fatal() : () -> ()
  } {tdsl.check = "differ"}
  scf.if %true {
    func.call @tdsl_fatal() : () -> ()
  }
  return
}
