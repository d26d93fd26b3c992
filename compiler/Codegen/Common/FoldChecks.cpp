//===- FoldChecks.cpp - run-time checks that cannot fail, removed -----------===//
//
// MLIRGen checks every computed subscript at run time. Inside a loop whose
// range the compiler knows, most checks cannot fail (`x[i]` in `for i in
// 0..n` with x of n elements), and an scf.if calling tdsl_fatal in a
// linalg body keeps it from vectorizing. This pass bounds integer values by
// the loops they come from (linalg.index, scf.for, scf.forall) and the
// arithmetic on them, and erases the checks whose failure condition is
// false for every value in those bounds.
//
//===----------------------------------------------------------------------===//
#include "compiler/Codegen/Common/Passes.h"
#include "dialects/TDSL/IR/TDSLDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"

namespace tdsl {
#define GEN_PASS_DEF_FOLDCHECKS
#include "compiler/Codegen/Common/Passes.h.inc"
} // namespace tdsl

using namespace mlir;

namespace {

/// Closed bounds [lo, hi] of a signed integer value; either may be unknown.
struct Bounds {
  std::optional<int64_t> lo, hi;
  bool nonNegative() const { return lo && *lo >= 0; }
};

/// The loop size of dimension `d` of `op`, when known at compile time or
/// as the value an output's tensor.empty was made with.
std::optional<int64_t> staticLoopSize(linalg::LinalgOp op, unsigned d) {
  int64_t r = op.getStaticLoopRanges()[d];
  if (ShapedType::isDynamic(r))
    return std::nullopt;
  return r;
}

/// Whether `v` is the run-time size of loop `d` of `op`: a dynamic size of
/// an output's tensor.empty at a dimension that loop indexes directly, or a
/// tensor.dim of such an output.
bool isLoopSize(linalg::LinalgOp op, unsigned d, Value v) {
  for (OpOperand &init : op.getDpsInitsMutable()) {
    AffineMap map = op.getMatchingIndexingMap(&init);
    for (unsigned r = 0; r < map.getNumResults(); ++r) {
      auto e = dyn_cast<AffineDimExpr>(map.getResult(r));
      if (!e || e.getPosition() != d)
        continue;
      if (auto dim = v.getDefiningOp<tensor::DimOp>())
        if (dim.getSource() == init.get() && getConstantIntValue(dim.getIndex()) == r)
          return true;
      if (auto empty = init.get().getDefiningOp<tensor::EmptyOp>())
        if (empty.getType().isDynamicDim(r) && empty.getDynamicSize(r) == v)
          return true;
    }
  }
  return false;
}

struct Analysis {
  unsigned depth = 0;

  Bounds of(Value v) {
    if (depth > 16)
      return {};
    ++depth;
    Bounds b = compute(v);
    --depth;
    return b;
  }

