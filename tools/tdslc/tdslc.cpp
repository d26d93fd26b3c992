//===- tdslc.cpp - The TDSL compiler driver -------------------------------===//
//
//   tdslc prog.tdsl -o prog          native executable (object + runtime)
//   tdslc run prog.tdsl [options]    JIT-compile and run main in-process
//   tdslc prog.tdsl --emit=STAGE     dump a stage of the pipeline
//
//===----------------------------------------------------------------------===//
#include "compiler/Frontend/Lexer.h"
#include "compiler/Frontend/Loader.h"
#include "compiler/Frontend/Sema.h"
#include "compiler/MLIRGen/MLIRGen.h"
#include "compiler/Target/CPUTarget.h"
#include "tools/tdslc/Compare.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"

#include <cmath>
#include <cstring>
#include <map>

using namespace tdsl;
namespace cl = llvm::cl;

static cl::OptionCategory tdslCategory("tdslc options");

enum class Emit { None, Tokens, AST, TDSL, Linalg, Tiled, Bufferized, GPU, NVVM,
                  PTX, LLVMMLIR, LLVMIR, Asm, Obj };

static cl::opt<std::string> inputFile(cl::Positional, cl::desc("<input.tdsl>"),
                                      cl::init("-"), cl::cat(tdslCategory));
static cl::opt<std::string> outputFile("o", cl::desc("Write output to <file>"),
                                       cl::value_desc("file"), cl::init(""),
                                       cl::cat(tdslCategory));
static cl::opt<Emit> emit(
    "emit", cl::desc("Stop after a stage and write it"), cl::init(Emit::None),
    cl::values(
        clEnumValN(Emit::Tokens, "tokens", "the token stream"),
        clEnumValN(Emit::AST, "ast", "the syntax tree, after parsing"),
        clEnumValN(Emit::TDSL, "tdsl", "IR in the tdsl dialect, after Sema"),
        clEnumValN(Emit::Linalg, "linalg", "linalg/tensor IR, after fusion"),
        clEnumValN(Emit::Tiled, "tiled", "after tiling into scf.forall"),
        clEnumValN(Emit::Bufferized, "bufferized", "after bufferization (cpu)"),
        clEnumValN(Emit::GPU, "gpu", "kernels outlined to gpu.modules (cuda)"),
        clEnumValN(Emit::NVVM, "nvvm", "kernels in the NVVM dialect (cuda)"),
        clEnumValN(Emit::PTX, "ptx", "the PTX of every kernel (cuda)"),
        clEnumValN(Emit::LLVMMLIR, "llvm-mlir", "the LLVM dialect"),
        clEnumValN(Emit::LLVMIR, "llvm", "optimized LLVM IR"),
        clEnumValN(Emit::Asm, "asm", "host assembly"),
        clEnumValN(Emit::Obj, "obj", "a host object file")),
    cl::cat(tdslCategory));
static cl::opt<std::string> target("target", cl::desc("cpu (default) or cuda"),
                                   cl::init("cpu"), cl::cat(tdslCategory));
static cl::opt<bool> compare(
    "compare",
    cl::desc("With run: run on the CPU and with CUDA, check that the outputs "
             "agree, and compare the kernels' times"),
    cl::cat(tdslCategory));
static cl::opt<int64_t> gpuBlockSize(
    "gpu-block-size",
    cl::desc("With --target=cuda: threads per block of element-wise kernels "
             "(default 256)"),
    cl::init(0), cl::cat(tdslCategory));
static cl::opt<int64_t> gpuTile(
    "gpu-tile",
    cl::desc("With --target=cuda: outputs per block side of contractions "
             "(default 16, so 16x16 threads)"),
    cl::init(0), cl::cat(tdslCategory));
static cl::opt<bool> gpuBitcode(
    "gpu-bitcode",
    cl::desc("With --target=cuda: embed each kernel as LLVM bitcode instead "
             "of PTX, for the CPU emulator of the tests (libtdsl_emu_cuda); "
             "a real driver rejects it"),
    cl::Hidden, cl::cat(tdslCategory));
