//===- GPULowerAllReduce.cpp - gpu.all_reduce as shuffles and shared memory ===//
//
// Upstream's all-reduce rewrite, as a pass on each gpu.module: it must run
// after kernel outlining and before convert-gpu-to-nvvm, which has no
// pattern for gpu.all_reduce.
//
//===----------------------------------------------------------------------===//
#include "compiler/Codegen/GPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace tdsl {
#define GEN_PASS_DEF_GPULOWERALLREDUCE
#include "compiler/Codegen/GPU/Passes.h.inc"
} // namespace tdsl

using namespace mlir;

namespace {

struct GPULowerAllReducePass
    : tdsl::impl::GPULowerAllReduceBase<GPULowerAllReducePass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateGpuAllReducePatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
