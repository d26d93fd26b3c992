//===- CheckStaticShapes.cpp - shape checks that fail at compile time ------===//
#include "compiler/Codegen/Common/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace tdsl {
#define GEN_PASS_DEF_CHECKSTATICSHAPES
#include "compiler/Codegen/Common/Passes.h.inc"
} // namespace tdsl

using namespace mlir;

namespace {
struct CheckStaticShapesPass
    : ::tdsl::impl::CheckStaticShapesBase<CheckStaticShapesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    // Scalar and shape arithmetic only; folders do the rest.
    SmallVector<Operation *> checkOps;
    module.walk([&](Operation *op) {
      if (isa<arith::ArithDialect, tensor::TensorDialect>(op->getDialect()))
        checkOps.push_back(op);
    });
    RewritePatternSet patterns(ctx);
    tensor::DimOp::getCanonicalizationPatterns(patterns, ctx);
    // dim of a linalg op / tensor.empty result -> the size it was made with.
    memref::populateResolveRankedShapedTypeResultDimsPatterns(patterns);
    GreedyRewriteConfig config;
    config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
    (void)applyOpPatternsGreedily(checkOps, std::move(patterns), config);

    bool failedCheck = false;
    module.walk([&](scf::IfOp op) {
      auto message = op->getAttrOfType<StringAttr>("tdsl.check");
      if (message && matchPattern(op.getCondition(), m_One())) {
        op.emitError(message.getValue());
        failedCheck = true;
      }
    });
    if (failedCheck)
      signalPassFailure();
  }
};
} // namespace
