// tdsl-opt.cpp - mlir-opt style driver with the tdsl dialect registered.
#include "compiler/Pipelines/Pipelines.h"
#include "dialects/TDSL/IR/TDSLDialect.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  // Upstream dialects/extensions/passes are registered out of line in
  // libMLIR.so, so this stays cheap to compile while covering every
  // lowering we might test (func, arith, scf, tensor, linalg, ...).
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  // gpu-module-to-binary translates device code to LLVM IR (NVPTX).
  mlir::registerAllToLLVMIRTranslations(registry);
  mlir::registerAllPasses();
  registry.insert<tdsl::ir::TDSLDialect>();
  tdsl::registerTDSLPipelines();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "TDSL optimizer driver\n", registry));
}
