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
// where the iteration does not contribute. A window as wide as its stride
// (2 * y + dy, dy in 0..2) is solved for both loops: y = p / 2, dy = p mod 2.
//
//===----------------------------------------------------------------------===//
#include "dialects/TDSL/Transforms/ReverseMode.h"
#include "dialects/TDSL/IR/TDSLOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
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

/// The plan and the operands of one inverted adjoint (see the file
/// comment), built in steps: plan() chooses the loop each subscript is
/// solved for, operands() the new op's inputs, body() its region.
struct ReverseSweep::Inversion {
  /// One subscript of the differentiated input solved for one loop: the
  /// loop's value is (p - rest) / coef, where p is a loop of the adjoint.
  struct Solved {
    unsigned oldDim;
    unsigned newLoop;
    AffineExpr rest;
    int64_t coef;
    Value extent; // the old loop's extent, an index
    unsigned result; // the subscript of the input it solves
    int windowDim; // a loop solved as p mod coef (a * i + di), or -1
  };
  struct Pending {
    unsigned result;
    int solvedDim = -1; // -1: masked
    AffineExpr rest;
    int64_t coef = 1;
    int windowDim = -1;
  };
  ReverseSweep &sweep;
  IndexGenOp gen;
  Value g;
  unsigned inputIndex;
  const Extremum &extremum;
  Location loc;
  MLIRContext *ctx;
  SmallVector<AffineMap> maps;
  unsigned numOld;

  // The plan: per old loop, its new loop (-1 when solved); the solved
  // subscripts; the masked ones (a new loop equal to a subscript); the
  // adjoint's output map.
  SmallVector<int> newPos;
  unsigned numLoops = 0;
  SmallVector<Solved> solved;
  SmallVector<std::pair<unsigned, AffineExpr>> masked;
  SmallVector<AffineExpr> out;

  // The operands: per primal input, its argument of the new body (-1: read
  // inside the body); the same for the seed and the first extremum.
  SmallVector<Value> inputs;
  SmallVector<AffineMap> newMaps;
  SmallVector<int> argOf;
  int seedArg = -1, firstArg = -1;
  // The seed among zeros (padSeed), read through `paddedMap` of the new
  // loops, or null; the window loops that run backwards, with their
  // extents; operands copied reversed along them, by input.
  Value padded;
  AffineMap paddedMap;
  SmallVector<std::pair<unsigned, Value>> flips;
  DenseMap<unsigned, Value> flippedInput;
  // padSeed's plan: per solved loop, its window loop d (y = p - d - c), c,
  // the seed's subscript r of y, and d's extent.
  struct Window {
    unsigned d;
    int64_t c;
    unsigned r;
    const Solved *s;
    Value extent;
  };
  SmallVector<Window> windows;

  // While the body is built: each old loop's value, and whether this
  // iteration is one of the primal's.
  SmallVector<Value> oldValue;
  Value valid;

  Inversion(ReverseSweep &sweep, IndexGenOp gen, Value g, unsigned inputIndex,
            const Extremum &extremum)
      : sweep(sweep), gen(gen), g(g), inputIndex(inputIndex),
        extremum(extremum), loc(gen.getLoc()), ctx(gen.getContext()),
        maps(gen.getIndexingMapsArray()),
        numOld(gen.getIteratorTypes().size()) {}

  bool plan(OpBuilder &b);
  void padSeed(OpBuilder &b);
  bool isRead(unsigned input);
  bool usesSolved(AffineMap m);
  AffineExpr renumbered(AffineExpr e);
  bool planWindows(OpBuilder &b);
  void flipOperands(OpBuilder &b);
  void buildPaddedSeed(OpBuilder &b);
  void chooseSolved(SmallVectorImpl<int> &plainOf,
                    SmallVectorImpl<Pending> &pending);
  void solveWindow(const Linear &lin, unsigned best, ArrayRef<unsigned> uses,
                   llvm::SmallBitVector &taken, Pending &p);
  Value extentOf(OpBuilder &b, unsigned oldDim);
  bool operands();
  Value body(OpBuilder &bb, ValueRange args, FailureOr<Value> &result);
  void solveLoops(OpBuilder &bb);
  Value eval(OpBuilder &bb, AffineExpr e);
  Value readAt(OpBuilder &bb, Value v, AffineMap m);
  void replaceLoopReads(ArrayRef<Operation *> cloned);
};

