//===- Pipelines.cpp - Named pass pipelines of tdslc, tdsl-opt and the REPL -===//
//
// Upstream passes are added by their textual names: that is their stable
// interface across MLIR releases; ours by their create functions.
//
//===----------------------------------------------------------------------===//
#include "compiler/Pipelines/Pipelines.h"
#include "compiler/Codegen/CPU/Passes.h"
#include "compiler/Codegen/Common/Passes.h"
#include "compiler/Codegen/GPU/Passes.h"
#include "compiler/Conversion/TDSLToLinalg/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Pass/PassRegistry.h"

#include <mutex>

#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace tdsl {

/// Upstream canonicalization patterns that are unsound for TDSL programs.
/// scf.for's ForOpTensorCastFolder moves a tensor.cast of a loop's initial
/// value into the loop and casts every yielded value back to the initial
/// static type: a carried tensor whose size changes from one iteration to
/// the next would keep its first size (test/Regression/loop-carried-size.tdsl).
static const char *const kUnsoundCanonicalizations[] = {
    "(anonymous namespace)::ForOpTensorCastFolder"};

/// `pipeline` with every bare `canonicalize` replaced by one that leaves out
/// kUnsoundCanonicalizations, so no pipeline can forget them.
static std::string guardCanonicalize(llvm::StringRef pipeline) {
  std::string guarded = "canonicalize{disable-patterns=";
  for (auto [i, name] : llvm::enumerate(kUnsoundCanonicalizations))
    guarded += (i ? "," : "") + ("\"" + llvm::Twine(name) + "\"").str();
  guarded += "}";
  std::string out;
  llvm::StringRef word = "canonicalize";
  while (!pipeline.empty()) {
    size_t at = pipeline.find(word);
    if (at == llvm::StringRef::npos) {
      out += pipeline;
      break;
    }
    out += pipeline.take_front(at);
    pipeline = pipeline.drop_front(at + word.size());
    out += pipeline.starts_with("{") ? word.str() : guarded;
  }
  return out;
}

static void addUpstream(OpPassManager &pm, llvm::StringRef pipeline) {
  static std::once_flag registered;
  std::call_once(registered, [] { registerAllPasses(); });
  std::string text = guardCanonicalize(pipeline);
  if (failed(parsePassPipeline(text, pm, llvm::errs())))
    llvm::report_fatal_error("invalid built-in pipeline: " + llvm::Twine(text));
}

void buildTDSLToLinalgPipeline(OpPassManager &pm) {
  pm.addPass(createConvertTDSLToLinalg());
  // Inlining first lets the callers' static shapes reach every op; nested
  // generics become loops before any CSE could merge their linalg.index ops.
  addUpstream(pm, "inline{default-pipeline=},symbol-dce");
  pm.addPass(createLowerNestedLinalg());
  pm.addPass(createCheckStaticShapes());
  addUpstream(pm, "canonicalize,cse");
  pm.addNestedPass<func::FuncOp>(createFuseElementwise());
  addUpstream(pm, "canonicalize,cse");
}

void buildCPUTilingPipeline(OpPassManager &pm,
                            const CPUPipelineOptions &options) {
  pm.addPass(createTimeKernels());
  if (options.optLevel == 0)
    return;
  pm.addNestedPass<func::FuncOp>(createTileToForall());
  addUpstream(pm, "canonicalize,cse");
  pm.addNestedPass<func::FuncOp>(createVectorize());
  // Keeps vector accumulators in registers across reduction loops.
  addUpstream(pm, "func.func(lower-vector-mask),canonicalize,cse,"
                  "loop-invariant-subset-hoisting,canonicalize,cse");
}

void buildCPUBufferizePipeline(OpPassManager &pm) {
  addUpstream(pm, "one-shot-bufferize{bufferize-function-boundaries "
                  "function-boundary-type-conversion=identity-layout-map "
                  "allow-return-allocs-from-loops},"
                  "canonicalize,buffer-deallocation-pipeline,canonicalize");
  pm.addNestedPass<func::FuncOp>(createHoistVectorTransfers());
}

void buildCPUToLLVMPipeline(OpPassManager &pm,
                            const CPUPipelineOptions &options) {
  pm.addPass(createLocateAllocs());
  addUpstream(pm, "convert-linalg-to-loops");
  if (options.optLevel == 0)
    addUpstream(pm, "scf-forall-to-for");
  else
    pm.addPass(createForallToTBB());
  addUpstream(pm, "convert-vector-to-scf{full-unroll},lower-affine,canonicalize");
  pm.addNestedPass<func::FuncOp>(createLowerVector());
  addUpstream(pm, "canonicalize,expand-strided-metadata,lower-affine,"
                  "convert-scf-to-cf,"
                  "convert-vector-to-llvm{vector-contract-lowering=outerproduct},"
                  "convert-math-to-libm,"
                  // Buffers through the runtime's allocator (clean OOM errors).
                  "finalize-memref-to-llvm{use-generic-functions},convert-to-llvm,"
                  "reconcile-unrealized-casts,canonicalize");
  pm.addPass(createHoistAllocas());
}

void buildCPUPipeline(OpPassManager &pm, const CPUPipelineOptions &options,
                      CPUStage stopAfter) {
  buildTDSLToLinalgPipeline(pm);
  if (stopAfter == CPUStage::Linalg)
    return;
  buildCPUTilingPipeline(pm, options);
  if (stopAfter == CPUStage::Tiled)
    return;
  buildCPUBufferizePipeline(pm);
  if (stopAfter == CPUStage::Bufferized)
    return;
  buildCPUToLLVMPipeline(pm, options);
}

