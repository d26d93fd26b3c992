//===- Host.cpp - The host's LLVM: IR, objects, executables, the JIT -------===//
#include "compiler/Target/Host.h"
#include "compiler/Target/CPU/SplitWideMaskedLoads.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/Transforms/IPO/MergeFunctions.h"
#include "llvm/Transforms/Utils/CodeExtractor.h"
#include "llvm/Transforms/Utils/Cloning.h"

#include <csignal>
#include <cstring>
#include <thread>
#include <unistd.h>

using namespace mlir;

namespace tdsl {

/// A new target machine for the host (one per thread that compiles).
static std::unique_ptr<llvm::TargetMachine> createHostTargetMachine(unsigned optLevel) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  llvm::Triple triple(llvm::sys::getProcessTriple());
  std::string err;
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(triple, err);
  if (!target)
    return nullptr;
  llvm::SubtargetFeatures features;
  for (auto &f : llvm::sys::getHostCPUFeatures())
    features.AddFeature(f.first(), f.second);
  llvm::TargetOptions opts;
  return std::unique_ptr<llvm::TargetMachine>(target->createTargetMachine(
      triple, llvm::sys::getHostCPUName(), features.getString(), opts,
      llvm::Reloc::PIC_, std::nullopt,
      optLevel == 0 ? llvm::CodeGenOptLevel::None
                    : llvm::CodeGenOptLevel::Aggressive));
}

static llvm::TargetMachine *getHostTargetMachine(unsigned optLevel) {
  static llvm::StringMap<std::unique_ptr<llvm::TargetMachine>> cache;
  auto &slot = cache[std::to_string(optLevel)];
  if (!slot)
    slot = createHostTargetMachine(optLevel);
  return slot.get();
}

/// Moves allocas of constant size out of loops into the entry block.
static void hoistStaticAllocas(llvm::Module &module) {
  for (llvm::Function &fn : module) {
    if (fn.isDeclaration())
      continue;
    llvm::BasicBlock &entry = fn.getEntryBlock();
    llvm::SmallVector<llvm::AllocaInst *> moved;
    for (llvm::BasicBlock &bb : fn)
      if (&bb != &entry)
        for (llvm::Instruction &inst : bb)
          if (auto *a = llvm::dyn_cast<llvm::AllocaInst>(&inst))
            if (llvm::isa<llvm::ConstantInt>(a->getArraySize()))
              moved.push_back(a);
    for (llvm::AllocaInst *a : moved)
      a->moveBefore(entry.getFirstInsertionPt());
  }
}

/// A function that only calls a defined function with its arguments: what
/// MergeFunctions leaves of each function it merges.
static llvm::Function *thunkCallee(llvm::Function &fn) {
  if (fn.isDeclaration() || fn.size() != 1 || fn.front().size() != 2)
    return nullptr;
  auto *call = llvm::dyn_cast<llvm::CallInst>(&fn.front().front());
  llvm::Function *callee = call ? call->getCalledFunction() : nullptr;
  return callee && !callee->isDeclaration() && callee != &fn ? callee : nullptr;
}

/// Merges functions with equal bodies: each of the others becomes a call of
/// the one kept, which is not inlined back into them (LLVM's inliner would
/// copy a small one into each again).
static void mergeEqualFunctions(llvm::Module &module) {
  llvm::SmallPtrSet<llvm::Function *, 8> wrappers;
  for (llvm::Function &fn : module)
    if (thunkCallee(fn))
      wrappers.insert(&fn);
  if (!llvm::MergeFunctionsPass::runOnModule(module))
    return;
  for (llvm::Function &fn : module)
    if (llvm::Function *callee = thunkCallee(fn); callee && !wrappers.count(&fn))
      callee->addFnAttr(llvm::Attribute::NoInline);
}

std::function<llvm::Error(llvm::Module *)>
makeHostTransformer(unsigned optLevel, llvm::TargetMachine *tm,
                    bool mergeFunctions) {
  auto optimize = makeOptimizingTransformer(optLevel, 0, tm);
  return [optimize, mergeFunctions, tm](llvm::Module *m) -> llvm::Error {
    hoistStaticAllocas(*m);
    // Kernels inlined at several places with the same shapes are outlined
    // into equal parallel loop bodies (the digits CNN's forward pass for
    // its training and test rows): one copy is optimized and compiled.
    if (mergeFunctions)
      mergeEqualFunctions(*m);
    if (llvm::Error e = optimize(m))
      return e;
    // After the optimizer, which makes the masks the X86 back end gets
    // wrong (SplitWideMaskedLoads.h).
    if (tm && tm->getTargetTriple().isX86())
      splitWideMaskedLoads(*m, *tm);
    return llvm::Error::success();
  };
}

