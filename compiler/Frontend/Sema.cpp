//===- Sema.cpp - Names, types and shapes of .tdsl programs ---------------===//
//
// One walk over each function: resolves names, assigns every expression a
// type (element kind + shape with static, symbolic or dynamic dimensions),
// infers index ranges in index notation, finds loop-carried names, and reports
// every error it can with its location and notes.
//
//===----------------------------------------------------------------------===//
#include "compiler/Frontend/SemaChecker.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/SaveAndRestore.h"

#include <cmath>
#include <functional>

using namespace tdsl;
using namespace tdsl::sema;

/// The least type of which `a` and `b` are both instances: dimensions that
/// differ become `?`. False when the element kinds or ranks differ.
static bool joinTypes(const Type &a, const Type &b, Type &out) {
  if (a.elem != b.elem || a.isTensor != b.isTensor || a.rank() != b.rank() ||
      !sameModel(a, b))
    return false;
  out = a;
  for (unsigned d = 0; d < a.rank(); ++d)
    if (!(a.shape[d] == b.shape[d]))
      out.shape[d] = Dim::getDynamic(a.shape[d].origin);
  return true;
}

bool tdsl::checkProgram(Program &program, DiagEngine &diags) {
  return Checker(program, diags).run();
}

bool Checker::run() {
  unsigned before = diags.getNumErrors();
  for (ModuleAST *m : program.modules()) {
    collectFunctions(*m);
    collectModels(*m);
  }
  for (ModuleAST *m : program.modules()) {
    importedModules.clear();
    for (const ImportDecl &imp : m->imports)
      importedModules.insert(imp.name);
    currentModule = m->name;
    for (auto &model : m->models)
      checkModelDecl(*model);
    for (auto &fn : m->functions)
      checkSignature(*fn);
    for (auto &fn : m->functions)
      checkFunction(*fn);
  }
  checkCollectiveCalls();
  if (FunctionDecl *mainFn = functions.lookup("main")) {
    if (!mainFn->params.empty())
      diags.error(mainFn->params.front().loc,
                  "'main' takes no parameters; read inputs with load(...)");
    if (mainFn->hasResult && mainFn->result.type != Type::scalar(ElemKind::I32))
      diags.error(mainFn->result.loc,
                  "'main' must return nothing or i32, not " +
                      mainFn->result.type.str());
  }
  return diags.getNumErrors() == before;
}

void Checker::collectFunctions(ModuleAST &module) {
  for (auto &fn : module.functions) {
    std::string qname = fn->qualifiedName();
    auto [it, inserted] = functions.try_emplace(qname, fn.get());
    if (!inserted) {
      diags.error(fn->loc, "redefinition of function '" + qname + "'");
      diags.note(it->second->loc, "previous definition is here");
    }
  }
}

void Checker::noteDim(const Dim &d, const Twine &what) {
  if (d.origin.isValid())
    diags.note(d.origin, what);
}

//===----------------------------------------------------------------------===//
// Scopes
//===----------------------------------------------------------------------===//

VarInfo *Checker::lookup(StringRef name, size_t *depth) {
  for (size_t i = scopes.size(); i-- > 0;) {
    auto it = scopes[i].find(name);
    if (it != scopes[i].end()) {
      if (depth)
        *depth = i;
      return &it->second;
    }
  }
  return nullptr;
}

void Checker::declare(StringRef name, VarInfo info, bool warnShadow) {
  if (warnShadow) {
    if (VarInfo *old = lookup(name)) {
      diags.warning(info.loc, "'" + name + "' shadows an earlier declaration");
      diags.note(old->loc, "'" + name + "' was declared here");
    }
  }
  info.parallelDepth = parallelDepth;
  scopes.back()[name] = info;
}

void Checker::popScope() {
  for (auto &entry : scopes.back()) {
    const VarInfo &v = entry.second;
    if (v.kind == VarKind::Local && !v.used && !entry.first().starts_with("_"))
      diags.warning(v.loc, "variable '" + entry.first() + "' is never used");
  }
  scopes.pop_back();
}

//===----------------------------------------------------------------------===//
// Declarations
//===----------------------------------------------------------------------===//

void Checker::checkSignature(FunctionDecl &fn) {
  currentFn = &fn;
  for (Param &p : fn.params)
    if (!resolveModel(p.type.type, p.type.loc))
      p.type.type = Type::error();
  if (fn.hasResult && !resolveModel(fn.result.type, fn.result.loc))
    fn.result.type = Type::error();
  checkTypeParams(fn);
  currentFn = nullptr;
  llvm::StringMap<SMLoc> names;
  for (Param &p : fn.params) {
    auto [it, inserted] = names.try_emplace(p.name, p.loc);
    if (!inserted) {
      diags.error(p.loc, "duplicate parameter '" + p.name + "'");
      diags.note(it->second, "previous parameter is here");
    }
  }
  llvm::StringSet<> symbols;
  for (Param &p : fn.params)
    for (const Dim &d : p.type.type.shape)
      if (d.kind == Dim::Symbol) {
        if (names.count(d.symbol))
          diags.error(d.origin, "'" + d.symbol +
                                    "' names both a parameter and a dimension");
        symbols.insert(d.symbol);
      }
  if (fn.hasResult)
    for (const Dim &d : fn.result.type.shape)
      if (d.kind == Dim::Symbol && !symbols.count(d.symbol))
        diags.error(d.origin, "dimension '" + d.symbol +
                                  "' of the result type is not bound by any "
                                  "parameter of '" + fn.name + "'");
}

void Checker::checkFunction(FunctionDecl &fn) {
  currentFn = &fn;
  scopes.clear();
  controlFrames.clear();
  pushScope();
  for (Param &p : fn.params)
    for (const Dim &d : p.type.type.shape)
      if (d.kind == Dim::Symbol && !lookup(d.symbol)) {
        VarInfo info;
        info.type = Type::scalar(ElemKind::I64);
        info.loc = d.origin;
        info.kind = VarKind::DimSymbol;
        declare(d.symbol, info, false);
      }
  for (Param &p : fn.params) {
    VarInfo info;
    info.type = p.type.type;
    info.loc = p.loc;
    info.kind = VarKind::Param;
    declare(p.name, info, false);
  }
  checkBlock(fn.body, /*isFunctionBody=*/true, false, nullptr);
  // A 'return' followed by more code was reported as unreachable code.
  bool hasReturn = llvm::any_of(fn.body, [](const std::unique_ptr<Stmt> &s) {
    return llvm::isa<ReturnStmt>(s.get());
  });
  if (fn.hasResult && !hasReturn)
    diags.error(fn.loc, "function '" + fn.name +
                            "' must end with 'return' of a value of type " +
                            fn.result.type.str());
  popScope();
  currentFn = nullptr;
}

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

void Checker::checkBlock(StmtList &body, bool isFunctionBody,
                         bool isParallelBody, Type *yieldType) {
  // A misplaced 'return' or 'yield' in a parallel body was already reported;
  // do not also report the missing final 'yield'.
  bool reportedMisplaced = false;
  for (size_t i = 0; i < body.size(); ++i) {
    Stmt &s = *body[i];
    bool last = i + 1 == body.size();
    if (auto *ret = llvm::dyn_cast<ReturnStmt>(&s)) {
      if (!isFunctionBody) {
        diags.error(s.loc, isParallelBody || parallelDepth
                               ? "'return' inside a parallel loop; use 'yield'"
                               : "'return' is only allowed at the end of a "
                                 "function body");
        reportedMisplaced |= isParallelBody;
        continue;
      }
      if (!last) {
        diags.error(body[i + 1]->loc, "code after 'return' is unreachable");
      }
      if (ret->value) {
        Type t = check(*ret->value);
        if (t.isError())
          continue;
        if (!currentFn->hasResult) {
          diags.error(ret->value->loc, "function '" + currentFn->name +
                                           "' has no result type but returns a "
                                           "value of type " + t.str());
          continue;
        }
        const Type &want = currentFn->result.type;
        if (isLiteralKind(t.elem) && !coerce(*ret->value, want.elem, "return value"))
          continue;
        t = ret->value->type;
        bool ok = t.elem == want.elem && t.isTensor == want.isTensor &&
                  t.rank() == want.rank() && sameModel(t, want);
        for (unsigned d = 0; ok && d < t.rank(); ++d)
          ok = t.shape[d].compatible(want.shape[d]);
        if (!ok && !want.isError()) {
          diags.error(ret->value->loc, "returning a value of type " + t.str() +
                                           " from a function declared to "
                                           "return " + want.str());
          diags.note(currentFn->result.loc, "result type declared here");
        }
      } else if (currentFn->hasResult) {
        diags.error(s.loc, "'return' needs a value of type " +
                               currentFn->result.type.str());
      }
      continue;
    }
    if (auto *y = llvm::dyn_cast<YieldStmt>(&s)) {
      if (!isParallelBody || !last) {
        diags.error(s.loc, isParallelBody
                               ? "'yield' must be the last statement of the "
                                 "parallel loop body"
                           : parallelDepth > 0
                               ? "'yield' must be the last statement of the "
                                 "'parallel for' body, not inside an 'if' or "
                                 "'for' in it: set a variable there and yield "
                                 "it at the end"
                               : "'yield' outside of a 'parallel for' body");
        check(*y->value);
        reportedMisplaced |= isParallelBody;
        continue;
      }
      Type t = check(*y->value);
      if (!t.isError())
        settleDefault(*y->value);
      if (yieldType)
        *yieldType = y->value->type;
      continue;
    }
    checkStmt(s);
  }
  if (isParallelBody && (body.empty() || !llvm::isa<YieldStmt>(body.back().get())))
    if (yieldType)
      yieldType->elem = reportedMisplaced ? ElemKind::Error : ElemKind::Void;
}

void Checker::checkStmt(Stmt &stmt) {
  switch (stmt.kind) {
  case Stmt::Let:
    return checkLet(llvm::cast<LetStmt>(stmt));
  case Stmt::IndexDef:
    return checkIndexDef(llvm::cast<IndexDefStmt>(stmt));
  case Stmt::For:
    return checkFor(llvm::cast<ForStmt>(stmt));
  case Stmt::If:
    return checkIf(llvm::cast<IfStmt>(stmt));
  case Stmt::ExprStmt: {
    auto &es = llvm::cast<ExprStmt>(stmt);
    Type t = check(*es.expr);
    if (t.isError() || t.isVoid())
      return;
    settleDefault(*es.expr);
    diags.warning(es.expr->loc, "result of expression of type " + t.str() +
                                    " is unused");
    return;
  }
  case Stmt::Return:
  case Stmt::Yield:
    return; // handled by checkBlock
  }
}

void Checker::bind(StringRef name, const Type &type, SMLoc loc) {
  size_t depth;
  VarInfo *old = lookup(name, &depth);
  if (!old) {
    VarInfo info;
    info.type = type;
    info.loc = loc;
    declare(name, info, false);
    return;
  }
  if (old->kind == VarKind::LoopVar || old->kind == VarKind::IndexVar ||
      old->kind == VarKind::DimSymbol) {
    diags.error(loc, "cannot assign to '" + name + "': it is a " +
                         (old->kind == VarKind::DimSymbol ? "dimension name"
                          : old->kind == VarKind::LoopVar ? "loop variable"
                                                          : "index variable"));
    diags.note(old->loc, "declared here");
    return;
  }
  if (old->parallelDepth < parallelDepth) {
    diags.error(loc, "cannot assign to '" + name +
                         "', declared outside the parallel loop: iterations run "
                         "in parallel; yield a value instead");
    diags.note(old->loc, "'" + name + "' was declared here");
    return;
  }
  size_t origin = old->shadow ? old->originDepth : depth;
  if (origin + 1 == scopes.size()) {
    // Rebinding in the block of the declaration: a new value, which may have
    // a new type.
    old->type = type;
    return;
  }
  // A name of an enclosing block: its value flows out of this `for` or `if`,
  // so only its sizes may change (they become `?` where they differ).
  Type joined;
  if (!type.isError() && !old->type.isError() &&
      !joinTypes(old->type, type, joined)) {
    diags.error(loc, "'" + name + "' has type " + old->type.str() +
                         " but is assigned a value of type " + type.str() +
                         " inside a loop or branch");
    diags.note(old->loc, "'" + name + "' was declared here");
    return;
  }
  // The value it had flows through the loop or branch (it is the value after
  // it when the body does not run): it counts as used.
  old->used = true;
  for (ControlFrame &f : controlFrames)
    if (f.scopeDepth > origin &&
        llvm::find(*f.carried, name.str()) == f.carried->end()) {
      f.carried->push_back(name.str());
      f.entryTypes.try_emplace(name, old->type);
    }
  setVisibleType(name, type);
}

/// The type of the value `name` has from here to the end of the current
/// block: the entry of this block, or a new shadow of an outer one.
void Checker::setVisibleType(StringRef name, const Type &type) {
  size_t depth;
  VarInfo *old = lookup(name, &depth);
  if (depth + 1 == scopes.size()) {
    old->type = type;
    return;
  }
  VarInfo shadow = *old;
  shadow.type = type;
  shadow.used = true;
  shadow.shadow = true;
  shadow.originDepth = old->shadow ? old->originDepth : depth;
  scopes.back()[name] = shadow;
}

Type Checker::visibleType(StringRef name) {
  VarInfo *v = lookup(name);
  return v ? v->type : Type::error();
}

void Checker::checkLet(LetStmt &let) {
  // After an error the name is still bound, with the error type, so that its
  // uses do not report it as undeclared.
  auto bindError = [&] {
    bind(let.name, Type::error(), let.loc);
    if (VarInfo *v = lookup(let.name))
      v->used = true;
  };
  if (let.fieldLoc.isValid())
    return checkFieldAssign(let);
  Type t = check(*let.value);
  if (t.isError())
    return bindError();
  if (t.isVoid() || t.elem == ElemKind::String) {
    diags.error(let.value->loc, "cannot bind '" + let.name + "' to " +
                                    (t.isVoid() ? "an expression with no value"
                                                : "a string"));
    return bindError();
  }
  if (let.hasAnnotation) {
    // The declared type is the name's type: `g: f32[?] = zeros(f32[1])`
    // lets later values of `g` have other sizes. Names in its dimensions are
    // dimension names (symbolic) or integer variables (run-time sizes).
    Type want = let.annotation.type;
    if (!resolveModel(want, let.annotation.loc) ||
        !resolveTypeArg(want, let.annotation.loc, /*allowDynamic=*/true))
      return bindError();
    if (isLiteralKind(t.elem) && !coerce(*let.value, want.elem, "binding"))
      return bindError();
    t = let.value->type;
    bool ok = t.elem == want.elem && t.isTensor == want.isTensor &&
              t.rank() == want.rank() && sameModel(t, want);
    for (unsigned d = 0; ok && d < t.rank(); ++d)
      ok = t.shape[d].compatible(want.shape[d]);
    if (!ok) {
      diags.error(let.value->loc, "'" + let.name + "' is declared as " +
                                      want.str() + " but its value has type " +
                                      t.str());
      diags.note(let.annotation.loc, "type declared here");
      return bindError();
    }
    let.boundType = want;
    t = want;
  } else {
    settleDefault(*let.value);
    t = let.value->type;
  }
  bind(let.name, t, let.loc);
}

void Checker::checkFor(ForStmt &f) {
  checkRangeBound(*f.range.lower);
  checkRangeBound(*f.range.upper);
  // The carried names' types throughout the loop are a fixed point: when the
  // body gives a name a value of another size, the loop is checked again
  // with that name's type widened (a few rounds at most: sizes only become
  // `?`). Diagnostics of a round that is redone are dropped.
  llvm::StringMap<Type> widened;
  for (unsigned round = 0;; ++round) {
    DiagEngine::Tentative tentative(diags);
    f.carried.clear();
    pushScope();
    VarInfo info;
    info.type = Type::scalar(ElemKind::I64);
    info.loc = f.range.var.loc;
    info.kind = VarKind::LoopVar;
    declare(f.range.var.name, info, /*warnShadow=*/true);
    controlFrames.push_back({scopes.size() - 1, &f.carried, {}});
    for (auto &w : widened) {
      setVisibleType(w.first(), w.second);
      controlFrames.back().entryTypes[w.first()] = w.second;
    }
    checkBlock(f.body, false, false, nullptr);
    llvm::StringMap<Type> entry = std::move(controlFrames.back().entryTypes);
    bool again = false;
    f.carriedTypes.clear();
    for (const std::string &n : f.carried) {
      Type start = entry.lookup(n), joined;
      if (!joinTypes(start, visibleType(n), joined))
        joined = start;
      if (joined != start) {
        widened[n] = joined;
        again = true;
      }
      f.carriedTypes.push_back(joined);
    }
    controlFrames.pop_back();
    popScope();
    if (!again || round == 8)
      break;
    tentative.discard();
  }
  for (unsigned i = 0; i < f.carried.size(); ++i)
    setVisibleType(f.carried[i], f.carriedTypes[i]);
}

void Checker::checkIf(IfStmt &s) {
  Type c = check(*s.cond);
  if (!c.isError() && (c.isTensor || c.elem != ElemKind::I1))
    diags.error(s.cond->loc, "condition must be an i1 scalar, not " + c.str());
  s.carried.clear();
  // The type of each carried name at the end of each branch.
  llvm::StringMap<Type> finals[2];
  llvm::StringMap<Type> entry;
  for (int branch = 0; branch < 2; ++branch) {
    pushScope();
    controlFrames.push_back({scopes.size() - 1, &s.carried, {}});
    checkBlock(branch == 0 ? s.thenBody : s.elseBody, false, false, nullptr);
    for (const std::string &n : s.carried)
      finals[branch][n] = visibleType(n);
    for (auto &e : controlFrames.back().entryTypes)
      entry.try_emplace(e.first(), e.second);
    controlFrames.pop_back();
    popScope();
  }
  s.carriedTypes.clear();
  for (const std::string &n : s.carried) {
    // A branch that does not assign the name leaves its value as it was.
    Type a = finals[0].count(n) ? finals[0][n] : entry.lookup(n);
    Type b = finals[1].count(n) ? finals[1][n] : entry.lookup(n);
    Type joined;
    if (!joinTypes(a, b, joined))
      joined = entry.lookup(n);
    s.carriedTypes.push_back(joined);
    setVisibleType(n, joined);
  }
}

/// The extent of `lo..hi` as a dimension: static for two literals; from
/// 0 to a dimension name (`0..N`) or to `dim(t, k)`, that dimension of the
/// parameters or of `t`; otherwise known only at run time.
Dim Checker::rangeExtent(const LoopRange &r) {
  return rangeExtent(*r.lower, *r.upper, r.var.loc);
}

Dim Checker::rangeExtent(const Expr &lower, const Expr &upper, SMLoc at) {
  auto *lo = llvm::dyn_cast<IntLitExpr>(&lower);
  auto *hi = llvm::dyn_cast<IntLitExpr>(&upper);
  if (lo && hi && hi->value > lo->value)
    return Dim::getStatic(hi->value - lo->value, at);
  if (!lo || lo->value != 0)
    return Dim::getDynamic(at);
  if (auto *ref = llvm::dyn_cast<VarRefExpr>(&upper))
    if (ref->varKind == VarKind::DimSymbol)
      return Dim::getSymbol(ref->name, at);
  if (auto *call = llvm::dyn_cast<CallExpr>(&upper))
    if (call->builtin == Builtin::Dim && call->args[0].value->type.isTensor) {
      const Type &t = call->args[0].value->type;
      auto *k = llvm::dyn_cast<IntLitExpr>(call->args[1].value.get());
      if (k && k->value < t.rank()) {
        Dim d = t.shape[k->value];
        d.origin = at;
        return d;
      }
    }
  return Dim::getDynamic(at);
}

