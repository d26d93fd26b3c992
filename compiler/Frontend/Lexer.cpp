//===- Lexer.cpp - Turns .tdsl source text into tokens --------------------===//
#include "compiler/Frontend/Lexer.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace tdsl;

llvm::StringRef tdsl::getTokenKindName(TokenKind kind) {
  switch (kind) {
#define TDSL_TOKEN_NAME(Name, Spelling)                                        \
  case TokenKind::Name:                                                        \
    return Spelling;
    TDSL_TOKEN_KINDS(TDSL_TOKEN_NAME)
#undef TDSL_TOKEN_NAME
  }
  return "token";
}

llvm::StringRef tdsl::getTokenKindId(TokenKind kind) {
  switch (kind) {
#define TDSL_TOKEN_ID(Name, Spelling)                                          \
  case TokenKind::Name:                                                        \
    return #Name;
    TDSL_TOKEN_KINDS(TDSL_TOKEN_ID)
#undef TDSL_TOKEN_ID
  }
  return "token";
}

Lexer::Lexer(DiagEngine &diags, unsigned bufferId) : diags(diags) {
  buffer = diags.getSourceMgr().getMemoryBuffer(bufferId)->getBuffer();
  cur = buffer.begin();
  // A UTF-8 byte order mark (editors on Windows write one) is not source.
  if (buffer.starts_with("\xEF\xBB\xBF"))
    cur += 3;
}

std::vector<Token> Lexer::lexAll() {
  std::vector<Token> tokens;
  sawNewline = true;
  while (true) {
    tokens.push_back(lexToken());
    if (tokens.back().is(TokenKind::eof))
      break;
    if (diags.tooManyErrors()) {
      tokens.push_back(makeToken(TokenKind::eof, cur));
      break;
    }
  }
  return tokens;
}

Token Lexer::makeToken(TokenKind kind, const char *start) {
  Token tok;
  tok.kind = kind;
  tok.spelling = llvm::StringRef(start, cur - start);
  tok.newlineBefore = sawNewline;
  sawNewline = false;
  codeOnLine = true;
  return tok;
}

/// Whether a comment's text after `//` reads as the divisor of numpy's
/// integer division (`n // 2`, `(a // 4)`): one number, then only closing
/// brackets. (A name would be taken for a one-word comment: `// f64`.)
static bool looksLikeDivisor(llvm::StringRef text) {
  text = text.trim(" \t\r").rtrim(")] \t");
  return !text.empty() && text.size() <= 32 &&
         llvm::all_of(text, [](char c) { return llvm::isDigit(c) || c == '.'; });
}

void Lexer::skipWhitespaceAndComments() {
  const char *end = buffer.end();
  while (cur != end) {
    char c = *cur;
    if (c == '\n') {
      sawNewline = true;
      codeOnLine = false;
      ++cur;
    } else if (c == ' ' || c == '\t' || c == '\r') {
      ++cur;
    } else if (c == '/' && cur + 1 != end && cur[1] == '/') {
      const char *start = cur;
      while (cur != end && *cur != '\n')
        ++cur;
      if (codeOnLine && looksLikeDivisor(llvm::StringRef(start + 2, cur - start - 2)))
        diags.warning(llvm::SMLoc::getFromPointer(start),
                      "'//' starts a comment, and the rest of the line is "
                      "ignored: integer division is '/', which rounds "
                      "toward zero");
    } else {
      return;
    }
  }
}

static bool isIdentStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
static bool isDigit(char c) { return c >= '0' && c <= '9'; }

Token Lexer::lexToken() {
  skipWhitespaceAndComments();
  const char *start = cur;
  if (cur == buffer.end())
    return makeToken(TokenKind::eof, start);

  char c = *cur++;
  if (isIdentStart(c))
    return lexIdentifier(start);
  if (isDigit(c))
    return lexNumber(start);

  auto next = [&](char expected) {
    if (cur != buffer.end() && *cur == expected) {
      ++cur;
      return true;
    }
    return false;
  };

  switch (c) {
  case '"':
    return lexString(start);
  case '(':
    return makeToken(TokenKind::l_paren, start);
  case ')':
    return makeToken(TokenKind::r_paren, start);
  case '[':
    return makeToken(TokenKind::l_square, start);
  case ']':
    return makeToken(TokenKind::r_square, start);
  case '{':
    return makeToken(TokenKind::l_brace, start);
  case '}':
    return makeToken(TokenKind::r_brace, start);
  case ',':
    return makeToken(TokenKind::comma, start);
  case ':':
    return makeToken(TokenKind::colon, start);
  case ';':
    return makeToken(TokenKind::semicolon, start);
  case '?':
    return makeToken(TokenKind::question, start);
  case '+':
    return makeToken(TokenKind::plus, start);
  case '*':
    return makeToken(TokenKind::star, start);
  case '/':
    return makeToken(TokenKind::slash, start);
  case '%':
    return makeToken(TokenKind::percent, start);
  case '@':
    return makeToken(TokenKind::at, start);
  case '.':
    return makeToken(next('.') ? TokenKind::dotdot : TokenKind::dot, start);
  case '-':
    return makeToken(next('>') ? TokenKind::arrow : TokenKind::minus, start);
  case '=':
    return makeToken(next('=') ? TokenKind::eqeq : TokenKind::equal, start);
  case '!':
    return makeToken(next('=') ? TokenKind::noteq : TokenKind::exclaim, start);
  case '<':
    return makeToken(next('=') ? TokenKind::lesseq : TokenKind::less, start);
  case '>':
    return makeToken(next('=') ? TokenKind::greatereq : TokenKind::greater,
                     start);
  case '&':
    if (next('&'))
      return makeToken(TokenKind::ampamp, start);
    break;
  case '|':
    if (next('|'))
      return makeToken(TokenKind::pipepipe, start);
    break;
  default:
    break;
  }
  // Skip the rest of a multi-byte UTF-8 character so the caret and the
  // message cover the whole character.
  while (cur != buffer.end() && (static_cast<unsigned char>(*cur) & 0xC0) == 0x80)
    ++cur;
  Token tok = makeToken(TokenKind::error, start);
  diags.error(tok.getLoc(), "unexpected character '" + tok.spelling + "'");
  return tok;
}

