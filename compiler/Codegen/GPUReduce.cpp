//===- GPUReduce.cpp - whole-tensor reductions as GPU tree reductions -------===//
#include "compiler/Codegen/LoweringUtils.h"
#include "compiler/Codegen/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace tdsl {
#define GEN_PASS_DEF_GPUREDUCE
#define GEN_PASS_DEF_GPULOWERALLREDUCE
#include "compiler/Codegen/Passes.h.inc"
} // namespace tdsl

using namespace mlir;

namespace {

/// The combiner of a reduction body: the op that the yield returns, when it
/// combines the accumulator (the output block argument) with a value.
std::optional<std::pair<gpu::AllReduceOperation, ::tdsl::Combine>>
combinerOf(linalg::GenericOp op) {
  Block &body = op.getRegion().front();
  Value acc = body.getArguments().back();
  Operation *yielded = body.getTerminator()->getOperand(0).getDefiningOp();
  if (!yielded || yielded->getNumOperands() != 2 ||
      !llvm::is_contained(yielded->getOperands(), acc))
    return std::nullopt;
  using R = gpu::AllReduceOperation;
  using C = ::tdsl::Combine;
  if (isa<arith::AddFOp, arith::AddIOp>(yielded)) return std::make_pair(R::ADD, C::Add);
  if (isa<arith::MulFOp, arith::MulIOp>(yielded)) return std::make_pair(R::MUL, C::Mul);
  if (isa<arith::MaximumFOp>(yielded)) return std::make_pair(R::MAXIMUMF, C::Max);
  if (isa<arith::MinimumFOp>(yielded)) return std::make_pair(R::MINIMUMF, C::Min);
  if (isa<arith::MaxSIOp>(yielded)) return std::make_pair(R::MAXSI, C::Max);
  if (isa<arith::MinSIOp>(yielded)) return std::make_pair(R::MINSI, C::Min);
  return std::nullopt; // unsigned/other: the host keeps it
}

/// `a <kind> b` in arith, for the serial combine of the partials.
Value combine(OpBuilder &b, Location loc, Operation *like, Value a, Value v) {
  IRMapping map;
  Operation *clone = b.clone(*like, map);
  clone->setOperands({a, v});
  return clone->getResult(0);
}

struct GPUReducePass : ::tdsl::impl::GPUReduceBase<GPUReducePass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<linalg::GenericOp> candidates;
    getOperation().walk([&](linalg::GenericOp op) {
      if (op.hasPureBufferSemantics() && op.getNumLoops() > 0 &&
          op.getNumParallelLoops() == 0 && op.getNumDpsInits() == 1 &&
          cast<MemRefType>(op.getDpsInits()[0].getType()).getRank() == 0 &&
          !op->getParentOfType<scf::ForallOp>() &&
          !op->getParentOfType<scf::ParallelOp>() && combinerOf(op))
        candidates.push_back(op);
    });
    for (linalg::GenericOp op : candidates)
      rewrite(op);
  }

  void rewrite(linalg::GenericOp op) {
    auto [allReduceKind, combineKind] = *combinerOf(op);
    Location loc = op.getLoc();
    OpBuilder b(op);
    Value out = op.getDpsInits()[0];
    Type elemType = cast<MemRefType>(out.getType()).getElementType();

    // Loop extents (from the operands' shapes) and their product.
    SmallVector<Value> extents;
    Value total = arith::ConstantIndexOp::create(b, loc, 1);
    for (Range &r : cast<linalg::LinalgOp>(op.getOperation()).createLoopRanges(b, loc)) {
      Value e = getValueOrCreateConstantIndexOp(b, loc, r.size);
      extents.push_back(e);
      total = arith::MulIOp::create(b, loc, total, e);
    }
    Value numBlocks = arith::ConstantIndexOp::create(b, loc, blocks);
    Value numThreads = arith::ConstantIndexOp::create(b, loc, threads);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    auto partialsType = MemRefType::get({blocks}, elemType);
    Value partials = memref::AllocOp::create(b, loc, partialsType);

    auto launch = gpu::LaunchOp::create(b, loc, numBlocks, one, one, numThreads,
                                        one, one);
    OpBuilder kb = OpBuilder::atBlockBegin(&launch.getBody().front());
    Value tid = launch.getThreadIds().x, bid = launch.getBlockIds().x;
    Value gid = arith::AddIOp::create(
        kb, loc, arith::MulIOp::create(kb, loc, bid, numThreads), tid);
    Value stride = arith::MulIOp::create(kb, loc, numBlocks, numThreads);
    Value identity = ::tdsl::buildIdentity(kb, loc, elemType, combineKind);
    // buildIdentity makes a tdsl.constant; the kernel wants arith.
    auto cst = identity.getDefiningOp();
    Value init = arith::ConstantOp::create(
        kb, loc, cast<TypedAttr>(cst->getAttr("value")));
    cst->erase();
    auto loop = scf::ForOp::create(kb, loc, gid, total, stride, ValueRange{init});
    {
      OpBuilder lb = OpBuilder::atBlockBegin(loop.getBody());
      // Delinearize the element index, innermost loop fastest.
      unsigned n = extents.size();
      SmallVector<Value> idx(n);
      Value rest = loop.getInductionVar();
      for (unsigned d = n; d-- > 0;) {
        idx[d] = d == 0 ? rest : (Value)arith::RemUIOp::create(lb, loc, rest, extents[d]);
        if (d > 0)
          rest = arith::DivUIOp::create(lb, loc, rest, extents[d]);
      }
      IRMapping map;
      Block &body = op.getRegion().front();
      for (OpOperand *in : op.getDpsInputOperands()) {
        AffineMap m = op.getMatchingIndexingMap(in);
        SmallVector<Value> at;
        for (AffineExpr e : m.getResults()) {
          if (auto c = dyn_cast<AffineConstantExpr>(e))
            at.push_back(arith::ConstantIndexOp::create(lb, loc, c.getValue()));
          else
            at.push_back(idx[cast<AffineDimExpr>(e).getPosition()]);
        }
        Value v = isa<MemRefType>(in->get().getType())
                      ? (Value)memref::LoadOp::create(lb, loc, in->get(), at)
                      : in->get();
        map.map(op.getMatchingBlockArgument(in), v);
      }
      map.map(body.getArguments().back(), loop.getRegionIterArgs()[0]);
      for (Operation &inner : body.without_terminator()) {
        if (auto index = dyn_cast<linalg::IndexOp>(inner)) {
          map.map(index.getResult(), idx[index.getDim()]);
          continue;
        }
        lb.clone(inner, map);
      }
      scf::YieldOp::create(lb, loc, map.lookup(body.getTerminator()->getOperand(0)));
    }
    Value threadPartial = loop.getResult(0);
    Value blockPartial = gpu::AllReduceOp::create(
        kb, loc, threadPartial,
        gpu::AllReduceOperationAttr::get(&getContext(), allReduceKind),
        kb.getUnitAttr());
    Value first = arith::CmpIOp::create(kb, loc, arith::CmpIPredicate::eq, tid, zero);
    auto ifFirst = scf::IfOp::create(kb, loc, first, /*withElseRegion=*/false);
    {
      OpBuilder ib = OpBuilder::atBlockBegin(ifFirst.thenBlock());
      memref::StoreOp::create(ib, loc, blockPartial, partials, ValueRange{bid});
    }
    gpu::TerminatorOp::create(kb, loc);

    // Second pass, on the host, in block order: deterministic.
    Operation *combiner = op.getRegion().front().getTerminator()->getOperand(0).getDefiningOp();
    Value start = memref::LoadOp::create(b, loc, out, ValueRange{});
    auto fin = scf::ForOp::create(b, loc, zero, numBlocks, one, ValueRange{start});
    {
      OpBuilder fb = OpBuilder::atBlockBegin(fin.getBody());
      Value p = memref::LoadOp::create(fb, loc, partials, ValueRange{fin.getInductionVar()});
      scf::YieldOp::create(fb, loc, combine(fb, loc, combiner,
                                             fin.getRegionIterArgs()[0], p));
    }
    memref::StoreOp::create(b, loc, fin.getResult(0), out, ValueRange{});
    memref::DeallocOp::create(b, loc, partials);
    op.erase();
  }
};

struct GPULowerAllReducePass
    : ::tdsl::impl::GPULowerAllReduceBase<GPULowerAllReducePass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateGpuAllReducePatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
