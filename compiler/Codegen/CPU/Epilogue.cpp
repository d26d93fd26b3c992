//===- Epilogue.cpp - element-wise consumers computed in a contraction's tile ===//
#include "compiler/Codegen/CPU/Epilogue.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/TilingInterface.h"

using namespace mlir;

linalg::GenericOp tdsl::epilogueOf(Operation *op) {
  if (!op || op->getNumResults() != 1 || !op->getResult(0).hasOneUse())
    return {};
  OpOperand &use = *op->getResult(0).getUses().begin();
  auto epilogue = dyn_cast<linalg::GenericOp>(use.getOwner());
  if (!epilogue || !epilogue->hasAttr(kEpilogueAttr) ||
      epilogue->getBlock() != op->getBlock() || epilogue.getNumDpsInits() != 1 ||
      &use != epilogue.getDpsInitOperand(0))
    return {};
  return epilogue;
}

LogicalResult tdsl::fuseEpilogue(RewriterBase &rw, scf::ForallOp forall,
                                 linalg::GenericOp epilogue) {
  if (forall->getNumResults() != 1 ||
      epilogue.getDpsInitOperand(0)->get() != forall->getResult(0))
    return failure();
  scf::InParallelOp term = forall.getTerminator();
  SmallVector<Operation *> yields;
  for (Operation &op : term.getYieldingOps())
    yields.push_back(&op);
  auto insert = yields.size() == 1
                    ? dyn_cast<tensor::ParallelInsertSliceOp>(yields.front())
                    : nullptr;
  BlockArgument shared = forall.getRegionIterArgs()[0];
  if (!insert || insert.getDest() != shared ||
      insert.getSourceType().getRank() != insert.getDestType().getRank() ||
      !llvm::all_of(insert.getMixedStrides(),
                    [](OpFoldResult s) { return isOneInteger(s); }))
    return failure();
  // The epilogue's other operands are defined before the contraction
  // (tdsl-fuse-epilogues moves it right before the epilogue): a tile can
  // slice them.
  for (Value v : epilogue->getOperands())
    if (Operation *def = v.getDefiningOp();
        v != forall->getResult(0) && def && def->getBlock() == forall->getBlock() &&
        !def->isBeforeInBlock(forall))
      return failure();
  // Tile a copy that reads the whole shared tensor at the tile's offsets,
  // then give the tile its computed value instead of that slice.
  rw.setInsertionPoint(term);
  IRMapping map;
  map.map(forall->getResult(0), shared);
  Operation *copy = rw.clone(*epilogue.getOperation(), map);
  FailureOr<TilingResult> tiled = cast<TilingInterface>(copy).getTiledImplementation(
      rw, insert.getMixedOffsets(), insert.getMixedSizes());
  auto cleanup = [&](TilingResult *t) {
    if (t) {
      for (Operation *op : llvm::reverse(t->tiledOps))
        rw.eraseOp(op);
      for (Operation *op : llvm::reverse(t->generatedSlices))
        if (op->use_empty())
          rw.eraseOp(op);
    }
    rw.eraseOp(copy);
  };
  if (failed(tiled) || tiled->tiledOps.size() != 1 ||
      !isa<linalg::GenericOp>(tiled->tiledOps.front())) {
    cleanup(succeeded(tiled) ? &*tiled : nullptr);
    return failure();
  }
  auto tile = cast<linalg::GenericOp>(tiled->tiledOps.front());
  OpOperand *init = tile.getDpsInitOperand(0);
  auto slice = init->get().getDefiningOp<tensor::ExtractSliceOp>();
  if (init->get() != shared &&
      (!slice || slice.getSource() != shared ||
       slice.getType() != insert.getSourceType())) {
    cleanup(&*tiled);
    return failure();
  }
  if (init->get().getType() != insert.getSourceType()) {
    cleanup(&*tiled);
    return failure();
  }
  rw.modifyOpInPlace(tile, [&] { init->set(insert.getSource()); });
  rw.eraseOp(copy);
  if (slice && slice->use_empty())
    rw.eraseOp(slice);
  rw.modifyOpInPlace(insert, [&] { insert.getSourceMutable().assign(tile->getResult(0)); });
  rw.replaceAllUsesWith(epilogue->getResult(0), forall->getResult(0));
  rw.eraseOp(epilogue);
  return success();
}
