//===- MLIRGen.cpp - Lowers a checked .tdsl program to the tdsl dialect ---===//
//
// Values are SSA: each name maps to its current mlir::Value, and a name
// rebound inside a `for` or `if` becomes a loop-carried value or a result of
// the scf op. Index notation becomes tdsl.index_gen ops; reductions nested
// inside an index expression are hoisted into ops of their own.
//
//===----------------------------------------------------------------------===//
#include "compiler/MLIRGen/MLIRGen.h"
#include "compiler/MLIRGen/Generator.h"
#include "compiler/Frontend/Sema.h"
#include "dialects/TDSL/IR/TDSLDialect.h"
#include "dialects/TDSL/IR/TDSLOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Verifier.h"

#include "llvm/Support/MathExtras.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"

#include <functional>

using namespace tdsl;
using namespace tdsl::mlirgen;

void tdsl::registerFrontendDialects(mlir::DialectRegistry &registry) {
  registry.insert<t::TDSLDialect, mlir::func::FuncDialect, mlir::scf::SCFDialect,
                  mlir::tensor::TensorDialect, mlir::arith::ArithDialect,
                  mlir::cf::ControlFlowDialect>();
}

mlir::OwningOpRef<mlir::ModuleOp>
tdsl::generateMLIR(mlir::MLIRContext &context, Program &program,
                   DiagEngine &diags) {
  context.loadDialect<t::TDSLDialect, mlir::func::FuncDialect,
                      mlir::scf::SCFDialect, mlir::tensor::TensorDialect,
                      mlir::arith::ArithDialect, mlir::cf::ControlFlowDialect>();
  return Generator(context, program, diags).run();
}

mlir::OwningOpRef<mlir::ModuleOp> Generator::run() {
  mlir::OwningOpRef<mlir::ModuleOp> owned =
      mlir::ModuleOp::create(loc(program.main->functions.empty()
                                     ? SMLoc()
                                     : program.main->functions.front()->loc));
  module = *owned;
  // A generic function is generated when a call instantiates it.
  for (ModuleAST *m : program.modules())
    for (auto &fn : m->functions)
      if (fn->typeParams.empty())
        genFunction(*fn);
  if (failed)
    return nullptr;
  if (mlir::failed(mlir::verify(*owned))) {
    diags.error(SMLoc(), "internal error: generated tdsl IR does not verify");
    return nullptr;
  }
  return owned;
}

//===----------------------------------------------------------------------===//
// Locations and types
//===----------------------------------------------------------------------===//

mlir::Location Generator::loc(SMLoc l) {
  llvm::SourceMgr &sm = diags.getSourceMgr();
  if (!l.isValid())
    return builder.getUnknownLoc();
  unsigned id = sm.FindBufferContainingLoc(l);
  if (!id)
    return builder.getUnknownLoc();
  auto [line, col] = sm.getLineAndColumn(l, id);
  return mlir::FileLineColLoc::get(
      &ctx, sm.getMemoryBuffer(id)->getBufferIdentifier(), line, col);
}

mlir::Type Generator::elemType(ElemKind k) {
  switch (k) {
  case ElemKind::F16: return builder.getF16Type();
  case ElemKind::BF16: return builder.getBF16Type();
  case ElemKind::F32: case ElemKind::FloatLit: return builder.getF32Type();
  case ElemKind::F64: return builder.getF64Type();
  case ElemKind::I1: return builder.getI1Type();
  case ElemKind::I32: return builder.getI32Type();
  case ElemKind::I64: case ElemKind::IntLit: return builder.getI64Type();
  case ElemKind::U64:
    return mlir::IntegerType::get(&ctx, 64, mlir::IntegerType::Unsigned);
  default: return {};
  }
}

mlir::Type Generator::toMLIR(const Type &t) {
  mlir::Type e = elemType(t.elem);
  if (!t.isTensor || !e)
    return e;
  llvm::SmallVector<int64_t, 4> shape;
  for (const Dim &d : t.shape)
    shape.push_back(d.isStatic() ? d.size : mlir::ShapedType::kDynamic);
  return mlir::RankedTensorType::get(shape, e);
}

/// Converts scalars with tdsl.cast and refines or widens tensor shapes with
/// tensor.cast, so values meet the exact types MLIR ops demand.
mlir::Value Generator::castTo(mlir::Value v, mlir::Type to, mlir::Location l) {
  if (!v || v.getType() == to)
    return v;
  auto fromT = mlir::dyn_cast<mlir::RankedTensorType>(v.getType());
  auto toT = mlir::dyn_cast<mlir::RankedTensorType>(to);
  if (fromT && toT && fromT.getElementType() == toT.getElementType()) {
    // A run-time extent meeting a static one in a type (a parameter, a
    // result, an annotation) is checked, not assumed.
    for (int64_t d = 0; d < fromT.getRank(); ++d) {
      if (!fromT.isDynamicDim(d) || toT.isDynamicDim(d))
        continue;
      mlir::Value size = mlir::tensor::DimOp::create(builder, l, v, d);
      mlir::Value want =
          mlir::arith::ConstantIndexOp::create(builder, l, toT.getDimSize(d));
      mlir::Value same = mlir::arith::CmpIOp::create(
          builder, l, mlir::arith::CmpIPredicate::eq, size, want);
      mlir::cf::AssertOp::create(
          builder, l, same,
          "dimension " + std::to_string(d) + " of this tensor is not " +
              std::to_string(toT.getDimSize(d)) + " as its type requires");
    }
    return mlir::tensor::CastOp::create(builder, l, to, v);
  }
  return t::CastOp::create(builder, l, to, v);
}

/// An integer scalar as an i64: a u64 of 2^63 or more stops the program with
/// `tooLarge` (as an i64 it would be negative: a loop over 0..2^63 + 5 ran
/// no iteration).
mlir::Value Generator::toCheckedI64(mlir::Value v, mlir::Location l,
                                    const llvm::Twine &tooLarge) {
  bool isUnsigned = v.getType().isUnsignedInteger();
  v = toI64(v, l);
  if (isUnsigned) {
    mlir::Value zero = mlir::arith::ConstantIntOp::create(builder, l, builder.getI64Type(), 0);
    mlir::Value ok = mlir::arith::CmpIOp::create(builder, l, mlir::arith::CmpIPredicate::sge, v, zero);
    mlir::cf::AssertOp::create(builder, l, ok, tooLarge.str());
  }
  return v;
}

/// Checks at run time that each dimension of `v` that `type` names (`N`)
/// has the extent that name has in the function.
void Generator::checkSymbolicDims(mlir::Value v, const Type &type, Env &env,
                                  mlir::Location l, llvm::StringRef what) {
  for (unsigned d = 0; d < type.rank(); ++d) {
    const Dim &dim = type.shape[d];
    mlir::Value want = dim.kind == Dim::Symbol ? env.lookup(dim.symbol) : nullptr;
    if (!want)
      continue;
    mlir::Value size = mlir::tensor::DimOp::create(builder, l, v, d);
    mlir::Value same = mlir::arith::CmpIOp::create(
        builder, l, mlir::arith::CmpIPredicate::eq, size, toIndex(want, l));
    mlir::cf::AssertOp::create(builder, l, same,
                               (what + " has a dimension " + llvm::Twine(d) +
                                " other than '" + dim.symbol +
                                "' as its type says")
                                   .str());
  }
}

//===----------------------------------------------------------------------===//
// Functions and statements
//===----------------------------------------------------------------------===//

void Generator::genFunction(FunctionDecl &fn, llvm::StringRef symName) {
  currentFn = &fn;
  llvm::SmallVector<mlir::Type> argTypes;
  // The first block argument of each parameter (a model has one per field).
  llvm::SmallVector<unsigned> firstArg;
  for (Param &p : fn.params) {
    firstArg.push_back(argTypes.size());
    flatTypes(p.type.type, argTypes);
  }
  llvm::SmallVector<mlir::Type> resultTypes;
  if (fn.hasResult)
    flatTypes(fn.result.type, resultTypes);
  mlir::Location l = loc(fn.loc);
  builder.setInsertionPointToEnd(module.getBody());
  auto func = mlir::func::FuncOp::create(
      builder, l, symName.empty() ? fn.qualifiedName() : symName.str(),
      builder.getFunctionType(argTypes, resultTypes));
  if (fn.name != "main" || !fn.module.empty())
    func.setPrivate();
  mlir::Block *entry = func.addEntryBlock();
  builder.setInsertionPointToStart(entry);

  Env env;
  llvm::SmallVector<mlir::Value> args(entry->getArguments());
  for (unsigned i = 0; i < fn.params.size(); ++i)
    bindValues(env, fn.params[i].name, fn.params[i].type.type,
               llvm::ArrayRef(args).drop_front(firstArg[i]));
  // Dimension names become i64 values; a name used twice is checked at run
  // time when the compiler cannot prove the extents equal.
  llvm::StringMap<unsigned> boundBy; // the parameter a dimension came from
  for (unsigned i = 0; i < fn.params.size(); ++i) {
    const Type &pt = fn.params[i].type.type;
    for (unsigned d = 0; d < pt.rank(); ++d) {
      const Dim &dim = pt.shape[d];
      if (dim.kind != Dim::Symbol)
        continue;
      mlir::Location dl = loc(dim.origin);
      mlir::Value size = mlir::tensor::DimOp::create(
          builder, dl, entry->getArgument(firstArg[i]), d);
      auto it = env.find(dim.symbol);
      if (it == env.end()) {
        env[dim.symbol] = toI64(size, dl);
        boundBy[dim.symbol] = i;
        continue;
      }
      mlir::Value first = toIndex(it->second, dl);
      mlir::Value same = mlir::arith::CmpIOp::create(
          builder, dl, mlir::arith::CmpIPredicate::eq, first, size);
      auto from = boundBy.find(dim.symbol);
      bool oneArgument = from != boundBy.end() && from->second == i;
      mlir::cf::AssertOp::create(
          builder, dl, same,
          "shape mismatch in call to '" + fn.qualifiedName() + "': dimension '" +
              dim.symbol + "' " +
              (oneArgument ? "has two sizes in argument '" + fn.params[i].name + "'"
                           : std::string("differs between arguments")));
    }
  }
  genBlock(fn.body, env);
  if (!fn.hasResult &&
      (fn.body.empty() || !llvm::isa<ReturnStmt>(fn.body.back().get())))
    mlir::func::ReturnOp::create(builder, l);
  currentFn = nullptr;
}

bool Generator::genBlock(StmtList &body, Env &env) {
  for (auto &s : body)
    if (!genStmt(*s, env))
      return false;
  return true;
}

bool Generator::genStmt(Stmt &s, Env &env) {
  switch (s.kind) {
  case Stmt::Let: {
    auto &let = llvm::cast<LetStmt>(s);
    if (let.value->type.isModel()) {
      llvm::SmallVector<mlir::Value> fields;
      if (!genModel(*let.value, env, fields))
        return false;
      bindValues(env, let.name, let.value->type, fields);
      return true;
    }
    mlir::Value v = gen(*let.value, env);
    if (!v)
      return false;
    if ((let.hasAnnotation || let.fieldLoc.isValid()) && let.boundType.isTensor)
      v = castTo(v, toMLIR(let.boundType), loc(let.loc));
    env[let.name] = v;
    return true;
  }
  case Stmt::IndexDef: {
    auto &def = llvm::cast<IndexDefStmt>(s);
    if (def.isUpdate)
      return genUpdate(def, env);
    std::vector<std::string> dims;
    for (IndexVarDecl &v : def.indices)
      dims.push_back(v.name);
    auto *root = llvm::dyn_cast<ReduceExpr>(def.value.get());
    const Type &resultType = def.boundType;
    mlir::Value v = genIndexGen(dims, root, root ? *root->body : *def.value,
                                env, def.loc, resultType);
    if (!v)
      return false;
    env[def.name] = v;
    return true;
  }
  case Stmt::Return: {
    auto &ret = llvm::cast<ReturnStmt>(s);
    mlir::Location l = loc(s.loc);
    if (!ret.value) {
      mlir::func::ReturnOp::create(builder, l);
      return true;
    }
    if (ret.value->type.isModel()) {
      llvm::SmallVector<mlir::Value> fields;
      if (!genModel(*ret.value, env, fields))
        return false;
      mlir::func::ReturnOp::create(builder, l, fields);
      return true;
    }
    mlir::Value v = gen(*ret.value, env);
    if (!v)
      return false;
    v = castTo(v, toMLIR(currentFn->result.type), l);
    checkSymbolicDims(v, currentFn->result.type, env, l,
                      "the result of '" + currentFn->qualifiedName() + "'");
    mlir::func::ReturnOp::create(builder, l, v);
    return true;
  }
  case Stmt::For:
    return genFor(llvm::cast<ForStmt>(s), env);
  case Stmt::If:
    return genIf(llvm::cast<IfStmt>(s), env);
  case Stmt::ExprStmt: {
    Expr &e = *llvm::cast<ExprStmt>(s).expr;
    if (e.type.isModel()) {
      llvm::SmallVector<mlir::Value> unused;
      return genModel(e, env, unused);
    }
    return gen(e, env) || !failed;
  }
  case Stmt::Yield:
    return true; // emitted by genParallelFor
  }
  return true;
}

