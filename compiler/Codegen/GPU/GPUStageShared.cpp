//===- GPUStageShared.cpp - T x T tile kernels with inputs in shared memory -===//
//
// A contraction or a window op (isStagedTileKernel) reads each input element
// from many threads. This pass writes it as one gpu.launch with a block of
// T x T threads per T x T tile of outputs. The part of an input that a
// block reads (its footprint: a box, since subscripts are affine with
// non-negative coefficients) is copied into shared memory by all the
// block's threads, then read from there. Contractions stage their first
// reduction loop in chunks; inputs that would not be reused, or whose
// subscripts are not affine, or that do not fit, are read from global memory.
//
//===----------------------------------------------------------------------===//
#include "compiler/Codegen/GPU/GPUKernelForms.h"
#include "compiler/Codegen/GPU/GPUStageSharedPlan.h"
#include "compiler/Codegen/GPU/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/IR/IRMapping.h"

namespace tdsl {
#define GEN_PASS_DEF_GPUSTAGESHARED
#include "compiler/Codegen/GPU/Passes.h.inc"
} // namespace tdsl

using namespace mlir;
using namespace tdsl::stage_shared;

bool tdsl::indexedByParallelLoops(linalg::LinalgOp op, unsigned output) {
  AffineMap out = op.getMatchingIndexingMap(op.getDpsInitOperand(output));
  if (!out.isProjectedPermutation() ||
      out.getNumResults() != op.getNumParallelLoops())
    return false;
  return llvm::all_of(out.getResults(), [&](AffineExpr e) {
    return op.getIteratorTypesArray()[cast<AffineDimExpr>(e).getPosition()] ==
           utils::IteratorType::parallel;
  });
}

bool tdsl::isStagedTileKernel(linalg::LinalgOp op) {
  if (op.getNumDpsInits() != 1 || op.getNumParallelLoops() < 2 ||
      op.getNumLoops() == 0 || !indexedByParallelLoops(op, 0))
    return false;
  bool window = op.getNumReductionLoops() > 0;
  op.getBlock()->walk([&](scf::ForOp) { window = true; });
  return window;
}

std::optional<Value> tdsl::takeInitFill(linalg::LinalgOp op, unsigned output) {
  Value out = op.getDpsInits()[output];
  for (Operation *prev = op->getPrevNode(); prev; prev = prev->getPrevNode()) {
    auto fill = dyn_cast<linalg::FillOp>(prev);
    if (fill && fill.hasPureBufferSemantics() && fill.getDpsInits()[0] == out) {
      Value v = fill.getDpsInputs()[0]; // defined before the fill
      fill.erase();
      return v;
    }
    // Only ops that touch no memory may stand between (and the runtime's
    // work count): anything else might write `out` through an alias.
    auto call = dyn_cast<func::CallOp>(prev);
    if (!(call && call.getCallee() == "tdsl_cuda_set_work") &&
        !isMemoryEffectFree(prev))
      break;
  }
  return std::nullopt;
}

namespace {

/// `acc + a * b`, the step of a contraction, may fuse into an FMA (nvcc's
/// default; the CPU's matmul uses FMAs too). Nothing else in the body gets
/// the contract flag: values such as `normal`'s must round as written.
void allowFMA(Value result, Value acc) {
  auto add = result.getDefiningOp<arith::AddFOp>();
  if (!add || (add.getLhs() != acc && add.getRhs() != acc))
    return;
  auto mul = (add.getLhs() == acc ? add.getRhs() : add.getLhs())
                 .getDefiningOp<arith::MulFOp>();
  if (!mul)
    return;
  for (arith::ArithFastMathInterface fm :
       {cast<arith::ArithFastMathInterface>(add.getOperation()),
        cast<arith::ArithFastMathInterface>(mul.getOperation())}) {
    auto flags = fm.getFastMathFlagsAttr();
    auto value = (flags ? flags.getValue() : arith::FastMathFlags::none) |
                 arith::FastMathFlags::contract;
    fm->setAttr(fm.getFastMathAttrName(),
                arith::FastMathFlagsAttr::get(fm->getContext(), value));
  }
}

/// Builds the gpu.launch that replaces one staged tile kernel, from its plan.
class TileKernelEmitter {
public:
  TileKernelEmitter(linalg::LinalgOp op, const TileKernelPlan &plan)
      : op(op), plan(plan), vars(plan.vars), loc(op.getLoc()),
        numOutputs(plan.R * plan.R) {}

