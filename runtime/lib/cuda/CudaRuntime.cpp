//===- CudaRuntime.cpp - MLIR's mgpu* ABI over the CUDA driver ------------===//
//
// `gpu-to-llvm` lowers gpu.launch_func, gpu.alloc, gpu.memcpy, ... into
// calls to the mgpu* functions of MLIR's CudaRuntimeWrappers.cpp; these are
// the same functions with the same signatures (LLVM 22), over the dlopen'd
// driver, with two differences: a failing call ends the program with a
// message naming the call, the kernel and the DSL location (upstream prints
// and continues), and every launch and host/device copy is timed with a pair
// of CUDA events into the profile (tdsl_kernel_record).
//
// The helpers return a Status; each exported function reports a failure and
// exits (exitOnError, or runInContext for those that start by entering the
// context).
//
// Timings are read back when their stream is synchronized (or destroyed), at
// tdsl_profile_report, at exit, and when more than kMaxPending are waiting.
//
//===----------------------------------------------------------------------===//
#include "cuda/CudaDriver.h"
#include "Internal.h"

#include <cstdlib>
#include <type_traits>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <vector>

using namespace tdsl::rt;
using namespace tdsl::rt::cuda;

namespace {
/// A timed launch or copy whose events may not have completed yet.
struct Pending {
  int32_t id;
  CUevent start, stop;
  CUstream stream;
  double flops, bytes;
  std::string what; // "kernel 'k' (launched at loc)", for errors
};

constexpr size_t kMaxPending = 4096;

struct Timing {
  std::mutex mutex;
  std::deque<Pending> pending; // in launch order
  std::vector<CUevent> freeEvents;
  std::map<CUfunction, std::string> kernelNames;
};

/// Leaked: exit hooks and module destructors may use it at any time.
Timing &timing() {
  static Timing *t = new Timing;
  return *t;
}

thread_local double workFlops = 0, workBytes = 0;

/// TDSL_CUDA_SYNC=1 synchronizes after every launch and copy, so that an
/// asynchronous failure is reported at the operation that caused it.
bool syncEachOperation() {
  static const bool sync = [] {
    const char *env = std::getenv("TDSL_CUDA_SYNC");
    return env && *env && std::strcmp(env, "0") != 0;
  }();
  return sync;
}

std::string quoted(const char *where) {
  return where ? std::string(" at ") + where : std::string();
}

/// A timing event (timing enabled) from the free list or the driver. Called
/// with the timing mutex held.
StatusOr<CUevent> takeEvent(Timing &t, const std::string &what) {
  if (!t.freeEvents.empty()) {
    CUevent e = t.freeEvents.back();
    t.freeEvents.pop_back();
    return e;
  }
  CUevent e = nullptr;
  TDSL_CU_TRY("creating a timing event for " + what, cuEventCreate, &e,
              CU_EVENT_DEFAULT);
  return e;
}

/// Waits for `p`'s events and adds its time to the profile. Called with the
/// timing mutex held.
Status resolve(Timing &t, const Pending &p) {
  TDSL_CU_TRY("after " + p.what, cuEventSynchronize, p.stop);
  float ms = 0;
  TDSL_CU_TRY("timing " + p.what, cuEventElapsedTime, &ms, p.start, p.stop);
  tdsl_kernel_record(p.id, double(ms), p.flops, p.bytes);
  t.freeEvents.push_back(p.start);
  t.freeEvents.push_back(p.stop);
  return Status();
}

/// Resolves the pending timings of `stream` (all of them when `all`); on a
/// failure the unresolved ones stay pending.
Status resolvePending(CUstream stream, bool all) {
  Timing &t = timing();
  std::lock_guard<std::mutex> lock(t.mutex);
  std::deque<Pending> keep;
  Status status;
  while (status.ok() && !t.pending.empty()) {
    Pending p = std::move(t.pending.front());
    t.pending.pop_front();
    if (all || p.stream == stream)
      status = resolve(t, p);
    else
      keep.push_back(std::move(p));
  }
  keep.insert(keep.end(), std::make_move_iterator(t.pending.begin()),
              std::make_move_iterator(t.pending.end()));
  t.pending.swap(keep);
  return status;
}

/// The most recent pending operation on `stream`, for a failed wait.
std::string lastOn(CUstream stream) {
  Timing &t = timing();
  std::lock_guard<std::mutex> lock(t.mutex);
  for (auto it = t.pending.rbegin(); it != t.pending.rend(); ++it)
    if (it->stream == stream)
      return "after " + it->what;
  return "";
}

Status synchronize(CUstream stream) {
  StatusOr<const CudaDriver *> api = driver();
  TDSL_TRY(api.status());
  CUresult r = (*api)->cuStreamSynchronize(stream);
  if (r != CUDA_SUCCESS)
    return callError("cuStreamSynchronize", r, lastOn(stream));
  return resolvePending(stream, /*all=*/false);
}

/// Two timing events, both or neither. Called with the timing mutex held.
Status takeEvents(Timing &t, const std::string &what, CUevent &start,
                  CUevent &stop) {
  StatusOr<CUevent> first = takeEvent(t, what);
  TDSL_TRY(first.status());
  StatusOr<CUevent> second = takeEvent(t, what);
  if (!second.ok())
    t.freeEvents.push_back(*first);
  TDSL_TRY(second.status());
  start = *first;
  stop = *second;
  return Status();
}

/// Times `body` (which enqueues one operation on `stream` and returns its
/// Status) as a call of profile entry `id`.
template <typename Body>
Status timed(int32_t id, CUstream stream, double flops, double bytes,
             const std::string &what, Body body) {
  Timing &t = timing();
  CUevent start, stop;
  {
    std::lock_guard<std::mutex> lock(t.mutex);
    TDSL_TRY(takeEvents(t, what, start, stop));
  }
  TDSL_CU_TRY("for " + what, cuEventRecord, start, stream);
  TDSL_TRY(body());
  TDSL_CU_TRY("for " + what, cuEventRecord, stop, stream);
  {
    std::lock_guard<std::mutex> lock(t.mutex);
    t.pending.push_back({id, start, stop, stream, flops, bytes, what});
    if (t.pending.size() > kMaxPending) {
      TDSL_TRY(resolve(t, t.pending.front()));
      t.pending.pop_front();
    }
  }
  if (syncEachOperation())
    return synchronize(stream);
  return Status();
}

/// The profile flush hook, at tdsl_profile_report and at exit: an exit
/// hook, so it reports its own failure.
void flushAll() {
  if (!dying()) // a failure is being reported: its exit must not wait here
    exitOnError(resolvePending(nullptr, /*all=*/true));
}

void flushAtExit() {
  // Runs before the driver's own exit hooks (registered after cuInit).
  setExiting();
  flushAll();
}

/// Makes the context current, runs `body` (a Status-returning lambda of
/// driver calls) and reports a failure of either: the frame of most mgpu*
/// functions, which are the ABI boundary.
template <typename Body> void runInContext(Body body) {
  Status status = enterContext();
  if (status.ok())
    status = body();
  exitOnError(status);
}

/// Whether `ptr` is device (or managed) memory; pageable host memory is not
/// known to the driver at all.
bool isDevice(const CudaDriver &api, const void *ptr) {
  int type = 0;
  CUresult r =
      api.cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                reinterpret_cast<CUdeviceptr>(ptr));
  return r == CUDA_SUCCESS && type != CU_MEMORYTYPE_HOST;
}

