//===- MLIRGenBuiltins.cpp - Calls to built-in functions ------------------===//
//
// Each call carries the Builtin that Sema resolved (Builtins.def); this
// switches on it to build the tdsl op.
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

static const Type &typeArg(const CallExpr &e, unsigned i) {
  return llvm::cast<TypeArgExpr>(e.args[i].value.get())->spec;
}

static llvm::StringRef stringArg(const CallExpr &e, unsigned i) {
  return llvm::cast<StringLitExpr>(e.args[i].value.get())->value;
}

mlir::Value Generator::genBuiltin(CallExpr &e, Env &env) {
  mlir::Location l = loc(e.loc);
  mlir::Type rt = toMLIR(e.type);
  switch (getBuiltinInfo(e.builtin).kind) {
  case BuiltinKind::FloatMath:
  case BuiltinKind::NumericMath:
  case BuiltinKind::Binary:
    return genMathBuiltin(e, env);
  case BuiltinKind::Reduce:
    return genReduceAll(e, env);
  case BuiltinKind::Convert: {
    mlir::Value v = gen(*e.args[0].value, env);
    if (!v)
      return nullptr;
    return v.getType() == rt ? v : t::CastOp::create(builder, l, rt, v);
  }
  case BuiltinKind::Fill:
    return genFill(e, env);
  case BuiltinKind::Arange: {
    if (llvm::isa<TypeArgExpr>(e.args[0].value.get())) {
      auto sizes = dynamicSizes(typeArg(e, 0), env, l);
      return t::ArangeOp::create(builder, l, rt,
                                 sizes.empty() ? mlir::Value() : sizes[0]);
    }
    if (e.type.shape[0].isStatic())
      return t::ArangeOp::create(builder, l, rt, mlir::Value());
    mlir::Value n = gen(*e.args[0].value, env);
    if (!n)
      return nullptr;
    bool isUnsigned = n.getType().isUnsignedInteger();
    mlir::Value size = toIndex(toCheckedI64(n, l, "the size of arange is 2^63 or more"), l);
    mlir::Value zero = mlir::arith::ConstantIndexOp::create(builder, l, 0);
    if (!isUnsigned)
      mlir::cf::AssertOp::create(
          builder, l,
          mlir::arith::CmpIOp::create(builder, l, mlir::arith::CmpIPredicate::sge, size, zero),
          "the size of arange is negative");
    return t::ArangeOp::create(builder, l, rt, size);
  }
  case BuiltinKind::Random:
    return genRandom(e, env);
  case BuiltinKind::Dim: {
    mlir::Value v = gen(*e.args[0].value, env);
    if (!v)
      return nullptr;
    auto axis = llvm::cast<IntLitExpr>(e.args[1].value.get())->value;
    return toI64(mlir::tensor::DimOp::create(builder, l, v, (int64_t)axis), l);
  }
  case BuiltinKind::Print:
    genPrint(e, env);
    return {};
  case BuiltinKind::Load:
    return t::LoadOp::create(builder, l, rt, stringArg(e, 0),
                             e.builtin == Builtin::LoadCsv ? "csv" : "npy");
  case BuiltinKind::Grad:
    return genGrad(e, env);
  case BuiltinKind::Assert: {
    mlir::Value cond = gen(*e.args[0].value, env);
    if (!cond)
      return nullptr;
    mlir::cf::AssertOp::create(builder, l, cond,
                               e.args.size() == 2 ? stringArg(e, 1)
                                                  : "assertion failed");
    return {};
  }
  case BuiltinKind::World:
    if (e.builtin == Builtin::WorldSize)
      return t::WorldSizeOp::create(builder, l, builder.getI64Type());
    return t::WorldRankOp::create(builder, l, builder.getI64Type());
  case BuiltinKind::Collective: {
    // A scalar travels as a one-element tensor.
    mlir::Value v = gen(*e.args[0].value, env);
    if (!v)
      return nullptr;
    bool scalar = !llvm::isa<mlir::RankedTensorType>(v.getType());
    if (scalar)
      v = mlir::tensor::FromElementsOp::create(
          builder, l, mlir::RankedTensorType::get({1}, v.getType()), v);
    llvm::SmallVector<mlir::Value> out;
    if (!genCollective(e, {v}, env, out))
      return nullptr;
    if (!scalar)
      return out.front();
    mlir::Value zero = mlir::arith::ConstantIndexOp::create(builder, l, 0);
    return mlir::tensor::ExtractOp::create(builder, l, out.front(),
                                           mlir::ValueRange{zero});
  }
  case BuiltinKind::Save: {
    // A model is one .npy file per field: `prefix` + field + ".npy".
    Expr &value = *e.args[1].value;
    llvm::SmallVector<mlir::Value> values;
    if (!genValues(value, env, values))
      return nullptr;
    if (!value.type.isModel()) {
      t::SaveOp::create(builder, l, values.front(), stringArg(e, 0));
      return {};
    }
    for (auto [f, v] : llvm::zip(concrete(value.type.model)->fields, values))
      t::SaveOp::create(builder, l, v, stringArg(e, 0).str() + f.name + ".npy");
    return {};
  }
  }
  llvm_unreachable("unhandled BuiltinKind");
}

/// One collective op over `values` (a tensor, or a model's fields).
bool Generator::genCollective(CallExpr &e, llvm::ArrayRef<mlir::Value> values,
                              Env &env, llvm::SmallVectorImpl<mlir::Value> &out) {
  mlir::Location l = loc(e.loc);
  mlir::Operation *op;
  if (e.builtin == Builtin::AllReduce) {
    llvm::StringRef kind = e.args.size() == 2 ? stringArg(e, 1) : "sum";
    op = t::AllReduceOp::create(builder, l, mlir::ValueRange(values).getTypes(),
                                kind, values);
  } else {
    mlir::Value root = gen(*e.args[1].value, env);
    if (!root)
      return false;
    op = t::BroadcastOp::create(builder, l, mlir::ValueRange(values).getTypes(),
                                values, toI64(root, l));
  }
  out.append(op->result_begin(), op->result_end());
  return true;
}

/// Adjacent string arguments join the label of the next value printed;
/// every value but the last continues the line.
void Generator::genPrint(CallExpr &e, Env &env) {
  mlir::Location l = loc(e.loc);
  // Every argument first: one that stops the program (a subscript out of
  // range) then leaves no half-printed line.
  std::vector<llvm::SmallVector<mlir::Value>> values(e.args.size());
  for (auto [arg, v] : llvm::zip(e.args, values)) {
    Expr &x = *arg.value;
    if (llvm::isa<StringLitExpr>(&x))
      continue;
    if (x.type.isModel() ? !genModel(x, env, v)
                         : (v.push_back(gen(x, env)), !v.back()))
      return;
  }
  std::string pending;
  bool lineOpen = false; // a value printed on a line not yet ended
  for (unsigned i = 0; i < e.args.size(); ++i) {
    bool last = i + 1 == e.args.size();
    Expr &arg = *e.args[i].value;
    if (auto *s = llvm::dyn_cast<StringLitExpr>(&arg)) {
      pending += s->value;
      if (!last) {
        pending += " ";
        continue;
      }
      t::PrintOp::create(builder, l, mlir::Value(),
                         builder.getStringAttr(pending), false);
      return;
    }
    if (arg.type.isModel()) {
      // A line per field, labelled `label.field` (or `field`).
      llvm::SmallVector<mlir::Value> &fields = values[i];
      // A value before it on the line (before its label too) ends the line
      // first; a model before it ended its own last line.
      if (lineOpen)
        t::PrintOp::create(builder, l, mlir::Value(),
                           builder.getStringAttr(""), false);
      lineOpen = false;
      llvm::StringRef label = llvm::StringRef(pending).trim();
      // A label that is not a name (`model =`) gets a line of its own.
      if (!label.empty() && !llvm::all_of(label, [](char c) {
            return llvm::isAlnum(c) || c == '_' || c == '.';
          })) {
        t::PrintOp::create(builder, l, mlir::Value(),
                           builder.getStringAttr(label), false);
        label = "";
      }
      for (auto [f, v] : llvm::zip(concrete(arg.type.model)->fields, fields))
        t::PrintOp::create(
            builder, l, v,
            builder.getStringAttr((label.empty() ? f.name
                                                 : label.str() + "." + f.name) +
                                  " "),
            false);
      pending.clear();
      continue;
    }
    mlir::Value v = values[i].front();
    t::PrintOp::create(builder, l, v,
                       pending.empty() ? mlir::StringAttr()
                                       : builder.getStringAttr(pending),
                       !last);
    lineOpen = !last;
    pending = " ";
  }
}

