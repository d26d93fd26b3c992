//===- SemaBuiltins.cpp - Checks of calls to built-in functions -----------===//
//
// Each call is resolved once to its Builtin (Builtins.def) and checked by the
// rule of its kind.
//
//===----------------------------------------------------------------------===//
#include "compiler/Frontend/SemaChecker.h"

#include "llvm/Support/SaveAndRestore.h"

using namespace tdsl;
using namespace tdsl::sema;

bool Checker::resolveTypeArg(Type &t, SMLoc loc, bool allowDynamic) {
  for (Dim &d : t.shape) {
    if (d.kind == Dim::Dynamic && !allowDynamic) {
      diags.error(d.origin, "the size of this dimension is unknown; give a "
                            "number or an integer variable");
      return false;
    }
    if (d.kind != Dim::Symbol)
      continue;
    VarInfo *v = lookup(d.symbol);
    if (!v) {
      diags.error(d.origin, "use of undeclared name '" + d.symbol +
                                "' as a dimension");
      return false;
    }
    v->used = true;
    if (v->kind == VarKind::DimSymbol)
      continue; // stays symbolic
    if (v->kind == VarKind::IndexVar) {
      diags.error(d.origin, "index variable '" + d.symbol +
                                "' cannot be the size of a dimension");
      return false;
    }
    if (v->type.isTensor || !isIntKind(v->type.elem)) {
      diags.error(d.origin, "dimension '" + d.symbol +
                                "' must be an integer scalar, not " +
                                v->type.str());
      return false;
    }
    // A run-time size.
    SMLoc origin = d.origin;
    d = Dim::getDynamic(origin);
  }
  return true;
}

static bool isTypeArg(const CallExpr &e, size_t i) {
  return i < e.args.size() && llvm::isa<TypeArgExpr>(e.args[i].value.get());
}

static const Type &typeArg(const CallExpr &e, size_t i) {
  return llvm::cast<TypeArgExpr>(e.args[i].value.get())->spec;
}

static ElemKind conversionTarget(Builtin b) {
  switch (b) {
  case Builtin::ToF16: return ElemKind::F16;
  case Builtin::ToBF16: return ElemKind::BF16;
  case Builtin::ToF32: return ElemKind::F32;
  case Builtin::ToF64: return ElemKind::F64;
  case Builtin::ToI1: return ElemKind::I1;
  case Builtin::ToI32: return ElemKind::I32;
  case Builtin::ToI64: return ElemKind::I64;
  case Builtin::ToU64: return ElemKind::U64;
  default: return ElemKind::Error;
  }
}

