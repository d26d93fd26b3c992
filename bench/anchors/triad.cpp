// triad.cpp - the hand-written C++ anchor of the triad row (and the
// bandwidth reference of the sum row): STREAM's triad a = b + s * c over N
// f64 elements, on std::thread, compiled with -O3 -march=native.
//
// usage: triad N THREADS REPS
// Each thread owns a contiguous chunk of the three arrays and touches it
// first (so its pages are local); one untimed triad, then REPS timed ones,
// repetition r with s = 1 + r, threads started per repetition.
// Prints one JSON line: times, checksum (the largest |a - (b + s c)|, 0),
// threads.
#include "timing.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <thread>
#include <vector>

namespace {
template <class F> void parallel(int threads, int64_t n, F f) {
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    // Chunks of whole cache lines (8 doubles).
    int64_t lo = (n / 8) * t / threads * 8;
    int64_t hi = t + 1 == threads ? n : (n / 8) * (t + 1) / threads * 8;
    pool.emplace_back([=, &f] { f(lo, hi); });
  }
  for (auto &th : pool)
    th.join();
}

void triad(double *__restrict a, const double *__restrict b,
           const double *__restrict c, double s, int64_t lo, int64_t hi) {
  for (int64_t i = lo; i < hi; ++i)
    a[i] = b[i] + s * c[i];
}
} // namespace

int main(int argc, char **argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s N THREADS REPS\n", argv[0]);
    return 2;
  }
  int64_t n = std::atoll(argv[1]);
  int threads = std::atoi(argv[2]), reps = std::atoi(argv[3]);
  size_t bytes = (size_t(n) * sizeof(double) + 63) / 64 * 64;
  auto *a = static_cast<double *>(std::aligned_alloc(64, bytes));
  auto *b = static_cast<double *>(std::aligned_alloc(64, bytes));
  auto *c = static_cast<double *>(std::aligned_alloc(64, bytes));
  parallel(threads, n, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i) {
      a[i] = 0.0;
      b[i] = 1.0 + double(i % 1000) * 1e-3;
      c[i] = 0.5 - double(i % 997) * 1e-4;
    }
  });
  parallel(threads, n, [&](int64_t lo, int64_t hi) { triad(a, b, c, 3.0, lo, hi); });
  std::vector<double> times;
  double s = 0;
  for (int r = 0; r < reps; ++r) {
    s = 1.0 + r;
    double t0 = nowSeconds();
    parallel(threads, n, [&](int64_t lo, int64_t hi) { triad(a, b, c, s, lo, hi); });
    times.push_back(nowSeconds() - t0);
  }
  double err = 0;
  for (int64_t i = 0; i < n; i += 4093)
    err = std::fmax(err, std::fabs(a[i] - (b[i] + s * c[i])));
  char extra[64];
  std::snprintf(extra, sizeof extra, "\"threads\": %d", threads);
  report(times, {err}, extra);
  std::free(a);
  std::free(b);
  std::free(c);
}
