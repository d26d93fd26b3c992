//===- RuntimeParallelTest.cpp - Parallel loops on oneTBB -----------------===//
#include "RuntimeTestUtils.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace {
struct Coverage {
  int64_t lb, ub;
  std::unique_ptr<std::atomic<int>[]> hits;
  std::atomic<bool> outOfRange{false};
};

void countBody(int64_t begin, int64_t end, void *ctx) {
  auto &c = *static_cast<Coverage *>(ctx);
  if (begin < c.lb || end > c.ub || begin >= end)
    c.outOfRange = true;
  for (int64_t i = begin; i < end; ++i)
    c.hits[i - c.lb].fetch_add(1);
}

/// Records which threads ran chunks and how many ran at once.
struct Spread {
  std::mutex mutex;
  std::set<int32_t> threads;
  std::atomic<int> active{0};
  std::atomic<int> maxActive{0};
};

void sleepyBody(int64_t, int64_t, void *ctx) {
  auto &s = *static_cast<Spread *>(ctx);
  int now = ++s.active;
  int prev = s.maxActive.load();
  while (now > prev && !s.maxActive.compare_exchange_weak(prev, now)) {
  }
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    s.threads.insert(tdsl_current_thread_index());
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(1));
  --s.active;
}

/// 200 chunks of one index that each sleep 1 ms.
void runSleepy(Spread &s) { tdsl_parallel_for(0, 200, 1, sleepyBody, &s); }

/// The first line `test` writes to stderr in a child with `env`, which
/// must exit with 1 (an error); "(exit N)" if it exits otherwise.
std::string firstErrorLine(const std::string &env, const std::string &test) {
  std::string err = testing::TempDir() + "tdsl-parallel-child.stderr";
  int rc = tdsl::test::runSelf(env, test, ">/dev/null 2>" + err);
  std::ifstream in(err);
  std::string line;
  std::getline(in, line);
  std::remove(err.c_str());
  return rc == 1 ? line : "(exit " + std::to_string(rc) + ")";
}

/// Restores the default thread count after each test.
class RuntimeParallel : public testing::Test {
protected:
  void TearDown() override { tdsl_set_num_threads(0); }
};
} // namespace

TEST_F(RuntimeParallel, CoversEveryIndexOnce) {
  const int64_t big = int64_t(1) << 40;
  struct Case {
    int64_t lb, ub, grain;
  } cases[] = {{0, 0, 1},       {5, 3, 1},           {0, 1, 0},
               {0, 1000, 1},    {-50, 50, 7},        {5, 100003, 0},
               {0, 10000, 100000}, {0, 4097, 64},    {big, big + 1000, 3},
               {0, 1 << 20, -1}};
  for (const Case &k : cases) {
    Coverage c{k.lb, k.ub, nullptr};
    int64_t n = std::max<int64_t>(k.ub - k.lb, 0);
    c.hits.reset(new std::atomic<int>[size_t(n)]());
    tdsl_parallel_for(k.lb, k.ub, k.grain, countBody, &c);
    EXPECT_FALSE(c.outOfRange) << k.lb << ".." << k.ub << " grain " << k.grain;
    int64_t wrong = 0;
    for (int64_t i = 0; i < n; ++i)
      wrong += c.hits[i].load() != 1;
    EXPECT_EQ(wrong, 0) << k.lb << ".." << k.ub << " grain " << k.grain;
  }
}

TEST_F(RuntimeParallel, TwoThreadsShareTheWork) {
  if (std::thread::hardware_concurrency() < 2)
    GTEST_SKIP() << "needs at least 2 cores";
  tdsl_set_num_threads(2);
  EXPECT_EQ(tdsl_get_num_threads(), 2);
  Spread s;
  runSleepy(s);
  EXPECT_GT(s.threads.size(), 1u);
  EXPECT_LE(s.maxActive.load(), 2);
}

TEST_F(RuntimeParallel, OneThreadRunsEverythingOnOne) {
  tdsl_set_num_threads(1);
  EXPECT_EQ(tdsl_get_num_threads(), 1);
  Spread s;
  runSleepy(s);
  EXPECT_EQ(s.threads.size(), 1u);
  EXPECT_EQ(s.maxActive.load(), 1);
}

TEST_F(RuntimeParallel, DefaultUsesTheCores) {
  tdsl_set_num_threads(0);
  int32_t hw = int32_t(std::thread::hardware_concurrency());
  // TBB honours the process's CPU affinity, which may be below hw.
  EXPECT_GE(tdsl_get_num_threads(), 1);
  if (hw > 0)
    EXPECT_LE(tdsl_get_num_threads(), hw);
  // Asking for more threads than cores is capped at the cores.
  tdsl_set_num_threads(4096);
  EXPECT_LE(tdsl_get_num_threads(), std::max(hw, 1));
}

