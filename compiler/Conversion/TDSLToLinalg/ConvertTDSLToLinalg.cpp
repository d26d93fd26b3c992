//===- ConvertTDSLToLinalg.cpp - tdsl dialect to linalg/tensor/arith ------===//
//
// Step 1 (LowerStructuredOps.cpp) moves region bodies into linalg.generic and
// scf ops. Step 2, here, is one dialect conversion over every leaf tdsl op,
// which also rewrites ui64 to i64 everywhere (arith wants signless integers;
// unsignedness is kept by choosing the unsigned arith ops).
//
//===----------------------------------------------------------------------===//
#include "compiler/Codegen/Common/KernelInfo.h"
#include "compiler/Conversion/TDSLToLinalg/LowerStructuredOps.h"
#include "compiler/Conversion/TDSLToLinalg/Passes.h"
#include "compiler/Conversion/TDSLToLinalg/Philox.h"
#include "compiler/Conversion/TDSLToLinalg/RuntimeBuffers.h"
#include "compiler/Conversion/TDSLToLinalg/TDSLToLinalg.h"
#include "compiler/Codegen/Common/RuntimeCalls.h"
#include "dialects/TDSL/IR/TDSLDialect.h"
#include "dialects/TDSL/IR/TDSLOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Func/Transforms/FuncConversions.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

#include <cmath>

namespace tdsl {
#define GEN_PASS_DEF_CONVERTTDSLTOLINALG
#include "compiler/Conversion/TDSLToLinalg/Passes.h.inc"
} // namespace tdsl

using namespace mlir;
namespace t = tdsl::ir;
using tdsl::dataPointer;
using tdsl::i32Const;
using tdsl::sizesPointer;
using tdsl::tensorBuffer;

namespace {

bool isUnsignedInt(Type t) {
  auto it = dyn_cast<IntegerType>(getElementTypeOrSelf(t));
  return it && (it.isUnsigned() || it.getWidth() == 1);
}

/// `f`, the f32 nearest to some value, rounded to odd instead: when
/// `inexact`, the f32 toward zero from the value with its last bit set
/// (`roundedUp`: f lies away from zero from the value).
Value roundToOdd(OpBuilder &b, Location loc, Value f, Value inexact,
                 Value roundedUp) {
  Value bits = arith::BitcastOp::create(b, loc, b.getI32Type(), f);
  auto c = [&](int32_t x) {
    return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(x));
  };
  // Sign and magnitude: one step toward zero is the magnitude minus one.
  Value towardZero = arith::SelectOp::create(
      b, loc, roundedUp, arith::SubIOp::create(b, loc, bits, c(1)), bits);
  Value odd = arith::OrIOp::create(b, loc, towardZero, c(1));
  return arith::BitcastOp::create(
      b, loc, f.getType(), arith::SelectOp::create(b, loc, inexact, odd, bits));
}

/// f64 -> f32 rounded to odd: truncated toward zero, with the last bit set
/// when inexact. Rounding that to bf16 to nearest gives the same as
/// rounding the f64 directly (f32 keeps more than two extra bits), with no
/// libcall: LLVM lowers f64 -> bf16 to __truncdfbf2, which no runtime here
/// provides, and the GPU has no such instruction either.
Value truncToF32RoundToOdd(OpBuilder &b, Location loc, Value v) {
  Type f32 = b.getF32Type();
  Value f = arith::TruncFOp::create(b, loc, f32, v);
  Value back = arith::ExtFOp::create(b, loc, v.getType(), f);
  // Ordered: a NaN stays as it is.
  Value inexact = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::ONE, back, v);
  Value absBack = math::AbsFOp::create(b, loc, back);
  Value absV = math::AbsFOp::create(b, loc, v);
  Value roundedUp = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, absBack, absV);
  return roundToOdd(b, loc, f, inexact, roundedUp);
}

/// An integer (`isUnsigned`: as unsigned) rounded to f32 to odd: the f32
/// toward zero with its last bit set when inexact, so that rounding that to
/// f16 or bf16 rounds once (i64 -> f32 -> bf16 rounded twice, to the even
/// neighbour on a tie the first rounding made). Converting back is exact
/// below 2^63 (2^64), which only a value rounded up reaches.
Value intToF32RoundToOdd(OpBuilder &b, Location loc, Value v, bool isUnsigned) {
  Type f32 = b.getF32Type(), type = v.getType();
  unsigned width = type.getIntOrFloatBitWidth();
  Value f = isUnsigned ? (Value)arith::UIToFPOp::create(b, loc, f32, v)
                       : (Value)arith::SIToFPOp::create(b, loc, f32, v);
  Value limit = arith::ConstantOp::create(
      b, loc, b.getF32FloatAttr(std::ldexp(1.0f, isUnsigned ? width : width - 1)));
  Value beyond = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGE, f, limit);
  Value safe = arith::SelectOp::create(
      b, loc, beyond, arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0)), f);
  Value back = isUnsigned ? (Value)arith::FPToUIOp::create(b, loc, type, safe)
                          : (Value)arith::FPToSIOp::create(b, loc, type, safe);
  Value zero = arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, 0));
  using P = arith::CmpIPredicate;
  Value negative =
      isUnsigned ? (Value)arith::ConstantOp::create(b, loc, b.getBoolAttr(false))
                 : (Value)arith::CmpIOp::create(b, loc, P::slt, v, zero);
  Value above = arith::CmpIOp::create(b, loc, isUnsigned ? P::ugt : P::sgt, back, v);
  Value below = arith::CmpIOp::create(b, loc, isUnsigned ? P::ult : P::slt, back, v);
  // Rounded away from zero: beyond the range, or past v in v's direction.
  Value roundedUp = arith::OrIOp::create(
      b, loc, beyond, arith::SelectOp::create(b, loc, negative, below, above));
  Value inexact = arith::OrIOp::create(
      b, loc, beyond, arith::CmpIOp::create(b, loc, P::ne, back, v));
  return roundToOdd(b, loc, f, inexact, roundedUp);
}

