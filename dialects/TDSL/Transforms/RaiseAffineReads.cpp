//===- RaiseAffineReads.cpp - Computed reads that inlining made affine ----===//
//
// Before a gradient is built, its function has every call inlined, and a
// read that the callee computed (`xp[n, c, s * i + di, s * j + dj]` of
// nn.conv2d_strided, whose stride `s` is a parameter) can be affine in the
// index_gen's loops once the caller's literal takes the parameter's place.
// Such a read becomes an input read through that map, as MLIRGen makes of
// `xp[n, c, 2 * i + di, ...]` written with the literal: the adjoint of an
// input is a gather over the window (InvertedAdjoint.cpp), that of a
// computed read one over the whole tensor, for every point.
//
// The rules are MLIRGen's for affine subscripts (MLIRGenIndex.cpp,
// `classify`): only reads that run at every point (in the body's block,
// not under a lazy `?:`), subscripts with no negative constant, and a
// plain loop only where the tensor already gives that loop its range. The
// largest value of each other subscript is checked before the op, with
// the message of the check it replaces, so that nothing is read out of
// range before the error.
//
//===----------------------------------------------------------------------===//
#include "dialects/TDSL/Transforms/ReverseMode.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace tdsl::ir;

/// `v` as an affine function of the loops of `gen` (its tdsl.index values,
/// through index/i64 casts, additions, subtractions and products by
/// constants), or null.
static AffineExpr asLoopExpr(Value v, IndexGenOp gen) {
  MLIRContext *ctx = gen.getContext();
  Operation *def = v.getDefiningOp();
  if (!def)
    return nullptr;
  IntegerAttr constant;
  if (matchPattern(v, m_Constant(&constant)))
    return getAffineConstantExpr(constant.getInt(), ctx);
  if (auto index = dyn_cast<IndexOp>(def))
    return index->getParentOfType<IndexGenOp>() == gen
               ? getAffineDimExpr(index.getDim(), ctx)
               : nullptr;
  // Between index and i64 only: both are 64 bits, so the value is kept.
  if (auto cast = dyn_cast<CastOp>(def)) {
    auto wide = [](Type t) { return t.isIndex() || t.isInteger(64); };
    return wide(cast.getInput().getType()) && wide(cast.getType())
               ? asLoopExpr(cast.getInput(), gen)
               : nullptr;
  }
  if (!isa<AddOp, SubOp, MulOp>(def) ||
      !def->getResult(0).getType().isIntOrIndex())
    return nullptr;
  AffineExpr lhs = asLoopExpr(def->getOperand(0), gen);
  AffineExpr rhs = asLoopExpr(def->getOperand(1), gen);
  if (!lhs || !rhs)
    return nullptr;
  if (isa<AddOp>(def))
    return lhs + rhs;
  if (isa<SubOp>(def))
    return lhs - rhs;
  // A product stays affine when one side is a constant.
  if (!isa<AffineConstantExpr>(lhs) && !isa<AffineConstantExpr>(rhs))
    return nullptr;
  return lhs * rhs;
}

/// Whether every constant of `e` (a sum of products, as MLIR simplifies
/// it) is at least 0: then so is its smallest value.
static bool nonNegative(AffineExpr e) {
  bool ok = true;
  e.walk([&](AffineExpr x) {
    if (auto c = dyn_cast<AffineConstantExpr>(x))
      ok &= c.getValue() >= 0;
  });
  return ok;
}

/// The check in `body` that subscript `index` is below a size: the assert
/// MLIRGen put before a computed read.
static cf::AssertOp findCheck(Block &body, Value index) {
  for (Operation *user : index.getUsers()) {
    auto cmp = dyn_cast<arith::CmpIOp>(user);
    if (!cmp || cmp->getBlock() != &body || cmp.getLhs() != index ||
        cmp.getPredicate() != arith::CmpIPredicate::ult)
      continue;
    for (Operation *u : cmp->getUsers())
      if (auto check = dyn_cast<cf::AssertOp>(u))
        return check;
  }
  return nullptr;
}

