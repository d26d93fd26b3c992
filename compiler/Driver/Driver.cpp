//===- Driver.cpp - The one compile chain of tdslc and the REPL ------------===//
#include "compiler/Driver/Driver.h"
#include "compiler/Codegen/Common/RuntimeCalls.h"
#include "compiler/MLIRGen/MLIRGen.h"
#include "compiler/Pipelines/Pipelines.h"
#include "compiler/Target/Host.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"

#include <algorithm>
#include <cstdlib>
#include <thread>

using namespace mlir;

namespace tdsl {

void prepareContext(MLIRContext &ctx) {
  DialectRegistry registry;
  registerFrontendDialects(registry);
  registerAllDialects(registry);
  registerAllExtensions(registry);
  ctx.appendDialectRegistry(registry);
  registerTranslations(&ctx);
  ctx.printOpOnDiagnostic(false);
  // A program is one big function (main, with everything inlined) and a
  // few small ones: threads had little to share out, and a multi-threaded
  // context locks every type and attribute it uniques. The pipeline ran
  // 20% faster on one thread (the digits MLP: 0.67 -> 0.55 s). LLVM's
  // code generation still runs on one thread per core (emitHostObjects).
  ctx.disableMultithreading();
}

namespace {
constexpr llvm::StringLiteral kEntryCall = "tdsl.entry_call";

bool isEntryCall(Location l) {
  auto name = dyn_cast<NameLoc>(l);
  return name && name.getName() == kEntryCall;
}

/// The places of a diagnostic's call stack, innermost first, without the
/// entry point's call of main.
void callStack(Location l, SmallVectorImpl<Location> &out) {
  if (auto call = dyn_cast<CallSiteLoc>(l)) {
    callStack(call.getCallee(), out);
    callStack(call.getCaller(), out);
    return;
  }
  if (!isEntryCall(l))
    out.push_back(l);
}

bool callsMain(Location l) {
  auto call = dyn_cast<CallSiteLoc>(l);
  return call && (isEntryCall(call.getCaller()) || callsMain(call.getCallee()) ||
                  callsMain(call.getCaller()));
}
} // namespace

DiagnosticPrinter::DiagnosticPrinter(llvm::SourceMgr &srcMgr, MLIRContext &ctx)
    : printer(srcMgr, &ctx), ctx(ctx) {
  // Registered after the printer, so called first: success drops it.
  once = ctx.getDiagEngine().registerHandler([this](Diagnostic &d) {
    if (d.getSeverity() == DiagnosticSeverity::Error)
      return printWithoutEntryCall(d);
    // The place printed: the first of fused locations.
    Location at = d.getLocation();
    for (auto fused = dyn_cast<FusedLoc>(at);
         fused && !fused.getLocations().empty();
         fused = dyn_cast<FusedLoc>(at))
      at = fused.getLocations().front();
    std::string key;
    llvm::raw_string_ostream os(key);
    os << at << '\n' << d.str();
    if (!seen.insert(key).second)
      return success();
    return printWithoutEntryCall(d);
  });
}

/// A diagnostic of an op inlined from main into the entry point, printed
/// without the "called from" of that call; any other goes to the printer.
LogicalResult DiagnosticPrinter::printWithoutEntryCall(Diagnostic &d) {
  if (!callsMain(d.getLocation()))
    return failure();
  SmallVector<Location> stack;
  callStack(d.getLocation(), stack);
  if (stack.empty())
    return failure();
  printer.emitDiagnostic(stack.front(), d.str(), d.getSeverity());
  for (Location caller : llvm::drop_begin(stack))
    printer.emitDiagnostic(caller, "called from", DiagnosticSeverity::Note);
  for (Diagnostic &note : d.getNotes())
    printer.emitDiagnostic(note.getLocation(), note.str(), note.getSeverity());
  return success();
}

DiagnosticPrinter::~DiagnosticPrinter() {
  ctx.getDiagEngine().eraseHandler(once);
}

OwningOpRef<ModuleOp> generateModule(MLIRContext &ctx, Program &program,
                                     DiagEngine &diags) {
  return generateMLIR(ctx, program, diags);
}

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
  RuntimeCalls rt(module);
  auto init = rt.getOrDeclare(b, RuntimeFn::tdsl_init);
  auto report = rt.getOrDeclare(b, RuntimeFn::tdsl_profile_report);
  auto cMain = func::FuncOp::create(b, loc, "main",
                                    b.getFunctionType({i32, ptr}, {i32}));
  Block *body = cMain.addEntryBlock();
  b.setInsertionPointToStart(body);
  func::CallOp::create(b, loc, init, body->getArguments());
  // Marked: inlined into this entry point, main's ops are "called from"
  // here, which DiagnosticPrinter leaves out (nothing calls main).
  auto call = func::CallOp::create(
      b, NameLoc::get(StringAttr::get(ctx, kEntryCall), loc), userMain,
      ValueRange{});
  func::CallOp::create(b, loc, report, ValueRange{});
  Value rc = call.getNumResults()
                 ? call.getResult(0)
                 : (Value)arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(0));
  func::ReturnOp::create(b, loc, rc);
  return success();
}

