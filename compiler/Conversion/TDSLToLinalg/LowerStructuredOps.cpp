//===- LowerStructuredOps.cpp - index_gen/parallel_for/matmul to linalg ---===//
//
// The region-carrying ops move their bodies into linalg.generic or scf ops
// unchanged; the scalar tdsl ops inside are lowered afterwards by the type
// conversion in ConvertTDSLToLinalg.cpp, together with every other leaf op.
//
//===----------------------------------------------------------------------===//
#include "compiler/Conversion/TDSLToLinalg/LowerStructuredOps.h"
#include "compiler/Codegen/Common/KernelInfo.h"
#include "dialects/TDSL/IR/TDSLOps.h"

#include "mlir/Dialect/Affine/Utils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
namespace t = tdsl::ir;

/// Reductions split into this many chunks, whatever the thread count, so a
/// floating-point sum is the same with 1 or N threads.
static constexpr int64_t kReductionChunks = 256;

Value (tdsl::buildIdentity)(OpBuilder &b, Location loc, Type type, tdsl::Combine kind) {
  TypedAttr attr;
  if (auto ft = dyn_cast<FloatType>(type)) {
    const llvm::fltSemantics &sem = ft.getFloatSemantics();
    switch (kind) {
    case tdsl::Combine::Add: attr = b.getFloatAttr(type, 0.0); break;
    case tdsl::Combine::Mul: attr = b.getFloatAttr(type, 1.0); break;
    case tdsl::Combine::Max: attr = FloatAttr::get(type, llvm::APFloat::getInf(sem, true)); break;
    case tdsl::Combine::Min: attr = FloatAttr::get(type, llvm::APFloat::getInf(sem, false)); break;
    }
  } else {
    auto it = cast<IntegerType>(type);
    unsigned w = it.getWidth();
    bool isUnsigned = it.isUnsigned() || w == 1;
    llvm::APInt v;
    switch (kind) {
    case tdsl::Combine::Add: v = llvm::APInt(w, 0); break;
    case tdsl::Combine::Mul: v = llvm::APInt(w, 1); break;
    case tdsl::Combine::Max:
      v = isUnsigned ? llvm::APInt::getMinValue(w) : llvm::APInt::getSignedMinValue(w);
      break;
    case tdsl::Combine::Min:
      v = isUnsigned ? llvm::APInt::getMaxValue(w) : llvm::APInt::getSignedMaxValue(w);
      break;
    }
    attr = IntegerAttr::get(type, v);
  }
  return t::ConstantOp::create(b, loc, attr);
}

Value (tdsl::buildCombine)(OpBuilder &b, Location loc, tdsl::Combine kind, Value acc,
                         Value v) {
  Type type = acc.getType();
  switch (kind) {
  case tdsl::Combine::Add: return t::AddOp::create(b, loc, type, acc, v);
  case tdsl::Combine::Mul: return t::MulOp::create(b, loc, type, acc, v);
  case tdsl::Combine::Max: return t::MaxOp::create(b, loc, type, acc, v);
  case tdsl::Combine::Min: return t::MinOp::create(b, loc, type, acc, v);
  }
  return {};
}

/// The reduction an index_gen's combiner names, if any.
static std::optional<tdsl::Combine> combineOf(t::CombinerKind kind) {
  switch (kind) {
  case t::CombinerKind::none: return std::nullopt;
  case t::CombinerKind::sum: return tdsl::Combine::Add;
  case t::CombinerKind::max: return tdsl::Combine::Max;
  case t::CombinerKind::min: return tdsl::Combine::Min;
  }
  return std::nullopt;
}