static cl::opt<std::string> gpuArch(
    "gpu-arch", cl::desc("With --target=cuda: sm_90 (default) or sm_80"),
    cl::init("sm_90"), cl::cat(tdslCategory));
static cl::opt<unsigned> optLevel(
    "O", cl::desc("Optimization level: 0 (serial, simple), 1, 2 (default), 3"),
    cl::Prefix, cl::init(2), cl::cat(tdslCategory));
// `--threads=N` is read by hand: LLVM's libraries own an option `threads`.
static int threads = 0;
static bool parseThreads(llvm::StringRef arg) {
  if (!arg.consume_front("--threads=") && !arg.consume_front("-threads="))
    return false;
  if (arg.getAsInteger(10, threads) || threads <= 0) {
    llvm::WithColor::error(llvm::errs(), "tdslc")
        << "--threads needs a positive integer, found '" << arg << "'\n";
    std::exit(1);
  }
  return true;
}
static cl::opt<bool> profile("profile",
                             cl::desc("With run: print a per-kernel profile at exit"),
                             cl::cat(tdslCategory));
static cl::opt<std::string> profileJson(
    "profile-json", cl::desc("With run: write the profile as JSON to <file>"),
    cl::value_desc("file"), cl::cat(tdslCategory));
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
    cl::desc("Print the DSL source location of each op in MLIR output"),
    cl::cat(tdslCategory));

