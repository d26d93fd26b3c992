//===- LowerStructuredOps.h - Step 1 of the tdsl-to-linalg conversion -----===//
#ifndef TDSL_CONVERSION_TDSLTOLINALG_LOWERSTRUCTUREDOPS_H
#define TDSL_CONVERSION_TDSLTOLINALG_LOWERSTRUCTUREDOPS_H

#include "compiler/Codegen/Common/Combine.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

namespace tdsl {

/// The identity of `kind` for element type `type` (a tdsl.constant; `type`
/// may be ui64, whose identities for max/min are 0 and 2^64-1).
mlir::Value buildIdentity(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::Type type, Combine kind);

/// `acc <kind> v` as a tdsl scalar op, converted later with the others.
mlir::Value buildCombine(mlir::OpBuilder &b, mlir::Location loc, Combine kind,
                         mlir::Value acc, mlir::Value v);

/// Step 1 of convert-tdsl-to-linalg: rewrites the ops with regions
/// (tdsl.index_gen, tdsl.parallel_for) and tdsl.matmul into linalg and scf,
/// leaving the scalar tdsl ops of their bodies for the type conversion.
/// Sums and matrix products of f16 and bf16 accumulate in f32 there.
mlir::LogicalResult lowerStructuredOps(mlir::ModuleOp module);

/// Between the two steps of convert-tdsl-to-linalg on the CPU: the draws
/// (tdsl.random) of the scf.for loops under `root` at counters a * i + b
/// read tables of Philox blocks computed once per strip of the loop
/// (ShareRandomBlocks.cpp, also the pass tdsl-share-random-blocks).
void shareRandomBlocks(mlir::Operation *root);

} // namespace tdsl

#endif // TDSL_CONVERSION_TDSLTOLINALG_LOWERSTRUCTUREDOPS_H
