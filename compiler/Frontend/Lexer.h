//===- Lexer.h - Turns .tdsl source text into tokens ----------------------===//
#ifndef TDSL_FRONTEND_LEXER_H
#define TDSL_FRONTEND_LEXER_H

#include "compiler/Frontend/Diagnostics.h"
#include "compiler/Frontend/Token.h"

#include <vector>

namespace tdsl {

/// Lexes one buffer of a SourceMgr completely. Lexical errors are reported
/// through the DiagEngine and produce `error` tokens, so the parser can go on.
class Lexer {
public:
  Lexer(DiagEngine &diags, unsigned bufferId);

  /// Lexes the whole buffer; the result always ends with an `eof` token.
  std::vector<Token> lexAll();

private:
  Token lexToken();
  Token makeToken(TokenKind kind, const char *start);
  Token lexIdentifier(const char *start);
  Token lexNumber(const char *start);
  Token lexString(const char *start);
  void skipWhitespaceAndComments();

  DiagEngine &diags;
  llvm::StringRef buffer;
  const char *cur;
  bool sawNewline = false;
  /// Whether a token was read on the current line (a comment after code).
  bool codeOnLine = false;
};

} // namespace tdsl

#endif // TDSL_FRONTEND_LEXER_H