static llvm::raw_ostream &error() {
  return llvm::WithColor::error(llvm::errs(), "tdslc");
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

static CPUStage stageOf(Emit e) {
  switch (e) {
  case Emit::Linalg: return CPUStage::Linalg;
  case Emit::Tiled: return CPUStage::Tiled;
  case Emit::Bufferized: return CPUStage::Bufferized;
  default: return CPUStage::LLVMDialect;
  }
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  // `tdslc run prog.tdsl ...` is `tdslc prog.tdsl ...` run in-process.
  bool runMode = argc > 1 && std::strcmp(argv[1], "run") == 0;
  std::vector<char *> args(argv, argv + argc);
  if (runMode)
    args.erase(args.begin() + 1);
  llvm::erase_if(args, [](char *a) { return parseThreads(a); });
  cl::HideUnrelatedOptions(tdslCategory);
  cl::SetVersionPrinter([](llvm::raw_ostream &os) {
    os << "tdslc " TDSL_VERSION " (LLVM/MLIR " LLVM_VERSION_STRING ")\n";
  });
  cl::ParseCommandLineOptions(
      (int)args.size(), args.data(),
      "tdslc: the TDSL compiler\n\n"
      "  tdslc prog.tdsl -o prog          build a native executable\n"
      "  tdslc run prog.tdsl [--profile]  compile in memory and run main\n"
      "  tdslc prog.tdsl --emit=tdsl      print a stage (see --emit)\n\n"
      "  --threads=<N>  with run: worker threads (default: all cores, or\n"
      "                 $TDSL_NUM_THREADS)\n");

  if (compare) {
    if (!runMode) {
      error() << "--compare goes with run: tdslc run --compare prog.tdsl\n";
      return 1;
    }
    if (target != "cpu,cuda" && target != "cuda,cpu" && target != "cpu") {
      error() << "--compare runs --target=cpu,cuda\n";
      return 1;
    }
    CompareOptions options;
    options.inputFile = inputFile;
    options.optLevel = optLevel;
    options.threads = threads;
    options.gpuArch = gpuArch;
    options.gpuBitcode = gpuBitcode;
    options.includeDirs.assign(includeDirs.begin(), includeDirs.end());
    return runComparison(argv[0], options);
  }
  bool cuda = target == "cuda";
  if (!cuda && target != "cpu") {
    error() << "unknown target '" << target << "' (expected cpu or cuda)\n";
    return 1;
  }
  if (cuda && gpuArch != "sm_90" && gpuArch != "sm_80") {
    error() << "unsupported --gpu-arch '" << gpuArch << "' (sm_90 or sm_80)\n";
    return 1;
  }
  if (!cuda && (gpuArch.getNumOccurrences() || gpuBlockSize.getNumOccurrences() ||
                gpuTile.getNumOccurrences() || gpuBitcode)) {
    error() << "--gpu-arch, --gpu-block-size and --gpu-tile need --target=cuda\n";
    return 1;
  }
  // A block has at most 1024 threads (tile x tile for contractions).
  if (cuda && (gpuBlockSize < 0 || gpuBlockSize > 1024 || gpuTile < 0 ||
               gpuTile * gpuTile > 1024)) {
    error() << "--gpu-block-size must be 1..1024 and --gpu-tile 1..32 "
               "(a block has at most 1024 threads)\n";
    return 1;
  }
  if (gpuBitcode && emit == Emit::PTX) {
    error() << "--gpu-bitcode embeds LLVM bitcode, not PTX: --emit=ptx needs "
               "no --gpu-bitcode\n";
    return 1;
  }
  if (!cuda && (emit == Emit::GPU || emit == Emit::NVVM || emit == Emit::PTX)) {
    error() << "--emit=gpu, nvvm and ptx need --target=cuda\n";
    return 1;
  }
  if (cuda && emit == Emit::Bufferized) {
    error() << "--emit=bufferized is a CPU stage; with --target=cuda use "
               "tiled, gpu, nvvm or ptx\n";
    return 1;
  }
  if (optLevel > 3) {
    error() << "-O" << optLevel << " is not a level; use -O0 to -O3\n";
    return 1;
  }
  if (!runMode && emit == Emit::None && outputFile.empty()) {
    error() << "nothing to do: give -o <executable>, --emit=<stage>, or use "
               "'tdslc run'\n";
    return 1;
  }

  auto fileOrErr = llvm::MemoryBuffer::getFileOrSTDIN(inputFile, /*IsText=*/true);
  if (std::error_code ec = fileOrErr.getError()) {
    error() << "cannot open '" << inputFile << "': " << ec.message() << "\n";
    return 1;
  }
  llvm::SourceMgr srcMgr;
  unsigned bufferId = srcMgr.AddNewSourceBuffer(std::move(*fileOrErr), llvm::SMLoc());
  DiagEngine diags(srcMgr);
  diags.setSuppressWarnings(noWarnings);

  // Text stages go to -o or stdout; executables need -o.
  bool binaryOut = emit == Emit::Obj;
  std::string outPath = outputFile.empty() ? "-" : outputFile.getValue();
  std::unique_ptr<llvm::ToolOutputFile> out;
  auto openOutput = [&]() -> bool {
    std::error_code ec;
    out = std::make_unique<llvm::ToolOutputFile>(
        outPath, ec, binaryOut ? llvm::sys::fs::OF_None : llvm::sys::fs::OF_Text);
    if (ec) {
      error() << "cannot write '" << outPath << "': " << ec.message() << "\n";
      return false;
    }
    return true;
  };

  if (emit == Emit::Tokens) {
    if (!openOutput())
      return 1;
    int rc = emitTokens(diags, bufferId, out->os());
    if (rc == 0)
      out->keep();
    return rc;
  }
  std::unique_ptr<Program> program =
      parseProgram(diags, bufferId, getStdlibSearchPath(includeDirs));
  if (!program)
    return 1;
  if (emit == Emit::AST) {
    if (!openOutput())
      return 1;
    dumpAST(*program->main, srcMgr, out->os());
    out->keep();
    return 0;
  }
  if (!checkProgram(*program, diags) ||
      (warningsAsErrors && diags.getNumWarnings()))
    return 1;

  mlir::DialectRegistry registry;
  registerFrontendDialects(registry);
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::MLIRContext context(registry);
  context.printOpOnDiagnostic(false);
  mlir::SourceMgrDiagnosticHandler handler(srcMgr, &context);
  auto module = generateMLIR(context, *program, diags);
  if (!module)
    return 1;
  mlir::OpPrintingFlags flags;
  if (printLocs)
    flags.enableDebugInfo(/*enable=*/true, /*prettyForm=*/false);
  if (emit == Emit::TDSL) {
    if (!openOutput())
      return 1;
    module->print(out->os(), flags);
    out->keep();
    return 0;
  }

  bool hasMain = module->lookupSymbol("main") != nullptr;
  if ((runMode || emit == Emit::None) && !hasMain) {
    error() << "'" << inputFile << "' has no 'main' function to run\n";
    return 1;
  }
  if (hasMain && mlir::failed(addEntryPoint(*module)))
    return 1;
  CPUPipelineOptions options;
  options.optLevel = optLevel;
  if (cuda) {
    CUDAPipelineOptions cudaOptions;
    cudaOptions.chip = gpuArch;
    cudaOptions.toolkitPath = getCUDAToolkitPath();
    cudaOptions.blockSize = gpuBlockSize;
    cudaOptions.tile = gpuTile;
    cudaOptions.bitcode = gpuBitcode;
    CUDAStage stage = CUDAStage::LLVMDialect;
    if (emit == Emit::Linalg || emit == Emit::Tiled)
      stage = CUDAStage::Tiled;
    else if (emit == Emit::GPU)
      stage = CUDAStage::GPU;
    else if (emit == Emit::NVVM)
      stage = CUDAStage::NVVM;
    else if (emit == Emit::PTX)
      stage = CUDAStage::Binary;
    if (mlir::failed(lowerForCUDA(*module, cudaOptions, stage)))
      return 1;
    if (emit == Emit::PTX) {
      if (!openOutput())
        return 1;
      writePTX(*module, out->os());
      out->keep();
      return 0;
    }
  } else if (mlir::failed(lowerForCPU(*module, options, stageOf(emit)))) {
    return 1;
  }
  if (emit == Emit::Linalg || emit == Emit::Tiled || emit == Emit::Bufferized ||
      emit == Emit::GPU || emit == Emit::NVVM || emit == Emit::LLVMMLIR) {
    if (!openOutput())
      return 1;
    module->print(out->os(), flags);
    out->keep();
    return 0;
  }

  std::string runtimeDir = getRuntimeLibDir(argv[0]);
  if (runMode) {
    std::vector<std::string> programArgs = {inputFile};
    if (threads > 0)
      programArgs.push_back("--threads=" + std::to_string(threads));
    if (profile)
      programArgs.push_back("--profile");
    if (!profileJson.empty())
      programArgs.push_back("--profile-json=" + profileJson);
    std::string err;
    int rc = runJIT(*module, options, runtimeDir, programArgs, err);
    if (rc < 0 && !err.empty()) {
      error() << "JIT compilation failed: " << err << "\n";
      return 1;
    }
    return rc;
  }

  llvm::LLVMContext llvmContext;
  auto llvmModule = translateForHost(*module, llvmContext, options);
  if (!llvmModule)
    return 1;
  std::string err;
  if (emit == Emit::LLVMIR || emit == Emit::Asm || emit == Emit::Obj) {
    if (!openOutput())
      return 1;
    if (emit == Emit::LLVMIR)
      llvmModule->print(out->os(), nullptr);
    else if (mlir::failed(emitHostCode(*llvmModule, out->os(),
                                       emit == Emit::Asm, err))) {
      error() << err << "\n";
      return 1;
    }
    out->keep();
    return 0;
  }

  // An executable: object file next to the output, linked with the runtime.
  llvm::SmallString<256> objPath;
  int fd;
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("tdslc", "o", fd, objPath)) {
    error() << "cannot create a temporary object file: " << ec.message() << "\n";
    return 1;
  }
  {
    llvm::raw_fd_ostream objOut(fd, /*shouldClose=*/true);
    if (mlir::failed(emitHostCode(*llvmModule, objOut, false, err))) {
      error() << err << "\n";
      return 1;
    }
  }
  mlir::LogicalResult linked =
      linkExecutable(std::string(objPath), outputFile, runtimeDir, err);
  llvm::sys::fs::remove(objPath);
  if (mlir::failed(linked)) {
    error() << err << "\n";
    return 1;
  }
  return 0;
}