bool Checker::checkRangeBound(Expr &e) {
  return expectScalarInt(e, "a loop bound");
}

bool Checker::expectScalarInt(Expr &e, StringRef what) {
  Type t = check(e);
  if (t.isError())
    return false;
  if (t.isTensor || !isIntKind(t.elem)) {
    diags.error(e.loc, what + " must be an integer scalar, not " + t.str());
    return false;
  }
  settle(e, t.elem == ElemKind::IntLit ? ElemKind::I64 : t.elem);
  return true;
}

/// Gives a literal-typed expression the element kind `target`, or reports
/// that it cannot have it (a float literal where an integer is expected).
bool Checker::coerce(Expr &e, ElemKind target, StringRef what) {
  ElemKind k = e.type.elem;
  if (!isLiteralKind(k) || target == ElemKind::Error)
    return true;
  if (k == ElemKind::FloatLit && !isFloatKind(target)) {
    diags.error(e.loc, "a floating-point literal cannot be used as " +
                           Twine(getElemKindName(target)) + " in " + what);
    return false;
  }
  if (target == ElemKind::I1 || target == ElemKind::String ||
      target == ElemKind::Void) {
    diags.error(e.loc, "a numeric literal cannot be used as " +
                           Twine(getElemKindName(target)) + " in " + what);
    return false;
  }
  settle(e, target);
  return true;
}

/// Gives a tensor literal of numeric constants (already settled to its
/// default kind) the floating-point kind `kind`.
void Checker::retypeTensorLit(TensorLitExpr &e, ElemKind kind) {
  if (!isNumericKind(e.type.elem))
    return;
  e.type.elem = kind;
  for (auto &el : e.elements) {
    if (auto *inner = llvm::dyn_cast<TensorLitExpr>(el.get())) {
      retypeTensorLit(*inner, kind);
      continue;
    }
    el->type.elem = kind;
    if (auto *neg = llvm::dyn_cast<UnaryExpr>(el.get()))
      neg->operand->type.elem = kind;
  }
}

/// A literal beyond the largest finite value of its float type is an error,
/// as an integer one beyond its type is (`1e99999` and `x: f32 = 1e40`
/// became inf).
void Checker::checkFloatRange(SMLoc loc, double value, ElemKind kind) {
  const llvm::fltSemantics *sem =
      kind == ElemKind::F16    ? &llvm::APFloat::IEEEhalf()
      : kind == ElemKind::BF16 ? &llvm::APFloat::BFloat()
      : kind == ElemKind::F32  ? &llvm::APFloat::IEEEsingle()
                               : &llvm::APFloat::IEEEdouble();
  llvm::APFloat f(value);
  bool losesInfo;
  f.convert(*sem, llvm::APFloat::rmNearestTiesToEven, &losesInfo);
  if (!std::isinf(value) && !f.isInfinity())
    return;
  llvm::SmallString<16> largest;
  llvm::APFloat::getLargest(*sem).toString(largest, 6);
  diags.error(loc, "this literal is too large for " + Twine(getElemKindName(kind)) +
                       " (its largest finite value is " + largest + ")");
}

void Checker::settle(Expr &e, ElemKind kind, bool negated) {
  if (!isLiteralKind(e.type.elem))
    return;
  e.type.elem = kind;
  switch (e.kind) {
  case Expr::IntLit: {
    // A negated literal may be one more than the maximum: -2147483648.
    uint64_t v = llvm::cast<IntLitExpr>(e).value;
    uint64_t max = kind == ElemKind::I32   ? (uint64_t(1) << 31) - !negated
                   : kind == ElemKind::I64 ? (uint64_t(1) << 63) - !negated
                                           : UINT64_MAX;
    if (v > max)
      diags.error(e.loc, "integer literal " + Twine(v) + " does not fit in " +
                             getElemKindName(kind));
    if (isFloatKind(kind))
      checkFloatRange(e.loc, double(v), kind);
    break;
  }
  case Expr::FloatLit:
    checkFloatRange(e.loc, llvm::cast<FloatLitExpr>(e).value, kind);
    break;
  case Expr::Unary: {
    auto &u = llvm::cast<UnaryExpr>(e);
    bool neg = u.op == UnaryOp::Neg && !negated;
    // u64 has no negative values: -1 would wrap to 2^64 - 1 (`u > -1` false).
    auto *lit = llvm::dyn_cast<IntLitExpr>(u.operand.get());
    if (neg && kind == ElemKind::U64 && !(lit && lit->value == 0))
      diags.error(e.loc, (lit ? "integer literal -" + Twine(lit->value)
                              : Twine("this negative literal")) +
                             " does not fit in u64");
    settle(*u.operand, kind, neg);
    break;
  }
  case Expr::Binary: {
    auto &b = llvm::cast<BinaryExpr>(e);
    settle(*b.lhs, kind);
    settle(*b.rhs, kind);
    break;
  }
  case Expr::Ternary: {
    auto &t = llvm::cast<TernaryExpr>(e);
    settle(*t.thenExpr, kind);
    settle(*t.elseExpr, kind);
    break;
  }
  case Expr::TensorLit:
    for (auto &el : llvm::cast<TensorLitExpr>(e).elements)
      settle(*el, kind);
    break;
  default:
    break;
  }
}

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

Type Checker::check(Expr &e) {
  Type t;
  switch (e.kind) {
  case Expr::IntLit:
    t = Type::scalar(ElemKind::IntLit);
    break;
  case Expr::FloatLit:
    t = Type::scalar(ElemKind::FloatLit);
    break;
  case Expr::BoolLit:
    t = Type::scalar(ElemKind::I1);
    break;
  case Expr::StringLit:
    t = Type::scalar(ElemKind::String);
    break;
  case Expr::VarRef:
    t = checkVarRef(llvm::cast<VarRefExpr>(e));
    break;
  case Expr::Unary:
    t = checkUnary(llvm::cast<UnaryExpr>(e));
    break;
  case Expr::Binary:
    t = checkBinary(llvm::cast<BinaryExpr>(e));
    break;
  case Expr::Ternary:
    t = checkTernary(llvm::cast<TernaryExpr>(e));
    break;
  case Expr::Call:
    t = checkCall(llvm::cast<CallExpr>(e));
    break;
  case Expr::Index:
    t = checkIndex(llvm::cast<IndexExpr>(e));
    break;
  case Expr::TensorLit:
    t = checkTensorLit(llvm::cast<TensorLitExpr>(e));
    break;
  case Expr::Reduce:
    t = checkReduce(llvm::cast<ReduceExpr>(e));
    break;
  case Expr::ParallelFor:
    t = checkParallelFor(llvm::cast<ParallelForExpr>(e));
    break;
  case Expr::TypeArg:
    diags.error(e.loc, "a type is not a value here; types are arguments of "
                       "zeros, ones, full, arange, uniform, normal and load");
    t = Type::error();
    break;
  case Expr::Field:
    t = checkField(llvm::cast<FieldExpr>(e));
    break;
  }
  e.type = t;
  return t;
}

