//===- PackTransposedOperands.cpp - B of A @ B^T copied with n innermost ---===//
//
// A contraction's register tile loads vectors of the right-hand operand
// along the result's last loop (B[k, j:j+32] of A @ B). When that operand
// keeps a reduction loop innermost instead (A @ B^T, `sum(k) a[i, k] *
// b[j, k]`, and the adjoint of every dense layer for its input,
// `dx[n, k] = sum(o) s[n, o] * w[k, o]`), each vector was a gather of 32
// scalar loads a row apart, and with masks LLVM built the mask lane by
// lane: 512 x 512 x 512 on 1 thread took 8.8 ms against 1.7 ms for A @ B,
// and the digits MLP with MPI's two such adjoints were a quarter of its
// LLVM IR. Here the operand is first copied into a tensor with that loop
// innermost (a transpose, which tdsl-vectorize does in registers), read
// many times by the product's rows: the same tile code as A @ B.
//
//===----------------------------------------------------------------------===//
#include "compiler/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace tdsl {
#define GEN_PASS_DEF_PACKTRANSPOSEDOPERANDS
#include "compiler/Codegen/CPU/Passes.h.inc"
} // namespace tdsl

using namespace mlir;

namespace {

/// Rows of a product (its output loops that `rhs` does not read) below
/// this do not repay the copy: each element of the copy serves that many
/// multiplies.
constexpr int64_t kMinReuse = 4;

void packTransposedOperand(linalg::GenericOp op) {
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
      !op.hasPureTensorSemantics() || !linalg::isaContractionOpInterface(op))
    return;
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  AffineMap out = maps.back();
  if (out.getNumResults() < 2 || !out.isProjectedPermutation())
    return;
  // The loop the register tile's vectors run along: the result's last.
  unsigned cols = cast<AffineDimExpr>(out.getResults().back()).getPosition();
  OpOperand *lhs = op.getDpsInputOperand(0), *rhs = op.getDpsInputOperand(1);
  if (maps[0].isFunctionOfDim(cols))
    std::swap(lhs, rhs);
  AffineMap lmap = op.getMatchingIndexingMap(lhs);
  AffineMap rmap = op.getMatchingIndexingMap(rhs);
  // Both reading it is a batch loop, not the vectors' loop.
  if (lmap.isFunctionOfDim(cols) || !rmap.isFunctionOfDim(cols) ||
      !rmap.isProjectedPermutation() || rmap.getNumResults() < 2)
    return;
  auto type = dyn_cast<RankedTensorType>(rhs->get().getType());
  if (!type || type.getRank() != rmap.getNumResults())
    return;
  // Transposed: a reduction loop innermost, the columns further out.
  auto inner = cast<AffineDimExpr>(rmap.getResults().back()).getPosition();
  if (inner == cols ||
      op.getIteratorTypesArray()[inner] != utils::IteratorType::reduction)
    return;
  int64_t reuse = 1;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  for (AffineExpr e : out.getResults()) {
    unsigned d = cast<AffineDimExpr>(e).getPosition();
    if (!rmap.isFunctionOfDim(d))
      reuse = ShapedType::isDynamic(ranges[d]) || ShapedType::isDynamic(reuse)
                  ? ShapedType::kDynamic
                  : reuse * ranges[d];
  }
  if (!ShapedType::isDynamic(reuse) && reuse < kMinReuse)
    return;

  // The copy keeps the operand's dimensions in order, with the columns'
  // moved last.
  unsigned colsAt = *rmap.getResultPosition(getAffineDimExpr(cols, op.getContext()));
  SmallVector<int64_t> perm;
  for (unsigned r = 0; r < rmap.getNumResults(); ++r)
    if (r != colsAt)
      perm.push_back(r);
  perm.push_back(colsAt);
  OpBuilder b(op);
  Location loc = op.getLoc();
  Value src = rhs->get();
  SmallVector<OpFoldResult> sizes;
  for (int64_t r : perm)
    sizes.push_back(tensor::getMixedSize(b, loc, src, r));
  Value init = tensor::EmptyOp::create(b, loc, sizes, type.getElementType());
  MLIRContext *ctx = op.getContext();
  SmallVector<AffineExpr> packedExprs;
  for (int64_t r : perm)
    packedExprs.push_back(rmap.getResult(r));
  // As a generic over the copy's dimensions (the vectorizer's transposes
  // are generics): packed[d0, .., dn] = src[d_perm^-1].
  unsigned rank = perm.size();
  SmallVector<AffineExpr> srcExprs(rank);
  for (unsigned i = 0; i < rank; ++i)
    srcExprs[perm[i]] = getAffineDimExpr(i, ctx);
  auto copy = linalg::GenericOp::create(
      b, loc, init.getType(), ValueRange{src}, ValueRange{init},
      ArrayRef<AffineMap>{AffineMap::get(rank, 0, srcExprs, ctx),
                          AffineMap::getMultiDimIdentityMap(rank, ctx)},
      SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
      [](OpBuilder &nb, Location l, ValueRange args) {
        linalg::YieldOp::create(nb, l, args[0]);
      });
  // Kept apart from other copies of the same operand by CSE, as kernels
  // are (tdsl-time-kernels): it runs inside the product's timed region.
  if (auto id = op->getAttrOfType<StringAttr>("tdsl.kernel_id"))
    copy->setAttr("tdsl.kernel_id",
                  b.getStringAttr(id.getValue() + ".packed"));
  rhs->set(copy.getResult(0));
  maps[rhs->getOperandNumber()] = AffineMap::get(rmap.getNumDims(), 0, packedExprs, ctx);
  op.setIndexingMapsAttr(b.getAffineMapArrayAttr(maps));
}

struct PackTransposedOperandsPass
    : tdsl::impl::PackTransposedOperandsBase<PackTransposedOperandsPass> {
  void runOnOperation() override {
    SmallVector<linalg::GenericOp> ops;
    getOperation().walk([&](linalg::GenericOp op) { ops.push_back(op); });
    for (linalg::GenericOp op : ops)
      packTransposedOperand(op);
  }
};

} // namespace
