//===- Philox.h - The counter-based RNG as arith/math ops ------------------===//
#ifndef TDSL_CODEGEN_PHILOX_H
#define TDSL_CODEGEN_PHILOX_H

#include "mlir/IR/Builders.h"

namespace tdsl {

/// One value of the TDSL RNG for (seed, counter), both i64: Philox4x32-10
/// with key (lo32(seed), hi32(seed)) and counter (lo32(ctr), hi32(ctr), 0, 0),
/// then the formulas of runtime/include/tdsl/Runtime.h, so generated code,
/// the runtime and the GPU agree bit for bit on uniform values. Pure arith and
/// math ops, so loops of them vectorize and fold like any other.
mlir::Value buildRandom(mlir::OpBuilder &b, mlir::Location loc, mlir::Value seed,
                        mlir::Value counter, mlir::FloatType type, bool normal);

} // namespace tdsl

#endif // TDSL_CODEGEN_PHILOX_H
