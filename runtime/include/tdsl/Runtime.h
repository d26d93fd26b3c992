/*===- Runtime.h - C ABI of the TDSL runtime library -----------------------===*/
/*
 * Compiled TDSL programs call these functions. The library links no
 * LLVM/MLIR, exports only what this header declares, and uses int64_t for
 * every size.
 *
 * Memrefs are passed as a pointer to MLIR's strided memref descriptor
 * (StridedMemRefType in mlir/ExecutionEngine/CRunnerUtils.h):
 *
 *   struct { T *allocated; T *aligned; int64_t offset;
 *            int64_t sizes[rank]; int64_t strides[rank]; }
 *
 * Element (i0, ..., in) lives at aligned[offset + sum(ik * strides[k])];
 * strides count elements, not bytes. TDSL_MEMREF(T, rank) declares such a
 * struct for C callers; rank 0 has no sizes/strides (use TDSL_MEMREF0).
 *
 * Errors are the user's (bad file, shape mismatch): the runtime prints
 * `<where>: error: <message>` to stderr and exits with status 1, where
 * `where` is a DSL location such as "prog.tdsl:12:5" ("tdsl" when null).
 */
#ifndef TDSL_RUNTIME_H
#define TDSL_RUNTIME_H

#include <stdint.h>

#if defined(_WIN32)
#define TDSL_RUNTIME_EXPORT __declspec(dllexport)
#else
#define TDSL_RUNTIME_EXPORT __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** Declares a memref descriptor struct type of element T and rank R >= 1. */
#define TDSL_MEMREF(T, R)                                                      \
  struct {                                                                     \
    T *allocated;                                                              \
    T *aligned;                                                                \
    int64_t offset;                                                            \
    int64_t sizes[R];                                                          \
    int64_t strides[R];                                                        \
  }
/** Declares a rank-0 memref descriptor struct type of element T. */
#define TDSL_MEMREF0(T)                                                        \
  struct {                                                                     \
    T *allocated;                                                              \
    T *aligned;                                                                \
    int64_t offset;                                                            \
  }

/** Element type codes. I1 is stored as one byte (0 or 1); F16 and BF16 as
 *  their uint16_t bit patterns. */
typedef enum tdsl_dtype {
  TDSL_F16 = 0,
  TDSL_BF16 = 1,
  TDSL_F32 = 2,
  TDSL_F64 = 3,
  TDSL_I1 = 4,
  TDSL_I32 = 5,
  TDSL_I64 = 6,
  TDSL_U64 = 7,
} tdsl_dtype;

/** Bytes per element of `dtype`, or 0 for an unknown code. */
TDSL_RUNTIME_EXPORT int64_t tdsl_dtype_size(int32_t dtype);

/*===-------------------------- Errors and memory ---------------------------===*/

/** Prints `<where>: error: <message>` to stderr and exits with status 1. */
TDSL_RUNTIME_EXPORT void tdsl_fatal(const char *where, const char *message);

/** Allocates `bytes` (>= 0) aligned to 64 bytes. Never returns null: on
 *  failure prints `<where>: error: out of memory allocating N bytes` (where
 *  from tdsl_alloc_site, else `tdsl`) and exits 1.
 *  A zero-byte request returns a distinct, freeable pointer. */
TDSL_RUNTIME_EXPORT void *tdsl_alloc(int64_t bytes);

/** Names the DSL position (`file:line:col`) of the next allocation on this
 *  thread, for its out-of-memory error. The next allocation consumes it. */
TDSL_RUNTIME_EXPORT void tdsl_alloc_site(const char *where);

/** Frees memory from tdsl_alloc (or tdsl_npy_load). Null is a no-op. */
TDSL_RUNTIME_EXPORT void tdsl_free(void *ptr);

/** Bytes of stack left below the caller on the calling thread (recursive
 *  functions check it on entry: too deep a recursion is a located error,
 *  not a crash). */
TDSL_RUNTIME_EXPORT int64_t tdsl_stack_left(void);

/*===--------------------------- Parallel loops -----------------------------===*/

