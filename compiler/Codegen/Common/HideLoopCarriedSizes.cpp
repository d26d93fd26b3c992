//===- HideLoopCarriedSizes.cpp - sizes of loop-carried tensors as unknowns -===//
//
// Bufferization asks `ValueBoundsConstraintSet` whether two slices are the
// same. For a size of a tensor a loop carries, that analysis asks whether
// the loop keeps the size, deriving it through every scf.if and loop up to
// the yield, and again for each pair of slices: a `?`-shaped product in
// five nested ifs in a loop compiled in 2.85 s (0.5 s behind barriers). Its
// answer does not change a decision (the slices that must match use the
// same SSA sizes), so such sizes go behind a tdsl.size_barrier, which the
// analysis takes as an unknown, until tdsl-remove-size-barriers.
//
//===----------------------------------------------------------------------===//
#include "compiler/Codegen/Common/Passes.h"
#include "dialects/TDSL/IR/TDSLOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace tdsl {
#define GEN_PASS_DEF_HIDELOOPCARRIEDSIZES
#include "compiler/Codegen/Common/Passes.h.inc"
} // namespace tdsl

using namespace mlir;

/// Whether `v` is an iteration argument or a result of an scf.for or
/// scf.while.
static bool isLoopCarried(Value v) {
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    Operation *owner = arg.getOwner()->getParentOp();
    if (auto forOp = dyn_cast<scf::ForOp>(owner))
      return arg != forOp.getInductionVar();
    return isa<scf::WhileOp>(owner);
  }
  return isa_and_nonnull<scf::ForOp, scf::WhileOp>(v.getDefiningOp());
}

namespace {
struct HideLoopCarriedSizesPass
    : tdsl::impl::HideLoopCarriedSizesBase<HideLoopCarriedSizesPass> {
  void runOnOperation() override {
    OpBuilder b(&getContext());
    getOperation().walk([&](tensor::DimOp dim) {
      if (!isLoopCarried(dim.getSource()) ||
          llvm::any_of(dim->getUsers(), llvm::IsaPred<tdsl::ir::SizeBarrierOp>))
        return;
      b.setInsertionPointAfter(dim);
      auto barrier = tdsl::ir::SizeBarrierOp::create(b, dim.getLoc(), dim.getResult());
      dim.getResult().replaceAllUsesExcept(barrier, barrier);
    });
  }
};
} // namespace
