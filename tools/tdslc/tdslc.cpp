//===- tdslc.cpp - The TDSL compiler driver -------------------------------===//
//
//   tdslc prog.tdsl -o prog          native executable (object + runtime)
//   tdslc run prog.tdsl [options]    JIT-compile and run main in-process
//   tdslc prog.tdsl --emit=STAGE     dump a stage of the pipeline
//
//===----------------------------------------------------------------------===//
#include "compiler/Codegen/Common/RuntimeCalls.h"
#include "compiler/Driver/Driver.h"
#include "compiler/Frontend/Lexer.h"
#include "compiler/Frontend/Loader.h"
#include "compiler/Frontend/Sema.h"
#include "compiler/Pipelines/Pipelines.h"
#include "compiler/Target/CPU/CPUTargetModel.h"
#include "compiler/Target/CPU/Tuner.h"
#include "compiler/Target/Host.h"
#include "tools/tdslc/Compare.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/Timing.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"

#include <cmath>
#include <cstring>
#include <map>

using namespace tdsl;
namespace cl = llvm::cl;

static cl::OptionCategory tdslCategory("tdslc options");

static cl::opt<std::string> inputFile(cl::Positional, cl::desc("<input.tdsl>"),
                                      cl::init("-"), cl::cat(tdslCategory));
static cl::opt<std::string> outputFile("o", cl::desc("Write output to <file>"),
                                       cl::value_desc("file"), cl::init(""),
                                       cl::cat(tdslCategory));
// Its values come from the stage table (compiler/Target/TargetBackend.h).
static cl::opt<Stage> emit("emit", cl::desc("Stop after a stage and write it"),
                           cl::value_desc("stage"), cl::cat(tdslCategory));
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
             "(default 128)"),
    cl::init(0), cl::cat(tdslCategory));
static cl::opt<int64_t> gpuTile(
    "gpu-tile",
    cl::desc("With --target=cuda: outputs per block side of contractions "
             "(default 16, so 16x16 threads)"),
    cl::init(0), cl::cat(tdslCategory));
