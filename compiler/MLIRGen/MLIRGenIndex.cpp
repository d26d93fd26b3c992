//===- MLIRGenIndex.cpp - Index notation to tdsl.index_gen ----------------===//
//
// A definition or reduction by index notation becomes one tdsl.index_gen:
// its inputs and their affine maps come from the subscripts (direct,
// constant, loop-invariant or computed), and reads that no subscript check
// covers get guards before the op.
//
//===----------------------------------------------------------------------===//
#include "compiler/MLIRGen/Generator.h"
#include "dialects/TDSL/IR/TDSLDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace tdsl;
using namespace tdsl::mlirgen;

#include <functional>

//===----------------------------------------------------------------------===//
// Index notation
//===----------------------------------------------------------------------===//

/// Calls `fn` on each expression directly inside `e`: operands, call
/// arguments, a tensor read's base and subscripts, a reduction's body, a
/// field's model.
void tdsl::mlirgen::forEachExprChild(Expr &e,
                                     llvm::function_ref<void(Expr &)> fn) {
  switch (e.kind) {
  case Expr::Index: {
    auto &ie = llvm::cast<IndexExpr>(e);
    fn(*ie.base);
    for (auto &sub : ie.indices)
      fn(*sub);
    return;
  }
  case Expr::Unary:
    return fn(*llvm::cast<UnaryExpr>(e).operand);
  case Expr::Binary:
    fn(*llvm::cast<BinaryExpr>(e).lhs);
    return fn(*llvm::cast<BinaryExpr>(e).rhs);
  case Expr::Ternary: {
    auto &t = llvm::cast<TernaryExpr>(e);
    fn(*t.cond);
    fn(*t.thenExpr);
    return fn(*t.elseExpr);
  }
  case Expr::Call:
    for (auto &a : llvm::cast<CallExpr>(e).args)
      fn(*a.value);
    return;
  case Expr::Reduce:
    return fn(*llvm::cast<ReduceExpr>(e).body);
  case Expr::Field:
    return fn(*llvm::cast<FieldExpr>(e).base);
  default:
    return;
  }
}

/// Whether some tensor read in `e` has a subscript that is exactly the
/// index `name` (which then gives that index's range).
static bool subscriptsDirectly(const Expr &e, llvm::StringRef name) {
  bool found = false;
  std::function<void(Expr &)> walk = [&](Expr &x) {
    if (found)
      return;
    if (auto *ie = llvm::dyn_cast<IndexExpr>(&x))
      for (auto &sub : ie->indices) {
        auto *ref = llvm::dyn_cast<VarRefExpr>(sub.get());
        found |= ref && ref->varKind == VarKind::IndexVar && ref->name == name;
      }
    forEachExprChild(x, walk);
  };
  walk(const_cast<Expr &>(e));
  return found;
}

bool Generator::usesIndex(const Expr &e, const IndexFrame &frame) const {
  switch (e.kind) {
  case Expr::VarRef: {
    auto &r = llvm::cast<VarRefExpr>(e);
    return r.varKind == VarKind::IndexVar && llvm::is_contained(frame.dims, r.name);
  }
  case Expr::Unary:
    return usesIndex(*llvm::cast<UnaryExpr>(e).operand, frame);
  case Expr::Binary: {
    auto &b = llvm::cast<BinaryExpr>(e);
    return usesIndex(*b.lhs, frame) || usesIndex(*b.rhs, frame);
  }
  case Expr::Ternary: {
    auto &t = llvm::cast<TernaryExpr>(e);
    return usesIndex(*t.cond, frame) || usesIndex(*t.thenExpr, frame) ||
           usesIndex(*t.elseExpr, frame);
  }
  case Expr::Call:
    for (auto &a : llvm::cast<CallExpr>(e).args)
      if (usesIndex(*a.value, frame))
        return true;
    return false;
  case Expr::Index: {
    auto &i = llvm::cast<IndexExpr>(e);
    if (usesIndex(*i.base, frame))
      return true;
    for (auto &s : i.indices)
      if (usesIndex(*s, frame))
        return true;
    return false;
  }
  case Expr::Reduce:
    return usesIndex(*llvm::cast<ReduceExpr>(e).body, frame);
  default:
    return false;
  }
}

/// The loop of `frame` that the index variable `s` names, if it is one.
static std::optional<unsigned> frameLoop(const Expr &s, const IndexFrame &frame) {
  auto *ref = llvm::dyn_cast<VarRefExpr>(&s);
  if (!ref || ref->varKind != VarKind::IndexVar)
    return std::nullopt;
  auto it = llvm::find(frame.dims, ref->name);
  if (it == frame.dims.end())
    return std::nullopt;
  return unsigned(it - frame.dims.begin());
}

/// Whether every constant of `e` (a sum of products, as MLIR simplifies
/// it) is at least 0: then so is its smallest value.
static bool nonNegative(mlir::AffineExpr e) {
  bool ok = true;
  e.walk([&](mlir::AffineExpr x) {
    if (auto c = llvm::dyn_cast<mlir::AffineConstantExpr>(x))
      ok &= c.getValue() >= 0;
  });
  return ok;
}

/// `s` as an affine expression of the frame's indices: indices (plus their
/// loop's first value, `offsetOf`), integer literals, `+`, `*` by a literal
/// and `-` of a literal. Callers accept it only where `nonNegative`.
std::optional<mlir::AffineExpr>
Generator::affineSubscript(const Expr &s, const IndexFrame &frame) const {
  if (auto *lit = llvm::dyn_cast<IntLitExpr>(&s))
    return lit->value < (uint64_t(1) << 31)
               ? std::optional(mlir::getAffineConstantExpr(lit->value, &ctx))
               : std::nullopt;
  if (llvm::isa<VarRefExpr>(&s)) {
    std::optional<unsigned> d = frameLoop(s, frame);
    if (!d)
      return std::nullopt;
    return mlir::getAffineDimExpr(*d, &ctx) + frame.offsetOf(*d);
  }
  auto *b = llvm::dyn_cast<BinaryExpr>(&s);
  if (!b || (b->op != BinaryOp::Add && b->op != BinaryOp::Mul &&
             b->op != BinaryOp::Sub))
    return std::nullopt;
  auto lhs = affineSubscript(*b->lhs, frame);
  auto rhs = affineSubscript(*b->rhs, frame);
  if (!lhs || !rhs)
    return std::nullopt;
  if (b->op == BinaryOp::Add)
    return *lhs + *rhs;
  if (b->op == BinaryOp::Sub)
    return llvm::isa<mlir::AffineConstantExpr>(*rhs)
               ? std::optional(*lhs - *rhs)
               : std::nullopt;
  if (!llvm::isa<mlir::AffineConstantExpr>(*lhs) &&
      !llvm::isa<mlir::AffineConstantExpr>(*rhs))
    return std::nullopt;
  return *lhs * *rhs;
}

/// The loop that subscript `s` is exactly: an index variable of the frame
/// whose loop starts at 0, or an affine subscript that folds to such a
/// loop (`i - 1` where `i` runs from 1).
std::optional<unsigned> Generator::directDim(const Expr &s,
                                             const IndexFrame &frame) const {
  if (llvm::isa<VarRefExpr>(&s)) {
    std::optional<unsigned> d = frameLoop(s, frame);
    return d && frame.offsetOf(*d) == 0 ? d : std::nullopt;
  }
  if (frame.offsets.empty())
    return std::nullopt;
  std::optional<mlir::AffineExpr> affine = affineSubscript(s, frame);
  auto dim = affine ? llvm::dyn_cast<mlir::AffineDimExpr>(*affine) : nullptr;
  if (dim && frame.offsetOf(dim.getPosition()) != 0)
    return dim.getPosition();
  return std::nullopt;
}

SubscriptKind Generator::classify(const Expr &s, const IndexFrame &frame) const {
  if (llvm::isa<IntLitExpr>(&s))
    return SubscriptKind::Constant;
  if (directDim(s, frame))
    return SubscriptKind::Direct;
  if (!usesIndex(s, frame))
    return SubscriptKind::Invariant;
  // An affine subscript's largest value is checked before the op from the
  // extents of its indices, which other subscripts must give directly.
  // One that folds to a plain index (`k + 0`) stays computed: as a map
  // result it would give that index a range, which only a direct
  // subscript does.
  std::optional<mlir::AffineExpr> affine = affineSubscript(s, frame);
  bool ranged = affine && frame.body && nonNegative(*affine) &&
                !llvm::isa<mlir::AffineDimExpr, mlir::AffineConstantExpr>(*affine);
  for (unsigned d = 0; ranged && d < frame.dims.size(); ++d)
    if (affine->isFunctionOfDim(d))
      ranged = d < frame.numShaped || frame.explicitRange[d] ||
               subscriptsDirectly(*frame.body, frame.dims[d]);
  return ranged ? SubscriptKind::Affine : SubscriptKind::Computed;
}

/// Whether subscript `d` of the read `e` in index notation may be read
/// whether or not a lazy `?:` side chooses it: a direct one whose loop
/// takes its range from that dimension, a literal against a static size
/// (checked by Sema), or one that does not depend on the op's loops
/// (`A[k, j]` in a row update): that is checked once before the op, chosen
/// or not, so that the row is read as vectors. Any other is checked
/// inside the side.
bool Generator::safeSubscript(const IndexExpr &e, unsigned d,
                              const IndexFrame &frame) const {
  const Expr &sub = *e.indices[d];
  const Dim &has = e.base->type.shape[d];
  switch (classify(sub, frame)) {
  case SubscriptKind::Invariant:
    return !mayFail(sub, nullptr);
  case SubscriptKind::Direct: {
    unsigned dim = *directDim(sub, frame);
    bool same = dim < frame.loopDims.size() && !has.isDynamic() &&
                has == frame.loopDims[dim];
    return dim >= frame.loopExtents.size() || !frame.loopExtents[dim] || same;
  }
  case SubscriptKind::Constant:
    return has.isStatic();
  default:
    return false;
  }
}