/// A float converted to an integer type `dst`, rounded toward zero and
/// saturated as LLVM's fptosi.sat: NaN gives 0, a value beyond the range
/// the type's bound. arith.fptosi leaves those undefined, and a constant
/// out of range printed a different number on each run.
Value floatToInt(OpBuilder &b, Location loc, Value v, IntegerType dst,
                 bool isUnsigned) {
  // f16 and bf16 through f32 (exact): -2^31 is -inf in f16, which no value
  // is below.
  if (v.getType().getIntOrFloatBitWidth() < 32)
    v = arith::ExtFOp::create(b, loc, b.getF32Type(), v);
  Type src = v.getType();
  unsigned w = dst.getWidth();
  llvm::APInt lo = isUnsigned ? llvm::APInt::getMinValue(w) : llvm::APInt::getSignedMinValue(w);
  llvm::APInt hi = isUnsigned ? llvm::APInt::getMaxValue(w) : llvm::APInt::getSignedMaxValue(w);
  // The bounds as floats: -2^(w-1) and 2^(w-1) (2^w unsigned), exact.
  double top = std::ldexp(1.0, isUnsigned ? w : w - 1);
  double bottom = isUnsigned ? 0.0 : -top;
  auto cst = [&](double d) -> Value {
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(src, d));
  };
  auto icst = [&](const llvm::APInt &i) -> Value {
    return arith::ConstantOp::create(b, loc, b.getIntegerAttr(dst, i));
  };
  Value r = isUnsigned ? (Value)arith::FPToUIOp::create(b, loc, dst, v)
                       : (Value)arith::FPToSIOp::create(b, loc, dst, v);
  Value below = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, v, cst(bottom));
  r = arith::SelectOp::create(b, loc, below, icst(lo), r);
  Value above = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGE, v, cst(top));
  r = arith::SelectOp::create(b, loc, above, icst(hi), r);
  Value nan = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, v, v);
  return arith::SelectOp::create(b, loc, nan, icst(llvm::APInt::getZero(w)), r);
}

/// Element-type conversion between scalars; `from`/`to` are the original
/// (possibly ui64) element types, `v` is already signless.
Value convertScalar(OpBuilder &b, Location loc, Value v, Type from, Type to) {
  Type src = v.getType();
  Type dst = isa<IntegerType>(to) ? b.getIntegerType(to.getIntOrFloatBitWidth())
                                  : to;
  if (src == dst)
    return v;
  bool srcUnsigned = isUnsignedInt(from);
  bool dstUnsigned = isUnsignedInt(to);
  if (isa<IndexType>(src)) {
    if (isa<FloatType>(dst))
      return convertScalar(b, loc,
                           arith::IndexCastOp::create(b, loc, b.getI64Type(), v),
                           b.getI64Type(), to);
    return dstUnsigned ? (Value)arith::IndexCastUIOp::create(b, loc, dst, v)
                       : (Value)arith::IndexCastOp::create(b, loc, dst, v);
  }
  if (isa<IndexType>(dst)) {
    if (isa<FloatType>(src))
      v = floatToInt(b, loc, v, b.getI64Type(), false);
    return srcUnsigned ? (Value)arith::IndexCastUIOp::create(b, loc, dst, v)
                       : (Value)arith::IndexCastOp::create(b, loc, dst, v);
  }
  if (auto dt = dyn_cast<IntegerType>(dst)) {
    if (dt.getWidth() == 1) { // nonzero -> true
      if (isa<FloatType>(src)) {
        Value zero = arith::ConstantOp::create(b, loc, b.getFloatAttr(src, 0.0));
        return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, v, zero);
      }
      Value zero = arith::ConstantOp::create(b, loc, b.getIntegerAttr(src, 0));
      return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, v, zero);
    }
    if (isa<FloatType>(src))
      return floatToInt(b, loc, v, dt, dstUnsigned);
    unsigned sw = src.getIntOrFloatBitWidth(), dw = dt.getWidth();
    if (sw < dw)
      return srcUnsigned ? (Value)arith::ExtUIOp::create(b, loc, dst, v)
                         : (Value)arith::ExtSIOp::create(b, loc, dst, v);
    return arith::TruncIOp::create(b, loc, dst, v);
  }
  // dst is a float.
  if (isa<IntegerType>(src) && dst.getIntOrFloatBitWidth() == 16 &&
      src.getIntOrFloatBitWidth() > 8)
    return arith::TruncFOp::create(b, loc, dst,
                                   intToF32RoundToOdd(b, loc, v, srcUnsigned));
  if (isa<IntegerType>(src))
    return srcUnsigned ? (Value)arith::UIToFPOp::create(b, loc, dst, v)
                       : (Value)arith::SIToFPOp::create(b, loc, dst, v);
  unsigned sw = src.getIntOrFloatBitWidth(), dw = dst.getIntOrFloatBitWidth();
  if (sw == dw) // f16 <-> bf16 through f32
    return arith::TruncFOp::create(
        b, loc, dst, arith::ExtFOp::create(b, loc, b.getF32Type(), v));
  if (sw < dw)
    return arith::ExtFOp::create(b, loc, dst, v);
  if (sw == 64 && dst.isBF16())
    return arith::TruncFOp::create(b, loc, dst, truncToF32RoundToOdd(b, loc, v));
  return arith::TruncFOp::create(b, loc, dst, v);
}

/// The scalar computation of one element-wise tdsl op on signless operands.
/// `elem` is the original element type of the first operand.
/// Emits a run-time check that stops the program when `bad` is true.
using CheckFn = function_ref<void(OpBuilder &, Location, Value, StringRef)>;

