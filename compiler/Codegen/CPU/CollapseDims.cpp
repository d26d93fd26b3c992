//===- CollapseDims.cpp - loops merged where memory allows ----------------===//
//
// An element-wise op over [32, 64, 56, 56] vectorizes its innermost loop: 56
// elements are three vectors of 16 and a masked one, per row. Where every
// operand reads a run of loops contiguously (x[n, k, i, j] and b[k] both
// keep (i, j) together), the run becomes one loop (3136 = 196 vectors of
// 16, no masks) and the tiles and vectors work on longer rows. Runs of
// reduction loops too: a contraction over (c, i, j) of [32, 2, 2] steps
// through one loop of 128, where loops of 2 were unrolled by LLVM into
// copies of the register tile.
//
//===----------------------------------------------------------------------===//
#include "compiler/Codegen/CPU/Epilogue.h"
#include "compiler/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace tdsl {
#define GEN_PASS_DEF_COLLAPSEDIMS
#include "compiler/Codegen/CPU/Passes.h.inc"
} // namespace tdsl

using namespace mlir;

namespace {

/// The maximal runs of two or more consecutive loops of one kind (parallel
/// or reduction) that every indexing map of `op` keeps contiguous and in
/// order, each with at most one loop of run-time size: MLIR 22's
/// expand-strided-metadata crashes on a memref.expand_shape that expands
/// one dimension into two dynamic ones (when anything reads its strides),
/// which the result would need.
SmallVector<ReassociationIndices> contiguousRuns(linalg::GenericOp op) {
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<utils::IteratorType> kinds = op.getIteratorTypesArray();
  SmallVector<ReassociationIndices> runs;
  unsigned n = op.getNumLoops();
  for (unsigned start = 0; start < n;) {
    ReassociationIndices run{static_cast<int64_t>(start)};
    unsigned dynamic = ShapedType::isDynamic(ranges[start]);
    unsigned end = start + 1;
    for (; end < n; ++end) {
      ReassociationIndices longer = run;
      longer.push_back(end);
      bool isDynamic = ShapedType::isDynamic(ranges[end]);
      if (kinds[end] != kinds[start] || (isDynamic && dynamic) ||
          !linalg::areDimSequencesPreserved(maps, {longer}))
        break;
      dynamic += isDynamic;
      run = longer;
    }
    if (run.size() > 1)
      runs.push_back(run);
    start = end;
  }
  return runs;
}

struct CollapseDimsPass : tdsl::impl::CollapseDimsBase<CollapseDimsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<linalg::GenericOp> ops;
    getOperation().walk([&](linalg::GenericOp op) {
      // Broadcasts of a static 1 read a constant subscript, which
      // areDimSequencesPreserved does not account for. A slice's rows are
      // not contiguous in memory: collapsing it would copy it. A body that
      // reads its position would get it back by divisions (and a random
      // fill's [groups, slots, 16] loops would lose the structure that
      // lets its slots share a Philox block). An epilogue runs in its
      // contraction's tiles, on the contraction's loops. A split
      // reduction's loops are its blocks and lanes, which fix the order of
      // its sum.
      if (op.hasPureTensorSemantics() && op.getNumLoops() > 1 &&
          !op->hasAttr(tdsl::kEpilogueAttr) &&
          llvm::all_of(op.getIndexingMapsArray(),
                       [](AffineMap m) { return m.isProjectedPermutation(); }) &&
          llvm::none_of(op->getOperands(),
                        [](Value v) { return v.getDefiningOp<tensor::ExtractSliceOp>(); }) &&
          op.getBody()->getOps<linalg::IndexOp>().empty() &&
          !op->hasAttr("tdsl.split") && !op->hasAttr("tdsl.blocked_reduction") &&
          !op->getParentOfType<scf::ForallOp>() &&
          !op->getParentOfType<linalg::LinalgOp>())
        ops.push_back(op);
    });
    IRRewriter rw(&getContext());
    for (linalg::GenericOp op : ops) {
      SmallVector<ReassociationIndices> runs = contiguousRuns(op);
      if (runs.empty())
        continue;
      rw.setInsertionPoint(op);
      Attribute id = op->getAttr("tdsl.kernel_id");
      FailureOr<linalg::CollapseResult> collapsed =
          linalg::collapseOpIterationDims(op, runs, rw);
      if (failed(collapsed))
        continue;
      if (id)
        collapsed->collapsedOp->setAttr("tdsl.kernel_id", id);
      rw.replaceOp(op, collapsed->results);
    }
  }
};

} // namespace
