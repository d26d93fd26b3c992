//===- Memory.cpp - Aligned allocation, fatal errors, the stack left ------===//
#include "Internal.h"

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <malloc.h>
#include <pthread.h>
#include <map>
#include <mutex>
#include <unordered_map>

#include <sys/mman.h>
#include <unistd.h>

using namespace tdsl::rt;

/// 64 bytes: a cache line and a full AVX-512 vector, so vectorized kernels
/// may use aligned loads.
static constexpr int64_t kAlignment = 64;
/// Blocks of at least 4 KiB start on a page, so that every tensor's element
/// i sits at the same offset within a page: a loop that stores b[i] and then
/// loads a[i + 1] never has a load whose address matches a recent store's in
/// its low 12 bits (4K aliasing: the load waits for the store). With
/// allocations packed one after another, jacobi-1d's second sweep, reading b
/// 16064 bytes after a and writing a, took 300 ns against 210 for the first.
static constexpr size_t kPage = 4096;
static constexpr size_t kPageAlignedMin = 4096;
/// Blocks of at least 2 MiB are aligned to and advised onto 2 MiB pages: a
/// first touch costs a fault per 2 MiB instead of one per 4 KiB (about 5 us
/// each in a VM: 2.5 ms for a 1024 x 1024 f32 matrix).
static constexpr size_t kHugePage = size_t(2) << 20;
static constexpr size_t kHugeThreshold = size_t(2) << 20;

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