Value buildScalarOp(OpBuilder &b, Location loc, Operation *op, ValueRange args,
                    Type elem, Type resultElem, CheckFn check) {
  bool isFloat = isa<FloatType>(args[0].getType());
  bool isUnsigned = isUnsignedInt(elem);
  Value x = args[0];
  Value y = args.size() > 1 ? args[1] : Value();
  if (isa<t::AddOp>(op))
    return isFloat ? (Value)arith::AddFOp::create(b, loc, x, y)
                   : (Value)arith::AddIOp::create(b, loc, x, y);
  if (isa<t::SubOp>(op))
    return isFloat ? (Value)arith::SubFOp::create(b, loc, x, y)
                   : (Value)arith::SubIOp::create(b, loc, x, y);
  if (isa<t::MulOp>(op))
    return isFloat ? (Value)arith::MulFOp::create(b, loc, x, y)
                   : (Value)arith::MulIOp::create(b, loc, x, y);
  // Integer division by zero is undefined in arith (and folds to garbage):
  // it stops the program instead.
  if (isa<t::DivOp, t::RemOp>(op) && !isFloat) {
    Value zero = arith::ConstantOp::create(b, loc, b.getIntegerAttr(y.getType(), 0));
    check(b, loc, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, y, zero),
          isa<t::DivOp>(op) ? "integer division by zero" : "integer remainder by zero");
  }
  // The most negative integer divided by -1 does not fit (and is as
  // undefined as division by zero): it stops the program too. Its
  // remainder is 0, computed as x % 1 so that no instruction overflows.
  Value minusOne;
  if (isa<t::DivOp, t::RemOp>(op) && !isFloat && !isUnsigned)
    minusOne = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::eq, y,
        arith::ConstantOp::create(b, loc, b.getIntegerAttr(y.getType(), -1)));
  if (isa<t::DivOp>(op)) {
    if (isFloat)
      return arith::DivFOp::create(b, loc, x, y);
    if (isUnsigned)
      return arith::DivUIOp::create(b, loc, x, y);
    unsigned width = y.getType().getIntOrFloatBitWidth();
    Value min = arith::ConstantOp::create(
        b, loc, b.getIntegerAttr(x.getType(), llvm::APInt::getSignedMinValue(width)));
    Value isMin = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, x, min);
    check(b, loc, arith::AndIOp::create(b, loc, isMin, minusOne),
          "integer division overflow: the most negative i" + std::to_string(width) +
              " divided by -1 is not an i" + std::to_string(width));
    return arith::DivSIOp::create(b, loc, x, y);
  }
  if (isa<t::RemOp>(op)) {
    if (isFloat)
      return arith::RemFOp::create(b, loc, x, y);
    if (isUnsigned)
      return arith::RemUIOp::create(b, loc, x, y);
    Value one = arith::ConstantOp::create(b, loc, b.getIntegerAttr(y.getType(), 1));
    return arith::RemSIOp::create(
        b, loc, x, arith::SelectOp::create(b, loc, minusOne, one, y));
  }
  if (isa<t::PowOp>(op))
    return math::PowFOp::create(b, loc, x, y);
  if (isa<t::MaxOp>(op)) {
    if (isFloat)
      return arith::MaximumFOp::create(b, loc, x, y);
    return isUnsigned ? (Value)arith::MaxUIOp::create(b, loc, x, y)
                      : (Value)arith::MaxSIOp::create(b, loc, x, y);
  }
  if (isa<t::MinOp>(op)) {
    if (isFloat)
      return arith::MinimumFOp::create(b, loc, x, y);
    return isUnsigned ? (Value)arith::MinUIOp::create(b, loc, x, y)
                      : (Value)arith::MinSIOp::create(b, loc, x, y);
  }
  if (isa<t::AndOp>(op))
    return arith::AndIOp::create(b, loc, x, y);
  if (isa<t::OrOp>(op))
    return arith::OrIOp::create(b, loc, x, y);
  if (auto cmp = dyn_cast<t::CmpOp>(op)) {
    if (isFloat) {
      arith::CmpFPredicate p;
      switch (cmp.getPredicate()) {
      case t::CmpPredicate::eq: p = arith::CmpFPredicate::OEQ; break;
      case t::CmpPredicate::ne: p = arith::CmpFPredicate::UNE; break;
      case t::CmpPredicate::lt: p = arith::CmpFPredicate::OLT; break;
      case t::CmpPredicate::le: p = arith::CmpFPredicate::OLE; break;
      case t::CmpPredicate::gt: p = arith::CmpFPredicate::OGT; break;
      case t::CmpPredicate::ge: p = arith::CmpFPredicate::OGE; break;
      }
      return arith::CmpFOp::create(b, loc, p, x, y);
    }
    arith::CmpIPredicate p;
    switch (cmp.getPredicate()) {
    case t::CmpPredicate::eq: p = arith::CmpIPredicate::eq; break;
    case t::CmpPredicate::ne: p = arith::CmpIPredicate::ne; break;
    case t::CmpPredicate::lt: p = isUnsigned ? arith::CmpIPredicate::ult : arith::CmpIPredicate::slt; break;
    case t::CmpPredicate::le: p = isUnsigned ? arith::CmpIPredicate::ule : arith::CmpIPredicate::sle; break;
    case t::CmpPredicate::gt: p = isUnsigned ? arith::CmpIPredicate::ugt : arith::CmpIPredicate::sgt; break;
    case t::CmpPredicate::ge: p = isUnsigned ? arith::CmpIPredicate::uge : arith::CmpIPredicate::sge; break;
    }
    return arith::CmpIOp::create(b, loc, p, x, y);
  }
  if (isa<t::SelectOp>(op))
    return arith::SelectOp::create(b, loc, args[0], args[1], args[2]);
  if (isa<t::CastOp>(op))
    return convertScalar(b, loc, x, elem, resultElem);
  if (isa<t::NegOp>(op)) {
    if (isFloat)
      return arith::NegFOp::create(b, loc, x);
    Value zero = arith::ConstantOp::create(b, loc, b.getIntegerAttr(x.getType(), 0));
    return arith::SubIOp::create(b, loc, zero, x);
  }
  if (isa<t::NotOp>(op)) {
    Value ones = arith::ConstantOp::create(b, loc, b.getIntegerAttr(x.getType(), -1));
    return arith::XOrIOp::create(b, loc, x, ones);
  }
  if (isa<t::AbsOp>(op)) {
    if (isFloat)
      return math::AbsFOp::create(b, loc, x);
    if (isUnsigned)
      return x;
    // x < 0 ? 0 - x : x (math.absi has no lowering to libm or LLVM here).
    Value zero = arith::ConstantOp::create(b, loc, b.getIntegerAttr(x.getType(), 0));
    Value neg = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, x, zero);
    return arith::SelectOp::create(b, loc, neg,
                                   arith::SubIOp::create(b, loc, zero, x), x);
  }
  if (isa<t::ExpOp>(op)) return math::ExpOp::create(b, loc, x);
  if (isa<t::LogOp>(op)) return math::LogOp::create(b, loc, x);
  if (isa<t::SqrtOp>(op)) return math::SqrtOp::create(b, loc, x);
  if (isa<t::TanhOp>(op)) return math::TanhOp::create(b, loc, x);
  if (isa<t::SinOp>(op)) return math::SinOp::create(b, loc, x);
  if (isa<t::CosOp>(op)) return math::CosOp::create(b, loc, x);
  if (isa<t::FloorOp>(op)) return math::FloorOp::create(b, loc, x);
  if (isa<t::CeilOp>(op)) return math::CeilOp::create(b, loc, x);
  if (isa<t::SigmoidOp>(op)) {
    // f16 and bf16 in f32, rounded once: exp(-x) alone overflows f16 from
    // x = -11.1, where the result (1.5e-5) is still an f16 number.
    Type narrow = x.getType();
    bool widen = narrow.getIntOrFloatBitWidth() < 32;
    if (widen)
      x = arith::ExtFOp::create(b, loc, b.getF32Type(), x);
    Value one = arith::ConstantOp::create(b, loc, b.getFloatAttr(x.getType(), 1.0));
    Value e = math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, x));
    Value y = arith::DivFOp::create(b, loc, one, arith::AddFOp::create(b, loc, one, e));
    return widen ? arith::TruncFOp::create(b, loc, narrow, y).getResult() : y;
  }
  return {};
}

