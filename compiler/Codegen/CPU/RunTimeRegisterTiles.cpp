//===- RunTimeRegisterTiles.cpp - whole register tiles on run-time sizes ---===//
#include "compiler/Codegen/CPU/RunTimeRegisterTiles.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;

namespace {

/// Whether `min` is min(tile, s0 - iv) (in either order), the size of a
/// tile of `iv`'s loop.
bool isTileSizeOf(affine::AffineMinOp min, Value iv, int64_t tile) {
  AffineMap map = min.getAffineMap();
  if (map.getNumResults() != 2 || map.getNumDims() != 1 || map.getNumSymbols() != 1 ||
      min.getMapOperands()[0] != iv)
    return false;
  MLIRContext *ctx = min.getContext();
  AffineExpr rest = getAffineSymbolExpr(0, ctx) - getAffineDimExpr(0, ctx);
  AffineExpr whole = getAffineConstantExpr(tile, ctx);
  return (map.getResult(0) == whole && map.getResult(1) == rest) ||
         (map.getResult(0) == rest && map.getResult(1) == whole);
}

SmallVector<affine::AffineMinOp> tileSizesIn(scf::ForOp loop, int64_t tile) {
  SmallVector<affine::AffineMinOp> mins;
  loop.walk([&](affine::AffineMinOp min) {
    if (isTileSizeOf(min, loop.getInductionVar(), tile))
      mins.push_back(min);
  });
  return mins;
}

/// Peels the last partial tile off `loop` (from a multiple of `tile`, 0 or
/// an earlier peel's bound, stepping by `tile`): the split is ub - ub % tile.
/// `loop` then runs whole tiles, their sizes constants, and the returned
/// copy of it the rest. The bound is computed in arith ops: bufferization's
/// value-bounds checks of the slices went through Fourier-Motzkin
/// elimination for each `mod` of an affine map (0.3 s a convolution).
scf::ForOp peel(RewriterBase &rw, scf::ForOp loop, int64_t tile) {
  Location loc = loop.getLoc();
  rw.setInsertionPoint(loop);
  Value ub = loop.getUpperBound();
  Value rest = arith::RemUIOp::create(rw, loc, ub,
                                      arith::ConstantIndexOp::create(rw, loc, tile).getResult());
  Value split = arith::SubIOp::create(rw, loc, ub, rest);
  rw.setInsertionPointAfter(loop);
  auto partial = cast<scf::ForOp>(rw.clone(*loop.getOperation()));
  for (auto [from, to] : llvm::zip(loop.getResults(), partial.getResults()))
    rw.replaceAllUsesExcept(from, to, partial);
  rw.modifyOpInPlace(partial, [&] {
    partial.getInitArgsMutable().assign(loop.getResults());
    partial.setLowerBound(split);
  });
  rw.modifyOpInPlace(loop, [&] { loop.setUpperBound(split); });
  for (affine::AffineMinOp min : tileSizesIn(loop, tile)) {
    rw.setInsertionPoint(min);
    rw.replaceOp(min, arith::ConstantIndexOp::create(rw, min.getLoc(), tile).getResult());
  }
  return partial;
}

/// `loop`, whose tiles are `tile` wide, stepping by `narrow` instead.
void narrowTiles(RewriterBase &rw, scf::ForOp loop, int64_t tile, int64_t narrow) {
  rw.setInsertionPoint(loop);
  Value step = arith::ConstantIndexOp::create(rw, loop.getLoc(), narrow);
  rw.modifyOpInPlace(loop, [&] { loop.setStep(step); });
  for (affine::AffineMinOp min : tileSizesIn(loop, tile)) {
    AffineMap map = min.getAffineMap();
    SmallVector<AffineExpr> results;
    for (AffineExpr e : map.getResults())
      results.push_back(isa<AffineConstantExpr>(e) ? getAffineConstantExpr(narrow, rw.getContext())
                                                  : e);
    rw.setInsertionPoint(min);
    rw.replaceOpWithNewOp<affine::AffineMinOp>(
        min, AffineMap::get(map.getNumDims(), map.getNumSymbols(), results, rw.getContext()),
        min.getMapOperands());
  }
}

/// The value of an index computed from constants by affine maps.
std::optional<int64_t> constantIndex(OpFoldResult ofr, unsigned depth = 0) {
  if (std::optional<int64_t> c = getConstantIntValue(ofr))
    return c;
  auto v = dyn_cast<Value>(ofr);
  auto apply = v ? v.getDefiningOp<affine::AffineApplyOp>() : nullptr;
  if (!apply || depth > 8)
    return std::nullopt;
  SmallVector<Attribute> operands;
  for (Value operand : apply.getMapOperands()) {
    std::optional<int64_t> c = constantIndex(operand, depth + 1);
    if (!c)
      return std::nullopt;
    operands.push_back(IntegerAttr::get(IndexType::get(v.getContext()), *c));
  }
  SmallVector<Attribute> results;
  if (failed(apply.getAffineMap().constantFold(operands, results)) || results.size() != 1)
    return std::nullopt;
  auto r = dyn_cast<IntegerAttr>(results[0]);
  return r ? std::optional<int64_t>(r.getInt()) : std::nullopt;
}

/// `op` as a copy on static types where its operands are slices of
/// constant sizes (its results cast back), else `op`.
linalg::LinalgOp refineStatic(RewriterBase &rw, linalg::LinalgOp op) {
  if (!op.hasDynamicShape())
    return op;
  Location loc = op.getLoc();
  rw.setInsertionPoint(op);
  IRMapping map;
  bool refined = false;
  for (Value operand : op->getOperands()) {
    auto type = dyn_cast<RankedTensorType>(operand.getType());
    auto slice = operand.getDefiningOp<tensor::ExtractSliceOp>();
    if (!type || type.hasStaticShape() || !slice ||
        slice.getSourceType().getRank() != type.getRank())
      continue;
    SmallVector<int64_t> shape(type.getShape());
    for (auto [i, size] : llvm::enumerate(slice.getMixedSizes()))
      if (ShapedType::isDynamic(shape[i]))
        if (std::optional<int64_t> c = constantIndex(size); c && *c >= 0)
          shape[i] = *c;
    auto staticType = RankedTensorType::get(shape, type.getElementType());
    if (staticType == type)
      continue;
    map.map(operand, tensor::CastOp::create(rw, loc, staticType, operand).getResult());
    refined = true;
  }
  if (!refined)
    return op;
  Operation *copy = rw.clone(*op.getOperation(), map);
  SmallVector<Value> results;
  for (auto [i, result] : llvm::enumerate(copy->getResults())) {
    result.setType(copy->getOperand(op.getNumDpsInputs() + i).getType());
    Type type = op->getResult(i).getType();
    results.push_back(result.getType() == type
                          ? Value(result)
                          : tensor::CastOp::create(rw, loc, type, result).getResult());
  }
  rw.replaceOp(op, results);
  return cast<linalg::LinalgOp>(copy);
}

/// The copy of the tiled op in `loop`.
linalg::LinalgOp tiledOpIn(scf::ForOp loop) {
  linalg::LinalgOp found;
  loop.walk([&](linalg::LinalgOp op) {
    found = op;
    return WalkResult::interrupt();
  });
  return found;
}

} // namespace

