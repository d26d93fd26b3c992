//===- ForallToTBB.cpp - scf.forall on buffers -> tdsl_parallel_for --------===//
//
// The outlined body receives its captured values through a context struct of
// their LLVM types; unrealized casts bridge memref and LLVM types here and
// fold away in convert-to-llvm + reconcile-unrealized-casts.
//
//===----------------------------------------------------------------------===//
#include "compiler/Codegen/CPU/Passes.h"
#include "compiler/Codegen/Common/RuntimeCalls.h"

#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/RegionUtils.h"

namespace tdsl {
#define GEN_PASS_DEF_FORALLTOTBB
#include "compiler/Codegen/CPU/Passes.h.inc"
} // namespace tdsl

using namespace mlir;

namespace {


struct ForallToTBBPass : tdsl::impl::ForallToTBBBase<ForallToTBBPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<scf::ForallOp> outermost;
    module.walk([&](scf::ForallOp op) {
      if (!op->getParentOfType<scf::ForallOp>())
        outermost.push_back(op);
    });
    tdsl::RuntimeCalls rt(module);
    LowerToLLVMOptions options(&getContext());
    LLVMTypeConverter converter(&getContext(), options);
    unsigned counter = 0;
    for (scf::ForallOp op : outermost)
      if (failed(outline(op, rt, converter, counter++)))
        return signalPassFailure();
  }

  LogicalResult outline(scf::ForallOp op, tdsl::RuntimeCalls &rt,
                        LLVMTypeConverter &converter, unsigned index) {
    if (!op.getOutputs().empty())
      return op.emitOpError("expected a bufferized scf.forall (no shared_outs)");
    MLIRContext *ctx = op.getContext();
    IRRewriter rw(ctx);
    // Inner foralls run serially in the outlined body.
    SmallVector<scf::ForallOp> inner;
    op.getBody()->walk([&](scf::ForallOp f) { inner.push_back(f); });
    for (scf::ForallOp f : llvm::reverse(inner)) {
      rw.setInsertionPoint(f);
      if (failed(scf::forallToForLoop(rw, f)))
        return f.emitOpError("cannot serialize nested scf.forall");
    }

    Location loc = op.getLoc();
    auto parent = op->getParentOfType<func::FuncOp>();
    auto ptrType = LLVM::LLVMPointerType::get(ctx);
    Type i64 = IntegerType::get(ctx, 64);

    // Trip counts, linearized.
    rw.setInsertionPoint(op);
    SmallVector<Value> lbs = op.getLowerBound(rw), ubs = op.getUpperBound(rw),
                       steps = op.getStep(rw);
    SmallVector<Value> counts;
    Value total = arith::ConstantIndexOp::create(rw, loc, 1);
    for (unsigned d = 0; d < lbs.size(); ++d) {
      Value span = arith::SubIOp::create(rw, loc, ubs[d], lbs[d]);
      Value c = arith::CeilDivSIOp::create(rw, loc, span, steps[d]);
      Value zero = arith::ConstantIndexOp::create(rw, loc, 0);
      c = arith::MaxSIOp::create(rw, loc, c, zero);
      counts.push_back(c);
      total = arith::MulIOp::create(rw, loc, total, c);
    }

    // Values the body uses; bounds and steps are captured like the rest.
    // Constants are not: they are rematerialized in the body, where LLVM
    // sees them (a shift by a loaded 32 is no mulhi, a loop whose step is
    // loaded does not vectorize).
    llvm::SetVector<Value> captureSet;
    getUsedValuesDefinedAbove(op.getRegion(), captureSet);
    for (Value v : llvm::concat<Value>(lbs, steps, counts))
      captureSet.insert(v);
    SmallVector<Value> captures, constants;
    for (Value v : captureSet) {
      Operation *def = v.getDefiningOp();
      bool constant = def && def->getNumOperands() == 0 &&
                      def->hasTrait<OpTrait::ConstantLike>();
      (constant ? constants : captures).push_back(v);
    }
    SmallVector<Type> fieldTypes;
    for (Value v : captures) {
      Type t = converter.convertType(v.getType());
      if (!t)
        return op.emitOpError("cannot pass a value of type ")
               << v.getType() << " to a parallel loop body";
      fieldTypes.push_back(t);
    }
    if (fieldTypes.empty())
      fieldTypes.push_back(i64);
    auto ctxType = LLVM::LLVMStructType::getLiteral(ctx, fieldTypes);
    Value one64 = LLVM::ConstantOp::create(rw, loc, i64, rw.getI64IntegerAttr(1));
    Value ctxPtr = LLVM::AllocaOp::create(rw, loc, ptrType, ctxType, one64);
    for (auto [i, v] : llvm::enumerate(captures)) {
      Value c = UnrealizedConversionCastOp::create(rw, loc, fieldTypes[i], v)
                    .getResult(0);
      Value field = LLVM::GEPOp::create(rw, loc, ptrType, ctxType, ctxPtr,
                                        ArrayRef<LLVM::GEPArg>{0, (int32_t)i});
      LLVM::StoreOp::create(rw, loc, c, field);
    }

    // The outlined body: for lin in [begin, end): delinearize, run the body.
    auto fnType = FunctionType::get(ctx, {i64, i64, ptrType}, {});
    std::string name = (parent.getSymName() + "_forall_" + Twine(index)).str();
    OpBuilder mb(ctx);
    mb.setInsertionPoint(parent);
    auto body = func::FuncOp::create(mb, loc, name, fnType);
    body.setPrivate();
    Block *entry = body.addEntryBlock();
    rw.setInsertionPointToStart(entry);
    IRMapping map;
    for (Value v : constants)
      rw.clone(*v.getDefiningOp(), map);
    for (auto [i, v] : llvm::enumerate(captures)) {
      Value field = LLVM::GEPOp::create(rw, loc, ptrType, ctxType,
                                        entry->getArgument(2),
                                        ArrayRef<LLVM::GEPArg>{0, (int32_t)i});
      Value raw = LLVM::LoadOp::create(rw, loc, fieldTypes[i], field);
      map.map(v, UnrealizedConversionCastOp::create(rw, loc, v.getType(), raw)
                     .getResult(0));
    }
    Type indexType = rw.getIndexType();
    Value begin = arith::IndexCastOp::create(rw, loc, indexType, entry->getArgument(0));
    Value end = arith::IndexCastOp::create(rw, loc, indexType, entry->getArgument(1));
    Value step1 = arith::ConstantIndexOp::create(rw, loc, 1);
    auto loop = scf::ForOp::create(rw, loc, begin, end, step1);
    rw.setInsertionPointToStart(loop.getBody());
    Value rest = loop.getInductionVar();
    unsigned rank = lbs.size();
    SmallVector<Value> ivs(rank);
    for (unsigned d = rank; d-- > 0;) {
      Value cnt = map.lookup(counts[d]);
      Value idx = d == 0 ? rest : arith::RemUIOp::create(rw, loc, rest, cnt);
      Value scaled = arith::MulIOp::create(rw, loc, idx, map.lookup(steps[d]));
      ivs[d] = arith::AddIOp::create(rw, loc, scaled, map.lookup(lbs[d]));
      if (d > 0)
        rest = arith::DivUIOp::create(rw, loc, rest, cnt);
    }
    for (auto [iv, v] : llvm::zip(op.getInductionVars(), ivs))
      map.map(iv, v);
    for (Operation &inner : op.getBody()->without_terminator())
      rw.clone(inner, map);
    rw.setInsertionPointToEnd(entry);
    func::ReturnOp::create(rw, loc);

    // The launch; tdsl-time-kernels has timed it already.
    rw.setInsertionPoint(op);
    Value fn = func::ConstantOp::create(rw, loc, fnType, name);
    Value zero64 = LLVM::ConstantOp::create(rw, loc, i64, rw.getI64IntegerAttr(0));
    Value total64 = arith::IndexCastOp::create(rw, loc, i64, total);
    Value grain64 = LLVM::ConstantOp::create(rw, loc, i64, rw.getI64IntegerAttr(grain));
    rt.call(rw, loc, tdsl::RuntimeFn::tdsl_parallel_for, {zero64, total64, grain64, fn, ctxPtr});
    rw.eraseOp(op);
    return success();
  }
};

} // namespace
