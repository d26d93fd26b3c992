//===- SemaModels.cpp - Checks of models and generic functions ------------===//
//
// A model is a record of named f32/f64 parameter tensors with static
// shapes. Values of a model type are created from a seed (`Mlp(7)`), by
// zeros/ones/full/load, by calls and by `grad`; they combine field by field
// with a model of the same kind or a scalar. A function's type parameters
// (`fn sgd<M>(p: M, ...)`) stand for any model and are bound at each call.
//
//===----------------------------------------------------------------------===//
#include "compiler/Frontend/SemaChecker.h"

#include "llvm/ADT/StringSwitch.h"

using namespace tdsl;
using namespace tdsl::sema;

void Checker::collectModels(ModuleAST &module) {
  for (auto &m : module.models) {
    m->module = module.name;
    std::string qname = m->qualifiedName();
    auto [it, inserted] = models.try_emplace(qname, m.get());
    if (!inserted) {
      diags.error(m->loc, "redefinition of model '" + qname + "'");
      diags.note(it->second->loc, "previous definition is here");
    }
  }
}

void Checker::checkModelDecl(ModelDecl &m) {
  if (functions.count(m.qualifiedName()) || isBuiltinName(m.name))
    diags.error(m.loc, "model '" + m.name + "' has the name of a function");
  if (m.fields.empty())
    diags.error(m.loc, "model '" + m.name + "' has no fields");
  llvm::StringMap<SMLoc> names;
  for (ModelField &f : m.fields) {
    auto [it, inserted] = names.try_emplace(f.name, f.loc);
    if (!inserted) {
      diags.error(f.loc, "duplicate field '" + f.name + "' in model '" +
                             m.name + "'");
      diags.note(it->second, "previous field is here");
    }
    const Type &t = f.type.type;
    bool staticShape = t.isTensor && llvm::all_of(t.shape, [](const Dim &d) {
                         return d.isStatic();
                       });
    if (!staticShape || (t.elem != ElemKind::F32 && t.elem != ElemKind::F64))
      diags.error(f.type.loc, "field '" + f.name + "' of model '" + m.name +
                                  "' must be an f32 or f64 tensor with "
                                  "numbers for sizes, e.g. f32[64, 10], not " +
                                  t.str());
  }
}

/// The model or type parameter `name` means in the function being checked.
const ModelDecl *Checker::lookupModel(StringRef name) {
  if (currentFn)
    for (auto &p : currentFn->typeParams)
      if (p->name == name)
        return p.get();
  return models.lookup(qualified(name));
}

/// `name` as the module being checked spells its models: the user's models
/// are not visible in an imported module, nor the module's in the user's.
std::string Checker::qualified(StringRef name) const {
  return currentModule.empty() ? name.str() : (currentModule + "." + name).str();
}

bool Checker::resolveModel(Type &t, SMLoc loc) {
  if (!t.isModel() || t.model)
    return true;
  t.model = lookupModel(t.modelName);
  if (t.model)
    return true;
  diags.error(loc, "unknown type '" + t.modelName + "'; a type is f16, bf16, "
                   "f32, f64, i1, i32, i64, u64 (with a shape in [...]) or "
                   "the name of a model");
  const char *spelled = llvm::StringSwitch<const char *>(t.modelName)
                            .Cases({"float", "float32"}, "f32")
                            .Cases({"double", "float64"}, "f64")
                            .Cases({"int", "long", "int64"}, "i64")
                            .Case("int32", "i32")
                            .Case("bool", "i1")
                            .Default(nullptr);
  if (spelled)
    diags.note(loc, "TDSL spells this type '" + Twine(spelled) + "'");
  return false;
}

