//===- tdslc.cpp - The TDSL compiler driver -------------------------------===//
#include "compiler/Frontend/Lexer.h"
#include "compiler/Frontend/Loader.h"
#include "compiler/Frontend/Sema.h"
#include "compiler/MLIRGen/MLIRGen.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"

using namespace tdsl;
namespace cl = llvm::cl;

static cl::OptionCategory tdslCategory("tdslc options");

enum class Emit { None, Tokens, AST, TDSL };

static cl::opt<std::string> inputFile(cl::Positional, cl::desc("<input.tdsl>"),
                                      cl::init("-"), cl::cat(tdslCategory));
static cl::opt<std::string> outputFile("o", cl::desc("Write output to <file>"),
                                       cl::value_desc("file"), cl::init("-"),
                                       cl::cat(tdslCategory));
static cl::opt<Emit> emit(
    "emit", cl::desc("What to produce"), cl::init(Emit::None),
    cl::values(clEnumValN(Emit::Tokens, "tokens", "the token stream"),
               clEnumValN(Emit::AST, "ast", "the syntax tree, after parsing"),
               clEnumValN(Emit::TDSL, "tdsl",
                          "verified IR in the tdsl dialect, after Sema")),
    cl::cat(tdslCategory));
static cl::list<std::string> includeDirs(
    "I", cl::desc("Add <dir> to the search path of 'import'"),
    cl::value_desc("dir"), cl::Prefix, cl::cat(tdslCategory));
static cl::opt<bool> noWarnings("w", cl::desc("Suppress warnings"),
                                cl::cat(tdslCategory));
static cl::opt<bool> warningsAsErrors("Werror",
                                      cl::desc("Treat warnings as errors"),
                                      cl::cat(tdslCategory));
static cl::opt<bool> printLocs(
    "print-debuginfo",
    cl::desc("Print the DSL source location of each op with --emit=tdsl"),
    cl::cat(tdslCategory));

static int reportMissingBackEnd() {
  llvm::WithColor::error(llvm::errs(), "tdslc")
      << "code generation is not built yet: this tdslc checks programs and "
         "emits --emit=tokens, --emit=ast or --emit=tdsl; running programs and "
         "writing executables come with the CPU back end\n";
  return 1;
}

static int emitTokens(DiagEngine &diags, unsigned bufferId,
                      llvm::raw_ostream &os) {
  Lexer lexer(diags, bufferId);
  llvm::SourceMgr &sm = diags.getSourceMgr();
  for (const Token &t : lexer.lexAll()) {
    auto [line, col] = sm.getLineAndColumn(t.getLoc(), bufferId);
    os << line << ":" << col << " " << getTokenKindId(t.kind);
    if (!t.spelling.empty())
      os << " '" << t.spelling << "'";
    os << "\n";
  }
  return diags.hadError() ? 1 : 0;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(tdslCategory);
  cl::AddExtraVersionPrinter([](llvm::raw_ostream &os) {
    os << "TDSL compiler tdslc " TDSL_VERSION "\n";
  });
  cl::SetVersionPrinter([](llvm::raw_ostream &os) {
    os << "tdslc " TDSL_VERSION " (LLVM/MLIR " LLVM_VERSION_STRING ")\n";
  });
  cl::ParseCommandLineOptions(
      argc, argv,
      "tdslc: the TDSL compiler\n\n"
      "  tdslc prog.tdsl --emit=tdsl      print the program in the tdsl dialect\n"
      "  tdslc prog.tdsl --emit=ast       print the syntax tree\n");

  if (emit == Emit::None)
    return reportMissingBackEnd();

  auto fileOrErr = llvm::MemoryBuffer::getFileOrSTDIN(inputFile, /*IsText=*/true);
  if (std::error_code ec = fileOrErr.getError()) {
    llvm::WithColor::error(llvm::errs(), "tdslc")
        << "cannot open '" << inputFile << "': " << ec.message() << "\n";
    return 1;
  }
  llvm::SourceMgr srcMgr;
  unsigned bufferId = srcMgr.AddNewSourceBuffer(std::move(*fileOrErr), llvm::SMLoc());
  DiagEngine diags(srcMgr);
  diags.setSuppressWarnings(noWarnings);

  std::error_code ec;
  llvm::ToolOutputFile out(outputFile, ec, llvm::sys::fs::OF_Text);
  if (ec) {
    llvm::WithColor::error(llvm::errs(), "tdslc")
        << "cannot write '" << outputFile << "': " << ec.message() << "\n";
    return 1;
  }

  if (emit == Emit::Tokens) {
    int rc = emitTokens(diags, bufferId, out.os());
    if (rc == 0)
      out.keep();
    return rc;
  }

  std::unique_ptr<Program> program =
      parseProgram(diags, bufferId, getStdlibSearchPath(includeDirs));
  if (!program)
    return 1;
  if (emit == Emit::AST) {
    dumpAST(*program->main, srcMgr, out.os());
    out.keep();
    return 0;
  }
  bool ok = checkProgram(*program, diags);
  if (!ok || (warningsAsErrors && diags.getNumWarnings()))
    return 1;

  mlir::DialectRegistry registry;
  registerFrontendDialects(registry);
  mlir::MLIRContext context(registry);
  mlir::SourceMgrDiagnosticHandler handler(srcMgr, &context);
  auto module = generateMLIR(context, *program, diags);
  if (!module)
    return 1;
  mlir::OpPrintingFlags flags;
  if (printLocs)
    flags.enableDebugInfo(/*enable=*/true, /*prettyForm=*/false);
  module->print(out.os(), flags);
  out.keep();
  return 0;
}
