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
/// Whether `use` could take the producer's body: a generic in the
/// producer's block (a producer outside the consumer's loop would run on
/// every trip) that reads each produced element once (its map for the
/// operand uses all of its loops; a matmul reads A[i, k] for every j).
bool readsOnceInBlock(OpOperand &use, Operation *producer) {
  auto consumer = dyn_cast<linalg::GenericOp>(use.getOwner());
  if (!consumer || consumer->getBlock() != producer->getBlock())
    return false;
  AffineMap map = consumer.getMatchingIndexingMap(&use);
  for (unsigned d = 0; d < map.getNumDims(); ++d)
    if (!map.isFunctionOfDim(d))
      return false;
  return true;
}

enum class Fusion { None, Recompute, Preserve };

/// How to fuse the producer of `operand` into its consumer.
/// - Recompute: every use of the producer is a consumer like this one, so
///   each will take the body and the producer disappears (upstream's
///   fusion; the body runs once per consumer, never stored).
/// - Preserve: the value is needed anyway (written into a tensor, returned,
///   read by a contraction), every other use comes after the consumer, and
///   the consumer has only parallel loops and reads all of the value: the
///   fused op also returns it and those uses take it there.
/// - None: the value is stored and also used before the consumer (a
///   stencil's sweep written into the tensor the next sweep reads): fusing
///   would run the body twice and have the consumer read inputs it may
///   overwrite, so the consumer reads the stored value.
Fusion fusionOf(OpOperand *operand) {
  auto consumer = dyn_cast<linalg::GenericOp>(operand->getOwner());
  Operation *producer = operand->get().getDefiningOp();
  if (!consumer || !producer || !readsOnceInBlock(*operand, producer))
    return Fusion::None;
  bool stored = false, usedBefore = false;
  Block *block = consumer->getBlock();
  for (Value result : producer->getResults())
    for (OpOperand &use : result.getUses()) {
      if (use.getOwner() == consumer.getOperation())
        continue;
      Operation *ancestor = block->findAncestorOpInBlock(*use.getOwner());
      usedBefore |= !ancestor || !consumer->isBeforeInBlock(ancestor);
      stored |= !readsOnceInBlock(use, producer);
    }
  if (!stored)
    return Fusion::Recompute;
  // The fused op replaces one operand; another one reading the producer
  // would keep it alive.
  bool oneOperand = llvm::count_if(consumer->getOperands(), [&](Value v) {
                      return v.getDefiningOp() == producer;
                    }) == 1;
  // The fused op stores the value at the consumer's iterations: they must
  // cover it (a permutation, not a column (d0) -> (d0, 0) of it).
  if (usedBefore || !oneOperand ||
      !consumer.getMatchingIndexingMap(operand).isPermutation() ||
      consumer.getNumLoops() != consumer.getNumParallelLoops())
    return Fusion::None;
  return Fusion::Preserve;
}

/// Whether `producer`'s results have more than one use.
bool hasSeveralUses(Operation *producer) {
  unsigned uses = 0;
  for (Value r : producer->getResults())
    uses += std::distance(r.use_begin(), r.use_end());
  return uses > 1;
}

struct FuseElementwiseOps : OpRewritePattern<linalg::GenericOp> {
  /// `budget`: how many more producers with several uses may be copied
  /// into a consumer. Each copy is a new op that can be copied in turn, so
  /// a DAG whose values are read twice at every level (a gradient of a
  /// gradient) made one fusion per path: 2500 fusions and 14 s for 51 ops.
  FuseElementwiseOps(MLIRContext *ctx, int64_t &budget)
      : OpRewritePattern(ctx), budget(budget) {}

  LogicalResult matchAndRewrite(linalg::GenericOp consumer,
                                PatternRewriter &rewriter) const override {
    for (OpOperand &operand : consumer->getOpOperands()) {
      if (!linalg::areElementwiseOpsFusable(&operand))
        continue;
      Fusion how = fusionOf(&operand);
      if (how == Fusion::None)
        continue;
      Operation *producer = operand.get().getDefiningOp();
      if (how == Fusion::Recompute && hasSeveralUses(producer)) {
        if (budget <= 0)
          continue;
        --budget;
      }
      rewriter.setInsertionPoint(consumer);
      FailureOr<linalg::ElementwiseOpFusionResult> fused =
          linalg::fuseElementwiseOps(rewriter, &operand);
      if (failed(fused))
        return rewriter.notifyMatchFailure(consumer, "fusion failed");
      for (auto [original, replacement] : fused->replacements) {
        // Recompute leaves the producer to its other consumers.
        if (how == Fusion::Recompute && original.getDefiningOp() == producer)
          continue;
        rewriter.replaceUsesWithIf(original, replacement, [&](OpOperand &use) {
          return use.getOwner() != consumer.getOperation() &&
                 use.getOwner() != fused->fusedOp;
        });
      }
      rewriter.eraseOp(consumer);
      if (producer->use_empty())
        rewriter.eraseOp(producer);
      return success();
    }
    return failure();
  }

  int64_t &budget;
};

struct FuseElementwisePass
    : tdsl::impl::FuseElementwiseBase<FuseElementwisePass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    RewritePatternSet patterns(ctx);
    // Typical programs copy a producer into several consumers a few times
    // per op (the digits CNN: 55 times for its 300 ops). Each copy costs
    // about 2 ms here: the gradient of 16 layers of `nn.gelu(h @ w) + h`
    // (511 ops) spent 3.3 s on 2060 copies at 4 per op, which left 107 ops
    // instead of 154; the examples and benchmarks fuse the same at 1 per op.
    int64_t ops = 0;
    getOperation().walk([&](linalg::GenericOp) { ++ops; });
    int64_t budget = ops + 16;
    patterns.add<FuseElementwiseOps>(ctx, budget);
    // Upstream's companions (constants and fills folded into bodies, outs
    // that are only written): its own fusion pattern is turned off.
    linalg::populateElementwiseOpsFusionPatterns(
        patterns, [](OpOperand *) { return false; });
    linalg::GenericOp::getCanonicalizationPatterns(patterns, ctx);
    tensor::EmptyOp::getCanonicalizationPatterns(patterns, ctx);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace
