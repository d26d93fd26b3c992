//===- Parser.cpp - Recursive-descent parser for .tdsl ----------------------===//
#include "compiler/Frontend/Parser.h"
#include "compiler/Frontend/Lexer.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/SaveAndRestore.h"

#include <cstdlib>
#include <optional>

using namespace tdsl;

std::unique_ptr<ModuleAST> tdsl::parseBuffer(DiagEngine &diags,
                                             unsigned bufferId) {
  Lexer lexer(diags, bufferId);
  Parser parser(diags, lexer.lexAll());
  return parser.parseModule();
}

bool tdsl::parseReplBuffer(DiagEngine &diags, unsigned bufferId,
                           ModuleAST &decls, StmtList &statements) {
  unsigned before = diags.getNumErrors(); // lexical errors count too
  Lexer lexer(diags, bufferId);
  Parser parser(diags, lexer.lexAll());
  return parser.parseReplInput(decls, statements) &&
         diags.getNumErrors() == before;
}

static std::string describe(const Token &t) {
  if (t.is(TokenKind::eof))
    return "end of file";
  return ("'" + t.spelling + "'").str();
}

void Parser::errorAtToken(const llvm::Twine &msg) {
  // A lexer error was already reported for this token.
  if (tok().is(TokenKind::error))
    return;
  diags.error(tok().getLoc(), msg);
}

void Parser::errorExpected(const llvm::Twine &what) {
  // A lexer error was already reported for this token.
  if (tok().is(TokenKind::error))
    return;
  // When the unexpected token starts a new line, what is missing belongs at
  // the end of the previous line: point there, not at the next statement.
  bool atLineEnd = tok().newlineBefore && pos > 0 && pos != statementStart;
  llvm::SMLoc loc = atLineEnd ? tokens[pos - 1].getEndLoc() : tok().getLoc();
  std::string found = atLineEnd && !tok().is(TokenKind::eof) ? "end of line"
                                                              : describe(tok());
  diags.error(loc, "expected " + what + ", found " + found);
  // What numpy users write where TDSL differs (section 12).
  if (tok().is(TokenKind::star) && pos > 0 &&
      tokens[pos - 1].is(TokenKind::star) &&
      tokens[pos - 1].getEndLoc() == tok().getLoc())
    diags.note(tokens[pos - 1].getLoc(), "there is no '**' operator: write "
                                         "pow(x, y) (or x * x)");
}

bool Parser::expect(TokenKind kind, llvm::StringRef context) {
  if (consumeIf(kind))
    return true;
  errorExpected(getTokenKindName(kind) + " " + context);
  return false;
}

bool Parser::tooDeep() {
  if (treeDepth <= kMaxDepth)
    return false;
  if (!reportedTooDeep && !tok().is(TokenKind::error))
    diags.error(tok().getLoc(), "expressions and blocks nest too deeply here "
                                "(more than " + llvm::Twine(kMaxDepth) +
                                    " levels)");
  reportedTooDeep = true;
  return true;
}

void Parser::skipToStatementEnd() {
  int depth = 0;
  bool first = true;
  while (!tok().is(TokenKind::eof)) {
    if (!first && depth == 0 && tok().newlineBefore)
      return;
    first = false;
    if (tok().is(TokenKind::l_brace)) {
      ++depth;
    } else if (tok().is(TokenKind::r_brace)) {
      if (depth == 0)
        return;
      --depth;
    } else if (tok().is(TokenKind::semicolon) && depth == 0) {
      consume();
      return;
    }
    consume();
  }
}

void Parser::skipToDeclaration() {
  consume();
  while (!tok().is(TokenKind::eof) &&
         !((tok().is(TokenKind::kw_fn) || tok().is(TokenKind::kw_import) ||
            isModelStart()) &&
           tok().newlineBefore))
    consume();
}

//===----------------------------------------------------------------------===//
// Declarations
//===----------------------------------------------------------------------===//

/// `model Name {`: `model` is a keyword only there, so it stays usable as a
/// name.
bool Parser::isModelStart() const {
  return tok().is(TokenKind::identifier) && tok().spelling == "model" &&
         peek().is(TokenKind::identifier) && peek(2).is(TokenKind::l_brace);
}

// module ::= (import | function | model)*
std::unique_ptr<ModuleAST> Parser::parseModule() {
  auto module = std::make_unique<ModuleAST>();
  while (!tok().is(TokenKind::eof) && !diags.tooManyErrors()) {
    if (tok().is(TokenKind::kw_import)) {
      if (!parseImport(*module))
        skipToDeclaration();
    } else if (isModelStart()) {
      if (auto m = parseModel())
        module->models.push_back(std::move(m));
      else
        skipToDeclaration();
    } else if (tok().is(TokenKind::kw_fn)) {
      if (auto fn = parseFunction())
        module->functions.push_back(std::move(fn));
      else
        skipToDeclaration();
    } else {
      errorAtToken("expected 'fn', 'model' or 'import' at top level, found " +
                   describe(tok()));
      skipToDeclaration();
    }
  }
  return module;
}

