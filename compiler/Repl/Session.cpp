//===- Session.cpp - State and evaluation of a tdsl-repl session ----------===//
#include "compiler/Repl/Session.h"
#include "compiler/Codegen/Common/RuntimeCalls.h"
#include "compiler/Driver/Driver.h"
#include "compiler/Frontend/Loader.h"
#include "compiler/Frontend/Parser.h"
#include "compiler/Frontend/Sema.h"
#include "compiler/Target/Host.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/WithColor.h"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace tdsl;

namespace tdsl {
/// The child running the current input, for the tool's Ctrl-C handler.
volatile pid_t replChildPid = 0;
} // namespace tdsl

struct Session::Compiled {
  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  std::unique_ptr<mlir::ExecutionEngine> engine;
  int (*mainFn)(int, char **) = nullptr;
  std::string typeText;
  bool hasStatements = false;
  bool isExpression = false;
  std::vector<std::string> newFunctions, newImports, newVariables;
  double compileMs = 0;
  std::string inputName;
};

static double msSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now() - t0)
      .count();
}

Session::Session(SessionOptions options) : options(std::move(options)) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
}

Session::~Session() = default;

void Session::reset() {
  functions.clear();
  imports.clear();
  statements.clear();
  variables.clear();
}

std::vector<std::string> Session::names() const {
  std::vector<std::string> out;
  for (auto &f : functions)
    out.push_back(f.first);
  out.insert(out.end(), variables.begin(), variables.end());
  return out;
}

void Session::addCurrentFunctions(DiagEngine &diags, const ModuleAST &decls,
                                  ModuleAST &into) {
  // The session's definitions, minus those `decls` redefines, parsed again
  // from the buffer that holds each one's current version.
  llvm::StringSet<> redefined;
  for (auto &f : decls.functions)
    redefined.insert(f->name);
  for (auto &m : decls.models)
    redefined.insert(m->name);
  std::map<unsigned, std::vector<std::string>> byBuffer;
  for (auto &[name, buf] : functions)
    if (!redefined.count(name))
      byBuffer[buf].push_back(name);
  for (auto &[buf, names] : byBuffer) {
    ModuleAST old;
    StmtList ignored;
    parseReplBuffer(diags, buf, old, ignored);
    for (auto &f : old.functions)
      if (llvm::is_contained(names, f->name))
        into.functions.push_back(std::move(f));
    for (auto &m : old.models)
      if (llvm::is_contained(names, m->name))
        into.models.push_back(std::move(m));
  }
}

unsigned Session::addBuffer(llvm::StringRef text, llvm::StringRef name) {
  return srcMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(text, name), llvm::SMLoc());
}

/// The names a statement binds at its top level.
static void collectBound(const StmtList &stmts, std::vector<std::string> &out) {
  for (const auto &s : stmts) {
    if (auto *l = llvm::dyn_cast<LetStmt>(s.get()))
      out.push_back(l->name);
    else if (auto *d = llvm::dyn_cast<IndexDefStmt>(s.get()))
      out.push_back(d->name);
  }
}

/// Whether input `bufferId` has the form `mode` needs (statements and
/// definitions to run, definitions to load, one expression otherwise).
static bool checkInputForm(DiagEngine &diags, llvm::SourceMgr &srcMgr,
                           unsigned bufferId, const ModuleAST &decls,
                           const StmtList &current, bool check, bool run) {
  for (auto &s : current)
    if (llvm::isa<ReturnStmt, YieldStmt>(s.get())) {
      diags.error(s->loc, llvm::isa<ReturnStmt>(s.get())
                              ? "'return' belongs in a function; type an "
                                "expression to see its value"
                              : "'yield' belongs in a 'parallel for' body");
      return false;
    }
  if (check && !current.empty()) {
    diags.error(current.front()->loc, "a file loaded into the REPL holds "
                                      "definitions and imports only");
    return false;
  }
  if (!run && !check &&
      (current.size() != 1 || !llvm::isa<ExprStmt>(current[0].get()) ||
       !decls.functions.empty() || !decls.models.empty() ||
       !decls.imports.empty())) {
    diags.error(llvm::SMLoc::getFromPointer(
                    srcMgr.getMemoryBuffer(bufferId)->getBufferStart()),
                "expected one expression");
    return false;
  }
  return true;
}

