//===- Parallel.cpp - Parallel loops and thread count on oneTBB ----------===//
#include "Internal.h"

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/task_arena.h>

#include <sched.h>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <new>

using namespace tdsl::rt;

namespace {
/// The limit lives as long as the global_control object does, so it is held
/// in a static; replacing it changes the limit.
struct ThreadLimit {
  std::mutex mutex;
  std::unique_ptr<tbb::global_control> control;
  std::atomic<bool> envRead{false};

  void set(int32_t n) {
    control.reset();
    if (n > 0)
      control = std::make_unique<tbb::global_control>(
          tbb::global_control::max_allowed_parallelism, size_t(n));
  }
};

/// How long workers wait for the next parallel loop, spinning, before
/// they may sleep. A sleeping worker takes 60-140 us to wake on a VM (its
/// virtual CPU halts), a loop's whole length at small sizes: without the
/// wait, a 160 us loop called every millisecond ran no faster on 2 threads
/// than on 1. OpenMP runtimes do the same (Intel's KMP_BLOCKTIME, 200 ms).
constexpr int64_t kDefaultSpinUs = 2000;
std::atomic<int64_t> spinUs{kDefaultSpinUs};
/// A sched_yield this long gave the core to another thread.
constexpr std::chrono::microseconds kYieldedTo{20};
/// Counts the outermost parallel loops started: a waiting worker leaves
/// when it changes.
std::atomic<uint64_t> loopGeneration{0};
/// Parallel loops the calling thread is inside; only the outermost one
/// leaves the workers waiting.
thread_local int loopDepth = 0;

ThreadLimit &threadLimit() {
  // Leaked on purpose: destroying it at exit could race TBB's own teardown.
  static ThreadLimit *limit = new ThreadLimit;
  return *limit;
}

/// Joins TBB's worker threads at exit. A program that loaded the runtime
/// with dlopen (the JIT of `tdslc run`) may unload it, and oneTBB with it,
/// during its own shutdown; workers still alive then would run unmapped code.
void attachSchedulerOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    static tbb::task_scheduler_handle *handle =
        new tbb::task_scheduler_handle(tbb::attach{});
    std::atexit([] {
      loopGeneration.fetch_add(1); // waiting workers leave now
      tbb::finalize(*handle, std::nothrow);
    });
  });
}

/// Applies TDSL_NUM_THREADS once, unless tdsl_set_num_threads came first;
/// a malformed value is an error at "tdsl".
/// Applies TDSL_SPIN_US once, whether or not a thread limit was set.
Status spinFromEnv() {
  static std::once_flag once;
  static Status status;
  std::call_once(once, [] {
    const char *env = std::getenv("TDSL_SPIN_US");
    if (!env || !*env)
      return;
    char *end = nullptr;
    long long us = std::strtoll(env, &end, 10);
    if (*end || us < 0 || us > 10'000'000)
      status = Status::errorAt(nullptr, format("TDSL_SPIN_US must be an integer "
                                               "from 0 to 10000000, found '%s'",
                                               env));
    else
      spinUs = us;
  });
  return status;
}

Status initFromEnv() {
  attachSchedulerOnce();
  if (Status s = spinFromEnv(); !s.ok())
    return s;
  ThreadLimit &limit = threadLimit();
  // Every loop comes here: skip the lock once the variable has been read.
  if (limit.envRead.load(std::memory_order_acquire))
    return Status();
  std::lock_guard<std::mutex> lock(limit.mutex);
  if (limit.envRead)
    return Status();
  limit.envRead = true;
  const char *env = std::getenv("TDSL_NUM_THREADS");
  if (!env || !*env)
    return Status();
  char *end = nullptr;
  long n = std::strtol(env, &end, 10);
  if (*end || n <= 0 || n > 1 << 20)
    return Status::errorAt(nullptr,
                           format("TDSL_NUM_THREADS must be a positive "
                                  "integer, found '%s'",
                                  env));
  limit.set(int32_t(n));
  return Status();
}

