//===- KernelInfo.cpp - Kernel names, work and allocation sites -------------===//
#include "compiler/Codegen/Common/KernelInfo.h"

#include "llvm/Support/MathExtras.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;

Location tdsl::kernelLoc(Operation *op, StringRef kind) {
  std::string fn = "kernel";
  if (auto f = op->getParentOfType<FunctionOpInterface>())
    fn = f.getName().str();
  return NameLoc::get(StringAttr::get(op->getContext(), fn + "." + kind),
                      op->getLoc());
}

/// Buffers smaller than this cannot plausibly exhaust memory; leaving them
/// alone keeps small allocations in hot loops free of the extra call.
static constexpr int64_t kMinLocatedBytes = 1 << 20;

bool tdsl::mayExhaustMemory(MemRefType type) {
  if (!type.hasStaticShape())
    return true;
  Type elem = type.getElementType();
  unsigned bits = elem.isIntOrFloat() ? elem.getIntOrFloatBitWidth() : 64; // index
  // Saturated: sizes such as [2^32, 2^32] overflow an i64.
  int64_t bytes = std::max(bits / 8, 1u);
  for (int64_t d : type.getShape())
    if (llvm::MulOverflow(bytes, d, bytes))
      return true;
  return bytes >= kMinLocatedBytes;
}

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
                                              linalg::LinalgOp op,
                                              Value skip) {
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
    if (!st || !st.getElementType().isIntOrFloat() || operand.get() == skip)
      continue;
    Value elems = numElements(b, loc, operand.get());
    Value size = arith::ConstantOp::create(
        b, loc, b.getF64FloatAttr((st.getElementTypeBitWidth() + 7) / 8));
    bytes = arith::AddFOp::create(b, loc, bytes,
                                  arith::MulFOp::create(b, loc, elems, size));
  }
  return {flops, bytes};
}

