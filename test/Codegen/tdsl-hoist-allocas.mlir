// RUN: tdsl-opt %s --tdsl-hoist-allocas | FileCheck %s

// Regression (issue 9, fault 10): stack buffers in loop bodies (a parallel
// body's context record, a print's shape array, a kernel launch's argument
// array) took new stack on every iteration; 25,000 iterations of a `for`
// that runs a kernel overflowed it.

// CHECK-LABEL: llvm.func @loop
// CHECK-DAG: %[[N1:.*]] = llvm.mlir.constant(1 : i64) : i64
// CHECK-DAG: %[[CTX:.*]] = llvm.alloca %[[N1]] x !llvm.struct<(i64, f32)> {alignment = 8 : i64}
// CHECK-DAG: %[[N3:.*]] = llvm.mlir.constant(3 : i64) : i64
// CHECK-DAG: %[[ARGS:.*]] = llvm.alloca %[[N3]] x !llvm.ptr
// CHECK: llvm.br ^bb1
// CHECK-NOT: llvm.alloca
// CHECK: llvm.store %{{.*}}, %[[CTX]]
// CHECK: llvm.store %{{.*}}, %[[ARGS]]
llvm.func @loop(%n: i64, %v: i64, %p: !llvm.ptr) {
  %c0 = llvm.mlir.constant(0 : i64) : i64
  llvm.br ^bb1(%c0 : i64)
^bb1(%i: i64):
  %done = llvm.icmp "sge" %i, %n : i64
  llvm.cond_br %done, ^bb3, ^bb2
^bb2:
  %one = llvm.mlir.constant(1 : i64) : i64
  %ctx = llvm.alloca %one x !llvm.struct<(i64, f32)> {alignment = 8 : i64} : (i64) -> !llvm.ptr
  llvm.store %v, %ctx : i64, !llvm.ptr
  %three = llvm.mlir.constant(3 : i64) : i64
  %args = llvm.alloca %three x !llvm.ptr : (i64) -> !llvm.ptr
  llvm.store %p, %args : !llvm.ptr, !llvm.ptr
  %next = llvm.add %i, %one : i64
  llvm.br ^bb1(%next : i64)
^bb3:
  llvm.return
}

// A buffer of run-time size stays: its size is only known where it is.
// CHECK-LABEL: llvm.func @dynamic
// CHECK: ^bb1:
// CHECK-NEXT: llvm.alloca %arg0 x f32
llvm.func @dynamic(%n: i64) {
  llvm.br ^bb1
^bb1:
  %d = llvm.alloca %n x f32 : (i64) -> !llvm.ptr
  llvm.return
}

// Functions of GPU kernel modules too.
// CHECK-LABEL: llvm.func @kernel
// CHECK-NEXT: llvm.mlir.constant(4 : i64)
// CHECK-NEXT: llvm.alloca
module attributes {gpu.container_module} {
  gpu.module @k {
    llvm.func @kernel(%c: i1) attributes {gpu.kernel} {
      llvm.cond_br %c, ^bb1, ^bb2
    ^bb1:
      %four = llvm.mlir.constant(4 : i64) : i64
      %p = llvm.alloca %four x f32 : (i64) -> !llvm.ptr
      llvm.br ^bb2
    ^bb2:
      llvm.return
    }
  }
}
