//===- Session.cpp - State and evaluation of a tdsl-repl session ----------===//
#include "compiler/Repl/Session.h"
#include "compiler/Codegen/Common/RuntimeCalls.h"
#include "compiler/Driver/Driver.h"
#include "compiler/Frontend/Lexer.h"
#include "compiler/Frontend/Loader.h"
#include "compiler/Frontend/Parser.h"
#include "compiler/Frontend/Sema.h"
#include "compiler/Target/Host.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/WithColor.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <functional>
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
  bool isExpression = false;
  std::vector<std::string> newFunctions, newImports;
  /// The names the input binds, and (once their types are known) where
  /// their values go in the store, under `serial`.
  std::vector<std::pair<std::string, llvm::SMLoc>> keepNames;
  std::vector<std::pair<std::string, ValueStore::Value>> kept;
  unsigned serial = 0;
  double compileMs = 0;
  std::string inputName;
};

static double msSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now() - t0)
      .count();
}

Session::Session(SessionOptions options) : options(std::move(options)) {
  store.setRuntimeDir(this->options.runtimeDir);
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
}

Session::~Session() = default;

void Session::reset() {
  functions.clear();
  imports.clear();
  store.clear();
}

std::vector<std::string> Session::names() const {
  std::vector<std::string> out;
  for (auto &f : functions)
    out.push_back(f.first);
  for (auto &v : store.values())
    out.push_back(v.first);
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
  // Run-time errors quote the input's line as tdslc quotes a file's.
  registerSourceText(name, text);
  return srcMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(text, name), llvm::SMLoc());
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

/// The identifiers of an input's text (strings and comments skipped): the
/// live values it may read.
static llvm::StringSet<> identifiersIn(llvm::StringRef text) {
  llvm::StringSet<> out;
  for (size_t i = 0; i < text.size();) {
    char ch = text[i];
    if (ch == '"') {
      for (++i; i < text.size() && text[i] != '"' && text[i] != '\n'; ++i)
        if (text[i] == '\\')
          ++i;
      ++i;
    } else if (ch == '/' && text.substr(i).starts_with("//")) {
      while (i < text.size() && text[i] != '\n')
        ++i;
    } else if (isalpha(ch) || ch == '_') {
      size_t j = i;
      while (j < text.size() && (isalnum(text[j]) || text[j] == '_'))
        ++j;
      out.insert(text.slice(i, j));
      i = j;
    } else if (isdigit(ch)) {
      // As the lexer: a '.' belongs to a number only before a digit, so
      // `0..n` names n.
      while (i < text.size() &&
             (isalnum(text[i]) || text[i] == '_' ||
              (text[i] == '.' && i + 1 < text.size() && isdigit(text[i + 1]))))
        ++i;
    } else {
      ++i;
    }
  }
  return out;
}

/// The names an input's statements bind, with where each gets its value: at
/// top level, and inside `for` and `if` bodies those that exist outside
/// them (`outer`), which such bodies rebind (carried values).
static void collectKept(const StmtList &stmts, bool topLevel,
                        const std::function<bool(llvm::StringRef)> &outer,
                        std::vector<std::pair<std::string, llvm::SMLoc>> &out) {
  auto add = [&](llvm::StringRef binding, llvm::SMLoc loc) {
    // `m.w = e` rebinds the model m.
    std::string name = binding.split('.').first.str();
    auto it = llvm::find_if(out, [&](auto &k) { return k.first == name; });
    if (it != out.end())
      it->second = loc;
    else if (topLevel || outer(name))
      out.push_back({name, loc});
  };
  for (const auto &s : stmts) {
    if (auto *l = llvm::dyn_cast<LetStmt>(s.get()))
      add(l->name, l->value ? l->value->loc : l->loc);
    else if (auto *d = llvm::dyn_cast<IndexDefStmt>(s.get()))
      add(d->name, d->loc);
    else if (auto *f = llvm::dyn_cast<ForStmt>(s.get()))
      collectKept(f->body, false, outer, out);
    else if (auto *i = llvm::dyn_cast<IfStmt>(s.get())) {
      collectKept(i->thenBody, false, outer, out);
      collectKept(i->elseBody, false, outer, out);
    }
  }
}

