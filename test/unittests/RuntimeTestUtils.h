//===- RuntimeTestUtils.h - Helpers for the runtime's unit tests -*- C++ -*-===//
#ifndef TDSL_TEST_UNITTESTS_RUNTIMETESTUTILS_H
#define TDSL_TEST_UNITTESTS_RUNTIMETESTUTILS_H

#include "tdsl/Runtime.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tdsl::test {

/// A memref descriptor of any rank, laid out as MLIR's StridedMemRefType:
/// allocated, aligned, offset, sizes[rank], strides[rank].
class MemRef {
public:
  /// Row-major strides when `strides` is empty.
  MemRef(void *data, std::vector<int64_t> sizes,
         std::vector<int64_t> strides = {}, int64_t offset = 0)
      : rank(int64_t(sizes.size())), words(3 + 2 * sizes.size()) {
    if (strides.empty()) {
      strides.assign(sizes.size(), 1);
      for (int64_t d = rank - 2; d >= 0; --d)
        strides[d] = strides[d + 1] * sizes[d + 1];
    }
    words[0] = int64_t(reinterpret_cast<intptr_t>(data));
    words[1] = words[0];
    words[2] = offset;
    for (int64_t d = 0; d < rank; ++d) {
      words[3 + d] = sizes[d];
      words[3 + rank + d] = strides[d];
    }
  }
  void *get() { return words.data(); }

  int64_t rank;

private:
  std::vector<int64_t> words;
};

/// The whitespace-separated words of `line`.
std::vector<std::string> words(const std::string &line);

/// Runs one test of this binary in a child process with extra environment
/// `env` ("A=1 B=2") and shell redirections; returns its exit status.
int runSelf(const std::string &env, const std::string &test,
            const std::string &redirect = ">/dev/null 2>&1");

} // namespace tdsl::test

#endif // TDSL_TEST_UNITTESTS_RUNTIMETESTUTILS_H