  gpu::LaunchOp emit();

private:
  Value cidx(OpBuilder &b, int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v);
  }
  void createLaunch(OpBuilder &b);
  void initOutputs(OpBuilder &kb, std::optional<Value> fillValue);
  void stage(OpBuilder &sb, bool r0Group);
  Value loadStaged(OpBuilder &lb, unsigned s, ValueRange at, bool checked);
  int stagedIndex(Value source) const;
  Value body(OpBuilder &bb, Value acc);
  bool canSkipGuards();
  SmallVector<Value> allOutputs(OpBuilder &ob, ValueRange accs);
  SmallVector<Value> nest(OpBuilder &nb, unsigned level, ValueRange accs);
  SmallVector<Value> reduce(OpBuilder &kb);

  linalg::LinalgOp op;
  const TileKernelPlan &plan;
  const Vars &vars;
  Location loc;
  unsigned numOutputs;
  bool unguarded = false;

  SmallVector<Value> extents; // of the op's loops, before the launch
  SmallVector<unsigned> outer; // parallel loops other than px and py
  SmallVector<unsigned> otherReductions; // reduction loops other than r0
  Value out, tilesX, tilesY;
  Type elemType;
  gpu::LaunchOp launch;
  // Per staged input: its workgroup buffer and the global subscripts of its
  // element 0 in the current step.
  SmallVector<Value> shared;
  SmallVector<SmallVector<Value>> origin;
  // In the kernel: index 0, and the current value of each loop and
  // variable base.
  Value zero;
  SmallVector<Value> dims, bases;
  // Per output a thread owns: its x and y, whether it is in range, its
  // subscripts in `out` and the accumulator's initial value.
  SmallVector<Value> outPx, outPy, valid, acc0;
  SmallVector<SmallVector<Value>> outIdx;
  Value tid;
};

} // namespace

gpu::LaunchOp TileKernelEmitter::emit() {
  OpBuilder b(op);
  for (Range &r : op.createLoopRanges(b, loc))
    extents.push_back(getValueOrCreateConstantIndexOp(b, loc, r.size));
  out = op.getDpsInits()[0];
  elemType = getElementTypeOrSelf(out.getType());
  std::optional<Value> fillValue = tdsl::takeInitFill(op);
  createLaunch(b);
  OpBuilder kb = OpBuilder::atBlockBegin(&launch.getBody().front());
  initOutputs(kb, fillValue);
  unguarded = canSkipGuards();
  for (unsigned d = 0; d < vars.numLoops; ++d)
    if (op.getIteratorTypesArray()[d] == utils::IteratorType::reduction &&
        int64_t(d) != vars.r0)
      otherReductions.push_back(d);
  SmallVector<Value> result = reduce(kb);
  for (unsigned o = 0; o < numOutputs; ++o) {
    auto ifStore = scf::IfOp::create(kb, loc, valid[o], false);
    OpBuilder sb = ifStore.getThenBodyBuilder();
    memref::StoreOp::create(sb, loc, result[o], out, outIdx[o]);
  }
  gpu::TerminatorOp::create(kb, loc);
  return launch;
}

