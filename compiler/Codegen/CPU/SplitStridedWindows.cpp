//===- SplitStridedWindows.cpp - strided windows as reshaped operands -----===//
//
// A pooling window of stride 2 reads x[n, c, 2 * i + di, 2 * j + dj]: a
// subscript that is not a projected permutation, so the vectorizer left the
// op a scalar loop (the digits CNN's pooling: 24 us for 32 x 16 x 8 x 8,
// 7 GB/s). When the window loop runs over exactly the stride, the pair
// (i, di) walks the dimension once, in order: split it into [range of i,
// stride] and read x'[n, c, i, di, j, dj].
//
//===----------------------------------------------------------------------===//
#include "compiler/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace tdsl {
#define GEN_PASS_DEF_SPLITSTRIDEDWINDOWS
#include "compiler/Codegen/CPU/Passes.h.inc"
} // namespace tdsl

using namespace mlir;

namespace {

/// A subscript `a * outer + window` with a constant a >= 2.
struct StridedWindow {
  unsigned outer, window;
  int64_t stride;
};

std::optional<StridedWindow> matchStridedWindow(AffineExpr e) {
  auto add = dyn_cast<AffineBinaryOpExpr>(e);
  if (!add || add.getKind() != AffineExprKind::Add)
    return std::nullopt;
  for (auto [scaled, plain] : {std::pair(add.getLHS(), add.getRHS()),
                               std::pair(add.getRHS(), add.getLHS())}) {
    auto window = dyn_cast<AffineDimExpr>(plain);
    auto mul = dyn_cast<AffineBinaryOpExpr>(scaled);
    if (!window || !mul || mul.getKind() != AffineExprKind::Mul)
      continue;
    auto outer = dyn_cast<AffineDimExpr>(mul.getLHS());
    auto stride = dyn_cast<AffineConstantExpr>(mul.getRHS());
    if (outer && stride && stride.getValue() >= 2 &&
        outer.getPosition() != window.getPosition())
      return StridedWindow{outer.getPosition(), window.getPosition(),
                           stride.getValue()};
  }
  return std::nullopt;
}

/// Splits the strided-window dimensions of `op`'s input `in`; false when it
/// has none that qualify.
bool splitInput(RewriterBase &rw, linalg::GenericOp op, OpOperand &in,
                ArrayRef<int64_t> ranges, SmallVectorImpl<AffineMap> &maps) {
  auto type = dyn_cast<RankedTensorType>(in.get().getType());
  if (!type || !type.hasStaticShape())
    return false;
  AffineMap map = maps[in.getOperandNumber()];
  MLIRContext *ctx = op.getContext();
  SmallVector<AffineExpr> results;
  SmallVector<ReassociationIndices> groups;
  SmallVector<int64_t> sliced(type.getShape()), expanded;
  bool split = false;
  for (auto [r, e] : llvm::enumerate(map.getResults())) {
    std::optional<StridedWindow> w = matchStridedWindow(e);
    int64_t size = type.getDimSize(r);
    ReassociationIndices group{static_cast<int64_t>(expanded.size())};
    // The window must cover the stride exactly (each element read once)
    // and the outer loop's windows must lie in the dimension.
    if (w && !ShapedType::isDynamic(ranges[w->outer]) && ranges[w->outer] > 0 &&
        ranges[w->window] == w->stride &&
        w->stride * ranges[w->outer] <= size) {
      sliced[r] = w->stride * ranges[w->outer];
      expanded.append({ranges[w->outer], w->stride});
      group.push_back(group.front() + 1);
      results.append({getAffineDimExpr(w->outer, ctx),
                      getAffineDimExpr(w->window, ctx)});
      split = true;
    } else {
      expanded.push_back(size);
      results.push_back(e);
    }
    groups.push_back(group);
  }
  if (!split)
    return false;
  Location loc = op.getLoc();
  Value v = in.get();
  if (ArrayRef<int64_t>(sliced) != type.getShape()) {
    SmallVector<OpFoldResult> zeros(type.getRank(), rw.getIndexAttr(0));
    SmallVector<OpFoldResult> ones(type.getRank(), rw.getIndexAttr(1));
    SmallVector<OpFoldResult> sizes = getAsIndexOpFoldResult(ctx, sliced);
    v = tensor::ExtractSliceOp::create(rw, loc, v, zeros, sizes, ones);
  }
  auto expandedType = RankedTensorType::get(expanded, type.getElementType());
  v = tensor::ExpandShapeOp::create(rw, loc, expandedType, v, groups);
  rw.modifyOpInPlace(op, [&] { in.set(v); });
  maps[in.getOperandNumber()] = AffineMap::get(map.getNumDims(), 0, results, ctx);
  return true;
}

struct SplitStridedWindowsPass
    : tdsl::impl::SplitStridedWindowsBase<SplitStridedWindowsPass> {
  void runOnOperation() override {
    SmallVector<linalg::GenericOp> ops;
    getOperation().walk([&](linalg::GenericOp op) {
      if (op.hasPureTensorSemantics() && !op->getParentOfType<scf::ForallOp>() &&
          !op->getParentOfType<linalg::LinalgOp>())
        ops.push_back(op);
    });
    IRRewriter rw(&getContext());
    for (linalg::GenericOp op : ops) {
      SmallVector<int64_t> ranges = op.getStaticLoopRanges();
      SmallVector<AffineMap> maps = op.getIndexingMapsArray();
      rw.setInsertionPoint(op);
      bool changed = false;
      for (OpOperand *in : op.getDpsInputOperands())
        changed |= splitInput(rw, op, *in, ranges, maps);
      if (changed)
        rw.modifyOpInPlace(op, [&] {
          op.setIndexingMapsAttr(rw.getAffineMapArrayAttr(maps));
        });
    }
  }
};

} // namespace
