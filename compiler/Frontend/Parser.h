//===- Parser.h - Recursive-descent parser for .tdsl ------------------------===//
#ifndef TDSL_FRONTEND_PARSER_H
#define TDSL_FRONTEND_PARSER_H

#include "compiler/Frontend/AST.h"
#include "compiler/Frontend/Diagnostics.h"
#include "compiler/Frontend/Token.h"

#include <vector>

namespace tdsl {

/// Parses one token stream into a ModuleAST. Syntax errors are reported and
/// the parser resynchronizes at the next statement or declaration, so one run
/// reports every error it can.
class Parser {
public:
  Parser(DiagEngine &diags, std::vector<Token> tokens)
      : diags(diags), tokens(std::move(tokens)) {}

  std::unique_ptr<ModuleAST> parseModule();

  /// One input of the REPL: declarations (`fn`, `import`) and statements in
  /// any order. Returns false after reporting a syntax error.
  bool parseReplInput(ModuleAST &decls, StmtList &statements);

private:
  // Declarations.
  std::unique_ptr<FunctionDecl> parseFunction();
  bool isModelStart() const;
  std::unique_ptr<ModelDecl> parseModel();
  bool parseInitializer(ModelField &f);
  bool parseImport(ModuleAST &module);
  bool parseType(TypeSpec &spec);
  bool parseTypeAfterElem(TypeSpec &spec, ElemKind elem);

  // Statements.
  bool parseBlock(StmtList &body);
  std::unique_ptr<Stmt> parseStatement();
  std::unique_ptr<Stmt> parseFor();
  std::unique_ptr<Stmt> parseFieldAssign();
  std::unique_ptr<Stmt> parseIf();
  bool parseRange(LoopRange &range);
  bool expectStatementEnd();
  bool isSubscriptAssignment() const;
  bool unsupportedStatement();
  void sliceError();

  // Expressions, lowest precedence first.
  ExprPtr parseExpr();
  ExprPtr parseTernary();
  ExprPtr parseBinary(int minPrec);
  ExprPtr parseUnary();
  ExprPtr parsePostfix();
  ExprPtr parsePrimary();
  ExprPtr parseCallArgs(std::unique_ptr<CallExpr> call);
  ExprPtr parseTensorLiteral();
  ExprPtr parseReduce();
  ExprPtr parseParallelFor();
  bool isReductionStart() const;

  // Token helpers.
  const Token &tok() const { return tokens[pos]; }
  const Token &peek(unsigned n = 1) const {
    return tokens[std::min<size_t>(pos + n, tokens.size() - 1)];
  }
  void consume() {
    if (pos + 1 < tokens.size())
      ++pos;
  }
  bool consumeIf(TokenKind kind) {
    if (!tok().is(kind))
      return false;
    consume();
    return true;
  }
  bool expect(TokenKind kind, llvm::StringRef context);
  void errorAtToken(const llvm::Twine &msg);
  /// Reports "expected WHAT, found <token>".
  void errorExpected(const llvm::Twine &what);
  void skipToStatementEnd();
  void skipToDeclaration();

  DiagEngine &diags;
  std::vector<Token> tokens;
  size_t pos = 0;
  /// >0 inside (), [] of expressions, where newlines never end a statement.
  int nesting = 0;
  /// How deeply the expressions and blocks being parsed nest (each operator
  /// of a chain counts as a level, as it does in the tree). Later phases
  /// recurse over the tree, so the parser bounds it instead of overflowing
  /// the stack.
  unsigned treeDepth = 0;
  bool reportedTooDeep = false;
  /// The first token of the statement being parsed: an error there is the
  /// statement's own, not something missing at the end of the line before.
  size_t statementStart = ~size_t(0);
  static constexpr unsigned kMaxDepth = 500;
  /// Enters one more level; reports the first time the limit is passed.
  bool tooDeep();
};

/// Lexes and parses one buffer of `diags`' SourceMgr.
std::unique_ptr<ModuleAST> parseBuffer(DiagEngine &diags, unsigned bufferId);

/// Lexes and parses one buffer as a REPL input (see Parser::parseReplInput).
bool parseReplBuffer(DiagEngine &diags, unsigned bufferId, ModuleAST &decls,
                     StmtList &statements);

} // namespace tdsl

#endif // TDSL_FRONTEND_PARSER_H
