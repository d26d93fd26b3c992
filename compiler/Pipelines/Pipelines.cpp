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
#include "dialects/TDSL/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Pass/PassRegistry.h"

#include <cstdlib>
#include <mutex>

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
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

/// `pipeline` with every `canonicalize` given our defaults ahead of its own
/// options: kUnsoundCanonicalizations left out, so no pipeline can forget
/// them, and a bottom-up walk. The top-down walk asks each op with regions
/// whether it is trivially dead, which walks its whole body: on the deep
/// loop nests after vector lowering that made one canonicalize 5x slower
/// (0.36 s of the digits CNN's compile) for the same result.
/// The braces around a pass's options in pipeline text.
static constexpr char kOpen = '{', kClose = '}';

static std::string guardCanonicalize(llvm::StringRef pipeline) {
  std::string guarded = std::string("canonicalize") + kOpen +
                        "top-down=false disable-patterns=";
  for (auto [i, name] : llvm::enumerate(kUnsoundCanonicalizations))
    guarded += (i ? "," : "") + ("\"" + llvm::Twine(name) + "\"").str();
  llvm::StringRef word = "canonicalize";
  std::string out;
  while (true) {
    size_t at = pipeline.find(word);
    if (at == llvm::StringRef::npos)
      return out + pipeline.str();
    // Only a whole element of the pipeline, not part of a path or another
    // option's value (toolkit=/opt/canonicalize/...).
    llvm::StringRef after = pipeline.drop_front(at + word.size());
    bool pass = (at == 0 || llvm::StringRef(",(").contains(pipeline[at - 1])) &&
                (after.empty() || after.front() == ',' || after.front() == ')' ||
                 after.front() == kOpen);
    out += pipeline.take_front(pass ? at : at + word.size());
    pipeline = after;
    if (!pass)
      continue;
    // Options written after ours win: the last value of an option counts.
    out += guarded;
    out += pipeline.consume_front(std::string(1, kOpen)) ? ' ' : kClose;
  }
}

static void addUpstream(OpPassManager &pm, llvm::StringRef pipeline) {
  static std::once_flag registered;
  std::call_once(registered, [] { registerAllPasses(); });
  std::string text = guardCanonicalize(pipeline);
  if (failed(parsePassPipeline(text, pm, llvm::errs())))
    llvm::report_fatal_error("invalid built-in pipeline: " + llvm::Twine(text));
}

void buildTDSLTransformPipeline(OpPassManager &pm) {
  // No inlining here: a kernel is named after the function it is written
  // in, when convert-tdsl-to-linalg makes it. No CSE: a tdsl.index of a
  // nested op reads that op's loop, and CSE would merge it with an equal
  // tdsl.index of the op around it.
  pm.addPass(createDifferentiate());
  pm.addPass(createSimplify());
}

void buildTDSLToLinalgPipeline(OpPassManager &pm, bool shareRandomBlocks,
                               bool runtimeModelInit, bool splitDividedLoops) {
  pm.addPass(createConvertTDSLToLinalg({shareRandomBlocks, runtimeModelInit}));
  // Inlining first lets the callers' static shapes reach every op; nested
  // generics become loops before any CSE could merge their linalg.index ops.
  addUpstream(pm, "inline{default-pipeline=},symbol-dce");
  pm.addPass(createLocateChecks());
  pm.addPass(createGuardRecursion());
  pm.addPass(createLowerNestedLinalg());
  pm.addPass(createCheckStaticShapes());
  addUpstream(pm, "canonicalize,cse");
  pm.addNestedPass<func::FuncOp>(createRefineLoopShapes());
  addUpstream(pm, "canonicalize,cse");
  pm.addNestedPass<func::FuncOp>(createFoldChecks());
  pm.addNestedPass<func::FuncOp>(createRaiseLoopContractions());
  if (splitDividedLoops)
    pm.addNestedPass<func::FuncOp>(createSplitDividedLoops());
  pm.addNestedPass<func::FuncOp>(createRaiseExtracts());
  pm.addNestedPass<func::FuncOp>(createFuseElementwise());
  addUpstream(pm, "canonicalize,cse");
}

void buildCPUTilingPipeline(OpPassManager &pm,
                            const CPUPipelineOptions &options) {
  if (options.optLevel > 0) {
    pm.addNestedPass<func::FuncOp>(createUpdateInPlace());
    pm.addNestedPass<func::FuncOp>(createFuseEpilogues());
  }
  pm.addPass(createTimeKernels());
  if (options.optLevel == 0) {
    // It sets the order of a float sum (docs/language.md 10.2), which must
    // not depend on the optimization level.
    pm.addNestedPass<func::FuncOp>(createSplitReduction());
    return;
  }
  if (!options.tuneCache.empty())
    pm.addPass(createApplyTuning({options.tuneCache, options.tuneMachine}));
  pm.addNestedPass<func::FuncOp>(createSliceOffsetReads());
  pm.addNestedPass<func::FuncOp>(createSplitStridedWindows());
  pm.addNestedPass<func::FuncOp>(createSplitReduction());
  pm.addNestedPass<func::FuncOp>(createCollapseDims());
  // After the merge: it keeps a transposed operand's merged dimensions
  // together (w[c, i, j, o] read along (c, i, j) is w'[o, cij]).
  pm.addNestedPass<func::FuncOp>(createPackTransposedOperands());
  pm.addNestedPass<func::FuncOp>(
      createTileToForall({options.contractionTile, options.minTasks,
                          options.elementwiseTile}));
  addUpstream(pm, "canonicalize,cse");
  pm.addNestedPass<func::FuncOp>(createVersionTiles());
  addUpstream(pm, "canonicalize");
  pm.addNestedPass<func::FuncOp>(
      createVectorize({options.vectorWidth, options.contractionRows,
                       options.contractionKBlock}));
  // The subset hoisting below and bufferization compare slices: not
  // through the sizes of loop-carried tensors (tdsl-remove-size-barriers
  // takes the barriers out after bufferization).
  pm.addNestedPass<func::FuncOp>(createHideLoopCarriedSizes());
  // Keeps vector accumulators in registers across reduction loops (code
  // motion first: a masked accumulator's mask is computed in the loop), then
  // reduces their lanes after the loop.
  addUpstream(pm, "func.func(lower-vector-mask),canonicalize,cse");
  pm.addNestedPass<func::FuncOp>(createLoopInvariantCodeMotion());
  addUpstream(pm, "loop-invariant-subset-hoisting,canonicalize,cse");
  pm.addNestedPass<func::FuncOp>(createDeferLaneReduction());
  addUpstream(pm, "canonicalize,cse");
}

void buildCPUBufferizePipeline(OpPassManager &pm) {
  // A tensor.empty whose value is inserted into a bigger tensor (an update
  // at an offset) becomes a slice of it, so the op writes there in place.
  pm.addNestedPass<func::FuncOp>(createPrepareInPlaceUpdates());
  addUpstream(pm, "eliminate-empty-tensors,"
                  "one-shot-bufferize{bufferize-function-boundaries "
                  "function-boundary-type-conversion=identity-layout-map "
                  "allow-return-allocs-from-loops}");
  pm.addNestedPass<func::FuncOp>(createRemoveSizeBarriers());
  pm.addNestedPass<func::FuncOp>(createMergeExclusiveAllocs());
  // A function that returns its argument on one path returns a clone of it
  // there (recursive functions: the others are inlined).
  addUpstream(pm, "canonicalize,buffer-deallocation-pipeline,canonicalize,"
                  "convert-bufferization-to-memref");
  pm.addNestedPass<func::FuncOp>(createHoistVectorTransfers());
  pm.addNestedPass<func::FuncOp>(createPeelMaskedLoops());
  pm.addNestedPass<func::FuncOp>(createShareShiftedReads());
  pm.addNestedPass<func::FuncOp>(createDeinterleaveStridedReads());
  pm.addNestedPass<func::FuncOp>(createChainKernelClocks());
}

