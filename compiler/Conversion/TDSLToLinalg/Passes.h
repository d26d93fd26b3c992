//===- Passes.h - TDSL tdsl-to-linalg conversion pass -----------------------===//
#ifndef TDSL_CONVERSION_TDSLTOLINALG_PASSES_H
#define TDSL_CONVERSION_TDSLTOLINALG_PASSES_H

#include "mlir/Pass/Pass.h"

#include <memory>

namespace mlir {
class DialectRegistry;
namespace affine { class AffineDialect; }
namespace arith { class ArithDialect; }
namespace bufferization { class BufferizationDialect; }
namespace cf { class ControlFlowDialect; }
namespace func { class FuncDialect; }
namespace gpu { class GPUDialect; class GPUModuleOp; }
namespace linalg { class LinalgDialect; }
namespace LLVM { class LLVMDialect; }
namespace math { class MathDialect; }
namespace memref { class MemRefDialect; }
namespace scf { class SCFDialect; }
namespace tensor { class TensorDialect; }
namespace vector { class VectorDialect; }
} // namespace mlir

namespace tdsl {

#define GEN_PASS_DECL
#include "compiler/Conversion/TDSLToLinalg/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "compiler/Conversion/TDSLToLinalg/Passes.h.inc"

} // namespace tdsl

#endif // TDSL_CONVERSION_TDSLTOLINALG_PASSES_H
