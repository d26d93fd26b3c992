//===- Simplify.cpp - Fold and canonicalize tdsl ops, and only them ---------===//
//
// Upstream `canonicalize` would also rewrite the scf and tensor ops around
// the tdsl ops (and, in MLIR 22, change the types of loop-carried tensors:
// see Pipelines.cpp). A greedy rewrite would also erase unused ops that may
// stop the program (a load of a missing file, an integer division by
// zero), whose errors a TDSL program promises. This pass folds each tdsl op
// once and applies the tdsl ops' own patterns, and erases only what a fold
// replaced (an identity, which cannot fail).
//
//===----------------------------------------------------------------------===//
#include "dialects/TDSL/Transforms/Passes.h"
#include "dialects/TDSL/IR/TDSLDialect.h"
#include "dialects/TDSL/IR/TDSLOps.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Rewrite/FrozenRewritePatternSet.h"
#include "mlir/Rewrite/PatternApplicator.h"

namespace tdsl {
#define GEN_PASS_DEF_SIMPLIFY
#include "dialects/TDSL/Transforms/Passes.h.inc"
} // namespace tdsl

using namespace mlir;

namespace {
struct SimplifyPass : tdsl::impl::SimplifyBase<SimplifyPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    auto *dialect = ctx->getLoadedDialect<tdsl::ir::TDSLDialect>();
    if (!dialect)
      return; // no tdsl op to simplify
    RewritePatternSet patterns(ctx);
    for (RegisteredOperationName op : ctx->getRegisteredOperations())
      if (&op.getDialect() == dialect)
        op.getCanonicalizationPatterns(patterns, ctx);
    FrozenRewritePatternSet frozen(std::move(patterns));
    PatternApplicator applicator(frozen);
    applicator.applyDefaultCostModel();
    PatternRewriter rewriter(ctx);

    // Operands before users, so that a fold sees its operands' folds.
    SmallVector<Operation *> ops;
    getOperation().walk([&](Operation *op) {
      if (op->getDialect() == dialect)
        ops.push_back(op);
    });
    // A pattern changes an op in place (a cast of an exact cast, a fill
    // operand): the op may then fold (a cast to its input's type).
    for (Operation *op : ops) {
      for (int round = 0; round < 4; ++round) {
        SmallVector<OpFoldResult> folded;
        if (op->getNumResults() == 1 && succeeded(op->fold(folded)) &&
            folded.size() == 1) {
          if (auto v = dyn_cast<Value>(folded.front())) {
            op->getResult(0).replaceAllUsesWith(v);
            op->erase();
            break;
          }
        }
        rewriter.setInsertionPoint(op);
        if (failed(applicator.matchAndRewrite(op, rewriter)))
          break;
      }
    }
  }
};
} // namespace
