//===- SplitWideMaskedLoads.cpp - Masked loads in register-wide pieces ---===//
#include "compiler/Target/CPU/SplitWideMaskedLoads.h"

#include "llvm/Analysis/InstSimplifyFolder.h"
#include "llvm/Analysis/TargetTransformInfo.h"
#include "llvm/Analysis/VectorUtils.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Transforms/Utils/Local.h"

using namespace llvm;

namespace tdsl {

using Builder = IRBuilder<InstSimplifyFolder>;

/// Lanes [start, start + len) of the i1 vector `mask`. Constants, selects on
/// a scalar condition and logic ops are split operand by operand, so that a
/// piece false (or true) on every path folds to a constant.
static Value *maskPiece(Builder &b, Value *mask, unsigned start, unsigned len,
                        unsigned depth = 0) {
  if (depth < 8) {
    if (auto *sel = dyn_cast<SelectInst>(mask);
        sel && !sel->getCondition()->getType()->isVectorTy())
      return b.CreateSelect(
          sel->getCondition(),
          maskPiece(b, sel->getTrueValue(), start, len, depth + 1),
          maskPiece(b, sel->getFalseValue(), start, len, depth + 1));
    if (auto *op = dyn_cast<BinaryOperator>(mask);
        op && (op->getOpcode() == Instruction::And ||
               op->getOpcode() == Instruction::Or ||
               op->getOpcode() == Instruction::Xor))
      return b.CreateBinOp(op->getOpcode(),
                           maskPiece(b, op->getOperand(0), start, len, depth + 1),
                           maskPiece(b, op->getOperand(1), start, len, depth + 1));
  }
  return b.CreateShuffleVector(mask, createSequentialMask(start, len, 0));
}

/// Replaces `load` by register-wide pieces of `lanes` elements each.
static void splitLoad(IntrinsicInst *load, unsigned lanes, const DataLayout &dl) {
  auto *type = cast<FixedVectorType>(load->getType());
  Type *eltType = type->getElementType();
  Value *ptr = load->getArgOperand(0), *mask = load->getArgOperand(1),
        *passThru = load->getArgOperand(2);
  Align align = load->getParamAlign(0).valueOrOne();
  uint64_t eltBytes = dl.getTypeAllocSize(eltType);
  auto *pieceType = FixedVectorType::get(eltType, lanes);

  Builder b(load->getContext(), InstSimplifyFolder(dl));
  b.SetInsertPoint(load);
  SmallVector<Value *> pieces;
  for (unsigned start = 0; start < type->getNumElements(); start += lanes) {
    Value *m = maskPiece(b, mask, start, lanes);
    Value *passPiece =
        b.CreateShuffleVector(passThru, createSequentialMask(start, lanes, 0));
    auto *constMask = dyn_cast<Constant>(m);
    if (constMask && constMask->isNullValue()) {
      pieces.push_back(passPiece);
      continue;
    }
    Value *at = b.CreateConstInBoundsGEP1_64(eltType, ptr, start);
    Align pieceAlign = commonAlignment(align, start * eltBytes);
    Instruction *piece;
    if (constMask && constMask->isAllOnesValue())
      piece = b.CreateAlignedLoad(pieceType, at, pieceAlign);
    else
      piece = b.CreateMaskedLoad(pieceType, at, pieceAlign, m, passPiece);
    piece->copyMetadata(*load, {LLVMContext::MD_alias_scope,
                                LLVMContext::MD_noalias, LLVMContext::MD_tbaa});
    pieces.push_back(piece);
  }
  load->replaceAllUsesWith(concatenateVectors(b, pieces));
  load->eraseFromParent();
  RecursivelyDeleteTriviallyDeadInstructions(mask);
}

bool splitWideMaskedLoads(Module &module, TargetMachine &tm) {
  const DataLayout &dl = module.getDataLayout();
  bool changed = false;
  for (Function &fn : module) {
    if (fn.isDeclaration())
      continue;
    uint64_t regBits = tm.getTargetTransformInfo(fn)
                           .getRegisterBitWidth(TargetTransformInfo::RGK_FixedWidthVector)
                           .getFixedValue();
    SmallVector<std::pair<IntrinsicInst *, unsigned>> wide;
    for (Instruction &inst : instructions(fn)) {
      auto *load = dyn_cast<IntrinsicInst>(&inst);
      if (!load || load->getIntrinsicID() != Intrinsic::masked_load)
        continue;
      auto *type = dyn_cast<FixedVectorType>(load->getType());
      uint64_t eltBits = type ? dl.getTypeSizeInBits(type->getElementType()) : 0;
      if (!eltBits || regBits % eltBits)
        continue;
      unsigned lanes = regBits / eltBits;
      if (type->getNumElements() > lanes && type->getNumElements() % lanes == 0)
        wide.push_back({load, lanes});
    }
    for (auto [load, lanes] : wide)
      splitLoad(load, lanes, dl);
    changed |= !wide.empty();
  }
  return changed;
}

} // namespace tdsl