void registerTranslations(MLIRContext *ctx) {
  // All of them: a CUDA program's host module holds gpu.binary ops, which
  // translate to the embedded PTX and its mgpu* loading code.
  DialectRegistry registry;
  registerAllToLLVMIRTranslations(registry);
  ctx->appendDialectRegistry(registry);
}

std::unique_ptr<llvm::Module> translateForHost(ModuleOp module,
                                               llvm::LLVMContext &llvmCtx,
                                               unsigned optLevel) {
  registerTranslations(module.getContext());
  auto llvmModule = translateModuleToLLVMIR(module, llvmCtx, "tdsl");
  if (!llvmModule)
    return nullptr;
  llvm::TargetMachine *tm = getHostTargetMachine(optLevel);
  if (!tm) {
    module.emitError("no LLVM target for the host");
    return nullptr;
  }
  llvmModule->setDataLayout(tm->createDataLayout());
  llvmModule->setTargetTriple(tm->getTargetTriple());
  auto transform = makeHostTransformer(optLevel, tm);
  if (llvm::Error e = transform(llvmModule.get())) {
    module.emitError("LLVM optimization failed: ") << llvm::toString(std::move(e));
    return nullptr;
  }
  return llvmModule;
}

/// Object code of `module` (optimized already) by `tm`.
static LogicalResult emitObject(llvm::Module &module, llvm::TargetMachine &tm,
                                llvm::raw_pwrite_stream &os, std::string &error) {
  llvm::legacy::PassManager pm;
  if (tm.addPassesToEmitFile(pm, os, nullptr, llvm::CodeGenFileType::ObjectFile)) {
    error = "the host target cannot emit object files";
    return failure();
  }
  pm.run(module);
  return success();
}

/// Functions above this many instructions (unoptimized) have their loops
/// outlined before a split compile; the digits MLP's main had 6000.
constexpr unsigned kOutlineLimit = 1000;

static unsigned sizeOf(const llvm::Loop &loop) {
  unsigned n = 0;
  for (const llvm::BasicBlock *bb : loop.blocks())
    n += bb->size();
  return n;
}

/// Moves loops of functions over `limit` instructions into functions of
/// their own (the biggest loops of at most `limit` instructions, outermost
/// first), so that a split of the module can spread them over the pieces:
/// a program's `main` holds its serial kernels, often half of the IR, and
/// one piece compiling it alone set the compile time. A loop runs once per
/// call of its new function: the call costs nothing next to it.
static void outlineLoopsOfLargeFunctions(llvm::Module &module, unsigned limit) {
  llvm::SmallVector<llvm::Function *> large;
  for (llvm::Function &fn : module)
    // Parallel loop bodies (called through a pointer, by the runtime) keep
    // theirs: they are compiled in some piece anyway.
    if (!fn.isDeclaration() && !fn.hasAddressTaken() &&
        fn.getInstructionCount() > limit)
      large.push_back(&fn);
  for (llvm::Function *fn : large) {
    llvm::SmallVector<llvm::SmallVector<llvm::BasicBlock *>> regions;
    {
      llvm::DominatorTree dt(*fn);
      llvm::LoopInfo loops(dt);
      std::function<void(llvm::Loop *)> choose = [&](llvm::Loop *loop) {
        if (sizeOf(*loop) <= limit) {
          regions.emplace_back(loop->getBlocks());
          return;
        }
        for (llvm::Loop *inner : *loop)
          choose(inner);
      };
      for (llvm::Loop *loop : loops)
        choose(loop);
    }
    // The regions are disjoint; each extraction leaves the others' blocks
    // in `fn`, so the analyses are recomputed for each.
    for (auto &blocks : regions) {
      llvm::DominatorTree dt(*fn);
      llvm::CodeExtractorAnalysisCache cache(*fn);
      llvm::CodeExtractor extractor(blocks, &dt, /*AggregateArgs=*/false,
                                    nullptr, nullptr, nullptr,
                                    /*AllowVarArgs=*/false,
                                    /*AllowAlloca=*/false, nullptr, "loop");
      if (!extractor.isEligible())
        continue;
      // Not inlined back: the point is to compile it elsewhere.
      if (llvm::Function *outlined = extractor.extractCodeRegion(cache))
        outlined->addFnAttr(llvm::Attribute::NoInline);
    }
  }
}

