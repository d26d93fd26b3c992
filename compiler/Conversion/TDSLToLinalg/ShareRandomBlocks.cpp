//===- ShareRandomBlocks.cpp - Draws of a loop share their Philox blocks --===//
//
// `uniform(s, 2 * i)` and `uniform(s, 2 * i + 1)` in a loop over i cost a
// Philox4x32-10 block each and use one word of it. By the stream's
// definition (Philox.h) the 16G values of a group come from 16 blocks, so
// the iterations of a strip aligned on groups can compute those blocks once
// into a table, in a loop that vectorizes over blocks, and read their values
// from it: a quarter of the work for this example. The values are those of
// the definition, so the results do not change.
//
//===----------------------------------------------------------------------===//
#include "compiler/Conversion/TDSLToLinalg/LowerStructuredOps.h"
#include "compiler/Conversion/TDSLToLinalg/Passes.h"
#include "compiler/Conversion/TDSLToLinalg/Philox.h"
#include "dialects/TDSL/IR/TDSLOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "llvm/Support/MathExtras.h"

#include <map>

namespace tdsl {
#define GEN_PASS_DEF_SHARERANDOMBLOCKS
#include "compiler/Conversion/TDSLToLinalg/Passes.h.inc"
} // namespace tdsl

using namespace mlir;
namespace t = tdsl::ir;

namespace {

/// Bodies are copied three times (head, strips, tail): bigger ones are left.
constexpr int64_t kMaxBodyOps = 400;

/// counter = a * iv + b + sum(c * term), each term defined outside the loop;
/// arithmetic modulo 2^64, as the counter's.
struct Affine {
  uint64_t a = 0, b = 0;
  std::map<void *, std::pair<Value, uint64_t>> terms; // by pointer: a canonical order

  bool constant() const { return a == 0 && terms.empty(); }
  void addScaled(const Affine &o, uint64_t c) {
    a += c * o.a;
    b += c * o.b;
    for (auto &[key, term] : o.terms) {
      auto &mine = terms.try_emplace(key, term.first, 0).first->second;
      mine.second += c * term.second;
      if (mine.second == 0)
        terms.erase(key);
    }
  }
  bool sameTerms(const Affine &o) const {
    if (a != o.a || terms.size() != o.terms.size())
      return false;
    for (auto [x, y] : llvm::zip(terms, o.terms))
      if (x.first != y.first || x.second.second != y.second.second)
        return false;
    return true;
  }
};

bool is64BitInteger(Type type) {
  return type.isIndex() || (type.isInteger() && type.getIntOrFloatBitWidth() == 64);
}

bool definedOutside(Value v, scf::ForOp loop) {
  return !loop.getRegion().isAncestor(v.getParentRegion());
}

/// What a loop's draws are made of, memoized per value (a body is a DAG:
/// `k = k + k` repeated would take exponential time otherwise).
class LoopAnalysis {
public:
  explicit LoopAnalysis(scf::ForOp loop) : loop(loop) {}

  /// Whether `v` has the same value in every iteration: defined outside the
  /// loop, or computed in the body from such values by ops that cannot trap
  /// (`1000 + k`: not a division, which may sit under a condition that
  /// guards its divisor), so that cloneAt can compute it before a strip.
  bool invariant(Value v, int depth = 0) {
    if (definedOutside(v, loop))
      return true;
    auto [it, fresh] = invariants.try_emplace(v, false);
    if (!fresh)
      return it->second;
    Operation *op = v.getDefiningOp();
    bool result = op && depth < 64 &&
                  isa<t::ConstantOp, arith::ConstantOp, t::CastOp, t::AddOp, t::SubOp,
                      t::MulOp, arith::AddIOp, arith::SubIOp, arith::MulIOp,
                      arith::IndexCastOp, arith::IndexCastUIOp>(op) &&
                  llvm::all_of(op->getOperands(),
                               [&](Value x) { return invariant(x, depth + 1); });
    invariants[v] = result;
    return result;
  }

  /// `v` as an affine function of the induction variable, through casts
  /// between 64-bit integers, additions, subtractions and products by
  /// constants; none if it is not one.
  std::optional<Affine> affine(Value v, int depth = 0) {
    if (auto it = affines.find(v); it != affines.end())
      return it->second;
    std::optional<Affine> result = compute(v, depth);
    affines[v] = result;
    return result;
  }

private:
  std::optional<Affine> compute(Value v, int depth) {
    if (depth > 64 || !is64BitInteger(v.getType()))
      return std::nullopt;
    Affine r;
    if (v == loop.getInductionVar()) {
      r.a = 1;
      return r;
    }
    APInt c;
    if (matchPattern(v, m_ConstantInt(&c))) {
      r.b = c.getZExtValue();
      return r;
    }
    if (invariant(v)) {
      r.terms[v.getAsOpaquePointer()] = {v, 1};
      return r;
    }
    Operation *op = v.getDefiningOp();
    if (!op)
      return std::nullopt;
    if (isa<t::CastOp, arith::IndexCastOp, arith::IndexCastUIOp>(op))
      return affine(op->getOperand(0), depth + 1);
    if (!isa<t::AddOp, arith::AddIOp, t::SubOp, arith::SubIOp, t::MulOp, arith::MulIOp>(op))
      return std::nullopt;
    std::optional<Affine> x = affine(op->getOperand(0), depth + 1);
    std::optional<Affine> y = affine(op->getOperand(1), depth + 1);
    if (!x || !y)
      return std::nullopt;
    if (isa<t::MulOp, arith::MulIOp>(op)) {
      if (!x->constant())
        std::swap(x, y);
      if (!x->constant())
        return std::nullopt;
      r.addScaled(*y, x->b);
      return r;
    }
    r = *x;
    r.addScaled(*y, isa<t::SubOp, arith::SubIOp>(op) ? uint64_t(-1) : 1);
    return r;
  }

