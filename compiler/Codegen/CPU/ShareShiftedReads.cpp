//===- ShareShiftedReads.cpp - stencil reads from two loads and shuffles ---===//
//
// A stencil's body reads the same row at neighbouring offsets: `a[i - 1]`,
// `a[i]` and `a[i + 1]` become three vector loads, two of them unaligned,
// per step. The loads at the lowest and highest offset hold every element
// the ones between them need, so those become shuffles of the two (one
// `vpermt2pd` each on AVX-512), as LLVM's own loop vectorizer does for
// such a loop in C: PolyBench's jacobi-1d sweep of 1998 f64 took 220 ns with
// three loads, a C loop vectorized with two loads and a shuffle 140 ns.
//
// Runs after bufferization, where reads of one buffer through different
// views share a root and their offsets from it are sums of view offsets
// times strides. A loop whose reads are masked (a size the vector length
// does not divide) is peeled first, so that its main part reads whole
// vectors: a lane of a masked read may be past the end of its row while
// the element it stands for is not.
//
//===----------------------------------------------------------------------===//
#include "compiler/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <map>

namespace tdsl {
#define GEN_PASS_DEF_SHARESHIFTEDREADS
#include "compiler/Codegen/CPU/Passes.h.inc"
} // namespace tdsl

using namespace mlir;

namespace {

/// An element offset from a buffer's root: a constant plus values times
/// coefficients (kept sorted by value, so equal sums compare equal).
struct Offset {
  int64_t constant = 0;
  std::map<void *, std::pair<Value, int64_t>> terms;

  void add(OpFoldResult ofr, int64_t scale) {
    if (std::optional<int64_t> c = getConstantIntValue(ofr)) {
      constant += *c * scale;
      return;
    }
    Value v = cast<Value>(ofr);
    auto &term = terms[v.getAsOpaquePointer()];
    term.first = v;
    term.second += scale;
    if (term.second == 0)
      terms.erase(v.getAsOpaquePointer());
  }
  /// The terms, comparable between offsets.
  SmallVector<std::pair<void *, int64_t>> key() const {
    SmallVector<std::pair<void *, int64_t>> k;
    for (auto &[p, term] : terms)
      k.push_back({p, term.second});
    return k;
  }
};

/// The static strides of `type`, or nothing.
std::optional<SmallVector<int64_t>> staticStrides(MemRefType type) {
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) ||
      llvm::any_of(strides, ShapedType::isDynamic))
    return std::nullopt;
  return strides;
}

/// The root buffer `view` is a view of (through subviews and casts), and
/// the offset of its first element from the root's, in elements.
std::optional<std::pair<Value, Offset>> rootOffset(Value view) {
  auto type = dyn_cast<MemRefType>(view.getType());
  if (!type)
    return std::nullopt;
  if (auto subview = view.getDefiningOp<memref::SubViewOp>()) {
    auto base = rootOffset(subview.getSource());
    std::optional<SmallVector<int64_t>> strides =
        staticStrides(subview.getSourceType());
    if (!base || !strides)
      return std::nullopt;
    for (auto [off, stride] : llvm::zip(subview.getMixedOffsets(), *strides))
      base->second.add(off, stride);
    return base;
  }
  if (auto cast = view.getDefiningOp<memref::CastOp>())
    return rootOffset(cast.getSource());
  // Anything else is a root; its own layout's offset is where its first
  // element is.
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) ||
      ShapedType::isDynamic(offset))
    return std::nullopt;
  Offset o;
  o.constant = offset;
  return std::make_pair(view, o);
}

/// The constant `v` holds, also as a constant affine.apply (which peeling
/// leaves for a bound it simplified).
std::optional<int64_t> constantIndex(Value v) {
  if (auto apply = v.getDefiningOp<affine::AffineApplyOp>())
    if (auto c = dyn_cast<AffineConstantExpr>(apply.getAffineMap().getResult(0)))
      return c.getValue();
  return getConstantIntValue(v);
}

/// Whether `mask` (of a transfer) is absent or sets every lane.
bool isFullMask(Value mask) {
  if (!mask)
    return true;
  auto shape = cast<VectorType>(mask.getType()).getShape();
  if (auto create = mask.getDefiningOp<vector::CreateMaskOp>())
    return llvm::all_of(llvm::zip(create.getOperands(), shape), [](auto p) {
      std::optional<int64_t> c = constantIndex(std::get<0>(p));
      return c && *c >= std::get<1>(p);
    });
  if (auto constant = mask.getDefiningOp<vector::ConstantMaskOp>())
    return llvm::equal(constant.getMaskDimSizes(), shape);
  return false;
}

