//===- SemaChecker.h - The checker shared by Sema's files ------*- C++ -*-===//
//
// Internal to the front end: the state of one walk over a program, split
// over Sema.cpp (declarations, statements, expressions, calls),
// SemaIndex.cpp (index notation) and SemaBuiltins.cpp (built-in functions).
//
//===----------------------------------------------------------------------===//
#ifndef TDSL_FRONTEND_SEMACHECKER_H
#define TDSL_FRONTEND_SEMACHECKER_H

#include "compiler/Frontend/Sema.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

namespace tdsl::sema {

using llvm::SMLoc;
using llvm::StringRef;
using llvm::Twine;

inline ElemKind defaultKind(ElemKind k) {
  if (k == ElemKind::IntLit)
    return ElemKind::I64;
  if (k == ElemKind::FloatLit)
    return ElemKind::F32;
  return k;
}

inline bool isLiteralKind(ElemKind k) {
  return k == ElemKind::IntLit || k == ElemKind::FloatLit;
}

/// Both of the same kind of model, or neither a model.
inline bool sameModel(const Type &a, const Type &b) {
  return a.isModel() == b.isModel() && (!a.isModel() || a.model == b.model);
}

struct VarInfo {
  Type type;
  SMLoc loc;
  VarKind kind = VarKind::Local;
  bool used = false;
  /// How many parallel-for bodies enclose the declaration.
  unsigned parallelDepth = 0;
  /// A shadow is the current value of a name declared in an enclosing block
  /// (scope `originDepth`) and rebound in this one: it carries the type of
  /// that value for the rest of the block.
  bool shadow = false;
  size_t originDepth = 0;
};

/// An enclosing `for` or `if` that collects rebound outer names.
struct ControlFrame {
  size_t scopeDepth;
  std::vector<std::string> *carried;
  /// The type of each carried name where the loop or `if` starts.
  llvm::StringMap<Type> entryTypes;
};


/// What index notation has learned about one index variable.
struct IndexInfo {
  bool known = false;
  Dim extent;
  SMLoc useLoc;
  std::string tensorType;
};

class Checker {
public:
  Checker(Program &program, DiagEngine &diags) : program(program), diags(diags) {}
  bool run();

private:
  // Declarations.
  void collectFunctions(ModuleAST &module);
  void collectModels(ModuleAST &module);
  void checkModelDecl(ModelDecl &m);
  void checkTypeParams(FunctionDecl &fn);
  const ModelDecl *lookupModel(StringRef name);
  std::string qualified(StringRef name) const;
  bool resolveModel(Type &t, SMLoc loc);
  unsigned typeParamIndex(const FunctionDecl &fn, const ModelDecl *m);
  bool bindTypeParam(Expr &arg, const Param &p, const FunctionDecl &fn,
                     StringRef argDesc, std::vector<const ModelDecl *> &typeArgs);
  void checkSignature(FunctionDecl &fn);
  void checkFunction(FunctionDecl &fn);

  // Statements.
  void checkBlock(StmtList &body, bool isFunctionBody, bool isParallelBody,
                  Type *yieldType);
  void checkStmt(Stmt &stmt);
  void checkLet(LetStmt &let);
  void checkFieldAssign(LetStmt &let);
  void checkIndexDef(IndexDefStmt &def);
  bool checkUpdateTarget(IndexDefStmt &def, VarInfo *target);
  bool classifySubscripts(IndexDefStmt &def);
  bool checkPositions(IndexDefStmt &def, const Type &targetType);
  std::vector<std::string> declareIndices(IndexDefStmt &def,
                                          const Type &targetType, bool ok);
  bool indexRanges(IndexDefStmt &def, const Type &targetType, bool ok,
                   llvm::SmallVectorImpl<Dim> &shape);
  void checkFor(ForStmt &f);
  void checkIf(IfStmt &s);
  void bind(StringRef name, const Type &type, SMLoc loc);
  void setVisibleType(StringRef name, const Type &type);
  Type visibleType(StringRef name);