/// The indexing map that reads an operand of type `t` inside a loop nest of
/// `rank` loops producing `resultType`: numpy broadcasting aligns trailing
/// dimensions, and a static 1 against a larger extent reads element 0.
AffineMap broadcastMap(MLIRContext *ctx, Type t, RankedTensorType resultType) {
  unsigned rank = resultType.getRank();
  auto tt = dyn_cast<RankedTensorType>(t);
  if (!tt)
    return AffineMap::get(rank, 0, {}, ctx);
  SmallVector<AffineExpr> results;
  unsigned off = rank - tt.getRank();
  for (unsigned i = 0; i < tt.getRank(); ++i) {
    bool bcast = tt.getDimSize(i) == 1 && resultType.getDimSize(off + i) != 1;
    results.push_back(bcast ? getAffineConstantExpr(0, ctx)
                            : getAffineDimExpr(off + i, ctx));
  }
  return AffineMap::get(rank, 0, results, ctx);
}

/// Sizes of the dynamic dimensions of `resultType`, read from operands that
/// are not broadcast along them.
SmallVector<Value> dynamicResultSizes(OpBuilder &b, Location loc,
                                      RankedTensorType resultType,
                                      ValueRange operands) {
  SmallVector<Value> sizes;
  unsigned rank = resultType.getRank();
  for (unsigned d = 0; d < rank; ++d) {
    if (!resultType.isDynamicDim(d))
      continue;
    for (Value v : operands) {
      auto tt = dyn_cast<RankedTensorType>(v.getType());
      if (!tt || tt.getRank() + d < rank)
        continue;
      unsigned od = d - (rank - tt.getRank());
      if (tt.getDimSize(od) == 1)
        continue;
      sizes.push_back(tensor::DimOp::create(b, loc, v, od));
      break;
    }
  }
  return sizes;
}

/// Stops the program with "<file:line:col>: error: <message>" when `ok` is
/// false: run-time shape checks that the compiler could not prove.
void emitFailure(OpBuilder &b, Location loc, Value bad, StringRef message,
                 tdsl::RuntimeCalls &rt);

void emitCheck(OpBuilder &b, Location loc, Value ok, StringRef message,
               tdsl::RuntimeCalls &rt) {
  Value bad = arith::XOrIOp::create(
      b, loc, ok, arith::ConstantOp::create(b, loc, b.getBoolAttr(true)));
  emitFailure(b, loc, bad, message, rt);
}

/// Stops the program with "<file:line:col>: error: <message>" when `bad`.
void emitFailure(OpBuilder &b, Location loc, Value bad, StringRef message,
                 tdsl::RuntimeCalls &rt) {
  auto ifOp = scf::IfOp::create(b, loc, bad, /*withElseRegion=*/false);
  // tdsl-check-static-shapes reports the check at compile time when
  // inlining makes it fail for sure.
  ifOp->setAttr("tdsl.check", b.getStringAttr(message));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifOp.thenBlock());
  rt.call(b, loc, tdsl::RuntimeFn::tdsl_fatal, {rt.getErrorWhere(b, loc), rt.getString(b, loc, message)});
}

/// cf.assert (MLIRGen's call-boundary shape checks) as a located, clean
/// exit 1 through the runtime instead of abort().
struct AssertLowering : OpConversionPattern<cf::AssertOp> {
  AssertLowering(const TypeConverter &tc, MLIRContext *ctx, tdsl::RuntimeCalls &rt)
      : OpConversionPattern(tc, ctx, /*benefit=*/2), rt(rt) {}
  LogicalResult matchAndRewrite(cf::AssertOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rw) const override {
    emitCheck(rw, op.getLoc(), adaptor.getArg(), op.getMsg(), rt);
    rw.eraseOp(op);
    return success();
  }
  tdsl::RuntimeCalls &rt;
};

/// Every element-wise tdsl op: arith/math on scalars, linalg.generic on
/// tensors.
struct ElementwiseLowering : ConversionPattern {
  ElementwiseLowering(const TypeConverter &tc, MLIRContext *ctx,
                      tdsl::RuntimeCalls &rt)
      : ConversionPattern(tc, MatchAnyOpTypeTag(), 1, ctx), rt(rt) {}
  tdsl::RuntimeCalls &rt;