/// `x[k, j] = e`: x with the elements at the positions replaced, `e`
/// computed first from the old x. Without index variables one
/// tensor.insert; with them, an index_gen over the slice of x they span
/// (read as the loops' extents) and a tensor.insert_slice, done in place by
/// bufferization when the old x is dead.
bool Generator::genUpdate(IndexDefStmt &def, Env &env) {
  if (llvm::any_of(def.offsets, [](Expr *e) { return e; }))
    return genOffsetUpdate(def, env);
  mlir::Location l = loc(def.loc);
  mlir::Value x = env.lookup(def.name);
  auto type = mlir::cast<mlir::RankedTensorType>(x.getType());
  const Type &xType = def.boundType;
  llvm::SmallVector<mlir::Value> positions;
  llvm::SmallVector<mlir::OpFoldResult> offsets, sizes, strides;
  llvm::SmallVector<int64_t> sliceShape;
  llvm::SmallVector<Dim, 4> sliceDims;
  std::vector<std::string> dims;
  mlir::OpFoldResult zero = builder.getIndexAttr(0), one = builder.getIndexAttr(1);
  for (auto [d, sub] : llvm::enumerate(def.subscripts)) {
    if (def.indexOf[d] >= 0) {
      dims.push_back(def.indices[def.indexOf[d]].name);
      offsets.push_back(zero);
      sizes.push_back(mlir::tensor::getMixedSize(builder, l, x, d));
      sliceShape.push_back(type.getDimSize(d));
      sliceDims.push_back(xType.shape[d]);
    } else {
      mlir::Location sl = loc(sub->loc);
      mlir::Value v = gen(*sub, env);
      if (!v)
        return false;
      mlir::Value index = toIndex(v, sl);
      mlir::Value extent = mlir::tensor::DimOp::create(builder, sl, x, d);
      mlir::Value inRange = mlir::arith::CmpIOp::create(
          builder, sl, mlir::arith::CmpIPredicate::ult, index, extent);
      mlir::cf::AssertOp::create(builder, sl, inRange,
                                 "the subscript of dimension " + std::to_string(d) +
                                     " is out of range for a tensor of type " +
                                     xType.str());
      positions.push_back(index);
      offsets.push_back(index);
      sizes.push_back(one);
    }
    strides.push_back(one);
  }
  if (dims.empty()) {
    mlir::Value v = gen(*def.value, env);
    if (!v)
      return false;
    env[def.name] = mlir::tensor::InsertOp::create(builder, l, v, x, positions);
    return true;
  }
  // The part of x the index variables span: the loops' extents.
  mlir::Value slice = x;
  if (!positions.empty())
    slice = mlir::tensor::ExtractSliceOp::create(
        builder, l, mlir::RankedTensorType::get(sliceShape, type.getElementType()),
        x, offsets, sizes, strides);
  auto *root = llvm::dyn_cast<ReduceExpr>(def.value.get());
  mlir::Value values =
      genIndexGen(dims, root, root ? *root->body : *def.value, env, def.loc,
                  Type::tensor(xType.elem, sliceDims), slice);
  if (!values)
    return false;
  if (positions.empty()) {
    env[def.name] = castTo(values, type, l);
    return true;
  }
  values = castTo(values, slice.getType(), l);
  env[def.name] = mlir::tensor::InsertSliceOp::create(builder, l, values, x,
                                                      offsets, sizes, strides);
  return true;
}

/// `x[n, c, y + p, x + p] = e`: e by index notation over its own ranges,
/// inserted into x at the offsets (and positions), after a check that it
/// fits.
bool Generator::genOffsetUpdate(IndexDefStmt &def, Env &env) {
  mlir::Location l = loc(def.loc);
  mlir::Value x = env.lookup(def.name);
  llvm::SmallVector<mlir::OpFoldResult> offsets, strides;
  std::vector<std::string> dims;
  llvm::SmallVector<unsigned> dimOf; // x's dimension of each index
  mlir::OpFoldResult one = builder.getIndexAttr(1);
  for (auto [d, sub] : llvm::enumerate(def.subscripts)) {
    Expr *at = def.indexOf[d] >= 0 ? def.offsets[d] : sub.get();
    mlir::Value v;
    if (at && !(v = gen(*at, env)))
      return false;
    offsets.push_back(v ? mlir::OpFoldResult(toIndex(v, loc(at->loc)))
                        : builder.getIndexAttr(0));
    strides.push_back(one);
    if (def.indexOf[d] >= 0) {
      dims.push_back(def.indices[def.indexOf[d]].name);
      dimOf.push_back(d);
    }
  }
  auto *root = llvm::dyn_cast<ReduceExpr>(def.value.get());
  llvm::SmallVector<Dim, 4> shape(dims.size(), Dim::getDynamic());
  mlir::Value values =
      genIndexGen(dims, root, root ? *root->body : *def.value, env, def.loc,
                  Type::tensor(def.boundType.elem, shape));
  if (!values)
    return false;
  // Each part written must lie inside x: at or after its start (an offset
  // `i + -1` wrote before it), and not past its end.
  llvm::SmallVector<mlir::OpFoldResult> sizes(def.subscripts.size(), one);
  for (auto [k, d] : llvm::enumerate(dimOf))
    sizes[d] = mlir::tensor::getMixedSize(builder, l, values, k);
  mlir::Value zero = mlir::arith::ConstantIndexOp::create(builder, l, 0);
  for (unsigned d = 0; d < def.subscripts.size(); ++d) {
    mlir::Value off = mlir::getValueOrCreateConstantIndexOp(builder, l, offsets[d]);
    mlir::cf::AssertOp::create(
        builder, l,
        mlir::arith::CmpIOp::create(builder, l, mlir::arith::CmpIPredicate::sge,
                                    off, zero),
        "the update of '" + def.name + "' starts before dimension " +
            std::to_string(d) + " of its type " + def.boundType.str() +
            " (a negative offset)");
    mlir::Value size = mlir::getValueOrCreateConstantIndexOp(builder, l, sizes[d]);
    mlir::Value end = mlir::arith::AddIOp::create(builder, l, off, size);
    mlir::Value extent = mlir::tensor::DimOp::create(builder, l, x, d);
    mlir::Value fits = mlir::arith::CmpIOp::create(
        builder, l, mlir::arith::CmpIPredicate::ule, end, extent);
    mlir::cf::AssertOp::create(
        builder, l, fits,
        "the update of '" + def.name + "' reaches past dimension " +
            std::to_string(d) + " of its type " + def.boundType.str());
  }
  env[def.name] = mlir::tensor::InsertSliceOp::create(builder, l, values, x,
                                                      offsets, sizes, strides);
  return true;
}