// repl-input ::= (import | function | model | statement)*
bool Parser::parseReplInput(ModuleAST &decls, StmtList &statements) {
  unsigned before = diags.getNumErrors();
  while (!tok().is(TokenKind::eof)) {
    if (consumeIf(TokenKind::semicolon))
      continue;
    if (tok().is(TokenKind::kw_import)) {
      if (!parseImport(decls))
        skipToDeclaration();
    } else if (isModelStart()) {
      if (auto m = parseModel())
        decls.models.push_back(std::move(m));
      else
        skipToDeclaration();
    } else if (tok().is(TokenKind::kw_fn)) {
      if (auto fn = parseFunction())
        decls.functions.push_back(std::move(fn));
      else
        skipToDeclaration();
    } else {
      size_t start = pos;
      if (auto stmt = parseStatement())
        statements.push_back(std::move(stmt));
      else
        skipToStatementEnd();
      if (pos == start)
        consume();
    }
  }
  return diags.getNumErrors() == before;
}

// import ::= 'import' identifier
bool Parser::parseImport(ModuleAST &module) {
  consume();
  ImportDecl decl;
  decl.loc = tok().getLoc();
  decl.name = tok().spelling.str();
  if (!expect(TokenKind::identifier, "after 'import'"))
    return false;
  module.imports.push_back(std::move(decl));
  return expectStatementEnd();
}

// function ::= 'fn' identifier type-params? '(' (param (',' param)*)? ')'
//               ('->' type)? block
// type-params ::= '<' identifier (',' identifier)* '>'
// param    ::= identifier ':' type
std::unique_ptr<FunctionDecl> Parser::parseFunction() {
  consume();
  auto fn = std::make_unique<FunctionDecl>();
  fn->loc = tok().getLoc();
  fn->name = tok().spelling.str();
  if (!expect(TokenKind::identifier, "for the function name"))
    return nullptr;
  if (consumeIf(TokenKind::less)) {
    do {
      auto param = std::make_unique<ModelDecl>();
      param->loc = tok().getLoc();
      param->name = tok().spelling.str();
      param->isTypeParam = true;
      if (!expect(TokenKind::identifier, "for a type parameter"))
        return nullptr;
      fn->typeParams.push_back(std::move(param));
    } while (consumeIf(TokenKind::comma));
    if (!expect(TokenKind::greater, "to close the type parameters"))
      return nullptr;
  }
  if (!expect(TokenKind::l_paren, "after the function name"))
    return nullptr;
  if (!tok().is(TokenKind::r_paren)) {
    do {
      Param p;
      p.loc = tok().getLoc();
      p.name = tok().spelling.str();
      if (!expect(TokenKind::identifier, "for a parameter name"))
        return nullptr;
      if (!expect(TokenKind::colon, "after the parameter name"))
        return nullptr;
      if (!parseType(p.type))
        return nullptr;
      fn->params.push_back(std::move(p));
    } while (consumeIf(TokenKind::comma));
  }
  if (!expect(TokenKind::r_paren, "to close the parameter list"))
    return nullptr;
  if (consumeIf(TokenKind::arrow)) {
    fn->hasResult = true;
    if (!parseType(fn->result))
      return nullptr;
  }
  if (!tok().is(TokenKind::l_brace)) {
    errorExpected("'{' to begin the body of '" + fn->name + "'");
    return nullptr;
  }
  if (!parseBlock(fn->body))
    return nullptr;
  return fn;
}

// model ::= 'model' identifier '{' (field (newline | ';'))* '}'
// field ::= identifier ':' type '=' init
// init  ::= 'zeros' | 'ones' | 'he' | 'glorot' | ('normal' | 'uniform') '(' number ')'
std::unique_ptr<ModelDecl> Parser::parseModel() {
  consume();
  auto model = std::make_unique<ModelDecl>();
  model->loc = tok().getLoc();
  model->name = tok().spelling.str();
  consume();
  llvm::SMLoc open = tok().getLoc();
  consume(); // '{'
  while (!tok().is(TokenKind::r_brace)) {
    if (consumeIf(TokenKind::semicolon))
      continue;
    if (tok().is(TokenKind::eof)) {
      errorExpected("'}' to close the model");
      diags.note(open, "the model begins here");
      return nullptr;
    }
    ModelField f;
    f.loc = tok().getLoc();
    f.name = tok().spelling.str();
    if (!expect(TokenKind::identifier, "for a field name") ||
        !expect(TokenKind::colon, "after the field name") ||
        !parseType(f.type))
      return nullptr;
    if (!parseInitializer(f) || !expectStatementEnd())
      return nullptr;
    model->fields.push_back(std::move(f));
  }
  consume();
  return model;
}

// init ::= '=' ('zeros' | 'ones' | 'he' | 'glorot'
//            | ('normal' | 'uniform') '(' number ')')
bool Parser::parseInitializer(ModelField &f) {
  if (!tok().is(TokenKind::equal)) {
    errorExpected("'=' and the field's initializer (zeros, ones, he, "
                  "glorot, normal(scale) or uniform(scale))");
    return false;
  }
  consume();
  f.initLoc = tok().getLoc();
  std::string init = tok().spelling.str();
  std::optional<InitKind> kind =
      llvm::StringSwitch<std::optional<InitKind>>(init)
          .Case("zeros", InitKind::Zeros)
          .Case("ones", InitKind::Ones)
          .Case("he", InitKind::He)
          .Case("glorot", InitKind::Glorot)
          .Case("normal", InitKind::Normal)
          .Case("uniform", InitKind::Uniform)
          .Default(std::nullopt);
  if (!tok().is(TokenKind::identifier) || !kind) {
    errorExpected("an initializer (zeros, ones, he, glorot, normal(scale) "
                  "or uniform(scale))");
    return false;
  }
  consume();
  f.init = *kind;
  if (f.init != InitKind::Normal && f.init != InitKind::Uniform)
    return true;
  if (!expect(TokenKind::l_paren, "after '" + init + "'"))
    return false;
  if (!tok().is(TokenKind::floating) && !tok().is(TokenKind::integer)) {
    errorExpected("a positive number: the scale of '" + init + "'");
    return false;
  }
  f.scale = std::strtod(tok().spelling.str().c_str(), nullptr);
  if (!(f.scale > 0)) {
    errorAtToken("the scale of '" + init + "' must be positive");
    return false;
  }
  consume();
  return expect(TokenKind::r_paren, "after the scale");
}

static ElemKind elemKindOf(TokenKind k) {
  switch (k) {
  case TokenKind::kw_f16: return ElemKind::F16;
  case TokenKind::kw_bf16: return ElemKind::BF16;
  case TokenKind::kw_f32: return ElemKind::F32;
  case TokenKind::kw_f64: return ElemKind::F64;
  case TokenKind::kw_i1: return ElemKind::I1;
  case TokenKind::kw_i32: return ElemKind::I32;
  case TokenKind::kw_i64: return ElemKind::I64;
  case TokenKind::kw_u64: return ElemKind::U64;
  default: return ElemKind::Error;
  }
}

// type ::= scalar-type ('[' dim (',' dim)* ']')? | identifier (a model)
// dim  ::= integer | identifier | '?'
bool Parser::parseType(TypeSpec &spec) {
  spec.loc = tok().getLoc();
  if (tok().is(TokenKind::identifier)) {
    spec.type = Type::modelType(tok().spelling, nullptr);
    consume();
    return true;
  }
  if (!tok().isScalarTypeKeyword()) {
    errorExpected("a type (f16, bf16, f32, f64, i1, i32, i64, u64, or a "
                  "model's name)");
    return false;
  }
  ElemKind elem = elemKindOf(tok().kind);
  consume();
  return parseTypeAfterElem(spec, elem);
}

bool Parser::parseTypeAfterElem(TypeSpec &spec, ElemKind elem) {
  spec.type = Type::scalar(elem);
  if (!tok().is(TokenKind::l_square))
    return true;
  consume();
  llvm::SmallVector<Dim, 4> dims;
  do {
    llvm::SMLoc loc = tok().getLoc();
    if (tok().is(TokenKind::integer)) {
      int64_t n;
      if (tok().spelling.getAsInteger(10, n) || n <= 0) {
        errorAtToken("tensor dimension must be a positive integer, found " +
                     describe(tok()));
        return false;
      }
      dims.push_back(Dim::getStatic(n, loc));
    } else if (tok().is(TokenKind::identifier)) {
      dims.push_back(Dim::getSymbol(tok().spelling, loc));
    } else if (tok().is(TokenKind::question)) {
      dims.push_back(Dim::getDynamic(loc));
    } else {
      errorExpected("a dimension (an integer, a name or '?')");
      return false;
    }
    consume();
  } while (consumeIf(TokenKind::comma));
  if (!expect(TokenKind::r_square, "to close the tensor shape")) {
    // `f32[R, C - 1]`: a size is a number, a name or '?', not arithmetic.
    if (llvm::is_contained({TokenKind::plus, TokenKind::minus,
                            TokenKind::star, TokenKind::slash},
                           tok().kind))
      diags.note(tok().getLoc(), "a size in a type is a number, a name or "
                                 "'?': bind the value first (n = c - 1) and "
                                 "write its name");
    return false;
  }
  // A tensor of this type could never be allocated; said here, since a
  // program may never allocate it (ones(f32[2^62])[1] folds to 1).
  uint64_t bytes = elem == ElemKind::I1                                ? 1
                   : elem == ElemKind::F16 || elem == ElemKind::BF16   ? 2
                   : elem == ElemKind::F32 || elem == ElemKind::I32    ? 4
                                                                       : 8;
  for (const Dim &d : dims)
    if (d.isStatic() && __builtin_mul_overflow(bytes, uint64_t(d.size), &bytes))
      bytes = UINT64_MAX;
  if (bytes > uint64_t(INT64_MAX)) {
    diags.error(spec.loc, "the sizes of this type multiply to more than 2^63 "
                          "bytes: no tensor of it can be allocated");
    return false;
  }
  spec.type = Type::tensor(elem, dims);
  return true;
}

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

