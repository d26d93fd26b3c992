//===- BuiltinsTest.cpp - The table of built-ins and Sema's resolution ----===//
#include "compiler/Frontend/Builtins.h"
#include "compiler/Frontend/Parser.h"
#include "compiler/Frontend/Sema.h"

#include "llvm/Support/MemoryBuffer.h"

#include <gtest/gtest.h>

using namespace tdsl;

namespace {
Builtin lookup(llvm::StringRef name, size_t n) {
  unsigned lo, hi;
  return lookupBuiltin(name, n, lo, hi);
}
} // namespace

TEST(Builtins, OverloadsResolveByArgumentCount) {
  EXPECT_EQ(lookup("max", 1), Builtin::MaxAll);
  EXPECT_EQ(lookup("max", 2), Builtin::Max);
  EXPECT_EQ(lookup("min", 1), Builtin::MinAll);
  EXPECT_EQ(lookup("min", 2), Builtin::Min);
  EXPECT_EQ(lookup("uniform", 2), Builtin::Uniform);
  EXPECT_EQ(lookup("uniform", 3), Builtin::Uniform);
  EXPECT_EQ(lookup("print", 7), Builtin::Print);
}

TEST(Builtins, ArityRangeCoversEveryOverload) {
  unsigned lo, hi;
  EXPECT_EQ(lookupBuiltin("max", 3, lo, hi), Builtin::None);
  EXPECT_EQ(lo, 1u);
  EXPECT_EQ(hi, 2u);
  EXPECT_EQ(lookupBuiltin("print", 0, lo, hi), Builtin::None);
  EXPECT_EQ(lo, 1u);
  EXPECT_EQ(hi, kVariadic);
  EXPECT_EQ(lookupBuiltin("relu", 1, lo, hi), Builtin::None);
  EXPECT_FALSE(isBuiltinName("relu"));
  EXPECT_TRUE(isBuiltinName("sigmoid"));
}

TEST(Builtins, TableMatchesEnum) {
  for (unsigned i = 0; i < getBuiltinTable().size(); ++i) {
    const BuiltinInfo &info = getBuiltinInfo(static_cast<Builtin>(i + 1));
    EXPECT_EQ(&info, &getBuiltinTable()[i]);
    EXPECT_LE(info.minArgs, info.maxArgs) << info.name;
    unsigned lo, hi;
    // Each entry is reachable by its own minimum count.
    Builtin b = lookupBuiltin(info.name, info.minArgs, lo, hi);
    EXPECT_EQ(getBuiltinInfo(b).kind, info.kind) << info.name;
  }
}

TEST(Builtins, SemaStoresTheResolvedBuiltin) {
  llvm::SourceMgr srcMgr;
  std::string errors;
  srcMgr.setDiagHandler(
      [](const llvm::SMDiagnostic &d, void *ctx) {
        *static_cast<std::string *>(ctx) += d.getMessage().str() + "\n";
      },
      &errors);
  unsigned id = srcMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(
          "fn f(x: f32[4]) -> f32 { return max(x) + max(x[0], 1.0) }",
          "test.tdsl"),
      llvm::SMLoc());
  DiagEngine diags(srcMgr);
  Program program;
  program.main = parseBuffer(diags, id);
  ASSERT_TRUE(program.main) << errors;
  ASSERT_TRUE(checkProgram(program, diags)) << errors;
  auto &ret = llvm::cast<ReturnStmt>(*program.main->functions[0]->body[0]);
  auto &add = llvm::cast<BinaryExpr>(*ret.value);
  EXPECT_EQ(llvm::cast<CallExpr>(*add.lhs).builtin, Builtin::MaxAll);
  EXPECT_EQ(llvm::cast<CallExpr>(*add.rhs).builtin, Builtin::Max);
}
