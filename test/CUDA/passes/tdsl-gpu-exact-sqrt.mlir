// libdevice's f32 square root (sqrt.approx.f32 without NVVM reflection's
// __CUDA_PREC_SQRT) becomes LLVM's sqrt, which NVPTX emits as the correctly
// rounded sqrt.rn.f32; the f64 one and other calls stay.
// RUN: tdsl-opt %s --pass-pipeline='builtin.module(gpu.module(tdsl-gpu-exact-sqrt))' | FileCheck %s
// RUN: tdslc --target=cuda %S/../../Regression/Inputs/sqrt_kernel.tdsl --emit=ptx | FileCheck %s --check-prefix=PTX

// CHECK-LABEL: gpu.module @kernels
// CHECK: llvm.func @k(%[[X:.*]]: f32, %[[D:.*]]: f64)
// CHECK-NEXT: %[[S:.*]] = llvm.intr.sqrt(%[[X]]) : (f32) -> f32
// CHECK-NEXT: llvm.call @__nv_sqrt(%[[D]]) : (f64) -> f64
// CHECK-NEXT: llvm.call @__nv_expf(%[[S]]) : (f32) -> f32
gpu.module @kernels {
  llvm.func @__nv_sqrtf(f32) -> f32
  llvm.func @__nv_sqrt(f64) -> f64
  llvm.func @__nv_expf(f32) -> f32
  llvm.func @k(%x: f32, %d: f64) attributes {gpu.kernel} {
    %s = llvm.call @__nv_sqrtf(%x) : (f32) -> f32
    %t = llvm.call @__nv_sqrt(%d) : (f64) -> f64
    %e = llvm.call @__nv_expf(%s) : (f32) -> f32
    llvm.return
  }
}

// PTX: sqrt.rn.f32
// PTX-NOT: sqrt.approx
