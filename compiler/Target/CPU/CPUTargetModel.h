//===- CPUTargetModel.h - The sizes the CPU back end derives from the host --===//
#ifndef TDSL_TARGET_CPU_CPUTARGETMODEL_H
#define TDSL_TARGET_CPU_CPUTARGETMODEL_H

#include "compiler/Pipelines/Pipelines.h"

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>

namespace tdsl {

struct TargetOptions;

/// What the CPU back end knows of the machine it compiles for, and the tile
/// and vector sizes it derives from that (docs/performance.md):
///   vector width    = f32 lanes of the widest vector unit (AVX-512: 16,
///                     AVX/AVX2: 8, else 4);
///   register rows   = 8 with 32 vector registers (an 8 x 2-vector tile is
///                     16 accumulators), else 4;
///   contraction tile = L2 / 16 KiB, a power of two in [32, 128]: the
///                     64 x K panel of A and K x 64 panel of B for K = 1024
///                     fill half of a 1 MiB L2;
///   element-wise tile = L2 / 64 elements, a power of two in [4096, 65536]:
///                     four f32 operands of a task fill a quarter of L2.
struct CPUTargetModel {
  std::string cpu;          // LLVM's name of the host CPU
  int64_t vectorBits = 128; // widest vector register
  int64_t vectorRegisters = 16;
  int64_t l1Bytes = 32 << 10, l2Bytes = 1 << 20;
  unsigned cores = 1;

  /// The host's, from LLVM's CPU features and the C library's cache sizes,
  /// then what $TDSL_CPU_MODEL overrides.
  static CPUTargetModel forHost();

  /// Sets the sizes that `spec` names, `vector-bits=512,vector-registers=32,
  /// l1=48K,l2=2048K,cores=2` (any of them): the tests pin one model, so
  /// that the code they check does not depend on the machine they run on.
  /// Code generation still targets the host's instructions.
  void override(llvm::StringRef spec);

  /// The pipeline sizes this model gives, each replaced by the option that
  /// overrides it when that is not 0.
  CPUPipelineOptions pipelineOptions(const TargetOptions &overrides) const;

  /// The model and the sizes it gives, one `name: value` per line.
  std::string describe(const TargetOptions &overrides) const;

  /// This machine in the tuner's cache: its CPU, vector unit, L2 and cores.
  std::string machineKey() const;
};

/// The tuner's cache file: $TDSL_TUNE_CACHE (empty: none), else
/// $XDG_CACHE_HOME/tdsl/tune.json, else ~/.cache/tdsl/tune.json.
std::string tuneCachePath();

/// "" when the CPU size overrides are usable, else what is wrong.
std::string checkCPUSizeOverrides(const TargetOptions &options);

} // namespace tdsl

#endif // TDSL_TARGET_CPU_CPUTARGETMODEL_H