/// Gives a statement that reads a kept value the place the value was
/// computed, so that notes ("dimension 3 comes from here") point there.
static void relocate(Expr &e, llvm::SMLoc loc) {
  e.loc = loc;
  if (auto *call = llvm::dyn_cast<CallExpr>(&e)) {
    for (CallArg &a : call->args)
      relocate(*a.value, loc);
  } else if (auto *index = llvm::dyn_cast<IndexExpr>(&e)) {
    relocate(*index->base, loc);
    for (ExprPtr &i : index->indices)
      relocate(*i, loc);
  } else if (auto *type = llvm::dyn_cast<TypeArgExpr>(&e)) {
    for (Dim &d : type->spec.shape)
      d.origin = loc;
  }
}

/// A type as a `load` writes it: sizes that are names become `?`.
static std::string loadableType(const Type &t) {
  if (t.isModel())
    return t.model ? t.model->qualifiedName() : t.modelName;
  std::string s = getElemKindName(t.elem);
  if (!t.isTensor)
    return s;
  s += "[";
  for (size_t i = 0; i < t.shape.size(); ++i)
    s += (i ? ", " : "") + (t.shape[i].isStatic() ? std::to_string(t.shape[i].size)
                                                   : std::string("?"));
  return s + "]";
}

/// `name:type;` per field of a model.
static std::string fieldSignature(const ModelDecl &m) {
  std::string s;
  for (const ModelField &f : m.fields)
    s += f.name + ":" + f.type.type.str() + ";";
  return s;
}

/// The statement that reads live value `name` from `path` in the store.
static std::string readValue(llvm::StringRef name, const ValueStore::Value &v,
                             const std::string &path) {
  using V = ValueStore::Value;
  std::string type = v.type;
  if (v.viaF32) // bf16 -> f32
    type = "f32" + type.substr(4);
  std::string read = "load(\"" + path + "\", " +
                     (v.kind == V::Scalar ? type + "[1])[0]" : type + ")");
  if (v.viaF32)
    read = "bf16(" + read + ")";
  return name.str() + " = " + read + "\n";
}

/// The statement that writes `name`'s value to `path` in the store.
static std::string writeValue(llvm::StringRef name, const ValueStore::Value &v,
                              const std::string &path) {
  using V = ValueStore::Value;
  std::string value = v.viaF32 ? "f32(" + name.str() + ")" : name.str();
  if (v.kind == V::Scalar)
    value = "full(" + std::string(v.viaF32 ? "f32" : v.type) + "[1], " + value + ")";
  return "save(\"" + path + "\", " + value + ")\n";
}

bool Session::addHidden(DiagEngine &diags, const std::string &text,
                        StmtList &into, std::vector<Expr *> *exprs) {
  if (text.empty())
    return true;
  ModuleAST ignored;
  StmtList stmts;
  if (!parseReplBuffer(diags, addBuffer(text, "<session>"), ignored, stmts))
    return false;
  for (auto &s : stmts) {
    if (exprs)
      if (auto *e = llvm::dyn_cast<ExprStmt>(s.get()))
        exprs->push_back(e->expr.get());
    into.push_back(std::move(s));
  }
  return true;
}

bool Session::checkModelRedefinitions(DiagEngine &diags, const ModuleAST &decls) {
  for (auto &m : decls.models)
    for (auto &[name, v] : store.values())
      if (v.kind == ValueStore::Value::Model && v.type == m->name &&
          v.fields != fieldSignature(*m)) {
        diags.error(m->loc, "model '" + m->name + "' cannot change its fields "
                            "while '" + name + "' holds one (:forget " + name +
                            " first)");
        return false;
      }
  return true;
}

