//===- TileConfig.h - A contraction's own tile sizes (from the tuner) ------===//
#ifndef TDSL_CODEGEN_CPU_TILECONFIG_H
#define TDSL_CODEGEN_CPU_TILECONFIG_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"

#include <optional>
#include <string>

namespace tdsl {

/// The sizes of one contraction: the side of its parallel tile
/// (tdsl-tile-to-forall) and the rows of its register tile
/// (tdsl-vectorize), in place of the pipeline's options.
struct TileConfig {
  int64_t tile = 0;
  int64_t rows = 0;
};

/// The attribute that carries them: `tdsl.tile = {tile = 64, rows = 8}`.
inline constexpr llvm::StringLiteral kTileConfigAttr = "tdsl.tile";

std::optional<TileConfig> getTileConfig(mlir::Operation *op);
void setTileConfig(mlir::Operation *op, TileConfig config);

/// The loops that a contraction's parallel tiles (tdsl-tile-to-forall)
/// and register tiles (tdsl-vectorize) span, as (rows, columns): the
/// columns are the last parallel loop (the vectors), the rows the innermost
/// other parallel loop that an input read along the columns does not use,
/// so that each vector it loads serves every row (A @ B: i, as B does not
/// vary with it; a convolution: the output channel, as the image does not);
/// the second-to-last parallel loop when there is none. `op` has two
/// parallel loops or more.
std::pair<unsigned, unsigned> contractionTileLoops(mlir::linalg::LinalgOp op);

/// A contraction the tuner can time on its own: two parallel loops or more
/// and a reduction, static loop ranges, f32 or f64 operands.
bool isTunableContraction(mlir::linalg::LinalgOp op);

/// What makes two contractions the same kernel for the tuner: the op, its
/// loops' kinds and ranges, its indexing maps and element types, as text.
std::string contractionKey(mlir::linalg::LinalgOp op);

} // namespace tdsl

#endif // TDSL_CODEGEN_CPU_TILECONFIG_H
