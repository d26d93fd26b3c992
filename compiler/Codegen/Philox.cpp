//===- Philox.cpp - The counter-based RNG as arith/math ops ----------------===//
#include "compiler/Codegen/Philox.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;

namespace {
constexpr uint32_t kMul0 = 0xD2511F53u, kMul1 = 0xCD9E8D57u;
constexpr uint32_t kWeyl0 = 0x9E3779B9u, kWeyl1 = 0xBB67AE85u;

struct RngBuilder {
  OpBuilder &b;
  Location loc;
  Value i32(uint32_t v) {
    return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr((int32_t)v));
  }
  Value i64(uint64_t v) {
    return arith::ConstantOp::create(b, loc, b.getI64IntegerAttr((int64_t)v));
  }
  Value lo32(Value v) { return arith::TruncIOp::create(b, loc, b.getI32Type(), v); }
  Value hi32(Value v) {
    return lo32(arith::ShRUIOp::create(b, loc, v, i64(32)));
  }
  Value mul64(Value x, Value y) {
    Value a = arith::ExtUIOp::create(b, loc, b.getI64Type(), x);
    Value c = arith::ExtUIOp::create(b, loc, b.getI64Type(), y);
    return arith::MulIOp::create(b, loc, a, c);
  }
  Value xor3(Value x, Value y, Value z) {
    return arith::XOrIOp::create(b, loc, arith::XOrIOp::create(b, loc, x, y), z);
  }
  /// x >> 8 as a float in [0, 1) with 24 random bits.
  Value unitF32(Value x) {
    Value top = arith::ShRUIOp::create(b, loc, x, i32(8));
    Value f = arith::UIToFPOp::create(b, loc, b.getF32Type(), top);
    return arith::MulFOp::create(
        b, loc, f, arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0x1p-24f)));
  }
  /// 53 random bits of (hi, lo) as a double in [0, 1).
  Value unitF64(Value hi, Value lo) {
    Value h = arith::ExtUIOp::create(b, loc, b.getI64Type(), hi);
    Value l = arith::ExtUIOp::create(b, loc, b.getI64Type(), lo);
    Value v = arith::OrIOp::create(b, loc, arith::ShLIOp::create(b, loc, h, i64(32)), l);
    v = arith::ShRUIOp::create(b, loc, v, i64(11));
    Value f = arith::UIToFPOp::create(b, loc, b.getF64Type(), v);
    return arith::MulFOp::create(
        b, loc, f, arith::ConstantOp::create(b, loc, b.getF64FloatAttr(0x1p-53)));
  }
};
} // namespace

Value tdsl::buildRandom(OpBuilder &b, Location loc, Value seed, Value counter,
                        FloatType type, bool normal) {
  RngBuilder r{b, loc};
  Value x0 = r.lo32(counter), x1 = r.hi32(counter), x2 = r.i32(0), x3 = r.i32(0);
  Value k0 = r.lo32(seed), k1 = r.hi32(seed);
  Value m0 = r.i32(kMul0), m1 = r.i32(kMul1);
  for (int round = 0; round < 10; ++round) {
    if (round) {
      k0 = arith::AddIOp::create(b, loc, k0, r.i32(kWeyl0));
      k1 = arith::AddIOp::create(b, loc, k1, r.i32(kWeyl1));
    }
    // 32x32->64 products through i64 (LLVM turns them into pmuludq), not
    // arith.mului_extended, which LLVM lowering takes on 1-D vectors only.
    Value p0 = r.mul64(m0, x0), p1 = r.mul64(m1, x2);
    Value y0 = r.xor3(r.hi32(p1), x1, k0);
    Value y2 = r.xor3(r.hi32(p0), x3, k1);
    x1 = r.lo32(p1);
    x3 = r.lo32(p0);
    x0 = y0;
    x2 = y2;
  }
  if (type.isF32()) {
    if (!normal)
      return r.unitF32(x0);
    Value one = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(1.0f));
    Value u1 = arith::SubFOp::create(b, loc, one, r.unitF32(x0));
    Value u2 = r.unitF32(x1);
    Value m2 = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(-2.0f));
    Value twoPi = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(6.2831853f));
    Value rad = math::SqrtOp::create(
        b, loc, arith::MulFOp::create(b, loc, m2, math::LogOp::create(b, loc, u1)));
    Value c = math::CosOp::create(b, loc, arith::MulFOp::create(b, loc, twoPi, u2));
    return arith::MulFOp::create(b, loc, rad, c);
  }
  if (!normal)
    return r.unitF64(x0, x1);
  Value one = arith::ConstantOp::create(b, loc, b.getF64FloatAttr(1.0));
  Value u1 = arith::SubFOp::create(b, loc, one, r.unitF64(x0, x1));
  Value u2 = r.unitF64(x2, x3);
  Value m2 = arith::ConstantOp::create(b, loc, b.getF64FloatAttr(-2.0));
  Value twoPi =
      arith::ConstantOp::create(b, loc, b.getF64FloatAttr(6.283185307179586));
  Value rad = math::SqrtOp::create(
      b, loc, arith::MulFOp::create(b, loc, m2, math::LogOp::create(b, loc, u1)));
  Value c = math::CosOp::create(b, loc, arith::MulFOp::create(b, loc, twoPi, u2));
  return arith::MulFOp::create(b, loc, rad, c);
}