Type Checker::checkBuiltin(CallExpr &e) {
  unsigned lo, hi;
  // grad's first argument names a function: it is not a value to check.
  bool namesFunction = lookupBuiltin(e.callee, 2, lo, hi) == Builtin::Grad &&
                       !e.args.empty() &&
                       (llvm::isa<VarRefExpr>(e.args[0].value.get()) ||
                        moduleOfField(*e.args[0].value));
  // `sum(k) -a[k]` parses as sum(k) - a[k]: a reduction's body cannot start
  // with '-' (language.md 7), and the undeclared k says nothing of that.
  if (e.args.size() == 1 &&
      (e.callee == "sum" || e.callee == "max" || e.callee == "min"))
    if (auto *ref = llvm::dyn_cast<VarRefExpr>(e.args[0].value.get());
        ref && !lookup(ref->name) && !lookupModel(ref->name) &&
        !functions.count(ref->name) && !isBuiltinName(ref->name)) {
      diags.error(ref->loc, "use of undeclared name '" + ref->name + "'");
      diags.note(e.loc, "if '" + ref->name + "' is meant as the index of a "
                        "reduction whose body starts with '-', parenthesize "
                        "the body: " + e.callee + "(" + ref->name + ") (-...)");
      return Type::error();
    }
  // An integer conversion of a tensor literal types its literals directly.
  ElemKind litTarget = ElemKind::Error;
  if (e.args.size() == 1 && llvm::isa<TensorLitExpr>(e.args[0].value.get()))
    if (Builtin b = lookupBuiltin(e.callee, 1, lo, hi);
        b != Builtin::None && isIntKind(conversionTarget(b)))
      litTarget = conversionTarget(b);
  llvm::SaveAndRestore<ElemKind> target(tensorLitTarget, litTarget);
  // Every argument is checked, so that each one's errors are reported.
  bool argError = false;
  for (CallArg &a : e.args) {
    if (namesFunction && &a == &e.args[0]) {
      a.value->type = Type::voidTy();
      continue;
    }
    if (llvm::isa<TypeArgExpr>(a.value.get())) {
      a.value->type = Type::voidTy();
      continue;
    }
    if (llvm::isa<StringLitExpr>(a.value.get())) {
      a.value->type = Type::scalar(ElemKind::String);
      continue;
    }
    // A model's name is a type argument: zeros(Mlp), load("ckpt/", Mlp).
    if (auto *ref = llvm::dyn_cast<VarRefExpr>(a.value.get());
        ref && !lookup(ref->name))
      if (const ModelDecl *m = lookupModel(ref->name)) {
        a.value = std::make_unique<TypeArgExpr>(
            ref->loc, Type::modelType(m->name, m));
        a.value->type = Type::voidTy();
        continue;
      }
    argError |= check(*a.value).isError();
  }
  if (argError)
    return Type::error();
  e.builtin = lookupBuiltin(e.callee, e.args.size(), lo, hi);
  if (e.builtin == Builtin::None) {
    reportBuiltinArity(e, lo, hi);
    return Type::error();
  }
  switch (getBuiltinInfo(e.builtin).kind) {
  case BuiltinKind::FloatMath:
  case BuiltinKind::NumericMath:
    return checkMathBuiltin(e);
  case BuiltinKind::Binary:
    return checkBinaryBuiltin(e);
  case BuiltinKind::Reduce:
    return checkReduceBuiltin(e);
  case BuiltinKind::Convert:
    return checkConversion(e);
  case BuiltinKind::Fill:
    return checkFill(e);
  case BuiltinKind::Arange:
    return checkArange(e);
  case BuiltinKind::Random:
    return checkRandom(e);
  case BuiltinKind::Dim:
    return checkDimBuiltin(e);
  case BuiltinKind::Print:
    return checkPrint(e);
  case BuiltinKind::Load:
    return checkLoad(e);
  case BuiltinKind::Save:
    return checkSave(e);
  case BuiltinKind::Assert:
    return checkAssert(e);
  case BuiltinKind::World:
    return checkWorld(e);
  case BuiltinKind::Collective:
    return checkCollective(e);
  case BuiltinKind::Grad:
    return checkGrad(e);
  }
  llvm_unreachable("unhandled BuiltinKind");
}

void Checker::reportBuiltinArity(CallExpr &e, unsigned lo, unsigned hi) {
  StringRef name = e.callee;
  size_t n = e.args.size();
  if (hi == kVariadic) {
    diags.error(e.loc, "'" + name + "' needs at least " +
                           (lo == 1 ? Twine("one argument")
                                    : Twine(lo) + " arguments"));
    return;
  }
  diags.error(e.loc, "'" + name + "' takes " +
                         (lo == hi ? Twine(lo) : Twine(lo) + " to " + Twine(hi)) +
                         " argument" + (hi == 1 ? "" : "s") + " but " +
                         Twine(n) + (n == 1 ? " was given" : " were given"));
  if (name == "sum" && n == 2)
    diags.note(e.loc, "to sum along one axis, use index notation: "
                      "`s[j] = sum(i) x[i, j]` sums the rows of x");
}

bool Checker::builtinValueArg(CallExpr &e, size_t i, StringRef what) {
  Expr &a = *e.args[i].value;
  if (llvm::isa<TypeArgExpr>(&a) || llvm::isa<StringLitExpr>(&a)) {
    diags.error(a.loc, "argument " + Twine(i + 1) + " of '" + e.callee +
                           "' must be " + what);
    return false;
  }
  return true;
}