  Bounds compute(Value v) {
    APInt c;
    if (matchPattern(v, m_ConstantInt(&c)))
      return {c.getSExtValue(), c.getSExtValue()};
    if (auto arg = dyn_cast<BlockArgument>(v))
      return ofInductionVar(arg);
    Operation *def = v.getDefiningOp();
    if (!def)
      return {};
    if (auto index = dyn_cast<linalg::IndexOp>(def)) {
      auto op = dyn_cast<linalg::LinalgOp>(index->getParentOp());
      if (!op)
        return {0, std::nullopt};
      std::optional<int64_t> size = staticLoopSize(op, index.getDim());
      return {0, size ? std::optional<int64_t>(*size - 1) : std::nullopt};
    }
    if (isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp>(def))
      return of(def->getOperand(0));
    auto binary = [&](auto f) -> Bounds {
      Bounds a = of(def->getOperand(0)), b = of(def->getOperand(1));
      return f(a, b);
    };
    auto both = [](std::optional<int64_t> x, std::optional<int64_t> y, auto f)
        -> std::optional<int64_t> {
      if (!x || !y)
        return std::nullopt;
      int64_t r;
      if (f(*x, *y, r))
        return std::nullopt; // overflow
      return r;
    };
    auto add = [](int64_t x, int64_t y, int64_t &r) { return __builtin_add_overflow(x, y, &r); };
    auto sub = [](int64_t x, int64_t y, int64_t &r) { return __builtin_sub_overflow(x, y, &r); };
    auto mul = [](int64_t x, int64_t y, int64_t &r) { return __builtin_mul_overflow(x, y, &r); };
    if (isa<arith::AddIOp>(def))
      return binary([&](Bounds a, Bounds b) {
        return Bounds{both(a.lo, b.lo, add), both(a.hi, b.hi, add)};
      });
    if (isa<arith::SubIOp>(def))
      return binary([&](Bounds a, Bounds b) {
        return Bounds{both(a.lo, b.hi, sub), both(a.hi, b.lo, sub)};
      });
    if (isa<arith::MulIOp>(def))
      return binary([&](Bounds a, Bounds b) -> Bounds {
        if (!a.nonNegative() || !b.nonNegative())
          return {};
        return {both(a.lo, b.lo, mul), both(a.hi, b.hi, mul)};
      });
    if (isa<arith::MinSIOp, arith::MinUIOp>(def))
      return binary([&](Bounds a, Bounds b) -> Bounds {
        if (isa<arith::MinUIOp>(def) && (!a.nonNegative() || !b.nonNegative()))
          return {};
        std::optional<int64_t> hi =
            a.hi && b.hi ? std::min(*a.hi, *b.hi) : (a.hi ? a.hi : b.hi);
        std::optional<int64_t> lo =
            a.lo && b.lo ? std::optional<int64_t>(std::min(*a.lo, *b.lo)) : std::nullopt;
        return {lo, hi};
      });
    if (isa<arith::MaxSIOp>(def))
      return binary([&](Bounds a, Bounds b) -> Bounds {
        std::optional<int64_t> lo =
            a.lo && b.lo ? std::max(*a.lo, *b.lo) : (a.lo ? a.lo : b.lo);
        std::optional<int64_t> hi =
            a.hi && b.hi ? std::optional<int64_t>(std::max(*a.hi, *b.hi)) : std::nullopt;
        return {lo, hi};
      });
    if (isa<arith::RemUIOp, arith::RemSIOp>(def))
      return binary([&](Bounds a, Bounds b) -> Bounds {
        if (!a.nonNegative() || !b.lo || *b.lo <= 0 || !b.hi)
          return {};
        return {0, a.hi ? std::min(*a.hi, *b.hi - 1) : *b.hi - 1};
      });
    if (isa<arith::DivUIOp, arith::DivSIOp>(def))
      return binary([&](Bounds a, Bounds b) -> Bounds {
        if (!a.nonNegative() || !b.lo || *b.lo <= 0)
          return {};
        return {*a.lo / (b.hi ? *b.hi : *b.lo), a.hi ? std::optional(*a.hi / *b.lo)
                                                      : std::nullopt};
      });
    return {};
  }

  /// The induction variable of an scf.for or scf.forall with constant bounds
  /// and a positive step: [lb, ub - 1].
  Bounds ofInductionVar(BlockArgument arg) {
    Operation *owner = arg.getOwner()->getParentOp();
    auto range = [&](Value lb, Value ub) -> Bounds {
      Bounds l = of(lb), u = of(ub);
      return {l.lo, u.hi ? std::optional<int64_t>(*u.hi - 1) : std::nullopt};
    };
    if (auto loop = dyn_cast<scf::ForOp>(owner)) {
      if (arg != loop.getInductionVar())
        return {};
      Bounds s = of(loop.getStep());
      if (!s.lo || *s.lo <= 0)
        return {};
      return range(loop.getLowerBound(), loop.getUpperBound());
    }
    if (auto loop = dyn_cast<scf::ForallOp>(owner)) {
      auto ivs = loop.getInductionVars();
      auto it = llvm::find(ivs, arg);
      if (it == ivs.end())
        return {};
      unsigned d = it - ivs.begin();
      std::optional<int64_t> step = getConstantIntValue(loop.getMixedStep()[d]);
      std::optional<int64_t> lb = getConstantIntValue(loop.getMixedLowerBound()[d]);
      std::optional<int64_t> ub = getConstantIntValue(loop.getMixedUpperBound()[d]);
      if (!step || *step <= 0)
        return {};
      return {lb, ub ? std::optional<int64_t>(*ub - 1) : std::nullopt};
    }
    return {};
  }

  /// Whether `index` is a linalg.index and `size` the run-time size of its
  /// loop.
  static bool isSizeOf(Value index, Value size) {
    auto op = index.getDefiningOp<linalg::IndexOp>();
    auto parent = op ? dyn_cast<linalg::LinalgOp>(op->getParentOp()) : nullptr;
    return parent && isLoopSize(parent, op.getDim(), size);
  }

