//===- Mpi.cpp - libtdsl_mpi.so: the runtime's collectives on MPI ---------===//
//
// Built against the installed mpi.h and linked with its libmpi; loaded by
// the runtime (Collectives.cpp) only in programs started by mpirun. Only
// the main thread calls MPI (MPI_THREAD_FUNNELED).
//
//===----------------------------------------------------------------------===//
#include "mpi/MpiBridge.h"
#include "tdsl/Runtime.h"

#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>

#define TDSL_MPI_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

/// A 2-byte element for f16 and bf16, which MPI has no type for, with
/// reductions of our own (through f32, rounded back to nearest even).
MPI_Datatype halfType = MPI_DATATYPE_NULL;
MPI_Op halfOps[2][3]; // [bf16][TDSL_REDUCE_*]

float halfToFloat(uint16_t h, bool bf) {
  return bf ? tdsl_bf16_to_f32(h) : tdsl_f16_to_f32(h);
}

uint16_t floatToHalf(float f, bool bf) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  if (bf) {
    if ((x & 0x7fffffff) > 0x7f800000)
      return uint16_t((x >> 16) | 0x40); // quiet NaN
    return uint16_t((x + 0x7fff + ((x >> 16) & 1)) >> 16);
  }
  uint32_t sign = (x >> 16) & 0x8000;
  int32_t exp = int32_t((x >> 23) & 0xff) - 127 + 15;
  uint32_t mant = x & 0x7fffff;
  if (((x >> 23) & 0xff) == 0xff)
    return uint16_t(sign | 0x7c00 | (mant ? 0x200 : 0));
  if (exp >= 31)
    return uint16_t(sign | 0x7c00);
  if (exp <= 0) {
    if (exp < -10)
      return uint16_t(sign);
    mant |= 0x800000;
    uint32_t shift = uint32_t(14 - exp);
    uint32_t half = mant >> shift, rest = mant & ((1u << shift) - 1),
             mid = 1u << (shift - 1);
    if (rest > mid || (rest == mid && (half & 1)))
      ++half;
    return uint16_t(sign | half);
  }
  uint32_t half = sign | uint32_t(exp) << 10 | (mant >> 13);
  uint32_t rest = mant & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (half & 1)))
    ++half; // may carry into the exponent: still right
  return uint16_t(half);
}

template <bool BF, int Op>
void reduceHalf(void *in, void *inout, int *len, MPI_Datatype *) {
  auto *a = static_cast<const uint16_t *>(in);
  auto *b = static_cast<uint16_t *>(inout);
  for (int i = 0; i < *len; ++i) {
    float x = halfToFloat(a[i], BF), y = halfToFloat(b[i], BF);
    float r = Op == TDSL_REDUCE_SUM || x != x || y != y ? x + y
              : Op == TDSL_REDUCE_MAX ? std::max(x, y)
                                      : std::min(x, y);
    b[i] = floatToHalf(r, BF);
  }
}

/// max and min of f32 and f64 that keep NaN (MPI_MAX and MPI_MIN may
/// drop it, depending on the rank that holds it), as TDSL's max and min do.
template <typename T, int Op>
void reduceFloat(void *in, void *inout, int *len, MPI_Datatype *) {
  auto *a = static_cast<const T *>(in);
  auto *b = static_cast<T *>(inout);
  for (int i = 0; i < *len; ++i) {
    T x = a[i], y = b[i];
    b[i] = x != x || y != y ? x + y
           : Op == TDSL_REDUCE_MAX ? std::max(x, y)
                                   : std::min(x, y);
  }
}
MPI_Op floatOps[2][2]; // [f64][max, min]

int fail(char *err, size_t len, const char *what, int code) {
  char text[MPI_MAX_ERROR_STRING] = "";
  int n = 0;
  MPI_Error_string(code, text, &n);
  std::snprintf(err, len, "%s failed: %s", what, text);
  return 1;
}

/// The MPI type and operator of a dtype and TDSL_REDUCE_* code.
bool typeOf(int32_t dtype, int32_t op, MPI_Datatype &type, MPI_Op &mop,
            size_t &size) {
  MPI_Op numeric[3] = {MPI_SUM, MPI_MAX, MPI_MIN};
  mop = op >= 0 && op < 3 ? numeric[op] : MPI_OP_NULL;
  switch (dtype) {
  case TDSL_F16:
  case TDSL_BF16:
    type = halfType;
    size = 2;
    if (op >= 0 && op < 3)
      mop = halfOps[dtype == TDSL_BF16][op];
    return true;
  case TDSL_F32:
  case TDSL_F64:
    type = dtype == TDSL_F64 ? MPI_DOUBLE : MPI_FLOAT;
    size = dtype == TDSL_F64 ? 8 : 4;
    if (op == TDSL_REDUCE_MAX || op == TDSL_REDUCE_MIN)
      mop = floatOps[dtype == TDSL_F64][op == TDSL_REDUCE_MIN];
    return true;
  case TDSL_I1: // a sum or max of truth values is "any", a min "all"
    type = MPI_C_BOOL;
    size = 1;
    mop = op == TDSL_REDUCE_MIN ? MPI_LAND : MPI_LOR;
    return true;
  case TDSL_I32:
    type = MPI_INT32_T;
    size = 4;
    return true;
  case TDSL_I64:
    type = MPI_INT64_T;
    size = 8;
    return true;
  case TDSL_U64:
    type = MPI_UINT64_T;
    size = 8;
    return true;
  default:
    return false;
  }
}

