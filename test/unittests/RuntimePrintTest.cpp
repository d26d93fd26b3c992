//===- RuntimePrintTest.cpp - Printing scalars and tensors ----------------===//
#include "RuntimeTestUtils.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <numeric>
#include <vector>

using tdsl::test::MemRef;

namespace {
std::string captured(const std::function<void()> &print) {
  testing::internal::CaptureStdout();
  print();
  return testing::internal::GetCapturedStdout();
}

std::string printed(int32_t dtype, MemRef &m) {
  return captured(
      [&] { tdsl_print_memref(dtype, m.rank, m.get(), nullptr, 0); });
}
} // namespace

TEST(RuntimePrint, Floats) {
  auto f32 = [](float v) {
    return captured([&] { tdsl_print_f32(v, nullptr, 0); });
  };
  EXPECT_EQ(f32(1.0f), "1");
  EXPECT_EQ(f32(2.5f), "2.5");
  EXPECT_EQ(f32(1.0f / 3), "0.333333");
  EXPECT_EQ(f32(1e-7f), "1e-07");
  EXPECT_EQ(f32(-0.0f), "-0");
  EXPECT_EQ(f32(123456789.0f), "1.23457e+08");
  EXPECT_EQ(f32(NAN), "nan");
  EXPECT_EQ(f32(-NAN), "nan");
  EXPECT_EQ(f32(-INFINITY), "-inf");
  EXPECT_EQ(captured([] { tdsl_print_f64(0.1, nullptr, 0); }), "0.1");
  EXPECT_EQ(captured([] { tdsl_print_f64(1e300, nullptr, 0); }), "1e+300");
}

TEST(RuntimePrint, HalfAndBfloat16) {
  auto f16 = [](uint16_t b) {
    return captured([&] { tdsl_print_f16(b, nullptr, 0); });
  };
  EXPECT_EQ(f16(0x3C00), "1");
  EXPECT_EQ(f16(0xC000), "-2");
  EXPECT_EQ(f16(0x3555), "0.333252");
  EXPECT_EQ(f16(0x7BFF), "65504");
  EXPECT_EQ(f16(0x0001), "5.96046e-08"); // smallest subnormal, 2^-24
  EXPECT_EQ(f16(0x7C00), "inf");
  EXPECT_EQ(f16(0x7E00), "nan");
  auto bf16 = [](uint16_t b) {
    return captured([&] { tdsl_print_bf16(b, nullptr, 0); });
  };
  EXPECT_EQ(bf16(0x3F80), "1");
  EXPECT_EQ(bf16(0x4049), "3.14062");
  EXPECT_EQ(bf16(0xFF80), "-inf");
}

TEST(RuntimePrint, Integers) {
  EXPECT_EQ(captured([] { tdsl_print_i1(1, nullptr, 0); }), "true");
  EXPECT_EQ(captured([] { tdsl_print_i1(0, nullptr, 0); }), "false");
  EXPECT_EQ(captured([] { tdsl_print_i32(-5, nullptr, 0); }), "-5");
  EXPECT_EQ(captured([] { tdsl_print_i64(INT64_MIN, nullptr, 0); }),
            "-9223372036854775808");
  EXPECT_EQ(captured([] { tdsl_print_u64(UINT64_MAX, nullptr, 0); }),
            "18446744073709551615");
}

TEST(RuntimePrint, PrefixAndNewline) {
  EXPECT_EQ(captured([] { tdsl_print_i32(3, "x = ", 1); }), "x = 3\n");
  EXPECT_EQ(captured([] {
              tdsl_print_f32(0.5f, "a: ", 0);
              tdsl_print_f32(1.5f, ", b: ", 1);
            }),
            "a: 0.5, b: 1.5\n");
}

