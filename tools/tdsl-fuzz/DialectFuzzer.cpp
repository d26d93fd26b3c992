//===- DialectFuzzer.cpp - libFuzzer target: tdsl dialect parser/verifiers -===//
//
// Each input is MLIR text in the tdsl dialect (with func, arith, scf, tensor
// and cf, the dialects tdsl IR uses). It is parsed into a fresh MLIRContext
// and verified, which runs the hand-written verifiers and the custom parser
// of dialects/TDSL/IR/TDSLOps.cpp. Rejected input is fine; a crash, a
// sanitizer report or a failed assertion is a finding. IR that verifies is
// also folded op by op (tdsl ops only) and printed, and the printed form must
// parse and verify again (abort() otherwise): that covers the custom
// printers, which must be the inverse of the parsers.
// Diagnostics go nowhere unless TDSL_FUZZ_VERBOSE is set.
//
// Built with -fsanitize=fuzzer under -DTDSL_FUZZ=ON; otherwise ReplayMain.cpp
// runs it once per file (the corpus replay test, test/Fuzz/).
//
//===----------------------------------------------------------------------===//
#include "compiler/MLIRGen/MLIRGen.h"
#include "dialects/TDSL/IR/TDSLDialect.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdlib>
#include <string>

namespace {
struct FuzzState {
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
  // The dialects of MLIRGen's output: tdsl, func, arith, scf, tensor, cf.
  tdsl::registerFrontendDialects(s.registry);
  s.verbose = std::getenv("TDSL_FUZZ_VERBOSE") != nullptr;
  return 0;
}

[[noreturn]] static void reportBug(const char *what, const std::string &log) {
  llvm::errs() << "tdsl-dialect-fuzzer: " << what << "\n" << log;
  llvm::errs().flush();
  std::abort();
}

/// Inputs that crash upstream MLIR 22.1.8's own parser, which the fuzzer
/// would find again and again: `array<index: ...>` (llvm-project #179045,
/// fixed after 22.1.8 by #179075).
static bool hitsKnownUpstreamCrash(llvm::StringRef text) {
  for (size_t at = text.find("array"); at != llvm::StringRef::npos;
       at = text.find("array", at + 1)) {
    llvm::StringRef rest = text.drop_front(at + 5).ltrim();
    if (rest.consume_front("<") && rest.ltrim().starts_with("index"))
      return true;
  }
  return false;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  FuzzState &s = state();
  // A copy ends in a NUL, which MLIR's lexer expects after the text.
  std::string text(reinterpret_cast<const char *>(data), size);
  if (hitsKnownUpstreamCrash(text))
    return 0;
  std::string log;
  mlir::MLIRContext context(s.registry, mlir::MLIRContext::Threading::DISABLED);
  context.printOpOnDiagnostic(false);
  mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &d) {
    llvm::raw_string_ostream os(log);
    os << d.getLocation() << ": " << d << "\n";
    return mlir::success();
  });
  auto done = [&] {
    if (s.verbose)
      llvm::errs() << log;
    return 0;
  };

  mlir::ParserConfig config(&context, /*verifyAfterParse=*/false);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(text, config, "fuzz.mlir");
  if (!module || mlir::failed(mlir::verify(*module)))
    return done();

  std::string printed;
  {
    llvm::raw_string_ostream os(printed);
    module->print(os);
  }
  mlir::OwningOpRef<mlir::ModuleOp> reparsed =
      mlir::parseSourceString<mlir::ModuleOp>(printed, config, "printed.mlir");
  if (!reparsed || mlir::failed(mlir::verify(*reparsed)))
    reportBug("verified IR does not parse and verify again after printing",
              log + "-- printed:\n" + printed);

  // The folders, on ops whose operands may be anything that verifies.
  mlir::Dialect *tdslDialect =
      context.getLoadedDialect<tdsl::ir::TDSLDialect>();
  module->walk([&](mlir::Operation *op) {
    if (op->getDialect() != tdslDialect)
      return;
    llvm::SmallVector<mlir::OpFoldResult> results;
    (void)op->fold(results);
  });
  return done();
}
