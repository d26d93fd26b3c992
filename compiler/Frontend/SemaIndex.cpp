//===- SemaIndex.cpp - Index notation: index variables and ranges ---------===//
//
// Definitions by index notation (`C[i, j] = sum(k) A[i, k] * B[k, j]`),
// element updates, reductions and subscripts: which names are new index
// variables, the range each one takes, and the reads a subscript checks.
//
//===----------------------------------------------------------------------===//
#include "compiler/Frontend/SemaChecker.h"

#include "llvm/Support/SaveAndRestore.h"

#include <functional>

using namespace tdsl;
using namespace tdsl::sema;
//===----------------------------------------------------------------------===//
// Index notation
//===----------------------------------------------------------------------===//

/// `x[s0, s1, ...] = e`. A subscript that is a name not bound yet is a new
/// index variable; any other is a position. Without positions this defines
/// (or rebinds) x by index notation, each index ranging over what it
/// subscripts on the right (or, failing that, over x's own extent); with
/// positions it updates the existing x: the elements at those positions
/// (all of them along index dimensions) get the right-hand side, which sees
/// the old x.
void Checker::checkIndexDef(IndexDefStmt &def) {
  VarInfo *target = lookup(def.name);
  Type targetType = target ? target->type : Type::error();
  bool ok = classifySubscripts(def);
  if (def.isUpdate)
    ok = checkUpdateTarget(def, target) && checkPositions(def, targetType) && ok;
  pushScope();
  std::vector<std::string> added = declareIndices(def, targetType, ok);
  ++indexDepth;
  llvm::SaveAndRestore inUpdate(checkingUpdate, def.isUpdate);
  Type t = check(*def.value);
  --indexDepth;
  ok &= !t.isError();
  if (ok && (t.isTensor || t.elem == ElemKind::String || t.isVoid())) {
    diags.error(def.value->loc,
                "the right-hand side of an index-notation definition must be "
                "a scalar expression, not " + t.str() +
                    "; subscript every tensor with index variables");
    ok = false;
  }
  llvm::SmallVector<Dim, 4> shape;
  ok = indexRanges(def, targetType, ok, shape) && ok;
  for (const std::string &n : added)
    indexInfo.erase(n);
  popScope();
  if (ok && def.isUpdate) {
    // The value goes into x: it has x's element type.
    ElemKind want = targetType.elem;
    Expr &v = *def.value;
    if (isLiteralKind(v.type.elem) && !coerce(v, want, "the update of '" + def.name + "'"))
      ok = false;
    else if (v.type.elem != want) {
      diags.error(v.loc, "elements of '" + def.name + "' (" + targetType.str() +
                             ") cannot be set to a value of type " + v.type.str() +
                             "; convert it, e.g. " + getElemKindName(want) + "(...)");
      ok = false;
    }
  }
  if (!ok) {
    bind(def.name, def.isUpdate && target ? targetType : Type::error(), def.loc);
    return;
  }
  settleDefault(*def.value);
  def.boundType = def.isUpdate ? targetType
                               : Type::tensor(def.value->type.elem, shape);
  bind(def.name, def.boundType, def.loc);
}

/// Fills def.indices and def.indexOf: a bare name not bound yet is a new
/// index variable (once), anything else a position (then an update).
bool Checker::classifySubscripts(IndexDefStmt &def) {
  def.indices.clear();
  def.indexOf.clear();
  def.offsets.clear();
  def.isUpdate = false;
  bool ok = true;
  llvm::StringMap<SMLoc> seen;
  auto newIndex = [&](Expr *e) -> VarRefExpr * {
    auto *ref = llvm::dyn_cast_or_null<VarRefExpr>(e);
    return ref && !lookup(ref->name) ? ref : nullptr;
  };
  for (ExprPtr &sub : def.subscripts) {
    VarRefExpr *ref = newIndex(sub.get());
    Expr *offset = nullptr;
    // `y + p`: a new index placed at offset p (an update of that part).
    if (auto *add = llvm::dyn_cast<BinaryExpr>(sub.get());
        !ref && add && add->op == BinaryOp::Add && !add->parenthesized) {
      if ((ref = newIndex(add->lhs.get())))
        offset = add->rhs.get();
      else if ((ref = newIndex(add->rhs.get())))
        offset = add->lhs.get();
    }
    // `y - 1`: the undeclared y alone would say nothing of the form.
    if (auto *sub2 = llvm::dyn_cast<BinaryExpr>(sub.get());
        !ref && sub2 && sub2->op == BinaryOp::Sub && !sub2->parenthesized)
      if (VarRefExpr *index = newIndex(sub2->lhs.get())) {
        diags.error(sub2->loc, "an update at an offset is written '" +
                                   index->name + " + p' with p >= 0: '" +
                                   index->name +
                                   "' starts at 0, so a negative offset "
                                   "writes before the tensor's start");
        ok = false;
        ref = index; // still the index, so that its uses say nothing more
      }
    def.offsets.push_back(offset);
    if (offset)
      def.isUpdate = true;
    if (!ref) {
      def.indexOf.push_back(-1);
      def.isUpdate = true;
      continue;
    }
    auto [it, inserted] = seen.try_emplace(ref->name, ref->loc);
    if (!inserted) {
      diags.error(ref->loc, "index variable '" + ref->name +
                                "' appears twice on the left-hand side");
      diags.note(it->second, "first occurrence is here");
      ok = false;
    }
    def.indexOf.push_back(def.indices.size());
    def.indices.push_back({ref->name, ref->loc});
  }
  return ok;
}

/// Positions are ordinary integer subscripts of x, computed before; a
/// constant one is checked against a static extent now.
bool Checker::checkPositions(IndexDefStmt &def, const Type &targetType) {
  bool ok = true;
  for (auto [d, sub] : llvm::enumerate(def.subscripts)) {
    if (Expr *offset = def.offsets[d]) {
      ok &= expectScalarInt(*offset, "the offset of an index");
      continue;
    }
    if (def.indexOf[d] >= 0)
      continue;
    if (!expectScalarInt(*sub, "a subscript")) {
      ok = false;
      continue;
    }
    auto *lit = llvm::dyn_cast<IntLitExpr>(sub.get());
    const Dim &extent = targetType.shape[d];
    if (lit && extent.isStatic() && lit->value >= (uint64_t)extent.size) {
      diags.error(lit->loc, "subscript " + Twine(lit->value) +
                                " is out of range for dimension " + Twine(d) +
                                " of " + targetType.str());
      ok = false;
    }
  }
  return ok;
}

/// Declares the index variables in the current scope; an update's range
/// over x's extents. Returns their names.
std::vector<std::string> Checker::declareIndices(IndexDefStmt &def,
                                                 const Type &targetType, bool ok) {
  std::vector<std::string> added;
  for (auto [d, sub] : llvm::enumerate(def.subscripts)) {
    if (def.indexOf[d] < 0)
      continue;
    IndexVarDecl &v = def.indices[def.indexOf[d]];
    if (llvm::is_contained(added, v.name))
      continue;
    VarInfo info;
    info.type = Type::scalar(ElemKind::I64);
    info.loc = v.loc;
    info.kind = VarKind::IndexVar;
    declare(v.name, info, true);
    IndexInfo range;
    // An update at offsets takes every range from the right-hand side.
    bool offsets = llvm::any_of(def.offsets, [](Expr *e) { return e; });
    if (def.isUpdate && ok && !offsets) {
      range.known = true;
      range.extent = targetType.shape[d];
      range.useLoc = v.loc;
      range.tensorType = targetType.str();
    }
    indexInfo[v.name] = range;
    added.push_back(v.name);
  }
  return added;
}

static bool mentions(const Expr &e, llvm::ArrayRef<IndexVarDecl> names);

