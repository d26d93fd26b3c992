//===- RuntimeNpyTest.cpp - .npy reading and writing ----------------------===//
#include "RuntimeTestUtils.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <sstream>
#include <vector>

using tdsl::test::MemRef;
namespace fs = std::filesystem;

namespace {
const char *kPython = "/usr/bin/python3";

bool haveNumpy() {
  static const bool have =
      std::system((std::string(kPython) +
                   " -c 'import numpy' >/dev/null 2>&1")
                      .c_str()) == 0;
  return have;
}

/// Runs a Python snippet with numpy imported as np and `d` the temp dir.
bool runPython(const fs::path &dir, const std::string &code) {
  fs::path script = dir / "script.py";
  std::ofstream(script) << "import sys\nimport numpy as np\nd = sys.argv[1]\n"
                        << code;
  std::string cmd = std::string(kPython) + " " + script.string() + " " +
                    dir.string();
  return std::system(cmd.c_str()) == 0;
}

std::string readFile(const fs::path &p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// Bytes of `n` elements of every dtype with distinctive values.
std::vector<char> sampleData(int32_t dtype, int64_t n) {
  int64_t size = tdsl_dtype_size(dtype);
  std::vector<char> bytes(size_t(n * size));
  for (int64_t i = 0; i < n; ++i) {
    char *p = bytes.data() + i * size;
    switch (dtype) {
    case TDSL_F16: {
      uint16_t h = uint16_t(0x3C00 + i); // 1 + i/1024
      std::memcpy(p, &h, 2);
      break;
    }
    case TDSL_F32: {
      float f = float(i) * 0.5f - 3;
      std::memcpy(p, &f, 4);
      break;
    }
    case TDSL_F64: {
      double d = double(i) / 3.0;
      std::memcpy(p, &d, 8);
      break;
    }
    case TDSL_I1:
      *p = char(i % 3 == 0);
      break;
    case TDSL_I32: {
      int32_t v = int32_t(i * 1000 - 5000);
      std::memcpy(p, &v, 4);
      break;
    }
    case TDSL_I64: {
      int64_t v = (int64_t(1) << 40) * (i - 5);
      std::memcpy(p, &v, 8);
      break;
    }
    case TDSL_U64: {
      uint64_t v = UINT64_MAX - uint64_t(i);
      std::memcpy(p, &v, 8);
      break;
    }
    }
  }
  return bytes;
}

const int32_t kNpyDtypes[] = {TDSL_F16, TDSL_F32, TDSL_F64, TDSL_I1,
                              TDSL_I32, TDSL_I64, TDSL_U64};

class RuntimeNpy : public testing::Test {
protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "tdsl-npy-XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir = tmpl;
  }
  void TearDown() override { fs::remove_all(dir); }
  std::string path(const std::string &name) { return (dir / name).string(); }

  fs::path dir;
};
using RuntimeNpyDeathTest = RuntimeNpy;
} // namespace

TEST_F(RuntimeNpy, RoundTripEveryDtype) {
  for (int32_t dtype : kNpyDtypes) {
    std::vector<char> data = sampleData(dtype, 12);
    MemRef m(data.data(), {3, 4});
    std::string p = path("t" + std::to_string(dtype) + ".npy");
    tdsl_npy_save(p.c_str(), dtype, 2, m.get(), "test:1");

    // numpy's layout: the data starts on a 64-byte boundary.
    std::string file = readFile(p);
    ASSERT_GE(file.size(), data.size());
    EXPECT_EQ((file.size() - data.size()) % 64, 0u) << dtype;
    EXPECT_EQ(file.compare(0, 8, std::string("\x93NUMPY\x01\x00", 8)), 0);
    EXPECT_EQ(file[file.size() - data.size() - 1], '\n');

    int64_t sizes[2] = {0, 0};
    void *loaded = nullptr;
    EXPECT_EQ(tdsl_npy_load(p.c_str(), dtype, 2, sizes, &loaded, "test:2"), 0);
    EXPECT_EQ(sizes[0], 3);
    EXPECT_EQ(sizes[1], 4);
    EXPECT_EQ(std::memcmp(loaded, data.data(), data.size()), 0) << dtype;
    EXPECT_EQ(reinterpret_cast<uintptr_t>(loaded) % 64, 0u);
    tdsl_free(loaded);
  }
}

TEST_F(RuntimeNpy, RoundTripRanksAndEmpty) {
  double scalar = 2.5;
  MemRef m0(&scalar, {});
  std::string p0 = path("scalar.npy");
  tdsl_npy_save(p0.c_str(), TDSL_F64, 0, m0.get(), nullptr);
  void *loaded = nullptr;
  tdsl_npy_load(p0.c_str(), TDSL_F64, 0, nullptr, &loaded, nullptr);
  EXPECT_EQ(*static_cast<double *>(loaded), 2.5);
  tdsl_free(loaded);

  std::vector<int32_t> v(2 * 3 * 4 * 5);
  std::iota(v.begin(), v.end(), 0);
  MemRef m4(v.data(), {2, 3, 4, 5});
  std::string p4 = path("rank4.npy");
  tdsl_npy_save(p4.c_str(), TDSL_I32, 4, m4.get(), nullptr);
  int64_t sizes[4];
  tdsl_npy_load(p4.c_str(), TDSL_I32, 4, sizes, &loaded, nullptr);
  EXPECT_EQ(std::vector<int64_t>(sizes, sizes + 4),
            (std::vector<int64_t>{2, 3, 4, 5}));
  EXPECT_EQ(std::memcmp(loaded, v.data(), v.size() * 4), 0);
  tdsl_free(loaded);

  MemRef empty(v.data(), {0, 7});
  std::string pe = path("empty.npy");
  tdsl_npy_save(pe.c_str(), TDSL_I32, 2, empty.get(), nullptr);
  tdsl_npy_load(pe.c_str(), TDSL_I32, 2, sizes, &loaded, nullptr);
  EXPECT_EQ(sizes[0], 0);
  EXPECT_EQ(sizes[1], 7);
  tdsl_free(loaded);
}

TEST_F(RuntimeNpy, SavesStridedViewsInRowMajorOrder) {
  float f[] = {1, 2, 3, 4, 5, 6}; // 2x3 row-major
  MemRef transposed(f, {3, 2}, {1, 3});
  std::string p = path("t.npy");
  tdsl_npy_save(p.c_str(), TDSL_F32, 2, transposed.get(), nullptr);
  int64_t sizes[2];
  void *loaded = nullptr;
  tdsl_npy_load(p.c_str(), TDSL_F32, 2, sizes, &loaded, nullptr);
  EXPECT_EQ(sizes[0], 3);
  EXPECT_EQ(sizes[1], 2);
  const float expected[] = {1, 4, 2, 5, 3, 6};
  EXPECT_EQ(std::memcmp(loaded, expected, sizeof(expected)), 0);
  tdsl_free(loaded);
}

// Arrays of 1 MiB and more start on a 4096-byte page (still a multiple of
// 64, as numpy wants) and are mapped copy-on-write when loaded: the loaded
// tensor is the file's data, writes to it never reach the file, and
// tdsl_free unmaps it.
TEST_F(RuntimeNpy, LargeArraysArePageAlignedAndMapped) {
  std::vector<float> v(512 * 1024); // 2 MiB
  std::iota(v.begin(), v.end(), 0.0f);
  MemRef m(v.data(), {512, 1024});
  std::string p = path("large.npy");
  tdsl_npy_save(p.c_str(), TDSL_F32, 2, m.get(), nullptr);
  std::string file = readFile(p);
  ASSERT_EQ(file.size(), 4096 + v.size() * 4);
  EXPECT_EQ(file[4095], '\n');
  EXPECT_EQ(std::memcmp(file.data() + 4096, v.data(), v.size() * 4), 0);

  int64_t sizes[2] = {-1, -1};
  void *loaded = nullptr;
  tdsl_npy_load(p.c_str(), TDSL_F32, 2, sizes, &loaded, nullptr);
  EXPECT_EQ(sizes[0], 512);
  EXPECT_EQ(sizes[1], 1024);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(loaded) % 4096, 0u);
  EXPECT_EQ(std::memcmp(loaded, v.data(), v.size() * 4), 0);
  static_cast<float *>(loaded)[7] = -1.0f; // private: the file keeps 7
  EXPECT_EQ(readFile(p), file);
  tdsl_free(loaded);

  // Small arrays keep the 64-byte layout and are read into a new block.
  MemRef small(v.data(), {16});
  std::string ps = path("small.npy");
  tdsl_npy_save(ps.c_str(), TDSL_F32, 1, small.get(), nullptr);
  size_t header = readFile(ps).size() - 16 * 4;
  EXPECT_EQ(header % 64, 0u);
  EXPECT_LT(header, 4096u);
}

// Generated code reads a static-shaped file in two steps: tdsl_npy_shape
// (which maps a large file) and tdsl_npy_read into the program's buffer.
// A page-aligned buffer gets the mapping moved onto it (no copy); the data
// is the file's, the last partial page included, and writes stay private.
TEST_F(RuntimeNpy, LargeReadsMoveTheMappingOntoTheBuffer) {
  std::vector<float> v(4 * 1024 * 1024 + 3); // 16 MiB + 12 bytes
  std::iota(v.begin(), v.end(), 1.0f);
  MemRef m(v.data(), {int64_t(v.size())});
  std::string p = path("big.npy");
  tdsl_npy_save(p.c_str(), TDSL_F32, 1, m.get(), nullptr);
  std::string file = readFile(p);

  int64_t sizes[1] = {-1};
  tdsl_npy_shape(p.c_str(), TDSL_F32, 1, sizes, nullptr);
  ASSERT_EQ(sizes[0], int64_t(v.size()));
  void *out = tdsl_alloc(int64_t(v.size() * 4));
  ASSERT_EQ(reinterpret_cast<uintptr_t>(out) % 4096, 0u);
  tdsl_npy_read(p.c_str(), TDSL_F32, 1, sizes, out, nullptr);
  EXPECT_EQ(std::memcmp(out, v.data(), v.size() * 4), 0);
  static_cast<float *>(out)[v.size() - 1] = -1.0f;
  static_cast<float *>(out)[0] = -1.0f;
  EXPECT_EQ(readFile(p), file);
  tdsl_free(out);

  // A buffer that is not page-aligned gets a copy.
  tdsl_npy_shape(p.c_str(), TDSL_F32, 1, sizes, nullptr);
  std::vector<float> copy(v.size() + 1);
  tdsl_npy_read(p.c_str(), TDSL_F32, 1, sizes, copy.data() + 1, nullptr);
  EXPECT_EQ(std::memcmp(copy.data() + 1, v.data(), v.size() * 4), 0);
}

