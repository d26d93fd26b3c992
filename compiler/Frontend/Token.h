//===- Token.h - Tokens of the .tdsl language -----------------------------===//
#ifndef TDSL_FRONTEND_TOKEN_H
#define TDSL_FRONTEND_TOKEN_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SMLoc.h"

namespace tdsl {

#define TDSL_TOKEN_KINDS(X)                                                    \
  X(eof, "end of file")                                                        \
  X(error, "invalid token")                                                    \
  X(identifier, "identifier")                                                  \
  X(integer, "integer literal")                                                \
  X(floating, "floating-point literal")                                        \
  X(string, "string literal")                                                  \
  X(kw_fn, "'fn'")                                                             \
  X(kw_return, "'return'")                                                     \
  X(kw_for, "'for'")                                                           \
  X(kw_in, "'in'")                                                             \
  X(kw_parallel, "'parallel'")                                                 \
  X(kw_reduce, "'reduce'")                                                     \
  X(kw_yield, "'yield'")                                                       \
  X(kw_if, "'if'")                                                             \
  X(kw_else, "'else'")                                                         \
  X(kw_import, "'import'")                                                     \
  X(kw_true, "'true'")                                                         \
  X(kw_false, "'false'")                                                       \
  X(kw_f16, "'f16'")                                                           \
  X(kw_bf16, "'bf16'")                                                         \
  X(kw_f32, "'f32'")                                                           \
  X(kw_f64, "'f64'")                                                           \
  X(kw_i1, "'i1'")                                                             \
  X(kw_i32, "'i32'")                                                           \
  X(kw_i64, "'i64'")                                                           \
  X(kw_u64, "'u64'")                                                           \
  X(l_paren, "'('")                                                            \
  X(r_paren, "')'")                                                            \
  X(l_square, "'['")                                                           \
  X(r_square, "']'")                                                           \
  X(l_brace, "'{'")                                                            \
  X(r_brace, "'}'")                                                            \
  X(comma, "','")                                                              \
  X(colon, "':'")                                                              \
  X(semicolon, "';'")                                                          \
  X(dot, "'.'")                                                                \
  X(dotdot, "'..'")                                                            \
  X(arrow, "'->'")                                                             \
  X(question, "'?'")                                                           \
  X(equal, "'='")                                                              \
  X(plus, "'+'")                                                               \
  X(minus, "'-'")                                                              \
  X(star, "'*'")                                                               \
  X(slash, "'/'")                                                              \
  X(percent, "'%'")                                                            \
  X(at, "'@'")                                                                 \
  X(eqeq, "'=='")                                                              \
  X(noteq, "'!='")                                                             \
  X(less, "'<'")                                                               \
  X(lesseq, "'<='")                                                            \
  X(greater, "'>'")                                                            \
  X(greatereq, "'>='")                                                         \
  X(ampamp, "'&&'")                                                            \
  X(pipepipe, "'||'")                                                          \
  X(exclaim, "'!'")

enum class TokenKind {
#define TDSL_TOKEN_ENUM(Name, Spelling) Name,
  TDSL_TOKEN_KINDS(TDSL_TOKEN_ENUM)
#undef TDSL_TOKEN_ENUM
};

/// Human-readable name of a token kind, for "expected ..." messages.
llvm::StringRef getTokenKindName(TokenKind kind);
/// Enumerator name of a token kind, for `--emit=tokens`.
llvm::StringRef getTokenKindId(TokenKind kind);

struct Token {
  TokenKind kind = TokenKind::eof;
  llvm::StringRef spelling;
  /// True when a newline separates this token from the previous one; the
  /// parser uses it to end statements without semicolons.
  bool newlineBefore = false;

  llvm::SMLoc getLoc() const {
    return llvm::SMLoc::getFromPointer(spelling.data());
  }
  llvm::SMLoc getEndLoc() const {
    return llvm::SMLoc::getFromPointer(spelling.data() + spelling.size());
  }
  bool is(TokenKind k) const { return kind == k; }
  bool isScalarTypeKeyword() const {
    return kind >= TokenKind::kw_f16 && kind <= TokenKind::kw_u64;
  }
};

} // namespace tdsl

#endif // TDSL_FRONTEND_TOKEN_H