  /// Whether `lhs < rhs` holds for all values: by bounds, or because lhs is
  /// a linalg.index and rhs the run-time size of its loop.
  bool alwaysLess(Value lhs, Value rhs) {
    if (isSizeOf(lhs, rhs))
      return true;
    Bounds a = of(lhs), b = of(rhs);
    return a.hi && b.lo && *a.hi < *b.lo;
  }

  /// The value of the i1 `cond` when it is the same for every value the
  /// loops around it take.
  std::optional<bool> decide(Value cond) {
    APInt c;
    if (matchPattern(cond, m_ConstantInt(&c)))
      return !c.isZero();
    Operation *def = cond.getDefiningOp();
    if (!def)
      return std::nullopt;
    if (isa<arith::OrIOp, arith::AndIOp>(def)) {
      std::optional<bool> a = decide(def->getOperand(0)), b = decide(def->getOperand(1));
      bool isOr = isa<arith::OrIOp>(def);
      if ((a && *a == isOr) || (b && *b == isOr))
        return isOr;
      if (a && b)
        return isOr ? (*a || *b) : (*a && *b);
      return std::nullopt;
    }
    if (isa<arith::XOrIOp>(def)) {
      std::optional<bool> a = decide(def->getOperand(0)), b = decide(def->getOperand(1));
      if (a && b)
        return *a != *b;
      return std::nullopt;
    }
    auto cmp = dyn_cast<arith::CmpIOp>(def);
    if (!cmp)
      return std::nullopt;
    Value l = cmp.getLhs(), r = cmp.getRhs();
    using P = arith::CmpIPredicate;
    // Unsigned comparisons agree with signed ones when both sides are
    // non-negative (a loop's size is).
    bool unsignedOk = of(l).nonNegative() && (of(r).nonNegative() || isSizeOf(l, r));
    switch (cmp.getPredicate()) {
    case P::uge:
      if (!unsignedOk) return std::nullopt;
      [[fallthrough]];
    case P::sge: // l >= r
      if (alwaysLess(l, r)) return false;
      break;
    case P::ult:
      if (!unsignedOk) return std::nullopt;
      [[fallthrough]];
    case P::slt: // l < r
      if (alwaysLess(l, r)) return true;
      if (Bounds a = of(l), b = of(r); a.lo && b.hi && *a.lo >= *b.hi) return false;
      break;
    case P::ugt:
      if (!unsignedOk) return std::nullopt;
      [[fallthrough]];
    case P::sgt: // l > r, i.e. r < l
      if (alwaysLess(l, r)) return false;
      break;
    default:
      break;
    }
    return std::nullopt;
  }
};

/// An scf.if that only stops the program: a run-time check.
bool isCheck(scf::IfOp op) {
  if (op.getNumResults() != 0 || !op.getElseRegion().empty())
    return false;
  return llvm::all_of(op.thenBlock()->without_terminator(), [](Operation &inner) {
    auto call = dyn_cast<func::CallOp>(inner);
    return call && call.getCallee() == "tdsl_fatal";
  });
}

/// How a subscript depends on the loop indices of the linalg op around it.
enum class Trend { Invariant, Increasing, Other };

/// Whether `v` (computed in `op`'s body) does not decrease when any loop
/// index of `op` grows: sums and differences of its indices, constants and
/// values from outside the op, with indices only added and multiplied by
/// non-negative constants.
Trend trendOf(Value v, linalg::GenericOp op, unsigned depth = 0) {
  if (depth > 16)
    return Trend::Other;
  if (!op->isProperAncestor(v.getParentRegion()->getParentOp()) &&
      v.getParentRegion() != &op.getRegion())
    return Trend::Invariant; // defined outside the op
  APInt c;
  if (matchPattern(v, m_ConstantInt(&c)))
    return Trend::Invariant;
  Operation *def = v.getDefiningOp();
  if (!def || !op->isProperAncestor(def))
    return Trend::Other;
  if (isa<linalg::IndexOp>(def))
    return Trend::Increasing;
  auto join = [](Trend a, Trend b) {
    if (a == Trend::Other || b == Trend::Other)
      return Trend::Other;
    return a == Trend::Increasing || b == Trend::Increasing ? Trend::Increasing
                                                            : Trend::Invariant;
  };
  if (isa<arith::IndexCastOp, arith::ExtSIOp>(def)) {
    // Not through a truncation: the subscript must not wrap.
    auto bits = [](Type t) { return t.isIndex() ? 64u : t.getIntOrFloatBitWidth(); };
    if (bits(def->getResult(0).getType()) < bits(def->getOperand(0).getType()))
      return Trend::Other;
    return trendOf(def->getOperand(0), op, depth + 1);
  }
  if (isa<arith::AddIOp>(def))
    return join(trendOf(def->getOperand(0), op, depth + 1),
                trendOf(def->getOperand(1), op, depth + 1));
  if (isa<arith::SubIOp>(def)) {
    if (trendOf(def->getOperand(1), op, depth + 1) != Trend::Invariant)
      return Trend::Other;
    return trendOf(def->getOperand(0), op, depth + 1);
  }
  if (isa<arith::MulIOp>(def)) {
    // Small factors: between the first and the last iteration the subscript
    // then grows by less than 2^63 (a loop has fewer than 2^47 iterations).
    APInt k;
    if (!matchPattern(def->getOperand(1), m_ConstantInt(&k)) || k.isNegative() ||
        k.getActiveBits() > 16)
      return Trend::Other;
    return trendOf(def->getOperand(0), op, depth + 1);
  }
  return Trend::Other;
}

/// `v` computed before `op`, with its loop indices replaced by `indices`
/// (clones of the arithmetic trendOf accepted).
Value materialize(OpBuilder &b, Value v, linalg::GenericOp op,
                  ArrayRef<Value> indices) {
  Operation *def = v.getDefiningOp();
  if (!def || !op->isProperAncestor(def))
    return v; // from outside the op
  if (auto index = dyn_cast<linalg::IndexOp>(def))
    return indices[index.getDim()];
  IRMapping map;
  for (Value operand : def->getOperands())
    map.map(operand, materialize(b, operand, op, indices));
  return b.clone(*def, map)->getResult(0);
}

/// A check in `op`'s body of a subscript against a size from outside
/// (`idx uge size`, which also fails for negative idx) whose subscript grows
/// with the loop indices fails for some iteration exactly when it fails at
/// the first or the last one: it moves before the op as one check of those
/// two, when the op has iterations. A last value below the first means the
/// subscript wrapped around on the way, and fails too. A check per element keeps the body from
/// vectorizing (a stencil on run-time shapes stayed scalar).
/// The loop indices of `op` at its first and last iteration, and whether it
/// has iterations, computed once before it for all the checks it moves there.
struct Extremes {
  SmallVector<Value> first, last;
  Value runs;
};

Extremes extremesOf(linalg::GenericOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  SmallVector<Range> ranges =
      cast<linalg::LinalgOp>(op.getOperation()).createLoopRanges(b, loc);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Extremes e;
  e.first.assign(ranges.size(), zero);
  Value empty;
  for (Range &r : ranges) {
    Value n = getValueOrCreateConstantIndexOp(b, loc, r.size);
    e.last.push_back(arith::SubIOp::create(b, loc, n, one));
    Value none = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle, n, zero);
    empty = empty ? arith::OrIOp::create(b, loc, empty, none) : none;
  }
  e.runs = arith::XOrIOp::create(b, loc, empty,
                                 arith::ConstantIntOp::create(b, loc, 1, 1));
  return e;
}