Type Checker::checkVarRef(VarRefExpr &e) {
  VarInfo *v = lookup(e.name);
  if (!v) {
    if (const ModelDecl *m = lookupModel(e.name))
      diags.error(e.loc, "'" + e.name + "' is a model type, not a value; " +
                             (m->isTypeParam ? "use zeros(" + e.name + ")"
                                             : "create one with " + e.name +
                                                   "(seed) or zeros(" +
                                                   e.name + ")"));
    else if (functions.count(e.name) || isBuiltinName(e.name))
      diags.error(e.loc, "'" + e.name + "' is a function; call it with (...)");
    else
      diags.error(e.loc, "use of undeclared name '" + e.name + "'");
    return Type::error();
  }
  v->used = true;
  // Index variables in scope but not in indexInfo are those of an index
  // expression around a 'parallel for'.
  if (v->kind == VarKind::IndexVar && !indexInfo.count(e.name)) {
    diags.error(e.loc, "index variable '" + e.name + "' cannot be used inside "
                       "a 'parallel for'");
    diags.note(v->loc, "'" + e.name + "' is declared here");
    return Type::error();
  }
  e.varKind = v->kind;
  return v->type;
}

Type Checker::checkUnary(UnaryExpr &e) {
  Type t = check(*e.operand);
  if (t.isError())
    return t;
  if (e.op == UnaryOp::Neg && t.isModel())
    return t;
  if (e.op == UnaryOp::Neg) {
    if (!isNumericKind(t.elem) || t.elem == ElemKind::U64) {
      diags.error(e.loc, "cannot negate a value of type " + t.str());
      return Type::error();
    }
    return t;
  }
  if (t.elem != ElemKind::I1) {
    diags.error(e.loc, "'!' needs an i1 operand, not " + t.str());
    return Type::error();
  }
  return t;
}

bool Checker::unifyElem(Expr &lhs, Expr &rhs, ElemKind &out, SMLoc loc,
                        StringRef what) {
  ElemKind a = lhs.type.elem, b = rhs.type.elem;
  if (a == ElemKind::String || b == ElemKind::String || a == ElemKind::Void ||
      b == ElemKind::Void) {
    diags.error(loc, "invalid operands to " + what + " (" + lhs.type.str() +
                         " and " + rhs.type.str() + ")");
    return false;
  }
  if (a == b) {
    out = a;
    return true;
  }
  if (isLiteralKind(a) && isLiteralKind(b)) {
    out = ElemKind::FloatLit;
    return true;
  }
  if (isLiteralKind(a) || isLiteralKind(b)) {
    Expr &lit = isLiteralKind(a) ? lhs : rhs;
    ElemKind other = isLiteralKind(a) ? b : a;
    if (!coerce(lit, other, what))
      return false;
    out = other;
    return true;
  }
  diags.error(loc, "mismatched element types " + Twine(getElemKindName(a)) +
                       " and " + getElemKindName(b) + " in " + what +
                       "; convert one side, e.g. " + getElemKindName(a) + "(x)");
  return false;
}

Type Checker::broadcast(const Type &a, const Type &b, ElemKind elem, SMLoc loc,
                        StringRef what) {
  if (!a.isTensor && !b.isTensor)
    return Type::scalar(elem);
  if (!a.isTensor)
    return b.withElem(elem);
  if (!b.isTensor)
    return a.withElem(elem);
  unsigned rank = std::max(a.rank(), b.rank());
  llvm::SmallVector<Dim, 4> dims(rank);
  for (unsigned i = 0; i < rank; ++i) {
    const Dim *da = i < a.rank() ? &a.shape[a.rank() - 1 - i] : nullptr;
    const Dim *db = i < b.rank() ? &b.shape[b.rank() - 1 - i] : nullptr;
    Dim &out = dims[rank - 1 - i];
    if (!da || (da->isStatic() && da->size == 1 && db))
      out = *db;
    else if (!db || (db->isStatic() && db->size == 1))
      out = *da;
    else if (da->compatible(*db))
      out = da->isDynamic() ? *db : *da;
    else {
      diags.error(loc, "shapes " + a.str() + " and " + b.str() +
                           " cannot be broadcast together in " + what +
                           ": dimension " + da->str() + " vs " + db->str());
      noteDim(*da, "dimension " + da->str() + " of the left operand comes from here");
      noteDim(*db, "dimension " + db->str() + " of the right operand comes from here");
      return Type::error();
    }
  }
  return Type::tensor(elem, dims);
}

