//===- Diagnostics.h - Located diagnostics for the TDSL front end ---------===//
#ifndef TDSL_FRONTEND_DIAGNOSTICS_H
#define TDSL_FRONTEND_DIAGNOSTICS_H

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/SMLoc.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace tdsl {

/// Reports diagnostics in the clang/MLIR format (`file:line:col: error: ...`,
/// the source line and a caret) through one llvm::SourceMgr, and counts them
/// so that a driver can turn "any error" into exit code 1.
class DiagEngine {
public:
  explicit DiagEngine(llvm::SourceMgr &srcMgr) : srcMgr(srcMgr) {}

  void error(llvm::SMLoc loc, const llvm::Twine &msg) {
    ++numErrors;
    lastSuppressed = false;
    emit(loc, llvm::SourceMgr::DK_Error, msg);
  }
  /// Whether the error limit was passed: the parser stops there (a binary
  /// given as the source made millions of "unexpected character" errors).
  bool tooManyErrors() const { return errorLimit && printedErrors > errorLimit; }
  void warning(llvm::SMLoc loc, const llvm::Twine &msg) {
    ++numWarnings;
    lastSuppressed = suppressWarnings;
    if (!suppressWarnings)
      emit(loc, llvm::SourceMgr::DK_Warning, msg);
  }
  /// A note belongs to the diagnostic before it, and is hidden with it.
  void note(llvm::SMLoc loc, const llvm::Twine &msg) {
    if (!lastSuppressed)
      emit(loc, llvm::SourceMgr::DK_Note, msg);
  }

  unsigned getNumErrors() const { return numErrors; }
  unsigned getNumWarnings() const { return numWarnings; }
  bool hadError() const { return numErrors != 0; }
  llvm::SourceMgr &getSourceMgr() { return srcMgr; }
  void setSuppressWarnings(bool v) { suppressWarnings = v; }
  /// Stops printing after this many errors (0: no limit), like clang's -ferror-limit.
  void setErrorLimit(unsigned limit) { errorLimit = limit; }

  /// A diagnostic held back by a Tentative.
  struct Held {
    llvm::SMLoc loc;
    llvm::SourceMgr::DiagKind kind;
    std::string msg;
  };

  /// Diagnostics held back while a checker tries something it may redo:
  /// `discard` forgets them (and their counts), `commit` prints them.
  class Tentative {
  public:
    explicit Tentative(DiagEngine &engine)
        : engine(engine), outer(engine.held), errors(engine.numErrors),
          warnings(engine.numWarnings) {
      engine.held = &pending;
    }
    ~Tentative() { commit(); }
    void discard() {
      if (engine.held != &pending)
        return;
      engine.held = outer;
      pending.clear();
      engine.numErrors = errors;
      engine.numWarnings = warnings;
    }
    void commit() {
      if (engine.held != &pending)
        return;
      engine.held = outer;
      for (Held &h : pending)
        engine.emit(h.loc, h.kind, h.msg);
      pending.clear();
    }

  private:
    DiagEngine &engine;
    llvm::SmallVectorImpl<Held> *outer;
    llvm::SmallVector<Held, 0> pending;
    unsigned errors, warnings;
  };

private:
  void emit(llvm::SMLoc loc, llvm::SourceMgr::DiagKind kind,
            const llvm::Twine &msg) {
    if (held) {
      held->push_back({loc, kind, msg.str()});
      return;
    }
    emitNow(loc, kind, msg);
  }
  void emitNow(llvm::SMLoc loc, llvm::SourceMgr::DiagKind kind,
               const llvm::Twine &msg) {
    if (kind == llvm::SourceMgr::DK_Error)
      ++printedErrors;
    if (errorLimit && printedErrors > errorLimit) {
      lastSuppressed = true;
      if (kind == llvm::SourceMgr::DK_Error && printedErrors == errorLimit + 1)
        llvm::errs() << "error: too many errors emitted, stopping now "
                        "(--error-limit=0 shows them all)\n";
      return;
    }
    llvm::SMDiagnostic d = srcMgr.GetMessage(loc, kind, msg);
    llvm::StringRef line = d.getLineContents();
    if (d.getColumnNo() < 0 ||
        llvm::all_of(line, [](char c) { return (unsigned char)c < 0x80; })) {
      srcMgr.PrintMessage(llvm::errs(), d);
      return;
    }
    // LLVM prints no caret under a line with non-ASCII text: here it goes
    // under the character, counted in code points (tabs kept for alignment).
    const char *label = kind == llvm::SourceMgr::DK_Error     ? "error"
                        : kind == llvm::SourceMgr::DK_Warning ? "warning"
                        : kind == llvm::SourceMgr::DK_Remark  ? "remark"
                                                              : "note";
    llvm::errs() << d.getFilename() << ':' << d.getLineNo() << ':'
                 << d.getColumnNo() + 1 << ": " << label << ": "
                 << d.getMessage() << '\n';
    std::string caret;
    for (char c : line.take_front(d.getColumnNo()))
      if (((unsigned char)c & 0xC0) != 0x80)
        caret += c == '\t' ? '\t' : ' ';
    llvm::errs() << line << '\n' << caret << "^\n";
  }

  llvm::SourceMgr &srcMgr;
  unsigned numErrors = 0;
  unsigned numWarnings = 0;
  unsigned errorLimit = 0;
  unsigned printedErrors = 0;
  bool suppressWarnings = false;
  bool lastSuppressed = false;
  llvm::SmallVectorImpl<Held> *held = nullptr;
};

} // namespace tdsl

#endif // TDSL_FRONTEND_DIAGNOSTICS_H
