//===- Loader.h - Reads a .tdsl file and the stdlib modules it imports ----===//
#ifndef TDSL_FRONTEND_LOADER_H
#define TDSL_FRONTEND_LOADER_H

#include "compiler/Frontend/Sema.h"

#include <string>
#include <vector>

namespace tdsl {

/// Where `import NAME` looks for NAME.tdsl: the given directories, then
/// $TDSL_STDLIB_PATH (colon-separated), then the stdlib/ of the source tree.
std::vector<std::string> getStdlibSearchPath(llvm::ArrayRef<std::string> extra);

/// Parses `bufferId` of the DiagEngine's SourceMgr as the main module and
/// loads its imports (transitively). Returns null after reporting errors;
/// does not run Sema.
std::unique_ptr<Program> parseProgram(DiagEngine &diags, unsigned bufferId,
                                      llvm::ArrayRef<std::string> searchPath);

/// Loads the modules `program.main` imports (transitively) into
/// `program.imported`. Returns false after reporting errors.
bool loadImports(DiagEngine &diags, Program &program,
                 llvm::ArrayRef<std::string> searchPath);

} // namespace tdsl

#endif // TDSL_FRONTEND_LOADER_H