/** Body of a parallel loop: handles indices [begin, end). */
typedef void (*tdsl_loop_body)(int64_t begin, int64_t end, void *ctx);

/** Runs body over [lb, ub) split into chunks on oneTBB worker threads
 *  (tbb::parallel_for over tbb::blocked_range<int64_t>). `grain` is the
 *  blocked_range grain size: ranges larger than it may be split; <= 0 lets
 *  TBB choose. Every index is covered exactly once; returns when all chunks
 *  are done. An empty range (ub <= lb) calls nothing. */
TDSL_RUNTIME_EXPORT void tdsl_parallel_for(int64_t lb, int64_t ub,
                                           int64_t grain, tdsl_loop_body body,
                                           void *ctx);

/** Limits the threads parallel loops use to `n` (tbb::global_control
 *  max_allowed_parallelism); n <= 0 restores the default (all cores). The
 *  environment variable TDSL_NUM_THREADS sets the initial limit. */
TDSL_RUNTIME_EXPORT void tdsl_set_num_threads(int32_t n);

/** Threads a parallel loop may use now: the limit, capped by the cores. */
TDSL_RUNTIME_EXPORT int32_t tdsl_get_num_threads(void);

/** Index of the calling thread in the current TBB arena (0 for the main
 *  thread); for tests and diagnostics. */
TDSL_RUNTIME_EXPORT int32_t tdsl_current_thread_index(void);

/*===------------------------ Random numbers (Philox) -----------------------===*/
/*
 * Philox4x32-10 (Salmon et al., SC'11; bit-identical to Random123 and
 * cuRAND), stateless: a value is a pure function of (seed, counter), so the
 * CPU and GPU back ends produce the same numbers.
 *
 *   key     = (lo32(seed), hi32(seed))
 *   counter = (lo32(ctr), hi32(ctr), 0, 0)
 *   10 rounds; round: (x0,x1,x2,x3) ->
 *       (hi(M1*x2) ^ x1 ^ k0, lo(M1*x2), hi(M0*x0) ^ x3 ^ k1, lo(M0*x0))
 *   with M0 = 0xD2511F53, M1 = 0xCD9E8D57 (64-bit products), and after
 *   each round but the last k0 += 0x9E3779B9, k1 += 0xBB67AE85 (mod 2^32).
 *   out[0..3] = the final (x0, x1, x2, x3).
 *
 * Value k of the stream `seed` (the counter of the scalar form, the
 * row-major index in a tensor) takes W words: W = 1 for uniform_f32, 2 for
 * uniform_f64 and normal_f32, 4 for normal_f64; a block holds G = 4 / W
 * values. With c = k / 16G and p = k % 16G, value k is made of the words
 *   w[i] = out[(p / 16) * W + i], i < W,  of the block ctr = 16c + p % 16,
 * so 16 consecutive values come from 16 consecutive blocks (a vector of
 * counters) and the next 16 from the next words of the same blocks; every
 * word of every block is used once.
 *
 * Derived values (u32f(x) = (x >> 8) * 2^-24, exact in float, in [0, 1);
 * u64d(a, b) = (((uint64_t)a << 32 | b) >> 11) * 2^-53, exact, in [0, 1)):
 *
 *   uniform_f32 = u32f(w[0])
 *   uniform_f64 = u64d(w[0], w[1])
 *   normal      = sqrt(-2 ln u1) cos(2 pi j 2^-b), Box-Muller, with
 *     f32: u1 = 1 - u32f(w[0]), j = w[1] >> 8, b = 24;
 *     f64: u1 = 1 - u64d(w[0], w[1]), j = (w[2] << 32 | w[3]) >> 11,
 *          b = 53,
 *   computed in the result type T with these steps, each IEEE operation
 *   rounding to nearest once, in this order (no fused multiply-add), so the
 *   CPU, the GPU and this runtime agree bit for bit (constants and term
 *   counts K, N in tdsl/NormalTransform.h):
 *     e = exponent(u1), m = u1 / 2^e in [1, 2) (bit fields);
 *     if m > sqrt2: m = m * 0.5, e = e + 1;
 *     f = m - 1; s = f / (2 + f); z = s * s;
 *     q = Horner(log_coeffs[0..K), z); ln_m = s * (2 + z * q);
 *     L = T(e) * ln2 + ln_m;
 *     r = sqrt(-2 * L)  (f32: rounded from the f64 root of the f32 value);
 *     k = (j + 2^(b-3)) >> (b-2); t = T(j - (k << (b-2))) * 2^-(b-2);
 *     w = t * t; C = Horner(cos_coeffs[0..N), w);
 *     S = Horner(sin_coeffs[0..N), w) * t;
 *     v = (k & 1) ? S : C; v = (((k & 3) + 1) & 2) ? -v : v;
 *     normal = r * v.
 *   Horner(c[0..n), w) = (...(c[n-1] * w + c[n-2]) * w + ...) * w + c[0].
 *
 * 1 - u is in (0, 1], so the logarithm is finite. Uniform and normal values
 * are bit-exact across back ends.
 */