// block ::= '{' statement* '}'
bool Parser::parseBlock(StmtList &body) {
  llvm::SaveAndRestore<unsigned> level(treeDepth, treeDepth + 1);
  if (tooDeep())
    return false;
  llvm::SMLoc open = tok().getLoc();
  if (!expect(TokenKind::l_brace, "to begin a block"))
    return false;
  int savedNesting = nesting;
  nesting = 0;
  while (!tok().is(TokenKind::r_brace)) {
    if (tok().is(TokenKind::eof)) {
      errorExpected("'}' to close the block");
      diags.note(open, "the block begins here");
      nesting = savedNesting;
      return false;
    }
    if (consumeIf(TokenKind::semicolon))
      continue;
    size_t before = pos;
    if (auto stmt = parseStatement())
      body.push_back(std::move(stmt));
    else
      skipToStatementEnd();
    if (pos == before)
      consume(); // never loop on the same token
  }
  consume();
  nesting = savedNesting;
  return true;
}

bool Parser::expectStatementEnd() {
  if (consumeIf(TokenKind::semicolon) || tok().is(TokenKind::r_brace) ||
      tok().is(TokenKind::eof) || tok().newlineBefore)
    return true;
  errorAtToken("expected a newline or ';' after the statement, found " +
               describe(tok()));
  return false;
}

/// At `name [`: whether the bracket's match is followed by `=` on the same
/// statement (an index-notation definition or an element update).
bool Parser::isSubscriptAssignment() const {
  int depth = 0;
  for (size_t i = pos + 1; i < tokens.size(); ++i) {
    const Token &t = tokens[i];
    if (t.is(TokenKind::eof) || (depth == 0 && i > pos + 1 && t.newlineBefore))
      return false;
    if (t.is(TokenKind::l_square) || t.is(TokenKind::l_paren) ||
        t.is(TokenKind::l_brace))
      ++depth;
    else if (t.is(TokenKind::r_square) || t.is(TokenKind::r_paren) ||
             t.is(TokenKind::r_brace)) {
      if (--depth == 0)
        return i + 1 < tokens.size() && tokens[i + 1].is(TokenKind::equal);
      if (depth < 0)
        return false;
    }
  }
  return false;
}

// statement ::= 'return' expr? | 'yield' expr | for | if
//             | identifier (':' type)? '=' expr
//             | identifier '[' expr (',' expr)* ']' '=' expr
//             | expr
std::unique_ptr<Stmt> Parser::parseStatement() {
  llvm::SMLoc loc = tok().getLoc();
  statementStart = pos;
  std::unique_ptr<Stmt> stmt;
  switch (tok().kind) {
  case TokenKind::kw_import:
    errorAtToken("'import' belongs at the top of the file, outside functions");
    return nullptr;
  case TokenKind::kw_fn:
    errorAtToken("a function cannot be declared inside another: declare it "
                 "at the top level of the file");
    return nullptr;
  case TokenKind::kw_for:
    return parseFor();
  case TokenKind::kw_if:
    return parseIf();
  case TokenKind::kw_return: {
    consume();
    ExprPtr value;
    if (!tok().is(TokenKind::r_brace) && !tok().is(TokenKind::semicolon) &&
        !tok().newlineBefore) {
      value = parseExpr();
      if (!value)
        return nullptr;
    }
    stmt = std::make_unique<ReturnStmt>(loc, std::move(value));
    break;
  }
  case TokenKind::kw_yield: {
    consume();
    ExprPtr value = parseExpr();
    if (!value)
      return nullptr;
    stmt = std::make_unique<YieldStmt>(loc, std::move(value));
    break;
  }
  case TokenKind::identifier: {
    if (unsupportedStatement())
      return nullptr;
    if (peek().is(TokenKind::dot) && peek(2).is(TokenKind::identifier) &&
        peek(3).is(TokenKind::equal)) {
      if (!(stmt = parseFieldAssign()))
        return nullptr;
      break;
    }
    if (peek().is(TokenKind::equal) || peek().is(TokenKind::colon)) {
      auto let = std::make_unique<LetStmt>(loc, tok().spelling.str());
      consume();
      if (consumeIf(TokenKind::colon)) {
        let->hasAnnotation = true;
        if (!parseType(let->annotation))
          return nullptr;
      }
      if (!expect(TokenKind::equal, "in the binding"))
        return nullptr;
      let->value = parseExpr();
      if (!let->value)
        return nullptr;
      stmt = std::move(let);
      break;
    }
    // `C[i, j] = ...` defines C by index notation, and `x[k, j] = ...`
    // updates elements of x (Sema tells them apart: a subscript that is a
    // new name is an index variable); anything else starting with `name[`
    // is an expression.
    if (peek().is(TokenKind::l_square) && isSubscriptAssignment()) {
      auto def = std::make_unique<IndexDefStmt>(loc, tok().spelling.str());
      consume();
      consume();
      do {
        ExprPtr sub = tok().is(TokenKind::colon) ? nullptr : parseExpr();
        if (tok().is(TokenKind::colon) || tok().is(TokenKind::dotdot)) {
          sliceError();
          return nullptr;
        }
        if (!sub)
          return nullptr;
        def->subscripts.push_back(std::move(sub));
      } while (consumeIf(TokenKind::comma));
      if (!expect(TokenKind::r_square, "after the subscripts") ||
          !expect(TokenKind::equal, "in the index-notation definition"))
        return nullptr;
      def->value = parseExpr();
      if (!def->value)
        return nullptr;
      stmt = std::move(def);
      break;
    }
    [[fallthrough]];
  }
  default: {
    ExprPtr e = parseExpr();
    if (!e)
      return nullptr;
    stmt = std::make_unique<ExprStmt>(loc, std::move(e));
    break;
  }
  }
  if (!expectStatementEnd())
    return nullptr;
  return stmt;
}

