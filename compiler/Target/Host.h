//===- CPUTarget.h - The CPU back end: LLVM IR, objects, executables, JIT --===//
#ifndef TDSL_TARGET_CPUTARGET_H
#define TDSL_TARGET_CPUTARGET_H

#include "compiler/Pipelines/Pipelines.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace llvm {
class Error;
class LLVMContext;
class Module;
class TargetMachine;
} // namespace llvm

namespace tdsl {

/// Renames the program's `entry` function (`main`) to `tdsl_main` and adds a
/// C `main(argc, argv)` that reads the runtime options (--threads,
/// --profile, ...), runs it, and prints the profile.
mlir::LogicalResult addEntryPoint(mlir::ModuleOp module,
                                  llvm::StringRef entry = "main");

/// Runs the CPU pipeline on a module in the tdsl dialect up to `stage`.
mlir::LogicalResult lowerForCPU(mlir::ModuleOp module,
                                const CPUPipelineOptions &options,
                                CPUStage stage);

/// Runs the CUDA pipeline on a module in the tdsl dialect up to `stage`.
mlir::LogicalResult lowerForCUDA(mlir::ModuleOp module,
                                 const CUDAPipelineOptions &options,
                                 CUDAStage stage);

/// The PTX of every kernel in `module` (after gpu-module-to-binary), each
/// under a `// kernel <name>` line.
void writePTX(mlir::ModuleOp module, llvm::raw_ostream &os);

/// The CUDA toolkit with libdevice ($CUDA_HOME, /usr/local/cuda), or "".
std::string getCUDAToolkitPath();

/// LLVM's optimizer at `optLevel` for `tm` (null: the default target),
/// after moving every alloca of constant size to its function's entry
/// block: the kernel launches that the GPU dialect's translation writes
/// allocate their argument arrays where they launch, in loops too, and a
/// long loop would overflow the stack (tdsl-hoist-allocas does the same for
/// the code MLIR lowers). Every JIT and object file goes through it.
std::function<llvm::Error(llvm::Module *)>
makeHostTransformer(unsigned optLevel, llvm::TargetMachine *tm);

/// Translates a module in the LLVM dialect to LLVM IR for the host and runs
/// LLVM's optimizer at `options.optLevel`. Reports errors through the
/// module's diagnostics and returns null.
std::unique_ptr<llvm::Module> translateForHost(mlir::ModuleOp module,
                                               llvm::LLVMContext &ctx,
                                               const CPUPipelineOptions &options);

/// Writes host assembly or an object file for `module`.
mlir::LogicalResult emitHostCode(llvm::Module &module, llvm::raw_pwrite_stream &os,
                                 bool assembly, std::string &error);

/// The directory holding libtdsl_runtime.so, found next to the running
/// executable (`<bin>/../lib`).
std::string getRuntimeLibDir(const char *argv0);

/// Links `objectFile` with the runtime into an executable at `output` using
/// the system's C++ compiler driver.
mlir::LogicalResult linkExecutable(const std::string &objectFile,
                                   const std::string &output,
                                   const std::string &runtimeDir,
                                   std::string &error);

/// JIT-compiles a module in the LLVM dialect and runs its C `main` with
/// `args` (args[0] is the program name). Returns main's exit code, or -1
/// after reporting a JIT error to `error`.
int runJIT(mlir::ModuleOp module, const CPUPipelineOptions &options,
           const std::string &runtimeDir, const std::vector<std::string> &args,
           std::string &error);

} // namespace tdsl

#endif // TDSL_TARGET_CPUTARGET_H
