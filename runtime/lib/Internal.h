//===- Internal.h - Helpers shared by the runtime's sources -----*- C++ -*-===//
#ifndef TDSL_RUNTIME_LIB_INTERNAL_H
#define TDSL_RUNTIME_LIB_INTERNAL_H

#include "tdsl/Runtime.h"

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace tdsl::rt {

/// The outcome of an internal operation: ok, or an error message. Internal
/// code returns it instead of exiting, so that only the exported functions
/// (the ABI boundary) print the located message and exit (exitOnError), and
/// a helper's caller decides where its errors are reported.
class [[nodiscard]] Status {
public:
  /// Success: a null pointer, so ok statuses cost nothing to pass around.
  Status() = default;
  /// An error reported at the boundary's location (the DSL position).
  static Status error(std::string message) {
    return Status(std::move(message), false, nullptr);
  }
  /// An error reported at `where` whatever the boundary's location: an
  /// allocation site, or null for "tdsl" (no GPU, a misuse of the ABI by
  /// generated code), which no DSL position is to blame for.
  static Status errorAt(const char *where, std::string message) {
    return Status(std::move(message), true, where);
  }

  Status(const Status &other)
      : rep(other.rep ? std::make_unique<Rep>(*other.rep) : nullptr) {}
  Status &operator=(const Status &other) {
    rep = other.rep ? std::make_unique<Rep>(*other.rep) : nullptr;
    return *this;
  }
  Status(Status &&) = default;
  Status &operator=(Status &&) = default;

  bool ok() const { return !rep; }
  /// The error's text; only when !ok().
  const std::string &message() const { return rep->message; }
  /// Whether errorAt fixed the location (then where() is it).
  bool hasWhere() const { return rep && rep->hasWhere; }
  const char *where() const { return rep->where; }

private:
  struct Rep {
    std::string message;
    bool hasWhere;
    const char *where;
  };
  Status(std::string message, bool hasWhere, const char *where)
      : rep(std::make_unique<Rep>(Rep{std::move(message), hasWhere, where})) {}
  std::unique_ptr<Rep> rep; // null when ok
};

/// A value, or the error that prevented it. T is default-constructible
/// (handles, pointers); the value is meaningful only when ok().
template <class T> class [[nodiscard]] StatusOr {
public:
  StatusOr(T value) : value(std::move(value)) {}
  StatusOr(Status error) : status_(std::move(error)) {} ///< a failed one
  bool ok() const { return status_.ok(); }
  const Status &status() const { return status_; }
  T &operator*() { return value; }
  const T &operator*() const { return value; }

private:
  Status status_;
  T value{};
};

/// Returns a failed Status (or StatusOr's status) from the enclosing
/// function, which returns Status or a StatusOr.
#define TDSL_TRY(expr)                                                         \
  do {                                                                         \
    if (tdsl::rt::Status tdslStatus_ = (expr); !tdslStatus_.ok())              \
      return tdslStatus_;                                                      \
  } while (false)

/// The ABI boundary: on error prints `<where>: error: <message>` (at the
/// status's own location if errorAt gave one) and exits 1, like fatal.
void exitOnError(const Status &status, const char *where);

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
/// Only for the ABI boundary (exitOnError, tdsl_fatal): internal code
/// returns a Status instead.
[[noreturn]] void fatal(const char *where, const std::string &message);
/// With several processes (Collectives.cpp): `annotate` adds the rank to
/// every fatal message, and `abortAll` stops every process instead of this
/// one's _exit.
void setFatalHooks(void (*annotate)(std::string &), void (*abortAll)());
/// With several processes: the profile says which one it is, and its JSON
/// file gets `.rank<r>` before the extension.
void setProfileRank(int64_t rank, int64_t size);

/// The DSL position tdsl_alloc_site gave for this thread's next allocation
/// (null if none), and forgets it: CPU and GPU allocations report with it.
const char *takeAllocSite();

/// printf into a std::string.
std::string format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/// Name of a dtype code for messages ("f32"), or "dtype N" when unknown.
std::string dtypeName(int32_t dtype);

/// Checks a dtype code and rank coming from generated code: a misuse is an
/// error at "tdsl" whatever the caller's location.
Status checkDtypeAndRank(int32_t dtype, int64_t rank, const char *what);

/// tdsl_alloc's allocation: 64-byte aligned, never null when ok. Takes the
/// thread's allocation site (takeAllocSite), where its errors are reported.
StatusOr<void *> allocate(int64_t bytes);
/// Tunes glibc's malloc for tensors: freed memory is kept for reuse rather
/// than returned and faulted in again (tdsl_init calls it).
void keepFreedMemory();
/// Starts oneTBB's scheduler and worker threads (tdsl_init, after the
/// thread count is known), so that no kernel's time includes it.
void startWorkers();
/// Maps `bytes` of file `fd` from `offset` (a page multiple) copy-on-write,
/// as a block tdsl_free releases; null if the map fails.
void *mapFile(int fd, int64_t offset, size_t bytes);
/// Moves a block from mapFile of `bytes` onto the page-aligned block `to`
/// of at least that size (mremap), so that `to` holds the file's data
/// without a copy, and forgets `from`. False, changing nothing, when that
/// cannot be done (the caller copies then).
bool moveMapping(void *from, void *to, size_t bytes);
/// Arrays of at least this many bytes are mapped rather than read.
constexpr size_t kMapThreshold = size_t(1) << 20;

/// tdsl_npy_load and tdsl_npy_save, returning their errors (reported at the
/// caller's DSL position, except a bad dtype or rank and out of memory).
Status loadNpy(const char *path, int32_t dtype, int64_t rank, int64_t *sizesOut,
               void **dataOut);
Status saveNpy(const char *path, int32_t dtype, int64_t rank, void *memref);

/// The header of a .npy file of `dtype` elements and `rank` sizes (the
/// data, which follows it, starts on 64 bytes, or a page when large);
/// empty for a dtype .npy has no type for (bf16).
std::string npyHeader(int32_t dtype, int64_t rank, const int64_t *sizes);
/// The dtype (a TDSL code) and shape that the header of .npy file `path`
/// gives, without reading its data.
Status readNpyInfo(const char *path, int32_t &dtype,
                   std::vector<int64_t> &shape);
/// saveNpy for a dense row-major buffer of `rank` sizes (Codegen.cpp).
Status saveDenseNpy(const char *path, int32_t dtype, int64_t rank,
                    const int64_t *sizes, const void *data);

/// Reads the CSV file at `path` (gzipped or not) as a rows x columns table
/// of `dtype` (f32, f64, i32 or i64) into a new tdsl_alloc buffer.
Status loadCsv(const char *path, int32_t dtype, int64_t *sizesOut,
               void **dataOut);

/// Nanoseconds on the steady clock (read through the time-stamp counter
/// once it is calibrated against it, where the kernel's clock is the TSC:
/// Clock.cpp).
int64_t nowNs();

/// Sets a function tdsl_profile_report calls first, to add timings that are
/// still pending (the CUDA runtime's events); null for none.
void setProfileFlushHook(void (*hook)());

} // namespace tdsl::rt

#endif // TDSL_RUNTIME_LIB_INTERNAL_H