/// Splits `module` into `parts` modules of about equal work: each function
/// goes to the piece with the fewest instructions so far, the largest first
/// (a round robin left the digits MPI program's pieces at 8200 and 5800
/// instructions); variables go to the first. Symbols become hidden
/// globals, so that each piece sees the others' definitions.
static void splitBalanced(llvm::Module &module, unsigned parts,
                          llvm::function_ref<void(std::unique_ptr<llvm::Module>)> emit) {
  for (llvm::GlobalValue &gv : module.global_values()) {
    if (gv.isDeclaration() || gv.hasAvailableExternallyLinkage() ||
        !gv.isDiscardableIfUnused())
      continue;
    // A prefix keeps them apart from the C library's and the runtime's
    // symbols (a function named `_init`).
    gv.setName("__tdsl_local." + (gv.hasName() ? gv.getName() : "unnamed"));
    gv.setLinkage(llvm::GlobalValue::ExternalLinkage);
    gv.setVisibility(llvm::GlobalValue::HiddenVisibility);
  }
  llvm::SmallVector<std::pair<unsigned, llvm::Function *>> functions;
  for (llvm::Function &fn : module)
    if (!fn.isDeclaration())
      functions.push_back({fn.getInstructionCount(), &fn});
  llvm::stable_sort(functions, [](auto &a, auto &b) { return a.first > b.first; });
  llvm::DenseMap<const llvm::GlobalValue *, unsigned> pieceOf;
  std::vector<uint64_t> load(parts, 0);
  for (auto [size, fn] : functions) {
    unsigned lightest = std::min_element(load.begin(), load.end()) - load.begin();
    pieceOf[fn] = lightest;
    load[lightest] += size + 1;
  }
  for (unsigned i = 0; i < parts; ++i) {
    llvm::ValueToValueMapTy map;
    emit(llvm::CloneModule(module, map, [&](const llvm::GlobalValue *gv) {
      auto it = pieceOf.find(gv);
      return it == pieceOf.end() ? i == 0 : it->second == i;
    }));
  }
}

LogicalResult emitHostObjects(ModuleOp module, unsigned optLevel, unsigned parts,
                              std::vector<std::string> &paths, std::string &error,
                              TimingScope *timing) {
  auto nest = [&](llvm::StringRef name) {
    return timing ? timing->nest(name) : TimingScope();
  };
  auto newObjectFile = [&](int &fd) -> bool {
    llvm::SmallString<256> path;
    if (std::error_code ec = llvm::sys::fs::createTemporaryFile("tdslc", "o", fd, path)) {
      error = "cannot create a temporary object file: " + ec.message();
      return false;
    }
    paths.push_back(std::string(path));
    return true;
  };
  // A CUDA program's host code loads its kernels in global constructors,
  // which a split would have to keep together: one piece.
  bool gpu = false;
  module.walk([&](Operation *op) {
    gpu |= op->getName().getDialectNamespace() == "gpu";
  });
  if (parts <= 1 || gpu) {
    llvm::LLVMContext ctx;
    auto llvmModule = translateForHost(module, ctx, optLevel);
    if (!llvmModule)
      return failure();
    int fd;
    if (!newObjectFile(fd))
      return failure();
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    return emitObject(*llvmModule, *getHostTargetMachine(optLevel), os, error);
  }
  // Unoptimized IR, split by functions, each piece optimized
  // and compiled on its own thread, in its own LLVMContext. MLIR has done
  // the inlining that matters; a parallel loop body is only called through
  // the runtime, so no piece needs another's bodies.
  llvm::LLVMContext ctx;
  registerTranslations(module.getContext());
  TimingScope translate = nest("translation to LLVM IR");
  auto whole = translateModuleToLLVMIR(module, ctx, "tdsl");
  translate.stop();
  if (!whole)
    return failure();
  std::unique_ptr<llvm::TargetMachine> firstTm = createHostTargetMachine(optLevel);
  if (!firstTm) {
    error = "no LLVM target for the host";
    return failure();
  }
  whole->setDataLayout(firstTm->createDataLayout());
  whole->setTargetTriple(firstTm->getTargetTriple());
  TimingScope split = nest("outlining, merging, splitting");
  hoistStaticAllocas(*whole);
  outlineLoopsOfLargeFunctions(*whole, kOutlineLimit);
  // Before the split, so that equal functions in different pieces merge,
  // and after outlining, which makes more of them equal (a serial kernel
  // that the program runs in two places).
  mergeEqualFunctions(*whole);
  // Aliases and comdats would have to stay with what they name: one piece.
  if (!whole->alias_empty() || !whole->ifunc_empty() ||
      llvm::any_of(whole->global_values(),
                   [](const llvm::GlobalValue &gv) { return gv.hasComdat(); }))
    parts = 1;
  std::vector<llvm::SmallVector<char, 0>> bitcode;
  splitBalanced(*whole, parts, [&](std::unique_ptr<llvm::Module> piece) {
    bitcode.emplace_back();
    llvm::raw_svector_ostream os(bitcode.back());
    llvm::WriteBitcodeToFile(*piece, os);
  });
  split.stop();
  std::vector<int> fds;
  for (size_t i = 0; i < bitcode.size(); ++i) {
    int fd;
    if (!newObjectFile(fd)) {
      for (int open : fds)
        ::close(open);
      return failure();
    }
    fds.push_back(fd);
  }
  std::vector<std::string> errors(bitcode.size());
  auto compilePiece = [&](size_t i, std::unique_ptr<llvm::TargetMachine> tm) {
    llvm::LLVMContext pieceCtx;
    auto piece = llvm::parseBitcodeFile(
        llvm::MemoryBufferRef(llvm::StringRef(bitcode[i].data(), bitcode[i].size()),
                              "piece"),
        pieceCtx);
    llvm::raw_fd_ostream os(fds[i], /*shouldClose=*/true);
    if (!piece) {
      errors[i] = llvm::toString(piece.takeError());
      return;
    }
    // Merged already, before the split.
    auto transform = makeHostTransformer(optLevel, tm.get(), /*mergeFunctions=*/false);
    if (llvm::Error e = transform(piece->get())) {
      errors[i] = "LLVM optimization failed: " + llvm::toString(std::move(e));
      return;
    }
    (void)emitObject(**piece, *tm, os, errors[i]);
  };
  TimingScope pieces = nest("optimization and code generation of the pieces");
  std::vector<std::thread> threads;
  for (size_t i = 1; i < bitcode.size(); ++i)
    threads.emplace_back(compilePiece, i, createHostTargetMachine(optLevel));
  compilePiece(0, std::move(firstTm));
  for (std::thread &t : threads)
    t.join();
  pieces.stop();
  for (const std::string &e : errors)
    if (!e.empty()) {
      error = e;
      return failure();
    }
  return success();
}

