//===- ShiftedAdjoint.cpp - Adjoints of reads at loop offsets -------------===//
//
// A tensor read inside an index_gen's body at subscripts that are loops plus
// constants, the zero-padded boundary of a stencil:
//   y[i] = (i > 0 ? x[i - 1] : 0.0) - 2.0 * x[i] + (i < n - 1 ? x[i + 1] : 0.0)
// Its reads are tensor.extract ops inside lazy selects, not affine inputs,
// so their adjoint was a masked gather: every element of x visiting every
// iteration, O(n^2). Here each distinct offset c gets a term over the op's
// own loops, T_c[i] = what the reads x[i + c] at iteration i contribute
// (the body recomputed and swept back, only reads at i + c counting), and
// dx[p] = sum over c of T_c[p - c] where p - c is an iteration: O(n) per
// offset, deterministic, no atomics.
//
//===----------------------------------------------------------------------===//
#include "dialects/TDSL/Transforms/ReverseMode.h"
#include "dialects/TDSL/IR/TDSLOps.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace tdsl::ir;

std::pair<Value, int64_t> tdsl::ir::splitConstantOffset(Value v) {
  int64_t offset = 0;
  auto wide = [](Type t) {
    return t.isIndex() || t.isSignlessInteger(64);
  };
  for (;;) {
    Operation *def = v.getDefiningOp();
    if (!def)
      return {v, offset};
    if (auto cast = dyn_cast<CastOp>(def)) {
      if (!wide(cast.getType()) || !wide(cast.getOperand().getType()))
        return {v, offset};
      v = cast.getOperand();
      continue;
    }
    if (!isa<AddOp, SubOp>(def) || !wide(def->getResult(0).getType()))
      return {v, offset};
    APInt k;
    bool sub = isa<SubOp>(def);
    int64_t step;
    Value rest;
    if (matchPattern(def->getOperand(1), m_ConstantInt(&k))) {
      step = sub ? -k.getSExtValue() : k.getSExtValue();
      rest = def->getOperand(0);
    } else if (!sub && matchPattern(def->getOperand(0), m_ConstantInt(&k))) {
      step = k.getSExtValue();
      rest = def->getOperand(1);
    } else {
      return {v, offset};
    }
    // Offsets far from 0 are no stencil; they also keep the sums in range.
    if (offset + step > (1 << 20) || offset + step < -(1 << 20))
      return {v, offset};
    offset += step;
    v = rest;
  }
}

/// `v` as (loop, offset) when it is an index_gen loop plus a constant.
static std::optional<std::pair<unsigned, int64_t>> loopPlusConstant(Value v) {
  auto [base, offset] = splitConstantOffset(v);
  if (auto idx = base.getDefiningOp<IndexOp>())
    return std::make_pair((unsigned)idx.getDim(), offset);
  return std::nullopt;
}

std::optional<SmallVector<SmallVector<int64_t>>>
tdsl::ir::pointOffsets(ParallelForOp par, Value t) {
  Block *body = par.getBody();
  if (cast<RankedTensorType>(t.getType()).getRank() != par.getNumDims())
    return std::nullopt;
  SmallVector<SmallVector<int64_t>> offsets;
  for (OpOperand &use : t.getUses()) {
    Operation *user = use.getOwner();
    if (!par->isAncestor(user) || isa<tensor::DimOp>(user))
      continue; // sizes (of subscript checks) read no element
    // Anywhere in the body (a lazy `?:` side, a loop): what matters is
    // which points read an element.
    auto extract = dyn_cast<tensor::ExtractOp>(user);
    if (!extract)
      return std::nullopt;
    SmallVector<int64_t> offset;
    for (auto [idx, arg] : llvm::zip(extract.getIndices(), body->getArguments())) {
      auto [base, c] = splitConstantOffset(idx);
      if (base != arg)
        return std::nullopt;
      offset.push_back(c);
    }
    if (!llvm::is_contained(offsets, offset))
      offsets.push_back(offset);
  }
  return offsets;
}

std::optional<ReverseSweep::ShiftPlan>
ReverseSweep::planShifts(IndexGenOp gen, Value input) {
  auto type = cast<RankedTensorType>(input.getType());
  unsigned rank = type.getRank();
  ShiftPlan plan;
  bool ok = true;
  gen.getRegion().walk([&](Operation *inner) {
    for (Value operand : inner->getOperands()) {
      if (operand != input || isa<tensor::DimOp>(inner))
        continue;
      auto extract = dyn_cast<tensor::ExtractOp>(inner);
      if (!extract || rank == 0) {
        ok = false;
        return;
      }
      SmallVector<unsigned> loops;
      SmallVector<int64_t> offset;
      for (Value idx : extract.getIndices()) {
        auto lc = loopPlusConstant(idx);
        if (!lc || llvm::is_contained(loops, lc->first)) {
          ok = false;
          return;
        }
        loops.push_back(lc->first);
        offset.push_back(lc->second);
      }
      if (plan.loops.empty())
        plan.loops = loops;
      ok &= plan.loops == loops;
      if (!llvm::is_contained(plan.offsets, offset))
        plan.offsets.push_back(offset);
    }
  });
  if (!ok || plan.offsets.empty())
    return std::nullopt;
  return plan;
}

