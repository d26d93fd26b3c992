//===- Philox.cpp - The counter-based RNG as arith/math ops ----------------===//
#include "compiler/Conversion/TDSLToLinalg/Philox.h"
#include "runtime/include/tdsl/NormalTransform.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include "llvm/Support/MathExtras.h"

#include <array>
#include <cmath>

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
  /// The top 53 bits of (hi, lo), as an i64.
  Value bits53(Value hi, Value lo) {
    Value h = arith::ExtUIOp::create(b, loc, b.getI64Type(), hi);
    Value l = arith::ExtUIOp::create(b, loc, b.getI64Type(), lo);
    Value v = arith::OrIOp::create(b, loc, arith::ShLIOp::create(b, loc, h, i64(32)), l);
    return arith::ShRUIOp::create(b, loc, v, i64(11));
  }
  /// 53 random bits of (hi, lo) as a double in [0, 1).
  Value unitF64(Value hi, Value lo) {
    Value f = arith::UIToFPOp::create(b, loc, b.getF64Type(), bits53(hi, lo));
    return arith::MulFOp::create(
        b, loc, f, arith::ConstantOp::create(b, loc, b.getF64FloatAttr(0x1p-53)));
  }

  // The normal transform (Runtime.h): basic IEEE operations in a fixed
  // order, no libm or libdevice call, so every back end rounds alike.
  Value fp(FloatType t, double v) {
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(t, v));
  }
  Value intOf(IntegerType t, int64_t v) {
    return arith::ConstantOp::create(b, loc, b.getIntegerAttr(t, v));
  }
  Value mul(Value x, Value y) { return arith::MulFOp::create(b, loc, x, y); }
  Value add(Value x, Value y) { return arith::AddFOp::create(b, loc, x, y); }
  /// Horner's rule: c[n-1] w^(n-1) + ... + c[0], a product then a sum per step.
  Value horner(const double *coeffs, int terms, Value w) {
    auto t = cast<FloatType>(w.getType());
    Value acc = fp(t, coeffs[terms - 1]);
    for (int n = terms - 2; n >= 0; --n)
      acc = add(mul(acc, w), fp(t, coeffs[n]));
    return acc;
  }
  /// sqrt(-2 ln u1) cos(2 pi j 2^-jbits), u1 in (0, 1] of the result type,
  /// j an integer of its width.
  Value normal(Value u1, Value j, int jbits) {
    auto t = cast<FloatType>(u1.getType());
    bool f32 = t.isF32();
    unsigned width = f32 ? 32 : 64;
    int mant = f32 ? 23 : 52, bias = f32 ? 127 : 1023;
    auto it = b.getIntegerType(width);
    // ln u1 = e ln 2 + ln m, m in (sqrt(1/2), sqrt(2)].
    Value bits = arith::BitcastOp::create(b, loc, it, u1);
    Value e = arith::SubIOp::create(
        b, loc, arith::ShRUIOp::create(b, loc, bits, intOf(it, mant)), intOf(it, bias));
    Value mbits = arith::OrIOp::create(
        b, loc, arith::AndIOp::create(b, loc, bits, intOf(it, (int64_t(1) << mant) - 1)),
        intOf(it, int64_t(bias) << mant));
    Value m = arith::BitcastOp::create(b, loc, t, mbits);
    Value big = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, m,
                                      fp(t, TDSL_NORMAL_SQRT2));
    m = arith::SelectOp::create(b, loc, big, mul(m, fp(t, 0.5)), m);
    e = arith::SelectOp::create(b, loc, big,
                                arith::AddIOp::create(b, loc, e, intOf(it, 1)), e);
    Value f = arith::SubFOp::create(b, loc, m, fp(t, 1.0));
    Value s = arith::DivFOp::create(b, loc, f, add(fp(t, 2.0), f));
    Value z = mul(s, s);
    Value q = horner(tdsl_normal_log_coeffs,
                     f32 ? TDSL_NORMAL_LOG_TERMS_F32 : TDSL_NORMAL_LOG_TERMS_F64, z);
    Value lnm = mul(s, add(fp(t, 2.0), mul(z, q)));
    Value ef = arith::SIToFPOp::create(b, loc, t, e);
    Value logU1 = add(mul(ef, fp(t, TDSL_NORMAL_LN2)), lnm);
    // A correctly rounded square root on every back end: f64's (the GPU's
    // f32 sqrt may be approximate); rounded once more to f32 it is still
    // the correctly rounded f32 root.
    Value t2 = mul(fp(t, -2.0), logU1);
    if (f32)
      t2 = arith::ExtFOp::create(b, loc, b.getF64Type(), t2);
    Value radius = math::SqrtOp::create(b, loc, t2);
    if (f32)
      radius = arith::TruncFOp::create(b, loc, t, radius);
    // cos(2 pi u2) = cos(k pi/2 + pi t/2), 4 u2 = k + t, t in [-1/2, 1/2).
    int shift = jbits - 2;
    Value k = arith::ShRUIOp::create(
        b, loc, arith::AddIOp::create(b, loc, j, intOf(it, int64_t(1) << (shift - 1))),
        intOf(it, shift));
    Value d = arith::SubIOp::create(
        b, loc, j, arith::ShLIOp::create(b, loc, k, intOf(it, shift)));
    Value tt = mul(arith::SIToFPOp::create(b, loc, t, d), fp(t, std::ldexp(1.0, -shift)));
    Value w = mul(tt, tt);
    int terms = f32 ? TDSL_NORMAL_TRIG_TERMS_F32 : TDSL_NORMAL_TRIG_TERMS_F64;
    Value c = horner(tdsl_normal_cos_coeffs, terms, w);
    Value sn = mul(horner(tdsl_normal_sin_coeffs, terms, w), tt);
    Value quadrant = arith::AndIOp::create(b, loc, k, intOf(it, 3));
    Value odd = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::ne,
        arith::AndIOp::create(b, loc, quadrant, intOf(it, 1)), intOf(it, 0));
    Value negate = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::ne,
        arith::AndIOp::create(b, loc,
                              arith::AddIOp::create(b, loc, quadrant, intOf(it, 1)),
                              intOf(it, 2)),
        intOf(it, 0));
    Value v = arith::SelectOp::create(b, loc, odd, sn, c);
    v = arith::SelectOp::create(b, loc, negate, arith::NegFOp::create(b, loc, v), v);
    return mul(radius, v);
  }
};
} // namespace

