//===- GPUCheckDeviceCalls.cpp - kernels call only what a GPU can run -------===//
//
// The last line of defence before PTX: a kernel that still calls a host
// function (a runtime entry, memrefCopy, libm) would give PTX that ptxas
// rejects ("Unresolved extern function"). Such a call is a compiler bug,
// reported at the DSL line of the call instead of as broken PTX.
//
//===----------------------------------------------------------------------===//
#include "compiler/Codegen/GPU/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace tdsl {
#define GEN_PASS_DEF_GPUCHECKDEVICECALLS
#include "compiler/Codegen/GPU/Passes.h.inc"
} // namespace tdsl

using namespace mlir;

namespace {
/// Functions the device side provides: libdevice, CUDA's device malloc and
/// printf, and LLVM's intrinsics.
bool isDeviceFunction(StringRef name) {
  return name.starts_with("__nv_") || name.starts_with("llvm.") ||
         name == "malloc" || name == "free" || name == "vprintf" ||
         name == "__assertfail";
}

struct GPUCheckDeviceCallsPass
    : tdsl::impl::GPUCheckDeviceCallsBase<GPUCheckDeviceCallsPass> {
  void runOnOperation() override {
    gpu::GPUModuleOp module = getOperation();
    module.walk([&](LLVM::CallOp call) {
      auto callee = call.getCallee();
      if (!callee)
        return; // an indirect call
      auto fn = module.lookupSymbol<LLVM::LLVMFuncOp>(*callee);
      if (fn && !fn.isExternal())
        return;
      if (isDeviceFunction(*callee))
        return;
      call.emitError() << "internal compiler error: GPU kernel '"
                       << module.getName() << "' calls the host function '"
                       << *callee << "', which a GPU cannot run";
      signalPassFailure();
    });
  }
};
} // namespace
