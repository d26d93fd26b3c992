//===- Passes.h - TDSL tdsl-to-linalg conversion pass -----------------------===//
#ifndef TDSL_CONVERSION_TDSLTOLINALG_PASSES_H
#define TDSL_CONVERSION_TDSLTOLINALG_PASSES_H

#include "mlir/Pass/Pass.h"

#include <memory>

namespace tdsl {

#define GEN_PASS_DECL
#include "compiler/Conversion/TDSLToLinalg/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "compiler/Conversion/TDSLToLinalg/Passes.h.inc"

} // namespace tdsl

#endif // TDSL_CONVERSION_TDSLTOLINALG_PASSES_H
