//===- MLIRGenModels.cpp - Models as one value per field ------------------===//
//
// A model never becomes an MLIR type: a model value is its fields' values,
// in declaration order. A name `m` of a model type binds `m.w1`, `m.b1`, ...
// in the environment (no identifier contains a dot); a model parameter or
// result is one function argument or result per field; arithmetic applies
// the op to each field. A generic function is generated once per model it
// is called with, as `name$Model`.
//
//===----------------------------------------------------------------------===//
#include "compiler/MLIRGen/Generator.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <cmath>

using namespace tdsl;
using namespace tdsl::mlirgen;

const ModelDecl *Generator::concrete(const ModelDecl *m) const {
  while (m && m->isTypeParam)
    m = subst.lookup(m);
  return m;
}

void Generator::flatTypes(const Type &t,
                          llvm::SmallVectorImpl<mlir::Type> &out) {
  if (!t.isModel()) {
    out.push_back(toMLIR(t));
    return;
  }
  for (const ModelField &f : concrete(t.model)->fields)
    out.push_back(toMLIR(f.type.type));
}

void Generator::bindValues(Env &env, llvm::StringRef name, const Type &t,
                           llvm::ArrayRef<mlir::Value> values) {
  if (!t.isModel()) {
    env[name] = values.front();
    return;
  }
  for (auto [f, v] : llvm::zip(concrete(t.model)->fields, values))
    env[(name + "." + f.name).str()] = v;
}

void Generator::lookupValues(Env &env, llvm::StringRef name, const Type &t,
                             llvm::SmallVectorImpl<mlir::Value> &out) {
  if (!t.isModel()) {
    out.push_back(env.lookup(name));
    return;
  }
  for (const ModelField &f : concrete(t.model)->fields)
    out.push_back(env.lookup((name + "." + f.name).str()));
}

bool Generator::genValues(Expr &e, Env &env,
                          llvm::SmallVectorImpl<mlir::Value> &out) {
  if (e.type.isModel())
    return genModel(e, env, out);
  mlir::Value v = gen(e, env);
  if (v)
    out.push_back(v);
  return v != nullptr;
}

/// One value per field of `m` for an operand of a field-by-field op: the
/// fields of a model, or a scalar converted to each field's element type.
bool Generator::modelOperand(Expr &e, const ModelDecl &m, Env &env,
                             llvm::SmallVectorImpl<mlir::Value> &out) {
  if (e.type.isModel())
    return genModel(e, env, out);
  mlir::Value v = gen(e, env);
  if (!v)
    return false;
  for (const ModelField &f : m.fields)
    out.push_back(castTo(v, elemType(f.type.type.elem), loc(e.loc)));
  return true;
}

static mlir::Value elementwise(mlir::OpBuilder &b, mlir::Location l,
                               mlir::Type rt, Builtin op, mlir::Value x,
                               mlir::Value y) {
  namespace t = tdsl::ir;
  switch (op) {
  case Builtin::Exp: return t::ExpOp::create(b, l, rt, x);
  case Builtin::Log: return t::LogOp::create(b, l, rt, x);
  case Builtin::Sqrt: return t::SqrtOp::create(b, l, rt, x);
  case Builtin::Tanh: return t::TanhOp::create(b, l, rt, x);
  case Builtin::Sin: return t::SinOp::create(b, l, rt, x);
  case Builtin::Cos: return t::CosOp::create(b, l, rt, x);
  case Builtin::Floor: return t::FloorOp::create(b, l, rt, x);
  case Builtin::Ceil: return t::CeilOp::create(b, l, rt, x);
  case Builtin::Sigmoid: return t::SigmoidOp::create(b, l, rt, x);
  case Builtin::Abs: return t::AbsOp::create(b, l, rt, x);
  case Builtin::Pow: return t::PowOp::create(b, l, rt, x, y);
  case Builtin::Max: return t::MaxOp::create(b, l, rt, x, y);
  case Builtin::Min: return t::MinOp::create(b, l, rt, x, y);
  default: return {};
  }
}

mlir::Value Generator::mathOp(Builtin op, mlir::Location l, mlir::Type rt,
                              llvm::ArrayRef<mlir::Value> args) {
  return elementwise(builder, l, rt, op, args[0],
                     args.size() > 1 ? args[1] : mlir::Value());
}

/// Applies `op` to each field of the operands (models or scalars).
bool Generator::genFieldwise(
    llvm::ArrayRef<Expr *> operands, const ModelDecl &m, mlir::Location l,
    Env &env, llvm::SmallVectorImpl<mlir::Value> &out,
    llvm::function_ref<mlir::Value(mlir::Type, llvm::ArrayRef<mlir::Value>)>
        op) {
  llvm::SmallVector<llvm::SmallVector<mlir::Value>, 2> values(operands.size());
  for (auto [e, vals] : llvm::zip(operands, values))
    if (!modelOperand(*e, m, env, vals))
      return false;
  for (auto [k, f] : llvm::enumerate(m.fields)) {
    llvm::SmallVector<mlir::Value, 2> args;
    for (auto &vals : values)
      args.push_back(vals[k]);
    out.push_back(op(toMLIR(f.type.type), args));
  }
  return true;
}

