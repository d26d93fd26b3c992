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
#include "compiler/Codegen/GPU/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include "llvm/ADT/SmallBitVector.h"

#include <functional>

namespace tdsl {
#define GEN_PASS_DEF_GPUSTAGESHARED
#include "compiler/Codegen/GPU/Passes.h.inc"
} // namespace tdsl

using namespace mlir;

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

constexpr int64_t kSharedBudgetBytes = 40 * 1024; // of the 48 KiB static limit

/// An affine subscript: constant + sum of coef * variable. Variables are the
/// op's loops (0..numLoops-1) and the scf.for loops of its body after them.
struct Form {
  int64_t constant = 0;
  SmallVector<int64_t> coef;
};

/// What the kernel needs to know of the op's loops and body loops.
struct Vars {
  unsigned numLoops = 0;
  SmallVector<scf::ForOp> bodyLoops;
  /// Per variable, its extent in one staging step, if static.
  SmallVector<std::optional<int64_t>> stageExtent;
  int64_t px = -1, py = -1, r0 = -1; // loop numbers
  unsigned size() const { return stageExtent.size(); }
};

std::optional<int64_t> constantOf(Value v) {
  if (auto c = getConstantIntValue(v))
    return *c;
  return std::nullopt;
}

std::optional<Form> scaled(std::optional<Form> f, int64_t k) {
  if (!f)
    return std::nullopt;
  f->constant *= k;
  for (int64_t &c : f->coef)
    c *= k;
  return f;
}

std::optional<Form> added(std::optional<Form> a, std::optional<Form> b) {
  if (!a || !b)
    return std::nullopt;
  a->constant += b->constant;
  for (unsigned i = 0; i < a->coef.size(); ++i)
    a->coef[i] += b->coef[i];
  return a;
}

/// The form of an SSA subscript in the op's body (index and integer
/// arithmetic: values are small and non-negative, so casts are exact).
std::optional<Form> formOf(Value v, const Vars &vars, unsigned depth = 0) {
  Form f;
  f.coef.assign(vars.size(), 0);
  if (depth > 32)
    return std::nullopt;
  if (auto c = constantOf(v)) {
    f.constant = *c;
    return f;
  }
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    for (auto [i, loop] : llvm::enumerate(const_cast<Vars &>(vars).bodyLoops))
      if (loop.getInductionVar() == arg) {
        f.coef[vars.numLoops + i] = 1;
        return f;
      }
    return std::nullopt;
  }
  Operation *def = v.getDefiningOp();
  if (auto index = dyn_cast<linalg::IndexOp>(def)) {
    f.coef[index.getDim()] = 1;
    return f;
  }
  if (isa<arith::IndexCastOp, arith::ExtSIOp>(def))
    return formOf(def->getOperand(0), vars, depth + 1);
  if (isa<arith::AddIOp>(def))
    return added(formOf(def->getOperand(0), vars, depth + 1),
                 formOf(def->getOperand(1), vars, depth + 1));
  if (isa<arith::SubIOp>(def))
    return added(formOf(def->getOperand(0), vars, depth + 1),
                 scaled(formOf(def->getOperand(1), vars, depth + 1), -1));
  // clamp(v, lo, hi) = min(max(v, lo), hi): the box of v, which the clamp
  // may leave (the loads check).
  if (isa<arith::MaxSIOp, arith::MinSIOp>(def)) {
    for (Value side : def->getOperands())
      if (auto inner = formOf(side, vars, depth + 1);
          inner && llvm::any_of(inner->coef, [](int64_t c) { return c; }))
        return inner;
    return std::nullopt;
  }
  if (isa<arith::MulIOp>(def)) {
    if (auto k = constantOf(def->getOperand(1)))
      return scaled(formOf(def->getOperand(0), vars, depth + 1), *k);
    if (auto k = constantOf(def->getOperand(0)))
      return scaled(formOf(def->getOperand(1), vars, depth + 1), *k);
  }
  return std::nullopt;
}

