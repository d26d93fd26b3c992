//===- RuntimeTestUtils.cpp - Helpers for the runtime's unit tests --------===//
#include "RuntimeTestUtils.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <sstream>

int tdsl::test::runSelf(const std::string &env, const std::string &test,
                        const std::string &redirect) {
  // argv[0], not /proc/self/exe, which is valgrind under valgrind.
  std::string self = testing::internal::GetArgvs().front();
  if (self.find('/') == std::string::npos)
    self = "/proc/self/exe";
  // lit shards GoogleTest binaries through the environment; the child must
  // run its one test and not overwrite the parent's result file.
  std::string cmd = "env -u GTEST_TOTAL_SHARDS -u GTEST_SHARD_INDEX "
                    "-u GTEST_OUTPUT TDSL_RUNTIME_TEST_CHILD=1 " +
                    env + " " + self + " --gtest_filter=" + test + " " +
                    redirect;
  int status = std::system(cmd.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::vector<std::string> tdsl::test::words(const std::string &line) {
  std::istringstream in(line);
  std::vector<std::string> out;
  for (std::string w; in >> w;)
    out.push_back(w);
  return out;
}
