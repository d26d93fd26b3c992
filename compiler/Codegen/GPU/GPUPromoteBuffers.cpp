//===- GPUPromoteBuffers.cpp - small buffers of kernel bodies on the stack --===//
//
// A small buffer that a kernel's body allocates would otherwise come from
// the device heap (malloc in the kernel: slow, and 8 MiB by default for all
// threads). On the stack it is per thread and free. Only buffers inside the
// loops that become kernels move: a host buffer on the host's stack could be
// handed to a kernel, which cannot read it.
//
//===----------------------------------------------------------------------===//
#include "compiler/Codegen/GPU/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace tdsl {
#define GEN_PASS_DEF_GPUPROMOTEBUFFERS
#include "compiler/Codegen/GPU/Passes.h.inc"
} // namespace tdsl

using namespace mlir;

namespace {
struct GPUPromoteBuffersPass
    : tdsl::impl::GPUPromoteBuffersBase<GPUPromoteBuffersPass> {
  using Base::Base;

  bool small(MemRefType type) {
    if (!type.hasStaticShape() || !type.getElementType().isIntOrIndexOrFloat())
      return false;
    unsigned bits = type.getElementType().isIndex()
                        ? 64
                        : type.getElementType().getIntOrFloatBitWidth();
    return type.getNumElements() * ((bits + 7) / 8) <= maxBytes;
  }

  void runOnOperation() override {
    SmallVector<memref::AllocOp> allocs;
    getOperation()->walk([&](memref::AllocOp a) {
      if (small(a.getType()) &&
          (a->getParentOfType<scf::ForallOp>() || a->getParentOfType<scf::ParallelOp>()))
        allocs.push_back(a);
    });
    for (memref::AllocOp a : allocs) {
      OpBuilder b(a);
      auto alloca = memref::AllocaOp::create(b, a.getLoc(), a.getType(), ValueRange{},
                                             a.getAlignmentAttr());
      for (Operation *user : llvm::to_vector(a->getUsers()))
        if (isa<memref::DeallocOp>(user))
          user->erase();
      a.replaceAllUsesWith(alloca.getResult());
      a.erase();
    }
  }
};
} // namespace
