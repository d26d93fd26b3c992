//===- TileToForall.cpp - linalg ops -> scf.forall tiles ---------------------===//
#include "compiler/Codegen/CPU/Epilogue.h"
#include "compiler/Codegen/CPU/Passes.h"
#include "compiler/Codegen/CPU/RunTimeRegisterTiles.h"
#include "compiler/Codegen/CPU/TileConfig.h"
#include "compiler/Codegen/Common/TilingUtils.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
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

/// Marks the small-tile copy of a contraction on run-time shapes.
constexpr llvm::StringLiteral kSmallTilesAttr = "tdsl.small_tiles";

/// Keeps the set of ops not erased yet.
struct ErasedListener : RewriterBase::Listener {
  DenseSet<Operation *> live;
  void notifyOperationErased(Operation *op) override { live.erase(op); }
};

struct TileToForallPass : tdsl::impl::TileToForallBase<TileToForallPass> {
  using Base::Base;

  /// Side of the tiles of a contraction on run-time shapes that has fewer
  /// than `min-tasks` tiles of the full side (tdsl-tile-to-forall versions
  /// it): 64, which keeps both cores busy from 256 x 256 up.
  static constexpr int64_t kSmallSide = 64;

  /// Tiles of the loops `ranges` cut by `sizes` (0: whole); static ranges.
  static int64_t tileCount(ArrayRef<int64_t> ranges, ArrayRef<int64_t> sizes) {
    int64_t n = 1;
    for (auto [r, s] : llvm::zip(ranges, sizes))
      if (s != 0)
        n *= llvm::divideCeil(r, s);
    return n;
  }