mlir::Value Generator::genFill(CallExpr &e, Env &env) {
  mlir::Location l = loc(e.loc);
  const Type &spec = typeArg(e, 0);
  mlir::Value value;
  if (e.builtin == Builtin::Full) {
    value = gen(*e.args[1].value, env);
  } else {
    mlir::Type et = elemType(spec.elem);
    int v = e.builtin == Builtin::Ones ? 1 : 0;
    value = t::ConstantOp::create(
        builder, l,
        mlir::isa<mlir::FloatType>(et)
            ? (mlir::TypedAttr)builder.getFloatAttr(et, v)
            : builder.getIntegerAttr(et, v));
  }
  if (!value)
    return nullptr;
  if (!spec.isTensor)
    return value;
  return t::FillOp::create(builder, l, toMLIR(e.type), value,
                           dynamicSizes(spec, env, l));
}

mlir::Value Generator::genRandom(CallExpr &e, Env &env) {
  mlir::Location l = loc(e.loc);
  mlir::Type rt = toMLIR(e.type);
  t::Distribution dist = e.builtin == Builtin::Uniform
                             ? t::Distribution::uniform
                             : t::Distribution::normal;
  unsigned first = llvm::isa<TypeArgExpr>(e.args[0].value.get()) ? 1 : 0;
  mlir::Value seed = gen(*e.args[first].value, env);
  if (!seed)
    return nullptr;
  if (!seed.getType().isInteger(64))
    seed = castTo(seed, builder.getI64Type(), l);
  if (e.type.isTensor)
    return t::RandomTensorOp::create(builder, l, rt, dist, seed,
                                     dynamicSizes(typeArg(e, 0), env, l));
  mlir::Value ctr = gen(*e.args[first + 1].value, env);
  if (!ctr)
    return nullptr;
  ctr = castTo(ctr, builder.getI64Type(), l);
  return t::RandomOp::create(builder, l, rt, dist, seed, ctr);
}

/// sum/max/min of a whole tensor: an index_gen whose every loop reduces.
mlir::Value Generator::genReduceAll(CallExpr &e, Env &env) {
  mlir::Location l = loc(e.loc);
  mlir::Value v = gen(*e.args[0].value, env);
  if (!v)
    return nullptr;
  auto tt = mlir::cast<mlir::RankedTensorType>(v.getType());
  unsigned rank = tt.getRank();
  mlir::AffineMap in = builder.getMultiDimIdentityMap(rank);
  mlir::AffineMap out = mlir::AffineMap::get(rank, 0, {}, &ctx);
  llvm::SmallVector<t::IteratorType> iters(rank, t::IteratorType::reduction);
  t::CombinerKind kind = e.builtin == Builtin::Sum    ? t::CombinerKind::sum
                         : e.builtin == Builtin::MaxAll ? t::CombinerKind::max
                                                        : t::CombinerKind::min;
  auto op = t::IndexGenOp::create(builder, l, toMLIR(e.type), mlir::ValueRange{v},
                                  llvm::ArrayRef<mlir::AffineMap>{in, out},
                                  iters, kind);
  mlir::OpBuilder::InsertionGuard guard(builder);
  mlir::Block *body = &op.getRegion().front();
  builder.setInsertionPointToEnd(body);
  t::YieldOp::create(builder, l, body->getArgument(0));
  return op.getResult();
}

mlir::Value Generator::genMathBuiltin(CallExpr &e, Env &env) {
  mlir::Location l = loc(e.loc);
  mlir::Type rt = toMLIR(e.type);
  llvm::SmallVector<mlir::Value, 2> v;
  for (CallArg &a : e.args) {
    v.push_back(gen(*a.value, env));
    if (!v.back())
      return nullptr;
  }
  return mathOp(e.builtin, l, rt, v);
}

/// tdsl.grad of the function Sema resolved, on the other arguments cast to
/// its parameter types; tdsl-differentiate writes the gradient.
mlir::Value Generator::genGrad(CallExpr &e, Env &env) {
  llvm::SmallVector<mlir::Value, 1> results;
  if (!genGradValues(e, env, results))
    return nullptr;
  return castTo(results.front(), toMLIR(e.type), loc(e.loc));
}
