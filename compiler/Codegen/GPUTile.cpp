//===- GPUTile.cpp - linalg ops -> scf.forall over GPU blocks and threads ---===//
#include "compiler/Codegen/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace tdsl {
#define GEN_PASS_DEF_GPUTILE
#include "compiler/Codegen/Passes.h.inc"
} // namespace tdsl

using namespace mlir;

namespace {

struct GPUTilePass : ::tdsl::impl::GPUTileBase<GPUTilePass> {
  using Base::Base;

  /// Tiles `op` with `sizes` into an scf.forall with `mapping`; returns the
  /// tiled op inside, or null.
  Operation *tileOp(IRRewriter &rw, Operation *op, ArrayRef<int64_t> sizes,
                  ArrayRef<Attribute> mapping, bool fuseFills) {
    SmallVector<OpFoldResult> tileSizes;
    for (int64_t s : sizes)
      tileSizes.push_back(rw.getIndexAttr(s));
    scf::SCFTilingOptions tiling;
    tiling.setTileSizes(tileSizes);
    tiling.setLoopType(scf::SCFTilingOptions::LoopType::ForallOp);
    // gpu-map-parallel-loops maps a loop's first dimension to x: list the
    // innermost loop first, so consecutive threads (and blocks) touch
    // consecutive elements (coalesced accesses).
    SmallVector<int64_t> interchange;
    for (int64_t i = sizes.size() - 1; i >= 0; --i)
      interchange.push_back(i);
    tiling.setInterchange(interchange);
    (void)mapping;
    scf::SCFTileAndFuseOptions options;
    options.setTilingOptions(tiling);
    options.fusionControlFn =
        [&](tensor::ExtractSliceOp, OpResult producer,
            bool) -> std::optional<scf::SCFTileAndFuseOptions::ControlFnResult> {
      if (fuseFills && isa<linalg::FillOp>(producer.getOwner()))
        return scf::SCFTileAndFuseOptions::ControlFnResult{};
      return std::nullopt;
    };
    rw.setInsertionPoint(op);
    auto result = scf::tileConsumerAndFuseProducersUsingSCF(
        rw, cast<TilingInterface>(op), options);
    if (failed(result))
      return nullptr;
    for (OpResult r : op->getResults())
      if (Value repl = result->replacements.lookup(r))
        rw.replaceAllUsesWith(r, repl);
    Operation *tiled = result->tiledAndFusedOps.front();
    if (op->use_empty())
      rw.eraseOp(op);
    return tiled;
  }

  void runOnOperation() override {
    func::FuncOp fn = getOperation();
    MLIRContext *ctx = &getContext();
    SmallVector<linalg::LinalgOp> candidates;
    fn.walk([&](linalg::LinalgOp op) {
      if (op.hasPureTensorSemantics() && !op->getParentOfType<scf::ForallOp>() &&
          !isa<linalg::FillOp>(op))
        candidates.push_back(op);
    });
    IRRewriter rw(ctx);
    auto blockDim = [&](unsigned i) -> Attribute {
      return gpu::GPUBlockMappingAttr::get(
          ctx, static_cast<gpu::MappingId>(static_cast<unsigned>(gpu::MappingId::DimX) + i));
    };
    auto threadDim = [&](unsigned i) -> Attribute {
      return gpu::GPUThreadMappingAttr::get(
          ctx, static_cast<gpu::MappingId>(static_cast<unsigned>(gpu::MappingId::DimX) + i));
    };
    for (linalg::LinalgOp op : llvm::reverse(candidates)) {
      if (!op->getBlock())
        continue;
      SmallVector<utils::IteratorType> iters = op.getIteratorTypesArray();
      SmallVector<unsigned> parallel;
      for (unsigned i = 0; i < iters.size(); ++i)
        if (iters[i] == utils::IteratorType::parallel)
          parallel.push_back(i);
      if (parallel.empty())
        continue; // runs on the host
      // Block tiles over (up to) the two innermost parallel loops; x is the
      // innermost, so consecutive threads touch consecutive elements.
      unsigned used = std::min<size_t>(2, parallel.size());
      bool contraction = parallel.size() != iters.size() && used == 2;
      SmallVector<int64_t> blockSizes(iters.size(), 0), threadSizes(iters.size(), 0);
      SmallVector<Attribute> blocks, threads;
      for (unsigned k = 0; k < parallel.size(); ++k) {
        unsigned loop = parallel[parallel.size() - 1 - k];
        if (k < used) {
          blockSizes[loop] = contraction ? tile : (k == 0 ? blockSize : 1);
          threadSizes[loop] = 1;
        } else {
          blockSizes[loop] = 1; // outer parallel loops: one block each
          threadSizes[loop] = 0;
        }
      }
      // Mapping lists follow the order of the tiled loops (outer to inner);
      // the innermost gets x.
      SmallVector<unsigned> tiledLoops, threadLoops;
      for (unsigned i = 0; i < iters.size(); ++i) {
        if (blockSizes[i])
          tiledLoops.push_back(i);
        if (threadSizes[i])
          threadLoops.push_back(i);
      }
      for (unsigned j = 0; j < tiledLoops.size(); ++j)
        blocks.push_back(blockDim(std::min<unsigned>(2, tiledLoops.size() - 1 - j)));
      for (unsigned j = 0; j < threadLoops.size(); ++j)
        threads.push_back(threadDim(threadLoops.size() - 1 - j));
      if (tiledLoops.size() > 3)
        continue; // more than 3 grid dimensions: leave on the host
      Operation *inner = tileOp(rw, op, blockSizes, blocks, /*fuseFills=*/true);
      if (!inner)
        continue;
      tileOp(rw, inner, threadSizes, threads, /*fuseFills=*/true);
    }
  }
};

} // namespace
