//===- Memory.cpp - Aligned allocation and fatal errors ------------------===//
#include "Internal.h"

#include <atomic>
#include <cstdlib>
#include <malloc.h>
#include <cstring>
#include <mutex>
#include <unordered_map>

#include <sys/mman.h>

using namespace tdsl::rt;

/// 64 bytes: a cache line and a full AVX-512 vector, so vectorized kernels
/// may use aligned loads.
static constexpr int64_t kAlignment = 64;
/// Blocks of at least 8 MiB are aligned to and advised onto 2 MiB pages.
static constexpr size_t kHugePage = size_t(2) << 20;
static constexpr size_t kHugeThreshold = size_t(8) << 20;

int64_t tdsl_dtype_size(int32_t dtype) {
  switch (dtype) {
  case TDSL_F16:
  case TDSL_BF16:
    return 2;
  case TDSL_F32:
  case TDSL_I32:
    return 4;
  case TDSL_F64:
  case TDSL_I64:
  case TDSL_U64:
    return 8;
  case TDSL_I1:
    return 1;
  default:
    return 0;
  }
}

void tdsl_fatal(const char *where, const char *message) {
  fatal(where, message ? message : "fatal error");
}

/// Set by generated code just before a large allocation (tdsl-locate-allocs)
/// and consumed by it, so a stale position never names another allocation.
static thread_local const char *allocSite = nullptr;

void tdsl_alloc_site(const char *where) { allocSite = where; }

const char *tdsl::rt::takeAllocSite() {
  const char *where = allocSite;
  allocSite = nullptr;
  return where;
}

StatusOr<void *> tdsl::rt::allocate(int64_t bytes) {
  const char *where = takeAllocSite();
  if (bytes < 0)
    return Status::errorAt(
        where, format("invalid allocation size %lld", (long long)bytes));
  void *ptr = nullptr;
  // Zero bytes still gets a real block so the pointer is unique and freeable.
  size_t size = bytes == 0 ? kAlignment : static_cast<size_t>(bytes);
  // Large tensors on transparent huge pages: a fresh tensor is mapped on
  // first touch, and 4 KiB pages cost a fault each (16K for 64 MiB, more
  // time than filling it); 2 MiB pages cost one per 2 MiB.
  bool huge = size >= kHugeThreshold;
  if (posix_memalign(&ptr, huge ? kHugePage : kAlignment, size) != 0 || !ptr)
    return Status::errorAt(
        where, format("out of memory allocating %lld bytes", (long long)bytes));
#ifdef MADV_HUGEPAGE
  if (huge)
    (void)madvise(ptr, size & ~(kHugePage - 1), MADV_HUGEPAGE);
#endif
  return ptr;
}

void tdsl::rt::keepFreedMemory() {
  // glibc gives freed heap memory back to the system once 128 KiB sit at
  // the top, and serves blocks from 128 KiB up (a threshold it only raises
  // after freeing one) with their own mmap: a loop that makes a new 256 KiB
  // tensor per iteration then pays a brk or mmap, and a page fault per
  // 4 KiB, every time (70 us of an iteration whose kernel takes 6 us). Keep
  // up to 64 MiB of freed memory and map only blocks of 32 MiB and more.
  // Settings the user gave glibc win.
  if (std::getenv("MALLOC_TRIM_THRESHOLD_") || std::getenv("MALLOC_MMAP_THRESHOLD_") ||
      std::getenv("GLIBC_TUNABLES"))
    return;
#ifdef M_TRIM_THRESHOLD
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 64 << 20);
#endif
}

void *tdsl_alloc(int64_t bytes) {
  StatusOr<void *> ptr = allocate(bytes);
  exitOnError(ptr.status(), nullptr); // errors carry the allocation site
  return *ptr;
}

/// Blocks from mapFile and their lengths: tdsl_free unmaps them. The count
/// keeps the common case (nothing mapped) free of the lock.
static std::mutex mappedLock;
static std::unordered_map<void *, size_t> mappedBlocks;
static std::atomic<int> mappedCount{0};

void *tdsl::rt::mapFile(int fd, int64_t offset, size_t bytes) {
  void *p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, offset);
  if (p == MAP_FAILED)
    return nullptr;
  std::lock_guard<std::mutex> guard(mappedLock);
  mappedBlocks[p] = bytes;
  ++mappedCount;
  return p;
}

bool tdsl::rt::moveMapping(void *from, void *to, size_t bytes) {
  constexpr uintptr_t kPage = 4096;
  size_t whole = bytes & ~size_t(kPage - 1);
  if (reinterpret_cast<uintptr_t>(to) % kPage != 0 || whole == 0)
    return false;
  std::lock_guard<std::mutex> guard(mappedLock);
  auto it = mappedBlocks.find(from);
  if (it == mappedBlocks.end() || it->second != bytes)
    return false;
  // The whole pages move onto `to` (replacing its pages); the rest of the
  // last page is copied, then the old mapping's remains are unmapped.
  if (mremap(from, whole, whole, MREMAP_MAYMOVE | MREMAP_FIXED, to) == MAP_FAILED)
    return false;
  char *tail = static_cast<char *>(from) + whole;
  if (bytes > whole) {
    std::memcpy(static_cast<char *>(to) + whole, tail, bytes - whole);
    munmap(tail, kPage);
  }
  mappedBlocks.erase(it);
  --mappedCount;
  return true;
}

void tdsl_free(void *ptr) {
  if (mappedCount.load(std::memory_order_relaxed) > 0) {
    std::lock_guard<std::mutex> guard(mappedLock);
    auto it = mappedBlocks.find(ptr);
    if (it != mappedBlocks.end()) {
      munmap(ptr, it->second);
      mappedBlocks.erase(it);
      --mappedCount;
      return;
    }
  }
  std::free(ptr);
}
