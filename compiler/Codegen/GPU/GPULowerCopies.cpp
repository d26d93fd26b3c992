//===- GPULowerCopies.cpp - memref.copy in kernels as loops ------------------===//
//
// A tensor copied and then updated inside a parallel body (`s = x; s[i, 0] =
// ...`) bufferizes to memref.copy in the kernel, and so does the store of a
// reduction's partial result. Lowered to LLVM, a copy whose operands are not
// both contiguous becomes a call to the host's `memrefCopy`, which a GPU
// cannot run; a contiguous one becomes an llvm.memcpy that MLIR marks as
// aligned to 1 byte, which NVPTX expands into byte stores. Those are slow,
// and on an H200 the bytes of a partial chosen between two float constants
// came out wrong (a `reduce(min)` over one element gave NaN: the +inf of the
// empty blocks did not survive). So every copy in a kernel is a loop nest of
// loads and stores of whole elements, run by the thread that owns the copy.
//
//===----------------------------------------------------------------------===//
#include "compiler/Codegen/GPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace tdsl {
#define GEN_PASS_DEF_GPULOWERCOPIES
#include "compiler/Codegen/GPU/Passes.h.inc"
} // namespace tdsl

using namespace mlir;

namespace {

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
    if (type.getDimSize(d) == 1) { // no loop of one step
      ivs.push_back(zero);
      continue;
    }
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
      if (isa<MemRefType>(copy.getSource().getType()))
        copies.push_back(copy);
    });
    for (memref::CopyOp copy : copies)
      lowerCopy(copy);
  }
};

} // namespace
