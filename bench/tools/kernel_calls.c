// kernel_calls.c - records the time of every kernel call of a TDSL
// executable, for bench/suite.py. Loaded with LD_PRELOAD, it wraps the
// runtime's tdsl_kernel_register(_kind) and tdsl_kernel_end (the calls the
// generated code makes around each kernel, see runtime/lib/Profile.cpp),
// passes every call on unchanged, and at exit writes to the file named by
// $TDSL_BENCH_CALLS:
//   {"kernels": [[id, "name", "where"], ...],
//    "calls": [[id, start ns, end ns], ...]}
// with the calls in the order they ended, on the runtime's clock
// (CLOCK_MONOTONIC). The profile (--profile-json) only keeps each kernel's
// total; the per-call times let the suite drop a warm-up repetition, see
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
#include <time.h>

typedef int32_t (*RegisterFn)(const char *, const char *);
typedef int32_t (*RegisterKindFn)(const char *, const char *, int32_t);
typedef void (*EndFn)(int32_t, int64_t, double, double);

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct Kernel { int32_t id; char *name, *where; } *kernels;
static size_t nkernels, capkernels;
static struct Call { int32_t id; int64_t start, end; } *calls;
static size_t ncalls, capcalls;

static void *next(const char *name) {
  void *f = dlsym(RTLD_NEXT, name);
  if (!f) {
    fprintf(stderr, "kernel_calls: no %s in the runtime\n", name);
    abort();
  }
  return f;
}

/// The runtime's clock (std::chrono::steady_clock: CLOCK_MONOTONIC).
static int64_t nowNs(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

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

int32_t tdsl_kernel_register(const char *name, const char *where) {
  static RegisterFn real;
  if (!real)
    real = (RegisterFn)next("tdsl_kernel_register");
  int32_t id = real(name, where);
  addKernel(id, name, where);
  return id;
}

int32_t tdsl_kernel_register_kind(const char *name, const char *where,
                                  int32_t kind) {
  static RegisterKindFn real;
  if (!real)
    real = (RegisterKindFn)next("tdsl_kernel_register_kind");
  int32_t id = real(name, where, kind);
  addKernel(id, name, where);
  return id;
}

void tdsl_kernel_end(int32_t id, int64_t start, double flops, double bytes) {
  static EndFn real;
  int64_t end = nowNs();
  if (!real)
    real = (EndFn)next("tdsl_kernel_end");
  real(id, start, flops, bytes);
  pthread_mutex_lock(&lock);
  if (ncalls == capcalls) {
    capcalls = capcalls ? 2 * capcalls : 4096;
    calls = realloc(calls, capcalls * sizeof *calls);
  }
  calls[ncalls].id = id;
  calls[ncalls].start = start;
  calls[ncalls].end = end;
  ++ncalls;
  pthread_mutex_unlock(&lock);
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
