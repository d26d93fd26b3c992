//===- Generator.h - The generator shared by MLIRGen's files ---*- C++ -*-===//
//
// Internal to MLIRGen: the state of one lowering of a checked program to the
// tdsl dialect, split over MLIRGen.cpp (functions, statements, expressions),
// MLIRGenIndex.cpp (index notation) and MLIRGenBuiltins.cpp (built-ins).
//
//===----------------------------------------------------------------------===//
#ifndef TDSL_MLIRGEN_GENERATOR_H
#define TDSL_MLIRGEN_GENERATOR_H

#include "compiler/Frontend/Sema.h"
#include "dialects/TDSL/IR/TDSLOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

namespace tdsl::mlirgen {

/// Calls `fn` on each expression directly inside `e`.
void forEachExprChild(Expr &e, llvm::function_ref<void(Expr &)> fn);

using llvm::SMLoc;
using llvm::StringRef;
namespace t = tdsl::ir;


using Env = llvm::StringMap<mlir::Value>;

/// The loops of one tdsl.index_gen under construction.
/// A read that an input of an index_gen makes on every iteration but that
/// no subscript check covers: it must be in range unless no iteration runs.
struct PendingGuard {
  mlir::Value tensor;
  unsigned dim;
  /// The subscript: a value, or (when null) `affine` of the loops, whose
  /// largest value over the loops (its coefficients are not negative) is
  /// checked.
  mlir::Value index;
  std::string message;
  mlir::Location loc;
  mlir::AffineExpr affine = {};
};

struct IndexFrame {
  std::vector<std::string> dims;
  /// Values that stand for expressions inside the region (block arguments,
  /// or values computed outside and captured).
  llvm::DenseMap<const Expr *, mlir::Value> leaves;
  std::vector<PendingGuard> guards;
  /// The op's region, once built: an index of this frame read inside a
  /// nested op is made here, where it means this op's loop.
  mlir::Block *block = nullptr;
  /// The expression the op computes.
  const Expr *body = nullptr;
  /// How many leading loops take their extents from the op's result (an
  /// update of an existing tensor).
  unsigned numShaped = 0;
  /// Loops whose range is written out (`max(di in 0..2)`).
  llvm::SmallVector<bool> explicitRange;
  /// For a parallel for generated as index notation, the extent of each of
  /// its loops (the leading ones), and of a reduction's written ranges (null
  /// for other loops). A tensor read directly at such a loop is read
  /// through its first `extent` rows, which may be fewer than it has.
  llvm::SmallVector<mlir::Value> loopExtents;
  /// Those extents as Sema knows them: a tensor whose dimension is known to
  /// be the same (`n in 0..N` reading `x: f32[N, C]`) is read whole.
  llvm::SmallVector<Dim> loopDims;
  /// For a parallel for from literal lower bounds, each loop's first value
  /// (the op's indices count from 0; a loop variable is its index plus
  /// this). Empty otherwise.
  llvm::SmallVector<int64_t> offsets;
  int64_t offsetOf(unsigned d) const {
    return d < offsets.size() ? offsets[d] : 0;
  }
  /// How many lazy `?:` sides the walk is inside: what may fail there is
  /// read inside the region, under the condition, not before the op.
  unsigned lazySides = 0;
};

/// How a subscript of a tensor read inside index notation is generated.
enum class SubscriptKind {
  Direct,    // an index variable of the op: an affine map result
  Constant,  // an integer literal: an affine constant
  Affine,    // a sum of indices times literals plus a literal (`y + dy`,
             // `2 * y + dy`): an affine map result, checked before the op
  Invariant, // no index variable of the op: computed once, before the op
  Computed,  // computed from index variables: read inside the region
};

class Generator {
public:
  Generator(mlir::MLIRContext &ctx, Program &program, DiagEngine &diags)
      : ctx(ctx), program(program), diags(diags), builder(&ctx) {}

  mlir::OwningOpRef<mlir::ModuleOp> run();

private:
  // Locations and types.
  mlir::Location loc(SMLoc l);
  mlir::Type elemType(ElemKind k);
  mlir::Type toMLIR(const Type &t);
  mlir::Value castTo(mlir::Value v, mlir::Type to, mlir::Location l);
  mlir::Value toIndex(mlir::Value v, mlir::Location l) {
    return castTo(v, builder.getIndexType(), l);
  }
  mlir::Value toI64(mlir::Value v, mlir::Location l) {
    return castTo(v, builder.getI64Type(), l);
  }
  mlir::Value toCheckedI64(mlir::Value v, mlir::Location l, const llvm::Twine &tooLarge);
  void checkSymbolicDims(mlir::Value v, const Type &type, Env &env,
                         mlir::Location l, llvm::StringRef what);
  bool fail(SMLoc l, const llvm::Twine &msg) {
    diags.error(l, msg);
    failed = true;
    return false;
  }

