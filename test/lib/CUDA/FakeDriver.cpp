//===- FakeDriver.cpp - A canned libcuda for the CUDA tests ---------------===//
//
// Exports the driver functions of runtime/lib/cuda/CudaSymbols.def with canned
// behaviour, so the runtime's CUDA layer can be tested without a GPU:
//
// - one device, "Fake GPU", sm_90; FAKE_CUDA_DEVICES=n sets the count and
//   FAKE_CUDA_INIT_ERROR=code makes cuInit fail;
// - "device memory" is malloc'd and known to cuPointerGetAttribute;
// - modules whose data starts with "BAD" fail to load with a JIT log;
//   kernel "missing" is not found; kernel "bad" fails to launch, and
//   "fail_later" launches but makes the next synchronization fail;
// - cuMemPrefetchAsync_v2 checks its range and does nothing;
//   FAKE_CUDA_NO_PREFETCH=1 says the device cannot take prefetches;
// - every pair of events recorded with timing enabled is 1.5 ms apart;
//   events created with CU_EVENT_DISABLE_TIMING cannot be timed.
//
// - cuMemAlloc's memory (not managed memory) is a memfd mapped shared, so
//   that CUDA IPC works between processes: a handle names the exporting
//   process and descriptor, and opening it maps /proc/<pid>/fd/<fd>.
//   Opening a handle in the process that made it fails, as with CUDA.
//
// Only the _v1 name of cuEventElapsedTime is exported, to exercise the
// runtime's fallback; TDSL_FAKE_CUDA_NO_LAUNCH leaves out cuLaunchKernel.
// With TDSL_FAKE_CUDA_EMULATE (libtdsl_emu_cuda), modules of LLVM bitcode
// (tdslc --gpu-bitcode) are compiled for the CPU and their kernels run
// (CudaEmulator.h); "device memory" is host memory, so they compute.
//
//===----------------------------------------------------------------------===//
#ifdef TDSL_FAKE_CUDA_EMULATE
#include "CudaEmulator.h"
#endif

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <map>
#include <mutex>

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

using CUresult = int;
using CUdeviceptr = unsigned long long;

namespace {
enum : int {
  kSuccess = 0,
  kInvalidValue = 1,
  kOutOfMemory = 2,
  kInvalidDevice = 101,
  kInvalidPtx = 218,
  kInvalidHandle = 400,
  kNotFound = 500,
  kLaunchFailed = 719,
};

struct Event {
  bool recorded = false;
  unsigned flags = 0;
};
struct Function {
  char name[64];
  void *emulated = nullptr; // an emulated kernel
};

std::mutex mutex;
std::map<CUdeviceptr, size_t> allocations;
/// cuMemAlloc's and cuIpcOpenMemHandle's shared mappings: their memfd (-1
/// for an opened handle).
std::map<CUdeviceptr, int> sharedMappings;

/// What a CUipcMemHandle holds here.
struct IpcHandle {
  int pid;
  int fd;
  size_t bytes;
};
/// CUipcMemHandle: 64 bytes, passed by value (on the stack).
struct CUipcMemHandle {
  char reserved[64];
};
static_assert(sizeof(IpcHandle) <= sizeof(CUipcMemHandle));
bool stickyError = false; // set by "fail_later", like a real async fault
int contextTag;
int moduleTag;

int envInt(const char *name, int fallback) {
  const char *v = std::getenv(name);
  return v && *v ? std::atoi(v) : fallback;
}

CUresult fakeSync() {
  std::lock_guard<std::mutex> lock(mutex);
  return stickyError ? kLaunchFailed : kSuccess;
}

bool isAllocated(CUdeviceptr p) {
  std::lock_guard<std::mutex> lock(mutex);
  auto it = allocations.upper_bound(p);
  return it != allocations.begin() && p < std::prev(it)->first +
                                              std::prev(it)->second;
}
} // namespace

#define FAKE extern "C" __attribute__((visibility("default"))) CUresult