Type Checker::checkMathBuiltin(CallExpr &e) {
  StringRef name = e.callee;
  bool floatMath = getBuiltinInfo(e.builtin).kind == BuiltinKind::FloatMath;
  if (!builtinValueArg(e, 0, "a number or a tensor"))
    return Type::error();
  Expr &a = *e.args[0].value;
  if (a.type.isModel())
    return a.type; // field by field; fields are floating-point
  if (isLiteralKind(a.type.elem))
    settle(a, floatMath ? ElemKind::F32 : defaultKind(a.type.elem));
  if (!isNumericKind(a.type.elem) || (floatMath && !isFloatKind(a.type.elem))) {
    diags.error(a.loc, "'" + name + "' needs a " +
                           (floatMath ? "floating-point" : "numeric") +
                           " argument, not " + a.type.str() +
                           (floatMath ? "; convert with f32(x)" : ""));
    return Type::error();
  }
  return a.type;
}

Type Checker::checkBinaryBuiltin(CallExpr &e) {
  StringRef name = e.callee;
  bool isPow = e.builtin == Builtin::Pow;
  if (!builtinValueArg(e, 0, "a number or a tensor") ||
      !builtinValueArg(e, 1, "a number or a tensor"))
    return Type::error();
  Expr &a = *e.args[0].value, &b = *e.args[1].value;
  if (a.type.isModel() || b.type.isModel())
    return checkModelOperands(a, b, e.loc, "'" + name.str() + "'");
  // An integer argument, before unifying it with a float literal (which
  // said the literal cannot be an integer).
  for (Expr *arg : {&a, &b})
    if (isPow && !isLiteralKind(arg->type.elem) && !isFloatKind(arg->type.elem) &&
        !arg->type.isError()) {
      diags.error(e.loc, "'pow' needs floating-point arguments, not " +
                             a.type.str() + " and " + b.type.str() +
                             ": convert first, as in pow(f32(x), 2.0)");
      return Type::error();
    }
  ElemKind elem;
  if (!unifyElem(a, b, elem, e.loc, "'" + name.str() + "'"))
    return Type::error();
  if (isLiteralKind(elem)) {
    elem = isPow ? ElemKind::F32 : defaultKind(elem);
    settle(a, elem);
    settle(b, elem);
  }
  if (!isNumericKind(elem) || (isPow && !isFloatKind(elem))) {
    diags.error(e.loc, "'" + name + "' needs " +
                           (isPow ? "floating-point" : "numeric") +
                           " arguments, not " + a.type.str() + " and " +
                           b.type.str());
    return Type::error();
  }
  return broadcast(a.type, b.type, elem, e.loc, "'" + name.str() + "'");
}

Type Checker::checkReduceBuiltin(CallExpr &e) {
  StringRef name = e.callee;
  if (!builtinValueArg(e, 0, "a tensor"))
    return Type::error();
  Expr &a = *e.args[0].value;
  if (!a.type.isTensor || !isNumericKind(a.type.elem)) {
    // A mask (numpy's count_nonzero, any, all) is converted first: index
    // notation does not reduce i1 either.
    bool mask = a.type.isTensor && a.type.elem == ElemKind::I1;
    diags.error(a.loc, "'" + name + "' of one argument reduces a numeric "
                           "tensor, not " + a.type.str() +
                           (mask ? "; convert the mask first, e.g. " + name +
                                       "(i64(...))"
                                 : "; for index notation write " + name + "(i) x[i]"));
    return Type::error();
  }
  return a.type.elementType();
}

Type Checker::checkConversion(CallExpr &e) {
  ElemKind conv = conversionTarget(e.builtin);
  if (!builtinValueArg(e, 0, "a number or a tensor"))
    return Type::error();
  Expr &a = *e.args[0].value;
  // Literals take the target type itself, so that f64(0.1) and
  // f64([0.1, 0.2]) are the doubles nearest 0.1 and 0.2, not f32 values
  // widened.
  if (isFloatKind(conv) || (a.type.elem == ElemKind::IntLit && isIntKind(conv)))
    settle(a, conv);
  if (auto *lit = llvm::dyn_cast<TensorLitExpr>(&a); lit && isFloatKind(conv))
    retypeTensorLit(*lit, conv);
  settleDefault(a);
  if (!isNumericKind(a.type.elem) && a.type.elem != ElemKind::I1) {
    diags.error(a.loc, "cannot convert a value of type " + a.type.str() +
                           " to " + e.callee);
    return Type::error();
  }
  return a.type.withElem(conv);
}

