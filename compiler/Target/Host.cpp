//===- CPUTarget.cpp - The CPU back end: LLVM IR, objects, executables, JIT -===//
#include "compiler/Target/CPUTarget.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/ADT/StringMap.h"
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

using namespace mlir;

namespace tdsl {

static void registerTranslations(MLIRContext *ctx);

LogicalResult addEntryPoint(ModuleOp module, StringRef entry) {
  auto userMain = module.lookupSymbol<func::FuncOp>(entry);
  if (!userMain)
    return module.emitError("the program has no '") << entry << "' function to run";
  MLIRContext *ctx = module.getContext();
  ctx->loadDialect<LLVM::LLVMDialect, arith::ArithDialect>();
  Location loc = userMain.getLoc();
  // Another function named main (a program loaded into the REPL) makes way
  // for the C entry point.
  if (entry != "main")
    if (auto other = module.lookupSymbol<func::FuncOp>("main")) {
      if (failed(SymbolTable::replaceAllSymbolUses(
              other, StringAttr::get(ctx, "tdsl_program_main"), module)))
        return failure();
      other.setSymName("tdsl_program_main");
      other.setPrivate();
    }
  if (failed(SymbolTable::replaceAllSymbolUses(
          userMain, StringAttr::get(ctx, "tdsl_main"), module)))
    return failure();
  userMain.setSymName("tdsl_main");
  userMain.setPrivate();

  OpBuilder b(ctx);
  b.setInsertionPointToEnd(module.getBody());
  auto ptr = LLVM::LLVMPointerType::get(ctx);
  Type i32 = b.getI32Type();
  auto declare = [&](StringRef name, FunctionType type) {
    if (auto f = module.lookupSymbol<func::FuncOp>(name))
      return f;
    auto f = func::FuncOp::create(b, loc, name, type);
    f.setPrivate();
    return f;
  };
  auto init = declare("tdsl_init", b.getFunctionType({i32, ptr}, {}));
  auto report = declare("tdsl_profile_report", b.getFunctionType({}, {}));
  auto cMain = func::FuncOp::create(b, loc, "main",
                                    b.getFunctionType({i32, ptr}, {i32}));
  Block *body = cMain.addEntryBlock();
  b.setInsertionPointToStart(body);
  func::CallOp::create(b, loc, init, body->getArguments());
  auto call = func::CallOp::create(b, loc, userMain, ValueRange{});
  func::CallOp::create(b, loc, report, ValueRange{});
  Value rc = call.getNumResults()
                 ? call.getResult(0)
                 : (Value)arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(0));
  func::ReturnOp::create(b, loc, rc);
  return success();
}

LogicalResult lowerForCPU(ModuleOp module, const CPUPipelineOptions &options,
                          CPUStage stage) {
  PassManager pm(module.getContext());
  buildCPUPipeline(pm, options, stage);
  return pm.run(module);
}

LogicalResult lowerForCUDA(ModuleOp module, const CUDAPipelineOptions &options,
                           CUDAStage stage) {
  registerTranslations(module.getContext());
  PassManager pm(module.getContext());
  buildCUDAPipeline(pm, options, stage);
  return pm.run(module);
}

void writePTX(ModuleOp module, llvm::raw_ostream &os) {
  for (auto binary : module.getOps<gpu::BinaryOp>())
    for (Attribute a : binary.getObjects()) {
      auto object = dyn_cast<gpu::ObjectAttr>(a);
      if (!object)
        continue;
      os << "// kernel " << binary.getSymName() << "\n" << object.getObject().getValue();
    }
}

std::string getCUDAToolkitPath() {
  for (const char *candidate :
       {static_cast<const char *>(getenv("CUDA_HOME")), "/usr/local/cuda"}) {
    if (!candidate)
      continue;
    llvm::SmallString<256> libdevice(candidate);
    llvm::sys::path::append(libdevice, "nvvm", "libdevice");
    if (llvm::sys::fs::is_directory(libdevice))
      return candidate;
  }
  return "";
}