TEST_F(RuntimeParallel, ThreadIndexOutsideLoopsIsZero) {
  EXPECT_EQ(tdsl_current_thread_index(), 0);
}

/// Run by EnvironmentSetsTheThreadCount in a child process.
TEST(RuntimeParallelChild, ReportThreads) {
  const char *expected = std::getenv("TDSL_RUNTIME_TEST_EXPECT");
  if (!std::getenv("TDSL_RUNTIME_TEST_CHILD") || !expected)
    GTEST_SKIP() << "only runs as a child of EnvironmentSetsTheThreadCount";
  EXPECT_EQ(tdsl_get_num_threads(), std::atoi(expected));
  Spread s;
  runSleepy(s);
  EXPECT_EQ(s.threads.size(), 1u);
}

TEST_F(RuntimeParallel, EnvironmentSetsTheThreadCount) {
  EXPECT_EQ(tdsl::test::runSelf("TDSL_NUM_THREADS=1 TDSL_RUNTIME_TEST_EXPECT=1",
                                "RuntimeParallelChild.ReportThreads"),
            0);
  // A malformed value is the user's mistake: a clear error, exit 1.
  EXPECT_EQ(firstErrorLine("TDSL_NUM_THREADS=two TDSL_RUNTIME_TEST_EXPECT=1",
                           "RuntimeParallelChild.ReportThreads"),
            "tdsl: error: TDSL_NUM_THREADS must be a positive integer, "
            "found 'two'");
}

namespace {
/// A body that runs a parallel loop of its own over a Coverage.
void nestedBody(int64_t begin, int64_t end, void *ctx) {
  auto *inner = static_cast<std::vector<Coverage> *>(ctx);
  for (int64_t i = begin; i < end; ++i)
    tdsl_parallel_for((*inner)[i].lb, (*inner)[i].ub, 16, countBody, &(*inner)[i]);
}
} // namespace

// After an outermost loop the workers wait for the next one, spinning
// (TDSL_SPIN_US). The next loop, started at once, after a pause, or nested
// in another's body, still runs every index once.
TEST_F(RuntimeParallel, LoopsRightAfterEachOther) {
  tdsl_set_num_threads(2);
  for (int round = 0; round < 300; ++round) {
    if (round % 3 == 1)
      std::this_thread::sleep_for(std::chrono::microseconds(200 * (round % 7)));
    Coverage c{0, 64 + round, nullptr};
    c.hits.reset(new std::atomic<int>[size_t(c.ub)]());
    if (round % 5 == 0) {
      std::vector<Coverage> inner(4);
      for (Coverage &k : inner) {
        k.lb = 0;
        k.ub = 1000;
        k.hits.reset(new std::atomic<int>[1000]());
      }
      tdsl_parallel_for(0, 4, 1, nestedBody, &inner);
      for (Coverage &k : inner)
        for (int64_t i = 0; i < k.ub; ++i)
          ASSERT_EQ(k.hits[i].load(), 1) << "round " << round;
    }
    tdsl_parallel_for(c.lb, c.ub, 4, countBody, &c);
    ASSERT_FALSE(c.outOfRange);
    for (int64_t i = 0; i < c.ub; ++i)
      ASSERT_EQ(c.hits[i].load(), 1) << "round " << round << " index " << i;
  }
}

/// Run by ExitDoesNotWaitForWaitingWorkers in a child process.
TEST(RuntimeParallelChild, LoopThenExit) {
  if (!std::getenv("TDSL_RUNTIME_TEST_CHILD"))
    GTEST_SKIP() << "only runs as a child of ExitDoesNotWaitForWaitingWorkers";
  Spread s;
  runSleepy(s);
}

/// Run by ExitDoesNotWaitForWaitingWorkers: a thread count set first (as
/// --threads does) must not hide TDSL_SPIN_US.
TEST(RuntimeParallelChild, SetThreadsThenLoop) {
  if (!std::getenv("TDSL_RUNTIME_TEST_CHILD"))
    GTEST_SKIP() << "only runs as a child of ExitDoesNotWaitForWaitingWorkers";
  tdsl_set_num_threads(2);
  Spread s;
  runSleepy(s);
}

// Workers left waiting for 10 s leave at exit: the program does not wait.
TEST_F(RuntimeParallel, ExitDoesNotWaitForWaitingWorkers) {
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(tdsl::test::runSelf("TDSL_SPIN_US=10000000",
                                "RuntimeParallelChild.LoopThenExit"),
            0);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(8));
  for (const char *child : {"RuntimeParallelChild.LoopThenExit",
                            "RuntimeParallelChild.SetThreadsThenLoop"})
    EXPECT_EQ(firstErrorLine("TDSL_SPIN_US=-1", child),
              "tdsl: error: TDSL_SPIN_US must be an integer from 0 to 10000000, "
              "found '-1'")
        << child;
}
