// RUN: tdsl-opt %s -split-input-file -verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(gpu.module(tdsl-gpu-check-device-calls))' | FileCheck %s

// Calls of libdevice, device malloc and of functions the module defines pass.
// CHECK-LABEL: gpu.module @ok
gpu.module @ok {
  llvm.func @__nv_expf(f32) -> f32
  llvm.func @malloc(i64) -> !llvm.ptr
  llvm.func @helper(%x: f32) -> f32 {
    llvm.return %x : f32
  }
  llvm.func @k(%x: f32) attributes {gpu.kernel} {
    %0 = llvm.call @__nv_expf(%x) : (f32) -> f32
    %1 = llvm.call @helper(%0) : (f32) -> f32
    %c = llvm.mlir.constant(4 : i64) : i64
    %p = llvm.call @malloc(%c) : (i64) -> !llvm.ptr
    llvm.return
  }
}

// -----

// Regression (issue 9, fault 3): a run-time check that reached a kernel as a
// call of the host runtime gave PTX that ptxas rejected.
gpu.module @host_call {
  llvm.func @_mlir_ciface_tdsl_fatal(!llvm.ptr, !llvm.ptr)
  llvm.func @k(%p: !llvm.ptr) attributes {gpu.kernel} {
    // expected-error @+1 {{internal compiler error: GPU kernel 'host_call' calls the host function '_mlir_ciface_tdsl_fatal', which a GPU cannot run}}
    llvm.call @_mlir_ciface_tdsl_fatal(%p, %p) : (!llvm.ptr, !llvm.ptr) -> ()
    llvm.return
  }
}
