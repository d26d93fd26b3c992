//===- CheckStaticShapes.cpp - shape checks that fail at compile time ------===//
#include "compiler/Codegen/Common/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace tdsl {
#define GEN_PASS_DEF_CHECKSTATICSHAPES
#include "compiler/Codegen/Common/Passes.h.inc"
} // namespace tdsl

using namespace mlir;

namespace {

/// Whether `op` may not run whenever its function does: under an if or a
/// while, or in a loop that may run no iteration. A check failing there is
/// a warning (the run-time check stays), as in `if true {} else { b[5] }`.
bool isConditional(Operation *op) {
  for (Operation *p = op->getParentOp(); p && !isa<FunctionOpInterface>(p);
       p = p->getParentOp()) {
    if (isa<scf::IfOp, scf::WhileOp, scf::IndexSwitchOp>(p))
      return true;
    if (auto loop = dyn_cast<scf::ForOp>(p)) {
      APInt lb, ub;
      if (!matchPattern(loop.getLowerBound(), m_ConstantInt(&lb)) ||
          !matchPattern(loop.getUpperBound(), m_ConstantInt(&ub)) ||
          !lb.slt(ub))
        return true;
    }
  }
  return false;
}

struct CheckStaticShapesPass
    : tdsl::impl::CheckStaticShapesBase<CheckStaticShapesPass> {
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
      if (!message || !matchPattern(op.getCondition(), m_One()))
        return;
      if (isConditional(op)) {
        op.emitWarning(message.getValue() + "; it stops the program if this "
                                            "line runs");
        return;
      }
      op.emitError(message.getValue());
      failedCheck = true;
    });
    if (failedCheck)
      signalPassFailure();
  }
};
} // namespace
