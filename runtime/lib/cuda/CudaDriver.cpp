//===- CudaDriver.cpp - libcuda through dlopen, errors, contexts ----------===//
#include "cuda/CudaDriver.h"
#include "Internal.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <vector>

#include <dlfcn.h>

using namespace tdsl::rt;
using namespace tdsl::rt::cuda;

namespace {
/// The outcome of loading the driver, computed once per process.
struct DriverState {
  bool ok = false;
  std::string reason; // why not ok
  CudaDriver api;
  int deviceCount = 0;
  std::mutex contextMutex;
  std::vector<CUcontext> contexts; // primary contexts by ordinal, retained
};

/// A driver error's name and text, or the number for codes it doesn't know.
std::string describe(const CudaDriver &api, CUresult result) {
  const char *name = nullptr, *text = nullptr;
  if (api.cuGetErrorName && api.cuGetErrorName(result, &name) != CUDA_SUCCESS)
    name = nullptr;
  if (api.cuGetErrorString &&
      api.cuGetErrorString(result, &text) != CUDA_SUCCESS)
    text = nullptr;
  std::string out = name ? name : format("CUDA error %d", result);
  if (text && *text)
    out += format(" (%s)", text);
  return out;
}

DriverState *load() {
  auto *s = new DriverState; // leaked: used until the process ends
  const char *env = std::getenv("TDSL_CUDA_LIBRARY");
  std::string path = env && *env ? env : "libcuda.so.1";
  void *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *why = dlerror();
    if (!why || std::strstr(why, "No such file"))
      s->reason = path + " not found (is the NVIDIA driver installed?)";
    else
      s->reason = format("cannot load %s: %s", path.c_str(), why);
    return s;
  }
  // Resolve the whole table; a missing function makes the driver unusable.
  auto resolve = [&](const char *symbol, const char *fallback) -> void * {
    void *fn = dlsym(handle, symbol);
    if (!fn && *fallback)
      fn = dlsym(handle, fallback);
    if (!fn && s->reason.empty())
      s->reason = format("%s has no function %s (the driver is too old or "
                         "not NVIDIA's)",
                         path.c_str(), symbol);
    return fn;
  };
#define TDSL_CUDA_SYMBOL(name, symbol, fallback, params)                       \
  s->api.name =                                                                \
      reinterpret_cast<decltype(s->api.name)>(resolve(symbol, fallback));
#include "cuda/CudaSymbols.def"
  if (!s->reason.empty())
    return s;
  s->api.cuMemPrefetchAsync = reinterpret_cast<decltype(s->api.cuMemPrefetchAsync)>(
      dlsym(handle, "cuMemPrefetchAsync_v2"));
  if (CUresult r = s->api.cuInit(0)) {
    s->reason = "cuInit failed: " + describe(s->api, r);
    return s;
  }
  if (CUresult r = s->api.cuDeviceGetCount(&s->deviceCount)) {
    s->reason = "cuDeviceGetCount failed: " + describe(s->api, r);
    return s;
  }
  if (s->deviceCount <= 0) {
    s->reason = "the driver found no CUDA device";
    return s;
  }
  s->contexts.assign(size_t(s->deviceCount), nullptr);
  s->ok = true;
  return s;
}

DriverState &state() {
  static DriverState *s = [] {
    DriverState *loaded = load();
    if (loaded->ok)
      onDriverLoaded();
    return loaded;
  }();
  return *s;
}

// Trivially destructible: read by exit hooks, after thread_local destructors.
// The position of the current GPU operation: "file:line:col" (profile rows,
// messages) and all of what tdsl_cuda_set_location got, which may go on with
// the source line and a caret (for errors).
thread_local char currentLocation[512];
thread_local char currentErrorWhere[4096];
thread_local bool hasLocation = false;
thread_local int currentDevice = 0;
thread_local CUcontext currentContext = nullptr;

std::atomic<bool> processExiting{false};
std::atomic<bool> processDying{false};
void markExiting() { setExiting(); }
[[maybe_unused]] const bool exitMarked = [] {
  // A backstop for the exit hooks registered before the driver's (the
  // profile report) and for the destructors that unload modules.
  std::atexit(markExiting);
  return true;
}();
} // namespace

StatusOr<const CudaDriver *> cuda::driver() {
  DriverState &s = state();
  if (!s.ok)
    return Status::errorAt(nullptr, "no CUDA GPU: " + s.reason);
  return &s.api;
}

bool cuda::driverAvailable(std::string *reason) {
  DriverState &s = state();
  if (!s.ok && reason)
    *reason = s.reason;
  return s.ok;
}

