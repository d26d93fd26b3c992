//===- Types.h - Front-end types of .tdsl values ---------------------------===//
#ifndef TDSL_FRONTEND_TYPES_H
#define TDSL_FRONTEND_TYPES_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SMLoc.h"

#include <cstdint>
#include <string>

namespace tdsl {

struct ModelDecl;

/// Element kinds. `IntLit`/`FloatLit` are the types of untyped numeric
/// literals, which take the type of the other operand (as in Go); `Void`,
/// `String` and `Error` never reach MLIRGen as value types. `Model` marks a
/// model (a record of parameter tensors), which is not a tensor.
enum class ElemKind {
  F16, BF16, F32, F64, I1, I32, I64, U64,
  IntLit, FloatLit, String, Void, Model, Error
};

const char *getElemKindName(ElemKind k);
inline bool isFloatKind(ElemKind k) {
  return k == ElemKind::F16 || k == ElemKind::BF16 || k == ElemKind::F32 ||
         k == ElemKind::F64 || k == ElemKind::FloatLit;
}
inline bool isIntKind(ElemKind k) {
  return k == ElemKind::I32 || k == ElemKind::I64 || k == ElemKind::U64 ||
         k == ElemKind::IntLit;
}
inline bool isNumericKind(ElemKind k) { return isFloatKind(k) || isIntKind(k); }

/// One dimension of a tensor type: a static extent, a named symbol from a
/// function signature (`M`), or unknown until run time (`?`).
struct Dim {
  enum Kind { Static, Symbol, Dynamic } kind = Dynamic;
  int64_t size = 0;
  std::string symbol;
  /// Where the extent came from, for shape-mismatch notes.
  llvm::SMLoc origin;

  static Dim getStatic(int64_t n, llvm::SMLoc origin = {}) {
    Dim d;
    d.kind = Static;
    d.size = n;
    d.origin = origin;
    return d;
  }
  static Dim getSymbol(llvm::StringRef name, llvm::SMLoc origin = {}) {
    Dim d;
    d.kind = Symbol;
    d.symbol = name.str();
    d.origin = origin;
    return d;
  }
  static Dim getDynamic(llvm::SMLoc origin = {}) {
    Dim d;
    d.origin = origin;
    return d;
  }
  bool isStatic() const { return kind == Static; }
  bool isDynamic() const { return kind == Dynamic; }
  /// Equal as far as the compiler can tell (dynamic dims are equal to all).
  bool compatible(const Dim &o) const {
    if (kind == Dynamic || o.kind == Dynamic)
      return true;
    if (kind != o.kind)
      return false;
    return kind == Static ? size == o.size : symbol == o.symbol;
  }
  bool operator==(const Dim &o) const {
    return kind == o.kind && size == o.size && symbol == o.symbol;
  }
  std::string str() const;
};

/// The type of a .tdsl value: a scalar, a tensor of scalars, or a model.
struct Type {
  ElemKind elem = ElemKind::Error;
  bool isTensor = false;
  llvm::SmallVector<Dim, 4> shape;
  /// For a model: its name as written, and its declaration once Sema has
  /// resolved the name (a type parameter `M` of a generic function is a
  /// declaration too, with no fields).
  std::string modelName;
  const ModelDecl *model = nullptr;

  static Type scalar(ElemKind k) {
    Type t;
    t.elem = k;
    return t;
  }
  static Type tensor(ElemKind k, llvm::ArrayRef<Dim> dims) {
    Type t;
    t.elem = k;
    t.isTensor = true;
    t.shape.assign(dims.begin(), dims.end());
    return t;
  }
  static Type modelType(llvm::StringRef name, const ModelDecl *decl) {
    Type t;
    t.elem = ElemKind::Model;
    t.modelName = name.str();
    t.model = decl;
    return t;
  }
  static Type error() { return scalar(ElemKind::Error); }
  static Type voidTy() { return scalar(ElemKind::Void); }

  bool isError() const { return elem == ElemKind::Error; }
  bool isVoid() const { return elem == ElemKind::Void; }
  bool isModel() const { return elem == ElemKind::Model; }
  bool isScalar() const { return !isTensor && !isModel(); }
  unsigned rank() const { return shape.size(); }
  Type withElem(ElemKind k) const {
    Type t = *this;
    t.elem = k;
    return t;
  }
  Type elementType() const { return scalar(elem); }
  /// Exactly the same type (dims compared by kind, extent and symbol).
  bool operator==(const Type &o) const {
    if (elem != o.elem || isTensor != o.isTensor || shape.size() != o.shape.size())
      return false;
    if (isModel())
      return model ? model == o.model : modelName == o.modelName;
    for (unsigned i = 0; i < shape.size(); ++i)
      if (!(shape[i] == o.shape[i]))
        return false;
    return true;
  }
  bool operator!=(const Type &o) const { return !(*this == o); }
  /// `f32`, `f32[M, 4, ?]`, `Mlp`.
  std::string str() const;
};

} // namespace tdsl

#endif // TDSL_FRONTEND_TYPES_H