bool Session::assemble(unsigned bufferId, bool isExpression, bool wrap,
                       DiagEngine &diags, Program &program, Expr *&shown,
                       StringLitExpr *&prefix) {
  ModuleAST decls;
  StmtList current;
  parseReplBuffer(diags, bufferId, decls, current);
  program = Program();
  program.main = std::make_unique<ModuleAST>();
  llvm::StringSet<> seenImports;
  for (const std::string &name : imports)
    if (seenImports.insert(name).second)
      program.main->imports.push_back({name, llvm::SMLoc()});
  for (auto &imp : decls.imports)
    if (seenImports.insert(imp.name).second)
      program.main->imports.push_back(imp);
  addCurrentFunctions(diags, decls, *program.main);
  for (auto &f : decls.functions)
    program.main->functions.push_back(std::move(f));
  for (auto &m : decls.models)
    program.main->models.push_back(std::move(m));
  auto entry = std::make_unique<FunctionDecl>();
  entry->name = "__repl_main";
  entry->loc = llvm::SMLoc::getFromPointer(
      srcMgr.getMemoryBuffer(bufferId)->getBufferStart());
  for (unsigned buf : statements) {
    ModuleAST ignored;
    StmtList replay;
    parseReplBuffer(diags, buf, ignored, replay);
    for (auto &s : replay)
      entry->body.push_back(std::move(s));
  }
  prefix = nullptr;
  shown = nullptr;
  if (isExpression) {
    auto &es = llvm::cast<ExprStmt>(*current[0]);
    shown = es.expr.get();
    if (wrap) {
      llvm::SMLoc loc = es.expr->loc;
      auto call = std::make_unique<CallExpr>(loc, "", "print");
      auto lit = std::make_unique<StringLitExpr>(loc, "");
      prefix = lit.get();
      call->args.push_back({"", llvm::SMLoc(), std::move(lit)});
      call->args.push_back({"", llvm::SMLoc(), std::move(es.expr)});
      current[0] = std::make_unique<ExprStmt>(loc, std::move(call));
    }
  }
  for (auto &s : current)
    entry->body.push_back(std::move(s));
  program.main->functions.push_back(std::move(entry));
  return loadImports(diags, program, getStdlibSearchPath(options.includeDirs)) &&
         checkProgram(program, diags);
}

bool Session::buildProgram(Compiled &c, unsigned bufferId, Mode mode,
                           DiagEngine &diags, Program &program) {
  ModuleAST decls;
  StmtList current;
  if (!parseReplBuffer(diags, bufferId, decls, current) ||
      !checkInputForm(diags, srcMgr, bufferId, decls, current,
                      mode == Mode::Check, mode == Mode::Run))
    return false;
  c.isExpression = current.size() == 1 &&
                   llvm::isa<ExprStmt>(current[0].get()) &&
                   decls.functions.empty() && decls.models.empty();
  c.hasStatements = !current.empty() && !c.isExpression;
  // Models are definitions like functions (their names cannot clash).
  for (auto &f : decls.functions)
    c.newFunctions.push_back(f->name);
  for (auto &m : decls.models)
    c.newFunctions.push_back(m->name);
  for (auto &i : decls.imports)
    c.newImports.push_back(i.name);
  collectBound(current, c.newVariables);

  // The program: current definitions, then a function that replays the
  // accepted statements and runs this input's. An expression is first
  // checked as it is; if it has a value, the program is built again with the
  // expression printed under its type.
  Expr *shown = nullptr;
  StringLitExpr *prefix = nullptr;
  if (!assemble(bufferId, c.isExpression, /*wrap=*/false, diags, program,
                shown, prefix))
    return false;
  if (mode == Mode::Check || !shown)
    return true;
  if (shown->type.isVoid()) {
    if (mode != Mode::Run) {
      diags.error(shown->loc, "this expression has no value");
      return false;
    }
    c.isExpression = false; // a call run for its effects
    return true;
  }
  c.typeText = shown->type.str();
  if (mode == Mode::Type)
    return true;
  if (!assemble(bufferId, c.isExpression, /*wrap=*/true, diags, program, shown,
                prefix))
    return false;
  prefix->value = c.typeText + " =";
  return true;
}

