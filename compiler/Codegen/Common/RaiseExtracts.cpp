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

#include "mlir/Dialect/Affine/IR/AffineOps.h"
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

/// A subscript as a linear form of `op`'s loops: sum of coefficient * loop
/// (each loop once, coefficients >= 1) plus a constant.
struct Linear {
  SmallVector<std::pair<unsigned, int64_t>> terms;
  int64_t constant = 0;
};

/// `v` as a Linear form of `op`'s `linalg.index` values, through additions,
/// subtractions of constants, multiplications by positive constants
/// (`stride * i + di` once a callee's stride parameter is a literal) and
/// integer casts.
std::optional<Linear> linearIndex(linalg::GenericOp op, Value v) {
  if (auto index = v.getDefiningOp<linalg::IndexOp>()) {
    if (index->getParentOp() != op)
      return std::nullopt;
    return Linear{{{static_cast<unsigned>(index.getDim()), 1}}, 0};
  }
  if (std::optional<int64_t> c = getConstantIntValue(v))
    return Linear{{}, *c};
  Operation *def = v.getDefiningOp();
  if (!def)
    return std::nullopt;
  if (isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp>(def))
    return linearIndex(op, def->getOperand(0));
  if (!isa<arith::AddIOp, arith::SubIOp, arith::MulIOp>(def))
    return std::nullopt;
  auto a = linearIndex(op, def->getOperand(0)), b = linearIndex(op, def->getOperand(1));
  if (!a || !b)
    return std::nullopt;
  if (isa<arith::MulIOp>(def)) {
    if (!a->terms.empty() && !b->terms.empty())
      return std::nullopt;
    if (a->terms.empty())
      std::swap(a, b);
    // No negative or zero coefficient, and none large enough that the
    // largest subscript computed from them could wrap.
    int64_t k = b->constant;
    if (k < 1 || k > (int64_t(1) << 20) ||
        std::abs(a->constant) > (int64_t(1) << 40) / k ||
        llvm::any_of(a->terms, [&](auto t) { return t.second > (int64_t(1) << 20) / k; }))
      return std::nullopt;
    for (auto &t : a->terms)
      t.second *= k;
    a->constant *= k;
    return a;
  }
  if (isa<arith::SubIOp>(def)) {
    if (!b->terms.empty())
      return std::nullopt; // minus a loop
    a->constant -= b->constant;
    return a;
  }
  for (auto [d, k] : b->terms) {
    if (llvm::any_of(a->terms, [&](auto t) { return t.first == d; }))
      return std::nullopt; // a loop twice
    a->terms.push_back({d, k});
  }
  a->constant += b->constant;
  return a;
}

/// A subscript `(index / place) % modulus` of one loop of `op` (modulus 0:
/// none), through divisions and remainders by positive constants.
struct Digit {
  unsigned loop;
  int64_t place = 1, modulus = 0;
};

std::optional<Digit> digitOf(linalg::GenericOp op, Value v) {
  auto strip = [](Value v) {
    while (isa_and_nonnull<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp>(
        v.getDefiningOp()))
      v = v.getDefiningOp()->getOperand(0);
    return v;
  };
  auto positive = [](Value v) -> int64_t {
    std::optional<int64_t> c = getConstantIntValue(v);
    return c && *c > 0 && *c < (int64_t(1) << 31) ? *c : 0;
  };
  v = strip(v);
  int64_t modulus = 0;
  if (isa_and_nonnull<arith::RemSIOp, arith::RemUIOp>(v.getDefiningOp())) {
    modulus = positive(v.getDefiningOp()->getOperand(1));
    if (!modulus)
      return std::nullopt;
    v = strip(v.getDefiningOp()->getOperand(0));
  }
  int64_t place = 1;
  while (isa_and_nonnull<arith::DivSIOp, arith::DivUIOp>(v.getDefiningOp())) {
    int64_t by = positive(v.getDefiningOp()->getOperand(1));
    if (!by || place > (int64_t(1) << 31) / by)
      return std::nullopt;
    place *= by;
    v = strip(v.getDefiningOp()->getOperand(0));
  }
  auto index = v.getDefiningOp<linalg::IndexOp>();
  if (!index || index->getParentOp() != op)
    return std::nullopt;
  return Digit{static_cast<unsigned>(index.getDim()), place, modulus};
}

/// The dimensions of `extract`'s tensor grouped for a collapse: a run of
/// static dimensions [k, l] read at the digits of one loop in the mixed
/// radix of their sizes (nn.flatten's x[n, f / 49, f / 7 % 7, f % 7] on 16
/// x 7 x 7: f / (S_k+1 * ... * S_l), then (f / place) % S_j, then f % S_l)
/// is one dimension read at that loop, where the loop stays below their
/// product; the other dimensions stay alone. Empty when there is no run.
SmallVector<ReassociationIndices> radixGroups(linalg::GenericOp op,
                                              tensor::ExtractOp extract) {
  auto type = extract.getTensor().getType();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  int64_t rank = type.getRank();
  SmallVector<std::optional<Digit>> digits;
  for (Value idx : extract.getIndices())
    digits.push_back(digitOf(op, idx));
  SmallVector<ReassociationIndices> groups;
  bool any = false;
  for (int64_t k = 0; k < rank;) {
    int64_t end = k + 1; // one past the run
    std::optional<Digit> top = digits[k];
    if (top && top->modulus == 0 && !type.isDynamicDim(k) &&
        !ShapedType::isDynamic(ranges[top->loop])) {
      // The run ends where the place value reaches 1; the places above
      // are the products of the sizes below them.
      for (int64_t l = k + 1; l < rank; ++l) {
        std::optional<Digit> d = digits[l];
        if (!d || d->loop != top->loop || type.isDynamicDim(l) ||
            d->modulus != type.getDimSize(l))
          break;
        if (d->place != 1)
          continue;
        int64_t place = 1;
        bool chain = true;
        for (int64_t j = l; j > k && chain; --j) {
          chain = digits[j]->place == place;
          place *= type.getDimSize(j);
        }
        if (chain && top->place == place &&
            ranges[top->loop] <= place * type.getDimSize(k))
          end = l + 1;
        break;
      }
    }
    any |= end > k + 1;
    groups.push_back(llvm::to_vector(llvm::seq<int64_t>(k, end)));
    k = end;
  }
  return any ? groups : SmallVector<ReassociationIndices>{};
}