LogicalResult emitHostCode(llvm::Module &module, llvm::raw_pwrite_stream &os,
                           bool assembly, std::string &error) {
  llvm::TargetMachine *tm = getHostTargetMachine(2);
  if (!tm) {
    error = "no LLVM target for the host";
    return failure();
  }
  // An object file is written with seeks, which a pipe cannot take ("IO
  // failure on output stream: Illegal seek"): it goes through a buffer.
  llvm::buffer_ostream buffered(os);
  llvm::raw_pwrite_stream *out = assembly ? &os : &buffered;
  llvm::legacy::PassManager pm;
  if (tm->addPassesToEmitFile(pm, *out, nullptr,
                              assembly ? llvm::CodeGenFileType::AssemblyFile
                                       : llvm::CodeGenFileType::ObjectFile)) {
    error = "the host target cannot emit this file type";
    return failure();
  }
  pm.run(module);
  return success();
}

std::string getRuntimeLibDir(const char *argv0) {
  std::string exe = llvm::sys::fs::getMainExecutable(
      argv0, reinterpret_cast<void *>(&getRuntimeLibDir));
  llvm::SmallString<256> dir(llvm::sys::path::parent_path(exe));
  llvm::sys::path::append(dir, "..", "lib");
  return std::string(dir);
}