  /// The share of the iterations that fall in full tiles; static ranges.
  static double fullShare(ArrayRef<int64_t> ranges, ArrayRef<int64_t> sizes) {
    double share = 1.0;
    for (auto [r, s] : llvm::zip(ranges, sizes))
      if (s > 1 && r > 0)
        share *= double(r / s * s) / double(r);
    return share;
  }

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
      // Contractions: square tiles over the loops of the register tiles
      // (the rows and columns of a matrix product; a convolution's output
      // channels and columns), one tile per value of the others (batches,
      // a convolution's rows), so that every core has tiles even when the
      // tiled loops are small. A loop no longer than the tile stays whole in
      // each tile (untiled).
      std::pair<unsigned, unsigned> tiled = {parallel.front(), parallel.front()};
      if (parallel.size() >= 2)
        tiled = tdsl::contractionTileLoops(op);
      std::optional<tdsl::TileConfig> tuned = tdsl::getTileConfig(op);
      int64_t side = tuned                                ? tuned->tile
                     : op->hasAttr(kSmallTilesAttr) ? kSmallSide
                                                          : contractionTile;
      auto sizesFor = [&](int64_t side) {
        for (unsigned d : parallel) {
          int64_t r = ranges[d];
          int64_t tile = d == tiled.first || d == tiled.second ? side : 1;
          sizes[d] = !ShapedType::isDynamic(r) && r <= tile && tile > 1 ? 0 : tile;
        }
      };
      sizesFor(side);
      // Big tiles reuse more of A and B per block, but a 512 x 512 product
      // must still keep every core busy (a product too small to pay for a
      // task, under 32K steps a tile, keeps its tiles).
      if (!tuned && minTasks > 0 && !op.hasDynamicShape()) {
        int64_t steps = 1;
        for (int64_t r : ranges)
          steps *= r;
        // (An empty loop, 0 tiles, has nothing to share.)
        for (int64_t n = tileCount(ranges, sizes);
             side > 32 && n > 0 && n < minTasks && steps / (2 * n) >= (int64_t(1) << 15);
             n = tileCount(ranges, sizes))
          sizesFor(side /= 2);
        // Partial tiles at the edges run masked code (tdsl-version-tiles
        // gives only full tiles the static one): 200 x 220 in tiles of 128
        // is 37% full tiles, of 64 84% (PolyBench gemm 0.54 -> 1.17 ms).
        while (side > 32 && fullShare(ranges, sizes) < 0.75)
          sizesFor(side /= 2);
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

  /// A contraction on run-time shapes cannot halve its tiles at compile
  /// time: it runs in an scf.if on whether its tiles of the full side number
  /// `min-tasks` or more, with a copy of small tiles in the else branch.
  /// Returns the two copies, or none when `op` needs no version.
  std::optional<std::pair<linalg::LinalgOp, linalg::LinalgOp>>
  versionBySize(IRRewriter &rw, linalg::LinalgOp op, ArrayRef<int64_t> sizes) {
    if (minTasks <= 0 || !op.hasDynamicShape() || tdsl::getTileConfig(op) ||
        op.getNumReductionLoops() == 0 || op.getNumParallelLoops() < 2 ||
        op->hasAttr(kSmallTilesAttr) || op->hasAttr("tdsl.blocked_reduction") ||
        llvm::none_of(sizes, [&](int64_t t) { return t > kSmallSide; }))
      return std::nullopt;
    Location loc = op->getLoc();
    rw.setInsertionPoint(op);
    SmallVector<Range> loops = op.createLoopRanges(rw, loc);
    Value tiles = arith::ConstantIndexOp::create(rw, loc, 1);
    for (auto [range, size] : llvm::zip(loops, sizes)) {
      if (size == 0)
        continue;
      Value extent = getValueOrCreateConstantIndexOp(rw, loc, range.size);
      Value count = arith::CeilDivUIOp::create(
          rw, loc, extent, arith::ConstantIndexOp::create(rw, loc, size));
      tiles = arith::MulIOp::create(rw, loc, tiles, count);
    }
    Value enough = arith::CmpIOp::create(
        rw, loc, arith::CmpIPredicate::uge, tiles,
        arith::ConstantIndexOp::create(rw, loc, minTasks));
    Operation *big = nullptr, *small = nullptr;
    auto branch = scf::IfOp::create(
        rw, loc, enough,
        [&](OpBuilder &b, Location l) {
          big = b.clone(*op);
          scf::YieldOp::create(b, l, big->getResults());
        },
        [&](OpBuilder &b, Location l) {
          small = b.clone(*op);
          small->setAttr(kSmallTilesAttr, b.getUnitAttr());
          scf::YieldOp::create(b, l, small->getResults());
        });
    rw.replaceOp(op, branch.getResults());
    return std::make_pair(cast<linalg::LinalgOp>(big),
                          cast<linalg::LinalgOp>(small));
  }

  /// Tiles `op` by `sizes` into scf.forall loops that carry its location
  /// and kernel id (against CSE merging).
  void tile(IRRewriter &rw, linalg::LinalgOp op, ArrayRef<int64_t> sizes) {
    Location loc = op->getLoc();
    Attribute id = op->getAttr("tdsl.kernel_id");
    linalg::GenericOp epilogue = tdsl::epilogueOf(op);
    auto tiled = tdsl::tileToForallFusingFills(rw, op, sizes);
    if (failed(tiled)) {
      op.emitWarning("could not be tiled; it runs serially");
      return;
    }
    for (Operation *loop : tiled->second) {
      loop->setLoc(loc);
      if (id)
        loop->setAttr("tdsl.kernel_id", id);
    }
    // An epilogue that cannot join the tiles is tiled on its own (below).
    if (epilogue && tiled->second.size() == 1)
      if (auto forall = dyn_cast<scf::ForallOp>(tiled->second.front()))
        (void)tdsl::fuseEpilogue(rw, forall, epilogue);
  }

  void runOnOperation() override {
    func::FuncOp fn = getOperation();
    // Consumers last to first, so producers fuse into their consumers' tiles.
    SmallVector<linalg::LinalgOp> candidates;
    // An op with no result is what is left of an unused value whose
    // checks must still run (`x = l / l`): a serial loop of checks, with
    // nothing for tiling to split (it would fail, with a warning about
    // code the user did not keep).
    fn.walk([&](linalg::LinalgOp op) {
      if (op.hasPureTensorSemantics() && !op->getParentOfType<scf::ForallOp>() &&
          !isa<linalg::FillOp>(op) && !tdsl::hasEmptyLoop(op) &&
          op->getNumResults() > 0)
        candidates.push_back(op);
    });
    // Epilogues are tiled with their contraction; those that could not be
    // (an untiled contraction, a loop of another shape) then on their own.
    auto isEpilogue = [](linalg::LinalgOp op) {
      return op->hasAttr(tdsl::kEpilogueAttr);
    };
    llvm::erase_if(candidates, isEpilogue);
    IRRewriter rw(&getContext());
    tileAll(rw, candidates);
    candidates.clear();
    fn.walk([&](linalg::LinalgOp op) {
      if (isEpilogue(op) && !op->getParentOfType<scf::ForallOp>() &&
          !tdsl::hasEmptyLoop(op))
        candidates.push_back(op);
    });
    tileAll(rw, candidates);
  }

  void tileAll(IRRewriter &rw, ArrayRef<linalg::LinalgOp> candidates) {
    // Producers and epilogues are erased as they are fused into tiles.
    ErasedListener listener;
    for (linalg::LinalgOp op : candidates)
      listener.live.insert(op);
    rw.setListener(&listener);
    for (linalg::LinalgOp op : llvm::reverse(candidates)) {
      if (!listener.live.contains(op) || !op->getBlock() ||
          op->getParentOfType<scf::ForallOp>())
        continue;
      // A convolution on run-time sizes takes the small tiles alone: its
      // tiles are per image and row, so they number enough for the cores
      // but for tiny images, and each version is a dozen copies of its
      // register tiles (tdsl-vectorize peels them): one `?` convolution
      // compiled in 0.50 s with both versions.
      if (tdsl::peelsRunTimeTiles(op) && !tdsl::getTileConfig(op) &&
          contractionTile > kSmallSide)
        op->setAttr(kSmallTilesAttr, rw.getUnitAttr());
      SmallVector<int64_t> sizes = chooseTileSizes(op);
      if (llvm::all_of(sizes, [](int64_t s) { return s == 0; }))
        continue;
      if (auto versions = versionBySize(rw, op, sizes)) {
        tile(rw, versions->first, sizes);
        tile(rw, versions->second, chooseTileSizes(versions->second));
        continue;
      }
      tile(rw, op, sizes);
    }
    rw.setListener(nullptr);
  }
};

} // namespace
