//===- DeviceKeeper.h - tdsl-repl's values in GPU memory --------*- C++ -*-===//
//
// A tdsl-repl session compiling for CUDA keeps the values its inputs bind in
// GPU memory owned by a long-lived process, the keeper, which the session
// forks before any CUDA call (CUDA does not survive a fork) and which runs
// no user code. Each input runs in a child of the session: it copies the
// values it reads out of the keeper's memory, and the values it binds into
// memory the keeper allocates, on the device through CUDA IPC handles. A
// crash of the child frees none of them, and nothing crosses to the host
// unless a CPU input or `:save` needs it (the session then asks the keeper).
//
// A device value is a file `<prefix><serial>-<name>.npy` in the session's
// store, the descriptor: the .npy header of the value, then "TDSLGPU1" and
// the 64-byte IPC handle of its memory instead of the data. The child's
// runtime reads and writes paths that start with $TDSL_REPL_DEVICE_STORE
// (the prefix, which the session sets) as device values.
//
//===----------------------------------------------------------------------===//
#ifndef TDSL_RUNTIME_LIB_CUDA_DEVICEKEEPER_H
#define TDSL_RUNTIME_LIB_CUDA_DEVICEKEEPER_H

#include "Internal.h"

#include <cstdint>

namespace tdsl::rt::cuda {

/// Whether `path` names a device value ($TDSL_REPL_DEVICE_STORE is set and
/// starts it).
bool isDeviceValue(const char *path);

/// tdsl_npy_shape of a device value: its sizes, checked against `dtype` and
/// `rank`.
Status deviceValueShape(const char *path, int32_t dtype, int64_t rank,
                        int64_t *sizes);
/// tdsl_npy_read of a device value into the managed buffer `out`: a copy on
/// the device, after which `out` is known to be there.
Status readDeviceValue(const char *path, int32_t dtype, int64_t rank,
                       const int64_t *sizes, void *out);
/// tdsl_npy_write of a device value: the keeper allocates its memory and
/// writes its descriptor, and `data` is copied there on the device.
Status writeDeviceValue(const char *path, int32_t dtype, int64_t rank,
                        const int64_t *sizes, void *data);

} // namespace tdsl::rt::cuda

#endif // TDSL_RUNTIME_LIB_CUDA_DEVICEKEEPER_H