/// Whether `a` and `b` are the same read or arithmetic on the same names.
static bool sameValue(const Expr &a, const Expr &b) {
  if (a.kind != b.kind)
    return false;
  if (auto *x = llvm::dyn_cast<VarRefExpr>(&a)) {
    auto &y = llvm::cast<VarRefExpr>(b);
    return x->name == y.name && x->varKind == y.varKind;
  }
  if (auto *x = llvm::dyn_cast<IntLitExpr>(&a))
    return x->value == llvm::cast<IntLitExpr>(b).value;
  if (auto *x = llvm::dyn_cast<UnaryExpr>(&a)) {
    auto &y = llvm::cast<UnaryExpr>(b);
    return x->op == y.op && sameValue(*x->operand, *y.operand);
  }
  if (auto *x = llvm::dyn_cast<BinaryExpr>(&a)) {
    auto &y = llvm::cast<BinaryExpr>(b);
    return x->op == y.op && sameValue(*x->lhs, *y.lhs) &&
           sameValue(*x->rhs, *y.rhs);
  }
  if (auto *x = llvm::dyn_cast<FieldExpr>(&a)) {
    auto &y = llvm::cast<FieldExpr>(b);
    return x->field == y.field && sameValue(*x->base, *y.base);
  }
  if (auto *x = llvm::dyn_cast<IndexExpr>(&a)) {
    auto &y = llvm::cast<IndexExpr>(b);
    if (!sameValue(*x->base, *y.base) || x->indices.size() != y.indices.size())
      return false;
    for (auto [s, t] : llvm::zip(x->indices, y.indices))
      if (!sameValue(*s, *t))
        return false;
    return true;
  }
  return false;
}

/// Whether computing `e` may stop the program: a read with a subscript
/// that is checked (every read outside index notation, `frame` null), an
/// integer division (not by a literal), a call of a user function (which
/// may also recurse). A reduction's own reads count unless every subscript
/// is an index or a literal. A read that `done` (a `?:`'s condition) makes
/// too cannot fail again (`x[i] > 0.0 ? x[i] : 0.01 * x[i]`).
bool Generator::mayFail(const Expr &e, const IndexFrame *frame,
                        const Expr *done) const {
  auto readBefore = [&](const IndexExpr &read) {
    bool found = false;
    std::function<void(Expr &)> find = [&](Expr &x) {
      if (auto *other = llvm::dyn_cast<IndexExpr>(&x))
        found |= sameValue(read, *other);
      if (!found && !llvm::isa<ReduceExpr>(x))
        forEachExprChild(x, find);
    };
    if (done)
      find(const_cast<Expr &>(*done));
    return found;
  };
  bool fails = false;
  std::function<void(Expr &, bool)> walk = [&](Expr &x, bool inReduce) {
    if (fails)
      return;
    if (auto *ie = llvm::dyn_cast<IndexExpr>(&x); ie && !inReduce && readBefore(*ie))
      return;
    if (auto *ie = llvm::dyn_cast<IndexExpr>(&x)) {
      for (unsigned d = 0; d < ie->indices.size(); ++d) {
        const Expr &sub = *ie->indices[d];
        auto *ref = llvm::dyn_cast<VarRefExpr>(&sub);
        bool plain = llvm::isa<IntLitExpr>(sub) ||
                     (ref && ref->varKind == VarKind::IndexVar);
        fails |= inReduce ? !plain : !frame || !safeSubscript(*ie, d, *frame);
      }
    } else if (auto *call = llvm::dyn_cast<CallExpr>(&x)) {
      fails |= call->target != nullptr;
    } else if (auto *b = llvm::dyn_cast<BinaryExpr>(&x)) {
      // By a positive literal (`(i + j) % 2`) it cannot.
      auto *lit = llvm::dyn_cast<IntLitExpr>(b->rhs.get());
      fails |= (b->op == BinaryOp::Div || b->op == BinaryOp::Rem) &&
               isIntKind(b->type.elem) && !(lit && lit->value != 0);
    } else if (llvm::isa<ReduceExpr>(x)) {
      inReduce = true;
    }
    forEachExprChild(x, [&](Expr &child) { walk(child, inReduce); });
  };
  walk(const_cast<Expr &>(e), false);
  return fails;
}

/// `c ? a : b` with a scalar condition and value computes only the side
/// it chooses when the other may fail (`d < 2 ? a[i, d] : b[i, d - 2]`,
/// `n == 0 ? 1 : n * fact(n - 1)`). Otherwise both sides are computed and
/// selected, which vectorizes. Likewise scalar `a && b` and `a || b`
/// compute `b` only when needed if it may fail (`i > 0 && x[i - 1] > 0.0`).
bool Generator::isLazy(const Expr &e, const IndexFrame *frame) const {
  if (auto *t = llvm::dyn_cast<TernaryExpr>(&e))
    return t->cond->type.isScalar() && t->type.isScalar() &&
           (mayFail(*t->thenExpr, frame, t->cond.get()) ||
            mayFail(*t->elseExpr, frame, t->cond.get()));
  auto *b = llvm::dyn_cast<BinaryExpr>(&e);
  return b && (b->op == BinaryOp::And || b->op == BinaryOp::Or) &&
         b->type.isScalar() && mayFail(*b->rhs, frame, b->lhs.get());
}

/// Whether `e` is lazy, as index notation decided when it walked it, or
/// else reading everything in place.
bool Generator::decidedLazy(const Expr &e) const {
  auto decided = lazyChoices.find(&e);
  return decided != lazyChoices.end() ? decided->second : isLazy(e, nullptr);
}