Type Checker::checkFill(CallExpr &e) {
  StringRef name = e.callee;
  bool isFull = e.builtin == Builtin::Full;
  if (!isTypeArg(e, 0)) {
    diags.error(e.args[0].value->loc, "the first argument of '" + name +
                                          "' is a type, e.g. " + name +
                                          "(f32[3, 4]" +
                                          (isFull ? ", 1.5)" : ")"));
    return Type::error();
  }
  Type t = typeArg(e, 0);
  if (!resolveTypeArg(t, e.args[0].value->loc, false))
    return Type::error();
  if (isFull && t.isModel()) {
    if (!builtinValueArg(e, 1, "a scalar"))
      return Type::error();
    Expr &v = *e.args[1].value;
    if (isLiteralKind(v.type.elem))
      settle(v, ElemKind::F32);
    if (v.type.isTensor || !isFloatKind(v.type.elem)) {
      diags.error(v.loc, "the fill value of a model must be a floating-point "
                         "scalar, not " + v.type.str());
      return Type::error();
    }
    return t;
  }
  if (isFull) {
    if (!builtinValueArg(e, 1, "a scalar"))
      return Type::error();
    Expr &v = *e.args[1].value;
    if (!coerce(v, t.elem, "'full'"))
      return Type::error();
    if (v.type.isTensor || v.type.elem != t.elem) {
      diags.error(v.loc, "the fill value of 'full' must be a " +
                             Twine(getElemKindName(t.elem)) + " scalar, not " +
                             v.type.str());
      return Type::error();
    }
  } else if (t.elem == ElemKind::I1 && e.builtin == Builtin::Ones) {
    diags.error(e.loc, "'ones' of i1 is not defined; use full(i1[...], true)");
    return Type::error();
  }
  return t;
}

Type Checker::checkArange(CallExpr &e) {
  if (isTypeArg(e, 0)) {
    Type t = typeArg(e, 0);
    if (!t.isTensor || t.rank() != 1 || !isNumericKind(t.elem)) {
      diags.error(e.args[0].value->loc,
                  "'arange' makes a 1-D numeric tensor, not " + t.str());
      return Type::error();
    }
    if (!resolveTypeArg(t, e.args[0].value->loc, false))
      return Type::error();
    return t;
  }
  Expr &n = *e.args[0].value;
  if (!expectScalarInt(n, "the size of 'arange'"))
    return Type::error();
  if (auto *lit = llvm::dyn_cast<IntLitExpr>(&n)) {
    if (lit->value == 0) {
      diags.error(n.loc, "'arange' needs a positive size");
      return Type::error();
    }
    return Type::tensor(ElemKind::I64, {Dim::getStatic(lit->value, n.loc)});
  }
  return Type::tensor(ElemKind::I64, {Dim::getDynamic(n.loc)});
}

/// uniform(seed, counter), uniform(f64, seed, counter), uniform(f32[..], seed).
Type Checker::checkRandom(CallExpr &e) {
  StringRef name = e.callee;
  Type result = Type::scalar(ElemKind::F32);
  size_t first = 0;
  if (isTypeArg(e, 0)) {
    result = typeArg(e, 0);
    if (result.elem != ElemKind::F32 && result.elem != ElemKind::F64) {
      diags.error(e.args[0].value->loc, "'" + name + "' makes f32 or f64 "
                                        "values, not " + result.str());
      return Type::error();
    }
    if (!resolveTypeArg(result, e.args[0].value->loc, false))
      return Type::error();
    first = 1;
  }
  size_t want = result.isTensor ? first + 1 : first + 2;
  if (e.args.size() != want) {
    diags.error(e.loc, result.isTensor
                           ? "'" + name + "' of a tensor type takes the type "
                             "and a seed: " + name + "(f32[4, 4], seed)"
                           : "'" + name + "' takes a seed and a counter: " +
                                 name + "(seed, i)");
    return Type::error();
  }
  for (size_t i = first; i < e.args.size(); ++i) {
    if (!builtinValueArg(e, i, "an integer"))
      return Type::error();
    Expr &a = *e.args[i].value;
    bool isSeed = i == first;
    if (!expectScalarInt(a, isSeed ? "the seed" : "the counter"))
      return Type::error();
    if (llvm::isa<IntLitExpr>(&a) && isSeed)
      a.type.elem = ElemKind::U64;
  }
  return result;
}