/// The extent of each index variable, in order, into `shape`. An index the
/// right-hand side does not range takes x's own extent, which makes the
/// definition an update of every element (`x[i] = f32(i)` for an existing
/// x); otherwise it is an error.
bool Checker::indexRanges(IndexDefStmt &def, const Type &targetType, bool ok,
                          llvm::SmallVectorImpl<Dim> &shape) {
  bool fromTarget = !def.isUpdate && targetType.isTensor &&
                    targetType.rank() == def.subscripts.size();
  bool found = true;
  std::string unranged; // an index that takes the target's extent
  SMLoc unrangedLoc;
  for (auto [d, sub] : llvm::enumerate(def.subscripts)) {
    if (def.indexOf[d] < 0)
      continue;
    IndexVarDecl &v = def.indices[def.indexOf[d]];
    auto it = indexInfo.find(v.name);
    if (it == indexInfo.end())
      continue;
    if (!it->second.known && fromTarget && ok) {
      def.isUpdate = true;
      it->second.known = true;
      it->second.extent = targetType.shape[d];
      unranged = v.name;
      unrangedLoc = v.loc;
    }
    if (!it->second.known) {
      if (ok && found) {
        diags.error(v.loc, "cannot infer the range of index '" + v.name +
                               "': it does not subscript any tensor on the "
                               "right-hand side");
        // `ev[i, k] = re[i, 2 * k]`: the existing tensor gives the ranges.
        if (!targetType.isTensor && mentions(*def.value, llvm::ArrayRef(v)))
          diags.note(v.loc, "to read at computed subscripts, create '" +
                                def.name + "' first (" + def.name +
                                " = zeros(...)): then its indices range over "
                                "its dimensions");
      }
      found = false;
      continue;
    }
    shape.push_back(it->second.extent);
  }
  // Then every element of the target is set: the other indices must run
  // over its extents (`out[i, j] = v[i] * f32(j)` with v shorter than out
  // was reported after inlining, with neither name nor sizes).
  for (auto [d, sub] : llvm::enumerate(def.subscripts)) {
    if (unranged.empty() || !found || def.indexOf[d] < 0)
      break;
    IndexVarDecl &v = def.indices[def.indexOf[d]];
    auto it = indexInfo.find(v.name);
    if (it == indexInfo.end() || it->second.extent.compatible(targetType.shape[d]))
      continue;
    diags.error(v.loc, "index '" + v.name + "' ranges over " +
                           it->second.extent.str() + " on the right-hand side, "
                           "but this sets every element of '" + def.name + "' (" +
                           targetType.str() + "), " + targetType.shape[d].str() +
                           " along dimension " + Twine(d));
    diags.note(unrangedLoc, "'" + unranged + "' subscripts nothing on the right-hand "
                      "side, so it takes its range from '" + def.name +
                      "', which makes this an update of all of '" + def.name + "'");
    return false;
  }
  return found;
}

/// An update `x[k, ...] = e` needs an existing tensor x with one subscript
/// per dimension.
bool Checker::checkUpdateTarget(IndexDefStmt &def, VarInfo *target) {
  if (!target) {
    diags.error(def.loc, "'" + def.name + "' is not defined: `" + def.name +
                             "[...] = ...` with a subscript that is not a new "
                             "index name updates elements of an existing tensor");
    return false;
  }
  target->used = true;
  const Type &t = target->type;
  if (t.isError())
    return false;
  if (!t.isTensor) {
    diags.error(def.loc, "cannot update elements of '" + def.name +
                             "': it is a scalar of type " + t.str());
    diags.note(target->loc, "'" + def.name + "' is declared here");
    return false;
  }
  if (t.rank() != def.subscripts.size()) {
    diags.error(def.loc, "'" + def.name + "' has type " + t.str() + " and needs " +
                             Twine(t.rank()) + " subscripts, not " +
                             Twine(def.subscripts.size()));
    return false;
  }
  return true;
}


