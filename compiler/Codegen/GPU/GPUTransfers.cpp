//===- GPUTransfers.cpp - Tell the runtime where each buffer's data is used -===//
#include "compiler/Codegen/GPU/Passes.h"
#include "compiler/Codegen/Common/RuntimeCalls.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace tdsl {
#define GEN_PASS_DEF_GPUTRANSFERS
#include "compiler/Codegen/GPU/Passes.h.inc"
} // namespace tdsl

using namespace mlir;

namespace {

/// The buffer a memref view comes from.
Value rootOf(Value v) {
  while (auto view = v.getDefiningOp<ViewLikeOpInterface>())
    v = view.getViewSource();
  return v;
}

/// Calls that take a buffer's pointer and see to where its data is
/// themselves: the driver's, and the .npy reads and writes (a value of
/// tdsl-repl's may stay on the device: runtime/lib/cuda/DeviceKeeper.h).
bool isDriverCall(Operation *op) {
  auto call = dyn_cast<func::CallOp>(op);
  return call && (call.getCallee().starts_with("mgpu") ||
                  call.getCallee().starts_with("tdsl_cuda_") ||
                  call.getCallee() == "tdsl_npy_read" ||
                  call.getCallee() == "tdsl_npy_write");
}

/// Ops that take a memref without touching its data: views, sizes, frees,
/// launches, and control flow that passes buffers along. A buffer's pointer
/// is data for whoever it is passed to (a print, a save), except the driver.
bool touchesNoData(Operation *op) {
  if (isa<ViewLikeOpInterface, memref::DimOp, memref::ExtractStridedMetadataOp,
          memref::DeallocOp, gpu::DeallocOp, gpu::LaunchFuncOp, scf::YieldOp,
          scf::ForOp, scf::WhileOp, scf::ConditionOp, scf::IfOp, func::ReturnOp>(op))
    return true;
  if (auto ptr = dyn_cast<memref::ExtractAlignedPointerAsIndexOp>(op)) {
    SmallVector<Operation *> work(ptr->getUsers().begin(), ptr->getUsers().end());
    while (!work.empty()) {
      Operation *user = work.pop_back_val();
      if (isa<arith::IndexCastOp, arith::IndexCastUIOp, LLVM::IntToPtrOp>(user))
        work.append(user->getUsers().begin(), user->getUsers().end());
      else if (!isDriverCall(user))
        return false;
    }
    return true;
  }
  return isDriverCall(op);
}

/// A host copy between two whole managed buffers of one type: made by the
/// driver where the data is (bufferization copies kernels' results, and a
/// `save` copies what it writes).
bool isDeviceCopy(Operation *op) {
  auto copy = dyn_cast<memref::CopyOp>(op);
  if (!copy)
    return false;
  auto from = copy.getSource().getDefiningOp<gpu::AllocOp>();
  auto to = copy.getTarget().getDefiningOp<gpu::AllocOp>();
  return from && to && from.getType() == to.getType() &&
         from.getType().getLayout().isIdentity() &&
         from.getType().getElementType().isIntOrFloat();
}

/// The bytes of a device copy's source.
Value copyBytes(OpBuilder &b, Location loc, memref::CopyOp copy) {
  auto type = cast<MemRefType>(copy.getSource().getType());
  int64_t elemBytes = (type.getElementTypeBitWidth() + 7) / 8;
  if (type.hasStaticShape())
    return arith::ConstantIntOp::create(b, loc, b.getI64Type(),
                                        type.getNumElements() * elemBytes);
  Value bytes = arith::ConstantIndexOp::create(b, loc, elemBytes);
  for (int64_t d = 0; d < type.getRank(); ++d)
    bytes = arith::MulIOp::create(
        b, loc, bytes, memref::DimOp::create(b, loc, copy.getSource(), d));
  return arith::IndexCastOp::create(b, loc, b.getI64Type(), bytes);
}

struct GPUTransfersPass : tdsl::impl::GPUTransfersBase<GPUTransfersPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    tdsl::RuntimeCalls rt(module);
    for (auto fn : llvm::to_vector(module.getOps<func::FuncOp>()))
      if (!fn.isExternal())
        runOnFunction(fn, rt);
  }

  Value pointerTo(OpBuilder &b, Location loc, Value buffer) {
    Value idx = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, buffer);
    Value i64 = arith::IndexCastOp::create(b, loc, b.getI64Type(), idx);
    return LLVM::IntToPtrOp::create(b, loc, LLVM::LLVMPointerType::get(b.getContext()),
                                    i64);
  }

  void runOnFunction(func::FuncOp fn, tdsl::RuntimeCalls &rt) {
    OpBuilder b(&getContext());
    SmallVector<Operation *> deviceOps; // launches and device copies
    SmallVector<std::pair<Operation *, Value>> hostUses;
    fn.walk([&](Operation *op) {
      if (isa<gpu::LaunchFuncOp>(op) || isDeviceCopy(op))
        deviceOps.push_back(op);
      if (touchesNoData(op) || isDeviceCopy(op))
        return;
      for (Value v : op->getOperands())
        if (isa<MemRefType>(v.getType()))
          hostUses.push_back({op, rootOf(v)});
    });
    // Before a launch: each buffer it uses. A copy is made where its
    // source's data is, on the device by the driver (a timed d2d row).
    for (Operation *op : deviceOps) {
      b.setInsertionPoint(op);
      if (auto copy = dyn_cast<memref::CopyOp>(op)) {
        Location loc = copy.getLoc();
        rt.call(b, loc, tdsl::RuntimeFn::tdsl_cuda_copy,
                {pointerTo(b, loc, copy.getTarget()), pointerTo(b, loc, copy.getSource()),
                 copyBytes(b, loc, copy)});
        copy.erase();
        continue;
      }
      llvm::SmallSetVector<Value, 8> buffers;
      for (Value v : op->getOperands())
        if (isa<MemRefType>(v.getType()))
          buffers.insert(rootOf(v));
      for (Value buffer : buffers)
        rt.call(b, op->getLoc(), tdsl::RuntimeFn::tdsl_cuda_to_device, {pointerTo(b, op->getLoc(), buffer)});
    }
    // Before a host access: out of host loops and branches that launch
    // nothing and that the buffer comes from outside of.
    llvm::DenseSet<std::pair<Operation *, Value>> done;
    for (auto [op, buffer] : hostUses) {
      Operation *at = op;
      while (Operation *parent = at->getParentOp()) {
        if (parent == fn.getOperation() ||
            parent->isAncestor(buffer.getParentRegion()->getParentOp()))
          break;
        bool device = false;
        parent->walk([&](Operation *inner) {
          auto call = dyn_cast<func::CallOp>(inner);
          device |= isa<gpu::LaunchFuncOp>(inner) ||
                    (call && call.getCallee() == "tdsl_cuda_copy");
        });
        if (device)
          break;
        at = parent;
      }
      if (!done.insert({at, buffer}).second)
        continue;
      b.setInsertionPoint(at);
      Location loc = op->getLoc();
      rt.call(b, loc, tdsl::RuntimeFn::tdsl_cuda_to_host, {pointerTo(b, loc, buffer), rt.getWhere(b, loc)});
    }
  }
};

} // namespace
