//===- SliceOffsetReads.cpp - reads at a loop plus a constant as slices ---===//
//
// Index notation's `x[i + 1, j]` is a linalg.generic input whose map has
// the result `d0 + 1`. linalg's vectorizer takes only projected
// permutations, so such an op stayed a scalar loop that LLVM vectorized
// with gathers (fdtd-2d's static `ey` update written from 0: 11.2 ms a
// sweep, against 0.39 ms for the same stencil as a parallel_for, whose
// reads become shifted slices in tdsl-raise-extracts). Here such an input
// becomes the slice of `x` that the loops read, from the constants on, and
// its map the plain loops: the read is a shifted row, as in the loop form.
//
//===----------------------------------------------------------------------===//
#include "compiler/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace tdsl {
#define GEN_PASS_DEF_SLICEOFFSETREADS
#include "compiler/Codegen/CPU/Passes.h.inc"
} // namespace tdsl

using namespace mlir;

namespace {

/// `dK` or `dK + c` with c >= 0 (MLIR keeps the constant on the right of
/// a simplified sum): the loop and the constant.
std::optional<std::pair<unsigned, int64_t>> loopPlusConstant(AffineExpr e) {
  if (auto d = dyn_cast<AffineDimExpr>(e))
    return std::make_pair(d.getPosition(), int64_t(0));
  auto add = dyn_cast<AffineBinaryOpExpr>(e);
  if (!add || add.getKind() != AffineExprKind::Add)
    return std::nullopt;
  auto d = dyn_cast<AffineDimExpr>(add.getLHS());
  auto c = dyn_cast<AffineConstantExpr>(add.getRHS());
  if (!d || !c || c.getValue() < 0)
    return std::nullopt;
  return std::make_pair(d.getPosition(), c.getValue());
}

void sliceOffsetReads(linalg::GenericOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  // The extent of loop k: a dimension some operand reads with exactly dk.
  SmallVector<OpFoldResult> extents(op.getNumLoops());
  auto extentOf = [&](unsigned k) -> OpFoldResult {
    if (extents[k])
      return extents[k];
    for (OpOperand &o : op->getOpOperands()) {
      if (!isa<RankedTensorType>(o.get().getType()))
        continue;
      AffineMap map = op.getMatchingIndexingMap(&o);
      if (auto r = map.getResultPosition(b.getAffineDimExpr(k)))
        return extents[k] = tensor::getMixedSize(b, loc, o.get(), *r);
    }
    return {};
  };
  bool changed = false;
  for (OpOperand *in : op.getDpsInputOperands()) {
    unsigned i = in->getOperandNumber();
    AffineMap map = maps[i];
    if (!isa<RankedTensorType>(in->get().getType()) ||
        map.isProjectedPermutation(/*allowZeroInResults=*/true))
      continue;
    SmallVector<OpFoldResult> offsets, sizes, strides;
    SmallVector<AffineExpr> results;
    bool ok = true;
    for (AffineExpr e : map.getResults()) {
      strides.push_back(b.getIndexAttr(1));
      if (auto c = dyn_cast<AffineConstantExpr>(e)) {
        offsets.push_back(b.getIndexAttr(c.getValue()));
        sizes.push_back(b.getIndexAttr(1));
        results.push_back(b.getAffineConstantExpr(0));
        continue;
      }
      auto lc = loopPlusConstant(e);
      OpFoldResult size = lc ? extentOf(lc->first) : OpFoldResult();
      if (!size) {
        ok = false;
        break;
      }
      offsets.push_back(b.getIndexAttr(lc->second));
      sizes.push_back(size);
      results.push_back(b.getAffineDimExpr(lc->first));
    }
    AffineMap plain =
        AffineMap::get(map.getNumDims(), 0, results, op.getContext());
    // A loop read twice (`x[i, i + 1]`) is no slice.
    if (!ok || !plain.isProjectedPermutation(/*allowZeroInResults=*/true))
      continue;
    in->set(tensor::ExtractSliceOp::create(b, loc, in->get(), offsets, sizes,
                                           strides));
    maps[i] = plain;
    changed = true;
  }
  if (changed)
    op.setIndexingMapsAttr(b.getAffineMapArrayAttr(maps));
}

struct SliceOffsetReadsPass
    : tdsl::impl::SliceOffsetReadsBase<SliceOffsetReadsPass> {
  void runOnOperation() override {
    SmallVector<linalg::GenericOp> ops;
    getOperation().walk([&](linalg::GenericOp op) {
      if (op.hasPureTensorSemantics())
        ops.push_back(op);
    });
    for (linalg::GenericOp op : ops)
      sliceOffsetReads(op);
  }
};

} // namespace