/// A tensor read `t[s0, s1, ...]` that uses the op's index variables:
///  - direct and constant subscripts only: an input with an affine map;
///  - direct, constant and loop-invariant ones (`a[r, j]`): the slice at the
///    invariant positions, computed once, as such an input;
///  - some subscript computed from the indices (`m[i, (i + 1) % 3]`): read
///    inside the region, with a run-time check per subscript; its direct
///    subscripts still give loop ranges, through the same tensor as an
///    input whose block argument is never used (a range carrier).
bool Generator::collectAccess(IndexExpr &e, IndexFrame &frame, Env &env,
                              llvm::SmallVectorImpl<mlir::Value> &inputs,
                              llvm::SmallVectorImpl<mlir::AffineMap> &maps,
                              llvm::SmallVectorImpl<const Expr *> &inputExprs) {
  const IndexExpr &access = e;
  unsigned numDims = frame.dims.size();
  llvm::SmallVector<SubscriptKind, 4> kinds;
  for (auto [d, sub] : llvm::enumerate(e.indices)) {
    kinds.push_back(classify(*sub, frame));
    // Under a lazy `?:` side, a subscript that needs a check is checked
    // inside the region, only where the side is chosen.
    if (frame.lazySides && !safeSubscript(e, d, frame))
      kinds.back() = SubscriptKind::Computed;
  }
  bool computed = llvm::is_contained(kinds, SubscriptKind::Computed);
  bool direct = llvm::is_contained(kinds, SubscriptKind::Direct);
  if (computed) {
    // The tensor is captured; subscripts are computed inside the region.
    if (!collectInputs(*e.base, frame, env, inputs, maps, inputExprs))
      return false;
    for (auto &sub : e.indices)
      if (!collectInputs(*sub, frame, env, inputs, maps, inputExprs))
        return false;
    if (!direct)
      return true;
  }
  mlir::Value base = computed ? frame.leaves.lookup(e.base.get()) : nullptr;
  if (!base)
    base = gen(*e.base, env);
  if (!base)
    return false;
  auto type = mlir::cast<mlir::RankedTensorType>(base.getType());
  llvm::SmallVector<mlir::OpFoldResult> offsets, sizes, strides;
  llvm::SmallVector<int64_t> keptShape;
  llvm::SmallVector<mlir::AffineExpr> results;
  mlir::OpFoldResult zero = builder.getIndexAttr(0), one = builder.getIndexAttr(1);
  bool slice = false;
  // Per dimension: the rows a loop of a parallel for reads (its extent).
  llvm::SmallVector<mlir::Value> loopRows(e.indices.size());
  for (auto [d, sub] : llvm::enumerate(e.indices)) {
    mlir::Location sl = loc(sub->loc);
    mlir::Value index;
    switch (kinds[d]) {
    case SubscriptKind::Direct: {
      unsigned dim = *directDim(*sub, frame);
      results.push_back(builder.getAffineDimExpr(dim));
      const Dim &has = e.base->type.shape[d];
      bool same = dim < frame.loopDims.size() && !has.isDynamic() &&
                  has == frame.loopDims[dim];
      if (dim < frame.loopExtents.size() && frame.loopExtents[dim] && !same) {
        loopRows[d] = frame.loopExtents[dim];
        slice = true;
        index = mlir::arith::SubIOp::create(
            builder, sl, loopRows[d],
            mlir::arith::ConstantIndexOp::create(builder, sl, 1));
      }
      break;
    }
    case SubscriptKind::Constant: {
      uint64_t c = llvm::cast<IntLitExpr>(*sub).value;
      results.push_back(builder.getAffineConstantExpr(c));
      if (type.isDynamicDim(d)) // static extents were checked by Sema
        index = mlir::arith::ConstantIndexOp::create(builder, sl, c);
      break;
    }
    case SubscriptKind::Affine: {
      mlir::AffineExpr e = *affineSubscript(*sub, frame);
      results.push_back(e);
      frame.guards.push_back({base, (unsigned)d, nullptr, outOfRange(access, d), sl, e});
      break;
    }
    case SubscriptKind::Invariant:
      if (!computed) {
        // Sliced away below; checked once, before the op.
        mlir::Value v = gen(*sub, env);
        if (!v)
          return false;
        index = toIndex(v, sl);
        slice = true;
        break;
      }
      [[fallthrough]];
    case SubscriptKind::Computed:
      // The range carrier reads position 0 of this dimension.
      results.push_back(builder.getAffineConstantExpr(0));
      index = mlir::arith::ConstantIndexOp::create(builder, sl, 0);
      break;
    }
    if (index)
      frame.guards.push_back({base, (unsigned)d, index, outOfRange(e, d), sl});
    bool dropped = kinds[d] == SubscriptKind::Invariant && !computed;
    offsets.push_back(dropped ? mlir::OpFoldResult(index) : zero);
    sizes.push_back(dropped       ? one
                    : loopRows[d] ? mlir::OpFoldResult(loopRows[d])
                                  : mlir::tensor::getMixedSize(builder, sl, base, d));
    strides.push_back(one);
    if (!dropped)
      keptShape.push_back(loopRows[d] ? mlir::ShapedType::kDynamic
                                      : type.getDimSize(d));
  }
  if (slice)
    base = mlir::tensor::ExtractSliceOp::create(
        builder, loc(e.loc),
        mlir::RankedTensorType::get(keptShape, type.getElementType()), base,
        offsets, sizes, strides);
  inputs.push_back(base);
  maps.push_back(mlir::AffineMap::get(numDims, 0, results, &ctx));
  inputExprs.push_back(computed ? nullptr : &e);
  return true;
}

