//===- LowerVector.cpp - n-D vector ops to LLVM-friendly 1-D ops -----------===//
#include "compiler/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
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
struct LowerVectorPass : ::tdsl::impl::LowerVectorBase<LowerVectorPass> {
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
    vector::populateVectorInterleaveLoweringPatterns(patterns);
    vector::populateVectorStepLoweringPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace
