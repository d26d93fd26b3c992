//===- Print.cpp - Printing scalars and tensors to stdout -----------------===//
#include "Internal.h"

#include <atomic>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

using namespace tdsl::rt;

/// numpy's threshold and edge items: tensors with more elements than this
/// print only the first and last kEdgeItems entries of long dimensions.
static constexpr int64_t kSummaryThreshold = 1000;
static constexpr int64_t kEdgeItems = 3;

float tdsl_f16_to_f32(uint16_t bits) {
  int exponent = (bits >> 10) & 0x1f;
  int mantissa = bits & 0x3ff;
  float magnitude;
  if (exponent == 0) // zero or subnormal
    magnitude = std::ldexp(float(mantissa), -24);
  else if (exponent == 31)
    magnitude = mantissa ? NAN : INFINITY;
  else
    magnitude = std::ldexp(float(mantissa | 0x400), exponent - 25);
  return (bits & 0x8000) ? -magnitude : magnitude;
}

float tdsl_bf16_to_f32(uint16_t bits) {
  uint32_t wide = uint32_t(bits) << 16;
  float f;
  std::memcpy(&f, &wide, sizeof(f));
  return f;
}

namespace {
void appendFloat(std::string &out, double v) {
  // printf spells these "-nan" or "inf" depending on the libc; fix them.
  if (std::isnan(v)) {
    out += "nan";
    return;
  }
  if (std::isinf(v)) {
    out += v < 0 ? "-inf" : "inf";
    return;
  }
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%g", v);
  out += buf;
}

void appendElement(std::string &out, int32_t dtype, const char *p) {
  char buf[32];
  switch (dtype) {
  case TDSL_F16: {
    uint16_t bits;
    std::memcpy(&bits, p, 2);
    return appendFloat(out, tdsl_f16_to_f32(bits));
  }
  case TDSL_BF16: {
    uint16_t bits;
    std::memcpy(&bits, p, 2);
    return appendFloat(out, tdsl_bf16_to_f32(bits));
  }
  case TDSL_F32:
    return appendFloat(out, *reinterpret_cast<const float *>(p));
  case TDSL_F64:
    return appendFloat(out, *reinterpret_cast<const double *>(p));
  case TDSL_I1:
    out += *p ? "true" : "false";
    return;
  case TDSL_I32:
    std::snprintf(buf, sizeof(buf), "%d", *reinterpret_cast<const int32_t *>(p));
    break;
  case TDSL_I64:
    std::snprintf(buf, sizeof(buf), "%lld",
                  (long long)*reinterpret_cast<const int64_t *>(p));
    break;
  case TDSL_U64:
    std::snprintf(buf, sizeof(buf), "%llu",
                  (unsigned long long)*reinterpret_cast<const uint64_t *>(p));
    break;
  }
  out += buf;
}

struct TensorPrinter {
  const MemRefView &view;
  int32_t dtype;
  bool summarize;
  std::vector<int64_t> index;
  std::string &out;

  void print(int64_t dim) {
    if (dim == view.rank)
      return appendElement(out, dtype, view.at(index.data()));
    int64_t n = view.sizes[dim];
    out += '[';
    for (int64_t i = 0; i < n; ++i) {
      if (i)
        out += ", ";
      if (summarize && n > 2 * kEdgeItems && i == kEdgeItems) {
        out += "...";
        i = n - kEdgeItems - 1;
        continue;
      }
      index[dim] = i;
      print(dim + 1);
    }
    out += ']';
  }
};

/// Set by tdsl_set_quiet: the REPL replays earlier inputs without output.
std::atomic<bool> quiet{false};

/// One write per call keeps lines from concurrent prints whole.
void emit(std::string &text, const char *prefix, int32_t newline) {
  if (quiet.load(std::memory_order_relaxed))
    return;
  if (prefix)
    text.insert(0, prefix);
  if (newline)
    text += '\n';
  std::fwrite(text.data(), 1, text.size(), stdout);
  if (newline)
    std::fflush(stdout);
}

void printScalar(int32_t dtype, const void *p, const char *prefix,
                 int32_t newline) {
  std::string text;
  appendElement(text, dtype, static_cast<const char *>(p));
  emit(text, prefix, newline);
}
} // namespace

void tdsl_print_f16(uint16_t bits, const char *prefix, int32_t newline) {
  printScalar(TDSL_F16, &bits, prefix, newline);
}
void tdsl_print_bf16(uint16_t bits, const char *prefix, int32_t newline) {
  printScalar(TDSL_BF16, &bits, prefix, newline);
}
void tdsl_print_f32(float v, const char *prefix, int32_t newline) {
  printScalar(TDSL_F32, &v, prefix, newline);
}
void tdsl_print_f64(double v, const char *prefix, int32_t newline) {
  printScalar(TDSL_F64, &v, prefix, newline);
}
void tdsl_print_i1(int8_t v, const char *prefix, int32_t newline) {
  printScalar(TDSL_I1, &v, prefix, newline);
}
void tdsl_print_i32(int32_t v, const char *prefix, int32_t newline) {
  printScalar(TDSL_I32, &v, prefix, newline);
}
void tdsl_print_i64(int64_t v, const char *prefix, int32_t newline) {
  printScalar(TDSL_I64, &v, prefix, newline);
}
void tdsl_print_u64(uint64_t v, const char *prefix, int32_t newline) {
  printScalar(TDSL_U64, &v, prefix, newline);
}

void tdsl_print_memref(int32_t dtype, int64_t rank, void *memref,
                       const char *prefix, int32_t newline) {
  exitOnError(checkDtypeAndRank(dtype, rank, "tdsl_print_memref"), nullptr);
  MemRefView view(memref, rank, tdsl_dtype_size(dtype));
  std::string text;
  TensorPrinter printer{view, dtype, view.numElements() > kSummaryThreshold,
                        std::vector<int64_t>(rank), text};
  printer.print(0);
  emit(text, prefix, newline);
}

void tdsl_set_quiet(int32_t on) { quiet.store(on != 0, std::memory_order_relaxed); }

int32_t tdsl_is_quiet(void) { return quiet.load(std::memory_order_relaxed); }