FAKE cuGetErrorName(CUresult error, const char **str) {
  switch (error) {
  case kSuccess: *str = "CUDA_SUCCESS"; return kSuccess;
  case kInvalidValue: *str = "CUDA_ERROR_INVALID_VALUE"; return kSuccess;
  case kOutOfMemory: *str = "CUDA_ERROR_OUT_OF_MEMORY"; return kSuccess;
  case 100: *str = "CUDA_ERROR_NO_DEVICE"; return kSuccess;
  case kInvalidPtx: *str = "CUDA_ERROR_INVALID_PTX"; return kSuccess;
  case kNotFound: *str = "CUDA_ERROR_NOT_FOUND"; return kSuccess;
  case kLaunchFailed: *str = "CUDA_ERROR_LAUNCH_FAILED"; return kSuccess;
  }
  *str = nullptr;
  return kInvalidValue;
}
FAKE cuGetErrorString(CUresult error, const char **str) {
  switch (error) {
  case 100: *str = "no CUDA-capable device is detected"; return kSuccess;
  case kLaunchFailed: *str = "unspecified launch failure"; return kSuccess;
  case kOutOfMemory: *str = "out of memory"; return kSuccess;
  case kInvalidPtx: *str = "a PTX JIT compilation failed"; return kSuccess;
  case kNotFound: *str = "named symbol not found"; return kSuccess;
  }
  *str = nullptr;
  return kInvalidValue;
}
FAKE cuInit(unsigned) { return envInt("FAKE_CUDA_INIT_ERROR", 0); }
FAKE cuDriverGetVersion(int *v) { return *v = 13000, kSuccess; }
FAKE cuDeviceGetCount(int *n) { return *n = envInt("FAKE_CUDA_DEVICES", 1), 0; }
FAKE cuDeviceGet(int *d, int ordinal) {
  int n = 0;
  cuDeviceGetCount(&n);
  return ordinal < 0 || ordinal >= n ? kInvalidDevice : (*d = ordinal, 0);
}
FAKE cuDeviceGetName(char *name, int len, int) {
  std::snprintf(name, size_t(len), "Fake GPU");
  return kSuccess;
}
FAKE cuDeviceGetAttribute(int *v, int attribute, int) {
  *v = attribute == 75 ? 9 : attribute == 76 ? 0 : attribute == 16 ? 4 : 0;
  if (attribute == 89) // CONCURRENT_MANAGED_ACCESS: prefetches allowed
    *v = !envInt("FAKE_CUDA_NO_PREFETCH", 0);
  return kSuccess;
}
FAKE cuDeviceTotalMem_v2(size_t *bytes, int) { return *bytes = 1ull << 30, 0; }
FAKE cuDevicePrimaryCtxRetain(void **ctx, int) { return *ctx = &contextTag, 0; }
FAKE cuCtxSetCurrent(void *ctx) { return ctx ? kSuccess : kInvalidValue; }