bool Session::assemble(unsigned bufferId, Compiled &c, bool wrap,
                       DiagEngine &diags, Program &program, Expr *&shown,
                       StringLitExpr *&prefix, std::vector<Expr *> *probes) {
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
  llvm::StringRef text = srcMgr.getMemoryBuffer(bufferId)->getBuffer();
  entry->loc = llvm::SMLoc::getFromPointer(text.begin());
  // The live values this input names, read from the store.
  llvm::StringSet<> named = identifiersIn(text);
  for (auto &[name, v] : store.values())
    if (named.count(name)) {
      size_t first = entry->body.size();
      // A CUDA input reads a value from the GPU when it is there.
      bool device = options.cuda && v.onDevice;
      if (!addHidden(diags,
                     readValue(name, v, device ? store.devicePath(v.path) : v.path),
                     entry->body))
        return false;
      if (first < entry->body.size() && v.origin.isValid())
        if (auto *let = llvm::dyn_cast<LetStmt>(entry->body[first].get())) {
          let->loc = v.origin;
          relocate(*let->value, v.origin);
        }
    }
  prefix = nullptr;
  shown = nullptr;
  if (c.isExpression) {
    auto &es = llvm::cast<ExprStmt>(*current.back());
    shown = es.expr.get();
    if (wrap) {
      llvm::SMLoc loc = es.expr->loc;
      auto call = std::make_unique<CallExpr>(loc, "", "print");
      auto lit = std::make_unique<StringLitExpr>(loc, "");
      prefix = lit.get();
      call->args.push_back({"", llvm::SMLoc(), std::move(lit)});
      call->args.push_back({"", llvm::SMLoc(), std::move(es.expr)});
      current.back() = std::make_unique<ExprStmt>(loc, std::move(call));
    }
  }
  for (auto &s : current)
    entry->body.push_back(std::move(s));
  // The values it binds: their names (for their types), then their writes.
  std::string epilogue;
  if (c.kept.empty())
    for (auto &[name, loc] : c.keepNames)
      epilogue += name + "\n";
  for (auto &[name, v] : c.kept) {
    // A failed write is reported at the binding.
    std::vector<Expr *> write;
    std::string path = v.onDevice ? store.devicePath(v.path) : v.path;
    if (!addHidden(diags, writeValue(name, v, path), entry->body, &write))
      return false;
    for (Expr *e : write)
      relocate(*e, v.origin);
  }
  if (!addHidden(diags, epilogue, entry->body, probes))
    return false;
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
  // The last statement shows its value, whatever comes before it (`x = 1;
  // x + 1`, `fn f() ...; f()`), as in IPython or Julia.
  c.isExpression =
      !current.empty() && llvm::isa<ExprStmt>(current.back().get());
  // Models are definitions like functions (their names cannot clash).
  for (auto &f : decls.functions)
    c.newFunctions.push_back(f->name);
  for (auto &m : decls.models)
    c.newFunctions.push_back(m->name);
  for (auto &i : decls.imports)
    c.newImports.push_back(i.name);
  if (mode == Mode::Run)
    collectKept(current, true,
                [&](llvm::StringRef n) { return store.lookup(n) != nullptr; },
                c.keepNames);

  // The program: current definitions, then a function that reads the live
  // values the input names, runs its statements and ends with the names it
  // binds. An expression is first checked as it is; if it has a value, the
  // program is built again with the expression printed under its type, and
  // bound names again with their values written to the store.
  Expr *shown = nullptr;
  StringLitExpr *prefix = nullptr;
  std::vector<Expr *> probes;
  if (!assemble(bufferId, c, /*wrap=*/false, diags, program, shown, prefix,
                &probes) ||
      !checkModelRedefinitions(diags, decls))
    return false;
  if (mode == Mode::Check)
    return true;
  if (!c.keepNames.empty()) {
    auto serial = store.begin();
    if (!serial) {
      llvm::WithColor::error(llvm::errs(), "tdsl-repl")
          << llvm::toString(serial.takeError()) << "\n";
      return false;
    }
    c.serial = *serial;
    for (auto [kept, probe] : llvm::zip_equal(c.keepNames, probes)) {
      const std::string &name = kept.first;
      using V = ValueStore::Value;
      const Type &t = probe->type;
      V v;
      v.kind = t.isModel() ? V::Model : t.isTensor ? V::Tensor : V::Scalar;
      v.type = loadableType(t);
      v.viaF32 = t.elem == ElemKind::BF16;
      if (t.model)
        v.fields = fieldSignature(*t.model);
      v.path = store.pathFor(c.serial, name, v.kind);
      // A CUDA input's values stay on the GPU (bf16 has no .npy type for
      // a descriptor's header: it goes through f32 on the host).
      v.onDevice = options.cuda && !v.viaF32 && store.deviceAvailable();
      v.onHost = !v.onDevice;
      v.origin = kept.second;
      c.kept.push_back({name, v});
    }
  }
  bool wrap = shown && !shown->type.isVoid();
  if (shown && !wrap) {
    if (mode != Mode::Run) {
      diags.error(shown->loc, "this expression has no value");
      return false;
    }
    c.isExpression = false; // a call run for its effects
  }
  if (wrap)
    c.typeText = shown->type.str();
  if (mode == Mode::Type || (!wrap && c.kept.empty()))
    return true;
  if (!assemble(bufferId, c, wrap, diags, program, shown, prefix))
    return false;
  if (prefix)
    prefix->value = c.typeText + " =";
  return true;
}

