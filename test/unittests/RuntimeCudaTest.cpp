//===- RuntimeCudaTest.cpp - The CUDA layer, without a GPU ----------------===//
//
// The runtime loads the driver once per process, so every test that uses a
// driver runs RuntimeCudaChild.Run in a child process, with
// TDSL_CUDA_LIBRARY naming the fake driver (test/lib/CUDA/FakeDriver.cpp) or a
// missing file and TDSL_CUDA_TEST_SCENARIO saying what to do; the parent
// checks the exit status, stderr and the profile.
//
//===----------------------------------------------------------------------===//
#include "RuntimeTestUtils.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <dlfcn.h>
#include <unistd.h>

namespace fs = std::filesystem;

// The mgpu* ABI (CudaRuntimeWrappers.cpp), which Runtime.h does not declare.
extern "C" {
void *mgpuModuleLoad(void *data, size_t size);
void *mgpuModuleLoadJIT(void *data, int optLevel);
void mgpuModuleUnload(void *module);
void *mgpuModuleGetFunction(void *module, const char *name);
void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY,
                      intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                      intptr_t blockZ, int32_t smem, void *stream,
                      void **params, void **extra, size_t paramsCount);
void *mgpuStreamCreate();
void mgpuStreamDestroy(void *stream);
void mgpuStreamSynchronize(void *stream);
void *mgpuMemAlloc(uint64_t size, void *stream, bool isHostShared);
void mgpuMemFree(void *ptr, void *stream);
void mgpuMemcpy(void *dst, void *src, size_t size, void *stream);
void mgpuMemset32(void *dst, unsigned value, size_t count, void *stream);
void mgpuMemHostRegisterMemRef(int64_t rank, void *desc, int64_t elemSize);
void mgpuMemHostUnregisterMemRef(int64_t rank, void *desc, int64_t elemSize);
void mgpuSetDefaultDevice(int32_t device);
}

using tdsl::test::words;

namespace {
std::string readFile(const fs::path &p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// The first line of `text` that starts with `prefix`.
std::string lineStarting(const std::string &text, const std::string &prefix) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (line.rfind(prefix, 0) == 0)
      return line;
  return "";
}

/// The child's own output: stdout without GoogleTest's lines.
std::string ownOutput(const std::string &out) {
  std::istringstream in(out);
  std::string own;
  for (std::string line; std::getline(in, line);)
    if (!line.empty() && line.rfind("[", 0) != 0 &&
        line.rfind("Running main()", 0) != 0 &&
        line.rfind("Note: Google Test filter", 0) != 0)
      own += line + "\n";
  return own;
}

struct Child {
  int status;
  std::string out, err, json;
};

/// Runs `scenario` in a child with the driver `library` and extra `env`.
Child runChild(const std::string &library, const std::string &scenario,
               const std::string &env = "") {
  fs::path base = fs::temp_directory_path() /
                  ("tdsl-cuda-" + std::to_string(getpid()) + "-" + scenario);
  fs::path out = base.string() + ".out", err = base.string() + ".err",
           json = base.string() + ".json";
  Child c;
  c.status = tdsl::test::runSelf(
      "TDSL_CUDA_LIBRARY=" + library + " TDSL_CUDA_TEST_SCENARIO=" + scenario +
          " TDSL_PROFILE_JSON=" + json.string() + " " + env,
      "RuntimeCudaChild.Run", ">" + out.string() + " 2>" + err.string());
  c.out = ownOutput(readFile(out));
  c.err = readFile(err);
  c.json = readFile(json);
  fs::remove(out);
  fs::remove(err);
  fs::remove(json);
  return c;
}

/// The JSON object (one line) of the row named `name` of `kind`.
std::string jsonRow(const std::string &json, const std::string &name,
                    const std::string &kind) {
  for (size_t at = 0;
       (at = json.find("{\"name\": \"" + name + "\"", at)) != std::string::npos;
       ++at) {
    std::string object = json.substr(at, json.find('}', at) - at + 1);
    if (object.find("\"kind\": \"" + kind + "\"") != std::string::npos)
      return object;
  }
  return "";
}

/// The row of `name` with `kind` at `where`.
std::string jsonRowAt(const std::string &json, const std::string &name,
                      const std::string &kind, const std::string &where) {
  for (size_t at = 0;
       (at = json.find("{\"name\": \"" + name + "\"", at)) != std::string::npos;
       ++at) {
    std::string object = json.substr(at, json.find('}', at) - at + 1);
    if (object.find("\"kind\": \"" + kind + "\"") != std::string::npos &&
        object.find("\"where\": \"" + where + "\"") != std::string::npos)
      return object;
  }
  return "";
}

double jsonNumber(const std::string &object, const std::string &key) {
  size_t at = object.find("\"" + key + "\": ");
  if (at == std::string::npos)
    return -1;
  return std::strtod(object.c_str() + at + key.size() + 4, nullptr);
}

std::string jsonString(const std::string &object, const std::string &key) {
  size_t at = object.find("\"" + key + "\": \"");
  if (at == std::string::npos)
    return "<none>";
  at += key.size() + 5;
  return object.substr(at, object.find('"', at) - at);
}

bool systemHasLibcuda() {
  if (void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL)) {
    dlclose(h);
    return true;
  }
  return false;
}