void buildCPUOutlinePipeline(OpPassManager &pm,
                             const CPUPipelineOptions &options) {
  pm.addPass(createLocateAllocs());
  pm.addPass(createLowerStridedCopies());
  addUpstream(pm, "convert-linalg-to-loops");
  if (options.optLevel == 0)
    addUpstream(pm, "scf-forall-to-for");
  else
    pm.addPass(createForallToTBB());
}

void buildCPUFunctionsToLLVMPipeline(OpPassManager &pm) {
  // Per function: after outlining, a program is many of them (the digits
  // CNN: 35 parallel loop bodies), which a context with threads converts
  // side by side.
  OpPassManager &fn = pm.nest<func::FuncOp>();
  addUpstream(fn, "convert-vector-to-scf{full-unroll},lower-affine,canonicalize");
  fn.addPass(createLowerVector());
  fn.addPass(createExpandBF16());
  fn.addPass(createApproximateMath());
  addUpstream(fn, "canonicalize,expand-strided-metadata,lower-affine,"
                  "convert-scf-to-cf,"
                  "convert-vector-to-llvm{vector-contract-lowering=outerproduct},"
                  // LLVM intrinsics first (fma, floor, sqrt stay vector
                  // instructions), libm for what has none (tanh on f64).
                  "convert-math-to-llvm");
  addUpstream(pm, "convert-math-to-libm,"
                  // Buffers through the runtime's allocator (clean OOM errors).
                  "finalize-memref-to-llvm{use-generic-functions},convert-to-llvm,"
                  "reconcile-unrealized-casts");
  // Per function again, on the context's threads.
  OpPassManager &llvmFn = pm.nest<LLVM::LLVMFuncOp>();
  llvmFn.addPass(createFoldLLVMArith());
  // Dead casts and constants go (half the ops); LLVM's simplifycfg merges
  // blocks better and for less.
  addUpstream(llvmFn, "canonicalize{region-simplify=disabled}");
  pm.addPass(createHoistAllocas());
}

void buildCPUToLLVMPipeline(OpPassManager &pm,
                            const CPUPipelineOptions &options) {
  buildCPUOutlinePipeline(pm, options);
  buildCPUFunctionsToLLVMPipeline(pm);
}

void buildCPUPipeline(OpPassManager &pm, const CPUPipelineOptions &options,
                      CPUStage stopAfter) {
  buildTDSLTransformPipeline(pm);
  buildTDSLToLinalgPipeline(pm, /*shareRandomBlocks=*/options.optLevel > 0,
                            /*runtimeModelInit=*/true,
                            /*splitDividedLoops=*/options.optLevel > 0);
  if (stopAfter == CPUStage::Linalg)
    return;
  buildCPUTilingPipeline(pm, options);
  if (stopAfter == CPUStage::Tiled)
    return;
  buildCPUBufferizePipeline(pm);
  if (stopAfter == CPUStage::Bufferized)
    return;
  buildCPUOutlinePipeline(pm, options);
  if (stopAfter == CPUStage::Outlined)
    return;
  buildCPUFunctionsToLLVMPipeline(pm);
}

static GPUTileOptions tilingOf(const CUDAPipelineOptions &options) {
  GPUTileOptions tiling;
  if (options.blockSize > 0)
    tiling.blockSize = options.blockSize;
  if (options.tile > 0)
    tiling.tile = options.tile;
  if (options.elementsPerThread > 0)
    tiling.elementsPerThread = options.elementsPerThread;
  return tiling;
}

void buildCUDATilingPipeline(OpPassManager &pm,
                             const CUDAPipelineOptions &options) {
  pm.addPass(createGPUTile(tilingOf(options)));
  // The masks of the threads' vectors (partial tiles) as masked transfers.
  addUpstream(pm, "func.func(lower-vector-mask),canonicalize,cse");
  pm.addNestedPass<func::FuncOp>(createHideLoopCarriedSizes());
}

void buildCUDABufferizePipeline(OpPassManager &pm) {
  addUpstream(pm, "one-shot-bufferize{bufferize-function-boundaries "
                  "function-boundary-type-conversion=identity-layout-map "
                  "allow-return-allocs-from-loops}");
  pm.addNestedPass<func::FuncOp>(createRemoveSizeBarriers());
  addUpstream(pm, "canonicalize");
  pm.addPass(createGPUPromoteBuffers());
  addUpstream(pm, "buffer-deallocation-pipeline,canonicalize,"
                  "convert-bufferization-to-memref");
}

