//===- Epilogue.h - element-wise consumers computed in a contraction's tile ===//
//
// tdsl-fuse-epilogues marks the element-wise op that updates a
// contraction's result in place (a bias, an activation); the passes after
// it keep the two together: one timed kernel (tdsl-time-kernels), one
// parallel loop whose tiles apply the epilogue to the tile just computed,
// while it is still in cache (tdsl-tile-to-forall), versioned together
// (tdsl-version-tiles).
//
//===----------------------------------------------------------------------===//
#ifndef TDSL_CODEGEN_CPU_EPILOGUE_H
#define TDSL_CODEGEN_CPU_EPILOGUE_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

namespace tdsl {

/// Marks a linalg.generic as the epilogue of the contraction whose result
/// is its init.
inline constexpr llvm::StringLiteral kEpilogueAttr = "tdsl.epilogue";

/// The marked epilogue of `op`: the only user of its only result, in the
/// same block, with that result as its init. Null when there is none.
mlir::linalg::GenericOp epilogueOf(mlir::Operation *op);

/// Moves `epilogue`, whose init is the only result of `forall` (a tiled
/// contraction), into each tile: it updates the tile before the tile is
/// inserted, and the loop's result replaces the epilogue's. Fails, changing
/// nothing, when the loop does not insert one tile per iteration.
mlir::LogicalResult fuseEpilogue(mlir::RewriterBase &rw, mlir::scf::ForallOp forall,
                                 mlir::linalg::GenericOp epilogue);

} // namespace tdsl

#endif // TDSL_CODEGEN_CPU_EPILOGUE_H
