//===- LoopInvariantCodeMotion.cpp - LICM that keeps written fills ---------===//
//
// Upstream's loop-invariant-code-motion, with one exception: a linalg.fill
// that an op staying in the loop writes into (its destination) stays too.
// A hoisted destination must survive every iteration, so bufferization gave
// each iteration a copy of it: the suite's conv2d copied pad2d's zeros,
// filled once before the loop, at each call (1.3 MB, a memcpy where the fill
// is a memset), and the gradient of a convolution on 8 x 64 x 56 x 56 its
// padded output gradient (7.4 MB). Other ops, which may cost more than a
// copy, move as upstream moves them.
//
//===----------------------------------------------------------------------===//
#include "compiler/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/SubsetOpInterface.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"

namespace tdsl {
#define GEN_PASS_DEF_LOOPINVARIANTCODEMOTION
#include "compiler/Codegen/CPU/Passes.h.inc"
} // namespace tdsl

using namespace mlir;

namespace {

/// Whether `use` makes its owner write into the tensor it names.
bool isDestination(OpOperand &use) {
  Operation *user = use.getOwner();
  if (auto dps = dyn_cast<DestinationStyleOpInterface>(user))
    if (dps.isDpsInit(&use))
      return true;
  if (auto insert = dyn_cast<SubsetInsertionOpInterface>(user))
    if (&insert.getDestinationOperand() == &use)
      return true;
  if (auto loop = dyn_cast<LoopLikeOpInterface>(user))
    return llvm::is_contained(loop.getInitsMutable(), use);
  return false;
}

bool hoistable(Operation *op) { return isMemoryEffectFree(op) && isSpeculatable(op); }

/// The fills among `region`'s ops that upstream's pass would hoist and that
/// an op staying in the loop writes into. A fill whose writers would all
/// move (an invariant product, say) moves with them, as upstream's pass
/// moves it.
DenseSet<Operation *> fillsToKeep(Region &region, LoopLikeOpInterface loop) {
  DenseSet<Operation *> keep;
  while (true) {
    // What upstream's pass hoists, less what stays: ops (with their nested
    // ops) of values from outside or from hoisted ops only.
    DenseSet<Operation *> invariant;
    auto isOutside = [&](Operation &op, Value v) {
      if (op.isAncestor(v.getParentRegion()->getParentOp()))
        return true;
      Operation *def = v.getDefiningOp();
      return loop.isDefinedOutsideOfLoop(v) || (def && invariant.contains(def));
    };
    for (Operation &op : region.getOps()) {
      if (keep.contains(&op) || !hoistable(&op))
        continue;
      WalkResult uses = op.walk([&](Operation *nested) {
        for (Value v : nested->getOperands())
          if (!isOutside(op, v))
            return WalkResult::interrupt();
        return WalkResult::advance();
      });
      if (!uses.wasInterrupted())
        invariant.insert(&op);
    }
    bool more = false;
    for (Operation *op : invariant) {
      if (!isa<linalg::FillOp>(op))
        continue;
      for (OpOperand &use : op->getResult(0).getUses()) {
        Operation *writer = region.findAncestorOpInRegion(*use.getOwner());
        if (writer && !invariant.contains(writer) && isDestination(use)) {
          more |= keep.insert(op).second;
          break;
        }
      }
    }
    if (!more)
      return keep;
  }
}

struct LoopInvariantCodeMotionPass
    : tdsl::impl::LoopInvariantCodeMotionBase<LoopInvariantCodeMotionPass> {
  void runOnOperation() override {
    // Innermost loops first, so that an op can leave several levels.
    getOperation()->walk([](LoopLikeOpInterface loop) {
      DenseMap<Region *, DenseSet<Operation *>> kept;
      moveLoopInvariantCode(
          loop.getLoopRegions(),
          [&](Value value, Region *) { return loop.isDefinedOutsideOfLoop(value); },
          [&](Operation *op, Region *region) {
            if (!hoistable(op))
              return false;
            auto it = kept.find(region);
            if (it == kept.end())
              it = kept.try_emplace(region, fillsToKeep(*region, loop)).first;
            return !it->second.contains(op);
          },
          [&](Operation *op, Region *) { loop.moveOutOfLoop(op); });
    });
  }
};

} // namespace
