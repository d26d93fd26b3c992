//===- Combine.cpp - How a reduction combines -------------------------------===//
#include "compiler/Codegen/Common/Combine.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;

std::optional<unsigned> tdsl::reducedOutput(linalg::GenericOp op) {
  std::optional<unsigned> reduced;
  for (OpOperand &init : op.getDpsInitsMutable()) {
    AffineMap map = op.getMatchingIndexingMap(&init);
    if (map.isPermutation())
      continue;
    if (reduced)
      return std::nullopt;
    reduced = init.getOperandNumber() - op.getNumDpsInputs();
  }
  return reduced;
}

Operation *tdsl::combinerOp(linalg::GenericOp op) {
  std::optional<unsigned> r = reducedOutput(op);
  if (!r)
    return nullptr;
  Block &body = op.getRegion().front();
  Value acc = op.getMatchingBlockArgument(op.getDpsInitOperand(*r));
  Operation *yielded = body.getTerminator()->getOperand(*r).getDefiningOp();
  if (!yielded || yielded->getNumOperands() != 2 || !acc.hasOneUse() ||
      !llvm::is_contained(yielded->getOperands(), acc) ||
      !yielded->getResult(0).hasOneUse())
    return nullptr;
  if (!isa<arith::AddFOp, arith::AddIOp, arith::MulFOp, arith::MulIOp,
           arith::MaximumFOp, arith::MinimumFOp, arith::MaxSIOp, arith::MinSIOp>(
          yielded))
    return nullptr; // unsigned and others: left as they are
  return yielded;
}

tdsl::Combine tdsl::combineKindOf(Operation *combiner) {
  if (isa<arith::AddFOp, arith::AddIOp>(combiner))
    return Combine::Add;
  if (isa<arith::MulFOp, arith::MulIOp>(combiner))
    return Combine::Mul;
  if (isa<arith::MaximumFOp, arith::MaxSIOp>(combiner))
    return Combine::Max;
  return Combine::Min;
}

TypedAttr tdsl::identityOf(Type type, Combine kind) {
  if (auto f = dyn_cast<FloatType>(type)) {
    const llvm::fltSemantics &sem = f.getFloatSemantics();
    switch (kind) {
    case Combine::Add: return FloatAttr::get(f, APFloat::getZero(sem));
    case Combine::Mul: return FloatAttr::get(f, APFloat::getOne(sem));
    case Combine::Max: return FloatAttr::get(f, APFloat::getInf(sem, /*Negative=*/true));
    case Combine::Min: return FloatAttr::get(f, APFloat::getInf(sem));
    }
  }
  unsigned bits = type.getIntOrFloatBitWidth();
  switch (kind) {
  case Combine::Add: return IntegerAttr::get(type, APInt(bits, 0));
  case Combine::Mul: return IntegerAttr::get(type, APInt(bits, 1));
  case Combine::Max: return IntegerAttr::get(type, APInt::getSignedMinValue(bits));
  case Combine::Min: return IntegerAttr::get(type, APInt::getSignedMaxValue(bits));
  }
  llvm_unreachable("unknown combiner");
}