/// mgpuModuleLoad (optLevel < 0, a binary of `size` bytes) and
/// mgpuModuleLoadJIT (PTX, whose JIT log a failure prints).
StatusOr<CUmodule> loadModule(const void *data, int64_t size, int optLevel) {
  TDSL_TRY(enterContext());
  StatusOr<const CudaDriver *> api = driver();
  TDSL_TRY(api.status());
  char log[16384] = {};
  int options[3] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                    CU_JIT_OPTIMIZATION_LEVEL};
  void *values[3] = {log, reinterpret_cast<void *>(uintptr_t(sizeof log - 1)),
                     reinterpret_cast<void *>(uintptr_t(optLevel))};
  CUmodule module = nullptr;
  CUresult r = (*api)->cuModuleLoadDataEx(&module, data, optLevel >= 0 ? 3 : 2,
                                          options, values);
  if (r != CUDA_SUCCESS) {
    std::string detail =
        optLevel >= 0
            ? format("JIT-compiling the GPU module's PTX (optimization level "
                     "%d)",
                     optLevel)
            : format("loading the GPU module's binary (%lld bytes)",
                     (long long)size);
    std::string note;
    if (log[0])
      note = "note: the CUDA JIT said:\n" + std::string(log);
    return callError("cuModuleLoadDataEx", r, detail, note);
  }
  return module;
}

