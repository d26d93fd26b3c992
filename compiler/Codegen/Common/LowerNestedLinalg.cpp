//===- LowerNestedLinalg.cpp - nested linalg.generic ops become loops --------===//
#include "compiler/Codegen/Common/Passes.h"

#include "mlir/Dialect/Affine/Utils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

namespace tdsl {
#define GEN_PASS_DEF_LOWERNESTEDLINALG
#include "compiler/Codegen/Common/Passes.h.inc"
} // namespace tdsl

using namespace mlir;

namespace {

/// The indices an affine map selects at `ivs` (any affine subscript:
/// x[k + 1], x[2 * k], not only loops and constants).
SmallVector<Value> apply(OpBuilder &b, Location loc, AffineMap map,
                         ArrayRef<Value> ivs) {
  SmallVector<Value> out;
  for (AffineExpr e : map.getResults())
    out.push_back(affine::expandAffineExpr(b, loc, e, ivs, {}));
  return out;
}

LogicalResult lowerToLoops(linalg::GenericOp op) {
  if (op.getNumDpsInits() != 1 || !op.hasPureTensorSemantics())
    return op.emitOpError("expected one tensor output");
  OpBuilder b(op);
  Location loc = op.getLoc();
  SmallVector<Range> ranges =
      cast<linalg::LinalgOp>(op.getOperation()).createLoopRanges(b, loc);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  OpOperand *init = op.getDpsInitOperand(0);
  AffineMap outMap = op.getMatchingIndexingMap(init);
  SmallVector<Value> ivs;
  SmallVector<scf::ForOp> loops;
  Value carried = init->get();
  for (Range &r : ranges) {
    Value ub = getValueOrCreateConstantIndexOp(b, loc, r.size);
    auto loop = scf::ForOp::create(b, loc, zero, ub, one, ValueRange{carried});
    if (!loops.empty())
      scf::YieldOp::create(b, loc, loop.getResults());
    loops.push_back(loop);
    ivs.push_back(loop.getInductionVar());
    carried = loop.getRegionIterArgs()[0];
    b.setInsertionPointToStart(loop.getBody());
  }
  Block &body = op.getRegion().front();
  IRMapping map;
  for (OpOperand *in : op.getDpsInputOperands()) {
    Value v = in->get();
    if (isa<RankedTensorType>(v.getType()))
      v = tensor::ExtractOp::create(b, loc, v,
                                    apply(b, loc, op.getMatchingIndexingMap(in), ivs));
    map.map(op.getMatchingBlockArgument(in), v);
  }
  SmallVector<Value> outIdx = apply(b, loc, outMap, ivs);
  map.map(op.getMatchingBlockArgument(init),
          tensor::ExtractOp::create(b, loc, carried, outIdx));
  for (Operation &inner : body.without_terminator()) {
    if (auto index = dyn_cast<linalg::IndexOp>(inner)) {
      map.map(index.getResult(), ivs[index.getDim()]);
      continue;
    }
    b.clone(inner, map);
  }
  // The yielded value may come from outside the body (a captured scalar).
  Value v = map.lookupOrDefault(body.getTerminator()->getOperand(0));
  Value updated = tensor::InsertOp::create(b, loc, v, carried, outIdx);
  // An op with no loops (a rank-0 fill) is its body, once.
  if (loops.empty()) {
    op.getResult(0).replaceAllUsesWith(updated);
    op.erase();
    return success();
  }
  scf::YieldOp::create(b, loc, updated);
  op.getResult(0).replaceAllUsesWith(loops.front().getResult(0));
  op.erase();
  return success();
}

/// An scf.forall on tensors as an scf.for nest carrying its shared outputs;
/// each tensor.parallel_insert_slice becomes a tensor.insert_slice.
LogicalResult serializeForall(RewriterBase &rw, scf::ForallOp op) {
  std::optional<SmallVector<OpFoldResult>> lbs = op.getLoopLowerBounds();
  std::optional<SmallVector<OpFoldResult>> ubs = op.getLoopUpperBounds();
  std::optional<SmallVector<OpFoldResult>> steps = op.getLoopSteps();
  if (!lbs || !ubs || !steps)
    return failure();
  Location loc = op.getLoc();
  rw.setInsertionPoint(op);
  SmallVector<scf::ForOp> loops;
  SmallVector<Value> ivs;
  ValueRange carried = op.getOutputs();
  for (unsigned d = 0; d < lbs->size(); ++d) {
    auto loop = scf::ForOp::create(
        rw, loc, getValueOrCreateConstantIndexOp(rw, loc, (*lbs)[d]),
        getValueOrCreateConstantIndexOp(rw, loc, (*ubs)[d]),
        getValueOrCreateConstantIndexOp(rw, loc, (*steps)[d]), carried);
    if (!loops.empty())
      scf::YieldOp::create(rw, loc, loop.getResults());
    loops.push_back(loop);
    ivs.push_back(loop.getInductionVar());
    carried = loop.getRegionIterArgs();
    rw.setInsertionPointToStart(loop.getBody());
  }
  IRMapping map;
  map.map(op.getInductionVars(), ivs);
  map.map(op.getRegionIterArgs(), carried);
  for (Operation &inner : op.getBody()->without_terminator())
    rw.clone(inner, map);
  SmallVector<Value> updated(carried.begin(), carried.end());
  for (Operation &yielding : op.getTerminator().getYieldingOps()) {
    auto insert = dyn_cast<tensor::ParallelInsertSliceOp>(yielding);
    if (!insert)
      return failure();
    auto dest = cast<BlockArgument>(insert.getDest());
    unsigned k = dest.getArgNumber() - op.getRank();
    updated[k] = tensor::InsertSliceOp::create(
        rw, loc, map.lookupOrDefault(insert.getSource()), updated[k],
        llvm::map_to_vector(insert.getMixedOffsets(), [&](OpFoldResult f) {
          return isa<Value>(f) ? OpFoldResult(map.lookupOrDefault(cast<Value>(f))) : f;
        }),
        llvm::map_to_vector(insert.getMixedSizes(), [&](OpFoldResult f) {
          return isa<Value>(f) ? OpFoldResult(map.lookupOrDefault(cast<Value>(f))) : f;
        }),
        llvm::map_to_vector(insert.getMixedStrides(), [&](OpFoldResult f) {
          return isa<Value>(f) ? OpFoldResult(map.lookupOrDefault(cast<Value>(f))) : f;
        }));
  }
  scf::YieldOp::create(rw, loc, updated);
  rw.replaceOp(op, loops.front().getResults());
  return success();
}

/// A kernel whose result is unused but whose body checks subscripts (it
/// may stop the program) would lose its operands to canonicalization, and
/// with them its loops' bounds; as loops, its checks stay and the rest is
/// dead code.
/// Whether nothing observes `op`'s results: each use is by a pure op
/// without regions whose results are unobserved in turn (the tensor.insert
/// of an update that nothing reads).
bool isUnobserved(Operation *op, unsigned depth = 0) {
  if (depth > 8)
    return false;
  for (Operation *user : op->getUsers())
    if (!isPure(user) || user->getNumRegions() ||
        user->hasTrait<OpTrait::IsTerminator>() ||
        !isUnobserved(user, depth + 1))
      return false;
  return true;
}

bool isUnusedWithChecks(linalg::LinalgOp op) {
  if (!op.hasPureTensorSemantics() || !isUnobserved(op))
    return false;
  // A run-time check: an scf.if marked tdsl.check (it calls tdsl_fatal).
  WalkResult r = op->walk([&](scf::IfOp check) {
    return check->hasAttr("tdsl.check") ? WalkResult::interrupt()
                                        : WalkResult::advance();
  });
  return r.wasInterrupted();
}

struct LowerNestedLinalgPass
    : tdsl::impl::LowerNestedLinalgBase<LowerNestedLinalgPass> {
  void runOnOperation() override {
    // Innermost first, so an op rewritten later holds only loops. Named
    // ops (a matrix product, a fill in a body) become generics first.
    SmallVector<linalg::LinalgOp> nested;
    getOperation().walk<WalkOrder::PostOrder>([&](linalg::LinalgOp op) {
      if (op->getParentOfType<linalg::LinalgOp>() || isUnusedWithChecks(op))
        nested.push_back(op);
    });
    IRRewriter rw(&getContext());
    for (linalg::LinalgOp op : nested) {
      auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
      if (!generic) {
        rw.setInsertionPoint(op);
        FailureOr<linalg::GenericOp> g = linalg::generalizeNamedOp(rw, op);
        if (failed(g)) {
          op->emitOpError("cannot be lowered to loops inside another kernel");
          return signalPassFailure();
        }
        generic = *g;
      }
      if (failed(lowerToLoops(generic)))
        return signalPassFailure();
    }
    // A parallel loop in a kernel's body (the reduction of a function
    // inlined there) runs serially: on the GPU it would be a kernel that
    // another kernel launches, on the CPU oneTBB inside oneTBB.
    SmallVector<scf::ForallOp> foralls;
    getOperation().walk<WalkOrder::PostOrder>([&](scf::ForallOp op) {
      if (op->getParentOfType<linalg::LinalgOp>())
        foralls.push_back(op);
    });
    for (scf::ForallOp op : foralls) {
      rw.setInsertionPoint(op);
      if (failed(serializeForall(rw, op))) {
        op->emitOpError("cannot run serially inside another kernel");
        return signalPassFailure();
      }
    }
    // A tensor.empty in a kernel's body (the start of a loop nest above, or
    // of a tensor the body builds) is one fresh buffer per iteration. CSE
    // would merge it with an equal tensor.empty outside (the kernel's own
    // output), and bufferization does not see conflicts across a linalg
    // region: iterations wrote into the kernel's output. An alloc_tensor is
    // never merged.
    SmallVector<tensor::EmptyOp> empties;
    getOperation().walk([&](tensor::EmptyOp op) {
      if (op->getParentOfType<linalg::LinalgOp>())
        empties.push_back(op);
    });
    for (tensor::EmptyOp op : empties) {
      OpBuilder b(op);
      op.replaceAllUsesWith(bufferization::AllocTensorOp::create(
                                b, op.getLoc(), op.getType(), op.getDynamicSizes())
                                .getResult());
      op.erase();
    }
    privatizeOuterWrites();
  }

  /// A tensor defined outside a kernel and updated in its body (`s = y;
  /// s[p] = ...` in a parallel body) is each iteration's own copy: one-shot
  /// bufferization analyses a body as if it ran once, and would update y's
  /// buffer in place, so later iterations read earlier ones' writes. Every
  /// such destination (of tensor.insert, insert_slice, a loop's initial
  /// value) becomes a copy made in the body.
  void privatizeOuterWrites() {
    auto kernelOf = [](Operation *op) -> Operation * {
      Operation *kernel = nullptr;
      for (Operation *p = op->getParentOp(); p; p = p->getParentOp())
        if (isa<linalg::LinalgOp, scf::ForallOp>(p))
          kernel = p; // the outermost
      return kernel;
    };
    SmallVector<OpOperand *> writes;
    getOperation().walk([&](Operation *op) {
      Operation *kernel = kernelOf(op);
      if (!kernel)
        return;
      auto outer = [&](Value v) {
        return isa<RankedTensorType>(v.getType()) &&
               !kernel->isAncestor(v.getParentBlock()->getParentOp());
      };
      if (auto dps = dyn_cast<DestinationStyleOpInterface>(op)) {
        for (OpOperand &init : dps.getDpsInitsMutable())
          if (outer(init.get()))
            writes.push_back(&init);
      } else if (auto loop = dyn_cast<LoopLikeOpInterface>(op)) {
        for (OpOperand &init : loop.getInitsMutable())
          if (outer(init.get()))
            writes.push_back(&init);
      }
    });
    for (OpOperand *init : writes) {
      OpBuilder b(init->getOwner());
      Value v = init->get();
      init->set(bufferization::AllocTensorOp::create(
          b, v.getLoc(), cast<RankedTensorType>(v.getType()), ValueRange{}, v));
    }
  }
};

} // namespace
