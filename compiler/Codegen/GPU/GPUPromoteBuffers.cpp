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

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

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
      scf::ForOp loop;
      Carried how = carried(a, loop);
      if (how == Carried::Otherwise)
        continue; // stays on the device heap
      OpBuilder b(a);
      Value buffer = how == Carried::No ? stackSlot(b, a) : alternatingSlot(b, a, loop);
      for (Operation *user : llvm::to_vector(a->getUsers()))
        if (isa<memref::DeallocOp>(user))
          user->erase();
      a.replaceAllUsesWith(buffer);
      a.erase();
    }
  }

  /// How a buffer reaches a later iteration of a loop around it: not at all,
  /// as the value that the scf.for directly around it yields (whose result
  /// is no loop's yield in turn), or otherwise (through an scf.if, a view,
  /// or an outer loop).
  enum class Carried { No, ByLoop, Otherwise };
  Carried carried(memref::AllocOp a, scf::ForOp &loop) {
    SmallVector<Value> values{a.getResult()};
    Carried how = Carried::No;
    while (!values.empty()) {
      Value v = values.pop_back_val();
      for (OpOperand &use : v.getUses()) {
        Operation *user = use.getOwner();
        if (auto view = dyn_cast<ViewLikeOpInterface>(user)) {
          if (view.getViewSource() == v)
            values.push_back(user->getResult(0));
          continue;
        }
        if (!user->hasTrait<OpTrait::IsTerminator>())
          continue;
        auto forOp = dyn_cast<scf::ForOp>(user->getParentOp());
        if (!forOp || v != a.getResult() || a->getParentOp() != forOp || how != Carried::No)
          return Carried::Otherwise;
        Value result = forOp.getResult(use.getOperandNumber());
        if (llvm::any_of(result.getUsers(), [](Operation *u) {
              return u->hasTrait<OpTrait::IsTerminator>();
            }))
          return Carried::Otherwise;
        loop = forOp;
        how = Carried::ByLoop;
      }
    }
    return how;
  }

  Value stackSlot(OpBuilder &b, memref::AllocOp a) {
    return memref::AllocaOp::create(b, a.getLoc(), a.getType(), ValueRange{},
                                    a.getAlignmentAttr());
  }

  /// A buffer that `loop` carries to its next iteration: the stack slot of
  /// each alloca is one for every iteration (tdsl-hoist-allocas), so the
  /// next iteration's buffer would overwrite the one it reads. Two slots
  /// made before the loop, taken in turn by the iterations' parity.
  Value alternatingSlot(OpBuilder &b, memref::AllocOp a, scf::ForOp loop) {
    Location loc = a.getLoc();
    OpBuilder before(loop);
    Value even = stackSlot(before, a), odd = stackSlot(before, a);
    Value trip = arith::DivUIOp::create(
        b, loc, arith::SubIOp::create(b, loc, loop.getInductionVar(), loop.getLowerBound()),
        loop.getStep());
    Value two = arith::ConstantIndexOp::create(b, loc, 2);
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value isEven = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                         arith::RemUIOp::create(b, loc, trip, two), zero);
    return arith::SelectOp::create(b, loc, isEven, even, odd);
  }
};
} // namespace