std::string kernelName(CUfunction function) {
  Timing &t = timing();
  std::lock_guard<std::mutex> lock(t.mutex);
  auto it = t.kernelNames.find(function);
  return it != t.kernelNames.end() ? it->second : "<unknown kernel>";
}

/// Where a managed buffer's data is (tdsl_cuda_to_device).
struct Managed {
  size_t bytes = 0;
  enum { Nowhere, Host, Device } at = Nowhere;
  std::string lastKernel; // location of the last launch that used it
};

struct Residency {
  std::mutex mutex;
  std::map<void *, Managed> buffers;
  /// The buffer allocated at `ptr`, or null (not the runtime's: ignored).
  Managed *find(void *ptr) {
    auto it = buffers.find(ptr);
    return it == buffers.end() ? nullptr : &it->second;
  }
};

/// Leaked, like timing(): frees may come from exit hooks.
Residency &residency() {
  static Residency *r = new Residency;
  return *r;
}

/// Whether the device can take prefetches of managed memory (Linux, Pascal
/// and later); otherwise the driver moves pages on demand.
bool canPrefetch(const CudaDriver &d) {
  static const bool can = [&] {
    CUdevice device = 0;
    int concurrent = 0;
    return d.cuMemPrefetchAsync &&
           d.cuDeviceGet(&device, deviceOrdinal()) == CUDA_SUCCESS &&
           d.cuDeviceGetAttribute(&concurrent,
                                  CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS,
                                  device) == CUDA_SUCCESS &&
           concurrent;
  }();
  return can;
}

/// The driver, with the context current, when prefetches are possible;
/// null when they are not (then data moves on demand).
StatusOr<const CudaDriver *> prefetcher() {
  TDSL_TRY(enterContext());
  StatusOr<const CudaDriver *> api = driver();
  if (api.ok() && !canPrefetch(**api))
    return static_cast<const CudaDriver *>(nullptr);
  return api;
}

/// Moves `m`'s data to the device or the host in one timed prefetch on the
/// default stream, and waits for it: launches and host accesses follow.
Status move(void *ptr, Managed &m, bool toDevice, const char *where) {
  StatusOr<const CudaDriver *> api = prefetcher();
  TDSL_TRY(api.status());
  if (!*api)
    return Status();
  CUmemLocation target{toDevice ? CU_MEM_LOCATION_TYPE_DEVICE
                                : CU_MEM_LOCATION_TYPE_HOST,
                       toDevice ? deviceOrdinal() : 0};
  const char *charged = toDevice ? location()
                        : m.lastKernel.empty() ? nullptr
                                               : m.lastKernel.c_str();
  int32_t id = tdsl_kernel_register_kind(
      "prefetch", charged, toDevice ? TDSL_KIND_H2D : TDSL_KIND_D2H);
  std::string what =
      format("moving %llu bytes of managed memory to the %s",
             (unsigned long long)m.bytes, toDevice ? "device" : "host");
  TDSL_TRY(timed(id, nullptr, 0, double(m.bytes), what + quoted(where), [&] {
    TDSL_CU_TRY(what, cuMemPrefetchAsync, reinterpret_cast<CUdeviceptr>(ptr),
                m.bytes, target, 0, nullptr);
    return Status();
  }));
  return synchronize(nullptr);
}

/// Creates the pages of a buffer no one has touched on the device, so that
/// its first kernel does not take page faults. Untimed: no data moves (like
/// an allocation, which is not in the profile either).
Status place(void *ptr, Managed &m) {
  StatusOr<const CudaDriver *> api = prefetcher();
  TDSL_TRY(api.status());
  if (!*api)
    return Status();
  CUmemLocation target{CU_MEM_LOCATION_TYPE_DEVICE, deviceOrdinal()};
  std::string what =
      format("placing %llu bytes of managed memory on the device",
             (unsigned long long)m.bytes);
  TDSL_CU_TRY(what, cuMemPrefetchAsync, reinterpret_cast<CUdeviceptr>(ptr),
              m.bytes, target, 0, nullptr);
  return synchronize(nullptr);
}

} // namespace

