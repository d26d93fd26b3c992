//===- ChainKernelClocks.cpp - one clock read between back-to-back kernels -===//
//
// A launch reads the clock when it begins and when it ends. When a kernel
// begins right after another ends (a stencil's two sweeps in a time loop),
// the second read is redundant: tdsl_kernel_end returns its time, and the
// next kernel starts from it. On VMs whose clock source is kvm-clock a read
// costs 25-30 ns, a tenth of a 2000-element sweep. A loop whose body
// begins with a launch and ends with one carries the last end time into
// the next iteration, so a time loop of sweeps reads the clock once per
// sweep.
//
//===----------------------------------------------------------------------===//
#include "compiler/Codegen/CPU/Passes.h"
#include "compiler/Codegen/Common/RuntimeCalls.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace tdsl {
#define GEN_PASS_DEF_CHAINKERNELCLOCKS
#include "compiler/Codegen/CPU/Passes.h.inc"
} // namespace tdsl

using namespace mlir;

namespace {

bool isCallOf(Operation *op, tdsl::RuntimeFn fn) {
  auto call = dyn_cast_or_null<func::CallOp>(op);
  return call && call.getCallee() == tdsl::getRuntimeFnName(fn);
}

/// Whether `op` does no work at run time that a kernel's time could
/// include: no regions, and no memory effects but reads (a scalar load or
/// a view, not an allocation, a copy or a call).
bool doesNoWork(Operation *op) {
  if (op->getNumRegions() != 0)
    return false;
  if (isMemoryEffectFree(op))
    return true;
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects)
    return false;
  SmallVector<MemoryEffects::EffectInstance> list;
  effects.getEffects(list);
  return llvm::all_of(list, [](const MemoryEffects::EffectInstance &e) {
    return isa<MemoryEffects::Read>(e.getEffect());
  });
}

/// The tdsl_kernel_end call that `begin` follows with nothing between them
/// but ops that do no work (index arithmetic, views, loads), or null.
func::CallOp precedingEnd(func::CallOp begin) {
  for (Operation *op = begin->getPrevNode(); op; op = op->getPrevNode()) {
    if (isCallOf(op, tdsl::RuntimeFn::tdsl_kernel_end))
      return cast<func::CallOp>(op);
    if (!doesNoWork(op))
      return nullptr;
  }
  return nullptr;
}

/// In a loop whose body starts with a launch and ends with one (nothing
/// but ops that do no work before the first begin and after the last end),
/// the first kernel starts at the previous iteration's end: the end time is
/// carried in a new iter_arg, whose initial value is one clock read before
/// the loop.
void chainAcrossIterations(scf::ForOp loop) {
  Block *body = loop.getBody();
  func::CallOp begin, end;
  for (Operation &op : body->without_terminator()) {
    if (isCallOf(&op, tdsl::RuntimeFn::tdsl_kernel_begin))
      begin = cast<func::CallOp>(op);
    if (begin || !doesNoWork(&op))
      break;
  }
  for (Operation *op = body->getTerminator()->getPrevNode(); op;
       op = op->getPrevNode()) {
    if (isCallOf(op, tdsl::RuntimeFn::tdsl_kernel_end))
      end = cast<func::CallOp>(op);
    if (end || !doesNoWork(op))
      break;
  }
  // The begin's id must be available before the loop (TimeKernels looks
  // ids up before the outermost loop).
  if (!begin || !end || end.getNumResults() != 1 ||
      !begin.getOperand(0).getParentRegion()->isProperAncestor(&loop.getRegion()))
    return;
  IRRewriter rewriter(loop->getContext());
  rewriter.setInsertionPoint(loop);
  Value start = rewriter.clone(*begin)->getResult(0);
  FailureOr<LoopLikeOpInterface> chained = loop.replaceWithAdditionalYields(
      rewriter, start, /*replaceInitOperandUsesInLoop=*/false,
      [&](OpBuilder &, Location, ArrayRef<BlockArgument>) {
        return SmallVector<Value>{end.getResult(0)};
      });
  if (failed(chained))
    return;
  begin.getResult(0).replaceAllUsesWith(
      cast<scf::ForOp>(chained->getOperation()).getRegionIterArgs().back());
  begin.erase();
}

struct ChainKernelClocksPass
    : tdsl::impl::ChainKernelClocksBase<ChainKernelClocksPass> {
  void runOnOperation() override {
    SmallVector<func::CallOp> begins;
    getOperation().walk([&](func::CallOp call) {
      if (isCallOf(call, tdsl::RuntimeFn::tdsl_kernel_begin))
        begins.push_back(call);
    });
    for (func::CallOp begin : begins) {
      func::CallOp end = precedingEnd(begin);
      if (!end || end.getNumResults() != 1)
        continue;
      begin.getResult(0).replaceAllUsesWith(end.getResult(0));
      begin.erase();
    }
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) { loops.push_back(loop); });
    for (scf::ForOp loop : loops)
      chainAcrossIterations(loop);
  }
};

} // namespace