int64_t tdsl_stack_left(void) {
  // The lowest address of this thread's stack, found once per thread (the
  // main thread's from its rlimit, a worker's from its attributes).
  static thread_local uintptr_t lowest = 0;
  if (!lowest) {
    pthread_attr_t attr;
    void *addr = nullptr;
    size_t size = 0;
    if (pthread_getattr_np(pthread_self(), &attr) == 0) {
      pthread_attr_getstack(&attr, &addr, &size);
      pthread_attr_destroy(&attr);
    }
    lowest = addr ? (uintptr_t)addr : 1;
  }
  if (lowest == 1)
    return INT64_MAX; // unknown: never report a deep recursion
  char here;
  return (int64_t)((uintptr_t)&here - lowest);
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

namespace {
/// Freed blocks of kCachedMin bytes and more, kept for a later allocation of
/// about their size. glibc maps blocks of 32 MiB and more with mmap of
/// their own and unmaps them when freed (its mmap threshold cannot go
/// higher), so a loop making a new 256 MiB tensor per iteration would have
/// the kernel zero and map 256 MiB every time: the first touch took as long
/// as the work. Blocks from 256 KiB are kept too: glibc did not give a
/// 25.7 MB tensor made per iteration the same pages back, and a `?`
/// convolution ran 3-8x slower in half the processes (page clearing in the
/// kernel); nor a 1.2 MB image loaded per iteration once a small block had
/// taken part of its freed space: the heap grew by the image at every
/// iteration, and the suite's conv2d spent 3 ms of each call faulting in
/// pages (1600 page faults for 40 calls instead of 7100-11900).
class BlockCache {
public:
  static constexpr size_t kCachedMin = size_t(256) << 10;

  /// A kept block of `size` to `size` + 1/8 bytes, or null.
  void *take(size_t size) {
    std::lock_guard<std::mutex> guard(lock);
    auto it = freeBlocks.lower_bound(size);
    if (it == freeBlocks.end() || it->first > size + size / 8)
      return nullptr;
    void *ptr = it->second;
    liveBlocks[ptr] = it->first;
    liveCount.store(liveBlocks.size(), std::memory_order_relaxed);
    freeBytes -= it->first;
    freeBlocks.erase(it);
    return ptr;
  }
  /// `ptr` is no longer a block to keep (its pages became a file mapping).
  void forget(void *ptr) {
    if (liveCount.load(std::memory_order_relaxed) == 0)
      return;
    std::lock_guard<std::mutex> guard(lock);
    liveBlocks.erase(ptr);
    liveCount.store(liveBlocks.size(), std::memory_order_relaxed);
  }
  void added(void *ptr, size_t size) {
    std::lock_guard<std::mutex> guard(lock);
    liveBlocks[ptr] = size;
    liveCount.store(liveBlocks.size(), std::memory_order_relaxed);
  }
  /// Keeps `ptr` if it is a live block; false if it is not one.
  bool keep(void *ptr) {
    if (liveCount.load(std::memory_order_relaxed) == 0)
      return false;
    std::lock_guard<std::mutex> guard(lock);
    auto it = liveBlocks.find(ptr);
    if (it == liveBlocks.end())
      return false;
    size_t size = it->second;
    liveBlocks.erase(it);
    liveCount.store(liveBlocks.size(), std::memory_order_relaxed);
    freeBlocks.emplace(size, ptr);
    freeBytes += size;
    // Over the limit: the largest blocks go first.
    while (freeBytes > limit() && !freeBlocks.empty()) {
      auto last = std::prev(freeBlocks.end());
      freeBytes -= last->first;
      std::free(last->second);
      freeBlocks.erase(last);
    }
    return true;
  }
  /// Gives every kept block back (before an allocation is retried).
  bool release() {
    std::lock_guard<std::mutex> guard(lock);
    bool any = !freeBlocks.empty();
    for (auto &[size, ptr] : freeBlocks)
      std::free(ptr);
    freeBlocks.clear();
    freeBytes = 0;
    return any;
  }

private:
  /// $TDSL_BLOCK_CACHE_MB, else an eighth of the memory, at most 2 GiB.
  size_t limit() {
    if (limitBytes == SIZE_MAX) {
      if (const char *mb = std::getenv("TDSL_BLOCK_CACHE_MB")) {
        char *end = nullptr;
        long long n = std::strtoll(mb, &end, 10);
        if (!*mb || *end || n < 0)
          exitOnError(Status::errorAt(nullptr,
                                      format("TDSL_BLOCK_CACHE_MB must be a number "
                                             "of MiB (0: no cache), found '%s'",
                                             mb)),
                      nullptr);
        limitBytes = n <= 0 ? 0 : size_t(std::min(n, 1LL << 30)) << 20;
      } else {
        long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
        size_t ram = pages > 0 && page > 0 ? size_t(pages) * size_t(page) : 0;
        limitBytes = std::min(ram / 8, size_t(2) << 30);
      }
    }
    return limitBytes;
  }

  std::mutex lock;
  std::unordered_map<void *, size_t> liveBlocks;
  std::atomic<size_t> liveCount{0};
  std::multimap<size_t, void *> freeBlocks;
  size_t freeBytes = 0;
  size_t limitBytes = SIZE_MAX;
};

BlockCache &blockCache() {
  static BlockCache *cache = new BlockCache; // never destroyed: frees at exit
  return *cache;
}
} // namespace

StatusOr<void *> tdsl::rt::allocate(int64_t bytes) {
  const char *where = takeAllocSite();
  if (bytes < 0)
    return Status::errorAt(
        where, format("invalid allocation size %lld", (long long)bytes));
  void *ptr = nullptr;
  // Zero bytes still gets a real block so the pointer is unique and freeable.
  size_t size = bytes == 0 ? kAlignment : static_cast<size_t>(bytes);
  bool cached = size >= BlockCache::kCachedMin;
  if (cached && (ptr = blockCache().take(size)))
    return ptr;
  // Large tensors on transparent huge pages: a fresh tensor is mapped on
  // first touch, and 4 KiB pages cost a fault each (16K for 64 MiB, more
  // time than filling it); 2 MiB pages cost one per 2 MiB.
  bool huge = size >= kHugeThreshold;
  auto tryAlloc = [&] {
    size_t align = huge ? kHugePage : size >= kPageAlignedMin ? kPage : kAlignment;
    return posix_memalign(&ptr, align, size) == 0 && ptr;
  };
  if (!tryAlloc() && !(blockCache().release() && tryAlloc()))
    return Status::errorAt(
        where, format("out of memory allocating %lld bytes", (long long)bytes));
#ifdef MADV_HUGEPAGE
  if (huge)
    (void)madvise(ptr, size & ~(kHugePage - 1), MADV_HUGEPAGE);
#endif
  if (cached)
    blockCache().added(ptr, size);
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
  // Its pages are the file's now (copy on write): a block given to another
  // tensor later could fault past the end of a file that has shrunk.
  blockCache().forget(to);
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
  if (!blockCache().keep(ptr))
    std::free(ptr);
}