static cl::opt<int64_t> gpuElementsPerThread(
    "gpu-elements-per-thread",
    cl::desc("With --target=cuda: consecutive elements per thread of "
             "element-wise kernels, loaded together (default 4)"),
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
static cl::opt<int64_t> vectorWidth(
    "vector-width",
    cl::desc("CPU: f32 lanes of a vector (default: the host's, 16 with AVX-512)"),
    cl::init(0), cl::cat(tdslCategory));
static cl::opt<int64_t> contractionRows(
    "contraction-rows",
    cl::desc("CPU: rows of a contraction's register tile (default: 8 with 32 "
             "vector registers, else 4)"),
    cl::init(0), cl::cat(tdslCategory));
static cl::opt<int64_t> contractionTile(
    "contraction-tile",
    cl::desc("CPU: side of a contraction's parallel tile (default: from the L2 "
             "size, 256 for 1 MiB)"),
    cl::init(0), cl::cat(tdslCategory));
static cl::opt<int64_t> contractionKBlock(
    "contraction-k-block",
    cl::desc("CPU: steps of a contraction's reduction per block (default: from "
             "the L1 size, 256 for 48 KiB)"),
    cl::init(0), cl::cat(tdslCategory));
static cl::opt<int64_t> elementwiseTile(
    "elementwise-tile",
    cl::desc("CPU: elements of an element-wise task (default: from the L2 size, "
             "16384 for 1 MiB)"),
    cl::init(0), cl::cat(tdslCategory));
static cl::opt<double> tune(
    "tune",
    cl::desc("CPU: time each contraction with several tile sizes for up to SECONDS "
             "in all, and keep the fastest in the tuning cache, which every later "
             "compile on this machine uses ($TDSL_TUNE_CACHE, default "
             "~/.cache/tdsl/tune.json)"),
    cl::value_desc("SECONDS"), cl::init(0), cl::cat(tdslCategory));
static cl::opt<bool> printTargetModel(
    "print-target-model",
    cl::desc("Print the host's CPU model and the sizes the CPU back end "
             "derives from it (after the options above), then exit"),
    cl::cat(tdslCategory));
static cl::opt<bool> verifyEach(
    "verify-each",
    cl::desc("Verify the IR after every pass, as mlir-opt does (default: "
             "once, after the last; also $TDSL_VERIFY_EACH)"),
    cl::cat(tdslCategory));
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
static cl::opt<unsigned> errorLimit(
    "error-limit", cl::desc("Stop after <N> errors (0: no limit)"), cl::init(20),
    cl::value_desc("N"), cl::cat(tdslCategory));
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


static std::optional<Stage> emitted() {
  if (!emit.getNumOccurrences())
    return std::nullopt;
  return emit.getValue();
}

static TargetOptions getTargetOptions() {
  TargetOptions o;
  o.optLevel = optLevel;
  o.gpuArch = gpuArch;
  o.gpuBlockSize = gpuBlockSize;
  o.gpuElementsPerThread = gpuElementsPerThread;
  o.gpuTile = gpuTile;
  o.gpuBitcode = gpuBitcode;
  o.cpuVectorWidth = vectorWidth;
  o.cpuContractionRows = contractionRows;
  o.cpuContractionKBlock = contractionKBlock;
  o.cpuContractionTile = contractionTile;
  o.cpuElementwiseTile = elementwiseTile;
  o.verifyEach = verifyEach;
  return o;
}

/// Why -o cannot be written, checked before compiling (the linker's own
/// error came after the whole compile): the input file itself (it was
/// replaced by the executable), a directory, or a place this process cannot
/// create or write a file. Empty when it can.
static std::string checkOutputPath(llvm::StringRef path) {
  if (path == "-")
    return "";
  std::string quoted = "cannot write '" + path.str() + "': ";
  if (inputFile != "-" && llvm::sys::fs::equivalent(inputFile.getValue(), path))
    return quoted + "it is the input file";
  if (llvm::sys::fs::is_directory(path))
    return quoted + "it is a directory";
  if (llvm::sys::fs::exists(path)) {
    if (llvm::sys::fs::access(path, llvm::sys::fs::AccessMode::Write))
      return quoted + "permission denied";
    return "";
  }
  // Create it and remove it again: the directory may refuse files even to
  // root (/proc).
  int fd;
  if (std::error_code ec = llvm::sys::fs::openFileForWrite(path, fd))
    return quoted + ec.message();
  llvm::sys::Process::SafelyCloseFileDescriptor(fd);
  llvm::sys::fs::remove(path);
  return "";
}

/// The target, after checking the options that need no input; null after
/// reporting an error.
static const TargetBackend *checkOptions(bool runMode) {
  const TargetBackend *backend = lookupTarget(target);
  if (!backend) {
    if (target == "cpu,cuda")
      error() << "--target=cpu,cuda runs on both back ends only with "
                 "'tdslc run --compare'\n";
    else
      error() << "unknown target '" << target << "' (expected "
              << getTargetNames() << ")\n";
    return nullptr;
  }
  std::string message = backend->checkOptions(getTargetOptions());
  bool cuda = backend->getName() == "cuda";
  if (message.empty() && !cuda &&
      (gpuArch.getNumOccurrences() || gpuBlockSize.getNumOccurrences() ||
       gpuTile.getNumOccurrences() || gpuElementsPerThread.getNumOccurrences() ||
       gpuBitcode))
    message = "--gpu-arch, --gpu-block-size, --gpu-tile and "
              "--gpu-elements-per-thread need --target=cuda";
  if (message.empty() && cuda &&
      (vectorWidth || contractionRows || contractionTile || contractionKBlock ||
       elementwiseTile))
    message = "--vector-width, --contraction-rows, --contraction-tile, "
              "--contraction-k-block and "
              "--elementwise-tile are sizes of the CPU back end: they need "
              "--target=cpu";
  std::optional<Stage> stage = emitted();
  if (message.empty() && gpuBitcode && stage == Stage::PTX)
    message = "--gpu-bitcode embeds LLVM bitcode, not PTX: --emit=ptx needs "
              "no --gpu-bitcode";
  if (message.empty() && tune.getNumOccurrences() && (cuda || !(tune > 0)))
    message = cuda ? "--tune times CPU code: it needs --target=cpu"
                   : "--tune needs a positive number of seconds";
  if (message.empty() && stage)
    message = backend->checkStage(*stage);
  if (message.empty() && optLevel > 3)
    message = "-O" + std::to_string(optLevel) + " is not a level; use -O0 to -O3";
  if (message.empty() && !runMode && !stage && outputFile.empty())
    message = "nothing to do: give -o <executable>, --emit=<stage>, or use "
              "'tdslc run'";
  if (message.empty() && runMode && stage)
    message = "'tdslc run' compiles and runs the whole program: without "
              "'run', --emit=" + std::string(getStageName(*stage)) +
              " writes that stage";
  if (message.empty() && !runMode && (profile || !profileJson.empty()))
    message = "--profile and --profile-json go with 'tdslc run'; an "
              "executable takes them when it runs ('./prog --profile')";
  // Before compiling, not after: the linker's own error came first.
  llvm::StringRef dir = llvm::sys::path::parent_path(outputFile.getValue());
  if (message.empty() && !runMode && !outputFile.empty() && !dir.empty() &&
      !llvm::sys::fs::is_directory(dir))
    message = "cannot write '" + outputFile.getValue() + "': there is no "
              "directory '" + dir.str() + "'";
  if (message.empty() && !runMode && !outputFile.empty())
    message = checkOutputPath(outputFile.getValue());
  // Checked before the run too: it was written at the exit, after the whole
  // run, and a bad path only warned.
  if (message.empty() && runMode && !profileJson.empty())
    message = checkOutputPath(profileJson.getValue());
  if (!message.empty()) {
    error() << message << "\n";
    return nullptr;
  }
  return backend;
}

/// -o or standard output, removed unless kept.
static std::unique_ptr<llvm::ToolOutputFile> openOutput() {
  bool binary = emitted() == Stage::Obj;
  std::string path = outputFile.empty() ? "-" : outputFile.getValue();
  std::error_code ec;
  auto out = std::make_unique<llvm::ToolOutputFile>(
      path, ec, binary ? llvm::sys::fs::OF_None : llvm::sys::fs::OF_Text);
  if (ec) {
    error() << "cannot write '" << path << "': " << ec.message() << "\n";
    return nullptr;
  }
  return out;
}

/// Parsing and checking, with the front end's own stages (tokens, ast).
/// Returns the checked program, or null with `rc` set: 0 when a stage was
/// written, 1 after errors.
static std::unique_ptr<Program> runFrontEnd(DiagEngine &diags, unsigned bufferId,
                                            int &rc) {
  rc = 1;
  std::optional<Stage> stage = emitted();
  if (stage == Stage::Tokens) {
    auto out = openOutput();
    if (!out)
      return nullptr;
    rc = emitTokens(diags, bufferId, out->os());
    if (rc == 0)
      out->keep();
    return nullptr;
  }
  std::unique_ptr<Program> program =
      parseProgram(diags, bufferId, getStdlibSearchPath(includeDirs));
  if (!program)
    return nullptr;
  if (stage == Stage::AST) {
    auto out = openOutput();
    if (!out)
      return nullptr;
    dumpAST(*program->main, diags.getSourceMgr(), out->os());
    out->keep();
    rc = 0;
    return nullptr;
  }
  if (!checkProgram(*program, diags) ||
      // As clang: -w hides the warnings, so -Werror has none to fail on.
      (warningsAsErrors && !noWarnings && diags.getNumWarnings()))
    return nullptr;
  return program;
}

/// Writes the stage --emit names of a module lowered to it.
static int writeStage(mlir::ModuleOp module, const TargetBackend &backend,
                      Stage stage) {
  auto out = openOutput();
  if (!out)
    return 1;
  std::string err;
  if (mlir::failed(emitStage(module, backend, getTargetOptions(), stage,
                             printLocs, out->os(), err))) {
    if (!err.empty())
      error() << err << "\n";
    return 1;
  }
  out->keep();
  return 0;
}

/// `tdslc run`: the JIT runs main in this process.
static int runInProcess(mlir::ModuleOp module, const std::string &runtimeDir) {
  std::vector<std::string> programArgs = {inputFile};
  if (threads > 0)
    programArgs.push_back("--threads=" + std::to_string(threads));
  if (profile)
    programArgs.push_back("--profile");
  if (!profileJson.empty())
    programArgs.push_back("--profile-json=" + profileJson);
  std::string err;
  int rc = runJIT(module, optLevel, runtimeDir, programArgs, err);
  if (rc < 0 && !err.empty()) {
    error() << "JIT compilation failed: " << err << "\n";
    return 1;
  }
  return rc;
}

/// The compile chain (compiler/Driver/Driver.h) from the input file to the
/// stage, run or executable asked for.
static int compile(bool runMode, const TargetBackend &backend,
                   const char *argv0) {
  auto fileOrErr = llvm::MemoryBuffer::getFileOrSTDIN(inputFile, /*IsText=*/true);
  if (std::error_code ec = fileOrErr.getError()) {
    error() << "cannot open '" << inputFile << "': " << ec.message() << "\n";
    return 1;
  }
  llvm::SourceMgr srcMgr;
  unsigned bufferId = srcMgr.AddNewSourceBuffer(std::move(*fileOrErr), llvm::SMLoc());
  // Run-time errors quote their line from the file; standard input is read
  // once, so its text is kept for them.
  if (inputFile == "-")
    registerSourceText(srcMgr.getMemoryBuffer(bufferId)->getBufferIdentifier(),
                       srcMgr.getMemoryBuffer(bufferId)->getBuffer());
  DiagEngine diags(srcMgr);
  diags.setSuppressWarnings(noWarnings);
  diags.setErrorLimit(errorLimit);
  // --mlir-timing times the whole compile, passes nested, as clang's
  // -ftime-report does.
  mlir::DefaultTimingManager timingManager;
  mlir::applyDefaultTimingManagerCLOptions(timingManager);
  mlir::TimingScope timing = timingManager.getRootScope();
  mlir::TimingScope phase = timing.nest("parse, check");
  int rc;
  std::unique_ptr<Program> program = runFrontEnd(diags, bufferId, rc);
  if (!program)
    return rc;

  phase = timing.nest("MLIR context, MLIRGen");
  mlir::MLIRContext context;
  prepareContext(context);
  DiagnosticPrinter handler(srcMgr, context);
  auto module = generateModule(context, *program, diags);
  if (!module)
    return 1;
  phase.stop();
  std::optional<Stage> stage = emitted();
  if (stage == Stage::TDSL) {
    phase = timing.nest("passes");
    if (mlir::failed(lower(*module, backend, getTargetOptions(), *stage, &phase)))
      return 1;
    phase.stop();
    return writeStage(*module, backend, *stage);
  }

  bool hasMain = module->lookupSymbol("main") != nullptr;
  if ((runMode || !stage) && !hasMain) {
    error() << "'" << inputFile << "' has no 'main' function to run\n";
    return 1;
  }
  if (hasMain && mlir::failed(addEntryPoint(*module)))
    return 1;
  if (tune > 0) {
    std::string err;
    if (mlir::failed(tuneContractions(*module, getTargetOptions(), tune,
                                      getRuntimeLibDir(argv0), llvm::errs(), err))) {
      error() << err << "\n";
      return 1;
    }
  }
  phase = timing.nest("passes");
  if (mlir::failed(lower(*module, backend, getTargetOptions(),
                         stage.value_or(Stage::LLVMDialect), &phase)))
    return 1;
  phase.stop();
  if (stage)
    return writeStage(*module, backend, *stage);
  std::string runtimeDir = getRuntimeLibDir(argv0);
  if (runMode) {
    phase = timing.nest("JIT compile, run");
    return runInProcess(*module, runtimeDir);
  }
  std::string err;
  if (mlir::failed(buildExecutable(*module, getTargetOptions(), outputFile,
                                   runtimeDir, err, &timing))) {
    if (!err.empty())
      error() << err << "\n";
    return 1;
  }
  return 0;
}

/// `tdslc run --compare`: the CPU and the CUDA runs side by side.
static int compareTargets(bool runMode, const char *argv0) {
  if (!runMode) {
    error() << "--compare goes with run: tdslc run --compare prog.tdsl\n";
    return 1;
  }
  // Without --target it means cpu,cuda; any other target is a mistake.
  if (target != "cpu,cuda" && target != "cuda,cpu" &&
      (target != "cpu" || target.getNumOccurrences())) {
    error() << "--compare runs --target=cpu,cuda\n";
    return 1;
  }
  // Each run's options are checked up front, as a single run's are; the
  // sizes of each back end go to its run.
  for (llvm::StringRef name : {"cpu", "cuda"})
    if (std::string message = lookupTarget(name)->checkOptions(getTargetOptions());
        !message.empty()) {
      error() << message << "\n";
      return 1;
    }
  if (optLevel > 3) {
    error() << "-O" << optLevel << " is not a level; use -O0 to -O3\n";
    return 1;
  }
  CompareOptions options;
  options.inputFile = inputFile;
  options.optLevel = optLevel;
  options.threads = threads;
  options.gpuArch = gpuArch;
  options.gpuBitcode = gpuBitcode;
  if (gpuBlockSize.getNumOccurrences())
    options.gpuArgs.push_back("--gpu-block-size=" + std::to_string(gpuBlockSize));
  if (gpuTile.getNumOccurrences())
    options.gpuArgs.push_back("--gpu-tile=" + std::to_string(gpuTile));
  if (gpuElementsPerThread.getNumOccurrences())
    options.gpuArgs.push_back("--gpu-elements-per-thread=" +
                              std::to_string(gpuElementsPerThread));
  auto cpuSize = [&](const char *flag, int64_t value) {
    if (value)
      options.cpuArgs.push_back(std::string(flag) + "=" + std::to_string(value));
  };
  cpuSize("--vector-width", vectorWidth);
  cpuSize("--contraction-rows", contractionRows);
  cpuSize("--contraction-tile", contractionTile);
  cpuSize("--contraction-k-block", contractionKBlock);
  cpuSize("--elementwise-tile", elementwiseTile);
  options.includeDirs.assign(includeDirs.begin(), includeDirs.end());
  return runComparison(argv0, options);
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  // `tdslc run prog.tdsl ...` is `tdslc prog.tdsl ...` run in-process.
  bool runMode = argc > 1 && std::strcmp(argv[1], "run") == 0;
  std::vector<char *> args(argv, argv + argc);
  if (runMode)
    args.erase(args.begin() + 1);
  llvm::erase_if(args, [](char *a) { return parseThreads(a); });
  for (const StageInfo &s : getStages())
    emit.getParser().addLiteralOption(s.name, s.stage, s.description);
  // mlir-opt's pass manager options (--mlir-timing, --mlir-print-ir-after,
  // ...); --mlir-print-ir-after=<pass> takes the passes registered by then.
  mlir::registerAllPasses();
  registerTDSLPipelines();
  mlir::registerPassManagerCLOptions();
  mlir::registerDefaultTimingManagerCLOptions();
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
  if (printTargetModel) {
    std::string message = checkCPUSizeOverrides(getTargetOptions());
    if (!message.empty()) {
      error() << message << "\n";
      return 1;
    }
    llvm::outs() << CPUTargetModel::forHost().describe(getTargetOptions());
    return 0;
  }
  if (compare)
    return compareTargets(runMode, argv[0]);
  const TargetBackend *backend = checkOptions(runMode);
  if (!backend)
    return 1;
  return compile(runMode, *backend, argv[0]);
}
