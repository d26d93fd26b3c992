//===- Loader.cpp - Reads a .tdsl file and the stdlib modules it imports --===//
#include "compiler/Frontend/Loader.h"
#include "compiler/Frontend/Parser.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <cstdlib>

using namespace tdsl;

#ifndef TDSL_STDLIB_DIR
#define TDSL_STDLIB_DIR ""
#endif

std::vector<std::string>
tdsl::getStdlibSearchPath(llvm::ArrayRef<std::string> extra) {
  std::vector<std::string> dirs(extra.begin(), extra.end());
  if (const char *env = std::getenv("TDSL_STDLIB_PATH")) {
    llvm::SmallVector<llvm::StringRef, 4> parts;
    llvm::StringRef(env).split(parts, ':', -1, false);
    for (llvm::StringRef p : parts)
      dirs.push_back(p.str());
  }
  if (*TDSL_STDLIB_DIR)
    dirs.push_back(TDSL_STDLIB_DIR);
  return dirs;
}

std::unique_ptr<Program>
tdsl::parseProgram(DiagEngine &diags, unsigned bufferId,
                   llvm::ArrayRef<std::string> searchPath) {
  auto program = std::make_unique<Program>();
  unsigned before = diags.getNumErrors();
  program->main = parseBuffer(diags, bufferId);
  loadImports(diags, *program, searchPath);
  if (diags.getNumErrors() != before)
    return nullptr;
  return program;
}

bool tdsl::loadImports(DiagEngine &diags, Program &program,
                       llvm::ArrayRef<std::string> searchPath) {
  unsigned before = diags.getNumErrors();
  llvm::SourceMgr &srcMgr = diags.getSourceMgr();
  // Breadth-first over imports; a module is loaded once however often it is
  // imported. Modules are stored so that dependencies come first.
  llvm::StringSet<> loaded;
  std::vector<ImportDecl> pending(program.main->imports.begin(),
                                  program.main->imports.end());
  std::vector<std::unique_ptr<ModuleAST>> order;
  for (size_t i = 0; i < pending.size(); ++i) {
    ImportDecl imp = pending[i];
    if (!loaded.insert(imp.name).second)
      continue;
    std::string found;
    for (const std::string &dir : searchPath) {
      llvm::SmallString<256> path(dir);
      llvm::sys::path::append(path, imp.name + ".tdsl");
      if (llvm::sys::fs::exists(path)) {
        found = path.str().str();
        break;
      }
    }
    if (found.empty()) {
      // The places, in order: -I directories, $TDSL_STDLIB_PATH, stdlib/.
      std::string dirs;
      for (const std::string &dir : searchPath)
        dirs += (dirs.empty() ? "" : ", ") + dir;
      diags.error(imp.loc, "cannot find module '" + imp.name +
                               "' (looked for " + imp.name + ".tdsl in " +
                               (dirs.empty() ? "no directory" : dirs) + ")");
      // The importing file's directory is not on the path (section 11).
      llvm::StringRef importer =
          srcMgr.getMemoryBuffer(srcMgr.FindBufferContainingLoc(imp.loc))
              ->getBufferIdentifier();
      llvm::SmallString<256> beside(llvm::sys::path::parent_path(importer));
      llvm::sys::path::append(beside, imp.name + ".tdsl");
      if (llvm::sys::fs::is_regular_file(beside)) {
        llvm::StringRef dir = llvm::sys::path::parent_path(importer);
        diags.note(imp.loc, "there is a " + imp.name + ".tdsl beside this "
                            "file, but only the search path is searched: "
                            "add -I " + (dir.empty() ? "." : dir));
      }
      continue;
    }
    std::string included;
    unsigned id = srcMgr.AddIncludeFile(found, imp.loc, included);
    if (!id) {
      diags.error(imp.loc, "cannot read module '" + imp.name + "' from " + found +
                               (llvm::sys::fs::is_directory(found)
                                    ? ": it is a directory"
                                    : ""));
      continue;
    }
    auto module = parseBuffer(diags, id);
    module->name = imp.name;
    for (const ImportDecl &sub : module->imports)
      pending.push_back(sub);
    for (auto &fn : module->functions)
      fn->module = imp.name;
    order.push_back(std::move(module));
  }
  // Later imports are dependencies of earlier ones.
  for (auto it = order.rbegin(); it != order.rend(); ++it)
    program.imported.push_back(std::move(*it));
  return diags.getNumErrors() == before;
}
