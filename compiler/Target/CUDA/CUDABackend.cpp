//===- CUDABackend.cpp - The CUDA target: PTX kernels for NVIDIA GPUs ------===//
#include "compiler/Target/CUDA/CUDABackend.h"
#include "compiler/Pipelines/Pipelines.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"


using namespace tdsl;

namespace {

class CUDABackend final : public TargetBackend {
public:
  llvm::StringRef getName() const override { return "cuda"; }

  std::string checkOptions(const TargetOptions &options) const override {
    if (options.gpuArch != "sm_90" && options.gpuArch != "sm_80")
      return "unsupported --gpu-arch '" + options.gpuArch + "' (sm_90 or sm_80)";
    // A block has at most 1024 threads (tile x tile for contractions).
    if (options.gpuBlockSize < 0 || options.gpuBlockSize > 1024 ||
        options.gpuTile < 0 || options.gpuTile * options.gpuTile > 1024)
      return "--gpu-block-size must be 1..1024 and --gpu-tile 1..32 (a block "
             "has at most 1024 threads)";
    if (options.gpuElementsPerThread < 0 || options.gpuElementsPerThread > 64)
      return "--gpu-elements-per-thread must be 1..64";
    return "";
  }

  std::string checkStage(Stage stage) const override {
    if (stage == Stage::Bufferized)
      return "--emit=bufferized is a CPU stage; with --target=cuda use tiled, "
             "gpu, nvvm or ptx";
    return "";
  }

  void buildPipeline(mlir::OpPassManager &pm, const TargetOptions &options,
                     Stage stopAfter) const override {
    CUDAPipelineOptions cuda;
    cuda.chip = options.gpuArch;
    cuda.toolkitPath = getCUDAToolkitPath();
    cuda.blockSize = options.gpuBlockSize;
    cuda.tile = options.gpuTile;
    cuda.elementsPerThread = options.gpuElementsPerThread;
    cuda.bitcode = options.gpuBitcode;
    CUDAStage stage = CUDAStage::LLVMDialect;
    // Linalg IR is not a stop of its own: kernels are tiled right after.
    if (stopAfter == Stage::Linalg || stopAfter == Stage::Tiled)
      stage = CUDAStage::Tiled;
    else if (stopAfter == Stage::GPU)
      stage = CUDAStage::GPU;
    else if (stopAfter == Stage::NVVM)
      stage = CUDAStage::NVVM;
    else if (stopAfter == Stage::PTX)
      stage = CUDAStage::Binary;
    buildCUDAPipeline(pm, cuda, stage);
  }

  /// The PTX of every kernel, each under a `// kernel <name>` line.
  bool writeStage(mlir::ModuleOp module, Stage stage,
                  llvm::raw_ostream &os) const override {
    if (stage != Stage::PTX)
      return false;
    for (auto binary : module.getOps<mlir::gpu::BinaryOp>())
      for (mlir::Attribute a : binary.getObjects())
        if (auto object = llvm::dyn_cast<mlir::gpu::ObjectAttr>(a))
          os << "// kernel " << binary.getSymName() << "\n"
             << object.getObject().getValue();
    return true;
  }
};

} // namespace

const TargetBackend &tdsl::getCUDABackend() {
  static const CUDABackend backend;
  return backend;
}