Type Checker::checkReduce(ReduceExpr &e) {
  // Explicit ranges `k in 0..n`, checked where the reduction is.
  llvm::SmallVector<std::optional<Dim>> ranges;
  for (auto [lo, hi] : llvm::zip(e.lowers, e.uppers)) {
    ranges.emplace_back();
    if (!hi)
      continue;
    auto *zero = llvm::dyn_cast<IntLitExpr>(lo.get());
    if (!zero || zero->value != 0) {
      diags.error(lo->loc, "a reduction index ranges from 0: write `k in 0..n`");
      return Type::error();
    }
    settle(*lo, ElemKind::I64);
    if (!expectScalarInt(*hi, "the end of a reduction index's range"))
      return Type::error();
    // The op's loops are a box: a range cannot vary with an index around it
    // (it was "internal error: no value for 'i'").
    std::vector<IndexVarDecl> outer;
    for (auto &known : indexInfo) {
      outer.emplace_back();
      outer.back().name = known.first().str();
    }
    if (mentions(*hi, outer)) {
      diags.error(hi->loc, "the range of a reduction index cannot depend on an "
                           "index of the expression around it; compute each "
                           "element in a 'parallel for' body instead");
      return Type::error();
    }
    ranges.back() = rangeExtent(*lo, *hi, hi->loc);
  }
  pushScope();
  std::vector<std::string> added;
  for (auto [v, range] : llvm::zip(e.indices, ranges)) {
    if (indexInfo.count(v.name)) {
      diags.error(v.loc, "index variable '" + v.name + "' is already in use");
      continue;
    }
    VarInfo info;
    info.type = Type::scalar(ElemKind::I64);
    info.loc = v.loc;
    info.kind = VarKind::IndexVar;
    declare(v.name, info, true);
    IndexInfo known;
    if (range) {
      known.known = true;
      known.extent = *range;
      known.useLoc = v.loc;
      known.tensorType = ""; // a written range, not a tensor
    }
    indexInfo[v.name] = known;
    added.push_back(v.name);
  }
  ++indexDepth;
  Type body = check(*e.body);
  --indexDepth;
  bool ok = !body.isError();
  for (const std::string &n : added) {
    if (!indexInfo[n].known && ok) {
      for (IndexVarDecl &v : e.indices)
        if (v.name == n)
          diags.error(v.loc, "cannot infer the range of reduction index '" + n +
                                 "': it does not subscript any tensor in the "
                                 "reduced expression");
      ok = false;
    }
    indexInfo.erase(n);
  }
  popScope();
  if (!ok)
    return Type::error();
  if (body.isTensor || !isNumericKind(body.elem)) {
    diags.error(e.body->loc, Twine(getReduceKindName(e.reduceKind)) +
                                 "(...) reduces numeric scalars, not " +
                                 body.str());
    return Type::error();
  }
  settleDefault(*e.body);
  if (e.reduceKind == ReduceKind::Sum)
    warnConstantTerms(e);
  return Type::scalar(e.body->type.elem);
}

/// Whether `e` reads any of `names` (index variables).
static bool mentions(const Expr &e, llvm::ArrayRef<IndexVarDecl> names) {
  switch (e.kind) {
  case Expr::VarRef: {
    auto &r = llvm::cast<VarRefExpr>(e);
    return llvm::any_of(names, [&](const IndexVarDecl &v) { return v.name == r.name; });
  }
  case Expr::Unary:
    return mentions(*llvm::cast<UnaryExpr>(e).operand, names);
  case Expr::Binary: {
    auto &b = llvm::cast<BinaryExpr>(e);
    return mentions(*b.lhs, names) || mentions(*b.rhs, names);
  }
  case Expr::Ternary: {
    auto &t = llvm::cast<TernaryExpr>(e);
    return mentions(*t.cond, names) || mentions(*t.thenExpr, names) ||
           mentions(*t.elseExpr, names);
  }
  case Expr::Call:
    return llvm::any_of(llvm::cast<CallExpr>(e).args,
                        [&](const CallArg &a) { return mentions(*a.value, names); });
  case Expr::Index: {
    auto &i = llvm::cast<IndexExpr>(e);
    return mentions(*i.base, names) ||
           llvm::any_of(i.indices, [&](const ExprPtr &s) { return mentions(*s, names); });
  }
  case Expr::Reduce:
    return mentions(*llvm::cast<ReduceExpr>(e).body, names);
  default:
    return false;
  }
}

/// Where the text of `e` begins (an operator's location is its own).
static SMLoc startLoc(const Expr &e) {
  switch (e.kind) {
  case Expr::Index:
    return startLoc(*llvm::cast<IndexExpr>(e).base);
  case Expr::Binary:
    return startLoc(*llvm::cast<BinaryExpr>(e).lhs);
  case Expr::Ternary:
    return startLoc(*llvm::cast<TernaryExpr>(e).cond);
  default:
    return e.loc;
  }
}

/// `sum(i) x[n, i] * w[i, o] + b[o]` adds b[o] once per i: a reduction
/// extends as far right as it can, which is rarely meant for a term that
/// does not depend on the reduced indices. A parenthesized sum is one term:
/// `sum(k) (x[k] - c)` says what it means.
void Checker::warnConstantTerms(ReduceExpr &e) {
  llvm::SmallVector<Expr *, 4> terms;
  std::function<void(Expr &)> split = [&](Expr &x) {
    auto *b = llvm::dyn_cast<BinaryExpr>(&x);
    if (b && !b->parenthesized &&
        (b->op == BinaryOp::Add || b->op == BinaryOp::Sub)) {
      split(*b->lhs);
      split(*b->rhs);
      return;
    }
    terms.push_back(&x);
  };
  split(*e.body);
  if (terms.size() < 2)
    return;
  std::string names, list;
  for (const IndexVarDecl &v : e.indices) {
    names += (names.empty() ? "'" : ", '") + v.name + "'";
    list += (list.empty() ? "" : ", ") + v.name;
  }
  for (Expr *t : terms) {
    if (mentions(*t, e.indices))
      continue;
    diags.warning(startLoc(*t), "this term does not depend on " + names +
                                    ": 'sum(" + list + ")' adds it once for "
                                    "every value of " + names);
    diags.note(e.loc, "a reduction extends to the end of the expression; to "
                      "add the term once, parenthesize the reduction: (sum(" +
                          list + ") ...) + term");
  }
}