Status cuda::toDevice(void *ptr) {
  Residency &r = residency();
  std::lock_guard<std::mutex> lock(r.mutex);
  Managed *found = r.find(ptr);
  if (!found)
    return Status();
  Managed &m = *found;
  if (m.at == Managed::Host)
    TDSL_TRY(move(ptr, m, /*toDevice=*/true, location()));
  else if (m.at == Managed::Nowhere)
    TDSL_TRY(place(ptr, m));
  m.at = Managed::Device;
  const char *where = location();
  m.lastKernel = where ? where : "";
  return Status();
}

Status cuda::toHost(void *ptr, const char *where) {
  Residency &r = residency();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (Managed *m = r.find(ptr)) {
    if (m->at == Managed::Device)
      TDSL_TRY(move(ptr, *m, /*toDevice=*/false, where));
    m->at = Managed::Host;
  }
  return Status();
}

bool cuda::isManagedBuffer(void *ptr) {
  Residency &r = residency();
  std::lock_guard<std::mutex> lock(r.mutex);
  return r.find(ptr) != nullptr;
}

void cuda::setOnDevice(void *ptr) {
  Residency &r = residency();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (Managed *m = r.find(ptr)) {
    m->at = Managed::Device;
    const char *where = location();
    m->lastKernel = where ? where : "";
  }
}

namespace {

/// A launch size within CUDA's limits (`max`), else a located error.
Status checkDim(intptr_t v, intptr_t max, const char *what,
                const std::string &kernel) {
  if (v < 1 || v > max)
    return Status::error(
        format("invalid launch of kernel '%s': %s size %lld (CUDA allows 1 "
               "to %lld)",
               kernel.c_str(), what, (long long)v, (long long)max));
  return Status();
}

/// mgpuLaunchKernel's work once the context is current.
Status launch(CUfunction function, const intptr_t grid[3],
              const intptr_t block[3], int32_t smem, CUstream stream,
              void **params, void **extra) {
  std::string name = kernelName(function);
  const char *where = location();
  double flops = workFlops, bytes = workBytes;
  workFlops = workBytes = 0;
  // An empty grid (a tensor with a 0 extent) has nothing to do; the driver
  // would reject it.
  if (grid[0] == 0 || grid[1] == 0 || grid[2] == 0)
    return Status();
  TDSL_TRY(checkDim(grid[0], 0x7fffffff, "grid x", name));
  TDSL_TRY(checkDim(grid[1], 65535, "grid y", name));
  TDSL_TRY(checkDim(grid[2], 65535, "grid z", name));
  TDSL_TRY(checkDim(block[0], 1024, "block x", name));
  TDSL_TRY(checkDim(block[1], 1024, "block y", name));
  TDSL_TRY(checkDim(block[2], 64, "block z", name));
  unsigned gx = unsigned(grid[0]), gy = unsigned(grid[1]),
           gz = unsigned(grid[2]), bx = unsigned(block[0]),
           by = unsigned(block[1]), bz = unsigned(block[2]);
  int32_t id = tdsl_kernel_register_kind(name.c_str(), where, TDSL_KIND_KERNEL);
  std::string what = "kernel '" + name + "'";
  return timed(id, stream, flops, bytes, what + quoted(where), [&] {
    TDSL_CU_TRY(format("for %s (grid %ux%ux%u, block %ux%ux%u, %d bytes of "
                       "shared memory)",
                       what.c_str(), gx, gy, gz, bx, by, bz, smem),
                cuLaunchKernel, function, gx, gy, gz, bx, by, bz,
                unsigned(smem), stream, params, extra);
    return Status();
  });
}

/// mgpuMemAlloc's work once the context is current: out of memory at a
/// buffer of the program (`site`) is reported at its DSL line, like the
/// CPU's.
Status deviceAlloc(uint64_t sizeBytes, bool isHostShared, const char *site,
                   CUdeviceptr &ptr) {
  StatusOr<const CudaDriver *> api = driver();
  TDSL_TRY(api.status());
  CUresult r = isHostShared ? (*api)->cuMemAllocManaged(&ptr, size_t(sizeBytes),
                                                        CU_MEM_ATTACH_GLOBAL)
                            : (*api)->cuMemAlloc(&ptr, size_t(sizeBytes));
  if (r == CUDA_ERROR_OUT_OF_MEMORY && site)
    return Status::errorAt(
        site, format("out of GPU memory allocating %llu bytes (%s)",
                     (unsigned long long)sizeBytes, errorText(r).c_str()));
  if (r != CUDA_SUCCESS)
    return callError(isHostShared ? "cuMemAllocManaged" : "cuMemAlloc", r,
                     format("allocating %llu bytes of %s memory",
                            (unsigned long long)sizeBytes,
                            isHostShared ? "managed" : "device"));
  if (isHostShared) {
    Residency &res = residency();
    std::lock_guard<std::mutex> lock(res.mutex);
    res.buffers[reinterpret_cast<void *>(ptr)].bytes = size_t(sizeBytes);
  }
  return Status();
}

/// mgpuMemcpy's work once the context is current: timed when the device is
/// on either side.
Status copy(void *dst, void *src, size_t sizeBytes, CUstream stream) {
  StatusOr<const CudaDriver *> api = driver();
  TDSL_TRY(api.status());
  bool fromDevice = isDevice(**api, src), toDevice = isDevice(**api, dst);
  auto enqueue = [&] {
    TDSL_CU_TRY(format("copying %llu bytes %s", (unsigned long long)sizeBytes,
                       fromDevice
                           ? (toDevice ? "device-to-device" : "device-to-host")
                           : (toDevice ? "host-to-device" : "host-to-host")),
                cuMemcpyAsync, reinterpret_cast<CUdeviceptr>(dst),
                reinterpret_cast<CUdeviceptr>(src), sizeBytes, stream);
    return Status();
  };
  if (!fromDevice && !toDevice) // not GPU work: no profile row
    return enqueue();
  int32_t kind = !fromDevice ? TDSL_KIND_H2D
                 : toDevice  ? TDSL_KIND_D2D
                             : TDSL_KIND_D2H;
  const char *where = location();
  int32_t id = tdsl_kernel_register_kind("memcpy", where, kind);
  std::string what =
      format("copy of %llu bytes", (unsigned long long)sizeBytes);
  return timed(id, stream, 0, double(sizeBytes), what + quoted(where), enqueue);
}
} // namespace

