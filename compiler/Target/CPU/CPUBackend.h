//===- CPUBackend.h - The CPU target: tiled loops on oneTBB ----------------===//
#ifndef TDSL_TARGET_CPU_CPUBACKEND_H
#define TDSL_TARGET_CPU_CPUBACKEND_H

#include "compiler/Target/TargetBackend.h"

namespace tdsl {
const TargetBackend &getCPUBackend();
} // namespace tdsl

#endif // TDSL_TARGET_CPU_CPUBACKEND_H