  // Declarations and statements.
  void genFunction(FunctionDecl &fn, llvm::StringRef symName = {});
  bool genBlock(StmtList &body, Env &env);
  bool genStmt(Stmt &s, Env &env);
  bool genUpdate(IndexDefStmt &def, Env &env);
  bool genOffsetUpdate(IndexDefStmt &def, Env &env);
  bool genFor(ForStmt &f, Env &env);
  mlir::Value genLoopBound(Expr &e, llvm::StringRef var, Env &env);
  bool genIf(IfStmt &s, Env &env);

  // Expressions.
  mlir::Value gen(Expr &e, Env &env);
  mlir::Value genConstant(Expr &e);
  mlir::Value genBinary(BinaryExpr &e, Env &env);
  mlir::Value genCall(CallExpr &e, Env &env);
  bool genArgs(llvm::ArrayRef<CallArg> args, FunctionDecl &fn, Env &env,
               mlir::Location l, llvm::SmallVectorImpl<mlir::Value> &out);
  mlir::Value genBuiltin(CallExpr &e, Env &env);
  mlir::Value genMathBuiltin(CallExpr &e, Env &env);
  mlir::Value genReduceAll(CallExpr &e, Env &env);
  mlir::Value genFill(CallExpr &e, Env &env);
  mlir::Value genRandom(CallExpr &e, Env &env);
  void genPrint(CallExpr &e, Env &env);
  mlir::Value genGrad(CallExpr &e, Env &env);
  mlir::Value mathOp(Builtin op, mlir::Location l, mlir::Type rt,
                     llvm::ArrayRef<mlir::Value> args);
  bool genUserCall(CallExpr &e, Env &env,
                   llvm::SmallVectorImpl<mlir::Value> &out);
  bool genGradValues(CallExpr &e, Env &env,
                     llvm::SmallVectorImpl<mlir::Value> &out);

  // Models (MLIRGenModels.cpp): one value per field.
  const ModelDecl *concrete(const ModelDecl *m) const;
  void flatTypes(const Type &t, llvm::SmallVectorImpl<mlir::Type> &out);
  void bindValues(Env &env, llvm::StringRef name, const Type &t,
                  llvm::ArrayRef<mlir::Value> values);
  void lookupValues(Env &env, llvm::StringRef name, const Type &t,
                    llvm::SmallVectorImpl<mlir::Value> &out);
  bool genValues(Expr &e, Env &env, llvm::SmallVectorImpl<mlir::Value> &out);
  bool genCollective(CallExpr &e, llvm::ArrayRef<mlir::Value> values, Env &env,
                     llvm::SmallVectorImpl<mlir::Value> &out);
  bool genModel(Expr &e, Env &env, llvm::SmallVectorImpl<mlir::Value> &out);
  bool modelOperand(Expr &e, const ModelDecl &m, Env &env,
                    llvm::SmallVectorImpl<mlir::Value> &out);
  bool genFieldwise(
      llvm::ArrayRef<Expr *> operands, const ModelDecl &m, mlir::Location l,
      Env &env, llvm::SmallVectorImpl<mlir::Value> &out,
      llvm::function_ref<mlir::Value(mlir::Type, llvm::ArrayRef<mlir::Value>)>
          op);
  bool genModelCall(CallExpr &e, const ModelDecl &m, Env &env,
                    llvm::SmallVectorImpl<mlir::Value> &out);
  bool genModelInit(CallExpr &e, const ModelDecl &m, Env &env,
                    llvm::SmallVectorImpl<mlir::Value> &out);
  std::string instantiate(FunctionDecl &fn,
                          llvm::ArrayRef<const ModelDecl *> typeArgs);
  /// The names and types a `for` or `if` carries, a model's per field.
  void expandCarried(llvm::ArrayRef<std::string> names,
                     llvm::ArrayRef<Type> types,
                     llvm::SmallVectorImpl<std::string> &keys,
                     llvm::SmallVectorImpl<mlir::Type> &flat);
  mlir::Value genTensorLit(TensorLitExpr &e);
  mlir::Value genParallelFor(ParallelForExpr &e, Env &env);
  mlir::Value genParallelForAsIndexGen(ParallelForExpr &e, Env &env);
  mlir::Value genSubscript(IndexExpr &e, Env &env);
  llvm::SmallVector<mlir::Value> dynamicSizes(const Type &spec, Env &env,
                                              mlir::Location l);

