//===- TilingUtils.h - Tiling into scf.forall shared by the CPU and GPU -----===//
#ifndef TDSL_CODEGEN_TILINGUTILS_H
#define TDSL_CODEGEN_TILINGUTILS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

namespace tdsl {

/// Whether some loop of `op` has a static range of 0 (an empty tensor known
/// at compile time: `zeros(f32[n, 3]) @ w` with n = 0, a pooling of a 1 x 1
/// image). Such an op computes nothing and is left as it is: MLIR 22's
/// tiling crashed on it (computeTileSizes).
bool hasEmptyLoop(mlir::linalg::LinalgOp op);

/// Tiles `op` (a TilingInterface op) into an scf.forall with `sizes` (0
/// leaves a loop untiled), listing the loops in `interchange` order when
/// given, and fuses only fills into the tiles: fusing a computed producer
/// would recompute it in every tile that reads it (all of B for each tile of
/// a matmul); element-wise chains are fused before tiling. Replaces the uses
/// of `op` (erasing it when unused) and returns the tiled op in the loop
/// and the loops, or failure.
mlir::FailureOr<std::pair<mlir::Operation *, llvm::SmallVector<mlir::Operation *>>>
tileToForallFusingFills(mlir::RewriterBase &rw, mlir::Operation *op,
                        llvm::ArrayRef<int64_t> sizes,
                        llvm::ArrayRef<int64_t> interchange = {});

} // namespace tdsl

#endif // TDSL_CODEGEN_TILINGUTILS_H
