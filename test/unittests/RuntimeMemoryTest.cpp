//===- RuntimeMemoryTest.cpp - Runtime allocation and fatal errors --------===//
#include "tdsl/Runtime.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>

TEST(RuntimeMemory, AllocIsAlignedAndUsable) {
  for (int64_t bytes : {0, 1, 7, 63, 64, 65, 1000, 1 << 20}) {
    void *p = tdsl_alloc(bytes);
    ASSERT_NE(p, nullptr) << bytes;
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u) << bytes;
    std::memset(p, 0xab, size_t(bytes));
    tdsl_free(p);
  }
  tdsl_free(nullptr);
}

TEST(RuntimeMemory, ZeroByteAllocationsAreDistinct) {
  void *a = tdsl_alloc(0), *b = tdsl_alloc(0);
  EXPECT_NE(a, b);
  tdsl_free(a);
  tdsl_free(b);
}

// Blocks of 2 MiB and more are kept when freed and given to the next
// allocation of 1 to 9/8 of their size, pages and contents as they were (a
// fresh block from the system would read as zeros).
TEST(RuntimeMemory, HugePageBlocksAreReused) {
  constexpr int64_t kMiB = int64_t(1) << 20;
  // A 25.7 MB tensor made per iteration (below glibc's 32 MiB mmap
  // threshold) gets the same pages back.
  auto *a = static_cast<unsigned char *>(tdsl_alloc(25690112));
  std::memset(a, 0xcd, size_t(25690112));
  tdsl_free(a);
  auto *b = static_cast<unsigned char *>(tdsl_alloc(25690112));
  EXPECT_EQ(b, a);
  EXPECT_EQ(b[25690111], 0xcd);
  tdsl_free(b);
  auto *c = static_cast<unsigned char *>(tdsl_alloc(3 * kMiB));
  auto *d = static_cast<unsigned char *>(tdsl_alloc(3 * kMiB));
  EXPECT_NE(c, d);
  tdsl_free(c);
  auto *e = static_cast<unsigned char *>(tdsl_alloc(3 * kMiB));
  EXPECT_EQ(e, c);
  tdsl_free(d);
  tdsl_free(e);
  // From 256 KiB: a loaded image's block comes back even when a small
  // block was allocated after it was freed.
  auto *f = static_cast<unsigned char *>(tdsl_alloc(1204224));
  tdsl_free(f);
  void *small = tdsl_alloc(64);
  auto *g = static_cast<unsigned char *>(tdsl_alloc(1204224));
  EXPECT_EQ(g, f);
  tdsl_free(g);
  tdsl_free(small);
}

TEST(RuntimeMemory, LargeFreedBlocksAreReused) {
  constexpr int64_t kMiB = int64_t(1) << 20;
  auto *a = static_cast<unsigned char *>(tdsl_alloc(40 * kMiB));
  std::memset(a, 0xab, size_t(40 * kMiB));
  tdsl_free(a);
  auto *b = static_cast<unsigned char *>(tdsl_alloc(36 * kMiB));
  EXPECT_EQ(b, a);
  EXPECT_EQ(b[0], 0xab);
  EXPECT_EQ(b[36 * kMiB - 1], 0xab);
  // Live blocks are never handed out twice; a block of a size far from
  // any kept one is new.
  auto *c = static_cast<unsigned char *>(tdsl_alloc(36 * kMiB));
  EXPECT_NE(c, b);
  tdsl_free(b);
  auto *d = static_cast<unsigned char *>(tdsl_alloc(33 * kMiB));
  EXPECT_NE(d, b);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(d) % 64, 0u);
  auto *e = static_cast<unsigned char *>(tdsl_alloc(40 * kMiB));
  EXPECT_EQ(e, b);
  tdsl_free(c);
  tdsl_free(d);
  tdsl_free(e);
  // A block taken from the cache is kept again when freed, also when it is
  // the only large block alive.
  for (int round = 0; round < 3; ++round) {
    auto *f = static_cast<unsigned char *>(tdsl_alloc(40 * kMiB));
    EXPECT_EQ(f, e) << round;
    f[0] = static_cast<unsigned char>(0xc0 + round);
    tdsl_free(f);
    auto *g = static_cast<unsigned char *>(tdsl_alloc(40 * kMiB));
    EXPECT_EQ(g, f) << round;
    EXPECT_EQ(g[0], 0xc0 + round) << round;
    tdsl_free(g);
  }
}

TEST(RuntimeMemory, DtypeSizes) {
  EXPECT_EQ(tdsl_dtype_size(TDSL_F16), 2);
  EXPECT_EQ(tdsl_dtype_size(TDSL_BF16), 2);
  EXPECT_EQ(tdsl_dtype_size(TDSL_F32), 4);
  EXPECT_EQ(tdsl_dtype_size(TDSL_F64), 8);
  EXPECT_EQ(tdsl_dtype_size(TDSL_I1), 1);
  EXPECT_EQ(tdsl_dtype_size(TDSL_I32), 4);
  EXPECT_EQ(tdsl_dtype_size(TDSL_I64), 8);
  EXPECT_EQ(tdsl_dtype_size(TDSL_U64), 8);
  EXPECT_EQ(tdsl_dtype_size(42), 0);
}

TEST(RuntimeMemoryDeathTest, OutOfMemoryExits) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  // ASan, with allocator_may_return_null=1 (scripts/sanitize.sh), warns
  // before it returns null.
  EXPECT_EXIT(tdsl_alloc(INT64_MAX), testing::ExitedWithCode(1),
              "^(==[0-9]+==WARNING: AddressSanitizer failed to allocate "
              "0x7fffffffffffffff bytes\n)?"
              "tdsl: error: out of memory allocating 9223372036854775807 "
              "bytes\n$");
}

TEST(RuntimeMemoryDeathTest, FatalNamesTheLocation) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(tdsl_fatal("prog.tdsl:12:5", "shape mismatch: 3 vs 4"),
              testing::ExitedWithCode(1),
              "^prog.tdsl:12:5: error: shape mismatch: 3 vs 4\n$");
  EXPECT_EXIT(tdsl_fatal(nullptr, "oops"), testing::ExitedWithCode(1),
              "^tdsl: error: oops\n$");
}
