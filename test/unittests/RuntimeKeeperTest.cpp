//===- RuntimeKeeperTest.cpp - The keeper of tdsl-repl's GPU values -------===//
//
// Starts the keeper (runtime/lib/cuda/DeviceKeeper.cpp) in a forked process
// over the test double of libcuda, as tdsl-repl does, and talks to it:
// a value goes to the device and back unchanged, requests about files
// outside the session's store and values .npy cannot type are refused, and
// the keeper ends when its lifeline does.
//
//===----------------------------------------------------------------------===//
#include "RuntimeTestUtils.h"

#include "tdsl/DeviceKeeper.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace {

std::string readAll(const fs::path &p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class KeeperTest : public ::testing::Test {
protected:
  void SetUp() override {
    char tmpl[] = "/tmp/tdsl-keeper-test-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir = tmpl;
    prefix = (dir / "gpu-").string();
    int listenFd = tdsl_keeper_listen(prefix.c_str());
    ASSERT_GE(listenFd, 0);
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    // The keeper runs in a new process of this binary (KeeperChild.Serve):
    // this one may have loaded a driver already (the RuntimeCuda tests),
    // which a fork would inherit; tdsl-repl's session never has.
    std::string self = testing::internal::GetArgvs().front();
    if (self.find('/') == std::string::npos)
      self = "/proc/self/exe";
    pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      close(fds[1]);
      fcntl(listenFd, F_SETFD, 0); // keep it across exec
      setenv("TDSL_CUDA_LIBRARY", TDSL_FAKE_CUDA, 1);
      setenv("TDSL_RUNTIME_TEST_CHILD", "1", 1);
      setenv("TDSL_KEEPER_TEST", (prefix + "\t" + std::to_string(listenFd) +
                                  "\t" + std::to_string(fds[0])).c_str(), 1);
      for (const char *v : {"GTEST_TOTAL_SHARDS", "GTEST_SHARD_INDEX", "GTEST_OUTPUT"})
        unsetenv(v);
      execl(self.c_str(), self.c_str(), "--gtest_filter=KeeperChild.Serve",
            static_cast<char *>(nullptr));
      _exit(127);
    }
    close(listenFd);
    close(fds[0]);
    lifeline = fds[1];
  }
  void TearDown() override {
    if (lifeline >= 0)
      close(lifeline);
    if (pid > 0)
      waitpid(pid, nullptr, 0);
    fs::remove_all(dir);
  }
  /// The keeper's reply ("ok" or its error).
  std::string ask(const std::string &request) {
    char reply[1024] = "";
    return tdsl_keeper_request(prefix.c_str(), request.c_str(), reply,
                               sizeof reply) == 0
               ? "ok"
               : reply;
  }

  fs::path dir;
  std::string prefix;
  pid_t pid = -1;
  int lifeline = -1;
};

TEST(KeeperChild, Serve) {
  const char *spec = std::getenv("TDSL_KEEPER_TEST");
  if (!std::getenv("TDSL_RUNTIME_TEST_CHILD") || !spec)
    GTEST_SKIP() << "only runs as the keeper of the KeeperTest tests";
  std::string text = spec;
  size_t a = text.find('\t'), b = text.find('\t', a + 1);
  tdsl_keeper_serve(text.substr(0, a).c_str(),
                    std::atoi(text.substr(a + 1, b - a - 1).c_str()),
                    std::atoi(text.substr(b + 1).c_str()));
}

TEST_F(KeeperTest, ValueRoundTrip) {
  EXPECT_EQ(ask("ping"), "ok");
  float data[6] = {1.5f, -2, 3, 4, 5, 6.25f};
  tdsl::test::MemRef m(data, {2, 3});
  tdsl_npy_save((dir / "a.npy").c_str(), TDSL_F32, 2, m.get(), "test");
  std::string desc = prefix + "1-a.npy";
  EXPECT_EQ(ask("upload\t" + (dir / "a.npy").string() + "\t" + desc), "ok");
  // The descriptor: the array's header, then the handle, not the data.
  std::string d = readAll(desc);
  EXPECT_EQ(d.compare(0, 6, "\x93NUMPY"), 0);
  EXPECT_NE(d.find("'shape': (2, 3)"), std::string::npos);
  EXPECT_NE(d.find("TDSLGPU1"), std::string::npos);
  EXPECT_EQ(ask("download\t" + desc + "\t" + (dir / "b.npy").string()), "ok");
  EXPECT_EQ(readAll(dir / "b.npy"), readAll(dir / "a.npy"));
  EXPECT_EQ(ask("free\t" + prefix), "ok");
  // Freed: nothing is kept for it any more.
  EXPECT_NE(ask("download\t" + desc + "\t" + (dir / "c.npy").string())
                .find("no value kept"),
            std::string::npos);
}

TEST_F(KeeperTest, RefusesPathsOutsideTheStore) {
  for (std::string request :
       {"download\t" + prefix + "1-a.npy\t/tmp/elsewhere.npy",
        "upload\t/etc/passwd\t" + prefix + "1-a.npy",
        "upload\t" + (dir / "a.npy").string() + "\t" + (dir / "x.npy").string(),
        "alloc\t" + (dir / "../gpu-x.npy").string() + "\t2\t1\t4",
        std::string("free\t/")})
    EXPECT_NE(ask(request).find("outside the session's store"),
              std::string::npos)
        << request;
  EXPECT_NE(ask("alloc\t" + prefix + "1-b.npy\t1\t1\t4").find("no .npy type"),
            std::string::npos);
  EXPECT_NE(ask("frobnicate").find("unknown request"), std::string::npos);
}

TEST_F(KeeperTest, EndsWithItsLifeline) {
  EXPECT_EQ(ask("ping"), "ok");
  close(lifeline);
  lifeline = -1;
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  pid = -1;
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  EXPECT_NE(ask("ping").find("not running"), std::string::npos);
}

} // namespace
