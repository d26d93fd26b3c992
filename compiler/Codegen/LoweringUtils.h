//===- LoweringUtils.h - Shared helpers of the tdsl lowering ---------------===//
#ifndef TDSL_CODEGEN_LOWERINGUTILS_H
#define TDSL_CODEGEN_LOWERINGUTILS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir {
class MemRefType;
namespace linalg {
class LinalgOp;
} // namespace linalg
} // namespace mlir

namespace tdsl {

/// The work of a linalg op as f64 values built at the builder's position:
/// floating-point and integer operations (iterations x arithmetic ops of the
/// body) and bytes (the sizes of all operands). For the profile.
std::pair<mlir::Value, mlir::Value> buildKernelWork(mlir::OpBuilder &b,
                                                    mlir::Location loc,
                                                    mlir::linalg::LinalgOp op);

/// How a reduction combines: the tdsl combiner / reduce kinds mapped to one.
enum class Combine { Add, Mul, Max, Min };

/// The identity of `kind` for element type `type` (a tdsl.constant; `type`
/// may be ui64, whose identities for max/min are 0 and 2^64-1).
mlir::Value buildIdentity(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::Type type, Combine kind);

/// `acc <kind> v` as a tdsl scalar op, converted later with the others.
mlir::Value buildCombine(mlir::OpBuilder &b, mlir::Location loc, Combine kind,
                         mlir::Value acc, mlir::Value v);

/// `loc` named "<function>.<kind>", the kernel's name in the profile; the
/// name survives inlining and fusion as part of the location.
mlir::Location kernelLoc(mlir::Operation *op, llvm::StringRef kind);

/// Whether a buffer of `type` may be large enough to exhaust memory (dynamic
/// size, or at least 1 MiB): its allocation reports the DSL line when it
/// fails (tdsl-locate-allocs, tdsl-gpu-host-memory).
bool mayExhaustMemory(mlir::MemRefType type);

/// Step 1 of convert-tdsl-to-linalg: rewrites the ops with regions
/// (tdsl.index_gen, tdsl.parallel_for) and tdsl.matmul into linalg and scf,
/// leaving the scalar tdsl ops of their bodies for the type conversion.
mlir::LogicalResult lowerStructuredOps(mlir::ModuleOp module);

} // namespace tdsl

#endif // TDSL_CODEGEN_LOWERINGUTILS_H