  // Index notation.
  mlir::Value genIndexGen(llvm::ArrayRef<std::string> parallelDims,
                          const ReduceExpr *root, Expr &body, Env &env,
                          SMLoc at, const Type &resultType,
                          mlir::Value shapeSource = {},
                          llvm::ArrayRef<mlir::Value> loopExtents = {},
                          llvm::ArrayRef<Dim> loopDims = {},
                          llvm::ArrayRef<int64_t> offsets = {});
  bool collectInputs(Expr &e, IndexFrame &frame, Env &env,
                     llvm::SmallVectorImpl<mlir::Value> &inputs,
                     llvm::SmallVectorImpl<mlir::AffineMap> &maps,
                     llvm::SmallVectorImpl<const Expr *> &inputExprs);
  bool collectAccess(IndexExpr &e, IndexFrame &frame, Env &env,
                     llvm::SmallVectorImpl<mlir::Value> &inputs,
                     llvm::SmallVectorImpl<mlir::AffineMap> &maps,
                     llvm::SmallVectorImpl<const Expr *> &inputExprs);
  bool addWrittenRanges(const ReduceExpr &root, unsigned first,
                        IndexFrame &frame,
                        llvm::SmallVectorImpl<mlir::Value> &inputs,
                        llvm::SmallVectorImpl<mlir::AffineMap> &maps,
                        llvm::SmallVectorImpl<const Expr *> &inputExprs);
  bool addWrittenExtents(const ReduceExpr &root, IndexFrame &frame, Env &env);
  bool addRangeCarriers(Expr &e, IndexFrame &frame, Env &env,
                        llvm::SmallVectorImpl<mlir::Value> &inputs,
                        llvm::SmallVectorImpl<mlir::AffineMap> &maps,
                        llvm::SmallVectorImpl<const Expr *> &inputExprs);
  void emitExtentChecks(IndexFrame &frame, llvm::ArrayRef<mlir::Value> inputs,
                        llvm::ArrayRef<mlir::AffineMap> maps,
                        llvm::ArrayRef<const Expr *> inputExprs,
                        mlir::Location l);
  void emitGuards(IndexFrame &frame, llvm::ArrayRef<mlir::Value> inputs,
                  llvm::ArrayRef<mlir::AffineMap> maps, mlir::Location l);
  bool usesIndex(const Expr &e, const IndexFrame &frame) const;
  bool safeSubscript(const IndexExpr &e, unsigned d,
                     const IndexFrame &frame) const;
  bool mayFail(const Expr &e, const IndexFrame *frame,
               const Expr *done = nullptr) const;
  bool isLazy(const Expr &e, const IndexFrame *frame) const;
  bool decidedLazy(const Expr &e) const;
  mlir::Value genLazyChoice(const Expr &e, mlir::Value cond,
                            llvm::function_ref<mlir::Value()> chosen,
                            llvm::function_ref<mlir::Value()> other);
  SubscriptKind classify(const Expr &s, const IndexFrame &frame) const;
  std::optional<unsigned> directDim(const Expr &s, const IndexFrame &frame) const;
  std::optional<mlir::AffineExpr> affineSubscript(const Expr &s,
                                                  const IndexFrame &frame) const;
  /// Names the dimension, not a value: "subscript 0" read as the value 0.
  std::string outOfRange(const IndexExpr &e, unsigned d) const {
    return "the subscript of dimension " + std::to_string(d) +
           " is out of range for a tensor of type " + e.base->type.str();
  }

  mlir::MLIRContext &ctx;
  Program &program;
  DiagEngine &diags;
  mlir::OpBuilder builder;
  mlir::ModuleOp module;
  FunctionDecl *currentFn = nullptr;
  /// While a generic function is generated: the model each of its type
  /// parameters stands for.
  llvm::DenseMap<const ModelDecl *, const ModelDecl *> subst;
  llvm::StringSet<> instances;
  std::vector<IndexFrame *> indexFrames;
  /// Whether each `?:`, `&&` and `||` walked by collectInputs is lazy:
  /// gen() must agree with what was (not) computed before the op.
  llvm::DenseMap<const Expr *, bool> lazyChoices;
  bool failed = false;
};

} // namespace tdsl::mlirgen

#endif // TDSL_MLIRGEN_GENERATOR_H