TEST_F(RuntimeNpy, ReadsFilesWrittenByNumpy) {
  if (!haveNumpy())
    GTEST_SKIP() << kPython << " has no numpy";
  ASSERT_TRUE(runPython(dir, R"(
a = np.arange(12).reshape(3, 4)
np.save(d + '/f16.npy', (1 + a / 1024).astype('<f2'))
np.save(d + '/f32.npy', (a * 0.5 - 3).astype('<f4'))
np.save(d + '/f64.npy', (a / 3.0).astype('<f8'))
np.save(d + '/i1.npy', (a % 3 == 0))
np.save(d + '/i32.npy', (a * 1000 - 5000).astype('<i4'))
np.save(d + '/i64.npy', ((a - 5) * 2**40).astype('<i8'))
np.save(d + '/u64.npy', (np.uint64(2**64 - 1) - a.astype('<u8')))
with open(d + '/v2.npy', 'wb') as f:
    np.lib.format.write_array(f, (a * 0.5 - 3).astype('<f4'), version=(2, 0))
with open(d + '/v3.npy', 'wb') as f:
    np.lib.format.write_array(f, (a * 0.5 - 3).astype('<f4'), version=(3, 0))
np.save(d + '/fortran.npy', np.asfortranarray((a * 0.5).astype('<f4')))
np.save(d + '/big.npy', np.zeros((2, 3), dtype='>f4'))
np.save(d + '/scalar.npy', np.float64(7.5))
)"));
  const std::pair<int32_t, const char *> files[] = {
      {TDSL_F16, "f16.npy"}, {TDSL_F32, "f32.npy"}, {TDSL_F64, "f64.npy"},
      {TDSL_I1, "i1.npy"},   {TDSL_I32, "i32.npy"}, {TDSL_I64, "i64.npy"},
      {TDSL_U64, "u64.npy"}, {TDSL_F32, "v2.npy"},  {TDSL_F32, "v3.npy"}};
  for (auto [dtype, name] : files) {
    std::vector<char> expected = sampleData(dtype, 12);
    int64_t sizes[2];
    void *loaded = nullptr;
    tdsl_npy_load(path(name).c_str(), dtype, 2, sizes, &loaded, nullptr);
    EXPECT_EQ(sizes[0], 3) << name;
    EXPECT_EQ(sizes[1], 4) << name;
    EXPECT_EQ(std::memcmp(loaded, expected.data(), expected.size()), 0)
        << name;
    tdsl_free(loaded);
  }
  void *loaded = nullptr;
  tdsl_npy_load(path("scalar.npy").c_str(), TDSL_F64, 0, nullptr, &loaded,
                nullptr);
  EXPECT_EQ(*static_cast<double *>(loaded), 7.5);
  tdsl_free(loaded);

  // Fork at the statement: the threadsafe style would rerun SetUp in the
  // child and leave its temp dir behind. These children start no threads.
  GTEST_FLAG_SET(death_test_style, "fast");
  int64_t sizes[2];
  EXPECT_EXIT(tdsl_npy_load(path("fortran.npy").c_str(), TDSL_F32, 2, sizes,
                            &loaded, "p.tdsl:1:1"),
              testing::ExitedWithCode(1),
              "p.tdsl:1:1: error: cannot load '.*fortran.npy': expected "
              "C-order data, found fortran_order: True");
  EXPECT_EXIT(tdsl_npy_load(path("big.npy").c_str(), TDSL_F32, 2, sizes,
                            &loaded, "p.tdsl:1:1"),
              testing::ExitedWithCode(1),
              "expected f32 data \\('<f4'\\), found '>f4'");
}

TEST_F(RuntimeNpy, NumpyReadsOurFiles) {
  if (!haveNumpy())
    GTEST_SKIP() << kPython << " has no numpy";
  const char *names[] = {"f16", "bf16", "f32", "f64", "i1", "i32", "i64", "u64"};
  for (int32_t dtype : kNpyDtypes) {
    std::vector<char> data = sampleData(dtype, 12);
    MemRef m(data.data(), {3, 4});
    tdsl_npy_save(path(std::string(names[dtype]) + ".npy").c_str(), dtype, 2,
                  m.get(), nullptr);
  }
  float f[] = {1, 2, 3, 4, 5, 6};
  MemRef transposed(f, {3, 2}, {1, 3});
  tdsl_npy_save(path("strided.npy").c_str(), TDSL_F32, 2, transposed.get(),
                nullptr);
  EXPECT_TRUE(runPython(dir, R"(
a = np.arange(12).reshape(3, 4)
expect = {
  'f16': (1 + a / 1024).astype('<f2'), 'f32': (a * 0.5 - 3).astype('<f4'),
  'f64': (a / 3.0).astype('<f8'), 'i1': (a % 3 == 0),
  'i32': (a * 1000 - 5000).astype('<i4'),
  'i64': ((a - 5) * 2**40).astype('<i8'),
  'u64': np.uint64(2**64 - 1) - a.astype('<u8'),
  'strided': np.array([[1, 2, 3], [4, 5, 6]], dtype='<f4').T,
}
for name, want in expect.items():
    got = np.load(d + '/' + name + '.npy')
    assert got.dtype == want.dtype, (name, got.dtype, want.dtype)
    assert got.shape == want.shape, (name, got.shape)
    assert np.array_equal(got, want), (name, got, want)
)"));
}

TEST_F(RuntimeNpyDeathTest, ErrorsNameTheFileAndTheMismatch) {
  // Fork at the statement: the threadsafe style would rerun SetUp in the
  // child and leave its temp dir behind. These children start no threads.
  GTEST_FLAG_SET(death_test_style, "fast");
  int64_t sizes[3];
  void *data = nullptr;
  std::string missing = path("missing.npy");
  EXPECT_EXIT(tdsl_npy_load(missing.c_str(), TDSL_F32, 2, sizes, &data,
                            "prog.tdsl:12:5"),
              testing::ExitedWithCode(1),
              "^prog.tdsl:12:5: error: cannot load '.*missing.npy': No such "
              "file or directory\n$");

  double d[6] = {};
  MemRef m(d, {2, 3});
  std::string p = path("d.npy");
  tdsl_npy_save(p.c_str(), TDSL_F64, 2, m.get(), nullptr);
  EXPECT_EXIT(tdsl_npy_load(p.c_str(), TDSL_F32, 2, sizes, &data, "x:1:2"),
              testing::ExitedWithCode(1),
              "^x:1:2: error: cannot load '.*d.npy': expected f32 data "
              "\\('<f4'\\), found '<f8' \\(f64\\)\n$");
  EXPECT_EXIT(tdsl_npy_load(p.c_str(), TDSL_F64, 3, sizes, &data, nullptr),
              testing::ExitedWithCode(1),
              "^tdsl: error: cannot load '.*d.npy': expected a rank-3 array, "
              "found rank 2 with shape \\(2, 3\\)\n$");
  EXPECT_EXIT(tdsl_npy_load(p.c_str(), TDSL_BF16, 2, sizes, &data, nullptr),
              testing::ExitedWithCode(1), "bf16 tensors have no .npy dtype");
  EXPECT_EXIT(tdsl_npy_save(p.c_str(), TDSL_BF16, 2, m.get(), nullptr),
              testing::ExitedWithCode(1),
              "cannot save '.*d.npy': bf16 tensors have no .npy dtype");

  // Cut the data short.
  std::string whole = readFile(p);
  std::string cut = path("cut.npy");
  std::ofstream(cut, std::ios::binary) << whole.substr(0, whole.size() - 8);
  EXPECT_EXIT(tdsl_npy_load(cut.c_str(), TDSL_F64, 2, sizes, &data, nullptr),
              testing::ExitedWithCode(1),
              "cut.npy': file is truncated: shape \\(2, 3\\) needs 48 bytes "
              "of data, found 40");

  std::string text = path("text.npy");
  std::ofstream(text) << "hello, world\n";
  EXPECT_EXIT(tdsl_npy_load(text.c_str(), TDSL_F64, 2, sizes, &data, nullptr),
              testing::ExitedWithCode(1), "text.npy': not a .npy file");

  // Headers numpy writes for what TDSL cannot read, each named as it is.
  auto withHeader = [&](const std::string &name, const std::string &dict) {
    std::string file = path(name);
    std::string header = dict + "\n";
    std::string raw = std::string("\x93NUMPY\x01\x00", 8);
    raw += char(header.size() & 0xff);
    raw += char(header.size() >> 8);
    std::ofstream(file, std::ios::binary) << raw << header;
    return file;
  };
  std::string record = withHeader(
      "record.npy", "{'descr': [('a', '<f4'), ('b', '<i4')], "
                    "'fortran_order': False, 'shape': (2,), }");
  EXPECT_EXIT(tdsl_npy_load(record.c_str(), TDSL_F32, 1, sizes, &data, nullptr),
              testing::ExitedWithCode(1),
              "record.npy': malformed .npy file: its 'descr' is a structured "
              "dtype");
  std::string huge = withHeader(
      "huge.npy", "{'descr': '<f4', 'fortran_order': False, "
                  "'shape': (99999999999999999999999, 1), }");
  EXPECT_EXIT(tdsl_npy_load(huge.c_str(), TDSL_F32, 2, sizes, &data, nullptr),
              testing::ExitedWithCode(1),
              "huge.npy': malformed .npy file: its shape has a dimension of "
              "99999999999999999999999, too large for any array");

  std::string nodir = path("no/such/dir.npy");
  EXPECT_EXIT(tdsl_npy_save(nodir.c_str(), TDSL_F64, 2, m.get(), "w:3:4"),
              testing::ExitedWithCode(1),
              "^w:3:4: error: cannot save '.*dir.npy': No such file or "
              "directory\n$");
}