/** The Philox4x32-10 block function with a full 128-bit counter and 64-bit
 *  key, as in Random123's known-answer vectors. */
TDSL_RUNTIME_EXPORT void tdsl_philox4x32_10_block(const uint32_t ctr[4],
                                                  const uint32_t key[2],
                                                  uint32_t out[4]);

/** Philox4x32-10 with key = (lo32(seed), hi32(seed)) and counter =
 *  (lo32(ctr), hi32(ctr), 0, 0). */
TDSL_RUNTIME_EXPORT void tdsl_philox4x32_10(uint64_t seed, uint64_t ctr,
                                            uint32_t out[4]);

/** Uniform in [0, 1) with 24 random bits (formula above). */
TDSL_RUNTIME_EXPORT float tdsl_rng_uniform_f32(uint64_t seed, uint64_t ctr);
/** Uniform in [0, 1) with 53 random bits (formula above). */
TDSL_RUNTIME_EXPORT double tdsl_rng_uniform_f64(uint64_t seed, uint64_t ctr);
/** Standard normal by Box-Muller in float (formula above). */
TDSL_RUNTIME_EXPORT float tdsl_rng_normal_f32(uint64_t seed, uint64_t ctr);
/** Standard normal by Box-Muller in double (formula above). */
TDSL_RUNTIME_EXPORT double tdsl_rng_normal_f64(uint64_t seed, uint64_t ctr);

/** Fills a memref of TDSL_F32 or TDSL_F64 elements with uniform (normal == 0)
 *  or standard normal values in parallel: the element whose row-major linear
 *  index is k gets counter k, whatever the memref's strides. */
TDSL_RUNTIME_EXPORT void tdsl_rng_fill(int32_t dtype, int32_t normal,
                                       uint64_t seed, int64_t rank,
                                       void *memref);

/** The same for `n` contiguous elements at `data`: element k gets counter k.
 *  Generated code calls it for model initializers, which run once, so that
 *  their Philox and Box-Muller code is not compiled into every program. */
TDSL_RUNTIME_EXPORT void tdsl_rng_fill_buffer(int32_t dtype, int32_t normal,
                                              uint64_t seed, int64_t n,
                                              void *data);

/*===------------------------------ Printing --------------------------------===*/
/*
 * Output goes to stdout: `prefix` (when non-null), the value, then "\n" and
 * a flush when `newline` != 0. Floats print like printf("%g") (6 significant
 * digits: 1, 2.5, 0.333333, 1e-07, nan, inf, -inf); integers exactly; i1 as
 * true/false. Tensors print as nested brackets, `[[1, 2.5], [3, 4]]`; those
 * with more than 1000 elements show the first and last 3 entries of every
 * dimension longer than 6, with `...` between (as numpy does).
 */

TDSL_RUNTIME_EXPORT void tdsl_print_f16(uint16_t bits, const char *prefix,
                                        int32_t newline);
TDSL_RUNTIME_EXPORT void tdsl_print_bf16(uint16_t bits, const char *prefix,
                                         int32_t newline);
TDSL_RUNTIME_EXPORT void tdsl_print_f32(float v, const char *prefix,
                                        int32_t newline);
