//===- InvertedAdjoint.cpp - Adjoints of offset reads as gathers ----------===//
//
// The adjoint of an index_gen input read at `y + dy` (a convolution's
// image) or `2 * y + dy` (a pooling window): instead of a loop over the
// whole input dimension per iteration with an equality mask, each subscript
// is solved for one of its loops, as Halide inverts such accesses. For
//   out[n, k, y, x] = sum(c, dy, dx) w[k, c, dy, dx] * img[n, c, y + dy, x + dx]
// the adjoint of img has loops (n, k, c, dy, dx, p, q) with y = p - dy and
// x = q - dx, and an iteration contributes only where y and x are in
// range: a gather over the kernel window, deterministic, with no atomics.
// Operands read at a solved loop (the seed at (n, k, y, x)) are read inside
// the body, at clamped positions, since their positions can be out of range
// where the iteration does not contribute.
//
//===----------------------------------------------------------------------===//
#include "dialects/TDSL/Transforms/ReverseMode.h"
#include "dialects/TDSL/IR/TDSLOps.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/IRMapping.h"

#include <limits>
#include <map>

using namespace mlir;
using namespace tdsl::ir;

namespace {
/// `e` as coefficients of dims plus a constant, or nothing when it is not a
/// linear function of the dims.
struct Linear {
  std::map<unsigned, int64_t> coef;
  int64_t constant = 0;
};

std::optional<Linear> linearize(AffineExpr e) {
  Linear l;
  if (auto d = dyn_cast<AffineDimExpr>(e)) {
    l.coef[d.getPosition()] = 1;
    return l;
  }
  if (auto c = dyn_cast<AffineConstantExpr>(e)) {
    l.constant = c.getValue();
    return l;
  }
  auto bin = dyn_cast<AffineBinaryOpExpr>(e);
  if (!bin || (e.getKind() != AffineExprKind::Add &&
               e.getKind() != AffineExprKind::Mul))
    return std::nullopt;
  auto a = linearize(bin.getLHS()), b = linearize(bin.getRHS());
  if (!a || !b)
    return std::nullopt;
  if (e.getKind() == AffineExprKind::Add) {
    for (auto [d, c] : b->coef)
      a->coef[d] += c;
    a->constant += b->constant;
    return a;
  }
  // A product is linear when one side is a constant.
  if (!b->coef.empty())
    std::swap(a, b);
  if (!b->coef.empty())
    return std::nullopt;
  for (auto &[d, c] : a->coef)
    c *= b->constant;
  a->constant *= b->constant;
  return a;
}

/// One subscript of the differentiated input solved for one loop: the
/// loop's value is (p - rest) / coef, where p is a loop of the adjoint.
struct Solved {
  unsigned oldDim;
  unsigned newLoop;
  AffineExpr rest;
  int64_t coef;
  Value extent; // the old loop's extent, an index
};

/// The static extent of old loop `d` where an operand's type gives it.
int64_t staticExtent(IndexGenOp gen, unsigned d) {
  auto maps = gen.getIndexingMapsArray();
  SmallVector<Value> operands(gen.getInputs());
  operands.push_back(gen.getResult());
  for (auto [v, m] : llvm::zip(operands, maps)) {
    auto type = dyn_cast<RankedTensorType>(v.getType());
    auto pos = m.getResultPosition(getAffineDimExpr(d, gen.getContext()));
    if (type && pos && !type.isDynamicDim(*pos))
      return type.getDimSize(*pos);
  }
  return std::numeric_limits<int64_t>::max();
}
} // namespace

