//===- Codegen.cpp - Entry points called by code that tdslc generates -----===//
//
// Generated code passes contiguous, row-major buffers as (sizes, data)
// pointers; these wrappers describe them as strided memrefs for the general
// entry points, and parse the options of compiled executables.
//
//===----------------------------------------------------------------------===//
#include "Internal.h"
#include "cuda/CudaDriver.h"
#include "cuda/DeviceKeeper.h"
#include "tdsl/Runtime.h"

#include <csignal>
#include <cstdio>
#include <unistd.h>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace {

/// A strided memref descriptor of a contiguous buffer, laid out as MLIR's.
struct Descriptor {
  std::vector<int64_t> words;
  Descriptor(int64_t rank, const int64_t *sizes, const void *data)
      : words(3 + 2 * rank) {
    std::memcpy(&words[0], &data, sizeof(void *));
    std::memcpy(&words[1], &data, sizeof(void *));
    words[2] = 0;
    int64_t stride = 1;
    for (int64_t d = rank; d-- > 0;) {
      words[3 + d] = sizes[d];
      words[3 + rank + d] = stride;
      stride *= sizes[d];
    }
  }
  void *get() { return words.data(); }
};

/// Files read by tdsl_npy_shape, kept until tdsl_npy_read copies them out.
/// Per thread: generated code calls the two back to back on one thread, and
/// loads in a parallel loop body must not see each other's entries.
thread_local std::map<std::string, std::pair<std::vector<int64_t>, void *>> pending;

} // namespace

tdsl::rt::Status tdsl::rt::saveDenseNpy(const char *path, int32_t dtype,
                                        int64_t rank, const int64_t *sizes,
                                        const void *data) {
  Descriptor desc(rank, sizes, data);
  return saveNpy(path, dtype, rank, desc.get());
}