const std::string kMissing = "/nonexistent/libcuda.so.1";
const std::string kNotFound =
    "/nonexistent/libcuda.so.1 not found (is the NVIDIA driver installed?)";
} // namespace

//===------------------------------- Child --------------------------------===//

TEST(RuntimeCudaChild, Run) {
  const char *scenarioEnv = std::getenv("TDSL_CUDA_TEST_SCENARIO");
  if (!std::getenv("TDSL_RUNTIME_TEST_CHILD") || !scenarioEnv)
    GTEST_SKIP() << "only runs as a child of the RuntimeCuda tests";
  std::string scenario = scenarioEnv;
  char ptx[] = "// PTX";

  if (scenario == "available") {
    char reason[512];
    int32_t ok = tdsl_cuda_available(reason, sizeof reason);
    char description[512];
    tdsl_cuda_describe(description, sizeof description);
    std::printf("available=%d\nreason=%s\ndescribe=%s\n", ok, reason,
                description);
  } else if (scenario == "stream") {
    mgpuStreamCreate();
    std::printf("not reached\n");
  } else if (scenario == "device3") {
    mgpuSetDefaultDevice(3);
    mgpuStreamCreate();
  } else if (scenario == "profile" || scenario == "nosync") {
    void *module = mgpuModuleLoadJIT(ptx, 2);
    void *kernel = mgpuModuleGetFunction(module, "matmul_kernel");
    void *stream = mgpuStreamCreate();
    std::vector<float> host(256), back(256, 0.f);
    for (int i = 0; i < 256; ++i)
      host[i] = float(i);
    tdsl::test::MemRef desc(host.data(), {16, 16});
    mgpuMemHostRegisterMemRef(2, desc.get(), 4);
    void *dev = mgpuMemAlloc(1024, stream, false);
    void *dev2 = mgpuMemAlloc(1024, stream, true);
    tdsl_cuda_set_location("prog.tdsl:3:1");
    mgpuMemcpy(dev, host.data(), 1024, stream);
    tdsl_cuda_set_location("prog.tdsl:4:3");
    tdsl_cuda_set_work(2e6, 3e6);
    void *params[1] = {&dev};
    mgpuLaunchKernel(kernel, 4, 1, 1, 64, 1, 1, 0, stream, params, nullptr, 1);
    if (scenario == "nosync") {
      // The exit hook reads the timing. The work stays pending, its buffers
      // reachable (LeakSanitizer, scripts/sanitize.sh).
      static void *volatile pending[5];
      pending[0] = module, pending[1] = kernel, pending[2] = stream;
      pending[3] = dev, pending[4] = dev2;
      return;
    }
    mgpuLaunchKernel(kernel, 4, 1, 1, 64, 1, 1, 0, stream, params, nullptr, 1);
    tdsl_cuda_set_location("prog.tdsl:5:1");
    mgpuMemcpy(dev2, dev, 1024, stream);
    tdsl_cuda_set_location("prog.tdsl:6:1");
    mgpuMemcpy(back.data(), dev2, 1024, stream);
    mgpuStreamSynchronize(stream);
    EXPECT_EQ(back, host);
    mgpuMemset32(dev, 0x3f800000u, 256, stream); // 1.0f
    mgpuMemcpy(back.data(), dev, 1024, stream);
    mgpuStreamSynchronize(stream);
    EXPECT_EQ(back, std::vector<float>(256, 1.f));
    mgpuMemFree(dev, stream);
    mgpuMemFree(dev2, stream);
    mgpuMemHostUnregisterMemRef(2, desc.get(), 4);
    mgpuStreamDestroy(stream);
    mgpuModuleUnload(module);
  } else if (scenario == "residency") {
    // A managed buffer: written by the host, used by two kernels, read by
    // the host, used again; a pointer the runtime did not allocate.
    void *a = mgpuMemAlloc(4096, nullptr, true);
    int unknown = 0;
    tdsl_cuda_to_host(a, "prog.tdsl:2:1"); // nowhere -> host: nothing moves
    tdsl_cuda_set_location("prog.tdsl:3:1");
    tdsl_cuda_to_device(a);                // host -> device: h2d at 3:1
    tdsl_cuda_set_location("prog.tdsl:4:1");
    tdsl_cuda_to_device(a);                // already there
    tdsl_cuda_to_host(a, "prog.tdsl:5:1"); // d2h, charged to 4:1
    tdsl_cuda_to_host(a, "prog.tdsl:5:9"); // already there
    tdsl_cuda_set_location("prog.tdsl:6:1");
    tdsl_cuda_to_device(a);                // h2d at 6:1
    tdsl_cuda_to_device(&unknown);         // ignored
    tdsl_cuda_to_host(&unknown, "prog.tdsl:7:1");
    mgpuMemFree(a, nullptr);
    void *b = mgpuMemAlloc(64, nullptr, true);
    tdsl_cuda_set_location("prog.tdsl:8:1");
    tdsl_cuda_to_device(b);                // nowhere -> device: nothing moves
    tdsl_cuda_to_host(b, "prog.tdsl:9:1"); // d2h of 64 bytes, at 8:1
    mgpuMemFree(b, nullptr);
    tdsl_cuda_to_device(b);                // freed: ignored
  } else if (scenario == "bad" || scenario == "fail_later" ||
             scenario == "bad_caret") {
    void *module = mgpuModuleLoad(ptx, sizeof ptx);
    void *kernel = mgpuModuleGetFunction(
        module, scenario == "fail_later" ? "fail_later" : "bad");
    void *stream = mgpuStreamCreate();
    tdsl_cuda_set_location(scenario == "bad_caret"
                               ? "prog.tdsl:9:5\n  y = f(x)\n    ^"
                               : "prog.tdsl:9:5");
    mgpuLaunchKernel(kernel, 2, 1, 1, 128, 1, 1, 0, stream, nullptr, nullptr,
                     0);
    tdsl_cuda_set_location("prog.tdsl:12:1");
    mgpuStreamSynchronize(stream);
    std::printf("not reached\n");
  } else if (scenario == "fail_unsynced") {
    void *module = mgpuModuleLoad(ptx, sizeof ptx);
    void *kernel = mgpuModuleGetFunction(module, "fail_later");
    tdsl_cuda_set_location("prog.tdsl:3:3");
    mgpuLaunchKernel(kernel, 1, 1, 1, 1, 1, 1, 0, nullptr, nullptr, nullptr, 0);
    std::printf("launched\n");
    if (std::getenv("TDSL_CUDA_TEST_REPORT"))
      tdsl_profile_report(); // reads the timing: fails there
  } else if (scenario == "badptx") {
    char bad[] = "BAD PTX";
    mgpuModuleLoadJIT(bad, 2);
  } else if (scenario == "missing") {
    void *module = mgpuModuleLoad(ptx, sizeof ptx);
    tdsl_cuda_set_location("prog.tdsl:2:7");
    mgpuModuleGetFunction(module, "missing");
  } else if (scenario == "oom") {
    tdsl_cuda_set_location("prog.tdsl:8:2");
    mgpuMemAlloc(uint64_t(1) << 41, nullptr, false);
  } else {
    FAIL() << "unknown scenario " << scenario;
  }
}

