//===- Random.cpp - Counter-based Philox4x32-10 random numbers ------------===//
// The formulas are specified in Runtime.h; the GPU back end must emit the
// same arithmetic, so keep them in step.
#include "Internal.h"
#include "tdsl/NormalTransform.h"

#include <cmath>
#include <cstring>

using namespace tdsl::rt;

namespace {
constexpr uint32_t kMul0 = 0xD2511F53u, kMul1 = 0xCD9E8D57u;
constexpr uint32_t kWeyl0 = 0x9E3779B9u, kWeyl1 = 0xBB67AE85u;

inline void philox(const uint32_t ctr[4], const uint32_t key[2],
                   uint32_t out[4]) {
  uint32_t x0 = ctr[0], x1 = ctr[1], x2 = ctr[2], x3 = ctr[3];
  uint32_t k0 = key[0], k1 = key[1];
  for (int round = 0; round < 10; ++round) {
    if (round) {
      k0 += kWeyl0;
      k1 += kWeyl1;
    }
    uint64_t p0 = uint64_t(kMul0) * x0, p1 = uint64_t(kMul1) * x2;
    uint32_t y0 = uint32_t(p1 >> 32) ^ x1 ^ k0;
    uint32_t y2 = uint32_t(p0 >> 32) ^ x3 ^ k1;
    x1 = uint32_t(p1);
    x3 = uint32_t(p0);
    x0 = y0;
    x2 = y2;
  }
  out[0] = x0;
  out[1] = x1;
  out[2] = x2;
  out[3] = x3;
}

inline void philox64(uint64_t seed, uint64_t ctr, uint32_t out[4]) {
  const uint32_t c[4] = {uint32_t(ctr), uint32_t(ctr >> 32), 0, 0};
  const uint32_t k[2] = {uint32_t(seed), uint32_t(seed >> 32)};
  philox(c, k, out);
}

inline float unitF32(uint32_t x) { return float(x >> 8) * 0x1p-24f; }
inline double unitF64(uint32_t hi, uint32_t lo) {
  return double(((uint64_t(hi) << 32) | lo) >> 11) * 0x1p-53;
}

/// The words of value k of a stream whose values take 4 / perBlock words:
/// with c = k / 16G and p = k % 16G (G = perBlock), words (p / 16) * W ..
/// of block 16c + p % 16 (Runtime.h), at w[0..W).
inline const uint32_t *valueWords(uint64_t seed, uint64_t k, uint64_t perBlock,
                                  uint32_t r[4]) {
  uint64_t group = 16 * perBlock, c = k / group, p = k % group;
  philox64(seed, 16 * c + p % 16, r);
  return r + (p / 16) * (4 / perBlock);
}

inline float uniformF32(uint64_t seed, uint64_t ctr) {
  uint32_t r[4];
  return unitF32(valueWords(seed, ctr, 4, r)[0]);
}
inline double uniformF64(uint64_t seed, uint64_t ctr) {
  uint32_t r[4];
  const uint32_t *w = valueWords(seed, ctr, 2, r);
  return unitF64(w[0], w[1]);
}
// The normal transform of Runtime.h, step by step: each operation rounds
// once, in this order, as the compiler's code does on the CPU and the GPU.
#pragma clang fp contract(off)

/// Horner's rule on `terms` coefficients: a product, then a sum.
template <typename T>
T horner(const double *coeffs, int terms, T w) {
  T acc = T(coeffs[terms - 1]);
  for (int n = terms - 2; n >= 0; --n) {
    T product = acc * w;
    acc = product + T(coeffs[n]);
  }
  return acc;
}

/// Bits: UInt of T's width; `mant` and `bias` T's fraction bits and bias.
template <typename T, typename UInt, typename Int, int mant, int bias>
T normalFrom(T u1, UInt j, int jbits, int logTerms, int trigTerms) {
  // ln u1 = e ln 2 + ln m with m in (sqrt(1/2), sqrt(2)].
  UInt bits;
  std::memcpy(&bits, &u1, sizeof bits);
  Int e = Int(bits >> mant) - Int(bias);
  UInt mbits = (bits & ((UInt(1) << mant) - 1)) | (UInt(bias) << mant);
  T m;
  std::memcpy(&m, &mbits, sizeof m);
  if (m > T(TDSL_NORMAL_SQRT2)) {
    m = m * T(0.5);
    e = e + 1;
  }
  T f = m - T(1);
  T s = f / (T(2) + f);
  T z = s * s;
  T q = horner(tdsl_normal_log_coeffs, logTerms, z);
  T lnm = s * (T(2) + z * q);
  T logU1 = T(e) * T(TDSL_NORMAL_LN2) + lnm;
  T radius = T(std::sqrt(double(T(-2) * logU1)));
  // cos(2 pi u2) = cos(k pi/2 + pi t/2) where 4 u2 = k + t, t in [-1/2, 1/2).
  int shift = jbits - 2;
  UInt k = (j + (UInt(1) << (shift - 1))) >> shift;
  T t = T(Int(j) - Int(k << shift)) * T(std::ldexp(1.0, -shift));
  T w = t * t;
  T c = horner(tdsl_normal_cos_coeffs, trigTerms, w);
  T sn = horner(tdsl_normal_sin_coeffs, trigTerms, w) * t;
  UInt quadrant = k & 3;
  T v = (quadrant & 1) ? sn : c;
  if ((quadrant + 1) & 2)
    v = -v;
  return radius * v;
}

inline float normalF32(uint64_t seed, uint64_t ctr) {
  uint32_t r[4];
  const uint32_t *w = valueWords(seed, ctr, 2, r);
  return normalFrom<float, uint32_t, int32_t, 23, 127>(
      1.0f - unitF32(w[0]), w[1] >> 8, 24, TDSL_NORMAL_LOG_TERMS_F32,
      TDSL_NORMAL_TRIG_TERMS_F32);
}
inline double normalF64(uint64_t seed, uint64_t ctr) {
  uint32_t r[4];
  const uint32_t *w = valueWords(seed, ctr, 1, r);
  uint64_t j = ((uint64_t(w[2]) << 32) | w[3]) >> 11;
  return normalFrom<double, uint64_t, int64_t, 52, 1023>(
      1.0 - unitF64(w[0], w[1]), j, 53, TDSL_NORMAL_LOG_TERMS_F64,
      TDSL_NORMAL_TRIG_TERMS_F64);
}

struct FillArgs {
  MemRefView view;
  int32_t dtype;
  bool normal;
  uint64_t seed;
};

struct BufferFillArgs {
  void *data;
  int32_t dtype;
  bool normal;
  uint64_t seed;
};

/// Contiguous elements: element k at data[k].
template <typename T, T (*Gen)(uint64_t, uint64_t)>
void fill(const BufferFillArgs &a, int64_t begin, int64_t end) {
  T *out = static_cast<T *>(a.data);
  for (int64_t k = begin; k < end; ++k)
    out[k] = Gen(a.seed, uint64_t(k));
}

/// Any strides: element k in row-major order.
template <typename T, T (*Gen)(uint64_t, uint64_t)>
void fill(const FillArgs &a, int64_t begin, int64_t end) {
  RowMajorWalker w(a.view, begin);
  for (int64_t k = begin; k < end; ++k, w.next())
    *reinterpret_cast<T *>(w.get()) = Gen(a.seed, uint64_t(k));
}

/// The parallel loop body of a fill of Args (FillArgs or BufferFillArgs).
template <typename Args>
void fillBody(int64_t begin, int64_t end, void *ctx) {
  const Args &a = *static_cast<const Args *>(ctx);
  if (a.dtype == TDSL_F32)
    a.normal ? fill<float, normalF32>(a, begin, end)
             : fill<float, uniformF32>(a, begin, end);
  else
    a.normal ? fill<double, normalF64>(a, begin, end)
             : fill<double, uniformF64>(a, begin, end);
}
} // namespace