/// All blocks along x (CUDA allows 2^31 - 1 there, 65535 along y and z):
/// block = (outer * tilesY + tileY) * tilesX + tileX.
void TileKernelEmitter::createLaunch(OpBuilder &b) {
  Value T = cidx(b, plan.tile);
  Value S = cidx(b, plan.span);
  for (unsigned d = 0; d < vars.numLoops; ++d)
    if (op.getIteratorTypesArray()[d] == utils::IteratorType::parallel &&
        int64_t(d) != vars.px && int64_t(d) != vars.py)
      outer.push_back(d);
  Value outerCount = cidx(b, 1);
  for (unsigned d : outer)
    outerCount = arith::MulIOp::create(b, loc, outerCount, extents[d]);
  tilesX = arith::CeilDivUIOp::create(b, loc, extents[vars.px], S);
  tilesY = arith::CeilDivUIOp::create(b, loc, extents[vars.py], S);
  Value gridX = arith::MulIOp::create(
      b, loc, arith::MulIOp::create(b, loc, tilesX, tilesY), outerCount);
  SmallVector<Type> sharedTypes;
  auto workgroup =
      gpu::AddressSpaceAttr::get(op->getContext(), gpu::AddressSpace::Workgroup);
  for (const Staged &s : plan.staged)
    sharedTypes.push_back(MemRefType::get(
        s.shape, getElementTypeOrSelf(s.source.getType()), AffineMap(), workgroup));
  Value one = cidx(b, 1);
  launch = gpu::LaunchOp::create(b, loc, gridX, one, one, T, T, one, nullptr,
                                 nullptr, {}, sharedTypes);
  for (BlockArgument arg : launch.getWorkgroupAttributions())
    shared.push_back(arg);
  origin.resize(plan.staged.size());
}

/// Decomposes the block number into the tile's bases and gives thread
/// (tx, ty) its outputs (py, px) = base + (ty + r T, tx + c T), r, c < R:
/// consecutive threads still read consecutive elements.
void TileKernelEmitter::initOutputs(OpBuilder &kb,
                                    std::optional<Value> fillValue) {
  int64_t tile = plan.tile, R = plan.R;
  zero = cidx(kb, 0);
  Value tx = launch.getThreadIds().x, ty = launch.getThreadIds().y;
  Value block = launch.getBlockIds().x;
  Value bx = arith::RemUIOp::create(kb, loc, block, tilesX);
  Value rest = arith::DivUIOp::create(kb, loc, block, tilesX);
  Value by = arith::RemUIOp::create(kb, loc, rest, tilesY);
  rest = arith::DivUIOp::create(kb, loc, rest, tilesY);
  dims.assign(vars.numLoops, zero);
  bases.assign(vars.size(), zero);
  Value kT = cidx(kb, tile), kS = cidx(kb, plan.span);
  bases[vars.px] = arith::MulIOp::create(kb, loc, bx, kS);
  bases[vars.py] = arith::MulIOp::create(kb, loc, by, kS);
  for (unsigned d : llvm::reverse(outer)) {
    dims[d] = arith::RemUIOp::create(kb, loc, rest, extents[d]);
    bases[d] = dims[d];
    rest = arith::DivUIOp::create(kb, loc, rest, extents[d]);
  }
  outPx.resize(numOutputs);
  outPy.resize(numOutputs);
  valid.resize(numOutputs);
  acc0.resize(numOutputs);
  outIdx.resize(numOutputs);
  Value elemZero =
      arith::ConstantOp::create(kb, loc, cast<TypedAttr>(kb.getZeroAttr(elemType)));
  for (unsigned o = 0; o < numOutputs; ++o) {
    int64_t r = o / R, c = o % R;
    outPx[o] = arith::AddIOp::create(kb, loc, bases[vars.px],
                                     arith::AddIOp::create(kb, loc, tx, cidx(kb, c * tile)));
    outPy[o] = arith::AddIOp::create(kb, loc, bases[vars.py],
                                     arith::AddIOp::create(kb, loc, ty, cidx(kb, r * tile)));
    valid[o] = arith::AndIOp::create(
        kb, loc,
        arith::CmpIOp::create(kb, loc, arith::CmpIPredicate::ult, outPx[o],
                              extents[vars.px]),
        arith::CmpIOp::create(kb, loc, arith::CmpIPredicate::ult, outPy[o],
                              extents[vars.py]));
    dims[vars.px] = outPx[o];
    dims[vars.py] = outPy[o];
    for (AffineExpr e : op.getMatchingIndexingMap(op.getDpsInitOperand(0)).getResults())
      outIdx[o].push_back(dims[cast<AffineDimExpr>(e).getPosition()]);
    if (fillValue) {
      acc0[o] = *fillValue;
      continue;
    }
    auto ifValid = scf::IfOp::create(kb, loc, TypeRange{elemType}, valid[o], true);
    OpBuilder tb = ifValid.getThenBodyBuilder();
    scf::YieldOp::create(tb, loc,
                         ValueRange{memref::LoadOp::create(tb, loc, out, outIdx[o])});
    OpBuilder eb = ifValid.getElseBodyBuilder();
    scf::YieldOp::create(eb, loc, elemZero);
    acc0[o] = ifValid.getResult(0);
  }
  tid = arith::AddIOp::create(kb, loc, arith::MulIOp::create(kb, loc, ty, kT), tx);
}

