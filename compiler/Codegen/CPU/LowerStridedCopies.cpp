//===- LowerStridedCopies.cpp - copies of strided buffers as loops ----------===//
//
// memref.copy between buffers of the same plain layout becomes a memcpy;
// any other (an update at an offset writes a slice whose rows are strided)
// becomes a call of MLIR's generic memrefCopy, which walks the elements one
// by one through their descriptors: ten times slower than a loop. Such
// copies become linalg.copy, lowered to loops whose rows LLVM turns into
// memcpy or vector moves.
//
// Large ones run in parallel, and are timed unless a kernel's timed region
// holds them: pad2d of an image that comes from outside (a function's
// argument, a load) is such a copy once bufferized (its index-notation
// update is an identity, which canonicalization folds into insert_slice),
// and it ran as a serial loop that the profile did not show, so the suite
// timed a convolution without its padding.
//
//===----------------------------------------------------------------------===//
#include "compiler/Codegen/CPU/KernelClock.h"
#include "compiler/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace tdsl {
#define GEN_PASS_DEF_LOWERSTRIDEDCOPIES
#include "compiler/Codegen/CPU/Passes.h.inc"
} // namespace tdsl

using namespace mlir;

namespace {

/// Whether a call of tdsl_kernel_begin comes before `op` with no
/// tdsl_kernel_end between them, in its block or around it.
bool inTimedRegion(Operation *op) {
  for (; op && !isa<func::FuncOp>(op); op = op->getParentOp())
    for (Operation *prev = op->getPrevNode(); prev; prev = prev->getPrevNode())
      if (auto call = dyn_cast<func::CallOp>(prev)) {
        StringRef callee = call.getCallee();
        if (callee == tdsl::getRuntimeFnName(tdsl::RuntimeFn::tdsl_kernel_begin))
          return true;
        if (callee == tdsl::getRuntimeFnName(tdsl::RuntimeFn::tdsl_kernel_end))
          return false;
      }
  return false;
}

struct LowerStridedCopiesPass
    : tdsl::impl::LowerStridedCopiesBase<LowerStridedCopiesPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<memref::CopyOp> copies;
    module.walk([&](memref::CopyOp op) {
      auto src = cast<MemRefType>(op.getSource().getType());
      auto dst = cast<MemRefType>(op.getTarget().getType());
      if (src.getRank() > 0 && (!src.getLayout().isIdentity() || !dst.getLayout().isIdentity()))
        copies.push_back(op);
    });
    tdsl::RuntimeCalls rt(module);
    tdsl::KernelClock clock(module, rt);
    OpBuilder b(&getContext());
    for (memref::CopyOp op : copies) {
      b.setInsertionPoint(op);
      if (!isLarge(op) || op->getParentOfType<scf::ForallOp>()) {
        linalg::CopyOp::create(b, op.getLoc(), op.getSource(), op.getTarget());
      } else if (inTimedRegion(op)) {
        inParallel(b, op);
      } else {
        timed(b, op, clock);
      }
      op.erase();
    }
  }

  /// Whether `op` copies `minElements` or more, or run-time sizes.
  bool isLarge(memref::CopyOp op) {
    auto type = cast<MemRefType>(op.getSource().getType());
    return !type.hasStaticShape() || type.getNumElements() >= minElements;
  }

  /// The copy as a kernel of its own: named after the statement it copies
  /// for, its bytes read and written.
  void timed(OpBuilder &b, memref::CopyOp op, tdsl::KernelClock &clock) {
    Location loc = op.getLoc();
    auto fn = op->getParentOfType<func::FuncOp>();
    Operation *site = op;
    while (site->getParentOp() != fn)
      site = site->getParentOp();
    std::string name = tdsl::RuntimeCalls::kernelNameOf(loc);
    if (name.empty())
      name = fn.getSymName().str() + ".copy";
    Value id = clock.id(b, site, loc, name);
    Value t0 = clock.begin(b, loc, id);
    inParallel(b, op);
    Value src = op.getSource();
    auto type = cast<MemRefType>(src.getType());
    Value elements = arith::ConstantIndexOp::create(b, loc, 1);
    for (int64_t d = 0; d < type.getRank(); ++d)
      elements = arith::MulIOp::create(b, loc, elements,
                                       memref::DimOp::create(b, loc, src, d));
    Value count = arith::UIToFPOp::create(
        b, loc, b.getF64Type(),
        arith::IndexCastUIOp::create(b, loc, b.getI64Type(), elements));
    unsigned width = type.getElementTypeBitWidth() / 8;
    Value bytes = arith::MulFOp::create(
        b, loc, count, arith::ConstantOp::create(b, loc, b.getF64FloatAttr(2.0 * width)));
    Value flops = arith::ConstantOp::create(b, loc, b.getF64FloatAttr(0.0));
    clock.end(b, loc, id, t0, flops, bytes);
  }

  /// The copy as a parallel loop over its first dimension that is not 1,
  /// each iteration a linalg.copy of one slice along it.
  void inParallel(OpBuilder &b, memref::CopyOp op) {
    Location loc = op.getLoc();
    Value src = op.getSource(), dst = op.getTarget();
    auto type = cast<MemRefType>(src.getType());
    int64_t rank = type.getRank();
    int64_t dim = 0;
    while (dim < rank - 1 && type.getDimSize(dim) == 1)
      ++dim;
    if (type.getDimSize(dim) == 1) {
      linalg::CopyOp::create(b, loc, src, dst);
      return;
    }
    OpFoldResult count = memref::getMixedSize(b, loc, src, dim);
    auto loop = scf::ForallOp::create(b, loc, ArrayRef<OpFoldResult>{count},
                                      ValueRange{}, std::nullopt);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value i = loop.getInductionVar(0);
    SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
    SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
    offsets[dim] = i;
    auto slice = [&](Value buffer) -> Value {
      SmallVector<OpFoldResult> sizes = memref::getMixedSizes(b, loc, buffer);
      sizes[dim] = b.getIndexAttr(1);
      return memref::SubViewOp::create(b, loc, buffer, offsets, sizes, strides);
    };
    Value from = slice(src), to = slice(dst);
    linalg::CopyOp::create(b, loc, from, to);
  }
};

} // namespace