/// At an identifier that starts a statement: reports what version 0 does
/// not have (language.md 14) by its name, where the generic parse error
/// would name a token after it (`while i < 3 {`: "expected a newline or ';'
/// ..., found 'i'"). True when it did.
bool Parser::unsupportedStatement() {
  llvm::StringRef name = tok().spelling;
  const Token &next = peek();
  bool alone = next.newlineBefore || next.is(TokenKind::semicolon) ||
               next.is(TokenKind::r_brace) || next.is(TokenKind::eof);
  if ((name == "break" || name == "continue") && alone) {
    errorAtToken("there is no '" + name + "' in TDSL: a loop runs all its "
                 "iterations; skip the rest of one with 'if'");
    return true;
  }
  if (name == "while" && !alone && !next.is(TokenKind::equal) &&
      !next.is(TokenKind::colon) && !next.is(TokenKind::l_paren) &&
      !next.is(TokenKind::l_square) && !next.is(TokenKind::dot)) {
    errorAtToken("there are no 'while' loops in TDSL: loop over a range "
                 "('for i in 0..n') and test the condition with 'if'");
    return true;
  }
  // `m.w[0, 1] = x`: an element update of a model's field.
  if (next.is(TokenKind::dot) && peek(2).is(TokenKind::identifier) &&
      peek(3).is(TokenKind::l_square)) {
    size_t saved = pos;
    pos += 2;
    bool update = isSubscriptAssignment();
    pos = saved;
    if (update) {
      errorAtToken("the elements of a model's field cannot be updated in "
                   "place: copy the field, update the copy and assign it "
                   "back ('w = " + name + "." + peek(2).spelling + "', 'w[...] "
                   "= ...', '" + name + "." + peek(2).spelling + " = w')");
      return true;
    }
  }
  return false;
}

// field-assign ::= identifier '.' identifier '=' expr
/// `m.w1 = e` replaces a field of the model m: a binding of "m.w1".
std::unique_ptr<Stmt> Parser::parseFieldAssign() {
  auto let = std::make_unique<LetStmt>(
      tok().getLoc(), (tok().spelling + "." + peek(2).spelling).str());
  let->fieldLoc = peek(2).getLoc();
  for (int i = 0; i < 4; ++i)
    consume();
  let->value = parseExpr();
  return let->value ? std::move(let) : nullptr;
}

// range ::= identifier 'in' expr '..' expr
bool Parser::parseRange(LoopRange &range) {
  range.var = {tok().spelling.str(), tok().getLoc()};
  if (!expect(TokenKind::identifier, "for the loop variable") ||
      !expect(TokenKind::kw_in, "after the loop variable"))
    return false;
  range.lower = parseExpr();
  if (!range.lower || !expect(TokenKind::dotdot, "in the loop range"))
    return false;
  range.upper = parseExpr();
  if (range.upper && tok().is(TokenKind::dotdot)) {
    errorAtToken("a range has no step in TDSL: loop over 0..n and compute "
                 "the value ('for k in 0..n { i = lo + step * k ... }')");
    return false;
  }
  return range.upper != nullptr;
}

// for ::= 'for' range block
std::unique_ptr<Stmt> Parser::parseFor() {
  auto stmt = std::make_unique<ForStmt>(tok().getLoc());
  consume();
  if (!parseRange(stmt->range) || !parseBlock(stmt->body))
    return nullptr;
  return stmt;
}

// if ::= 'if' expr block ('else' (if | block))?
std::unique_ptr<Stmt> Parser::parseIf() {
  auto stmt = std::make_unique<IfStmt>(tok().getLoc());
  consume();
  stmt->cond = parseExpr();
  if (!stmt->cond || !parseBlock(stmt->thenBody))
    return nullptr;
  if (consumeIf(TokenKind::kw_else)) {
    if (tok().is(TokenKind::kw_if)) {
      auto nested = parseIf();
      if (!nested)
        return nullptr;
      stmt->elseBody.push_back(std::move(nested));
    } else if (!parseBlock(stmt->elseBody)) {
      return nullptr;
    }
  }
  return stmt;
}

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

ExprPtr Parser::parseExpr() { return parseTernary(); }

// ternary ::= binary ('?' expr ':' expr)?
ExprPtr Parser::parseTernary() {
  ExprPtr cond = parseBinary(1);
  if (!cond || !tok().is(TokenKind::question))
    return cond;
  llvm::SaveAndRestore<unsigned> level(treeDepth, treeDepth + 1);
  if (tooDeep())
    return nullptr;
  llvm::SMLoc loc = tok().getLoc();
  consume();
  ++nesting;
  ExprPtr thenE = parseExpr();
  --nesting;
  if (!thenE || !expect(TokenKind::colon, "in the conditional expression"))
    return nullptr;
  ExprPtr elseE = parseExpr();
  if (!elseE)
    return nullptr;
  return std::make_unique<TernaryExpr>(loc, std::move(cond), std::move(thenE),
                                       std::move(elseE));
}

