//===- GPUExactSqrt.cpp - f32 sqrt in kernels as sqrt.rn.f32 ---------------===//
//
// libdevice's __nv_sqrtf, which convert-gpu-to-nvvm calls for f32 square
// roots, is sqrt.approx.f32 unless NVVM reflection says otherwise; LLVM's
// own sqrt intrinsic is the correctly rounded sqrt.rn.f32 on NVPTX.
// (convert-gpu-to-nvvm keeps llvm.intr.sqrt illegal, so this runs after it.)
//
//===----------------------------------------------------------------------===//
#include "compiler/Codegen/GPU/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/PatternMatch.h"

namespace tdsl {
#define GEN_PASS_DEF_GPUEXACTSQRT
#include "compiler/Codegen/GPU/Passes.h.inc"
} // namespace tdsl

using namespace mlir;

namespace {
struct GPUExactSqrtPass : tdsl::impl::GPUExactSqrtBase<GPUExactSqrtPass> {
  void runOnOperation() override {
    IRRewriter rw(&getContext());
    getOperation().walk([&](LLVM::CallOp call) {
      if (call.getCallee() != StringRef("__nv_sqrtf") || call.getNumOperands() != 1)
        return;
      rw.setInsertionPoint(call);
      rw.replaceOpWithNewOp<LLVM::SqrtOp>(call, call.getResult().getType(),
                                          call.getOperand(0));
    });
  }
};
} // namespace
