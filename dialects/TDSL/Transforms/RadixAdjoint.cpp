//===- RadixAdjoint.cpp - Adjoints of reads at the digits of loops --------===//
//
// nn.flatten reads its image at the digits of the flattened index,
//   out[n, f] = x[n, f / (H * W), f / W % H, f % W]
// computed subscripts, whose adjoint was a masked gather: every element of
// an image visited every f, O((C * H * W)^2) per image. When the
// subscripts are digits of loops in a mixed radix (each digit's place
// value is the one below times that one's modulus, the top digit has
// none), each loop is a function of the element: f = c * H * W + i * W +
// j. The adjoint then has the element's loops only and reads the seed at
// that f, where it is an iteration (0 <= f < its extent) whose subscripts
// give the element back (the sweep's element mask): O(1) per element.
// Since f = sum of digit * place value holds for every f (truncating
// division), no other iteration reads the element. Where the lowest digit
// has a place value w > 1 (nearest-neighbour upsampling's x[i / 2, j / 2]),
// the w iterations f + r, r in 0..w, read the element: the adjoint sums
// over them, a window loop.
//
//===----------------------------------------------------------------------===//
#include "dialects/TDSL/Transforms/ReverseMode.h"
#include "dialects/TDSL/IR/TDSLOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/MapVector.h"

using namespace mlir;
using namespace tdsl::ir;

namespace {

/// `v` without casts between index and i64.
Value stripCasts(Value v) {
  auto wide = [](Type t) { return t.isIndex() || t.isSignlessInteger(64); };
  while (auto cast = v.getDefiningOp<CastOp>()) {
    if (!wide(cast.getType()) || !wide(cast.getInput().getType()))
      break;
    v = cast.getInput();
  }
  return v;
}

/// A factor of a place value, comparable across the body: a size
/// (tensor.dim of a tensor at a constant dimension) or any other value.
using Key = std::pair<void *, int64_t>;

Key keyOf(Value v) {
  v = stripCasts(v);
  if (auto dim = v.getDefiningOp<tensor::DimOp>())
    if (std::optional<int64_t> d = dim.getConstantIndex())
      return {dim.getSource().getAsOpaquePointer(), *d};
  return {v.getAsOpaquePointer(), -1};
}
} // namespace

bool tdsl::ir::RadixPlace::operator==(const RadixPlace &o) const {
  return constant == o.constant && keys() == o.keys();
}

SmallVector<std::pair<void *, int64_t>> tdsl::ir::RadixPlace::keys() const {
  SmallVector<Key> k;
  for (Value v : factors)
    k.push_back(keyOf(v));
  llvm::sort(k);
  return k;
}

/// `v` as a product of a constant and factors defined outside `gen`.
static std::optional<RadixPlace> placeOf(Value v, IndexGenOp gen) {
  v = stripCasts(v);
  APInt c;
  if (matchPattern(v, m_ConstantInt(&c)))
    return RadixPlace{c.getSExtValue(), {}};
  if (auto mul = v.getDefiningOp<MulOp>(); mul && mul.getType().isSignlessInteger(64)) {
    auto a = placeOf(mul.getLhs(), gen), b = placeOf(mul.getRhs(), gen);
    if (!a || !b || a->constant > (int64_t(1) << 31) || b->constant > (int64_t(1) << 31))
      return std::nullopt;
    a->constant *= b->constant;
    a->factors.append(b->factors);
    return a;
  }
  Operation *def = v.getDefiningOp();
  if (def ? gen->isAncestor(def)
          : gen->isAncestor(cast<BlockArgument>(v).getOwner()->getParentOp()))
    return std::nullopt;
  return RadixPlace{1, {v}};
}

namespace {
/// A subscript `(f / place) % modulus`, without either part where it is 1.
struct Digit {
  unsigned loop;
  RadixPlace place{1, {}};
  std::optional<RadixPlace> modulus;
};

std::optional<Digit> quotientOf(Value v, IndexGenOp gen) {
  v = stripCasts(v);
  if (std::optional<unsigned> loop = loopOf(v, gen))
    return Digit{*loop, {1, {}}, std::nullopt};
  auto div = v.getDefiningOp<DivOp>();
  if (!div || !div.getType().isSignlessInteger(64))
    return std::nullopt;
  std::optional<Digit> inner = quotientOf(div.getLhs(), gen);
  std::optional<RadixPlace> by = placeOf(div.getRhs(), gen);
  if (!inner || !by || by->constant > (int64_t(1) << 31) ||
      inner->place.constant > (int64_t(1) << 31))
    return std::nullopt;
  inner->place.constant *= by->constant;
  inner->place.factors.append(by->factors);
  return inner;
}

std::optional<Digit> digitOf(Value v, IndexGenOp gen) {
  v = stripCasts(v);
  if (auto rem = v.getDefiningOp<RemOp>(); rem && rem.getType().isSignlessInteger(64)) {
    std::optional<Digit> d = quotientOf(rem.getLhs(), gen);
    std::optional<RadixPlace> m = placeOf(rem.getRhs(), gen);
    if (!d || !m)
      return std::nullopt;
    d->modulus = m;
    return d;
  }
  return quotientOf(v, gen);
}
} // namespace

std::optional<RadixPlan> ReverseSweep::planRadix(IndexGenOp gen,
                                                               Value input) {
  auto type = dyn_cast<RankedTensorType>(input.getType());
  if (!type)
    return std::nullopt;
  Block &body = gen.getRegion().front();
  tensor::ExtractOp read;
  for (OpOperand &use : input.getUses()) {
    Operation *user = use.getOwner();
    if (user == gen) {
      // A range carrier, whose element the body does not use.
      if (!body.getArgument(use.getOperandNumber()).use_empty())
        return std::nullopt;
      continue;
    }
    if (!gen->isProperAncestor(user) || isa<tensor::DimOp>(user))
      continue;
    auto extract = dyn_cast<tensor::ExtractOp>(user);
    // One read, at every iteration.
    if (!extract || read || extract->getBlock() != &body)
      return std::nullopt;
    read = extract;
  }
  if (!read)
    return std::nullopt;
  RadixPlan plan;
  plan.direct = directLoops(gen, input);
  plan.places.assign(type.getRank(), RadixPlace{0, {}});
  plan.digitLoop.assign(type.getRank(), -1);
  unsigned numOld = gen.getIteratorTypes().size();
  llvm::SmallBitVector covered(numOld);
  for (int d : plan.direct)
    if (d >= 0)
      covered.set(d);
  // The digits, by loop.
  llvm::MapVector<unsigned, SmallVector<std::pair<unsigned, Digit>>> byLoop;
  for (auto [k, idx] : llvm::enumerate(read.getIndices())) {
    if (plan.direct[k] >= 0)
      continue;
    std::optional<Digit> d = digitOf(idx, gen);
    if (!d || covered.test(d->loop))
      return std::nullopt;
    byLoop[d->loop].push_back({static_cast<unsigned>(k), *d});
  }
  if (byLoop.empty())
    return std::nullopt;
  for (auto &[loop, digits] : byLoop) {
    covered.set(loop);
    // The digits chain: from the lowest (whose place value is no other
    // digit's place value times its modulus), each next one's place value
    // is this one's times its modulus; the highest has none. The lowest's
    // place value is the window of iterations that read one element
    // (x[i / 2]: 2), 1 when every digit is read.
    auto above = [&](const Digit &d) {
      RadixPlace next = d.place;
      next.constant *= d.modulus->constant;
      next.factors.append(d.modulus->factors);
      return next;
    };
    SmallVector<bool> used(digits.size(), false);
    int bottom = -1;
    for (size_t n = 0; n < digits.size(); ++n) {
      bool isAbove = false;
      for (size_t o = 0; o < digits.size(); ++o)
        isAbove |= o != n && digits[o].second.modulus &&
                   above(digits[o].second) == digits[n].second.place;
      if (!isAbove) {
        if (bottom >= 0)
          return std::nullopt;
        bottom = n;
      }
    }
    if (bottom < 0)
      return std::nullopt;
    // The window is a loop's extent: a positive constant times sizes (a
    // value that could be negative at run time is no extent).
    RadixLoop rl{loop, digits[bottom].second.place};
    if (rl.window.constant < 1 || rl.window.constant > (int64_t(1) << 31) ||
        llvm::any_of(rl.window.factors,
                     [](Value v) { return !stripCasts(v).getDefiningOp<tensor::DimOp>(); }))
      return std::nullopt;
    for (int n = bottom, count = 0;; ++count) {
      if (used[n] || count >= (int)digits.size())
        return std::nullopt;
      used[n] = true;
      auto &[k, d] = digits[n];
      plan.places[k] = d.place;
      plan.digitLoop[k] = loop;
      if (!d.modulus)
        break;
      RadixPlace next = above(d);
      if (next.constant > (int64_t(1) << 31) || next.constant < 1)
        return std::nullopt;
      auto it = llvm::find_if(digits, [&](auto &o) { return o.second.place == next; });
      if (it == digits.end())
        return std::nullopt;
      n = it - digits.begin();
    }
    if (llvm::is_contained(used, false))
      return std::nullopt;
    plan.loops.push_back(rl);
  }
  // Every loop of the op is a direct or a digits' loop: no other loop to
  // sum over.
  if (!covered.all())
    return std::nullopt;
  return plan;
}

