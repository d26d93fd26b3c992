//===- SoftFloat.cpp - The roundings to bf16 that LLVM calls on x86 -------===//
//
// Without AVX512-BF16, LLVM lowers a rounding to bf16 to a call of
// compiler-rt's __truncsfbf2 (from f32) or __truncdfbf2 (from f64), which
// nothing else linked here provides. tdsl-expand-bf16 rounds TDSL's own bf16
// arithmetic with integer ops, but LLVM's optimizer can narrow f32 code back
// to bf16 (a max of two widened bf16 values becomes llvm.maximum.bf16), and
// that lowering calls these. `__bf16` makes the value come back in xmm0, as
// LLVM's caller expects.
//
//===----------------------------------------------------------------------===//
#include <cmath>
#include <cstdint>
#include <cstring>

namespace {
/// The high half of f32 `bits`, rounded to nearest even; NaN made quiet.
__bf16 roundToBF16(uint32_t bits, bool isNaN) {
  bits = isNaN ? bits | 0x400000u : bits + 0x7fffu + ((bits >> 16) & 1u);
  uint16_t high = uint16_t(bits >> 16);
  __bf16 r;
  std::memcpy(&r, &high, 2);
  return r;
}
} // namespace

extern "C" __attribute__((visibility("default"))) __bf16 __truncsfbf2(float x) {
  uint32_t bits;
  std::memcpy(&bits, &x, 4);
  return roundToBF16(bits, std::isnan(x));
}

/// Through f32 rounded to odd (truncated, the last bit set when inexact),
/// which then rounds to bf16 as the f64 itself would.
extern "C" __attribute__((visibility("default"))) __bf16 __truncdfbf2(double x) {
  float f = float(x);
  if (std::isfinite(x) && std::fabs(double(f)) > std::fabs(x))
    f = std::nextafter(f, 0.0f);
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  if (std::isfinite(x) && double(f) != x)
    bits |= 1u;
  return roundToBF16(bits, std::isnan(x));
}
