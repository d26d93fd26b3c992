/*===- DeviceKeeper.h - The keeper of tdsl-repl's GPU values, a C API ----===*\
|*                                                                            *|
|* tdsl-repl (compiler/Repl/ValueStore.cpp) finds these in libtdsl_runtime    *|
|* with dlsym: the session never links the runtime. See                       *|
|* runtime/lib/cuda/DeviceKeeper.h for the design.                            *|
|*                                                                            *|
|* Requests are one line of tab-separated fields; the reply is "ok" or an     *|
|* error message:                                                             *|
|*   ping                              ok when the driver is up and exports   *|
|*                                     memory (CUDA IPC)                      *|
|*   alloc DESC DTYPE RANK SIZES...    memory for a value, and its descriptor *|
|*   upload NPY DESC                   a .npy file's array to the device      *|
|*   download DESC NPY                 a device value to a .npy file          *|
|*   free PREFIX                       frees the values whose descriptors'    *|
|*                                     paths start with PREFIX                *|
\*===----------------------------------------------------------------------===*/
#ifndef TDSL_DEVICEKEEPER_H
#define TDSL_DEVICEKEEPER_H

#include "tdsl/Runtime.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// A listening socket for the keeper of device values whose descriptors
/// start with `prefix` (the value of $TDSL_REPL_DEVICE_STORE in its
/// clients); -1 with errno set on failure. Called by the session before it
/// forks the keeper, so that no client can come before the keeper listens.
TDSL_RUNTIME_EXPORT int tdsl_keeper_listen(const char *prefix);

/// The keeper's loop, in the forked process: answers requests on
/// `listenFd` until `lifelineFd` (the read end of a pipe the session holds
/// open) reaches its end, then exits, freeing its GPU memory. Answers only
/// clients of its own user, about files of the store that `prefix` is in.
/// Never returns.
TDSL_RUNTIME_EXPORT void tdsl_keeper_serve(const char *prefix, int listenFd,
                                           int lifelineFd);

/// Sends one request to the keeper of `prefix`; 0 when it answered "ok",
/// else -1 with the error in `reply` (`replySize` bytes, NUL-terminated).
TDSL_RUNTIME_EXPORT int tdsl_keeper_request(const char *prefix,
                                            const char *request, char *reply,
                                            size_t replySize);

#ifdef __cplusplus
}
#endif

#endif /* TDSL_DEVICEKEEPER_H */