int tdsl::randomWordsPerValue(FloatType type, bool normal) {
  return type.isF32() ? (normal ? 2 : 1) : (normal ? 4 : 2);
}

/// The four words of the Philox4x32-10 block with key (lo32(seed),
/// hi32(seed)) and counter (lo32(block), hi32(block), 0, 0).
static std::array<Value, 4> philoxBlock(RngBuilder &r, Value seed, Value block) {
  OpBuilder &b = r.b;
  Location loc = r.loc;
  Value x0 = r.lo32(block), x1 = r.hi32(block), x2 = r.i32(0), x3 = r.i32(0);
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
  return {x0, x1, x2, x3};
}

/// A value from its words (out[0..W) of the formulas in Runtime.h).
static Value valueOf(RngBuilder &r, ArrayRef<Value> w, FloatType type, bool normal) {
  OpBuilder &b = r.b;
  Location loc = r.loc;
  bool f32 = type.isF32();
  if (!normal)
    return f32 ? r.unitF32(w[0]) : r.unitF64(w[0], w[1]);
  // u1 = 1 - uniform in (0, 1]; the angle's integer j: cos(2 pi j 2^-jbits).
  Value one = r.fp(type, 1.0);
  if (f32) {
    Value u1 = arith::SubFOp::create(b, loc, one, r.unitF32(w[0]));
    Value j = arith::ShRUIOp::create(b, loc, w[1], r.i32(8));
    return r.normal(u1, j, 24);
  }
  Value u1 = arith::SubFOp::create(b, loc, one, r.unitF64(w[0], w[1]));
  return r.normal(u1, r.bits53(w[2], w[3]), 53);
}

Value tdsl::buildRandomAt(OpBuilder &b, Location loc, Value seed, Value block,
                          Value slot, FloatType type, bool normal) {
  RngBuilder r{b, loc};
  std::array<Value, 4> x = philoxBlock(r, seed, block);
  int words = randomWordsPerValue(type, normal);
  // Words slot * W .. slot * W + W - 1, chosen by selects (slot is a loop
  // index where a fill is unrolled over it, and the selects fold).
  SmallVector<Value> w(x.begin(), x.begin() + words);
  for (int s = 1; s < 4 / words; ++s) {
    Value is = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, slot, r.i64(s));
    for (int i = 0; i < words; ++i)
      w[i] = arith::SelectOp::create(b, loc, is, x[s * words + i], w[i]);
  }
  return valueOf(r, w, type, normal);
}

SmallVector<Value> tdsl::buildRandomSlots(OpBuilder &b, Location loc, Value seed,
                                          Value block, FloatType type, bool normal) {
  RngBuilder r{b, loc};
  std::array<Value, 4> x = philoxBlock(r, seed, block);
  int words = randomWordsPerValue(type, normal);
  SmallVector<Value> values;
  for (int s = 0; s < 4 / words; ++s)
    values.push_back(valueOf(r, ArrayRef<Value>(x).slice(s * words, words), type, normal));
  return values;
}

Value tdsl::buildRandom(OpBuilder &b, Location loc, Value seed, Value counter,
                        FloatType type, bool normal) {
  // Value k: with G = 4 / W values per block, c = k / 16G, p = k % 16G, the
  // block 16c + p % 16 and the slot p / 16 (powers of two: shifts).
  RngBuilder r{b, loc};
  int perBlock = 4 / randomWordsPerValue(type, normal);
  int64_t group = 16 * perBlock;
  Value c = arith::ShRUIOp::create(b, loc, counter, r.i64(llvm::Log2_64(group)));
  Value p = arith::AndIOp::create(b, loc, counter, r.i64(group - 1));
  Value block = arith::OrIOp::create(b, loc, arith::ShLIOp::create(b, loc, c, r.i64(4)),
                                     arith::AndIOp::create(b, loc, p, r.i64(15)));
  Value slot = arith::ShRUIOp::create(b, loc, p, r.i64(4));
  return buildRandomAt(b, loc, seed, block, slot, type, normal);
}
