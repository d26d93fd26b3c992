//===- Builtins.cpp - The built-in functions of .tdsl ---------------------===//
#include "compiler/Frontend/Builtins.h"

#include <algorithm>
#include <cassert>
#include <iterator>

using namespace tdsl;

static const BuiltinInfo kTable[] = {
#define TDSL_BUILTIN(Id, Name, Kind, MinArgs, MaxArgs)                         \
  {Name, BuiltinKind::Kind, MinArgs, MaxArgs},
#include "compiler/Frontend/Builtins.def"
};

const BuiltinInfo &tdsl::getBuiltinInfo(Builtin b) {
  assert(b != Builtin::None && "no table entry for Builtin::None");
  return kTable[static_cast<unsigned>(b) - 1];
}

llvm::ArrayRef<BuiltinInfo> tdsl::getBuiltinTable() { return kTable; }

bool tdsl::isBuiltinName(llvm::StringRef name) {
  return std::any_of(std::begin(kTable), std::end(kTable),
                     [&](const BuiltinInfo &i) { return name == i.name; });
}

Builtin tdsl::lookupBuiltin(llvm::StringRef name, size_t numArgs,
                            unsigned &minArgs, unsigned &maxArgs) {
  minArgs = kVariadic;
  maxArgs = 0;
  for (unsigned i = 0; i < std::size(kTable); ++i) {
    const BuiltinInfo &info = kTable[i];
    if (name != info.name)
      continue;
    if (numArgs >= info.minArgs && numArgs <= info.maxArgs)
      return static_cast<Builtin>(i + 1);
    minArgs = std::min(minArgs, info.minArgs);
    maxArgs = std::max(maxArgs, info.maxArgs);
  }
  return Builtin::None;
}
