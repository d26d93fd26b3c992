//===- PrepareInPlaceUpdates.cpp - offset updates bufferized in place -----===//
#include "compiler/Codegen/Common/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/LoopLikeInterface.h"

namespace tdsl {
#define GEN_PASS_DEF_PREPAREINPLACEUPDATES
#include "compiler/Codegen/Common/Passes.h.inc"
} // namespace tdsl

using namespace mlir;

namespace {
/// Gives every use but the first of a shared tensor.empty its own copy, made
/// just before the user (empty-tensor elimination rewrites one empty per
/// insert_slice it feeds).
void unshareEmpties(func::FuncOp func, RewriterBase &rewriter) {
  SmallVector<tensor::EmptyOp> shared;
  func.walk([&](tensor::EmptyOp op) {
    if (!op->hasOneUse() && !op->use_empty())
      shared.push_back(op);
  });
  for (tensor::EmptyOp op : shared) {
    SmallVector<OpOperand *> uses =
        llvm::map_to_vector(op->getUses(), [](OpOperand &u) { return &u; });
    for (OpOperand *use : llvm::drop_begin(uses)) {
      Operation *user = use->getOwner();
      // The sizes must dominate the new op: they dominate the old one, and
      // the user is in or below its block.
      rewriter.setInsertionPoint(
          op->getBlock()->findAncestorOpInBlock(*user));
      Operation *copy = rewriter.clone(*op);
      rewriter.modifyOpInPlace(user, [&] { use->set(copy->getResult(0)); });
    }
  }
}

/// Reads of an insert_slice's source after the insert read the same slice
/// of the updated tensor.
void readUpdatedTensors(func::FuncOp func, RewriterBase &rewriter) {
  SmallVector<tensor::InsertSliceOp> inserts;
  func.walk([&](tensor::InsertSliceOp op) { inserts.push_back(op); });
  for (tensor::InsertSliceOp insert : inserts) {
    Value source = insert.getSource();
    Block *block = insert->getBlock();
    SmallVector<OpOperand *> later;
    for (OpOperand &use : source.getUses()) {
      Operation *ancestor = block->findAncestorOpInBlock(*use.getOwner());
      if (ancestor && insert->isBeforeInBlock(ancestor))
        later.push_back(&use);
    }
    if (later.empty())
      continue;
    rewriter.setInsertionPointAfter(insert);
    auto slice = tensor::ExtractSliceOp::create(
        rewriter, insert.getLoc(), insert.getSourceType(), insert.getResult(),
        insert.getMixedOffsets(), insert.getMixedSizes(),
        insert.getMixedStrides());
    for (OpOperand *use : later)
      rewriter.modifyOpInPlace(use->getOwner(),
                               [&] { use->set(slice.getResult()); });
  }
}

/// Whether `dest`, which `user` updates, is defined outside a loop around
/// `user`: every trip then reads its original value again.
bool definedOutsideLoop(Value dest, Operation *user) {
  Operation *scope = dest.getParentBlock()->getParentOp();
  for (Operation *p = user->getParentOp(); p && p != scope; p = p->getParentOp())
    if (isa<LoopLikeOpInterface>(p))
      return true;
  return false;
}

/// An insert_slice in a loop into a tensor defined outside it updates a copy
/// made in the loop. Empty-tensor elimination would otherwise let the op
/// computing the source write into the shared tensor itself (MLIR 22 does
/// not see that the next trip reads it), and each trip saw the earlier
/// trips' updates.
void copyLoopInvariantDestinations(func::FuncOp func, RewriterBase &rewriter) {
  SmallVector<tensor::InsertSliceOp> inserts;
  func.walk([&](tensor::InsertSliceOp op) {
    if (definedOutsideLoop(op.getDest(), op))
      inserts.push_back(op);
  });
  for (tensor::InsertSliceOp insert : inserts) {
    rewriter.setInsertionPoint(insert);
    Value dest = insert.getDest();
    SmallVector<Value> sizes;
    for (int64_t d = 0; d < insert.getDestType().getRank(); ++d)
      if (insert.getDestType().isDynamicDim(d))
        sizes.push_back(tensor::DimOp::create(rewriter, insert.getLoc(), dest, d));
    Value copy = bufferization::AllocTensorOp::create(
        rewriter, insert.getLoc(), insert.getDestType(), sizes, dest);
    rewriter.modifyOpInPlace(insert, [&] { insert.getDestMutable().set(copy); });
  }
}

struct PrepareInPlaceUpdatesPass
    : tdsl::impl::PrepareInPlaceUpdatesBase<PrepareInPlaceUpdatesPass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    unshareEmpties(getOperation(), rewriter);
    readUpdatedTensors(getOperation(), rewriter);
    copyLoopInvariantDestinations(getOperation(), rewriter);
  }
};
} // namespace
