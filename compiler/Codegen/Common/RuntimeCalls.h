//===- RuntimeCalls.h - Declarations of TDSL runtime entry points ----------===//
//
// The C ABI of runtime/include/tdsl/Runtime.h as seen from generated code:
// every function the lowering calls is an entry of tdsl/RuntimeABI.def,
// declared here with the MLIR types of its C signature.
//
//===----------------------------------------------------------------------===//
#ifndef TDSL_CODEGEN_RUNTIMECALLS_H
#define TDSL_CODEGEN_RUNTIMECALLS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/MemoryBuffer.h"

namespace tdsl {

/// The runtime's element type codes (enum tdsl_dtype).
enum class DType : int32_t {
  F16 = 0, BF16 = 1, F32 = 2, F64 = 3, I1 = 4, I32 = 5, I64 = 6, U64 = 7
};
/// The code of an element type as written in tdsl IR (before ui64 -> i64).
std::optional<DType> getDType(mlir::Type type);
/// "f32", "u64", ... as used in runtime function names.
llvm::StringRef getDTypeSuffix(DType d);

/// A runtime function generated code calls (tdsl/RuntimeABI.def).
enum class RuntimeFn : unsigned {
#define TDSL_RUNTIME_FUNCTION(Name, Ret, Params) Name,
#define TDSL_MGPU_FUNCTION(Name, Ret, Params) Name,
#include "tdsl/RuntimeABI.def"
};
/// Its C name.
llvm::StringRef getRuntimeFnName(RuntimeFn fn);
/// Its type: C integers as signless iN, float/double as f32/f64, pointers
/// as !llvm.ptr.
mlir::FunctionType getRuntimeFnType(mlir::MLIRContext *ctx, RuntimeFn fn);
/// tdsl_print_<suffix> of a scalar of type `d`.
RuntimeFn getPrintFn(DType d);

/// Makes `text` the source of the buffer `name`, which is not a file, for
/// the lines and carets of run-time errors (tdsl-repl's inputs). Thread-safe;
/// a later call for the same name replaces the text.
void registerSourceText(llvm::StringRef name, llvm::StringRef text);

/// Declares runtime functions on first use and interns C strings as private
/// LLVM globals, each once per module.
class RuntimeCalls {
public:
  explicit RuntimeCalls(mlir::ModuleOp module) : module(module) {}

  /// A `func.func private` declaration of `fn`, created if missing.
  mlir::func::FuncOp getOrDeclare(mlir::OpBuilder &b, RuntimeFn fn);
  /// Calls `fn`. The arguments must have the types of its C signature (a
  /// mismatch is a bug of the compiler, reported as an internal error).
  mlir::ValueRange call(mlir::OpBuilder &b, mlir::Location loc, RuntimeFn fn,
                        mlir::ValueRange args);
  /// A `!llvm.ptr` to a NUL-terminated copy of `s`.
  mlir::Value getString(mlir::OpBuilder &b, mlir::Location loc, llvm::StringRef s);
  /// A null `!llvm.ptr`.
  mlir::Value getNull(mlir::OpBuilder &b, mlir::Location loc);
  /// "file:line:col" of `loc`, for the profile and launch messages.
  mlir::Value getWhere(mlir::OpBuilder &b, mlir::Location loc);
  /// For run-time errors (tdsl_fatal and what calls it): "file:line:col",
  /// then the source line and a caret when the file can be read now, and a
  /// "note: called from" per call `loc` was inlined through, on lines of
  /// their own that the runtime prints after the message.
  mlir::Value getErrorWhere(mlir::OpBuilder &b, mlir::Location loc);
  /// Whether `loc` was inlined through calls (other than main's).
  static bool hasCallers(mlir::Location loc);

  /// The DSL position in `loc` (through inlining call sites and fusions).
  static std::string whereOf(mlir::Location loc);
  /// The kernel name MLIRGen's lowering put in `loc` (a NameLoc), or "".
  static std::string kernelNameOf(mlir::Location loc);

private:
  std::string sourceLine(mlir::FileLineColLoc fl);

  mlir::ModuleOp module;
  llvm::StringMap<std::string> strings;
  bool indexed = false; // strings holds the module's existing ones too
  /// Source files read for getErrorWhere (null: unreadable).
  llvm::StringMap<std::unique_ptr<llvm::MemoryBuffer>> sources;
};

} // namespace tdsl

#endif // TDSL_CODEGEN_RUNTIMECALLS_H