TEST(RuntimePrint, SmallTensors) {
  float f[] = {1, 2.5, 3, 4};
  MemRef m(f, {2, 2});
  EXPECT_EQ(printed(TDSL_F32, m), "[[1, 2.5], [3, 4]]");
  // The C macro declares the same layout.
  TDSL_MEMREF(float, 2) c = {f, f, 0, {2, 2}, {2, 1}};
  EXPECT_EQ(captured([&] { tdsl_print_memref(TDSL_F32, 2, &c, "t = ", 1); }),
            "t = [[1, 2.5], [3, 4]]\n");

  int64_t v[] = {7, -8, 9};
  MemRef m1(v, {3});
  EXPECT_EQ(printed(TDSL_I64, m1), "[7, -8, 9]");

  int8_t b[] = {1, 0, 1, 1, 0, 0};
  MemRef mb(b, {2, 1, 3});
  EXPECT_EQ(printed(TDSL_I1, mb), "[[[true, false, true]], [[true, false, false]]]");

  double s = 0.25;
  MemRef m0(&s, {});
  EXPECT_EQ(printed(TDSL_F64, m0), "0.25");
  TDSL_MEMREF0(double) c0 = {&s, &s, 0};
  EXPECT_EQ(captured([&] { tdsl_print_memref(TDSL_F64, 0, &c0, nullptr, 0); }),
            "0.25");

  MemRef empty(v, {0});
  EXPECT_EQ(printed(TDSL_I64, empty), "[]");
  MemRef empty2(v, {2, 0});
  EXPECT_EQ(printed(TDSL_I64, empty2), "[[], []]");

  uint16_t h[] = {0x3C00, 0x3800};
  MemRef mh(h, {2});
  EXPECT_EQ(printed(TDSL_F16, mh), "[1, 0.5]");
  EXPECT_EQ(printed(TDSL_BF16, mh), "[0.0078125, 3.05176e-05]");

  uint64_t u[] = {0, UINT64_MAX};
  MemRef mu(u, {2});
  EXPECT_EQ(printed(TDSL_U64, mu), "[0, 18446744073709551615]");
  int32_t i[] = {-1, 2};
  MemRef mi(i, {1, 2});
  EXPECT_EQ(printed(TDSL_I32, mi), "[[-1, 2]]");
}

TEST(RuntimePrint, StridedViews) {
  float f[] = {1, 2.5, 3, 4};
  MemRef transposed(f, {2, 2}, {1, 2});
  EXPECT_EQ(printed(TDSL_F32, transposed), "[[1, 3], [2.5, 4]]");

  // Column 1 of a 3x4 row-major matrix: offset 1, stride 4.
  int32_t a[12];
  std::iota(a, a + 12, 0);
  MemRef column(a, {3}, {4}, 1);
  EXPECT_EQ(printed(TDSL_I32, column), "[1, 5, 9]");
  // Every other row, reversed columns (negative stride).
  MemRef rows(a, {2, 4}, {8, -1}, 3);
  EXPECT_EQ(printed(TDSL_I32, rows), "[[3, 2, 1, 0], [11, 10, 9, 8]]");
  // A broadcast (stride 0) dimension.
  MemRef broadcast(a, {2, 3}, {0, 1});
  EXPECT_EQ(printed(TDSL_I32, broadcast), "[[0, 1, 2], [0, 1, 2]]");
}

TEST(RuntimePrint, LargeTensorsAreSummarized) {
  std::vector<int64_t> v(2000);
  std::iota(v.begin(), v.end(), 0);
  MemRef m(v.data(), {2000});
  EXPECT_EQ(printed(TDSL_I64, m), "[0, 1, 2, ..., 1997, 1998, 1999]");

  // Exactly 1000 elements print in full.
  MemRef full(v.data(), {1000});
  std::string s = printed(TDSL_I64, full);
  EXPECT_EQ(s.find("..."), std::string::npos);
  EXPECT_EQ(s.substr(s.size() - 9), "998, 999]");

  // 2-D: rows and columns are both cut; a short dimension is not.
  MemRef m2(v.data(), {40, 50});
  auto row = [](int64_t r) {
    int64_t b = r * 50;
    return "[" + std::to_string(b) + ", " + std::to_string(b + 1) + ", " +
           std::to_string(b + 2) + ", ..., " + std::to_string(b + 47) + ", " +
           std::to_string(b + 48) + ", " + std::to_string(b + 49) + "]";
  };
  EXPECT_EQ(printed(TDSL_I64, m2), "[" + row(0) + ", " + row(1) + ", " +
                                       row(2) + ", ..., " + row(37) + ", " +
                                       row(38) + ", " + row(39) + "]");
  MemRef m3(v.data(), {2, 1000});
  std::string s3 = printed(TDSL_I64, m3);
  EXPECT_EQ(s3, "[[0, 1, 2, ..., 997, 998, 999], "
                "[1000, 1001, 1002, ..., 1997, 1998, 1999]]");
}
