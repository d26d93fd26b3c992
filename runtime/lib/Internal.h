//===- Internal.h - Helpers shared by the runtime's sources -----*- C++ -*-===//
#ifndef TDSL_RUNTIME_LIB_INTERNAL_H
#define TDSL_RUNTIME_LIB_INTERNAL_H

#include "tdsl/Runtime.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tdsl::rt {

/// A memref descriptor of any element type and rank, read through its fixed
/// layout: two pointers, the offset, then sizes[rank] and strides[rank].
struct MemRefView {
  char *data = nullptr; ///< aligned pointer
  int64_t offset = 0;   ///< in elements
  const int64_t *sizes = nullptr;
  const int64_t *strides = nullptr;
  int64_t rank = 0;
  int64_t elemSize = 0;

  MemRefView(void *desc, int64_t rank, int64_t elemSize);
  int64_t numElements() const;
  /// Address of the element at a multi-index of `rank` entries.
  char *at(const int64_t *index) const;
};

/// Walks a memref's elements in row-major order from any linear index,
/// keeping the element address up to date without a division per step.
class RowMajorWalker {
public:
  RowMajorWalker(const MemRefView &view, int64_t linear);
  char *get() const { return ptr; }
  void next();

private:
  const MemRefView &view;
  std::vector<int64_t> index;
  char *ptr;
};

/// Prints `<where>: error: <message>` and exits 1 (where defaults to "tdsl").
[[noreturn]] void fatal(const char *where, const std::string &message);

/// The DSL position tdsl_alloc_site gave for this thread's next allocation
/// (null if none), and forgets it: CPU and GPU allocations report with it.
const char *takeAllocSite();

/// printf into a std::string.
std::string format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/// Name of a dtype code for messages ("f32"), or "dtype N" when unknown.
std::string dtypeName(int32_t dtype);

/// Checks a dtype code and rank coming from generated code; exits on misuse.
void checkDtypeAndRank(int32_t dtype, int64_t rank, const char *what);

/// Nanoseconds on the steady clock.
int64_t nowNs();

/// Sets a function tdsl_profile_report calls first, to add timings that are
/// still pending (the CUDA runtime's events); null for none.
void setProfileFlushHook(void (*hook)());

} // namespace tdsl::rt

#endif // TDSL_RUNTIME_LIB_INTERNAL_H
