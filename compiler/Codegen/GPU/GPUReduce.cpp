//===- GPUReduce.cpp - whole-tensor reductions as GPU tree reductions -------===//
#include "compiler/Codegen/Common/Combine.h"
#include "compiler/Codegen/GPU/GPUKernelForms.h"
#include "compiler/Codegen/GPU/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
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
#include "compiler/Codegen/GPU/Passes.h.inc"
} // namespace tdsl

using namespace mlir;

namespace {

using tdsl::identityOf;
using tdsl::reducedOutput;

/// The combiner of a reduction body (tdsl::combinerOp) as a block-wide
/// all-reduce and a combine kind.
std::optional<std::pair<gpu::AllReduceOperation, tdsl::Combine>>
combinerOf(linalg::GenericOp op) {
  Operation *combiner = tdsl::combinerOp(op);
  if (!combiner)
    return std::nullopt;
  // Warp shuffles move 32-bit words (64-bit values in two): f16, bf16, i8,
  // i16 and i1 reductions stay on the host or in one thread per output.
  Type elem = combiner->getResult(0).getType();
  if (!elem.isIntOrFloat() ||
      (elem.getIntOrFloatBitWidth() != 32 && elem.getIntOrFloatBitWidth() != 64))
    return std::nullopt;
  using R = gpu::AllReduceOperation;
  using C = tdsl::Combine;
  C kind = tdsl::combineKindOf(combiner);
  bool isFloat = isa<FloatType>(elem);
  switch (kind) {
  case C::Add: return std::make_pair(R::ADD, kind);
  case C::Mul: return std::make_pair(R::MUL, kind);
  case C::Max: return std::make_pair(isFloat ? R::MAXIMUMF : R::MAXSI, kind);
  case C::Min: return std::make_pair(isFloat ? R::MINIMUMF : R::MINSI, kind);
  }
  llvm_unreachable("unknown combiner");
}

/// The value of `partial` combined over the block's threads, as a tree.
Value blockTree(OpBuilder &b, Location loc, Value partial, gpu::AllReduceOperation kind) {
  return gpu::AllReduceOp::create(
      b, loc, partial, gpu::AllReduceOperationAttr::get(b.getContext(), kind),
      b.getUnitAttr());
}

/// `a <kind> b` in arith, for the serial combine of the partials.
Value combine(OpBuilder &b, Location loc, Operation *like, Value a, Value v) {
  IRMapping map;
  Operation *clone = b.clone(*like, map);
  clone->setOperands({a, v});
  return clone->getResult(0);
}

/// A thread's serial share of a reduction: the op's body over the linear
/// iterations start, start + step, ... < end of the loops `extents` (the
/// entries of `dims` that are null; the others are fixed), from `init`.
Value reduceShare(OpBuilder &b, Location loc, linalg::GenericOp op, Value start,
                  Value end, Value step, ArrayRef<Value> extents,
                  SmallVector<Value> dims, Value init) {
  auto loop = scf::ForOp::create(b, loc, start, end, step, ValueRange{init});
  OpBuilder lb = OpBuilder::atBlockBegin(loop.getBody());
  // Delinearize the iteration, innermost loop fastest.
  Value rest = loop.getInductionVar();
  SmallVector<unsigned> free;
  for (unsigned d = 0; d < dims.size(); ++d)
    if (!dims[d])
      free.push_back(d);
  for (unsigned k = free.size(); k-- > 0;) {
    unsigned d = free[k];
    dims[d] = k == 0 ? rest : (Value)arith::RemUIOp::create(lb, loc, rest, extents[d]);
    if (k > 0)
      rest = arith::DivUIOp::create(lb, loc, rest, extents[d]);
  }
  IRMapping map;
  Block &body = op.getRegion().front();
  for (OpOperand *in : op.getDpsInputOperands()) {
    AffineMap m = op.getMatchingIndexingMap(in);
    SmallVector<Value> at;
    for (AffineExpr e : m.getResults())
      at.push_back(affine::AffineApplyOp::create(
          lb, loc, AffineMap::get(m.getNumDims(), 0, e), dims));
    Value v = isa<MemRefType>(in->get().getType())
                  ? (Value)memref::LoadOp::create(lb, loc, in->get(), at)
                  : in->get();
    map.map(op.getMatchingBlockArgument(in), v);
  }
  unsigned r = *reducedOutput(op);
  auto outputAt = [&](unsigned k) {
    OpOperand *init = op.getDpsInitOperand(k);
    AffineMap m = op.getMatchingIndexingMap(init);
    SmallVector<Value> at;
    for (AffineExpr e : m.getResults())
      at.push_back(dims[cast<AffineDimExpr>(e).getPosition()]);
    return at;
  };
  for (unsigned k = 0; k < op.getNumDpsInits(); ++k) {
    BlockArgument arg = op.getMatchingBlockArgument(op.getDpsInitOperand(k));
    if (k == r)
      map.map(arg, loop.getRegionIterArgs()[0]);
    else if (!arg.use_empty())
      map.map(arg, memref::LoadOp::create(lb, loc, op.getDpsInits()[k], outputAt(k)));
  }
  for (Operation &inner : body.without_terminator()) {
    if (auto index = dyn_cast<linalg::IndexOp>(inner)) {
      map.map(index.getResult(), dims[index.getDim()]);
      continue;
    }
    lb.clone(inner, map);
  }
  // Outputs indexed by every loop are written once per iteration.
  for (unsigned k = 0; k < op.getNumDpsInits(); ++k)
    if (k != r)
      memref::StoreOp::create(lb, loc, map.lookupOrDefault(body.getTerminator()->getOperand(k)),
                              op.getDpsInits()[k], outputAt(k));
  scf::YieldOp::create(lb, loc, map.lookupOrDefault(body.getTerminator()->getOperand(r)));
  return loop.getResult(0);
}

} // namespace

