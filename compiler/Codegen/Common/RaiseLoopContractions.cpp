//===- RaiseLoopContractions.cpp - `for k` sums of products as contractions -===//
//
// A matrix product written as a `parallel for` over the outputs with an
// inner `for k` loop (`s = s + a[i, k] * b[k, j]`), or with a `sum(k)` in
// its body (a nested reduction becomes such a loop), ran one scalar loop
// per output: 46x slower than `a @ b` at 512. Each output adds its terms in
// the loop's order, and so does a contraction's register tile (one step of
// k at a time, into accumulators it keeps), so the loop can become the
// reduction loop of a linalg.generic that tdsl-raise-extracts and
// tdsl-vectorize then treat as `@`.
//
//===----------------------------------------------------------------------===//
#include "compiler/Codegen/Common/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "llvm/ADT/SmallBitVector.h"

namespace tdsl {
#define GEN_PASS_DEF_RAISELOOPCONTRACTIONS
#include "compiler/Codegen/Common/Passes.h.inc"
} // namespace tdsl

using namespace mlir;

namespace {

/// A generic's body that yields `for k in lb..ub { s = s + x * y }`, with x
/// and y reads at the generic's loops and k.
struct LoopContraction {
  scf::ForOp loop;
  int64_t lb = 0, ub = 0;
  std::array<tensor::ExtractOp, 2> reads;
  arith::MulFOp mul;
  arith::AddFOp add;
};

/// The loops of `op` (numbered as in `op`, and `numLoops` for k) that the
/// subscripts of `read` are, when each is one of them, at most once;
/// std::nullopt otherwise.
std::optional<llvm::SmallBitVector> readLoops(linalg::GenericOp op, scf::ForOp loop,
                                              tensor::ExtractOp read) {
  unsigned n = op.getNumLoops();
  llvm::SmallBitVector used(n + 1);
  auto type = read.getTensor().getType();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  for (auto [j, idx] : llvm::enumerate(read.getIndices())) {
    unsigned d;
    int64_t range;
    if (idx == loop.getInductionVar()) {
      d = n;
      range = *getConstantIntValue(loop.getUpperBound());
    } else if (auto index = idx.getDefiningOp<linalg::IndexOp>();
               index && index->getParentOp() == op) {
      d = index.getDim();
      range = ranges[d];
    } else {
      return std::nullopt;
    }
    // Every read in bounds by the static sizes, so that tdsl-raise-extracts
    // raises it (a read left in the body would keep the op scalar).
    if (used.test(d) || type.isDynamicDim(j) || range > type.getDimSize(j))
      return std::nullopt;
    used.set(d);
  }
  return used;
}

std::optional<LoopContraction> match(linalg::GenericOp op) {
  unsigned n = op.getNumLoops();
  if (!op.hasPureTensorSemantics() || op.getNumDpsInits() != 1 || n < 2 ||
      op.getNumReductionLoops() != 0 || op.hasDynamicShape() ||
      !op.getMatchingIndexingMap(op.getDpsInitOperand(0)).isIdentity() ||
      !op.getBody()->getArguments().back().use_empty())
    return std::nullopt;
  auto yield = cast<linalg::YieldOp>(op.getBody()->getTerminator());
  if (yield->getNumOperands() != 1)
    return std::nullopt;
  auto loop = yield->getOperand(0).getDefiningOp<scf::ForOp>();
  if (!loop || loop->getParentOp() != op || loop.getNumResults() != 1 ||
      !loop->getResult(0).hasOneUse())
    return std::nullopt;
  std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound());
  std::optional<int64_t> ub = getConstantIntValue(loop.getUpperBound());
  std::optional<int64_t> step = getConstantIntValue(loop.getStep());
  if (!lb || !ub || !step || *lb != 0 || *ub <= 0 || *step != 1)
    return std::nullopt;
  Block *body = loop.getBody();
  Value s = loop.getRegionIterArg(0);
  auto add = body->getTerminator()->getOperand(0).getDefiningOp<arith::AddFOp>();
  if (!add || !s.hasOneUse() || (add.getLhs() != s && add.getRhs() != s))
    return std::nullopt;
  auto mul = (add.getLhs() == s ? add.getRhs() : add.getLhs()).getDefiningOp<arith::MulFOp>();
  if (!mul)
    return std::nullopt;
  auto x = mul.getLhs().getDefiningOp<tensor::ExtractOp>();
  auto y = mul.getRhs().getDefiningOp<tensor::ExtractOp>();
  Type elem = s.getType();
  if (!x || !y || x->getBlock() != body || y->getBlock() != body || x == y ||
      x.getType() != elem || y.getType() != elem ||
      getElementTypeOrSelf(op.getResultTypes()[0]) != elem)
    return std::nullopt;
  for (tensor::ExtractOp read : {x, y})
    if (!read.getTensor().getParentRegion()->isProperAncestor(&op.getRegion()))
      return std::nullopt;
  // Nothing else in the body but dead pure ops (the comparisons of checks
  // tdsl-fold-checks removed): a check left in it would be dropped.
  for (Operation &o : body->without_terminator())
    if (&o != x && &o != y && &o != mul && &o != add && !isOpTriviallyDead(&o))
      return std::nullopt;
  auto xl = readLoops(op, loop, x), yl = readLoops(op, loop, y);
  if (!xl || !yl || !xl->test(n) || !yl->test(n))
    return std::nullopt;
  // A contraction: every output loop read by one of the two, and not by
  // both (a batch of dot products, x[i, j, k] * y[i, j, k], is vectorized
  // across k and would add in another order).
  bool xAll = true, yAll = true;
  for (unsigned d = 0; d < n; ++d) {
    if (!xl->test(d) && !yl->test(d))
      return std::nullopt;
    xAll &= xl->test(d);
    yAll &= yl->test(d);
  }
  if (xAll && yAll)
    return std::nullopt;
  return LoopContraction{loop, *lb, *ub, {x, y}, mul, add};
}

