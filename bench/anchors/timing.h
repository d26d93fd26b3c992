// timing.h - the clock and the one-line JSON report shared by the C++
// anchors of the benchmark suite (bench/suite.py reads the line).
#pragma once

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

inline double nowSeconds() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

/// {"times": [seconds per repetition...], "checksum": [...], extra}
inline void report(const std::vector<double> &times,
                   const std::vector<double> &checksum,
                   const std::string &extra = "") {
  std::printf("{\"times\": [");
  for (size_t i = 0; i < times.size(); ++i)
    std::printf("%s%.9g", i ? ", " : "", times[i]);
  std::printf("], \"checksum\": [");
  for (size_t i = 0; i < checksum.size(); ++i)
    std::printf("%s%.17g", i ? ", " : "", checksum[i]);
  std::printf("]%s%s}\n", extra.empty() ? "" : ", ", extra.c_str());
}

/// Seconds of each of `reps` calls of `run`, after one untimed warm-up call.
template <typename F> std::vector<double> timeRepeated(int reps, F run) {
  run();
  std::vector<double> times;
  for (int r = 0; r < reps; ++r) {
    double t0 = nowSeconds();
    run();
    times.push_back(nowSeconds() - t0);
  }
  return times;
}

/// The sum of an array of floats, in double.
inline double sumOf(const std::vector<float> &v) {
  double sum = 0;
  for (float x : v)
    sum += x;
  return sum;
}
