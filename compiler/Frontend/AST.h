//===- AST.h - Abstract syntax tree of .tdsl programs ----------------------===//
//
// Every node carries its source location. Sema fills in the `type` of each
// expression and resolves names; MLIRGen reads both.
//
//===----------------------------------------------------------------------===//
#ifndef TDSL_FRONTEND_AST_H
#define TDSL_FRONTEND_AST_H

#include "compiler/Frontend/Builtins.h"
#include "compiler/Frontend/Types.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Casting.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <string>
#include <vector>

namespace tdsl {

struct Stmt;
struct FunctionDecl;
using StmtList = std::vector<std::unique_ptr<Stmt>>;

/// A type as written in the source, resolved by the parser.
struct TypeSpec {
  Type type;
  llvm::SMLoc loc;
};

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

struct Expr {
  enum Kind {
    IntLit, FloatLit, BoolLit, StringLit, VarRef, Unary, Binary, Ternary,
    Call, Index, TensorLit, Reduce, ParallelFor, TypeArg, Field
  };
  Expr(Kind kind, llvm::SMLoc loc) : kind(kind), loc(loc) {}
  virtual ~Expr() = default;
  Kind getKind() const { return kind; }

  const Kind kind;
  llvm::SMLoc loc;
  /// Written in parentheses: `sum(k) (x[k] - c)` subtracts c on purpose.
  bool parenthesized = false;
  /// Set by Sema.
  Type type;
};
using ExprPtr = std::unique_ptr<Expr>;

struct IntLitExpr : Expr {
  IntLitExpr(llvm::SMLoc loc, uint64_t value) : Expr(IntLit, loc), value(value) {}
  uint64_t value;
  static bool classof(const Expr *e) { return e->kind == IntLit; }
};

struct FloatLitExpr : Expr {
  FloatLitExpr(llvm::SMLoc loc, double value) : Expr(FloatLit, loc), value(value) {}
  double value;
  static bool classof(const Expr *e) { return e->kind == FloatLit; }
};

struct BoolLitExpr : Expr {
  BoolLitExpr(llvm::SMLoc loc, bool value) : Expr(BoolLit, loc), value(value) {}
  bool value;
  static bool classof(const Expr *e) { return e->kind == BoolLit; }
};

struct StringLitExpr : Expr {
  StringLitExpr(llvm::SMLoc loc, std::string value)
      : Expr(StringLit, loc), value(std::move(value)) {}
  std::string value;
  static bool classof(const Expr *e) { return e->kind == StringLit; }
};

/// What a name refers to, decided by Sema.
enum class VarKind { Unresolved, Local, Param, LoopVar, IndexVar, DimSymbol };

struct VarRefExpr : Expr {
  VarRefExpr(llvm::SMLoc loc, std::string name)
      : Expr(VarRef, loc), name(std::move(name)) {}
  std::string name;
  VarKind varKind = VarKind::Unresolved;
  static bool classof(const Expr *e) { return e->kind == VarRef; }
};

enum class UnaryOp { Neg, Not };
struct UnaryExpr : Expr {
  UnaryExpr(llvm::SMLoc loc, UnaryOp op, ExprPtr operand)
      : Expr(Unary, loc), op(op), operand(std::move(operand)) {}
  UnaryOp op;
  ExprPtr operand;
  static bool classof(const Expr *e) { return e->kind == Unary; }
};

enum class BinaryOp {
  Add, Sub, Mul, Div, Rem, MatMul, Eq, Ne, Lt, Le, Gt, Ge, And, Or
};
const char *getBinaryOpSpelling(BinaryOp op);

struct BinaryExpr : Expr {
  BinaryExpr(llvm::SMLoc loc, BinaryOp op, ExprPtr lhs, ExprPtr rhs)
      : Expr(Binary, loc), op(op), lhs(std::move(lhs)), rhs(std::move(rhs)) {}
  BinaryOp op;
  ExprPtr lhs, rhs;
  static bool classof(const Expr *e) { return e->kind == Binary; }
};

struct TernaryExpr : Expr {
  TernaryExpr(llvm::SMLoc loc, ExprPtr cond, ExprPtr thenE, ExprPtr elseE)
      : Expr(Ternary, loc), cond(std::move(cond)), thenExpr(std::move(thenE)),
        elseExpr(std::move(elseE)) {}
  ExprPtr cond, thenExpr, elseExpr;
  static bool classof(const Expr *e) { return e->kind == Ternary; }
};

/// A named argument `seed = 1` keeps its name; positional ones have none.
struct CallArg {
  std::string name;
  llvm::SMLoc nameLoc;
  ExprPtr value;
};

struct CallExpr : Expr {
  CallExpr(llvm::SMLoc loc, std::string module, std::string callee)
      : Expr(Call, loc), module(std::move(module)), callee(std::move(callee)) {}
  /// `nn` in `nn.relu(x)`; empty for unqualified calls.
  std::string module;
  std::string callee;
  std::vector<CallArg> args;
  /// Set by Sema: the user function called, or null for a built-in.
  FunctionDecl *target = nullptr;
  /// Set by Sema: the built-in called, or None for a user function.
  Builtin builtin = Builtin::None;
  /// Set by Sema: the model `Mlp(seed)` creates, or null.
  const ModelDecl *model = nullptr;
  /// Set by Sema for a call of a generic function: the model each of its
  /// type parameters stands for (a type parameter of the caller when the
  /// caller is generic too).
  std::vector<const ModelDecl *> typeArgs;
  std::string qualifiedName() const {
    return module.empty() ? callee : module + "." + callee;
  }
  static bool classof(const Expr *e) { return e->kind == Call; }
};

/// `A[i, k]`: an element access (run-time subscripts) or, in index notation,
/// an access through index variables.
struct IndexExpr : Expr {
  IndexExpr(llvm::SMLoc loc, ExprPtr base) : Expr(Index, loc), base(std::move(base)) {}
  ExprPtr base;
  std::vector<ExprPtr> indices;
  static bool classof(const Expr *e) { return e->kind == Index; }
};

/// `[[1, 2], [3, 4]]`.
struct TensorLitExpr : Expr {
  TensorLitExpr(llvm::SMLoc loc) : Expr(TensorLit, loc) {}
  std::vector<ExprPtr> elements;
  static bool classof(const Expr *e) { return e->kind == TensorLit; }
};

enum class ReduceKind { Sum, Max, Min };
const char *getReduceKindName(ReduceKind k);

struct IndexVarDecl {
  std::string name;
  llvm::SMLoc loc;
};

/// `sum(k) body`: reduces `body` over the index variables. `max(di in 0..2)`
/// gives an index its range instead of a subscript.
struct ReduceExpr : Expr {
  ReduceExpr(llvm::SMLoc loc, ReduceKind kind) : Expr(Reduce, loc), reduceKind(kind) {}
  ReduceKind reduceKind;
  std::vector<IndexVarDecl> indices;
  /// Per index: the bounds of `k in lo..hi`, or null.
  std::vector<ExprPtr> lowers, uppers;
  ExprPtr body;
  static bool classof(const Expr *e) { return e->kind == Reduce; }
};

enum class LoopReduce { None, Add, Mul, Max, Min };

struct LoopRange {
  IndexVarDecl var;
  ExprPtr lower, upper;
};

/// `parallel for i in 0..n, j in 0..m reduce(+) { ...; yield e }`.
struct ParallelForExpr : Expr {
  ParallelForExpr(llvm::SMLoc loc) : Expr(ParallelFor, loc) {}
  std::vector<LoopRange> ranges;
  LoopReduce reduce = LoopReduce::None;
  llvm::SMLoc reduceLoc;
  StmtList body;
  static bool classof(const Expr *e) { return e->kind == ParallelFor; }
};

/// `m.w1`: a field of a model.
struct FieldExpr : Expr {
  FieldExpr(llvm::SMLoc loc, ExprPtr base, std::string field)
      : Expr(Field, loc), base(std::move(base)), field(std::move(field)) {}
  ExprPtr base;
  std::string field;
  static bool classof(const Expr *e) { return e->kind == Field; }
};

/// A type used as an argument: `zeros(f32[3, 4])`.
struct TypeArgExpr : Expr {
  TypeArgExpr(llvm::SMLoc loc, Type spec) : Expr(TypeArg, loc), spec(std::move(spec)) {}
  Type spec;
  static bool classof(const Expr *e) { return e->kind == TypeArg; }
};

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

struct Stmt {
  enum Kind { Let, IndexDef, Return, For, If, Yield, ExprStmt };
  Stmt(Kind kind, llvm::SMLoc loc) : kind(kind), loc(loc) {}
  virtual ~Stmt() = default;
  Kind getKind() const { return kind; }
  const Kind kind;
  llvm::SMLoc loc;
};

/// `x = e` or `x: f32[N] = e`. Binds a new name, or rebinds an existing one.
/// `m.w1 = e` (name "m.w1") replaces a field of the model m.
struct LetStmt : Stmt {
  LetStmt(llvm::SMLoc loc, std::string name) : Stmt(Let, loc), name(std::move(name)) {}
  std::string name;
  /// The field's location in `m.w1 = e`; invalid for other bindings.
  llvm::SMLoc fieldLoc;
  bool hasAnnotation = false;
  TypeSpec annotation;
  ExprPtr value;
  /// Set by Sema for an annotated binding: the declared type, with its
  /// dimension names resolved (the name's type from here on).
  Type boundType;
  static bool classof(const Stmt *s) { return s->kind == Let; }
};

/// `C[i, j] = sum(k) A[i, k] * B[k, j]` defines C by index notation;
/// `x[k, j] = e` with `k` an existing name updates row k of x (value
/// semantics: x becomes a new tensor with those elements replaced).
struct IndexDefStmt : Stmt {
  IndexDefStmt(llvm::SMLoc loc, std::string name)
      : Stmt(IndexDef, loc), name(std::move(name)) {}
  std::string name;
  /// As written: a bare name that is not bound yet is a new index variable,
  /// any other subscript a position.
  std::vector<ExprPtr> subscripts;
  ExprPtr value;
  /// Set by Sema: the new index variables, in order; per subscript, its
  /// index variable's position in `indices`, or -1 for a position.
  std::vector<IndexVarDecl> indices;
  std::vector<int> indexOf;
  /// Set by Sema: per subscript, the offset `p` of `y + p` (an index
  /// variable placed at an offset: the update writes rows p, p + 1, ...),
  /// or null.
  std::vector<Expr *> offsets;
  /// Set by Sema: whether this updates the existing tensor `name` (some
  /// subscript is a position, or an index takes its range from `name`).
  bool isUpdate = false;
  /// Set by Sema: the tensor type the definition binds.
  Type boundType;
  static bool classof(const Stmt *s) { return s->kind == IndexDef; }
};

struct ReturnStmt : Stmt {
  ReturnStmt(llvm::SMLoc loc, ExprPtr value) : Stmt(Return, loc), value(std::move(value)) {}
  ExprPtr value; // may be null
  static bool classof(const Stmt *s) { return s->kind == Return; }
};

/// Sequential `for i in lo..hi { body }`.
struct ForStmt : Stmt {
  ForStmt(llvm::SMLoc loc) : Stmt(For, loc) {}
  LoopRange range;
  StmtList body;
  /// Set by Sema: outer names rebound in the body (loop-carried values), and
  /// the type each has throughout the loop: the join of its type before the
  /// loop and of every value the body gives it (a size that changes between
  /// iterations is `?`).
  std::vector<std::string> carried;
  std::vector<Type> carriedTypes;
  static bool classof(const Stmt *s) { return s->kind == For; }
};

struct IfStmt : Stmt {
  IfStmt(llvm::SMLoc loc) : Stmt(If, loc) {}
  ExprPtr cond;
  StmtList thenBody, elseBody;
  /// Set by Sema: outer names rebound in either branch, and the type each
  /// has after the `if` (the join of the two branches' values).
  std::vector<std::string> carried;
  std::vector<Type> carriedTypes;
  static bool classof(const Stmt *s) { return s->kind == If; }
};

struct YieldStmt : Stmt {
  YieldStmt(llvm::SMLoc loc, ExprPtr value) : Stmt(Yield, loc), value(std::move(value)) {}
  ExprPtr value;
  static bool classof(const Stmt *s) { return s->kind == Yield; }
};

struct ExprStmt : Stmt {
  ExprStmt(llvm::SMLoc loc, ExprPtr expr)
      : Stmt(Stmt::ExprStmt, loc), expr(std::move(expr)) {}
  ExprPtr expr;
  static bool classof(const Stmt *s) { return s->kind == Stmt::ExprStmt; }
};

//===----------------------------------------------------------------------===//
// Declarations
//===----------------------------------------------------------------------===//

struct Param {
  std::string name;
  llvm::SMLoc loc;
  TypeSpec type;
};

/// How a model field starts: `he` and `glorot` scale by the field's fans
/// (see docs/language.md), `normal(s)` and `uniform(s)` by `scale`.
enum class InitKind { Zeros, Ones, Normal, Uniform, He, Glorot };

struct ModelField {
  std::string name;
  llvm::SMLoc loc;
  TypeSpec type;
  InitKind init = InitKind::Zeros;
  double scale = 1.0;
  llvm::SMLoc initLoc;
};

/// `model Mlp { w1: f32[64, 128] = glorot ... }`: a record of named
/// parameter tensors. A type parameter `<M>` of a generic function is a
/// ModelDecl too: any model, with no fields known.
struct ModelDecl {
  std::string name;
  std::string module;
  llvm::SMLoc loc;
  std::vector<ModelField> fields;
  bool isTypeParam = false;
  std::string qualifiedName() const {
    return module.empty() ? name : module + "." + name;
  }
  /// The position of field `name`, or -1.
  int fieldIndex(llvm::StringRef field) const {
    for (size_t i = 0; i < fields.size(); ++i)
      if (fields[i].name == field)
        return (int)i;
    return -1;
  }
};

struct FunctionDecl {
  std::string name;
  /// The module it lives in (`nn`); empty for the main file.
  std::string module;
  llvm::SMLoc loc;
  /// `fn sgd<M>(...)`: model type parameters; the function is generated
  /// once per model it is called with.
  std::vector<std::unique_ptr<ModelDecl>> typeParams;
  std::vector<Param> params;
  bool hasResult = false;
  TypeSpec result;
  StmtList body;
  std::string qualifiedName() const {
    return module.empty() ? name : module + "." + name;
  }
};

struct ImportDecl {
  std::string name;
  llvm::SMLoc loc;
};

/// One parsed file.
struct ModuleAST {
  std::string name; // empty for the main file
  std::vector<ImportDecl> imports;
  std::vector<std::unique_ptr<FunctionDecl>> functions;
  std::vector<std::unique_ptr<ModelDecl>> models;
};

/// Prints the AST in an indented, line-per-node form for `--emit=ast`.
void dumpAST(const ModuleAST &module, llvm::SourceMgr &srcMgr,
             llvm::raw_ostream &os);

} // namespace tdsl

#endif // TDSL_FRONTEND_AST_H
