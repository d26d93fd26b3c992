//===- Session.h - State and evaluation of a tdsl-repl session ------------===//
#ifndef TDSL_REPL_SESSION_H
#define TDSL_REPL_SESSION_H

#include "compiler/Repl/ValueStore.h"
#include "compiler/Target/TargetBackend.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SourceMgr.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace tdsl {

class DiagEngine;
struct Expr;
struct StringLitExpr;
struct ModuleAST;
struct Program;
struct Stmt;
using StmtList = std::vector<std::unique_ptr<Stmt>>;

struct SessionOptions {
  /// The optimization level and the CUDA options, as for tdslc.
  TargetOptions target;
  /// Inputs compile for CUDA (kernels as PTX) instead of the CPU.
  bool cuda = false;
  std::string runtimeDir;
  std::vector<std::string> includeDirs;
  int threads = 0;
};

/// A REPL session. Every input is compiled, with the definitions accepted so
/// far, into one program through the same pipeline as tdslc and JIT-run in a
/// child process. The values of earlier bindings are kept in the session's
/// ValueStore: the program reads those the input names and writes those it
/// binds, so nothing is computed twice, and a crash or a run-time error in
/// the child leaves the session and its values intact. An input that fails
/// changes nothing.
class Session {
public:
  explicit Session(SessionOptions options);
  ~Session();

  /// Definitions, imports and statements; an expression prints its value
  /// with its type. Returns false after reporting an error.
  bool eval(llvm::StringRef input);
  /// Prints the type of an expression.
  bool printType(llvm::StringRef expr);
  /// Runs an expression `repeats` times (0: until about 1 s) and prints the
  /// compile time and the median and spread of its kernels' time.
  bool time(llvm::StringRef expr, bool perKernel, unsigned repeats = 0);
  /// Prints the IR of the program for `expr` after `stage` (tdsl, linalg,
  /// tiled, bufferized, llvm).
  bool printIR(llvm::StringRef stage, llvm::StringRef expr);
  /// Defines the functions and imports of a file (its `main` stays callable
  /// as main()).
  bool loadFile(llvm::StringRef path);
  /// Forgets every definition and binding.
  void reset();
  /// `:vars`: every live value with its type, shape, bytes and place.
  void listValues();
  /// `:save NAME FILE`: writes a value as .npy (a model: a file per field,
  /// FILE being the prefix, as `save` does).
  bool saveValue(llvm::StringRef name, llvm::StringRef path);
  /// `:load-npy NAME FILE`: binds NAME to the array in FILE.
  bool loadNpy(llvm::StringRef name, llvm::StringRef path);
  /// `:forget NAME`: drops a value.
  bool forget(llvm::StringRef name);
  void setProfile(bool on) { profile = on; }
  void setCUDA(bool on) { options.cuda = on; }
  bool isCUDA() const { return options.cuda; }
  bool getProfile() const { return profile; }
  /// Names worth completing: defined functions and bound variables.
  std::vector<std::string> names() const;

private:
  struct Compiled;
  enum class Mode { Run, Check, Type, Time, IR };
  /// The compile chain of compiler/Driver/Driver.h for one input: the
  /// session's program (buildProgram), then MLIRGen, lowering and the JIT
  /// (generate).
  std::unique_ptr<Compiled> compile(unsigned bufferId, Mode mode,
                                    llvm::StringRef stage = "");
  /// Moves the live values `input` names to where it runs (the GPU with
  /// --target=cuda when there is one, else the host).
  bool placeValues(llvm::StringRef input);
  bool buildProgram(Compiled &c, unsigned bufferId, Mode mode,
                    DiagEngine &diags, Program &program);
  /// The program for input `bufferId`: the current definitions and a
  /// function that reads the live values the input names, runs the input's
  /// statements and then ends with the names it binds (`c.keepNames`): as
  /// bare expressions, whose types Sema gives (`probes`), until `c.kept`
  /// has them, then as the writes of their values to the store.
  /// `shown` is the expression an expression input shows; with `wrap` it is
  /// printed, after the string literal `prefix` (for its type).
  bool assemble(unsigned bufferId, Compiled &c, bool wrap, DiagEngine &diags,
                Program &program, Expr *&shown, StringLitExpr *&prefix,
                std::vector<Expr *> *probes = nullptr);
  /// Statements of a hidden buffer named `<session>`, appended to `into`.
  bool addHidden(DiagEngine &diags, const std::string &text, StmtList &into,
                 std::vector<Expr *> *exprs = nullptr);
  /// A model redefined with other fields while a value of it is live.
  bool checkModelRedefinitions(DiagEngine &diags, const ModuleAST &decls);
  bool generate(Compiled &c, Program &program, DiagEngine &diags, Mode mode,
                llvm::StringRef stage);
  int runChild(Compiled &c, const std::string &profileJson);
  /// Makes the functions and imports of an accepted input current.
  void accept(const Compiled &c, unsigned buf);
  unsigned addBuffer(llvm::StringRef text, llvm::StringRef name);
  void addCurrentFunctions(DiagEngine &diags, const ModuleAST &decls,
                           ModuleAST &into);

  SessionOptions options;
  llvm::SourceMgr srcMgr;
  unsigned inputCounter = 0;
  /// Function or model name -> the buffer whose definition is current.
  std::map<std::string, unsigned> functions;
  std::vector<std::string> imports;
  ValueStore store;
  bool profile = false;
};

} // namespace tdsl

#endif // TDSL_REPL_SESSION_H
