//===- KernelClock.cpp - timing a kernel for the runtime's profile ---------===//
#include "compiler/Codegen/CPU/KernelClock.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;

namespace tdsl {

Value KernelClock::id(OpBuilder &b, Operation *site, Location loc, StringRef name) {
  std::string slot;
  do
    slot = "__tdsl_kernel_id_" + std::to_string(slots++);
  while (module.lookupSymbol(slot));
  OpBuilder mb(module.getContext());
  mb.setInsertionPointToStart(module.getBody());
  LLVM::GlobalOp::create(mb, loc, mb.getI32Type(), /*isConstant=*/false,
                         LLVM::Linkage::Internal, slot, mb.getI32IntegerAttr(-1));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(site);
  Value address = LLVM::AddressOfOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext()), slot);
  return rt.call(b, loc, RuntimeFn::tdsl_kernel_id,
                 {address, rt.getString(b, loc, name), rt.getWhere(b, loc)})[0];
}

Value KernelClock::begin(OpBuilder &b, Location loc, Value id) {
  return rt.call(b, loc, RuntimeFn::tdsl_kernel_begin, {id})[0];
}

void KernelClock::end(OpBuilder &b, Location loc, Value id, Value t0, Value flops,
                      Value bytes) {
  rt.call(b, loc, RuntimeFn::tdsl_kernel_end, {id, t0, flops, bytes});
}

} // namespace tdsl
