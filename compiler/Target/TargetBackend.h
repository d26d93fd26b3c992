//===- TargetBackend.h - Targets behind one interface, and the stage table -===//
//
// A target is a pipeline from the tdsl dialect to the LLVM dialect of the
// host (with kernels embedded for a GPU), the stages a user can stop at and
// print, and whatever a stage prints that is not IR (PTX). Translating the
// host module, linking and the JIT are the same for every target
// (compiler/Target/Host.h). Adding a target is one folder and one line in
// getTargets().
//
//===----------------------------------------------------------------------===//
#ifndef TDSL_TARGET_TARGETBACKEND_H
#define TDSL_TARGET_TARGETBACKEND_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>

namespace tdsl {

/// The points where a compilation can stop and print what it has, in
/// pipeline order (`tdslc --emit=`, the REPL's `:ir`).
enum class Stage {
  Tokens, AST, TDSL,                            // front end
  Linalg, Tiled, Bufferized, GPU, NVVM, PTX,    // the target's pipeline
  LLVMDialect,                                  // its end
  LLVMIR, Asm, Obj                              // the host's LLVM
};

struct StageInfo {
  Stage stage;
  const char *name;        // as written after --emit=
  const char *description;
};

/// Every stage, in order: the one table of stage names.
llvm::ArrayRef<StageInfo> getStages();
std::optional<Stage> lookupStage(llvm::StringRef name);
llvm::StringRef getStageName(Stage stage);

/// Options of every target; each reads those it has.
struct TargetOptions {
  /// 0: serial and simple, for debugging; 1-3: tiled, parallel, vectorized.
  unsigned optLevel = 2;
  /// CUDA: the GPU architecture, sm_90 (H100/H200) or sm_80.
  std::string gpuArch = "sm_90";
  /// CUDA: threads per block of element-wise kernels and the outputs per
  /// block side of contractions (0: the compiler's choice).
  int64_t gpuBlockSize = 0;
  int64_t gpuTile = 0;
  /// CUDA: consecutive elements per thread of element-wise kernels (0: 4).
  int64_t gpuElementsPerThread = 0;
  /// CUDA: embed LLVM bitcode instead of PTX, for the CPU emulator.
  bool gpuBitcode = false;
  /// CPU: sizes that override the host's target model (0: the model's).
  int64_t cpuVectorWidth = 0;
  int64_t cpuContractionRows = 0;
  int64_t cpuContractionKBlock = 0;
  int64_t cpuContractionTile = 0;
  int64_t cpuElementwiseTile = 0;
  /// Verify the IR after every pass (mlir-opt's --verify-each). Off, the
  /// module is verified once, at the end: every pass's verification cost
  /// 0.2 s of the digits CNN's 1.4 s compile. The tests turn it on.
  bool verifyEach = false;
};

class TargetBackend {
public:
  virtual ~TargetBackend() = default;
  /// The name after --target= (and the REPL's :target).
  virtual llvm::StringRef getName() const = 0;
  /// "" when `options` suit this target, else what is wrong.
  virtual std::string checkOptions(const TargetOptions &options) const {
    return "";
  }
  /// "" when this target can stop at `stage`, else what to use instead.
  virtual std::string checkStage(Stage stage) const = 0;
  /// Adds the passes from the tdsl dialect (with an entry point) up to
  /// `stopAfter`, an IR stage of this target; LLVMDialect and later stages
  /// get the whole pipeline.
  virtual void buildPipeline(mlir::OpPassManager &pm,
                             const TargetOptions &options,
                             Stage stopAfter) const = 0;
  /// Passes that run after buildPipeline's, on a context with threads: the
  /// rest of the pipeline to `stopAfter`, when it nests on functions. None
  /// by default.
  virtual void buildThreadedPipeline(mlir::OpPassManager &pm,
                                     const TargetOptions &options,
                                     Stage stopAfter) const {}
  /// Writes a stage that is not IR (PTX) once the pipeline has run to it;
  /// false when `stage` is IR, which the caller prints.
  virtual bool writeStage(mlir::ModuleOp module, Stage stage,
                          llvm::raw_ostream &os) const {
    return false;
  }
};

/// Every target, the default (cpu) first.
llvm::ArrayRef<const TargetBackend *> getTargets();
/// The target named `name`, or null.
const TargetBackend *lookupTarget(llvm::StringRef name);
/// "cpu or cuda", for messages.
std::string getTargetNames();

} // namespace tdsl

#endif // TDSL_TARGET_TARGETBACKEND_H
