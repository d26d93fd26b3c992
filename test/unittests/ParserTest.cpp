//===- ParserTest.cpp - Unit tests of the .tdsl parser ---------------------===//
#include "compiler/Frontend/Parser.h"

#include "llvm/Support/MemoryBuffer.h"

#include <gtest/gtest.h>

using namespace tdsl;

namespace {
struct Parsed {
  llvm::SourceMgr srcMgr;
  std::unique_ptr<DiagEngine> diags;
  std::unique_ptr<ModuleAST> module;
  std::string errors;
};

std::unique_ptr<Parsed> parse(llvm::StringRef text) {
  auto r = std::make_unique<Parsed>();
  unsigned id = r->srcMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(text, "test.tdsl"), llvm::SMLoc());
  r->srcMgr.setDiagHandler(
      [](const llvm::SMDiagnostic &d, void *ctx) {
        *static_cast<std::string *>(ctx) += d.getMessage().str() + "\n";
      },
      &r->errors);
  r->diags = std::make_unique<DiagEngine>(r->srcMgr);
  r->module = parseBuffer(*r->diags, id);
  return r;
}
} // namespace

TEST(Parser, PrecedenceOfMulOverAdd) {
  auto r = parse("fn f(a: f32, b: f32) -> f32 { return a + b * 2.0 }");
  ASSERT_TRUE(r->errors.empty()) << r->errors;
  auto &ret = llvm::cast<ReturnStmt>(*r->module->functions[0]->body[0]);
  auto &add = llvm::cast<BinaryExpr>(*ret.value);
  EXPECT_EQ(add.op, BinaryOp::Add);
  EXPECT_EQ(llvm::cast<BinaryExpr>(*add.rhs).op, BinaryOp::Mul);
}

TEST(Parser, IndexNotationWithReduction) {
  auto r = parse("fn f(A: f32[M, K], B: f32[K, N]) -> f32[M, N] {\n"
                 "  C[i, j] = sum(k) A[i, k] * B[k, j]\n  return C\n}");
  ASSERT_TRUE(r->errors.empty()) << r->errors;
  auto &def = llvm::cast<IndexDefStmt>(*r->module->functions[0]->body[0]);
  EXPECT_EQ(def.subscripts.size(), 2u);
  auto &red = llvm::cast<ReduceExpr>(*def.value);
  EXPECT_EQ(red.reduceKind, ReduceKind::Sum);
  ASSERT_EQ(red.indices.size(), 1u);
  EXPECT_EQ(red.indices[0].name, "k");
}

TEST(Parser, MaxCallIsNotAReduction) {
  auto r = parse("fn f(a: f32, b: f32) -> f32 { return max(a, b) + 1.0 }");
  ASSERT_TRUE(r->errors.empty()) << r->errors;
  auto &ret = llvm::cast<ReturnStmt>(*r->module->functions[0]->body[0]);
  auto &add = llvm::cast<BinaryExpr>(*ret.value);
  EXPECT_TRUE(llvm::isa<CallExpr>(*add.lhs));
}

TEST(Parser, ReportsEveryStatementError) {
  auto r = parse("fn f() {\n  x = (1 +\n  y = 2 3\n  z = 4\n}\n");
  EXPECT_GE(r->diags->getNumErrors(), 1u);
  EXPECT_EQ(r->module->functions.size(), 1u);
}
