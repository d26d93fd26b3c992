//===- LocateAllocs.cpp - large buffers tell the runtime where they come from -===//
//
// Also stops a buffer of run-time size whose byte count passes 2^63: the
// product of its sizes wrapped around (`ones(f32[n, n])` with n = 2^32 is
// 2^66 bytes), and a buffer of the wrapped size, a few bytes, was written
// out of bounds.
//
//===----------------------------------------------------------------------===//
#include "compiler/Codegen/Common/KernelInfo.h"
#include "compiler/Codegen/CPU/Passes.h"
#include "compiler/Codegen/Common/RuntimeCalls.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include "llvm/Support/MathExtras.h"

namespace tdsl {
#define GEN_PASS_DEF_LOCATEALLOCS
#include "compiler/Codegen/CPU/Passes.h.inc"
} // namespace tdsl

using namespace mlir;

namespace {

/// Before `alloc`: stops the program when its byte count does not fit in
/// an i64 (the allocator takes a signed size), at run time for run-time
/// sizes; a static shape that large (sizes that are constants, `n =
/// 4294967296; ones(f32[n, n])`) always stops there.
void checkByteCount(OpBuilder &b, memref::AllocOp alloc, tdsl::RuntimeCalls &rt) {
  MemRefType type = alloc.getType();
  Type elem = type.getElementType();
  if (!elem.isIntOrFloat())
    return;
  Location loc = alloc.getLoc();
  // The static part, saturated: a product that passes 2^63 fails.
  int64_t known = std::max<int64_t>((elem.getIntOrFloatBitWidth() + 7) / 8, 1);
  bool staticOver = false;
  for (int64_t d : type.getShape())
    if (!ShapedType::isDynamic(d) && llvm::MulOverflow(known, d, known)) {
      known = std::numeric_limits<int64_t>::max();
      staticOver = true;
    }
  if (type.hasStaticShape() && !staticOver)
    return;
  Type i64 = b.getI64Type();
  Value total = arith::ConstantIntOp::create(b, loc, i64, known);
  Value zero = arith::ConstantIntOp::create(b, loc, i64, 0);
  Value over = arith::ConstantIntOp::create(b, loc, b.getI1Type(), staticOver);
  for (Value size : alloc.getDynamicSizes()) {
    Value n = arith::IndexCastUIOp::create(b, loc, i64, size);
    auto product = arith::MulUIExtendedOp::create(b, loc, total, n);
    over = arith::OrIOp::create(
        b, loc, over,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, product.getHigh(), zero));
    total = product.getLow();
  }
  over = arith::OrIOp::create(
      b, loc, over, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, total, zero));
  auto check = scf::IfOp::create(b, loc, over, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(check.thenBlock());
  rt.call(b, loc, tdsl::RuntimeFn::tdsl_fatal,
          {rt.getErrorWhere(b, loc),
           rt.getString(b, loc, "this tensor's sizes multiply to more than "
                                "2^63 bytes: it cannot be allocated")});
}

struct LocateAllocsPass : tdsl::impl::LocateAllocsBase<LocateAllocsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<memref::AllocOp> allocs;
    module.walk([&](memref::AllocOp alloc) {
      if (tdsl::mayExhaustMemory(alloc.getType()) &&
          tdsl::RuntimeCalls::whereOf(alloc.getLoc()) != "<unknown>")
        allocs.push_back(alloc);
    });
    tdsl::RuntimeCalls rt(module);
    OpBuilder b(&getContext());
    for (memref::AllocOp alloc : allocs) {
      b.setInsertionPoint(alloc);
      checkByteCount(b, alloc, rt);
      rt.call(b, alloc.getLoc(), tdsl::RuntimeFn::tdsl_alloc_site, {rt.getErrorWhere(b, alloc.getLoc())});
    }
  }
};
} // namespace
