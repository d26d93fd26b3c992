//===- RuntimeRandomTest.cpp - Philox4x32-10 and derived distributions ----===//
#include "RuntimeTestUtils.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <set>
#include <vector>

using tdsl::test::MemRef;

namespace {
struct Kat {
  uint32_t ctr[4], key[2], expected[4];
};

// Random123 tests/kat_vectors, the three "philox4x32 10" lines (ctr[4],
// key[2], expected[4]): all zeros, all ones, and the digits of pi.
const Kat kKats[] = {
    {{0x00000000, 0x00000000, 0x00000000, 0x00000000},
     {0x00000000, 0x00000000},
     {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
    {{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
     {0xffffffff, 0xffffffff},
     {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
    {{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
     {0xa4093822, 0x299f31d0},
     {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
};

struct Moments {
  double mean, variance, min, max;
};

template <typename T> Moments moments(const std::vector<T> &v) {
  double sum = 0, sumSq = 0, lo = INFINITY, hi = -INFINITY;
  for (T x : v) {
    sum += x;
    sumSq += double(x) * x;
    lo = std::fmin(lo, x);
    hi = std::fmax(hi, x);
  }
  double mean = sum / double(v.size());
  return {mean, sumSq / double(v.size()) - mean * mean, lo, hi};
}

template <typename T>
std::vector<T> fill(int32_t dtype, int32_t normal, uint64_t seed, int64_t n) {
  std::vector<T> v(static_cast<size_t>(n));
  MemRef m(v.data(), {n});
  tdsl_rng_fill(dtype, normal, seed, 1, m.get());
  return v;
}

constexpr int64_t kSamples = 1000000;
} // namespace

TEST(RuntimeRandom, Random123KnownAnswers) {
  for (const Kat &k : kKats) {
    uint32_t out[4];
    tdsl_philox4x32_10_block(k.ctr, k.key, out);
    for (int i = 0; i < 4; ++i)
      EXPECT_EQ(out[i], k.expected[i]) << "word " << i;
  }
  // The (seed, ctr) form with both zero is the all-zero vector.
  uint32_t out[4];
  tdsl_philox4x32_10(0, 0, out);
  EXPECT_EQ(0, std::memcmp(out, kKats[0].expected, sizeof(out)));
}

TEST(RuntimeRandom, SeedAndCounterWordOrder) {
  // key = (lo32(seed), hi32(seed)), counter = (lo32(ctr), hi32(ctr), 0, 0).
  uint64_t seed = 0x299f31d0a4093822ull, ctr = 0x85a308d3243f6a88ull;
  const uint32_t c[4] = {0x243f6a88, 0x85a308d3, 0, 0};
  const uint32_t k[2] = {0xa4093822, 0x299f31d0};
  uint32_t expected[4], out[4];
  tdsl_philox4x32_10_block(c, k, expected);
  tdsl_philox4x32_10(seed, ctr, out);
  EXPECT_EQ(0, std::memcmp(out, expected, sizeof(out)));
}

/// The words of value k of stream `seed` whose values take `w` words, as
/// Runtime.h defines them: with G = 4 / w, c = k / 16G and p = k % 16G,
/// words (p / 16) * w .. of the block with counter 16c + p % 16.
static const uint32_t *valueWords(uint64_t seed, uint64_t k, uint64_t w, uint32_t r[4]) {
  uint64_t group = 16 * (4 / w), c = k / group, p = k % group;
  tdsl_philox4x32_10(seed, 16 * c + p % 16, r);
  return r + (p / 16) * w;
}

TEST(RuntimeRandom, DerivedValuesFollowTheDocumentedFormulas) {
  for (uint64_t ctr : {0ull, 1ull, 15ull, 16ull, 17ull, 33ull, 63ull, 64ull, 12345ull,
                       0xffffffffffull}) {
    const uint64_t seed = 42;
    uint32_t r[4];
    float uf = float(valueWords(seed, ctr, 1, r)[0] >> 8) * 0x1p-24f;
    const uint32_t *w = valueWords(seed, ctr, 2, r);
    double ud = double(((uint64_t(w[0]) << 32) | w[1]) >> 11) * 0x1p-53;
    EXPECT_EQ(tdsl_rng_uniform_f32(seed, ctr), uf) << ctr;
    EXPECT_EQ(tdsl_rng_uniform_f64(seed, ctr), ud) << ctr;
  }
}

TEST(RuntimeRandom, EveryWordOfEveryBlockOnce) {
  // The first 64 f32 uniforms are the 4 words of blocks 0..15, each once.
  std::set<float> fromBlocks, values;
  for (uint64_t block = 0; block < 16; ++block) {
    uint32_t r[4];
    tdsl_philox4x32_10(3, block, r);
    for (uint32_t x : r)
      fromBlocks.insert(float(x >> 8) * 0x1p-24f);
  }
  for (uint64_t k = 0; k < 64; ++k)
    values.insert(tdsl_rng_uniform_f32(3, k));
  EXPECT_EQ(values, fromBlocks);
  EXPECT_EQ(values.size(), 64u);
}

TEST(RuntimeRandom, NormalKnownAnswers) {
  // From test/Examples/Inputs/philox.py, which follows the steps of
  // Runtime.h in numpy with constants it derives from exact rationals; the
  // compiler's code matches it bit for bit on the CPU and the GPU.
  struct Known {
    uint64_t ctr;
    float f32;
    double f64;
  } known[] = {
      {0x0, -0x1.59e12cp+0f, 0x1.3c0aeec8cec66p+0},
      {0x1, -0x1.617faep+0f, -0x1.7a3f3026c1af2p+1},
      {0x11, -0x1.26e86p+0f, -0x1.1d9869cb68807p-5},
      {0x28, -0x1.a35288p-3f, -0x1.5d6b5e49aabe5p-2},
      {0x3039, 0x1.14405ap-3f, -0x1.a946a616f55eep-3},
      {0xffffffffff, 0x1.2fc014p-3f, 0x1.339d5c0c3423ap-4},
  };
  for (const Known &k : known) {
    EXPECT_EQ(tdsl_rng_normal_f32(42, k.ctr), k.f32) << k.ctr;
    EXPECT_EQ(tdsl_rng_normal_f64(42, k.ctr), k.f64) << k.ctr;
  }
}

TEST(RuntimeRandom, NormalIsAccurate) {
  // Against Box-Muller in long double on the same uniforms: a few ulp.
  for (uint64_t ctr = 0; ctr < 20000; ++ctr) {
    uint32_t r[4];
    const uint32_t *w = valueWords(7, ctr, 2, r);
    long double u1 = 1.0L - (long double)(w[0] >> 8) * 0x1p-24L;
    long double u2 = (long double)(w[1] >> 8) * 0x1p-24L;
    long double want = sqrtl(-2 * logl(u1)) * cosl(2 * 3.14159265358979323846264338L * u2);
    EXPECT_NEAR(tdsl_rng_normal_f32(7, ctr), (double)want, 1e-6) << ctr;
    w = valueWords(7, ctr, 4, r);
    long double v1 = 1.0L - (long double)((((uint64_t)w[0] << 32) | w[1]) >> 11) * 0x1p-53L;
    long double v2 = (long double)((((uint64_t)w[2] << 32) | w[3]) >> 11) * 0x1p-53L;
    long double want64 = sqrtl(-2 * logl(v1)) * cosl(2 * 3.14159265358979323846264338L * v2);
    EXPECT_NEAR(tdsl_rng_normal_f64(7, ctr), (double)want64, 1e-14) << ctr;
  }
}

// Tolerances for 1e6 samples, each about 7 standard errors: the mean of
// U[0,1) has s.e. 0.289/1000, its variance (1/12) about 0.075/1000; the
// mean of N(0,1) has s.e. 0.001, its variance sqrt(2)/1000.
TEST(RuntimeRandom, UniformStatistics) {
  Moments f = moments(fill<float>(TDSL_F32, 0, 7, kSamples));
  EXPECT_NEAR(f.mean, 0.5, 0.002);
  EXPECT_NEAR(f.variance, 1.0 / 12, 0.0005);
  EXPECT_GE(f.min, 0.0);
  EXPECT_LT(f.max, 1.0);
  Moments d = moments(fill<double>(TDSL_F64, 0, 7, kSamples));
  EXPECT_NEAR(d.mean, 0.5, 0.002);
  EXPECT_NEAR(d.variance, 1.0 / 12, 0.0005);
  EXPECT_GE(d.min, 0.0);
  EXPECT_LT(d.max, 1.0);
}

TEST(RuntimeRandom, NormalStatistics) {
  for (int32_t dtype : {TDSL_F32, TDSL_F64}) {
    std::vector<double> v;
    if (dtype == TDSL_F32) {
      auto f = fill<float>(dtype, 1, 11, kSamples);
      v.assign(f.begin(), f.end());
    } else {
      v = fill<double>(dtype, 1, 11, kSamples);
    }
    Moments m = moments(v);
    EXPECT_NEAR(m.mean, 0.0, 0.007) << dtype;
    EXPECT_NEAR(m.variance, 1.0, 0.01) << dtype;
    EXPECT_TRUE(std::isfinite(m.min) && std::isfinite(m.max)) << dtype;
    // P(|x| < 1) = 0.682689; its s.e. over 1e6 samples is 0.00047.
    int64_t inside = 0;
    for (double x : v)
      inside += std::fabs(x) < 1;
    EXPECT_NEAR(double(inside) / kSamples, 0.682689, 0.003) << dtype;
  }
}

TEST(RuntimeRandom, DifferentSeedsDiffer) {
  EXPECT_NE(tdsl_rng_uniform_f64(1, 0), tdsl_rng_uniform_f64(2, 0));
  EXPECT_NE(tdsl_rng_uniform_f64(1, 0), tdsl_rng_uniform_f64(1, 1));
  // The high seed word matters too.
  EXPECT_NE(tdsl_rng_uniform_f64(1, 0),
            tdsl_rng_uniform_f64(1 | (uint64_t(1) << 32), 0));
}

TEST(RuntimeRandom, FillUsesRowMajorIndexAsCounter) {
  // A transposed, offset view into a buffer of 30: a 4x3 tensor whose (i, j)
  // lives at 2 + i + 5 * j, so row-major order differs from memory order.
  std::vector<float> buf(30, -1.0f);
  MemRef view(buf.data(), {4, 3}, {1, 5}, 2);
  tdsl_rng_fill(TDSL_F32, 0, 99, 2, view.get());
  for (int64_t i = 0; i < 4; ++i)
    for (int64_t j = 0; j < 3; ++j)
      EXPECT_EQ(buf[size_t(2 + i + 5 * j)],
                tdsl_rng_uniform_f32(99, uint64_t(i * 3 + j)))
          << i << "," << j;
  // Untouched elements stay as they were.
  EXPECT_EQ(buf[0], -1.0f);
  EXPECT_EQ(buf[1], -1.0f);

  std::vector<double> d(100000);
  MemRef md(d.data(), {100, 1000});
  tdsl_rng_fill(TDSL_F64, 1, 5, 2, md.get());
  for (int64_t k : {0, 1, 999, 1000, 54321, 99999})
    EXPECT_EQ(d[size_t(k)], tdsl_rng_normal_f64(5, uint64_t(k))) << k;
}

TEST(RuntimeRandom, BufferFillGivesElementKCounterK) {
  // What model initializers call: contiguous, every kind, across chunks.
  std::vector<float> f(40000);
  tdsl_rng_fill_buffer(TDSL_F32, 1, 7, int64_t(f.size()), f.data());
  std::vector<double> d(40000);
  tdsl_rng_fill_buffer(TDSL_F64, 0, 8, int64_t(d.size()), d.data());
  for (int64_t k : {0, 1, 15, 16, 16383, 16384, 39999}) {
    EXPECT_EQ(f[size_t(k)], tdsl_rng_normal_f32(7, uint64_t(k))) << k;
    EXPECT_EQ(d[size_t(k)], tdsl_rng_uniform_f64(8, uint64_t(k))) << k;
  }
}

TEST(RuntimeRandom, FillIsIndependentOfThreadCount) {
  tdsl_set_num_threads(1);
  std::vector<float> one = fill<float>(TDSL_F32, 1, 3, 200000);
  tdsl_set_num_threads(0);
  std::vector<float> many = fill<float>(TDSL_F32, 1, 3, 200000);
  EXPECT_EQ(one, many);
}

TEST(RuntimeRandomDeathTest, FillRejectsIntegerTensors) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  std::vector<int32_t> v(4);
  MemRef m(v.data(), {4});
  EXPECT_EXIT(tdsl_rng_fill(TDSL_I32, 0, 1, 1, m.get()),
              testing::ExitedWithCode(1),
              "expected an f32 or f64 tensor, found i32");
}
