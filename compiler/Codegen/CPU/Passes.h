//===- Passes.h - TDSL passes of the CPU back end ---------------------------===//
#ifndef TDSL_CODEGEN_CPU_PASSES_H
#define TDSL_CODEGEN_CPU_PASSES_H

#include "mlir/Pass/Pass.h"

#include <memory>

namespace tdsl {

#define GEN_PASS_DECL
#include "compiler/Codegen/CPU/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "compiler/Codegen/CPU/Passes.h.inc"

} // namespace tdsl

#endif // TDSL_CODEGEN_CPU_PASSES_H