static int precedenceOf(TokenKind k, BinaryOp &op) {
  switch (k) {
  case TokenKind::pipepipe: op = BinaryOp::Or; return 1;
  case TokenKind::ampamp: op = BinaryOp::And; return 2;
  case TokenKind::eqeq: op = BinaryOp::Eq; return 3;
  case TokenKind::noteq: op = BinaryOp::Ne; return 3;
  case TokenKind::less: op = BinaryOp::Lt; return 4;
  case TokenKind::lesseq: op = BinaryOp::Le; return 4;
  case TokenKind::greater: op = BinaryOp::Gt; return 4;
  case TokenKind::greatereq: op = BinaryOp::Ge; return 4;
  case TokenKind::plus: op = BinaryOp::Add; return 5;
  case TokenKind::minus: op = BinaryOp::Sub; return 5;
  case TokenKind::star: op = BinaryOp::Mul; return 6;
  case TokenKind::slash: op = BinaryOp::Div; return 6;
  case TokenKind::percent: op = BinaryOp::Rem; return 6;
  case TokenKind::at: op = BinaryOp::MatMul; return 6;
  default: return 0;
  }
}

// binary ::= unary (binop unary)*, by precedence climbing; all operators
// are left-associative. Precedence, loosest first: || && (== !=)
// (< <= > >=) (+ -) (* / % @).
ExprPtr Parser::parseBinary(int minPrec) {
  llvm::SaveAndRestore<unsigned> level(treeDepth);
  ExprPtr lhs = parseUnary();
  while (lhs) {
    BinaryOp op;
    int prec = precedenceOf(tok().kind, op);
    if (prec == 0 || prec < minPrec)
      return lhs;
    // A '-' that starts a new line starts a new statement.
    if (tok().is(TokenKind::minus) && tok().newlineBefore && nesting == 0)
      return lhs;
    llvm::SMLoc loc = tok().getLoc();
    ++treeDepth;
    if (tooDeep())
      return nullptr;
    consume();
    ExprPtr rhs = parseBinary(prec + 1);
    if (!rhs)
      return nullptr;
    lhs = std::make_unique<BinaryExpr>(loc, op, std::move(lhs), std::move(rhs));
  }
  return lhs;
}

// unary ::= ('-' | '!') unary | postfix
ExprPtr Parser::parseUnary() {
  llvm::SaveAndRestore<unsigned> level(treeDepth, treeDepth + 1);
  if (tooDeep())
    return nullptr;
  llvm::SMLoc loc = tok().getLoc();
  if (consumeIf(TokenKind::minus)) {
    ExprPtr operand = parseUnary();
    if (!operand)
      return nullptr;
    return std::make_unique<UnaryExpr>(loc, UnaryOp::Neg, std::move(operand));
  }
  if (consumeIf(TokenKind::exclaim)) {
    ExprPtr operand = parseUnary();
    if (!operand)
      return nullptr;
    return std::make_unique<UnaryExpr>(loc, UnaryOp::Not, std::move(operand));
  }
  return parsePostfix();
}

/// At `..` or `:` in a subscript: there is no slicing; say what to write.
void Parser::sliceError() {
  errorAtToken("slicing is not supported (a subscript is one element); "
               "build the part with index notation, e.g. `col[i] = m[i, 1]`, "
               "or with `parallel for i in 0..2 { yield x[i] }`");
}

// postfix ::= primary ('[' expr (',' expr)* ']' | '.' identifier)*
ExprPtr Parser::parsePostfix() {
  llvm::SaveAndRestore<unsigned> level(treeDepth);
  ExprPtr base = parsePrimary();
  while (base && (tok().is(TokenKind::l_square) || tok().is(TokenKind::dot)) &&
         !(tok().newlineBefore && nesting == 0)) {
    // `f(x).w1`: a field of a model computed by an expression.
    if (tok().is(TokenKind::dot)) {
      // `1.` is not a number (language.md 2); its '.' is not a field access.
      if (llvm::isa<IntLitExpr>(base.get())) {
        diags.error(base->loc,
                    "'" + llvm::Twine(llvm::cast<IntLitExpr>(*base).value) +
                        ".' is not a number: write it with a digit after the "
                        "point (1.0)");
        return nullptr;
      }
      consume();
      llvm::SMLoc fieldLoc = tok().getLoc();
      std::string field = tok().spelling.str();
      if (!expect(TokenKind::identifier, "for a field name after '.'"))
        return nullptr;
      base = std::make_unique<FieldExpr>(fieldLoc, std::move(base), field);
      continue;
    }
    ++treeDepth;
    if (tooDeep())
      return nullptr;
    auto index = std::make_unique<IndexExpr>(tok().getLoc(), std::move(base));
    consume();
    ++nesting;
    do {
      if (tok().is(TokenKind::colon)) {
        sliceError();
        --nesting;
        return nullptr;
      }
      ExprPtr e = parseExpr();
      if (!e) {
        --nesting;
        return nullptr;
      }
      if (tok().is(TokenKind::dotdot) || tok().is(TokenKind::colon)) {
        sliceError();
        --nesting;
        return nullptr;
      }
      index->indices.push_back(std::move(e));
    } while (consumeIf(TokenKind::comma));
    --nesting;
    if (!expect(TokenKind::r_square, "to close the subscript"))
      return nullptr;
    base = std::move(index);
  }
  return base;
}