/// MPI counts are ints: larger buffers go in pieces of 2^30 elements
/// ($TDSL_MPI_PIECE elements instead, so that tests cover the pieces).
int64_t pieceSize() {
  static const int64_t piece = [] {
    const char *env = std::getenv("TDSL_MPI_PIECE");
    long long n = env ? std::atoll(env) : 0;
    return n > 0 && n <= (1LL << 30) ? int64_t(n) : int64_t(1) << 30;
  }();
  return piece;
}

/// Runs `call(pointer, count)` on `buf` in pieces of at most pieceSize()
/// elements of `size` bytes.
template <typename Call>
int inPieces(void *buf, int64_t count, size_t size, char *err, size_t len,
             const char *what, Call call) {
  for (int64_t done = 0, piece = pieceSize(); done < count; done += piece)
    if (int rc = call(static_cast<char *>(buf) + done * int64_t(size),
                      int(std::min(count - done, piece))))
      return fail(err, len, what, rc);
  return 0;
}

void finalize() {
  int done = 0;
  MPI_Finalized(&done);
  if (!done)
    MPI_Finalize();
}

} // namespace

TDSL_MPI_EXPORT int tdsl_mpi_init(int64_t *size, int64_t *rank, char *err,
                                  size_t len) {
  // A host program may have started MPI already: then it also ends it.
  int started = 0;
  MPI_Initialized(&started);
  int provided = 0;
  if (!started) {
    if (int rc = MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided))
      return fail(err, len, "MPI_Init_thread", rc);
    std::atexit(finalize);
  }
  // Errors come back as codes, reported by the runtime with the DSL place.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int s = 1, r = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &s);
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  *size = s;
  *rank = r;
  MPI_Type_contiguous(2, MPI_BYTE, &halfType);
  MPI_Type_commit(&halfType);
  MPI_Op_create(&reduceHalf<false, TDSL_REDUCE_SUM>, 1, &halfOps[0][0]);
  MPI_Op_create(&reduceHalf<false, TDSL_REDUCE_MAX>, 1, &halfOps[0][1]);
  MPI_Op_create(&reduceHalf<false, TDSL_REDUCE_MIN>, 1, &halfOps[0][2]);
  MPI_Op_create(&reduceHalf<true, TDSL_REDUCE_SUM>, 1, &halfOps[1][0]);
  MPI_Op_create(&reduceHalf<true, TDSL_REDUCE_MAX>, 1, &halfOps[1][1]);
  MPI_Op_create(&reduceHalf<true, TDSL_REDUCE_MIN>, 1, &halfOps[1][2]);
  MPI_Op_create(&reduceFloat<float, TDSL_REDUCE_MAX>, 1, &floatOps[0][0]);
  MPI_Op_create(&reduceFloat<float, TDSL_REDUCE_MIN>, 1, &floatOps[0][1]);
  MPI_Op_create(&reduceFloat<double, TDSL_REDUCE_MAX>, 1, &floatOps[1][0]);
  MPI_Op_create(&reduceFloat<double, TDSL_REDUCE_MIN>, 1, &floatOps[1][1]);
  return 0;
}

TDSL_MPI_EXPORT int tdsl_mpi_allreduce(void *buf, int64_t count, int32_t dtype,
                                       int32_t op, char *err, size_t len) {
  MPI_Datatype type;
  MPI_Op mop;
  size_t size = 0;
  if (!typeOf(dtype, op, type, mop, size) || mop == MPI_OP_NULL) {
    std::snprintf(err, len, "no MPI reduction for dtype %d, operator %d",
                  dtype, op);
    return 1;
  }
  return inPieces(buf, count, size, err, len, "MPI_Allreduce",
                  [&](char *p, int n) {
                    return MPI_Allreduce(MPI_IN_PLACE, p, n, type, mop,
                                         MPI_COMM_WORLD);
                  });
}

TDSL_MPI_EXPORT int tdsl_mpi_broadcast(void *buf, int64_t count, int32_t dtype,
                                       int64_t root, char *err, size_t len) {
  MPI_Datatype type;
  MPI_Op mop;
  size_t size = 0;
  if (!typeOf(dtype, TDSL_REDUCE_SUM, type, mop, size)) {
    std::snprintf(err, len, "no MPI type for dtype %d", dtype);
    return 1;
  }
  return inPieces(buf, count, size, err, len, "MPI_Bcast", [&](char *p, int n) {
    return MPI_Bcast(p, n, type, int(root), MPI_COMM_WORLD);
  });
}

TDSL_MPI_EXPORT void tdsl_mpi_abort(int code) {
  // An error after MPI_Finalize (in an exit handler) ends this process only.
  int done = 0;
  MPI_Finalized(&done);
  if (!done)
    MPI_Abort(MPI_COMM_WORLD, code);
  std::_Exit(code);
}

// The signatures above are the table's.
#define TDSL_CHECK_SIGNATURE(name, ret, params)                                \
  static_assert(std::is_same_v<decltype(&name), ret(*) params>,                \
                #name " differs from MpiBridge.h");
TDSL_MPI_FUNCTIONS(TDSL_CHECK_SIGNATURE)