inline void cpuPause() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#elif defined(__aarch64__)
  __asm__ volatile("yield");
#endif
}

/// Gives each worker a task that spins until the next outermost loop
/// starts or spinUs pass, so that loop finds it awake. It checks every 8
/// pauses (a check per syscall made the next loop 20 us later when it came
/// at once) and yields the core every 256. A yield that lasted (another
/// thread ran: MPI ranks, or several programs, on few cores) ends the wait:
/// spinning then slows the others more than it speeds this program.
void keepWorkersWaiting() {
  int64_t us = spinUs.load(std::memory_order_relaxed);
  if (us <= 0)
    return;
  uint64_t generation = loopGeneration.load(std::memory_order_relaxed);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::microseconds(us);
  for (int i = 1, n = tdsl_get_num_threads(); i < n; ++i)
    tbb::this_task_arena::enqueue([generation, deadline] {
      for (unsigned round = 1;
           loopGeneration.load(std::memory_order_relaxed) == generation; ++round) {
        for (int k = 0; k < 8; ++k)
          cpuPause();
        if (round % 32 == 0) {
          auto before = std::chrono::steady_clock::now();
          sched_yield();
          auto after = std::chrono::steady_clock::now();
          if (after > deadline || after - before > kYieldedTo)
            return;
        }
      }
    });
}
} // namespace

void tdsl_parallel_for(int64_t lb, int64_t ub, int64_t grain,
                       tdsl_loop_body body, void *ctx) {
  if (ub <= lb)
    return;
  exitOnError(initFromEnv(), nullptr);
  if (grain <= 0)
    grain = 1;
  // Too small to split, or one thread: skip the scheduler. (A worker
  // still in the arena from an earlier loop would otherwise join in after
  // the limit went down to 1.)
  if (ub - lb <= grain || tdsl_get_num_threads() == 1) {
    body(lb, ub, ctx);
    return;
  }
  // Workers run only nested loops.
  bool outermost = loopDepth == 0 && tbb::this_task_arena::current_thread_index() <= 0;
  if (outermost)
    loopGeneration.fetch_add(1, std::memory_order_relaxed);
  ++loopDepth;
  tbb::parallel_for(tbb::blocked_range<int64_t>(lb, ub, size_t(grain)),
                    [&](const tbb::blocked_range<int64_t> &r) {
                      body(r.begin(), r.end(), ctx);
                    });
  --loopDepth;
  if (outermost)
    keepWorkersWaiting();
}

void tdsl::rt::startWorkers() {
  exitOnError(initFromEnv(), nullptr);
  // One task per allowed thread: TBB makes its arena and worker threads on
  // the first parallel loop (about half a millisecond here), which would
  // otherwise be counted in the program's first kernel.
  int64_t n = tdsl_get_num_threads();
  tbb::parallel_for(int64_t(0), n, [](int64_t) {});
}

void tdsl_set_num_threads(int32_t n) {
  ThreadLimit &limit = threadLimit();
  std::lock_guard<std::mutex> lock(limit.mutex);
  limit.envRead = true; // an explicit limit overrides the environment
  limit.set(n);
  loopGeneration.fetch_add(1); // waiting workers leave
}

int32_t tdsl_get_num_threads(void) {
  exitOnError(initFromEnv(), nullptr);
  size_t allowed = tbb::global_control::active_value(
      tbb::global_control::max_allowed_parallelism);
  size_t cores = size_t(tbb::this_task_arena::max_concurrency());
  return int32_t(allowed < cores ? allowed : cores);
}

int32_t tdsl_current_thread_index(void) {
  int idx = tbb::this_task_arena::current_thread_index();
  // Outside any arena TBB answers task_arena::not_initialized (-2).
  return idx < 0 ? 0 : int32_t(idx);
}