/// With run-time strides: the root of `view` through subviews of unit
/// strides that keep the rank (and casts), and the offset of the view's
/// first element along each dimension of the root. All such views of one
/// root have its strides, whatever they are.
std::optional<std::pair<Value, SmallVector<Offset>>> rootDimOffsets(Value view) {
  auto type = dyn_cast<MemRefType>(view.getType());
  if (!type)
    return std::nullopt;
  if (auto subview = view.getDefiningOp<memref::SubViewOp>()) {
    if (subview.getSourceType().getRank() != type.getRank() ||
        !llvm::all_of(subview.getMixedStrides(), isOneInteger))
      return std::nullopt;
    auto base = rootDimOffsets(subview.getSource());
    if (!base)
      return std::nullopt;
    for (auto [d, off] : llvm::enumerate(subview.getMixedOffsets()))
      base->second[d].add(off, 1);
    return base;
  }
  if (auto cast = view.getDefiningOp<memref::CastOp>())
    return rootDimOffsets(cast.getSource());
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) || strides.empty() ||
      strides.back() != 1)
    return std::nullopt;
  return std::make_pair(view, SmallVector<Offset>(type.getRank()));
}

/// A read of `lanes` consecutive elements along a unit-stride dimension:
/// its root, the part of its offset from the root that is not a constant
/// along that dimension (`key`), and the constant (`constant`). Reads with
/// equal roots and keys read the same row, `constant` elements apart.
struct RowRead {
  vector::TransferReadOp op;
  Value root;
  SmallVector<std::pair<void *, int64_t>> key;
  int64_t constant;
};

/// A read this pass can share: all vector dimensions 1 but the last, which
/// reads along the buffer's unit-stride innermost dimension.
std::optional<RowRead> asRowRead(vector::TransferReadOp read) {
  auto memref = dyn_cast<MemRefType>(read.getBase().getType());
  VectorType vec = read.getVectorType();
  // A read that may be out of bounds pads lanes past its own view's end,
  // which a neighbouring view may hold: its lanes are not the row's.
  if (!memref || vec.getRank() == 0 || vec.isScalable() ||
      !read.getPermutationMap().isMinorIdentity() ||
      vec.getRank() != memref.getRank() || read.hasOutOfBoundsDim())
    return std::nullopt;
  if (llvm::any_of(vec.getShape().drop_back(), [](int64_t d) { return d != 1; }))
    return std::nullopt;
  // Static strides: the element offset from the root, through any views.
  std::optional<SmallVector<int64_t>> strides = staticStrides(memref);
  if (strides && strides->back() == 1)
    if (auto root = rootOffset(read.getBase())) {
      for (auto [index, stride] : llvm::zip(read.getIndices(), *strides))
        root->second.add(index, stride);
      return RowRead{read, root->first, root->second.key(), root->second.constant};
    }
  // Run-time strides: the offset along each dimension of the root; all but
  // the innermost must be equal, constants included.
  auto root = rootDimOffsets(read.getBase());
  if (!root)
    return std::nullopt;
  SmallVector<Offset> &dims = root->second;
  for (auto [d, index] : llvm::enumerate(read.getIndices()))
    dims[d].add(index, 1);
  SmallVector<std::pair<void *, int64_t>> key;
  for (unsigned d = 0; d < dims.size(); ++d) {
    key.push_back({nullptr, -1 - int64_t(d)}); // dimension d's terms follow
    if (d + 1 < dims.size())
      key.push_back({nullptr, dims[d].constant});
    llvm::append_range(key, dims[d].key());
  }
  return RowRead{read, root->first, key, dims.back().constant};
}

/// Whether `op` may write memory.
bool mayWrite(Operation *op) {
  if (isMemoryEffectFree(op))
    return false;
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects)
    return true;
  return effects.hasEffect<MemoryEffects::Write>() ||
         effects.hasEffect<MemoryEffects::Free>();
}

/// Groups of reads in `body` (before its first op that may write) of one
/// root at offsets that differ by constants smaller than a vector, three or
/// more to a group, sorted by offset. With `wholeOnly`, masked reads are
/// left out.
SmallVector<SmallVector<RowRead>> findGroups(Block *body, bool wholeOnly) {
  using Key = std::tuple<const void *, const void *,
                         SmallVector<std::pair<void *, int64_t>>>;
  std::map<Key, SmallVector<RowRead>> byKey;
  for (Operation &op : *body) {
    if (mayWrite(&op))
      break;
    auto read = dyn_cast<vector::TransferReadOp>(op);
    if (!read || (wholeOnly && !isFullMask(read.getMask())))
      continue;
    if (std::optional<RowRead> r = asRowRead(read))
      byKey[Key(r->root.getAsOpaquePointer(),
                read.getVectorType().getAsOpaquePointer(), r->key)]
          .push_back(*r);
  }
  SmallVector<SmallVector<RowRead>> groups;
  for (auto &[key, reads] : byKey) {
    llvm::stable_sort(reads, [](const RowRead &a, const RowRead &b) {
      return a.constant < b.constant;
    });
    int64_t lanes = reads.front().op.getVectorType().getShape().back();
    // Split where two neighbours are a vector or more apart.
    SmallVector<RowRead> group;
    auto flush = [&] {
      if (group.size() >= 3)
        groups.push_back(group);
      group.clear();
    };
    for (RowRead &r : reads) {
      if (!group.empty() &&
          r.constant - group.front().constant >= lanes)
        flush();
      if (!group.empty() && r.constant == group.back().constant)
        continue; // the same read twice: CSE's business
      group.push_back(r);
    }
    flush();
  }
  // In block order, so the output does not depend on where values live.
  llvm::sort(groups, [](const SmallVector<RowRead> &a, const SmallVector<RowRead> &b) {
    return a.front().op->isBeforeInBlock(b.front().op);
  });
  return groups;
}