/// A run-time check (turned into a located error by convert-tdsl-to-linalg)
/// that the inputs of an index_gen agree on the extent of each loop their
/// maps read directly; Sema proves static extents equal, not run-time ones.
static void checkLoopExtents(OpBuilder &b, Location loc, t::IndexGenOp op) {
  auto maps = op.getIndexingMapsArray();
  unsigned numLoops = op.getNumLoops();
  for (unsigned d = 0; d < numLoops; ++d) {
    Value first;
    for (auto [input, map] : llvm::zip(op.getInputs(), maps)) {
      auto tt = dyn_cast<RankedTensorType>(input.getType());
      if (!tt)
        continue;
      for (unsigned r = 0; r < map.getNumResults(); ++r) {
        if (map.getResult(r) != b.getAffineDimExpr(d))
          continue;
        Value size = tensor::DimOp::create(b, loc, input, r);
        if (!first) {
          first = size;
          continue;
        }
        Value same = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                           first, size);
        cf::AssertOp::create(b, loc, same,
                             "an index variable ranges over tensors of "
                             "different extents (dimension " +
                                 std::to_string(r) + " of an operand)");
      }
    }
  }
}

/// The extent of loop `dim` of an index_gen: the size of the first input
/// dimension its maps read with exactly that loop.
static Value loopExtent(OpBuilder &b, Location loc, t::IndexGenOp op,
                        unsigned dim) {
  auto maps = op.getIndexingMapsArray();
  for (auto [input, map] : llvm::zip(op.getInputs(), maps)) {
    auto tt = dyn_cast<RankedTensorType>(input.getType());
    if (!tt)
      continue;
    for (unsigned r = 0; r < map.getNumResults(); ++r)
      if (map.getResult(r) == b.getAffineDimExpr(dim))
        return tensor::DimOp::create(b, loc, input, r);
  }
  return {};
}

/// The result of an index_gen as a tensor (rank 0 for a scalar result) and
/// its initial value: empty, or the combiner's identity for a reduction.
struct IndexGenOutput {
  RankedTensorType type;
  Type elemType;
  bool scalar;
  std::optional<tdsl::Combine> combine;
  Value init;
};

/// Builds the output of `op`; `extentOf` gives the size of a loop (null if
/// unknown).
static FailureOr<IndexGenOutput>
buildIndexGenOutput(IRRewriter &rw, t::IndexGenOp op,
                    function_ref<Value(unsigned)> extentOf) {
  Location loc = op.getLoc();
  IndexGenOutput out;
  auto resultTensor = dyn_cast<RankedTensorType>(op.getType());
  out.scalar = !resultTensor;
  out.elemType = resultTensor ? resultTensor.getElementType() : op.getType();
  out.type = resultTensor ? resultTensor : RankedTensorType::get({}, out.elemType);
  AffineMap outMap = op.getIndexingMapsArray().back();
  SmallVector<Value> dynSizes;
  for (unsigned r = 0; r < outMap.getNumResults(); ++r) {
    if (!out.type.isDynamicDim(r))
      continue;
    unsigned loop = cast<AffineDimExpr>(outMap.getResult(r)).getPosition();
    Value size = extentOf(loop);
    if (!size)
      return op.emitOpError("cannot find the extent of loop ") << loop;
    dynSizes.push_back(size);
  }
  out.init = tensor::EmptyOp::create(rw, loc, out.type, dynSizes);
  out.combine = combineOf(op.getCombiner());
  if (out.combine) {
    Value id = tdsl::buildIdentity(rw, loc, out.elemType, *out.combine);
    out.init = linalg::FillOp::create(rw, loc, TypeRange{out.type},
                                      ValueRange{id}, ValueRange{out.init})
                   .getResult(0);
  }
  return out;
}