bool Generator::genModel(Expr &e, Env &env,
                         llvm::SmallVectorImpl<mlir::Value> &out) {
  mlir::Location l = loc(e.loc);
  const ModelDecl &m = *concrete(e.type.model);
  switch (e.kind) {
  case Expr::VarRef:
    lookupValues(env, llvm::cast<VarRefExpr>(e).name, e.type, out);
    return true;
  case Expr::Unary:
    return genFieldwise({llvm::cast<UnaryExpr>(e).operand.get()}, m, l, env,
                        out, [&](mlir::Type rt, llvm::ArrayRef<mlir::Value> v) {
                          return t::NegOp::create(builder, l, rt, v[0]);
                        });
  case Expr::Binary: {
    auto &bin = llvm::cast<BinaryExpr>(e);
    return genFieldwise(
        {bin.lhs.get(), bin.rhs.get()}, m, l, env, out,
        [&](mlir::Type rt, llvm::ArrayRef<mlir::Value> v) -> mlir::Value {
          switch (bin.op) {
          case BinaryOp::Add: return t::AddOp::create(builder, l, rt, v[0], v[1]);
          case BinaryOp::Sub: return t::SubOp::create(builder, l, rt, v[0], v[1]);
          case BinaryOp::Mul: return t::MulOp::create(builder, l, rt, v[0], v[1]);
          default: return t::DivOp::create(builder, l, rt, v[0], v[1]);
          }
        });
  }
  case Expr::Ternary: {
    auto &te = llvm::cast<TernaryExpr>(e);
    mlir::Value c = gen(*te.cond, env);
    return c && genFieldwise({te.thenExpr.get(), te.elseExpr.get()}, m, l, env,
                             out,
                             [&](mlir::Type rt, llvm::ArrayRef<mlir::Value> v) {
                               return t::SelectOp::create(builder, l, rt, c,
                                                          v[0], v[1]);
                             });
  }
  case Expr::Call:
    return genModelCall(llvm::cast<CallExpr>(e), m, env, out);
  default:
    return fail(e.loc, "internal error: this expression does not make a model");
  }
}

bool Generator::genModelCall(CallExpr &e, const ModelDecl &m, Env &env,
                             llvm::SmallVectorImpl<mlir::Value> &out) {
  mlir::Location l = loc(e.loc);
  if (e.model)
    return genModelInit(e, m, env, out);
  if (e.builtin == Builtin::None)
    return genUserCall(e, env, out);
  switch (getBuiltinInfo(e.builtin).kind) {
  case BuiltinKind::FloatMath:
  case BuiltinKind::NumericMath:
  case BuiltinKind::Binary: {
    llvm::SmallVector<Expr *, 2> args;
    for (CallArg &a : e.args)
      args.push_back(a.value.get());
    return genFieldwise(args, m, l, env, out,
                        [&](mlir::Type rt, llvm::ArrayRef<mlir::Value> v) {
                          return mathOp(e.builtin, l, rt, v);
                        });
  }
  case BuiltinKind::Fill: {
    mlir::Value fill;
    if (e.builtin == Builtin::Full && !(fill = gen(*e.args[1].value, env)))
      return false;
    for (const ModelField &f : m.fields) {
      mlir::Type et = elemType(f.type.type.elem);
      mlir::Value v =
          fill ? castTo(fill, et, l)
               : t::ConstantOp::create(
                     builder, l,
                     builder.getFloatAttr(et, e.builtin == Builtin::Ones));
      out.push_back(t::FillOp::create(builder, l, toMLIR(f.type.type), v,
                                      mlir::ValueRange{}));
    }
    return true;
  }
  case BuiltinKind::Load: {
    auto prefix = llvm::cast<StringLitExpr>(e.args[0].value.get())->value;
    for (const ModelField &f : m.fields)
      out.push_back(t::LoadOp::create(builder, l, toMLIR(f.type.type),
                                      prefix + f.name + ".npy", "npy"));
    return true;
  }
  case BuiltinKind::Grad:
    return genGradValues(e, env, out);
  case BuiltinKind::Collective: {
    // Every field in one op: one message per element type (a DDP bucket).
    llvm::SmallVector<mlir::Value> fields;
    return genValues(*e.args[0].value, env, fields) &&
           genCollective(e, fields, env, out);
  }
  default:
    return fail(e.loc, "internal error: this built-in does not make a model");
  }
}

/// The fans of a weight: [in, out] for a matrix (x @ w), [out, in, k...]
/// for a convolution kernel (as PyTorch), n and n for a vector.
static std::pair<double, double> fans(const Type &t) {
  const auto &s = t.shape;
  if (s.size() == 1)
    return {double(s[0].size), double(s[0].size)};
  if (s.size() == 2)
    return {double(s[0].size), double(s[1].size)};
  double receptive = 1;
  for (size_t d = 2; d < s.size(); ++d)
    receptive *= double(s[d].size);
  return {s[1].size * receptive, s[0].size * receptive};
}

