//===- Sema.h - Names, types and shapes of .tdsl programs -----------------===//
#ifndef TDSL_FRONTEND_SEMA_H
#define TDSL_FRONTEND_SEMA_H

#include "compiler/Frontend/AST.h"
#include "compiler/Frontend/Diagnostics.h"

namespace tdsl {

/// A whole program: the main file and the stdlib modules it imports.
struct Program {
  std::unique_ptr<ModuleAST> main;
  std::vector<std::unique_ptr<ModuleAST>> imported;

  /// All modules, imported ones first (they cannot call the main file).
  std::vector<ModuleAST *> modules() const {
    std::vector<ModuleAST *> all;
    for (const auto &m : imported)
      all.push_back(m.get());
    all.push_back(main.get());
    return all;
  }
};

/// Checks names, types and shapes, annotating every expression with its type.
/// Returns failure when an error was reported; warnings do not fail.
bool checkProgram(Program &program, DiagEngine &diags);

} // namespace tdsl

#endif // TDSL_FRONTEND_SEMA_H
