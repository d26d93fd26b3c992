//===- LowerVector.cpp - n-D vector ops to LLVM-friendly 1-D ops -----------===//
#include "compiler/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace tdsl {
#define GEN_PASS_DEF_LOWERVECTOR
#include "compiler/Codegen/CPU/Passes.h.inc"
} // namespace tdsl

using namespace mlir;

namespace {

/// A 0-d transfer of a memref whose stride is not known to be 1 (a tensor
/// carried through loops or branches gets a strided layout) has no LLVM
/// lowering: it is one element, read or written with memref.load/store.
struct ZeroDTransferRead : OpRewritePattern<vector::TransferReadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(vector::TransferReadOp op,
                                PatternRewriter &rw) const override {
    if (op.getVectorType().getRank() != 0 || op.getMask() ||
        !isa<MemRefType>(op.getBase().getType()))
      return failure();
    Value v = memref::LoadOp::create(rw, op.getLoc(), op.getBase(), op.getIndices());
    rw.replaceOpWithNewOp<vector::BroadcastOp>(op, op.getVectorType(), v);
    return success();
  }
};

struct ZeroDTransferWrite : OpRewritePattern<vector::TransferWriteOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(vector::TransferWriteOp op,
                                PatternRewriter &rw) const override {
    if (op.getVectorType().getRank() != 0 || op.getMask() ||
        !isa<MemRefType>(op.getBase().getType()))
      return failure();
    Value v = vector::ExtractOp::create(rw, op.getLoc(), op.getVector(),
                                        ArrayRef<int64_t>{});
    rw.replaceOpWithNewOp<memref::StoreOp>(op, v, op.getBase(), op.getIndices());
    return success();
  }
};

/// A 1-D gather from a memref whose innermost stride is not known to be 1
/// (an scf.if yielding a buffer or a slice of one gets a fully dynamic
/// layout) becomes one conditional scalar load per lane: LLVM's masked
/// gather and upstream's conditional-load lowering (vector.load) both need
/// unit stride, and the latter failed to verify.
struct StridedGatherToLoads : OpRewritePattern<vector::GatherOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(vector::GatherOp op,
                                PatternRewriter &rw) const override {
    auto memref = dyn_cast<MemRefType>(op.getBase().getType());
    VectorType type = op.getVectorType();
    if (!memref || type.getRank() != 1 || type.isScalable())
      return failure();
    int64_t offset;
    SmallVector<int64_t> strides;
    if (succeeded(memref.getStridesAndOffset(strides, offset)) &&
        (strides.empty() || strides.back() == 1))
      return failure();
    Location loc = op.getLoc();
    SmallVector<Value> base(op.getOffsets());
    Value result = op.getPassThru();
    for (int64_t lane = 0; lane < type.getNumElements(); ++lane) {
      Value index = vector::ExtractOp::create(rw, loc, op.getIndices(), lane);
      Value enabled = vector::ExtractOp::create(rw, loc, op.getMask(), lane);
      SmallVector<Value> at = base;
      if (!index.getType().isIndex())
        index = arith::IndexCastOp::create(rw, loc, rw.getIndexType(), index);
      at.back() = arith::AddIOp::create(rw, loc, at.back(), index);
      auto branch = scf::IfOp::create(
          rw, loc, enabled,
          [&](OpBuilder &b, Location l) {
            Value v = memref::LoadOp::create(b, l, op.getBase(), at);
            scf::YieldOp::create(
                b, l, ValueRange{vector::InsertOp::create(b, l, v, result, lane)});
          },
          [&](OpBuilder &b, Location l) {
            scf::YieldOp::create(b, l, ValueRange{result});
          });
      result = branch.getResult(0);
    }
    rw.replaceOp(op, result);
    return success();
  }
};

struct LowerVectorPass : tdsl::impl::LowerVectorBase<LowerVectorPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    // Contractions and reductions first, so what they produce is lowered by
    // the second set.
    {
      RewritePatternSet patterns(ctx);
      vector::populateVectorContractLoweringPatterns(
          patterns, vector::VectorContractLowering::OuterProduct);
      vector::populateVectorMultiReductionLoweringPatterns(
          patterns, vector::VectorMultiReductionLowering::InnerReduction);
      vector::populateVectorMaskOpLoweringPatterns(patterns);
      vector::populateVectorTransferPermutationMapLoweringPatterns(patterns);
      // vector<1x16xi32> -> vector<16xi32>: LLVM lowers some element-wise
      // ops (arith.mului_extended) only on 1-D vectors.
      vector::populateCastAwayVectorLeadingOneDimPatterns(patterns);
      vector::populateDropUnitDimWithShapeCastPatterns(patterns);
      if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
        return signalPassFailure();
    }
    RewritePatternSet patterns(ctx);
    vector::populateVectorOuterProductLoweringPatterns(patterns);
    vector::populateVectorTransposeLoweringPatterns(
        patterns, vector::VectorTransposeLowering::Shuffle1D);
    vector::populateVectorBroadcastLoweringPatterns(patterns);
    vector::populateVectorShapeCastLoweringPatterns(patterns);
    vector::populateVectorTransferLoweringPatterns(patterns, /*maxTransferRank=*/1);
    patterns.add<ZeroDTransferRead, ZeroDTransferWrite, StridedGatherToLoads>(ctx);
    vector::populateVectorInterleaveLoweringPatterns(patterns);
    vector::populateVectorStepLoweringPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace
