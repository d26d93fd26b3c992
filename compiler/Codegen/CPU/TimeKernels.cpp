//===- TimeKernels.cpp - runtime timing of each kernel, with its work ------===//
#include "compiler/Codegen/Common/KernelInfo.h"
#include "compiler/Codegen/CPU/Epilogue.h"
#include "compiler/Codegen/CPU/KernelClock.h"
#include "compiler/Codegen/CPU/Passes.h"
#include "compiler/Codegen/Common/RuntimeCalls.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace tdsl {
#define GEN_PASS_DEF_TIMEKERNELS
#include "compiler/Codegen/CPU/Passes.h.inc"
} // namespace tdsl

using namespace mlir;

namespace {

struct TimeKernelsPass : tdsl::impl::TimeKernelsBase<TimeKernelsPass> {
  // A module pass: it adds runtime declarations and strings to the module,
  // which functions processed in parallel would race on.
  void runOnOperation() override {
    ModuleOp module = getOperation();
    tdsl::RuntimeCalls rt(module);
    tdsl::KernelClock clock(module, rt);
    for (auto fn : llvm::to_vector(module.getOps<func::FuncOp>()))
      if (!fn.isExternal())
        timeKernels(fn, clock);
  }

  void timeKernels(func::FuncOp fn, tdsl::KernelClock &clock) {
    // Outermost kernels, also inside sequential loops and branches.
    SmallVector<Operation *> kernels;
    fn.walk<WalkOrder::PreOrder>([&](Operation *op) {
      // An epilogue is timed with its contraction.
      if (isa<linalg::FillOp>(op) || op->hasAttr(tdsl::kEpilogueAttr))
        return WalkResult::skip();
      if (isa<linalg::LinalgOp, scf::ForallOp>(op)) {
        kernels.push_back(op);
        return WalkResult::skip();
      }
      return WalkResult::advance();
    });
    OpBuilder b(&getContext());
    Type i64 = b.getI64Type();
    unsigned counter = 0;
    for (Operation *op : kernels) {
      Location loc = op->getLoc();
      // Distinct kernels stay distinct: CSE would otherwise merge two
      // identical ones and leave one timed region empty.
      op->setAttr("tdsl.kernel_id",
                  b.getStringAttr(fn.getSymName() + "#" + Twine(counter++)));
      Operation *site = op;
      while (site->getParentOp() != fn)
        site = site->getParentOp();
      std::string name = tdsl::RuntimeCalls::kernelNameOf(loc);
      if (name.empty())
        name = fn.getSymName().str() + "." +
               op->getName().stripDialect().str();
      Value id = clock.id(b, site, loc, name);
      b.setInsertionPoint(op);
      Value t0 = clock.begin(b, loc, id);
      linalg::GenericOp epilogue = tdsl::epilogueOf(op);
      b.setInsertionPointAfter(epilogue ? epilogue.getOperation() : op);
      Value flops, bytes;
      if (auto lop = dyn_cast<linalg::LinalgOp>(op)) {
        std::tie(flops, bytes) = tdsl::buildKernelWork(b, loc, lop);
        if (epilogue) {
          // It updates the contraction's result, which the contraction's
          // bytes count already.
          auto [eflops, ebytes] =
              tdsl::buildKernelWork(b, loc, epilogue, op->getResult(0));
          flops = arith::AddFOp::create(b, loc, flops, eflops);
          bytes = arith::AddFOp::create(b, loc, bytes, ebytes);
          // Sizes read off the epilogue's result, of the same shape: the
          // contraction's result keeps the epilogue as its only use.
          op->getResult(0).replaceUsesWithIf(
              epilogue->getResult(0),
              [&](OpOperand &use) { return use.getOwner() != epilogue; });
        }
      } else {
        flops = arith::ConstantOp::create(b, loc, b.getF64FloatAttr(0.0));
        bytes = flops;
      }
      clock.end(b, loc, id, t0, flops, bytes);
    }
  }
};

} // namespace
