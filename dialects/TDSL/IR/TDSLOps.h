// TDSLOps.h - op classes of the tdsl dialect and a broadcasting helper.
#ifndef TDSL_DIALECT_TDSL_IR_TDSLOPS_H
#define TDSL_DIALECT_TDSL_IR_TDSLOPS_H

#include "dialects/TDSL/IR/TDSLDialect.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::tdsl {

/// Numpy broadcast of two shapes (ShapedType::kDynamic marks `?`; a `?`
/// against a static extent N != 1 yields N). Fails if static extents clash.
LogicalResult getBroadcastShape(ArrayRef<int64_t> lhs, ArrayRef<int64_t> rhs,
                                SmallVectorImpl<int64_t> &result);

/// The type of broadcasting `lhs` with `rhs` (scalars or ranked tensors) with
/// the given element type: a scalar if both are scalars, else a ranked
/// tensor. Returns null if the shapes do not broadcast.
Type getBroadcastType(Type lhs, Type rhs, Type elementType);

/// The result type of a broadcasting binary op (tdsl.add, ...) on `lhs` and
/// `rhs`: their element type, the broadcast of their shapes.
Type inferBroadcastResult(Value lhs, Value rhs);

} // namespace mlir::tdsl

#define GET_OP_CLASSES
#include "dialects/TDSL/IR/TDSLOps.h.inc"

#endif // TDSL_DIALECT_TDSL_IR_TDSLOPS_H