namespace {
/// The loops' last values (extent - 1) before `gen`, where an input gives
/// the loop its range, and whether any loop is empty.
struct LoopBounds {
  SmallVector<Value> last;
  Value empty;

  LoopBounds(OpBuilder &b, IndexGenOp gen) : last(gen.getNumLoops()) {
    Location loc = gen.getLoc();
    empty = arith::ConstantOp::create(b, loc, b.getBoolAttr(false));
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    auto maps = gen.getIndexingMapsArray();
    for (unsigned d = 0; d < gen.getNumLoops(); ++d)
      for (auto [input, map] : llvm::zip(gen.getInputs(), maps)) {
        auto pos = map.getResultPosition(b.getAffineDimExpr(d));
        if (!pos || !isa<RankedTensorType>(input.getType()))
          continue;
        Value extent = tensor::DimOp::create(b, loc, input, *pos);
        Value none = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                           extent, zero);
        empty = arith::OrIOp::create(b, loc, empty, none);
        last[d] = arith::SubIOp::create(b, loc, extent, one);
        break;
      }
  }

  /// The largest value of `e` (no negative constant) over the loops.
  Value largest(OpBuilder &b, Location loc, AffineExpr e) {
    if (auto d = dyn_cast<AffineDimExpr>(e))
      return last[d.getPosition()];
    if (auto c = dyn_cast<AffineConstantExpr>(e))
      return arith::ConstantIndexOp::create(b, loc, c.getValue());
    auto bin = cast<AffineBinaryOpExpr>(e);
    Value x = largest(b, loc, bin.getLHS()), y = largest(b, loc, bin.getRHS());
    if (e.getKind() == AffineExprKind::Add)
      return arith::AddIOp::create(b, loc, x, y);
    return arith::MulIOp::create(b, loc, x, y);
  }
};
} // namespace

/// The largest value of `e` (no negative constant) over `gen`'s loops,
/// where their extents are static.
static std::optional<int64_t> staticLargest(IndexGenOp gen, AffineExpr e) {
  if (auto c = dyn_cast<AffineConstantExpr>(e))
    return c.getValue();
  if (auto d = dyn_cast<AffineDimExpr>(e)) {
    for (auto [input, map] :
         llvm::zip(gen.getInputs(), gen.getIndexingMapsArray())) {
      auto type = dyn_cast<RankedTensorType>(input.getType());
      auto pos = map.getResultPosition(d);
      if (type && pos && !type.isDynamicDim(*pos))
        return type.getDimSize(*pos) - 1;
    }
    return std::nullopt;
  }
  auto bin = cast<AffineBinaryOpExpr>(e);
  std::optional<int64_t> x = staticLargest(gen, bin.getLHS());
  std::optional<int64_t> y = staticLargest(gen, bin.getRHS());
  if (!x || !y)
    return std::nullopt;
  return e.getKind() == AffineExprKind::Add ? *x + *y : *x * *y;
}

