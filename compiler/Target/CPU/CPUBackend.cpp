//===- CPUBackend.cpp - The CPU target: tiled loops on oneTBB --------------===//
#include "compiler/Target/CPU/CPUBackend.h"
#include "compiler/Pipelines/Pipelines.h"

using namespace tdsl;

namespace {

class CPUBackend final : public TargetBackend {
public:
  llvm::StringRef getName() const override { return "cpu"; }

  std::string checkStage(Stage stage) const override {
    if (stage == Stage::GPU || stage == Stage::NVVM || stage == Stage::PTX)
      return "--emit=gpu, nvvm and ptx need --target=cuda";
    return "";
  }

  void buildPipeline(mlir::OpPassManager &pm, const TargetOptions &options,
                     Stage stopAfter) const override {
    CPUPipelineOptions cpu;
    cpu.optLevel = options.optLevel;
    CPUStage stage = CPUStage::LLVMDialect;
    if (stopAfter == Stage::Linalg)
      stage = CPUStage::Linalg;
    else if (stopAfter == Stage::Tiled)
      stage = CPUStage::Tiled;
    else if (stopAfter == Stage::Bufferized)
      stage = CPUStage::Bufferized;
    buildCPUPipeline(pm, cpu, stage);
  }
};

} // namespace

const TargetBackend &tdsl::getCPUBackend() {
  static const CPUBackend backend;
  return backend;
}