static llvm::TargetMachine *getHostTargetMachine(unsigned optLevel) {
  static llvm::StringMap<std::unique_ptr<llvm::TargetMachine>> cache;
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  std::string key = std::to_string(optLevel);
  auto &slot = cache[key];
  if (slot)
    return slot.get();
  llvm::Triple triple(llvm::sys::getProcessTriple());
  std::string err;
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(triple, err);
  if (!target)
    return nullptr;
  llvm::SubtargetFeatures features;
  for (auto &f : llvm::sys::getHostCPUFeatures())
    features.AddFeature(f.first(), f.second);
  llvm::TargetOptions opts;
  slot.reset(target->createTargetMachine(
      triple, llvm::sys::getHostCPUName(), features.getString(), opts,
      llvm::Reloc::PIC_, std::nullopt,
      optLevel == 0 ? llvm::CodeGenOptLevel::None
                    : llvm::CodeGenOptLevel::Aggressive));
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

std::function<llvm::Error(llvm::Module *)>
makeHostTransformer(unsigned optLevel, llvm::TargetMachine *tm) {
  auto optimize = makeOptimizingTransformer(optLevel, 0, tm);
  return [optimize](llvm::Module *m) {
    hoistStaticAllocas(*m);
    return optimize(m);
  };
}

static void registerTranslations(MLIRContext *ctx) {
  // All of them: a CUDA program's host module holds gpu.binary ops, which
  // translate to the embedded PTX and its mgpu* loading code.
  DialectRegistry registry;
  registerAllToLLVMIRTranslations(registry);
  ctx->appendDialectRegistry(registry);
}

std::unique_ptr<llvm::Module> translateForHost(ModuleOp module,
                                               llvm::LLVMContext &llvmCtx,
                                               const CPUPipelineOptions &options) {
  registerTranslations(module.getContext());
  auto llvmModule = translateModuleToLLVMIR(module, llvmCtx, "tdsl");
  if (!llvmModule)
    return nullptr;
  llvm::TargetMachine *tm = getHostTargetMachine(options.optLevel);
  if (!tm) {
    module.emitError("no LLVM target for the host");
    return nullptr;
  }
  llvmModule->setDataLayout(tm->createDataLayout());
  llvmModule->setTargetTriple(tm->getTargetTriple());
  auto transform = makeHostTransformer(options.optLevel, tm);
  if (llvm::Error e = transform(llvmModule.get())) {
    module.emitError("LLVM optimization failed: ") << llvm::toString(std::move(e));
    return nullptr;
  }
  return llvmModule;
}

LogicalResult emitHostCode(llvm::Module &module, llvm::raw_pwrite_stream &os,
                           bool assembly, std::string &error) {
  llvm::TargetMachine *tm = getHostTargetMachine(2);
  if (!tm) {
    error = "no LLVM target for the host";
    return failure();
  }
  llvm::legacy::PassManager pm;
  if (tm->addPassesToEmitFile(pm, os, nullptr,
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

LogicalResult linkExecutable(const std::string &objectFile,
                             const std::string &output,
                             const std::string &runtimeDir, std::string &error) {
  std::string driver;
  for (const char *name : {"clang++-22", "clang++", "c++", "g++"})
    if (auto p = llvm::sys::findProgramByName(name)) {
      driver = *p;
      break;
    }
  if (driver.empty()) {
    error = "no C++ compiler driver (clang++-22, c++) found to link with";
    return failure();
  }
  std::string libArg = "-L" + runtimeDir;
  std::string rpath = "-Wl,-rpath," + runtimeDir;
  llvm::SmallVector<llvm::StringRef> args = {driver, objectFile, "-o", output,
                                             libArg, rpath, "-ltdsl_runtime",
                                             "-ltbb", "-lm"};
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

int runJIT(ModuleOp module, const CPUPipelineOptions &options,
           const std::string &runtimeDir, const std::vector<std::string> &args,
           std::string &error) {
  registerTranslations(module.getContext());
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  llvm::SmallString<256> lib(runtimeDir);
  llvm::sys::path::append(lib, "libtdsl_runtime.so");
  if (!llvm::sys::fs::exists(lib)) {
    error = "cannot find the TDSL runtime at " + std::string(lib);
    return -1;
  }
  std::string libPath(lib);
  ExecutionEngineOptions eo;
  std::function<llvm::Error(llvm::Module *)> transform =
      makeHostTransformer(options.optLevel, getHostTargetMachine(options.optLevel));
  eo.transformer = transform;
  eo.jitCodeGenOptLevel = options.optLevel == 0 ? llvm::CodeGenOptLevel::None
                                                : llvm::CodeGenOptLevel::Aggressive;
  // Loaded for good, not through the engine: the engine would unload it
  // (and oneTBB with it) while TBB's worker threads still run.
  std::string loadError;
  if (llvm::sys::DynamicLibrary::LoadLibraryPermanently(libPath.c_str(),
                                                        &loadError)) {
    error = "cannot load the TDSL runtime: " + loadError;
    return -1;
  }
  auto engine = ExecutionEngine::create(module, eo);
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
  return mainFn((int)args.size(), argv.data());
}

} // namespace tdsl
