//===- RuntimeProfileTest.cpp - Kernel timing and the profile report ------===//
#include "RuntimeTestUtils.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

namespace fs = std::filesystem;

using tdsl::test::words;

namespace {
std::string readFile(const fs::path &p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void fakeLaunch(int32_t id, int ms, double flops, double bytes) {
  int64_t start = tdsl_kernel_begin(id);
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
  tdsl_kernel_end(id, start, flops, bytes);
}

/// The report line whose first word is `name`.
std::string lineOf(const std::string &report, const std::string &name) {
  std::istringstream in(report);
  for (std::string line; std::getline(in, line);)
    if (line.compare(0, name.size() + 1, name + " ") == 0)
      return line;
  return "";
}

/// The JSON object (one line) of kernel `name`.
std::string jsonObjectOf(const std::string &json, const std::string &name) {
  size_t at = json.find("{\"name\": \"" + name + "\"");
  if (at == std::string::npos)
    return "";
  return json.substr(at, json.find('}', at) - at + 1);
}

double jsonNumber(const std::string &object, const std::string &key) {
  size_t at = object.find("\"" + key + "\": ");
  if (at == std::string::npos)
    return -1;
  return std::strtod(object.c_str() + at + key.size() + 4, nullptr);
}

class RuntimeProfile : public testing::Test {
protected:
  void SetUp() override {
    tdsl_profile_reset();
    jsonPath = fs::temp_directory_path() /
               ("tdsl-profile-" + std::to_string(getpid()) + ".json");
  }
  void TearDown() override {
    // Leave no report for the exit hook.
    tdsl_profile_enable(0);
    tdsl_profile_set_json(nullptr);
    tdsl_profile_reset();
    fs::remove(jsonPath);
  }
  fs::path jsonPath;
};
} // namespace

TEST_F(RuntimeProfile, LaunchSitesKeepTheirId) {
  int32_t slot = -1, other = -1;
  int32_t id = tdsl_kernel_id(&slot, "site", "p.tdsl:7:1");
  EXPECT_EQ(slot, id);
  EXPECT_EQ(id, tdsl_kernel_register("site", "p.tdsl:7:1"));
  // Later calls return the kept id without looking the name up.
  EXPECT_EQ(tdsl_kernel_id(&slot, nullptr, nullptr), id);
  // Another site of the same kernel shares its row.
  EXPECT_EQ(tdsl_kernel_id(&other, "site", "p.tdsl:7:1"), id);
  int32_t third = -1;
  int32_t next = tdsl_kernel_id(&third, "site2", "p.tdsl:8:1");
  EXPECT_NE(next, id);
  EXPECT_EQ(third, next);
}

TEST_F(RuntimeProfile, ClockIsSteadyAcrossItsCalibrations) {
  // nowNs switches from the steady clock to the TSC after 0.2 ms and
  // re-measures the TSC's rate after 1 s: never backwards, and in step with
  // the steady clock within 0.1% + 20 us over the whole second and a half.
  auto steady = [] {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  };
  int64_t t0 = tdsl_clock_ns(), s0 = steady(), last = t0;
  int64_t end = s0 + 1'500'000'000;
  while (steady() < end) {
    int64_t t = tdsl_clock_ns();
    ASSERT_GE(t, last);
    last = t;
    if ((t & 0xfff) == 0)
      std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
  int64_t elapsed = tdsl_clock_ns() - t0, wall = steady() - s0;
  EXPECT_NEAR(double(elapsed), double(wall), 1e-3 * double(wall) + 20'000.0);
}

TEST_F(RuntimeProfile, RegistrationIsIdempotent) {
  int32_t a = tdsl_kernel_register("k", "p.tdsl:1:1");
  EXPECT_EQ(tdsl_kernel_register("k", "p.tdsl:1:1"), a);
  EXPECT_NE(tdsl_kernel_register("k", "p.tdsl:2:1"), a);
  EXPECT_NE(tdsl_kernel_register("k2", "p.tdsl:1:1"), a);
  EXPECT_EQ(tdsl_kernel_register_kind("k", "p.tdsl:1:1", TDSL_KIND_KERNEL), a);
  int32_t copy = tdsl_kernel_register_kind("k", "p.tdsl:1:1", TDSL_KIND_H2D);
  EXPECT_NE(copy, a);
  EXPECT_EQ(tdsl_kernel_register_kind("k", "p.tdsl:1:1", TDSL_KIND_H2D), copy);
}

TEST_F(RuntimeProfile, ReportTableAndJson) {
  int32_t matmul = tdsl_kernel_register("matmul", "prog.tdsl:4:3");
  int32_t relu = tdsl_kernel_register("relu", "prog.tdsl:5:10");
  int32_t upload = tdsl_kernel_register_kind("x", "prog.tdsl:2:1",
                                             TDSL_KIND_H2D);
  tdsl_kernel_register("never_launched", "prog.tdsl:9:1");
  for (int i = 0; i < 3; ++i)
    fakeLaunch(matmul, 5, 2e6, 1e6);
  fakeLaunch(relu, 2, 0, 0);
  fakeLaunch(upload, 1, 0, 4e6);

  tdsl_profile_enable(1);
  tdsl_profile_set_json(jsonPath.c_str());
  testing::internal::CaptureStderr();
  tdsl_profile_report();
  tdsl_profile_report(); // idempotent: prints nothing more
  std::string report = testing::internal::GetCapturedStderr();

  EXPECT_NE(report.find("tdsl profile: 2 kernels, 1 copy, run "), std::string::npos)
      << report;
  std::vector<std::string> header = words(lineOf(report, "kernel"));
  EXPECT_EQ(header, (std::vector<std::string>{"kernel", "where", "calls",
                                              "total", "ms", "mean", "us",
                                              "GFLOP/s", "GB/s", "%", "run"}))
      << report;
  // Rows are sorted by total time (read back, as sleeps may overshoot).
  std::vector<double> totals;
  std::istringstream lines(report);
  for (std::string line; std::getline(lines, line);)
    if (line.rfind("matmul ", 0) == 0 || line.rfind("relu ", 0) == 0)
      totals.push_back(std::stod(words(line)[3]));
    else if (line.rfind("x [h2d] ", 0) == 0)
      totals.push_back(std::stod(words(line)[4]));
  ASSERT_EQ(totals.size(), 3u) << report;
  EXPECT_GE(totals[0], totals[1]) << report;
  EXPECT_GE(totals[1], totals[2]) << report;
  EXPECT_EQ(report.find("never_launched"), std::string::npos);

  // matmul: all 8 columns; relu: no rates, so two blank columns.
  std::vector<std::string> mm = words(lineOf(report, "matmul"));
  ASSERT_EQ(mm.size(), 8u) << report;
  EXPECT_EQ(mm[1], "prog.tdsl:4:3");
  EXPECT_EQ(mm[2], "3");
  EXPECT_GE(std::stod(mm[3]), 15.0);                // total ms
  EXPECT_GE(std::stod(mm[4]), 5000.0);              // mean us
  EXPECT_GT(std::stod(mm[5]), 0.0);                 // GFLOP/s
  EXPECT_LE(std::stod(mm[5]), 6e6 / 15e-3 * 1e-9);  // at most 0.4
  EXPECT_GT(std::stod(mm[6]), 0.0);                 // GB/s
  EXPECT_GT(std::stod(mm[7]), 0.0);                 // % of run
  EXPECT_LE(std::stod(mm[7]), 100.0);
  std::vector<std::string> re = words(lineOf(report, "relu"));
  ASSERT_EQ(re.size(), 6u) << report;
  EXPECT_EQ(re[2], "1");

  std::string json = readFile(jsonPath);
  EXPECT_NE(json.find("\"run_ms\": "), std::string::npos) << json;
  std::string mj = jsonObjectOf(json, "matmul");
  EXPECT_NE(mj.find("\"where\": \"prog.tdsl:4:3\""), std::string::npos) << mj;
  EXPECT_NE(mj.find("\"kind\": \"kernel\""), std::string::npos) << mj;
  EXPECT_EQ(jsonNumber(mj, "calls"), 3);
  EXPECT_GE(jsonNumber(mj, "total_ms"), 15.0);
  EXPECT_EQ(jsonNumber(mj, "flops"), 6e6);
  EXPECT_EQ(jsonNumber(mj, "bytes"), 3e6);
  EXPECT_GT(jsonNumber(mj, "gflops"), 0.0);
  std::string rj = jsonObjectOf(json, "relu");
  EXPECT_NE(rj.find("\"gflops\": null"), std::string::npos) << rj;
  EXPECT_NE(rj.find("\"gbps\": null"), std::string::npos) << rj;
  std::string xj = jsonObjectOf(json, "x");
  EXPECT_NE(xj.find("\"kind\": \"h2d\""), std::string::npos) << xj;
  EXPECT_GT(jsonNumber(xj, "gbps"), 0.0);
}

TEST_F(RuntimeProfile, JsonEscapesStrings) {
  int32_t id = tdsl_kernel_register("we\"ird\\name\n", "a\tb");
  fakeLaunch(id, 0, 0, 0);
  tdsl_profile_set_json(jsonPath.c_str());
  testing::internal::CaptureStderr();
  tdsl_profile_report(); // table disabled: JSON only
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  std::string json = readFile(jsonPath);
  EXPECT_NE(json.find("\"name\": \"we\\\"ird\\\\name\\n\", \"where\": "
                      "\"a\\tb\""),
            std::string::npos)
      << json;
}

TEST_F(RuntimeProfile, DisabledPrintsNothing) {
  fakeLaunch(tdsl_kernel_register("k", "p:1"), 0, 0, 0);
  tdsl_profile_enable(0);
  testing::internal::CaptureStderr();
  tdsl_profile_report();
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  EXPECT_FALSE(fs::exists(jsonPath));
}

TEST_F(RuntimeProfile, ConcurrentLaunchesAreAllCounted) {
  int32_t id = tdsl_kernel_register("par", "p:2");
  tdsl_parallel_for(
      0, 10000, 1,
      [](int64_t b, int64_t e, void *ctx) {
        for (int64_t i = b; i < e; ++i) {
          int32_t id = *static_cast<int32_t *>(ctx);
          tdsl_kernel_end(id, tdsl_kernel_begin(id), 1, 2);
        }
      },
      &id);
  tdsl_profile_set_json(jsonPath.c_str());
  tdsl_profile_report();
  std::string pj = jsonObjectOf(readFile(jsonPath), "par");
  EXPECT_EQ(jsonNumber(pj, "calls"), 10000);
  EXPECT_EQ(jsonNumber(pj, "flops"), 10000);
  EXPECT_EQ(jsonNumber(pj, "bytes"), 20000);
}

// tdsl_kernel_end returns the time it read; a launch that follows at once
// starts from it (tdsl-chain-kernel-clocks), so the two kernels' times add
// up to the whole span, each with its own part.
TEST_F(RuntimeProfile, ChainedLaunchesSplitTheSpan) {
  int32_t a = tdsl_kernel_register("chainA", "c:1");
  int32_t b = tdsl_kernel_register("chainB", "c:2");
  int64_t t0 = tdsl_kernel_begin(a);
  std::this_thread::sleep_for(std::chrono::milliseconds(4));
  int64_t t1 = tdsl_kernel_end(a, t0, 0, 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(8));
  int64_t t2 = tdsl_kernel_end(b, t1, 0, 0);
  EXPECT_GE(t1 - t0, 4'000'000);
  EXPECT_GE(t2 - t1, 8'000'000);
  tdsl_profile_set_json(jsonPath.c_str());
  tdsl_profile_report();
  std::string json = readFile(jsonPath);
  double msA = jsonNumber(jsonObjectOf(json, "chainA"), "total_ms");
  double msB = jsonNumber(jsonObjectOf(json, "chainB"), "total_ms");
  EXPECT_NEAR(msA, (t1 - t0) * 1e-6, 2e-6); // printed to 1e-6 ms
  EXPECT_NEAR(msB, (t2 - t1) * 1e-6, 2e-6);
}

// The first thread to launch a kernel adds to its counters without atomic
// read-modify-writes; launches of the same kernel from other threads, at
// the same time, still all count.
TEST_F(RuntimeProfile, OwnerAndOtherThreadsBothCount) {
  int32_t id = tdsl_kernel_register("owned", "o:1");
  tdsl_kernel_end(id, tdsl_kernel_begin(id), 1, 1); // this thread owns it
  std::vector<std::thread> others;
  for (int t = 0; t < 3; ++t)
    others.emplace_back([id] {
      for (int i = 0; i < 1000; ++i)
        tdsl_kernel_end(id, tdsl_kernel_begin(id), 1, 1);
    });
  for (int i = 0; i < 1000; ++i)
    tdsl_kernel_end(id, tdsl_kernel_begin(id), 2, 0);
  for (std::thread &t : others)
    t.join();
  tdsl_profile_set_json(jsonPath.c_str());
  tdsl_profile_report();
  std::string oj = jsonObjectOf(readFile(jsonPath), "owned");
  EXPECT_EQ(jsonNumber(oj, "calls"), 4001);
  EXPECT_EQ(jsonNumber(oj, "flops"), 1 + 3000 + 2000);
  EXPECT_EQ(jsonNumber(oj, "bytes"), 1 + 3000);
}

// Launches find their counters without a lock while other threads register
// kernels: the table grows in chunks (of 256) that never move.
TEST_F(RuntimeProfile, LaunchesWhileKernelsRegister) {
  int32_t first = tdsl_kernel_register("grow0", "p:1");
  std::atomic<bool> done{false};
  std::thread launcher([&] {
    while (!done.load())
      tdsl_kernel_end(first, tdsl_kernel_begin(first), 1, 0);
    tdsl_kernel_end(first, tdsl_kernel_begin(first), 1, 0);
  });
  std::vector<int32_t> ids;
  for (int i = 1; i <= 600; ++i) {
    ids.push_back(tdsl_kernel_register(("grow" + std::to_string(i)).c_str(), "p:1"));
    tdsl_kernel_end(ids.back(), tdsl_kernel_begin(ids.back()), i, 0);
  }
  done = true;
  launcher.join();
  for (size_t i = 1; i < ids.size(); ++i)
    EXPECT_EQ(ids[i], ids[i - 1] + 1);
  tdsl_profile_set_json(jsonPath.c_str());
  tdsl_profile_report();
  std::string json = readFile(jsonPath);
  EXPECT_GE(jsonNumber(jsonObjectOf(json, "grow0"), "calls"), 1);
  EXPECT_EQ(jsonNumber(jsonObjectOf(json, "grow300"), "flops"), 300);
  EXPECT_EQ(jsonNumber(jsonObjectOf(json, "grow600"), "calls"), 1);
}

/// Run by EnvironmentEnablesTheExitReport in a child process.
TEST(RuntimeProfileChild, LaunchAndExit) {
  if (!std::getenv("TDSL_RUNTIME_TEST_CHILD"))
    GTEST_SKIP() << "only runs as a child of EnvironmentEnablesTheExitReport";
  fakeLaunch(tdsl_kernel_register("child_kernel", "child.tdsl:7:2"), 1, 1e3,
             0);
}

TEST_F(RuntimeProfile, EnvironmentEnablesTheExitReport) {
  fs::path err = jsonPath;
  err += ".stderr";
  ASSERT_EQ(tdsl::test::runSelf("TDSL_PROFILE=1 TDSL_PROFILE_JSON=" +
                                     jsonPath.string(),
                                 "RuntimeProfileChild.LaunchAndExit",
                                 ">/dev/null 2>" + err.string()),
            0);
  std::string report = readFile(err);
  fs::remove(err);
  std::vector<std::string> row = words(lineOf(report, "child_kernel"));
  ASSERT_EQ(row.size(), 7u) << report; // GB/s blank
  EXPECT_EQ(row[1], "child.tdsl:7:2");
  EXPECT_EQ(row[2], "1");
  EXPECT_EQ(jsonNumber(jsonObjectOf(readFile(jsonPath), "child_kernel"),
                       "calls"),
            1);
}
