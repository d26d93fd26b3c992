//===- ExpandBF16.cpp - bf16 arithmetic through f32, rounding in integers -===//
//
// Without AVX512-BF16, LLVM turns each f32 -> bf16 rounding into a call of
// compiler-rt's __truncsfbf2, which the JIT and the executables found
// nowhere (the runtime now has one, for what LLVM narrows back to bf16 on
// its own). Computing in f32 and rounding with integer ops needs no call
// per element and vectorizes.
//
//===----------------------------------------------------------------------===//
#include "compiler/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"

namespace tdsl {
#define GEN_PASS_DEF_EXPANDBF16
#include "compiler/Codegen/CPU/Passes.h.inc"
} // namespace tdsl

using namespace mlir;

namespace {
bool isBF16Like(Type type) { return getElementTypeOrSelf(type).isBF16(); }

/// `type` (a scalar or a vector) with elements of `elem`.
Type withElements(Type type, Type elem) {
  if (auto vt = dyn_cast<VectorType>(type))
    return vt.clone(elem);
  return elem;
}

/// Ops that move bf16 values without computing on them.
bool keepsBF16(Operation *op) {
  return isa<arith::ExtFOp, arith::TruncFOp, arith::BitcastOp,
             arith::ConstantOp, arith::SelectOp>(op);
}

/// `op` computed in f32: its bf16 operands widened, its bf16 results
/// rounded back.
void promote(OpBuilder &b, Operation *op) {
  b.setInsertionPoint(op);
  Type f32 = b.getF32Type();
  OperationState state(op->getLoc(), op->getName());
  for (Value v : op->getOperands())
    state.operands.push_back(
        isBF16Like(v.getType())
            ? (Value)arith::ExtFOp::create(b, op->getLoc(),
                                           withElements(v.getType(), f32), v)
            : v);
  for (Type t : op->getResultTypes())
    state.types.push_back(isBF16Like(t) ? withElements(t, f32) : t);
  state.attributes = op->getAttrDictionary();
  Operation *wide = b.create(state);
  for (auto [old, now] : llvm::zip(op->getResults(), wide->getResults()))
    old.replaceAllUsesWith(
        isBF16Like(old.getType())
            ? (Value)arith::TruncFOp::create(b, op->getLoc(), old.getType(), now)
            : now);
  op->erase();
}

/// `arith.truncf` of f32 to bf16 as integer ops: add 0x7fff
/// plus the bit that becomes the last kept one (ties go to even), keep the
/// high 16 bits; a NaN gets the quiet bit instead, so no payload rounds to
/// infinity.
void expandTruncF(OpBuilder &b, arith::TruncFOp op) {
  b.setInsertionPoint(op);
  Location loc = op.getLoc();
  Type type = op.getIn().getType();
  Value x = op.getIn();
  Type i32 = withElements(type, b.getI32Type());
  Type i16 = withElements(type, b.getI16Type());
  auto c = [&](int32_t v) -> Value {
    auto attr = b.getI32IntegerAttr(v);
    if (auto vt = dyn_cast<VectorType>(i32))
      return arith::ConstantOp::create(b, loc, DenseElementsAttr::get(vt, attr));
    return arith::ConstantOp::create(b, loc, attr);
  };
  Value bits = arith::BitcastOp::create(b, loc, i32, x);
  Value kept = arith::AndIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, bits, c(16)), c(1));
  Value rounded = arith::AddIOp::create(
      b, loc, bits, arith::AddIOp::create(b, loc, kept, c(0x7fff)));
  Value isNaN = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, x, x);
  Value quiet = arith::OrIOp::create(b, loc, bits, c(0x400000));
  Value chosen = arith::SelectOp::create(b, loc, isNaN, quiet, rounded);
  Value high = arith::TruncIOp::create(
      b, loc, i16, arith::ShRUIOp::create(b, loc, chosen, c(16)));
  op.replaceAllUsesWith(
      arith::BitcastOp::create(b, loc, op.getType(), high).getResult());
  op.erase();
}

struct ExpandBF16Pass : tdsl::impl::ExpandBF16Base<ExpandBF16Pass> {
  void runOnOperation() override {
    OpBuilder b(&getContext());
    SmallVector<Operation *> compute;
    getOperation().walk([&](Operation *op) {
      if (!isa<arith::ArithDialect, math::MathDialect>(op->getDialect()) ||
          keepsBF16(op))
        return;
      if (llvm::any_of(op->getOperandTypes(), isBF16Like) ||
          llvm::any_of(op->getResultTypes(), isBF16Like))
        compute.push_back(op);
    });
    for (Operation *op : compute)
      promote(b, op);
    SmallVector<arith::TruncFOp> truncs;
    // From f64, convert-tdsl-to-linalg rounds to f32 first (to odd).
    getOperation().walk([&](arith::TruncFOp op) {
      if (isBF16Like(op.getType()) &&
          getElementTypeOrSelf(op.getIn().getType()).isF32())
        truncs.push_back(op);
    });
    for (arith::TruncFOp op : truncs)
      expandTruncF(b, op);
  }
};
} // namespace
