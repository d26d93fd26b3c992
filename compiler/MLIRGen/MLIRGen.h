//===- MLIRGen.h - Lowers a checked .tdsl program to the tdsl dialect -----===//
#ifndef TDSL_MLIRGEN_MLIRGEN_H
#define TDSL_MLIRGEN_MLIRGEN_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

namespace mlir {
class MLIRContext;
class DialectRegistry;
} // namespace mlir

namespace tdsl {
struct Program;
class DiagEngine;

/// Registers the dialects MLIRGen's output uses.
void registerFrontendDialects(mlir::DialectRegistry &registry);

/// Builds a module of func.func ops in the tdsl dialect, with the DSL's
/// file:line:col on every op. Expects a program that passed Sema; reports
/// what it cannot express through `diags` and returns null.
mlir::OwningOpRef<mlir::ModuleOp> generateMLIR(mlir::MLIRContext &context,
                                               Program &program,
                                               DiagEngine &diags);

} // namespace tdsl

#endif // TDSL_MLIRGEN_MLIRGEN_H
