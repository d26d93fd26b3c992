//===- Philox.h - The counter-based RNG as arith/math ops ------------------===//
#ifndef TDSL_CODEGEN_PHILOX_H
#define TDSL_CODEGEN_PHILOX_H

#include "mlir/IR/Builders.h"

namespace tdsl {

/// One value of the TDSL RNG for (seed, counter), both i64: value k of a
/// stream is taken from a Philox4x32-10 block (key (lo32(seed),
/// hi32(seed)), counter (lo32(blk), hi32(blk), 0, 0)) that it shares with
/// other values: with W words per value (randomWordsPerValue) and G = 4 / W
/// values per block, c = k / 16G and p = k % 16G, it is made of words
/// (p / 16) * W .. + W - 1 of block 16c + p % 16, by the formulas of
/// runtime/include/tdsl/Runtime.h, so that generated code, the runtime and
/// the GPU agree bit for bit. Sixteen consecutive values come from sixteen
/// consecutive blocks (one vector of counters), the next sixteen from the
/// next words of the same blocks. Pure arith and math ops, so loops of them
/// vectorize and fold like any other.
mlir::Value buildRandom(mlir::OpBuilder &b, mlir::Location loc, mlir::Value seed,
                        mlir::Value counter, mlir::FloatType type, bool normal);

/// The value in slot `slot` (i64, < 4 / W) of block `block` (i64): value
/// 16 * (block / 16) * G + 16 * slot + block % 16 of the stream.
mlir::Value buildRandomAt(mlir::OpBuilder &b, mlir::Location loc, mlir::Value seed,
                          mlir::Value block, mlir::Value slot, mlir::FloatType type,
                          bool normal);

/// The 4 / W values of block `block` (i64), slot 0 first: what
/// buildRandomAt gives for each slot, from one Philox computation.
llvm::SmallVector<mlir::Value> buildRandomSlots(mlir::OpBuilder &b, mlir::Location loc,
                                                mlir::Value seed, mlir::Value block,
                                                mlir::FloatType type, bool normal);

/// The 32-bit words a value takes: 1 (uniform f32), 2 (uniform f64, normal
/// f32) or 4 (normal f64).
int randomWordsPerValue(mlir::FloatType type, bool normal);

} // namespace tdsl

#endif // TDSL_CODEGEN_PHILOX_H