static LogicalResult lowerIndexGen(IRRewriter &rw, t::IndexGenOp op) {
  Location loc = op.getLoc();
  rw.setInsertionPoint(op);
  checkLoopExtents(rw, loc, op);
  FailureOr<IndexGenOutput> out = buildIndexGenOutput(
      rw, op, [&](unsigned loop) { return loopExtent(rw, loc, op, loop); });
  if (failed(out))
    return failure();
  RankedTensorType outType = out->type;
  Type elemType = out->elemType;
  std::optional<tdsl::Combine> combine = out->combine;
  Value init = out->init;
  auto maps = op.getIndexingMapsArray();

  SmallVector<utils::IteratorType> iters;
  for (t::IteratorType it : op.getIteratorTypesArray())
    iters.push_back(it == t::IteratorType::parallel ? utils::IteratorType::parallel
                                                    : utils::IteratorType::reduction);
  auto generic = linalg::GenericOp::create(rw, loc, TypeRange{outType},
                                           op.getInputs(), ValueRange{init},
                                           maps, iters, "", "");
  generic->setLoc(tdsl::kernelLoc(op, "index_gen"));
  // An update of a slice (`out[n, c, i + p, j + p] = x[n, c, i, j]`) that
  // only copies is folded into its insert_slice, and bufferized a copy
  // that tdsl-lower-strided-copies times: under the statement's name.
  for (Operation *user : op->getUsers())
    if (auto insert = dyn_cast<tensor::InsertSliceOp>(user))
      if (insert.getSource() == op->getResult(0))
        insert->setLoc(generic->getLoc());

  // New body: one argument per input element plus the accumulator.
  Block &old = op.getRegion().front();
  SmallVector<Type> argTypes(old.getArgumentTypes());
  argTypes.push_back(elemType);
  SmallVector<Location> argLocs(argTypes.size(), loc);
  Block *body = rw.createBlock(&generic.getRegion(), {}, argTypes, argLocs);
  rw.mergeBlocks(&old, body, body->getArguments().drop_back());

  // tdsl.index -> linalg.index
  SmallVector<t::IndexOp> indexOps;
  body->walk([&](t::IndexOp idx) { indexOps.push_back(idx); });
  for (t::IndexOp idx : indexOps) {
    rw.setInsertionPoint(idx);
    rw.replaceOpWithNewOp<linalg::IndexOp>(idx, idx.getDim());
  }
  auto yield = cast<t::YieldOp>(body->getTerminator());
  rw.setInsertionPoint(yield);
  Value v = yield.getValues().front();
  if (combine)
    v = tdsl::buildCombine(rw, loc, *combine, body->getArguments().back(), v);
  rw.replaceOpWithNewOp<linalg::YieldOp>(yield, v);

  rw.setInsertionPointAfter(generic);
  Value result = generic.getResult(0);
  if (out->scalar)
    result = tensor::ExtractOp::create(rw, loc, result, ValueRange{});
  rw.replaceOp(op, result);
  return success();
}

