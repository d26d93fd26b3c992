//===- GPUDeviceChecks.cpp - run-time checks in kernels become traps --------===//
#include "compiler/Codegen/GPU/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace tdsl {
#define GEN_PASS_DEF_GPUDEVICECHECKS
#include "compiler/Codegen/GPU/Passes.h.inc"
} // namespace tdsl

using namespace mlir;

namespace {
struct GPUDeviceChecksPass
    : tdsl::impl::GPUDeviceChecksBase<GPUDeviceChecksPass> {
  void runOnOperation() override {
    // Every check in device code, whatever shape canonicalization left it
    // in: two checks with one condition merge into one scf.if (and lose
    // its tdsl.check attribute), so the call is what is matched.
    SmallVector<func::CallOp> calls;
    getOperation().walk([&](func::CallOp call) {
      if (call.getCallee() == "tdsl_fatal" &&
          (call->getParentOfType<scf::ForallOp>() ||
           call->getParentOfType<scf::ParallelOp>() ||
           call->getParentOfType<gpu::LaunchOp>()))
        calls.push_back(call);
    });
    OpBuilder b(&getContext());
    for (func::CallOp call : calls) {
      b.setInsertionPoint(call);
      LLVM::Trap::create(b, call.getLoc());
      call.erase();
    }
  }
};
} // namespace