  scf::ForOp loop;
  DenseMap<Value, bool> invariants;
  DenseMap<Value, std::optional<Affine>> affines;
};

/// A copy of `v`'s computation in `loop` (ops LoopAnalysis accepts: casts,
/// additions, products, constants), with the induction variable replaced by
/// what `map` maps it to.
Value cloneAt(OpBuilder &b, Value v, scf::ForOp loop, IRMapping &map) {
  if (definedOutside(v, loop))
    return v;
  if (Value done = map.lookupOrNull(v))
    return done;
  Operation *op = v.getDefiningOp();
  for (Value operand : op->getOperands())
    cloneAt(b, operand, loop, map);
  b.clone(*op, map);
  return map.lookup(v);
}

/// A draw the pass can serve from a table.
struct Draw {
  mutable t::RandomOp op; // op accessors are not const
  Affine counter;
  int64_t group; // 16G: the values of one group of 16 blocks
};

/// Draws that read one table: same seed, kind, type, `a` and terms, and
/// constants b from `base` to `base + spread` (spread <= a).
struct Family {
  SmallVector<Draw *> draws;
  Draw *rep() const { return draws.front(); }
  uint64_t spread() const { return draws.back()->counter.b - rep()->counter.b; }
};

bool sameFamily(const Draw &x, const Draw &y) {
  return x.op.getSeed() == y.op.getSeed() &&
         x.op.getDistribution() == y.op.getDistribution() &&
         x.op.getType() == y.op.getType() && x.counter.sameTerms(y.counter);
}

std::optional<Draw> asDraw(t::RandomOp op, LoopAnalysis &analysis) {
  if (!analysis.invariant(op.getSeed()))
    return std::nullopt;
  std::optional<Affine> counter = analysis.affine(op.getCounter());
  if (!counter)
    return std::nullopt;
  auto type = cast<FloatType>(op.getType());
  bool normal = op.getDistribution() == t::Distribution::normal;
  int64_t group = 16 * (4 / tdsl::randomWordsPerValue(type, normal));
  uint64_t a = counter->a;
  if (a == 0 || !llvm::isPowerOf2_64(a) || a > uint64_t(group))
    return std::nullopt;
  return Draw{op, *counter, group};
}

bool eligible(scf::ForOp loop) {
  if (!loop.getInductionVar().getType().isIndex() ||
      !matchPattern(loop.getStep(), m_One()))
    return false;
  int64_t ops = 0;
  WalkResult walk = loop.getBody()->walk([&](Operation *op) {
    if (++ops > kMaxBodyOps ||
        llvm::any_of(op->getResultTypes(), llvm::IsaPred<TensorType>))
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return !walk.wasInterrupted();
}

/// Fills `table` with the values of the `groups` groups from g0: slot s of
/// block 16 (g0 + g) + l goes to g * 16G + 16 s + l, so table[q] is value
/// 16G * g0 + q of the stream. The loop over l has unit strides: it
/// vectorizes 16 blocks wide.
void fillTable(OpBuilder &b, Location loc, Value table, Value seed, Value g0,
               Value groups, const Draw &d) {
  auto type = cast<FloatType>(d.op.getType());
  bool normal = d.op.getDistribution() == t::Distribution::normal;
  Type i64 = b.getI64Type();
  auto cst = [&](int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); };
  auto i64Of = [&](Value v) { return arith::IndexCastOp::create(b, loc, i64, v); };
  OpBuilder::InsertionGuard guard(b);
  auto outer = scf::ForOp::create(b, loc, cst(0), groups, cst(1));
  b.setInsertionPointToStart(outer.getBody());
  Value g = outer.getInductionVar();
  // Groups wrap as counters do: c < 2^64 / 16G (a strip can run from the
  // last counters to the first ones).
  unsigned log = llvm::Log2_64(d.group);
  Value c = arith::AndIOp::create(
      b, loc, arith::AddIOp::create(b, loc, g0, i64Of(g)),
      arith::ConstantIntOp::create(b, loc, i64, int64_t(~uint64_t(0) >> log)));
  Value first = arith::ShLIOp::create(b, loc, c, arith::ConstantIntOp::create(b, loc, i64, 4));
  Value row = arith::MulIOp::create(b, loc, g, cst(d.group));
  auto inner = scf::ForOp::create(b, loc, cst(0), cst(16), cst(1));
  b.setInsertionPointToStart(inner.getBody());
  Value l = inner.getInductionVar();
  Value block = arith::AddIOp::create(b, loc, first, i64Of(l));
  SmallVector<Value> values = tdsl::buildRandomSlots(b, loc, seed, block, type, normal);
  Value at = arith::AddIOp::create(b, loc, row, l);
  for (auto [s, v] : llvm::enumerate(values))
    memref::StoreOp::create(b, loc, v, table,
                            ValueRange{arith::AddIOp::create(b, loc, at, cst(16 * int64_t(s)))});
}

/// scf.for's builder gives a loop without results a yield, one with results
/// none; the bodies here get their own.
void dropTerminator(scf::ForOp loop) {
  Block *body = loop.getBody();
  if (!body->empty() && isa<scf::YieldOp>(body->back()))
    body->back().erase();
}

/// Cuts `loop` into a head, strips of `strip` iterations served by the
/// families' tables, and a tail (the loop itself).
void shareBlocks(scf::ForOp loop, ArrayRef<Family> families, int64_t strip) {
  IRRewriter b(loop);
  Location loc = loop.getLoc();
  Type i64 = b.getI64Type();
  auto cst = [&](int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); };
  auto cst64 = [&](int64_t v) { return arith::ConstantIntOp::create(b, loc, i64, v); };
  // Strips start at multiples of `strip` (a * strip values: whole groups).
  // From the trip count, as an unsigned number, so that bounds near the
  // ends of the index range cannot overflow: the first aligned iteration
  // is lb + skip, skip = -lb mod strip; the strips end a multiple of strip
  // later; with no whole strip, the head runs everything.
  Value lb = loop.getLowerBound(), ub = loop.getUpperBound();
  Value trips = arith::SelectOp::create(
      b, loc, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, ub, lb),
      arith::SubIOp::create(b, loc, ub, lb), cst(0));
  Value skip = arith::AndIOp::create(b, loc, arith::SubIOp::create(b, loc, cst(0), lb),
                                     cst(strip - 1));
  Value fits = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, skip, trips);
  Value whole = arith::AndIOp::create(b, loc, arith::SubIOp::create(b, loc, trips, skip),
                                      cst(-strip));
  Value mainLb = arith::SelectOp::create(b, loc, fits,
                                         arith::AddIOp::create(b, loc, lb, skip), ub);
  Value mainUb = arith::SelectOp::create(b, loc, fits,
                                         arith::AddIOp::create(b, loc, mainLb, whole), ub);

  // One table per family, n groups (+ 1 when the constants run past them).
  SmallVector<Value> tables;
  for (const Family &f : families) {
    const Draw &d = *f.rep();
    int64_t groups = int64_t(d.counter.a) * strip / d.group + 1;
    auto type = MemRefType::get({groups * d.group}, d.op.getType());
    tables.push_back(memref::AllocaOp::create(b, loc, type));
  }

  IRMapping headMap;
  auto head = cast<scf::ForOp>(b.clone(*loop, headMap));
  head.getUpperBoundMutable().assign(mainLb);

  auto strips = scf::ForOp::create(b, loc, mainLb, mainUb, cst(strip), head.getResults());
  dropTerminator(strips);
  b.setInsertionPointToStart(strips.getBody());
  Value i0 = strips.getInductionVar();
  // Per draw: where its value for iteration i0 + t is, offset + a * t.
  DenseMap<Operation *, Value> offsets;
  for (auto [f, table] : llvm::zip(families, tables)) {
    const Draw &rep = *f.rep();
    IRMapping map;
    map.map(loop.getInductionVar(), i0);
    Value k0 = cloneAt(b, rep.op.getCounter(), loop, map);
    if (k0.getType().isIndex())
      k0 = arith::IndexCastOp::create(b, loc, i64, k0);
    Value seed = cloneAt(b, rep.op.getSeed(), loop, map);
    if (seed.getType() != i64)
      seed = t::CastOp::create(b, loc, i64, seed);
    unsigned log = llvm::Log2_64(rep.group);
    Value g0 = arith::ShRUIOp::create(b, loc, k0, cst64(log));
    // k0 % 16G: static when the counter has no run-time terms, since a * i0
    // is a multiple of 16G.
    Value r = rep.counter.terms.empty()
                  ? (Value)cst(int64_t(rep.counter.b & uint64_t(rep.group - 1)))
                  : (Value)arith::IndexCastOp::create(
                        b, loc, b.getIndexType(),
                        arith::AndIOp::create(b, loc, k0, cst64(rep.group - 1)));
    int64_t groups = int64_t(rep.counter.a) * strip / rep.group;
    // The last value read is r + spread + a * (strip - 1); past n groups when
    // r + spread >= a.
    Value extra = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::uge,
        arith::AddIOp::create(b, loc, r, cst(int64_t(f.spread()))),
        cst(int64_t(rep.counter.a)));
    Value count = arith::SelectOp::create(b, loc, extra, cst(groups + 1), cst(groups));
    fillTable(b, loc, table, seed, g0, count, rep);
    for (Draw *d : f.draws)
      offsets[d->op] = arith::AddIOp::create(b, loc, r,
                                             cst(int64_t(d->counter.b - rep.counter.b)));
  }
  Value end = arith::AddIOp::create(b, loc, i0, cst(strip));
  auto inner = scf::ForOp::create(b, loc, i0, end, cst(1), strips.getRegionIterArgs());
  scf::YieldOp::create(b, loc, inner.getResults());
  dropTerminator(inner);
  b.setInsertionPointToStart(inner.getBody());
  IRMapping map;
  map.map(loop.getInductionVar(), inner.getInductionVar());
  map.map(loop.getRegionIterArgs(), inner.getRegionIterArgs());
  for (Operation &op : *loop.getBody())
    b.clone(op, map);
  for (auto [f, table] : llvm::zip(families, tables)) {
    for (Draw *d : f.draws) {
      auto copy = cast<t::RandomOp>(map.lookup(d->op.getResult()).getDefiningOp());
      b.setInsertionPoint(copy);
      Value t = arith::SubIOp::create(b, loc, inner.getInductionVar(), i0);
      Value at = arith::AddIOp::create(
          b, loc, offsets[d->op],
          arith::MulIOp::create(b, loc, t, cst(int64_t(d->counter.a))));
      b.replaceOpWithNewOp<memref::LoadOp>(copy, table, ValueRange{at});
    }
  }

  // The loop itself is the tail.
  loop.getLowerBoundMutable().assign(mainUb);
  loop.getInitArgsMutable().assign(strips.getResults());
}