/// Inside the body of another loop, an index_gen becomes a serial scf.for
/// nest: a linalg.generic nested in a linalg.generic body would let CSE merge
/// the inner and outer linalg.index ops, which read different loops.
static LogicalResult lowerIndexGenToLoops(IRRewriter &rw, t::IndexGenOp op) {
  Location loc = op.getLoc();
  rw.setInsertionPoint(op);
  checkLoopExtents(rw, loc, op);
  unsigned numLoops = op.getNumLoops();
  SmallVector<Value> extents;
  for (unsigned d = 0; d < numLoops; ++d) {
    Value e = loopExtent(rw, loc, op, d);
    if (!e)
      return op.emitOpError("cannot find the extent of loop ") << d;
    extents.push_back(e);
  }
  FailureOr<IndexGenOutput> out =
      buildIndexGenOutput(rw, op, [&](unsigned loop) { return extents[loop]; });
  if (failed(out))
    return failure();
  std::optional<tdsl::Combine> combine = out->combine;
  Value init = out->init;
  auto maps = op.getIndexingMapsArray();
  AffineMap outMap = maps.back();
  Value zero = arith::ConstantIndexOp::create(rw, loc, 0);
  Value one = arith::ConstantIndexOp::create(rw, loc, 1);
  SmallVector<Value> ivs;
  SmallVector<scf::ForOp> loops;
  Value carried = init;
  for (unsigned d = 0; d < numLoops; ++d) {
    auto loop = scf::ForOp::create(rw, loc, zero, extents[d], one, ValueRange{carried});
    if (!loops.empty())
      scf::YieldOp::create(rw, loc, loop.getResults());
    loops.push_back(loop);
    ivs.push_back(loop.getInductionVar());
    carried = loop.getRegionIterArgs()[0];
    rw.setInsertionPointToStart(loop.getBody());
  }
  // Any affine subscript (x[k + 1], x[2 * k]), not only loops and constants.
  auto eval = [&](AffineMap m) {
    SmallVector<Value> idx;
    for (AffineExpr e : m.getResults())
      idx.push_back(affine::expandAffineExpr(rw, loc, e, ivs, {}));
    return idx;
  };
  SmallVector<Value> args;
  for (auto [input, map] : llvm::zip(op.getInputs(), maps))
    args.push_back(isa<RankedTensorType>(input.getType())
                       ? (Value)tensor::ExtractOp::create(rw, loc, input, eval(map))
                       : input);
  Block &old = op.getRegion().front();
  SmallVector<t::IndexOp> indexOps;
  old.walk([&](t::IndexOp idx) { indexOps.push_back(idx); });
  for (t::IndexOp idx : indexOps)
    rw.replaceOp(idx, ivs[idx.getDim()]);
  Block *inner = loops.back().getBody();
  rw.mergeBlocks(&old, inner, args);
  auto yield = cast<t::YieldOp>(inner->back());
  rw.setInsertionPoint(yield);
  SmallVector<Value> outIdx = eval(outMap);
  Value v = yield.getValues().front();
  if (combine) {
    Value acc = tensor::ExtractOp::create(rw, loc, carried, outIdx);
    v = tdsl::buildCombine(rw, loc, *combine, acc, v);
  }
  Value updated = tensor::InsertOp::create(rw, loc, v, carried, outIdx);
  rw.replaceOpWithNewOp<scf::YieldOp>(yield, updated);
  rw.setInsertionPointAfter(loops.front());
  Value result = loops.front().getResult(0);
  if (out->scalar)
    result = tensor::ExtractOp::create(rw, loc, result, ValueRange{});
  rw.replaceOp(op, result);
  return success();
}

/// The map form becomes a linalg.generic with no inputs: tiling and
/// vectorization then treat it like any element-wise op.
static LogicalResult lowerParallelMap(IRRewriter &rw, t::ParallelForOp op) {
  Location loc = op.getLoc();
  rw.setInsertionPoint(op);
  auto outType = cast<RankedTensorType>(op.getType());
  unsigned n = op.getNumDims();
  SmallVector<Value> extents, dynSizes;
  for (unsigned d = 0; d < n; ++d) {
    Value ext = arith::SubIOp::create(rw, loc, op.getUpperBounds()[d],
                                      op.getLowerBounds()[d]);
    // A reversed range is empty (as in the reducing form), never negative.
    ext = arith::MaxSIOp::create(rw, loc, ext,
                                 arith::ConstantIndexOp::create(rw, loc, 0));
    extents.push_back(ext);
    if (outType.isDynamicDim(d))
      dynSizes.push_back(ext);
  }
  Value init = tensor::EmptyOp::create(rw, loc, outType, dynSizes);
  SmallVector<utils::IteratorType> iters(n, utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      rw, loc, TypeRange{outType}, ValueRange{}, ValueRange{init},
      ArrayRef<AffineMap>{rw.getMultiDimIdentityMap(n)}, iters, "", "");
  generic->setLoc(tdsl::kernelLoc(op, "parallel_for"));
  Block *body = rw.createBlock(&generic.getRegion(), {},
                               {outType.getElementType()}, {loc});
  SmallVector<Value> ivs;
  for (unsigned d = 0; d < n; ++d) {
    Value i = linalg::IndexOp::create(rw, loc, d);
    ivs.push_back(arith::AddIOp::create(rw, loc, i, op.getLowerBounds()[d]));
  }
  Block &old = op.getRegion().front();
  rw.mergeBlocks(&old, body, ivs);
  auto yield = cast<t::YieldOp>(body->getTerminator());
  rw.setInsertionPoint(yield);
  rw.replaceOpWithNewOp<linalg::YieldOp>(yield, yield.getValues());
  rw.replaceOp(op, generic.getResult(0));
  return success();
}