FailureOr<Value> ReverseSweep::radixAdjoint(Operation *op, Value g,
                                            Value input,
                                            const RadixPlan &plan) {
  auto gen = cast<IndexGenOp>(op);
  Location loc = op->getLoc();
  MLIRContext *ctx = b.getContext();
  auto type = cast<RankedTensorType>(input.getType());
  unsigned rank = type.getRank();
  SmallVector<AffineMap> maps = gen.getIndexingMapsArray();
  unsigned numOld = gen.getIteratorTypes().size();
  Type i64 = b.getI64Type();
  auto cst = [&](OpBuilder &bb, int64_t v) -> Value {
    return ConstantOp::create(bb, loc, bb.getI64IntegerAttr(v));
  };
  auto valueOf = [&](OpBuilder &bb, const RadixPlace &p) {
    Value v = cst(bb, p.constant);
    for (Value f : p.factors)
      v = MulOp::create(bb, loc, v, CastOp::create(bb, loc, i64, f));
    return v;
  };
  // Each digits' loop's extent, from an operand it indexes; with no
  // iterations there is no seed to read (an element's iteration is read
  // at 0 where it is not one), and the adjoint is zero.
  SmallVector<Value> operands(gen.getInputs());
  operands.push_back(g);
  SmallVector<Value> extents;
  Value any;
  for (const RadixLoop &rl : plan.loops) {
    Value extent;
    AffineExpr loopDim = getAffineDimExpr(rl.loop, ctx);
    for (auto [k, v] : llvm::enumerate(operands)) {
      AffineMap m = k + 1 == operands.size() ? maps.back() : maps[k];
      auto t = dyn_cast<RankedTensorType>(v.getType());
      if (auto pos = m.getResultPosition(loopDim); pos && t && !extent)
        extent = CastOp::create(b, loc, i64, tensor::DimOp::create(b, loc, v, *pos));
    }
    if (!extent)
      return failure();
    extents.push_back(extent);
    Value some = CmpOp::create(b, loc, b.getI1Type(), CmpPredicate::gt, extent, cst(b, 0));
    any = any ? AndOp::create(b, loc, any, some).getResult() : some;
  }
  auto ifOp = scf::IfOp::create(b, loc, TypeRange{type}, any, true);
  OpBuilder eb = OpBuilder::atBlockBegin(ifOp.elseBlock());
  scf::YieldOp::create(eb, loc, zerosLike(eb, loc, input));
  OpBuilder tb = OpBuilder::atBlockBegin(ifOp.thenBlock());
  // The adjoint's loops: the element's, then one per window (the
  // iterations below the lowest digit), reduced; a window's extent comes
  // from an empty tensor as long.
  SmallVector<Value> inputs{input};
  SmallVector<SmallVector<AffineExpr>> results;
  SmallVector<AffineExpr> element;
  for (unsigned k = 0; k < rank; ++k)
    element.push_back(getAffineDimExpr(k, ctx));
  results.push_back(element);
  SmallVector<int> windowLoop;
  unsigned numLoops = rank;
  for (const RadixLoop &rl : plan.loops) {
    if (rl.window.constant == 1 && rl.window.factors.empty()) {
      windowLoop.push_back(-1);
      continue;
    }
    Value w = CastOp::create(tb, loc, tb.getIndexType(), valueOf(tb, rl.window));
    inputs.push_back(tensor::EmptyOp::create(tb, loc, ArrayRef<OpFoldResult>{w},
                                             type.getElementType()));
    windowLoop.push_back(numLoops);
    results.push_back({getAffineDimExpr(numLoops++, ctx)});
  }
  results.push_back(element);
  SmallVector<AffineMap> newMaps;
  for (ArrayRef<AffineExpr> r : results)
    newMaps.push_back(AffineMap::get(numLoops, 0, r, ctx));
  Block &old = gen.getRegion().front();
  FailureOr<Value> result = failure();
  Value adjoint = buildIndexGen(
      tb, loc, type, inputs, newMaps, numLoops,
      [&](OpBuilder &bb, ValueRange) -> Value {
        SmallVector<Value> at, oldValue(numOld);
        for (unsigned k = 0; k < rank; ++k)
          at.push_back(loopIndex(bb, loc, k));
        for (unsigned k = 0; k < rank; ++k)
          if (plan.direct[k] >= 0)
            oldValue[plan.direct[k]] = at[k];
        auto cmp = [&](CmpPredicate p, Value x, Value y) -> Value {
          return CmpOp::create(bb, loc, bb.getI1Type(), p, x, y);
        };
        Value valid;
        for (auto [n, rl] : llvm::enumerate(plan.loops)) {
          // f = sum of digit * place value (+ the window's iteration).
          Value f = windowLoop[n] >= 0 ? loopIndex(bb, loc, windowLoop[n]) : cst(bb, 0);
          for (unsigned k = 0; k < rank; ++k)
            if (plan.digitLoop[k] == static_cast<int>(rl.loop))
              f = AddOp::create(bb, loc, f,
                                MulOp::create(bb, loc, at[k], valueOf(bb, plan.places[k])));
          Value ok = AndOp::create(bb, loc, cmp(CmpPredicate::ge, f, cst(bb, 0)),
                                   cmp(CmpPredicate::lt, f, extents[n]));
          valid = valid ? AndOp::create(bb, loc, valid, ok).getResult() : ok;
          oldValue[rl.loop] = f;
        }
        for (const RadixLoop &rl : plan.loops)
          oldValue[rl.loop] =
              SelectOp::create(bb, loc, i64, valid, oldValue[rl.loop], cst(bb, 0));
        auto readAt = [&](Value v, AffineMap m) -> Value {
          if (!isa<RankedTensorType>(v.getType()))
            return v;
          SmallVector<Value> idx;
          for (AffineExpr e : m.getResults())
            idx.push_back(CastOp::create(bb, loc, bb.getIndexType(),
                                         evaluateAt(bb, loc, e, oldValue)));
          return tensor::ExtractOp::create(bb, loc, v, idx);
        };
        IRMapping mapping;
        for (auto [k, v] : llvm::enumerate(gen.getInputs()))
          mapping.map(old.getArgument(k), readAt(v, maps[k]));
        Value seed = readAt(g, maps.back());
        SmallVector<Operation *> cloned;
        for (Operation &inner : old.without_terminator())
          cloned.push_back(bb.clone(inner, mapping));
        replaceLoopReads(cloned, oldValue);
        Block *block = bb.getInsertionBlock();
        Value yielded = mapping.lookupOrDefault(old.getTerminator()->getOperand(0));
        Value seedAdjoint = keepWhere(bb, loc, seed, valid);
        auto yield = YieldOp::create(bb, loc, yielded);
        ReverseSweep inner(ctx);
        inner.setElement(input, at);
        result = inner.run(*block, yielded, seedAdjoint, input);
        if (failed(result))
          return yielded;
        Value adj = *result;
        if (!adj) {
          OpBuilder zb(yield);
          adj = ConstantOp::create(zb, loc, FloatAttr::get(type.getElementType(), 0));
        }
        yield->erase();
        return adj;
      });
  if (failed(result)) {
    ifOp.erase();
    return failure();
  }
  scf::YieldOp::create(tb, loc, adjoint);
  return ifOp.getResult(0);
}