/// Whether the pass managers' command-line options print IR or write crash
/// reproducers, which need the passes to run on one thread.
static bool passOptionsNeedOneThread() {
  for (auto &entry : llvm::cl::getRegisteredOptions()) {
    llvm::StringRef name = entry.first;
    if ((name.starts_with("mlir-print-ir") ||
         name.starts_with("mlir-pass-pipeline-crash-reproducer")) &&
        entry.second->getNumOccurrences())
      return true;
  }
  return false;
}

LogicalResult lower(ModuleOp module, const TargetBackend &target,
                    const TargetOptions &options, Stage stopAfter,
                    TimingScope *timing) {
  MLIRContext *ctx = module.getContext();
  // As clang's release builds skip LLVM's verifier between passes: the
  // passes' own tests verify after each (TDSL_VERIFY_EACH in lit).
  const char *env = std::getenv("TDSL_VERIFY_EACH");
  bool verifyEach = options.verifyEach ||
                    (env && *env && llvm::StringRef(env) != "0");
  auto configure = [&](PassManager &pm) {
    // mlir-opt's --mlir-print-ir-*, ... where the tool registered them
    // (tdslc does); a no-op otherwise.
    (void)applyPassManagerCLOptions(pm);
    if (timing)
      pm.enableTiming(*timing);
    else
      applyDefaultTimingPassManagerCLOptions(pm);
    pm.enableVerifier(verifyEach);
  };
  PassManager pm(ctx);
  configure(pm);
  if (stopAfter <= Stage::TDSL)
    buildTDSLTransformPipeline(pm); // the same for every target
  else
    target.buildPipeline(pm, options, stopAfter);
  if (failed(pm.run(module)))
    return failure();

  PassManager threaded(ctx);
  configure(threaded);
  if (stopAfter > Stage::TDSL)
    target.buildThreadedPipeline(threaded, options, stopAfter);
  if (threaded.size()) {
    // Only here: on the few large functions before, the threads' locking
    // cost more than they shared out (see prepareContext).
    bool threads = !ctx->isMultithreadingEnabled() && !passOptionsNeedOneThread();
    if (threads)
      ctx->enableMultithreading();
    LogicalResult result = threaded.run(module);
    if (threads)
      ctx->disableMultithreading();
    if (failed(result))
      return failure();
  }
  // Invalid IR reaches neither a printed stage nor LLVM's translation.
  return verifyEach ? success() : verify(module);
}

LogicalResult emitStage(ModuleOp module, const TargetBackend &target,
                        const TargetOptions &options, Stage stage,
                        bool printLocs, llvm::raw_pwrite_stream &os,
                        std::string &error) {
  if (target.writeStage(module, stage, os))
    return success();
  if (stage <= Stage::LLVMDialect) {
    OpPrintingFlags flags;
    if (printLocs)
      flags.enableDebugInfo(/*enable=*/true, /*prettyForm=*/false);
    module.print(os, flags);
    return success();
  }
  llvm::LLVMContext llvmContext;
  auto llvmModule = translateForHost(module, llvmContext, options.optLevel);
  if (!llvmModule)
    return failure(); // reported through the module's diagnostics
  if (stage == Stage::LLVMIR) {
    llvmModule->print(os, nullptr);
    return success();
  }
  return emitHostCode(*llvmModule, os, stage == Stage::Asm, error);
}

LogicalResult buildExecutable(ModuleOp module, const TargetOptions &options,
                              const std::string &output,
                              const std::string &runtimeDir,
                              std::string &error, TimingScope *timing) {
  auto nest = [&](llvm::StringRef name) {
    return timing ? timing->nest(name) : TimingScope();
  };
  // Object files in temporary files, linked with the runtime. LLVM's
  // optimization and code generation take most of a compile: one piece of
  // the program per core (at most 4) runs them in parallel.
  unsigned parts = std::clamp(std::thread::hardware_concurrency(), 1u, 4u);
  std::vector<std::string> objects;
  TimingScope codegen = nest("LLVM IR, optimization, code generation");
  LogicalResult result = emitHostObjects(module, options.optLevel, parts, objects, error,
                                          timing ? &codegen : nullptr);
  codegen.stop();
  TimingScope link = nest("link");
  if (succeeded(result))
    result = linkExecutable(objects, output, runtimeDir, error);
  link.stop();
  for (const std::string &path : objects)
    llvm::sys::fs::remove(path);
  return result;
}

} // namespace tdsl