Type Checker::checkDimBuiltin(CallExpr &e) {
  if (!builtinValueArg(e, 0, "a tensor"))
    return Type::error();
  Expr &t = *e.args[0].value;
  auto *k = llvm::dyn_cast<IntLitExpr>(e.args[1].value.get());
  if (!t.type.isTensor) {
    diags.error(t.loc, "'dim' needs a tensor, not " + t.type.str());
    return Type::error();
  }
  if (!k || k->value >= t.type.rank()) {
    diags.error(e.args[1].value->loc,
                "the axis of 'dim' must be an integer constant below " +
                    Twine(t.type.rank()) + " for " + t.type.str());
    return Type::error();
  }
  settle(*k, ElemKind::I64);
  return Type::scalar(ElemKind::I64);
}

Type Checker::checkPrint(CallExpr &e) {
  for (CallArg &arg : e.args) {
    Expr &a = *arg.value;
    if (llvm::isa<TypeArgExpr>(&a)) {
      diags.error(a.loc, "cannot print a type");
      return Type::error();
    }
    if (a.type.isVoid()) {
      diags.error(a.loc, "cannot print an expression with no value");
      return Type::error();
    }
    settleDefault(a);
  }
  return Type::voidTy();
}

Type Checker::checkLoad(CallExpr &e) {
  StringRef name = e.callee;
  bool csv = e.builtin == Builtin::LoadCsv;
  if (!llvm::isa<StringLitExpr>(e.args[0].value.get())) {
    diags.error(e.args[0].value->loc, "the path given to '" + name +
                                          "' must be a string literal");
    return Type::error();
  }
  if (!csv && isTypeArg(e, 1) && typeArg(e, 1).isModel())
    return typeArg(e, 1); // one .npy file per field
  if (!isTypeArg(e, 1) || !typeArg(e, 1).isTensor) {
    diags.error(e.args[1].value->loc,
                "'" + name + "' needs the tensor type it reads, e.g. " +
                    (csv ? "load_csv(\"table.csv\", f32[?, 65])"
                         : "load(\"x.npy\", f32[?, 64]), or a model's "
                           "name"));
    return Type::error();
  }
  Type t = typeArg(e, 1);
  for (Dim &d : t.shape)
    if (d.kind == Dim::Symbol) {
      diags.error(d.origin, "dimensions of a loaded tensor are numbers or "
                            "'?', not names");
      return Type::error();
    }
  if (csv && (t.rank() != 2 ||
              (t.elem != ElemKind::F32 && t.elem != ElemKind::F64 &&
               t.elem != ElemKind::I32 && t.elem != ElemKind::I64))) {
    diags.error(e.args[1].value->loc,
                "a CSV file is read as a table: f32, f64, i32 or i64 with two "
                "dimensions (rows, values per row), not " + t.str());
    return Type::error();
  }
  return t;
}

Type Checker::checkSave(CallExpr &e) {
  if (!llvm::isa<StringLitExpr>(e.args[0].value.get())) {
    diags.error(e.args[0].value->loc, "the path given to 'save' must be a "
                                      "string literal");
    return Type::error();
  }
  if (!builtinValueArg(e, 1, "a tensor"))
    return Type::error();
  Expr &v = *e.args[1].value;
  if (!v.type.isTensor && !v.type.isModel()) {
    diags.error(v.loc, "'save' writes a tensor or a model, not " +
                           v.type.str());
    return Type::error();
  }
  return Type::voidTy();
}

