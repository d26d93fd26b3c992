//===- Differentiate.cpp - tdsl.grad to calls of gradient functions -------===//
//
// One gradient function per differentiated function: a copy of it with its
// calls inlined (the adjoint needs every primal value in one block), then
// the reverse sweep (ReverseMode.h) from the result back to the first
// argument.
//
//===----------------------------------------------------------------------===//
#include "dialects/TDSL/Transforms/Passes.h"
#include "dialects/TDSL/IR/TDSLOps.h"
#include "dialects/TDSL/Transforms/ReverseMode.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/InliningUtils.h"

#include "llvm/ADT/SetVector.h"

#include <map>

namespace tdsl {
#define GEN_PASS_DEF_DIFFERENTIATE
#include "dialects/TDSL/Transforms/Passes.h.inc"
} // namespace tdsl

using namespace mlir;
using namespace tdsl::ir;

/// Fails, at the call that closes the cycle, if `fn` can reach itself or a
/// function its calls reach can (the gradient inlines every call).
static LogicalResult checkNoRecursion(func::FuncOp fn, SymbolTable &symbols,
                                      llvm::SetVector<Operation *> &stack) {
  stack.insert(fn);
  WalkResult result = fn.walk([&](func::CallOp call) {
    auto callee = symbols.lookup<func::FuncOp>(call.getCallee());
    if (!callee || callee.isExternal()) {
      call.emitError("cannot differentiate a call of '")
          << call.getCallee() << "': it is not a TDSL function";
      return WalkResult::interrupt();
    }
    if (stack.contains(callee)) {
      call.emitError("cannot differentiate the recursive call of '")
          << call.getCallee() << "'";
      return WalkResult::interrupt();
    }
    return failed(checkNoRecursion(callee, symbols, stack))
               ? WalkResult::interrupt()
               : WalkResult::advance();
  });
  stack.pop_back();
  return failure(result.wasInterrupted());
}

/// Inlines every call in `fn`, callees' calls too (there is no recursion).
static LogicalResult inlineCalls(func::FuncOp fn, SymbolTable &symbols) {
  InlinerInterface interface(fn.getContext());
  auto clone = [](OpBuilder &, Region *src, Block *inlineBlock,
                  Block *postInsertBlock, IRMapping &mapper, bool shouldClone) {
    if (shouldClone)
      src->cloneInto(inlineBlock->getParent(), postInsertBlock->getIterator(),
                     mapper);
    else
      inlineBlock->getParent()->getBlocks().splice(
          postInsertBlock->getIterator(), src->getBlocks());
  };
  for (;;) {
    SmallVector<func::CallOp> calls;
    fn.walk([&](func::CallOp call) { calls.push_back(call); });
    if (calls.empty())
      return success();
    for (func::CallOp call : calls) {
      auto callee = symbols.lookup<func::FuncOp>(call.getCallee());
      if (failed(inlineCall(interface, clone, call, callee,
                            &callee.getBody())))
        return call.emitError("cannot inline the call of '")
               << call.getCallee() << "' to differentiate it";
      call.erase();
    }
  }
}


/// `@<name>_grad` (`@<name>_grad<N>` for N > 1): the gradient of `fn` with
/// respect to its first `n` arguments, one result each.
static FailureOr<func::FuncOp> buildGradient(func::FuncOp fn, unsigned n,
                                             SymbolTable &symbols) {
  llvm::SetVector<Operation *> stack;
  if (failed(checkNoRecursion(fn, symbols, stack)))
    return failure();
  func::FuncOp grad = fn.clone();
  grad.setSymName((fn.getSymName() + "_grad" +
                   (n == 1 ? std::string() : std::to_string(n)))
                      .str());
  grad.setPrivate();
  symbols.insert(grad, std::next(Block::iterator(fn)));
  if (failed(inlineCalls(grad, symbols)))
    return failure();
  raiseAffineReads(grad);
  if (!grad.getBody().hasOneBlock())
    return fn.emitError("cannot differentiate '")
           << fn.getSymName() << "': its body is not one block";
  Block &body = grad.getBody().front();
  // Output is not part of the gradient: say so once per op.
  SmallVector<Operation *> effects;
  grad.walk([&](Operation *op) {
    if (isa<PrintOp, SaveOp>(op))
      effects.push_back(op);
  });
  for (Operation *op : effects) {
    op->emitWarning("'")
        << (isa<PrintOp>(op) ? "print" : "save")
        << "' does not run when the gradient of '" << fn.getSymName()
        << "' is computed";
    op->erase();
  }
  auto ret = cast<func::ReturnOp>(body.getTerminator());
  Value loss = ret.getOperand(0);
  OpBuilder b(ret);
  Value one = ConstantOp::create(b, ret.getLoc(),
                                 FloatAttr::get(loss.getType(), 1.0));
  ReverseSweep sweep(fn.getContext());
  auto seeds = body.getArguments().take_front(n);
  FailureOr<SmallVector<Value>> adjoints =
      sweep.run(body, ValueRange{loss}, ValueRange{one}, ValueRange(seeds),
                /*after=*/nullptr);
  if (failed(adjoints))
    return failure();
  b.setInsertionPoint(ret);
  SmallVector<Value> results;
  for (auto [adjoint, seed] : llvm::zip(*adjoints, seeds))
    results.push_back(adjoint ? adjoint : zerosLike(b, ret.getLoc(), seed));
  ret->setOperands(results);
  // The primal values the adjoint does not read (the loss itself, often).
  SmallVector<Operation *> ops;
  for (Operation &op : body.without_terminator())
    ops.push_back(&op);
  for (Operation *op : llvm::reverse(ops))
    if (isOpTriviallyDead(op))
      op->erase();
  grad.setType(FunctionType::get(fn.getContext(),
                                 grad.getFunctionType().getInputs(),
                                 ValueRange(results).getTypes()));
  return grad;
}

namespace {
struct DifferentiatePass
    : tdsl::impl::DifferentiateBase<DifferentiatePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<GradOp> grads;
    module.walk([&](GradOp op) { grads.push_back(op); });
    if (grads.empty())
      return;
    SymbolTable symbols(module);
    // One gradient function per callee and number of differentiated
    // arguments.
    std::map<std::pair<std::string, unsigned>, func::FuncOp> made;
    for (GradOp op : grads) {
      unsigned n = op.getNumResults();
      func::FuncOp &grad = made[{op.getCallee().str(), n}];
      if (!grad) {
        auto fn = symbols.lookup<func::FuncOp>(op.getCallee());
        FailureOr<func::FuncOp> built =
            fn ? buildGradient(fn, n, symbols) : FailureOr<func::FuncOp>();
        if (failed(built)) {
          if (!fn)
            op.emitError("no function '") << op.getCallee() << "'";
          return signalPassFailure();
        }
        grad = *built;
        // The gradient is built by hand here, and later passes assume
        // valid IR (tdslc verifies once, at the end): a gap in the rules
        // must be an error at the call, not a crash further down.
        if (failed(verify(grad))) {
          op.emitError("internal error: the gradient of '")
              << op.getCallee() << "' is not valid IR (please report it)";
          return signalPassFailure();
        }
      }
      OpBuilder b(op);
      auto call = func::CallOp::create(b, op.getLoc(), grad, op.getArgs());
      op.replaceAllUsesWith(call.getResults());
      op.erase();
    }
  }
};
} // namespace