void buildCUDAKernelsPipeline(OpPassManager &pm,
                              const CUDAPipelineOptions &options) {
  GPUStageSharedOptions staging;
  staging.tile = tilingOf(options).tile;
  pm.addPass(createGPUStageShared(staging));
  pm.addPass(createGPUReduce());
  addUpstream(pm, "convert-linalg-to-loops");
  // The threads' vectors as 1-D (masked) loads and stores, which the NVVM
  // conversion takes.
  OpPassManager &fn = pm.nest<func::FuncOp>();
  addUpstream(fn, "convert-vector-to-scf{full-unroll},lower-affine,canonicalize");
  fn.addPass(createLowerVector());
  pm.addPass(createGPUHostMemory());
  pm.addPass(createGPUDeviceChecks());
  // Tiles to blocks, elements to threads: the nests of scf.parallel loops
  // are mapped outermost first.
  addUpstream(pm, "scf-forall-to-parallel,func.func(gpu-map-parallel-loops),"
                  "convert-parallel-loops-to-gpu,canonicalize,"
                  "gpu-launch-sink-index-computations,gpu-kernel-outlining");
  pm.addPass(createGPUAnnotateLaunches());
  pm.addPass(createGPUTransfers());
}

void buildCUDAToNVVMPipeline(OpPassManager &pm,
                             const CUDAPipelineOptions &options) {
  std::string attach = "nvvm-attach-target{chip=" + options.chip +
                       " features=" + options.features + "}";
  addUpstream(pm, "expand-strided-metadata,lower-affine," + attach);
  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  kernels.addPass(createGPULowerAllReduce());
  kernels.addPass(createGPULowerCopies());
  addUpstream(kernels, "convert-vector-to-llvm,convert-scf-to-cf,convert-gpu-to-nvvm,canonicalize,"
                       "reconcile-unrealized-casts");
  kernels.addPass(createGPUExactSqrt());
  kernels.addPass(createGPUCheckDeviceCalls());
  kernels.addPass(createHoistAllocas());
}

void buildCUDABinaryPipeline(OpPassManager &pm,
                             const CUDAPipelineOptions &options) {
  std::string toBinary = "gpu-module-to-binary{format=";
  toBinary += options.bitcode ? "llvm" : "isa";
  if (!options.toolkitPath.empty())
    toBinary += " toolkit=" + options.toolkitPath;
  addUpstream(pm, toBinary + "}");
  if (options.bitcode)
    pm.addPass(createGPUWrapBitcode());
}

void buildCUDAHostToLLVMPipeline(OpPassManager &pm) {
  pm.addNestedPass<func::FuncOp>(createExpandBF16());
  // The host's own vector code: canonicalizations after the first lowering
  // make n-D shape casts again (a transpose of unit dimensions), which the
  // conversion to LLVM does not take.
  pm.addNestedPass<func::FuncOp>(createLowerVector());
  addUpstream(pm, "convert-scf-to-cf,convert-math-to-libm,gpu-to-llvm,"
                  "finalize-memref-to-llvm{use-generic-functions},"
                  "convert-to-llvm,reconcile-unrealized-casts,canonicalize");
  pm.addPass(createHoistAllocas());
}

void buildCUDAPipeline(OpPassManager &pm, const CUDAPipelineOptions &options,
                       CUDAStage stopAfter) {
  buildTDSLTransformPipeline(pm);
  buildTDSLToLinalgPipeline(pm);
  buildCUDATilingPipeline(pm, options);
  if (stopAfter == CUDAStage::Tiled)
    return;
  buildCUDABufferizePipeline(pm);
  buildCUDAKernelsPipeline(pm, options);
  if (stopAfter == CUDAStage::GPU)
    return;
  buildCUDAToNVVMPipeline(pm, options);
  if (stopAfter == CUDAStage::NVVM)
    return;
  buildCUDABinaryPipeline(pm, options);
  if (stopAfter == CUDAStage::Binary)
    return;
  buildCUDAHostToLLVMPipeline(pm);
}

