//===- TimeKernels.cpp - runtime timing of each kernel, with its work ------===//
#include "compiler/Codegen/LoweringUtils.h"
#include "compiler/Codegen/Passes.h"
#include "compiler/Codegen/RuntimeCalls.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace tdsl {
#define GEN_PASS_DEF_TIMEKERNELS
#include "compiler/Codegen/Passes.h.inc"
} // namespace tdsl

using namespace mlir;

namespace {

/// Arithmetic ops per iteration of a linalg op's body.
int64_t opsPerIteration(linalg::LinalgOp op) {
  int64_t n = 0;
  op->walk([&](Operation *inner) {
    if (inner == op.getOperation())
      return;
    Dialect *d = inner->getDialect();
    if (isa_and_nonnull<math::MathDialect>(d) ||
        (isa_and_nonnull<arith::ArithDialect>(d) && !isa<arith::ConstantOp>(inner) &&
         !isa<arith::IndexCastOp, arith::IndexCastUIOp>(inner) &&
         !llvm::any_of(inner->getResultTypes(),
                       [](Type t) { return t.isIndex(); })))
      ++n;
  });
  // Named ops (matmul, fill) have no region in this walk's reach.
  if (n == 0 && isa<linalg::MatmulOp, linalg::MatvecOp, linalg::VecmatOp>(op))
    n = 2;
  return n;
}

Value f64(OpBuilder &b, Location loc, Value index) {
  Value i = arith::IndexCastOp::create(b, loc, b.getI64Type(), index);
  return arith::SIToFPOp::create(b, loc, b.getF64Type(), i);
}

/// Number of elements of a shaped value, as an f64.
Value numElements(OpBuilder &b, Location loc, Value v) {
  auto st = cast<ShapedType>(v.getType());
  Value n = arith::ConstantOp::create(b, loc, b.getF64FloatAttr(1.0));
  for (int64_t d = 0; d < st.getRank(); ++d) {
    Value size = st.isDynamicDim(d)
                     ? f64(b, loc, tensor::DimOp::create(b, loc, v, d))
                     : (Value)arith::ConstantOp::create(
                           b, loc, b.getF64FloatAttr(st.getDimSize(d)));
    n = arith::MulFOp::create(b, loc, n, size);
  }
  return n;
}

} // namespace

std::pair<Value, Value> tdsl::buildKernelWork(OpBuilder &b, Location loc,
                                              linalg::LinalgOp op) {
  // Work = iterations x ops per iteration; iterations from the loop ranges,
  // read off the operands' shapes.
  SmallVector<Range> ranges = op.createLoopRanges(b, loc);
  Value iters = arith::ConstantOp::create(b, loc, b.getF64FloatAttr(1.0));
  for (Range &r : ranges)
    iters = arith::MulFOp::create(
        b, loc, iters, f64(b, loc, getValueOrCreateConstantIndexOp(b, loc, r.size)));
  Value flops = arith::MulFOp::create(
      b, loc, iters,
      arith::ConstantOp::create(b, loc, b.getF64FloatAttr(opsPerIteration(op))));
  Value bytes = arith::ConstantOp::create(b, loc, b.getF64FloatAttr(0.0));
  for (OpOperand &operand : op->getOpOperands()) {
    auto st = dyn_cast<ShapedType>(operand.get().getType());
    if (!st || !st.getElementType().isIntOrFloat())
      continue;
    Value elems = numElements(b, loc, operand.get());
    Value size = arith::ConstantOp::create(
        b, loc, b.getF64FloatAttr((st.getElementTypeBitWidth() + 7) / 8));
    bytes = arith::AddFOp::create(b, loc, bytes,
                                  arith::MulFOp::create(b, loc, elems, size));
  }
  return {flops, bytes};
}

namespace {

struct TimeKernelsPass : ::tdsl::impl::TimeKernelsBase<TimeKernelsPass> {
  // A module pass: it adds runtime declarations and strings to the module,
  // which functions processed in parallel would race on.
  void runOnOperation() override {
    ModuleOp module = getOperation();
    ::tdsl::RuntimeCalls rt(module);
    for (auto fn : llvm::to_vector(module.getOps<func::FuncOp>()))
      if (!fn.isExternal())
        timeKernels(fn, rt);
  }

  void timeKernels(func::FuncOp fn, ::tdsl::RuntimeCalls &rt) {
    // Outermost kernels, also inside sequential loops and branches.
    SmallVector<Operation *> kernels;
    fn.walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (isa<linalg::FillOp>(op))
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
      b.setInsertionPoint(op);
      std::string name = ::tdsl::RuntimeCalls::kernelNameOf(loc);
      if (name.empty())
        name = fn.getSymName().str() + "." +
               op->getName().stripDialect().str();
      Value id = rt.call(b, loc, "tdsl_kernel_register", b.getI32Type(),
                         {rt.getString(b, loc, name), rt.getWhere(b, loc)})[0];
      Value t0 = rt.call(b, loc, "tdsl_kernel_begin", i64, {id})[0];
      b.setInsertionPointAfter(op);
      Value flops, bytes;
      if (auto lop = dyn_cast<linalg::LinalgOp>(op)) {
        std::tie(flops, bytes) = ::tdsl::buildKernelWork(b, loc, lop);
      } else {
        flops = arith::ConstantOp::create(b, loc, b.getF64FloatAttr(0.0));
        bytes = flops;
      }
      rt.call(b, loc, "tdsl_kernel_end", {}, {id, t0, flops, bytes});
    }
  }
};

} // namespace