TDSL_RUNTIME_EXPORT void tdsl_print_f64(double v, const char *prefix,
                                        int32_t newline);
TDSL_RUNTIME_EXPORT void tdsl_print_i1(int8_t v, const char *prefix,
                                       int32_t newline);
TDSL_RUNTIME_EXPORT void tdsl_print_i32(int32_t v, const char *prefix,
                                        int32_t newline);
TDSL_RUNTIME_EXPORT void tdsl_print_i64(int64_t v, const char *prefix,
                                        int32_t newline);
TDSL_RUNTIME_EXPORT void tdsl_print_u64(uint64_t v, const char *prefix,
                                        int32_t newline);

/** Prints a tensor of `dtype` and `rank` (0 prints the scalar). */
TDSL_RUNTIME_EXPORT void tdsl_print_memref(int32_t dtype, int64_t rank,
                                           void *memref, const char *prefix,
                                           int32_t newline);

/** While `on` is nonzero, every print is skipped (the REPL's `:time` runs
 *  its expression silently). */
TDSL_RUNTIME_EXPORT void tdsl_set_quiet(int32_t on);
TDSL_RUNTIME_EXPORT int32_t tdsl_is_quiet(void);

/** IEEE half / bfloat16 bit patterns to float (exact). */
TDSL_RUNTIME_EXPORT float tdsl_f16_to_f32(uint16_t bits);
TDSL_RUNTIME_EXPORT float tdsl_bf16_to_f32(uint16_t bits);

/*===------------------------------ .npy files ------------------------------===*/
/*
 * numpy's format, versions 1.0, 2.0 and 3.0 read, little-endian, C order.
 * dtypes: F16 '<f2', F32 '<f4', F64 '<f8', I1 '|b1', I32 '<i4', I64 '<i8',
 * U64 '<u8'. BF16 has no numpy dtype and is rejected.
 */

/** Reads `path`, checking that it holds a C-order array of `dtype` and
 *  `rank`. Writes the shape to sizesOut[0..rank) and a tdsl_alloc'd,
 *  row-major (contiguous) buffer to *dataOut, which the caller frees with
 *  tdsl_free. Returns 0; on any problem reports the file and what was
 *  expected versus found at `where`, and exits 1. */
TDSL_RUNTIME_EXPORT int32_t tdsl_npy_load(const char *path, int32_t dtype,
                                          int64_t rank, int64_t *sizesOut,
                                          void **dataOut, const char *where);

/** Writes a memref (any strides) to `path` as a C-order .npy file (version
 *  1.0, or 2.0 when the header needs it). Exits 1 on failure. */
TDSL_RUNTIME_EXPORT void tdsl_npy_save(const char *path, int32_t dtype,
                                       int64_t rank, void *memref,
                                       const char *where);

/*===------------------------- Timing and profile ---------------------------===*/
/*
 * Every kernel launch is timed with a steady clock. Statistics are kept
 * always; the report prints only when profiling is enabled, by
 * tdsl_profile_enable(1) or the environment variable TDSL_PROFILE=1 (read at
 * report time; an explicit call wins). The report runs at process exit (or
 * library unload) or on tdsl_profile_report(), whichever is first.
 */

/** Kinds of timed entries. */
enum {
  TDSL_KIND_KERNEL = 0,
  TDSL_KIND_H2D = 1, /**< host-to-device copy */
  TDSL_KIND_D2H = 2, /**< device-to-host copy */
  TDSL_KIND_D2D = 3, /**< device-to-device copy */
  TDSL_KIND_COLLECTIVE = 4, /**< an MPI collective (allreduce, broadcast) */
};

/** Registers a kernel (kind TDSL_KIND_KERNEL) named `name` at DSL location
 *  `where`; returns its id. Registering the same (name, where) again returns
 *  the same id. Thread-safe. */
TDSL_RUNTIME_EXPORT int32_t tdsl_kernel_register(const char *name,
                                                 const char *where);

/** The id of kernel `name` at `where`, registered on the first call and
 *  kept in `*slot` (which starts at -1) for later ones: a launch site's
 *  cache, so a kernel in a loop looks its id up once. Thread-safe. */
