//===- Tuner.h - tdslc --tune: tile sizes of contractions by measurement --===//
#ifndef TDSL_TARGET_CPU_TUNER_H
#define TDSL_TARGET_CPU_TUNER_H

#include "compiler/Target/TargetBackend.h"

#include "mlir/IR/BuiltinOps.h"

#include "llvm/Support/raw_ostream.h"

#include <string>

namespace tdsl {

/// Times, with each candidate of a few tile sizes (parallel tile 32, 64 or
/// 128, register rows 4 or 8), every contraction of `module` (tdsl dialect)
/// that the tuning cache does not know yet for this machine, alone and with
/// JIT-compiled code, until `seconds` have passed; writes the fastest sizes
/// of each contraction whose candidates all ran to the cache
/// (tuneCachePath(), per CPUTargetModel::machineKey()), where every later
/// compile on this machine finds them (tdsl-apply-tuning). Reports what it
/// did on `log`; fails, with a message in `error`, only when the cache
/// cannot be written or the options leave nothing to tune.
mlir::LogicalResult tuneContractions(mlir::ModuleOp module, const TargetOptions &options,
                                     double seconds, const std::string &runtimeDir,
                                     llvm::raw_ostream &log, std::string &error);

} // namespace tdsl

#endif // TDSL_TARGET_CPU_TUNER_H
