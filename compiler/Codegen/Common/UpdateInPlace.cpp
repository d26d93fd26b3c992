//===- UpdateInPlace.cpp - element-wise updates computed into their region -===//
#include "compiler/Codegen/Common/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

namespace tdsl {
#define GEN_PASS_DEF_UPDATEINPLACE
#include "compiler/Codegen/Common/Passes.h.inc"
} // namespace tdsl

using namespace mlir;

namespace {
bool sameRegion(tensor::ExtractSliceOp read, tensor::InsertSliceOp write) {
  return read.getSource() == write.getDest() &&
         read.getType() == write.getSourceType() &&
         read.getMixedOffsets() == write.getMixedOffsets() &&
         read.getMixedSizes() == write.getMixedSizes() &&
         read.getMixedStrides() == write.getMixedStrides();
}

/// The region an output of `op` is inserted into, when the op computes it
/// into a tensor.empty and an input reads that region element for element:
/// the input's operand numbers, or none.
SmallVector<unsigned> regionInputs(linalg::GenericOp op, OpOperand &init) {
  if (!init.get().getDefiningOp<tensor::EmptyOp>())
    return {};
  OpResult result = op.getTiedOpResult(&init);
  tensor::InsertSliceOp write;
  for (Operation *user : result.getUsers())
    if (auto insert = dyn_cast<tensor::InsertSliceOp>(user))
      if (insert.getSource() == result)
        write = insert;
  if (!write)
    return {};
  // Each element written once, by the iteration that read it.
  AffineMap outMap = op.getMatchingIndexingMap(&init);
  if (!outMap.isPermutation())
    return {};
  SmallVector<unsigned> inputs;
  for (OpOperand *input : op.getDpsInputOperands()) {
    auto read = input->get().getDefiningOp<tensor::ExtractSliceOp>();
    if (read && sameRegion(read, write) &&
        op.getMatchingIndexingMap(input) == outMap &&
        (inputs.empty() ||
         op->getOperand(inputs.front()) == input->get()))
      inputs.push_back(input->getOperandNumber());
  }
  return inputs;
}

/// Whether `op` may compute into `whole` in place: a tensor the loop that
/// holds `op` carries (an scf.for's iter_arg) or one that a linalg op
/// computes in `op`'s region, read by nothing but `op` (with `map` only) and
/// slices of it that only `op` reads. A function's argument belongs to its
/// caller; a constant cannot be written; a tensor from outside the loop
/// (loop-invariant) would be copied at every iteration; a slice is a view
/// that other inputs may read elsewhere (prepare-in-place-updates' case).
bool writableHere(linalg::GenericOp op, Value whole, AffineMap map) {
  auto arg = dyn_cast<BlockArgument>(whole);
  bool carried = arg && isa<scf::ForOp>(arg.getOwner()->getParentOp()) &&
                 arg.getArgNumber() > 0;
  bool computed = whole.getDefiningOp<linalg::LinalgOp>() != nullptr;
  if (!(carried || computed) || whole.getParentRegion() != op->getParentRegion())
    return false;
  for (OpOperand *input : op.getDpsInputOperands())
    if (input->get() == whole && op.getMatchingIndexingMap(input) != map)
      return false;
  for (Operation *user : whole.getUsers()) {
    if (user == op)
      continue;
    auto slice = dyn_cast<tensor::ExtractSliceOp>(user);
    if (!slice || !llvm::all_of(slice->getUsers(), [&](Operation *u) { return u == op; }))
      return false;
  }
  return true;
}

/// The inputs of `op` that read all of a tensor element for element, as
/// output `init` (a tensor.empty of its type) writes it, when `op` may
/// compute into that tensor (writableHere): a loop-carried update such as
/// Floyd-Warshall's `p[i, j] = min(p[i, j], p[i, k] + p[k, j])`. Their
/// operand numbers, or none.
SmallVector<unsigned> wholeInputs(linalg::GenericOp op, OpOperand &init) {
  if (!init.get().getDefiningOp<tensor::EmptyOp>())
    return {};
  AffineMap outMap = op.getMatchingIndexingMap(&init);
  if (!outMap.isPermutation())
    return {};
  for (OpOperand *candidate : op.getDpsInputOperands()) {
    Value whole = candidate->get();
    if (whole.getType() != init.get().getType() ||
        op.getMatchingIndexingMap(candidate) != outMap || !writableHere(op, whole, outMap))
      continue;
    SmallVector<unsigned> inputs;
    for (OpOperand *input : op.getDpsInputOperands())
      if (input->get() == whole)
        inputs.push_back(input->getOperandNumber());
    return inputs;
  }
  return {};
}

/// Each input of `op` that is a slice of `whole` becomes a copy of that
/// slice (one per slice), taken before `op` overwrites `whole`.
void copySlicesOf(RewriterBase &rewriter, linalg::GenericOp op, Value whole) {
  llvm::DenseMap<Value, Value> copies;
  for (OpOperand *input : op.getDpsInputOperands()) {
    auto slice = input->get().getDefiningOp<tensor::ExtractSliceOp>();
    if (!slice || slice.getSource() != whole)
      continue;
    Value &copy = copies[slice.getResult()];
    if (!copy) {
      rewriter.setInsertionPoint(op);
      copy = bufferization::AllocTensorOp::create(
          rewriter, slice.getLoc(), slice.getType(), ValueRange{}, slice.getResult());
    }
    rewriter.modifyOpInPlace(op, [&] { input->set(copy); });
  }
}

/// Rewrites `op` so output `init` starts as the region its inputs `reads`
/// (operand numbers) read, and the body reads it there.
void updateInPlace(RewriterBase &rewriter, linalg::GenericOp op,
                   OpOperand &init, ArrayRef<unsigned> reads) {
  Value region = op->getOperand(reads.front());
  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  for (OpOperand *input : op.getDpsInputOperands())
    if (!llvm::is_contained(reads, input->getOperandNumber())) {
      inputs.push_back(input->get());
      maps.push_back(op.getMatchingIndexingMap(input));
    }
  SmallVector<Value> outputs;
  for (OpOperand &output : op.getDpsInitsMutable()) {
    outputs.push_back(&output == &init ? region : output.get());
    maps.push_back(op.getMatchingIndexingMap(&output));
  }
  rewriter.setInsertionPoint(op);
  auto updated = linalg::GenericOp::create(
      rewriter, op.getLoc(), op->getResultTypes(), inputs, outputs, maps,
      op.getIteratorTypesArray());
  updated->setDiscardableAttrs(op->getDiscardableAttrDictionary());
  rewriter.inlineRegionBefore(op.getRegion(), updated.getRegion(),
                              updated.getRegion().begin());
  Block &body = updated.getRegion().front();
  BlockArgument out = body.getArgument(init.getOperandNumber());
  for (unsigned n : llvm::reverse(reads)) {
    rewriter.replaceAllUsesWith(body.getArgument(n), out);
    body.eraseArgument(n);
  }
  rewriter.replaceOp(op, updated->getResults());
}

struct UpdateInPlacePass : tdsl::impl::UpdateInPlaceBase<UpdateInPlacePass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    SmallVector<linalg::GenericOp> ops;
    getOperation().walk([&](linalg::GenericOp op) {
      if (op.getNumLoops() == op.getNumParallelLoops() &&
          op.hasPureTensorSemantics())
        ops.push_back(op);
    });
    for (linalg::GenericOp op : ops)
      for (OpOperand &init : op.getDpsInitsMutable()) {
        SmallVector<unsigned> reads = regionInputs(op, init);
        if (reads.empty()) {
          reads = wholeInputs(op, init);
          if (!reads.empty())
            copySlicesOf(rewriter, op, op->getOperand(reads.front()));
        }
        if (!reads.empty()) {
          updateInPlace(rewriter, op, init, reads);
          break; // `op` is gone; one region per op
        }
      }
  }
};
} // namespace
