//===- Passes.h - TDSL passes both back ends use ----------------------------===//
#ifndef TDSL_CODEGEN_COMMON_PASSES_H
#define TDSL_CODEGEN_COMMON_PASSES_H

#include "mlir/Pass/Pass.h"

#include "llvm/ADT/StringRef.h"

#include <memory>

namespace tdsl {

/// On a linalg.generic whose run-time subscript checks tdsl-fold-checks all
/// removed or moved before it: each subscript its body reads is in bounds
/// whenever it runs.
inline constexpr llvm::StringLiteral kBoundsCheckedAttr = "tdsl.bounds_checked";

#define GEN_PASS_DECL
#include "compiler/Codegen/Common/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "compiler/Codegen/Common/Passes.h.inc"

} // namespace tdsl

#endif // TDSL_CODEGEN_COMMON_PASSES_H