/// Type parameters must each be the type of a parameter: calls bind them
/// from the arguments.
void Checker::checkTypeParams(FunctionDecl &fn) {
  llvm::StringMap<SMLoc> names;
  for (auto &tp : fn.typeParams) {
    auto [it, inserted] = names.try_emplace(tp->name, tp->loc);
    if (!inserted) {
      diags.error(tp->loc, "duplicate type parameter '" + tp->name + "'");
      diags.note(it->second, "previous type parameter is here");
    }
    if (models.count(qualified(tp->name)))
      diags.error(tp->loc, "type parameter '" + tp->name +
                               "' has the name of a model");
    bool used = llvm::any_of(fn.params, [&](const Param &p) {
      return p.type.type.model == tp.get();
    });
    if (!used)
      diags.error(tp->loc, "type parameter '" + tp->name + "' of '" + fn.name +
                               "' is not the type of any parameter, so no "
                               "call can tell which model it is");
  }
}

Type Checker::checkField(FieldExpr &e) {
  auto *ref = llvm::dyn_cast<VarRefExpr>(e.base.get());
  if (ref && !lookup(ref->name) && importedModules.count(ref->name)) {
    diags.error(e.loc, "'" + ref->name + "." + e.field +
                           "' is not a value; call a function of module '" +
                           ref->name + "' with (...)");
    return Type::error();
  }
  std::string what = ref ? "'" + ref->name + "'" : "this value";
  Type base = check(*e.base);
  if (base.isError())
    return base;
  if (!base.isModel()) {
    diags.error(e.loc, what + " has type " + base.str() +
                           ", which has no fields; only models have fields");
    return Type::error();
  }
  if (base.model->isTypeParam) {
    diags.error(e.loc, "the fields of " + what + " are not known here: "
                       "its type '" + base.str() + "' stands for any model");
    diags.note(base.model->loc, "type parameter declared here");
    return Type::error();
  }
  int index = base.model->fieldIndex(e.field);
  if (index < 0) {
    std::string fields;
    for (const ModelField &f : base.model->fields)
      fields += (fields.empty() ? "" : ", ") + f.name;
    diags.error(e.loc, "model '" + base.str() + "' has no field '" + e.field +
                           "'; its fields are " + fields);
    diags.note(base.model->loc, "'" + base.str() + "' is declared here");
    return Type::error();
  }
  return base.model->fields[index].type.type;
}

unsigned Checker::typeParamIndex(const FunctionDecl &fn, const ModelDecl *m) {
  for (size_t k = 0; k < fn.typeParams.size(); ++k)
    if (fn.typeParams[k].get() == m)
      return k;
  llvm_unreachable("not a type parameter of the callee");
}

/// An argument for a parameter whose type is a type parameter: a model,
/// the same as the other arguments of that type parameter.
bool Checker::bindTypeParam(Expr &arg, const Param &p, const FunctionDecl &fn,
                            StringRef argDesc,
                            std::vector<const ModelDecl *> &typeArgs) {
  const Type &want = p.type.type;
  const ModelDecl *&slot = typeArgs[typeParamIndex(fn, want.model)];
  if (!arg.type.isModel() || (slot && slot != arg.type.model)) {
    diags.error(arg.loc, argDesc + " must be a model" +
                             (slot ? " of type " + slot->name : "") +
                             ", not " + arg.type.str());
    diags.note(p.loc, "parameter declared here, of type parameter '" +
                          want.str() + "'");
    return false;
  }
  slot = arg.type.model;
  return true;
}

