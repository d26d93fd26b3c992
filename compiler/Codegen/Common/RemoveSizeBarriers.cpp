//===- RemoveSizeBarriers.cpp - sizes visible again after bufferization ----===//
//
// Undoes tdsl-hide-loop-carried-sizes: each tdsl.size_barrier's uses take
// its operand, so that the folds after bufferization see the sizes again.
//
//===----------------------------------------------------------------------===//
#include "compiler/Codegen/Common/Passes.h"
#include "dialects/TDSL/IR/TDSLOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace tdsl {
#define GEN_PASS_DEF_REMOVESIZEBARRIERS
#include "compiler/Codegen/Common/Passes.h.inc"
} // namespace tdsl

using namespace mlir;

namespace {
struct RemoveSizeBarriersPass
    : tdsl::impl::RemoveSizeBarriersBase<RemoveSizeBarriersPass> {
  void runOnOperation() override {
    getOperation().walk([](tdsl::ir::SizeBarrierOp barrier) {
      barrier.getResult().replaceAllUsesWith(barrier.getInput());
      barrier.erase();
    });
  }
};
} // namespace
