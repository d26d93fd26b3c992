//===- KernelInfo.h - Kernel names, work and allocation sites ---------------===//
//
// What both back ends say about a kernel in the profile and in run-time
// errors: its name, its work, and whether its buffers need a located
// out-of-memory message.
//
//===----------------------------------------------------------------------===//
#ifndef TDSL_CODEGEN_COMMON_KERNELINFO_H
#define TDSL_CODEGEN_COMMON_KERNELINFO_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir {
class MemRefType;
namespace linalg {
class LinalgOp;
} // namespace linalg
} // namespace mlir

namespace tdsl {

/// `loc` named "<function>.<kind>", the kernel's name in the profile; the
/// name survives inlining and fusion as part of the location.
mlir::Location kernelLoc(mlir::Operation *op, llvm::StringRef kind);

/// The work of a linalg op as f64 values built at the builder's position:
/// floating-point and integer operations (iterations x arithmetic ops of the
/// body) and bytes (the sizes of all operands but `skip`, a value another
/// op of the same kernel already moves). For the profile.
std::pair<mlir::Value, mlir::Value> buildKernelWork(mlir::OpBuilder &b,
                                                    mlir::Location loc,
                                                    mlir::linalg::LinalgOp op,
                                                    mlir::Value skip = {});

/// Whether a buffer of `type` may be large enough to exhaust memory (dynamic
/// size, or at least 1 MiB): its allocation reports the DSL line when it
/// fails (tdsl-locate-allocs, tdsl-gpu-host-memory).
bool mayExhaustMemory(mlir::MemRefType type);

} // namespace tdsl

#endif // TDSL_CODEGEN_COMMON_KERNELINFO_H