/// `m.w1 = e`: e must have the field's type; m is rebound (a `for` or `if`
/// that does this carries all of m).
void Checker::checkFieldAssign(LetStmt &let) {
  auto [base, field] = StringRef(let.name).split('.');
  Type t = check(*let.value);
  VarInfo *v = lookup(base);
  if (!v) {
    diags.error(let.loc, "use of undeclared name '" + base + "'");
    return;
  }
  v->used = true;
  if (t.isError() || v->type.isError())
    return;
  if (!v->type.isModel() || v->type.model->isTypeParam) {
    diags.error(let.fieldLoc, "cannot assign to field '" + field + "' of '" +
                                  base + "', which has type " +
                                  v->type.str() +
                                  (v->type.isModel()
                                       ? " (any model: its fields are unknown)"
                                       : " (only models have fields)"));
    return;
  }
  const ModelDecl &m = *v->type.model;
  int index = m.fieldIndex(field);
  if (index < 0) {
    diags.error(let.fieldLoc, "model '" + m.name + "' has no field '" + field +
                                  "'");
    return;
  }
  const Type &want = m.fields[index].type.type;
  bool ok = t.isTensor && t.elem == want.elem && t.rank() == want.rank();
  for (unsigned d = 0; ok && d < t.rank(); ++d)
    ok = t.shape[d].compatible(want.shape[d]);
  if (!ok) {
    diags.error(let.value->loc, "field '" + field + "' of '" + m.name +
                                    "' has type " + want.str() +
                                    ", not " + t.str());
    diags.note(m.fields[index].loc, "field declared here");
    return;
  }
  let.boundType = want;
  bind(base, v->type, let.loc);
}

/// `a op b` with a model on either side: field by field, with a model of
/// the same kind or a floating-point scalar (converted to each field's type).
Type Checker::checkModelOperands(Expr &a, Expr &b, SMLoc loc, StringRef what) {
  if (a.type.isModel() && b.type.isModel()) {
    if (a.type != b.type) {
      diags.error(loc, "cannot combine models of different kinds with " + what +
                           ": " + a.type.str() + " and " + b.type.str());
      return Type::error();
    }
    return a.type;
  }
  Expr &model = a.type.isModel() ? a : b;
  Expr &other = a.type.isModel() ? b : a;
  // A literal takes the fields' type when they all have one (0.1 in an f64
  // model is the double nearest 0.1).
  if (isLiteralKind(other.type.elem)) {
    const ModelDecl *decl = model.type.model;
    bool allF64 = !decl->isTypeParam &&
                  llvm::all_of(decl->fields, [](const ModelField &f) {
                    return f.type.type.elem == ElemKind::F64;
                  });
    settle(other, allF64 ? ElemKind::F64 : ElemKind::F32);
  }
  if (other.type.isTensor || !isFloatKind(other.type.elem)) {
    diags.error(other.loc, "a model combines with a model of the same kind "
                           "or a floating-point scalar in " + what + ", not " +
                               other.type.str() +
                               (other.type.isTensor
                                    ? "; to use a tensor, read a field: m.w1"
                                    : "; convert it with f32(x)"));
    return Type::error();
  }
  return model.type;
}

Type Checker::checkModelBinary(BinaryExpr &e) {
  std::string what = ("'" + Twine(getBinaryOpSpelling(e.op)) + "'").str();
  switch (e.op) {
  case BinaryOp::Add:
  case BinaryOp::Sub:
  case BinaryOp::Mul:
  case BinaryOp::Div:
    return checkModelOperands(*e.lhs, *e.rhs, e.loc, what);
  default:
    diags.error(e.loc, what + " does not apply to models; models take + - * / "
                              "field by field, and the fields (m.w1) take "
                              "every operator");
    return Type::error();
  }
}

/// `Mlp(seed)`: each field drawn by its initializer from the seed.
Type Checker::checkModelCreation(CallExpr &e, const ModelDecl &m) {
  if (m.isTypeParam) {
    diags.error(e.loc, "'" + m.name + "' stands for any model and cannot be "
                       "created from a seed; take one as an argument or "
                       "use zeros(" + m.name + ")");
    return Type::error();
  }
  if (e.args.size() != 1) {
    diags.error(e.loc, "creating a '" + m.name + "' takes one argument, the "
                       "seed of its random fields: " + m.name + "(42)");
    return Type::error();
  }
  for (CallArg &a : e.args)
    if (check(*a.value).isError())
      return Type::error();
  Expr &seed = *e.args[0].value;
  if (!expectScalarInt(seed, "the seed"))
    return Type::error();
  if (llvm::isa<IntLitExpr>(&seed))
    settle(seed, ElemKind::U64);
  e.model = &m;
  return Type::modelType(m.name, &m);
}
