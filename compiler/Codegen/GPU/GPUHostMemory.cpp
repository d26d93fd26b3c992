//===- GPUHostMemory.cpp - buffers in CUDA managed memory ------------------===//
#include "compiler/Codegen/Common/KernelInfo.h"
#include "compiler/Codegen/GPU/Passes.h"
#include "compiler/Codegen/Common/RuntimeCalls.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

namespace tdsl {
#define GEN_PASS_DEF_GPUHOSTMEMORY
#include "compiler/Codegen/GPU/Passes.h.inc"
} // namespace tdsl

using namespace mlir;

namespace {
struct GPUHostMemoryPass : tdsl::impl::GPUHostMemoryBase<GPUHostMemoryPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    IRRewriter rw(&getContext());
    tdsl::RuntimeCalls rt(module);
    SmallVector<Operation *> ops;
    module.walk([&](Operation *op) {
      // Buffers inside the loops that become kernels are the kernel's own
      // (small ones are on the stack after promote-buffers-to-stack).
      if (op->getParentOfType<gpu::GPUModuleOp>() ||
          op->getParentOfType<gpu::LaunchOp>() ||
          op->getParentOfType<gpu::LaunchOp>() ||
          op->getParentOfType<scf::ForallOp>() ||
          op->getParentOfType<scf::ParallelOp>())
        return;
      if (isa<memref::AllocOp, memref::DeallocOp, memref::GetGlobalOp>(op))
        ops.push_back(op);
    });
    for (Operation *op : ops) {
      rw.setInsertionPoint(op);
      Location loc = op->getLoc();
      if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
        // Running out of GPU memory names the buffer's DSL line.
        if (tdsl::mayExhaustMemory(alloc.getType()) &&
            tdsl::RuntimeCalls::whereOf(loc) != "<unknown>")
          rt.call(rw, loc, tdsl::RuntimeFn::tdsl_alloc_site, {rt.getErrorWhere(rw, loc)});
        auto g = gpu::AllocOp::create(rw, loc, alloc.getType(), Type(), ValueRange{},
                                      alloc.getDynamicSizes(), alloc.getSymbolOperands(),
                                      rw.getUnitAttr());
        rw.replaceOp(op, g.getMemref());
      } else if (auto dealloc = dyn_cast<memref::DeallocOp>(op)) {
        // gpu-to-llvm lowers only the async gpu.dealloc; free through the
        // runtime's mgpuMemFree(ptr, stream) directly (gpu.alloc's aligned
        // pointer is the allocated one).
        auto ptrType = LLVM::LLVMPointerType::get(rw.getContext());
        Value idx = memref::ExtractAlignedPointerAsIndexOp::create(
            rw, loc, dealloc.getMemref());
        Value i64 = arith::IndexCastOp::create(rw, loc, rw.getI64Type(), idx);
        Value ptr = LLVM::IntToPtrOp::create(rw, loc, ptrType, i64);
        Value stream = LLVM::ZeroOp::create(rw, loc, ptrType);
        rt.call(rw, loc, tdsl::RuntimeFn::mgpuMemFree, {ptr, stream});
        rw.eraseOp(op);
      } else {
        // Constants: one managed copy (never freed: like the global itself).
        auto global = cast<memref::GetGlobalOp>(op);
        rw.setInsertionPointAfter(op);
        auto g = gpu::AllocOp::create(rw, loc, global.getType(), Type(), ValueRange{},
                                      ValueRange{}, ValueRange{}, rw.getUnitAttr());
        auto copy =
            memref::CopyOp::create(rw, loc, global.getResult(), g.getMemref());
        rw.replaceAllUsesExcept(global.getResult(), g.getMemref(), copy);
      }
    }
  }
};
} // namespace
