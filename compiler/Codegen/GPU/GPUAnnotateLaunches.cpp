//===- GPUAnnotateLaunches.cpp - kernel names and DSL lines for the runtime -===//
#include "compiler/Codegen/GPU/Passes.h"
#include "compiler/Codegen/Common/RuntimeCalls.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/SymbolTable.h"

#include "llvm/ADT/StringSet.h"

namespace tdsl {
#define GEN_PASS_DEF_GPUANNOTATELAUNCHES
#include "compiler/Codegen/GPU/Passes.h.inc"
} // namespace tdsl

using namespace mlir;

namespace {
/// A C identifier for a kernel: "tdsl_main.matmul" -> "tdsl_main_matmul".
std::string identifier(StringRef name) {
  std::string out;
  for (char c : name)
    out.push_back(isalnum(c) ? c : '_');
  return out.empty() ? "kernel" : out;
}

struct GPUAnnotateLaunchesPass
    : tdsl::impl::GPUAnnotateLaunchesBase<GPUAnnotateLaunchesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    tdsl::RuntimeCalls rt(module);
    OpBuilder b(&getContext());
    llvm::StringSet<> used;
    llvm::DenseSet<Operation *> renamed;
    SmallVector<gpu::LaunchFuncOp> launches;
    module.walk([&](gpu::LaunchFuncOp op) { launches.push_back(op); });
    for (gpu::LaunchFuncOp launch : launches) {
      Location loc = launch.getLoc();
      b.setInsertionPoint(launch);
      rt.call(b, loc, tdsl::RuntimeFn::tdsl_cuda_set_location, {rt.getErrorWhere(b, loc)});
      // One module per kernel after outlining: rename both.
      auto gpuModule =
          module.lookupSymbol<gpu::GPUModuleOp>(launch.getKernelModuleName());
      // A module launched twice is named once.
      if (!gpuModule || !renamed.insert(gpuModule).second)
        continue;
      auto kernel = gpuModule.lookupSymbol<gpu::GPUFuncOp>(launch.getKernelName());
      std::string base = identifier(tdsl::RuntimeCalls::kernelNameOf(loc));
      if (base == "kernel")
        base = kernel ? kernel.getName().str() : base;
      std::string name = base;
      // The module's own name is no clash.
      auto taken = [&](StringRef n) {
        Operation *other = module.lookupSymbol(n);
        return used.count(n) || (other && other != gpuModule.getOperation());
      };
      for (unsigned n = 1; taken(name); ++n)
        name = base + "_" + std::to_string(n);
      used.insert(name);
      auto newName = StringAttr::get(&getContext(), name);
      if (kernel && failed(SymbolTable::replaceAllSymbolUses(
                        kernel, newName, module)))
        return signalPassFailure();
      if (kernel)
        kernel.setName(newName);
      if (failed(SymbolTable::replaceAllSymbolUses(gpuModule, newName, module)))
        return signalPassFailure();
      gpuModule.setName(newName);
    }
  }
};
} // namespace