/// `sum(i, j) body`, as opposed to the call `max(a, b)`: a reduction's
/// parenthesized list holds only names and is followed by its body.
bool Parser::isReductionStart() const {
  if (!tok().is(TokenKind::identifier) ||
      !(tok().spelling == "sum" || tok().spelling == "max" ||
        tok().spelling == "min") ||
      !peek().is(TokenKind::l_paren))
    return false;
  unsigned n = 2;
  while (true) {
    if (!peek(n).is(TokenKind::identifier))
      return false;
    ++n;
    // `k in lo..hi`: skip the range up to the next ',' or ')' outside
    // parentheses.
    if (peek(n).is(TokenKind::kw_in)) {
      int depth = 0;
      for (++n; depth > 0 || !(peek(n).is(TokenKind::comma) ||
                               peek(n).is(TokenKind::r_paren));
           ++n) {
        if (peek(n).is(TokenKind::eof) || peek(n).is(TokenKind::l_brace))
          return false;
        depth += peek(n).is(TokenKind::l_paren);
        depth -= peek(n).is(TokenKind::r_paren);
      }
    }
    if (peek(n).is(TokenKind::comma)) {
      ++n;
      continue;
    }
    if (!peek(n).is(TokenKind::r_paren))
      return false;
    break;
  }
  const Token &after = peek(n + 1);
  if (after.newlineBefore && nesting == 0)
    return false;
  switch (after.kind) {
  case TokenKind::identifier:
  case TokenKind::integer:
  case TokenKind::floating:
  case TokenKind::l_paren:
  case TokenKind::kw_true:
  case TokenKind::kw_false:
    return true;
  default:
    return after.isScalarTypeKeyword();
  }
}

static std::string unescape(llvm::StringRef quoted) {
  std::string out;
  llvm::StringRef body = quoted.drop_front().drop_back();
  for (size_t i = 0; i < body.size(); ++i) {
    char c = body[i];
    if (c == '\\' && i + 1 < body.size()) {
      char n = body[++i];
      switch (n) {
      case 'n': out += '\n'; break;
      case 't': out += '\t'; break;
      default: out += n; break;
      }
    } else {
      out += c;
    }
  }
  return out;
}

// primary ::= integer | floating | string | 'true' | 'false'
//           | identifier | identifier '(' args ')' | identifier '.' identifier '(' args ')'
//           | scalar-type '(' args ')' | type | '(' expr ')' | tensor-literal
//           | reduction | parallel-for
ExprPtr Parser::parsePrimary() {
  const Token t = tok();
  llvm::SMLoc loc = t.getLoc();
  switch (t.kind) {
  case TokenKind::integer: {
    uint64_t v;
    if (t.spelling.getAsInteger(10, v)) {
      errorAtToken("integer literal '" + t.spelling + "' is too large");
      consume();
      return nullptr;
    }
    consume();
    return std::make_unique<IntLitExpr>(loc, v);
  }
  case TokenKind::floating: {
    consume();
    double v = std::strtod(t.spelling.str().c_str(), nullptr);
    return std::make_unique<FloatLitExpr>(loc, v);
  }
  case TokenKind::string:
    consume();
    return std::make_unique<StringLitExpr>(loc, unescape(t.spelling));
  case TokenKind::kw_true:
  case TokenKind::kw_false:
    consume();
    return std::make_unique<BoolLitExpr>(loc, t.is(TokenKind::kw_true));
  case TokenKind::l_paren: {
    consume();
    ++nesting;
    ExprPtr e = parseExpr();
    --nesting;
    if (!e || !expect(TokenKind::r_paren, "to close the parenthesized expression"))
      return nullptr;
    e->parenthesized = true;
    return e;
  }
  case TokenKind::l_square:
    return parseTensorLiteral();
  case TokenKind::kw_parallel:
    return parseParallelFor();
  case TokenKind::identifier: {
    if (isReductionStart())
      return parseReduce();
    consume();
    if (tok().is(TokenKind::dot) && peek().is(TokenKind::identifier)) {
      consume();
      // `m.w1` reads a field of a model; `nn.relu(x)` calls into a module.
      if (!peek().is(TokenKind::l_paren)) {
        llvm::SMLoc fieldLoc = tok().getLoc();
        std::string field = tok().spelling.str();
        consume();
        return std::make_unique<FieldExpr>(
            fieldLoc, std::make_unique<VarRefExpr>(loc, t.spelling.str()),
            field);
      }
      auto call = std::make_unique<CallExpr>(loc, t.spelling.str(),
                                             tok().spelling.str());
      consume();
      return parseCallArgs(std::move(call));
    }
    if (tok().is(TokenKind::l_paren))
      return parseCallArgs(std::make_unique<CallExpr>(loc, "", t.spelling.str()));
    return std::make_unique<VarRefExpr>(loc, t.spelling.str());
  }
  default:
    break;
  }
  if (t.isScalarTypeKeyword()) {
    consume();
    if (tok().is(TokenKind::l_paren))
      return parseCallArgs(std::make_unique<CallExpr>(loc, "", t.spelling.str()));
    TypeSpec spec;
    spec.loc = loc;
    if (!parseTypeAfterElem(spec, elemKindOf(t.kind)))
      return nullptr;
    return std::make_unique<TypeArgExpr>(loc, spec.type);
  }
  errorExpected("an expression");
  return nullptr;
}

