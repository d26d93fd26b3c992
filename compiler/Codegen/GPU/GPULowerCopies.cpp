//===- GPULowerCopies.cpp - memref.copy in kernels as loops ------------------===//
//
// A tensor copied and then updated inside a parallel body (`s = x; s[i, 0] =
// ...`) bufferizes to memref.copy in the kernel. Lowered to LLVM, a copy
// whose operands are not both contiguous becomes a call to the host's
// `memrefCopy`, which a GPU cannot run. In a kernel such a copy is instead
// a loop nest of loads and stores, run by the thread that owns the copy;
// contiguous copies stay, for LLVM's memcpy.
//
//===----------------------------------------------------------------------===//
#include "compiler/Codegen/GPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace tdsl {
#define GEN_PASS_DEF_GPULOWERCOPIES
#include "compiler/Codegen/GPU/Passes.h.inc"
} // namespace tdsl

using namespace mlir;

namespace {

/// Whether the LLVM lowering copies a memref of `type` with memcpy (the
/// condition of MLIR's memref.copy lowering); otherwise it calls memrefCopy.
bool isContiguous(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  return memref && (memref.getLayout().isIdentity() ||
                    memref::isStaticShapeAndContiguousRowMajor(memref));
}

/// `copy` as an scf.for nest over the source's dimensions.
void lowerCopy(memref::CopyOp copy) {
  OpBuilder b(copy);
  Location loc = copy.getLoc();
  Value source = copy.getSource(), target = copy.getTarget();
  auto type = cast<MemRefType>(source.getType());
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  SmallVector<Value> ivs;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    Value size = memref::DimOp::create(b, loc, source, d);
    auto loop = scf::ForOp::create(b, loc, zero, size, one);
    b.setInsertionPointToStart(loop.getBody());
    ivs.push_back(loop.getInductionVar());
  }
  Value v = memref::LoadOp::create(b, loc, source, ivs);
  memref::StoreOp::create(b, loc, v, target, ivs);
  copy.erase();
}

struct GPULowerCopiesPass
    : tdsl::impl::GPULowerCopiesBase<GPULowerCopiesPass> {
  void runOnOperation() override {
    SmallVector<memref::CopyOp> copies;
    getOperation().walk([&](memref::CopyOp copy) {
      if (isa<MemRefType>(copy.getSource().getType()) &&
          !(isContiguous(copy.getSource().getType()) &&
            isContiguous(copy.getTarget().getType())))
        copies.push_back(copy);
    });
    for (memref::CopyOp copy : copies)
      lowerCopy(copy);
  }
};

} // namespace
