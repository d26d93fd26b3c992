//===- CudaDriver.h - libcuda through dlopen, errors, contexts --*- C++ -*-===//
//
// The runtime never links libcuda: the first GPU call dlopens libcuda.so.1
// and resolves the functions of CudaSymbols.def. The CUDA types used are
// declared here (with cuda.h's layouts and values), so building needs no
// CUDA headers.
//
// A failing driver call makes the helper return an error Status (callError,
// TDSL_CU_TRY); the exported mgpu*/tdsl_* function that called it ends the
// program (exitOnError) with
//   `<where>: error: CUDA call <name> failed <detail>: <NAME> (<text>)`
// and status 1, `where` being the location of tdsl_cuda_set_location.
//
//===----------------------------------------------------------------------===//
#ifndef TDSL_RUNTIME_LIB_CUDADRIVER_H
#define TDSL_RUNTIME_LIB_CUDADRIVER_H

#include "Internal.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace tdsl::rt::cuda {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st *;
using CUmodule = struct CUmod_st *;
using CUfunction = struct CUfunc_st *;
using CUstream = struct CUstream_st *;
using CUevent = struct CUevent_st *;

/// The values of cuda.h's enumerators that the runtime passes or tests.
enum : int {
  CUDA_SUCCESS = 0,
  CUDA_ERROR_INVALID_VALUE = 1,
  CUDA_ERROR_OUT_OF_MEMORY = 2,
  CUDA_ERROR_DEINITIALIZED = 4,
  CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED = 712,
  CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED = 713,

  CU_STREAM_NON_BLOCKING = 0x1,
  CU_EVENT_DEFAULT = 0x0, ///< records timing
  CU_EVENT_DISABLE_TIMING = 0x2,
  CU_MEM_ATTACH_GLOBAL = 0x1,

  CU_JIT_ERROR_LOG_BUFFER = 5,
  CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
  CU_JIT_OPTIMIZATION_LEVEL = 7,

  CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
  CU_DEVICE_ATTRIBUTE_COMPUTE_MODE = 20,
  CU_COMPUTEMODE_EXCLUSIVE_PROCESS = 3,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
  CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS = 89,

  CU_POINTER_ATTRIBUTE_MEMORY_TYPE = 2,
  CU_MEMORYTYPE_HOST = 1,

  CU_MEM_LOCATION_TYPE_DEVICE = 1,
  CU_MEM_LOCATION_TYPE_HOST = 2,

  CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS = 0x1,
};

/// cuda.h's CUmemLocation.
struct CUmemLocation {
  int type;
  int id;
};

/// cuda.h's CUipcMemHandle: an allocation another process can open.
struct CUipcMemHandle {
  char reserved[64];
};

/// The driver's functions, one member per CudaSymbols.def entry.
struct CudaDriver {
#define TDSL_CUDA_SYMBOL(name, symbol, fallback, params)                       \
  CUresult(*name) params = nullptr;
#include "cuda/CudaSymbols.def"
  /// Optional (CUDA 12.2's cuMemPrefetchAsync_v2, CUDA 13's
  /// cuMemPrefetchAsync): null on older drivers, where managed memory then
  /// moves on demand only.
  CUresult (*cuMemPrefetchAsync)(CUdeviceptr ptr, size_t bytes,
                                 CUmemLocation location, unsigned flags,
                                 CUstream stream) = nullptr;
};

/// The loaded driver; on the first call loads libcuda (TDSL_CUDA_LIBRARY
/// overrides the name), resolves the table and runs cuInit. Without a usable
/// driver or device: the error `no CUDA GPU: <reason>`, reported at "tdsl".
StatusOr<const CudaDriver *> driver();

/// Whether driver() would succeed; sets `reason` when not. Never exits.
bool driverAvailable(std::string *reason);

/// "CUDA_ERROR_LAUNCH_FAILED (unspecified launch failure)" for `result`.
std::string errorText(CUresult result);

/// The error of a failed driver call (see the file comment). `detail` says
/// what was being done ("for kernel 'k'"), `note` follows the message on
/// its own lines (a JIT log).
Status callError(const char *call, CUresult result, const std::string &detail,
                 const std::string &note = {});

/// The ABI boundary of the CUDA layer: on error prints
/// `<where>: error: <message>` (where = errorLocation(), or the status's own
/// location) and exits 1, or _Exit(1) when the process is already exiting.
/// From then on the timing flushes do nothing, so exit hooks cannot fail
/// again or deadlock.
void exitOnError(const Status &status);

/// True once exitOnError has begun reporting a CUDA error.
bool dying();

/// The DSL location ("file:line:col") of the current GPU operation on this
/// thread (null when none was set).
const char *location();
/// The same, followed by the source line and a caret when the compiler gave
/// them: what errors print.
const char *errorLocation();

/// Makes the primary context of this thread's device (mgpuSetDefaultDevice,
/// 0 by default) current on this thread.
Status enterContext();
/// Sets the device enterContext uses on this thread.
void setDevice(int ordinal);
/// The device enterContext uses on this thread.
int deviceOrdinal();

/// True once the process has begun exiting: failures then end it with _Exit
/// and teardown errors (CUDA_ERROR_DEINITIALIZED) are ignored.
bool exiting();
/// Marks the process as exiting (the CUDA exit hook's first step).
void setExiting();

/// tdsl_cuda_to_device: the data of the runtime's managed buffer at `ptr` on
/// the device, for the launch at location() (other pointers: nothing).
Status toDevice(void *ptr);
/// tdsl_cuda_to_host: the data of the managed buffer at `ptr` on the host,
/// for an access at `where` (other pointers: nothing).
Status toHost(void *ptr, const char *where);
/// Whether `ptr` is a managed buffer of the runtime (mgpuMemAlloc's).
bool isManagedBuffer(void *ptr);
/// Records that the managed buffer at `ptr` holds its data on the device
/// (a driver copy wrote it there).
void setOnDevice(void *ptr);
/// A timed copy by the driver on the default stream (mgpuMemcpy's), waited
/// for.
Status copyAndWait(void *dst, const void *src, size_t bytes);

/// Called once after cuInit succeeds: registers the exit hook that resolves
/// pending timings (defined in CudaRuntime.cpp).
void onDriverLoaded();

} // namespace tdsl::rt::cuda

/// Calls driver()->fn(args...) and returns the error from the enclosing
/// function (returning Status or a StatusOr) when there is no driver or the
/// call fails; `detail` is an expression evaluated only on failure.
#define TDSL_CU_TRY(detail, fn, ...)                                           \
  do {                                                                         \
    tdsl::rt::StatusOr<const tdsl::rt::cuda::CudaDriver *> tdslCuApi_ =        \
        tdsl::rt::cuda::driver();                                              \
    TDSL_TRY(tdslCuApi_.status());                                             \
    tdsl::rt::cuda::CUresult tdslCuResult_ = (*tdslCuApi_)->fn(__VA_ARGS__);   \
    if (tdslCuResult_ != tdsl::rt::cuda::CUDA_SUCCESS)                         \
      return tdsl::rt::cuda::callError(#fn, tdslCuResult_, detail);            \
  } while (false)

#endif // TDSL_RUNTIME_LIB_CUDADRIVER_H
