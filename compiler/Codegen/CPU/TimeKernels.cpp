//===- TimeKernels.cpp - runtime timing of each kernel, with its work ------===//
#include "compiler/Codegen/Common/KernelInfo.h"
#include "compiler/Codegen/CPU/Epilogue.h"
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
    for (auto fn : llvm::to_vector(module.getOps<func::FuncOp>()))
      if (!fn.isExternal())
        timeKernels(fn, rt);
  }

  /// The address of a new i32 global holding -1, where the runtime keeps a
  /// launch site's kernel id after its first launch (a registration looks
  /// the name up in a map: in a loop of small kernels it cost as much as
  /// the kernels).
  Value idSlot(OpBuilder &b, Location loc) {
    ModuleOp module = getOperation();
    std::string name;
    do
      name = "__tdsl_kernel_id_" + std::to_string(slots++);
    while (module.lookupSymbol(name));
    OpBuilder mb(module.getContext());
    mb.setInsertionPointToStart(module.getBody());
    LLVM::GlobalOp::create(mb, loc, mb.getI32Type(), /*isConstant=*/false,
                           LLVM::Linkage::Internal, name,
                           mb.getI32IntegerAttr(-1));
    return LLVM::AddressOfOp::create(
        b, loc, LLVM::LLVMPointerType::get(b.getContext()), name);
  }
  unsigned slots = 0;

  void timeKernels(func::FuncOp fn, tdsl::RuntimeCalls &rt) {
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
      // The id is looked up before the loops and branches around the
      // kernel: its first lookup registers the kernel (a microsecond), which
      // must not fall between two launches that share a clock read
      // (tdsl-chain-kernel-clocks).
      Operation *site = op;
      while (site->getParentOp() != fn)
        site = site->getParentOp();
      b.setInsertionPoint(site);
      std::string name = tdsl::RuntimeCalls::kernelNameOf(loc);
      if (name.empty())
        name = fn.getSymName().str() + "." +
               op->getName().stripDialect().str();
      Value slot = idSlot(b, loc);
      Value id = rt.call(b, loc, tdsl::RuntimeFn::tdsl_kernel_id,
                         {slot, rt.getString(b, loc, name), rt.getWhere(b, loc)})[0];
      b.setInsertionPoint(op);
      Value t0 = rt.call(b, loc, tdsl::RuntimeFn::tdsl_kernel_begin, {id})[0];
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
      rt.call(b, loc, tdsl::RuntimeFn::tdsl_kernel_end, {id, t0, flops, bytes});
    }
  }
};

} // namespace
