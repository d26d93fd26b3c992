//===- ASTDump.cpp - Prints the AST for --emit=ast ---------------------------===//
#include "compiler/Frontend/AST.h"

#include "llvm/Support/FormatVariadic.h"

using namespace tdsl;

const char *tdsl::getBinaryOpSpelling(BinaryOp op) {
  switch (op) {
  case BinaryOp::Add: return "+";
  case BinaryOp::Sub: return "-";
  case BinaryOp::Mul: return "*";
  case BinaryOp::Div: return "/";
  case BinaryOp::Rem: return "%";
  case BinaryOp::MatMul: return "@";
  case BinaryOp::Eq: return "==";
  case BinaryOp::Ne: return "!=";
  case BinaryOp::Lt: return "<";
  case BinaryOp::Le: return "<=";
  case BinaryOp::Gt: return ">";
  case BinaryOp::Ge: return ">=";
  case BinaryOp::And: return "&&";
  case BinaryOp::Or: return "||";
  }
  return "?";
}

const char *tdsl::getReduceKindName(ReduceKind k) {
  switch (k) {
  case ReduceKind::Sum: return "sum";
  case ReduceKind::Max: return "max";
  case ReduceKind::Min: return "min";
  }
  return "?";
}

static const char *loopReduceName(LoopReduce r) {
  switch (r) {
  case LoopReduce::None: return "none";
  case LoopReduce::Add: return "+";
  case LoopReduce::Mul: return "*";
  case LoopReduce::Max: return "max";
  case LoopReduce::Min: return "min";
  }
  return "?";
}

namespace {
/// Writes one node a line, indented by depth, with `@line:col`.
class Dumper {
public:
  Dumper(llvm::SourceMgr &srcMgr, llvm::raw_ostream &os) : srcMgr(srcMgr), os(os) {}