/// Copies the boxes of the staged inputs that move with r0 (`r0Group`) or
/// not, at the current bases, into shared memory; every thread copies
/// every T^2-th element, zero outside the source. A thread's elements are
/// copied in rounds of up to kStageRound: the round's global loads are all
/// issued before its first store, so their latencies overlap (a loop of
/// load-then-store waited for each: on an H200 a 4096^3 matmul's four
/// elements per thread and input cost four memory latencies per chunk).
void TileKernelEmitter::stage(OpBuilder &sb, bool r0Group) {
  constexpr int64_t kStageRound = 8;
  int64_t threads = plan.tile * plan.tile;
  for (auto [i, s] : llvm::enumerate(plan.staged)) {
    if (s.usesR0 != r0Group)
      continue;
    origin[i].clear();
    for (unsigned j = 0; j < s.shape.size(); ++j) {
      Value o = cidx(sb, s.minConstant[j]);
      for (unsigned v = 0; v < vars.size(); ++v)
        if (s.coef[j][v])
          o = arith::AddIOp::create(
              sb, loc, o,
              arith::MulIOp::create(sb, loc, bases[v], cidx(sb, s.coef[j][v])));
      origin[i].push_back(o);
    }
    int64_t perThread = llvm::divideCeil(s.elements(), threads);
    int64_t round = std::min(perThread, kStageRound);
    int64_t rounds = llvm::divideCeil(perThread, round);
    // Slots past the box exist only when a round's T^2 * round elements do
    // not divide its size.
    bool ragged = s.elements() % (round * threads) != 0;
    auto copyRound = [&](OpBuilder &rb, Value first) {
      Type srcElem = getElementTypeOrSelf(s.source.getType());
      SmallVector<Value> values, inBox;
      SmallVector<SmallVector<Value>> locals;
      for (int64_t e = 0; e < round; ++e) {
        Value r = arith::AddIOp::create(rb, loc, first, cidx(rb, e * threads));
        Value inside = ragged ? (Value)arith::CmpIOp::create(
                                    rb, loc, arith::CmpIPredicate::ult, r,
                                    cidx(rb, s.elements()))
                              : Value();
        SmallVector<Value> local(s.shape.size()), global(s.shape.size());
        Value inBounds = inside;
        for (unsigned j = s.shape.size(); j-- > 0;) {
          local[j] = j == 0 ? r
                            : (Value)arith::RemUIOp::create(rb, loc, r,
                                                            cidx(rb, s.shape[j]));
          if (j > 0)
            r = arith::DivUIOp::create(rb, loc, r, cidx(rb, s.shape[j]));
          global[j] = arith::AddIOp::create(rb, loc, origin[i][j], local[j]);
          Value size = memref::DimOp::create(rb, loc, s.source, j);
          Value ok = arith::AndIOp::create(
              rb, loc,
              arith::CmpIOp::create(rb, loc, arith::CmpIPredicate::sge, global[j],
                                    cidx(rb, 0)),
              arith::CmpIOp::create(rb, loc, arith::CmpIPredicate::slt, global[j],
                                    size));
          inBounds = inBounds ? (Value)arith::AndIOp::create(rb, loc, inBounds, ok)
                              : ok;
        }
        auto ifIn = scf::IfOp::create(rb, loc, TypeRange{srcElem}, inBounds, true);
        OpBuilder tb = ifIn.getThenBodyBuilder();
        scf::YieldOp::create(
            tb, loc, ValueRange{memref::LoadOp::create(tb, loc, s.source, global)});
        OpBuilder eb = ifIn.getElseBodyBuilder();
        scf::YieldOp::create(eb, loc, ValueRange{arith::ConstantOp::create(
                                          eb, loc, cast<TypedAttr>(eb.getZeroAttr(srcElem)))});
        values.push_back(ifIn.getResult(0));
        inBox.push_back(inside);
        locals.push_back(local);
      }
      for (int64_t e = 0; e < round; ++e) {
        if (!inBox[e]) {
          memref::StoreOp::create(rb, loc, values[e], shared[i], locals[e]);
          continue;
        }
        auto ifStore = scf::IfOp::create(rb, loc, inBox[e], false);
        OpBuilder ib = ifStore.getThenBodyBuilder();
        memref::StoreOp::create(ib, loc, values[e], shared[i], locals[e]);
      }
    };
    if (rounds == 1) {
      copyRound(sb, tid);
      continue;
    }
    int64_t stride = round * threads;
    auto loop = scf::ForOp::create(sb, loc, tid, cidx(sb, rounds * stride),
                                   cidx(sb, stride));
    OpBuilder lb = OpBuilder::atBlockBegin(loop.getBody());
    copyRound(lb, loop.getInductionVar());
  }
}