/// Whether the check `idx uge size` in `op`'s body, of a subscript that
/// grows with its loops against a size from outside, fails for some
/// iteration: at the first or the last, or by wrapping between them, when
/// the op has iterations. Computed before `op`.
Value failsAtExtremes(Value idx, Value size, linalg::GenericOp op, Location loc,
                      llvm::DenseMap<Operation *, Extremes> &extremes) {
  auto it = extremes.find(op);
  if (it == extremes.end())
    it = extremes.try_emplace(op, extremesOf(op)).first;
  const Extremes &e = it->second;
  OpBuilder b(op);
  Value lo = materialize(b, idx, op, e.first);
  Value hi = materialize(b, idx, op, e.last);
  size = materialize(b, size, op, e.first);
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(lo.getType()));
  Value below = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, lo, zero);
  Value above = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, hi, size);
  Value wrapped = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, hi, lo);
  Value fails = arith::OrIOp::create(
      b, loc, arith::OrIOp::create(b, loc, below, above), wrapped);
  return arith::AndIOp::create(b, loc, e.runs, fails);
}

bool hoistCheck(scf::IfOp check,
                llvm::DenseMap<Operation *, Extremes> &extremes) {
  auto op = dyn_cast<linalg::GenericOp>(check->getParentOp());
  auto cmp = check.getCondition().getDefiningOp<arith::CmpIOp>();
  if (!op || !cmp || cmp->getParentOp() != op ||
      cmp.getPredicate() != arith::CmpIPredicate::uge)
    return false;
  Value idx = cmp.getLhs(), size = cmp.getRhs();
  if (trendOf(size, op) != Trend::Invariant || trendOf(idx, op) == Trend::Other)
    return false;
  // What the failure branch uses (the message) must exist before the op.
  SetVector<Value> used;
  getUsedValuesDefinedAbove(check.getThenRegion(), used);
  if (llvm::any_of(used, [&](Value v) { return trendOf(v, op) != Trend::Invariant ||
                                               v.getParentRegion() == &op.getRegion(); }))
    return false;
  Value cond = failsAtExtremes(idx, size, op, check.getLoc(), extremes);
  OpBuilder b(op);
  b.clone(*check)->setOperand(0, cond);
  check.erase();
  return true;
}

