// RUN: tdsl-opt %s --tdsl-locate-checks | FileCheck %s

// A check inlined through two calls names both, innermost first; main's
// call from the entry point (MLIRGen's "tdsl.entry_call") is left out. A
// check that was not inlined keeps its string. (These files cannot be
// read, so the strings hold no source lines.)

// CHECK-DAG: llvm.mlir.global private constant @[[INLINED:.*]]("lib.tdsl:2:5\0Aprog.tdsl:9:3: note: called from\0Aprog.tdsl:20:7: note: called from\00")
// CHECK-DAG: llvm.mlir.global private constant @__tdsl_str_1("prog.tdsl:4:4\00")
// CHECK-LABEL: func.func @main(
// CHECK: %[[W:.*]] = llvm.mlir.addressof @[[INLINED]]
// CHECK-NEXT: call @tdsl_fatal(%[[W]], %{{.*}})
// CHECK: %[[K:.*]] = llvm.mlir.addressof @__tdsl_str_1
// CHECK-NEXT: call @tdsl_fatal(%[[K]], %{{.*}})
llvm.mlir.global private constant @__tdsl_str_0("lib.tdsl:2:5\00") {addr_space = 0 : i32}
llvm.mlir.global private constant @__tdsl_str_1("prog.tdsl:4:4\00") {addr_space = 0 : i32}
llvm.mlir.global private constant @__tdsl_str_2("shape mismatch\00") {addr_space = 0 : i32}
func.func private @tdsl_fatal(!llvm.ptr, !llvm.ptr)
func.func @main(%bad: i1) {
  %m = llvm.mlir.addressof @__tdsl_str_2 : !llvm.ptr
  %w = llvm.mlir.addressof @__tdsl_str_0 : !llvm.ptr
  call @tdsl_fatal(%w, %m) : (!llvm.ptr, !llvm.ptr) -> () loc(callsite(callsite("lib.tdsl":2:5 at "prog.tdsl":9:3) at callsite("prog.tdsl":20:7 at "tdsl.entry_call"("prog.tdsl":1:1))))
  %k = llvm.mlir.addressof @__tdsl_str_1 : !llvm.ptr
  call @tdsl_fatal(%k, %m) : (!llvm.ptr, !llvm.ptr) -> () loc("prog.tdsl":4:4)
  return
}
