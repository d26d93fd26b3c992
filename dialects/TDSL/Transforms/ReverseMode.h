//===- ReverseMode.h - Adjoints of tdsl ops ---------------------*- C++ -*-===//
//
// The reverse sweep of tdsl-differentiate: given the adjoint of a block's
// output, walks the block's ops backwards and accumulates the adjoint of
// every value on a path from the seed to the output, writing new tdsl ops
// before the block's terminator. Element-wise ops sum their adjoints over
// broadcast dimensions; an index_gen's adjoint for each input is another
// index_gen over the same loops (its body recomputes the primal body and
// runs this sweep on it).
//
//===----------------------------------------------------------------------===//
#ifndef TDSL_DIALECT_TDSL_TRANSFORMS_REVERSEMODE_H
#define TDSL_DIALECT_TDSL_TRANSFORMS_REVERSEMODE_H

#include "dialects/TDSL/IR/TDSLOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"

namespace tdsl::ir {

/// A value of `like`'s type, all zeros, that does not read `like`'s values
/// (an infinite element must not make a NaN).
mlir::Value zerosLike(mlir::OpBuilder &b, mlir::Location loc, mlir::Value like);

/// Clones the ops of an index_gen's body `old` at `bb`, its arguments
/// mapped to the first of `args`, and returns the value it yields.
mlir::Value clonePrimalBody(mlir::OpBuilder &bb, mlir::Block &old,
                            mlir::ValueRange args);

/// `seed` where `cond` holds, zero elsewhere.
mlir::Value keepWhere(mlir::OpBuilder &bb, mlir::Location loc,
                      mlir::Value seed, mlir::Value cond);

/// An index_gen over `numLoops` loops of `inputs` (with `maps`, the
/// output's map last) whose body is `body(block arguments)`; loops the
/// output does not index reduce with `reduce`.
mlir::Value
buildIndexGen(mlir::OpBuilder &b, mlir::Location loc, mlir::Type resultType,
              mlir::ValueRange inputs, llvm::ArrayRef<mlir::AffineMap> maps,
              unsigned numLoops,
              llvm::function_ref<mlir::Value(mlir::OpBuilder &, mlir::ValueRange)>
                  body,
              CombinerKind reduce = CombinerKind::sum);

/// Turns the element reads of index_gen bodies in `fn` that its inlined
/// calls made affine in the loops into inputs (RaiseAffineReads.cpp).
void raiseAffineReads(mlir::func::FuncOp fn);

struct PointAdjoint;

/// `v` as a value plus a constant, through add and sub of constants and
/// casts between i64 and index (the value itself and 0 when it is not).
std::pair<mlir::Value, int64_t> splitConstantOffset(mlir::Value v);
/// When `par`'s body reads `t` only at its point plus constants (t[i - 1,
/// j] and t[i, j]), anywhere in the body: the distinct offset vectors.
std::optional<llvm::SmallVector<llvm::SmallVector<int64_t>>>
pointOffsets(ParallelForOp par, mlir::Value t);

/// The loop of `gen` that `v` is, through casts between index and i64.
std::optional<unsigned> loopOf(mlir::Value v, IndexGenOp gen);
/// Per dimension of `input`, which `gen`'s body reads only by element: the
/// loop that every read subscripts it with, when `gen` also takes that
/// loop's range from that dimension of `input` (MLIRGen's range carrier
/// of a computed read), or -1.
llvm::SmallVector<int> directLoops(IndexGenOp gen, mlir::Value input);
/// An affine expression of an index_gen's loops, as an i64, at the loops'
/// values `dims` (i64s).
mlir::Value evaluateAt(mlir::OpBuilder &bb, mlir::Location loc,
                       mlir::AffineExpr e, llvm::ArrayRef<mlir::Value> dims);
/// In ops cloned from an index_gen's body, the reads of its loops (not
/// those of an index_gen nested in them) become `values` (i64s).
void replaceLoopReads(llvm::ArrayRef<mlir::Operation *> cloned,
                      llvm::ArrayRef<mlir::Value> values);

/// A place value of a mixed-radix digit: a constant times values defined
/// outside the index_gen (sizes, compared by tensor and dimension).
struct RadixPlace {
  int64_t constant;
  llvm::SmallVector<mlir::Value> factors;
  bool operator==(const RadixPlace &o) const;
  llvm::SmallVector<std::pair<void *, int64_t>> keys() const;
};
/// A loop whose digits a read's subscripts are, and the place value of its
/// lowest digit read: the window of iterations that read one element (1
/// when every digit is read; 2 for x[i / 2]).
struct RadixLoop {
  unsigned loop;
  RadixPlace window;
};
/// A tensor read once per iteration at loops that carry their ranges and
/// at the digits of other loops in a mixed radix (`x[n, f / (H * W), f / W
/// % H, f % W]`, nn.flatten; `x[n, c, i / 2, j / 2]`): per dimension, the
/// loop (direct) or -1, the digit's loop or -1, and its place value.
struct RadixPlan {
  llvm::SmallVector<int> direct, digitLoop;
  llvm::SmallVector<RadixPlace> places;
  llvm::SmallVector<RadixLoop> loops;
};

class ReverseSweep {
public:
  explicit ReverseSweep(mlir::MLIRContext *ctx) : b(ctx) {}