  /// Operands whose extent along a result dimension is only known at run
  /// time must equal the result's there (broadcasting a run-time 1 is not
  /// supported; a static 1 is).
  void checkExtents(OpBuilder &b, Location loc, RankedTensorType result,
                    ArrayRef<Value> operands, ValueRange sizes) const {
    unsigned rank = result.getRank();
    unsigned dynIndex = 0;
    for (unsigned d = 0; d < rank; ++d) {
      Value want = result.isDynamicDim(d)
                       ? sizes[dynIndex++]
                       : (Value)arith::ConstantIndexOp::create(b, loc, result.getDimSize(d));
      for (Value v : operands) {
        auto tt = dyn_cast<RankedTensorType>(v.getType());
        if (!tt || tt.getRank() + d < rank)
          continue;
        unsigned od = d - (rank - tt.getRank());
        if (!tt.isDynamicDim(od))
          continue;
        Value got = tensor::DimOp::create(b, loc, v, od);
        if (got == want)
          continue;
        Value same = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, got, want);
        emitCheck(b, loc, same,
                  "the operands of this element-wise operation have different "
                  "extents in dimension " + std::to_string(d) +
                      " (only a static 1 broadcasts)",
                  rt);
      }
    }
  }

  LogicalResult matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                                ConversionPatternRewriter &rw) const override {
    if (!isa<t::AddOp, t::SubOp, t::MulOp, t::DivOp, t::RemOp, t::PowOp,
             t::MaxOp, t::MinOp, t::AndOp, t::OrOp, t::CmpOp, t::SelectOp,
             t::CastOp, t::NegOp, t::NotOp, t::AbsOp, t::ExpOp, t::LogOp,
             t::SqrtOp, t::TanhOp, t::SinOp, t::CosOp, t::FloorOp, t::CeilOp,
             t::SigmoidOp>(op))
      return failure();
    Location loc = op->getLoc();
    // The select's condition is not the operand whose type decides the op.
    Value typeOperand = op->getOperand(isa<t::SelectOp>(op) ? 1 : 0);
    Type elem = getElementTypeOrSelf(typeOperand.getType());
    Type resultElem = getElementTypeOrSelf(op->getResult(0).getType());
    Type resultType = getTypeConverter()->convertType(op->getResult(0).getType());
    auto resultTensor = dyn_cast<RankedTensorType>(resultType);
    auto check = [&](OpBuilder &b, Location l, Value bad, StringRef msg) {
      emitFailure(b, l, bad, msg, rt);
    };
    if (!resultTensor) {
      Value v = buildScalarOp(rw, loc, op, operands, elem, resultElem, check);
      if (!v)
        return failure();
      rw.replaceOp(op, v);
      return success();
    }
    SmallVector<AffineMap> maps;
    for (Value v : operands)
      maps.push_back(broadcastMap(rw.getContext(), v.getType(), resultTensor));
    maps.push_back(rw.getMultiDimIdentityMap(resultTensor.getRank()));
    SmallVector<Value> sizes = dynamicResultSizes(rw, loc, resultTensor, operands);
    checkExtents(rw, loc, resultTensor, operands, sizes);
    Value init = tensor::EmptyOp::create(rw, loc, resultTensor, sizes);
    SmallVector<utils::IteratorType> iters(resultTensor.getRank(),
                                           utils::IteratorType::parallel);
    bool ok = true;
    auto generic = linalg::GenericOp::create(
        rw, loc, TypeRange{resultTensor}, operands, ValueRange{init}, maps, iters,
        "", "", [&](OpBuilder &b, Location l, ValueRange args) {
          Value v = buildScalarOp(b, l, op, args.drop_back(), elem, resultElem,
                                  check);
          ok = v != nullptr;
          linalg::YieldOp::create(b, l, ok ? v : args.back());
        });
    if (!ok)
      return failure();
    generic->setLoc(tdsl::kernelLoc(op, op->getName().stripDialect()));
    rw.replaceOp(op, generic.getResult(0));
    return success();
  }
};

struct ConstantLowering : OpConversionPattern<t::ConstantOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(t::ConstantOp op, OpAdaptor,
                                ConversionPatternRewriter &rw) const override {
    Type type = getTypeConverter()->convertType(op.getType());
    TypedAttr attr = op.getValue();
    if (auto ia = dyn_cast<IntegerAttr>(attr))
      attr = IntegerAttr::get(type, ia.getValue());
    else if (auto dense = dyn_cast<DenseElementsAttr>(attr))
      attr = dense.bitcast(cast<ShapedType>(type).getElementType());
    rw.replaceOpWithNewOp<arith::ConstantOp>(op, type, attr);
    return success();
  }
};

struct FillLowering : OpConversionPattern<t::FillOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(t::FillOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rw) const override {
    auto type = cast<RankedTensorType>(getTypeConverter()->convertType(op.getType()));
    Value init = tensor::EmptyOp::create(rw, op.getLoc(), type,
                                         adaptor.getDynamicSizes());
    rw.replaceOp(op, linalg::FillOp::create(rw, op.getLoc(), TypeRange{type},
                                            ValueRange{adaptor.getValue()},
                                            ValueRange{init})
                         .getResult(0));
    return success();
  }
};

/// A generic over the result whose body receives the row-major linear index.
Value buildIndexedGeneric(
    ConversionPatternRewriter &rw, Location loc, RankedTensorType type,
    ValueRange dynSizes,
    function_ref<Value(OpBuilder &, Location, Value)> element) {
  Value init = tensor::EmptyOp::create(rw, loc, type, dynSizes);
  unsigned rank = type.getRank();
  SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      rw, loc, TypeRange{type}, ValueRange{}, ValueRange{init},
      ArrayRef<AffineMap>{rw.getMultiDimIdentityMap(rank)}, iters, "", "",
      [&](OpBuilder &b, Location l, ValueRange args) {
        Value lin = arith::ConstantIndexOp::create(b, l, 0);
        for (unsigned d = 0; d < rank; ++d) {
          Value size = tensor::DimOp::create(b, l, init, d);
          lin = arith::MulIOp::create(b, l, lin, size);
          lin = arith::AddIOp::create(b, l, lin, linalg::IndexOp::create(b, l, d));
        }
        linalg::YieldOp::create(b, l, element(b, l, lin));
      });
  return generic.getResult(0);
}

