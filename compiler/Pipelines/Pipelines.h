//===- Pipelines.h - Named pass pipelines of tdslc, tdsl-opt and the REPL -===//
#ifndef TDSL_PIPELINES_PIPELINES_H
#define TDSL_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassManager.h"

namespace tdsl {

/// Options of the CPU code generation pipeline.
struct CPUPipelineOptions {
  /// 0 keeps the pipeline simple and serial, for debugging.
  unsigned optLevel = 2;
};

/// The points where `tdslc --emit=` can stop in the CPU pipeline.
enum class CPUStage { Linalg, Tiled, Bufferized, LLVMDialect };

/// tdsl -> linalg/tensor/scf, then fusion of element-wise producers and
/// consumers. Registered as `tdsl-to-linalg`.
void buildTDSLToLinalgPipeline(mlir::OpPassManager &pm);

/// Tiling of parallel loops into scf.forall (skipped at -O0). Registered as
/// `tdsl-cpu-tile`.
void buildCPUTilingPipeline(mlir::OpPassManager &pm,
                            const CPUPipelineOptions &options);

/// One-shot bufferization of the whole module and buffer deallocation.
/// Registered as `tdsl-cpu-bufferize`.
void buildCPUBufferizePipeline(mlir::OpPassManager &pm);

/// Loops, oneTBB launches and conversion to the LLVM dialect. Registered as
/// `tdsl-cpu-to-llvm`.
void buildCPUToLLVMPipeline(mlir::OpPassManager &pm,
                            const CPUPipelineOptions &options);

/// The whole CPU pipeline from the tdsl dialect up to `stopAfter`.
/// Registered (to the LLVM dialect) as `tdsl-cpu-pipeline`.
void buildCPUPipeline(mlir::OpPassManager &pm,
                      const CPUPipelineOptions &options,
                      CPUStage stopAfter = CPUStage::LLVMDialect);

/// Registers the pipelines above with MLIR's pass registry (for tdsl-opt).
void registerTDSLPipelines();

} // namespace tdsl

#endif // TDSL_PIPELINES_PIPELINES_H