  /// Differentiates `output` (a value of `block`, or an operand of its
  /// terminator) with respect to `seed` (a block argument, or a value used
  /// in `block` but defined outside it), starting from `outputAdjoint`.
  /// Returns the adjoint of `seed`, null when `output` does not depend on
  /// it, or failure after a located error naming what it cannot
  /// differentiate.
  mlir::FailureOr<mlir::Value> run(mlir::Block &block, mlir::Value output,
                                   mlir::Value outputAdjoint, mlir::Value seed);
  /// The same for several outputs (a null adjoint: none) and seeds,
  /// considering only the ops after `after` (all when null).
  mlir::FailureOr<llvm::SmallVector<mlir::Value>>
  run(mlir::Block &block, mlir::ValueRange outputs,
      mlir::ValueRange outputAdjoints, mlir::ValueRange seeds,
      mlir::Operation *after);

  /// For a sweep inside a masked gather of `tensor` (read with computed
  /// subscripts): the element (one i64 per dimension) this iteration
  /// accumulates. The tensor's adjoint is then that element's, a scalar.
  void setElement(mlir::Value tensor, llvm::ArrayRef<mlir::Value> e) {
    gathered = tensor;
    element.assign(e.begin(), e.end());
  }

private:
  struct Rules;
  struct Inversion;

  /// Where a max or min reduction took its value: `first` holds, per
  /// output, the row-major number of the first extremal iteration of the
  /// reduction `loops` (of i64 `extents`). Null for other reductions.
  struct Extremum {
    mlir::Value first;
    llvm::SmallVector<unsigned> loops;
    llvm::SmallVector<mlir::Value> extents;
  };

