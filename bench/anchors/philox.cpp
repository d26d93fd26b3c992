// philox.cpp - hand-written C++ anchors for the random-number rows of the
// benchmark suite, on std::thread, compiled with -O3 -march=native:
//
//   philox pi   N THREADS REPS   Monte Carlo pi from N points
//   philox fill N THREADS REPS   a buffer of N uniform f32 values
//
// The generator is Philox4x32-10 (Salmon et al., SC'11) keyed by the seed,
// counter = (block, 0, 0, 0), as TDSL's; unlike TDSL's definition (one
// block per value) every block here gives four values, (w >> 8) * 2^-24:
// one block per two points for pi, four values per block for the fill.
// The rounds run over 16 consecutive blocks at a time in plain loops that
// the compiler vectorizes (32 x 32 -> 64-bit products: vpmuludq).
// Repetition r uses seed 2024 + r (pi) or 7 + r (fill); one smaller untimed
// run comes first. The fill writes into one buffer, touched before timing.
// Prints one JSON line: times, checksum (pi: 4 * hits / points over all
// repetitions; fill: the mean of the last buffer), threads.
#include "timing.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

namespace {
constexpr int L = 16; // blocks per batch: one AVX-512 vector of 32-bit lanes

/// Philox4x32-10 of the blocks b0, ..., b0 + L - 1 under key (k0, k1).
inline void philoxBatch(uint64_t b0, uint32_t k0, uint32_t k1,
                        uint32_t w0[L], uint32_t w1[L], uint32_t w2[L],
                        uint32_t w3[L]) {
  uint32_t x0[L], x1[L], x2[L], x3[L];
  for (int l = 0; l < L; ++l) {
    uint64_t c = b0 + uint64_t(l);
    x0[l] = uint32_t(c);
    x1[l] = uint32_t(c >> 32);
    x2[l] = 0;
    x3[l] = 0;
  }
  for (int r = 0; r < 10; ++r) {
    for (int l = 0; l < L; ++l) {
      uint64_t p0 = uint64_t(0xD2511F53u) * x0[l];
      uint64_t p1 = uint64_t(0xCD9E8D57u) * x2[l];
      uint32_t y0 = uint32_t(p1 >> 32) ^ x1[l] ^ k0;
      uint32_t y2 = uint32_t(p0 >> 32) ^ x3[l] ^ k1;
      x1[l] = uint32_t(p1);
      x3[l] = uint32_t(p0);
      x0[l] = y0;
      x2[l] = y2;
    }
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  std::memcpy(w0, x0, sizeof x0);
  std::memcpy(w1, x1, sizeof x1);
  std::memcpy(w2, x2, sizeof x2);
  std::memcpy(w3, x3, sizeof x3);
}

inline float unit(uint32_t w) { return float(w >> 8) * 0x1p-24f; }

/// Points inside the quarter circle among points 2b, 2b + 1 of the blocks
/// b in [lo, hi), point 2b = (w0, w1), point 2b + 1 = (w2, w3).
int64_t hits(uint64_t seed, int64_t lo, int64_t hi, int64_t points) {
  uint32_t k0 = uint32_t(seed), k1 = uint32_t(seed >> 32);
  int64_t total = 0;
  for (int64_t b = lo; b < hi; b += L) {
    uint32_t w0[L], w1[L], w2[L], w3[L];
    philoxBatch(uint64_t(b), k0, k1, w0, w1, w2, w3);
    int32_t in = 0;
    for (int l = 0; l < L; ++l) {
      float x = unit(w0[l]), y = unit(w1[l]);
      float u = unit(w2[l]), v = unit(w3[l]);
      int64_t p = 2 * (b + l);
      in += (x * x + y * y < 1.0f && p < points) +
            (u * u + v * v < 1.0f && p + 1 < points);
    }
    total += in;
  }
  return total;
}

/// Values 4b, ..., 4b + 3 of the blocks b in [lo, hi), below n.
void fill(uint64_t seed, int64_t lo, int64_t hi, float *out, int64_t n) {
  uint32_t k0 = uint32_t(seed), k1 = uint32_t(seed >> 32);
  for (int64_t b = lo; b < hi; b += L) {
    uint32_t w0[L], w1[L], w2[L], w3[L];
    philoxBatch(uint64_t(b), k0, k1, w0, w1, w2, w3);
    if (4 * (b + L) <= n) {
      float *o = out + 4 * b;
      for (int l = 0; l < L; ++l) {
        o[4 * l + 0] = unit(w0[l]);
        o[4 * l + 1] = unit(w1[l]);
        o[4 * l + 2] = unit(w2[l]);
        o[4 * l + 3] = unit(w3[l]);
      }
    } else {
      for (int l = 0; l < L; ++l) {
        uint32_t w[4] = {w0[l], w1[l], w2[l], w3[l]};
        for (int k = 0; k < 4; ++k)
          if (4 * (b + l) + k < n)
            out[4 * (b + l) + k] = unit(w[k]);
      }
    }
  }
}

/// Runs f(lo, hi, t) on `threads` threads over [0, blocks) in contiguous
/// chunks of whole batches.
template <class F> void parallel(int threads, int64_t blocks, F f) {
  int64_t batches = (blocks + L - 1) / L;
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    int64_t lo = batches * t / threads * L, hi = batches * (t + 1) / threads * L;
    pool.emplace_back([=, &f] { f(lo, hi, t); });
  }
  for (auto &th : pool)
    th.join();
}
} // namespace

int main(int argc, char **argv) {
  if (argc != 5 || (std::strcmp(argv[1], "pi") && std::strcmp(argv[1], "fill"))) {
    std::fprintf(stderr, "usage: %s pi|fill N THREADS REPS\n", argv[0]);
    return 2;
  }
  bool pi = !std::strcmp(argv[1], "pi");
  int64_t n = std::atoll(argv[2]);
  int threads = std::atoi(argv[3]), reps = std::atoi(argv[4]);
  std::vector<double> times;
  char extra[64];
  std::snprintf(extra, sizeof extra, "\"threads\": %d", threads);
  if (pi) {
    auto run = [&](uint64_t seed, int64_t points) {
      std::vector<int64_t> part(threads);
      parallel(threads, (points + 1) / 2, [&](int64_t lo, int64_t hi, int t) {
        part[t] = hits(seed, lo, hi, points);
      });
      int64_t total = 0;
      for (int64_t h : part)
        total += h;
      return total;
    };
    run(1, n / 10 + 2); // warm-up
    int64_t total = 0;
    for (int r = 0; r < reps; ++r) {
      double t0 = nowSeconds();
      total += run(2024 + r, n);
      times.push_back(nowSeconds() - t0);
    }
    report(times, {4.0 * double(total) / double(n * reps)}, extra);
  } else {
    std::vector<float> out(size_t(n), 0.0f);
    auto run = [&](uint64_t seed) {
      parallel(threads, (n + 3) / 4, [&](int64_t lo, int64_t hi, int) {
        fill(seed, lo, hi, out.data(), n);
      });
    };
    run(1); // warm-up (also touches the pages on the threads that write them)
    for (int r = 0; r < reps; ++r) {
      double t0 = nowSeconds();
      run(7 + r);
      times.push_back(nowSeconds() - t0);
    }
    double sum = 0;
    for (float v : out)
      sum += v;
    report(times, {sum / double(n)}, extra);
  }
}