/// Per result of the input's map: a plain loop (its first use), or pending:
/// solved for the loop used by this subscript only with the largest
/// coefficient, then the largest extent (y in y + dy), or else masked.
void ReverseSweep::Inversion::chooseSolved(SmallVectorImpl<int> &plainOf,
                                           SmallVectorImpl<Pending> &pending) {
  AffineMap inMap = maps[inputIndex];
  SmallVector<unsigned> uses(numOld, 0);
  for (AffineExpr e : inMap.getResults())
    for (unsigned d = 0; d < numOld; ++d)
      uses[d] += e.isFunctionOfDim(d);
  llvm::SmallBitVector taken(numOld);
  plainOf.assign(inMap.getNumResults(), -1);
  for (auto [j, e] : llvm::enumerate(inMap.getResults()))
    if (auto d = dyn_cast<AffineDimExpr>(e); d && !taken.test(d.getPosition())) {
      taken.set(d.getPosition());
      plainOf[j] = d.getPosition();
    }
  for (auto [j, e] : llvm::enumerate(inMap.getResults())) {
    if (plainOf[j] >= 0)
      continue;
    Pending p{(unsigned)j};
    std::optional<Linear> lin = linearize(e);
    int best = -1;
    for (auto [d, c] : lin ? lin->coef : std::map<unsigned, int64_t>()) {
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
      // The rest, from the other terms: it has no solved loop (each solved
      // loop is in one subscript only).
      p.rest = getAffineConstantExpr(lin->constant, ctx);
      for (auto [d, c] : lin->coef)
        if ((int)d != best && c != 0)
          p.rest = p.rest + getAffineDimExpr(d, ctx) * c;
      solveWindow(*lin, best, uses, taken, p);
    }
    pending.push_back(p);
  }
}

/// A window as wide as its stride (a * i + di with di in 0..a, as a pooling
/// window reads): p = a * i + di has exactly one solution, i = p / a and
/// di = p mod a, so di is solved too. The adjoint then has no window loop
/// to reduce over, nor a divisibility test per window position.
void ReverseSweep::Inversion::solveWindow(const Linear &lin, unsigned best,
                                          ArrayRef<unsigned> uses,
                                          llvm::SmallBitVector &taken,
                                          Pending &p) {
  int64_t a = lin.coef.at(best);
  if (a < 2 || lin.constant != 0)
    return;
  std::optional<unsigned> window;
  unsigned others = 0;
  for (auto [d, c] : lin.coef)
    if (d != best && c != 0) {
      ++others;
      if (c == 1)
        window = d;
    }
  if (others != 1 || !window || taken.test(*window) || uses[*window] != 1 ||
      staticExtent(gen, *window) != a)
    return;
  taken.set(*window);
  p.windowDim = *window;
  p.rest = getAffineConstantExpr(0, ctx);
}

/// The extent of an old loop, from an operand that has it plainly (an
/// input, or the seed, shaped like the result).
Value ReverseSweep::Inversion::extentOf(OpBuilder &b, unsigned oldDim) {
  SmallVector<Value> operands(gen.getInputs());
  operands.push_back(g);
  AffineExpr dim = getAffineDimExpr(oldDim, ctx);
  for (auto [k, v] : llvm::enumerate(operands)) {
    AffineMap m = k + 1 == operands.size() ? maps.back() : maps[k];
    auto type = dyn_cast<RankedTensorType>(v.getType());
    if (auto pos = m.getResultPosition(dim); pos && type)
      return tensor::DimOp::create(b, loc, v, *pos);
  }
  return nullptr;
}