/// Loads staged input `s` at global subscripts `at`. A load of the body
/// (`checked`) reads global memory when `at` leaves the box: a clamped
/// subscript may; and so correctness never rests on the forms. The op's
/// inputs are read through affine maps, which stay inside.
Value TileKernelEmitter::loadStaged(OpBuilder &lb, unsigned s, ValueRange at,
                                    bool checked) {
  const Staged &st = plan.staged[s];
  SmallVector<Value> local;
  Value inBox;
  for (auto [j, g, o] : llvm::enumerate(at, origin[s])) {
    local.push_back(arith::SubIOp::create(lb, loc, g, o));
    if (!checked)
      continue;
    Value ok = arith::AndIOp::create(
        lb, loc,
        arith::CmpIOp::create(lb, loc, arith::CmpIPredicate::sge, local.back(),
                              cidx(lb, 0)),
        arith::CmpIOp::create(lb, loc, arith::CmpIPredicate::slt, local.back(),
                              cidx(lb, st.shape[j])));
    inBox = inBox ? (Value)arith::AndIOp::create(lb, loc, inBox, ok) : ok;
  }
  if (!checked)
    return memref::LoadOp::create(lb, loc, shared[s], local);
  Type elem = getElementTypeOrSelf(st.source.getType());
  auto ifIn = scf::IfOp::create(lb, loc, TypeRange{elem}, inBox, true);
  OpBuilder tb = ifIn.getThenBodyBuilder();
  scf::YieldOp::create(tb, loc, ValueRange{memref::LoadOp::create(tb, loc, shared[s], local)});
  OpBuilder eb = ifIn.getElseBodyBuilder();
  scf::YieldOp::create(eb, loc, ValueRange{memref::LoadOp::create(eb, loc, st.source, at)});
  return ifIn.getResult(0);
}

int TileKernelEmitter::stagedIndex(Value source) const {
  for (auto [i, s] : llvm::enumerate(plan.staged))
    if (s.source == source)
      return i;
  return -1;
}

