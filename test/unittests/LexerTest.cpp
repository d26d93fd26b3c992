//===- LexerTest.cpp - Unit tests of the .tdsl lexer -----------------------===//
#include "compiler/Frontend/Lexer.h"

#include "llvm/Support/MemoryBuffer.h"

#include <gtest/gtest.h>

using namespace tdsl;

namespace {
struct Lexed {
  llvm::SourceMgr srcMgr;
  std::unique_ptr<DiagEngine> diags;
  std::vector<Token> tokens;
  std::string errors;
};

std::unique_ptr<Lexed> lex(llvm::StringRef text) {
  auto r = std::make_unique<Lexed>();
  unsigned id = r->srcMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(text, "test.tdsl"), llvm::SMLoc());
  r->srcMgr.setDiagHandler(
      [](const llvm::SMDiagnostic &d, void *ctx) {
        *static_cast<std::string *>(ctx) += d.getMessage().str() + "\n";
      },
      &r->errors);
  r->diags = std::make_unique<DiagEngine>(r->srcMgr);
  r->tokens = Lexer(*r->diags, id).lexAll();
  return r;
}
} // namespace

TEST(Lexer, RangeIsNotAFloat) {
  auto r = lex("0..n");
  ASSERT_EQ(r->tokens.size(), 4u);
  EXPECT_EQ(r->tokens[0].kind, TokenKind::integer);
  EXPECT_EQ(r->tokens[1].kind, TokenKind::dotdot);
  EXPECT_EQ(r->tokens[2].kind, TokenKind::identifier);
  EXPECT_EQ(r->tokens[3].kind, TokenKind::eof);
}

TEST(Lexer, FloatsAndExponents) {
  auto r = lex("1.5 2e3 4.0e-2 7");
  EXPECT_EQ(r->tokens[0].kind, TokenKind::floating);
  EXPECT_EQ(r->tokens[1].kind, TokenKind::floating);
  EXPECT_EQ(r->tokens[2].kind, TokenKind::floating);
  EXPECT_EQ(r->tokens[2].spelling, "4.0e-2");
  EXPECT_EQ(r->tokens[3].kind, TokenKind::integer);
  EXPECT_TRUE(r->errors.empty());
}

TEST(Lexer, NewlineFlag) {
  auto r = lex("a\n-b");
  EXPECT_FALSE(r->tokens[1].newlineBefore && false);
  EXPECT_TRUE(r->tokens[1].newlineBefore);
  EXPECT_FALSE(r->tokens[2].newlineBefore);
}

TEST(Lexer, UnterminatedStringIsAnError) {
  auto r = lex("\"abc\nx");
  EXPECT_EQ(r->tokens[0].kind, TokenKind::error);
  EXPECT_NE(r->errors.find("unterminated string"), std::string::npos);
}