/// A lazy `?:` (an scf.if MLIRGen marked) in a linalg body whose sides can
/// no longer fail, their checks gone: it becomes a select of both sides,
/// as a `?:` without reads is. Reads left in it are in bounds for every
/// iteration, since every read MLIRGen makes is checked. Vectorization and
/// tdsl-raise-extracts then see a flat body.
bool speculate(scf::IfOp op) {
  auto pure = [](Block *block) {
    return llvm::all_of(block->without_terminator(),
                        [](Operation &inner) { return isPure(&inner); });
  };
  if (op.getNumResults() == 0 || op.getElseRegion().empty() ||
      !pure(op.thenBlock()) || !pure(op.elseBlock()))
    return false;
  SmallVector<Value> thenValues(op.thenYield().getOperands());
  SmallVector<Value> elseValues(op.elseYield().getOperands());
  Block *parent = op->getBlock();
  for (Block *side : {op.thenBlock(), op.elseBlock()})
    parent->getOperations().splice(Block::iterator(op), side->getOperations(),
                                   side->begin(),
                                   Block::iterator(side->getTerminator()));
  OpBuilder b(op);
  SmallVector<Value> selects;
  for (auto [t, e] : llvm::zip(thenValues, elseValues))
    selects.push_back(
        arith::SelectOp::create(b, op.getLoc(), op.getCondition(), t, e));
  op->replaceAllUsesWith(selects);
  op.erase();
  return true;
}

/// Whether `op` is inside a lazy `?:` of `kernel`.
bool inLazySide(Operation *op, linalg::GenericOp kernel) {
  for (Operation *p = op->getParentOp(); p && p != kernel; p = p->getParentOp())
    if (p->hasAttr(tdsl::kLazySelectAttr))
      return true;
  return false;
}

/// Whether the check `check` of a lazy side of `op` fails for some iteration
/// of `op` had the side been chosen there, computed before `op`: a
/// loop-invariant condition, or a subscript that grows with the loops
/// against a size from outside, checked at the first and last iterations
/// (as hoistCheck does). Null when neither.
Value failsAnywhere(scf::IfOp check, linalg::GenericOp op,
                    llvm::DenseMap<Operation *, Extremes> &extremes) {
  Value cond = check.getCondition();
  if (!op->isAncestor(cond.getParentRegion()->getParentOp()))
    return cond;
  auto cmp = cond.getDefiningOp<arith::CmpIOp>();
  if (!cmp || cmp.getPredicate() != arith::CmpIPredicate::uge)
    return nullptr;
  Value idx = cmp.getLhs(), size = cmp.getRhs();
  if (trendOf(size, op) != Trend::Invariant || trendOf(idx, op) == Trend::Other)
    return nullptr;
  return failsAtExtremes(idx, size, op, check.getLoc(), extremes);
}

