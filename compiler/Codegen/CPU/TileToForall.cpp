//===- TileToForall.cpp - linalg ops -> scf.forall tiles ---------------------===//
#include "compiler/Codegen/CPU/Passes.h"
#include "compiler/Codegen/CPU/TileConfig.h"
#include "compiler/Codegen/Common/TilingUtils.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace tdsl {
#define GEN_PASS_DEF_TILETOFORALL
#include "compiler/Codegen/CPU/Passes.h.inc"
} // namespace tdsl

using namespace mlir;

namespace {

struct TileToForallPass : tdsl::impl::TileToForallBase<TileToForallPass> {
  using Base::Base;

  /// Tile sizes for `op`: zero for reduction loops (they stay in the tile).
  SmallVector<int64_t> chooseTileSizes(linalg::LinalgOp op) {
    SmallVector<utils::IteratorType> iters = op.getIteratorTypesArray();
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    SmallVector<int64_t> sizes(iters.size(), 0);
    SmallVector<unsigned> parallel;
    for (unsigned i = 0; i < iters.size(); ++i)
      if (iters[i] == utils::IteratorType::parallel)
        parallel.push_back(i);
    if (parallel.empty())
      return sizes;
    // A split whole reduction (tdsl-split-reduction): one block per task.
    if (op->hasAttr("tdsl.blocked_reduction")) {
      sizes[parallel[0]] = 1;
      return sizes;
    }
    bool hasReduction = parallel.size() != iters.size();
    if (hasReduction) {
      // Contractions: square tiles over the two inner parallel loops (the
      // rows and columns of a matrix product, the pixels of a convolution),
      // one tile per value of the outer ones (batches, channels), so that
      // every core has tiles even when the inner loops are small.
      // A loop no longer than the tile stays whole in each tile (untiled).
      size_t inner = std::min<size_t>(2, parallel.size());
      std::optional<tdsl::TileConfig> tuned = tdsl::getTileConfig(op);
      int64_t side = tuned ? tuned->tile : contractionTile;
      for (size_t k = 0; k < parallel.size(); ++k) {
        int64_t r = ranges[parallel[k]];
        int64_t tile = k + inner < parallel.size() ? 1 : side;
        sizes[parallel[k]] = !ShapedType::isDynamic(r) && r <= tile && tile > 1 ? 0 : tile;
      }
      return sizes;
    }
    // Element-wise: tile the outermost loop; the rest of a tile is inner.
    int64_t inner = 1;
    for (unsigned k = 1; k < parallel.size(); ++k) {
      int64_t r = ranges[parallel[k]];
      inner *= ShapedType::isDynamic(r) ? 256 : r;
    }
    sizes[parallel[0]] = std::max<int64_t>(1, elementwiseTile / std::max<int64_t>(inner, 1));
    return sizes;
  }

  void runOnOperation() override {
    func::FuncOp fn = getOperation();
    // Consumers last to first, so producers fuse into their consumers' tiles.
    SmallVector<linalg::LinalgOp> candidates;
    fn.walk([&](linalg::LinalgOp op) {
      if (op.hasPureTensorSemantics() && !op->getParentOfType<scf::ForallOp>() &&
          !isa<linalg::FillOp>(op))
        candidates.push_back(op);
    });
    IRRewriter rw(&getContext());
    for (linalg::LinalgOp op : llvm::reverse(candidates)) {
      if (!op->getBlock()) // fused and erased already
        continue;
      SmallVector<int64_t> sizes = chooseTileSizes(op);
      if (llvm::all_of(sizes, [](int64_t s) { return s == 0; }))
        continue;
      // Loops carry the op's location and kernel id (against CSE merging).
      Location loc = op->getLoc();
      Attribute id = op->getAttr("tdsl.kernel_id");
      auto tiled = tdsl::tileToForallFusingFills(rw, op, sizes);
      if (failed(tiled)) {
        op.emitWarning("could not be tiled; it runs serially");
        continue;
      }
      for (Operation *loop : tiled->second) {
        loop->setLoc(loc);
        if (id)
          loop->setAttr("tdsl.kernel_id", id);
      }
    }
  }
};

} // namespace