/// assert(cond) and assert(cond, "message"): cond is an i1 scalar (a tensor
/// has no single truth value: reduce it first).
Type Checker::checkAssert(CallExpr &e) {
  if (!builtinValueArg(e, 0, "a condition"))
    return Type::error();
  Expr &c = *e.args[0].value;
  if (c.type.isError())
    return Type::error();
  if (c.type.isTensor) {
    diags.error(c.loc, "the condition of 'assert' is a scalar, not " +
                           c.type.str() + "; reduce the tensor first, e.g. "
                           "assert(min(x) >= 0.0)");
    return Type::error();
  }
  if (c.type.elem != ElemKind::I1) {
    diags.error(c.loc, "the condition of 'assert' must be i1, not " +
                           c.type.str());
    return Type::error();
  }
  if (e.args.size() == 2 && !llvm::isa<StringLitExpr>(e.args[1].value.get())) {
    diags.error(e.args[1].value->loc, "the message of 'assert' must be a "
                                      "string literal");
    return Type::error();
  }
  return Type::voidTy();
}

/// world_size() and world_rank() are i64; like the collectives they run on
/// the main thread, so not in a 'parallel for' body.
Type Checker::checkWorld(CallExpr &e) {
  if (parallelDepth + indexDepth > 0) {
    diags.error(e.loc, "'" + e.callee + "' cannot be used inside a 'parallel "
                       "for' body or an index-notation expression: processes "
                       "talk on the main thread");
    return Type::error();
  }
  if (currentFn)
    collectiveUse.try_emplace(currentFn, e.loc);
  return Type::scalar(ElemKind::I64);
}

/// A function that uses a collective, itself or through the functions it
/// calls, cannot be called from parallel code either.
void Checker::checkCollectiveCalls() {
  for (bool grew = true; grew;) {
    grew = false;
    for (auto [caller, callee] : calls)
      if (caller && collectiveUse.count(callee) && !collectiveUse.count(caller))
        grew = collectiveUse.try_emplace(caller, collectiveUse[callee]).second;
  }
  for (auto [callee, loc] : parallelCalls)
    if (auto it = collectiveUse.find(callee); it != collectiveUse.end()) {
      diags.error(loc, "'" + callee->qualifiedName() + "' uses processes' "
                       "collectives and cannot be called inside a 'parallel "
                       "for' body or an index-notation expression: processes "
                       "talk on the main thread");
      diags.note(it->second, "a collective is used here");
    }
}

/// allreduce(x), allreduce(x, "max" | "min" | "sum"), broadcast(x, root): x
/// a tensor, a scalar or a model; the result has its type.
Type Checker::checkCollective(CallExpr &e) {
  if (checkWorld(e).isError() || !builtinValueArg(e, 0, "a tensor, a number "
                                                         "or a model"))
    return Type::error();
  Expr &x = *e.args[0].value;
  if (isLiteralKind(x.type.elem))
    settleDefault(x);
  if (!x.type.isModel() && !isNumericKind(x.type.elem) &&
      x.type.elem != ElemKind::I1) {
    diags.error(x.loc, "'" + e.callee + "' needs a tensor, a number or a "
                       "model, not " + x.type.str());
    return Type::error();
  }
  if (e.builtin == Builtin::AllReduce && e.args.size() == 2) {
    auto *op = llvm::dyn_cast<StringLitExpr>(e.args[1].value.get());
    if (!op || (op->value != "sum" && op->value != "max" && op->value != "min")) {
      diags.error(e.args[1].value->loc, "the operator of 'allreduce' is \"sum\" "
                                        "(the default), \"max\" or \"min\"");
      return Type::error();
    }
  }
  if (e.builtin == Builtin::Broadcast) {
    if (!builtinValueArg(e, 1, "a rank (an integer)"))
      return Type::error();
    Expr &root = *e.args[1].value;
    if (root.type.elem == ElemKind::IntLit)
      settle(root, ElemKind::I64);
    if (root.type.isTensor || !isIntKind(root.type.elem) ||
        root.type.elem == ElemKind::IntLit) {
      diags.error(root.loc, "the root of 'broadcast' is a rank: an integer, "
                            "not " + root.type.str());
      return Type::error();
    }
  }
  return x.type;
}

