//===- RuntimeBuffers.h - Memrefs handed to runtime calls -------*- C++ -*-===//
//
// Helpers of the patterns that lower tdsl ops to runtime calls (print, load,
// save, the collectives): pointers to buffers and their sizes.
//
//===----------------------------------------------------------------------===//
#ifndef TDSL_CONVERSION_TDSLTOLINALG_RUNTIMEBUFFERS_H
#define TDSL_CONVERSION_TDSLTOLINALG_RUNTIMEBUFFERS_H

#include "mlir/IR/Builders.h"

namespace tdsl {

/// A `!llvm.ptr` to the first element of a memref with the identity layout.
mlir::Value dataPointer(mlir::OpBuilder &b, mlir::Location loc, mlir::Value memref);
/// A stack array of the sizes of a memref or tensor of rank `rank` (one
/// unused entry for rank 0), as a pointer.
mlir::Value sizesPointer(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::Value shaped, unsigned rank);
/// A buffer holding a tensor's value, with the identity layout the runtime
/// expects: a copy (see the definition for why).
mlir::Value tensorBuffer(mlir::OpBuilder &b, mlir::Location loc, mlir::Value tensor);
/// An i32 constant.
mlir::Value i32Const(mlir::OpBuilder &b, mlir::Location loc, int64_t v);

} // namespace tdsl

#endif // TDSL_CONVERSION_TDSLTOLINALG_RUNTIMEBUFFERS_H
