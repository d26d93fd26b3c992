//===- RaiseExtracts.cpp - reads at the loop indices as generic inputs -----===//
//
// A `parallel for` body reads tensors with tensor.extract at its loop
// indices (`yield x[n, k, i, j] * 2.0`). Inside a linalg.generic such a
// read is an input: given the map of its subscripts, the op reads it like
// any operand, and tiling, fusion and vectorization treat the op as
// element-wise (contiguous vector loads instead of a gather per element).
//
//===----------------------------------------------------------------------===//
#include "compiler/Codegen/Common/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace tdsl {
#define GEN_PASS_DEF_RAISEEXTRACTS
#include "compiler/Codegen/Common/Passes.h.inc"
} // namespace tdsl

using namespace mlir;

namespace {

/// The map of `extract`'s subscripts over the loops of `op`, when each is a
/// linalg.index of `op` or a constant, and every read is in bounds: a loop
/// read at a dimension has no more iterations than the dimension has
/// elements (statically), a constant is below it.
std::optional<AffineMap> subscriptMap(linalg::GenericOp op, tensor::ExtractOp extract) {
  auto type = extract.getTensor().getType();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<AffineExpr> exprs;
  MLIRContext *ctx = op.getContext();
  for (auto [j, idx] : llvm::enumerate(extract.getIndices())) {
    int64_t size = type.getDimSize(j);
    if (auto index = idx.getDefiningOp<linalg::IndexOp>()) {
      if (index->getParentOp() != op)
        return std::nullopt;
      int64_t range = ranges[index.getDim()];
      if (ShapedType::isDynamic(size) || ShapedType::isDynamic(range) || range > size)
        return std::nullopt;
      exprs.push_back(getAffineDimExpr(index.getDim(), ctx));
      continue;
    }
    std::optional<int64_t> c = getConstantIntValue(idx);
    if (!c || *c < 0 || ShapedType::isDynamic(size) || *c >= size)
      return std::nullopt;
    exprs.push_back(getAffineConstantExpr(*c, ctx));
  }
  return AffineMap::get(op.getNumLoops(), 0, exprs, ctx);
}

struct RaiseExtractsPass : tdsl::impl::RaiseExtractsBase<RaiseExtractsPass> {
  void runOnOperation() override {
    SmallVector<linalg::GenericOp> ops;
    getOperation().walk([&](linalg::GenericOp op) {
      if (op.hasPureTensorSemantics())
        ops.push_back(op);
    });
    IRRewriter rw(&getContext());
    for (linalg::GenericOp op : ops)
      raise(rw, op);
  }

  void raise(IRRewriter &rw, linalg::GenericOp op) {
    SmallVector<std::pair<tensor::ExtractOp, AffineMap>> reads;
    for (auto extract : op.getBody()->getOps<tensor::ExtractOp>()) {
      if (!extract.getTensor().getParentRegion()->isProperAncestor(&op.getRegion()))
        continue; // a tensor made inside the body
      if (std::optional<AffineMap> map = subscriptMap(op, extract))
        reads.push_back({extract, *map});
    }
    if (reads.empty())
      return;
    SmallVector<Value> ins(op.getDpsInputs());
    SmallVector<AffineMap> maps;
    for (OpOperand *in : op.getDpsInputOperands())
      maps.push_back(op.getMatchingIndexingMap(in));
    for (auto [extract, map] : reads) {
      ins.push_back(extract.getTensor());
      maps.push_back(map);
    }
    for (OpOperand &init : op.getDpsInitsMutable())
      maps.push_back(op.getMatchingIndexingMap(&init));
    rw.setInsertionPoint(op);
    auto raised = linalg::GenericOp::create(rw, op.getLoc(), op.getResultTypes(), ins,
                                            op.getDpsInits(), maps,
                                            op.getIteratorTypesArray());
    raised->setDiscardableAttrs(op->getDiscardableAttrDictionary());
    Region &region = raised.getRegion();
    rw.inlineRegionBefore(op.getRegion(), region, region.end());
    Block &body = region.front();
    // The new inputs' arguments go after the old inputs', before the outputs'.
    unsigned at = op.getNumDpsInputs();
    for (auto [k, read] : llvm::enumerate(reads)) {
      Type elem = read.first.getType();
      BlockArgument arg = body.insertArgument(at + k, elem, read.first.getLoc());
      rw.replaceOp(read.first, arg);
    }
    rw.replaceOp(op, raised->getResults());
  }
};

} // namespace