  void module(const ModuleAST &m) {
    for (const ImportDecl &imp : m.imports)
      line(imp.loc) << "Import " << imp.name << "\n";
    for (const auto &model : m.models)
      modelDecl(*model);
    for (const auto &fn : m.functions)
      function(*fn);
  }

private:
  llvm::raw_ostream &line(llvm::SMLoc loc) {
    os.indent(depth * 2);
    return os;
  }
  std::string at(llvm::SMLoc loc) {
    auto lc = srcMgr.getLineAndColumn(loc);
    return llvm::formatv(" @{0}:{1}", lc.first, lc.second).str();
  }
  static const char *initName(InitKind k) {
    switch (k) {
    case InitKind::Zeros: return "zeros";
    case InitKind::Ones: return "ones";
    case InitKind::Normal: return "normal";
    case InitKind::Uniform: return "uniform";
    case InitKind::He: return "he";
    case InitKind::Glorot: return "glorot";
    }
    return "?";
  }
  void modelDecl(const ModelDecl &m) {
    os.indent(depth * 2) << "Model " << m.name << at(m.loc) << "\n";
    for (const ModelField &f : m.fields) {
      os.indent(depth * 2 + 2) << "Field " << f.name << ": " << f.type.type.str()
                               << " = " << initName(f.init);
      if (f.init == InitKind::Normal || f.init == InitKind::Uniform)
        os << "(" << f.scale << ")";
      os << at(f.loc) << "\n";
    }
  }
  void function(const FunctionDecl &fn) {
    os.indent(depth * 2) << "Function " << fn.name;
    for (size_t i = 0; i < fn.typeParams.size(); ++i)
      os << (i ? ", " : "<") << fn.typeParams[i]->name;
    if (!fn.typeParams.empty())
      os << ">";
    os << "(";
    for (size_t i = 0; i < fn.params.size(); ++i)
      os << (i ? ", " : "") << fn.params[i].name << ": "
         << fn.params[i].type.type.str();
    os << ")";
    if (fn.hasResult)
      os << " -> " << fn.result.type.str();
    os << at(fn.loc) << "\n";
    block(fn.body);
  }
  void block(const StmtList &body) {
    ++depth;
    for (const auto &s : body)
      stmt(*s);
    --depth;
  }
  void range(const LoopRange &r) {
    os.indent(depth * 2) << "Range " << r.var.name << at(r.var.loc) << "\n";
    ++depth;
    expr(*r.lower);
    expr(*r.upper);
    --depth;
  }
  void stmt(const Stmt &s) {
    os.indent(depth * 2);
    switch (s.kind) {
    case Stmt::Let: {
      auto &l = llvm::cast<LetStmt>(s);
      os << "Let " << l.name;
      if (l.hasAnnotation)
        os << ": " << l.annotation.type.str();
      os << at(s.loc) << "\n";
      ++depth;
      expr(*l.value);
      --depth;
      return;
    }
    case Stmt::IndexDef: {
      auto &d = llvm::cast<IndexDefStmt>(s);
      // Names in the brackets; computed subscripts print as `_`, then as
      // children before the value.
      os << "IndexDef " << d.name << "[";
      for (size_t i = 0; i < d.subscripts.size(); ++i) {
        auto *ref = llvm::dyn_cast<VarRefExpr>(d.subscripts[i].get());
        os << (i ? ", " : "") << (ref ? ref->name : "_");
      }
      os << "]" << at(s.loc) << "\n";
      ++depth;
      for (const ExprPtr &sub : d.subscripts)
        if (!llvm::isa<VarRefExpr>(sub.get()))
          expr(*sub);
      expr(*d.value);
      --depth;
      return;
    }
    case Stmt::Return: {
      auto &r = llvm::cast<ReturnStmt>(s);
      os << "Return" << at(s.loc) << "\n";
      if (r.value) {
        ++depth;
        expr(*r.value);
        --depth;
      }
      return;
    }
    case Stmt::Yield:
      os << "Yield" << at(s.loc) << "\n";
      ++depth;
      expr(*llvm::cast<YieldStmt>(s).value);
      --depth;
      return;
    case Stmt::For: {
      auto &f = llvm::cast<ForStmt>(s);
      os << "For" << at(s.loc) << "\n";
      ++depth;
      range(f.range);
      --depth;
      block(f.body);
      return;
    }
    case Stmt::If: {
      auto &i = llvm::cast<IfStmt>(s);
      os << "If" << at(s.loc) << "\n";
      ++depth;
      expr(*i.cond);
      --depth;
      block(i.thenBody);
      if (!i.elseBody.empty()) {
        os.indent(depth * 2) << "Else\n";
        block(i.elseBody);
      }
      return;
    }
    case Stmt::ExprStmt:
      os << "ExprStmt" << at(s.loc) << "\n";
      ++depth;
      expr(*llvm::cast<ExprStmt>(s).expr);
      --depth;
      return;
    }
  }
  void expr(const Expr &e) {
    os.indent(depth * 2);
    switch (e.kind) {
    case Expr::IntLit:
      os << "Int " << llvm::cast<IntLitExpr>(e).value << at(e.loc) << "\n";
      return;
    case Expr::FloatLit:
      os << "Float " << llvm::cast<FloatLitExpr>(e).value << at(e.loc) << "\n";
      return;
    case Expr::BoolLit:
      os << "Bool " << (llvm::cast<BoolLitExpr>(e).value ? "true" : "false")
         << at(e.loc) << "\n";
      return;
    case Expr::StringLit:
      os << "String \"";
      os.write_escaped(llvm::cast<StringLitExpr>(e).value);
      os << "\"" << at(e.loc) << "\n";
      return;
    case Expr::VarRef:
      os << "Var " << llvm::cast<VarRefExpr>(e).name << at(e.loc) << "\n";
      return;
    case Expr::TypeArg:
      os << "Type " << llvm::cast<TypeArgExpr>(e).spec.str() << at(e.loc) << "\n";
      return;
    case Expr::Field: {
      auto &f = llvm::cast<FieldExpr>(e);
      os << "Field " << f.field << at(e.loc) << "\n";
      children({f.base.get()});
      return;
    }
    case Expr::Unary: {
      auto &u = llvm::cast<UnaryExpr>(e);
      os << "Unary " << (u.op == UnaryOp::Neg ? "-" : "!") << at(e.loc) << "\n";
      children({u.operand.get()});
      return;
    }
    case Expr::Binary: {
      auto &b = llvm::cast<BinaryExpr>(e);
      os << "Binary " << getBinaryOpSpelling(b.op) << at(e.loc) << "\n";
      children({b.lhs.get(), b.rhs.get()});
      return;
    }
    case Expr::Ternary: {
      auto &t = llvm::cast<TernaryExpr>(e);
      os << "Select" << at(e.loc) << "\n";
      children({t.cond.get(), t.thenExpr.get(), t.elseExpr.get()});
      return;
    }
    case Expr::Call: {
      auto &c = llvm::cast<CallExpr>(e);
      os << "Call " << c.qualifiedName() << at(e.loc) << "\n";
      ++depth;
      for (const CallArg &a : c.args) {
        if (!a.name.empty())
          os.indent(depth * 2) << "Named " << a.name << "\n";
        expr(*a.value);
      }
      --depth;
      return;
    }
    case Expr::Index: {
      auto &i = llvm::cast<IndexExpr>(e);
      os << "Subscript" << at(e.loc) << "\n";
      ++depth;
      expr(*i.base);
      for (const auto &idx : i.indices)
        expr(*idx);
      --depth;
      return;
    }
    case Expr::TensorLit: {
      auto &t = llvm::cast<TensorLitExpr>(e);
      os << "TensorLiteral" << at(e.loc) << "\n";
      ++depth;
      for (const auto &el : t.elements)
        expr(*el);
      --depth;
      return;
    }
    case Expr::Reduce: {
      auto &r = llvm::cast<ReduceExpr>(e);
      os << "Reduce " << getReduceKindName(r.reduceKind) << "(";
      for (size_t i = 0; i < r.indices.size(); ++i)
        os << (i ? ", " : "") << r.indices[i].name;
      os << ")" << at(e.loc) << "\n";
      children({r.body.get()});
      return;
    }
    case Expr::ParallelFor: {
      auto &p = llvm::cast<ParallelForExpr>(e);
      os << "ParallelFor reduce(" << loopReduceName(p.reduce) << ")" << at(e.loc)
         << "\n";
      ++depth;
      for (const LoopRange &r : p.ranges)
        range(r);
      --depth;
      block(p.body);
      return;
    }
    }
  }
  void children(std::initializer_list<const Expr *> es) {
    ++depth;
    for (const Expr *c : es)
      expr(*c);
    --depth;
  }

  llvm::SourceMgr &srcMgr;
  llvm::raw_ostream &os;
  unsigned depth = 0;
};
} // namespace

void tdsl::dumpAST(const ModuleAST &module, llvm::SourceMgr &srcMgr,
                   llvm::raw_ostream &os) {
  Dumper(srcMgr, os).module(module);
}