bool tdsl::isRowReduction(linalg::LinalgOp op) {
  auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
  if (!generic || op.getNumParallelLoops() == 0 ||
      op.getNumReductionLoops() == 0 || isStagedTileKernel(op) ||
      !combinerOf(generic))
    return false;
  return indexedByParallelLoops(op, *reducedOutput(generic));
}

namespace {

struct GPUReducePass : tdsl::impl::GPUReduceBase<GPUReducePass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<linalg::GenericOp> candidates, rows;
    getOperation().walk([&](linalg::GenericOp op) {
      if (op.hasPureBufferSemantics() && tdsl::isRowReduction(op) &&
          !op->getParentOfType<gpu::LaunchOp>() &&
          !op->getParentOfType<scf::ForallOp>() &&
          !op->getParentOfType<scf::ParallelOp>() &&
          !op->getParentOfType<linalg::LinalgOp>())
        rows.push_back(op);
      if (op.hasPureBufferSemantics() && op.getNumLoops() > 0 &&
          op.getNumParallelLoops() == 0 && combinerOf(op) &&
          cast<MemRefType>(op.getDpsInits()[*reducedOutput(op)].getType())
                  .getRank() == 0 &&
          !op->getParentOfType<scf::ForallOp>() &&
          !op->getParentOfType<scf::ParallelOp>() &&
          !op->getParentOfType<gpu::LaunchOp>() &&
          !op->getParentOfType<linalg::LinalgOp>() && combinerOf(op))
        candidates.push_back(op);
    });
    for (linalg::GenericOp op : candidates)
      rewrite(op);
    for (linalg::GenericOp op : rows)
      rewriteRows(op);
  }

  /// A block per output, its threads reducing a strided share each, then a
  /// tree (gpu.all_reduce); thread 0 combines with the output's initial
  /// value. Short rows get fewer threads (a multiple of a warp).
  void rewriteRows(linalg::GenericOp op) {
    auto [allReduceKind, combineKind] = *combinerOf(op);
    unsigned r = *reducedOutput(op);
    Location loc = op.getLoc();
    std::optional<Value> fill = tdsl::takeInitFill(op, r);
    OpBuilder b(op);
    Value out = op.getDpsInits()[r];
    Type elemType = getElementTypeOrSelf(out.getType());
    auto linalgOp = cast<linalg::LinalgOp>(op.getOperation());
    SmallVector<Value> extents;
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value rows = one, total = one;
    int64_t staticTotal = 1;
    SmallVector<int64_t> ranges = linalgOp.getStaticLoopRanges();
    auto iters = op.getIteratorTypesArray();
    for (auto [d, r] : llvm::enumerate(linalgOp.createLoopRanges(b, loc))) {
      Value e = getValueOrCreateConstantIndexOp(b, loc, r.size);
      extents.push_back(e);
      if (iters[d] == utils::IteratorType::parallel) {
        rows = arith::MulIOp::create(b, loc, rows, e);
      } else {
        total = arith::MulIOp::create(b, loc, total, e);
        staticTotal = ShapedType::isDynamic(ranges[d]) || staticTotal < 0
                          ? -1
                          : staticTotal * ranges[d];
      }
    }
    int64_t n = threads;
    if (staticTotal >= 0)
      n = std::clamp<int64_t>(llvm::alignTo(staticTotal, 32), 32, threads);
    Value numThreads = arith::ConstantIndexOp::create(b, loc, n);
    auto launch = gpu::LaunchOp::create(b, loc, rows, one, one, numThreads, one, one);
    OpBuilder kb = OpBuilder::atBlockBegin(&launch.getBody().front());
    Value tid = launch.getThreadIds().x;
    // This block's output: the parallel loops, innermost fastest.
    SmallVector<Value> dims(extents.size());
    Value rest = launch.getBlockIds().x;
    for (unsigned d = extents.size(); d-- > 0;) {
      if (iters[d] != utils::IteratorType::parallel)
        continue;
      dims[d] = arith::RemUIOp::create(kb, loc, rest, extents[d]);
      rest = arith::DivUIOp::create(kb, loc, rest, extents[d]);
    }
    Value init = arith::ConstantOp::create(kb, loc, identityOf(elemType, combineKind));
    Value threadPartial =
        reduceShare(kb, loc, op, tid, total, numThreads, extents, dims, init);
    Value rowValue = blockTree(kb, loc, threadPartial, allReduceKind);
    Value first = arith::CmpIOp::create(kb, loc, arith::CmpIPredicate::eq, tid, zero);
    auto ifFirst = scf::IfOp::create(kb, loc, first, /*withElseRegion=*/false);
    {
      OpBuilder ib = ifFirst.getThenBodyBuilder();
      SmallVector<Value> at;
      for (AffineExpr e : op.getMatchingIndexingMap(op.getDpsInitOperand(r)).getResults())
        at.push_back(dims[cast<AffineDimExpr>(e).getPosition()]);
      Value start = fill ? *fill : (Value)memref::LoadOp::create(ib, loc, out, at);
      Operation *combiner =
          op.getRegion().front().getTerminator()->getOperand(r).getDefiningOp();
      memref::StoreOp::create(ib, loc, combine(ib, loc, combiner, start, rowValue),
                              out, at);
    }
    gpu::TerminatorOp::create(kb, loc);
    op.erase();
  }

  void rewrite(linalg::GenericOp op) {
    auto [allReduceKind, combineKind] = *combinerOf(op);
    unsigned r = *reducedOutput(op); // others: element-wise, fused in
    Location loc = op.getLoc();
    OpBuilder b(op);
    Value out = op.getDpsInits()[r];
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
    Value init = arith::ConstantOp::create(kb, loc, identityOf(elemType, combineKind));
    SmallVector<Value> dims(extents.size());
    Value threadPartial =
        reduceShare(kb, loc, op, gid, total, stride, extents, dims, init);
    Value blockPartial = blockTree(kb, loc, threadPartial, allReduceKind);
    Value first = arith::CmpIOp::create(kb, loc, arith::CmpIPredicate::eq, tid, zero);
    auto ifFirst = scf::IfOp::create(kb, loc, first, /*withElseRegion=*/false);
    {
      OpBuilder ib = OpBuilder::atBlockBegin(ifFirst.thenBlock());
      memref::StoreOp::create(ib, loc, blockPartial, partials, ValueRange{bid});
    }
    gpu::TerminatorOp::create(kb, loc);

    // Second pass, on the host, in block order: deterministic.
    Operation *combiner = op.getRegion().front().getTerminator()->getOperand(r).getDefiningOp();
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

} // namespace