/// How a raised read reads its tensor: the map of its subscripts over the
/// loops of the op, and the offsets of the slice it reads through (a read
/// at `i + 1` is a read at `i` of the slice that starts one row in; the
/// slice is as long as the loop), of the tensor collapsed by `collapse`
/// first where that is not empty.
struct Read {
  tensor::ExtractOp extract;
  AffineMap map;
  SmallVector<int64_t> offsets; // empty: the whole tensor
  SmallVector<ReassociationIndices> collapse;
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
  // The subscripts, of the tensor with its radix groups collapsed (each
  // group read at its loop).
  SmallVector<ReassociationIndices> collapse = radixGroups(op, extract);
  SmallVector<std::optional<Linear>> subscripts;
  if (collapse.empty()) {
    for (Value idx : extract.getIndices())
      subscripts.push_back(linearIndex(op, idx));
  } else {
    SmallVector<int64_t> shape;
    for (ReassociationIndices &group : collapse) {
      Value first = extract.getIndices()[group.front()];
      if (group.size() == 1) {
        shape.push_back(type.getDimSize(group.front()));
        subscripts.push_back(linearIndex(op, first));
        continue;
      }
      int64_t size = 1;
      for (int64_t j : group)
        size *= type.getDimSize(j);
      shape.push_back(size);
      subscripts.push_back(Linear{{{digitOf(op, first)->loop, 1}}, 0});
    }
    type = RankedTensorType::get(shape, type.getElementType());
  }
  for (auto [j, lin] : llvm::enumerate(subscripts)) {
    int64_t size = type.getDimSize(j);
    if (!lin || (ShapedType::isDynamic(size) && !checked))
      return std::nullopt;
    int64_t c = lin->constant;
    if (lin->terms.empty()) { // a constant subscript
      if (c < 0 || (!ShapedType::isDynamic(size) && c >= size))
        return std::nullopt;
      reliesOnChecks |= ShapedType::isDynamic(size);
      exprs.push_back(getAffineConstantExpr(c, ctx));
      offsets.push_back(0);
      continue;
    }
    if (c < 0)
      return std::nullopt;
    // The largest subscript, where the sizes are known.
    bool dynamic = ShapedType::isDynamic(size);
    int64_t last = c;
    AffineExpr e = getAffineConstantExpr(0, ctx);
    for (auto [d, k] : lin->terms) {
      if (!seen.insert(d).second)
        return std::nullopt;
      dynamic |= ShapedType::isDynamic(ranges[d]);
      if (!dynamic)
        last += k * std::max<int64_t>(ranges[d] - 1, 0);
      e = e + getAffineDimExpr(d, ctx) * k;
    }
    if ((dynamic && !checked) || (!dynamic && (last >= size || c > size)))
      return std::nullopt;
    reliesOnChecks |= dynamic;
    exprs.push_back(e);
    offsets.push_back(c);
    if (auto dim = dyn_cast<AffineDimExpr>(e)) {
      // A loop shorter than the dimension reads a slice of it too: a
      // linalg operand indexed by a loop must have the loop's size.
      shifted |= c != 0 || dynamic || ranges[dim.getPosition()] != size;
    } else {
      // A strided or windowed subscript (2 * i + di) reads the dimension
      // from its constant on.
      shifted |= c != 0;
    }
  }
  // The checks before the op hold only when it has iterations. A read that
  // relies on them must use every loop that may be empty, so that it never
  // runs, even moved out of a loop, when one of them is (x[j + 3] in loops
  // over i in 0..0 and j in 0..10, with x of 2 elements, reads nothing); a
  // loop of a static, positive range is never empty (a convolution's
  // output channels, which its image's reads do not use).
  if (reliesOnChecks &&
      llvm::any_of(llvm::seq<int64_t>(0, op.getNumLoops()), [&](int64_t d) {
        return !seen.contains(d) && (ShapedType::isDynamic(ranges[d]) || ranges[d] == 0);
      }))
    return std::nullopt;
  Read read{extract, AffineMap::get(op.getNumLoops(), 0, exprs, ctx), {}, collapse};
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
      if (!read.collapse.empty())
        source = tensor::CollapseShapeOp::create(rw, op.getLoc(), source, read.collapse);
      if (!read.offsets.empty()) {
        // The slice the shifted subscripts read: from the offsets, as long
        // as the loops (one element at a constant subscript).
        auto type = cast<RankedTensorType>(source.getType());
        SmallVector<OpFoldResult> offsets, sizes, strides;
        for (auto [j, e] : llvm::enumerate(read.map.getResults())) {
          offsets.push_back(rw.getIndexAttr(read.offsets[j]));
          auto dim = dyn_cast<AffineDimExpr>(e);
          if (!dim)
            sizes.push_back(affine::makeComposedFoldedAffineApply(
                rw, op.getLoc(),
                rw.getAffineDimExpr(0) - read.offsets[j],
                {tensor::getMixedSize(rw, op.getLoc(), source, j)}));
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
