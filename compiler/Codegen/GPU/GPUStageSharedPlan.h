//===- GPUStageSharedPlan.h - What a T x T tile kernel stages ---*- C++ -*-===//
//
// The analysis half of tdsl-gpu-stage-shared: for one staged tile kernel
// (isStagedTileKernel), the outputs each thread owns, the reduction chunk,
// and the box of each input that a block copies into shared memory. The
// pass (GPUStageShared.cpp) builds the kernel from this plan.
//
//===----------------------------------------------------------------------===//
#ifndef TDSL_CODEGEN_GPU_GPUSTAGESHAREDPLAN_H
#define TDSL_CODEGEN_GPU_GPUSTAGESHAREDPLAN_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <optional>

namespace tdsl::stage_shared {

/// Shared memory a kernel may use: 40 KiB of the 48 KiB static limit.
constexpr int64_t kSharedBudgetBytes = 40 * 1024;

/// The op's loops (0..numLoops-1) and the scf.for loops of its body after
/// them: the variables of an affine subscript.
struct Vars {
  unsigned numLoops = 0;
  llvm::SmallVector<mlir::scf::ForOp> bodyLoops;
  /// Per variable, its extent in one staging step, if static.
  llvm::SmallVector<std::optional<int64_t>> stageExtent;
  int64_t px = -1, py = -1, r0 = -1; // loop numbers
  unsigned size() const { return stageExtent.size(); }
};

/// An input staged in shared memory: the box its accesses cover in one
/// step. Global subscript j of box element (l0, l1, ...) is
/// minConstant[j] + sum over variables v of coef[j][v] * base(v) + l_j.
struct Staged {
  mlir::Value source;
  llvm::SmallVector<int64_t> minConstant, shape;
  llvm::SmallVector<llvm::SmallVector<int64_t>> coef; // per dim, per variable
  /// Whether the box moves with the first reduction loop (restaged per chunk).
  bool usesR0 = false;
  int64_t elements() const;
  int64_t bytes() const;
};

struct TileKernelPlan {
  /// Threads per block along x and y.
  int64_t tile = 1;
  /// Each thread owns R x R outputs, T apart; a block owns span x span.
  int64_t R = 1, span = 1;
  /// Iterations of the first reduction loop staged at once.
  int64_t chunk = 1;
  Vars vars;
  /// Within the budget, smallest first.
  llvm::SmallVector<Staged, 4> staged;

  /// The staged input read through `source`, or null.
  const Staged *stagedFor(mlir::Value source) const;
};

/// Plans `op` for blocks of `tile` x `tile` threads, each owning up to
/// `outputsPerThread`^2 outputs when the op is a large enough contraction.
TileKernelPlan planTileKernel(mlir::linalg::LinalgOp op, int64_t tile,
                              int64_t outputsPerThread);

} // namespace tdsl::stage_shared

#endif // TDSL_CODEGEN_GPU_GPUSTAGESHAREDPLAN_H