/// Only the entry point and what it calls are compiled: the session's other
/// functions would cost compile time on every input. `:time` runs silently.
static void pruneAndQuiet(mlir::ModuleOp module, bool quiet) {
  module.walk([](mlir::func::FuncOp f) {
    if (f.getSymName() != "main")
      f.setPrivate();
  });
  mlir::PassManager pm(module.getContext());
  pm.addPass(mlir::createSymbolDCEPass());
  (void)pm.run(module);
  if (!quiet)
    return;
  auto fn = module.lookupSymbol<mlir::func::FuncOp>("tdsl_main");
  mlir::OpBuilder b(module.getContext());
  auto setQuiet = RuntimeCalls(module).getOrDeclare(b, RuntimeFn::tdsl_set_quiet);
  b.setInsertionPointToStart(&fn.getBody().front());
  mlir::Value on = mlir::arith::ConstantOp::create(b, fn.getLoc(),
                                                   b.getI32IntegerAttr(1));
  mlir::func::CallOp::create(b, fn.getLoc(), setQuiet, mlir::ValueRange{on});
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
  pruneAndQuiet(*c.module, mode == Mode::Time);
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

bool Session::placeValues(llvm::StringRef input) {
  llvm::StringSet<> named = identifiersIn(input);
  std::vector<std::string> names; // moving a value may drop others
  for (auto &[name, v] : store.values())
    if (named.count(name) && !v.viaF32)
      names.push_back(name);
  for (const std::string &name : names) {
    const ValueStore::Value *v = store.lookup(name);
    bool toDevice = options.cuda;
    if (!v || (toDevice ? v->onDevice : v->onHost))
      continue;
    // Without a GPU the value stays on the host, and the input says why.
    if (toDevice && !store.deviceAvailable())
      continue;
    if (llvm::Error e = store.moveValue(name, toDevice)) {
      llvm::WithColor::error(llvm::errs(), "tdsl-repl")
          << "cannot move '" << name << "' to the "
          << (toDevice ? "GPU" : "host") << ": " << llvm::toString(std::move(e))
          << "\n";
      return false;
    }
  }
  return true;
}

std::unique_ptr<Session::Compiled>
Session::compile(unsigned bufferId, Mode mode, llvm::StringRef stage) {
  auto t0 = std::chrono::steady_clock::now();
  if ((mode == Mode::Run || mode == Mode::Time) &&
      !placeValues(srcMgr.getMemoryBuffer(bufferId)->getBuffer()))
    return nullptr;
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
    // A crash of the input is reported by the session (the signal), without
    // LLVM's stack dump of the compiler's own crash handlers.
    restoreDefaultSignals();
    // The child must not read (or, exiting, move) the session's input.
    // The store's paths are the store's: not redirected by --compare's
    // TDSL_SAVE_DIR.
    unsetenv("TDSL_SAVE_DIR");
    store.leaveKeeperToSession();
    // Paths under this prefix are values the keeper holds on the GPU.
    if (std::string prefix = store.devicePrefix(); !prefix.empty())
      setenv("TDSL_REPL_DEVICE_STORE", prefix.c_str(), 1);
    else
      unsetenv("TDSL_REPL_DEVICE_STORE");
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
              // Moves of data say which way, as tdslc's profile does.
              std::string name = ko->getString("name").value_or("").str();
              llvm::StringRef kind = ko->getString("kind").value_or("kernel");
              if (kind != "kernel")
                name += " [" + kind.str() + "]";
              llvm::errs() << llvm::formatv(
                  "{0,-28} {1,-18} {2,6} {3,10:F3} {4,9}\n", name,
                  ko->getString("where").value_or(""),
                  ko->getInteger("calls").value_or(0),
                  ko->getNumber("total_ms").value_or(0),
                  gf ? llvm::formatv("{0:F2}", *gf).str() : "");
            }
          }
    }
    llvm::sys::fs::remove(json);
  }
  if (rc != 0) {
    if (c->serial)
      store.discard(c->serial);
    return false;
  }
  // Accepted: the session now has this input's definitions and values.
  accept(*c, buf);
  for (auto &[name, v] : c->kept)
    store.commit(name, v);
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
  // Kernels of this input and of the functions it calls, per run.
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

