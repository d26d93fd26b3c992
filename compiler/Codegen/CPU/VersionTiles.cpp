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
// the same: their masks cost x @ A half its time. On static shapes the
// partial tiles' sizes are known as well, and get static copies too.
// Convolutions are left to tdsl-vectorize, which peels their register
// tiles (RunTimeRegisterTiles.h): a static copy of the whole tile would run
// the same register tiles, as more code.
//
//===----------------------------------------------------------------------===//
#include "compiler/Codegen/CPU/Epilogue.h"
#include "compiler/Codegen/CPU/Passes.h"
#include "compiler/Codegen/CPU/RunTimeRegisterTiles.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <functional>

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

/// The size of the partial tile along the loop whose tile size `size` is
/// (an affine.min of one induction variable of an scf.forall with static
/// bounds), when every other tile's is `tile`: a static shape that the tile
/// does not divide has one, known at compile time.
std::optional<int64_t> edgeSizeOf(Value size, int64_t tile) {
  auto min = size.getDefiningOp<affine::AffineMinOp>();
  if (!min || min.getMapOperands().size() != 1)
    return std::nullopt;
  auto iv = dyn_cast<BlockArgument>(min.getMapOperands()[0]);
  auto forall = iv ? dyn_cast<scf::ForallOp>(iv.getOwner()->getParentOp()) : nullptr;
  if (!forall || iv.getArgNumber() >= forall.getRank())
    return std::nullopt;
  unsigned d = iv.getArgNumber();
  int64_t lb = forall.getStaticLowerBound()[d], ub = forall.getStaticUpperBound()[d],
          step = forall.getStaticStep()[d];
  if (ShapedType::isDynamic(lb) || ShapedType::isDynamic(ub) ||
      ShapedType::isDynamic(step) || step <= 0 || (ub - lb) / step > 4096)
    return std::nullopt;
  MLIRContext *ctx = size.getContext();
  std::optional<int64_t> edge;
  for (int64_t i = lb; i < ub; i += step) {
    SmallVector<Attribute> results;
    if (failed(min.getAffineMap().constantFold(
            {IntegerAttr::get(IndexType::get(ctx), i)}, results)))
      return std::nullopt;
    std::optional<int64_t> value;
    for (Attribute r : results)
      if (auto c = dyn_cast<IntegerAttr>(r))
        value = value ? std::min(*value, c.getInt()) : c.getInt();
    if (!value || *value <= 0)
      return std::nullopt;
    if (*value == tile)
      continue;
    if (edge && *edge != *value)
      return std::nullopt;
    edge = value;
  }
  return edge;
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

/// A loop of the op's output that its tile slices with a size that varies:
/// its edge tile's size when static, and whether this tile is full along it.
struct Versioned {
  unsigned loop;
  std::optional<int64_t> edge;
  Value isFull;
};

/// The op's versioned loops; `loopSize` gets each one's full tile size.
SmallVector<Versioned> versionedLoops(OpBuilder &b, linalg::LinalgOp op,
                                      SmallVectorImpl<int64_t> &loopSize) {
  Location loc = op.getLoc();
  OpOperand *init = op.getDpsInitOperand(0);
  AffineMap outMap = op.getMatchingIndexingMap(init);
  auto outType = cast<RankedTensorType>(init->get().getType());
  SmallVector<Versioned> versioned;
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
    versioned.push_back({dim.getPosition(), edgeSizeOf(size, *tile), is});
  }
  return versioned;
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
          op.getNumParallelLoops() >= 1 && op.hasDynamicShape() && op->getNumResults() == 1 &&
          !tdsl::peelsRunTimeTiles(op))
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
    AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
    SmallVector<int64_t> loopSize(op.getNumLoops(), ShapedType::kDynamic);
    SmallVector<Versioned> versioned = versionedLoops(b, op, loopSize);
    if (versioned.empty())
      return;
    // A static shape that the tiles do not divide has partial tiles of
    // known sizes: each combination of full and partial loops gets a static
    // copy (at most 4), as masked vectors cost more code and time (the
    // digits CNN's 1438 x 10 logits in tiles of 128 rows: a 5-D mask on
    // vectors of 10 lanes). Otherwise partial tiles run the dynamic op.
    bool staticEdges = versioned.size() <= 2 &&
                       llvm::all_of(versioned, [](const Versioned &v) { return v.edge; });
    Value full;
    if (!staticEdges)
      for (const Versioned &v : versioned)
        full = full ? arith::AndIOp::create(b, loc, full, v.isFull).getResult() : v.isFull;
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
    // The op (and its epilogue, whose loops are the result's dimensions: an
    // identity map) on the sizes `loopSize`, its result cast back.
    Operation *last = epilogue ? epilogue.getOperation() : op.getOperation();
    auto cloneStatic = [&](ArrayRef<int64_t> loopSize) -> Value {
      IRMapping map;
      Operation *copy = cloneRefined(op, map, loopSize);
      if (epilogue) {
        SmallVector<int64_t> epilogueSize;
        for (AffineExpr e : outMap.getResults())
          epilogueSize.push_back(isa<AffineDimExpr>(e)
                                     ? loopSize[cast<AffineDimExpr>(e).getPosition()]
                                     : ShapedType::kDynamic);
        IRMapping epilogueMap;
        epilogueMap.map(op->getResult(0), copy->getResult(0));
        copy = cloneRefined(epilogue, epilogueMap, epilogueSize);
      }
      return tensor::CastOp::create(b, loc, last->getResult(0).getType(),
                                    copy->getResult(0));
    };
    auto cloneDynamic = [&]() -> Value {
      Operation *copy = b.clone(*op);
      if (epilogue) {
        IRMapping epilogueMap;
        epilogueMap.map(op->getResult(0), copy->getResult(0));
        copy = b.clone(*epilogue, epilogueMap);
      }
      return copy->getResult(0);
    };
    // Nested scf.ifs, one per versioned loop (or one for all of them).
    std::function<Value(unsigned)> build = [&](unsigned i) -> Value {
      Value cond = staticEdges ? (i < versioned.size() ? versioned[i].isFull : Value()) : full;
      if (!cond)
        return cloneStatic(loopSize);
      auto ifOp = scf::IfOp::create(b, loc, last->getResultTypes(), cond,
                                    /*withElseRegion=*/true);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(ifOp.thenBlock());
      scf::YieldOp::create(b, loc, staticEdges ? build(i + 1) : cloneStatic(loopSize));
      b.setInsertionPointToStart(ifOp.elseBlock());
      if (staticEdges) {
        int64_t tile = loopSize[versioned[i].loop];
        loopSize[versioned[i].loop] = *versioned[i].edge;
        scf::YieldOp::create(b, loc, build(i + 1));
        loopSize[versioned[i].loop] = tile;
      } else {
        scf::YieldOp::create(b, loc, cloneDynamic());
      }
      return ifOp.getResult(0);
    };
    Value result = build(0);
    last->replaceAllUsesWith(ValueRange{result});
    if (epilogue)
      epilogue->erase();
    op->erase();
  }
};

} // namespace