/// The reducing form: a parallel scf.forall over kReductionChunks chunks of
/// the linearized range, each reduced serially into one partial result, then
/// a serial combine of the partials in chunk order.
/// The combination a reducing parallel_for names.
static std::optional<tdsl::Combine> combineOf(t::ReduceKind kind) {
  switch (kind) {
  case t::ReduceKind::add: return tdsl::Combine::Add;
  case t::ReduceKind::mul: return tdsl::Combine::Mul;
  case t::ReduceKind::max: return tdsl::Combine::Max;
  case t::ReduceKind::min: return tdsl::Combine::Min;
  default: return std::nullopt;
  }
}

static LogicalResult lowerParallelReduce(IRRewriter &rw, t::ParallelForOp op) {
  Location loc = op.getLoc();
  rw.setInsertionPoint(op);
  std::optional<tdsl::Combine> combine = combineOf(op.getReduce());
  if (!combine)
    return failure();
  tdsl::Combine kind = *combine;
  Type type = op.getType();
  unsigned n = op.getNumDims();
  SmallVector<Value> extents;
  Value total = arith::ConstantIndexOp::create(rw, loc, 1);
  for (unsigned d = 0; d < n; ++d) {
    Value ext = arith::SubIOp::create(rw, loc, op.getUpperBounds()[d],
                                      op.getLowerBounds()[d]);
    // An empty or reversed range runs no iteration.
    Value zero = arith::ConstantIndexOp::create(rw, loc, 0);
    ext = arith::MaxSIOp::create(rw, loc, ext, zero);
    extents.push_back(ext);
    total = arith::MulIOp::create(rw, loc, total, ext);
  }
  Value chunks = arith::ConstantIndexOp::create(rw, loc, kReductionChunks);
  Value empty =
      tensor::EmptyOp::create(rw, loc, ArrayRef<int64_t>{kReductionChunks}, type);
  auto forall = scf::ForallOp::create(
      rw, loc, ArrayRef<OpFoldResult>{rw.getIndexAttr(kReductionChunks)},
      ValueRange{empty}, std::nullopt);
  forall->setLoc(tdsl::kernelLoc(op, "parallel_for"));
  Value p = forall.getInductionVars()[0];
  Value out = forall.getRegionIterArgs()[0];
  rw.setInsertionPointToStart(forall.getBody());
  Value begin = arith::DivUIOp::create(
      rw, loc, arith::MulIOp::create(rw, loc, p, total), chunks);
  Value one = arith::ConstantIndexOp::create(rw, loc, 1);
  Value pNext = arith::AddIOp::create(rw, loc, p, one);
  Value end = arith::DivUIOp::create(
      rw, loc, arith::MulIOp::create(rw, loc, pNext, total), chunks);
  Value id = tdsl::buildIdentity(rw, loc, type, kind);
  auto loop = scf::ForOp::create(rw, loc, begin, end, one, ValueRange{id});
  rw.setInsertionPointToStart(loop.getBody());
  // Delinearize, innermost dimension fastest.
  SmallVector<Value> ivs(n);
  Value rest = loop.getInductionVar();
  for (unsigned d = n; d-- > 0;) {
    Value idx = d == 0 ? rest : arith::RemUIOp::create(rw, loc, rest, extents[d]);
    ivs[d] = arith::AddIOp::create(rw, loc, idx, op.getLowerBounds()[d]);
    if (d > 0)
      rest = arith::DivUIOp::create(rw, loc, rest, extents[d]);
  }
  // scf.for with iter_args is built without a terminator.
  Block *forBody = loop.getBody();
  Block &old = op.getRegion().front();
  rw.mergeBlocks(&old, forBody, ivs);
  auto yield = cast<t::YieldOp>(forBody->back());
  rw.setInsertionPoint(yield);
  Value next = tdsl::buildCombine(rw, loc, kind, loop.getRegionIterArgs()[0],
                                  yield.getValues().front());
  rw.replaceOpWithNewOp<scf::YieldOp>(yield, next);

  rw.setInsertionPointAfter(loop);
  Value one1 = tensor::FromElementsOp::create(
      rw, loc, RankedTensorType::get({1}, type), loop.getResult(0));
  auto inParallel = forall.getTerminator();
  rw.setInsertionPointToStart(inParallel.getBody());
  tensor::ParallelInsertSliceOp::create(
      rw, loc, one1, out, ArrayRef<OpFoldResult>{p},
      ArrayRef<OpFoldResult>{rw.getIndexAttr(1)},
      ArrayRef<OpFoldResult>{rw.getIndexAttr(1)});

  // Serial combine of the partials, in chunk order.
  rw.setInsertionPointAfter(forall);
  Value zero = arith::ConstantIndexOp::create(rw, loc, 0);
  Value id2 = tdsl::buildIdentity(rw, loc, type, kind);
  Value step = arith::ConstantIndexOp::create(rw, loc, 1);
  auto fin = scf::ForOp::create(rw, loc, zero, chunks, step, ValueRange{id2});
  rw.setInsertionPointToStart(fin.getBody());
  Value part = tensor::ExtractOp::create(rw, loc, forall.getResult(0),
                                         ValueRange{fin.getInductionVar()});
  Value acc = tdsl::buildCombine(rw, loc, kind, fin.getRegionIterArgs()[0], part);
  scf::YieldOp::create(rw, loc, acc);
  rw.replaceOp(op, fin.getResult(0));
  return success();
}