struct ArangeLowering : OpConversionPattern<t::ArangeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(t::ArangeOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rw) const override {
    auto type = cast<RankedTensorType>(getTypeConverter()->convertType(op.getType()));
    Type orig = op.getType().getElementType();
    SmallVector<Value> dyn;
    if (adaptor.getSize())
      dyn.push_back(adaptor.getSize());
    Value r = buildIndexedGeneric(rw, op.getLoc(), type, dyn,
                                  [&](OpBuilder &b, Location l, Value lin) {
                                    return convertScalar(b, l, lin,
                                                         b.getIndexType(), orig);
                                  });
    r.getDefiningOp()->setLoc(tdsl::kernelLoc(op, "arange"));
    rw.replaceOp(op, r);
    return success();
  }
};

struct RandomLowering : OpConversionPattern<t::RandomOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(t::RandomOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    Value ctr = adaptor.getCounter();
    if (isa<IndexType>(ctr.getType()))
      ctr = arith::IndexCastOp::create(rw, loc, rw.getI64Type(), ctr);
    rw.replaceOp(op, tdsl::buildRandom(
                         rw, loc, adaptor.getSeed(), ctr,
                         cast<FloatType>(op.getType()),
                         op.getDistribution() == t::Distribution::normal));
    return success();
  }
};

/// A random tensor whose values are made block by block: a generic over
/// [C, G, 16] (C groups of 16 blocks, G values per block) whose value
/// (c, s, l) is slot s of block 16c + l, i.e. value 16G c + 16 s + l of the
/// stream (buildRandom's definition), so the 16 lanes of a vector are 16
/// consecutive blocks and the G slots reuse them (the block does not depend
/// on s). Then flattened, cut to n values and shaped. Null when the shape
/// would need an expand_shape of two run-time sizes (MLIR 22's
/// expand-strided-metadata crashes on those).
static Value buildRandomBlocks(ConversionPatternRewriter &rw, Location loc,
                               RankedTensorType type, ValueRange dynSizes, Value seed,
                               bool normal) {
  if (!type.hasStaticShape() && type.getRank() != 1)
    return {};
  auto elem = cast<FloatType>(type.getElementType());
  int64_t perBlock = 4 / tdsl::randomWordsPerValue(elem, normal);
  int64_t group = 16 * perBlock;
  Value n = type.hasStaticShape()
                ? (Value)arith::ConstantIndexOp::create(rw, loc, type.getNumElements())
                : dynSizes.front();
  // C = ceil(n / 16G).
  Value groups = arith::CeilDivUIOp::create(
      rw, loc, n, arith::ConstantIndexOp::create(rw, loc, group));
  int64_t staticGroups = type.hasStaticShape()
                             ? llvm::divideCeil(type.getNumElements(), group)
                             : ShapedType::kDynamic;
  auto blocksType = RankedTensorType::get({staticGroups, perBlock, 16}, elem);
  SmallVector<Value> dyn;
  if (ShapedType::isDynamic(staticGroups))
    dyn.push_back(groups);
  Value init = tensor::EmptyOp::create(rw, loc, blocksType, dyn);
  SmallVector<utils::IteratorType> iters(3, utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      rw, loc, TypeRange{blocksType}, ValueRange{}, ValueRange{init},
      ArrayRef<AffineMap>{rw.getMultiDimIdentityMap(3)}, iters, "", "",
      [&](OpBuilder &b, Location l, ValueRange) {
        auto i64 = [&](unsigned d) {
          return arith::IndexCastOp::create(b, l, b.getI64Type(),
                                            linalg::IndexOp::create(b, l, d));
        };
        Value sixteen = arith::ConstantIntOp::create(b, l, b.getI64Type(), 16);
        Value block = arith::AddIOp::create(
            b, l, arith::MulIOp::create(b, l, i64(0), sixteen), i64(2));
        linalg::YieldOp::create(
            b, l, tdsl::buildRandomAt(b, l, seed, block, i64(1), elem, normal));
      });
  generic->setLoc(loc);
  Value flat = tensor::CollapseShapeOp::create(
      rw, loc, generic.getResult(0), ArrayRef<ReassociationIndices>{{0, 1, 2}});
  bool padded = !type.hasStaticShape() || type.getNumElements() % group != 0;
  if (padded)
    flat = tensor::ExtractSliceOp::create(
        rw, loc, flat, ArrayRef<OpFoldResult>{rw.getIndexAttr(0)},
        ArrayRef<OpFoldResult>{getAsOpFoldResult(n)},
        ArrayRef<OpFoldResult>{rw.getIndexAttr(1)});
  if (type.getRank() == 1)
    return flat;
  ReassociationIndices all;
  for (int64_t d = 0; d < type.getRank(); ++d)
    all.push_back(d);
  return tensor::ExpandShapeOp::create(rw, loc, type, flat,
                                       ArrayRef<ReassociationIndices>{all});
}

/// A model initializer's random tensor (tdsl.model_init), filled by the
/// runtime: it runs once, and its Philox and Box-Muller code was 6% of the
/// digits CNN's LLVM IR. The runtime's values are the generated code's, bit
/// for bit (runtime/include/tdsl/Runtime.h).
static Value buildRuntimeFill(ConversionPatternRewriter &rw, Location loc,
                              RankedTensorType type, ValueRange dynamicSizes,
                              Value seed, bool normal, tdsl::RuntimeCalls &rt) {
  auto mt = MemRefType::get(type.getShape(), type.getElementType());
  Value buf = memref::AllocOp::create(rw, loc, mt, dynamicSizes);
  Value n = arith::ConstantIndexOp::create(rw, loc, 1);
  for (int64_t d = 0; d < type.getRank(); ++d)
    n = arith::MulIOp::create(rw, loc, n,
                              memref::DimOp::create(rw, loc, buf, d));
  Value dtype = i32Const(rw, loc, (int32_t)*tdsl::getDType(type.getElementType()));
  rt.call(rw, loc, tdsl::RuntimeFn::tdsl_rng_fill_buffer,
          {dtype, i32Const(rw, loc, normal ? 1 : 0), seed,
           arith::IndexCastOp::create(rw, loc, rw.getI64Type(), n),
           dataPointer(rw, loc, buf)});
  return bufferization::ToTensorOp::create(rw, loc, type, buf, /*restrict=*/true,
                                           /*writable=*/true);
}