/// The map of `read`'s subscripts in `gen`'s loops when the rules of the
/// file comment allow an input read, or nothing.
static std::optional<AffineMap> affineRead(IndexGenOp gen,
                                           tensor::ExtractOp read) {
  auto maps = gen.getIndexingMapsArray();
  SmallVector<AffineExpr> subscripts;
  for (auto [position, index] : llvm::enumerate(read.getIndices())) {
    AffineExpr e = asLoopExpr(index, gen);
    if (!e || !nonNegative(e))
      return std::nullopt;
    if (auto d = dyn_cast<AffineDimExpr>(e)) {
      // A plain loop must already take its range from this dimension.
      bool carried = llvm::any_of(
          llvm::zip(gen.getInputs(), maps), [&](auto inputAndMap) {
            auto [input, map] = inputAndMap;
            return input == read.getTensor() &&
                   map.getResult(position) == e;
          });
      if (!carried)
        return std::nullopt;
    } else {
      // Its largest value is checked before the op: every loop it uses
      // needs an extent there, and the check it replaces its message.
      for (unsigned d = 0; d < gen.getNumLoops(); ++d)
        if (e.isFunctionOfDim(d) &&
            llvm::none_of(maps, [&](AffineMap m) {
              return m.getResultPosition(getAffineDimExpr(d, gen.getContext()));
            }))
          return std::nullopt;
      if (!findCheck(gen.getRegion().front(), index))
        return std::nullopt;
      // Out of range at static sizes: linalg's verifier would reject the
      // map, so the read stays computed and fails when it runs.
      auto type = cast<RankedTensorType>(read.getTensor().getType());
      std::optional<int64_t> top = staticLargest(gen, e);
      if (top && !type.isDynamicDim(position) &&
          *top >= type.getDimSize(position))
        return std::nullopt;
    }
    subscripts.push_back(e);
  }
  return AffineMap::get(gen.getNumLoops(), 0, subscripts, gen.getContext());
}

/// The check of the largest value of each raised subscript but plain loops
/// (whose range is the dimension's), with the message of the check in the
/// body it replaces.
static void checkBefore(OpBuilder &b, IndexGenOp gen, LoopBounds &bounds,
                        tensor::ExtractOp read, AffineMap map) {
  for (auto [position, e] : llvm::enumerate(map.getResults())) {
    if (isa<AffineDimExpr>(e))
      continue;
    cf::AssertOp check =
        findCheck(gen.getRegion().front(), read.getIndices()[position]);
    Location loc = check.getLoc();
    Value index = bounds.largest(b, loc, e);
    Value size = tensor::DimOp::create(b, loc, read.getTensor(), position);
    Value inRange =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, index, size);
    Value ok = arith::OrIOp::create(b, loc, inRange, bounds.empty);
    cf::AssertOp::create(b, loc, ok, check.getMsg());
  }
}

void tdsl::ir::raiseAffineReads(func::FuncOp fn) {
  fn.walk([&](IndexGenOp gen) {
    Block &body = gen.getRegion().front();
    auto outside = [&](Value v) {
      return !gen->isAncestor(v.getParentBlock()->getParentOp());
    };
    SmallVector<std::pair<tensor::ExtractOp, AffineMap>> reads;
    for (Operation &op : body)
      if (auto read = dyn_cast<tensor::ExtractOp>(&op))
        if (!read.getIndices().empty() && outside(read.getTensor()))
          if (std::optional<AffineMap> map = affineRead(gen, read))
            reads.push_back({read, *map});
    if (reads.empty())
      return;
    OpBuilder b(gen);
    LoopBounds bounds(b, gen);
    for (auto [read, map] : reads) {
      checkBefore(b, gen, bounds, read, map);
      unsigned position = gen.getInputs().size();
      SmallVector<Attribute> maps(gen.getIndexingMaps().getValue());
      maps.insert(maps.begin() + position, AffineMapAttr::get(map));
      gen.getInputsMutable().append(read.getTensor());
      gen.setIndexingMapsAttr(b.getArrayAttr(maps));
      BlockArgument element =
          body.insertArgument(position, read.getType(), read.getLoc());
      read.replaceAllUsesWith(element);
      read.erase();
    }
    // The sizes the checks in the body read are no reads of the tensor's
    // elements (the adjoint would gather the whole tensor for them).
    for (Operation &op : llvm::make_early_inc_range(body)) {
      auto dim = dyn_cast<tensor::DimOp>(&op);
      if (!dim || !outside(dim.getSource()))
        continue;
      Operation *index = dim.getIndex().getDefiningOp();
      if (!outside(dim.getIndex())) {
        if (!index || !index->hasTrait<OpTrait::ConstantLike>())
          continue;
        index->moveBefore(gen); // still before its other uses in the body
      }
      dim->moveBefore(gen);
    }
  });
}