/// grad(f, x, args...): f(x, args...) must be an f32 or f64 scalar and x a
/// floating-point value; the gradient has x's type.
/// The module `m` of `m.f` when m names an imported module (or the current
/// one) and no variable: `grad(nn.mse, ...)` names a module's function.
const VarRefExpr *Checker::moduleOfField(const Expr &e) {
  auto *field = llvm::dyn_cast<FieldExpr>(&e);
  auto *ref = field ? llvm::dyn_cast<VarRefExpr>(field->base.get()) : nullptr;
  if (!ref || lookup(ref->name) ||
      (!importedModules.count(ref->name) && ref->name != currentModule))
    return nullptr;
  return ref;
}

Type Checker::checkGrad(CallExpr &e) {
  // The function would be generated inside the op's body, where only values
  // exist (it was "internal error: no value for 'sq'").
  if (indexDepth > 0) {
    if (checkingUpdate)
      diags.error(e.loc, "'grad' cannot be used in the value of an element "
                         "update; bind it to a name first (`gi = grad(...)`, "
                         "then `g[i] = gi`)");
    else
      diags.error(e.loc, "'grad' cannot be used inside an index-notation "
                         "expression; compute it in a 'parallel for' body "
                         "(`parallel for i in 0..n { yield grad(f, x[i]) }`) "
                         "or in a function the expression calls");
    return Type::error();
  }
  if (const VarRefExpr *module = moduleOfField(*e.args[0].value)) {
    auto &field = llvm::cast<FieldExpr>(*e.args[0].value);
    FunctionDecl *fn = functions.lookup(module->name + "." + field.field);
    if (!fn) {
      diags.error(field.loc, "module '" + module->name +
                                 "' has no function '" + field.field + "'");
      return Type::error();
    }
    return checkGradOf(e, *fn);
  }
  auto *ref = llvm::dyn_cast<VarRefExpr>(e.args[0].value.get());
  if (!ref) {
    diags.error(e.args[0].value->loc,
                "the first argument of 'grad' is the name of a function, "
                "e.g. grad(loss, w, x)");
    return Type::error();
  }
  FunctionDecl *fn = lookupFunction(ref->name);
  if (!fn) {
    if (VarInfo *v = lookup(ref->name)) {
      v->used = true;
      diags.error(ref->loc, "'" + ref->name + "' is a variable of type " +
                                v->type.str() + ", not a function");
    } else {
      diags.error(ref->loc, "'grad' of undeclared function '" + ref->name +
                                "'");
    }
    return Type::error();
  }
  return checkGradOf(e, *fn);
}

/// grad(f, x, args...) once f is known.
Type Checker::checkGradOf(CallExpr &e, FunctionDecl &f) {
  FunctionDecl *fn = &f;
  auto args = llvm::MutableArrayRef<CallArg>(e.args).drop_front();
  // The gradient has x's type: x is passed as it is.
  Type result = matchCall(e.loc, args, *fn, true, e.typeArgs,
                          /*widenFirst=*/false);
  if (result.isError())
    return result;
  if (!fn->hasResult || result.isTensor ||
      (result.elem != ElemKind::F32 && result.elem != ElemKind::F64)) {
    diags.error(e.loc, "'grad' needs a function that returns an f32 or f64 "
                       "scalar; '" + fn->qualifiedName() + "' returns " +
                           (fn->hasResult ? result.str() : "nothing"));
    diags.note(fn->loc, "'" + fn->qualifiedName() + "' is declared here");
    return Type::error();
  }
  const Type &wrt = fn->params[0].type.type;
  if (!isFloatKind(wrt.elem) && !wrt.isModel()) {
    diags.error(args[0].value->loc,
                "'grad' differentiates with respect to the first argument, "
                "which must be floating-point or a model, not " + wrt.str());
    diags.note(fn->params[0].loc, "parameter declared here");
    return Type::error();
  }
  e.target = fn;
  return args[0].value->type;
}