/// A generic whose lazy `?:`s keep checks (`c[i] > 0.0 ? a[i] : b[i]` on
/// run-time sizes: a scalar loop with a branch per element) runs as two
/// versions: where no such check can fail for any iteration (computed
/// before the op, as hoistCheck does), a copy without them, whose `?:`s are
/// selects again and which vectorizes; otherwise the op as it is, checking
/// only the chosen sides (a concatenation). Returns the copy.
linalg::GenericOp version(linalg::GenericOp op,
                          llvm::DenseMap<Operation *, Extremes> &extremes) {
  SmallVector<scf::IfOp> checks;
  bool sideChecksOnly = true;
  op->walk([&](scf::IfOp check) {
    if (!isCheck(check))
      return;
    if (inLazySide(check, op))
      checks.push_back(check);
    else
      sideChecksOnly = false; // the copy would stay scalar too
  });
  if (checks.empty() || !sideChecksOnly)
    return nullptr;
  SmallVector<Value> fails;
  for (scf::IfOp check : checks) {
    Value f = failsAnywhere(check, op, extremes);
    if (!f)
      return nullptr;
    fails.push_back(f);
  }
  OpBuilder b(op);
  Location loc = op.getLoc();
  Value any = fails.front();
  for (Value f : llvm::drop_begin(fails))
    any = arith::OrIOp::create(b, loc, any, f);
  auto ifOp = scf::IfOp::create(b, loc, op->getResultTypes(), any,
                                /*withElseRegion=*/true);
  b.setInsertionPointToStart(ifOp.elseBlock());
  auto copy = cast<linalg::GenericOp>(b.clone(*op));
  scf::YieldOp::create(b, loc, copy->getResults());
  b.setInsertionPointToStart(ifOp.thenBlock());
  auto yield = scf::YieldOp::create(b, loc, op->getResults());
  op->replaceUsesWithIf(ifOp.getResults(), [&](OpOperand &use) {
    return use.getOwner() != yield;
  });
  op->moveBefore(yield);
  SmallVector<scf::IfOp> copyChecks, lazy;
  copy->walk([&](scf::IfOp inner) {
    if (isCheck(inner))
      copyChecks.push_back(inner);
    else if (inner->hasAttr(tdsl::kLazySelectAttr))
      lazy.push_back(inner);
  });
  for (scf::IfOp check : copyChecks)
    check.erase();
  for (scf::IfOp side : lazy)
    speculate(side);
  return copy;
}

struct FoldChecksPass : tdsl::impl::FoldChecksBase<FoldChecksPass> {
  void runOnOperation() override {
    SmallVector<scf::IfOp> dead, left;
    Analysis analysis;
    getOperation().walk([&](scf::IfOp op) {
      if (!isCheck(op))
        return;
      if (analysis.decide(op.getCondition()) == false)
        dead.push_back(op);
      else
        left.push_back(op);
    });
    // Generics whose checks all went (folded or moved before the op): every
    // subscript their body reads is in bounds whenever the op runs, which
    // tdsl-raise-extracts needs to read run-time-sized tensors as inputs.
    llvm::SetVector<Operation *> checkedOps;
    for (scf::IfOp op : llvm::concat<scf::IfOp>(dead, left))
      if (isa<linalg::GenericOp>(op->getParentOp()))
        checkedOps.insert(op->getParentOp());
    for (scf::IfOp op : dead)
      op.erase();
    llvm::DenseMap<Operation *, Extremes> extremes;
    for (scf::IfOp op : left)
      hoistCheck(op, extremes);
    // Inner ones first (a post-order walk), so an outer one sees them gone.
    SmallVector<scf::IfOp> lazy;
    getOperation().walk([&](scf::IfOp op) {
      if (op->hasAttr(tdsl::kLazySelectAttr) &&
          op->getParentOfType<linalg::GenericOp>())
        lazy.push_back(op);
    });
    for (scf::IfOp op : lazy)
      speculate(op);
    SmallVector<linalg::GenericOp> withLazySides;
    getOperation().walk([&](linalg::GenericOp op) {
      bool lazySide = false;
      op->walk([&](scf::IfOp inner) {
        lazySide |= inner->hasAttr(tdsl::kLazySelectAttr);
      });
      if (lazySide)
        withLazySides.push_back(op);
    });
    for (linalg::GenericOp op : withLazySides)
      if (linalg::GenericOp copy = version(op, extremes))
        copy->setAttr(tdsl::kBoundsCheckedAttr, UnitAttr::get(&getContext()));
    for (Operation *op : checkedOps) {
      bool anyLeft = false;
      op->walk([&](scf::IfOp inner) { anyLeft |= isCheck(inner); });
      if (!anyLeft)
        op->setAttr(tdsl::kBoundsCheckedAttr, UnitAttr::get(op->getContext()));
    }
  }
};

} // namespace
