//===- FuseEpilogues.cpp - element-wise updates of a contraction's result --===//
#include "compiler/Codegen/CPU/Epilogue.h"
#include "compiler/Codegen/CPU/Passes.h"
#include "compiler/Codegen/CPU/RunTimeRegisterTiles.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace tdsl {
#define GEN_PASS_DEF_FUSEEPILOGUES
#include "compiler/Codegen/CPU/Passes.h.inc"
} // namespace tdsl

using namespace mlir;

namespace {

/// The element-wise op that reads `op`'s result, when it can run in `op`'s
/// tiles: every loop parallel, the result its only use, read element for
/// element, and a body without side effects.
linalg::GenericOp epilogueCandidate(linalg::LinalgOp op) {
  if (!op->getResult(0).hasOneUse())
    return {};
  OpOperand &use = *op->getResult(0).getUses().begin();
  auto consumer = dyn_cast<linalg::GenericOp>(use.getOwner());
  if (!consumer || consumer->getBlock() != op->getBlock() ||
      !consumer.hasPureTensorSemantics() || consumer.getNumDpsInits() != 1 ||
      consumer.getNumLoops() != consumer.getNumParallelLoops() ||
      !consumer.getMatchingIndexingMap(&use).isIdentity() ||
      !consumer.getMatchingIndexingMap(consumer.getDpsInitOperand(0)).isIdentity() ||
      consumer->getResult(0).getType() != op->getResult(0).getType())
    return {};
  bool pure = true;
  consumer.getBody()->walk([&](Operation *inner) {
    pure &= isa<linalg::YieldOp>(inner) || isMemoryEffectFree(inner);
  });
  return pure ? consumer : linalg::GenericOp();
}

/// `consumer` computing into `input`'s tensor (the contraction's result)
/// instead of its own new tensor, which it does not read: `x @ w + b` as
/// tdsl-update-in-place leaves it when the new tensor is shared.
linalg::GenericOp computeInto(RewriterBase &rw, linalg::GenericOp consumer,
                              OpOperand &input) {
  OpOperand *init = consumer.getDpsInitOperand(0);
  if (!init->get().getDefiningOp<tensor::EmptyOp>() ||
      consumer.payloadUsesValueFromOperand(init))
    return {};
  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  for (OpOperand *in : consumer.getDpsInputOperands())
    if (in != &input) {
      inputs.push_back(in->get());
      maps.push_back(consumer.getMatchingIndexingMap(in));
    }
  maps.push_back(consumer.getMatchingIndexingMap(init));
  rw.setInsertionPoint(consumer);
  auto updated = linalg::GenericOp::create(
      rw, consumer.getLoc(), consumer->getResultTypes(), inputs,
      ValueRange{input.get()}, maps, consumer.getIteratorTypesArray());
  updated->setDiscardableAttrs(consumer->getDiscardableAttrDictionary());
  rw.inlineRegionBefore(consumer.getRegion(), updated.getRegion(),
                        updated.getRegion().end());
  Block &body = updated.getRegion().front();
  unsigned arg = input.getOperandNumber();
  rw.replaceAllUsesWith(body.getArgument(arg), body.getArguments().back());
  body.eraseArgument(arg);
  rw.replaceOp(consumer, updated->getResults());
  return updated;
}

struct FuseEpiloguesPass : tdsl::impl::FuseEpiloguesBase<FuseEpiloguesPass> {
  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> ops;
    // Contractions only: the consumers that computeInto replaces are not
    // among them. Not those on run-time shapes: they run in two versions
    // (tile sizes), each in two (full and edge tiles), and an epilogue in
    // each of the four cost more compile time than it saved (the digits MLP
    // with MPI: 1.33 -> 1.44 s, against 1.37 s for static shapes only).
    // Convolutions on run-time shapes run in one version (tdsl-tile-to-forall
    // and tdsl-version-tiles leave them one), so theirs join: the bias of
    // `nn.conv2d` was a kernel of its own, a tenth of the convolution's time.
    getOperation().walk([&](linalg::LinalgOp op) {
      if (op.hasPureTensorSemantics() &&
          (!op.hasDynamicShape() || tdsl::peelsRunTimeTiles(op)) &&
          !isa<linalg::FillOp>(op) &&
          op->getNumResults() == 1 && op.getNumReductionLoops() > 0 &&
          op.getNumParallelLoops() > 0 && !op->getParentOfType<scf::ForallOp>() &&
          !op->getParentOfType<linalg::LinalgOp>())
        ops.push_back(op);
    });
    IRRewriter rw(&getContext());
    for (linalg::LinalgOp op : ops) {
      linalg::GenericOp consumer = epilogueCandidate(op);
      if (!consumer)
        continue;
      OpOperand &use = *op->getResult(0).getUses().begin();
      if (&use != consumer.getDpsInitOperand(0))
        consumer = computeInto(rw, consumer, use);
      if (!consumer)
        continue;
      // The contraction moves down, right before the epilogue: nothing runs
      // between the two, and what ran between them (a check of the
      // epilogue's extents, the operands it reads) still runs first. Its
      // result has no other use.
      op->moveBefore(consumer);
      consumer->setAttr(tdsl::kEpilogueAttr, rw.getUnitAttr());
    }
  }
};

} // namespace