Type Checker::checkBinary(BinaryExpr &e) {
  Type a = check(*e.lhs);
  Type b = check(*e.rhs);
  if (a.isError() || b.isError())
    return Type::error();
  if (a.isModel() || b.isModel())
    return checkModelBinary(e);
  std::string what = ("'" + Twine(getBinaryOpSpelling(e.op)) + "'").str();
  ElemKind elem;
  if (!unifyElem(*e.lhs, *e.rhs, elem, e.loc, what))
    return Type::error();
  a = e.lhs->type;
  b = e.rhs->type;
  switch (e.op) {
  case BinaryOp::And:
  case BinaryOp::Or:
    if (elem != ElemKind::I1) {
      diags.error(e.loc, what + " needs i1 operands, not " + a.str() + " and " +
                             b.str());
      return Type::error();
    }
    return broadcast(a, b, elem, e.loc, what);
  case BinaryOp::Eq: case BinaryOp::Ne: case BinaryOp::Lt:
  case BinaryOp::Le: case BinaryOp::Gt: case BinaryOp::Ge:
    if (isLiteralKind(elem)) {
      settle(*e.lhs, defaultKind(elem));
      settle(*e.rhs, defaultKind(elem));
    }
    if (elem == ElemKind::I1 && e.op != BinaryOp::Eq && e.op != BinaryOp::Ne) {
      diags.error(e.loc, "cannot order i1 values with " + what);
      return Type::error();
    }
    return broadcast(a, b, ElemKind::I1, e.loc, what);
  case BinaryOp::MatMul: {
    if (!a.isTensor || !b.isTensor || a.rank() > 2 || b.rank() > 2 ||
        (a.rank() == 1 && b.rank() == 1)) {
      diags.error(e.loc, "'@' multiplies matrices (2-D @ 2-D, 2-D @ 1-D or "
                         "1-D @ 2-D), not " + a.str() + " and " + b.str());
      if (a.isTensor && b.isTensor && a.rank() == 1 && b.rank() == 1)
        diags.note(e.loc, "the dot product of two vectors is "
                          "'sum(i) a[i] * b[i]'");
      return Type::error();
    }
    if (!isNumericKind(elem)) {
      diags.error(e.loc, "'@' needs numeric operands, not " + a.str());
      return Type::error();
    }
    const Dim &ka = a.shape.back();
    const Dim &kb = b.shape.front();
    if (!ka.compatible(kb)) {
      diags.error(e.loc, "inner dimensions of '@' do not match: " + a.str() +
                             " @ " + b.str() + " (" + ka.str() + " vs " +
                             kb.str() + ")");
      noteDim(ka, "dimension " + ka.str() + " of the left operand comes from here");
      noteDim(kb, "dimension " + kb.str() + " of the right operand comes from here");
      return Type::error();
    }
    llvm::SmallVector<Dim, 2> dims;
    if (a.rank() == 2)
      dims.push_back(a.shape[0]);
    if (b.rank() == 2)
      dims.push_back(b.shape[1]);
    return Type::tensor(elem, dims);
  }
  default:
    if (elem == ElemKind::I1) {
      diags.error(e.loc, "arithmetic " + what + " on i1 values; use && or ||");
      return Type::error();
    }
    return broadcast(a, b, elem, e.loc, what);
  }
}

Type Checker::checkTernary(TernaryExpr &e) {
  Type c = check(*e.cond);
  SMLoc outerSelfCall = std::exchange(selfCallLoc, SMLoc());
  Type a = check(*e.thenExpr);
  Type b = check(*e.elseExpr);
  // A `?:` of tensors or models computes both sides (language.md 6.4): a
  // recursion it should end never ends, and stopped with "the stack is
  // exhausted" (found by a test session).
  if (selfCallLoc.isValid() && (a.isTensor || a.isModel() || b.isTensor || b.isModel())) {
    diags.warning(e.loc, "both sides of this '?:' are computed (its values are "
                         "not scalars), so the call of '" + currentFn->name +
                         "' in it runs whatever the condition; end the recursion "
                         "with 'if'");
    diags.note(selfCallLoc, "the recursive call");
  }
  if (!selfCallLoc.isValid())
    selfCallLoc = outerSelfCall;
  if (c.isError() || a.isError() || b.isError())
    return Type::error();
  if (c.elem != ElemKind::I1) {
    diags.error(e.cond->loc, "condition of '?:' must be i1, not " + c.str());
    return Type::error();
  }
  if (a.isModel() || b.isModel()) {
    if (c.isTensor || a != b) {
      diags.error(e.loc, c.isTensor ? "'?:' between models needs a scalar "
                                      "condition, not " + c.str()
                                    : "'?:' between " + a.str() + " and " +
                                          b.str() + ": both must be the same "
                                                    "kind of model");
      return Type::error();
    }
    return a;
  }
  ElemKind elem;
  if (!unifyElem(*e.thenExpr, *e.elseExpr, elem, e.loc, "'?:'"))
    return Type::error();
  Type r = broadcast(e.thenExpr->type, e.elseExpr->type, elem, e.loc, "'?:'");
  if (r.isError())
    return r;
  return broadcast(c, r, elem, e.loc, "'?:'");
}

Type Checker::checkTensorLit(TensorLitExpr &e) {
  // Elements are numeric constants or nested literals of equal shape. Nested
  // literals keep the literal element kinds, so that [[1, 2], [3.5, 4]] is
  // one f32 tensor; the outermost literal settles them.
  bool outermost = tensorLitDepth == 0;
  llvm::SaveAndRestore<unsigned> depth(tensorLitDepth, tensorLitDepth + 1);
  llvm::SmallVector<Dim, 4> inner;
  bool innerTensor = false;
  ElemKind elem = ElemKind::Error;
  for (size_t i = 0; i < e.elements.size(); ++i) {
    Expr &el = *e.elements[i];
    Expr *scalar = &el;
    if (auto *neg = llvm::dyn_cast<UnaryExpr>(&el))
      if (neg->op == UnaryOp::Neg)
        scalar = neg->operand.get();
    bool isConst = llvm::isa<IntLitExpr, FloatLitExpr, BoolLitExpr>(scalar);
    if (!isConst && !llvm::isa<TensorLitExpr>(&el)) {
      // Check it anyway: its names count as used, and its own errors win.
      if (check(el).isError())
        return Type::error();
      diags.error(el.loc, "tensor literal elements must be numeric constants "
                          "or nested tensor literals");
      return Type::error();
    }
    Type t = check(el);
    if (t.isError())
      return t;
    if (i == 0) {
      innerTensor = t.isTensor;
      inner = t.shape;
      elem = t.elem;
      continue;
    }
    bool same = t.isTensor == innerTensor && t.rank() == inner.size();
    for (unsigned d = 0; same && d < inner.size(); ++d)
      same = t.shape[d].size == inner[d].size;
    if (!same) {
      // Nested literals still have literal element kinds: name the defaults.
      const Type &first = e.elements[0]->type;
      diags.error(el.loc, "ragged tensor literal: element has type " +
                              t.withElem(defaultKind(t.elem)).str() +
                              " but the first element has type " +
                              first.withElem(defaultKind(first.elem)).str());
      return Type::error();
    }
    if (elem != t.elem) {
      if (isLiteralKind(elem) && isLiteralKind(t.elem))
        elem = ElemKind::FloatLit;
      else {
        diags.error(el.loc, "tensor literal mixes " + Twine(getElemKindName(elem)) +
                                " and " + getElemKindName(t.elem) + " elements");
        return Type::error();
      }
    }
  }
  if (outermost) {
    // i32([...]) and u64([...]) as i32(3) and u64(3): each literal must fit
    // the target (a wrapped i64 would not say so; 2^63 and up is a u64).
    elem = elem == ElemKind::IntLit && tensorLitTarget != ElemKind::Error
               ? tensorLitTarget
               : defaultKind(elem);
    for (auto &el : e.elements)
      settle(*el, elem);
  }
  llvm::SmallVector<Dim, 4> dims;
  dims.push_back(Dim::getStatic(e.elements.size(), e.loc));
  dims.append(inner.begin(), inner.end());
  return Type::tensor(elem, dims);
}

