//===- Parallel.cpp - Parallel loops and thread count on oneTBB ----------===//
#include "Internal.h"

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/task_arena.h>

#include <atomic>
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
    std::atexit([] { tbb::finalize(*handle, std::nothrow); });
  });
}

/// Applies TDSL_NUM_THREADS once, unless tdsl_set_num_threads came first;
/// a malformed value is an error at "tdsl".
Status initFromEnv() {
  attachSchedulerOnce();
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
} // namespace

void tdsl_parallel_for(int64_t lb, int64_t ub, int64_t grain,
                       tdsl_loop_body body, void *ctx) {
  if (ub <= lb)
    return;
  exitOnError(initFromEnv(), nullptr);
  if (grain <= 0)
    grain = 1;
  // Too small to split: skip the scheduler.
  if (ub - lb <= grain) {
    body(lb, ub, ctx);
    return;
  }
  tbb::parallel_for(tbb::blocked_range<int64_t>(lb, ub, size_t(grain)),
                    [&](const tbb::blocked_range<int64_t> &r) {
                      body(r.begin(), r.end(), ctx);
                    });
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