void tdsl_philox4x32_10_block(const uint32_t ctr[4], const uint32_t key[2],
                              uint32_t out[4]) {
  philox(ctr, key, out);
}

void tdsl_philox4x32_10(uint64_t seed, uint64_t ctr, uint32_t out[4]) {
  philox64(seed, ctr, out);
}

float tdsl_rng_uniform_f32(uint64_t seed, uint64_t ctr) {
  return uniformF32(seed, ctr);
}
double tdsl_rng_uniform_f64(uint64_t seed, uint64_t ctr) {
  return uniformF64(seed, ctr);
}
float tdsl_rng_normal_f32(uint64_t seed, uint64_t ctr) {
  return normalF32(seed, ctr);
}
double tdsl_rng_normal_f64(uint64_t seed, uint64_t ctr) {
  return normalF64(seed, ctr);
}

/// Generated code fills only f32 and f64 tensors: anything else is a misuse
/// of the ABI, reported at "tdsl".
static Status checkFillable(int32_t dtype, int64_t rank) {
  TDSL_TRY(checkDtypeAndRank(dtype, rank, "tdsl_rng_fill"));
  if (dtype != TDSL_F32 && dtype != TDSL_F64)
    return Status::errorAt(
        nullptr, "tdsl_rng_fill: expected an f32 or f64 tensor, found " +
                     dtypeName(dtype));
  return Status();
}

void tdsl_rng_fill(int32_t dtype, int32_t normal, uint64_t seed, int64_t rank,
                   void *memref) {
  exitOnError(checkFillable(dtype, rank), nullptr);
  FillArgs args{MemRefView(memref, rank, tdsl_dtype_size(dtype)), dtype,
                normal != 0, seed};
  // ~16K elements per chunk keeps the per-chunk walker setup negligible.
  tdsl_parallel_for(0, args.view.numElements(), 1 << 14, fillBody<FillArgs>,
                    &args);
}

void tdsl_rng_fill_buffer(int32_t dtype, int32_t normal, uint64_t seed,
                          int64_t n, void *data) {
  exitOnError(checkFillable(dtype, 1), nullptr);
  BufferFillArgs args{data, dtype, normal != 0, seed};
  tdsl_parallel_for(0, n, 1 << 14, fillBody<BufferFillArgs>, &args);
}
