//===- GuardRecursion.cpp - recursive functions check the stack -------------===//
//
// A recursion too deep for the stack (a runaway one, or a deep one at -O0,
// whose frames are bigger) crashed on the stack's guard page: a segfault
// and a stack dump. Recursive functions now check what is left of the stack
// on entry and stop with a located error instead. Every other call has been
// inlined by now, so only recursive functions pay for the check.
//
//===----------------------------------------------------------------------===//
#include "compiler/Codegen/Common/Passes.h"
#include "compiler/Codegen/Common/RuntimeCalls.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include "llvm/ADT/DenseSet.h"

namespace tdsl {
#define GEN_PASS_DEF_GUARDRECURSION
#include "compiler/Codegen/Common/Passes.h.inc"
} // namespace tdsl

using namespace mlir;

namespace {
/// What must be left of a thread's stack on entry: room for the function's
/// frame and for printing the error (the runtime finds each thread's own
/// stack: the main thread's is the shell's limit, a TBB worker's TBB's).
constexpr int64_t kStackReserve = 256 * 1024;

struct GuardRecursionPass
    : tdsl::impl::GuardRecursionBase<GuardRecursionPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    llvm::DenseMap<Operation *, SmallVector<func::FuncOp>> callees;
    module.walk([&](func::CallOp call) {
      auto caller = call->getParentOfType<func::FuncOp>();
      auto callee = module.lookupSymbol<func::FuncOp>(call.getCallee());
      if (caller && callee && !callee.isExternal())
        callees[caller].push_back(callee);
    });
    auto reachesItself = [&](func::FuncOp fn) {
      llvm::DenseSet<Operation *> seen;
      SmallVector<func::FuncOp> work(callees.lookup(fn));
      while (!work.empty()) {
        func::FuncOp f = work.pop_back_val();
        if (f == fn)
          return true;
        if (seen.insert(f).second)
          llvm::append_range(work, callees.lookup(f));
      }
      return false;
    };
    tdsl::RuntimeCalls rt(module);
    for (auto fn : module.getOps<func::FuncOp>()) {
      if (fn.isExternal() || !reachesItself(fn))
        continue;
      Location loc = fn.getLoc();
      OpBuilder b = OpBuilder::atBlockBegin(&fn.getBody().front());
      Value left =
          rt.call(b, loc, tdsl::RuntimeFn::tdsl_stack_left, {}).front();
      Value low = arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::slt, left,
          arith::ConstantIntOp::create(b, loc, kStackReserve, 64));
      // A generic function's instance is `r$Model`: the user wrote `r`.
      std::string message =
          ("the recursion of '" + fn.getSymName().split('$').first +
           "' is too deep: the stack is exhausted")
              .str();
      auto check = scf::IfOp::create(b, loc, low, /*withElseRegion=*/false);
      check->setAttr("tdsl.check", b.getStringAttr(message));
      b.setInsertionPointToStart(check.thenBlock());
      rt.call(b, loc, tdsl::RuntimeFn::tdsl_fatal,
              {rt.getErrorWhere(b, loc), rt.getString(b, loc, message)});
    }
  }
};
} // namespace
