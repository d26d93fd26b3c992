// sgemm_dnnl.cpp - the oneDNN anchor of the SGEMM rows: C = A @ B with
// dnnl_sgemm (row-major, f32), on the a.npy and b.npy the TDSL programs
// read. oneDNN's threads are OpenMP's: OMP_NUM_THREADS, set by the suite.
//
// usage: sgemm_dnnl a.npy b.npy REPS
// One untimed call first (oneDNN generates its kernels then), then REPS
// timed calls. Prints one JSON line: times, checksum (sum of C, C[0, 1],
// C[M-1, 7]) and the OpenMP thread count.
#include "npy.h"
#include "timing.h"

#include <dlfcn.h>
#include <dnnl.h>

int main(int argc, char **argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s a.npy b.npy REPS\n", argv[0]);
    return 2;
  }
  NpyArray a = npyLoad(argv[1]), b = npyLoad(argv[2]);
  int reps = std::atoi(argv[3]);
  if (a.descr != "<f4" || b.descr != "<f4" || a.shape.size() != 2 ||
      b.shape.size() != 2 || a.shape[1] != b.shape[0]) {
    std::fprintf(stderr, "need f32 matrices A[M, K] and B[K, N]\n");
    return 1;
  }
  dnnl_dim_t M = a.shape[0], K = a.shape[1], N = b.shape[1];
  std::vector<float> c(size_t(M * N));
  auto gemm = [&] {
    if (dnnl_sgemm('N', 'N', M, N, K, 1.0f, a.as<float>(), K, b.as<float>(),
                   N, 0.0f, c.data(), N) != dnnl_success) {
      std::fprintf(stderr, "dnnl_sgemm failed\n");
      std::exit(1);
    }
  };
  std::vector<double> times = timeRepeated(reps, gemm);
  double sum = sumOf(c);
  // oneDNN runs on the OpenMP runtime it links (libgomp): ask it.
  auto maxThreads = reinterpret_cast<int (*)()>(
      dlsym(RTLD_DEFAULT, "omp_get_max_threads"));
  const dnnl_version_t *v = dnnl_version();
  char extra[160];
  std::snprintf(extra, sizeof extra,
                "\"threads\": %d, \"version\": \"oneDNN %d.%d.%d\"",
                maxThreads ? maxThreads() : -1, v->major, v->minor, v->patch);
  report(times, {sum, c[1], c[size_t((M - 1) * N + 7)]}, extra);
}