/// "1.5 MiB"-style sizes for :vars.
static std::string humanBytes(int64_t n) {
  if (n < 1024)
    return std::to_string(n) + " B";
  if (n < (1 << 20))
    return llvm::formatv("{0:F1} KiB", n / 1024.0).str();
  if (n < (1LL << 30))
    return llvm::formatv("{0:F1} MiB", n / 1048576.0).str();
  return llvm::formatv("{0:F2} GiB", n / 1073741824.0).str();
}

void Session::listValues() {
  int64_t total = 0;
  std::vector<std::array<std::string, 5>> rows;
  for (auto &[name, v] : store.values()) {
    std::string shape;
    for (auto &[field, path] : store.files(v, !v.onHost)) {
      auto info = readNpyHeader(path, /*headerOnly=*/!v.onHost);
      if (!info) {
        shape = llvm::toString(info.takeError());
        break;
      }
      if (v.kind == ValueStore::Value::Scalar)
        break;
      std::string dims = "[" + llvm::join(llvm::map_range(info->shape, [](int64_t d) {
                           return std::to_string(d);
                         }), ", ") + "]";
      shape += (shape.empty() ? "" : " ") + (field.empty() ? dims : field + dims);
    }
    int64_t bytes = store.bytes(v);
    total += bytes;
    rows.push_back({name, v.type, shape, humanBytes(bytes),
                    v.onHost && v.onDevice ? "host+gpu"
                    : v.onDevice           ? "gpu"
                                           : "host"});
  }
  size_t w[3] = {4, 4, 5};
  for (auto &r : rows)
    for (int i = 0; i < 3; ++i)
      w[i] = std::max(w[i], r[i].size());
  for (auto &r : rows)
    llvm::outs() << llvm::left_justify(r[0], w[0]) << "  "
                 << llvm::left_justify(r[1], w[1]) << "  "
                 << llvm::left_justify(r[2], w[2]) << "  "
                 << llvm::right_justify(r[3], 10) << "  " << r[4] << "\n";
  llvm::outs() << store.values().size() << " value"
               << (store.values().size() == 1 ? "" : "s") << ", "
               << humanBytes(total) << "\n";
  llvm::outs().flush();
}

