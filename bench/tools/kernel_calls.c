// kernel_calls.c - records the time of every kernel call of a TDSL
// executable, for bench/suite.py. Loaded with LD_PRELOAD, it wraps the
// runtime's tdsl_kernel_register(_kind), tdsl_kernel_id and tdsl_kernel_end
// (the calls the generated code makes around each kernel, see
// runtime/lib/Profile.cpp), passes every call on unchanged, and at exit
// writes to the file named by
// $TDSL_BENCH_CALLS:
//   {"kernels": [[id, "name", "where"], ...],
//    "calls": [[id, start ns, end ns], ...]}
// with the calls in the order they ended, on the runtime's clock (the
// start it was given, the end tdsl_kernel_end returns). The profile
// (--profile-json) only keeps each kernel's total; the per-call times let the suite drop a warm-up repetition, see
// each repetition's time, and time the span from the first kernel of a
// piece of work to the end of its last (what runs between its kernels
// included).
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

typedef int32_t (*RegisterFn)(const char *, const char *);
typedef int32_t (*RegisterKindFn)(const char *, const char *, int32_t);
typedef int64_t (*EndFn)(int32_t, int64_t, double, double);

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct Kernel { int32_t id; char *name, *where; } *kernels;
static size_t nkernels, capkernels;
static struct Call { int32_t id; int64_t start, end; } *calls;
static size_t ncalls, capcalls;

/// The runtime's `name`; null in a process without the runtime (a tool
/// that inherited LD_PRELOAD), where its wrapper is never called.
static void *next(const char *name) { return dlsym(RTLD_NEXT, name); }

static void addKernel(int32_t id, const char *name, const char *where) {
  pthread_mutex_lock(&lock);
  for (size_t i = 0; i < nkernels; ++i)
    if (kernels[i].id == id) {
      pthread_mutex_unlock(&lock);
      return;
    }
  if (nkernels == capkernels) {
    capkernels = capkernels ? 2 * capkernels : 64;
    kernels = realloc(kernels, capkernels * sizeof *kernels);
  }
  kernels[nkernels].id = id;
  kernels[nkernels].name = strdup(name ? name : "<unnamed>");
  kernels[nkernels].where = strdup(where ? where : "");
  ++nkernels;
  pthread_mutex_unlock(&lock);
}

static RegisterFn realRegister;
static RegisterKindFn realRegisterKind;
static EndFn realEnd;

int32_t tdsl_kernel_register(const char *name, const char *where) {
  int32_t id = realRegister(name, where);
  addKernel(id, name, where);
  return id;
}

typedef int32_t (*IdFn)(int32_t *, const char *, const char *);

/// Launch sites look their id up here; a site's first call registers it.
static IdFn realId;

int32_t tdsl_kernel_id(int32_t *slot, const char *name, const char *where) {
  int first = __atomic_load_n(slot, __ATOMIC_ACQUIRE) < 0;
  int32_t id = realId(slot, name, where);
  if (first)
    addKernel(id, name, where);
  return id;
}

int32_t tdsl_kernel_register_kind(const char *name, const char *where,
                                  int32_t kind) {
  int32_t id = realRegisterKind(name, where, kind);
  addKernel(id, name, where);
  return id;
}

/// Room for `n` calls, its pages touched now: a page fault costs 5-10 us
/// on this project's VMs, and faults inside a program's work (one per 170
/// calls) counted in its time (100 us of PolyBench jacobi-1d's 420).
static void reserve(size_t n) {
  const size_t huge = (size_t)2 << 20;
  size_t bytes = (n * sizeof *calls + huge - 1) / huge * huge;
  struct Call *grown = aligned_alloc(huge, bytes);
  if (!grown) {
    fprintf(stderr, "kernel_calls: out of memory\n");
    abort();
  }
#ifdef MADV_HUGEPAGE
  madvise(grown, bytes, MADV_HUGEPAGE);
#endif
  memset(grown, 0, bytes);
  if (ncalls)
    memcpy(grown, calls, ncalls * sizeof *calls);
  free(calls);
  calls = grown;
  capcalls = bytes / sizeof *calls;
}

int64_t tdsl_kernel_end(int32_t id, int64_t start, double flops, double bytes) {
  // The runtime's end time, which generated code may take as the next
  // launch's start (the sum of the recorded calls is then the profile's).
  int64_t end = realEnd(id, start, flops, bytes);
  pthread_mutex_lock(&lock);
  if (ncalls == capcalls)
    reserve(2 * capcalls);
  calls[ncalls].id = id;
  calls[ncalls].start = start;
  calls[ncalls].end = end;
  ++ncalls;
  pthread_mutex_unlock(&lock);
  return end;
}

/// Looks the runtime's functions up before main: a lookup in the first
/// kernel call (microseconds) would count in its time.
__attribute__((constructor)) static void resolve(void) {
  realRegister = (RegisterFn)next("tdsl_kernel_register");
  realRegisterKind = (RegisterKindFn)next("tdsl_kernel_register_kind");
  realId = (IdFn)next("tdsl_kernel_id");
  realEnd = (EndFn)next("tdsl_kernel_end");
  if (realEnd)
    reserve((size_t)1 << 17);
}

static void jsonString(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; ++s) {
    if (*s == '"' || *s == '\\')
      fputc('\\', f);
    if ((unsigned char)*s < 0x20)
      fprintf(f, "\\u%04x", *s);
    else
      fputc(*s, f);
  }
  fputc('"', f);
}

__attribute__((destructor)) static void writeCalls(void) {
  const char *path = getenv("TDSL_BENCH_CALLS");
  if (!path || !*path)
    return;
  FILE *f = fopen(path, "w");
  if (!f)
    return;
  pthread_mutex_lock(&lock);
  fprintf(f, "{\"kernels\": [");
  for (size_t i = 0; i < nkernels; ++i) {
    fprintf(f, "%s[%d, ", i ? ", " : "", kernels[i].id);
    jsonString(f, kernels[i].name);
    fprintf(f, ", ");
    jsonString(f, kernels[i].where);
    fprintf(f, "]");
  }
  fprintf(f, "],\n \"calls\": [");
  for (size_t i = 0; i < ncalls; ++i)
    fprintf(f, "%s[%d, %lld, %lld]", i ? (i % 4 ? ", " : ",\n  ") : "",
            calls[i].id, (long long)calls[i].start, (long long)calls[i].end);
  fprintf(f, "]}\n");
  pthread_mutex_unlock(&lock);
  fclose(f);
}
