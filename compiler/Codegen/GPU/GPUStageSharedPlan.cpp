//===- GPUStageSharedPlan.cpp - What a T x T tile kernel stages -----------===//
//
// Each input's accesses, as affine forms over the op's loops and its body's
// loops, give the box a block reads per step; an input is staged when the
// box is reused enough and all boxes fit the shared-memory budget (the
// reduction chunk halves until they do, then the largest are dropped).
//
//===----------------------------------------------------------------------===//
#include "compiler/Codegen/GPU/GPUStageSharedPlan.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;
using namespace tdsl::stage_shared;

int64_t Staged::elements() const {
  int64_t n = 1;
  for (int64_t s : shape)
    n *= s;
  return n;
}

int64_t Staged::bytes() const {
  return elements() *
         int64_t((getElementTypeOrSelf(source.getType()).getIntOrFloatBitWidth() + 7) / 8);
}

const Staged *TileKernelPlan::stagedFor(Value source) const {
  for (const Staged &s : staged)
    if (s.source == source)
      return &s;
  return nullptr;
}

namespace {

/// An affine subscript: constant + sum of coef * variable. Variables are the
/// op's loops (0..numLoops-1) and the scf.for loops of its body after them.
struct Form {
  int64_t constant = 0;
  SmallVector<int64_t> coef;
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

} // namespace

static Vars varsOf(linalg::LinalgOp op, int64_t chunk, int64_t span) {
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
static SmallVector<Staged, 4> planInputs(linalg::LinalgOp op, int64_t chunk,
                                         int64_t span, Vars &vars) {
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

TileKernelPlan tdsl::stage_shared::planTileKernel(linalg::LinalgOp op,
                                                  int64_t tile,
                                                  int64_t outputsPerThread) {
  TileKernelPlan p;
  p.tile = tile;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  bool hasReduction = op.getNumReductionLoops() > 0;
  if (hasReduction) {
    unsigned r0 = 0;
    while (op.getIteratorTypesArray()[r0] != utils::IteratorType::reduction)
      ++r0;
    p.chunk = ShapedType::isDynamic(ranges[r0])
                  ? 16
                  : std::clamp<int64_t>(ranges[r0], 1, 16);
  }
  // Contractions big enough give each thread R x R outputs (register
  // tiling: each value read from shared memory serves R outputs).
  if (hasReduction) {
    Vars probe = varsOf(op, p.chunk, tile);
    auto bigEnough = [&](int64_t d) {
      return ShapedType::isDynamic(ranges[d]) ||
             ranges[d] >= 2 * tile * outputsPerThread;
    };
    if (outputsPerThread > 1 && bigEnough(probe.px) && bigEnough(probe.py))
      p.R = outputsPerThread;
  }
  p.span = tile * p.R;
  // Halve the chunk until the staged inputs fit, then drop the largest.
  p.staged = planInputs(op, p.chunk, p.span, p.vars);
  auto total = [&] {
    int64_t sum = 0;
    for (Staged &s : p.staged)
      sum += s.bytes();
    return sum;
  };
  while (total() > kSharedBudgetBytes && p.chunk > 1)
    p.staged = planInputs(op, p.chunk /= 2, p.span, p.vars);
  llvm::sort(p.staged, [](const Staged &a, const Staged &b) {
    return a.bytes() < b.bytes();
  });
  while (total() > kSharedBudgetBytes)
    p.staged.pop_back();
  return p;
}
