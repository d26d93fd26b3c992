//===- Vectorize.cpp - register tiles and linalg::vectorize -----------------===//
#include "compiler/Codegen/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace tdsl {
#define GEN_PASS_DEF_VECTORIZE
#include "compiler/Codegen/Passes.h.inc"
} // namespace tdsl

using namespace mlir;

namespace {

struct VectorizePass : ::tdsl::impl::VectorizeBase<VectorizePass> {
  using Base::Base;

  /// The register tile of `op`; 0 leaves a loop untiled.
  SmallVector<int64_t> registerTile(linalg::LinalgOp op) {
    SmallVector<utils::IteratorType> iters = op.getIteratorTypesArray();
    unsigned n = iters.size();
    SmallVector<int64_t> sizes(n, 1);
    if (n == 0)
      return sizes;
    SmallVector<unsigned> parallel, reduction;
    for (unsigned i = 0; i < n; ++i)
      (iters[i] == utils::IteratorType::parallel ? parallel : reduction).push_back(i);
    if (!reduction.empty() && parallel.size() >= 2) {
      // Contraction: rows x (2 vectors) outer products along one reduction.
      sizes[parallel[parallel.size() - 2]] = contractionRows;
      sizes[parallel.back()] = 2 * vectorWidth;
      return sizes;
    }
    sizes[n - 1] = vectorWidth;
    return sizes;
  }

  void runOnOperation() override {
    func::FuncOp fn = getOperation();
    SmallVector<linalg::LinalgOp> ops;
    fn.walk([&](linalg::LinalgOp op) {
      if (op.hasPureTensorSemantics() && !isa<linalg::FillOp>(op))
        ops.push_back(op);
    });
    IRRewriter rw(&getContext());
    for (linalg::LinalgOp op : ops) {
      SmallVector<int64_t> sizes = registerTile(op);
      SmallVector<int64_t> ranges = op.getStaticLoopRanges();
      // Loops already no larger than the tile need no scf.for.
      SmallVector<OpFoldResult> tileSizes;
      bool needTiling = false;
      for (unsigned i = 0; i < sizes.size(); ++i) {
        bool small = !ShapedType::isDynamic(ranges[i]) && ranges[i] <= sizes[i];
        tileSizes.push_back(rw.getIndexAttr(small ? 0 : sizes[i]));
        if (small)
          sizes[i] = ranges[i];
        needTiling |= !small;
      }
      Operation *target = op;
      if (needTiling) {
        scf::SCFTilingOptions options;
        options.setTileSizes(tileSizes);
        rw.setInsertionPoint(op);
        auto tiled = scf::tileUsingSCF(rw, cast<TilingInterface>(op.getOperation()),
                                       options);
        if (failed(tiled))
          continue;
        rw.replaceOp(op, tiled->replacements);
        target = tiled->tiledOps.front();
      }
      // Static tiles vectorize by their shape; dynamic ones need the sizes
      // (and get masks). The scalable flags must be given too: without them
      // the vectorizer reads mask shapes from an empty array.
      auto targetOp = cast<linalg::LinalgOp>(target);
      if (!targetOp.hasDynamicShape())
        sizes.clear();
      // Vectors of i1 are bit masks in LLVM while buffers of i1 hold a byte
      // per element: a vectorized load or store of them reads or writes the
      // wrong bytes, so ops on i1 tensors stay scalar.
      if (llvm::any_of(targetOp->getOperandTypes(), [](Type t) {
            return getElementTypeOrSelf(t).isInteger(1);
          }))
        continue;
      // A reduction whose body reads none of its inputs (a fill folded into
      // it: sum(ones(...))) is vectorized by MLIR 22 as one step, not one per
      // iteration; it stays scalar.
      if (targetOp.getNumReductionLoops() > 0 &&
          llvm::all_of(targetOp.getDpsInputOperands(), [&](OpOperand *in) {
            return targetOp.getMatchingBlockArgument(in).use_empty();
          }))
        continue;
      SmallVector<bool> scalable(sizes.size(), false);
      if (failed(linalg::vectorizeOpPrecondition(target, sizes, scalable)))
        continue;
      rw.setInsertionPoint(target);
      // Contractions as vector.contract, so they lower to FMAs.
      auto vec = linalg::vectorize(rw, target, sizes, scalable,
                                   /*vectorizeNDExtract=*/false,
                                   /*flatten1DDepthwiseConv=*/false,
                                   /*assumeDynamicDimsMatchVecSizes=*/false,
                                   /*createNamedContraction=*/true);
      if (failed(vec))
        continue;
      if (!vec->replacements.empty())
        rw.replaceOp(target, vec->replacements);
      else
        rw.eraseOp(target);
    }
  }
};

} // namespace