FailureOr<Value> ReverseSweep::invertedAdjoint(Operation *op, Value g,
                                               unsigned inputIndex,
                                               const Extremum &extremum,
                                               bool &applicable) {
  applicable = false;
  auto gen = cast<IndexGenOp>(op);
  Location loc = op->getLoc();
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineMap> maps = gen.getIndexingMapsArray();
  unsigned numOld = gen.getIteratorTypes().size();
  AffineMap inMap = maps[inputIndex];
  Value input = gen.getInputs()[inputIndex];
  // Operands that give the extents of the old loops: the inputs and the
  // seed (shaped like the result).
  SmallVector<Value> operands(gen.getInputs());
  operands.push_back(g);

  // Plan: which results of the input's map are plain loops, solved, or
  // masked (an equality with a new loop).
  SmallVector<unsigned> uses(numOld, 0);
  for (AffineExpr e : inMap.getResults())
    for (unsigned d = 0; d < numOld; ++d)
      uses[d] += e.isFunctionOfDim(d);
  llvm::SmallBitVector taken(numOld);
  SmallVector<int> plainOf(inMap.getNumResults(), -1);
  for (auto [j, e] : llvm::enumerate(inMap.getResults()))
    if (auto d = dyn_cast<AffineDimExpr>(e); d && !taken.test(d.getPosition())) {
      taken.set(d.getPosition());
      plainOf[j] = d.getPosition();
    }
  struct Pending {
    unsigned result;
    int solvedDim; // -1: masked
    AffineExpr rest;
    int64_t coef = 1;
  };
  SmallVector<Pending> pending;
  for (auto [j, e] : llvm::enumerate(inMap.getResults())) {
    if (plainOf[j] >= 0)
      continue;
    Pending p{(unsigned)j, -1, {}, 1};
    if (auto lin = linearize(e)) {
      // The loop to solve for: used by this subscript only, with the
      // largest coefficient, then the largest extent (y in y + dy).
      int best = -1;
      for (auto [d, c] : lin->coef) {
        if (c <= 0 || taken.test(d) || uses[d] != 1)
          continue;
        if (best < 0 || c > lin->coef[best] ||
            (c == lin->coef[best] &&
             staticExtent(gen, d) > staticExtent(gen, best)))
          best = d;
      }
      if (best >= 0) {
        taken.set(best);
        p.solvedDim = best;
        p.coef = lin->coef[best];
        // The rest, built from the other terms (no solved loop in it).
        p.rest = getAffineConstantExpr(lin->constant, ctx);
        for (auto [d, c] : lin->coef)
          if ((int)d != best && c != 0)
            p.rest = p.rest + getAffineDimExpr(d, ctx) * c;
      }
    }
    pending.push_back(p);
  }
  if (llvm::none_of(pending, [](const Pending &p) { return p.solvedDim >= 0; }))
    return failure(); // nothing to invert: the masked adjoint is as good

  // New loops: the old ones not solved, in order, then one per pending
  // subscript.
  SmallVector<int> newPos(numOld, -1);
  unsigned numLoops = 0;
  llvm::SmallBitVector solvedDims(numOld);
  for (const Pending &p : pending)
    if (p.solvedDim >= 0)
      solvedDims.set(p.solvedDim);
  for (unsigned d = 0; d < numOld; ++d)
    if (!solvedDims.test(d))
      newPos[d] = numLoops++;
  SmallVector<Solved> solved;
  SmallVector<std::pair<unsigned, AffineExpr>> masked;
  SmallVector<AffineExpr> out(inMap.getNumResults());
  for (auto [j, d] : llvm::enumerate(plainOf))
    if (d >= 0)
      out[j] = getAffineDimExpr(newPos[d], ctx);
  for (const Pending &p : pending) {
    unsigned loop = numLoops++;
    out[p.result] = getAffineDimExpr(loop, ctx);
    if (p.solvedDim < 0) {
      masked.push_back({loop, inMap.getResult(p.result)});
      continue;
    }
    // The solved loop's extent, from an operand that has it plainly.
    Value extent;
    AffineExpr dim = getAffineDimExpr(p.solvedDim, ctx);
    for (unsigned k = 0; k < operands.size() && !extent; ++k) {
      AffineMap m = k + 1 == operands.size() ? maps.back() : maps[k];
      auto type = dyn_cast<RankedTensorType>(operands[k].getType());
      if (auto pos = m.getResultPosition(dim); pos && type)
        extent = tensor::DimOp::create(b, loc, operands[k], *pos);
    }
    if (!extent)
      return failure();
    solved.push_back({(unsigned)p.solvedDim, loop, p.rest, p.coef, extent});
  }

  // Operands read through a map of the new loops, or (when a map uses a
  // solved loop) inside the body.
  auto usesSolved = [&](AffineMap m) {
    return llvm::any_of(solved, [&](const Solved &s) {
      return m.isFunctionOfDim(s.oldDim);
    });
  };
  SmallVector<AffineExpr> renumber;
  for (unsigned d = 0; d < numOld; ++d)
    renumber.push_back(newPos[d] >= 0 ? getAffineDimExpr(newPos[d], ctx)
                                      : getAffineConstantExpr(0, ctx));
  auto moved = [&](AffineMap m) {
    return AffineMap::get(numLoops, 0,
                          m.replaceDimsAndSymbols(renumber, {}, numLoops, 0)
                              .getResults(),
                          ctx);
  };
  SmallVector<Value> newInputs;
  SmallVector<AffineMap> newMaps;
  // Per primal input: its argument of the new body, or -1 (read inside).
  SmallVector<int> argOf;
  llvm::SmallBitVector covered(numLoops);
  auto addInput = [&](Value v, AffineMap m) {
    newInputs.push_back(v);
    newMaps.push_back(m);
    for (AffineExpr e : m.getResults())
      if (auto d = dyn_cast<AffineDimExpr>(e))
        covered.set(d.getPosition());
    return (int)newInputs.size() - 1;
  };
  for (auto [k, v] : llvm::enumerate(gen.getInputs()))
    argOf.push_back(k == inputIndex || usesSolved(maps[k])
                        ? -1
                        : addInput(v, moved(maps[k])));
  bool seedInBody = usesSolved(maps.back());
  int seedArg = seedInBody ? -1 : addInput(g, moved(maps.back()));
  int firstArg = -1;
  if (extremum.first && !seedInBody)
    firstArg = addInput(extremum.first, moved(maps.back()));
  AffineMap outMap = AffineMap::get(numLoops, 0, out, ctx);
  // The input itself, at the adjoint's element: its value in the body, and
  // the extents of the new loops.
  argOf[inputIndex] = addInput(input, outMap);
  if (!covered.all())
    return failure(); // some loop would have no extent
  newMaps.push_back(outMap);
  applicable = true;

  Block &old = gen.getRegion().front();
  FailureOr<Value> result = failure();
  Value adjoint = buildIndexGen(
      b, loc, input.getType(), newInputs, newMaps, numLoops,
      [&](OpBuilder &bb, ValueRange args) -> Value {
        Type i64 = bb.getI64Type();
        auto cst = [&](int64_t v) -> Value {
          return ConstantOp::create(bb, loc, bb.getI64IntegerAttr(v));
        };
        auto cmp = [&](CmpPredicate p, Value x, Value y) -> Value {
          return CmpOp::create(bb, loc, bb.getI1Type(), p, x, y);
        };
        // Every old loop's value (a solved one clamped to its range), and
        // whether this iteration is one of the primal's.
        SmallVector<Value> oldValue(numOld);
        for (unsigned d = 0; d < numOld; ++d)
          if (newPos[d] >= 0)
            oldValue[d] = loopIndex(bb, loc, newPos[d]);
        Value valid = ConstantOp::create(bb, loc, bb.getBoolAttr(true));
        std::function<Value(AffineExpr)> eval = [&](AffineExpr e) -> Value {
          if (auto d = dyn_cast<AffineDimExpr>(e))
            return oldValue[d.getPosition()];
          if (auto c = dyn_cast<AffineConstantExpr>(e))
            return cst(c.getValue());
          auto bin = cast<AffineBinaryOpExpr>(e);
          Value l = eval(bin.getLHS()), r = eval(bin.getRHS());
          switch (e.getKind()) {
          case AffineExprKind::Add: return AddOp::create(bb, loc, l, r);
          case AffineExprKind::Mul: return MulOp::create(bb, loc, l, r);
          case AffineExprKind::FloorDiv: return DivOp::create(bb, loc, l, r);
          default: return RemOp::create(bb, loc, l, r);
          }
        };
        // Solved loops in order: a rest may use a loop solved before it
        // only if that one is set; rests use unsolved loops (each solved
        // loop appears in one subscript only).
        for (const Solved &s : solved) {
          Value num = SubOp::create(bb, loc, loopIndex(bb, loc, s.newLoop),
                                    eval(s.rest));
          Value ok = cmp(CmpPredicate::ge, num, cst(0));
          Value value = num;
          if (s.coef != 1) {
            ok = AndOp::create(bb, loc, ok,
                               cmp(CmpPredicate::eq,
                                   RemOp::create(bb, loc, num, cst(s.coef)),
                                   cst(0)));
            value = DivOp::create(bb, loc, num, cst(s.coef));
          }
          Value extent = CastOp::create(bb, loc, i64, s.extent);
          ok = AndOp::create(bb, loc, ok, cmp(CmpPredicate::lt, value, extent));
          valid = AndOp::create(bb, loc, valid, ok);
          oldValue[s.oldDim] = SelectOp::create(bb, loc, i64, ok, value, cst(0));
        }
        for (auto [loop, e] : masked)
          valid = AndOp::create(bb, loc, valid,
                                cmp(CmpPredicate::eq,
                                    loopIndex(bb, loc, loop), eval(e)));
        // Other reads at a solved loop: at the clamped position.
        auto readAt = [&](Value v, AffineMap m) -> Value {
          auto type = dyn_cast<RankedTensorType>(v.getType());
          if (!type)
            return v;
          SmallVector<Value> at;
          for (AffineExpr e : m.getResults())
            at.push_back(CastOp::create(bb, loc, bb.getIndexType(), eval(e)));
          return tensor::ExtractOp::create(bb, loc, v, at);
        };
        IRMapping mapping;
        for (auto [k, v] : llvm::enumerate(gen.getInputs()))
          mapping.map(old.getArgument(k),
                      argOf[k] >= 0 ? args[argOf[k]] : readAt(v, maps[k]));
        Value seed = seedArg >= 0 ? args[seedArg] : readAt(g, maps.back());
        SmallVector<Operation *> cloned;
        for (Operation &inner : old.without_terminator())
          cloned.push_back(bb.clone(inner, mapping));
        Block *body = bb.getInsertionBlock();
        // The primal body's reads of its loops become the old loops' values.
        SmallVector<IndexOp> indices;
        for (Operation *inner : cloned)
          inner->walk<WalkOrder::PreOrder>([&](Operation *o) {
            if (o != inner && isa<IndexGenOp, ParallelForOp>(o))
              return WalkResult::skip();
            if (auto idx = dyn_cast<IndexOp>(o))
              indices.push_back(idx);
            return WalkResult::advance();
          });
        for (IndexOp idx : indices) {
          unsigned d = idx.getDim();
          if (d >= numOld)
            continue;
          OpBuilder ib(idx);
          Value v = oldValue[d];
          idx.replaceAllUsesWith(
              CastOp::create(ib, loc, ib.getIndexType(), v).getResult());
          idx.erase();
        }
        Value yielded =
            mapping.lookupOrDefault(old.getTerminator()->getOperand(0));
        Value zero = ConstantOp::create(bb, loc, FloatAttr::get(seed.getType(), 0));
        if (extremum.first) {
          Value first = firstArg >= 0 ? args[firstArg]
                                      : readAt(extremum.first, maps.back());
          Value lin = linearIndex(bb, loc, extremum, [&](unsigned d) {
            return oldValue[d];
          });
          valid = AndOp::create(bb, loc, valid,
                                cmp(CmpPredicate::eq, lin, first));
        }
        Value seedAdjoint =
            SelectOp::create(bb, loc, seed.getType(), valid, seed, zero);
        auto yield = YieldOp::create(bb, loc, yielded);
        ReverseSweep inner(ctx);
        inner.setElement(this->gathered, element);
        result = inner.run(*body, yielded, seedAdjoint, args[argOf[inputIndex]]);
        if (failed(result))
          return yielded;
        Value adj = *result;
        if (!adj) {
          OpBuilder zb(yield);
          adj = ConstantOp::create(zb, loc,
                                   FloatAttr::get(getElementTypeOrSelf(input), 0));
        }
        yield->erase();
        return adj;
      });
  if (failed(result))
    return failure();
  return adjoint;
}

