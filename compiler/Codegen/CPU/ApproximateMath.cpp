//===- ApproximateMath.cpp - exp, log, tanh on f32 as inline polynomials ---===//
//
// convert-math-to-libm turns `math.exp` on vector<16xf32> into sixteen
// scalar calls of expf, with the extracts and inserts around them: slow to
// run (softmax, sigmoid, cross-entropy) and slow to compile (the digits
// MLP's main held 241 such calls). MLIR's polynomial approximations keep
// the vector: range reduction and a polynomial in FMAs, the same in scalar
// and vector code, so a value does not depend on whether its loop was
// vectorized. Accuracy: see docs/language.md ("Math functions").
//
//===----------------------------------------------------------------------===//
#include "compiler/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace tdsl {
#define GEN_PASS_DEF_APPROXIMATEMATH
#include "compiler/Codegen/CPU/Passes.h.inc"
} // namespace tdsl

using namespace mlir;

namespace {
/// The functions approximated: those the language exposes whose upstream
/// approximations are within a few ulp over the whole f32 range (sin and
/// cos reduce their argument in f32 only: large arguments lose digits).
bool approximated(StringRef name) {
  name.consume_front("math.");
  return name == "exp" || name == "log" || name == "tanh";
}

/// `v` as a constant of `type` (f32 or a vector of f32).
Value constant(OpBuilder &b, Location loc, Type type, double v) {
  auto f = b.getF32FloatAttr(float(v));
  if (auto vt = dyn_cast<VectorType>(type))
    return arith::ConstantOp::create(b, loc, DenseElementsAttr::get(vt, f));
  return arith::ConstantOp::create(b, loc, f);
}

/// The approximations work on normal numbers: exp flushes results below
/// 2^-126 to zero and log reads a subnormal argument as a wrong normal one
/// (log(1e-38) gave -87.34, not -87.50). Out there the argument is moved by
/// 2^32 and the result moved back: exp(x) = exp(x + 32 ln 2) * 2^-32 (one
/// rounding, into the subnormal), log(x) = log(x * 2^32) - 32 ln 2. Returns
/// the new exp or log op, which the caller approximates.
Operation *guardSubnormals(Operation *op) {
  constexpr double ln2 = 0.69314718055994530942, twoTo32 = 4294967296.0;
  OpBuilder b(op);
  Location loc = op->getLoc();
  Value x = op->getOperand(0);
  Type type = x.getType();
  bool isExp = isa<math::ExpOp>(op);
  // exp(-87) = 1.6e-38 and 2^-126 = 1.2e-38: both still normal.
  Value edge = constant(b, loc, type, isExp ? -87.0 : 1.17549435e-38);
  Value small = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x, edge);
  Value moved = isExp
      ? arith::AddFOp::create(b, loc, x, constant(b, loc, type, 32 * ln2)).getResult()
      : arith::MulFOp::create(b, loc, x, constant(b, loc, type, twoTo32)).getResult();
  Value arg = arith::SelectOp::create(b, loc, small, moved, x);
  Operation *inner = b.clone(*op);
  inner->setOperand(0, arg);
  Value y = inner->getResult(0);
  Value back = isExp
      ? arith::MulFOp::create(b, loc, y, constant(b, loc, type, 1.0 / twoTo32)).getResult()
      : arith::SubFOp::create(b, loc, y, constant(b, loc, type, 32 * ln2)).getResult();
  Value result = arith::SelectOp::create(b, loc, small, back, y);
  // The exp polynomial converts its clamped argument to an integer: a NaN
  // argument gives poison there, which LLVM folds to anything when the
  // NaN is a constant. NaN in, NaN out, whatever the polynomial did.
  if (isExp) {
    Value nan = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, x, x);
    result = arith::SelectOp::create(b, loc, nan, x, result);
  }
  op->getResult(0).replaceAllUsesWith(result);
  op->erase();
  return inner;
}

struct ApproximateMathPass
    : tdsl::impl::ApproximateMathBase<ApproximateMathPass> {
  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation()->walk([&](Operation *op) {
      if (isa<math::ExpOp, math::LogOp, math::TanhOp>(op) &&
          getElementTypeOrSelf(op->getResult(0).getType()).isF32())
        ops.push_back(op);
    });
    if (ops.empty())
      return;
    for (Operation *&op : ops)
      if (!isa<math::TanhOp>(op))
        op = guardSubnormals(op);
    RewritePatternSet patterns(&getContext());
    populateMathPolynomialApproximationPatterns(patterns, approximated);
    // Only these ops and what their rewrites create: a greedy rewrite of
    // the whole function would also fold and simplify everything else.
    GreedyRewriteConfig config;
    config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
    config.enableFolding(false);
    if (failed(applyOpPatternsGreedily(ops, std::move(patterns), config)))
      signalPassFailure();
  }
};
} // namespace