/// The form of an indexing-map result (dims, constants, +, * constant).
std::optional<Form> formOf(AffineExpr e, const Vars &vars) {
  Form f;
  f.coef.assign(vars.size(), 0);
  if (auto d = dyn_cast<AffineDimExpr>(e)) {
    f.coef[d.getPosition()] = 1;
    return f;
  }
  if (auto c = dyn_cast<AffineConstantExpr>(e)) {
    f.constant = c.getValue();
    return f;
  }
  auto bin = dyn_cast<AffineBinaryOpExpr>(e);
  if (!bin)
    return std::nullopt;
  if (e.getKind() == AffineExprKind::Add)
    return added(formOf(bin.getLHS(), vars), formOf(bin.getRHS(), vars));
  if (e.getKind() == AffineExprKind::Mul)
    if (auto k = dyn_cast<AffineConstantExpr>(bin.getRHS()))
      return scaled(formOf(bin.getLHS(), vars), k.getValue());
  return std::nullopt;
}

/// The allocation a memref view comes from.
Value rootOf(Value v) {
  while (auto view = v.getDefiningOp<ViewLikeOpInterface>())
    v = view.getViewSource();
  return v;
}

/// An input staged in shared memory: the box its accesses cover in one step.
struct Staged {
  Value source;
  SmallVector<int64_t> minConstant, shape;
  SmallVector<SmallVector<int64_t>> coef; // per dimension, per variable
  bool usesR0 = false;
  Value shared;              // workgroup buffer, in the kernel
  SmallVector<Value> origin; // global subscripts of shared[0, ...]
  int64_t elements() const {
    int64_t n = 1;
    for (int64_t s : shape)
      n *= s;
    return n;
  }
  int64_t bytes() const {
    return elements() *
           int64_t((getElementTypeOrSelf(source.getType()).getIntOrFloatBitWidth() + 7) / 8);
  }
};

/// Collects the accesses of `source` (each a list of forms) and computes
/// the box; fails when they are not affine with non-negative coefficients,
/// differ in their coefficients, involve a loop with no static extent, or
/// would not be reused.
std::optional<Staged> planStaged(Value source,
                                 ArrayRef<SmallVector<Form>> accesses,
                                 const Vars &vars, int64_t span) {
  auto type = dyn_cast<MemRefType>(source.getType());
  if (!type || accesses.empty() || !type.getElementType().isIntOrFloat())
    return std::nullopt;
  Staged s;
  s.source = source;
  unsigned rank = type.getRank();
  int64_t work = span * span; // outputs of a block
  llvm::SmallBitVector used(vars.size());
  for (unsigned j = 0; j < rank; ++j) {
    const Form &first = accesses.front()[j];
    int64_t lo = first.constant, hi = first.constant;
    for (ArrayRef<Form> access : accesses) {
      if (access[j].coef != first.coef)
        return std::nullopt;
      lo = std::min(lo, access[j].constant);
      hi = std::max(hi, access[j].constant);
    }
    // Sizes past kHuge cannot fit shared memory anyway (and would overflow).
    constexpr int64_t kHuge = int64_t(1) << 20;
    int64_t extent = hi - lo + 1;
    if (extent > kHuge)
      return std::nullopt;
    for (unsigned v = 0; v < vars.size(); ++v) {
      int64_t c = first.coef[v];
      if (c == 0)
        continue;
      if (c < 0 || c > kHuge || !vars.stageExtent[v] || *vars.stageExtent[v] > kHuge)
        return std::nullopt;
      extent += c * (*vars.stageExtent[v] - 1);
      if (extent > kHuge)
        return std::nullopt;
      used.set(v);
    }
    s.minConstant.push_back(lo);
    s.shape.push_back(extent);
    s.coef.push_back(first.coef);
  }
  for (unsigned v : used.set_bits())
    if (int64_t(v) != vars.px && int64_t(v) != vars.py)
      work = std::min<int64_t>(work * *vars.stageExtent[v], int64_t(1) << 40);
  int64_t elements = 1;
  for (int64_t e : s.shape)
    if ((elements *= e) > (int64_t(1) << 24))
      return std::nullopt; // 16M elements: far past any budget
  s.usesR0 = vars.r0 >= 0 && used.test(vars.r0);
  if (rank == 0 || 2 * s.elements() > work)
    return std::nullopt; // read about once per thread: no gain
  return s;
}

