//===- HoistAllocas.cpp - stack buffers move to their function's entry ------===//
//
// An `llvm.alloca` outside a function's entry block takes new stack each
// time it runs: in a loop body (a parallel body's context record, a print's
// shape array, a kernel launch's argument array, a buffer promoted to the
// stack) a training loop of 10^5 steps overflowed the stack. An alloca of
// constant size can always live in the entry block, where LLVM gives it one
// fixed slot: LLVM functions run their blocks on one thread, and parallel
// loop bodies are outlined functions of their own by now.
//
//===----------------------------------------------------------------------===//
#include "compiler/Codegen/Common/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace tdsl {
#define GEN_PASS_DEF_HOISTALLOCAS
#include "compiler/Codegen/Common/Passes.h.inc"
} // namespace tdsl

using namespace mlir;

namespace {
struct HoistAllocasPass : tdsl::impl::HoistAllocasBase<HoistAllocasPass> {
  void runOnOperation() override {
    getOperation()->walk([](LLVM::LLVMFuncOp fn) {
      if (fn.isExternal())
        return;
      Block &entry = fn.getBody().front();
      SmallVector<LLVM::AllocaOp> allocas;
      fn.walk([&](LLVM::AllocaOp a) {
        if (a->getBlock() != &entry &&
            a.getArraySize().getDefiningOp<LLVM::ConstantOp>())
          allocas.push_back(a);
      });
      for (LLVM::AllocaOp a : allocas) {
        // The element count moves along (a copy: it may have other uses).
        Operation *count = a.getArraySize().getDefiningOp()->clone();
        entry.push_front(count);
        a->moveAfter(count);
        a.getArraySizeMutable().assign(count->getResult(0));
      }
    });
  }
};
} // namespace
