//===- TokenMutator.cpp - Mutations of .tdsl text by whole tokens ---------===//
#include "tools/tdsl-fuzz/TokenMutator.h"
#include "compiler/Frontend/Builtins.h"
#include "compiler/Frontend/Lexer.h"

#include "llvm/Support/MemoryBuffer.h"

#include <cstring>
#include <random>
#include <string>
#include <vector>

using namespace tdsl;

/// What a replaced or inserted token may become besides the input's own and
/// the built-ins' names (from the table in Builtins.def).
static const char *const kWords[] = {
    "fn", "return", "for", "in", "parallel", "reduce", "yield", "if", "else",
    "import", "true", "false", "nn", "math", "(", ")", "[", "]", "{", "}", ",", ":", ";", ".", "..", "->", "?",
    "=", "+", "-", "*", "/", "%", "@", "==", "!=", "<", "<=", ">", ">=", "&&",
    "||", "!", "0", "1", "2", "3", "7", "1000000", "0.5", "1e3", "\"t.npy\"",
    "i", "j", "k", "n", "x", "A", "N", "\n"};

size_t tdsl::mutateTokens(uint8_t *data, size_t size, size_t maxSize,
                          unsigned seed) {
  std::string text(reinterpret_cast<const char *>(data), size);
  llvm::SourceMgr srcMgr;
  srcMgr.setDiagHandler([](const llvm::SMDiagnostic &, void *) {}, nullptr);
  unsigned id = srcMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(text, "mutate.tdsl"), llvm::SMLoc());
  const char *base = srcMgr.getMemoryBuffer(id)->getBufferStart();
  DiagEngine diags(srcMgr);
  struct Span {
    size_t begin, end;
  };
  std::vector<Span> toks;
  for (const Token &t : Lexer(diags, id).lexAll())
    if (!t.is(TokenKind::eof))
      toks.push_back({size_t(t.spelling.data() - base),
                      size_t(t.spelling.data() - base) + t.spelling.size()});
  if (toks.empty())
    return 0;

  std::mt19937 rng(seed);
  auto pick = [&](size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng); };
  auto spelling = [&](const Span &s) { return text.substr(s.begin, s.end - s.begin); };
  auto word = [&]() -> std::string {
    if (rng() % 2)
      return spelling(toks[pick(toks.size())]);
    size_t n = sizeof(kWords) / sizeof(kWords[0]);
    size_t k = pick(n + getBuiltinTable().size());
    return k < n ? kWords[k] : getBuiltinTable()[k - n].name;
  };
  size_t n = toks.size();
  size_t i = pick(n);
  size_t len = std::min<size_t>(1 + pick(8), n - i); // a run [i, i + len)
  std::string out;
  switch (rng() % 5) {
  case 0: { // swap two tokens
    size_t j = pick(n);
    if (i == j)
      return 0;
    if (j < i)
      std::swap(i, j);
    const Span &a = toks[i], &b = toks[j];
    out = text.substr(0, a.begin) + spelling(b) +
          text.substr(a.end, b.begin - a.end) + spelling(a) + text.substr(b.end);
    break;
  }
  case 1: { // copy a run before another token
    std::string run = text.substr(toks[i].begin, toks[i + len - 1].end - toks[i].begin);
    size_t at = toks[pick(n)].begin;
    out = text.substr(0, at) + run + " " + text.substr(at);
    break;
  }
  case 2: // replace a token
    out = text.substr(0, toks[i].begin) + word() + text.substr(toks[i].end);
    break;
  case 3: // delete a run
    out = text.substr(0, toks[i].begin) + text.substr(toks[i + len - 1].end);
    break;
  default: // insert a word before a token
    out = text.substr(0, toks[i].begin) + word() + " " + text.substr(toks[i].begin);
    break;
  }
  if (out.size() > maxSize || out.empty())
    return 0;
  std::memcpy(data, out.data(), out.size());
  return out.size();
}