TDSL_RUNTIME_EXPORT int32_t tdsl_kernel_id(int32_t *slot, const char *name,
                                           const char *where);

/** As tdsl_kernel_register, with a kind (TDSL_KIND_*); the id is unique per
 *  (name, where, kind). */
TDSL_RUNTIME_EXPORT int32_t tdsl_kernel_register_kind(const char *name,
                                                      const char *where,
                                                      int32_t kind);

/** The clock of the profile, in ns (steady: CLOCK_MONOTONIC, read through
 *  the TSC where the kernel's clock source is the TSC). For tools that time
 *  launches alongside the runtime (bench/tools/kernel_calls.c). */
TDSL_RUNTIME_EXPORT int64_t tdsl_clock_ns(void);

/** Starts timing a launch of kernel `id`; returns the start time in ns. */
TDSL_RUNTIME_EXPORT int64_t tdsl_kernel_begin(int32_t id);

/** Ends a launch started at `start` (from tdsl_kernel_begin): adds one call,
 *  the elapsed time, and `flops` / `bytes` (0 = unknown) to kernel `id`.
 *  Returns the end time, which a launch that follows at once may take as its
 *  start instead of reading the clock again (tdsl-time-kernels chains
 *  back-to-back launches so). Thread-safe. */
TDSL_RUNTIME_EXPORT int64_t tdsl_kernel_end(int32_t id, int64_t start,
                                            double flops, double bytes);

/** Adds one call of kernel `id` that took `ms` milliseconds, measured
 *  elsewhere (the GPU's events), with `flops` / `bytes` as tdsl_kernel_end.
 *  Thread-safe. */
TDSL_RUNTIME_EXPORT void tdsl_kernel_record(int32_t id, double ms,
                                            double flops, double bytes);

/** Enables (on != 0) or disables the profile report. */
TDSL_RUNTIME_EXPORT void tdsl_profile_enable(int32_t on);

/** Also writes the report as JSON to `path` (null: stop); overrides the
 *  environment variable TDSL_PROFILE_JSON. A JSON path is honoured even
 *  when the table is disabled. */
TDSL_RUNTIME_EXPORT void tdsl_profile_set_json(const char *path);

/** Prints the table to stderr (when enabled) and writes the JSON (when a
 *  path is set), at most once: later calls and the exit hook do nothing
 *  until tdsl_profile_reset. Columns: kernel, where, calls, total ms,
 *  mean us, GFLOP/s, GB/s (blank when unknown), % of the run (from library
 *  load, or the last reset, to the report), sorted by total time. */
TDSL_RUNTIME_EXPORT void tdsl_profile_report(void);

/** Clears all statistics (keeping registrations), restarts the run clock
 *  and re-arms the report; for a REPL that reports per input, and tests. */
TDSL_RUNTIME_EXPORT void tdsl_profile_reset(void);

/*===-------------------------------- CUDA ----------------------------------===*/
/*
 * GPU programs use the CUDA driver through the runtime: libcuda.so.1 is
 * loaded with dlopen on first use (the environment variable
 * TDSL_CUDA_LIBRARY names another file), never linked. Generated code calls
 * MLIR's `gpu-to-llvm` ABI, which the runtime provides with the signatures
 * of mlir/lib/ExecutionEngine/CudaRuntimeWrappers.cpp (LLVM 22):
 *
 *   mgpuModuleLoad(void *blob, size_t size)    cubin/fatbin/PTX
 *   mgpuModuleLoadJIT(void *ptx, int optLevel) PTX, compiled by the driver
 *   mgpuModuleUnload, mgpuModuleGetFunction(module, name),
 *   mgpuLaunchKernel(fn, gridX..Z, blockX..Z, int32 smem, stream, params,
 *                    extra, size_t paramsCount),
 *   mgpuStreamCreate/Destroy/Synchronize/WaitEvent,
 *   mgpuEventCreate/Destroy/Synchronize/Record,
 *   mgpuMemAlloc(uint64 size, stream, bool managed), mgpuMemFree,
 *   mgpuMemcpy(dst, src, size, stream), mgpuMemset32, mgpuMemset16,
 *   mgpuMemHostRegister[MemRef], mgpuMemHostUnregister[MemRef],
 *   mgpuSetDefaultDevice(int32 device)
 *
 * Unlike upstream, a failing driver call prints
 *   `<where>: error: CUDA call cuLaunchKernel failed for kernel 'k' ...:
 *    CUDA_ERROR_LAUNCH_FAILED (unspecified launch failure)`
 * and exits 1; with no driver or no device the first GPU call prints
 * `tdsl: error: no CUDA GPU: <reason>` and exits 1. Every launch and every
 * host/device copy is timed with CUDA events into the profile: kernels as
 * kind TDSL_KIND_KERNEL named after the kernel, copies as "memcpy" of kind
 * H2D, D2H or D2D with their bytes, both at the location last set. Times are
 * read when the stream is synchronized or destroyed, at tdsl_profile_report
 * and at exit. TDSL_CUDA_SYNC=1 synchronizes after every launch and copy, so
 * an asynchronous fault is reported at the launch that caused it.
 */