bool tdsl::peelsRunTimeTiles(linalg::LinalgOp op) {
  return op.getNumReductionLoops() > 0 && op.getNumParallelLoops() >= 2 &&
         op->getNumResults() == 1 && op.hasDynamicShape() &&
         llvm::any_of(op.getIndexingMapsArray(),
                      [](AffineMap m) { return !m.isProjectedPermutation(); });
}

SmallVector<linalg::LinalgOp> tdsl::peelRunTimeTiles(RewriterBase &rw, linalg::LinalgOp tiled,
                                                     TileLoop rows, TileLoop cols,
                                                     int64_t narrow,
                                                     linalg::LinalgOp *columnsRest) {
  SmallVector<linalg::LinalgOp> ops;
  // The last rows (an output-channel count that is not a multiple of the
  // tile's, seldom run) keep their dynamic columns.
  linalg::LinalgOp rowsRest;
  if (rows.loop)
    rowsRest = tiledOpIn(peel(rw, rows.loop, rows.tile));
  // The columns' last partial tile in tiles of half the width, then a
  // quarter, down to `narrow` (56 = 32 + 16 + 8, as on static sizes).
  SmallVector<linalg::LinalgOp> narrower;
  linalg::LinalgOp colsRest;
  if (cols.loop) {
    scf::ForOp partial = peel(rw, cols.loop, cols.tile);
    for (int64_t width = cols.tile; width / 2 >= narrow && width / 2 > 0; width /= 2) {
      narrowTiles(rw, partial, width, width / 2);
      scf::ForOp rest = peel(rw, partial, width / 2);
      narrower.push_back(tiledOpIn(partial));
      partial = rest;
    }
    colsRest = tiledOpIn(partial);
  }
  ops.push_back(refineStatic(rw, tiled));
  for (linalg::LinalgOp op : narrower)
    ops.push_back(refineStatic(rw, op));
  for (linalg::LinalgOp op : {colsRest, rowsRest})
    if (op)
      ops.push_back(op);
  if (columnsRest)
    *columnsRest = colsRest;
  return ops;
}