Status cuda::copyAndWait(void *dst, const void *src, size_t bytes) {
  TDSL_TRY(enterContext());
  TDSL_TRY(copy(dst, const_cast<void *>(src), bytes, nullptr));
  return synchronize(nullptr);
}

void cuda::onDriverLoaded() {
  std::atexit(flushAtExit);
  setProfileFlushHook(flushAll);
}

extern "C" {

TDSL_RUNTIME_EXPORT void tdsl_cuda_set_work(double flops, double bytes) {
  workFlops = flops;
  workBytes = bytes;
}

TDSL_RUNTIME_EXPORT void tdsl_cuda_to_device(void *ptr) {
  exitOnError(toDevice(ptr));
}

TDSL_RUNTIME_EXPORT void tdsl_cuda_to_host(void *ptr, const char *where) {
  exitOnError(toHost(ptr, where));
}

TDSL_RUNTIME_EXPORT void tdsl_cuda_copy(void *dst, void *src, int64_t bytes) {
  if (bytes <= 0)
    return;
  bool onDevice;
  {
    Residency &r = residency();
    std::lock_guard<std::mutex> lock(r.mutex);
    Managed *m = r.find(src);
    onDevice = m && m->at == Managed::Device;
  }
  Status status;
  if (onDevice) {
    status = toDevice(dst);
    if (status.ok())
      status = copyAndWait(dst, src, size_t(bytes));
  } else {
    status = toHost(src, location());
    if (status.ok())
      status = toHost(dst, location());
    if (status.ok())
      std::memcpy(dst, src, size_t(bytes));
  }
  exitOnError(status);
}

//===------------------- MLIR's CudaRuntimeWrappers ABI -------------------===//

TDSL_RUNTIME_EXPORT CUmodule mgpuModuleLoad(void *data, size_t gpuBlobSize) {
  StatusOr<CUmodule> module = loadModule(data, int64_t(gpuBlobSize), -1);
  exitOnError(module.status());
  return *module;
}

TDSL_RUNTIME_EXPORT CUmodule mgpuModuleLoadJIT(void *data, int optLevel) {
  StatusOr<CUmodule> module = loadModule(data, -1, optLevel < 0 ? 0 : optLevel);
  exitOnError(module.status());
  return *module;
}

TDSL_RUNTIME_EXPORT void mgpuModuleUnload(CUmodule module) {
  // Modules unload from a static destructor, which also runs when the load
  // failed (module null) and possibly after the driver's own teardown:
  // errors there are moot.
  if (!module || dying() || !driverAvailable(nullptr))
    return;
  CUresult r = (**driver()).cuModuleUnload(module); // available: checked
  if (r != CUDA_SUCCESS && !exiting() && r != CUDA_ERROR_DEINITIALIZED)
    exitOnError(callError("cuModuleUnload", r, ""));
}

TDSL_RUNTIME_EXPORT CUfunction mgpuModuleGetFunction(CUmodule module,
                                                     const char *name) {
  CUfunction function = nullptr;
  runInContext([&] {
    TDSL_CU_TRY(format("looking up kernel '%s' in its GPU module", name),
                cuModuleGetFunction, &function, module, name);
    return Status();
  });
  Timing &t = timing();
  std::lock_guard<std::mutex> lock(t.mutex);
  t.kernelNames[function] = name;
  return function;
}

TDSL_RUNTIME_EXPORT void
mgpuLaunchKernel(CUfunction function, intptr_t gridX, intptr_t gridY,
                 intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                 intptr_t blockZ, int32_t smem, CUstream stream, void **params,
                 void **extra, size_t /*paramsCount*/) {
  const intptr_t grid[3] = {gridX, gridY, gridZ};
  const intptr_t block[3] = {blockX, blockY, blockZ};
  runInContext([&] {
    return launch(function, grid, block, smem, stream, params, extra);
  });
}

TDSL_RUNTIME_EXPORT CUstream mgpuStreamCreate() {
  CUstream stream = nullptr;
  runInContext([&] {
    TDSL_CU_TRY("", cuStreamCreate, &stream, CU_STREAM_NON_BLOCKING);
    return Status();
  });
  return stream;
}

TDSL_RUNTIME_EXPORT void mgpuStreamDestroy(CUstream stream) {
  // Its timings, and errors, are still to be read.
  runInContext([&] {
    TDSL_TRY(synchronize(stream));
    TDSL_CU_TRY("", cuStreamDestroy, stream);
    return Status();
  });
}

TDSL_RUNTIME_EXPORT void mgpuStreamSynchronize(CUstream stream) {
  runInContext([&] { return synchronize(stream); });
}

TDSL_RUNTIME_EXPORT void mgpuStreamWaitEvent(CUstream stream, CUevent event) {
  runInContext([&] {
    TDSL_CU_TRY("", cuStreamWaitEvent, stream, event, 0);
    return Status();
  });
}

TDSL_RUNTIME_EXPORT CUevent mgpuEventCreate() {
  // For ordering between streams only, like upstream's; the timing events
  // of launches and copies are separate and record timing.
  CUevent event = nullptr;
  runInContext([&] {
    TDSL_CU_TRY("", cuEventCreate, &event, CU_EVENT_DISABLE_TIMING);
    return Status();
  });
  return event;
}

TDSL_RUNTIME_EXPORT void mgpuEventDestroy(CUevent event) {
  runInContext([&] {
    TDSL_CU_TRY("", cuEventDestroy, event);
    return Status();
  });
}

TDSL_RUNTIME_EXPORT void mgpuEventSynchronize(CUevent event) {
  runInContext([&] {
    TDSL_CU_TRY("", cuEventSynchronize, event);
    return Status();
  });
}

TDSL_RUNTIME_EXPORT void mgpuEventRecord(CUevent event, CUstream stream) {
  runInContext([&] {
    TDSL_CU_TRY("", cuEventRecord, event, stream);
    return Status();
  });
}

TDSL_RUNTIME_EXPORT void *mgpuMemAlloc(uint64_t sizeBytes, CUstream /*stream*/,
                                       bool isHostShared) {
  const char *site = takeAllocSite();
  CUdeviceptr ptr = 0;
  runInContext([&] {
    if (sizeBytes == 0)
      return Status();
    return deviceAlloc(sizeBytes, isHostShared, site, ptr);
  });
  return reinterpret_cast<void *>(ptr);
}

TDSL_RUNTIME_EXPORT void mgpuMemFree(void *ptr, CUstream /*stream*/) {
  if (!ptr)
    return;
  {
    Residency &r = residency();
    std::lock_guard<std::mutex> lock(r.mutex);
    r.buffers.erase(ptr);
  }
  runInContext([&] {
    TDSL_CU_TRY("", cuMemFree, reinterpret_cast<CUdeviceptr>(ptr));
    return Status();
  });
}

TDSL_RUNTIME_EXPORT void mgpuMemcpy(void *dst, void *src, size_t sizeBytes,
                                    CUstream stream) {
  if (sizeBytes == 0)
    return;
  runInContext([&] { return copy(dst, src, sizeBytes, stream); });
}

TDSL_RUNTIME_EXPORT void mgpuMemset32(void *dst, unsigned int value,
                                      size_t count, CUstream stream) {
  runInContext([&] {
    TDSL_CU_TRY(format("setting %llu 32-bit words", (unsigned long long)count),
                cuMemsetD32Async, reinterpret_cast<CUdeviceptr>(dst), value,
                count, stream);
    return Status();
  });
}

TDSL_RUNTIME_EXPORT void mgpuMemset16(void *dst, unsigned short value,
                                      size_t count, CUstream stream) {
  runInContext([&] {
    TDSL_CU_TRY(format("setting %llu 16-bit words", (unsigned long long)count),
                cuMemsetD16Async, reinterpret_cast<CUdeviceptr>(dst), value,
                count, stream);
    return Status();
  });
}

TDSL_RUNTIME_EXPORT void mgpuMemHostRegister(void *ptr, uint64_t sizeBytes) {
  if (!ptr || sizeBytes == 0)
    return;
  runInContext([&] { // the context is current: the driver is loaded
    CUresult r = (**driver()).cuMemHostRegister(ptr, size_t(sizeBytes), 0);
    if (r != CUDA_SUCCESS && r != CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED)
      return callError("cuMemHostRegister", r,
                       format("pinning %llu bytes of host memory",
                              (unsigned long long)sizeBytes));
    return Status();
  });
}

TDSL_RUNTIME_EXPORT void mgpuMemHostUnregister(void *ptr) {
  if (!ptr)
    return;
  runInContext([&] { // the context is current: the driver is loaded
    CUresult r = (**driver()).cuMemHostUnregister(ptr);
    if (r != CUDA_SUCCESS && r != CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED)
      return callError("cuMemHostUnregister", r, "");
    return Status();
  });
}

/// Registers the bytes a memref's elements span (any strides >= 0), so that
/// kernels may access them through the host pointer.
TDSL_RUNTIME_EXPORT void mgpuMemHostRegisterMemRef(int64_t rank,
                                                   void *descriptor,
                                                   int64_t elementSizeBytes) {
  MemRefView view(descriptor, rank, elementSizeBytes);
  if (view.numElements() == 0)
    return;
  int64_t last = 0; // linear offset of the last element
  for (int64_t d = 0; d < rank; ++d)
    last += (view.sizes[d] - 1) * view.strides[d];
  mgpuMemHostRegister(view.data + view.offset * elementSizeBytes,
                      uint64_t((last + 1) * elementSizeBytes));
}

TDSL_RUNTIME_EXPORT void mgpuMemHostUnregisterMemRef(int64_t rank,
                                                     void *descriptor,
                                                     int64_t elementSizeBytes) {
  MemRefView view(descriptor, rank, elementSizeBytes);
  if (view.numElements() == 0)
    return;
  mgpuMemHostUnregister(view.data + view.offset * elementSizeBytes);
}

TDSL_RUNTIME_EXPORT void mgpuSetDefaultDevice(int32_t device) {
  setDevice(device);
}

} // extern "C"

// The mgpu functions the compiler's own passes call have the signatures it
// declares them with (tdsl/RuntimeABI.def; the stream is CUstream here).
using tdsl_cu_stream = CUstream;
#define TDSL_RUNTIME_FUNCTION(Name, Ret, Params)
#define TDSL_MGPU_FUNCTION(Name, Ret, Params)                                  \
  static_assert(std::is_same_v<decltype(&Name), Ret(*) Params>,                \
                #Name " differs from tdsl/RuntimeABI.def");
#include "tdsl/RuntimeABI.def"