FAKE cuModuleLoadDataEx(void **module, const void *image, unsigned n,
                        int *options, void **values) {
#ifdef TDSL_FAKE_CUDA_EMULATE
  if (tdsl::emu::isBitcode(image)) {
    std::string error;
    if ((*module = tdsl::emu::loadModule(image, error)))
      return kSuccess;
    for (unsigned i = 0; i < n; ++i)
      if (options[i] == 5) // CU_JIT_ERROR_LOG_BUFFER
        std::snprintf(static_cast<char *>(values[i]), 1024, "%s", error.c_str());
    return kInvalidPtx;
  }
#endif
  if (std::strncmp(static_cast<const char *>(image), "BAD", 3) != 0)
    return *module = &moduleTag, kSuccess;
  for (unsigned i = 0; i < n; ++i)
    if (options[i] == 5) // CU_JIT_ERROR_LOG_BUFFER
      std::strcpy(static_cast<char *>(values[i]),
                  "ptxas fatal   : Unexpected token 'BAD' at line 1");
  return kInvalidPtx;
}
FAKE cuModuleUnload(void *module) {
#ifdef TDSL_FAKE_CUDA_EMULATE
  if (module != &moduleTag)
    tdsl::emu::unloadModule(module);
#endif
  (void)module;
  return kSuccess;
}
FAKE cuModuleGetFunction(Function **f, void *module, const char *name) {
  if (!std::strcmp(name, "missing"))
    return kNotFound;
  void *emulated = nullptr;
#ifdef TDSL_FAKE_CUDA_EMULATE
  if (module != &moduleTag && !(emulated = tdsl::emu::getKernel(module, name)))
    return kNotFound;
#endif
  (void)module;
  *f = new Function;
  std::snprintf((*f)->name, sizeof (*f)->name, "%s", name);
  (*f)->emulated = emulated;
  return kSuccess;
}
#ifndef TDSL_FAKE_CUDA_NO_LAUNCH
FAKE cuLaunchKernel(Function *f, unsigned gx, unsigned gy, unsigned gz,
                    unsigned bx, unsigned by, unsigned bz, unsigned, void *,
                    void **params, void **) {
#ifdef TDSL_FAKE_CUDA_EMULATE
  if (f->emulated) {
    const unsigned grid[3] = {gx, gy, gz}, block[3] = {bx, by, bz};
    std::string error;
    if (tdsl::emu::launch(f->emulated, grid, block, params, error))
      return kSuccess;
    std::fprintf(stderr, "tdsl_emu_cuda: kernel '%s': %s\n", f->name, error.c_str());
    return kLaunchFailed;
  }
#endif
  (void)gx, (void)gy, (void)gz, (void)bx, (void)by, (void)bz, (void)params;
  if (!std::strcmp(f->name, "bad"))
    return kLaunchFailed;
  if (!std::strcmp(f->name, "fail_later")) {
    std::lock_guard<std::mutex> lock(mutex);
    stickyError = true;
  }
  return kSuccess;
}
#endif

FAKE cuStreamCreate(void **s, unsigned) { return *s = new int, kSuccess; }
FAKE cuStreamDestroy_v2(void *s) { return delete static_cast<int *>(s), 0; }
FAKE cuStreamSynchronize(void *) { return fakeSync(); }
FAKE cuStreamWaitEvent(void *, Event *, unsigned) { return kSuccess; }
FAKE cuEventCreate(Event **e, unsigned flags) {
  *e = new Event;
  (*e)->flags = flags;
  return kSuccess;
}
FAKE cuEventDestroy_v2(Event *e) { return delete e, kSuccess; }
FAKE cuEventRecord(Event *e, void *) { return e->recorded = true, kSuccess; }
FAKE cuEventSynchronize(Event *) { return fakeSync(); }
FAKE cuEventElapsedTime(float *ms, Event *start, Event *stop) {
  if (!start->recorded || !stop->recorded || (start->flags & 2) ||
      (stop->flags & 2))
    return kInvalidHandle;
  return *ms = 1.5f, kSuccess;
}