//===------------------------ No driver, no device ------------------------===//

TEST(RuntimeCuda, UnavailableWithoutLibcuda) {
  if (systemHasLibcuda() || std::getenv("TDSL_CUDA_LIBRARY"))
    GTEST_SKIP() << "this machine has a CUDA driver";
  char reason[256];
  EXPECT_EQ(tdsl_cuda_available(reason, sizeof reason), 0);
  EXPECT_STREQ(reason,
               "libcuda.so.1 not found (is the NVIDIA driver installed?)");
  char shortReason[8];
  EXPECT_EQ(tdsl_cuda_available(shortReason, sizeof shortReason), 0);
  EXPECT_STREQ(shortReason, "libcuda");
  EXPECT_EQ(tdsl_cuda_available(nullptr, 0), 0);
  char description[256];
  tdsl_cuda_describe(description, sizeof description);
  EXPECT_STREQ(description, "no CUDA GPU: libcuda.so.1 not found (is the "
                            "NVIDIA driver installed?)");
}

TEST(RuntimeCudaDeathTest, GpuCallWithoutLibcudaExits) {
  if (systemHasLibcuda() || std::getenv("TDSL_CUDA_LIBRARY"))
    GTEST_SKIP() << "this machine has a CUDA driver";
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  char ptx[] = "// PTX";
  EXPECT_EXIT(mgpuModuleLoad(ptx, sizeof ptx), testing::ExitedWithCode(1),
              "^tdsl: error: no CUDA GPU: libcuda.so.1 not found \\(is the "
              "NVIDIA driver installed\\?\\)\n$");
}

TEST(RuntimeCuda, MissingLibraryExitsOneWithAMessage) {
  Child c = runChild(kMissing, "stream");
  EXPECT_EQ(c.status, 1); // -1 would be a signal
  EXPECT_EQ(c.err, "tdsl: error: no CUDA GPU: " + kNotFound + "\n");
  EXPECT_EQ(c.out, "");
  Child a = runChild(kMissing, "available");
  EXPECT_EQ(a.status, 0) << a.err;
  EXPECT_EQ(a.out, "available=0\nreason=" + kNotFound +
                       "\ndescribe=no CUDA GPU: " + kNotFound + "\n");
}

TEST(RuntimeCuda, NoDeviceOrFailedInit) {
  Child none = runChild(TDSL_FAKE_CUDA, "stream", "FAKE_CUDA_DEVICES=0");
  EXPECT_EQ(none.status, 1);
  EXPECT_EQ(none.err,
            "tdsl: error: no CUDA GPU: the driver found no CUDA device\n");
  Child init = runChild(TDSL_FAKE_CUDA, "stream", "FAKE_CUDA_INIT_ERROR=100");
  EXPECT_EQ(init.status, 1);
  EXPECT_EQ(init.err, "tdsl: error: no CUDA GPU: cuInit failed: "
                      "CUDA_ERROR_NO_DEVICE (no CUDA-capable device is "
                      "detected)\n");
  Child a = runChild(TDSL_FAKE_CUDA, "available", "FAKE_CUDA_INIT_ERROR=100");
  EXPECT_EQ(a.status, 0) << a.err;
  EXPECT_NE(a.out.find("available=0\nreason=cuInit failed: "
                       "CUDA_ERROR_NO_DEVICE"),
            std::string::npos)
      << a.out;
}

