//===- Driver.h - The one compile chain of tdslc and the REPL --------------===//
//
//   parse -> check -> MLIRGen -> entry point -> lower (a target's pipeline)
//         -> emit a stage | link an executable | JIT and run
//
// tdslc and tdsl-repl build their programs differently (a file; the
// session's definitions, reads of its kept values and the input) and then
// call these steps in this order, so both compile the same program to the
// same code.
//
//===----------------------------------------------------------------------===//
#ifndef TDSL_DRIVER_DRIVER_H
#define TDSL_DRIVER_DRIVER_H

#include "compiler/Target/TargetBackend.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Support/Timing.h"

#include "llvm/Support/raw_ostream.h"

#include <set>
#include <string>
#include <vector>

namespace mlir {
class MLIRContext;
} // namespace mlir

namespace tdsl {

class DiagEngine;
struct Program;

/// Loads every dialect, extension and translation a compilation uses into
/// `ctx`; diagnostics do not print the op they are attached to.
void prepareContext(mlir::MLIRContext &ctx);

/// Prints the diagnostics of `ctx` as `file:line:col: ...` with the source
/// line and a caret, each warning and remark once: an op recomputed inside
/// a gradient would report again what its primal reported, at the same
/// place.
class DiagnosticPrinter {
public:
  DiagnosticPrinter(llvm::SourceMgr &srcMgr, mlir::MLIRContext &ctx);
  ~DiagnosticPrinter();

private:
  mlir::LogicalResult printWithoutEntryCall(mlir::Diagnostic &d);

  mlir::SourceMgrDiagnosticHandler printer;
  mlir::MLIRContext &ctx;
  mlir::DiagnosticEngine::HandlerID once;
  std::set<std::string> seen;
};

/// MLIRGen of a checked program into the tdsl dialect; null after errors.
mlir::OwningOpRef<mlir::ModuleOp>
generateModule(mlir::MLIRContext &ctx, Program &program, DiagEngine &diags);

/// Renames the program's `entry` function to `tdsl_main` and adds a C
/// `main(argc, argv)` that reads the runtime options (--threads,
/// --profile, ...), runs it, and prints the profile.
mlir::LogicalResult addEntryPoint(mlir::ModuleOp module,
                                  llvm::StringRef entry = "main");

/// Runs `target`'s pipeline on a module in the tdsl dialect up to
/// `stopAfter` (a stage past the LLVM dialect runs all of it). Each pass
/// is timed under `timing` when given, else under the pass manager's
/// command-line options where the tool registered them (--mlir-timing).
mlir::LogicalResult lower(mlir::ModuleOp module, const TargetBackend &target,
                          const TargetOptions &options, Stage stopAfter,
                          mlir::TimingScope *timing = nullptr);

/// Writes `module`, lowered to `stage`, as that stage: IR (with DSL
/// locations when `printLocs`), what the target writes itself (PTX), or
/// host LLVM IR, assembly or an object file. Reports failures to `error`.
mlir::LogicalResult emitStage(mlir::ModuleOp module, const TargetBackend &target,
                              const TargetOptions &options, Stage stage,
                              bool printLocs, llvm::raw_pwrite_stream &os,
                              std::string &error);

/// Builds an executable at `output`: an object file linked with the
/// runtime in `runtimeDir`; code generation and linking are timed under
/// `timing` when given.
mlir::LogicalResult buildExecutable(mlir::ModuleOp module,
                                    const TargetOptions &options,
                                    const std::string &output,
                                    const std::string &runtimeDir,
                                    std::string &error,
                                    mlir::TimingScope *timing = nullptr);

} // namespace tdsl

#endif // TDSL_DRIVER_DRIVER_H