/// Inside a masked gather of `gathered` (the sweep of an op's body that
/// reads it with computed subscripts), an index_gen nested in that body
/// that reads it too: its contribution to the one element being gathered
/// is a scalar, the sum over all its loops of the iterations that read that
/// element (through the input `inputIndex`'s map, masked where it equals
/// the element, or with computed subscripts when `inputIndex` is ~0u).
FailureOr<Value> ReverseSweep::elementAdjoint(Operation *op, Value g,
                                              unsigned inputIndex,
                                              const Extremum &extremum) {
  auto gen = cast<IndexGenOp>(op);
  Location loc = op->getLoc();
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineMap> maps = gen.getIndexingMapsArray();
  unsigned numLoops = gen.getIteratorTypes().size();
  bool direct = inputIndex != ~0u;
  SmallVector<Value> inputs(gen.getInputs());
  SmallVector<AffineMap> newMaps(maps.begin(), std::prev(maps.end()));
  unsigned numOld = inputs.size();
  inputs.push_back(g);
  newMaps.push_back(maps.back());
  if (extremum.first) {
    inputs.push_back(extremum.first);
    newMaps.push_back(maps.back());
  }
  newMaps.push_back(AffineMap::get(numLoops, 0, {}, ctx));
  Block &old = gen.getRegion().front();
  FailureOr<Value> result = failure();
  Value adjoint = buildIndexGen(
      b, loc, getElementTypeOrSelf(gathered), inputs, newMaps, numLoops,
      [&](OpBuilder &bb, ValueRange args) -> Value {
        IRMapping mapping;
        mapping.map(old.getArguments(), args.take_front(numOld));
        for (Operation &inner : old.without_terminator())
          bb.clone(inner, mapping);
        Block *body = bb.getInsertionBlock();
        Value yielded =
            mapping.lookupOrDefault(old.getTerminator()->getOperand(0));
        Value seedAdjoint = args[numOld];
        Value zero = ConstantOp::create(
            bb, loc, FloatAttr::get(seedAdjoint.getType(), 0));
        auto keepWhere = [&](Value cond) {
          seedAdjoint = SelectOp::create(bb, loc, seedAdjoint.getType(), cond,
                                         seedAdjoint, zero);
        };
        if (extremum.first)
          keepWhere(CmpOp::create(bb, loc, bb.getI1Type(), CmpPredicate::eq,
                                  linearIndex(bb, loc, extremum),
                                  args[numOld + 1]));
        // A direct read contributes where its subscripts are the element.
        if (direct)
          for (auto [e, at] : llvm::zip(maps[inputIndex].getResults(), element))
            keepWhere(CmpOp::create(bb, loc, bb.getI1Type(), CmpPredicate::eq,
                                    evaluate(bb, loc, e), at));
        auto yield = YieldOp::create(bb, loc, yielded);
        ReverseSweep inner(ctx);
        inner.setElement(gathered, element);
        result = inner.run(*body, yielded, seedAdjoint,
                           direct ? args[inputIndex] : gathered);
        if (failed(result))
          return yielded;
        Value adj = *result;
        if (!adj) {
          OpBuilder zb(yield);
          adj = ConstantOp::create(
              zb, loc, FloatAttr::get(getElementTypeOrSelf(gathered), 0));
        }
        yield->erase();
        return adj;
      });
  if (failed(result))
    return failure();
  return adjoint;
}
