//===- Passes.h - TDSL passes both back ends use ----------------------------===//
#ifndef TDSL_CODEGEN_COMMON_PASSES_H
#define TDSL_CODEGEN_COMMON_PASSES_H

#include "mlir/Pass/Pass.h"

#include <memory>

namespace tdsl {

#define GEN_PASS_DECL
#include "compiler/Codegen/Common/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "compiler/Codegen/Common/Passes.h.inc"

} // namespace tdsl

#endif // TDSL_CODEGEN_COMMON_PASSES_H
