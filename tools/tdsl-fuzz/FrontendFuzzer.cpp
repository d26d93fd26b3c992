//===- FrontendFuzzer.cpp - libFuzzer target: lexer, parser, Sema, MLIRGen -===//
//
// Each input is a .tdsl program. It is lexed and parsed (as a file and as a
// REPL input), its AST dumped, and checked; a program that Sema accepts is
// lowered by MLIRGen into a fresh MLIRContext and verified. Any crash,
// sanitizer report or failed assertion is a finding, and so is IR that does
// not verify after Sema accepted the program: that one calls abort().
// Diagnostics go nowhere unless TDSL_FUZZ_VERBOSE is set.
//
// Built with -fsanitize=fuzzer under -DTDSL_FUZZ=ON; otherwise ReplayMain.cpp
// runs it once per file (the corpus replay test, test/Fuzz/).
//
//===----------------------------------------------------------------------===//
#include "compiler/Frontend/Loader.h"
#include "compiler/Frontend/Parser.h"
#include "compiler/Frontend/Sema.h"
#include "compiler/MLIRGen/MLIRGen.h"
#include "tools/tdsl-fuzz/TokenMutator.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

using namespace tdsl;

namespace {
struct FuzzState {
  std::vector<std::string> searchPath;
  mlir::DialectRegistry registry;
  bool verbose = false;
};
} // namespace

static FuzzState &state() {
  static FuzzState *s = new FuzzState;
  return *s;
}

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  FuzzState &s = state();
  s.searchPath = getStdlibSearchPath({});
  registerFrontendDialects(s.registry);
  s.verbose = std::getenv("TDSL_FUZZ_VERBOSE") != nullptr;
  return 0;
}

/// Collects the front end's diagnostics instead of printing them.
static void collectDiagnostic(const llvm::SMDiagnostic &d, void *context) {
  auto *log = static_cast<std::string *>(context);
  llvm::raw_string_ostream os(*log);
  d.print(/*ProgName=*/nullptr, os, /*ShowColors=*/false);
}

[[noreturn]] static void reportBug(const char *what, const std::string &log) {
  llvm::errs() << "tdsl-frontend-fuzzer: " << what << "\n" << log;
  llvm::errs().flush();
  std::abort();
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  FuzzState &s = state();
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  std::string log;

  // The REPL's grammar: declarations and statements in any order.
  {
    llvm::SourceMgr srcMgr;
    srcMgr.setDiagHandler(collectDiagnostic, &log);
    unsigned id = srcMgr.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBufferCopy(text, "repl.tdsl"), llvm::SMLoc());
    DiagEngine diags(srcMgr);
    ModuleAST decls;
    StmtList statements;
    parseReplBuffer(diags, id, decls, statements);
  }
  log.clear();

  llvm::SourceMgr srcMgr;
  srcMgr.setDiagHandler(collectDiagnostic, &log);
  unsigned id = srcMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(text, "fuzz.tdsl"), llvm::SMLoc());
  DiagEngine diags(srcMgr);
  std::unique_ptr<Program> program = parseProgram(diags, id, s.searchPath);
  if (program)
    dumpAST(*program->main, srcMgr, llvm::nulls());
  if (!program || !checkProgram(*program, diags)) {
    if (s.verbose)
      llvm::errs() << log;
    return 0;
  }

  // One thread: a pool per input would cost more than the input.
  mlir::MLIRContext context(s.registry, mlir::MLIRContext::Threading::DISABLED);
  context.printOpOnDiagnostic(false);
  mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &d) {
    llvm::raw_string_ostream os(log);
    os << d.getLocation() << ": " << d << "\n";
    for (const mlir::Diagnostic &note : d.getNotes())
      os << "  note: " << note << "\n";
    return mlir::success();
  });
  mlir::OwningOpRef<mlir::ModuleOp> module =
      generateMLIR(context, *program, diags);
  if (!module) {
    // MLIRGen verifies what it built and reports an internal error when
    // that fails; other errors are constructs it does not lower (yet).
    if (llvm::StringRef(log).contains("does not verify"))
      reportBug("MLIRGen built IR that does not verify after Sema accepted "
                "the program", log);
    if (s.verbose)
      llvm::errs() << log;
    return 0;
  }
  if (mlir::failed(mlir::verify(*module)))
    reportBug("the tdsl IR of a program Sema accepted does not verify", log);
  if (s.verbose)
    llvm::errs() << log;
  return 0;
}

#ifdef TDSL_LIBFUZZER
extern "C" size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t maxSize);

/// Half of the mutations are libFuzzer's own (bytes, the dictionary), half
/// act on whole tokens of our lexer (TokenMutator.h).
extern "C" size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size,
                                          size_t maxSize, unsigned int seed) {
  if (seed % 2 == 1)
    if (size_t newSize = mutateTokens(data, size, maxSize, seed / 2))
      return newSize;
  return LLVMFuzzerMutate(data, size, maxSize);
}
#endif