// args ::= '(' (arg (',' arg)*)? ')'     arg ::= (identifier '=')? expr
ExprPtr Parser::parseCallArgs(std::unique_ptr<CallExpr> call) {
  consume(); // '('
  ++nesting;
  if (!tok().is(TokenKind::r_paren)) {
    do {
      CallArg arg;
      if (tok().is(TokenKind::identifier) && peek().is(TokenKind::equal)) {
        arg.name = tok().spelling.str();
        arg.nameLoc = tok().getLoc();
        consume();
        consume();
      }
      arg.value = parseExpr();
      if (!arg.value) {
        --nesting;
        return nullptr;
      }
      call->args.push_back(std::move(arg));
    } while (consumeIf(TokenKind::comma));
  }
  --nesting;
  if (!expect(TokenKind::r_paren, "to close the argument list"))
    return nullptr;
  return call;
}

// tensor-literal ::= '[' expr (',' expr)* ']'
ExprPtr Parser::parseTensorLiteral() {
  auto lit = std::make_unique<TensorLitExpr>(tok().getLoc());
  consume();
  ++nesting;
  if (tok().is(TokenKind::r_square)) {
    --nesting;
    errorAtToken("a tensor literal needs at least one element");
    return nullptr;
  }
  do {
    ExprPtr e = parseExpr();
    if (!e) {
      --nesting;
      return nullptr;
    }
    lit->elements.push_back(std::move(e));
  } while (consumeIf(TokenKind::comma));
  --nesting;
  if (!expect(TokenKind::r_square, "to close the tensor literal"))
    return nullptr;
  return lit;
}

// reduction ::= ('sum' | 'max' | 'min') '(' identifier (',' identifier)* ')' expr
ExprPtr Parser::parseReduce() {
  ReduceKind kind = llvm::StringSwitch<ReduceKind>(tok().spelling)
                        .Case("sum", ReduceKind::Sum)
                        .Case("max", ReduceKind::Max)
                        .Default(ReduceKind::Min);
  auto red = std::make_unique<ReduceExpr>(tok().getLoc(), kind);
  consume();
  consume();
  ++nesting;
  do {
    red->indices.push_back({tok().spelling.str(), tok().getLoc()});
    consume();
    ExprPtr lo, hi;
    if (consumeIf(TokenKind::kw_in)) {
      lo = parseBinary(0);
      if (!lo || !expect(TokenKind::dotdot, "in the index's range") ||
          !(hi = parseBinary(0))) {
        --nesting;
        return nullptr;
      }
    }
    red->lowers.push_back(std::move(lo));
    red->uppers.push_back(std::move(hi));
  } while (consumeIf(TokenKind::comma));
  --nesting;
  consume(); // ')'
  red->body = parseExpr();
  if (!red->body)
    return nullptr;
  return red;
}

// parallel-for ::= 'parallel' 'for' range (',' range)*
//                  ('reduce' '(' ('+' | '*' | 'max' | 'min') ')')? block
ExprPtr Parser::parseParallelFor() {
  auto pf = std::make_unique<ParallelForExpr>(tok().getLoc());
  consume();
  if (!expect(TokenKind::kw_for, "after 'parallel'"))
    return nullptr;
  int savedNesting = nesting;
  nesting = 0;
  do {
    LoopRange r;
    if (!parseRange(r)) {
      nesting = savedNesting;
      return nullptr;
    }
    pf->ranges.push_back(std::move(r));
  } while (consumeIf(TokenKind::comma));
  nesting = savedNesting;
  if (tok().is(TokenKind::kw_reduce)) {
    consume();
    if (!expect(TokenKind::l_paren, "after 'reduce'"))
      return nullptr;
    pf->reduceLoc = tok().getLoc();
    if (tok().is(TokenKind::plus))
      pf->reduce = LoopReduce::Add;
    else if (tok().is(TokenKind::star))
      pf->reduce = LoopReduce::Mul;
    else if (tok().is(TokenKind::identifier) && tok().spelling == "max")
      pf->reduce = LoopReduce::Max;
    else if (tok().is(TokenKind::identifier) && tok().spelling == "min")
      pf->reduce = LoopReduce::Min;
    else {
      errorExpected("a reduction operator (+, *, max or min)");
      return nullptr;
    }
    consume();
    if (!expect(TokenKind::r_paren, "after the reduction operator"))
      return nullptr;
  }
  if (!parseBlock(pf->body))
    return nullptr;
  return pf;
}
