//===- Clock.cpp - The clock that times every kernel launch ---------------===//
//
// Every launch reads the clock twice. The steady clock (clock_gettime in
// the vDSO) costs about 24 ns a read on this project's VMs, rdtsc about 10:
// in a loop of small kernels (a 1-D stencil's sweeps of 400 elements) the
// clock was half of the run. Where the kernel itself keeps time with the TSC
// (clocksource "tsc": invariant and synchronized across cores, or Linux
// would not use it), nowNs() reads the TSC and converts it with a rate
// measured against the steady clock: first over 0.2 ms (each end read
// within about 5 ns, so within 5e-5: a stencil of 100 short sweeps is over
// in a few ms), then again over 1 s.
// Before that, and anywhere else, it reads the steady clock. Each new rate
// starts from the time the previous one gives at that moment, so the clock
// never jumps.
//
//===----------------------------------------------------------------------===//
#include "Internal.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

using namespace tdsl::rt;

namespace {
int64_t steadyNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

#if defined(__x86_64__)
constexpr int64_t kFirstNs = 200'000, kSecondNs = 1'000'000'000;

/// A steady-clock time and the TSC around it (the closest of a few tries,
/// so an interrupt between the reads does not skew the rate).
struct Sample {
  int64_t ns;
  uint64_t ticks;
};

Sample sample() {
  Sample best{0, 0};
  uint64_t bestGap = ~uint64_t(0);
  for (int i = 0; i < 4; ++i) {
    uint64_t before = __rdtsc();
    int64_t ns = steadyNs();
    uint64_t after = __rdtsc();
    if (after >= before && after - before < bestGap) {
      bestGap = after - before;
      best = {ns, before + (after - before) / 2};
    }
  }
  return best;
}

/// ns = baseNs + (ticks - baseTicks) * nsPerTick; published whole.
struct TscRate {
  int64_t baseNs;
  uint64_t baseTicks;
  double nsPerTick;
  uint64_t refineAtTicks; // ticks after which to measure again; 0: never
  int64_t at(uint64_t ticks) const {
    // Signed: a thread that read the TSC just before another published
    // this rate, or on a core a few cycles behind, is slightly before base.
    return baseNs + int64_t(double(int64_t(ticks - baseTicks)) * nsPerTick);
  }
};

bool kernelClockIsTsc() {
  FILE *f = std::fopen(
      "/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");
  if (!f)
    return false;
  char name[32] = {0};
  bool tsc = std::fgets(name, sizeof name, f) && std::strncmp(name, "tsc\n", 4) == 0;
  std::fclose(f);
  return tsc;
}

struct TscClock {
  bool usable = kernelClockIsTsc();
  Sample start = sample();
  std::atomic<const TscRate *> rate{nullptr};
  std::atomic<int> stage{0}; // measurements claimed so far
  /// Measurement n's rate, written once by the thread that claimed it, then
  /// published; never freed (readers may hold a pointer until exit).
  TscRate rates[2] = {};

  /// Rate `n`, from `start` to a new sample, continuing from `previous`'s
  /// time; null if the clocks did not advance.
  const TscRate *measure(int n, const TscRate *previous) {
    Sample now = sample();
    if (now.ticks <= start.ticks || now.ns <= start.ns)
      return nullptr;
    double nsPerTick = double(now.ns - start.ns) / double(now.ticks - start.ticks);
    int64_t baseNs = previous ? previous->at(now.ticks) : now.ns;
    uint64_t refine = n == 1 ? 0 : now.ticks + uint64_t(kSecondNs / nsPerTick);
    rates[n] = TscRate{baseNs, now.ticks, nsPerTick, refine};
    return &rates[n];
  }

  int64_t now() {
    if (const TscRate *r = rate.load(std::memory_order_acquire)) {
      uint64_t ticks = __rdtsc();
      if (r->refineAtTicks && ticks >= r->refineAtTicks && claim(1))
        if (const TscRate *next = measure(1, r)) {
          rate.store(next, std::memory_order_release);
          return next->at(__rdtsc());
        }
      return r->at(ticks);
    }
    int64_t ns = steadyNs();
    if (usable && ns - start.ns >= kFirstNs && claim(0))
      if (const TscRate *first = measure(0, nullptr))
        rate.store(first, std::memory_order_release);
    return ns;
  }

  /// Whether this thread takes measurement `n` (0 or 1).
  bool claim(int n) {
    int expected = n;
    return stage.load(std::memory_order_relaxed) == n &&
           stage.compare_exchange_strong(expected, n + 1);
  }
};

TscClock &tscClock() {
  static TscClock *clock = new TscClock;
  return *clock;
}
#endif
} // namespace

int64_t tdsl::rt::nowNs() {
#if defined(__x86_64__)
  return tscClock().now();
#else
  return steadyNs();
#endif
}

int64_t tdsl_clock_ns(void) { return nowNs(); }