/// The reduction `e`, computed inside the region, reads tensors whose
/// direct subscripts are indices of `frame` (`j` in `sum(m) x[m, j] -
/// f32(k)`): each such tensor becomes a range carrier of the op (an input
/// whose elements the body never reads; its other subscripts read position
/// 0), so those indices' ranges are known.
bool Generator::addRangeCarriers(Expr &e, IndexFrame &frame, Env &env,
                                 llvm::SmallVectorImpl<mlir::Value> &inputs,
                                 llvm::SmallVectorImpl<mlir::AffineMap> &maps,
                                 llvm::SmallVectorImpl<const Expr *> &inputExprs) {
  bool ok = true;
  std::function<void(Expr &)> walk = [&](Expr &x) {
    if (!ok)
      return;
    if (auto *read = llvm::dyn_cast<IndexExpr>(&x)) {
      auto &ie = *read;
      bool direct = llvm::any_of(ie.indices, [&](auto &sub) {
        return frameLoop(*sub, frame).has_value();
      });
      // A base that is a name (not computed from indices) can be read here.
      auto *field = llvm::dyn_cast<FieldExpr>(ie.base.get());
      bool named = (field && llvm::isa<VarRefExpr>(*field->base)) ||
                   (llvm::isa<VarRefExpr>(*ie.base) &&
                    llvm::cast<VarRefExpr>(*ie.base).varKind !=
                        VarKind::IndexVar);
      if (direct && named) {
        mlir::Value base = gen(*ie.base, env);
        if (!base || !mlir::isa<mlir::RankedTensorType>(base.getType())) {
          ok = base != nullptr;
          return;
        }
        llvm::SmallVector<mlir::AffineExpr> results;
        for (auto [d, sub] : llvm::enumerate(ie.indices)) {
          if (auto dim = frameLoop(*sub, frame)) {
            results.push_back(builder.getAffineDimExpr(*dim));
            continue;
          }
          mlir::Location sl = loc(sub->loc);
          results.push_back(builder.getAffineConstantExpr(0));
          frame.guards.push_back({base, (unsigned)d,
                                  mlir::arith::ConstantIndexOp::create(builder, sl, 0),
                                  outOfRange(ie, d), sl});
        }
        inputs.push_back(base);
        maps.push_back(mlir::AffineMap::get(frame.dims.size(), 0, results, &ctx));
        inputExprs.push_back(nullptr);
      }
    }
    forEachExprChild(x, walk);
  };
  walk(e);
  return ok;
}

/// Checks, before the op, that the tensors an index subscripts directly
/// agree on its extent where only the run time knows it (Sema reports
/// static disagreements). The error names the index and both tensors, at
/// the second read: the check lowering to linalg makes later has no names.
void Generator::emitExtentChecks(IndexFrame &frame,
                                 llvm::ArrayRef<mlir::Value> inputs,
                                 llvm::ArrayRef<mlir::AffineMap> maps,
                                 llvm::ArrayRef<const Expr *> inputExprs,
                                 mlir::Location l) {
  auto describe = [&](unsigned k, unsigned pos) {
    std::string what = "dimension " + std::to_string(pos) + " of ";
    const auto *access = llvm::dyn_cast_or_null<IndexExpr>(inputExprs[k]);
    const auto *ref =
        access ? llvm::dyn_cast<VarRefExpr>(access->base.get()) : nullptr;
    return what + (ref ? "'" + ref->name + "'" : std::string("an operand"));
  };
  for (unsigned d = 0; d < frame.dims.size(); ++d) {
    std::optional<std::pair<unsigned, unsigned>> first;
    for (unsigned k = 0; k < inputs.size(); ++k) {
      auto type = mlir::dyn_cast<mlir::RankedTensorType>(inputs[k].getType());
      auto pos = maps[k].getResultPosition(builder.getAffineDimExpr(d));
      if (!type || !pos)
        continue;
      if (!first) {
        first = {k, *pos};
        continue;
      }
      auto [k0, pos0] = *first;
      auto type0 = mlir::cast<mlir::RankedTensorType>(inputs[k0].getType());
      if ((!type0.isDynamicDim(pos0) && !type.isDynamicDim(*pos)) ||
          (inputs[k0] == inputs[k] && pos0 == *pos))
        continue;
      const auto *access = llvm::dyn_cast_or_null<IndexExpr>(inputExprs[k]);
      mlir::Location at = access ? loc(access->base->loc) : l;
      mlir::Value a = mlir::tensor::DimOp::create(builder, at, inputs[k0], pos0);
      mlir::Value b = mlir::tensor::DimOp::create(builder, at, inputs[k], *pos);
      mlir::Value same = mlir::arith::CmpIOp::create(
          builder, at, mlir::arith::CmpIPredicate::eq, a, b);
      mlir::cf::AssertOp::create(
          builder, at, same,
          "index '" + frame.dims[d] + "' ranges over " + describe(k0, pos0) +
              " and " + describe(k, *pos) + ", whose sizes differ");
    }
  }
}