/// The families of `loop`'s draws; empty if none is worth a table.
SmallVector<Family> familiesOf(scf::ForOp loop, SmallVector<Draw> &draws) {
  LoopAnalysis analysis(loop);
  loop.getBody()->walk([&](t::RandomOp op) {
    if (std::optional<Draw> d = asDraw(op, analysis))
      draws.push_back(*d);
  });
  // Stable: families in program order of their first draw, draws by b.
  SmallVector<Family> families;
  SmallVector<bool> taken(draws.size(), false);
  for (size_t i = 0; i < draws.size(); ++i) {
    if (taken[i])
      continue;
    SmallVector<Draw *> same;
    for (size_t j = i; j < draws.size(); ++j)
      if (!taken[j] && sameFamily(draws[i], draws[j]))
        same.push_back(&draws[j]);
    llvm::sort(same, [](Draw *x, Draw *y) { // program order among equal b
      return std::make_pair(int64_t(x->counter.b), x) <
             std::make_pair(int64_t(y->counter.b), y);
    });
    // Split where the constants spread over more than a.
    for (Draw *d : same) {
      taken[d - draws.data()] = true;
      if (families.empty() || !sameFamily(*families.back().rep(), *d) ||
          d->counter.b - families.back().rep()->counter.b > d->counter.a)
        families.push_back(Family{});
      families.back().draws.push_back(d);
    }
  }
  // A table costs a / G blocks per iteration (16 blocks per 16G / a
  // iterations), the draws one block each: keep the families where the
  // table does at least half the work (normal(f64, s, 16 i) alone would
  // compute 16 blocks per value).
  llvm::erase_if(families, [](const Family &f) {
    const Draw &d = *f.rep();
    return int64_t(f.draws.size()) * (d.group / 16) < 2 * int64_t(d.counter.a);
  });
  return families;
}

struct ShareRandomBlocksPass
    : tdsl::impl::ShareRandomBlocksBase<ShareRandomBlocksPass> {
  void runOnOperation() override { tdsl::shareRandomBlocks(getOperation()); }
};

} // namespace

void tdsl::shareRandomBlocks(Operation *root) {
  SmallVector<scf::ForOp> loops;
  // Innermost first: a draw served by an inner loop's table is no longer a
  // tdsl.random when the outer loop is looked at.
  root->walk<WalkOrder::PostOrder>([&](scf::ForOp loop) { loops.push_back(loop); });
  for (scf::ForOp loop : loops) {
    if (!eligible(loop))
      continue;
    SmallVector<Draw> draws;
    SmallVector<Family> families = familiesOf(loop, draws);
    if (families.empty())
      continue;
    int64_t strip = 1;
    for (const Family &f : families)
      strip = std::max(strip, f.rep()->group / int64_t(f.rep()->counter.a));
    shareBlocks(loop, families, strip);
  }
}