TEST(RuntimeCuda, MissingDriverFunctionIsNamed) {
  std::string reason = std::string(TDSL_FAKE_CUDA_NO_LAUNCH) +
                       " has no function cuLaunchKernel (the driver is too "
                       "old or not NVIDIA's)";
  Child a = runChild(TDSL_FAKE_CUDA_NO_LAUNCH, "available");
  EXPECT_EQ(a.status, 0) << a.err;
  EXPECT_NE(a.out.find("available=0\nreason=" + reason + "\n"),
            std::string::npos)
      << a.out;
  Child c = runChild(TDSL_FAKE_CUDA_NO_LAUNCH, "stream");
  EXPECT_EQ(c.status, 1);
  EXPECT_EQ(c.err, "tdsl: error: no CUDA GPU: " + reason + "\n");
}

//===------------------------ With the fake driver ------------------------===//

TEST(RuntimeCuda, AvailableAndDescribed) {
  Child a = runChild(TDSL_FAKE_CUDA, "available");
  EXPECT_EQ(a.status, 0) << a.err;
  EXPECT_EQ(a.out, "available=1\nreason=\ndescribe=Fake GPU (sm_90, 4 SMs, "
                   "1.0 GiB, CUDA driver 13.0)\n");
}

TEST(RuntimeCuda, ManagedBuffersMoveWhenTheOtherSideUsesThem) {
  Child c = runChild(TDSL_FAKE_CUDA, "residency", "TDSL_PROFILE=1");
  ASSERT_EQ(c.status, 0) << c.out << c.err;
  struct Move {
    const char *kind, *where;
    double calls, bytes;
  };
  for (Move m : {Move{"h2d", "prog.tdsl:3:1", 1, 4096},
                 Move{"d2h", "prog.tdsl:4:1", 1, 4096},
                 Move{"h2d", "prog.tdsl:6:1", 1, 4096},
                 Move{"d2h", "prog.tdsl:8:1", 1, 64}}) {
    std::string row = jsonRowAt(c.json, "prefetch", m.kind, m.where);
    ASSERT_NE(row, "") << m.kind << " " << m.where << "\n" << c.json;
    EXPECT_EQ(jsonNumber(row, "calls"), m.calls) << row;
    EXPECT_EQ(jsonNumber(row, "bytes"), m.bytes) << row;
  }
  EXPECT_NE(c.err.find("tdsl profile: 0 kernels, 4 copies, run "),
            std::string::npos)
      << c.err;
  // A device that cannot take prefetches: data moves on demand, no rows.
  Child none = runChild(TDSL_FAKE_CUDA, "residency",
                        "TDSL_PROFILE=1 FAKE_CUDA_NO_PREFETCH=1");
  ASSERT_EQ(none.status, 0) << none.out << none.err;
  EXPECT_EQ(none.json.find("prefetch"), std::string::npos) << none.json;
}