  // Expressions.
  Type check(Expr &e);
  Type checkVarRef(VarRefExpr &e);
  Type checkUnary(UnaryExpr &e);
  Type checkBinary(BinaryExpr &e);
  Type checkTernary(TernaryExpr &e);
  Type checkField(FieldExpr &e);
  Type checkModelOperands(Expr &a, Expr &b, SMLoc loc, StringRef what);
  Type checkModelBinary(BinaryExpr &e);
  Type checkModelCreation(CallExpr &e, const ModelDecl &m);
  Type checkCall(CallExpr &e);
  Type checkUserCall(CallExpr &e, FunctionDecl &fn);
  Type matchCall(SMLoc loc, llvm::MutableArrayRef<CallArg> args,
                 FunctionDecl &fn, bool argsOk,
                 std::vector<const ModelDecl *> &typeArgs,
                 bool widenFirst = true);
  FunctionDecl *lookupFunction(StringRef name);
  Type checkBuiltin(CallExpr &e);
  void reportBuiltinArity(CallExpr &e, unsigned lo, unsigned hi);
  bool builtinValueArg(CallExpr &e, size_t i, StringRef what);
  Type checkMathBuiltin(CallExpr &e);
  Type checkBinaryBuiltin(CallExpr &e);
  Type checkReduceBuiltin(CallExpr &e);
  Type checkConversion(CallExpr &e);
  Type checkFill(CallExpr &e);
  Type checkArange(CallExpr &e);
  Type checkRandom(CallExpr &e);
  Type checkDimBuiltin(CallExpr &e);
  Type checkPrint(CallExpr &e);
  Type checkLoad(CallExpr &e);
  Type checkSave(CallExpr &e);
  Type checkAssert(CallExpr &e);
  Type checkWorld(CallExpr &e);
  void checkCollectiveCalls();
  Type checkCollective(CallExpr &e);
  Type checkGrad(CallExpr &e);
  Type checkGradOf(CallExpr &e, FunctionDecl &fn);
  const VarRefExpr *moduleOfField(const Expr &e);
  Type checkIndex(IndexExpr &e);
  Type checkTensorLit(TensorLitExpr &e);
  Type checkReduce(ReduceExpr &e);
  void warnConstantTerms(ReduceExpr &e);
  Type checkParallelFor(ParallelForExpr &e);
  bool checkRangeBound(Expr &e);
  Dim rangeExtent(const LoopRange &r);
  Dim rangeExtent(const Expr &lower, const Expr &upper, SMLoc at);
  Type broadcast(const Type &a, const Type &b, ElemKind elem, SMLoc loc,
                 StringRef what);
  bool unifyElem(Expr &lhs, Expr &rhs, ElemKind &out, SMLoc loc, StringRef what);
  bool resolveTypeArg(Type &t, SMLoc loc, bool allowDynamic);
  bool expectScalarInt(Expr &e, StringRef what);
  bool coerce(Expr &e, ElemKind target, StringRef what);

  // Literal typing.
  void checkFloatRange(SMLoc loc, double value, ElemKind kind);
  void settle(Expr &e, ElemKind kind, bool negated = false);
  void settleDefault(Expr &e) { settle(e, defaultKind(e.type.elem)); }
  void retypeTensorLit(TensorLitExpr &e, ElemKind kind);

  // Scopes.
  void pushScope() { scopes.emplace_back(); }
  void popScope();
  VarInfo *lookup(StringRef name, size_t *depth = nullptr);
  void declare(StringRef name, VarInfo info, bool warnShadow);
  void noteDim(const Dim &d, const Twine &what);

  Program &program;
  DiagEngine &diags;
  llvm::StringMap<FunctionDecl *> functions;
  llvm::StringMap<ModelDecl *> models;
  llvm::StringSet<> importedModules;
  std::string currentModule;
  FunctionDecl *currentFn = nullptr;
  std::vector<llvm::StringMap<VarInfo>> scopes;
  std::vector<ControlFrame> controlFrames;
  unsigned parallelDepth = 0;
  /// How many index-notation right-hand sides and reduction bodies enclose
  /// the expression being checked (element-wise code, like parallel bodies).
  unsigned indexDepth = 0;
  /// Checking the value of an element update (`g[i] = ...`, `i` bound).
  bool checkingUpdate = false;
  /// The first call of the function being checked from itself, since the
  /// innermost `?:` began.
  SMLoc selfCallLoc;
  /// Collectives run on the main thread only: where each function first
  /// uses one, the calls between functions, and calls made in parallel
  /// code, checked once every function is (checkCollectiveCalls).
  llvm::DenseMap<const FunctionDecl *, SMLoc> collectiveUse;
  std::vector<std::pair<const FunctionDecl *, const FunctionDecl *>> calls;
  std::vector<std::pair<const FunctionDecl *, SMLoc>> parallelCalls;
  /// How many tensor literals enclose the one being checked.
  unsigned tensorLitDepth = 0;
  /// The integer type of a conversion whose argument is the tensor literal
  /// being checked (i32([...])): its integer literals take it directly.
  ElemKind tensorLitTarget = ElemKind::Error;
  /// Index variables of the enclosing index-notation definitions/reductions.
  llvm::StringMap<IndexInfo> indexInfo;
};

} // namespace tdsl::sema

#endif // TDSL_FRONTEND_SEMACHECKER_H
