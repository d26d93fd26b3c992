//===- Combine.h - How a reduction combines ---------------------------------===//
#ifndef TDSL_CODEGEN_COMMON_COMBINE_H
#define TDSL_CODEGEN_COMMON_COMBINE_H

namespace tdsl {

/// How a reduction combines: the tdsl combiner / reduce kinds mapped to one.
enum class Combine { Add, Mul, Max, Min };

} // namespace tdsl

#endif // TDSL_CODEGEN_COMMON_COMBINE_H