  void markActive(llvm::iterator_range<mlir::Block::iterator> ops);
  llvm::SetVector<mlir::Value> capturedActive(mlir::Operation *op);
  mlir::LogicalResult visitIf(mlir::scf::IfOp ifOp);
  mlir::LogicalResult visitFor(mlir::scf::ForOp forOp);
  mlir::LogicalResult visitParallelFor(ParallelForOp par);
  mlir::LogicalResult parallelInputAdjoint(ParallelForOp par, mlir::Value c,
                                           PointAdjoint &point);
  mlir::LogicalResult visit(mlir::Operation *op);
  mlir::LogicalResult visitMatmul(mlir::Operation *op, mlir::Value g);
  mlir::LogicalResult visitIndexGen(mlir::Operation *op, mlir::Value g);
  mlir::FailureOr<mlir::Value> indexGenAdjoint(mlir::Operation *op,
                                               mlir::Value g,
                                               mlir::Value input,
                                               unsigned inputIndex,
                                               const Extremum &extremum);
  /// The adjoint of a direct input read at offsets (`y + dy`) as a
  /// gather with its subscripts solved for loops (InvertedAdjoint.cpp).
  /// Sets `applicable` when it built one; otherwise the masked adjoint is
  /// used.
  mlir::FailureOr<mlir::Value> invertedAdjoint(mlir::Operation *op,
                                               mlir::Value g,
                                               unsigned inputIndex,
                                               const Extremum &extremum,
                                               bool &applicable);
  /// A tensor read inside an index_gen's body only at subscripts that are
  /// loops plus constants (`i > 0 ? x[i - 1] : 0.0`): dimension d at loop
  /// `loops[d]`, with one offset vector per distinct read.
  struct ShiftPlan {
    llvm::SmallVector<unsigned> loops;
    llvm::SmallVector<llvm::SmallVector<int64_t>> offsets;
  };
  /// One offset of a plan, and the type of its term (the extents of the
  /// plan's loops).
  struct Shift {
    llvm::ArrayRef<unsigned> loops;
    llvm::ArrayRef<int64_t> offset;
    mlir::RankedTensorType type;
  };
  static std::optional<ShiftPlan> planShifts(IndexGenOp gen,
                                             mlir::Value input);
  /// The adjoint of such a tensor: per offset, a map over the op's loops
  /// of what the reads at that offset contribute, then the sum of those
  /// terms shifted back into place (ShiftedAdjoint.cpp). O(iterations)
  /// per offset instead of a masked gather over the whole tensor.
  mlir::FailureOr<mlir::Value> shiftedAdjoint(mlir::Operation *op,
                                              mlir::Value g, mlir::Value input,
                                              const ShiftPlan &plan);
  static std::optional<RadixPlan> planRadix(IndexGenOp gen, mlir::Value input);
  /// The adjoint of such a tensor: per element, the seed at the iteration
  /// its digits give (RadixAdjoint.cpp), instead of a masked gather over
  /// every iteration.
  mlir::FailureOr<mlir::Value> radixAdjoint(mlir::Operation *op, mlir::Value g,
                                            mlir::Value input,
                                            const RadixPlan &plan);
  mlir::FailureOr<mlir::Value> gatherAdjoint(mlir::Operation *op,
                                             mlir::Value g, mlir::Value input,
                                             unsigned inputIndex,
                                             const Extremum &extremum,
                                             const Shift *shift);
  /// Inside a masked gather, the scalar adjoint of the gathered element
  /// for a nested index_gen that reads the gathered tensor.
  mlir::FailureOr<mlir::Value> elementAdjoint(mlir::Operation *op,
                                              mlir::Value g,
                                              unsigned inputIndex,
                                              const Extremum &extremum);
  mlir::FailureOr<Extremum> findFirstExtremum(IndexGenOp gen);
  mlir::Value linearIndex(mlir::OpBuilder &bb, mlir::Location loc,
                          const Extremum &extremum);
  /// The same with each loop's value given by `loopValue` (an i64).
  mlir::Value
  linearIndex(mlir::OpBuilder &bb, mlir::Location loc, const Extremum &extremum,
              llvm::function_ref<mlir::Value(unsigned)> loopValue);
  mlir::Value loopIndex(mlir::OpBuilder &bb, mlir::Location loc,
                        unsigned loop);
  mlir::Value evaluate(mlir::OpBuilder &bb, mlir::Location loc,
                       mlir::AffineExpr e);
  mlir::LogicalResult visitExtract(mlir::Operation *op, mlir::Value g);
  mlir::LogicalResult visitSlice(mlir::Operation *op, mlir::Value g);
  mlir::LogicalResult gatheredSlice(mlir::tensor::ExtractSliceOp slice,
                                    mlir::Value g);
  /// Adds `contribution` (shaped like the op's result) to the adjoint of
  /// `operand`, summed over the dimensions `operand` was broadcast along.
  void accumulate(mlir::Location loc, mlir::Value operand,
                  mlir::Value contribution);
  mlir::Value unbroadcast(mlir::Location loc, mlir::Value g,
                          mlir::Value target);
  mlir::Value constant(mlir::Location loc, mlir::Type type, double v);

  mlir::OpBuilder b;
  /// See setElement; `gathered` is null outside a gather.
  mlir::Value gathered;
  llvm::SmallVector<mlir::Value> element;
  /// The type of `v`'s adjoint here (a scalar for the gathered tensor).
  mlir::Type adjointType(mlir::Value v);
  /// A zero adjoint for `v`.
  mlir::Value zeroAdjoint(mlir::OpBuilder &bb, mlir::Location loc,
                          mlir::Value v);
  llvm::DenseSet<mlir::Value> active;
  llvm::DenseMap<mlir::Value, mlir::Value> adjoints;
};

} // namespace tdsl::ir

#endif // TDSL_DIALECT_TDSL_TRANSFORMS_REVERSEMODE_H
