//===- LocateAllocs.cpp - large buffers tell the runtime where they come from -===//
#include "compiler/Codegen/Common/KernelInfo.h"
#include "compiler/Codegen/CPU/Passes.h"
#include "compiler/Codegen/Common/RuntimeCalls.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace tdsl {
#define GEN_PASS_DEF_LOCATEALLOCS
#include "compiler/Codegen/CPU/Passes.h.inc"
} // namespace tdsl

using namespace mlir;

namespace {

struct LocateAllocsPass : tdsl::impl::LocateAllocsBase<LocateAllocsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<memref::AllocOp> allocs;
    module.walk([&](memref::AllocOp alloc) {
      if (tdsl::mayExhaustMemory(alloc.getType()) &&
          tdsl::RuntimeCalls::whereOf(alloc.getLoc()) != "<unknown>")
        allocs.push_back(alloc);
    });
    tdsl::RuntimeCalls rt(module);
    OpBuilder b(&getContext());
    for (memref::AllocOp alloc : allocs) {
      b.setInsertionPoint(alloc);
      rt.call(b, alloc.getLoc(), tdsl::RuntimeFn::tdsl_alloc_site, {rt.getErrorWhere(b, alloc.getLoc())});
    }
  }
};
} // namespace