struct GPUStageSharedPass
    : ::tdsl::impl::GPUStageSharedBase<GPUStageSharedPass> {
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
          ::tdsl::isStagedTileKernel(op))
        ops.push_back(op);
    });
    for (linalg::LinalgOp op : ops)
      rewrite(op);
  }

  Vars varsOf(linalg::LinalgOp op, int64_t chunk, int64_t span) {
    Vars vars;
    vars.numLoops = op.getNumLoops();
    op.getBlock()->walk([&](scf::ForOp loop) { vars.bodyLoops.push_back(loop); });
    AffineMap out = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
    unsigned n = out.getNumResults();
    vars.px = cast<AffineDimExpr>(out.getResult(n - 1)).getPosition();
    vars.py = cast<AffineDimExpr>(out.getResult(n - 2)).getPosition();
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    auto iters = op.getIteratorTypesArray();
    for (unsigned d = 0; d < vars.numLoops; ++d) {
      std::optional<int64_t> extent;
      if (int64_t(d) == vars.px || int64_t(d) == vars.py)
        extent = span;
      else if (iters[d] == utils::IteratorType::parallel)
        extent = 1;
      else if (vars.r0 < 0) {
        vars.r0 = d;
        extent = chunk;
      } else if (!ShapedType::isDynamic(ranges[d]))
        extent = ranges[d];
      vars.stageExtent.push_back(extent);
    }
    for (scf::ForOp loop : vars.bodyLoops) {
      auto lb = constantOf(loop.getLowerBound()), ub = constantOf(loop.getUpperBound()),
           step = constantOf(loop.getStep());
      std::optional<int64_t> extent;
      if (lb == 0 && step == 1 && ub && *ub > 0)
        extent = *ub;
      vars.stageExtent.push_back(extent);
    }
    return vars;
  }

  /// The inputs worth staging for a reduction chunk of `chunk` and blocks of
  /// `span` x `span` outputs.
  SmallVector<Staged, 4> plan(linalg::LinalgOp op, int64_t chunk, int64_t span,
                              Vars &vars) {
    vars = varsOf(op, chunk, span);
    Value outRoot = rootOf(op.getDpsInits()[0]);
    // Accesses per source: the op's inputs by their maps, and memref.load in
    // the body of buffers defined outside it.
    llvm::MapVector<Value, SmallVector<SmallVector<Form>>> accesses;
    llvm::DenseSet<Value> rejected;
    auto add = [&](Value source, SmallVector<Form> forms, size_t rank) {
      if (forms.size() != rank)
        rejected.insert(source); // a subscript that is not affine
      else
        accesses[source].push_back(std::move(forms));
    };
    for (OpOperand *in : op.getDpsInputOperands()) {
      if (!isa<MemRefType>(in->get().getType()))
        continue;
      SmallVector<Form> forms;
      AffineMap map = op.getMatchingIndexingMap(in);
      for (AffineExpr e : map.getResults())
        if (auto f = formOf(e, vars))
          forms.push_back(*f);
      add(in->get(), forms, map.getNumResults());
    }
    op.getBlock()->walk([&](Operation *inner) {
      for (Value v : inner->getOperands()) {
        if (!isa<MemRefType>(v.getType()) ||
            op->isAncestor(v.getParentBlock()->getParentOp()))
          continue;
        auto load = dyn_cast<memref::LoadOp>(inner);
        if (!load) {
          rejected.insert(v); // written or viewed in the body
          continue;
        }
        SmallVector<Form> forms;
        for (Value i : load.getIndices())
          if (auto f = formOf(i, vars))
            forms.push_back(*f);
        add(v, forms, load.getIndices().size());
      }
    });
    SmallVector<Staged, 4> staged;
    for (auto &[source, list] : accesses) {
      if (rejected.contains(source) || rootOf(source) == outRoot)
        continue;
      if (auto s = planStaged(source, list, vars, span))
        staged.push_back(*s);
    }
    return staged;
  }

  /// `acc + a * b`, the step of a contraction, may fuse into an FMA (nvcc's
  /// default; the CPU's matmul uses FMAs too). Nothing else in the body gets
  /// the contract flag: values such as `normal`'s must round as written.
  static void allowFMA(Value result, Value acc) {
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

  void rewrite(linalg::LinalgOp op) {
    Location loc = op.getLoc();
    MLIRContext *ctx = &getContext();
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    bool hasReduction = op.getNumReductionLoops() > 0;
    int64_t chunk = 1;
    if (hasReduction) {
      unsigned r0 = 0;
      while (op.getIteratorTypesArray()[r0] != utils::IteratorType::reduction)
        ++r0;
      chunk = ShapedType::isDynamic(ranges[r0]) ? 16
                                                : std::clamp<int64_t>(ranges[r0], 1, 16);
    }
    // Contractions big enough give each thread R x R outputs (register
    // tiling: each value read from shared memory serves R outputs).
    int64_t R = 1;
    if (hasReduction) {
      Vars probe = varsOf(op, chunk, tile);
      auto bigEnough = [&](int64_t d) {
        return ShapedType::isDynamic(ranges[d]) ||
               ranges[d] >= 2 * tile * outputsPerThread;
      };
      if (outputsPerThread > 1 && bigEnough(probe.px) && bigEnough(probe.py))
        R = outputsPerThread;
    }
    int64_t span = tile * R;
    // Halve the chunk until the staged inputs fit, then drop the largest.
    Vars vars;
    SmallVector<Staged, 4> staged = plan(op, chunk, span, vars);
    auto total = [&] {
      int64_t sum = 0;
      for (Staged &s : staged)
        sum += s.bytes();
      return sum;
    };
    while (total() > kSharedBudgetBytes && chunk > 1)
      staged = plan(op, chunk /= 2, span, vars);
    llvm::sort(staged, [](const Staged &a, const Staged &b) {
      return a.bytes() < b.bytes();
    });
    while (total() > kSharedBudgetBytes)
      staged.pop_back();

    OpBuilder b(op);
    auto cidx = [&](OpBuilder &bb, int64_t v) -> Value {
      return arith::ConstantIndexOp::create(bb, loc, v);
    };
    SmallVector<Value> extents;
    for (Range &r : op.createLoopRanges(b, loc))
      extents.push_back(getValueOrCreateConstantIndexOp(b, loc, r.size));
    Value out = op.getDpsInits()[0];
    Type elemType = getElementTypeOrSelf(out.getType());

    std::optional<Value> fillValue = ::tdsl::takeInitFill(op);

    Value T = cidx(b, tile);
    Value S = cidx(b, span);
    SmallVector<unsigned> outer;
    for (unsigned d = 0; d < vars.numLoops; ++d)
      if (op.getIteratorTypesArray()[d] == utils::IteratorType::parallel &&
          int64_t(d) != vars.px && int64_t(d) != vars.py)
        outer.push_back(d);
    // All blocks along x (CUDA allows 2^31 - 1 there, 65535 along y and z):
    // block = (outer * tilesY + tileY) * tilesX + tileX.
    Value outerCount = cidx(b, 1);
    for (unsigned d : outer)
      outerCount = arith::MulIOp::create(b, loc, outerCount, extents[d]);
    Value tilesX = arith::CeilDivUIOp::create(b, loc, extents[vars.px], S);
    Value tilesY = arith::CeilDivUIOp::create(b, loc, extents[vars.py], S);
    Value gridX = arith::MulIOp::create(
        b, loc, arith::MulIOp::create(b, loc, tilesX, tilesY), outerCount);
    SmallVector<Type> sharedTypes;
    auto workgroup = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
    for (Staged &s : staged)
      sharedTypes.push_back(MemRefType::get(
          s.shape, getElementTypeOrSelf(s.source.getType()), AffineMap(), workgroup));
    Value one = cidx(b, 1);
    auto launch = gpu::LaunchOp::create(b, loc, gridX, one, one, T, T, one,
                                        nullptr, nullptr, {}, sharedTypes);
    for (auto [s, arg] : llvm::zip(staged, launch.getWorkgroupAttributions()))
      s.shared = arg;

    OpBuilder kb = OpBuilder::atBlockBegin(&launch.getBody().front());
    Value zero = cidx(kb, 0);
    Value tx = launch.getThreadIds().x, ty = launch.getThreadIds().y;
    Value block = launch.getBlockIds().x;
    Value bx = arith::RemUIOp::create(kb, loc, block, tilesX);
    Value rest = arith::DivUIOp::create(kb, loc, block, tilesX);
    Value by = arith::RemUIOp::create(kb, loc, rest, tilesY);
    rest = arith::DivUIOp::create(kb, loc, rest, tilesY);
    SmallVector<Value> dims(vars.numLoops, zero), bases(vars.size(), zero);
    Value kT = cidx(kb, tile), kS = cidx(kb, span);
    bases[vars.px] = arith::MulIOp::create(kb, loc, bx, kS);
    bases[vars.py] = arith::MulIOp::create(kb, loc, by, kS);
    for (unsigned d : llvm::reverse(outer)) {
      dims[d] = arith::RemUIOp::create(kb, loc, rest, extents[d]);
      bases[d] = dims[d];
      rest = arith::DivUIOp::create(kb, loc, rest, extents[d]);
    }
    // Thread (tx, ty) owns outputs (py, px) = base + (ty + r T, tx + c T),
    // r, c < R: consecutive threads still read consecutive elements.
    unsigned numOutputs = R * R;
    SmallVector<Value> outPx(numOutputs), outPy(numOutputs), valid(numOutputs);
    SmallVector<SmallVector<Value>> outIdx(numOutputs);
    Value elemZero =
        arith::ConstantOp::create(kb, loc, cast<TypedAttr>(kb.getZeroAttr(elemType)));
    SmallVector<Value> acc0(numOutputs);
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
    Value tid = arith::AddIOp::create(kb, loc, arith::MulIOp::create(kb, loc, ty, kT), tx);

    // Copies the boxes of `group` (origin at `bases`) into shared memory.
    auto stage = [&](OpBuilder &sb, bool r0Group) {
      for (Staged &s : staged) {
        if (s.usesR0 != r0Group)
          continue;
        s.origin.clear();
        for (unsigned j = 0; j < s.shape.size(); ++j) {
          Value o = cidx(sb, s.minConstant[j]);
          for (unsigned v = 0; v < vars.size(); ++v)
            if (s.coef[j][v])
              o = arith::AddIOp::create(
                  sb, loc, o,
                  arith::MulIOp::create(sb, loc, bases[v], cidx(sb, s.coef[j][v])));
          s.origin.push_back(o);
        }
        auto loop = scf::ForOp::create(sb, loc, tid, cidx(sb, s.elements()),
                                       cidx(sb, tile * tile));
        OpBuilder lb = OpBuilder::atBlockBegin(loop.getBody());
        Type srcElem = getElementTypeOrSelf(s.source.getType());
        SmallVector<Value> local(s.shape.size()), global(s.shape.size());
        Value r = loop.getInductionVar();
        Value inBounds;
        for (unsigned j = s.shape.size(); j-- > 0;) {
          local[j] = j == 0 ? r : (Value)arith::RemUIOp::create(lb, loc, r, cidx(lb, s.shape[j]));
          if (j > 0)
            r = arith::DivUIOp::create(lb, loc, r, cidx(lb, s.shape[j]));
          global[j] = arith::AddIOp::create(lb, loc, s.origin[j], local[j]);
          Value size = memref::DimOp::create(lb, loc, s.source, j);
          Value ok = arith::AndIOp::create(
              lb, loc,
              arith::CmpIOp::create(lb, loc, arith::CmpIPredicate::sge, global[j],
                                    cidx(lb, 0)),
              arith::CmpIOp::create(lb, loc, arith::CmpIPredicate::slt, global[j], size));
          inBounds = inBounds ? (Value)arith::AndIOp::create(lb, loc, inBounds, ok) : ok;
        }
        auto ifIn = scf::IfOp::create(lb, loc, TypeRange{srcElem}, inBounds, true);
        OpBuilder tb = ifIn.getThenBodyBuilder();
        scf::YieldOp::create(tb, loc,
                             ValueRange{memref::LoadOp::create(tb, loc, s.source, global)});
        OpBuilder eb = ifIn.getElseBodyBuilder();
        scf::YieldOp::create(eb, loc, ValueRange{arith::ConstantOp::create(
                                          eb, loc, cast<TypedAttr>(eb.getZeroAttr(srcElem)))});
        memref::StoreOp::create(lb, loc, ifIn.getResult(0), s.shared, local);
      }
    };

    // Loads from shared memory at global subscripts `at`. A load of the
    // body (`checked`) reads global memory when `at` leaves the box: a
    // clamped subscript may; and so correctness never rests on the forms.
    // The op's inputs are read through affine maps, which stay inside.
    auto loadStaged = [&](OpBuilder &lb, Staged &s, ValueRange at,
                          bool checked) -> Value {
      SmallVector<Value> local;
      Value inBox;
      for (auto [j, g, o] : llvm::enumerate(at, s.origin)) {
        local.push_back(arith::SubIOp::create(lb, loc, g, o));
        if (!checked)
          continue;
        Value ok = arith::AndIOp::create(
            lb, loc,
            arith::CmpIOp::create(lb, loc, arith::CmpIPredicate::sge, local.back(),
                                  cidx(lb, 0)),
            arith::CmpIOp::create(lb, loc, arith::CmpIPredicate::slt, local.back(),
                                  cidx(lb, s.shape[j])));
        inBox = inBox ? (Value)arith::AndIOp::create(lb, loc, inBox, ok) : ok;
      }
      if (!checked)
        return memref::LoadOp::create(lb, loc, s.shared, local);
      Type elem = getElementTypeOrSelf(s.source.getType());
      auto ifIn = scf::IfOp::create(lb, loc, TypeRange{elem}, inBox, true);
      OpBuilder tb = ifIn.getThenBodyBuilder();
      scf::YieldOp::create(tb, loc, ValueRange{memref::LoadOp::create(tb, loc, s.shared, local)});
      OpBuilder eb = ifIn.getElseBodyBuilder();
      scf::YieldOp::create(eb, loc, ValueRange{memref::LoadOp::create(eb, loc, s.source, at)});
      return ifIn.getResult(0);
    };
    auto stagedFor = [&](Value source) -> Staged * {
      for (Staged &s : staged)
        if (s.source == source)
          return &s;
      return nullptr;
    };

    // One iteration of the op's body at `dims`, combining into `acc`.
    auto body = [&](OpBuilder &bb, Value acc) -> Value {
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
        Staged *s = stagedFor(in->get());
        map.map(arg, s ? loadStaged(bb, *s, at, /*checked=*/false)
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
        for (memref::LoadOp l : loads)
          if (Staged *s = stagedFor(l.getMemref())) {
            OpBuilder rb(l);
            Value fromShared = loadStaged(rb, *s, l.getIndices(), /*checked=*/true);
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
    };

    // Out-of-range outputs may compute without a guard when every input is
    // read from shared memory (inside the box: no fault) and the body cannot
    // trap (pure ops only); otherwise each output is guarded.
    bool unguarded = R > 1;
    for (OpOperand *in : op.getDpsInputOperands())
      if (isa<MemRefType>(in->get().getType()) && !stagedFor(in->get()))
        unguarded = false;
    for (Operation &inner : op.getBlock()->without_terminator())
      if (!isa<linalg::IndexOp>(inner) && !isPure(&inner))
        unguarded = false;

    // The loops over the reduction dimensions after r0, around the body of
    // each output.
    SmallVector<unsigned> otherReductions;
    for (unsigned d = 0; d < vars.numLoops; ++d)
      if (op.getIteratorTypesArray()[d] == utils::IteratorType::reduction &&
          int64_t(d) != vars.r0)
        otherReductions.push_back(d);
    auto allOutputs = [&](OpBuilder &ob, ValueRange accs) {
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
    };
    std::function<SmallVector<Value>(OpBuilder &, unsigned, ValueRange)> nest =
        [&](OpBuilder &nb, unsigned level, ValueRange accs) -> SmallVector<Value> {
      if (level == otherReductions.size())
        return allOutputs(nb, accs);
      unsigned d = otherReductions[level];
      auto loop = scf::ForOp::create(nb, loc, cidx(nb, 0), extents[d], cidx(nb, 1), accs);
      OpBuilder lb = OpBuilder::atBlockBegin(loop.getBody());
      dims[d] = loop.getInductionVar();
      scf::YieldOp::create(lb, loc, nest(lb, level + 1, loop.getRegionIterArgs()));
      return SmallVector<Value>(loop.getResults());
    };

    SmallVector<Value> result;
    if (vars.r0 >= 0) {
      stage(kb, /*r0Group=*/false);
      Value c = cidx(kb, chunk);
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
      {
        OpBuilder lb = OpBuilder::atBlockBegin(loop.getBody());
        dims[vars.r0] = arith::AddIOp::create(lb, loc, k0, loop.getInductionVar());
        scf::YieldOp::create(lb, loc, nest(lb, 0, loop.getRegionIterArgs()));
      }
      gpu::BarrierOp::create(cb, loc);
      scf::YieldOp::create(cb, loc, loop.getResults());
      result.assign(chunks.getResults().begin(), chunks.getResults().end());
    } else {
      stage(kb, /*r0Group=*/false);
      if (!staged.empty())
        gpu::BarrierOp::create(kb, loc);
      result = nest(kb, 0, acc0);
    }
    for (unsigned o = 0; o < numOutputs; ++o) {
      auto ifStore = scf::IfOp::create(kb, loc, valid[o], false);
      OpBuilder sb = ifStore.getThenBodyBuilder();
      memref::StoreOp::create(sb, loc, result[o], out, outIdx[o]);
    }
    gpu::TerminatorOp::create(kb, loc);

    // Buffers of the body are per thread: on the kernel's stack, made once,
    // when the body only reads, writes and frees them directly (no buffer
    // that a loop carries or that is freed through its base pointer).
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
    op->erase();
  }
};

} // namespace