Token Lexer::lexIdentifier(const char *start) {
  while (cur != buffer.end() && (isIdentStart(*cur) || isDigit(*cur)))
    ++cur;
  llvm::StringRef text(start, cur - start);
  TokenKind kind = llvm::StringSwitch<TokenKind>(text)
                       .Case("fn", TokenKind::kw_fn)
                       .Case("return", TokenKind::kw_return)
                       .Case("for", TokenKind::kw_for)
                       .Case("in", TokenKind::kw_in)
                       .Case("parallel", TokenKind::kw_parallel)
                       .Case("reduce", TokenKind::kw_reduce)
                       .Case("yield", TokenKind::kw_yield)
                       .Case("if", TokenKind::kw_if)
                       .Case("else", TokenKind::kw_else)
                       .Case("import", TokenKind::kw_import)
                       .Case("true", TokenKind::kw_true)
                       .Case("false", TokenKind::kw_false)
                       .Case("f16", TokenKind::kw_f16)
                       .Case("bf16", TokenKind::kw_bf16)
                       .Case("f32", TokenKind::kw_f32)
                       .Case("f64", TokenKind::kw_f64)
                       .Case("i1", TokenKind::kw_i1)
                       .Case("i32", TokenKind::kw_i32)
                       .Case("i64", TokenKind::kw_i64)
                       .Case("u64", TokenKind::kw_u64)
                       .Default(TokenKind::identifier);
  return makeToken(kind, start);
}

// integer  ::= digit+
// floating ::= digit+ '.' digit+ exponent? | digit+ exponent
// exponent ::= ('e' | 'E') ('+' | '-')? digit+
Token Lexer::lexNumber(const char *start) {
  const char *end = buffer.end();
  while (cur != end && isDigit(*cur))
    ++cur;
  bool isFloat = false;
  // `0..n` is a range, not the float `0.`: a '.' needs a digit after it.
  if (cur != end && *cur == '.' && cur + 1 != end && isDigit(cur[1])) {
    isFloat = true;
    ++cur;
    while (cur != end && isDigit(*cur))
      ++cur;
  }
  if (cur != end && (*cur == 'e' || *cur == 'E')) {
    const char *expStart = cur++;
    if (cur != end && (*cur == '+' || *cur == '-'))
      ++cur;
    if (cur == end || !isDigit(*cur)) {
      Token tok = makeToken(TokenKind::error, start);
      diags.error(llvm::SMLoc::getFromPointer(expStart),
                  "expected digits in the exponent of '" + tok.spelling + "'");
      return tok;
    }
    while (cur != end && isDigit(*cur))
      ++cur;
    isFloat = true;
  }
  if (cur != end && (isIdentStart(*cur))) {
    const char *suffix = cur;
    while (cur != end && (isIdentStart(*cur) || isDigit(*cur)))
      ++cur;
    Token tok = makeToken(TokenKind::error, start);
    diags.error(llvm::SMLoc::getFromPointer(suffix),
                "invalid suffix '" + llvm::StringRef(suffix, cur - suffix) +
                    "' on numeric literal");
    return tok;
  }
  return makeToken(isFloat ? TokenKind::floating : TokenKind::integer, start);
}

// string ::= '"' (char | '\' escape)* '"'
Token Lexer::lexString(const char *start) {
  const char *end = buffer.end();
  while (cur != end && *cur != '"' && *cur != '\n') {
    if (*cur == '\\' && cur + 1 != end && cur[1] != '\n')
      ++cur;
    ++cur;
  }
  if (cur == end || *cur != '"') {
    Token tok = makeToken(TokenKind::error, start);
    diags.error(tok.getLoc(), "unterminated string literal");
    return tok;
  }
  ++cur;
  return makeToken(TokenKind::string, start);
}
