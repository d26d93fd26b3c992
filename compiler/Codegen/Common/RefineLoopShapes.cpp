//===- RefineLoopShapes.cpp - static shapes for tensors carried by loops ----===//
//
// A tensor updated in a `for` loop (`b[i + 1, j + 1] = nb[i, j]`) is carried
// by an scf.for whose iteration argument MLIRGen types with run-time sizes.
// When the sizes provably stay those of the initial value (value-bounds
// analysis through the body: insert_slice keeps its destination's shape),
// the argument gets the static type, so that checks fold and reads become
// element-wise inputs inside the loop as they do outside.
//
//===----------------------------------------------------------------------===//
#include "compiler/Codegen/Common/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/ValueBoundsOpInterface.h"

namespace tdsl {
#define GEN_PASS_DEF_REFINELOOPSHAPES
#include "compiler/Codegen/Common/Passes.h.inc"
} // namespace tdsl

using namespace mlir;

namespace {

/// `arg`'s type with each run-time size replaced by the constant it
/// provably has on every trip, or null when none is known.
RankedTensorType refinedType(BlockArgument arg) {
  auto type = dyn_cast<RankedTensorType>(arg.getType());
  if (!type || type.hasStaticShape())
    return {};
  SmallVector<int64_t> shape(type.getShape());
  bool changed = false;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    if (!type.isDynamicDim(d))
      continue;
    FailureOr<int64_t> size = ValueBoundsConstraintSet::computeConstantBound(
        presburger::BoundType::EQ, ValueBoundsConstraintSet::Variable(arg, d));
    if (failed(size) || *size < 0)
      continue;
    shape[d] = *size;
    changed = true;
  }
  return changed ? RankedTensorType::get(shape, type.getElementType(), type.getEncoding())
                 : RankedTensorType();
}

struct RefineLoopShapesPass : tdsl::impl::RefineLoopShapesBase<RefineLoopShapesPass> {
  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) { loops.push_back(loop); });
    IRRewriter rw(&getContext());
    // Outer loops first: their refined values reach the inner loops' inits.
    for (scf::ForOp loop : loops)
      for (BlockArgument arg : loop.getRegionIterArgs())
        if (RankedTensorType type = refinedType(arg))
          refine(rw, loop, arg, type);
  }

  void refine(IRRewriter &rw, scf::ForOp loop, BlockArgument arg, RankedTensorType type) {
    Location loc = loop.getLoc();
    Type old = arg.getType();
    unsigned i = arg.getArgNumber() - loop.getNumInductionVars();
    OpOperand &init = loop.getInitArgsMutable()[i];
    OpResult result = loop->getResult(i);
    // The initial value, cast to the static type.
    rw.setInsertionPoint(loop);
    init.set(tensor::CastOp::create(rw, loc, type, init.get()));
    // In the body, a cast back for the existing users.
    arg.setType(type);
    rw.setInsertionPointToStart(loop.getBody());
    auto back = tensor::CastOp::create(rw, loc, old, arg);
    rw.replaceAllUsesExcept(arg, back, back);
    // The yielded value, cast to the static type.
    auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
    rw.setInsertionPoint(yield);
    OpOperand &yielded = yield->getOpOperand(i);
    yielded.set(tensor::CastOp::create(rw, loc, type, yielded.get()));
    // The result, cast back for the users after the loop.
    result.setType(type);
    rw.setInsertionPointAfter(loop);
    auto after = tensor::CastOp::create(rw, loc, old, result);
    rw.replaceAllUsesExcept(result, after, after);
  }
};

} // namespace
