//===- CUDABackend.h - The CUDA target: PTX kernels for NVIDIA GPUs --------===//
#ifndef TDSL_TARGET_CUDA_CUDABACKEND_H
#define TDSL_TARGET_CUDA_CUDABACKEND_H

#include "compiler/Target/TargetBackend.h"

namespace tdsl {

const TargetBackend &getCUDABackend();

} // namespace tdsl

#endif // TDSL_TARGET_CUDA_CUDABACKEND_H