/// Checks the reads of `frame.guards` before the op, unless the op runs no
/// iteration (then it reads nothing, as a loop in C would not).
void Generator::emitGuards(IndexFrame &frame, llvm::ArrayRef<mlir::Value> inputs,
                           llvm::ArrayRef<mlir::AffineMap> maps,
                           mlir::Location l) {
  if (frame.guards.empty())
    return;
  mlir::Value empty = mlir::arith::ConstantOp::create(builder, l, builder.getBoolAttr(false));
  mlir::Value zero = mlir::arith::ConstantIndexOp::create(builder, l, 0);
  mlir::Value one = mlir::arith::ConstantIndexOp::create(builder, l, 1);
  // The last value of each loop (its extent - 1), where an input gives it.
  llvm::SmallVector<mlir::Value> last(frame.dims.size());
  for (unsigned d = 0; d < frame.dims.size(); ++d)
    for (auto [input, map] : llvm::zip(inputs, maps)) {
      auto pos = map.getResultPosition(builder.getAffineDimExpr(d));
      if (!pos || !mlir::isa<mlir::RankedTensorType>(input.getType()))
        continue;
      mlir::Value extent = mlir::tensor::DimOp::create(builder, l, input, *pos);
      mlir::Value none = mlir::arith::CmpIOp::create(
          builder, l, mlir::arith::CmpIPredicate::eq, extent, zero);
      empty = mlir::arith::OrIOp::create(builder, l, empty, none);
      last[d] = mlir::arith::SubIOp::create(builder, l, extent, one);
      break;
    }
  for (PendingGuard &g : frame.guards) {
    if (!g.index) {
      // The largest value of an affine subscript: at every loop's last value.
      std::function<mlir::Value(mlir::AffineExpr)> eval =
          [&](mlir::AffineExpr e) -> mlir::Value {
        if (auto d = llvm::dyn_cast<mlir::AffineDimExpr>(e))
          return last[d.getPosition()] ? last[d.getPosition()] : zero;
        if (auto c = llvm::dyn_cast<mlir::AffineConstantExpr>(e))
          return mlir::arith::ConstantIndexOp::create(builder, g.loc,
                                                      c.getValue());
        auto bin = llvm::cast<mlir::AffineBinaryOpExpr>(e);
        mlir::Value a = eval(bin.getLHS()), b = eval(bin.getRHS());
        if (e.getKind() == mlir::AffineExprKind::Add)
          return mlir::arith::AddIOp::create(builder, g.loc, a, b);
        return mlir::arith::MulIOp::create(builder, g.loc, a, b);
      };
      g.index = eval(g.affine);
    }
    mlir::Value extent = mlir::tensor::DimOp::create(builder, g.loc, g.tensor, g.dim);
    mlir::Value inRange = mlir::arith::CmpIOp::create(
        builder, g.loc, mlir::arith::CmpIPredicate::ult, g.index, extent);
    mlir::Value ok = mlir::arith::OrIOp::create(builder, g.loc, inRange, empty);
    mlir::cf::AssertOp::create(builder, g.loc, ok, g.message);
  }
}