/// A subscript that is exactly an index variable tells that variable's
/// range: the extent of the dimension it subscripts, whatever the other
/// subscripts of the access are (`a[r, j]`, `m[i, (i + 1) % 3]`).
Type Checker::checkIndex(IndexExpr &e) {
  Type base = check(*e.base);
  bool ok = !base.isError();
  if (ok && base.isModel()) {
    diags.error(e.loc, "cannot subscript a model of type " + base.str() +
                           "; subscript one of its fields, e.g. m.w1[0, 0]");
    ok = false;
  } else if (ok && !base.isTensor) {
    diags.error(e.loc, "cannot subscript a value of scalar type " + base.str());
    ok = false;
  }
  if (ok && base.rank() != e.indices.size()) {
    diags.error(e.loc, "a tensor of type " + base.str() + " needs " +
                           Twine(base.rank()) + " subscripts, not " +
                           Twine(e.indices.size()));
    ok = false;
  }
  for (auto &idx : e.indices)
    if (!expectScalarInt(*idx, "a subscript"))
      ok = false;
  if (!ok)
    return Type::error();
  for (unsigned i = 0; i < e.indices.size(); ++i) {
    if (auto *lit = llvm::dyn_cast<IntLitExpr>(e.indices[i].get())) {
      const Dim &d = base.shape[i];
      if (d.isStatic() && lit->value >= (uint64_t)d.size) {
        diags.error(lit->loc, "subscript " + Twine(lit->value) +
                                  " is out of range for dimension " + Twine(i) +
                                  " of " + base.str());
        return Type::error();
      }
    }
  }
  {
    for (unsigned i = 0; i < e.indices.size(); ++i) {
      auto *ref = llvm::dyn_cast<VarRefExpr>(e.indices[i].get());
      if (!ref || ref->varKind != VarKind::IndexVar || !indexInfo.count(ref->name))
        continue;
      IndexInfo &info = indexInfo[ref->name];
      Dim d = base.shape[i];
      if (!d.origin.isValid())
        d.origin = e.loc;
      if (!info.known) {
        info.known = true;
        info.extent = d;
        info.useLoc = ref->loc;
        info.tensorType = base.str();
        continue;
      }
      // A reduction's written range may cover part of what it subscripts
      // (`sum(k in 0..j) L[j, k]`, a triangular solve): the read is checked,
      // and the range stays the written one.
      if (info.tensorType.empty() && info.useLoc.isValid()) {
        if (info.extent.isStatic() && d.isStatic() && info.extent.size > d.size) {
          diags.error(ref->loc, "index '" + ref->name + "' runs over 0.." +
                                    info.extent.str() + " but subscripts dimension " +
                                    Twine(i) + " of " + base.str());
          diags.note(info.useLoc, "'" + ref->name + "' runs over 0.." +
                                      info.extent.str() + " here");
          return Type::error();
        }
        continue;
      }
      if (!info.extent.compatible(d)) {
        diags.error(ref->loc, "index '" + ref->name + "' ranges over " +
                                  d.str() + " here (dimension " + Twine(i) +
                                  " of " + base.str() + ") but over " +
                                  info.extent.str() + " elsewhere");
        if (info.tensorType.empty())
          diags.note(info.useLoc, "'" + ref->name + "' runs over 0.." +
                                      info.extent.str() + " here");
        else
          diags.note(info.useLoc, "'" + ref->name + "' subscripts a tensor of type " +
                                      info.tensorType + " here");
        return Type::error();
      }
      if (info.extent.isDynamic() && !d.isDynamic())
        info.extent = d;
    }
  }
  return Type::scalar(base.elem);
}

