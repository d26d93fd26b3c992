//===- CPUBackend.cpp - The CPU target: tiled loops on oneTBB --------------===//
#include "compiler/Target/CPU/CPUBackend.h"
#include "compiler/Pipelines/Pipelines.h"
#include "compiler/Target/CPU/CPUTargetModel.h"

using namespace tdsl;

namespace {

class CPUBackend final : public TargetBackend {
public:
  llvm::StringRef getName() const override { return "cpu"; }

  std::string checkOptions(const TargetOptions &options) const override {
    return checkCPUSizeOverrides(options);
  }

  std::string checkStage(Stage stage) const override {
    if (stage == Stage::GPU || stage == Stage::NVVM || stage == Stage::PTX)
      return "--emit=gpu, nvvm and ptx need --target=cuda";
    return "";
  }

  void buildPipeline(mlir::OpPassManager &pm, const TargetOptions &options,
                     Stage stopAfter) const override {
    // Up to the outlined parallel loop bodies; buildThreadedPipeline goes
    // on from there.
    CPUStage stage = CPUStage::Outlined;
    if (stopAfter == Stage::Linalg)
      stage = CPUStage::Linalg;
    else if (stopAfter == Stage::Tiled)
      stage = CPUStage::Tiled;
    else if (stopAfter == Stage::Bufferized)
      stage = CPUStage::Bufferized;
    buildCPUPipeline(pm, hostOptions(options), stage);
  }

  void buildThreadedPipeline(mlir::OpPassManager &pm, const TargetOptions &options,
                             Stage stopAfter) const override {
    // Every stage after Bufferized: buildPipeline stopped at Outlined.
    if (stopAfter > Stage::Bufferized)
      buildCPUFunctionsToLLVMPipeline(pm);
  }

private:
  static CPUPipelineOptions hostOptions(const TargetOptions &options) {
    // The host's model: a JIT and an executable run where they are built.
    static const CPUTargetModel host = CPUTargetModel::forHost();
    return host.pipelineOptions(options);
  }
};

} // namespace

const TargetBackend &tdsl::getCPUBackend() {
  static const CPUBackend backend;
  return backend;
}