/// A loop bound as an i64, whatever integer type it has.
mlir::Value Generator::genLoopBound(Expr &e, llvm::StringRef var, Env &env) {
  mlir::Value v = gen(e, env);
  if (!v)
    return v;
  return toCheckedI64(v, loc(e.loc),
                      "a bound of the range of '" + var + "' is 2^63 or more");
}

bool Generator::genFor(ForStmt &f, Env &env) {
  mlir::Location l = loc(f.loc);
  mlir::Value lo = genLoopBound(*f.range.lower, f.range.var.name, env);
  mlir::Value hi = genLoopBound(*f.range.upper, f.range.var.name, env);
  if (!lo || !hi)
    return false;
  lo = toIndex(lo, l);
  hi = toIndex(hi, l);
  mlir::Value step = mlir::arith::ConstantIndexOp::create(builder, l, 1);
  // Each carried value has the loop's type for it (wider than the initial
  // value's when sizes change between iterations).
  llvm::SmallVector<std::string> keys;
  llvm::SmallVector<mlir::Type> types;
  expandCarried(f.carried, f.carriedTypes, keys, types);
  llvm::SmallVector<mlir::Value> init;
  for (auto [key, type] : llvm::zip(keys, types))
    init.push_back(castTo(env.lookup(key), type, l));
  auto loop = mlir::scf::ForOp::create(builder, l, lo, hi, step, init);
  mlir::OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(loop.getBody());
  Env inner = env;
  inner[f.range.var.name] = toI64(loop.getInductionVar(), loc(f.range.var.loc));
  for (auto [key, arg] : llvm::zip(keys, loop.getRegionIterArgs()))
    inner[key] = arg;
  if (!genBlock(f.body, inner))
    return false;
  // scf.for built with init values already has a terminator when empty.
  mlir::Block *body = loop.getBody();
  if (!body->empty() && body->back().hasTrait<mlir::OpTrait::IsTerminator>())
    body->back().erase();
  builder.setInsertionPointToEnd(body);
  // A rebound value may have a more or less static shape than the carried
  // one (index notation results know fewer extents).
  llvm::SmallVector<mlir::Value> yielded;
  for (auto [key, type] : llvm::zip(keys, types))
    yielded.push_back(castTo(inner.lookup(key), type, l));
  mlir::scf::YieldOp::create(builder, l, yielded);
  for (auto [key, result] : llvm::zip(keys, loop.getResults()))
    env[key] = result;
  return true;
}

void Generator::expandCarried(llvm::ArrayRef<std::string> names,
                              llvm::ArrayRef<Type> types,
                              llvm::SmallVectorImpl<std::string> &keys,
                              llvm::SmallVectorImpl<mlir::Type> &flat) {
  for (auto [name, type] : llvm::zip(names, types)) {
    if (!type.isModel()) {
      keys.push_back(name);
      flat.push_back(toMLIR(type));
      continue;
    }
    for (const ModelField &f : concrete(type.model)->fields) {
      keys.push_back(name + "." + f.name);
      flat.push_back(toMLIR(f.type.type));
    }
  }
}

bool Generator::genIf(IfStmt &s, Env &env) {
  mlir::Location l = loc(s.loc);
  mlir::Value cond = gen(*s.cond, env);
  if (!cond)
    return false;
  llvm::SmallVector<std::string> keys;
  llvm::SmallVector<mlir::Type> types;
  expandCarried(s.carried, s.carriedTypes, keys, types);
  auto ifOp = mlir::scf::IfOp::create(builder, l, types, cond,
                                      /*withElseRegion=*/true);
  for (int branch = 0; branch < 2; ++branch) {
    mlir::Block *block = branch == 0 ? &ifOp.getThenRegion().front()
                                     : &ifOp.getElseRegion().front();
    if (!block->empty() && block->back().hasTrait<mlir::OpTrait::IsTerminator>())
      block->back().erase();
    mlir::OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToEnd(block);
    Env inner = env;
    if (!genBlock(branch == 0 ? s.thenBody : s.elseBody, inner))
      return false;
    llvm::SmallVector<mlir::Value> yielded;
    for (auto [key, type] : llvm::zip(keys, types))
      yielded.push_back(castTo(inner.lookup(key), type, l));
    mlir::scf::YieldOp::create(builder, l, yielded);
  }
  for (auto [key, result] : llvm::zip(keys, ifOp.getResults()))
    env[key] = result;
  return true;
}

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

