//===- TilingUtils.cpp - Tiling into scf.forall shared by the CPU and GPU ---===//
#include "compiler/Codegen/Common/TilingUtils.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

FailureOr<std::pair<Operation *, SmallVector<Operation *>>>
tdsl::tileToForallFusingFills(RewriterBase &rw, Operation *op,
                              ArrayRef<int64_t> sizes,
                              ArrayRef<int64_t> interchange) {
  SmallVector<OpFoldResult> tileSizes;
  for (int64_t s : sizes)
    tileSizes.push_back(rw.getIndexAttr(s));
  scf::SCFTilingOptions tiling;
  tiling.setTileSizes(tileSizes);
  tiling.setLoopType(scf::SCFTilingOptions::LoopType::ForallOp);
  if (!interchange.empty())
    tiling.setInterchange(interchange);
  scf::SCFTileAndFuseOptions options;
  options.setTilingOptions(tiling);
  options.fusionControlFn =
      [](tensor::ExtractSliceOp, OpResult producer,
         bool) -> std::optional<scf::SCFTileAndFuseOptions::ControlFnResult> {
    if (isa<linalg::FillOp>(producer.getOwner()))
      return scf::SCFTileAndFuseOptions::ControlFnResult{};
    return std::nullopt;
  };
  rw.setInsertionPoint(op);
  auto result = scf::tileConsumerAndFuseProducersUsingSCF(
      rw, cast<TilingInterface>(op), options);
  if (failed(result))
    return failure();
  for (OpResult r : op->getResults())
    if (Value repl = result->replacements.lookup(r))
      rw.replaceAllUsesWith(r, repl);
  Operation *tiled = result->tiledAndFusedOps.front();
  if (op->use_empty())
    rw.eraseOp(op);
  SmallVector<Operation *> loops;
  for (LoopLikeOpInterface loop : result->loops)
    loops.push_back(loop);
  return std::make_pair(tiled, loops);
}

bool tdsl::hasEmptyLoop(linalg::LinalgOp op) {
  return llvm::any_of(op.getStaticLoopRanges(), [](int64_t r) {
    return !ShapedType::isDynamic(r) && r <= 0;
  });
}
