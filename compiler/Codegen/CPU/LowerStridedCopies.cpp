//===- LowerStridedCopies.cpp - copies of strided buffers as loops ----------===//
//
// memref.copy between buffers of the same plain layout becomes a memcpy;
// any other (an update at an offset writes a slice whose rows are strided)
// becomes a call of MLIR's generic memrefCopy, which walks the elements one
// by one through their descriptors: ten times slower than a loop. Such
// copies become linalg.copy, lowered to loops whose rows LLVM turns into
// memcpy or vector moves.
//
//===----------------------------------------------------------------------===//
#include "compiler/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace tdsl {
#define GEN_PASS_DEF_LOWERSTRIDEDCOPIES
#include "compiler/Codegen/CPU/Passes.h.inc"
} // namespace tdsl

using namespace mlir;

namespace {
struct LowerStridedCopiesPass
    : tdsl::impl::LowerStridedCopiesBase<LowerStridedCopiesPass> {
  void runOnOperation() override {
    SmallVector<memref::CopyOp> copies;
    getOperation().walk([&](memref::CopyOp op) {
      auto src = cast<MemRefType>(op.getSource().getType());
      auto dst = cast<MemRefType>(op.getTarget().getType());
      if (src.getRank() > 0 && (!src.getLayout().isIdentity() || !dst.getLayout().isIdentity()))
        copies.push_back(op);
    });
    OpBuilder b(&getContext());
    for (memref::CopyOp op : copies) {
      b.setInsertionPoint(op);
      linalg::CopyOp::create(b, op.getLoc(), op.getSource(), op.getTarget());
      op.erase();
    }
  }
};
} // namespace
