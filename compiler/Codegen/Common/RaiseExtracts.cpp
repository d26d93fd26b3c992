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

#include "llvm/ADT/DenseSet.h"

namespace tdsl {
#define GEN_PASS_DEF_RAISEEXTRACTS
#include "compiler/Codegen/Common/Passes.h.inc"
} // namespace tdsl

using namespace mlir;

namespace {

/// `v` as `linalg.index d + offset` of `op` (d >= 0) or as a constant
/// (d = -1), through additions and subtractions of constants and integer
/// casts.
std::optional<std::pair<int64_t, int64_t>> affineIndex(linalg::GenericOp op, Value v) {
  if (auto index = v.getDefiningOp<linalg::IndexOp>()) {
    if (index->getParentOp() != op)
      return std::nullopt;
    return std::make_pair<int64_t, int64_t>(index.getDim(), 0);
  }
  if (std::optional<int64_t> c = getConstantIntValue(v))
    return std::make_pair<int64_t, int64_t>(-1, int64_t(*c));
  Operation *def = v.getDefiningOp();
  if (!def)
    return std::nullopt;
  if (isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp>(def))
    return affineIndex(op, def->getOperand(0));
  if (!isa<arith::AddIOp, arith::SubIOp>(def))
    return std::nullopt;
  auto a = affineIndex(op, def->getOperand(0)), b = affineIndex(op, def->getOperand(1));
  if (!a || !b)
    return std::nullopt;
  bool sub = isa<arith::SubIOp>(def);
  if (b->first >= 0 && (sub || a->first >= 0))
    return std::nullopt; // two loops, or minus a loop
  if (b->first >= 0)
    std::swap(a, b);
  return std::make_pair(a->first, sub ? a->second - b->second : a->second + b->second);
}

/// How a raised read reads its tensor: the map of its subscripts over the
/// loops of the op, and the offsets of the slice it reads through (a read
/// at `i + 1` is a read at `i` of the slice that starts one row in; the
/// slice is as long as the loop).
struct Read {
  tensor::ExtractOp extract;
  AffineMap map;
  SmallVector<int64_t> offsets; // empty: the whole tensor
};

/// The read `extract` as an input of `op`, when its subscripts are distinct
/// loops of `op` plus constants, or constants, and every read is in bounds:
/// checked statically on the loop and tensor sizes, or, with run-time sizes,
/// by the checks before the op (`checked`: tdsl-fold-checks removed or
/// moved before the op every check of the body, and MLIRGen checks every
/// subscript but a literal one into a static dimension).
std::optional<Read> raisedRead(linalg::GenericOp op, tensor::ExtractOp extract,
                               bool checked) {
  auto type = extract.getTensor().getType();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<AffineExpr> exprs;
  SmallVector<int64_t> offsets;
  llvm::SmallDenseSet<int64_t> seen;
  MLIRContext *ctx = op.getContext();
  bool shifted = false, reliesOnChecks = false;
  for (auto [j, idx] : llvm::enumerate(extract.getIndices())) {
    int64_t size = type.getDimSize(j);
    auto ai = affineIndex(op, idx);
    if (!ai || (ShapedType::isDynamic(size) && !checked))
      return std::nullopt;
    auto [d, c] = *ai;
    if (d < 0) { // a constant subscript
      if (c < 0 || (!ShapedType::isDynamic(size) && c >= size))
        return std::nullopt;
      reliesOnChecks |= ShapedType::isDynamic(size);
      exprs.push_back(getAffineConstantExpr(c, ctx));
      offsets.push_back(0);
      continue;
    }
    int64_t range = ranges[d];
    bool dynamic = ShapedType::isDynamic(range) || ShapedType::isDynamic(size);
    if ((dynamic && !checked) || c < 0 || (!dynamic && range + c > size) ||
        !seen.insert(d).second)
      return std::nullopt;
    reliesOnChecks |= dynamic;
    exprs.push_back(getAffineDimExpr(d, ctx));
    offsets.push_back(c);
    // A loop shorter than the dimension reads a slice of it too: a linalg
    // operand indexed by a loop must have the loop's size.
    shifted |= c != 0 || dynamic || range != size;
  }
  // The checks before the op hold only when it has iterations. A read that
  // relies on them must use every loop, so that it never runs, even moved
  // out of a loop, when one of them is empty (x[j + 3] in loops over i in
  // 0..0 and j in 0..10, with x of 2 elements, reads nothing).
  if (reliesOnChecks && seen.size() != op.getNumLoops())
    return std::nullopt;
  Read read{extract, AffineMap::get(op.getNumLoops(), 0, exprs, ctx), {}};
  if (shifted)
    read.offsets = offsets;
  return read;
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
    // Reads of run-time-sized tensors only where tdsl-fold-checks left no
    // check in the body (a check left there may be what keeps a read in
    // bounds).
    bool checked = op->hasAttr(tdsl::kBoundsCheckedAttr);
    op.getBody()->walk([&](func::CallOp call) {
      if (call.getCallee() == "tdsl_fatal")
        checked = false;
    });
    SmallVector<Read> reads;
    for (auto extract : op.getBody()->getOps<tensor::ExtractOp>()) {
      if (!extract.getTensor().getParentRegion()->isProperAncestor(&op.getRegion()))
        continue; // a tensor made inside the body
      if (std::optional<Read> read = raisedRead(op, extract, checked))
        reads.push_back(*read);
    }
    if (reads.empty())
      return;
    SmallVector<Value> ins(op.getDpsInputs());
    SmallVector<AffineMap> maps;
    for (OpOperand *in : op.getDpsInputOperands())
      maps.push_back(op.getMatchingIndexingMap(in));
    rw.setInsertionPoint(op);
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    SmallVector<Range> loopRanges;
    if (llvm::any_of(ranges, ShapedType::isDynamic))
      loopRanges = cast<linalg::LinalgOp>(op.getOperation()).createLoopRanges(rw, op.getLoc());
    for (Read &read : reads) {
      Value source = read.extract.getTensor();
      if (!read.offsets.empty()) {
        // The slice the shifted subscripts read: from the offsets, as long
        // as the loops (one element at a constant subscript).
        auto type = cast<RankedTensorType>(source.getType());
        SmallVector<OpFoldResult> offsets, sizes, strides;
        for (auto [j, e] : llvm::enumerate(read.map.getResults())) {
          offsets.push_back(rw.getIndexAttr(read.offsets[j]));
          auto dim = dyn_cast<AffineDimExpr>(e);
          if (!dim)
            sizes.push_back(tensor::getMixedSize(rw, op.getLoc(), source, j));
          else if (ShapedType::isDynamic(ranges[dim.getPosition()]))
            sizes.push_back(loopRanges[dim.getPosition()].size);
          else
            sizes.push_back(rw.getIndexAttr(ranges[dim.getPosition()]));
          strides.push_back(rw.getIndexAttr(1));
        }
        source = tensor::ExtractSliceOp::create(rw, op.getLoc(), source, offsets, sizes,
                                                strides);
      }
      ins.push_back(source);
      maps.push_back(read.map);
    }
    for (OpOperand &init : op.getDpsInitsMutable())
      maps.push_back(op.getMatchingIndexingMap(&init));
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
      Type elem = read.extract.getType();
      BlockArgument arg = body.insertArgument(at + k, elem, read.extract.getLoc());
      rw.replaceOp(read.extract, arg);
    }
    rw.replaceOp(op, raised->getResults());
  }
};

} // namespace