FAKE cuMemAllocManaged(CUdeviceptr *p, size_t bytes, unsigned) {
  if (bytes > (size_t(1) << 40))
    return kOutOfMemory;
  void *mem = std::malloc(bytes);
  if (!mem)
    return kOutOfMemory;
  *p = reinterpret_cast<CUdeviceptr>(mem);
  std::lock_guard<std::mutex> lock(mutex);
  allocations[*p] = bytes;
  return kSuccess;
}
FAKE cuMemAlloc_v2(CUdeviceptr *p, size_t bytes) {
  if (bytes == 0)
    return kInvalidValue;
  if (bytes > (size_t(1) << 40))
    return kOutOfMemory;
  int fd = memfd_create("fake-cuda", MFD_CLOEXEC);
  if (fd < 0 || ftruncate(fd, off_t(bytes)) != 0) {
    if (fd >= 0)
      close(fd);
    return kOutOfMemory;
  }
  void *mem = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (mem == MAP_FAILED) {
    close(fd);
    return kOutOfMemory;
  }
  *p = reinterpret_cast<CUdeviceptr>(mem);
  std::lock_guard<std::mutex> lock(mutex);
  allocations[*p] = bytes;
  sharedMappings[*p] = fd;
  return kSuccess;
}
FAKE cuMemFree_v2(CUdeviceptr p) {
  std::lock_guard<std::mutex> lock(mutex);
  auto it = allocations.find(p);
  if (it == allocations.end())
    return kInvalidValue;
  auto shared = sharedMappings.find(p);
  if (shared == sharedMappings.end()) {
    std::free(reinterpret_cast<void *>(p));
  } else {
    if (shared->second < 0) // an opened handle: cuIpcCloseMemHandle's
      return kInvalidValue;
    munmap(reinterpret_cast<void *>(p), it->second);
    close(shared->second);
    sharedMappings.erase(shared);
  }
  allocations.erase(it);
  return kSuccess;
}
FAKE cuIpcGetMemHandle(CUipcMemHandle *out, CUdeviceptr p) {
  std::lock_guard<std::mutex> lock(mutex);
  auto shared = sharedMappings.find(p);
  if (shared == sharedMappings.end() || shared->second < 0)
    return kInvalidValue;
  IpcHandle handle{int(getpid()), shared->second, allocations[p]};
  std::memset(out, 0, sizeof *out);
  std::memcpy(out->reserved, &handle, sizeof handle);
  return kSuccess;
}
FAKE cuIpcOpenMemHandle_v2(CUdeviceptr *p, CUipcMemHandle opaque, unsigned) {
  IpcHandle handle;
  std::memcpy(&handle, opaque.reserved, sizeof handle);
  if (handle.pid == int(getpid()))
    return 201; // CUDA_ERROR_INVALID_CONTEXT: not in the exporting process
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%d/fd/%d", handle.pid, handle.fd);
  int fd = open(path, O_RDWR | O_CLOEXEC);
  if (fd < 0)
    return kInvalidValue;
  void *mem =
      mmap(nullptr, handle.bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (mem == MAP_FAILED)
    return kInvalidValue;
  *p = reinterpret_cast<CUdeviceptr>(mem);
  std::lock_guard<std::mutex> lock(mutex);
  allocations[*p] = handle.bytes;
  sharedMappings[*p] = -1;
  return kSuccess;
}
FAKE cuIpcCloseMemHandle(CUdeviceptr p) {
  std::lock_guard<std::mutex> lock(mutex);
  auto shared = sharedMappings.find(p);
  if (shared == sharedMappings.end() || shared->second >= 0)
    return kInvalidValue;
  munmap(reinterpret_cast<void *>(p), allocations[p]);
  allocations.erase(p);
  sharedMappings.erase(shared);
  return kSuccess;
}
FAKE cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t n, void *) {
  std::memcpy(reinterpret_cast<void *>(dst), reinterpret_cast<void *>(src), n);
  return kSuccess;
}
FAKE cuMemsetD32Async(CUdeviceptr dst, unsigned v, size_t n, void *) {
  for (size_t i = 0; i < n; ++i)
    reinterpret_cast<unsigned *>(dst)[i] = v;
  return kSuccess;
}
FAKE cuMemsetD16Async(CUdeviceptr dst, unsigned short v, size_t n, void *) {
  for (size_t i = 0; i < n; ++i)
    reinterpret_cast<unsigned short *>(dst)[i] = v;
  return kSuccess;
}
FAKE cuPointerGetAttribute(void *data, int attribute, CUdeviceptr p) {
  if (attribute != 2 || !isAllocated(p)) // CU_POINTER_ATTRIBUTE_MEMORY_TYPE
    return kInvalidValue;
  *static_cast<int *>(data) = 2; // CU_MEMORYTYPE_DEVICE
  return kSuccess;
}
FAKE cuMemHostRegister_v2(void *, size_t, unsigned) { return kSuccess; }
struct Location {
  int type, id;
};
FAKE cuMemPrefetchAsync_v2(CUdeviceptr p, size_t bytes, Location to, unsigned,
                           void *) {
  // Managed memory is host memory here: only check the arguments.
  if (!isAllocated(p) || (bytes && !isAllocated(p + bytes - 1)) ||
      (to.type != 1 && to.type != 2))
    return kInvalidValue;
  return kSuccess;
}
FAKE cuMemHostUnregister(void *) { return kSuccess; }