mlir::Value Generator::gen(Expr &e, Env &env) {
  // Inside an index_gen region, some expressions are block arguments or
  // values computed before the op.
  for (auto it = indexFrames.rbegin(); it != indexFrames.rend(); ++it) {
    auto found = (*it)->leaves.find(&e);
    if (found != (*it)->leaves.end())
      return found->second;
  }
  mlir::Location l = loc(e.loc);
  switch (e.kind) {
  case Expr::IntLit:
  case Expr::FloatLit:
  case Expr::BoolLit:
    return genConstant(e);
  case Expr::StringLit:
  case Expr::TypeArg:
    fail(e.loc, "a string or type cannot be used as a value here");
    return nullptr;
  case Expr::VarRef: {
    auto &ref = llvm::cast<VarRefExpr>(e);
    if (ref.varKind == VarKind::IndexVar) {
      for (auto it = indexFrames.rbegin(); it != indexFrames.rend(); ++it) {
        auto &dims = (*it)->dims;
        auto pos = llvm::find(dims, ref.name);
        if (pos != dims.end()) {
          // tdsl.index reads the loop of the op right around it: an index
          // is read at the start of its op's region (an outer op's, or
          // outside the scf.if of a lazy `?:`).
          mlir::Value idx;
          {
            mlir::OpBuilder::InsertionGuard guard(builder);
            builder.setInsertionPointToStart((*it)->block);
            idx = t::IndexOp::create(builder, l, builder.getIndexType(),
                                     (int64_t)(pos - dims.begin()));
          }
          if (int64_t first = (*it)->offsetOf(pos - dims.begin()))
            idx = mlir::arith::AddIOp::create(
                builder, l, idx,
                mlir::arith::ConstantIndexOp::create(builder, l, first));
          return toI64(idx, l);
        }
      }
    }
    mlir::Value v = env.lookup(ref.name);
    if (!v)
      fail(e.loc, "internal error: no value for '" + ref.name + "'");
    return v;
  }
  case Expr::Unary: {
    auto &u = llvm::cast<UnaryExpr>(e);
    mlir::Value v = gen(*u.operand, env);
    if (!v)
      return nullptr;
    if (u.op == UnaryOp::Neg)
      return t::NegOp::create(builder, l, toMLIR(e.type), v);
    return t::NotOp::create(builder, l, toMLIR(e.type), v);
  }
  case Expr::Binary:
    return genBinary(llvm::cast<BinaryExpr>(e), env);
  case Expr::Ternary: {
    auto &te = llvm::cast<TernaryExpr>(e);
    mlir::Value c = gen(*te.cond, env);
    if (c && decidedLazy(te))
      return genLazyChoice(
          te, c, [&] { return gen(*te.thenExpr, env); },
          [&] { return gen(*te.elseExpr, env); });
    mlir::Value a = gen(*te.thenExpr, env);
    mlir::Value b = gen(*te.elseExpr, env);
    if (!c || !a || !b)
      return nullptr;
    return t::SelectOp::create(builder, l, toMLIR(e.type), c, a, b);
  }
  case Expr::Call:
    return genCall(llvm::cast<CallExpr>(e), env);
  case Expr::Index:
    return genSubscript(llvm::cast<IndexExpr>(e), env);
  case Expr::TensorLit:
    return genTensorLit(llvm::cast<TensorLitExpr>(e));
  case Expr::Reduce: {
    auto &r = llvm::cast<ReduceExpr>(e);
    return genIndexGen({}, &r, *r.body, env, e.loc, e.type);
  }
  case Expr::ParallelFor:
    return genParallelFor(llvm::cast<ParallelForExpr>(e), env);
  case Expr::Field: {
    auto &f = llvm::cast<FieldExpr>(e);
    if (auto *base = llvm::dyn_cast<VarRefExpr>(f.base.get()))
      return env.lookup(base->name + "." + f.field);
    llvm::SmallVector<mlir::Value> fields;
    if (!genModel(*f.base, env, fields))
      return nullptr;
    return fields[concrete(f.base->type.model)->fieldIndex(f.field)];
  }
  }
  return nullptr;
}

mlir::Value Generator::genConstant(Expr &e) {
  mlir::Location l = loc(e.loc);
  mlir::Type type = elemType(e.type.elem);
  mlir::TypedAttr attr;
  if (auto *b = llvm::dyn_cast<BoolLitExpr>(&e))
    attr = mlir::IntegerAttr::get(type, b->value ? 1 : 0);
  else if (auto *i = llvm::dyn_cast<IntLitExpr>(&e))
    attr = mlir::isa<mlir::FloatType>(type)
               ? (mlir::TypedAttr)mlir::FloatAttr::get(type, (double)i->value)
               : mlir::IntegerAttr::get(
                     type, llvm::APInt(type.getIntOrFloatBitWidth(), i->value,
                                       /*isSigned=*/false,
                                       /*implicitTrunc=*/true));
  else
    attr = mlir::FloatAttr::get(type, llvm::cast<FloatLitExpr>(e).value);
  return t::ConstantOp::create(builder, l, attr);
}

mlir::Value Generator::genBinary(BinaryExpr &e, Env &env) {
  mlir::Location l = loc(e.loc);
  mlir::Value a = gen(*e.lhs, env);
  if (a && decidedLazy(e)) {
    // `a && b` as `a ? b : false`, `a || b` as `a ? true : b`.
    auto rhs = [&] { return gen(*e.rhs, env); };
    auto constant = [&] {
      return (mlir::Value)t::ConstantOp::create(
          builder, l,
          builder.getIntegerAttr(builder.getI1Type(), e.op == BinaryOp::Or));
    };
    return e.op == BinaryOp::And ? genLazyChoice(e, a, rhs, constant)
                                 : genLazyChoice(e, a, constant, rhs);
  }
  mlir::Value b = gen(*e.rhs, env);
  if (!a || !b)
    return nullptr;
  mlir::Type rt = toMLIR(e.type);
  auto cmp = [&](t::CmpPredicate p) -> mlir::Value {
    return t::CmpOp::create(builder, l, rt, p, a, b);
  };
  switch (e.op) {
  case BinaryOp::Add: return t::AddOp::create(builder, l, rt, a, b);
  case BinaryOp::Sub: return t::SubOp::create(builder, l, rt, a, b);
  case BinaryOp::Mul: return t::MulOp::create(builder, l, rt, a, b);
  case BinaryOp::Div: return t::DivOp::create(builder, l, rt, a, b);
  case BinaryOp::Rem: return t::RemOp::create(builder, l, rt, a, b);
  case BinaryOp::And: return t::AndOp::create(builder, l, rt, a, b);
  case BinaryOp::Or: return t::OrOp::create(builder, l, rt, a, b);
  case BinaryOp::MatMul: return t::MatmulOp::create(builder, l, rt, a, b);
  case BinaryOp::Eq: return cmp(t::CmpPredicate::eq);
  case BinaryOp::Ne: return cmp(t::CmpPredicate::ne);
  case BinaryOp::Lt: return cmp(t::CmpPredicate::lt);
  case BinaryOp::Le: return cmp(t::CmpPredicate::le);
  case BinaryOp::Gt: return cmp(t::CmpPredicate::gt);
  case BinaryOp::Ge: return cmp(t::CmpPredicate::ge);
  }
  return nullptr;
}

/// A lazy `?:` (or `&&`, `||`) `e` as an scf.if on `cond`, so that only
/// the chosen side runs. The mark lets tdsl-fold-checks turn it back into a
/// select where neither side can fail any more (its checks all proved), so
/// the loop vectorizes.
mlir::Value Generator::genLazyChoice(const Expr &e, mlir::Value cond,
                                     llvm::function_ref<mlir::Value()> chosen,
                                     llvm::function_ref<mlir::Value()> other) {
  mlir::Location l = loc(e.loc);
  mlir::Type type = toMLIR(e.type);
  auto ifOp = mlir::scf::IfOp::create(builder, l, type, cond,
                                      /*withElseRegion=*/true);
  ifOp->setAttr(kLazySelectAttr, builder.getUnitAttr());
  for (int side = 0; side < 2; ++side) {
    mlir::Block *block = side == 0 ? ifOp.thenBlock() : ifOp.elseBlock();
    mlir::OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToEnd(block);
    mlir::Value v = side == 0 ? chosen() : other();
    if (!v)
      return nullptr;
    mlir::scf::YieldOp::create(builder, l, castTo(v, type, l));
  }
  return ifOp.getResult(0);
}

