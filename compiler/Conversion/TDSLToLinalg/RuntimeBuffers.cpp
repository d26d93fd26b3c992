//===- RuntimeBuffers.cpp - Memrefs handed to runtime calls ---------------===//
#include "compiler/Conversion/TDSLToLinalg/RuntimeBuffers.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

/// A `!llvm.ptr` to the first element of a memref with the identity layout.
Value tdsl::dataPointer(OpBuilder &b, Location loc, Value memref) {
  Value idx = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
  Value i64 = arith::IndexCastOp::create(b, loc, b.getI64Type(), idx);
  return LLVM::IntToPtrOp::create(b, loc, LLVM::LLVMPointerType::get(b.getContext()),
                                  i64);
}

/// A stack array of the sizes of `memref` (or empty for rank 0), as a pointer.
Value tdsl::sizesPointer(OpBuilder &b, Location loc, Value shaped, unsigned rank) {
  auto type = MemRefType::get({std::max(rank, 1u)}, b.getI64Type());
  Value sizes = memref::AllocaOp::create(b, loc, type);
  for (unsigned d = 0; d < rank; ++d) {
    Value s = isa<MemRefType>(shaped.getType())
                  ? (Value)memref::DimOp::create(b, loc, shaped, d)
                  : (Value)tensor::DimOp::create(b, loc, shaped, d);
    s = arith::IndexCastOp::create(b, loc, b.getI64Type(), s);
    memref::StoreOp::create(b, loc, s, sizes,
                            ValueRange{arith::ConstantIndexOp::create(b, loc, d)});
  }
  return dataPointer(b, loc, sizes);
}

/// A buffer holding a tensor's value, with the identity layout the runtime
/// expects. It is a copy (bufferization.alloc_tensor ... copy): one-shot
/// bufferization does not treat a to_buffer as a read of its tensor, so the
/// tensor's own buffer could be overwritten in place before the runtime
/// reads it; the copy is a read it sees.
Value tdsl::tensorBuffer(OpBuilder &b, Location loc, Value tensor) {
  auto tt = cast<RankedTensorType>(tensor.getType());
  Value copy = bufferization::AllocTensorOp::create(b, loc, tt, ValueRange{}, tensor);
  auto mt = MemRefType::get(tt.getShape(), tt.getElementType());
  return bufferization::ToBufferOp::create(b, loc, mt, copy, /*readOnly=*/true);
}

Value tdsl::i32Const(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(v));
}

