//===- Host.h - The host's LLVM: IR, objects, executables, the JIT -------===//
//
// What every target shares once its pipeline has reached the LLVM dialect:
// translation to LLVM IR for this machine, object files, linking with the
// runtime, and the JIT that `tdslc run` and the REPL both use.
//
//===----------------------------------------------------------------------===//
#ifndef TDSL_TARGET_HOST_H
#define TDSL_TARGET_HOST_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/Timing.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace llvm {
class LLVMContext;
class Module;
class TargetMachine;
} // namespace llvm

namespace mlir {
class ExecutionEngine;
} // namespace mlir

namespace tdsl {

/// LLVM's optimizer at `optLevel` for `tm` (null: the default target),
/// after moving every alloca of constant size to its function's entry
/// block: the kernel launches that the GPU dialect's translation writes
/// allocate their argument arrays where they launch, in loops too, and a
/// long loop would overflow the stack (tdsl-hoist-allocas does the same for
/// the code MLIR lowers). With `mergeFunctions`, functions with equal
/// bodies are merged first (the pieces of a split compile were, before the
/// split). Every JIT and object file goes through it.
std::function<llvm::Error(llvm::Module *)>
makeHostTransformer(unsigned optLevel, llvm::TargetMachine *tm,
                    bool mergeFunctions = true);

/// Registers every translation to LLVM IR with `ctx` (a CUDA program's
/// host module holds gpu.binary ops, and gpu-module-to-binary translates
/// kernels).
void registerTranslations(mlir::MLIRContext *ctx);

/// Translates a module in the LLVM dialect to LLVM IR for the host and runs
/// LLVM's optimizer at `optLevel`. Reports errors through the module's
/// diagnostics and returns null.
std::unique_ptr<llvm::Module> translateForHost(mlir::ModuleOp module,
                                               llvm::LLVMContext &ctx,
                                               unsigned optLevel);

/// Writes host assembly or an object file for `module`.
mlir::LogicalResult emitHostCode(llvm::Module &module, llvm::raw_pwrite_stream &os,
                                 bool assembly, std::string &error);

/// The directory holding libtdsl_runtime.so, found next to the running
/// executable (`<bin>/../lib`).
std::string getRuntimeLibDir(const char *argv0);

/// Links `objectFile` with the runtime into an executable at `output` using
/// the system's C++ compiler driver.
/// Writes `module` (LLVM dialect) as object files to new temporary files
/// (their paths appended to `paths`, also after a failure): optimized and
/// compiled in `parts` pieces, each on a thread of its own, or in one piece
/// when `parts` is 1 or the module holds GPU code. With `timing`, its
/// serial steps and the pieces' compile are timed under it.
mlir::LogicalResult emitHostObjects(mlir::ModuleOp module, unsigned optLevel,
                                    unsigned parts, std::vector<std::string> &paths,
                                    std::string &error,
                                    mlir::TimingScope *timing = nullptr);

mlir::LogicalResult linkExecutable(const std::vector<std::string> &objectFiles,
                                   const std::string &output,
                                   const std::string &runtimeDir,
                                   std::string &error);

/// A JIT for a module in the LLVM dialect, with the runtime loaded and the
/// host's target machine at `optLevel` (the code `tdslc -o` would build).
llvm::Expected<std::unique_ptr<mlir::ExecutionEngine>>
createJIT(mlir::ModuleOp module, unsigned optLevel, const std::string &runtimeDir);

/// JIT-compiles a module in the LLVM dialect and runs its C `main` with
/// `args` (args[0] is the program name). Returns main's exit code, or -1
/// after reporting a JIT error to `error`.
int runJIT(mlir::ModuleOp module, unsigned optLevel,
           const std::string &runtimeDir, const std::vector<std::string> &args,
           std::string &error);

} // namespace tdsl

#endif // TDSL_TARGET_HOST_H
