//===- Vectorize.cpp - register tiles and linalg::vectorize -----------------===//
#include "compiler/Codegen/CPU/Passes.h"
#include "compiler/Codegen/CPU/RunTimeRegisterTiles.h"
#include "compiler/Codegen/CPU/TileConfig.h"
#include "compiler/Codegen/Common/TilingUtils.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/ADT/SmallBitVector.h"

namespace tdsl {
#define GEN_PASS_DEF_VECTORIZE
#include "compiler/Codegen/CPU/Passes.h.inc"
} // namespace tdsl

using namespace mlir;

namespace {
/// Whether dimension `r` of `op`'s operand `i` and the output's dimension
/// along loop `loop` are slices of one run-time size (the last partial tile
/// of a convolution's columns: the window read x[.., j + dj] with dj of one
/// step is as wide as the output tile).
bool sameRunTimeExtent(linalg::GenericOp op, unsigned i, unsigned r, unsigned loop) {
  auto in = op->getOperand(i).getDefiningOp<tensor::ExtractSliceOp>();
  auto out = op.getDpsInits()[0].getDefiningOp<tensor::ExtractSliceOp>();
  if (!in || !out || in.getSourceType().getRank() != in.getType().getRank() ||
      out.getSourceType().getRank() != out.getType().getRank())
    return false;
  AffineMap outMap = op.getIndexingMapsArray().back();
  for (auto [k, e] : llvm::enumerate(outMap.getResults()))
    if (auto d = dyn_cast<AffineDimExpr>(e); d && d.getPosition() == loop) {
      OpFoldResult a = in.getMixedSizes()[r], b = out.getMixedSizes()[k];
      return isa<Value>(a) && a == b;
    }
  return false;
}

/// `v` collapsed by `groups`. Where each group has one dimension that may
/// differ from 1, a rank-reducing slice instead: on strides known only at
/// run time, bufferization cannot prove a collapse of a slice contiguous
/// and copied it into a new buffer, allocated in the loop (a convolution
/// weights' adjoint on `?` sizes made a heap allocation per step: 12x
/// slower). The slice drops every unit dimension, and an expand_shape puts
/// back those the result keeps: a subview that kept some of several unit
/// dimensions is ambiguous, and MLIR 22's strided-metadata expansion read
/// a memref<1x8xf32> sliced from 1x8x1x1 as sizes [8, 1] (wrong values).
Value dropUnitDims(RewriterBase &rw, Location loc, Value v,
                   ArrayRef<ReassociationIndices> groups) {
  auto type = cast<RankedTensorType>(v.getType());
  SmallVector<int64_t> shape;
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(rw, loc, v), shapeSizes;
  for (const ReassociationIndices &group : groups) {
    std::optional<int64_t> kept;
    for (int64_t d : group)
      if (type.getDimSize(d) != 1) {
        if (kept)
          return tensor::CollapseShapeOp::create(rw, loc, v, groups);
        kept = d;
      }
    shape.push_back(kept ? type.getDimSize(*kept) : 1);
    shapeSizes.push_back(kept ? sizes[*kept] : rw.getIndexAttr(1));
  }
  SmallVector<int64_t> reducedShape;
  for (int64_t n : type.getShape())
    if (n != 1)
      reducedShape.push_back(n);
  SmallVector<OpFoldResult> offsets(type.getRank(), rw.getIndexAttr(0));
  SmallVector<OpFoldResult> strides(type.getRank(), rw.getIndexAttr(1));
  Value reduced = tensor::ExtractSliceOp::create(
      rw, loc, RankedTensorType::get(reducedShape, type.getElementType()), v, offsets, sizes,
      strides);
  if (reducedShape == shape)
    return reduced;
  // Each kept unit dimension joins the group of the dimension before it
  // (the first group, for leading ones).
  SmallVector<ReassociationIndices> expand(reducedShape.size());
  ReassociationIndices leading;
  int64_t next = -1;
  for (auto [i, n] : llvm::enumerate(shape)) {
    if (n != 1)
      ++next;
    if (next < 0)
      leading.push_back(i);
    else
      expand[next].push_back(i);
  }
  if (!expand.empty())
    expand.front().insert(expand.front().begin(), leading.begin(), leading.end());
  return tensor::ExpandShapeOp::create(rw, loc, RankedTensorType::get(shape, type.getElementType()),
                                       reduced, expand, shapeSizes);
}

/// `generic` as a linalg.contract when it is one (two inputs of the result's
/// float type, projected-permutation maps, `out + a * b`): the vectorizer
/// makes a vector.contract (FMAs) only of named contractions, and left
/// index-notation products (`c[i, j] = sum(k) a[i, k] * b[k, j]`) a
/// multiply and an add per step, 20% slower than the same product as `@`
/// and rounded differently. The operand that the result's last loop reads
/// becomes the right-hand side (a product is exact in either order): with
/// it on the left, the outer-product lowering transposed every step (3x
/// the code). Null otherwise.
Operation *asNamedContraction(RewriterBase &rw, linalg::GenericOp generic) {
  if (generic.getNumDpsInputs() != 2 || generic.getNumDpsInits() != 1 ||
      !linalg::isaContractionOpInterface(generic))
    return nullptr;
  Type elem = getElementTypeOrSelf(generic.getDpsInits()[0].getType());
  if (!isa<FloatType>(elem) ||
      llvm::any_of(generic.getDpsInputs(), [&](Value v) {
        return getElementTypeOrSelf(v.getType()) != elem;
      }))
    return nullptr;
  AffineMap out = generic.getIndexingMapsArray().back();
  unsigned parallel = out.getNumResults();
  if (parallel == 0)
    return nullptr;
  // The result indexes the leading loops in order and the reduction loops
  // come after them, as in a matmul, batched or with transposed operands.
  // The vectorizer reads the accumulator in the loops' order: a permuted
  // result, a reduction loop before a parallel one (a vector-matrix
  // product's adjoint) or a scalar result made invalid vector.contracts.
  for (auto [i, e] : llvm::enumerate(out.getResults())) {
    auto d = dyn_cast<AffineDimExpr>(e);
    if (!d || d.getPosition() != i)
      return nullptr;
  }
  for (auto [i, iter] : llvm::enumerate(generic.getIteratorTypesArray()))
    if ((iter == utils::IteratorType::parallel) != (i < parallel))
      return nullptr;
  // vector.contract pairs each reduction loop between the operands and
  // takes each result loop from one of them: sum(k) x[k] * x[i] (x[i] does
  // not vary with k) has no such pair.
  AffineMap lhs = generic.getIndexingMapsArray()[0];
  AffineMap rhs = generic.getIndexingMapsArray()[1];
  // A result loop of one step that neither operand reads (a batch of one
  // image, whose reads the front end made x[0, ...]) becomes a leading
  // dimension of one of the left-hand side's.
  SmallVector<int64_t> ranges = generic.getStaticLoopRanges();
  SmallVector<unsigned> unread;
  for (unsigned d = 0; d < out.getNumDims(); ++d) {
    bool inLhs = lhs.isFunctionOfDim(d), inRhs = rhs.isFunctionOfDim(d);
    if (d < parallel && !inLhs && !inRhs && ranges[d] == 1)
      unread.push_back(d);
    else if (d < parallel ? !(inLhs || inRhs) : !(inLhs && inRhs))
      return nullptr;
  }
  // The body must be exactly out + in0 * in1 (in either order), with
  // nothing else computed.
  Block &body = generic.getRegion().front();
  if (body.getOperations().size() != 3)
    return nullptr;
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  auto add = yield.getValues()[0].getDefiningOp<arith::AddFOp>();
  if (!add)
    return nullptr;
  Value acc = body.getArgument(2);
  Value prod = add.getLhs() == acc ? add.getRhs() : add.getLhs();
  auto mul = prod.getDefiningOp<arith::MulFOp>();
  if (!mul || (add.getLhs() != acc && add.getRhs() != acc) ||
      !((mul.getLhs() == body.getArgument(0) && mul.getRhs() == body.getArgument(1)) ||
        (mul.getLhs() == body.getArgument(1) && mul.getRhs() == body.getArgument(0))))
    return nullptr;
  SmallVector<Value> inputs = generic.getDpsInputs();
  SmallVector<Attribute> maps = llvm::to_vector(generic.getIndexingMaps());
  if (lhs.isFunctionOfDim(parallel - 1) && !rhs.isFunctionOfDim(parallel - 1)) {
    std::swap(inputs[0], inputs[1]);
    std::swap(maps[0], maps[1]);
  }
  rw.setInsertionPoint(generic);
  if (!unread.empty()) {
    auto type = dyn_cast<RankedTensorType>(inputs[0].getType());
    if (!type || type.getRank() == 0)
      return nullptr;
    AffineMap m = cast<AffineMapAttr>(maps[0]).getValue();
    SmallVector<AffineExpr> results;
    SmallVector<int64_t> shape(unread.size(), 1);
    ReassociationIndices first;
    for (auto [k, d] : llvm::enumerate(unread)) {
      results.push_back(rw.getAffineDimExpr(d));
      first.push_back(k);
    }
    first.push_back(unread.size());
    SmallVector<ReassociationIndices> groups{first};
    for (int64_t r = 1; r < type.getRank(); ++r)
      groups.push_back({static_cast<int64_t>(unread.size()) + r});
    llvm::append_range(results, m.getResults());
    llvm::append_range(shape, type.getShape());
    inputs[0] = tensor::ExpandShapeOp::create(
        rw, generic.getLoc(), RankedTensorType::get(shape, type.getElementType()),
        inputs[0], groups);
    maps[0] = AffineMapAttr::get(AffineMap::get(m.getNumDims(), 0, results, rw.getContext()));
  }
  auto contract = linalg::ContractOp::create(
      rw, generic.getLoc(), generic.getResultTypes(), inputs,
      generic.getDpsInits(), rw.getArrayAttr(maps),
      llvm::to_vector(generic->getDiscardableAttrs()));
  rw.replaceOp(generic, contract->getResults());
  return contract;
}


/// `op` without its reduction loops of one step that appear in compound
/// subscripts, when that makes every
/// indexing map a projected permutation: a convolution's register tile,
/// whose window loops step once per tile, reads x[n, c, i + di, j + dj] with
/// di = dj = 0, i.e. x[n, c, i, j], and becomes a contraction the
/// vectorizer takes (a window read is not a projected permutation, and the
/// tile stayed scalar). Operand dimensions left indexed by a constant 0
/// (size 1) are collapsed away. Null when it does not apply.
linalg::GenericOp dropUnitWindowLoops(RewriterBase &rw, linalg::GenericOp op,
                                      SmallVectorImpl<int64_t> &vectorSizes) {
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  if (llvm::all_of(maps, [](AffineMap m) { return m.isProjectedPermutation(); }) ||
      !op.getBody()->getOps<linalg::IndexOp>().empty() || op.getNumDpsInits() != 1)
    return {};
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<utils::IteratorType> iters = op.getIteratorTypesArray();
  MLIRContext *ctx = op.getContext();
  // The loops in compound subscripts (di in i + di); the others stay, so
  // that a reduction loop pairs the operands of a contraction.
  llvm::SmallBitVector inSums(ranges.size());
  for (AffineMap map : maps)
    for (AffineExpr e : map.getResults())
      if (!isa<AffineDimExpr>(e))
        e.walk([&](AffineExpr sub) {
          if (auto d = dyn_cast<AffineDimExpr>(sub))
            inSums.set(d.getPosition());
        });
  SmallVector<AffineExpr> replace;
  SmallVector<utils::IteratorType> kept;
  SmallVector<int64_t> keptRanges, keptSizes;
  SmallVector<unsigned> keptLoops;
  for (unsigned d = 0; d < ranges.size(); ++d) {
    if (iters[d] == utils::IteratorType::reduction && ranges[d] == 1 && inSums[d]) {
      replace.push_back(getAffineConstantExpr(0, ctx));
    } else {
      keptLoops.push_back(d);
      replace.push_back(getAffineDimExpr(kept.size(), ctx));
      kept.push_back(iters[d]);
      keptRanges.push_back(ranges[d]);
      if (!vectorSizes.empty())
        keptSizes.push_back(vectorSizes[d]);
    }
  }
  if (kept.size() == ranges.size())
    return {};
  // Each new map: loops (each at most once) and zeros on dimensions of one.
  SmallVector<AffineMap> newMaps;
  SmallVector<SmallVector<ReassociationIndices>> collapse(maps.size());
  struct Strided {
    unsigned dim;
    int64_t stride, size;
  };
  SmallVector<SmallVector<Strided>> strided(maps.size());
  llvm::SmallBitVector seen(kept.size());
  for (auto [i, map] : llvm::enumerate(maps)) {
    AffineMap m = simplifyAffineMap(
        map.replaceDimsAndSymbols(replace, {}, kept.size(), 0));
    auto type = dyn_cast<RankedTensorType>(op->getOperand(i).getType());
    SmallVector<AffineExpr> results;
    ReassociationIndices group;
    for (auto [r, e] : llvm::enumerate(m.getResults())) {
      group.push_back(r);
      if (auto c = dyn_cast<AffineConstantExpr>(e)) {
        if (c.getValue() != 0 || !type || type.getDimSize(r) != 1 ||
            i + 1 == maps.size()) // the init keeps its shape
          return {};
        continue;
      }
      auto d = dyn_cast<AffineDimExpr>(e);
      int64_t stride = 1;
      // A strided read (2 * j, the columns of a strided convolution) reads
      // every stride-th element of its slice: a strided slice read at j.
      if (auto mul = dyn_cast<AffineBinaryOpExpr>(e);
          mul && mul.getKind() == AffineExprKind::Mul && i + 1 < maps.size()) {
        d = dyn_cast<AffineDimExpr>(mul.getLHS());
        auto k = dyn_cast<AffineConstantExpr>(mul.getRHS());
        stride = k ? k.getValue() : 0;
        if (!d || stride < 2)
          return {};
      }
      if (!d)
        return {};
      // A window read sized for i + di (at least the loop's range) must be
      // exactly the loop's range once it reads i alone (or the strided
      // slice's extent).
      int64_t range = keptRanges[d.getPosition()];
      if (!isa<AffineDimExpr>(map.getResult(r)) &&
          !(stride == 1 && sameRunTimeExtent(op, i, r, keptLoops[d.getPosition()])) &&
          (!type || type.isDynamicDim(r) || ShapedType::isDynamic(range) ||
           type.getDimSize(r) != stride * (range - 1) + 1))
        return {};
      if (stride > 1)
        strided[i].push_back({static_cast<unsigned>(r), stride, range});
      seen.set(d.getPosition());
      results.push_back(d);
      collapse[i].push_back(group);
      group.clear();
    }
    // Trailing unit dimensions join the last group.
    if (!group.empty() && !collapse[i].empty())
      collapse[i].back().append(group.begin(), group.end());
    else if (!group.empty() && results.empty())
      collapse[i].clear(); // all of them: a 0-d tensor
    newMaps.push_back(AffineMap::get(kept.size(), 0, results, ctx));
    if (!newMaps.back().isProjectedPermutation())
      return {};
  }
  if (!seen.all())
    return {};
  rw.setInsertionPoint(op);
  SmallVector<Value> inputs;
  for (OpOperand *in : op.getDpsInputOperands()) {
    Value v = in->get();
    auto type = dyn_cast<RankedTensorType>(v.getType());
    unsigned i = in->getOperandNumber();
    if (!strided[i].empty()) {
      SmallVector<OpFoldResult> offsets(type.getRank(), rw.getIndexAttr(0));
      SmallVector<OpFoldResult> sizes, strides(type.getRank(), rw.getIndexAttr(1));
      for (int64_t n : type.getShape())
        sizes.push_back(rw.getIndexAttr(n));
      for (Strided st : strided[i]) {
        sizes[st.dim] = rw.getIndexAttr(st.size);
        strides[st.dim] = rw.getIndexAttr(st.stride);
      }
      v = tensor::ExtractSliceOp::create(rw, op.getLoc(), v, offsets, sizes, strides);
      type = cast<RankedTensorType>(v.getType());
    }
    if (type && newMaps[i].getNumResults() != maps[i].getNumResults())
      v = dropUnitDims(rw, op.getLoc(), v, collapse[i]);
    inputs.push_back(v);
  }
  auto dropped = linalg::GenericOp::create(
      rw, op.getLoc(), op->getResultTypes(), inputs, op.getDpsInits(), newMaps, kept);
  dropped->setDiscardableAttrs(op->getDiscardableAttrDictionary());
  rw.inlineRegionBefore(op.getRegion(), dropped.getRegion(), dropped.getRegion().end());
  rw.replaceOp(op, dropped->getResults());
  vectorSizes.assign(keptSizes.begin(), keptSizes.end());
  return dropped;
}

/// `op` (every loop parallel) reading its outputs' old values through
/// inputs instead: an update in place of a reduction's result (`r + f32(t)`
/// after `r[b, t] = sum(v) ...`, an epilogue out of any tile) reads its out
/// argument, and MLIR 22's vectorizer took `out + f(linalg.index)` for a
/// reduction step. Where the index's vector had fewer dimensions than the
/// result, it made a vector.multi_reduction with no reduced dimension that
/// dropped the read value (the result was f32(t) alone). Null when `op`
/// reads no output.
linalg::GenericOp readOutputsAsInputs(RewriterBase &rw, linalg::GenericOp op) {
  if (op.getNumReductionLoops() != 0 || !op.hasPureTensorSemantics())
    return {};
  SmallVector<OpOperand *> read;
  for (OpOperand &init : op.getDpsInitsMutable())
    if (!op.getMatchingBlockArgument(&init).use_empty())
      read.push_back(&init);
  if (read.empty())
    return {};
  SmallVector<Value> inputs(op.getDpsInputs());
  SmallVector<AffineMap> maps;
  for (OpOperand *in : op.getDpsInputOperands())
    maps.push_back(op.getMatchingIndexingMap(in));
  for (OpOperand *init : read) {
    inputs.push_back(init->get());
    maps.push_back(op.getMatchingIndexingMap(init));
  }
  for (OpOperand &init : op.getDpsInitsMutable())
    maps.push_back(op.getMatchingIndexingMap(&init));
  rw.setInsertionPoint(op);
  auto copy = linalg::GenericOp::create(rw, op.getLoc(), op->getResultTypes(), inputs,
                                        op.getDpsInits(), maps,
                                        op.getIteratorTypesArray());
  copy->setDiscardableAttrs(op->getDiscardableAttrDictionary());
  Block &old = op.getRegion().front();
  unsigned numIns = op.getNumDpsInputs();
  SmallVector<Type> types;
  SmallVector<Location> locs;
  for (Value v : inputs) {
    types.push_back(getElementTypeOrSelf(v.getType()));
    locs.push_back(op.getLoc());
  }
  for (BlockArgument a : old.getArguments().drop_front(numIns)) {
    types.push_back(a.getType());
    locs.push_back(a.getLoc());
  }
  Block *body = rw.createBlock(&copy.getRegion(), {}, types, locs);
  // Old arguments: the inputs, then the outputs, whose reads now take the
  // new inputs (the outputs' own arguments are left unused).
  SmallVector<Value> args(body->getArguments().take_front(numIns));
  for (auto [k, init] : llvm::enumerate(op.getDpsInitsMutable())) {
    auto it = llvm::find(read, &init);
    args.push_back(it != read.end() ? body->getArgument(numIns + (it - read.begin()))
                                    : body->getArgument(inputs.size() + k));
  }
  rw.mergeBlocks(&old, body, args);
  rw.replaceOp(op, copy->getResults());
  return copy;
}

/// The value a masked-off lane must hold in a float max/min reduction; null
/// for other kinds. MLIR 22's mask lowering fills masked lanes of a
/// `maximumf` reduction with -2^-149, the negative number closest to 0, so
/// the maximum of all-negative values came out as -1.4e-45 (and those of
/// `minimumf` with the largest finite float, wrong for +inf).
TypedAttr maskedLaneValue(vector::CombiningKind kind, Type elem) {
  auto ft = dyn_cast<FloatType>(elem);
  if (!ft)
    return {};
  const llvm::fltSemantics &sem = ft.getFloatSemantics();
  switch (kind) {
  case vector::CombiningKind::MAXIMUMF:
    return FloatAttr::get(ft, llvm::APFloat::getInf(sem, /*Negative=*/true));
  case vector::CombiningKind::MINIMUMF:
    return FloatAttr::get(ft, llvm::APFloat::getInf(sem, /*Negative=*/false));
  case vector::CombiningKind::MAXNUMF:
  case vector::CombiningKind::MINNUMF:
    return FloatAttr::get(ft, llvm::APFloat::getNaN(sem)); // ignored by maxnum
  default:
    return {};
  }
}

/// A masked float max/min multi_reduction becomes an unmasked one of the
/// masked-off lanes replaced by the kind's identity (see maskedLaneValue).
void unmaskFloatMinMaxReductions(func::FuncOp fn) {
  SmallVector<vector::MaskOp> masks;
  fn.walk([&](vector::MaskOp m) {
    auto red = dyn_cast_or_null<vector::MultiDimReductionOp>(m.getMaskableOp());
    if (red && !m.hasPassthru() &&
        maskedLaneValue(red.getKind(), getElementTypeOrSelf(red.getSource().getType())))
      masks.push_back(m);
  });
  for (vector::MaskOp m : masks) {
    auto red = cast<vector::MultiDimReductionOp>(m.getMaskableOp());
    OpBuilder b(m);
    auto srcType = cast<VectorType>(red.getSource().getType());
    Value identity = arith::ConstantOp::create(
        b, m.getLoc(),
        DenseElementsAttr::get(srcType, maskedLaneValue(red.getKind(),
                                                        srcType.getElementType())));
    Value source = arith::SelectOp::create(b, m.getLoc(), m.getMask(),
                                           red.getSource(), identity);
    auto plain = vector::MultiDimReductionOp::create(
        b, m.getLoc(), source, red.getAcc(), red.getReductionMask(), red.getKind());
    m->replaceAllUsesWith(plain->getResults());
    m.erase();
  }
}

/// A masked vector.contract of a register tile on run-time sizes whose
/// reduction loops step once (rows x columns x 1) without its mask: the mask
/// can then only turn off rows and columns past the edge, whose lanes the
/// masked reads fill with zeros and the masked write drops. MLIR 22 lowers
/// the mask by transposing it bit by bit at every step (the digits MLP with
/// MPI, whose batches have run-time sizes: a fifth of its LLVM IR).
void unmaskContractions(func::FuncOp fn) {
  SmallVector<vector::MaskOp> masks;
  fn.walk([&](vector::MaskOp m) {
    auto contract = dyn_cast_or_null<vector::ContractionOp>(m.getMaskableOp());
    if (!contract || m.hasPassthru() || m->getNumResults() != 1)
      return;
    auto maskType = cast<VectorType>(m.getMask().getType());
    for (auto [i, iter] : llvm::enumerate(contract.getIteratorTypesArray()))
      if (iter == vector::IteratorType::reduction && maskType.getDimSize(i) != 1)
        return;
    masks.push_back(m);
  });
  for (vector::MaskOp m : masks) {
    Operation *contract = m.getMaskableOp();
    OpBuilder b(m);
    Operation *plain = b.clone(*contract);
    m->replaceAllUsesWith(plain->getResults());
    m.erase();
  }
}

/// The loops of `op` that `v`, computed in its body, depends on.
static void dependsOnLoops(Value v, linalg::LinalgOp op, llvm::SmallBitVector &loops,
                           unsigned depth = 0) {
  Operation *def = v.getDefiningOp();
  if (!def || !op->isProperAncestor(def) || depth > 16)
    return;
  if (auto index = dyn_cast<linalg::IndexOp>(def)) {
    loops.set(index.getDim());
    return;
  }
  for (Value operand : def->getOperands())
    dependsOnLoops(operand, op, loops, depth + 1);
}

/// A read in `op`'s body of a tensor of lower rank than its loops, along
/// the innermost loop only (`x[j]` in a loop over i, j): MLIR 22 vectorizes
/// it as a contiguous row broadcast over the other loops, and under a mask
/// gives that transfer_read the loops' mask shape, which does not verify.
static bool isBroadcastRowRead(tensor::ExtractOp read, linalg::LinalgOp op) {
  unsigned numLoops = op.getNumLoops();
  if (read.getTensor().getType().getRank() >= (int64_t)numLoops ||
      read.getIndices().empty())
    return false;
  for (auto [d, index] : llvm::enumerate(read.getIndices())) {
    llvm::SmallBitVector loops(numLoops);
    dependsOnLoops(index, op, loops);
    bool last = d + 1 == read.getIndices().size();
    if (last ? !(loops.count() == 1 && loops.test(numLoops - 1)) : loops.any())
      return false;
  }
  return true;
}

/// Whether `op` must not be vectorized, `masked` or not.
static bool staysScalar(linalg::LinalgOp op, bool masked) {
  // Vectors of i1 are bit masks in LLVM while buffers of i1 hold a byte
  // per element: a vectorized load or store of them reads or writes the
  // wrong bytes, so ops on i1 tensors stay scalar, and so do ops whose body
  // reads one (a gather at subscripts that fold to consecutive ones became
  // a load of a bit mask: `m[i % 3]` of a constant mask).
  // Vectors of bf16 have no x86 instructions without AVX512-BF16, and LLVM
  // 22 cannot legalize several of their ops (min, max, reductions: "Do not
  // know how to soft promote this operator's operand"): scalar bf16 code is
  // promoted to f32 op by op instead.
  auto scalarOnly = [](Type t) {
    Type e = getElementTypeOrSelf(t);
    return e.isInteger(1) || e.isBF16();
  };
  if (llvm::any_of(op->getOperandTypes(), scalarOnly))
    return true;
  // A masked op (run-time sizes) whose body reads a tensor of lower rank
  // than its loops (`parallel for i, j { yield x[j] }` with x of `?` size,
  // which tdsl-raise-extracts leaves): MLIR 22 gives that read a
  // broadcasting transfer_read with a mask of the loops' shape, which does
  // not verify (an internal error).
  return op->walk([&](tensor::ExtractOp read) {
             return read.getType().isInteger(1) ||
                            (masked && isBroadcastRowRead(read, op))
                        ? WalkResult::interrupt()
                        : WalkResult::advance();
           }).wasInterrupted();
}


/// Whether some reduction loop of `op` indexes none of the inputs its body
/// reads.
bool hasConstantReductionLoop(linalg::LinalgOp op) {
  SmallVector<utils::IteratorType> iters = op.getIteratorTypesArray();
  for (unsigned d = 0; d < iters.size(); ++d) {
    if (iters[d] != utils::IteratorType::reduction)
      continue;
    bool read = llvm::any_of(op.getDpsInputOperands(), [&](OpOperand *in) {
      return !op.getMatchingBlockArgument(in).use_empty() &&
             op.getMatchingIndexingMap(in).isFunctionOfDim(d);
    });
    if (!read)
      return true;
  }
  return false;
}

/// The loop that indexes the last dimension of `op`'s input of the highest
/// rank (when that rank is at least 2 and the index is a plain loop).
std::optional<unsigned> innerLoopOfWidestInput(linalg::LinalgOp op) {
  OpOperand *widest = nullptr;
  for (OpOperand *in : op.getDpsInputOperands()) {
    int64_t rank = op.getRank(in);
    if (rank >= 2 && (!widest || rank > op.getRank(widest)))
      widest = in;
  }
  if (!widest)
    return std::nullopt;
  AffineMap map = op.getMatchingIndexingMap(widest);
  auto dim = dyn_cast<AffineDimExpr>(map.getResults().back());
  if (!dim)
    return std::nullopt;
  return dim.getPosition();
}

/// The loop that indexes the last dimension of an input of `op` of rank 2
/// or more, when that is a plain loop and not `op`'s last one.
std::optional<unsigned> transposedInputLoop(linalg::LinalgOp op) {
  unsigned last = op.getNumLoops() - 1;
  for (OpOperand *in : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(in);
    if (map.getNumResults() < 2)
      continue;
    if (auto d = dyn_cast<AffineDimExpr>(map.getResults().back());
        d && d.getPosition() != last)
      return d.getPosition();
  }
  return std::nullopt;
}

/// Whether every output of `op` has its last dimension indexed by the
/// last loop.
bool outputInnerLoopIsLast(linalg::LinalgOp op) {
  unsigned n = op.getNumLoops();
  return llvm::all_of(op.getDpsInitsMutable(), [&](OpOperand &init) {
    AffineMap map = op.getMatchingIndexingMap(&init);
    if (map.getNumResults() == 0)
      return false;
    auto d = dyn_cast<AffineDimExpr>(map.getResults().back());
    return d && d.getPosition() == n - 1;
  });
}

/// Whether every input that a reduction loop reads depends on every
/// parallel loop: a batch of row or column reductions (a layer norm's mean
/// over the last dimension of x[b, t, c]), not a contraction, whose register
/// tile reuses such an input along an output loop.
bool isBatchedReduction(linalg::LinalgOp op) {
  SmallVector<unsigned> parallel, reduction;
  op.getParallelDims(parallel);
  op.getReductionDims(reduction);
  for (OpOperand *in : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(in);
    if (llvm::none_of(reduction, [&](unsigned d) { return map.isFunctionOfDim(d); }))
      continue;
    if (!llvm::all_of(parallel, [&](unsigned d) { return map.isFunctionOfDim(d); }))
      return false;
  }
  return true;
}

struct VectorizePass : tdsl::impl::VectorizeBase<VectorizePass> {
  using Base::Base;

  /// Lanes of a vector register for `op`'s widest element type: the option
  /// counts f32 lanes, and a vector of 16 f64 took two registers, which
  /// doubled the accumulators of an f64 register tile (32 of the 32
  /// registers; PolyBench gemm, 1 thread: 41.7-50.5 -> 36.0-41.6 ms).
  int64_t lanesFor(linalg::LinalgOp op) {
    unsigned bits = 0;
    for (Type t : op->getOperandTypes()) {
      Type e = getElementTypeOrSelf(t);
      if (e.isIntOrFloat())
        bits = std::max(bits, e.getIntOrFloatBitWidth());
    }
    return bits > 32 ? std::max<int64_t>(vectorWidth * 32 / bits, 1) : vectorWidth;
  }

  /// The register tile of `op`; 0 leaves a loop untiled.
  SmallVector<int64_t> registerTile(linalg::LinalgOp op) {
    int64_t lanes = lanesFor(op);
    SmallVector<utils::IteratorType> iters = op.getIteratorTypesArray();
    unsigned n = iters.size();
    SmallVector<int64_t> sizes(n, 1);
    if (n == 0)
      return sizes;
    SmallVector<unsigned> parallel, reduction;
    for (unsigned i = 0; i < n; ++i)
      (iters[i] == utils::IteratorType::parallel ? parallel : reduction).push_back(i);
    // A block of a split whole reduction: all its lanes, one row at a time.
    if (op->hasAttr("tdsl.blocked_reduction")) {
      sizes[n - 1] = op.getStaticLoopRanges()[n - 1];
      return sizes;
    }
    // One output loop (x @ A, A @ x, row or column sums), or a batch of
    // such reductions (several output loops, every reduced input read along
    // all of them: a layer norm's mean over x[b, t, 0..8], which as a
    // contraction read 4 x 16 x 1 vectors across rows with a stride of 8,
    // element by element): the vectors run along the dimension that the
    // widest input keeps contiguous. When that is an output's, each step of
    // the reduction adds into 4 vectors of outputs (4 independent chains:
    // more steps per tile made longer chains and ran slower, 2 vectors
    // too); when it is the reduction's, `rows` outputs take a vector of it
    // at a time (added across rows after a transpose), instead of one output
    // reducing a vector across its lanes at every step. Measured on 2048 x
    // 2048 f32 (1 thread): x @ v 4.4 -> 0.7 ms, v @ x 1.0 -> 0.6 ms, row
    // sums 2.2 -> 0.8 ms, column sums 1.1 -> 0.6 ms.
    if (!reduction.empty() && !parallel.empty() &&
        (parallel.size() == 1 || isBatchedReduction(op))) {
      if (std::optional<unsigned> inner = innerLoopOfWidestInput(op)) {
        if (llvm::is_contained(parallel, *inner)) {
          sizes[*inner] = 4 * lanes;
        } else {
          sizes[parallel.back()] = contractionRows;
          sizes[*inner] = lanes; // one of the reductions
        }
        return sizes;
      }
    }
    if (!reduction.empty() && parallel.size() >= 2) {
      // Contraction: rows x (2 vectors) outer products along one reduction.
      std::optional<tdsl::TileConfig> tuned = tdsl::getTileConfig(op);
      auto [rows, cols] = tdsl::contractionTileLoops(op);
      sizes[rows] = tuned ? tuned->rows : contractionRows;
      sizes[cols] = 2 * lanes;
      return sizes;
    }
    sizes[n - 1] = lanes;
    // A transpose (an input whose contiguous dimension is another loop than
    // the output's): lanes x lanes tiles, read as rows of the input and
    // transposed in registers, instead of a gather down one column per
    // vector, which walks the input with a stride of a row and, for rows
    // of a power of two, through a few cache sets (1024 x 1024 f32 took
    // 8 ms, 10x a blocked C loop).
    // At most 16 rows: a wider --vector-width made tiles of 64 x 64, whose
    // shuffles LLVM took a minute to compile (16-bit elements on AVX2).
    if (reduction.empty() && n >= 2 && outputInnerLoopIsLast(op))
      if (std::optional<unsigned> inner = transposedInputLoop(op))
        sizes[*inner] = std::min<int64_t>(lanes, 16);
    return sizes;
  }

  /// A generic with one output loop that its widest input keeps contiguous
  /// (column sums) with its reduction loops moved first: the vectorizer
  /// gives vectors the loops' order, and reads them as they lie in memory
  /// (rows of the output's lanes added together) instead of transposed.
  static linalg::LinalgOp reductionsFirst(RewriterBase &rw, linalg::LinalgOp op) {
    auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
    if (!generic)
      return op;
    SmallVector<utils::IteratorType> iters = op.getIteratorTypesArray();
    SmallVector<unsigned> order;
    for (unsigned i = 0; i < iters.size(); ++i)
      if (iters[i] == utils::IteratorType::reduction)
        order.push_back(i);
    if (order.empty() || order.size() + 1 != iters.size())
      return op;
    unsigned par = 0;
    while (iters[par] != utils::IteratorType::parallel)
      ++par;
    std::optional<unsigned> inner = innerLoopOfWidestInput(op);
    if (!inner || *inner != par || par > order.front())
      return op;
    // interchangeGenericOp renumbers the linalg.index ops of the body's
    // top level only.
    Block *body = generic.getBody();
    bool nested = false;
    generic.walk([&](linalg::IndexOp index) { nested |= index->getBlock() != body; });
    if (nested)
      return op;
    order.push_back(par);
    rw.setInsertionPoint(generic);
    FailureOr<linalg::GenericOp> swapped = linalg::interchangeGenericOp(rw, generic, order);
    return succeeded(swapped) ? cast<linalg::LinalgOp>(swapped->getOperation()) : op;
  }

  /// A contraction (two inputs, `out + a * b`, several output loops) with
  /// its loops permuted into the result's order, the reductions last, as
  /// asNamedContraction needs: the adjoint of `x @ w` for the input,
  /// `dx[n, k] = sum(o) s[n, o] * w[k, o]`, reduces over the second of its
  /// three loops, and stayed a multiply of two broadcast 8 x 1 x 32 reads
  /// and an add, which LLVM built as vectors of 256 floats lane by lane
  /// (2500 of the digits CNN's 16500 LLVM operations; its compile 1.6 ->
  /// 1.4 s).
  static linalg::LinalgOp resultLoopsFirst(RewriterBase &rw, linalg::LinalgOp op) {
    auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
    if (!generic || generic.getNumDpsInputs() != 2 || generic.getNumDpsInits() != 1 ||
        !linalg::isaContractionOpInterface(generic))
      return op;
    AffineMap out = generic.getIndexingMapsArray().back();
    if (out.getNumResults() < 2 || !out.isProjectedPermutation() ||
        out.getNumResults() != generic.getNumParallelLoops())
      return op;
    SmallVector<unsigned> order;
    for (AffineExpr e : out.getResults())
      order.push_back(cast<AffineDimExpr>(e).getPosition());
    for (unsigned d = 0; d < out.getNumDims(); ++d)
      if (!out.isFunctionOfDim(d))
        order.push_back(d);
    if (llvm::equal(order, llvm::seq<unsigned>(0, order.size())))
      return op;
    rw.setInsertionPoint(generic);
    FailureOr<linalg::GenericOp> permuted = linalg::interchangeGenericOp(rw, generic, order);
    return succeeded(permuted) ? cast<linalg::LinalgOp>(permuted->getOperation()) : op;
  }

  /// A contraction whose one reduction loop is longer than reductionBlock
  /// runs in blocks of that many steps (an scf.for carrying the output): the
  /// rows of A and the columns of B that the register tiles of a block read
  /// then stay in cache across them (8 x 256 and 256 x 32 f32: 8 and 32
  /// KiB). Each output still adds its terms in order: the results do not
  /// change. SGEMM on 1 thread: 1024 15.0 -> 11.0 ms, 2048 190 -> 116 ms.
  linalg::LinalgOp blockReduction(RewriterBase &rw, linalg::LinalgOp op) {
    int64_t kBlock = reductionBlock;
    if (kBlock <= 0 || op.getNumParallelLoops() < 2 || op.getNumReductionLoops() != 1)
      return op;
    SmallVector<utils::IteratorType> iters = op.getIteratorTypesArray();
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    SmallVector<OpFoldResult> sizes;
    bool longer = false;
    for (unsigned i = 0; i < iters.size(); ++i) {
      bool red = iters[i] == utils::IteratorType::reduction;
      longer |= red && (ShapedType::isDynamic(ranges[i]) || ranges[i] > kBlock);
      sizes.push_back(rw.getIndexAttr(red ? kBlock : 0));
    }
    if (!longer)
      return op;
    scf::SCFTilingOptions options;
    options.setTileSizes(sizes);
    rw.setInsertionPoint(op);
    auto tiled = scf::tileUsingSCF(rw, cast<TilingInterface>(op.getOperation()), options);
    if (failed(tiled))
      return op;
    rw.replaceOp(op, tiled->replacements);
    return cast<linalg::LinalgOp>(tiled->tiledOps.front());
  }

  /// Marks the parts of a split op (their reductions are blocked already).
  static constexpr llvm::StringLiteral kSplitAttr = "tdsl.register_split";

  /// A contraction's static loop that its register tile does not divide
  /// (a convolution's 56 columns in tiles of 32) would end in a masked
  /// tile, whose loads and stores are slow and whose window reads do not
  /// vectorize with masks at all: the op is split there into the part the
  /// tile divides and a static remainder narrower than a tile. Returns the
  /// two parts, or none.
  std::optional<std::pair<linalg::LinalgOp, linalg::LinalgOp>>
  splitAtRegisterTiles(RewriterBase &rw, linalg::LinalgOp op, ArrayRef<int64_t> sizes) {
    if (op.getNumReductionLoops() == 0 || op.getNumParallelLoops() < 2)
      return std::nullopt;
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    int64_t lanes = lanesFor(op);
    for (unsigned d = 0; d < sizes.size(); ++d) {
      int64_t r = ranges[d], t = sizes[d];
      if (t <= 1 || ShapedType::isDynamic(r))
        continue;
      // The vectors' loop also splits a remainder at whole vectors: LLVM
      // builds a vector of 24 floats lane by lane through the stack
      // (1024 x 56 columns of a convolution ran at a third of the speed).
      if (r < t && t >= 2 * lanes && r > lanes)
        t = lanes;
      if (r <= t || r % t == 0)
        continue;
      rw.setInsertionPoint(op);
      auto [first, second] = linalg::splitOp(
          rw, cast<TilingInterface>(op.getOperation()), d, rw.getIndexAttr(r / t * t));
      auto a = dyn_cast_or_null<linalg::LinalgOp>(first.getOperation());
      auto b = dyn_cast_or_null<linalg::LinalgOp>(second.getOperation());
      if (!a || !b)
        return std::nullopt;
      a->setAttr(kSplitAttr, rw.getUnitAttr());
      b->setAttr(kSplitAttr, rw.getUnitAttr());
      return std::make_pair(a, b);
    }
    return std::nullopt;
  }

  void runOnOperation() override {
    func::FuncOp fn = getOperation();
    SmallVector<linalg::LinalgOp> ops;
    fn.walk([&](linalg::LinalgOp op) {
      if (op.hasPureTensorSemantics() && !isa<linalg::FillOp>(op) &&
          !tdsl::hasEmptyLoop(op))
        ops.push_back(op);
    });
    IRRewriter rw(&getContext());
    SmallVector<linalg::LinalgOp> work(llvm::reverse(ops));
    while (!work.empty()) {
      linalg::LinalgOp op = work.pop_back_val();
      if (!op->hasAttr(kSplitAttr)) {
        op = resultLoopsFirst(rw, op);
        op = reductionsFirst(rw, op);
        op = blockReduction(rw, op);
      }
      SmallVector<int64_t> sizes = registerTile(op);
      SmallVector<int64_t> ranges = op.getStaticLoopRanges();
      if (auto parts = splitAtRegisterTiles(rw, op, sizes)) {
        work.push_back(parts->second);
        work.push_back(parts->first);
        continue;
      }
      // Loops already no larger than the tile need no scf.for.
      SmallVector<OpFoldResult> tileSizes;
      bool needTiling = false;
      for (unsigned i = 0; i < sizes.size(); ++i) {
        bool small = !ShapedType::isDynamic(ranges[i]) && ranges[i] <= sizes[i];
        tileSizes.push_back(rw.getIndexAttr(small ? 0 : sizes[i]));
        if (small)
          sizes[i] = ranges[i];
        needTiling |= !small;
      }
      Operation *target = op;
      if (needTiling) {
        scf::SCFTilingOptions options;
        options.setTileSizes(tileSizes);
        // Reduction loops innermost, whatever the op's order (see
        // reductionsFirst), so accumulators stay in registers across them.
        SmallVector<int64_t> order;
        SmallVector<utils::IteratorType> iters = op.getIteratorTypesArray();
        for (bool red : {false, true})
          for (unsigned i = 0; i < iters.size(); ++i)
            if ((iters[i] == utils::IteratorType::reduction) == red)
              order.push_back(i);
        options.setInterchange(order);
        rw.setInsertionPoint(op);
        auto tiled = scf::tileUsingSCF(rw, cast<TilingInterface>(op.getOperation()),
                                       options);
        if (failed(tiled))
          continue;
        // One loop per tiled dimension, in `order`: those of reductions are
        // marked for tdsl-defer-lane-reduction.
        unsigned next = 0;
        std::optional<std::pair<unsigned, unsigned>> tileLoops;
        if (tdsl::peelsRunTimeTiles(op))
          tileLoops = tdsl::contractionTileLoops(op);
        tdsl::TileLoop rows{}, cols{};
        for (int64_t d : order) {
          if (isZeroInteger(tileSizes[d]))
            continue;
          if (next < tiled->loops.size() && iters[d] == utils::IteratorType::reduction)
            tiled->loops[next]->setAttr(tdsl::kReductionLoopAttr, rw.getUnitAttr());
          if (next < tiled->loops.size() && tileLoops && ShapedType::isDynamic(ranges[d]))
            if (auto loop = dyn_cast<scf::ForOp>(tiled->loops[next].getOperation())) {
              if ((unsigned)d == tileLoops->first)
                rows = {loop, sizes[d]};
              else if ((unsigned)d == tileLoops->second)
                cols = {loop, sizes[d]};
            }
          ++next;
        }
        rw.replaceOp(op, tiled->replacements);
        target = tiled->tiledOps.front();
        if (rows.loop || cols.loop) {
          int64_t narrow = std::max<int64_t>(lanesFor(op) / 2, 1);
          linalg::LinalgOp columnsRest;
          for (linalg::LinalgOp tile :
               tdsl::peelRunTimeTiles(rw, cast<linalg::LinalgOp>(target), rows, cols,
                                      narrow, &columnsRest)) {
            // The last columns, fewer than `narrow`, in one masked vector
            // of `narrow` lanes (a scalar loop cost a convolution's input
            // adjoint, 58 columns, more than the 56 before them).
            SmallVector<int64_t> tileSizes(sizes);
            if (tile == columnsRest && cols.loop)
              tileSizes[tileLoops->second] = narrow;
            vectorizeTile(rw, tile, tileSizes);
          }
          continue;
        }
      }
      vectorizeTile(rw, cast<linalg::LinalgOp>(target), sizes);
    }
    unmaskFloatMinMaxReductions(fn);
    unmaskContractions(fn);
  }

  /// Vectorizes one register tile; `sizes` are the vector sizes for a tile
  /// of run-time sizes.
  void vectorizeTile(IRRewriter &rw, linalg::LinalgOp targetOp, SmallVector<int64_t> sizes) {
    Operation *target = targetOp;
    // Static tiles vectorize by their shape; dynamic ones need the sizes
    // (and get masks). The scalable flags must be given too: without them
    // the vectorizer reads mask shapes from an empty array.
    if (!targetOp.hasDynamicShape())
      sizes.clear();
    if (staysScalar(targetOp, /*masked=*/!sizes.empty()))
      return;
    // A reduction loop along which the body reads no input (a fill folded
    // into it: sum(ones(...)), or only broadcast scalars: the sum of
    // exp(c - max(c)) for a constant c) is vectorized by MLIR 22 as one
    // step, not one per iteration; such a reduction stays scalar.
    if (hasConstantReductionLoop(targetOp))
      return;
    if (auto generic = dyn_cast<linalg::GenericOp>(target))
      if (linalg::GenericOp dropped = dropUnitWindowLoops(rw, generic, sizes)) {
        target = dropped;
        // Without its window loops a convolution's input adjoint (loops n,
        // k, c, di, dj, i, j: a reduction among the result's loops, which a
        // window read kept from being permuted before) is a contraction
        // once its result loops come first: FMAs, not a multiply and an add.
        if (sizes.empty())
          target = resultLoopsFirst(rw, dropped).getOperation();
      }
    if (auto generic = dyn_cast<linalg::GenericOp>(target))
      if (Operation *named = asNamedContraction(rw, generic))
        target = named;
    if (auto generic = dyn_cast<linalg::GenericOp>(target))
      if (linalg::GenericOp read = readOutputsAsInputs(rw, generic))
        target = read;
    SmallVector<bool> scalable(sizes.size(), false);
    if (failed(linalg::vectorizeOpPrecondition(target, sizes, scalable)))
      return;
    rw.setInsertionPoint(target);
    // Contractions as vector.contract, so they lower to FMAs.
    auto vec = linalg::vectorize(rw, target, sizes, scalable,
                                 /*vectorizeNDExtract=*/false,
                                 /*flatten1DDepthwiseConv=*/false,
                                 /*assumeDynamicDimsMatchVecSizes=*/false,
                                 /*createNamedContraction=*/true);
    if (failed(vec))
      return;
    if (!vec->replacements.empty())
      rw.replaceOp(target, vec->replacements);
    else
      rw.eraseOp(target);
  }
};

} // namespace