LogicalResult linkExecutable(const std::vector<std::string> &objectFiles,
                             const std::string &output,
                             const std::string &runtimeDir, std::string &error) {
  // The objects call only the runtime's C ABI, and libtdsl_runtime.so
  // brings its own C++ dependencies (-lstdc++ below for the static one), so
  // a C driver will do. GCC's starts in
  // a few ms; clang's loads libLLVM first (0.1 s, as long as the link).
  // A sanitized runtime needs clang's sanitizer libraries.
#ifdef TDSL_SANITIZE_LINK_FLAG
  const char *drivers[] = {"clang++-22", "clang++"};
#else
  const char *drivers[] = {"cc", "gcc", "clang-22", "clang", "clang++-22"};
#endif
  std::string driver;
  for (const char *name : drivers)
    if (auto p = llvm::sys::findProgramByName(name)) {
      driver = *p;
      break;
    }
  if (driver.empty()) {
    error = "no compiler driver found to link with (looked for";
    for (const char *name : drivers)
      error += std::string(" ") + name;
    error += ")";
    return failure();
  }
  std::string libArg = "-L" + runtimeDir;
  std::string rpath = "-Wl,-rpath," + runtimeDir;
  llvm::SmallVector<llvm::StringRef> args = {driver};
  args.append(objectFiles.begin(), objectFiles.end());
  args.append({"-o", output, libArg, rpath, "-ltdsl_runtime", "-ltbb", "-lm"});
  // Only the static runtime there: its C++ needs the C++ library.
  if (!llvm::sys::fs::exists(runtimeDir + "/libtdsl_runtime.so"))
    args.push_back("-lstdc++");
  // gold links these few objects in a third of the default ld.bfd's time
  // (0.04 against 0.13 s: a tenth of a small program's compile).
  if (llvm::sys::findProgramByName("ld.gold"))
    args.push_back("-fuse-ld=gold");
#ifdef TDSL_SANITIZE_LINK_FLAG
  // A sanitized build's runtime leaves the sanitizers' symbols to the
  // executable.
  args.push_back(TDSL_SANITIZE_LINK_FLAG);
#endif
  std::string msg;
  int rc = llvm::sys::ExecuteAndWait(driver, args, std::nullopt, {}, 0, 0, &msg);
  if (rc != 0) {
    error = "linking failed" + (msg.empty() ? "" : ": " + msg) + " (" + driver + ")";
    return failure();
  }
  return success();
}

llvm::Expected<std::unique_ptr<ExecutionEngine>>
createJIT(ModuleOp module, unsigned optLevel, const std::string &runtimeDir) {
  registerTranslations(module.getContext());
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  llvm::SmallString<256> lib(runtimeDir);
  llvm::sys::path::append(lib, "libtdsl_runtime.so");
  if (!llvm::sys::fs::exists(lib))
    return llvm::createStringError("cannot find the TDSL runtime at " +
                                   std::string(lib));
  // Loaded for good, not through the engine: the engine would unload it
  // (and oneTBB with it) while TBB's worker threads still run.
  std::string loadError;
  if (llvm::sys::DynamicLibrary::LoadLibraryPermanently(lib.c_str(), &loadError))
    return llvm::createStringError("cannot load the TDSL runtime: " + loadError);
  // The same target machine and levels as translateForHost, so a JIT run
  // runs the code an executable would.
  ExecutionEngineOptions eo;
  std::function<llvm::Error(llvm::Module *)> transform =
      makeHostTransformer(optLevel, getHostTargetMachine(optLevel));
  eo.transformer = transform;
  eo.jitCodeGenOptLevel = optLevel == 0 ? llvm::CodeGenOptLevel::None
                                        : llvm::CodeGenOptLevel::Aggressive;
  return ExecutionEngine::create(module, eo);
}

/// A crash of the program being run ends tdslc at once, with a line that
/// says so and the signal's own exit status: LLVM's crash handler (a stack
/// dump) allocates, and after heap corruption that deadlocked (`tdslc run`
/// hung where the executable aborted). Async-signal-safe: write and raise.
static void onProgramCrash(int sig) {
  const char *what = sig == SIGSEGV   ? "a segmentation fault"
                     : sig == SIGBUS  ? "a bus error"
                     : sig == SIGILL  ? "an illegal instruction"
                                      : "an abort";
  auto put = [](const char *text) {
    ssize_t ignored = ::write(2, text, std::strlen(text));
    (void)ignored;
  };
  put("tdslc: error: the program stopped with ");
  put(what);
  put("\n");
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

int runJIT(ModuleOp module, unsigned optLevel, const std::string &runtimeDir,
           const std::vector<std::string> &args, std::string &error) {
  auto engine = createJIT(module, optLevel, runtimeDir);
  if (!engine) {
    error = llvm::toString(engine.takeError());
    return -1;
  }
  // main first: a symbol that does not resolve is an error here, while
  // initialize() would abort on it.
  auto sym = (*engine)->lookup("main");
  if (!sym) {
    error = llvm::toString(sym.takeError());
    return -1;
  }
  // Global constructors: a CUDA program loads its kernels' modules in one.
  (*engine)->initialize();
  std::vector<char *> argv;
  for (const std::string &a : args)
    argv.push_back(const_cast<char *>(a.c_str()));
  argv.push_back(nullptr);
  auto mainFn = reinterpret_cast<int (*)(int, char **)>(*sym);
  for (int sig : {SIGSEGV, SIGBUS, SIGILL, SIGABRT})
    std::signal(sig, onProgramCrash);
  return mainFn((int)args.size(), argv.data());
}

} // namespace tdsl