/// Walks the body of an index expression before its op is built: direct
/// accesses and nested reductions become inputs with affine maps;
/// subexpressions that do not depend on the loops are computed once, before
/// the op, and captured.
bool Generator::collectInputs(Expr &e, IndexFrame &frame, Env &env,
                              llvm::SmallVectorImpl<mlir::Value> &inputs,
                              llvm::SmallVectorImpl<mlir::AffineMap> &maps,
                              llvm::SmallVectorImpl<const Expr *> &inputExprs) {
  unsigned numDims = frame.dims.size();
  if (!usesIndex(e, frame)) {
    if (llvm::isa<IntLitExpr, FloatLitExpr, BoolLitExpr, StringLitExpr,
                  TypeArgExpr>(&e))
      return true;
    // Computed in the region, where its side is chosen.
    if (frame.lazySides && mayFail(e, nullptr))
      return true;
    mlir::Value v = gen(e, env);
    if (!v)
      return false;
    frame.leaves[&e] = v;
    return true;
  }
  switch (e.kind) {
  case Expr::Index:
    return collectAccess(llvm::cast<IndexExpr>(e), frame, env, inputs, maps,
                         inputExprs);
  case Expr::Reduce: {
    // A reduction inside a larger index expression gets its own op over the
    // enclosing loops it uses, read back through an affine map. When it uses
    // an enclosing index only as a value (`min(k) x[k] - f32(j)`), that op
    // would not know the index's range: it is then computed inside the
    // region, per element (gen() builds it there, as a nested op).
    auto &r = llvm::cast<ReduceExpr>(e);
    // The hoisted op would be outside the ops under construction, whose
    // loops it cannot read: one that uses their indices is computed here.
    // So is one under a lazy `?:` side that may fail.
    if (llvm::any_of(indexFrames,
                     [&](IndexFrame *f) { return usesIndex(*r.body, *f); }) ||
        (frame.lazySides && mayFail(e, nullptr)))
      return addRangeCarriers(*r.body, frame, env, inputs, maps, inputExprs);
    std::vector<std::string> freeDims;
    llvm::SmallVector<mlir::AffineExpr> results;
    for (unsigned d = 0; d < numDims; ++d) {
      IndexFrame probe;
      probe.dims = {frame.dims[d]};
      if (usesIndex(*r.body, probe)) {
        if (!subscriptsDirectly(*r.body, frame.dims[d]))
          return addRangeCarriers(*r.body, frame, env, inputs, maps, inputExprs);
        freeDims.push_back(frame.dims[d]);
        results.push_back(builder.getAffineDimExpr(d));
      }
    }
    llvm::SmallVector<Dim, 4> shape(freeDims.size(), Dim::getDynamic());
    Type tt = freeDims.empty() ? Type::scalar(r.type.elem)
                               : Type::tensor(r.type.elem, shape);
    // The hoisted op lives outside every enclosing region under construction.
    std::vector<IndexFrame *> saved;
    saved.swap(indexFrames);
    mlir::Value v = genIndexGen(freeDims, &r, *r.body, env, r.loc, tt);
    indexFrames.swap(saved);
    if (!v)
      return false;
    if (freeDims.empty()) {
      frame.leaves[&e] = v;
      return true;
    }
    inputs.push_back(v);
    maps.push_back(mlir::AffineMap::get(numDims, 0, results, &ctx));
    inputExprs.push_back(&e);
    return true;
  }
  case Expr::Unary:
    return collectInputs(*llvm::cast<UnaryExpr>(e).operand, frame, env, inputs,
                         maps, inputExprs);
  case Expr::Binary: {
    auto &b = llvm::cast<BinaryExpr>(e);
    bool lazy = isLazy(b, &frame);
    lazyChoices[&b] = lazy;
    if (!collectInputs(*b.lhs, frame, env, inputs, maps, inputExprs))
      return false;
    frame.lazySides += lazy;
    bool ok = collectInputs(*b.rhs, frame, env, inputs, maps, inputExprs);
    frame.lazySides -= lazy;
    return ok;
  }
  case Expr::Ternary: {
    auto &t = llvm::cast<TernaryExpr>(e);
    bool lazy = isLazy(t, &frame);
    lazyChoices[&t] = lazy;
    if (!collectInputs(*t.cond, frame, env, inputs, maps, inputExprs))
      return false;
    frame.lazySides += lazy;
    bool ok = collectInputs(*t.thenExpr, frame, env, inputs, maps, inputExprs) &&
              collectInputs(*t.elseExpr, frame, env, inputs, maps, inputExprs);
    frame.lazySides -= lazy;
    return ok;
  }
  case Expr::Call:
    for (auto &a : llvm::cast<CallExpr>(e).args)
      if (!collectInputs(*a.value, frame, env, inputs, maps, inputExprs))
        return false;
    return true;
  default:
    return true; // index variables: tdsl.index inside the region
  }
}

/// A written range `k in 0..n` of a reduction index (loop `first + k`): an
/// empty tensor of n elements carries it (0 where n is negative).
bool Generator::addWrittenRanges(
    const ReduceExpr &root, unsigned first, IndexFrame &frame,
    llvm::SmallVectorImpl<mlir::Value> &inputs,
    llvm::SmallVectorImpl<mlir::AffineMap> &maps,
    llvm::SmallVectorImpl<const Expr *> &inputExprs) {
  for (auto [k, hi] : llvm::enumerate(root.uppers)) {
    if (!hi)
      continue;
    mlir::Location l = loc(hi->loc);
    // A literal extent is static: grad solves windows as wide as their
    // stride only where it knows the window's extent.
    const Dim &d = frame.loopDims[first + k];
    if (d.isStatic())
      inputs.push_back(mlir::tensor::EmptyOp::create(
          builder, l, llvm::ArrayRef<int64_t>{d.size}, builder.getF32Type()));
    else
      inputs.push_back(mlir::tensor::EmptyOp::create(
          builder, l, llvm::ArrayRef<int64_t>{mlir::ShapedType::kDynamic},
          builder.getF32Type(), mlir::ValueRange{frame.loopExtents[first + k]}));
    maps.push_back(mlir::AffineMap::get(
        frame.dims.size(), 0, builder.getAffineDimExpr(first + k), &ctx));
    inputExprs.push_back(nullptr);
  }
  return true;
}

