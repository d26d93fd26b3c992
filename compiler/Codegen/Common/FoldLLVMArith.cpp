//===- FoldLLVMArith.cpp - integer arithmetic on constants folded ----------===//
//
// `llvm.add`, `llvm.sub` and `llvm.mul` have no folders, and the
// conversions to the LLVM dialect compute every address as a sum of index
// times stride: at constant indices (unrolled vector loads and stores) that
// is a chain of constants that survives to the translation and costs LLVM
// time in every pass until InstCombine folds it.
//
//===----------------------------------------------------------------------===//
#include "compiler/Codegen/Common/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace tdsl {
#define GEN_PASS_DEF_FOLDLLVMARITH
#include "compiler/Codegen/Common/Passes.h.inc"
} // namespace tdsl

using namespace mlir;

namespace {

std::optional<APInt> constantOf(Value v, unsigned width) {
  APInt value;
  if (!matchPattern(v, m_ConstantInt(&value)))
    return std::nullopt;
  return value.sextOrTrunc(width);
}

/// `lhs op rhs` of a scalar integer type: a constant where both are
/// constants (wrapping: an overflow flag made the result poison, of which a
/// constant is a refinement), an operand where the other is the identity.
template <typename OpTy>
struct FoldArith : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;

  LogicalResult matchAndRewrite(OpTy op, PatternRewriter &rw) const override {
    auto type = dyn_cast<IntegerType>(op.getType());
    if (!type)
      return failure();
    unsigned width = type.getWidth();
    std::optional<APInt> lhs = constantOf(op.getLhs(), width);
    std::optional<APInt> rhs = constantOf(op.getRhs(), width);
    auto constant = [&](const APInt &v) {
      rw.replaceOpWithNewOp<LLVM::ConstantOp>(op, type, rw.getIntegerAttr(type, v));
      return success();
    };
    if (lhs && rhs) {
      if constexpr (std::is_same_v<OpTy, LLVM::AddOp>)
        return constant(*lhs + *rhs);
      else if constexpr (std::is_same_v<OpTy, LLVM::SubOp>)
        return constant(*lhs - *rhs);
      else
        return constant(*lhs * *rhs);
    }
    if (rhs && rhs->isZero()) {
      if constexpr (std::is_same_v<OpTy, LLVM::MulOp>)
        return constant(*rhs);
      rw.replaceOp(op, op.getLhs());
      return success();
    }
    if constexpr (std::is_same_v<OpTy, LLVM::AddOp>) {
      if (lhs && lhs->isZero()) {
        rw.replaceOp(op, op.getRhs());
        return success();
      }
    }
    if constexpr (std::is_same_v<OpTy, LLVM::MulOp>) {
      if (lhs && lhs->isZero())
        return constant(*lhs);
      if (rhs && rhs->isOne()) {
        rw.replaceOp(op, op.getLhs());
        return success();
      }
      if (lhs && lhs->isOne()) {
        rw.replaceOp(op, op.getRhs());
        return success();
      }
    }
    return failure();
  }
};

struct FoldLLVMArithPass : tdsl::impl::FoldLLVMArithBase<FoldLLVMArithPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FoldArith<LLVM::AddOp>, FoldArith<LLVM::SubOp>,
                 FoldArith<LLVM::MulOp>>(&getContext());
    GreedyRewriteConfig config;
    config.setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
    // What is left unfolded after the iteration limit is still correct.
    (void)applyPatternsGreedily(getOperation(), std::move(patterns), config);
  }
};

} // namespace