struct RandomTensorLowering : OpConversionPattern<t::RandomTensorOp> {
  RandomTensorLowering(const TypeConverter &tc, MLIRContext *ctx,
                       tdsl::RuntimeCalls &rt, bool runtimeModelInit)
      : OpConversionPattern(tc, ctx), rt(rt), runtimeModelInit(runtimeModelInit) {}
  tdsl::RuntimeCalls &rt;
  bool runtimeModelInit;

  LogicalResult matchAndRewrite(t::RandomTensorOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rw) const override {
    auto type = cast<RankedTensorType>(op.getType());
    bool normal = op.getDistribution() == t::Distribution::normal;
    Value seed = adaptor.getSeed();
    Location loc = tdsl::kernelLoc(op, "random");
    if (runtimeModelInit && op->hasAttr(tdsl::kModelInitAttr)) {
      rw.replaceOp(op, buildRuntimeFill(rw, loc, type, adaptor.getDynamicSizes(),
                                        seed, normal, rt));
      return success();
    }
    Value r = buildRandomBlocks(rw, loc, type, adaptor.getDynamicSizes(), seed, normal);
    if (!r) {
      r = buildIndexedGeneric(
          rw, op.getLoc(), type, adaptor.getDynamicSizes(),
          [&](OpBuilder &b, Location l, Value lin) {
            Value ctr = arith::IndexCastOp::create(b, l, b.getI64Type(), lin);
            return tdsl::buildRandom(b, l, seed, ctr,
                                     cast<FloatType>(type.getElementType()), normal);
          });
      r.getDefiningOp()->setLoc(loc);
    }
    rw.replaceOp(op, r);
    return success();
  }
};

struct PrintLowering : OpConversionPattern<t::PrintOp> {
  PrintLowering(const TypeConverter &tc, MLIRContext *ctx, tdsl::RuntimeCalls &rt)
      : OpConversionPattern(tc, ctx), rt(rt) {}
  LogicalResult matchAndRewrite(t::PrintOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    Value prefix = op.getMessage() ? rt.getString(rw, loc, *op.getMessage())
                                   : rt.getNull(rw, loc);
    Value newline = i32Const(rw, loc, op.getNoNewline() ? 0 : 1);
    if (!op.getValue()) {
      rt.call(rw, loc, tdsl::RuntimeFn::tdsl_print_str, {prefix, newline});
      rw.eraseOp(op);
      return success();
    }
    Type orig = op.getValue().getType();
    Value v = adaptor.getValue();
    auto dtype = tdsl::getDType(getElementTypeOrSelf(orig));
    if (!dtype)
      return op.emitOpError("cannot print values of type ") << orig;
    if (auto tt = dyn_cast<RankedTensorType>(v.getType())) {
      Value buf = tensorBuffer(rw, loc, v);
      rt.call(rw, loc, tdsl::RuntimeFn::tdsl_print_tensor, {i32Const(rw, loc, (int32_t)*dtype),
               arith::ConstantOp::create(rw, loc, rw.getI64IntegerAttr(tt.getRank())),
               sizesPointer(rw, loc, buf, tt.getRank()), dataPointer(rw, loc, buf),
               prefix, newline});
      rw.eraseOp(op);
      return success();
    }
    // f16/bf16 travel as their bits; i1 as a byte.
    if (*dtype == tdsl::DType::F16 || *dtype == tdsl::DType::BF16)
      v = arith::BitcastOp::create(rw, loc, rw.getI16Type(), v);
    else if (*dtype == tdsl::DType::I1)
      v = arith::ExtUIOp::create(rw, loc, rw.getI8Type(), v);
    rt.call(rw, loc, tdsl::getPrintFn(*dtype), {v, prefix, newline});
    rw.eraseOp(op);
    return success();
  }
  tdsl::RuntimeCalls &rt;
};

struct LoadLowering : OpConversionPattern<t::LoadOp> {
  LoadLowering(const TypeConverter &tc, MLIRContext *ctx, tdsl::RuntimeCalls &rt)
      : OpConversionPattern(tc, ctx), rt(rt) {}
  LogicalResult matchAndRewrite(t::LoadOp op, OpAdaptor,
                                ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    auto orig = cast<RankedTensorType>(op.getType());
    auto type = cast<RankedTensorType>(getTypeConverter()->convertType(orig));
    auto dtype = tdsl::getDType(orig.getElementType());
    if (!dtype)
      return op.emitOpError("cannot load elements of type ") << orig.getElementType();
    unsigned rank = type.getRank();
    Value path = rt.getString(rw, loc, op.getPath());
    Value where = rt.getErrorWhere(rw, loc);
    Value dt = i32Const(rw, loc, (int32_t)*dtype);
    Value rk = arith::ConstantOp::create(rw, loc, rw.getI64IntegerAttr(rank));
    // The file decides the dynamic sizes; the runtime checks the static ones.
    auto sizesType = MemRefType::get({std::max(rank, 1u)}, rw.getI64Type());
    Value sizes = memref::AllocaOp::create(rw, loc, sizesType);
    for (unsigned d = 0; d < rank; ++d)
      memref::StoreOp::create(
          rw, loc,
          arith::ConstantOp::create(rw, loc, rw.getI64IntegerAttr(
                                                 type.isDynamicDim(d) ? -1 : type.getDimSize(d))),
          sizes, ValueRange{arith::ConstantIndexOp::create(rw, loc, d)});
    Value sizesPtr = dataPointer(rw, loc, sizes);
    // The shape step reads the whole file; tdsl_npy_read copies it out.
    rt.call(rw, loc,
            op.getFormat() == "csv" ? tdsl::RuntimeFn::tdsl_csv_shape
                                    : tdsl::RuntimeFn::tdsl_npy_shape,
            {path, dt, rk, sizesPtr, where});
    SmallVector<Value> dyn;
    for (unsigned d = 0; d < rank; ++d)
      if (type.isDynamicDim(d)) {
        Value s = memref::LoadOp::create(
            rw, loc, sizes, ValueRange{arith::ConstantIndexOp::create(rw, loc, d)});
        dyn.push_back(arith::IndexCastOp::create(rw, loc, rw.getIndexType(), s));
      }
    auto mt = MemRefType::get(type.getShape(), type.getElementType());
    Value buf = memref::AllocOp::create(rw, loc, mt, dyn);
    rt.call(rw, loc, tdsl::RuntimeFn::tdsl_npy_read, {path, dt, rk, sizesPtr, dataPointer(rw, loc, buf), where});
    rw.replaceOp(op, bufferization::ToTensorOp::create(rw, loc, type, buf,
                                                      /*restrict=*/true,
                                                      /*writable=*/true));
    return success();
  }
  tdsl::RuntimeCalls &rt;
};