/// Replaces the reads between the first and last of `group` by shuffles of
/// those two. Returns how many it replaced.
int shareGroup(SmallVector<RowRead> &group) {
  RowRead &low = group.front(), &high = group.back();
  Operation *after = low.op->isBeforeInBlock(high.op) ? high.op : low.op;
  VectorType type = low.op.getVectorType();
  int64_t lanes = type.getShape().back();
  auto flat = VectorType::get({lanes}, type.getElementType());
  int replaced = 0;
  for (RowRead &mid : MutableArrayRef(group).drop_front().drop_back()) {
    // Every use must come after both loads.
    if (llvm::any_of(mid.op->getUsers(), [&](Operation *user) {
          Operation *inBlock = after->getBlock()->findAncestorOpInBlock(*user);
          return !inBlock || !after->isBeforeInBlock(inBlock);
        }))
      continue;
    int64_t fromLow = mid.constant - low.constant;
    int64_t fromHigh = mid.constant - high.constant;
    SmallVector<int64_t> indices;
    for (int64_t l = 0; l < lanes; ++l)
      indices.push_back(l + fromLow < lanes ? l + fromLow : lanes + l + fromHigh);
    OpBuilder b(after->getContext());
    b.setInsertionPointAfter(after);
    Location loc = mid.op.getLoc();
    auto toFlat = [&](Value v) -> Value {
      return type.getRank() == 1 ? v
                                 : vector::ShapeCastOp::create(b, loc, flat, v);
    };
    Value shuffled = vector::ShuffleOp::create(b, loc, toFlat(low.op.getResult()),
                                               toFlat(high.op.getResult()), indices);
    if (type.getRank() != 1)
      shuffled = vector::ShapeCastOp::create(b, loc, type, shuffled);
    mid.op.getResult().replaceAllUsesWith(shuffled);
    mid.op.erase();
    ++replaced;
  }
  return replaced;
}

/// Whether the masks of the loop's masked groups all come from the size of
/// its own step (`vector.create_mask` of an `affine.min` of its induction
/// variable), which peeling turns into whole vectors in the main part.
bool masksAreThisLoopsTail(scf::ForOp loop) {
  for (SmallVector<RowRead> &group : findGroups(loop.getBody(), /*wholeOnly=*/false))
    for (RowRead &r : group) {
      Value mask = r.op.getMask();
      if (!mask || isFullMask(mask))
        continue;
      auto create = mask.getDefiningOp<vector::CreateMaskOp>();
      if (!create)
        return false;
      Value last = create.getOperands().back();
      auto min = last.getDefiningOp<affine::AffineMinOp>();
      if (!min || !llvm::is_contained(min.getOperands(), loop.getInductionVar()))
        return false;
    }
  return true;
}

struct ShareShiftedReadsPass
    : tdsl::impl::ShareShiftedReadsBase<ShareShiftedReadsPass> {
  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) {
      bool innermost = true;
      loop.getBody()->walk([&](LoopLikeOpInterface) { innermost = false; });
      if (innermost && !findGroups(loop.getBody(), /*wholeOnly=*/false).empty())
        loops.push_back(loop);
    });
    IRRewriter rewriter(&getContext());
    for (scf::ForOp loop : loops) {
      SmallVector<SmallVector<RowRead>> groups =
          findGroups(loop.getBody(), /*wholeOnly=*/true);
      if (groups.empty() && masksAreThisLoopsTail(loop)) {
        // Masked reads: the main part of the peeled loop reads whole
        // vectors (its affine.min becomes the step).
        scf::ForOp partial;
        rewriter.setInsertionPoint(loop);
        if (failed(scf::peelForLoopAndSimplifyBounds(rewriter, loop, partial)))
          continue;
        groups = findGroups(loop.getBody(), /*wholeOnly=*/true);
      }
      for (SmallVector<RowRead> &group : groups)
        shareGroup(group);
    }
  }
};

} // namespace