/// One iteration of the op's body at `dims`, combining into `acc`.
Value TileKernelEmitter::body(OpBuilder &bb, Value acc) {
  Block &block = *op.getBlock();
  IRMapping map;
  for (OpOperand *in : op.getDpsInputOperands()) {
    BlockArgument arg = op.getMatchingBlockArgument(in);
    if (!isa<MemRefType>(in->get().getType())) {
      map.map(arg, in->get());
      continue;
    }
    SmallVector<Value> at;
    for (AffineExpr e : op.getMatchingIndexingMap(in).getResults())
      at.push_back(affine::AffineApplyOp::create(
          bb, loc, AffineMap::get(vars.numLoops, 0, e), dims));
    int s = stagedIndex(in->get());
    map.map(arg, s >= 0 ? loadStaged(bb, s, at, /*checked=*/false)
                        : (Value)memref::LoadOp::create(bb, loc, in->get(), at));
  }
  map.map(block.getArguments().back(), acc);
  for (Operation &inner : block.without_terminator()) {
    if (auto index = dyn_cast<linalg::IndexOp>(inner)) {
      map.map(index.getResult(), dims[index.getDim()]);
      continue;
    }
    Operation *clone = bb.clone(inner, map);
    SmallVector<memref::LoadOp> loads;
    clone->walk([&](memref::LoadOp l) { loads.push_back(l); });
    for (memref::LoadOp l : loads) {
      int s = stagedIndex(l.getMemref());
      if (s < 0)
        continue;
      OpBuilder rb(l);
      Value fromShared = loadStaged(rb, s, l.getIndices(), /*checked=*/true);
      l.replaceAllUsesWith(fromShared);
      // A load of the body itself: later ops read the new value.
      if (l.getOperation() == clone)
        map.map(inner.getResult(0), fromShared);
      l.erase();
    }
  }
  Value result = map.lookupOrDefault(block.getTerminator()->getOperand(0));
  allowFMA(result, acc);
  return result;
}

/// Out-of-range outputs may compute without a guard when every input is
/// read from shared memory (inside the box: no fault) and the body cannot
/// trap (pure ops only); otherwise each output is guarded.
bool TileKernelEmitter::canSkipGuards() {
  if (plan.R <= 1)
    return false;
  for (OpOperand *in : op.getDpsInputOperands())
    if (isa<MemRefType>(in->get().getType()) && stagedIndex(in->get()) < 0)
      return false;
  for (Operation &inner : op.getBlock()->without_terminator())
    if (!isa<linalg::IndexOp>(inner) && !isPure(&inner))
      return false;
  return true;
}

SmallVector<Value> TileKernelEmitter::allOutputs(OpBuilder &ob, ValueRange accs) {
  SmallVector<Value> next;
  for (unsigned o = 0; o < numOutputs; ++o) {
    dims[vars.px] = outPx[o];
    dims[vars.py] = outPy[o];
    if (unguarded) {
      next.push_back(body(ob, accs[o]));
      continue;
    }
    auto ifValid = scf::IfOp::create(ob, loc, TypeRange{elemType}, valid[o], true);
    OpBuilder tb = ifValid.getThenBodyBuilder();
    scf::YieldOp::create(tb, loc, ValueRange{body(tb, accs[o])});
    OpBuilder eb = ifValid.getElseBodyBuilder();
    scf::YieldOp::create(eb, loc, accs[o]);
    next.push_back(ifValid.getResult(0));
  }
  return next;
}

/// The loops over the reduction dimensions after r0, around the body of
/// each output.
SmallVector<Value> TileKernelEmitter::nest(OpBuilder &nb, unsigned level,
                                           ValueRange accs) {
  if (level == otherReductions.size())
    return allOutputs(nb, accs);
  unsigned d = otherReductions[level];
  auto loop = scf::ForOp::create(nb, loc, cidx(nb, 0), extents[d], cidx(nb, 1), accs);
  OpBuilder lb = OpBuilder::atBlockBegin(loop.getBody());
  dims[d] = loop.getInductionVar();
  scf::YieldOp::create(lb, loc, nest(lb, level + 1, loop.getRegionIterArgs()));
  return SmallVector<Value>(loop.getResults());
}