/// The extents of a reduction's written ranges (`k in 0..n`), as the
/// frame's loop extents: a tensor read directly at such an index is read
/// through its first n elements along it, which may be fewer than it has
/// (`sum(k in 0..j) L[j, k]`). False after an error.
bool Generator::addWrittenExtents(const ReduceExpr &root, IndexFrame &frame, Env &env) {
  unsigned first = frame.dims.size() - root.indices.size();
  frame.loopExtents.resize(frame.dims.size());
  frame.loopDims.resize(frame.dims.size(), Dim::getDynamic(SMLoc()));
  for (auto [k, hi] : llvm::enumerate(root.uppers)) {
    if (!hi)
      continue;
    mlir::Location l = loc(hi->loc);
    if (auto *lit = llvm::dyn_cast<IntLitExpr>(hi.get())) {
      int64_t size = std::max<int64_t>(static_cast<int64_t>(lit->value), 0);
      frame.loopExtents[first + k] = mlir::arith::ConstantIndexOp::create(builder, l, size);
      frame.loopDims[first + k] = Dim::getStatic(size, hi->loc);
      continue;
    }
    mlir::Value n = gen(*hi, env);
    if (!n)
      return false;
    mlir::Value zero = mlir::arith::ConstantIndexOp::create(builder, l, 0);
    frame.loopExtents[first + k] =
        mlir::arith::MaxSIOp::create(builder, l, toIndex(n, l), zero);
  }
  return true;
}

/// `shapeSource`, when given, is a tensor of the result's shape whose
/// extents are the parallel loops' (an input whose elements are not read).
mlir::Value Generator::genIndexGen(llvm::ArrayRef<std::string> parallelDims,
                                   const ReduceExpr *root, Expr &body, Env &env,
                                   SMLoc at, const Type &resultType,
                                   mlir::Value shapeSource,
                                   llvm::ArrayRef<mlir::Value> loopExtents,
                                   llvm::ArrayRef<Dim> loopDims,
                                   llvm::ArrayRef<int64_t> offsets) {
  mlir::Location l = loc(at);
  IndexFrame frame;
  frame.dims.assign(parallelDims.begin(), parallelDims.end());
  frame.body = &body;
  frame.numShaped = shapeSource ? parallelDims.size() : 0;
  frame.loopExtents.assign(loopExtents.begin(), loopExtents.end());
  frame.loopDims.assign(loopDims.begin(), loopDims.end());
  frame.offsets.assign(offsets.begin(), offsets.end());
  llvm::SmallVector<t::IteratorType> iters(parallelDims.size(),
                                           t::IteratorType::parallel);
  t::CombinerKind combiner = t::CombinerKind::none;
  frame.explicitRange.assign(parallelDims.size(), false);
  if (root) {
    for (auto [v, hi] : llvm::zip(root->indices, root->uppers)) {
      frame.dims.push_back(v.name);
      frame.explicitRange.push_back(hi != nullptr);
      iters.push_back(t::IteratorType::reduction);
    }
    combiner = root->reduceKind == ReduceKind::Sum   ? t::CombinerKind::sum
               : root->reduceKind == ReduceKind::Max ? t::CombinerKind::max
                                                     : t::CombinerKind::min;
  }
  llvm::SmallVector<mlir::Value> inputs;
  llvm::SmallVector<mlir::AffineMap> maps;
  llvm::SmallVector<const Expr *> inputExprs;
  bool written = root && llvm::any_of(root->uppers, [](auto &hi) { return hi != nullptr; });
  if (written && !addWrittenExtents(*root, frame, env))
    return nullptr;
  if (!collectInputs(body, frame, env, inputs, maps, inputExprs))
    return nullptr;
  if (written && !addWrittenRanges(*root, parallelDims.size(), frame, inputs,
                                   maps, inputExprs))
    return nullptr;
  if (shapeSource) {
    llvm::SmallVector<mlir::AffineExpr> dimsOfSource;
    for (unsigned d = 0; d < parallelDims.size(); ++d)
      dimsOfSource.push_back(builder.getAffineDimExpr(d));
    inputs.push_back(shapeSource);
    maps.push_back(mlir::AffineMap::get(frame.dims.size(), 0, dimsOfSource, &ctx));
    inputExprs.push_back(nullptr);
  }
  // Every loop's range comes from an operand indexed by it.
  for (unsigned d = 0; d < frame.dims.size(); ++d) {
    bool covered = false;
    for (mlir::AffineMap m : maps)
      covered |= m.isFunctionOfDim(d);
    if (!covered) {
      fail(at, "index '" + frame.dims[d] +
                   "' must subscript a tensor directly (as A[" + frame.dims[d] +
                   "]) inside this expression so that its range is known");
      return nullptr;
    }
  }
  emitExtentChecks(frame, inputs, maps, inputExprs, l);
  emitGuards(frame, inputs, maps, l);
  llvm::SmallVector<mlir::AffineExpr> outResults;
  for (unsigned d = 0; d < parallelDims.size(); ++d)
    outResults.push_back(builder.getAffineDimExpr(d));
  maps.push_back(mlir::AffineMap::get(frame.dims.size(), 0, outResults, &ctx));

  auto op = t::IndexGenOp::create(builder, l, toMLIR(resultType), inputs,
                                  maps, iters, combiner);
  mlir::OpBuilder::InsertionGuard guard(builder);
  mlir::Block *block = &op.getRegion().front();
  builder.setInsertionPointToEnd(block);
  for (unsigned i = 0; i < inputExprs.size(); ++i)
    if (inputExprs[i]) // not a range carrier
      frame.leaves[inputExprs[i]] = block->getArgument(i);
  frame.block = block;
  indexFrames.push_back(&frame);
  mlir::Value v = gen(body, env);
  indexFrames.pop_back();
  if (!v)
    return nullptr;
  t::YieldOp::create(builder, l, v);
  return op.getResult();
}