TEST(RuntimeCuda, LaunchesAndCopiesAreProfiled) {
  Child c = runChild(TDSL_FAKE_CUDA, "profile", "TDSL_PROFILE=1");
  ASSERT_EQ(c.status, 0) << c.out << c.err;
  // Two launches at 1.5 ms each (the fake's events), the work of the first.
  std::string k = jsonRow(c.json, "matmul_kernel", "kernel");
  ASSERT_NE(k, "") << c.json;
  EXPECT_EQ(jsonString(k, "where"), "prog.tdsl:4:3");
  EXPECT_EQ(jsonNumber(k, "calls"), 2);
  EXPECT_DOUBLE_EQ(jsonNumber(k, "total_ms"), 3.0);
  EXPECT_EQ(jsonNumber(k, "flops"), 2e6);
  EXPECT_EQ(jsonNumber(k, "bytes"), 3e6);
  EXPECT_NEAR(jsonNumber(k, "gflops"), 2e6 / 3e-3 * 1e-9, 1e-6);
  struct Copy {
    const char *kind, *where;
    double calls;
  };
  for (Copy copy :
       {Copy{"h2d", "prog.tdsl:3:1", 1}, Copy{"d2d", "prog.tdsl:5:1", 1},
        Copy{"d2h", "prog.tdsl:6:1", 2}}) {
    std::string row = jsonRow(c.json, "memcpy", copy.kind);
    ASSERT_NE(row, "") << copy.kind << "\n" << c.json;
    EXPECT_EQ(jsonString(row, "where"), copy.where) << row;
    EXPECT_EQ(jsonNumber(row, "calls"), copy.calls) << row;
    EXPECT_DOUBLE_EQ(jsonNumber(row, "total_ms"), 1.5 * copy.calls) << row;
    EXPECT_EQ(jsonNumber(row, "bytes"), 1024 * copy.calls) << row;
    EXPECT_NEAR(jsonNumber(row, "gbps"), 1024 / 1.5e-3 * 1e-9, 1e-6) << row;
  }
  // The table: kernel, where, calls, total ms, mean us, ...
  EXPECT_NE(c.err.find("tdsl profile: 1 kernel, 3 copies, run "), std::string::npos)
      << c.err;
  EXPECT_EQ(
      words(lineStarting(c.err, "matmul_kernel ")),
      (std::vector<std::string>{
          "matmul_kernel", "prog.tdsl:4:3", "2", "3.000", "1500.000", "0.67",
          "1.00", words(lineStarting(c.err, "matmul_kernel ")).back()}))
      << c.err;
  std::vector<std::string> h2d = words(lineStarting(c.err, "memcpy [h2d] "));
  ASSERT_GE(h2d.size(), 6u) << c.err;
  EXPECT_EQ(std::vector<std::string>(h2d.begin(), h2d.begin() + 6),
            (std::vector<std::string>{"memcpy", "[h2d]", "prog.tdsl:3:1", "1",
                                      "1.500", "1500.000"}))
      << c.err;
}

TEST(RuntimeCuda, TimingsPendingAtExitAreRecorded) {
  Child c = runChild(TDSL_FAKE_CUDA, "nosync");
  ASSERT_EQ(c.status, 0) << c.out << c.err;
  std::string k = jsonRow(c.json, "matmul_kernel", "kernel");
  EXPECT_EQ(jsonNumber(k, "calls"), 1) << c.json;
  EXPECT_DOUBLE_EQ(jsonNumber(k, "total_ms"), 1.5) << c.json;
}

/// The failed launch of kernel 'bad' at prog.tdsl:9:5, as reported.
const std::string kBadLaunch =
    "prog.tdsl:9:5: error: CUDA call cuLaunchKernel failed for kernel 'bad' "
    "(grid 2x1x1, block 128x1x1, 0 bytes of shared memory): "
    "CUDA_ERROR_LAUNCH_FAILED (unspecified launch failure)\n";

TEST(RuntimeCuda, LaunchFailureNamesCallKernelAndLocation) {
  Child c = runChild(TDSL_FAKE_CUDA, "bad");
  EXPECT_EQ(c.status, 1);
  EXPECT_EQ(c.err, kBadLaunch);
  EXPECT_EQ(c.out, "");
}

TEST(RuntimeCuda, LaunchFailureShowsTheSourceLineGiven) {
  // A location that goes on with the source line and a caret (what the
  // compiler passes): they follow the message, as in diagnostics.
  Child c = runChild(TDSL_FAKE_CUDA, "bad_caret");
  EXPECT_EQ(c.status, 1);
  EXPECT_EQ(c.err, kBadLaunch + "  y = f(x)\n    ^\n");
}