/// The reducing form inside another loop's body: a serial scf.for nest.
/// (A parallel scf.forall there would become a kernel that another kernel
/// launches on the GPU, and oneTBB inside oneTBB on the CPU.)
static LogicalResult lowerParallelReduceToLoops(IRRewriter &rw,
                                                t::ParallelForOp op) {
  Location loc = op.getLoc();
  rw.setInsertionPoint(op);
  std::optional<tdsl::Combine> combine = combineOf(op.getReduce());
  if (!combine)
    return failure();
  tdsl::Combine kind = *combine;
  Value one = arith::ConstantIndexOp::create(rw, loc, 1);
  Value acc = tdsl::buildIdentity(rw, loc, op.getType(), kind);
  SmallVector<scf::ForOp> loops;
  SmallVector<Value> ivs;
  for (unsigned d = 0; d < op.getNumDims(); ++d) {
    // An empty or reversed range runs no iteration.
    Value ub = arith::MaxSIOp::create(rw, loc, op.getUpperBounds()[d],
                                      op.getLowerBounds()[d]);
    auto loop = scf::ForOp::create(rw, loc, op.getLowerBounds()[d], ub, one,
                                   ValueRange{acc});
    if (!loops.empty())
      scf::YieldOp::create(rw, loc, loop.getResults());
    loops.push_back(loop);
    ivs.push_back(loop.getInductionVar());
    acc = loop.getRegionIterArgs()[0];
    rw.setInsertionPointToStart(loop.getBody());
  }
  Block *inner = loops.back().getBody();
  rw.mergeBlocks(&op.getRegion().front(), inner, ivs);
  auto yield = cast<t::YieldOp>(inner->back());
  rw.setInsertionPoint(yield);
  Value next = tdsl::buildCombine(rw, loc, kind, acc, yield.getValues().front());
  rw.replaceOpWithNewOp<scf::YieldOp>(yield, next);
  rw.replaceOp(op, loops.front().getResult(0));
  return success();
}