struct SaveLowering : OpConversionPattern<t::SaveOp> {
  SaveLowering(const TypeConverter &tc, MLIRContext *ctx, tdsl::RuntimeCalls &rt)
      : OpConversionPattern(tc, ctx), rt(rt) {}
  LogicalResult matchAndRewrite(t::SaveOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    auto orig = cast<RankedTensorType>(op.getValue().getType());
    auto dtype = tdsl::getDType(orig.getElementType());
    if (!dtype)
      return op.emitOpError("cannot save elements of type ") << orig.getElementType();
    Value buf = tensorBuffer(rw, loc, adaptor.getValue());
    unsigned rank = orig.getRank();
    rt.call(rw, loc, tdsl::RuntimeFn::tdsl_npy_write, {rt.getString(rw, loc, op.getPath()), i32Const(rw, loc, (int32_t)*dtype),
             arith::ConstantOp::create(rw, loc, rw.getI64IntegerAttr(rank)),
             sizesPointer(rw, loc, buf, rank), dataPointer(rw, loc, buf),
             rt.getErrorWhere(rw, loc)});
    rw.eraseOp(op);
    return success();
  }
  tdsl::RuntimeCalls &rt;
};

/// Any other op whose types mention ui64: the same op with signless types.
struct RetypeLowering : ConversionPattern {
  RetypeLowering(const TypeConverter &tc, MLIRContext *ctx)
      : ConversionPattern(tc, MatchAnyOpTypeTag(), 0, ctx) {}
  LogicalResult matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                                ConversionPatternRewriter &rw) const override {
    if (isa<t::TDSLDialect>(op->getDialect()) || isa<func::FuncOp>(op))
      return failure();
    SmallVector<Type> results;
    if (failed(getTypeConverter()->convertTypes(op->getResultTypes(), results)))
      return failure();
    OperationState state(op->getLoc(), op->getName().getStringRef(), operands,
                         results, op->getAttrs(), op->getSuccessors());
    for (Region &r : op->getRegions()) {
      Region *nr = state.addRegion();
      rw.inlineRegionBefore(r, *nr, nr->end());
      if (failed(rw.convertRegionTypes(nr, *getTypeConverter())))
        return failure();
    }
    Operation *newOp = rw.create(state);
    rw.replaceOp(op, newOp->getResults());
    return success();
  }
};

} // namespace

tdsl::SignlessTypeConverter::SignlessTypeConverter() {
  addConversion([](Type type) { return type; });
  addConversion([](IntegerType type) -> Type {
    return IntegerType::get(type.getContext(), type.getWidth());
  });
  addConversion([this](RankedTensorType type) -> Type {
    return type.clone(convertType(type.getElementType()));
  });
  addConversion([this](MemRefType type) -> Type {
    return type.clone(convertType(type.getElementType()));
  });
  auto cast = [](OpBuilder &b, Type to, ValueRange in, Location loc) -> Value {
    return UnrealizedConversionCastOp::create(b, loc, to, in).getResult(0);
  };
  addSourceMaterialization(cast);
  addTargetMaterialization(cast);
}

void tdsl::populateTDSLToLinalgConversionPatterns(
    const TypeConverter &converter, tdsl::RuntimeCalls &rt,
    RewritePatternSet &patterns, bool runtimeModelInit) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<ConstantLowering, FillLowering, ArangeLowering, RandomLowering,
               RetypeLowering>(converter, ctx);
  patterns.add<RandomTensorLowering>(converter, ctx, rt, runtimeModelInit);
  patterns.add<ElementwiseLowering, PrintLowering, LoadLowering, SaveLowering,
               AssertLowering>(converter, ctx, rt);
  populateCollectivesToRuntimePatterns(converter, rt, patterns);
  populateFunctionOpInterfaceTypeConversionPattern<func::FuncOp>(patterns,
                                                                converter);
}

namespace {

struct ConvertTDSLToLinalgPass
    : tdsl::impl::ConvertTDSLToLinalgBase<ConvertTDSLToLinalgPass> {
  using ConvertTDSLToLinalgBase::ConvertTDSLToLinalgBase;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(tdsl::lowerStructuredOps(module)))
      return signalPassFailure();
    if (shareRandomBlocks)
      tdsl::shareRandomBlocks(module);

    MLIRContext *ctx = &getContext();
    tdsl::SignlessTypeConverter converter;
    tdsl::RuntimeCalls rt(module);
    ConversionTarget target(*ctx);
    target.addIllegalDialect<t::TDSLDialect>();
    target.addIllegalOp<cf::AssertOp>();
    target.markUnknownOpDynamicallyLegal([&](Operation *op) {
      if (auto fn = dyn_cast<FunctionOpInterface>(op))
        return converter.isSignatureLegal(cast<FunctionType>(fn.getFunctionType())) &&
               converter.isLegal(&fn.getFunctionBody());
      return converter.isLegal(op) &&
             llvm::all_of(op->getRegions(), [&](Region &r) {
               return converter.isLegal(&r);
             });
    });

    RewritePatternSet patterns(ctx);
    tdsl::populateTDSLToLinalgConversionPatterns(converter, rt, patterns,
                                                 runtimeModelInit);
    if (failed(applyFullConversion(module, target, std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