/// New loops: the old ones not solved, in order, then one per pending
/// subscript. False when nothing is solved (the masked adjoint is as good)
/// or a solved loop's extent is unknown.
bool ReverseSweep::Inversion::plan(OpBuilder &b) {
  SmallVector<int> plainOf;
  SmallVector<Pending> pending;
  chooseSolved(plainOf, pending);
  llvm::SmallBitVector solvedDims(numOld);
  for (const Pending &p : pending) {
    if (p.solvedDim >= 0)
      solvedDims.set(p.solvedDim);
    if (p.windowDim >= 0)
      solvedDims.set(p.windowDim);
  }
  if (solvedDims.none())
    return false;
  newPos.assign(numOld, -1);
  for (unsigned d = 0; d < numOld; ++d)
    if (!solvedDims.test(d))
      newPos[d] = numLoops++;
  out.resize(plainOf.size());
  for (auto [j, d] : llvm::enumerate(plainOf))
    if (d >= 0)
      out[j] = getAffineDimExpr(newPos[d], ctx);
  for (const Pending &p : pending) {
    unsigned loop = numLoops++;
    out[p.result] = getAffineDimExpr(loop, ctx);
    if (p.solvedDim < 0) {
      masked.push_back({loop, maps[inputIndex].getResult(p.result)});
      continue;
    }
    Value extent = extentOf(b, p.solvedDim);
    if (!extent)
      return false;
    solved.push_back(
        {(unsigned)p.solvedDim, loop, p.rest, p.coef, extent, p.result, p.windowDim});
  }
  return true;
}

/// A convolution's adjoint reads the seed at solved loops (y = p - dy):
/// inside the body, at positions clamped where the iteration does not
/// contribute, which keeps it a scalar loop. Frameworks compute it as a
/// convolution of the padded seed with the flipped kernel instead, and so
/// does this: the window loop dy runs backwards (e = R - 1 - dy, operands
/// read at dy get a copy flipped along it) and the seed sits among R - 1
/// zeros on each side, so that y + R - 1 = p + e is in range for every p
/// and e and reads a zero where the iteration does not contribute. The
/// adjoint then reads every operand through affine maps and vectorizes as
/// the forward convolution. Only where nothing else needs `valid`: each
/// solved subscript has coefficient 1 (no stride to divide by) and a rest
/// of one loop plus a constant, none is masked, no extremum (pooling), no
/// operand but the seed is read at solved loops, the seed's subscript of
/// each solved loop is that loop, and the window loops appear in other
/// operands' maps only as whole subscripts.
void ReverseSweep::Inversion::padSeed(OpBuilder &b) {
  if (!planWindows(b)) {
    windows.clear();
    return;
  }
  for (const Window &w : windows)
    flips.push_back({w.d, w.extent});
  flipOperands(b);
  buildPaddedSeed(b);
}

/// Whether an input's value is read by the body (not the tensor a
/// `parallel for` only takes its shape from).
bool ReverseSweep::Inversion::isRead(unsigned input) {
  return !gen.getRegion().front().getArgument(input).use_empty();
}

/// Whether `m` reads a solved loop.
bool ReverseSweep::Inversion::usesSolved(AffineMap m) {
  return llvm::any_of(solved, [&](const Solved &s) {
    return m.isFunctionOfDim(s.oldDim) ||
           (s.windowDim >= 0 && m.isFunctionOfDim(s.windowDim));
  });
}

/// `e` of the old loops in the new loops (a solved loop as 0).
AffineExpr ReverseSweep::Inversion::renumbered(AffineExpr e) {
  SmallVector<AffineExpr> renumber;
  for (unsigned d = 0; d < numOld; ++d)
    renumber.push_back(newPos[d] >= 0 ? getAffineDimExpr(newPos[d], ctx)
                                      : getAffineConstantExpr(0, ctx));
  return e.replaceDimsAndSymbols(renumber, {});
}

/// The conditions of padSeed, and its window loops.
bool ReverseSweep::Inversion::planWindows(OpBuilder &b) {
  AffineMap seedMap = maps.back();
  if (!isa<RankedTensorType>(g.getType()) || extremum.first || !masked.empty() ||
      !usesSolved(seedMap) ||
      llvm::any_of(solved, [](const Solved &s) { return s.coef != 1; }))
    return false;
  ArrayRef<AffineMap> inputMaps = ArrayRef<AffineMap>(maps).drop_back();
  for (auto [k, m] : llvm::enumerate(inputMaps))
    if (k != inputIndex && usesSolved(m) && isRead(k))
      return false;
  llvm::SmallBitVector isWindow(numOld);
  for (const Solved &s : solved) {
    std::optional<Linear> rest = linearize(s.rest);
    std::optional<unsigned> r =
        seedMap.getResultPosition(getAffineDimExpr(s.oldDim, ctx));
    if (!rest || !r || rest->constant < 0)
      return false;
    std::optional<unsigned> d;
    for (auto [dim, c] : rest->coef) {
      if (c == 0)
        continue;
      if (d || c != 1)
        return false;
      d = dim;
    }
    if (!d || newPos[*d] < 0 || isWindow.test(*d) || seedMap.isFunctionOfDim(*d))
      return false;
    // The adjoint's output map names d's loop where the input reads it
    // elsewhere (x[d, i + d]): that loop would run backwards.
    for (auto [j, e] : llvm::enumerate(maps[inputIndex].getResults()))
      if (j != s.result && e.isFunctionOfDim(*d))
        return false;
    isWindow.set(*d);
    windows.push_back({*d, rest->constant, *r, &s, nullptr});
  }
  for (unsigned r = 0; r < seedMap.getNumResults(); ++r)
    if (llvm::none_of(windows, [&](const Window &w) { return w.r == r; }) &&
        llvm::any_of(solved, [&](const Solved &s) {
          return seedMap.getResult(r).isFunctionOfDim(s.oldDim);
        }))
      return false;
  // Other operands read a window loop only as a whole subscript.
  for (auto [k, m] : llvm::enumerate(inputMaps)) {
    if (k == inputIndex || !isRead(k))
      continue;
    for (AffineExpr e : m.getResults())
      for (const Window &w : windows)
        if (e.isFunctionOfDim(w.d) && !isa<AffineDimExpr>(e))
          return false;
  }
  for (Window &w : windows)
    if (!(w.extent = extentOf(b, w.d)))
      return false;
  return true;
}

/// Each operand read at a window loop, as a copy reversed along it.
void ReverseSweep::Inversion::flipOperands(OpBuilder &b) {
  Type i64 = b.getI64Type();
  Value oneIdx = arith::ConstantIndexOp::create(b, loc, 1);
  for (auto [k, m] : llvm::enumerate(ArrayRef<AffineMap>(maps).drop_back())) {
    Value v = gen.getInputs()[k];
    auto type = dyn_cast<RankedTensorType>(v.getType());
    if (k == inputIndex || !type || !isRead(k))
      continue;
    SmallVector<std::pair<unsigned, Value>> reversed; // (subscript, extent)
    for (auto [j, e] : llvm::enumerate(m.getResults()))
      for (const Window &w : windows)
        if (e == getAffineDimExpr(w.d, ctx))
          reversed.push_back({(unsigned)j, w.extent});
    if (reversed.empty())
      continue;
    unsigned rank = type.getRank();
    AffineMap id = AffineMap::getMultiDimIdentityMap(rank, ctx);
    flippedInput[k] = buildIndexGen(
        b, loc, type, ValueRange{v}, {id, id}, rank,
        [&](OpBuilder &bb, ValueRange) -> Value {
          SmallVector<Value> at;
          for (unsigned j = 0; j < rank; ++j)
            at.push_back(IndexOp::create(bb, loc, bb.getIndexType(), (int64_t)j));
          for (auto [j, extent] : reversed) {
            Value last = CastOp::create(
                bb, loc, i64, arith::SubIOp::create(bb, loc, extent, oneIdx));
            Value i = CastOp::create(bb, loc, i64, at[j]);
            at[j] = CastOp::create(bb, loc, bb.getIndexType(),
                                   SubOp::create(bb, loc, last, i));
          }
          return tensor::ExtractOp::create(bb, loc, v, at);
        });
  }
}

/// The seed among zeros: lo = R - 1 + c before y (so that y + lo = p + e),
/// hi = max(P - Y - c, 0) after it (so that p + e < Y + lo + hi), read at
/// p + e along each window's subscript.
void ReverseSweep::Inversion::buildPaddedSeed(OpBuilder &b) {
  auto gType = cast<RankedTensorType>(g.getType());
  AffineMap seedMap = maps.back();
  Value zeroIdx = arith::ConstantIndexOp::create(b, loc, 0);
  Value oneIdx = arith::ConstantIndexOp::create(b, loc, 1);
  SmallVector<Value> dynamicSizes;
  SmallVector<int64_t> shape;
  SmallVector<OpFoldResult> offsets, sizes, strides;
  SmallVector<AffineExpr> readExprs;
  Value input = gen.getInputs()[inputIndex];
  for (unsigned r = 0; r < gType.getRank(); ++r) {
    Value size = tensor::DimOp::create(b, loc, g, r);
    sizes.push_back(gType.isDynamicDim(r) ? OpFoldResult(size)
                                          : b.getIndexAttr(gType.getDimSize(r)));
    strides.push_back(b.getIndexAttr(1));
    const Window *w = llvm::find_if(windows, [&](const Window &w) { return w.r == r; });
    if (w == windows.end()) {
      offsets.push_back(b.getIndexAttr(0));
      shape.push_back(gType.getDimSize(r));
      if (gType.isDynamicDim(r))
        dynamicSizes.push_back(size);
      readExprs.push_back(renumbered(seedMap.getResult(r)));
      continue;
    }
    Value c = arith::ConstantIndexOp::create(b, loc, w->c);
    // An empty window reads nothing: its pads only need to be valid.
    Value lo = arith::MaxSIOp::create(
        b, loc,
        arith::AddIOp::create(b, loc, arith::SubIOp::create(b, loc, w->extent, oneIdx), c),
        zeroIdx);
    Value p = tensor::DimOp::create(b, loc, input, w->s->result);
    Value hi = arith::MaxSIOp::create(
        b, loc, arith::SubIOp::create(b, loc, arith::SubIOp::create(b, loc, p, size), c),
        zeroIdx);
    offsets.push_back(lo);
    shape.push_back(ShapedType::kDynamic);
    dynamicSizes.push_back(arith::AddIOp::create(
        b, loc, arith::AddIOp::create(b, loc, size, lo), hi));
    readExprs.push_back(getAffineDimExpr(w->s->newLoop, ctx) +
                        getAffineDimExpr(newPos[w->d], ctx));
  }
  auto paddedType = RankedTensorType::get(shape, gType.getElementType());
  Value zero = ConstantOp::create(b, loc, FloatAttr::get(gType.getElementType(), 0));
  Value zeros = FillOp::create(b, loc, paddedType, zero, dynamicSizes);
  padded = tensor::InsertSliceOp::create(b, loc, g, zeros, offsets, sizes, strides);
  paddedMap = AffineMap::get(numLoops, 0, readExprs, ctx);
}

/// Operands read through a map of the new loops, or (when a map uses a
/// solved loop) inside the body; the input itself at the adjoint's element
/// (its value in the body, and the extents of the new loops). False when
/// some new loop would have no extent.
bool ReverseSweep::Inversion::operands() {
  auto moved = [&](AffineMap m) {
    SmallVector<AffineExpr> results;
    for (AffineExpr e : m.getResults())
      results.push_back(renumbered(e));
    return AffineMap::get(numLoops, 0, results, ctx);
  };
  llvm::SmallBitVector covered(numLoops);
  auto add = [&](Value v, AffineMap m) {
    inputs.push_back(v);
    newMaps.push_back(m);
    for (AffineExpr e : m.getResults())
      if (auto d = dyn_cast<AffineDimExpr>(e))
        covered.set(d.getPosition());
    return (int)inputs.size() - 1;
  };
  for (auto [k, v] : llvm::enumerate(gen.getInputs()))
    argOf.push_back(k == inputIndex || usesSolved(maps[k])
                        ? -1
                        : add(flippedInput.lookup(k) ? flippedInput.lookup(k) : v,
                              moved(maps[k])));
  bool seedInBody = !padded && usesSolved(maps.back());
  if (padded) {
    seedArg = add(padded, paddedMap);
  } else if (!seedInBody) {
    seedArg = add(g, moved(maps.back()));
    if (extremum.first)
      firstArg = add(extremum.first, moved(maps.back()));
  }
  AffineMap outMap = AffineMap::get(numLoops, 0, out, ctx);
  argOf[inputIndex] = add(gen.getInputs()[inputIndex], outMap);
  newMaps.push_back(outMap);
  return covered.all();
}

Value tdsl::ir::evaluateAt(OpBuilder &bb, Location loc, AffineExpr e,
                          ArrayRef<Value> dims) {
  if (auto d = dyn_cast<AffineDimExpr>(e))
    return dims[d.getPosition()];
  if (auto c = dyn_cast<AffineConstantExpr>(e))
    return ConstantOp::create(bb, loc, bb.getI64IntegerAttr(c.getValue()));
  auto bin = cast<AffineBinaryOpExpr>(e);
  Value l = evaluateAt(bb, loc, bin.getLHS(), dims);
  Value r = evaluateAt(bb, loc, bin.getRHS(), dims);
  switch (e.getKind()) {
  case AffineExprKind::Add: return AddOp::create(bb, loc, l, r);
  case AffineExprKind::Mul: return MulOp::create(bb, loc, l, r);
  case AffineExprKind::FloorDiv: return DivOp::create(bb, loc, l, r);
  default: return RemOp::create(bb, loc, l, r);
  }
}

/// An affine expression of the old loops, as an i64 of the body.
Value ReverseSweep::Inversion::eval(OpBuilder &bb, AffineExpr e) {
  return evaluateAt(bb, loc, e, oldValue);
}

/// The old loops' values: the unsolved ones are loops of the new op; a
/// solved one is (p - rest) / coef, valid where that divides and is in
/// range, clamped to 0 elsewhere (so every read stays in range).
void ReverseSweep::Inversion::solveLoops(OpBuilder &bb) {
  Type i64 = bb.getI64Type();
  auto cst = [&](int64_t v) -> Value {
    return ConstantOp::create(bb, loc, bb.getI64IntegerAttr(v));
  };
  auto cmp = [&](CmpPredicate p, Value x, Value y) -> Value {
    return CmpOp::create(bb, loc, bb.getI1Type(), p, x, y);
  };
  oldValue.assign(numOld, nullptr);
  for (unsigned d = 0; d < numOld; ++d)
    if (newPos[d] >= 0)
      oldValue[d] = sweep.loopIndex(bb, loc, newPos[d]);
  // A window loop that runs backwards: d = R - 1 - e.
  for (auto [d, extent] : flips) {
    Value last = SubOp::create(bb, loc, CastOp::create(bb, loc, i64, extent), cst(1));
    oldValue[d] = SubOp::create(bb, loc, last, oldValue[d]);
  }
  valid = ConstantOp::create(bb, loc, bb.getBoolAttr(true));
  for (const Solved &s : solved) {
    Value num = SubOp::create(bb, loc, sweep.loopIndex(bb, loc, s.newLoop),
                              eval(bb, s.rest));
    Value ok = cmp(CmpPredicate::ge, num, cst(0));
    Value value = num;
    if (s.windowDim >= 0) {
      value = DivOp::create(bb, loc, num, cst(s.coef));
      oldValue[s.windowDim] = RemOp::create(bb, loc, num, cst(s.coef));
    } else if (s.coef != 1) {
      Value rem = RemOp::create(bb, loc, num, cst(s.coef));
      ok = AndOp::create(bb, loc, ok, cmp(CmpPredicate::eq, rem, cst(0)));
      value = DivOp::create(bb, loc, num, cst(s.coef));
    }
    Value extent = CastOp::create(bb, loc, i64, s.extent);
    ok = AndOp::create(bb, loc, ok, cmp(CmpPredicate::lt, value, extent));
    valid = AndOp::create(bb, loc, valid, ok);
    oldValue[s.oldDim] = SelectOp::create(bb, loc, i64, ok, value, cst(0));
  }
  for (auto [loop, e] : masked)
    valid = AndOp::create(bb, loc, valid,
                          cmp(CmpPredicate::eq, sweep.loopIndex(bb, loc, loop),
                              eval(bb, e)));
}

/// `v` read through the old map `m` at the old loops' values.
Value ReverseSweep::Inversion::readAt(OpBuilder &bb, Value v, AffineMap m) {
  if (!isa<RankedTensorType>(v.getType()))
    return v;
  SmallVector<Value> at;
  for (AffineExpr e : m.getResults())
    at.push_back(CastOp::create(bb, loc, bb.getIndexType(), eval(bb, e)));
  return tensor::ExtractOp::create(bb, loc, v, at);
}

void tdsl::ir::replaceLoopReads(ArrayRef<Operation *> cloned,
                                ArrayRef<Value> values) {
  // A nested index_gen's reads are of its own loops; those inside a nested
  // parallel_for, scf.if or scf.for are of ours (IndexOp's verifier).
  SmallVector<IndexOp> indices;
  for (Operation *inner : cloned)
    inner->walk<WalkOrder::PreOrder>([&](Operation *o) {
      if (isa<IndexGenOp>(o))
        return WalkResult::skip();
      if (auto idx = dyn_cast<IndexOp>(o))
        indices.push_back(idx);
      return WalkResult::advance();
    });
  for (IndexOp idx : indices) {
    if (idx.getDim() >= values.size())
      continue;
    OpBuilder ib(idx);
    idx.replaceAllUsesWith(CastOp::create(ib, idx.getLoc(), ib.getIndexType(),
                                          values[idx.getDim()])
                               .getResult());
    idx.erase();
  }
}

