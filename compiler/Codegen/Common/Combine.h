//===- Combine.h - How a reduction combines ---------------------------------===//
#ifndef TDSL_CODEGEN_COMMON_COMBINE_H
#define TDSL_CODEGEN_COMMON_COMBINE_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"

#include <optional>

namespace tdsl {

/// How a reduction combines: the tdsl combiner / reduce kinds mapped to one.
enum class Combine { Add, Mul, Max, Min };

/// The output that a reduction reduces into: the only one not indexed by all
/// the loops (the others, written once per iteration, come from fusing an
/// element-wise producer: softmax's exp).
std::optional<unsigned> reducedOutput(mlir::linalg::GenericOp op);

/// The op that combines the accumulator of `op`'s reduced output with a
/// value, when the accumulator is used by it alone and nothing else sees the
/// combined value (so the reduction may start from the identity anywhere and
/// combine partial results): arith add, mul, maximumf/minimumf or
/// maxsi/minsi. Null otherwise.
mlir::Operation *combinerOp(mlir::linalg::GenericOp op);

/// The kind of a combiner op (see combinerOp).
Combine combineKindOf(mlir::Operation *combiner);

/// The identity of a combiner (signed for integers: max and min here are
/// arith.maxsi and minsi).
mlir::TypedAttr identityOf(mlir::Type type, Combine kind);

} // namespace tdsl

#endif // TDSL_CODEGEN_COMMON_COMBINE_H
