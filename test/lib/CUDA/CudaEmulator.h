//===- CudaEmulator.h - Runs the kernels of a GPU module on the CPU -------===//
//
// For the emulating test double of libcuda (tdsl_emu_cuda): a module built
// with `tdslc --gpu-bitcode` holds each kernel as LLVM bitcode (NVVM IR, in
// a bitcode wrapper that gives its size) instead of PTX. The emulator
// compiles it for the host with ORC, replacing the NVVM intrinsics
// (special registers, barriers, warp shuffles, libdevice's math) by
// functions of its own, and runs a launch block after block, the block's
// threads as fibers that switch at barriers and shuffles. It checks what
// the compiler generated, kernel logic and block-level synchronization,
// without a GPU; NVPTX code generation is what ptxas checks.
//
//===----------------------------------------------------------------------===//
#ifndef TDSL_TEST_CUDAEMULATOR_H
#define TDSL_TEST_CUDAEMULATOR_H

#include <string>

namespace tdsl::emu {

/// Whether `image` starts like a bitcode wrapper.
bool isBitcode(const void *image);

/// Compiles the module for the host; null with `error` set on failure.
void *loadModule(const void *image, std::string &error);
void unloadModule(void *module);

/// The kernel `name` of `module`, or null.
void *getKernel(void *module, const char *name);

/// Runs a launch to completion; false with `error` set when the launch is
/// outside CUDA's limits, a kernel traps, or its threads part at a barrier
/// (wait at different ones, or some exit while others wait). Shared memory
/// is poisoned before each block, and threads run in ascending order in
/// even blocks, descending in odd ones, so that reading data before it is
/// written, or before a barrier, gives wrong results.
bool launch(void *kernel, const unsigned grid[3], const unsigned block[3],
            void **params, std::string &error);

} // namespace tdsl::emu

#endif // TDSL_TEST_CUDAEMULATOR_H