/// `Mlp(seed)`: field k draws from Philox stream seed + (k + 1) * 0x9E37...
/// (the golden-ratio increment, so fields and nearby seeds differ).
bool Generator::genModelInit(CallExpr &e, const ModelDecl &m, Env &env,
                             llvm::SmallVectorImpl<mlir::Value> &out) {
  mlir::Location l = loc(e.loc);
  mlir::Value seed = gen(*e.args[0].value, env);
  if (!seed)
    return false;
  seed = castTo(seed, builder.getI64Type(), l);
  for (auto [k, f] : llvm::enumerate(m.fields)) {
    mlir::Type rt = toMLIR(f.type.type);
    mlir::Type et = elemType(f.type.type.elem);
    auto scalar = [&](double v) -> mlir::Value {
      return t::ConstantOp::create(builder, l, builder.getFloatAttr(et, v));
    };
    if (f.init == InitKind::Zeros || f.init == InitKind::Ones) {
      out.push_back(t::FillOp::create(builder, l, rt,
                                      scalar(f.init == InitKind::Ones),
                                      mlir::ValueRange{}));
      continue;
    }
    uint64_t step = (uint64_t(k) + 1) * 0x9E3779B97F4A7C15ull;
    mlir::Value offset = t::ConstantOp::create(
        builder, l, builder.getIntegerAttr(builder.getI64Type(), (int64_t)step));
    mlir::Value stream =
        t::AddOp::create(builder, l, builder.getI64Type(), seed, offset);
    auto [fanIn, fanOut] = fans(f.type.type);
    bool normal = f.init == InitKind::Normal || f.init == InitKind::He;
    double scale = f.init == InitKind::He       ? std::sqrt(2.0 / fanIn)
                   : f.init == InitKind::Glorot ? std::sqrt(6.0 / (fanIn + fanOut))
                                                : f.scale;
    mlir::Value r = t::RandomTensorOp::create(
        builder, l, rt,
        normal ? t::Distribution::normal : t::Distribution::uniform, stream,
        mlir::ValueRange{});
    r.getDefiningOp()->setAttr(kModelInitAttr, builder.getUnitAttr());
    // A uniform field is spread over [-scale, scale): 2 * scale * u - scale.
    mlir::Value v =
        t::MulOp::create(builder, l, rt, r, scalar(normal ? scale : 2 * scale));
    if (!normal)
      v = t::SubOp::create(builder, l, rt, v, scalar(scale));
    out.push_back(v);
  }
  return true;
}

/// The symbol of `fn` for these type arguments: generated on first use.
std::string Generator::instantiate(FunctionDecl &fn,
                                   llvm::ArrayRef<const ModelDecl *> typeArgs) {
  if (fn.typeParams.empty())
    return fn.qualifiedName();
  std::string name = fn.qualifiedName();
  llvm::SmallVector<const ModelDecl *> models;
  for (const ModelDecl *m : typeArgs) {
    models.push_back(concrete(m));
    name += "$" + models.back()->qualifiedName();
  }
  if (!instances.insert(name).second)
    return name;
  mlir::OpBuilder::InsertionGuard guard(builder);
  auto savedSubst = std::move(subst);
  FunctionDecl *savedFn = currentFn;
  std::vector<IndexFrame *> savedFrames;
  savedFrames.swap(indexFrames);
  subst.clear();
  for (auto [param, model] : llvm::zip(fn.typeParams, models))
    subst[param.get()] = model;
  genFunction(fn, name);
  subst = std::move(savedSubst);
  currentFn = savedFn;
  indexFrames.swap(savedFrames);
  return name;
}

bool Generator::genUserCall(CallExpr &e, Env &env,
                            llvm::SmallVectorImpl<mlir::Value> &out) {
  mlir::Location l = loc(e.loc);
  FunctionDecl &fn = *e.target;
  llvm::SmallVector<mlir::Value> args;
  if (!genArgs(e.args, fn, env, l, args))
    return false;
  llvm::SmallVector<mlir::Type> results;
  if (fn.hasResult)
    flatTypes(e.type.isModel() ? e.type : fn.result.type, results);
  std::string callee = instantiate(fn, e.typeArgs);
  auto call = mlir::func::CallOp::create(builder, l, callee, results, args);
  out.append(call.getResults().begin(), call.getResults().end());
  return true;
}

/// tdsl.grad with one result per field of a model argument (or one for a
/// tensor or scalar), on the other arguments cast to the parameter types.
bool Generator::genGradValues(CallExpr &e, Env &env,
                              llvm::SmallVectorImpl<mlir::Value> &out) {
  mlir::Location l = loc(e.loc);
  FunctionDecl &fn = *e.target;
  llvm::SmallVector<mlir::Value> args;
  if (!genArgs(llvm::ArrayRef(e.args).drop_front(), fn, env, l, args))
    return false;
  llvm::SmallVector<mlir::Type> results;
  if (e.type.isModel())
    flatTypes(e.type, results);
  else
    results.push_back(args.front().getType());
  std::string callee = instantiate(fn, e.typeArgs);
  auto grad = t::GradOp::create(builder, l, results, callee, args);
  out.append(grad.getResults().begin(), grad.getResults().end());
  return true;
}
