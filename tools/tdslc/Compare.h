//===- Compare.h - tdslc run --compare: the CPU and CUDA side by side -------===//
#ifndef TDSL_TOOLS_TDSLC_COMPARE_H
#define TDSL_TOOLS_TDSLC_COMPARE_H

#include <string>
#include <vector>

namespace tdsl {

/// The options each of the two child runs of tdslc gets.
struct CompareOptions {
  std::string inputFile;
  unsigned optLevel = 2;
  int threads = 0;
  std::string gpuArch = "sm_90";
  bool gpuBitcode = false;
  std::vector<std::string> includeDirs;
  /// Options of one back end's run only (--gpu-tile=8, --vector-width=8).
  std::vector<std::string> cpuArgs, gpuArgs;
};

/// Runs the program with `tdslc run` on the CPU and with CUDA, each in a
/// child process saving into a folder of its own; checks that what they
/// print and what they save agree (numbers within rtol 1e-4, atol 1e-6,
/// integers and words exactly), prints the kernels' times side by side, and
/// leaves the CPU run's saved files where the program saved them. Returns
/// the exit status: 1 when a run fails or the results disagree.
int runComparison(const char *argv0, const CompareOptions &options);

} // namespace tdsl

#endif // TDSL_TOOLS_TDSLC_COMPARE_H