/// `op` as two generics: the loop's initial values, then the sum over k
/// added to them.
void raise(RewriterBase &rw, linalg::GenericOp op, LoopContraction m) {
  Location loc = op.getLoc();
  unsigned n = op.getNumLoops();
  MLIRContext *ctx = op.getContext();
  rw.setInsertionPoint(op);
  // The initial values: `op` with the loop's result replaced by its init.
  IRMapping map;
  auto init = cast<linalg::GenericOp>(rw.clone(*op, map));
  auto initLoop = cast<scf::ForOp>(map.lookup(m.loop.getOperation()));
  rw.replaceOp(initLoop, initLoop.getInitArgs());
  // The sum: loops (op's, k), k's extent given by an input it does not read
  // (tdsl-raise-extracts adds the reads; tdsl-fuse-elementwise then drops it
  // with the other unused operands).
  Type elem = m.loop.getRegionIterArg(0).getType();
  Value extent = tensor::EmptyOp::create(rw, loc, ArrayRef<int64_t>{m.ub - m.lb}, elem);
  SmallVector<AffineMap> maps = {
      AffineMap::get(n + 1, 0, getAffineDimExpr(n, ctx)),
      AffineMap::getMultiDimIdentityMap(n + 1, ctx).getMajorSubMap(n)};
  SmallVector<utils::IteratorType> iters(n, utils::IteratorType::parallel);
  iters.push_back(utils::IteratorType::reduction);
  auto sum = linalg::GenericOp::create(
      rw, loc, op.getResultTypes(), ValueRange{extent}, ValueRange{init.getResult(0)},
      maps, iters, [&](OpBuilder &b, Location l, ValueRange args) {
        IRMapping inner;
        for (auto index : op.getBody()->getOps<linalg::IndexOp>())
          inner.map(index.getResult(), linalg::IndexOp::create(b, l, index.getDim()));
        inner.map(m.loop.getInductionVar(), linalg::IndexOp::create(b, l, n));
        inner.map(m.loop.getRegionIterArg(0), args[1]);
        for (tensor::ExtractOp read : m.reads)
          b.clone(*read, inner);
        b.clone(*m.mul, inner);
        linalg::YieldOp::create(b, l, b.clone(*m.add, inner)->getResult(0));
      });
  sum->setDiscardableAttrs(op->getDiscardableAttrDictionary());
  rw.replaceOp(op, sum->getResults());
}

struct RaiseLoopContractionsPass
    : tdsl::impl::RaiseLoopContractionsBase<RaiseLoopContractionsPass> {
  void runOnOperation() override {
    SmallVector<std::pair<linalg::GenericOp, LoopContraction>> found;
    getOperation().walk([&](linalg::GenericOp op) {
      if (std::optional<LoopContraction> m = match(op))
        found.emplace_back(op, *m);
    });
    IRRewriter rw(&getContext());
    for (auto &[op, m] : found)
      raise(rw, op, m);
  }
};

} // namespace
