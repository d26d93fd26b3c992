//===- DeinterleaveStridedReads.cpp - strided vector reads as shuffles -----===//
//
// A vector read along a dimension of constant stride s > 1 (the columns a
// stride-2 convolution reads, `x[n, c, 2 * i + di, 2 * j + dj]`) has no
// vector load: LLVM built it from one scalar load and insert per lane. It
// becomes one read of the s * V contiguous elements that span the V it
// needs and a shuffle that keeps every s-th lane, as LLVM's own loop
// vectorizer does for such a loop in C (two loads and a `vpermt2ps` for 16
// f32 lanes of stride 2). The wide read is masked past the last element
// the strided view spans, so it reads nothing outside the view's extent.
//
//===----------------------------------------------------------------------===//
#include "compiler/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace tdsl {
#define GEN_PASS_DEF_DEINTERLEAVESTRIDEDREADS
#include "compiler/Codegen/CPU/Passes.h.inc"
} // namespace tdsl

using namespace mlir;

namespace {

/// The constant stride (> 1) of `type`'s innermost dimension, or 0.
int64_t innerStride(MemRefType type) {
  if (type.getRank() == 0)
    return 0;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) ||
      ShapedType::isDynamic(strides.back()) || strides.back() < 2)
    return 0;
  return strides.back();
}

/// The largest stride read this way: a read of V lanes loads s * V
/// elements.
constexpr int64_t kMaxStride = 4;

/// A minor-identity read (leading vector dimensions of one element, no
/// mask) along a strided innermost dimension, in bounds there, as a masked
/// contiguous read of stride * lanes elements and a shuffle.
struct DeinterleaveRead : OpRewritePattern<vector::TransferReadOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(vector::TransferReadOp read,
                                PatternRewriter &rw) const override {
    auto type = dyn_cast<MemRefType>(read.getBase().getType());
    VectorType vt = read.getVectorType();
    if (!type || read.getMask() || vt.isScalable() || vt.getRank() == 0 ||
        !read.getPermutationMap().isMinorIdentity() ||
        vt.getRank() != type.getRank() || !read.isDimInBounds(vt.getRank() - 1))
      return failure();
    int64_t s = innerStride(type);
    int64_t lanes = vt.getShape().back();
    if (s == 0 || s > kMaxStride || lanes < 2 ||
        llvm::any_of(vt.getShape().drop_back(), [](int64_t n) { return n != 1; }))
      return failure();
    Location loc = read.getLoc();
    unsigned rank = type.getRank();
    // The same elements as a view of unit stride, as long as the strided
    // dimension spans: s * (n - 1) + 1.
    auto meta = memref::ExtractStridedMetadataOp::create(rw, loc, read.getBase());
    SmallVector<int64_t> staticSizes(type.getShape()), staticStrides;
    int64_t staticOffset;
    (void)type.getStridesAndOffset(staticStrides, staticOffset);
    // Static sizes and strides as attributes (the view's type has them).
    SmallVector<OpFoldResult> sizes, strides;
    for (unsigned d = 0; d < rank; ++d) {
      sizes.push_back(ShapedType::isDynamic(staticSizes[d])
                          ? OpFoldResult(meta.getSizes()[d])
                          : OpFoldResult(rw.getIndexAttr(staticSizes[d])));
      strides.push_back(ShapedType::isDynamic(staticStrides[d])
                            ? OpFoldResult(meta.getStrides()[d])
                            : OpFoldResult(rw.getIndexAttr(staticStrides[d])));
    }
    int64_t n = type.getShape().back();
    if (ShapedType::isDynamic(n)) {
      Value dim = getValueOrCreateConstantIndexOp(rw, loc, sizes.back());
      Value one = arith::ConstantIndexOp::create(rw, loc, 1);
      Value stride = arith::ConstantIndexOp::create(rw, loc, s);
      Value span = arith::MulIOp::create(
          rw, loc, arith::SubIOp::create(rw, loc, dim, one), stride);
      // An empty dimension spans nothing (the read does not run then).
      Value spanned = arith::AddIOp::create(rw, loc, span, one);
      Value empty = arith::CmpIOp::create(rw, loc, arith::CmpIPredicate::eq, dim,
                                          arith::ConstantIndexOp::create(rw, loc, 0));
      sizes.back() = arith::SelectOp::create(rw, loc, empty, dim, spanned).getResult();
    } else {
      staticSizes.back() = n == 0 ? 0 : s * (n - 1) + 1;
      sizes.back() = rw.getIndexAttr(staticSizes.back());
    }
    staticStrides.back() = 1;
    strides.back() = rw.getIndexAttr(1);
    auto layout = StridedLayoutAttr::get(rw.getContext(), staticOffset, staticStrides);
    auto flatType = MemRefType::get(staticSizes, type.getElementType(), layout,
                                    type.getMemorySpace());
    OpFoldResult offset = ShapedType::isDynamic(staticOffset)
                              ? OpFoldResult(meta.getOffset())
                              : OpFoldResult(rw.getIndexAttr(staticOffset));
    Value flat = memref::ReinterpretCastOp::create(rw, loc, flatType, meta.getBaseBuffer(),
                                                   offset, sizes, strides);
    SmallVector<Value> indices(read.getIndices());
    Value sv = arith::ConstantIndexOp::create(rw, loc, s);
    indices.back() = arith::MulIOp::create(rw, loc, indices.back(), sv);
    SmallVector<int64_t> wideShape(vt.getShape());
    wideShape.back() = s * lanes;
    auto wideType = VectorType::get(wideShape, vt.getElementType());
    SmallVector<bool> inBounds(rank, true);
    inBounds.back() = false; // the last s - 1 lanes lie past the span
    Value wide = vector::TransferReadOp::create(
        rw, loc, wideType, flat, indices, read.getPadding(),
        AffineMap::getMinorIdentityMap(rank, rank, rw.getContext()), inBounds);
    auto flatVec = VectorType::get({s * lanes}, vt.getElementType());
    Value w = vector::ShapeCastOp::create(rw, loc, flatVec, wide);
    SmallVector<int64_t> pick;
    for (int64_t k = 0; k < lanes; ++k)
      pick.push_back(s * k);
    Value picked = vector::ShuffleOp::create(rw, loc, w, w, pick);
    rw.replaceOpWithNewOp<vector::ShapeCastOp>(read, vt, picked);
    return success();
  }
};

struct DeinterleaveStridedReadsPass
    : tdsl::impl::DeinterleaveStridedReadsBase<DeinterleaveStridedReadsPass> {
  void runOnOperation() override {
    SmallVector<Operation *> reads;
    getOperation().walk([&](vector::TransferReadOp read) {
      if (auto type = dyn_cast<MemRefType>(read.getBase().getType());
          type && innerStride(type) != 0 && innerStride(type) <= kMaxStride)
        reads.push_back(read);
    });
    if (reads.empty())
      return;
    // Broadcasts and permutations of such reads (a convolution's register
    // tile reads its row of inputs broadcast over output channels) first
    // become minor-identity reads.
    RewritePatternSet patterns(&getContext());
    vector::populateVectorTransferPermutationMapLoweringPatterns(patterns);
    vector::populateVectorTransferDropUnitDimsPatterns(patterns);
    patterns.add<DeinterleaveRead>(&getContext());
    GreedyRewriteConfig config;
    config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
    (void)applyOpPatternsGreedily(reads, std::move(patterns), config);
  }
};

} // namespace