Type Checker::checkParallelFor(ParallelForExpr &e) {
  bool ok = true;
  llvm::SmallVector<Dim, 4> dims;
  // Index notation does not reach into a loop, its bounds included: the loop
  // is built outside the op of any enclosing index expression.
  llvm::StringMap<IndexInfo> savedIndex = std::move(indexInfo);
  indexInfo.clear();
  for (LoopRange &r : e.ranges) {
    ok &= checkRangeBound(*r.lower);
    ok &= checkRangeBound(*r.upper);
    dims.push_back(rangeExtent(r));
  }
  pushScope();
  for (LoopRange &r : e.ranges) {
    VarInfo info;
    info.type = Type::scalar(ElemKind::I64);
    info.loc = r.var.loc;
    info.kind = VarKind::LoopVar;
    declare(r.var.name, info, true);
  }
  ++parallelDepth;
  Type yieldType = Type::error();
  checkBlock(e.body, false, true, &yieldType);
  indexInfo = std::move(savedIndex);
  --parallelDepth;
  popScope();
  if (!ok)
    return Type::error();
  if (yieldType.isVoid()) {
    diags.error(e.loc, "the body of a 'parallel for' must end with "
                       "'yield <value>'");
    return Type::error();
  }
  if (yieldType.isError())
    return yieldType;
  if (yieldType.isTensor || yieldType.isModel() ||
      yieldType.elem == ElemKind::String) {
    diags.error(e.loc, "a 'parallel for' yields a scalar per iteration, not " +
                           yieldType.str());
    return Type::error();
  }
  if (e.reduce == LoopReduce::None)
    return Type::tensor(yieldType.elem, dims);
  if (!isNumericKind(yieldType.elem)) {
    diags.error(e.reduceLoc, "cannot reduce values of type " + yieldType.str() +
                                 "; yield a number, e.g. (cond) ? 1 : 0");
    return Type::error();
  }
  return yieldType;
}

//===----------------------------------------------------------------------===//
// Calls
//===----------------------------------------------------------------------===//

/// What to write instead of a function other array languages have.
static const char *hintForUnknownFunction(StringRef name) {
  return llvm::StringSwitch<const char *>(name)
      .Cases({"transpose", "permute"},
             "TDSL has no 'transpose': write it in index notation, "
             "`t[j, i] = m[i, j]`")
      .Cases({"reshape", "view", "flatten", "ravel"},
             "TDSL has no 'reshape': build the new shape with a parallel for, "
             "e.g. `parallel for k in 0..R * C { yield m[k / C, k % C] }`")
      .Cases({"mean", "average", "avg"},
             "TDSL has no 'mean': write `sum(x) / f32(dim(x, 0))`, per row "
             "`m[i] = (sum(j) x[i, j]) / f32(dim(x, 1))`, or use nn.mean and "
             "nn.mean_vec after `import nn`")
      .Cases({"dot", "matmul", "mm", "inner"},
             "write a matrix product as `a @ b`, or index notation: "
             "`sum(i) a[i] * b[i]` (math.dot after `import math`)")
      .Cases({"len", "size", "shape", "numel"},
             "the extent of dimension k of a tensor t is `dim(t, k)`")
      .Cases({"range", "linspace"}, "`arange(n)` gives 0, 1, ..., n - 1")
      .Cases({"zeros_like", "ones_like", "full_like", "empty"},
             "give the type: `zeros(f32[dim(x, 0)])`, `full(f32[3, 4], 1.5)`")
      .Cases({"concat", "concatenate", "stack", "cat"},
             "join tensors with a parallel for and a select, e.g. `parallel "
             "for i in 0..n + m { yield i < n ? a[i] : b[i - n] }`")
      .Cases({"relu", "softmax", "argmax", "sigmoid_vec", "logsumexp"},
             "layers and activations are in the nn module: `import nn`, then "
             "nn.relu, nn.softmax, nn.argmax, ...")
      .Default(nullptr);
}

Type Checker::checkCall(CallExpr &e) {
  for (CallArg &a : e.args)
    if (!a.name.empty()) {
      diags.error(a.nameLoc, "'" + e.qualifiedName() +
                                 "' takes no named arguments");
      return Type::error();
    }
  if (!e.module.empty()) {
    bool known = importedModules.count(e.module) || e.module == currentModule;
    if (!known) {
      if (VarInfo *v = lookup(e.module)) {
        v->used = true;
        diags.error(e.loc, "'" + e.module + "' is a value, not a module; "
                           "fields and methods are not supported");
      } else {
        diags.error(e.loc, "module '" + e.module + "' is not imported; add "
                           "'import " + e.module + "'");
      }
      return Type::error();
    }
    FunctionDecl *fn = functions.lookup(e.qualifiedName());
    if (!fn) {
      diags.error(e.loc, "module '" + e.module + "' has no function '" +
                             e.callee + "'");
      return Type::error();
    }
    return checkUserCall(e, *fn);
  }
  if (FunctionDecl *fn = lookupFunction(e.callee))
    return checkUserCall(e, *fn);
  if (isBuiltinName(e.callee))
    return checkBuiltin(e);
  if (!lookup(e.callee))
    if (const ModelDecl *m = lookupModel(e.callee))
      return checkModelCreation(e, *m);
  if (VarInfo *v = lookup(e.callee)) {
    v->used = true;
    diags.error(e.loc, "'" + e.callee + "' is a variable of type " +
                           v->type.str() + ", not a function");
    return Type::error();
  }
  diags.error(e.loc, "call to undeclared function '" + e.callee + "'");
  // A name passed to it counts as used (no "never used" beside the error).
  for (CallArg &a : e.args)
    if (auto *ref = llvm::dyn_cast_or_null<VarRefExpr>(a.value.get()))
      if (VarInfo *v = lookup(ref->name))
        v->used = true;
  // An imported module's function is called by its qualified name.
  for (const auto &module : importedModules)
    if (functions.lookup((module.getKey() + "." + e.callee).str())) {
      diags.note(e.loc, "module '" + module.getKey() + "' has a function '" +
                            e.callee + "': call it as " + module.getKey() +
                            "." + e.callee + "(...)");
      return Type::error();
    }
  if (const char *hint = hintForUnknownFunction(e.callee))
    diags.note(e.loc, hint);
  return Type::error();
}

/// The function an unqualified `name` calls in the current module.
FunctionDecl *Checker::lookupFunction(StringRef name) {
  if (currentModule.empty())
    return functions.lookup(name);
  return functions.lookup((currentModule + "." + name).str());
}

