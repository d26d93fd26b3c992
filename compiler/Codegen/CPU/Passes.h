//===- Passes.h - TDSL passes of the CPU back end ---------------------------===//
#ifndef TDSL_CODEGEN_CPU_PASSES_H
#define TDSL_CODEGEN_CPU_PASSES_H

#include "mlir/Pass/Pass.h"

#include <memory>

namespace tdsl {

/// Marks an scf.for that tdsl-vectorize made to step through a reduction
/// loop (the order of its steps' results is free to change): what
/// tdsl-defer-lane-reduction rewrites.
inline constexpr llvm::StringLiteral kReductionLoopAttr = "tdsl.reduction_loop";

#define GEN_PASS_DECL
#include "compiler/Codegen/CPU/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "compiler/Codegen/CPU/Passes.h.inc"

} // namespace tdsl

#endif // TDSL_CODEGEN_CPU_PASSES_H
