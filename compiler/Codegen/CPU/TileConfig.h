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

/// A contraction the tuner can time on its own: two parallel loops or more
/// and a reduction, static loop ranges, f32 or f64 operands.
bool isTunableContraction(mlir::linalg::LinalgOp op);

/// What makes two contractions the same kernel for the tuner: the op, its
/// loops' kinds and ranges, its indexing maps and element types, as text.
std::string contractionKey(mlir::linalg::LinalgOp op);

} // namespace tdsl

#endif // TDSL_CODEGEN_CPU_TILECONFIG_H