void buildCUDAPipeline(OpPassManager &pm, const CUDAPipelineOptions &options,
                       CUDAStage stopAfter) {
  buildTDSLToLinalgPipeline(pm);
  GPUTileOptions tiling;
  if (options.blockSize > 0)
    tiling.blockSize = options.blockSize;
  if (options.tile > 0)
    tiling.tile = options.tile;
  pm.addPass(createGPUTile(tiling));
  addUpstream(pm, "canonicalize,cse");
  if (stopAfter == CUDAStage::Tiled)
    return;
  addUpstream(pm, "one-shot-bufferize{bufferize-function-boundaries "
                  "function-boundary-type-conversion=identity-layout-map "
                  "allow-return-allocs-from-loops},canonicalize");
  pm.addPass(createGPUPromoteBuffers());
  addUpstream(pm, "buffer-deallocation-pipeline,canonicalize");
  GPUStageSharedOptions staging;
  staging.tile = tiling.tile;
  pm.addPass(createGPUStageShared(staging));
  pm.addPass(createGPUReduce());
  addUpstream(pm, "convert-linalg-to-loops");
  pm.addPass(createGPUHostMemory());
  pm.addPass(createGPUDeviceChecks());
  // Tiles to blocks, elements to threads: the nests of scf.parallel loops
  // are mapped outermost first.
  addUpstream(pm, "scf-forall-to-parallel,func.func(gpu-map-parallel-loops),"
                  "convert-parallel-loops-to-gpu,canonicalize,"
                  "gpu-launch-sink-index-computations,gpu-kernel-outlining");
  pm.addPass(createGPUAnnotateLaunches());
  pm.addPass(createGPUTransfers());
  if (stopAfter == CUDAStage::GPU)
    return;
  std::string attach = "nvvm-attach-target{chip=" + options.chip +
                       " features=" + options.features + "}";
  addUpstream(pm, "expand-strided-metadata,lower-affine," + attach);
  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  kernels.addPass(createGPULowerAllReduce());
  addUpstream(kernels, "convert-scf-to-cf,convert-gpu-to-nvvm,canonicalize,"
                       "reconcile-unrealized-casts");
  kernels.addPass(createGPUCheckDeviceCalls());
  kernels.addPass(createHoistAllocas());
  if (stopAfter == CUDAStage::NVVM)
    return;
  std::string toBinary = "gpu-module-to-binary{format=";
  toBinary += options.bitcode ? "llvm" : "isa";
  if (!options.toolkitPath.empty())
    toBinary += " toolkit=" + options.toolkitPath;
  addUpstream(pm, toBinary + "}");
  if (options.bitcode)
    pm.addPass(createGPUWrapBitcode());
  if (stopAfter == CUDAStage::Binary)
    return;
  addUpstream(pm, "convert-scf-to-cf,convert-math-to-libm,gpu-to-llvm,"
                  "finalize-memref-to-llvm{use-generic-functions},"
                  "convert-to-llvm,reconcile-unrealized-casts,canonicalize");
  pm.addPass(createHoistAllocas());
}

namespace {
struct CPUPipelineCLOptions
    : public PassPipelineOptions<CPUPipelineCLOptions> {
  Option<unsigned> optLevel{*this, "opt-level",
                            llvm::cl::desc("0: serial and simple; 2: tiled, on oneTBB"),
                            llvm::cl::init(2)};
  CPUPipelineOptions get() const {
    CPUPipelineOptions o;
    o.optLevel = optLevel;
    return o;
  }
};
} // namespace

void registerTDSLPipelines() {
  registerTDSLConversionTDSLToLinalgPasses();
  registerTDSLCodegenCommonPasses();
  registerTDSLCodegenCPUPasses();
  registerTDSLCodegenGPUPasses();
  PassPipelineRegistration<>("tdsl-to-linalg",
                             "Lower tdsl to linalg and fuse element-wise ops",
                             buildTDSLToLinalgPipeline);
  PassPipelineRegistration<CPUPipelineCLOptions>(
      "tdsl-cpu-tile", "Tile linalg ops into scf.forall for the CPU",
      [](OpPassManager &pm, const CPUPipelineCLOptions &o) {
        buildCPUTilingPipeline(pm, o.get());
      });
  PassPipelineRegistration<>("tdsl-cpu-bufferize",
                             "Bufferize and deallocate for the CPU",
                             buildCPUBufferizePipeline);
  PassPipelineRegistration<CPUPipelineCLOptions>(
      "tdsl-cpu-to-llvm", "Lower bufferized code to the LLVM dialect on oneTBB",
      [](OpPassManager &pm, const CPUPipelineCLOptions &o) {
        buildCPUToLLVMPipeline(pm, o.get());
      });
  PassPipelineRegistration<>(
      "tdsl-cuda-pipeline",
      "The whole CUDA pipeline (sm_90), tdsl to the LLVM dialect with PTX",
      [](OpPassManager &pm) { buildCUDAPipeline(pm, CUDAPipelineOptions()); });
  PassPipelineRegistration<CPUPipelineCLOptions>(
      "tdsl-cpu-pipeline", "The whole CPU pipeline, tdsl to the LLVM dialect",
      [](OpPassManager &pm, const CPUPipelineCLOptions &o) {
        buildCPUPipeline(pm, o.get());
      });
}

} // namespace tdsl