/** 1 when a CUDA driver and at least one device are usable, else 0 with the
 *  reason (NUL-terminated, truncated to `len` bytes) in `reason` (may be
 *  null). Never exits. */
TDSL_RUNTIME_EXPORT int32_t tdsl_cuda_available(char *reason, int64_t len);

/** Writes a one-line description of the current device to `out`:
 *  "NVIDIA H200 (sm_90, 132 SMs, 139.8 GiB, CUDA driver 13.0)", or
 *  "no CUDA GPU: <reason>". Never exits. */
TDSL_RUNTIME_EXPORT void tdsl_cuda_describe(char *out, int64_t len);

/** Sets the DSL location ("prog.tdsl:12:5"; null: none) of this thread's
 *  following GPU operations, for errors and profile rows. It may go on, on
 *  lines of its own, with the source line and a caret, which errors print
 *  after the message (profile rows use the first line). */
TDSL_RUNTIME_EXPORT void tdsl_cuda_set_location(const char *where);

/** Sets the work (0 = unknown) of this thread's next kernel launch, for the
 *  profile's GFLOP/s and GB/s; the launch consumes it. */
TDSL_RUNTIME_EXPORT void tdsl_cuda_set_work(double flops, double bytes);

/** Buffers are CUDA managed memory (mgpuMemAlloc with isHostShared), and
 *  the runtime knows where each one's data is: nowhere yet, on the host or
 *  on the device. The compiler calls tdsl_cuda_to_device before a launch
 *  for each buffer the kernel uses, and tdsl_cuda_to_host before the host
 *  reads or writes one (tdsl-gpu-transfers). When the data is on the other
 *  side, it is moved in one timed cuMemPrefetchAsync, a profile row
 *  "prefetch" of kind h2d or d2h with its bytes: a move to the device is
 *  charged to the launch's location (set by tdsl_cuda_set_location), a move
 *  back to the location of the last kernel that used the buffer. Buffers
 *  that consecutive kernels share stay on the device; a buffer first used
 *  by a kernel gets its pages on the device before it (untimed: nothing is
 *  copied), so kernels take no page faults. Pointers the runtime
 *  did not allocate are ignored; without cuMemPrefetchAsync (drivers before
 *  CUDA 12.2) or devices that cannot take them, data moves on demand,
 *  without rows. `where` names the host access, for errors. */
TDSL_RUNTIME_EXPORT void tdsl_cuda_to_device(void *ptr);
TDSL_RUNTIME_EXPORT void tdsl_cuda_to_host(void *ptr, const char *where);
/** Copies `bytes` from the managed buffer `src` to the managed buffer `dst`
 *  where src's data is: on the device by the driver (a timed "memcpy" row
 *  of kind d2d), else on the host; dst's data is then on that side. The
 *  .npy reads and writes (tdsl_npy_read, tdsl_npy_write) bring buffers to
 *  the host themselves, so that a value of tdsl-repl kept on the device
 *  never does. */
TDSL_RUNTIME_EXPORT void tdsl_cuda_copy(void *dst, void *src, int64_t bytes);

