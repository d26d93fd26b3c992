//===- FuseElementwise.cpp - producer/consumer fusion without recompute ----===//
#include "compiler/Codegen/Common/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace tdsl {
#define GEN_PASS_DEF_FUSEELEMENTWISE
#include "compiler/Codegen/Common/Passes.h.inc"
} // namespace tdsl

using namespace mlir;

namespace {
struct FuseElementwisePass
    : tdsl::impl::FuseElementwiseBase<FuseElementwisePass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    RewritePatternSet patterns(ctx);
    linalg::populateElementwiseOpsFusionPatterns(
        patterns, [](OpOperand *operand) {
          auto consumer = dyn_cast<linalg::LinalgOp>(operand->getOwner());
          Operation *producer = operand->get().getDefiningOp();
          // A producer outside the consumer's loop would be recomputed on
          // every trip.
          if (!consumer || !producer ||
              producer->getBlock() != consumer->getBlock())
            return false;
          AffineMap map = consumer.getMatchingIndexingMap(operand);
          for (unsigned d = 0; d < map.getNumDims(); ++d)
            if (!map.isFunctionOfDim(d))
              return false;
          return true;
        });
    linalg::GenericOp::getCanonicalizationPatterns(patterns, ctx);
    tensor::EmptyOp::getCanonicalizationPatterns(patterns, ctx);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace
