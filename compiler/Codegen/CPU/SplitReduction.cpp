//===- SplitReduction.cpp - whole reductions as parallel blocked sums -------===//
//
// A reduction of a whole tensor (every loop a reduction) would run as one
// serial chain into a scalar: slow, and for float sums inaccurate (the error
// grows with the number of terms). It is split instead, over the elements in
// memory order (e = 0 .. n-1), n = nfull * B + rows * L + rest:
//
//   stage 1: lanes[b, l] = combine of e = b*B + r*L + l over r < B/L
//            (in parallel over the blocks b < nfull)
//   stage 2: cols[l] = combine of lanes[b, l] over b, then of the rows
//            e = nfull*B + r*L + l, r < rows
//   stage 3: init, combined with cols[l] over l, then with the last `rest`
//            elements one by one
//
// The shape depends on n only (never on the thread count), so the result is
// the same at any number of threads; a float sum adds no chain longer than
// B/L, n/B + B/L or 2L terms.
//
//===----------------------------------------------------------------------===//
#include "compiler/Codegen/CPU/Passes.h"
#include "compiler/Codegen/Common/Combine.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace tdsl {
#define GEN_PASS_DEF_SPLITREDUCTION
#include "compiler/Codegen/CPU/Passes.h.inc"
} // namespace tdsl

using namespace mlir;

namespace {

/// The loops of a whole reduction `op` (the caller has checked: every loop
/// a reduction, one 0-d output combined by a combiner) in the memory order
/// of the tensors it reads and writes element by element: the one
/// permutation of the loops that indexes every operand but scalar inputs
/// (fused element-wise outputs included), the identity when no operand
/// fixes it, nothing when two disagree.
std::optional<AffineMap> wholeReductionOrder(linalg::GenericOp op) {
  unsigned reduced = op.getNumDpsInputs() + *tdsl::reducedOutput(op);
  AffineMap order;
  for (OpOperand &operand : op->getOpOperands()) {
    AffineMap map = op.getMatchingIndexingMap(&operand);
    if (operand.getOperandNumber() == reduced ||
        (map.getNumResults() == 0 && op.isDpsInput(&operand)))
      continue;
    if (!map.isPermutation() || (order && map != order))
      return std::nullopt;
    order = map;
  }
  return order ? order : AffineMap::getMultiDimIdentityMap(op.getNumLoops(), op.getContext());
}

struct Builder {
  OpBuilder &b;
  Location loc;
  Value index(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value mul(Value x, Value y) { return b.createOrFold<arith::MulIOp>(loc, x, y); }
  Value add(Value x, Value y) { return b.createOrFold<arith::AddIOp>(loc, x, y); }
  Value sub(Value x, Value y) { return b.createOrFold<arith::SubIOp>(loc, x, y); }
  Value div(Value x, Value y) { return b.createOrFold<arith::DivUIOp>(loc, x, y); }
  Value rem(Value x, Value y) { return b.createOrFold<arith::RemUIOp>(loc, x, y); }
  /// A static size as an attribute, a dynamic one as the value.
  OpFoldResult size(Value v) {
    if (auto c = getConstantIntValue(v))
      return b.getIndexAttr(*c);
    return v;
  }
  Value filled(ArrayRef<OpFoldResult> shape, Type elem, TypedAttr identity) {
    Value empty = tensor::EmptyOp::create(b, loc, shape, elem);
    Value id = arith::ConstantOp::create(b, loc, identity);
    return linalg::FillOp::create(b, loc, id, empty).getResult(0);
  }
  /// A generic whose body is `yield combiner(in, acc)`.
  Value combineAll(Value in, Value init, ArrayRef<AffineMap> maps,
                   ArrayRef<utils::IteratorType> iters, Operation *combiner) {
    auto g = linalg::GenericOp::create(
        b, loc, TypeRange{init.getType()}, ValueRange{in}, ValueRange{init}, maps,
        iters, [&](OpBuilder &nb, Location nl, ValueRange args) {
          IRMapping m;
          Operation *c = nb.clone(*combiner, m);
          c->setOperands({args[0], args[1]});
          linalg::YieldOp::create(nb, nl, c->getResult(0));
        });
    return g.getResult(0);
  }
};

/// One whole reduction being split: its operands as runs of n elements in
/// memory order, and the pieces that cover them.
struct Split {
  linalg::GenericOp op;
  AffineMap order;
  OpBuilder &b;
  Builder h;
  unsigned reduced;           // operand number of the 0-d output
  SmallVector<Value> flat;    // per operand: 1-D in memory order, or null
  SmallVector<Value> memSizes; // sizes of the memory-order dimensions
  Value n;

  Split(linalg::GenericOp op, AffineMap order, OpBuilder &b)
      : op(op), order(order), b(b), h{b, op.getLoc()},
        reduced(op.getNumDpsInputs() + *tdsl::reducedOutput(op)) {
    Location loc = op.getLoc();
    SmallVector<Range, 4> ranges =
        cast<linalg::LinalgOp>(op.getOperation()).createLoopRanges(b, loc);
    n = h.index(1);
    for (unsigned j = 0; j < order.getNumResults(); ++j) {
      memSizes.push_back(getValueOrCreateConstantIndexOp(
          b, loc, ranges[order.getDimPosition(j)].size));
      n = h.mul(n, memSizes.back());
    }
    for (OpOperand &operand : op->getOpOperands()) {
      auto type = cast<RankedTensorType>(operand.get().getType());
      if (operand.getOperandNumber() == reduced ||
          op.getMatchingIndexingMap(&operand).getNumResults() == 0) {
        flat.push_back(Value());
        continue;
      }
      ReassociationIndices all;
      for (int64_t d = 0; d < type.getRank(); ++d)
        all.push_back(d);
      flat.push_back(type.getRank() == 1
                         ? operand.get()
                         : tensor::CollapseShapeOp::create(
                               b, loc, operand.get(), ArrayRef<ReassociationIndices>{all})
                               .getResult());
    }
  }

  /// `op` over the elements [at, at + count) of the flat operands, shaped
  /// `shape` (count = its product), accumulating into `acc` (indexed by
  /// `accMap`); `position` gives, inside the new body, the memory-order
  /// position of the current element (for linalg.index).
  linalg::GenericOp piece(Value at, Value count, ArrayRef<OpFoldResult> shape, Value acc,
                          AffineMap accMap, ArrayRef<utils::IteratorType> iters,
                          function_ref<Value(OpBuilder &)> position) {
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    unsigned rank = shape.size();
    // A slice may not start at the end of its source, even when empty: an
    // empty piece starts at n - 1 (minui keeps n = 0 at 0).
    Value start = b.createOrFold<arith::MinUIOp>(loc, at, h.sub(n, h.index(1)));
    SmallVector<int64_t> staticShape;
    for (OpFoldResult s : shape)
      staticShape.push_back(getConstantIntValue(s).value_or(ShapedType::kDynamic));
    SmallVector<Value> operands;
    SmallVector<AffineMap> maps;
    for (OpOperand &operand : op->getOpOperands()) {
      Value f = flat[operand.getOperandNumber()];
      if (operand.getOperandNumber() == reduced) {
        operands.push_back(acc);
        maps.push_back(accMap);
        continue;
      }
      if (!f) { // a scalar, read as it is
        operands.push_back(operand.get());
        maps.push_back(AffineMap::get(rank, 0, ctx));
        continue;
      }
      Value slice = tensor::ExtractSliceOp::create(
          b, loc, f, ArrayRef<OpFoldResult>{getAsOpFoldResult(start)},
          ArrayRef<OpFoldResult>{getAsOpFoldResult(count)},
          ArrayRef<OpFoldResult>{b.getIndexAttr(1)});
      if (rank > 1) {
        ReassociationIndices all;
        for (unsigned d = 0; d < rank; ++d)
          all.push_back(d);
        auto type = RankedTensorType::get(
            staticShape, cast<ShapedType>(f.getType()).getElementType());
        slice = tensor::ExpandShapeOp::create(b, loc, type, slice,
                                              ArrayRef<ReassociationIndices>{all}, shape);
      }
      operands.push_back(slice);
      maps.push_back(AffineMap::getMultiDimIdentityMap(rank, ctx));
    }
    unsigned numIns = op.getNumDpsInputs();
    ValueRange ins = ValueRange(operands).take_front(numIns);
    ValueRange outs = ValueRange(operands).drop_front(numIns);
    auto g = linalg::GenericOp::create(b, loc, outs.getTypes(), ins, outs, maps, iters);
    IRMapping m;
    op.getRegion().cloneInto(&g.getRegion(), m);
    g->setAttr("tdsl.split", b.getUnitAttr());
    replaceIndices(g, position);
    return g;
  }

  /// The body's linalg.index ops (loops of `op`) from the element's
  /// memory-order position, delinearized over the memory-order sizes.
  void replaceIndices(linalg::GenericOp g, function_ref<Value(OpBuilder &)> position) {
    SmallVector<linalg::IndexOp> indices(g.getBody()->getOps<linalg::IndexOp>());
    if (indices.empty())
      return;
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(g.getBody());
    Value e = position(b);
    SmallVector<Value> loop(order.getNumDims());
    for (int j = order.getNumResults() - 1; j > 0; --j) {
      loop[order.getDimPosition(j)] = h.rem(e, memSizes[j]);
      e = h.div(e, memSizes[j]);
    }
    loop[order.getDimPosition(0)] = e;
    for (linalg::IndexOp index : indices) {
      index.replaceAllUsesWith(loop[index.getDim()]);
      index.erase();
    }
  }

  /// `whole` (an element-wise output, 1-D) with `part`'s result `i` written
  /// at `at`.
  Value place(Value whole, linalg::GenericOp part, unsigned i, Value at) {
    Location loc = op.getLoc();
    Value r = part.getResult(i);
    auto type = cast<RankedTensorType>(r.getType());
    if (type.getRank() > 1) {
      ReassociationIndices all;
      for (int64_t d = 0; d < type.getRank(); ++d)
        all.push_back(d);
      r = tensor::CollapseShapeOp::create(b, loc, r, ArrayRef<ReassociationIndices>{all});
    }
    Value size = b.createOrFold<tensor::DimOp>(loc, r, 0);
    Value start = b.createOrFold<arith::MinUIOp>(loc, at, h.sub(n, h.index(1)));
    return tensor::InsertSliceOp::create(b, loc, r, whole,
                                         ArrayRef<OpFoldResult>{getAsOpFoldResult(start)},
                                         ArrayRef<OpFoldResult>{getAsOpFoldResult(size)},
                                         ArrayRef<OpFoldResult>{b.getIndexAttr(1)});
  }
};

struct SplitReductionPass : tdsl::impl::SplitReductionBase<SplitReductionPass> {
  using Base::Base;

  void split(linalg::GenericOp op, AffineMap order) {
    OpBuilder b(op);
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    Split sp(op, order, b);
    Builder &h = sp.h;
    Operation *combiner = tdsl::combinerOp(op);
    Type accType = combiner->getResult(0).getType();
    TypedAttr identity = tdsl::identityOf(accType, tdsl::combineKindOf(combiner));
    const int64_t L = lanes, B = blockSize, R = B / L;
    using IT = utils::IteratorType;
    auto isZero = [](Value v) { return getConstantIntValue(v) == 0; };
    auto dims = [&](ArrayRef<unsigned> ds, unsigned rank) {
      SmallVector<AffineExpr> es;
      for (unsigned d : ds)
        es.push_back(b.getAffineDimExpr(d));
      return AffineMap::get(rank, 0, es, ctx);
    };
    auto loopIndex = [](OpBuilder &nb, Location l, unsigned d) -> Value {
      return linalg::IndexOp::create(nb, l, d);
    };

    // n = nfull * B + rows * L + rest.
    Value n = sp.n;
    Value nfull = h.div(n, h.index(B));
    Value head = h.mul(nfull, h.index(B));
    Value afterHead = h.sub(n, head);
    Value rows = h.div(afterHead, h.index(L));
    Value rowElems = h.mul(rows, h.index(L));
    Value restAt = h.add(head, rowElems);
    Value rest = h.sub(afterHead, rowElems);
    SmallVector<std::pair<linalg::GenericOp, Value>> pieces; // and their offsets

    // Stage 1: blocks of B elements, L lanes each, in parallel over blocks.
    Value lanesInit = h.filled({h.size(nfull), b.getIndexAttr(L)}, accType, identity);
    linalg::GenericOp blocks = sp.piece(
        h.index(0), head, {h.size(nfull), b.getIndexAttr(R), b.getIndexAttr(L)}, lanesInit,
        dims({0, 2}, 3), {IT::parallel, IT::reduction, IT::parallel}, [&](OpBuilder &nb) {
          Builder g{nb, loc};
          return g.add(g.mul(loopIndex(nb, loc, 0), g.index(B)),
                       g.add(g.mul(loopIndex(nb, loc, 1), g.index(L)), loopIndex(nb, loc, 2)));
        });
    blocks->setAttr("tdsl.blocked_reduction", b.getUnitAttr());
    pieces.push_back({blocks, h.index(0)});
    unsigned r = sp.reduced - op.getNumDpsInputs();

    // Stage 2: the blocks' lanes lane by lane, then the rows after them.
    Value cols = h.combineAll(blocks.getResult(r),
                              h.filled({b.getIndexAttr(L)}, accType, identity),
                              {dims({0, 1}, 2), dims({1}, 2)},
                              {IT::reduction, IT::parallel}, combiner);
    // The rows go into lanes of their own, combined with the blocks' after:
    // added onto the blocks' sums (1024 after two blocks of ones), each
    // small term lost its low bits (a sum of 98303 f32 was 2e-5 off).
    if (!isZero(rows)) {
      linalg::GenericOp p = sp.piece(
          head, rowElems, {h.size(rows), b.getIndexAttr(L)},
          h.filled({b.getIndexAttr(L)}, accType, identity), dims({1}, 2),
          {IT::reduction, IT::parallel}, [&](OpBuilder &nb) {
            Builder g{nb, loc};
            return g.add(head, g.add(g.mul(loopIndex(nb, loc, 0), g.index(L)),
                                     loopIndex(nb, loc, 1)));
          });
      cols = h.combineAll(p.getResult(r), cols, {dims({0}, 1), dims({0}, 1)},
                          {IT::parallel}, combiner);
      pieces.push_back({p, head});
    }

    // Stage 3: the initial value, the lanes, then the last elements.
    Value whole = h.combineAll(cols, op.getDpsInits()[r], {dims({0}, 1), dims({}, 1)},
                               {IT::reduction}, combiner);
    whole.getDefiningOp()->setAttr("tdsl.split", b.getUnitAttr());
    if (!isZero(rest)) {
      // Summed apart too, then added to the total.
      linalg::GenericOp p = sp.piece(restAt, rest, {h.size(rest)},
                                     h.filled({}, accType, identity), dims({}, 1),
                                     {IT::reduction}, [&](OpBuilder &nb) {
                                       return Builder{nb, loc}.add(restAt,
                                                                   loopIndex(nb, loc, 0));
                                     });
      whole = h.combineAll(p.getResult(r), whole, {dims({}, 0), dims({}, 0)}, {},
                           combiner);
      pieces.push_back({p, restAt});
    }

    // Element-wise outputs fused into the reduction: their pieces put back
    // together, in the output's shape.
    SmallVector<Value> results;
    for (OpOperand &init : op.getDpsInitsMutable()) {
      unsigned i = init.getOperandNumber() - op.getNumDpsInputs();
      if (i == r) {
        results.push_back(whole);
        continue;
      }
      Value f = sp.flat[init.getOperandNumber()];
      for (auto [p, at] : pieces)
        f = sp.place(f, p, i, at);
      auto type = cast<RankedTensorType>(init.get().getType());
      if (type.getRank() > 1) {
        ReassociationIndices all;
        SmallVector<OpFoldResult> shape;
        for (int64_t d = 0; d < type.getRank(); ++d) {
          all.push_back(d);
          shape.push_back(tensor::getMixedSize(b, loc, init.get(), d));
        }
        f = tensor::ExpandShapeOp::create(b, loc, type, f,
                                          ArrayRef<ReassociationIndices>{all}, shape);
      }
      results.push_back(f);
    }
    op->replaceAllUsesWith(results);
    op->erase();
  }

  /// `op`, of run-time size, as `n >= 2 * blockSize ? op : op`: the copy
  /// returned, to split, and one for smaller sizes that stays one chain
  /// (marked so that it is not split again).
  linalg::GenericOp versionBySize(linalg::GenericOp op) {
    OpBuilder b(op);
    Location loc = op.getLoc();
    Value n = arith::ConstantIndexOp::create(b, loc, 1);
    for (Range &r : cast<linalg::LinalgOp>(op.getOperation()).createLoopRanges(b, loc))
      n = b.createOrFold<arith::MulIOp>(loc, n,
                                        getValueOrCreateConstantIndexOp(b, loc, r.size));
    Value large = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, n,
                                        arith::ConstantIndexOp::create(b, loc, 2 * blockSize));
    auto version = scf::IfOp::create(b, loc, op->getResultTypes(), large,
                                     /*addThenBlock=*/true, /*addElseBlock=*/true);
    b.setInsertionPointToStart(version.thenBlock());
    auto split = cast<linalg::GenericOp>(b.clone(*op));
    scf::YieldOp::create(b, loc, split->getResults());
    b.setInsertionPointToStart(version.elseBlock());
    Operation *chain = b.clone(*op);
    chain->setAttr("tdsl.split", b.getUnitAttr());
    scf::YieldOp::create(b, loc, chain->getResults());
    op->replaceAllUsesWith(version.getResults());
    op->erase();
    return split;
  }

  /// The fallback for operands read in different orders (`sum(i, j)
  /// a[i, j] * b[j, i]`): one partial result per value of the first loop,
  /// in parallel, then those combined in order.
  void splitRows(linalg::GenericOp op) {
    OpBuilder b(op);
    Location loc = op.getLoc();
    Builder h{b, loc};
    Operation *combiner = tdsl::combinerOp(op);
    Type accType = combiner->getResult(0).getType();
    TypedAttr identity = tdsl::identityOf(accType, tdsl::combineKindOf(combiner));
    unsigned r = *tdsl::reducedOutput(op);
    SmallVector<Range, 4> ranges =
        cast<linalg::LinalgOp>(op.getOperation()).createLoopRanges(b, loc);
    Value partials = h.filled({ranges[0].size}, accType, identity);
    SmallVector<Value> outs(op.getDpsInits());
    outs[r] = partials;
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    unsigned numLoops = op.getNumLoops();
    maps[op.getNumDpsInputs() + r] =
        AffineMap::get(numLoops, 0, {b.getAffineDimExpr(0)}, op.getContext());
    SmallVector<utils::IteratorType> iters = op.getIteratorTypesArray();
    iters[0] = utils::IteratorType::parallel;
    auto rowsOp = linalg::GenericOp::create(b, loc, ValueRange(outs).getTypes(),
                                            op.getDpsInputs(), outs, maps, iters);
    IRMapping m;
    op.getRegion().cloneInto(&rowsOp.getRegion(), m);
    rowsOp->setAttr("tdsl.split", b.getUnitAttr());
    MLIRContext *ctx = op.getContext();
    Value whole = h.combineAll(rowsOp.getResult(r), op.getDpsInits()[r],
                               {AffineMap::getMultiDimIdentityMap(1, ctx),
                                AffineMap::get(1, 0, ctx)},
                               {utils::IteratorType::reduction}, combiner);
    whole.getDefiningOp()->setAttr("tdsl.split", b.getUnitAttr());
    SmallVector<Value> results(rowsOp.getResults());
    results[r] = whole;
    op->replaceAllUsesWith(results);
    op->erase();
  }

  void runOnOperation() override {
    SmallVector<linalg::GenericOp> ops;
    getOperation().walk([&](linalg::GenericOp op) {
      if (!op->hasAttr("tdsl.split") && !op->getParentOfType<scf::ForallOp>() &&
          !op->getParentOfType<linalg::LinalgOp>() && op.getNumLoops() > 0 &&
          op.getNumParallelLoops() == 0 && op.hasPureTensorSemantics() &&
          tdsl::combinerOp(op) &&
          op.getIndexingMapsArray()[op.getNumDpsInputs() + *tdsl::reducedOutput(op)]
                  .getNumResults() == 0)
        ops.push_back(op);
    });
    for (linalg::GenericOp op : ops) {
      // Small reductions stay one chain: static ones here, run-time ones
      // in a version of their own (the order depends on the size only).
      SmallVector<int64_t> ranges = op.getStaticLoopRanges();
      int64_t total = 1;
      for (int64_t r : ranges)
        total = ShapedType::isDynamic(r) || total < 0 ? -1 : total * r;
      if (total >= 0 && total < 2 * blockSize)
        continue;
      if (total < 0)
        op = versionBySize(op);
      if (std::optional<AffineMap> order = wholeReductionOrder(op))
        split(op, *order);
      else if (ranges.size() > 1 && ranges[0] != 1)
        splitRows(op);
    }
  }
};

} // namespace