/// Stages what does not move with r0 once; then, per chunk of r0, stages
/// the rest between barriers and runs the chunk's iterations.
SmallVector<Value> TileKernelEmitter::reduce(OpBuilder &kb) {
  stage(kb, /*r0Group=*/false);
  if (vars.r0 < 0) {
    if (!plan.staged.empty())
      gpu::BarrierOp::create(kb, loc);
    return nest(kb, 0, acc0);
  }
  Value c = cidx(kb, plan.chunk);
  auto chunks = scf::ForOp::create(kb, loc, zero, extents[vars.r0], c, acc0);
  OpBuilder cb = OpBuilder::atBlockBegin(chunks.getBody());
  Value k0 = chunks.getInductionVar();
  bases[vars.r0] = k0;
  stage(cb, /*r0Group=*/true);
  gpu::BarrierOp::create(cb, loc);
  Value count = arith::MinUIOp::create(
      cb, loc, c, arith::SubIOp::create(cb, loc, extents[vars.r0], k0));
  // No barrier inside: threads may diverge on their outputs' guards.
  auto loop = scf::ForOp::create(cb, loc, cidx(cb, 0), count, cidx(cb, 1),
                                 chunks.getRegionIterArgs());
  OpBuilder lb = OpBuilder::atBlockBegin(loop.getBody());
  dims[vars.r0] = arith::AddIOp::create(lb, loc, k0, loop.getInductionVar());
  scf::YieldOp::create(lb, loc, nest(lb, 0, loop.getRegionIterArgs()));
  gpu::BarrierOp::create(cb, loc);
  scf::YieldOp::create(cb, loc, loop.getResults());
  SmallVector<Value> results(chunks.getResults());
  // A contraction's step is a few shared loads and R^2 FMAs: unrolled by
  // 4, the loop's own instructions (a third of the step at R = 4) go and
  // the loads of the next steps can be issued early. (LLVM does not: the
  // trip count is not a constant.) Bodies with loops of their own stay.
  if (otherReductions.empty())
    (void)loopUnrollByFactor(loop, 4);
  return results;
}

/// Buffers of the body are per thread: on the kernel's stack, made once,
/// when the body only reads, writes and frees them directly (no buffer
/// that a loop carries or that is freed through its base pointer).
static void moveBodyBuffersToStack(gpu::LaunchOp launch) {
  SmallVector<memref::AllocOp> allocs;
  launch.walk([&](memref::AllocOp a) { allocs.push_back(a); });
  for (memref::AllocOp a : allocs) {
    bool direct = a.getType().hasStaticShape() &&
                  llvm::all_of(a->getUsers(), [](Operation *user) {
                    return isa<memref::LoadOp, memref::StoreOp, memref::DeallocOp,
                               linalg::FillOp, memref::CopyOp>(user);
                  });
    if (!direct)
      continue; // a device malloc, freed as bufferization decided
    OpBuilder ab = OpBuilder::atBlockBegin(&launch.getBody().front());
    auto alloca = memref::AllocaOp::create(ab, a.getLoc(), a.getType(),
                                           ValueRange{}, a.getAlignmentAttr());
    for (Operation *user : llvm::to_vector(a->getUsers()))
      if (isa<memref::DeallocOp>(user))
        user->erase();
    a.replaceAllUsesWith(alloca.getResult());
    a.erase();
  }
}

namespace {

struct GPUStageSharedPass
    : tdsl::impl::GPUStageSharedBase<GPUStageSharedPass> {
  using Base::Base;

  void runOnOperation() override {
    if (tile < 1 || tile * tile > 1024) {
      getOperation().emitError("tile must be between 1 and 32");
      return signalPassFailure();
    }
    SmallVector<linalg::LinalgOp> ops;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (op.hasPureBufferSemantics() && !isa<linalg::FillOp>(op) &&
          !op->getParentOfType<gpu::LaunchOp>() &&
          !op->getParentOfType<scf::ForallOp>() &&
          !op->getParentOfType<scf::ParallelOp>() &&
          !op->getParentOfType<linalg::LinalgOp>() &&
          tdsl::isStagedTileKernel(op))
        ops.push_back(op);
    });
    for (linalg::LinalgOp op : ops) {
      TileKernelPlan plan = planTileKernel(op, tile, outputsPerThread);
      moveBodyBuffersToStack(TileKernelEmitter(op, plan).emit());
      op->erase();
    }
  }
};

} // namespace
