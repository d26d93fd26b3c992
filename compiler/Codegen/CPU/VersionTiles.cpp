//===- VersionTiles.cpp - full tiles of run-time shapes, without masks ------===//
//
// A contraction on run-time (`?`) shapes is tiled into tiles of size
// min(64, n - i): only the last row and column of tiles are partial, but
// every tile's type is dynamic, so its register tiles vectorize with masks
// and the accumulator is not kept in registers (10 GFLOP/s against 145 for
// static shapes). Each such tile is versioned: when its sizes are the full
// tile sizes (every tile but the edges), a copy of the op on static types
// runs; otherwise the dynamic one. Static shapes that the tile does not
// divide, and reductions that keep one loop (A @ x, x @ A, row sums), get
// the same: their masks cost x @ A half its time.
//
//===----------------------------------------------------------------------===//
#include "compiler/Codegen/CPU/Epilogue.h"
#include "compiler/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace tdsl {
#define GEN_PASS_DEF_VERSIONTILES
#include "compiler/Codegen/CPU/Passes.h.inc"
} // namespace tdsl

using namespace mlir;

namespace {

/// The constant bound of an affine.min (the tile size of min(64, n - i)).
std::optional<int64_t> tileSizeOf(Value v) {
  auto min = v ? v.getDefiningOp<affine::AffineMinOp>() : nullptr;
  if (!min)
    return std::nullopt;
  std::optional<int64_t> best;
  for (AffineExpr e : min.getAffineMap().getResults())
    if (auto c = dyn_cast<AffineConstantExpr>(e))
      best = best ? std::min(*best, c.getValue()) : c.getValue();
  return best;
}

/// The value dimension `r` of tensor `t` was sliced with, through the ops
/// that keep their init's shape (a fill of the slice).
Value slicedSize(Value t, unsigned r) {
  while (t) {
    if (auto slice = t.getDefiningOp<tensor::ExtractSliceOp>())
      return dyn_cast<Value>(slice.getMixedSizes()[r]);
    auto dps = t.getDefiningOp<DestinationStyleOpInterface>();
    if (!dps)
      return {};
    t = dps.getDpsInitOperand(cast<OpResult>(t).getResultNumber())->get();
  }
  return {};
}

struct VersionTilesPass : tdsl::impl::VersionTilesBase<VersionTilesPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> ops;
    // Ops in a tile, not yet under a version's scf.if in that tile (an
    // scf.if around the whole forall chooses its tile size).
    auto versioned = [](Operation *op) {
      auto branch = op->getParentOfType<scf::IfOp>();
      auto tile = op->getParentOfType<scf::ForallOp>();
      return branch && tile && tile->isProperAncestor(branch);
    };
    getOperation().walk([&](linalg::LinalgOp op) {
      if (op.hasPureTensorSemantics() && op->getParentOfType<scf::ForallOp>() &&
          !versioned(op) && op.getNumReductionLoops() > 0 &&
          op.getNumParallelLoops() >= 1 && op.hasDynamicShape() && op->getNumResults() == 1)
        ops.push_back(op);
    });
    for (linalg::LinalgOp op : ops)
      version(op);
  }

  void version(linalg::LinalgOp op) {
    // With an epilogue, the versions go where it is: after the slices it
    // reads (tdsl-tile-to-forall slices them after the op).
    linalg::GenericOp epilogue = tdsl::epilogueOf(op);
    OpBuilder b(epilogue ? epilogue.getOperation() : op.getOperation());
    Location loc = op.getLoc();
    // The run-time size of each parallel loop from the output's dimensions,
    // and the tile size it has in full tiles.
    OpOperand *init = op.getDpsInitOperand(0);
    AffineMap outMap = op.getMatchingIndexingMap(init);
    auto outType = cast<RankedTensorType>(init->get().getType());
    SmallVector<int64_t> loopSize(op.getNumLoops(), ShapedType::kDynamic);
    Value full;
    for (unsigned r = 0; r < outMap.getNumResults(); ++r) {
      auto dim = dyn_cast<AffineDimExpr>(outMap.getResult(r));
      if (!dim || !outType.isDynamicDim(r))
        continue;
      Value size = slicedSize(init->get(), r);
      std::optional<int64_t> tile = tileSizeOf(size);
      if (!tile)
        continue;
      loopSize[dim.getPosition()] = *tile;
      Value is = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, size,
                                       arith::ConstantIndexOp::create(b, loc, *tile));
      full = full ? arith::AndIOp::create(b, loc, full, is).getResult() : is;
    }
    if (!full)
      return;
    // The static copy: each operand cast to its type with those sizes.
    auto refine = [&](Value v, AffineMap map, ArrayRef<int64_t> loopSize) -> Value {
      auto type = dyn_cast<RankedTensorType>(v.getType());
      if (!type) // a scalar operand of an epilogue
        return v;
      SmallVector<int64_t> shape(type.getShape());
      for (unsigned r = 0; r < map.getNumResults(); ++r)
        if (auto d = dyn_cast<AffineDimExpr>(map.getResult(r)))
          if (type.isDynamicDim(r) && !ShapedType::isDynamic(loopSize[d.getPosition()]))
            shape[r] = loopSize[d.getPosition()];
      auto refined = RankedTensorType::get(shape, type.getElementType());
      return refined == type ? v : tensor::CastOp::create(b, loc, refined, v).getResult();
    };
    // A copy of `linalg` on operands refined by `map`, typed as its init.
    auto cloneRefined = [&](linalg::LinalgOp linalg, IRMapping &map,
                            ArrayRef<int64_t> loopSize) {
      for (OpOperand &operand : linalg->getOpOperands())
        if (!map.contains(operand.get()))
          map.map(operand.get(), refine(operand.get(),
                                        linalg.getMatchingIndexingMap(&operand), loopSize));
      Operation *copy = b.clone(*linalg, map);
      copy->getResult(0).setType(copy->getOperand(copy->getNumOperands() - 1).getType());
      return copy;
    };
    // The epilogue in the tile goes with the op: its loops are the result's
    // dimensions (an identity map), each the size of the op's loop there.
    Operation *last = epilogue ? epilogue.getOperation() : op.getOperation();
    auto ifOp = scf::IfOp::create(b, loc, last->getResultTypes(), full,
                                  /*withElseRegion=*/true);
    b.setInsertionPointToStart(ifOp.thenBlock());
    IRMapping map;
    Operation *fast = cloneRefined(op, map, loopSize);
    if (epilogue) {
      SmallVector<int64_t> epilogueSize;
      for (AffineExpr e : outMap.getResults())
        epilogueSize.push_back(isa<AffineDimExpr>(e)
                                   ? loopSize[cast<AffineDimExpr>(e).getPosition()]
                                   : ShapedType::kDynamic);
      IRMapping epilogueMap;
      epilogueMap.map(op->getResult(0), fast->getResult(0));
      fast = cloneRefined(epilogue, epilogueMap, epilogueSize);
    }
    Value back = tensor::CastOp::create(b, loc, last->getResult(0).getType(),
                                        fast->getResult(0));
    scf::YieldOp::create(b, loc, back);
    b.setInsertionPointToStart(ifOp.elseBlock());
    Operation *slow = b.clone(*op);
    if (epilogue) {
      IRMapping epilogueMap;
      epilogueMap.map(op->getResult(0), slow->getResult(0));
      slow = b.clone(*epilogue, epilogueMap);
    }
    scf::YieldOp::create(b, loc, slow->getResult(0));
    last->replaceAllUsesWith(ifOp->getResults());
    if (epilogue)
      epilogue->erase();
    op->erase();
  }
};

} // namespace