/*===---------------------- Called by generated code ------------------------===*/
/* Generated code passes contiguous, row-major buffers as (sizes, data)
 * pointers; these describe them as memrefs for the functions above. */

/** Prints `text` (null: nothing), then a newline when `newline` != 0. */
TDSL_RUNTIME_EXPORT void tdsl_print_str(const char *text, int32_t newline);
/** tdsl_print_memref of a contiguous buffer of `rank` sizes at `data`. */
TDSL_RUNTIME_EXPORT void tdsl_print_tensor(int32_t dtype, int64_t rank,
                                           const int64_t *sizes,
                                           const void *data, const char *prefix,
                                           int32_t newline);
/** Reads the .npy file at `path` and checks it against `sizes` (-1: any);
 *  fills in the sizes the file gives. The data waits, per thread, for
 *  tdsl_npy_read with the same path. */
TDSL_RUNTIME_EXPORT void tdsl_npy_shape(const char *path, int32_t dtype,
                                        int64_t rank, int64_t *sizes,
                                        const char *where);
/** tdsl_npy_shape for a CSV file (gzipped or not) read as a rank-2 table
 *  of f32, f64, i32 or i64: rows, then values per row. */
TDSL_RUNTIME_EXPORT void tdsl_csv_shape(const char *path, int32_t dtype,
                                        int64_t rank, int64_t *sizes,
                                        const char *where);
/** Copies the data tdsl_npy_shape or tdsl_csv_shape read for `path` into
 *  `out`. */
TDSL_RUNTIME_EXPORT void tdsl_npy_read(const char *path, int32_t dtype,
                                       int64_t rank, const int64_t *sizes,
                                       void *out, const char *where);
/** tdsl_npy_save of a contiguous buffer. */
TDSL_RUNTIME_EXPORT void tdsl_npy_write(const char *path, int32_t dtype,
                                        int64_t rank, const int64_t *sizes,
                                        const void *data, const char *where);
/** Starts a compiled program: resets the profile, reads its command-line
 *  options (--threads=N, --profile, --profile-json=FILE, --help). */
TDSL_RUNTIME_EXPORT void tdsl_init(int32_t argc, char **argv);

#ifdef __cplusplus
/*===-------------------- Processes: MPI collectives -------------------------===*/
/*
 * A program started by mpirun (OpenMPI, or any launcher that sets PMI_SIZE
 * or PMIX_RANK) is one of world_size processes: the first collective loads
 * libtdsl_mpi.so (built against the installed mpi.h; $TDSL_MPI_LIBRARY names
 * another) and initializes MPI on the main thread. A program started
 * otherwise is the only process: size 1, rank 0, and a collective returns
 * its operands. Collectives run on the main thread only. With more than one
 * process, a run-time error names the rank and stops every process
 * (MPI_Abort).
 */

/** Reduction operators of tdsl_allreduce. */
enum {
  TDSL_REDUCE_SUM = 0, /**< for i1: or */
  TDSL_REDUCE_MAX = 1,
  TDSL_REDUCE_MIN = 2,
};

/** The number of processes and this one's rank (0-based). */
TDSL_RUNTIME_EXPORT int64_t tdsl_world_size(const char *where);
TDSL_RUNTIME_EXPORT int64_t tdsl_world_rank(const char *where);

/** Reduces `n` buffers across the processes into `n` others, each a row of
 *  `table` = {input pointer, output pointer, element count, dtype} (as
 *  int64): one MPI call per element type, the buffers packed into one
 *  (as DDP buckets gradients). Timed in the profile as "allreduce". */
TDSL_RUNTIME_EXPORT void tdsl_allreduce(int64_t n, const int64_t *table,
                                        int32_t op, const char *where);

/** Copies rank `root`'s `n` input buffers to every process's outputs (the
 *  rows of `table` as for tdsl_allreduce). */
TDSL_RUNTIME_EXPORT void tdsl_broadcast(int64_t n, const int64_t *table,
                                        int64_t root, const char *where);

} /* extern "C" */
#endif

#endif /* TDSL_RUNTIME_H */