FailureOr<Value> ReverseSweep::shiftedAdjoint(Operation *op, Value g,
                                              Value input,
                                              const ShiftPlan &plan) {
  auto gen = cast<IndexGenOp>(op);
  Location loc = op->getLoc();
  MLIRContext *ctx = b.getContext();
  auto inputType = cast<RankedTensorType>(input.getType());
  // The terms' shape: the extents of the plan's loops, static where an
  // operand of the op (or its result) gives one.
  SmallVector<Value> operands(gen.getInputs());
  operands.push_back(gen.getResult());
  SmallVector<AffineMap> maps = gen.getIndexingMapsArray();
  SmallVector<int64_t> shape;
  for (unsigned loop : plan.loops) {
    int64_t size = ShapedType::kDynamic;
    for (auto [v, m] : llvm::zip(operands, maps)) {
      auto t = dyn_cast<RankedTensorType>(v.getType());
      auto pos = m.getResultPosition(getAffineDimExpr(loop, ctx));
      if (t && pos && !t.isDynamicDim(*pos))
        size = t.getDimSize(*pos);
    }
    shape.push_back(size);
  }
  auto termType = RankedTensorType::get(shape, inputType.getElementType());
  SmallVector<Value> terms;
  for (ArrayRef<int64_t> offset : plan.offsets) {
    Shift shift{plan.loops, offset, termType};
    FailureOr<Value> term = gatherAdjoint(op, g, input, ~0u, Extremum(), &shift);
    if (failed(term))
      return failure();
    terms.push_back(*term);
  }
  // The terms' extents, read once before the sum; with no iteration there
  // is no term to read (and the adjoint is 0).
  SmallVector<Value> extents;
  Value none = ConstantOp::create(b, loc, b.getI64IntegerAttr(0));
  Value nonEmpty;
  for (unsigned d = 0; d < plan.loops.size(); ++d) {
    Value dim = tensor::DimOp::create(b, loc, terms.front(), d);
    extents.push_back(CastOp::create(b, loc, b.getI64Type(), dim));
    Value some = CmpOp::create(b, loc, b.getI1Type(), CmpPredicate::gt,
                               extents.back(), none);
    nonEmpty = nonEmpty ? AndOp::create(b, loc, nonEmpty, some).getResult() : some;
  }
  // dx[p] = sum over offsets c of (p - c an iteration ? T_c[p - c] : 0).
  AffineMap id = AffineMap::getMultiDimIdentityMap(inputType.getRank(), ctx);
  auto sumTerms = [&](OpBuilder &ib, Location) {
    Value v = buildIndexGen(
      ib, loc, inputType, ValueRange{input}, {id, id}, inputType.getRank(),
      [&](OpBuilder &bb, ValueRange) -> Value {
        Value zero = ConstantOp::create(bb, loc, bb.getI64IntegerAttr(0));
        Value one = ConstantOp::create(bb, loc, bb.getI64IntegerAttr(1));
        Value sum;
        for (auto [term, offset] : llvm::zip(terms, plan.offsets)) {
          Value inside;
          SmallVector<Value> at;
          for (auto [d, c] : llvm::enumerate(offset)) {
            Value i = SubOp::create(
                bb, loc, loopIndex(bb, loc, d),
                ConstantOp::create(bb, loc, bb.getI64IntegerAttr(c)));
            Value ok = AndOp::create(
                bb, loc,
                CmpOp::create(bb, loc, bb.getI1Type(), CmpPredicate::ge, i, zero),
                CmpOp::create(bb, loc, bb.getI1Type(), CmpPredicate::lt, i,
                              extents[d]));
            inside = inside ? AndOp::create(bb, loc, inside, ok).getResult() : ok;
            // Clamped, so that the read stays in range where it is unused.
            Value last = SubOp::create(bb, loc, extents[d], one);
            Value clamped = MaxOp::create(
                bb, loc, MinOp::create(bb, loc, i, last), zero);
            at.push_back(CastOp::create(bb, loc, bb.getIndexType(), clamped));
          }
          Value read = tensor::ExtractOp::create(bb, loc, term, at);
          Value part = keepWhere(bb, loc, read, inside);
          sum = sum ? AddOp::create(bb, loc, sum, part).getResult() : part;
        }
        return sum;
      });
    scf::YieldOp::create(ib, loc, v);
  };
  auto zeros = [&](OpBuilder &ib, Location) {
    scf::YieldOp::create(ib, loc, zerosLike(ib, loc, input));
  };
  return scf::IfOp::create(b, loc, nonEmpty, sumTerms, zeros).getResult(0);
}