/// Replayed statements run silently; output starts with the ops of input
/// `inputName` (never, when timing).
static void quietReplay(mlir::ModuleOp module, llvm::StringRef inputName,
                        bool timing) {
  auto fn = module.lookupSymbol<mlir::func::FuncOp>("tdsl_main");
  mlir::OpBuilder b(module.getContext());
  auto quiet = RuntimeCalls(module).getOrDeclare(b, RuntimeFn::tdsl_set_quiet);
  auto setQuiet = [&](mlir::Operation *before, int on) {
    b.setInsertionPoint(before);
    mlir::Value v = mlir::arith::ConstantOp::create(b, fn.getLoc(),
                                                    b.getI32IntegerAttr(on));
    mlir::func::CallOp::create(b, fn.getLoc(), quiet, mlir::ValueRange{v});
  };
  mlir::Block &body = fn.getBody().front();
  mlir::Operation *first = nullptr;
  for (mlir::Operation &op : body) {
    auto fl = mlir::dyn_cast<mlir::FileLineColLoc>(op.getLoc());
    if (fl && fl.getFilename() == inputName) {
      first = &op;
      break;
    }
  }
  setQuiet(&body.front(), 1);
  if (!timing)
    setQuiet(first ? first : body.getTerminator(), 0);
}

/// The stage of `:ir STAGE`; for CUDA, the stage nearest to a CPU one.
static Stage irStage(llvm::StringRef name, bool cuda) {
  if (name == "llvm")
    return Stage::LLVMIR;
  if (cuda && name == "bufferized")
    return Stage::GPU;
  return lookupStage(name).value_or(Stage::LLVMDialect);
}

bool Session::generate(Compiled &c, Program &program, DiagEngine &diags,
                       Mode mode, llvm::StringRef stage) {
  prepareContext(c.context);
  DiagnosticPrinter handler(srcMgr, c.context);
  c.module = generateModule(c.context, program, diags);
  if (!c.module || mlir::failed(addEntryPoint(*c.module, "__repl_main")))
    return false;
  quietReplay(*c.module, c.inputName, mode == Mode::Time);
  const TargetBackend &backend = *lookupTarget(options.cuda ? "cuda" : "cpu");
  if (mode == Mode::IR && stage == "tdsl") {
    if (mlir::failed(lower(*c.module, backend, options.target, Stage::TDSL)))
      return false;
    c.module->print(llvm::outs());
    return true;
  }
  Stage stop = mode == Mode::IR ? irStage(stage, options.cuda) : Stage::LLVMDialect;
  if (mlir::failed(lower(*c.module, backend, options.target, stop)))
    return false;
  if (mode == Mode::IR) {
    std::string err;
    if (mlir::failed(emitStage(*c.module, backend, options.target, stop,
                               /*printLocs=*/false, llvm::outs(), err))) {
      if (!err.empty())
        llvm::WithColor::error(llvm::errs(), "tdsl-repl") << err << "\n";
      return false;
    }
    return true;
  }
  // The same JIT as `tdslc run`: the host's target machine at -O<level>.
  auto engine = createJIT(*c.module, options.target.optLevel, options.runtimeDir);
  if (!engine) {
    llvm::WithColor::error(llvm::errs(), "tdsl-repl")
        << "JIT compilation failed: " << llvm::toString(engine.takeError()) << "\n";
    return false;
  }
  c.engine = std::move(*engine);
  auto sym = c.engine->lookup("main");
  if (!sym) {
    llvm::WithColor::error(llvm::errs(), "tdsl-repl")
        << llvm::toString(sym.takeError()) << "\n";
    return false;
  }
  c.mainFn = reinterpret_cast<int (*)(int, char **)>(*sym);
  return true;
}