Type Checker::checkUserCall(CallExpr &e, FunctionDecl &fn) {
  e.target = &fn;
  if (&fn == currentFn && !selfCallLoc.isValid())
    selfCallLoc = e.loc;
  calls.push_back({currentFn, &fn});
  if (parallelDepth + indexDepth > 0)
    parallelCalls.push_back({&fn, e.loc});
  bool ok = true;
  for (CallArg &a : e.args)
    ok &= !check(*a.value).isError();
  return matchCall(e.loc, e.args, fn, ok, e.typeArgs);
}

/// Whether a scalar of type `from` converts to `to` without changing its
/// value (f32 -> f64, i32 -> i64, f16 or bf16 -> f32 or f64).
static bool widensTo(const Type &from, const Type &to) {
  if (!from.isScalar() || !to.isScalar())
    return false;
  switch (from.elem) {
  case ElemKind::F16:
  case ElemKind::BF16:
    return to.elem == ElemKind::F32 || to.elem == ElemKind::F64;
  case ElemKind::F32:
    return to.elem == ElemKind::F64;
  case ElemKind::I32:
    return to.elem == ElemKind::I64;
  default:
    return false;
  }
}

/// `e` converted to `to` by the built-in of that name, as if written so.
static ExprPtr convertedTo(ExprPtr e, const Type &to) {
  SMLoc at = e->loc;
  auto call = std::make_unique<CallExpr>(at, "", getElemKindName(to.elem));
  call->builtin = to.elem == ElemKind::F64   ? Builtin::ToF64
                  : to.elem == ElemKind::F32 ? Builtin::ToF32
                                             : Builtin::ToI64;
  call->args.push_back(CallArg{"", SMLoc(), std::move(e)});
  call->type = to;
  return call;
}

/// The result type of calling `fn` with `args` (already checked; `argsOk`
/// when none had an error): literals take the parameters' types, scalars
/// widen to them (`widensTo`; not the first when `widenFirst` is false),
/// and each dimension name of the signature binds to the arguments'
/// dimensions.
Type Checker::matchCall(SMLoc loc, llvm::MutableArrayRef<CallArg> args,
                        FunctionDecl &fn, bool argsOk,
                        std::vector<const ModelDecl *> &typeArgs,
                        bool widenFirst) {
  if (args.size() != fn.params.size()) {
    diags.error(loc, "'" + fn.qualifiedName() + "' takes " +
                           Twine(fn.params.size()) + " argument" +
                           (fn.params.size() == 1 ? "" : "s") + " but " +
                           Twine(args.size()) +
                           (args.size() == 1 ? " was given" : " were given"));
    diags.note(fn.loc, "'" + fn.qualifiedName() + "' is declared here");
    return Type::error();
  }
  if (!argsOk)
    return Type::error();
  // Binds each dimension name of the signature to the caller's dimension.
  struct Binding {
    Dim dim;
    unsigned arg;
  };
  llvm::StringMap<Binding> bound;
  typeArgs.assign(fn.typeParams.size(), nullptr);
  for (unsigned i = 0; i < args.size(); ++i) {
    Expr &arg = *args[i].value;
    const Param &p = fn.params[i];
    const Type &want = p.type.type;
    std::string argDesc = ("argument " + Twine(i + 1) + " ('" + p.name + "') of '" +
                           fn.qualifiedName() + "'").str();
    if (want.isError())
      return Type::error();
    if (want.isModel() && want.model->isTypeParam) {
      if (!bindTypeParam(arg, p, fn, argDesc, typeArgs))
        return Type::error();
      continue;
    }
    if (isLiteralKind(arg.type.elem) && !coerce(arg, want.elem, argDesc))
      return Type::error();
    // A scalar widens to the parameter's type where its value stays the
    // same, as in C: an f32 learning rate passes to an f64 parameter.
    if ((i > 0 || widenFirst) && widensTo(arg.type, want))
      args[i].value = convertedTo(std::move(args[i].value), want);
    const Type &got = args[i].value->type;
    if (!sameModel(got, want)) {
      diags.error(arg.loc, argDesc + " must have type " + want.str() +
                               ", not " + got.str());
      diags.note(p.loc, "parameter declared here");
      return Type::error();
    }
    if (got.elem != want.elem || got.isTensor != want.isTensor ||
        got.rank() != want.rank()) {
      diags.error(arg.loc, argDesc + " must have type " + want.str() +
                               ", not " + got.str());
      diags.note(p.loc, "parameter declared here");
      return Type::error();
    }
    for (unsigned d = 0; d < want.rank(); ++d) {
      const Dim &pd = want.shape[d];
      const Dim &ad = got.shape[d];
      if (pd.kind == Dim::Static && !pd.compatible(ad)) {
        diags.error(arg.loc, argDesc + " must have type " + want.str() +
                                 ", not " + got.str());
        diags.note(p.loc, "parameter declared here");
        return Type::error();
      }
      if (pd.kind != Dim::Symbol)
        continue;
      auto it = bound.find(pd.symbol);
      if (it == bound.end()) {
        Dim b = ad;
        if (!b.origin.isValid())
          b.origin = arg.loc;
        bound[pd.symbol] = {b, i};
        continue;
      }
      if (!it->second.dim.compatible(ad)) {
        diags.error(arg.loc, "dimension '" + pd.symbol + "' of '" +
                                 fn.qualifiedName() + "' is " +
                                 it->second.dim.str() + " from argument " +
                                 Twine(it->second.arg + 1) + " but " + ad.str() +
                                 " from argument " + Twine(i + 1) + " (" +
                                 got.str() + ")");
        diags.note(args[it->second.arg].value->loc,
                   "argument " + Twine(it->second.arg + 1) + " has type " +
                       args[it->second.arg].value->type.str());
        noteDim(it->second.dim, "dimension " + it->second.dim.str() +
                                    " comes from here");
        noteDim(ad, "dimension " + ad.str() + " comes from here");
        diags.note(p.loc, "'" + pd.symbol + "' is used by parameter '" +
                              p.name + "' here");
        return Type::error();
      }
      if (it->second.dim.isDynamic() && !ad.isDynamic())
        it->second.dim = ad;
    }
  }
  if (!fn.hasResult)
    return Type::voidTy();
  Type r = fn.result.type;
  if (r.isModel() && r.model->isTypeParam) {
    const ModelDecl *m = typeArgs[typeParamIndex(fn, r.model)];
    return Type::modelType(m->name, m);
  }
  for (Dim &d : r.shape)
    if (d.kind == Dim::Symbol) {
      auto it = bound.find(d.symbol);
      d = it != bound.end() ? it->second.dim : Dim::getDynamic(loc);
    }
  return r;
}

