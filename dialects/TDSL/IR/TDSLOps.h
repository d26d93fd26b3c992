// TDSLOps.h - op classes of the tdsl dialect and a broadcasting helper.
#ifndef TDSL_DIALECT_TDSL_IR_TDSLOPS_H
#define TDSL_DIALECT_TDSL_IR_TDSLOPS_H

#include "dialects/TDSL/IR/TDSLDialect.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace tdsl::ir {

/// Numpy broadcast of two shapes (ShapedType::kDynamic marks `?`; a `?`
/// against a static extent N != 1 yields N). Fails if static extents clash.
llvm::LogicalResult getBroadcastShape(llvm::ArrayRef<int64_t> lhs,
                                      llvm::ArrayRef<int64_t> rhs,
                                      llvm::SmallVectorImpl<int64_t> &result);

/// The type of broadcasting `lhs` with `rhs` (scalars or ranked tensors) with
/// the given element type: a scalar if both are scalars, else a ranked
/// tensor. Returns null if the shapes do not broadcast.
mlir::Type getBroadcastType(mlir::Type lhs, mlir::Type rhs,
                            mlir::Type elementType);

/// The result type of a broadcasting binary op (tdsl.add, ...) on `lhs` and
/// `rhs`: their element type, the broadcast of their shapes.
mlir::Type inferBroadcastResult(mlir::Value lhs, mlir::Value rhs);

} // namespace tdsl::ir

#define GET_OP_CLASSES
#include "dialects/TDSL/IR/TDSLOps.h.inc"

#endif // TDSL_DIALECT_TDSL_IR_TDSLOPS_H