mlir::Value Generator::genSubscript(IndexExpr &e, Env &env) {
  mlir::Location l = loc(e.loc);
  mlir::Value base = gen(*e.base, env);
  if (!base)
    return nullptr;
  llvm::SmallVector<mlir::Value> idx;
  auto tensorType = mlir::cast<mlir::RankedTensorType>(base.getType());
  for (auto [d, i] : llvm::enumerate(e.indices)) {
    mlir::Value v = gen(*i, env);
    if (!v)
      return nullptr;
    mlir::Value index = toIndex(v, loc(i->loc));
    // A subscript is checked against the extent at run time (a negative one
    // is a huge unsigned value): reading outside a tensor is never silent.
    if (!llvm::isa<IntLitExpr>(i.get()) || tensorType.isDynamicDim(d)) {
      mlir::Location il = loc(i->loc);
      mlir::Value extent =
          tensorType.isDynamicDim(d)
              ? (mlir::Value)mlir::tensor::DimOp::create(builder, il, base, d)
              : (mlir::Value)mlir::arith::ConstantIndexOp::create(
                    builder, il, tensorType.getDimSize(d));
      mlir::Value inRange = mlir::arith::CmpIOp::create(
          builder, il, mlir::arith::CmpIPredicate::ult, index, extent);
      mlir::cf::AssertOp::create(builder, il, inRange, outOfRange(e, d));
    }
    idx.push_back(index);
  }
  return mlir::tensor::ExtractOp::create(builder, l, base, idx);
}

static void flattenLiteral(const Expr &e, llvm::SmallVectorImpl<const Expr *> &out) {
  if (auto *lit = llvm::dyn_cast<TensorLitExpr>(&e)) {
    for (auto &el : lit->elements)
      flattenLiteral(*el, out);
    return;
  }
  out.push_back(&e);
}

mlir::Value Generator::genTensorLit(TensorLitExpr &e) {
  auto type = mlir::cast<mlir::RankedTensorType>(toMLIR(e.type));
  llvm::SmallVector<const Expr *> leaves;
  flattenLiteral(e, leaves);
  llvm::SmallVector<mlir::Attribute> values;
  mlir::Type et = type.getElementType();
  for (const Expr *leaf : leaves) {
    bool neg = false;
    if (auto *u = llvm::dyn_cast<UnaryExpr>(leaf)) {
      neg = true;
      leaf = u->operand.get();
    }
    double d = 0;
    uint64_t i = 0;
    if (auto *il = llvm::dyn_cast<IntLitExpr>(leaf))
      i = il->value, d = (double)il->value;
    else if (auto *fl = llvm::dyn_cast<FloatLitExpr>(leaf))
      d = fl->value;
    else if (auto *bl = llvm::dyn_cast<BoolLitExpr>(leaf))
      i = bl->value, d = bl->value;
    if (mlir::isa<mlir::FloatType>(et))
      values.push_back(mlir::FloatAttr::get(et, neg ? -d : d));
    else
      values.push_back(mlir::IntegerAttr::get(
          // Negated in unsigned arithmetic: -9223372036854775808 is a
          // literal 2^63 negated, which int64_t cannot negate.
          et, llvm::APInt(et.getIntOrFloatBitWidth(), neg ? uint64_t(0) - i : i,
                          /*isSigned=*/false, /*implicitTrunc=*/true)));
  }
  return t::ConstantOp::create(
      builder, loc(e.loc), mlir::DenseElementsAttr::get(type, values));
}

/// Whether `e` reads one of the loop variables `dims`.
static bool mentionsLoop(Expr &e, llvm::ArrayRef<std::string> dims) {
  bool found = false;
  std::function<void(Expr &)> walk = [&](Expr &x) {
    if (auto *ref = llvm::dyn_cast<VarRefExpr>(&x))
      found |= ref->varKind == VarKind::LoopVar && llvm::is_contained(dims, ref->name);
    forEachExprChild(x, walk);
  };
  walk(e);
  return found;
}

/// Whether `e` is a scalar expression of element reads, scalars, operators
/// and element-wise built-ins: a map over the loops, as index notation
/// writes it. Whole tensors, calls of user functions, random numbers and
/// nested loops or reductions are not (they stay a parallel_for body).
static bool isScalarMap(Expr &e) {
  bool ok = true;
  std::function<void(Expr &)> walk = [&](Expr &x) {
    ok &= x.type.isScalar();
    switch (x.getKind()) {
    case Expr::IntLit:
    case Expr::FloatLit:
    case Expr::BoolLit:
    case Expr::VarRef:
      break;
    case Expr::Unary:
    case Expr::Ternary:
      forEachExprChild(x, walk);
      break;
    case Expr::Binary:
      ok &= llvm::cast<BinaryExpr>(x).op != BinaryOp::MatMul;
      forEachExprChild(x, walk);
      break;
    case Expr::Index: { // the base is a tensor: only the subscripts recurse
      auto &ix = llvm::cast<IndexExpr>(x);
      auto *base = llvm::dyn_cast<VarRefExpr>(ix.base.get());
      ok &= base && base->type.isTensor &&
            base->type.shape.size() == ix.indices.size();
      for (ExprPtr &i : ix.indices)
        walk(*i);
      break;
    }
    case Expr::Call: {
      auto &call = llvm::cast<CallExpr>(x);
      BuiltinKind kind = call.builtin == Builtin::None
                             ? BuiltinKind::Print
                             : getBuiltinInfo(call.builtin).kind;
      ok &= !call.target && (kind == BuiltinKind::FloatMath ||
                             kind == BuiltinKind::NumericMath ||
                             kind == BuiltinKind::Binary ||
                             kind == BuiltinKind::Convert);
      for (CallArg &a : call.args)
        walk(*a.value);
      break;
    }
    default:
      ok = false;
    }
  };
  walk(e);
  return ok;
}