std::string getCUDAToolkitPath() {
  for (const char *candidate :
       {static_cast<const char *>(std::getenv("CUDA_HOME")), "/usr/local/cuda"}) {
    if (!candidate)
      continue;
    llvm::SmallString<256> libdevice(candidate);
    llvm::sys::path::append(libdevice, "nvvm", "libdevice");
    if (llvm::sys::fs::is_directory(libdevice))
      return candidate;
  }
  return "";
}

namespace {
struct CPUPipelineCLOptions
    : public PassPipelineOptions<CPUPipelineCLOptions> {
  /// Pipelines.h's model (not the host's): output does not depend on the host.
  static inline const CPUPipelineOptions kDefaults{};
  Option<unsigned> optLevel{*this, "opt-level",
                            llvm::cl::desc("0: serial and simple; 2: tiled, on oneTBB"),
                            llvm::cl::init(kDefaults.optLevel)};
  Option<int64_t> vectorWidth{*this, "vector-width",
                              llvm::cl::desc("f32 lanes of a vector register"),
                              llvm::cl::init(kDefaults.vectorWidth)};
  Option<int64_t> contractionRows{*this, "contraction-rows",
                                  llvm::cl::desc("rows of a contraction's register tile"),
                                  llvm::cl::init(kDefaults.contractionRows)};
  Option<int64_t> contractionTile{*this, "contraction-tile",
                                  llvm::cl::desc("side of a contraction's parallel tile"),
                                  llvm::cl::init(kDefaults.contractionTile)};
  Option<int64_t> minTasks{*this, "min-tasks",
                           llvm::cl::desc("tiles a static contraction should have "
                                          "at least (0: the tile as given)"),
                           llvm::cl::init(kDefaults.minTasks)};
  Option<int64_t> contractionKBlock{*this, "contraction-k-block",
                                    llvm::cl::desc("steps of a contraction's reduction per block"),
                                    llvm::cl::init(kDefaults.contractionKBlock)};
  Option<int64_t> elementwiseTile{*this, "elementwise-tile",
                                  llvm::cl::desc("elements of an element-wise task"),
                                  llvm::cl::init(kDefaults.elementwiseTile)};
  Option<std::string> tuneCache{*this, "tune-cache",
                                 llvm::cl::desc("the tuner's cache file (tdslc --tune)"),
                                 llvm::cl::init("")};
  Option<std::string> tuneMachine{*this, "tune-machine",
                                   llvm::cl::desc("the machine's key in the tuner's cache"),
                                   llvm::cl::init("")};
  CPUPipelineOptions get() const {
    CPUPipelineOptions o;
    o.optLevel = optLevel;
    o.tuneCache = tuneCache;
    o.tuneMachine = tuneMachine;
    o.vectorWidth = vectorWidth;
    o.contractionRows = contractionRows;
    o.contractionKBlock = contractionKBlock;
    o.contractionTile = contractionTile;
    o.minTasks = minTasks;
    o.elementwiseTile = elementwiseTile;
    return o;
  }
};
/// The options of `tdslc --target=cuda`, so that tdsl-opt reproduces any
/// of its runs.
struct CUDAPipelineCLOptions
    : public PassPipelineOptions<CUDAPipelineCLOptions> {
  Option<std::string> chip{*this, "chip",
                           llvm::cl::desc("sm_90 or sm_80 (--gpu-arch)"),
                           llvm::cl::init("sm_90")};
  Option<int64_t> blockSize{*this, "block-size",
                            llvm::cl::desc("threads per block of element-wise "
                                           "kernels (--gpu-block-size; 0: 128)"),
                            llvm::cl::init(0)};
  Option<int64_t> tile{*this, "tile",
                       llvm::cl::desc("outputs per block side of contractions "
                                      "(--gpu-tile; 0: 16)"),
                       llvm::cl::init(0)};
  Option<int64_t> elementsPerThread{
      *this, "elements-per-thread",
      llvm::cl::desc("consecutive elements per thread of element-wise "
                     "kernels (--gpu-elements-per-thread; 0: 4)"),
      llvm::cl::init(0)};
  Option<bool> bitcode{*this, "bitcode",
                       llvm::cl::desc("embed LLVM bitcode for the emulator "
                                      "(--gpu-bitcode)"),
                       llvm::cl::init(false)};
  Option<std::string> toolkit{
      *this, "toolkit",
      llvm::cl::desc("the CUDA toolkit with libdevice (default: as tdslc "
                     "finds it, $CUDA_HOME or /usr/local/cuda)"),
      llvm::cl::init("")};
  CUDAPipelineOptions get() const {
    CUDAPipelineOptions o;
    o.chip = chip;
    o.blockSize = blockSize;
    o.tile = tile;
    o.elementsPerThread = elementsPerThread;
    o.bitcode = bitcode;
    o.toolkitPath = toolkit.empty() ? getCUDAToolkitPath() : toolkit.getValue();
    return o;
  }
};
} // namespace