std::unique_ptr<Session::Compiled>
Session::compile(unsigned bufferId, Mode mode, llvm::StringRef stage) {
  auto t0 = std::chrono::steady_clock::now();
  auto c = std::make_unique<Compiled>();
  c->inputName = srcMgr.getMemoryBuffer(bufferId)->getBufferIdentifier().str();
  DiagEngine diags(srcMgr);
  diags.setSuppressWarnings(true);
  Program program;
  if (!buildProgram(*c, bufferId, mode, diags, program))
    return nullptr;
  if (mode == Mode::Check || mode == Mode::Type)
    return c;
  if (!generate(*c, program, diags, mode, stage))
    return nullptr;
  c->compileMs = msSince(t0);
  return c;
}

int Session::runChild(Compiled &c, const std::string &profileJson) {
  std::vector<std::string> args = {"tdsl-repl"};
  if (options.threads > 0)
    args.push_back("--threads=" + std::to_string(options.threads));
  if (!profileJson.empty())
    args.push_back("--profile-json=" + profileJson);
  std::vector<char *> argv;
  for (std::string &a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid < 0) {
    llvm::WithColor::error(llvm::errs(), "tdsl-repl") << "cannot fork\n";
    return -1;
  }
  if (pid == 0) {
    signal(SIGINT, SIG_DFL);
    // The child must not read (or, exiting, move) the session's input.
    int devNull = open("/dev/null", O_RDONLY);
    if (devNull >= 0)
      dup2(devNull, 0);
    // Global constructors (a CUDA program loads its kernels' modules in
    // one) run here in the child: the driver must not start before fork.
    c.engine->initialize();
    int rc = c.mainFn((int)args.size(), argv.data());
    fflush(stdout);
    fflush(stderr);
    _exit(rc);
  }
  replChildPid = pid;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  replChildPid = 0;
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    llvm::errs() << (sig == SIGINT || sig == SIGKILL
                         ? "interrupted\n"
                         : llvm::formatv("the program stopped with signal {0} ({1})\n",
                                         sig, strsignal(sig)).str());
    return -1;
  }
  return WEXITSTATUS(status);
}

bool Session::eval(llvm::StringRef input) {
  std::string name = "<input-" + std::to_string(++inputCounter) + ">";
  unsigned buf = addBuffer(input, name);
  auto c = compile(buf, Mode::Run);
  if (!c)
    return false;
  std::string json;
  if (profile) {
    llvm::SmallString<128> path;
    llvm::sys::fs::createTemporaryFile("tdsl-repl", "json", path);
    json = std::string(path);
  }
  int rc = runChild(*c, json);
  if (profile && rc == 0) {
    auto text = llvm::MemoryBuffer::getFile(json);
    if (text) {
      auto parsed = llvm::json::parse((*text)->getBuffer());
      if (parsed)
        if (auto *obj = parsed->getAsObject())
          if (auto *ks = obj->getArray("kernels")) {
            llvm::errs() << llvm::formatv("{0,-28} {1,-18} {2,6} {3,10} {4,9}\n",
                                          "kernel", "where", "calls",
                                          "total ms", "GFLOP/s");
            for (auto &k : *ks) {
              auto *ko = k.getAsObject();
              if (!ko)
                continue;
              auto gf = ko->getNumber("gflops");
              llvm::errs() << llvm::formatv(
                  "{0,-28} {1,-18} {2,6} {3,10:F3} {4,9}\n",
                  ko->getString("name").value_or(""),
                  ko->getString("where").value_or(""),
                  ko->getInteger("calls").value_or(0),
                  ko->getNumber("total_ms").value_or(0),
                  gf ? llvm::formatv("{0:F2}", *gf).str() : "");
            }
          }
    }
    llvm::sys::fs::remove(json);
  }
  if (rc != 0)
    return false;
  // Accepted: the session now has this input's definitions and bindings.
  accept(*c, buf);
  if (c->hasStatements)
    statements.push_back(buf);
  for (const std::string &v : c->newVariables)
    if (!llvm::is_contained(variables, v))
      variables.push_back(v);
  return true;
}

void Session::accept(const Compiled &c, unsigned buf) {
  for (const std::string &f : c.newFunctions)
    functions[f] = buf;
  for (const std::string &i : c.newImports)
    if (!llvm::is_contained(imports, i))
      imports.push_back(i);
}

