//===- HoistVectorTransfers.cpp - accumulators out of reduction loops -------===//
#include "compiler/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Transforms/Hoisting.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace tdsl {
#define GEN_PASS_DEF_HOISTVECTORTRANSFERS
#include "compiler/Codegen/CPU/Passes.h.inc"
} // namespace tdsl

namespace {
struct HoistVectorTransfersPass
    : tdsl::impl::HoistVectorTransfersBase<HoistVectorTransfersPass> {
  void runOnOperation() override {
    mlir::linalg::hoistRedundantVectorTransfers(getOperation());
  }
};
} // namespace
