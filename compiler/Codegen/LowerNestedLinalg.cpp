//===- LowerNestedLinalg.cpp - nested linalg.generic ops become loops --------===//
#include "compiler/Codegen/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"

namespace tdsl {
#define GEN_PASS_DEF_LOWERNESTEDLINALG
#include "compiler/Codegen/Passes.h.inc"
} // namespace tdsl

using namespace mlir;

namespace {

/// The indices an affine map (dims and constants) selects from `ivs`.
SmallVector<Value> apply(OpBuilder &b, Location loc, AffineMap map,
                         ArrayRef<Value> ivs) {
  SmallVector<Value> out;
  for (AffineExpr e : map.getResults()) {
    if (auto c = dyn_cast<AffineConstantExpr>(e))
      out.push_back(arith::ConstantIndexOp::create(b, loc, c.getValue()));
    else
      out.push_back(ivs[cast<AffineDimExpr>(e).getPosition()]);
  }
  return out;
}

LogicalResult lowerToLoops(linalg::GenericOp op) {
  if (op.getNumDpsInits() != 1 || !op.hasPureTensorSemantics())
    return op.emitOpError("expected one tensor output");
  OpBuilder b(op);
  Location loc = op.getLoc();
  SmallVector<Range> ranges =
      cast<linalg::LinalgOp>(op.getOperation()).createLoopRanges(b, loc);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  OpOperand *init = op.getDpsInitOperand(0);
  AffineMap outMap = op.getMatchingIndexingMap(init);
  SmallVector<Value> ivs;
  SmallVector<scf::ForOp> loops;
  Value carried = init->get();
  for (Range &r : ranges) {
    Value ub = getValueOrCreateConstantIndexOp(b, loc, r.size);
    auto loop = scf::ForOp::create(b, loc, zero, ub, one, ValueRange{carried});
    if (!loops.empty())
      scf::YieldOp::create(b, loc, loop.getResults());
    loops.push_back(loop);
    ivs.push_back(loop.getInductionVar());
    carried = loop.getRegionIterArgs()[0];
    b.setInsertionPointToStart(loop.getBody());
  }
  Block &body = op.getRegion().front();
  IRMapping map;
  for (OpOperand *in : op.getDpsInputOperands()) {
    Value v = in->get();
    if (isa<RankedTensorType>(v.getType()))
      v = tensor::ExtractOp::create(b, loc, v,
                                    apply(b, loc, op.getMatchingIndexingMap(in), ivs));
    map.map(op.getMatchingBlockArgument(in), v);
  }
  SmallVector<Value> outIdx = apply(b, loc, outMap, ivs);
  map.map(op.getMatchingBlockArgument(init),
          tensor::ExtractOp::create(b, loc, carried, outIdx));
  for (Operation &inner : body.without_terminator()) {
    if (auto index = dyn_cast<linalg::IndexOp>(inner)) {
      map.map(index.getResult(), ivs[index.getDim()]);
      continue;
    }
    b.clone(inner, map);
  }
  // The yielded value may come from outside the body (a captured scalar).
  Value v = map.lookupOrDefault(body.getTerminator()->getOperand(0));
  Value updated = tensor::InsertOp::create(b, loc, v, carried, outIdx);
  scf::YieldOp::create(b, loc, updated);
  op.getResult(0).replaceAllUsesWith(loops.front().getResult(0));
  op.erase();
  return success();
}

struct LowerNestedLinalgPass
    : ::tdsl::impl::LowerNestedLinalgBase<LowerNestedLinalgPass> {
  void runOnOperation() override {
    // Innermost first, so an op rewritten later holds only loops.
    SmallVector<linalg::GenericOp> nested;
    getOperation().walk<WalkOrder::PostOrder>([&](linalg::GenericOp op) {
      if (op->getParentOfType<linalg::LinalgOp>())
        nested.push_back(op);
    });
    for (linalg::GenericOp op : nested)
      if (failed(lowerToLoops(op)))
        return signalPassFailure();
    // A tensor.empty in a kernel's body (the start of a loop nest above, or
    // of a tensor the body builds) is one fresh buffer per iteration. CSE
    // would merge it with an equal tensor.empty outside (the kernel's own
    // output), and bufferization does not see conflicts across a linalg
    // region: iterations wrote into the kernel's output. An alloc_tensor is
    // never merged.
    SmallVector<tensor::EmptyOp> empties;
    getOperation().walk([&](tensor::EmptyOp op) {
      if (op->getParentOfType<linalg::LinalgOp>())
        empties.push_back(op);
    });
    for (tensor::EmptyOp op : empties) {
      OpBuilder b(op);
      op.replaceAllUsesWith(bufferization::AllocTensorOp::create(
                                b, op.getLoc(), op.getType(), op.getDynamicSizes())
                                .getResult());
      op.erase();
    }
  }
};

} // namespace