/// The cloned primal body's reads of its loops become the old loops' values.
void ReverseSweep::Inversion::replaceLoopReads(ArrayRef<Operation *> cloned) {
  tdsl::ir::replaceLoopReads(cloned, oldValue);
}

/// The region: the primal body at the old loops' values, then the sweep
/// from the seed (zero where the iteration is not the primal's) to the
/// input's element.
Value ReverseSweep::Inversion::body(OpBuilder &bb, ValueRange args,
                                    FailureOr<Value> &result) {
  solveLoops(bb);
  Block &old = gen.getRegion().front();
  IRMapping mapping;
  for (auto [k, v] : llvm::enumerate(gen.getInputs()))
    mapping.map(old.getArgument(k),
                argOf[k] >= 0 ? args[argOf[k]] : readAt(bb, v, maps[k]));
  Value seed = seedArg >= 0 ? args[seedArg] : readAt(bb, g, maps.back());
  SmallVector<Operation *> cloned;
  for (Operation &inner : old.without_terminator())
    cloned.push_back(bb.clone(inner, mapping));
  replaceLoopReads(cloned);
  Block *block = bb.getInsertionBlock();
  Value yielded = mapping.lookupOrDefault(old.getTerminator()->getOperand(0));
  if (extremum.first) {
    Value first = firstArg >= 0 ? args[firstArg]
                                : readAt(bb, extremum.first, maps.back());
    Value lin = sweep.linearIndex(bb, loc, extremum,
                                  [&](unsigned d) { return oldValue[d]; });
    valid = AndOp::create(bb, loc, valid,
                          CmpOp::create(bb, loc, bb.getI1Type(),
                                        CmpPredicate::eq, lin, first));
  }
  // A padded seed reads zeros where the iteration does not contribute.
  Value seedAdjoint = padded ? seed : keepWhere(bb, loc, seed, valid);
  auto yield = YieldOp::create(bb, loc, yielded);
  ReverseSweep inner(ctx);
  inner.setElement(sweep.gathered, sweep.element);
  result = inner.run(*block, yielded, seedAdjoint, args[argOf[inputIndex]]);
  if (failed(result))
    return yielded;
  Value adj = *result;
  if (!adj) {
    OpBuilder zb(yield);
    Type elem = getElementTypeOrSelf(gen.getInputs()[inputIndex]);
    adj = ConstantOp::create(zb, loc, FloatAttr::get(elem, 0));
  }
  yield->erase();
  return adj;
}

FailureOr<Value> ReverseSweep::invertedAdjoint(Operation *op, Value g,
                                               unsigned inputIndex,
                                               const Extremum &extremum,
                                               bool &applicable) {
  Inversion inv(*this, cast<IndexGenOp>(op), g, inputIndex, extremum);
  applicable = inv.plan(b);
  if (applicable)
    inv.padSeed(b);
  applicable = applicable && inv.operands();
  if (!applicable)
    return failure();
  FailureOr<Value> result = failure();
  Value adjoint = buildIndexGen(
      b, inv.loc, inv.gen.getInputs()[inputIndex].getType(), inv.inputs,
      inv.newMaps, inv.numLoops,
      [&](OpBuilder &bb, ValueRange args) {
        return inv.body(bb, args, result);
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
        Value yielded = clonePrimalBody(bb, old, args);
        Block *body = bb.getInsertionBlock();
        Value seedAdjoint = args[numOld];
        auto keep = [&](Value cond) {
          seedAdjoint = keepWhere(bb, loc, seedAdjoint, cond);
        };
        if (extremum.first)
          keep(CmpOp::create(bb, loc, bb.getI1Type(), CmpPredicate::eq,
                             linearIndex(bb, loc, extremum), args[numOld + 1]));
        // A direct read contributes where its subscripts are the element.
        if (direct)
          for (auto [e, at] : llvm::zip(maps[inputIndex].getResults(), element))
            keep(CmpOp::create(bb, loc, bb.getI1Type(), CmpPredicate::eq,
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