TEST(RuntimeCuda, AsynchronousFailureNamesTheKernel) {
  Child c = runChild(TDSL_FAKE_CUDA, "fail_later");
  EXPECT_EQ(c.status, 1);
  EXPECT_EQ(c.err, "prog.tdsl:12:1: error: CUDA call cuStreamSynchronize "
                   "failed after kernel 'fail_later' at prog.tdsl:9:5: "
                   "CUDA_ERROR_LAUNCH_FAILED (unspecified launch failure)\n");
  // With TDSL_CUDA_SYNC=1 the launch itself reports it.
  Child s = runChild(TDSL_FAKE_CUDA, "fail_later", "TDSL_CUDA_SYNC=1");
  EXPECT_EQ(s.status, 1);
  EXPECT_EQ(s.err, "prog.tdsl:9:5: error: CUDA call cuStreamSynchronize "
                   "failed after kernel 'fail_later' at prog.tdsl:9:5: "
                   "CUDA_ERROR_LAUNCH_FAILED (unspecified launch failure)\n");
}

TEST(RuntimeCuda, FailureFoundAtExitOrReportStillExitsOne) {
  std::string expected = "prog.tdsl:3:3: error: CUDA call cuEventSynchronize "
                         "failed after kernel 'fail_later' at prog.tdsl:3:3: "
                         "CUDA_ERROR_LAUNCH_FAILED (unspecified launch "
                         "failure)\n";
  Child atExit = runChild(TDSL_FAKE_CUDA, "fail_unsynced", "TDSL_PROFILE=1");
  EXPECT_EQ(atExit.status, 1);
  EXPECT_EQ(atExit.out, "launched\n");
  EXPECT_EQ(atExit.err, expected);
  Child atReport =
      runChild(TDSL_FAKE_CUDA, "fail_unsynced", "TDSL_CUDA_TEST_REPORT=1");
  EXPECT_EQ(atReport.status, 1);
  EXPECT_EQ(atReport.out, "launched\n");
  EXPECT_EQ(atReport.err, expected);
}

TEST(RuntimeCuda, ModuleAndMemoryErrors) {
  Child ptx = runChild(TDSL_FAKE_CUDA, "badptx");
  EXPECT_EQ(ptx.status, 1);
  EXPECT_EQ(ptx.err,
            "tdsl: error: CUDA call cuModuleLoadDataEx failed JIT-compiling "
            "the GPU module's PTX (optimization level 2): "
            "CUDA_ERROR_INVALID_PTX (a PTX JIT compilation failed)\n"
            "note: the CUDA JIT said:\n"
            "ptxas fatal   : Unexpected token 'BAD' at line 1\n");
  Child fn = runChild(TDSL_FAKE_CUDA, "missing");
  EXPECT_EQ(fn.status, 1);
  EXPECT_EQ(fn.err, "prog.tdsl:2:7: error: CUDA call cuModuleGetFunction "
                    "failed looking up kernel 'missing' in its GPU module: "
                    "CUDA_ERROR_NOT_FOUND (named symbol not found)\n");
  Child oom = runChild(TDSL_FAKE_CUDA, "oom");
  EXPECT_EQ(oom.status, 1);
  EXPECT_EQ(oom.err, "prog.tdsl:8:2: error: CUDA call cuMemAlloc failed "
                     "allocating 2199023255552 bytes of device memory: "
                     "CUDA_ERROR_OUT_OF_MEMORY (out of memory)\n");
  Child dev = runChild(TDSL_FAKE_CUDA, "device3");
  EXPECT_EQ(dev.status, 1);
  EXPECT_EQ(dev.err, "tdsl: error: no CUDA device 3 (the driver found 1)\n");
}