extern "C" {

/// Every buffer of generated code comes from here (finalize-memref-to-llvm
/// with use-generic-functions), so running out of memory is a clear error
/// and exit 1, not a crash on a null pointer.
TDSL_RUNTIME_EXPORT void *_mlir_memref_to_llvm_alloc(size_t size) {
  return tdsl_alloc((int64_t)size);
}

TDSL_RUNTIME_EXPORT void *_mlir_memref_to_llvm_aligned_alloc(size_t alignment,
                                                             size_t size) {
  if (alignment <= 64)
    return tdsl_alloc((int64_t)size);
  void *p = nullptr;
  if (posix_memalign(&p, alignment, size ? size : 1) != 0)
    tdsl_fatal(nullptr, tdsl::rt::format("out of memory allocating %zu bytes",
                                         size).c_str());
  return p;
}

TDSL_RUNTIME_EXPORT void _mlir_memref_to_llvm_free(void *ptr) { tdsl_free(ptr); }

/// memref.copy between buffers of any layout (finalize-memref-to-llvm calls
/// it when either side is not contiguous, e.g. a slice `a[r, j]`): the ABI
/// of MLIR's runner utilities, an element size and two unranked memrefs
/// {rank, descriptor*} of equal shapes.
TDSL_RUNTIME_EXPORT void memrefCopy(int64_t elemSize, const int64_t *src,
                                    const int64_t *dst) {
  int64_t rank = src[0];
  tdsl::rt::MemRefView from(reinterpret_cast<void *const *>(src + 1)[0], rank,
                            elemSize);
  tdsl::rt::MemRefView to(reinterpret_cast<void *const *>(dst + 1)[0], rank,
                          elemSize);
  int64_t n = from.numElements();
  tdsl::rt::RowMajorWalker in(from, 0), out(to, 0);
  for (int64_t k = 0; k < n; ++k, in.next(), out.next())
    std::memcpy(out.get(), in.get(), elemSize);
}

TDSL_RUNTIME_EXPORT void tdsl_print_str(const char *text, int32_t newline) {
  if (tdsl_is_quiet())
    return;
  std::fputs(text ? text : "", stdout);
  if (newline) {
    std::fputc('\n', stdout);
    std::fflush(stdout);
  }
}

TDSL_RUNTIME_EXPORT void tdsl_print_tensor(int32_t dtype, int64_t rank,
                                           const int64_t *sizes,
                                           const void *data, const char *prefix,
                                           int32_t newline) {
  Descriptor desc(rank, sizes, data);
  tdsl_print_memref(dtype, rank, desc.get(), prefix, newline);
}

/// Keeps what a shape step read for `path` until tdsl_npy_read copies it,
/// after checking the sizes the program declares (-1: any).
static void keepPending(const char *path, int64_t rank, int64_t *sizes,
                        const std::vector<int64_t> &expected, void *data,
                        const char *where) {
  for (int64_t d = 0; d < rank; ++d)
    if (expected[d] >= 0 && expected[d] != sizes[d]) {
      std::string msg = tdsl::rt::format(
          "cannot load '%s': dimension %lld of the array is %lld but the "
          "program declares %lld",
          path, (long long)d, (long long)sizes[d], (long long)expected[d]);
      tdsl_free(data);
      tdsl_fatal(where, msg.c_str());
    }
  auto &slot = pending[path];
  if (slot.second)
    tdsl_free(slot.second);
  slot = {std::vector<int64_t>(sizes, sizes + rank), data};
}

TDSL_RUNTIME_EXPORT void tdsl_npy_shape(const char *path, int32_t dtype,
                                        int64_t rank, int64_t *sizes,
                                        const char *where) {
  std::vector<int64_t> expected(sizes, sizes + rank);
  if (tdsl::rt::cuda::isDeviceValue(path)) {
    tdsl::rt::exitOnError(
        tdsl::rt::cuda::deviceValueShape(path, dtype, rank, sizes), where);
    keepPending(path, rank, sizes, expected, nullptr, where);
    return;
  }
  void *data = nullptr;
  tdsl::rt::exitOnError(tdsl::rt::loadNpy(path, dtype, rank, sizes, &data),
                        where);
  keepPending(path, rank, sizes, expected, data, where);
}

TDSL_RUNTIME_EXPORT void tdsl_csv_shape(const char *path, int32_t dtype,
                                        int64_t rank, int64_t *sizes,
                                        const char *where) {
  if (rank != 2)
    tdsl_fatal(nullptr, "tdsl_csv_shape: a CSV file is a rank-2 table");
  std::vector<int64_t> expected(sizes, sizes + rank);
  void *data = nullptr;
  tdsl::rt::exitOnError(tdsl::rt::loadCsv(path, dtype, sizes, &data), where);
  keepPending(path, rank, sizes, expected, data, where);
}

TDSL_RUNTIME_EXPORT void tdsl_npy_read(const char *path, int32_t dtype,
                                       int64_t rank, const int64_t *sizes,
                                       void *out, const char *where) {
  std::pair<std::vector<int64_t>, void *> entry;
  {
    auto it = pending.find(path);
    if (it == pending.end())
      tdsl_fatal(where, "internal error: file read before its shape");
    entry = it->second;
    pending.erase(it);
  }
  if (tdsl::rt::cuda::isDeviceValue(path)) {
    tdsl_cuda_set_location(where); // the profile row of the copy
    tdsl::rt::exitOnError(
        tdsl::rt::cuda::readDeviceValue(path, dtype, rank, sizes, out), where);
    return;
  }
  int64_t n = 1;
  for (int64_t d = 0; d < rank; ++d)
    n *= sizes[d];
  // The CUDA layer's managed buffers come to the host first (the compiler
  // leaves that to this call, which knows where the data goes).
  bool managed = tdsl::rt::cuda::isManagedBuffer(out);
  if (managed)
    tdsl::rt::cuda::exitOnError(tdsl::rt::cuda::toHost(out, where));
  // An empty tensor has no buffer on either side (null), and memcpy's
  // arguments must not be null even for 0 bytes.
  // A mapped file moves onto the program's buffer when that is page-aligned
  // (large buffers are): reading a large .npy copies nothing. Not onto CUDA
  // managed memory, whose pages the driver owns.
  size_t bytes = size_t(n * tdsl_dtype_size(dtype));
  if (n > 0 && !managed && tdsl::rt::moveMapping(entry.second, out, bytes))
    return;
  if (n > 0)
    std::memcpy(out, entry.second, bytes);
  tdsl_free(entry.second);
}

TDSL_RUNTIME_EXPORT void tdsl_npy_write(const char *path, int32_t dtype,
                                        int64_t rank, const int64_t *sizes,
                                        const void *data, const char *where) {
  void *buffer = const_cast<void *>(data);
  if (tdsl::rt::cuda::isDeviceValue(path)) {
    tdsl_cuda_set_location(where);
    tdsl::rt::exitOnError(
        tdsl::rt::cuda::writeDeviceValue(path, dtype, rank, sizes, buffer),
        where);
    return;
  }
  if (tdsl::rt::cuda::isManagedBuffer(buffer))
    tdsl::rt::cuda::exitOnError(tdsl::rt::cuda::toHost(buffer, where));
  tdsl::rt::exitOnError(
      tdsl::rt::saveDenseNpy(path, dtype, rank, sizes, data), where);
}

/// Options of a compiled executable: --threads=N, --profile,
/// --profile-json=FILE. Unknown arguments are an error.
/// Integer division by zero traps (SIGFPE); the program stops with a clear
/// message and exit 1 instead of a crash.
static void onArithmeticTrap(int) {
  static const char msg[] =
      "tdsl: error: integer division by zero (or overflow)\n";
  fflush(stdout);
  (void)!write(2, msg, sizeof(msg) - 1);
  _exit(1);
}

TDSL_RUNTIME_EXPORT void tdsl_init(int32_t argc, char **argv) {
  // The run starts here, not when the library was loaded (a JIT loads it
  // before compiling).
  tdsl_profile_reset();
  tdsl::rt::keepFreedMemory();
  std::signal(SIGFPE, onArithmeticTrap);
  for (int32_t i = 1; i < argc; ++i) {
    const char *a = argv[i];
    if (!std::strncmp(a, "--threads=", 10)) {
      char *end = nullptr;
      long n = std::strtol(a + 10, &end, 10);
      if (!*(a + 10) || *end || n <= 0)
        tdsl_fatal(argv[0], (std::string("--threads needs a positive integer, "
                                         "found '") + (a + 10) + "'").c_str());
      tdsl_set_num_threads((int32_t)n);
    } else if (!std::strcmp(a, "--profile")) {
      tdsl_profile_enable(1);
    } else if (!std::strncmp(a, "--profile-json=", 15)) {
      tdsl_profile_set_json(a + 15);
    } else if (!std::strcmp(a, "--threads") || !std::strcmp(a, "--profile-json")) {
      tdsl_fatal(argv[0], (std::string(a) + " takes its value after '=': " + a +
                           (a[2] == 't' ? "=4" : "=profile.json")).c_str());
    } else if (!std::strcmp(a, "--help")) {
      std::printf("usage: %s [--threads=N] [--profile] [--profile-json=FILE]\n",
                  argv[0]);
      std::exit(0);
    } else {
      tdsl_fatal(argv[0], (std::string("unknown option '") + a +
                           "' (try --help)").c_str());
    }
  }
  tdsl::rt::startWorkers();
}

} // extern "C"
