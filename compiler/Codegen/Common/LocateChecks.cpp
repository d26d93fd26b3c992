//===- LocateChecks.cpp - run-time errors name the calls they are in ------===//
//
// A run-time check gets its error's place when convert-tdsl-to-linalg makes
// it, before inlining: a shape check of nn.dense said where in nn.tdsl, not
// which of the program's calls failed. After inlining its location holds
// those calls; the place string is made again from it.
//
//===----------------------------------------------------------------------===//
#include "compiler/Codegen/Common/Passes.h"
#include "compiler/Codegen/Common/RuntimeCalls.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace tdsl {
#define GEN_PASS_DEF_LOCATECHECKS
#include "compiler/Codegen/Common/Passes.h.inc"
} // namespace tdsl

using namespace mlir;

namespace {
struct LocateChecksPass : tdsl::impl::LocateChecksBase<LocateChecksPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::CallOp> calls;
    module.walk([&](func::CallOp call) {
      if (call.getCallee() == "tdsl_fatal" && call.getNumOperands() == 2 &&
          tdsl::RuntimeCalls::hasCallers(call.getLoc()))
        calls.push_back(call);
    });
    if (calls.empty())
      return;
    tdsl::RuntimeCalls rt(module);
    OpBuilder b(&getContext());
    for (func::CallOp call : calls) {
      b.setInsertionPoint(call);
      Operation *old = call.getOperand(0).getDefiningOp();
      call->setOperand(0, rt.getErrorWhere(b, call.getLoc()));
      // The old place's address (its string stays, private, for LLVM to drop).
      if (old && old->use_empty())
        old->erase();
    }
  }
};
} // namespace
