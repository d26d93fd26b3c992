//===- TargetBackend.cpp - The stage table and the list of targets ---------===//
#include "compiler/Target/TargetBackend.h"
#include "compiler/Target/CPU/CPUBackend.h"
#include "compiler/Target/CUDA/CUDABackend.h"

using namespace tdsl;

static const StageInfo kStages[] = {
    {Stage::Tokens, "tokens", "the token stream"},
    {Stage::AST, "ast", "the syntax tree, after parsing"},
    {Stage::TDSL, "tdsl", "IR in the tdsl dialect, after Sema"},
    {Stage::Linalg, "linalg", "linalg/tensor IR, after fusion"},
    {Stage::Tiled, "tiled", "after tiling into scf.forall"},
    {Stage::Bufferized, "bufferized", "after bufferization (cpu)"},
    {Stage::GPU, "gpu", "kernels outlined to gpu.modules (cuda)"},
    {Stage::NVVM, "nvvm", "kernels in the NVVM dialect (cuda)"},
    {Stage::PTX, "ptx", "the PTX of every kernel (cuda)"},
    {Stage::LLVMDialect, "llvm-mlir", "the LLVM dialect"},
    {Stage::LLVMIR, "llvm", "optimized LLVM IR"},
    {Stage::Asm, "asm", "host assembly"},
    {Stage::Obj, "obj", "a host object file"},
};

llvm::ArrayRef<StageInfo> tdsl::getStages() { return kStages; }

std::optional<Stage> tdsl::lookupStage(llvm::StringRef name) {
  for (const StageInfo &s : kStages)
    if (name == s.name)
      return s.stage;
  return std::nullopt;
}

llvm::StringRef tdsl::getStageName(Stage stage) {
  for (const StageInfo &s : kStages)
    if (s.stage == stage)
      return s.name;
  return "";
}

llvm::ArrayRef<const TargetBackend *> tdsl::getTargets() {
  static const TargetBackend *const targets[] = {&getCPUBackend(),
                                                 &getCUDABackend()};
  return targets;
}

const TargetBackend *tdsl::lookupTarget(llvm::StringRef name) {
  for (const TargetBackend *t : getTargets())
    if (t->getName() == name)
      return t;
  return nullptr;
}

std::string tdsl::getTargetNames() {
  std::string out;
  llvm::ArrayRef<const TargetBackend *> targets = getTargets();
  for (size_t i = 0; i < targets.size(); ++i)
    out += (i == 0 ? "" : i + 1 == targets.size() ? " or " : ", ") +
           targets[i]->getName().str();
  return out;
}
