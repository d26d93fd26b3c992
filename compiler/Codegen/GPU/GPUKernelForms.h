//===- GPUKernelForms.h - Which linalg ops get a hand-built GPU kernel -----===//
//
// tdsl-gpu-tile maps most ops to blocks and threads through scf.forall; two
// forms get a gpu.launch written by a later pass instead, after
// bufferization. tdsl-gpu-tile asks these predicates which ops to leave.
//
//===----------------------------------------------------------------------===//
#ifndef TDSL_CODEGEN_GPUKERNELFORMS_H
#define TDSL_CODEGEN_GPUKERNELFORMS_H

#include "mlir/IR/Value.h"

#include <optional>

namespace mlir::linalg {
class LinalgOp;
} // namespace mlir::linalg

namespace tdsl {

/// Whether output `output` of `op` is indexed by exactly its parallel loops
/// (each in one place): one thread, or one block, owns each element.
bool indexedByParallelLoops(mlir::linalg::LinalgOp op, unsigned output);

/// An op with one output over two or more parallel loops that reads a window
/// per output: reduction loops (a contraction: matmul) or loops in its body
/// (a convolution or stencil written as `parallel for` with an inner `sum`).
/// tdsl-gpu-stage-shared gives it tiles of T x T threads that stage the
/// inputs they share in shared memory.
bool isStagedTileKernel(mlir::linalg::LinalgOp op);

/// An op with parallel and reduction loops that combines with add, mul, max
/// or min and is not a staged tile kernel (row sums, row maxima):
/// tdsl-gpu-reduce reduces each output in a block, as a tree.
bool isRowReduction(mlir::linalg::LinalgOp op);

/// When a linalg.fill of `op`'s output number `output` (buffers) comes right before it, with
/// nothing in between that uses the output, erases the fill and returns its
/// value: the kernel that replaces `op` starts from it instead.
std::optional<mlir::Value> takeInitFill(mlir::linalg::LinalgOp op,
                                        unsigned output = 0);

} // namespace tdsl

#endif // TDSL_CODEGEN_GPUKERNELFORMS_H
