//===- RunTimeRegisterTiles.h - whole register tiles on run-time sizes -----===//
//
// A convolution's tile on run-time (`?`) sizes has a window read
// (x[n, c, i + di, j + dj]) that MLIR 22 vectorizes only on static shapes:
// under a mask the whole tile stayed scalar (`nn.conv2d` on `f32[?, ?, ?,
// ?]` at 11-17 GFLOP/s against 97-150 with static sizes). Once such an op
// is tiled into register tiles, its rows and columns loops are peeled: the
// main loops run whole tiles, on static types, vectorized as on static
// shapes; the columns' last partial tile runs in narrower whole tiles, and
// what is left (fewer columns than those, or the last rows) in masked
// vectors (tdsl-vectorize drops the window loops there too: the window
// read is as wide as the output tile, one run-time size).
//
//===----------------------------------------------------------------------===//
#ifndef TDSL_CODEGEN_CPU_RUNTIMEREGISTERTILES_H
#define TDSL_CODEGEN_CPU_RUNTIMEREGISTERTILES_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

namespace tdsl {

/// Whether `op`'s register tiles on run-time sizes are peeled: a
/// contraction with a read through a window (not a projected permutation).
bool peelsRunTimeTiles(mlir::linalg::LinalgOp op);

/// The loop of a register tile: the scf.for of `tiled`'s tiling along one
/// loop of the op, stepping by `tile` from 0.
struct TileLoop {
  mlir::scf::ForOp loop;
  int64_t tile;
};

/// Peels `rows` and `cols` (either may be null) of the register tile
/// `tiled`; the columns' last partial tile is run in tiles of half its
/// width, and so on down to `narrow`, each peeled again. Returns the ops to
/// vectorize: `tiled` and its copies, those of whole tiles on static types
/// (their results cast back); `columnsRest` gets the one left with fewer
/// columns than `narrow` (a masked tile of `narrow` lanes).
llvm::SmallVector<mlir::linalg::LinalgOp>
peelRunTimeTiles(mlir::RewriterBase &rw, mlir::linalg::LinalgOp tiled, TileLoop rows,
                 TileLoop cols, int64_t narrow, mlir::linalg::LinalgOp *columnsRest);

} // namespace tdsl

#endif
