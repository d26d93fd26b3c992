//===- Pipelines.h - Named pass pipelines of tdslc, tdsl-opt and the REPL -===//
#ifndef TDSL_PIPELINES_PIPELINES_H
#define TDSL_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassManager.h"

namespace tdsl {

/// Options of the CPU code generation pipeline.
struct CPUPipelineOptions {
  /// 0 keeps the pipeline simple and serial, for debugging.
  unsigned optLevel = 2;
  /// The sizes of the target model (docs/performance.md); tdslc takes them
  /// from the host (CPUTargetModel), tdsl-opt from these defaults.
  int64_t vectorWidth = 16;     // f32 lanes of a vector register
  int64_t contractionRows = 8;  // rows of a contraction's register tile
  int64_t contractionTile = 256; // side of a contraction's parallel tile
  int64_t minTasks = 8; // tiles a static contraction should have (0: exact tile)
  int64_t contractionKBlock = 256; // steps of a contraction's reduction per block
  int64_t elementwiseTile = 16384; // elements of an element-wise task
  /// The tuner's cache and this machine's key in it (tdsl-apply-tuning);
  /// no cache: every contraction takes the sizes above.
  std::string tuneCache;
  std::string tuneMachine;
};

/// The points where `tdslc --emit=` can stop in the CPU pipeline, and
/// Outlined: parallel loop bodies made functions, before the conversion to
/// the LLVM dialect (which tdslc runs per function, on threads).
enum class CPUStage { Linalg, Tiled, Bufferized, Outlined, LLVMDialect };

/// Transformations at the tdsl level, the first stage of every pipeline:
/// tdsl-simplify. Registered as `tdsl-transform`.
void buildTDSLTransformPipeline(mlir::OpPassManager &pm);

/// tdsl -> linalg/tensor/scf, then fusion of element-wise producers and
/// consumers; `shareRandomBlocks` (the CPU above -O0) lets draws in loops
/// share Philox blocks, `runtimeModelInit` (the CPU) fills model
/// initializers through the runtime, `splitDividedLoops` (the CPU, -O1 and
/// up) runs tdsl-split-divided-loops (the CUDA tiling left its split ops on
/// the host). Registered as `tdsl-to-linalg` (without any).
void buildTDSLToLinalgPipeline(mlir::OpPassManager &pm, bool shareRandomBlocks = false,
                               bool runtimeModelInit = false,
                               bool splitDividedLoops = false);

/// Tiling of parallel loops into scf.forall (skipped at -O0). Registered as
/// `tdsl-cpu-tile`.
void buildCPUTilingPipeline(mlir::OpPassManager &pm,
                            const CPUPipelineOptions &options);

/// One-shot bufferization of the whole module and buffer deallocation.
/// Registered as `tdsl-cpu-bufferize`.
void buildCPUBufferizePipeline(mlir::OpPassManager &pm);

/// Loops, and parallel loops as oneTBB launches of outlined bodies.
void buildCPUOutlinePipeline(mlir::OpPassManager &pm,
                             const CPUPipelineOptions &options);

/// Vector lowering and the conversion to the LLVM dialect, in a pipeline
/// nested on each function, then the module's conversions.
void buildCPUFunctionsToLLVMPipeline(mlir::OpPassManager &pm);

/// Both of the above. Registered as `tdsl-cpu-to-llvm`.
void buildCPUToLLVMPipeline(mlir::OpPassManager &pm,
                            const CPUPipelineOptions &options);

/// The whole CPU pipeline from the tdsl dialect up to `stopAfter`.
/// Registered (to the LLVM dialect) as `tdsl-cpu-pipeline`.
void buildCPUPipeline(mlir::OpPassManager &pm,
                      const CPUPipelineOptions &options,
                      CPUStage stopAfter = CPUStage::LLVMDialect);

/// Options of the CUDA code generation pipeline.
struct CUDAPipelineOptions {
  /// sm_90 (H100/H200) by default; sm_80 also supported.
  std::string chip = "sm_90";
  /// The PTX ISA version LLVM emits; CUDA 13's ptxas accepts up to 9.0.
  std::string features = "+ptx80";
  /// Where libdevice is found for math functions ("" if none).
  std::string toolkitPath;
  /// Threads per block of element-wise kernels, and rows/columns of outputs
  /// per block of contractions (0: the compiler's choice).
  int64_t blockSize = 0;
  int64_t tile = 0;
  /// Consecutive elements per thread of element-wise kernels (0: 4).
  int64_t elementsPerThread = 0;
  /// Embed LLVM bitcode instead of PTX, for the CPU emulator of the tests.
  bool bitcode = false;
};

/// The points where `tdslc --target=cuda --emit=` can stop.
enum class CUDAStage { Tiled, GPU, NVVM, Binary, LLVMDialect };

/// GPU tiling: blocks and threads, fills fused. `tdsl-cuda-tile`.
void buildCUDATilingPipeline(mlir::OpPassManager &pm,
                             const CUDAPipelineOptions &options);

/// Bufferization, small kernel buffers on the stack, deallocation.
/// `tdsl-cuda-bufferize`.
void buildCUDABufferizePipeline(mlir::OpPassManager &pm);

/// Shared-memory staging, tree reductions, managed buffers, device-side
/// checks, scf.parallel to gpu.launch, kernels outlined to gpu.modules.
/// `tdsl-cuda-to-gpu`.
void buildCUDAKernelsPipeline(mlir::OpPassManager &pm,
                              const CUDAPipelineOptions &options);

/// The kernels to the NVVM dialect (for options.chip). `tdsl-cuda-to-nvvm`.
void buildCUDAToNVVMPipeline(mlir::OpPassManager &pm,
                             const CUDAPipelineOptions &options);

/// PTX (or bitcode) embedded in gpu.binary ops. `tdsl-cuda-to-binary`.
void buildCUDABinaryPipeline(mlir::OpPassManager &pm,
                             const CUDAPipelineOptions &options);

/// The host to the LLVM dialect with mgpu* runtime calls.
/// `tdsl-cuda-host-to-llvm`.
void buildCUDAHostToLLVMPipeline(mlir::OpPassManager &pm);

/// tdsl -> linalg, then the CUDA pipelines above up to `stopAfter`.
/// Registered (with the options of tdslc --target=cuda: chip, block-size,
/// tile, bitcode, toolkit) as `tdsl-cuda-pipeline`.
void buildCUDAPipeline(mlir::OpPassManager &pm,
                       const CUDAPipelineOptions &options,
                       CUDAStage stopAfter = CUDAStage::LLVMDialect);

/// The CUDA toolkit with libdevice ($CUDA_HOME, /usr/local/cuda), or "".
std::string getCUDAToolkitPath();

/// Registers the pipelines above with MLIR's pass registry (for tdsl-opt).
void registerTDSLPipelines();

} // namespace tdsl

#endif // TDSL_PIPELINES_PIPELINES_H