/// Copies `from` to `to`, reporting a failure.
static bool copyValueFile(llvm::StringRef from, llvm::StringRef to) {
  if (auto ec = llvm::sys::fs::copy_file(from, to)) {
    llvm::WithColor::error(llvm::errs(), "tdsl-repl")
        << "cannot write '" << to << "': " << ec.message() << "\n";
    return false;
  }
  return true;
}

bool Session::saveValue(llvm::StringRef name, llvm::StringRef path) {
  const ValueStore::Value *v = store.lookup(name);
  if (!v) {
    llvm::WithColor::error(llvm::errs(), "tdsl-repl")
        << "no value named '" << name << "' (:vars lists them)\n";
    return false;
  }
  if (v->viaF32) {
    llvm::WithColor::error(llvm::errs(), "tdsl-repl")
        << "bf16 has no .npy type: save f32(" << name << ") instead\n";
    return false;
  }
  if (llvm::Error e = store.moveValue(name, /*toDevice=*/false)) {
    llvm::WithColor::error(llvm::errs(), "tdsl-repl")
        << "cannot bring '" << name << "' from the GPU: "
        << llvm::toString(std::move(e)) << "\n";
    return false;
  }
  v = store.lookup(name);
  // A model: one file per field, `path` being their prefix, as `save` does.
  for (auto &[field, file] : store.files(*v))
    if (!copyValueFile(file, field.empty() ? path.str() : path.str() + field + ".npy"))
      return false;
  return true;
}

bool Session::loadNpy(llvm::StringRef name, llvm::StringRef path) {
  auto error = [&](const llvm::Twine &msg) {
    llvm::WithColor::error(llvm::errs(), "tdsl-repl") << msg << "\n";
    return false;
  };
  // A name: letters, digits and '_', and to the lexer an identifier, not a
  // keyword or a type.
  if (name.empty() || !(isalpha(name[0]) || name[0] == '_') ||
      !llvm::all_of(name, [](char ch) { return isalnum(ch) || ch == '_'; }))
    return error("'" + name + "' is not a name");
  DiagEngine diags(srcMgr);
  std::vector<Token> tokens = Lexer(diags, addBuffer(name, "<name>")).lexAll();
  if (tokens.size() != 2 || tokens[0].kind != TokenKind::identifier)
    return error("'" + name + "' is a keyword or a type, not a name");
  if (functions.count(name.str()))
    return error("'" + name + "' names a function or a model");
  auto info = readNpyHeader(path);
  if (!info)
    return error(llvm::toString(info.takeError()));
  if (info->elem.empty())
    return error("'" + path + "' holds '" + info->descr +
                 "' values, which TDSL has no type for");
  if (info->fortranOrder)
    return error("'" + path + "' is in Fortran order; save it in C order "
                 "(numpy.ascontiguousarray)");
  if (info->shape.empty())
    return error("'" + path + "' holds a 0-d array; save it with shape (1,)");
  auto serial = store.begin();
  if (!serial)
    return error(llvm::toString(serial.takeError()));
  ValueStore::Value v;
  // A size of 0 is `?`: a static size is positive (a tensor made empty in
  // the session has the same type).
  v.type = info->elem + "[" +
           llvm::join(llvm::map_range(info->shape,
                                      [](int64_t d) {
                                        return d ? std::to_string(d) : "?";
                                      }),
                      ", ") +
           "]";
  v.path = store.pathFor(*serial, name, v.kind);
  // A copy: the value does not change when the file does.
  if (!copyValueFile(path, v.path)) {
    store.discard(*serial);
    return false;
  }
  store.commit(name, v);
  return true;
}

bool Session::forget(llvm::StringRef name) {
  if (store.forget(name))
    return true;
  llvm::WithColor::error(llvm::errs(), "tdsl-repl")
      << "no value named '" << name << "' (:vars lists them)\n";
  return false;
}
