//===- Builtins.h - The built-in functions of .tdsl ------------*- C++ -*-===//
//
// The table in Builtins.def, as an enum that Sema resolves each call to once
// and that Sema's checks and MLIRGen's generation switch on.
//
//===----------------------------------------------------------------------===//
#ifndef TDSL_FRONTEND_BUILTINS_H
#define TDSL_FRONTEND_BUILTINS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <limits>

namespace tdsl {

/// What a group of built-ins shares: how its calls are checked and generated.
enum class BuiltinKind : uint8_t {
  FloatMath,   // f(x), element-wise, floating-point
  NumericMath, // f(x), element-wise, any number
  Binary,      // f(a, b), element-wise with broadcasting
  Reduce,      // f(x) of a whole tensor to a scalar
  Convert,     // a conversion of the element type
  Fill,        // zeros/ones/full of a type
  Arange,
  Random,
  Dim,
  Print,
  Load,
  Save,
  World,      // world_size(), world_rank()
  Collective, // allreduce, broadcast: of a tensor, a scalar or a model
  Assert,     // a run-time check of a scalar condition
  Grad, // its first argument names a function
};

enum class Builtin : uint8_t {
  None,
#define TDSL_BUILTIN(Id, Name, Kind, MinArgs, MaxArgs) Id,
#include "compiler/Frontend/Builtins.def"
};

constexpr unsigned kVariadic = std::numeric_limits<unsigned>::max();

struct BuiltinInfo {
  const char *name;
  BuiltinKind kind;
  unsigned minArgs;
  unsigned maxArgs; // kVariadic: no upper bound
};

/// The table entry of `b`, which must not be None.
const BuiltinInfo &getBuiltinInfo(Builtin b);

/// Every entry of the table, in its order (a name may appear more than once).
llvm::ArrayRef<BuiltinInfo> getBuiltinTable();

/// Whether some built-in is called `name`.
bool isBuiltinName(llvm::StringRef name);

/// The built-in called `name` that takes `numArgs` arguments, or None. When
/// `name` is a built-in but no entry takes that many arguments, `minArgs`
/// and `maxArgs` receive the range that all its entries together accept.
Builtin lookupBuiltin(llvm::StringRef name, size_t numArgs, unsigned &minArgs,
                      unsigned &maxArgs);

} // namespace tdsl

#endif // TDSL_FRONTEND_BUILTINS_H