static LogicalResult lowerMatmul(IRRewriter &rw, t::MatmulOp op) {
  Location loc = op.getLoc();
  rw.setInsertionPoint(op);
  auto outType = cast<RankedTensorType>(op.getType());
  Value a = op.getLhs(), b = op.getRhs();
  unsigned ra = cast<RankedTensorType>(a.getType()).getRank();
  unsigned rb = cast<RankedTensorType>(b.getType()).getRank();
  {
    Value ka = tensor::DimOp::create(rw, loc, a, ra - 1);
    Value kb = tensor::DimOp::create(rw, loc, b, 0);
    Value same = arith::CmpIOp::create(rw, loc, arith::CmpIPredicate::eq, ka, kb);
    cf::AssertOp::create(rw, loc, same,
                         "the inner dimensions of '@' differ");
  }
  SmallVector<Value> dynSizes;
  if (ra == 2 && outType.isDynamicDim(0))
    dynSizes.push_back(tensor::DimOp::create(rw, loc, a, 0));
  if (rb == 2 && outType.isDynamicDim(outType.getRank() - 1))
    dynSizes.push_back(tensor::DimOp::create(rw, loc, b, 1));
  Value init = tensor::EmptyOp::create(rw, loc, outType, dynSizes);
  Value zero = tdsl::buildIdentity(rw, loc, outType.getElementType(),
                                   tdsl::Combine::Add);
  init = linalg::FillOp::create(rw, loc, TypeRange{outType}, ValueRange{zero},
                                ValueRange{init})
             .getResult(0);
  Operation *mm;
  if (ra == 2 && rb == 2)
    mm = linalg::MatmulOp::create(rw, loc, TypeRange{outType}, ValueRange{a, b},
                                  ValueRange{init});
  else if (ra == 2)
    mm = linalg::MatvecOp::create(rw, loc, TypeRange{outType}, ValueRange{a, b},
                                  ValueRange{init});
  else
    mm = linalg::VecmatOp::create(rw, loc, TypeRange{outType}, ValueRange{a, b},
                                  ValueRange{init});
  mm->setLoc(tdsl::kernelLoc(op, "matmul"));
  rw.replaceOp(op, mm->getResult(0));
  return success();
}

/// `type` (a scalar or a tensor) with f32 elements.
static Type withF32Elements(Type type) {
  Type f32 = Float32Type::get(type.getContext());
  if (auto tt = dyn_cast<RankedTensorType>(type))
    return tt.clone(f32);
  return f32;
}

/// `v`, the yield of a sum, in f32: a product of f16 or bf16 factors
/// (`a[i, k] * b[k, j]`) is computed in f32 as `@` computes it (exact for
/// two factors), not rounded to the element type before the sum.
static Value widenSummand(IRRewriter &rw, Location loc, Value v) {
  auto mul = v.getDefiningOp<t::MulOp>();
  if (!mul || !isa<Float16Type, BFloat16Type>(v.getType()) ||
      !isa<Float16Type, BFloat16Type>(mul.getLhs().getType()) ||
      !isa<Float16Type, BFloat16Type>(mul.getRhs().getType()))
    return t::CastOp::create(rw, loc, withF32Elements(v.getType()), v);
  Value lhs = widenSummand(rw, loc, mul.getLhs());
  Value rhs = widenSummand(rw, loc, mul.getRhs());
  return t::MulOp::create(rw, loc, lhs, rhs);
}