/// A body of nothing but `yield` of an expression with a reduction over the
/// loops' values (a convolution: `parallel for n, k, y, x { yield sum(c, dy,
/// dx) w[k, c, dy, dx] * img[n, c, y + dy, x + dx] }`) is index notation
/// over the loops: one index_gen with affine maps, which fusion, tiling and
/// `grad` handle as a whole (a parallel_for with an op inside its body is
/// opaque to them). So is a yield of a scalar map (`yield x[i + 1] - x[i]`):
/// its offset reads become inputs with affine maps, checked once before the
/// loops, whose adjoints `grad` solves for the loop (a stencil's adjoint is
/// a stencil, not a gather over the whole tensor per point). The loop
/// variables become that op's indices, and the loops' extents its result's
/// shape. Null when the loop is not of that form.
mlir::Value Generator::genParallelForAsIndexGen(ParallelForExpr &e, Env &env) {
  if (e.reduce != LoopReduce::None || e.body.size() != 1 ||
      !llvm::isa<YieldStmt>(e.body.front().get()))
    return nullptr;
  std::vector<std::string> dims;
  llvm::SmallVector<int64_t> offsets;
  for (LoopRange &r : e.ranges) {
    // From a literal: the op's index counts from 0, the loop variable is
    // that plus the literal (a stencil's interior, `i in 1..n - 1`).
    auto *lo = llvm::dyn_cast<IntLitExpr>(r.lower.get());
    if (!lo || lo->value >= (uint64_t(1) << 31))
      return nullptr;
    dims.push_back(r.var.name);
    offsets.push_back(int64_t(lo->value));
  }
  if (llvm::all_of(offsets, [](int64_t o) { return o == 0; }))
    offsets.clear();
  // Measured on PolyBench's stencils (1 thread): where the tensors read
  // have sizes known only at run time (`?`), index notation ran jacobi-2d's
  // sweep 7x and fdtd-2d's 2.3x faster than the loop, whose every read is
  // checked; where they are static or symbolic the loop's code was faster
  // (fdtd-2d's `i in 1..nx` update 391-519 against 578 us a sweep), so
  // there a loop from a literal other than 0 stays a loop.
  if (!offsets.empty()) {
    bool runTimeSizes = false;
    std::function<void(Expr &)> walk = [&](Expr &x) {
      if (auto *ix = llvm::dyn_cast<IndexExpr>(&x))
        runTimeSizes |= llvm::any_of(ix->base->type.shape,
                                     [](const Dim &d) { return d.isDynamic(); });
      forEachExprChild(x, walk);
    };
    walk(*llvm::cast<YieldStmt>(e.body.front().get())->value);
    if (!runTimeSizes)
      return nullptr;
  }
  Expr &value = *llvm::cast<YieldStmt>(e.body.front().get())->value;
  // The yield is one reduction with none nested in it (a nested one would
  // be an op of its own, over its tensors' extents rather than the loops'),
  // reading the loops' values, and no reduction index hides a loop variable.
  auto *root = llvm::dyn_cast<ReduceExpr>(&value);
  bool map = !root && e.type.shape.size() == dims.size() && isScalarMap(value);
  if (!root && !map)
    return nullptr;
  bool reduces = map, clash = false;
  std::function<void(Expr &, bool)> scan = [&](Expr &x, bool inReduce) {
    if (auto *r = llvm::dyn_cast<ReduceExpr>(&x)) {
      for (const IndexVarDecl &v : r->indices)
        clash |= llvm::is_contained(dims, v.name);
      clash |= r != root;
      // A written range that varies with a loop (`sum(k in 0..i)`, a
      // triangle) is no box of loops.
      for (const ExprPtr &hi : r->uppers)
        if (hi)
          clash |= mentionsLoop(*hi, dims);
      inReduce = true;
    }
    if (auto *ref = llvm::dyn_cast<VarRefExpr>(&x))
      reduces |= inReduce && ref->varKind == VarKind::LoopVar &&
                 llvm::is_contained(dims, ref->name);
    if (llvm::isa<ParallelForExpr>(&x))
      clash = true;
    forEachExprChild(x, [&](Expr &c) { scan(c, inReduce); });
  };
  scan(value, false);
  if (!reduces || clash)
    return nullptr;
  std::function<void(Expr &)> mark = [&](Expr &x) {
    if (auto *ref = llvm::dyn_cast<VarRefExpr>(&x);
        ref && ref->varKind == VarKind::LoopVar &&
        llvm::is_contained(dims, ref->name))
      ref->varKind = VarKind::IndexVar;
    forEachExprChild(x, mark);
  };
  mark(value);
  // The result's shape: the loops' extents (0 where an upper bound is
  // negative, as the loop would run no iteration).
  mlir::Location l = loc(e.loc);
  auto type = mlir::cast<mlir::RankedTensorType>(toMLIR(e.type));
  llvm::SmallVector<mlir::Value> sizes, extents;
  mlir::Value zero = mlir::arith::ConstantIndexOp::create(builder, l, 0);
  for (auto [d, r] : llvm::enumerate(e.ranges)) {
    mlir::Value hi = genLoopBound(*r.upper, r.var.name, env);
    if (!hi)
      return nullptr;
    mlir::Value count = toIndex(hi, l);
    if (!offsets.empty() && offsets[d])
      count = mlir::arith::SubIOp::create(
          builder, l, count,
          mlir::arith::ConstantIndexOp::create(builder, l, offsets[d]));
    extents.push_back(mlir::arith::MaxSIOp::create(builder, l, count, zero));
    if (type.isDynamicDim(d))
      sizes.push_back(extents.back());
  }
  mlir::Value shape = mlir::tensor::EmptyOp::create(
      builder, l, type.getShape(), type.getElementType(), sizes);
  return genIndexGen(dims, root, root ? *root->body : value, env, e.loc,
                     e.type, shape, extents, e.type.shape, offsets);
}

