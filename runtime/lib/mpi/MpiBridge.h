//===- MpiBridge.h - The functions of libtdsl_mpi.so ------------*- C++ -*-===//
//
// libtdsl_mpi.so is the only code built against mpi.h; the runtime loads it
// with dlopen when a program started by mpirun first uses a collective, and
// finds these functions with dlsym. No MPI type crosses this boundary, so
// the runtime (and the compiler) depend on no MPI ABI. Each function but
// abort returns 0, or writes a message into `err` (`len` bytes) and
// returns non-zero. A later NCCL bridge for GPU tensors would be a second
// library with the same table.
//
//===----------------------------------------------------------------------===//
#ifndef TDSL_RUNTIME_MPI_MPIBRIDGE_H
#define TDSL_RUNTIME_MPI_MPIBRIDGE_H

#include <cstddef>
#include <cstdint>

/// X(name, return type, parameters) per function.
#define TDSL_MPI_FUNCTIONS(X)                                                  \
  /* MPI_Init_thread (main thread only), then the world's size and rank. */   \
  X(tdsl_mpi_init, int, (int64_t * size, int64_t * rank, char *err,           \
                         size_t len))                                          \
  /* In-place all-reduce of `count` elements of a tdsl_dtype; op is a        \
     TDSL_REDUCE_* code. Counts above 2^31 go in pieces. */                   \
  X(tdsl_mpi_allreduce, int, (void *buf, int64_t count, int32_t dtype,        \
                              int32_t op, char *err, size_t len))              \
  /* Rank `root`'s `count` elements to every rank, in place. */               \
  X(tdsl_mpi_broadcast, int, (void *buf, int64_t count, int32_t dtype,        \
                              int64_t root, char *err, size_t len))            \
  /* MPI_Abort of the world; does not return. */                              \
  X(tdsl_mpi_abort, void, (int code))

#endif // TDSL_RUNTIME_MPI_MPIBRIDGE_H
