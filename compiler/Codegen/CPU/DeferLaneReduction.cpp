//===- DeferLaneReduction.cpp - reduce vector lanes after the loop ----------===//
//
// A reduction loop that reduces a vector across its lanes at every step
// (`A @ x`, row sums, softmax's row max and sum, each with the reduced
// dimension in the vector) carries one accumulator per output instead, and
// spends most of each step shuffling lanes together. Here the loop carries a
// vector of the step's full shape, combined lane by lane (an FMA for a
// contraction), and the lanes are reduced once, after the loop.
//
//===----------------------------------------------------------------------===//
#include "compiler/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"

namespace tdsl {
#define GEN_PASS_DEF_DEFERLANEREDUCTION
#include "compiler/Codegen/CPU/Passes.h.inc"
} // namespace tdsl

using namespace mlir;

namespace {

constexpr int64_t kMaxLaneBits = 16 * 512;

/// The value that `kind` leaves unchanged, for elements of type `elem`; null
/// when there is none.
TypedAttr identityOf(vector::CombiningKind kind, Type elem) {
  using K = vector::CombiningKind;
  if (auto ft = dyn_cast<FloatType>(elem)) {
    const llvm::fltSemantics &sem = ft.getFloatSemantics();
    switch (kind) {
    case K::ADD: // -0 + x is x for every x, +0 and -0 included
      return FloatAttr::get(ft, llvm::APFloat::getZero(sem, /*Negative=*/true));
    case K::MUL:
      return FloatAttr::get(ft, llvm::APFloat::getOne(sem));
    case K::MAXIMUMF:
      return FloatAttr::get(ft, llvm::APFloat::getInf(sem, /*Negative=*/true));
    case K::MINIMUMF:
      return FloatAttr::get(ft, llvm::APFloat::getInf(sem, /*Negative=*/false));
    case K::MAXNUMF:
    case K::MINNUMF: // NaN: maxnum and minnum return the other operand
      return FloatAttr::get(ft, llvm::APFloat::getNaN(sem));
    default:
      return {};
    }
  }
  auto it = dyn_cast<IntegerType>(elem);
  if (!it)
    return {};
  unsigned w = it.getWidth();
  switch (kind) {
  case K::ADD:
  case K::OR:
  case K::XOR:
  case K::MAXUI:
    return IntegerAttr::get(it, llvm::APInt::getZero(w));
  case K::MUL:
    return IntegerAttr::get(it, llvm::APInt(w, 1));
  case K::AND:
  case K::MINUI:
    return IntegerAttr::get(it, llvm::APInt::getAllOnes(w));
  case K::MAXSI:
    return IntegerAttr::get(it, llvm::APInt::getSignedMinValue(w));
  case K::MINSI:
    return IntegerAttr::get(it, llvm::APInt::getSignedMaxValue(w));
  default:
    return {};
  }
}

/// `v`, whose dimensions are the loops `dims` of a contraction in that
/// order, as a vector over the loops `order` (of sizes `bounds`): broadcast
/// along the loops it lacks, then transposed.
Value expand(OpBuilder &b, Location loc, Value v, ArrayRef<unsigned> dims,
             ArrayRef<unsigned> order, ArrayRef<int64_t> bounds) {
  SmallVector<unsigned> have;
  SmallVector<int64_t> shape;
  for (unsigned d : order)
    if (!llvm::is_contained(dims, d)) {
      have.push_back(d);
      shape.push_back(bounds[d]);
    }
  for (unsigned d : dims) {
    have.push_back(d);
    shape.push_back(bounds[d]);
  }
  auto elem = getElementTypeOrSelf(v.getType());
  if (!isa<VectorType>(v.getType()) || have.size() != dims.size())
    v = vector::BroadcastOp::create(b, loc, VectorType::get(shape, elem), v);
  SmallVector<int64_t> perm;
  for (unsigned d : order)
    perm.push_back(llvm::find(have, d) - have.begin());
  bool identity = llvm::all_of(llvm::enumerate(perm), [](auto p) {
    return p.value() == static_cast<int64_t>(p.index());
  });
  return identity ? v : vector::TransposeOp::create(b, loc, v, perm).getResult();
}

/// What a reduction step does to the accumulator, rewritten to combine lane
/// by lane: the loop-carried lanes' type, their initial value, how a step
/// combines them (given the builder and the lanes), the reduction kind and
/// the lanes to reduce after the loop.
struct LaneForm {
  VectorType lanes;
  TypedAttr identity;
  vector::CombiningKind kind;
  SmallVector<bool> reduced;
  std::function<Value(OpBuilder &, Location, Value)> step;
};

/// The lane form of a `vector.contract` of kind add whose accumulator is
/// `acc`, masked by `mask` (null when not): lanes over its result loops (in
/// the result's order), then its reduction loops.
std::optional<LaneForm> laneForm(vector::ContractionOp op, Value mask) {
  auto accType = dyn_cast<VectorType>(op.getAccType());
  Type elem = getElementTypeOrSelf(accType);
  if (!accType || op.getKind() != vector::CombiningKind::ADD ||
      getElementTypeOrSelf(op.getLhsType()) != elem ||
      getElementTypeOrSelf(op.getRhsType()) != elem)
    return std::nullopt;
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  SmallVector<int64_t> bounds;
  op.getIterationBounds(bounds);
  auto dimsOf = [](AffineMap m) -> std::optional<SmallVector<unsigned>> {
    SmallVector<unsigned> dims;
    for (AffineExpr e : m.getResults()) {
      auto d = dyn_cast<AffineDimExpr>(e);
      if (!d)
        return std::nullopt;
      dims.push_back(d.getPosition());
    }
    return dims;
  };
  auto lhsDims = dimsOf(maps[0]), rhsDims = dimsOf(maps[1]), accDims = dimsOf(maps[2]);
  if (!lhsDims || !rhsDims || !accDims)
    return std::nullopt;
  SmallVector<unsigned> order = *accDims;
  SmallVector<bool> reduced(order.size(), false);
  int64_t reducedLanes = 1;
  for (auto [d, iter] : llvm::enumerate(op.getIteratorTypesArray()))
    if (iter == vector::IteratorType::reduction) {
      order.push_back(d);
      reduced.push_back(true);
      reducedLanes *= bounds[d];
    }
  if (reducedLanes == 1 || order.size() != bounds.size())
    return std::nullopt;
  SmallVector<int64_t> shape;
  for (unsigned d : order)
    shape.push_back(bounds[d]);
  LaneForm form;
  form.lanes = VectorType::get(shape, elem);
  form.identity = identityOf(vector::CombiningKind::ADD, elem);
  if (!form.identity)
    return std::nullopt;
  form.kind = vector::CombiningKind::ADD;
  form.reduced = reduced;
  Value lhs = op.getLhs(), rhs = op.getRhs();
  form.step = [=](OpBuilder &b, Location loc, Value lanes) -> Value {
    Value l = expand(b, loc, lhs, *lhsDims, order, bounds);
    Value r = expand(b, loc, rhs, *rhsDims, order, bounds);
    Value next;
    if (isa<FloatType>(elem)) {
      next = vector::FMAOp::create(b, loc, l, r, lanes);
    } else {
      Value prod = arith::MulIOp::create(b, loc, l, r);
      next = arith::AddIOp::create(b, loc, prod, lanes);
    }
    if (!mask)
      return next;
    SmallVector<unsigned> all = llvm::to_vector(llvm::seq<unsigned>(0, bounds.size()));
    Value m = expand(b, loc, mask, all, order, bounds);
    return arith::SelectOp::create(b, loc, m, next, lanes);
  };
  return form;
}

/// The lane form of a `vector.multi_reduction`: lanes of its source's shape.
std::optional<LaneForm> laneForm(vector::MultiDimReductionOp op, Value mask) {
  VectorType src = op.getSourceVectorType();
  if (!isa<VectorType>(op.getDestType()) ||
      src.getNumElements() == cast<VectorType>(op.getDestType()).getNumElements())
    return std::nullopt;
  LaneForm form;
  form.lanes = src;
  form.identity = identityOf(op.getKind(), src.getElementType());
  if (!form.identity)
    return std::nullopt;
  form.kind = op.getKind();
  form.reduced = op.getReductionMask();
  Value source = op.getSource();
  vector::CombiningKind kind = op.getKind();
  form.step = [=](OpBuilder &b, Location loc, Value lanes) -> Value {
    return vector::makeArithReduction(b, loc, kind, source, lanes, nullptr, mask);
  };
  return form;
}

/// Rewrites the `index`th loop-carried value of `loop` when it is the
/// accumulator of one reduction step and nothing else; true if it did.
bool deferLanes(RewriterBase &rw, scf::ForOp &loop, unsigned index) {
  BlockArgument acc = loop.getRegionIterArg(index);
  if (!isa<VectorType>(acc.getType()) || !acc.hasOneUse())
    return false;
  Operation *user = *acc.getUsers().begin();
  Operation *root = user;
  Value mask;
  if (auto m = dyn_cast<vector::MaskOp>(user->getParentOp())) {
    if (m.hasPassthru())
      return false;
    root = m;
    mask = m.getMask();
  }
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  if (root->getBlock() != loop.getBody() || root->getNumResults() != 1 ||
      yield.getOperand(index) != root->getResult(0) || !root->getResult(0).hasOneUse())
    return false;
  std::optional<LaneForm> form;
  if (auto c = dyn_cast<vector::ContractionOp>(user); c && c.getAcc() == acc)
    form = laneForm(c, mask);
  else if (auto r = dyn_cast<vector::MultiDimReductionOp>(user); r && r.getAcc() == acc)
    form = laneForm(r, mask);
  // Lanes beyond 16 vector registers of 512 bits would spill (a tuned
  // register tile of 16 rows of f64).
  if (!form || form->lanes.getNumElements() *
                       form->lanes.getElementType().getIntOrFloatBitWidth() >
                   kMaxLaneBits)
    return false;

  Location loc = root->getLoc();
  rw.setInsertionPoint(loop);
  Value init = arith::ConstantOp::create(
      rw, loc, DenseElementsAttr::get(form->lanes, form->identity));
  auto grown = loop.replaceWithAdditionalYields(
      rw, init, /*replaceInitOperandUsesInLoop=*/false,
      [&](OpBuilder &b, Location, ArrayRef<BlockArgument> lanes) {
        b.setInsertionPoint(root);
        return SmallVector<Value>{form->step(b, loc, lanes.front())};
      });
  if (failed(grown))
    return false;
  loop = cast<scf::ForOp>(grown->getOperation());
  // The old accumulator passes through unchanged (canonicalize drops it).
  auto newYield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  rw.modifyOpInPlace(newYield, [&] {
    newYield->setOperand(index, loop.getRegionIterArg(index));
  });
  rw.eraseOp(root);
  rw.setInsertionPointAfter(loop);
  Value result = loop.getResult(index);
  auto total = vector::MultiDimReductionOp::create(
      rw, loc, loop.getResults().back(), result, form->reduced, form->kind);
  rw.replaceAllUsesExcept(result, total.getResult(), total);
  return true;
}

struct DeferLaneReductionPass
    : tdsl::impl::DeferLaneReductionBase<DeferLaneReductionPass> {
  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) {
      if (loop->hasAttr(tdsl::kReductionLoopAttr))
        loops.push_back(loop);
    });
    IRRewriter rw(&getContext());
    for (scf::ForOp loop : loops)
      for (unsigned i = 0; i < loop.getNumRegionIterArgs(); ++i)
        deferLanes(rw, loop, i);
  }
};

} // namespace
