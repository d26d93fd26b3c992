//===- CollectivesToRuntime.cpp - world_size, allreduce, broadcast --------===//
//
// The collectives become runtime calls (tdsl_world_size, tdsl_world_rank,
// tdsl_allreduce, tdsl_broadcast), which reach MPI, through libtdsl_mpi.so,
// only in programs started by mpirun. Each operand is read from a copy with
// the identity layout and each result is a new buffer; one table of
// {input, output, element count, dtype} rows describes them all, so the
// fields of a model go in one call (one MPI message per element type).
//
//===----------------------------------------------------------------------===//
#include "compiler/Conversion/TDSLToLinalg/RuntimeBuffers.h"
#include "compiler/Conversion/TDSLToLinalg/TDSLToLinalg.h"
#include "dialects/TDSL/IR/TDSLOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <type_traits>

using namespace mlir;
namespace t = tdsl::ir;

namespace {

template <typename Op, tdsl::RuntimeFn Fn>
struct WorldLowering : OpConversionPattern<Op> {
  WorldLowering(const TypeConverter &tc, MLIRContext *ctx, tdsl::RuntimeCalls &rt)
      : OpConversionPattern<Op>(tc, ctx), rt(rt) {}
  LogicalResult matchAndRewrite(Op op, typename Op::Adaptor,
                                ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    rw.replaceOp(op, rt.call(rw, loc, Fn, {rt.getErrorWhere(rw, loc)}));
    return success();
  }
  tdsl::RuntimeCalls &rt;
};

/// Whether the runtime has a dtype for every element type of `types`
/// (reported on `op` otherwise).
LogicalResult checkDTypes(Operation *op, TypeRange types) {
  for (Type t : types)
    if (!tdsl::getDType(cast<RankedTensorType>(t).getElementType()))
      return op->emitOpError("cannot send elements of type ")
             << cast<RankedTensorType>(t).getElementType();
  return success();
}

/// Calls `fn` with the table of `values` (converted operands whose tdsl
/// types are `types`) and `extra` arguments after it; returns the results.
SmallVector<Value> callWithTable(ConversionPatternRewriter &rw, Location loc,
                                 tdsl::RuntimeCalls &rt, tdsl::RuntimeFn fn,
                                 ValueRange values, TypeRange types,
                                 ArrayRef<Value> extra) {
  int64_t n = values.size();
  Type i64 = rw.getI64Type();
  Value table = memref::AllocOp::create(rw, loc, MemRefType::get({n, 4}, i64));
  auto put = [&](int64_t row, int64_t col, Value v) {
    memref::StoreOp::create(rw, loc, v, table,
                            ValueRange{arith::ConstantIndexOp::create(rw, loc, row),
                                       arith::ConstantIndexOp::create(rw, loc, col)});
  };
  auto address = [&](Value buf) {
    Value p = memref::ExtractAlignedPointerAsIndexOp::create(rw, loc, buf);
    return arith::IndexCastOp::create(rw, loc, i64, p).getResult();
  };
  SmallVector<Value> outs;
  for (auto [i, v, type] : llvm::enumerate(values, types)) {
    auto tt = cast<RankedTensorType>(v.getType());
    Value in = tdsl::tensorBuffer(rw, loc, v);
    SmallVector<Value> dyn;
    Value count = arith::ConstantIntOp::create(rw, loc, i64, 1);
    for (int64_t d = 0; d < tt.getRank(); ++d) {
      Value size = memref::DimOp::create(rw, loc, in, d);
      if (tt.isDynamicDim(d))
        dyn.push_back(size);
      count = arith::MulIOp::create(
          rw, loc, count, arith::IndexCastOp::create(rw, loc, i64, size));
    }
    Value out = memref::AllocOp::create(
        rw, loc, MemRefType::get(tt.getShape(), tt.getElementType()), dyn);
    auto dtype = tdsl::getDType(cast<RankedTensorType>(type).getElementType());
    assert(dtype && "checked by checkDTypes");
    put(i, 0, address(in));
    put(i, 1, address(out));
    put(i, 2, count);
    put(i, 3, arith::ConstantIntOp::create(rw, loc, i64, int64_t(*dtype)));
    outs.push_back(out);
  }
  SmallVector<Value> args = {arith::ConstantIntOp::create(rw, loc, i64, n),
                             tdsl::dataPointer(rw, loc, table)};
  args.append(extra.begin(), extra.end());
  args.push_back(rt.getErrorWhere(rw, loc));
  rt.call(rw, loc, fn, args);
  SmallVector<Value> results;
  for (Value out : outs) {
    auto mt = cast<MemRefType>(out.getType());
    results.push_back(bufferization::ToTensorOp::create(
        rw, loc, RankedTensorType::get(mt.getShape(), mt.getElementType()), out,
        /*restrict=*/true, /*writable=*/true));
  }
  return results;
}

/// allreduce and broadcast: the table call, with the reduction operator
/// (TDSL_REDUCE_* of tdsl/Runtime.h) or the root after the table.
template <typename Op>
struct CollectiveLowering : OpConversionPattern<Op> {
  CollectiveLowering(const TypeConverter &tc, MLIRContext *ctx, tdsl::RuntimeCalls &rt)
      : OpConversionPattern<Op>(tc, ctx), rt(rt) {}
  LogicalResult matchAndRewrite(Op op, typename Op::Adaptor adaptor,
                                ConversionPatternRewriter &rw) const override {
    if (failed(checkDTypes(op, op.getValues().getTypes())))
      return failure();
    Value extra;
    tdsl::RuntimeFn fn;
    if constexpr (std::is_same_v<Op, t::AllReduceOp>) {
      fn = tdsl::RuntimeFn::tdsl_allreduce;
      int32_t kind = op.getKind() == "max" ? 1 : op.getKind() == "min" ? 2 : 0;
      extra = tdsl::i32Const(rw, op.getLoc(), kind);
    } else {
      fn = tdsl::RuntimeFn::tdsl_broadcast;
      extra = adaptor.getRoot();
    }
    rw.replaceOp(op, callWithTable(rw, op.getLoc(), rt, fn, adaptor.getValues(),
                                   op.getValues().getTypes(), {extra}));
    return success();
  }
  tdsl::RuntimeCalls &rt;
};

} // namespace

void tdsl::populateCollectivesToRuntimePatterns(const TypeConverter &converter,
                                                RuntimeCalls &rt,
                                                RewritePatternSet &patterns) {
  patterns.add<WorldLowering<t::WorldSizeOp, RuntimeFn::tdsl_world_size>,
               WorldLowering<t::WorldRankOp, RuntimeFn::tdsl_world_rank>,
               CollectiveLowering<t::AllReduceOp>,
               CollectiveLowering<t::BroadcastOp>>(converter, patterns.getContext(),
                                                   rt);
}