std::string cuda::errorText(CUresult result) {
  return describe(state().api, result);
}

Status cuda::callError(const char *call, CUresult result,
                       const std::string &detail, const std::string &note) {
  std::string message = format("CUDA call %s failed", call);
  if (!detail.empty())
    message += " " + detail;
  message += ": " + errorText(result);
  if (!note.empty())
    message += "\n" + note;
  return Status::error(message);
}

void cuda::exitOnError(const Status &status) {
  if (status.ok())
    return;
  // An error with its own location (no GPU, out of memory at a buffer of
  // the program) is not the current operation's: reported as the CPU's.
  if (status.hasWhere())
    fatal(status.where(), status.message());
  processDying = true;
  if (!exiting())
    fatal(errorLocation(), status.message());
  // exit() from an exit hook is undefined: report and leave at once.
  std::fflush(stdout);
  std::fprintf(stderr, "%s: error: %s\n", location() ? location() : "tdsl",
               status.message().c_str());
  std::fflush(stderr);
  std::_Exit(1);
}

bool cuda::dying() { return processDying; }

const char *cuda::location() { return hasLocation ? currentLocation : nullptr; }
const char *cuda::errorLocation() {
  return hasLocation ? currentErrorWhere : nullptr;
}

bool cuda::exiting() { return processExiting; }

void cuda::setExiting() { processExiting = true; }

void cuda::setDevice(int ordinal) { currentDevice = ordinal; }
int cuda::deviceOrdinal() { return currentDevice; }

Status cuda::enterContext() {
  TDSL_TRY(driver().status()); // no GPU
  DriverState &s = state();
  int ordinal = currentDevice;
  if (ordinal < 0 || ordinal >= s.deviceCount)
    return Status::error(format("no CUDA device %d (the driver found %d)",
                                ordinal, s.deviceCount));
  CUcontext context;
  {
    std::lock_guard<std::mutex> lock(s.contextMutex);
    CUcontext &slot = s.contexts[size_t(ordinal)];
    if (!slot) {
      CUdevice device;
      TDSL_CU_TRY(format("for device %d", ordinal), cuDeviceGet, &device,
                  ordinal);
      TDSL_CU_TRY(format("for device %d", ordinal), cuDevicePrimaryCtxRetain,
                  &slot, device);
    }
    context = slot;
  }
  if (context == currentContext)
    return Status();
  TDSL_CU_TRY(format("for device %d", ordinal), cuCtxSetCurrent, context);
  currentContext = context;
  return Status();
}

extern "C" {

int32_t tdsl_cuda_available(char *reason, int64_t len) {
  std::string why;
  bool ok = driverAvailable(&why);
  if (reason && len > 0)
    std::snprintf(reason, size_t(len), "%s", ok ? "" : why.c_str());
  return ok ? 1 : 0;
}

void tdsl_cuda_describe(char *out, int64_t len) {
  std::string text;
  std::string why;
  if (!driverAvailable(&why)) {
    text = "no CUDA GPU: " + why;
  } else {
    const CudaDriver &api = state().api; // loaded: driverAvailable
    int ordinal = currentDevice;
    CUdevice device = 0;
    char name[256] = "unknown device";
    int major = 0, minor = 0, sms = 0, version = 0;
    size_t bytes = 0;
    if (api.cuDeviceGet(&device, ordinal) != CUDA_SUCCESS) {
      text = format("no CUDA device %d", ordinal);
    } else {
      if (api.cuDeviceGetName(name, int(sizeof name), device) != CUDA_SUCCESS)
        std::snprintf(name, sizeof name, "unknown device");
      api.cuDeviceGetAttribute(
          &major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device);
      api.cuDeviceGetAttribute(
          &minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device);
      api.cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
                               device);
      api.cuDeviceTotalMem(&bytes, device);
      api.cuDriverGetVersion(&version);
      text = format("%s (sm_%d%d, %d SMs, %.1f GiB, CUDA driver %d.%d)", name,
                    major, minor, sms, double(bytes) / double(1ull << 30),
                    version / 1000, version % 1000 / 10);
    }
  }
  if (out && len > 0)
    std::snprintf(out, size_t(len), "%s", text.c_str());
}

void tdsl_cuda_set_location(const char *where) {
  hasLocation = where != nullptr;
  std::string text = where ? where : "";
  std::snprintf(currentErrorWhere, sizeof currentErrorWhere, "%s", text.c_str());
  std::snprintf(currentLocation, sizeof currentLocation, "%s",
                text.substr(0, text.find('\n')).c_str());
}

} // extern "C"
