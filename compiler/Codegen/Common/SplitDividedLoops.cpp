//===- SplitDividedLoops.cpp - loops read as i / k and i % k as two loops --===//
//
// Nearest-neighbour upsampling reads its image at `x[n, c, i / 2, j / 2]`:
// a computed subscript, read element by element (tdsl-vectorize leaves the
// op to LLVM, which vectorized it with a shuffle per vector of indices).
// A loop whose every use in the body is a division or a
// remainder by one constant k (its range a multiple of k) is two loops,
// q = i / k and r = i % k: the op runs over them, writing its output
// viewed as [range / k, k] along that dimension, and the read is at q, a
// plain loop that tdsl-raise-extracts makes an input.
//
//===----------------------------------------------------------------------===//
#include "compiler/Codegen/Common/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace tdsl {
#define GEN_PASS_DEF_SPLITDIVIDEDLOOPS
#include "compiler/Codegen/Common/Passes.h.inc"
} // namespace tdsl

using namespace mlir;

namespace {

/// The divisions and remainders of loop `d` of `op` by one constant k, and
/// k; none when the loop is used otherwise.
struct Uses {
  int64_t k = 0;
  SmallVector<Operation *> divs, rems;
};

std::optional<Uses> dividedUses(linalg::GenericOp op, unsigned d) {
  Uses uses;
  // No operand reads the loop, but for range carriers whose element the
  // body does not use (they are dropped).
  for (OpOperand *in : op.getDpsInputOperands())
    if (op.getMatchingIndexingMap(in).isFunctionOfDim(d) &&
        !op.getMatchingBlockArgument(in).use_empty())
      return std::nullopt;
  SmallVector<Value> values;
  op.getBody()->walk([&](linalg::IndexOp index) {
    if (index.getDim() == d)
      values.push_back(index);
  });
  if (values.empty())
    return std::nullopt;
  // Through casts to i64 and back.
  for (size_t n = 0; n < values.size(); ++n) {
    for (Operation *user : values[n].getUsers()) {
      if (isa<arith::IndexCastOp, arith::IndexCastUIOp>(user)) {
        values.push_back(user->getResult(0));
        continue;
      }
      bool div = isa<arith::DivSIOp, arith::DivUIOp>(user);
      bool rem = isa<arith::RemSIOp, arith::RemUIOp>(user);
      std::optional<int64_t> k = (div || rem) && user->getOperand(0) == values[n]
                                     ? getConstantIntValue(user->getOperand(1))
                                     : std::nullopt;
      if (!k || *k < 2 || (uses.k && uses.k != *k))
        return std::nullopt;
      uses.k = *k;
      (div ? uses.divs : uses.rems).push_back(user);
    }
  }
  if (uses.divs.empty())
    return std::nullopt;
  return uses;
}

/// `op` with loop `d` split into q and r (range k, right after q).
linalg::GenericOp splitLoop(RewriterBase &rw, linalg::GenericOp op, unsigned d,
                            const Uses &uses) {
  MLIRContext *ctx = op.getContext();
  Location loc = op.getLoc();
  unsigned numLoops = op.getNumLoops();
  int64_t range = op.getStaticLoopRanges()[d];
  // Old dim e -> new dim e (e < d), q (e == d), e + 1 (e > d).
  SmallVector<AffineExpr> shift;
  for (unsigned e = 0; e < numLoops; ++e)
    shift.push_back(getAffineDimExpr(e <= d ? e : e + 1, ctx));
  SmallVector<AffineMap> maps;
  SmallVector<Value> inputs;
  SmallVector<unsigned> dropped;
  for (OpOperand *in : op.getDpsInputOperands()) {
    AffineMap m = op.getMatchingIndexingMap(in);
    if (m.isFunctionOfDim(d)) {
      dropped.push_back(in->getOperandNumber());
      continue;
    }
    inputs.push_back(in->get());
    maps.push_back(m.replaceDimsAndSymbols(shift, {}, numLoops + 1, 0));
  }
  // The output: the dimension indexed by the loop becomes [range / k, k].
  OpOperand &init = op.getDpsInitsMutable()[0];
  AffineMap outMap = op.getMatchingIndexingMap(&init);
  auto type = cast<RankedTensorType>(init.get().getType());
  SmallVector<AffineExpr> outResults;
  SmallVector<int64_t> shape;
  SmallVector<ReassociationIndices> groups;
  for (auto [r, e] : llvm::enumerate(outMap.getResults())) {
    unsigned pos = cast<AffineDimExpr>(e).getPosition();
    ReassociationIndices group{static_cast<int64_t>(shape.size())};
    if (pos == d) {
      outResults.append({getAffineDimExpr(d, ctx), getAffineDimExpr(d + 1, ctx)});
      shape.append({range / uses.k, uses.k});
      group.push_back(group.front() + 1);
    } else {
      outResults.push_back(getAffineDimExpr(pos < d ? pos : pos + 1, ctx));
      shape.push_back(type.getDimSize(r));
    }
    groups.push_back(group);
  }
  maps.push_back(AffineMap::get(numLoops + 1, 0, outResults, ctx));
  SmallVector<utils::IteratorType> iters = op.getIteratorTypesArray();
  iters.insert(iters.begin() + d + 1, utils::IteratorType::parallel);
  rw.setInsertionPoint(op);
  auto expandedType = RankedTensorType::get(shape, type.getElementType());
  Value out = tensor::ExpandShapeOp::create(rw, loc, expandedType, init.get(), groups);
  auto split = linalg::GenericOp::create(rw, loc, TypeRange{expandedType},
                                         inputs, ValueRange{out}, maps, iters);
  split->setDiscardableAttrs(op->getDiscardableAttrDictionary());
  rw.inlineRegionBefore(op.getRegion(), split.getRegion(), split.getRegion().end());
  // The body: divisions by k are q, remainders r; other loops renumbered.
  Block *body = split.getBody();
  for (unsigned n : llvm::reverse(dropped))
    body->eraseArgument(n);
  rw.setInsertionPointToStart(body);
  Value q = linalg::IndexOp::create(rw, loc, d);
  Value r = linalg::IndexOp::create(rw, loc, d + 1);
  SmallVector<linalg::IndexOp> indices;
  body->walk([&](linalg::IndexOp index) { indices.push_back(index); });
  for (linalg::IndexOp index : indices) {
    if (index == q.getDefiningOp() || index == r.getDefiningOp())
      continue;
    if (index.getDim() > d)
      rw.modifyOpInPlace(index, [&] { index.setDim(index.getDim() + 1); });
  }
  auto replaceWith = [&](Operation *use, Value v) {
    rw.setInsertionPoint(use);
    Type t = use->getResult(0).getType();
    rw.replaceOp(use, t.isIndex() ? v : arith::IndexCastOp::create(rw, loc, t, v).getResult());
  };
  for (Operation *div : uses.divs)
    replaceWith(div, q);
  for (Operation *rem : uses.rems)
    replaceWith(rem, r);
  rw.setInsertionPointAfter(split);
  rw.replaceOp(op, tensor::CollapseShapeOp::create(rw, loc, type, split.getResult(0), groups)
                       .getResult());
  return split;
}

struct SplitDividedLoopsPass
    : tdsl::impl::SplitDividedLoopsBase<SplitDividedLoopsPass> {
  void runOnOperation() override {
    SmallVector<linalg::GenericOp> ops;
    getOperation().walk([&](linalg::GenericOp op) {
      if (op.hasPureTensorSemantics() && op.getNumDpsInits() == 1 &&
          op.getNumReductionLoops() == 0 && op.getNumLoops() < 8 &&
          op.getMatchingIndexingMap(op.getDpsInitOperand(0)).isPermutation())
        ops.push_back(op);
    });
    IRRewriter rw(&getContext());
    for (linalg::GenericOp op : ops) {
      // What tdsl-fold-checks left of the checks it moved out (their
      // comparisons) would count as other uses of the loops.
      for (Operation &inner :
           llvm::make_early_inc_range(llvm::reverse(op.getBody()->getOperations())))
        if (isOpTriviallyDead(&inner))
          rw.eraseOp(&inner);
      for (unsigned d = 0; d < op.getNumLoops(); ++d) {
        int64_t range = op.getStaticLoopRanges()[d];
        std::optional<Uses> uses = dividedUses(op, d);
        if (!uses || ShapedType::isDynamic(range) || range % uses->k != 0 ||
            range == 0 || op.getNumLoops() >= 8)
          continue;
        op = splitLoop(rw, op, d, *uses);
        ++d; // past r
      }
    }
  }
};

} // namespace
