//===- Passes.h - Transformations of the tdsl dialect -------------------------===//
//
// The home of transformations on tdsl IR, before tdsl-to-linalg:
// reverse-mode differentiation (tdsl-differentiate) and simplification.
//
//===----------------------------------------------------------------------===//
#ifndef TDSL_DIALECT_TDSL_TRANSFORMS_PASSES_H
#define TDSL_DIALECT_TDSL_TRANSFORMS_PASSES_H

#include "mlir/Pass/Pass.h"

namespace tdsl {

#define GEN_PASS_DECL
#include "dialects/TDSL/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "dialects/TDSL/Transforms/Passes.h.inc"

} // namespace tdsl

#endif // TDSL_DIALECT_TDSL_TRANSFORMS_PASSES_H
