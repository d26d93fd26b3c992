//===- ABI.cpp - Runtime.h agrees with the table the compiler uses --------===//
//
// Each function the compiler calls by name (tdsl/RuntimeABI.def) must have
// exactly the signature the table gives: otherwise the compiler would
// declare a call the runtime does not implement. Compiles to nothing.
//
//===----------------------------------------------------------------------===//
#include "tdsl/Runtime.h"

#include <type_traits>

#define TDSL_RUNTIME_FUNCTION(Name, Ret, Params)                               \
  static_assert(std::is_same_v<decltype(&Name), Ret(*) Params>,                \
                #Name " in Runtime.h differs from tdsl/RuntimeABI.def");
#include "tdsl/RuntimeABI.def"
