//===- TDSLToLinalg.h - Patterns of the tdsl-to-linalg conversion -----------===//
//
// The leaf ops of the tdsl dialect to linalg, tensor, arith, math and runtime
// calls, as patterns that other pipelines (and the pass in
// ConvertTDSLToLinalg.cpp) apply in their own dialect conversion. Ops with
// regions are rewritten first, by lowerStructuredOps.
//
//===----------------------------------------------------------------------===//
#ifndef TDSL_CONVERSION_TDSLTOLINALG_TDSLTOLINALG_H
#define TDSL_CONVERSION_TDSLTOLINALG_TDSLTOLINALG_H

#include "compiler/Codegen/Common/RuntimeCalls.h"

#include "mlir/Transforms/DialectConversion.h"

namespace tdsl {

/// ui64 (and any signed or unsigned integer) -> signless, in tensors and
/// memrefs too: arith wants signless integers; unsignedness is kept by the
/// choice of arith ops.
class SignlessTypeConverter : public mlir::TypeConverter {
public:
  SignlessTypeConverter();
};

/// Adds the patterns that lower every leaf tdsl op (element-wise, constants,
/// fills, arange, RNG, print/load/save, retype) and convert function
/// signatures. `rt` declares the runtime functions they call and must
/// outlive the conversion. With `runtimeModelInit`, model initializers'
/// random tensors are filled by a runtime call.
void populateTDSLToLinalgConversionPatterns(
    const mlir::TypeConverter &converter, RuntimeCalls &rt,
    mlir::RewritePatternSet &patterns, bool runtimeModelInit = false);

/// Adds the patterns that lower world_size, world_rank, allreduce and
/// broadcast to runtime calls (CollectivesToRuntime.cpp).
void populateCollectivesToRuntimePatterns(const mlir::TypeConverter &converter,
                                          RuntimeCalls &rt,
                                          mlir::RewritePatternSet &patterns);

} // namespace tdsl

#endif // TDSL_CONVERSION_TDSLTOLINALG_TDSLTOLINALG_H