mlir::Value Generator::genParallelFor(ParallelForExpr &e, Env &env) {
  if (mlir::Value v = genParallelForAsIndexGen(e, env))
    return v;
  if (failed)
    return nullptr;
  mlir::Location l = loc(e.loc);
  llvm::SmallVector<mlir::Value> lbs, ubs;
  for (LoopRange &r : e.ranges) {
    mlir::Value lo = genLoopBound(*r.lower, r.var.name, env);
    mlir::Value hi = genLoopBound(*r.upper, r.var.name, env);
    if (!lo || !hi)
      return nullptr;
    // hi - lo must not wrap: -2^62..2^62 was taken for an empty range.
    if (!llvm::isa<IntLitExpr>(r.lower.get())) {
      mlir::Value count = mlir::arith::SubIOp::create(builder, l, hi, lo);
      mlir::Value zero = mlir::arith::ConstantOp::create(
          builder, l, builder.getIntegerAttr(hi.getType(), 0));
      mlir::Value wraps = mlir::arith::AndIOp::create(
          builder, l,
          mlir::arith::CmpIOp::create(builder, l, mlir::arith::CmpIPredicate::sgt, hi, lo),
          mlir::arith::CmpIOp::create(builder, l, mlir::arith::CmpIPredicate::slt, count, zero));
      mlir::Value ok = mlir::arith::XOrIOp::create(
          builder, l, wraps,
          mlir::arith::ConstantOp::create(builder, l, builder.getBoolAttr(true)));
      mlir::cf::AssertOp::create(builder, loc(r.var.loc), ok,
                                 "the range of '" + r.var.name +
                                     "' has more than 2^63 - 1 values");
    }
    lbs.push_back(toIndex(lo, l));
    ubs.push_back(toIndex(hi, l));
  }
  t::ReduceKind kind = t::ReduceKind::none;
  switch (e.reduce) {
  case LoopReduce::None: break;
  case LoopReduce::Add: kind = t::ReduceKind::add; break;
  case LoopReduce::Mul: kind = t::ReduceKind::mul; break;
  case LoopReduce::Max: kind = t::ReduceKind::max; break;
  case LoopReduce::Min: kind = t::ReduceKind::min; break;
  }
  auto op =
      t::ParallelForOp::create(builder, l, toMLIR(e.type), lbs, ubs, kind);
  mlir::OpBuilder::InsertionGuard guard(builder);
  mlir::Block *body = &op.getRegion().front();
  builder.setInsertionPointToStart(body);
  Env inner = env;
  for (unsigned i = 0; i < e.ranges.size(); ++i)
    inner[e.ranges[i].var.name] =
        toI64(body->getArgument(i), loc(e.ranges[i].var.loc));
  // Index notation does not reach into the body.
  std::vector<IndexFrame *> saved;
  saved.swap(indexFrames);
  bool ok = genBlock(e.body, inner);
  mlir::Value y;
  if (ok) {
    auto *yield = llvm::cast<YieldStmt>(e.body.back().get());
    y = gen(*yield->value, inner);
    if (y)
      t::YieldOp::create(builder, loc(yield->loc), y);
  }
  indexFrames.swap(saved);
  if (!y)
    return nullptr;
  return op.getResult();
}

llvm::SmallVector<mlir::Value>
Generator::dynamicSizes(const Type &spec, Env &env, mlir::Location l) {
  llvm::SmallVector<mlir::Value> sizes;
  for (const Dim &d : spec.shape)
    if (!d.isStatic()) {
      mlir::Value n = env.lookup(d.symbol);
      bool isUnsigned = n.getType().isUnsignedInteger();
      n = toCheckedI64(n, l, "the size '" + d.symbol + "' is 2^63 or more");
      if (!isUnsigned) {
        mlir::Value zero = mlir::arith::ConstantOp::create(
            builder, l, builder.getIntegerAttr(n.getType(), 0));
        mlir::Value ok = mlir::arith::CmpIOp::create(
            builder, l, mlir::arith::CmpIPredicate::sge, n, zero);
        mlir::cf::AssertOp::create(builder, l, ok,
                                   "the size '" + d.symbol + "' is negative");
      }
      sizes.push_back(toIndex(n, l));
    }
  if (sizes.empty())
    return sizes;
  // The byte count must fit in an i64: [2^32, 2^32] wrapped to 0 elements,
  // and a sum over them fused away the buffer and gave 0.
  auto type = mlir::cast<mlir::RankedTensorType>(toMLIR(spec));
  mlir::Type i64 = builder.getI64Type();
  int64_t bytes = std::max<int64_t>(
      (type.getElementType().getIntOrFloatBitWidth() + 7) / 8, 1);
  for (int64_t d : type.getShape())
    if (!mlir::ShapedType::isDynamic(d))
      bytes = llvm::MulOverflow(bytes, d, bytes) ? INT64_MAX : bytes;
  mlir::Value total = mlir::arith::ConstantIntOp::create(builder, l, i64, bytes);
  mlir::Value zero = mlir::arith::ConstantIntOp::create(builder, l, i64, 0);
  mlir::Value fits = mlir::arith::ConstantIntOp::create(builder, l, builder.getI1Type(), 1);
  for (mlir::Value n : sizes) {
    // A negative size has its own error, above.
    mlir::Value count = mlir::arith::MaxSIOp::create(
        builder, l, mlir::arith::IndexCastOp::create(builder, l, i64, n), zero);
    auto product = mlir::arith::MulUIExtendedOp::create(builder, l, total, count);
    fits = mlir::arith::AndIOp::create(
        builder, l, fits,
        mlir::arith::CmpIOp::create(builder, l, mlir::arith::CmpIPredicate::eq,
                                    product.getHigh(), zero));
    total = product.getLow();
  }
  fits = mlir::arith::AndIOp::create(
      builder, l, fits,
      mlir::arith::CmpIOp::create(builder, l, mlir::arith::CmpIPredicate::sge,
                                  total, zero));
  mlir::cf::AssertOp::create(builder, l, fits,
                             "this tensor's sizes multiply to more than 2^63 "
                             "bytes: it cannot be allocated");
  return sizes;
}

/// The arguments of a call of `fn`, each cast to its parameter's type.
bool Generator::genArgs(llvm::ArrayRef<CallArg> args, FunctionDecl &fn,
                        Env &env, mlir::Location l,
                        llvm::SmallVectorImpl<mlir::Value> &out) {
  for (auto [arg, param] : llvm::zip(args, fn.params)) {
    if (param.type.type.isModel()) {
      if (!genModel(*arg.value, env, out))
        return false;
      continue;
    }
    mlir::Value v = gen(*arg.value, env);
    if (!v)
      return false;
    out.push_back(castTo(v, toMLIR(param.type.type), l));
  }
  return true;
}

mlir::Value Generator::genCall(CallExpr &e, Env &env) {
  if (e.builtin != Builtin::None)
    return genBuiltin(e, env);
  llvm::SmallVector<mlir::Value, 1> results;
  if (!genUserCall(e, env, results))
    return nullptr;
  if (results.empty())
    return mlir::Value();
  return castTo(results.front(), toMLIR(e.type), loc(e.loc));
}