bool Session::printType(llvm::StringRef expr) {
  unsigned buf = addBuffer(expr, "<input-" + std::to_string(++inputCounter) + ">");
  auto c = compile(buf, Mode::Type);
  if (!c)
    return false;
  llvm::outs() << c->typeText << "\n";
  llvm::outs().flush();
  return true;
}

bool Session::printIR(llvm::StringRef stage, llvm::StringRef expr) {
  unsigned buf = addBuffer(expr, "<input-" + std::to_string(++inputCounter) + ">");
  bool ok = compile(buf, Mode::IR, stage) != nullptr;
  llvm::outs().flush();
  return ok;
}

bool Session::time(llvm::StringRef expr, bool perKernel, unsigned repeats) {
  std::string name = "<input-" + std::to_string(++inputCounter) + ">";
  unsigned buf = addBuffer(expr, name);
  auto c = compile(buf, Mode::Time);
  if (!c)
    return false;
  // Kernels of this input (and of the functions it calls) per run; replayed
  // statements are left out.
  llvm::StringSet<> replayed;
  for (unsigned b : statements)
    replayed.insert(srcMgr.getMemoryBuffer(b)->getBufferIdentifier());
  std::vector<double> totals;
  std::map<std::string, std::vector<double>> kernels;
  auto start = std::chrono::steady_clock::now();
  for (unsigned run = 0;; ++run) {
    if (repeats ? run >= repeats : (run >= 3 && msSince(start) > 1000) || run >= 100)
      break;
    llvm::SmallString<128> path;
    llvm::sys::fs::createTemporaryFile("tdsl-time", "json", path);
    std::string json(path);
    if (runChild(*c, json) != 0) {
      llvm::sys::fs::remove(json);
      return false;
    }
    auto text = llvm::MemoryBuffer::getFile(json);
    llvm::sys::fs::remove(json);
    double total = 0;
    if (text)
      if (auto parsed = llvm::json::parse((*text)->getBuffer()))
        if (auto *obj = parsed->getAsObject())
          if (auto *ks = obj->getArray("kernels"))
            for (auto &k : *ks) {
              auto *ko = k.getAsObject();
              std::string where = ko->getString("where").value_or("").str();
              std::string file = where.substr(0, where.find(':'));
              if (replayed.count(file))
                continue;
              double ms = ko->getNumber("total_ms").value_or(0);
              total += ms;
              kernels[ko->getString("name").value_or("").str() + "  " + where]
                  .push_back(ms);
            }
    totals.push_back(total);
  }
  auto stats = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return std::make_tuple(v[v.size() / 2], v.front(), v.back());
  };
  auto [med, lo, hi] = stats(totals);
  llvm::outs() << llvm::formatv(
      "compile {0:F1} ms; kernels {1:F3} ms median (min {2:F3}, max {3:F3}) "
      "over {4} runs\n",
      c->compileMs, med, lo, hi, totals.size());
  if (perKernel)
    for (auto &[k, v] : kernels) {
      auto [m, l, h] = stats(v);
      llvm::outs() << llvm::formatv("  {0,-44} {1:F3} ms (min {2:F3}, max {3:F3})\n",
                                    k, m, l, h);
    }
  llvm::outs().flush();
  return true;
}

bool Session::loadFile(llvm::StringRef path) {
  auto text = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!text) {
    llvm::WithColor::error(llvm::errs(), "tdsl-repl")
        << "cannot open '" << path << "': " << text.getError().message() << "\n";
    return false;
  }
  unsigned buf = srcMgr.AddNewSourceBuffer(std::move(*text), llvm::SMLoc());
  // Checked like a typed input: with every definition and binding so far.
  auto c = compile(buf, Mode::Check);
  if (!c)
    return false;
  accept(*c, buf);
  std::vector<std::string> &newFunctions = c->newFunctions;
  llvm::outs() << "loaded " << path << ": " << newFunctions.size()
               << " function" << (newFunctions.size() == 1 ? "" : "s") << "\n";
  llvm::outs().flush();
  return true;
}
