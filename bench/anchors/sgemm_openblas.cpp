// sgemm_openblas.cpp - the OpenBLAS anchor of the SGEMM rows: C = A @ B
// with cblas_sgemm (row-major, f32), on the a.npy and b.npy the TDSL
// programs read, on Debian's pthread build of OpenBLAS.
//
// usage: sgemm_openblas a.npy b.npy REPS THREADS
// This virtual CPU needs OPENBLAS_CORETYPE=SkylakeX in the environment
// (the suite sets it), otherwise OpenBLAS picks a kernel about 4x slower;
// the core it chose is reported. One untimed call, then REPS timed calls.
// Prints one JSON line: times, checksum (sum of C, C[0, 1], C[M-1, 7]),
// the core name and the thread count.
#include "npy.h"
#include "timing.h"

#include <cblas.h>

extern "C" {
char *openblas_get_corename(void);
char *openblas_get_config(void);
void openblas_set_num_threads(int);
int openblas_get_num_threads(void);
}

int main(int argc, char **argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: %s a.npy b.npy REPS THREADS\n", argv[0]);
    return 2;
  }
  NpyArray a = npyLoad(argv[1]), b = npyLoad(argv[2]);
  int reps = std::atoi(argv[3]);
  openblas_set_num_threads(std::atoi(argv[4]));
  if (a.descr != "<f4" || b.descr != "<f4" || a.shape.size() != 2 ||
      b.shape.size() != 2 || a.shape[1] != b.shape[0]) {
    std::fprintf(stderr, "need f32 matrices A[M, K] and B[K, N]\n");
    return 1;
  }
  int M = int(a.shape[0]), K = int(a.shape[1]), N = int(b.shape[1]);
  std::vector<float> c(size_t(M) * N);
  auto gemm = [&] {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, 1.0f,
                a.as<float>(), K, b.as<float>(), N, 0.0f, c.data(), N);
  };
  std::vector<double> times = timeRepeated(reps, gemm);
  double sum = sumOf(c);
  std::string extra = std::string("\"corename\": \"") + openblas_get_corename() +
                      "\", \"threads\": " +
                      std::to_string(openblas_get_num_threads()) +
                      ", \"version\": \"" + openblas_get_config() + "\"";
  report(times, {sum, c[1], c[size_t(M - 1) * N + 7]}, extra);
}