/// Sums, products and matrix products of f16 and bf16 accumulate in f32 and
/// round once at the end, as numpy and PyTorch do: accumulated in f16, a sum
/// of 1000 values in [0, 1) lost whole units, and a bf16 sum of ones stopped
/// at 256. The rewritten ops stay tdsl ops, lowered by the steps below.
static void widenLowPrecisionAccumulators(IRRewriter &rw, ModuleOp module) {
  auto isLow = [](Type type) {
    return isa<Float16Type, BFloat16Type>(getElementTypeOrSelf(type));
  };
  SmallVector<Operation *> ops;
  module.walk([&](Operation *op) {
    if (op->getNumResults() != 1 || !isLow(op->getResult(0).getType()))
      return;
    if (auto ig = dyn_cast<t::IndexGenOp>(op);
        ig && ig.getCombiner() == t::CombinerKind::sum)
      ops.push_back(op);
    else if (auto pf = dyn_cast<t::ParallelForOp>(op);
             pf && (pf.getReduce() == t::ReduceKind::add ||
                    pf.getReduce() == t::ReduceKind::mul))
      ops.push_back(op);
    else if (isa<t::MatmulOp>(op))
      ops.push_back(op);
  });
  for (Operation *op : ops) {
    Location loc = op->getLoc();
    Value result = op->getResult(0);
    Type lowType = result.getType();
    if (auto mm = dyn_cast<t::MatmulOp>(op)) {
      rw.setInsertionPoint(mm);
      Value a = t::CastOp::create(rw, loc, withF32Elements(mm.getLhs().getType()),
                                  mm.getLhs());
      Value b = t::CastOp::create(rw, loc, withF32Elements(mm.getRhs().getType()),
                                  mm.getRhs());
      Value wide =
          t::MatmulOp::create(rw, loc, withF32Elements(lowType), a, b);
      rw.replaceOpWithNewOp<t::CastOp>(mm, lowType, wide);
      continue;
    }
    auto yield = cast<t::YieldOp>(op->getRegion(0).front().getTerminator());
    rw.setInsertionPoint(yield);
    Value v = yield.getValues().front();
    auto pf = dyn_cast<t::ParallelForOp>(op);
    Value wide = pf && pf.getReduce() == t::ReduceKind::mul
                     ? t::CastOp::create(rw, loc, withF32Elements(v.getType()), v)
                     : widenSummand(rw, loc, v);
    rw.modifyOpInPlace(yield, [&] { yield->setOperand(0, wide); });
    rw.modifyOpInPlace(op, [&] { result.setType(withF32Elements(lowType)); });
    rw.setInsertionPointAfter(op);
    auto narrow = t::CastOp::create(rw, loc, lowType, result);
    rw.replaceAllUsesExcept(result, narrow.getResult(), narrow);
  }
}

LogicalResult (tdsl::lowerStructuredOps)(ModuleOp module) {
  IRRewriter rw(module.getContext());
  widenLowPrecisionAccumulators(rw, module);
  // Innermost first, so an outer op moves bodies that are already lowered.
  SmallVector<Operation *> ops;
  module.walk<WalkOrder::PostOrder>([&](Operation *op) {
    if (isa<t::IndexGenOp, t::ParallelForOp, t::MatmulOp>(op))
      ops.push_back(op);
  });
  for (Operation *op : ops) {
    LogicalResult r = success();
    if (auto ig = dyn_cast<t::IndexGenOp>(op))
      r = op->getParentOfType<t::ParallelForOp>() || op->getParentOfType<t::IndexGenOp>()
              ? lowerIndexGenToLoops(rw, ig)
              : lowerIndexGen(rw, ig);
    else if (auto pf = dyn_cast<t::ParallelForOp>(op))
      r = pf.getReduce() == t::ReduceKind::none ? lowerParallelMap(rw, pf)
          : op->getParentOfType<t::ParallelForOp>() ||
                  op->getParentOfType<t::IndexGenOp>()
              ? lowerParallelReduceToLoops(rw, pf)
              : lowerParallelReduce(rw, pf);
    else
      r = lowerMatmul(rw, cast<t::MatmulOp>(op));
    if (failed(r))
      return failure();
  }
  return success();
}