void registerTDSLPipelines() {
  registerTDSLTransformsPasses();
  registerTDSLConversionTDSLToLinalgPasses();
  registerTDSLCodegenCommonPasses();
  registerTDSLCodegenCPUPasses();
  registerTDSLCodegenGPUPasses();
  PassPipelineRegistration<>("tdsl-transform",
                             "Simplify tdsl ops (what --emit=tdsl shows)",
                             buildTDSLTransformPipeline);
  PassPipelineRegistration<>("tdsl-to-linalg",
                             "Lower tdsl to linalg and fuse element-wise ops",
                             [](OpPassManager &pm) { buildTDSLToLinalgPipeline(pm); });
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
  PassPipelineRegistration<CUDAPipelineCLOptions>(
      "tdsl-cuda-tile", "Tile linalg ops into blocks and threads",
      [](OpPassManager &pm, const CUDAPipelineCLOptions &o) {
        buildCUDATilingPipeline(pm, o.get());
      });
  PassPipelineRegistration<>(
      "tdsl-cuda-bufferize",
      "Bufferize, small buffers of kernels on the stack, deallocate",
      buildCUDABufferizePipeline);
  PassPipelineRegistration<CUDAPipelineCLOptions>(
      "tdsl-cuda-to-gpu",
      "Shared-memory staging, tree reductions, managed memory, device "
      "checks, kernels outlined to gpu.modules",
      [](OpPassManager &pm, const CUDAPipelineCLOptions &o) {
        buildCUDAKernelsPipeline(pm, o.get());
      });
  PassPipelineRegistration<CUDAPipelineCLOptions>(
      "tdsl-cuda-to-nvvm", "Kernels to the NVVM dialect",
      [](OpPassManager &pm, const CUDAPipelineCLOptions &o) {
        buildCUDAToNVVMPipeline(pm, o.get());
      });
  PassPipelineRegistration<CUDAPipelineCLOptions>(
      "tdsl-cuda-to-binary", "Kernels to PTX (or bitcode) in gpu.binary ops",
      [](OpPassManager &pm, const CUDAPipelineCLOptions &o) {
        buildCUDABinaryPipeline(pm, o.get());
      });
  PassPipelineRegistration<>("tdsl-cuda-host-to-llvm",
                             "The host code to the LLVM dialect (mgpu* calls)",
                             buildCUDAHostToLLVMPipeline);
  PassPipelineRegistration<CUDAPipelineCLOptions>(
      "tdsl-cuda-pipeline",
      "The whole CUDA pipeline, tdsl to the LLVM dialect with PTX",
      [](OpPassManager &pm, const CUDAPipelineCLOptions &o) {
        buildCUDAPipeline(pm, o.get());
      });
  PassPipelineRegistration<CPUPipelineCLOptions>(
      "tdsl-cpu-pipeline", "The whole CPU pipeline, tdsl to the LLVM dialect",
      [](OpPassManager &pm, const CPUPipelineCLOptions &o) {
        buildCPUPipeline(pm, o.get());
      });
}

} // namespace tdsl
