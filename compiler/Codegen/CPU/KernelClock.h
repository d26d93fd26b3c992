//===- KernelClock.h - timing a kernel for the runtime's profile -*- C++ -*-===//
#ifndef TDSL_CODEGEN_CPU_KERNELCLOCK_H
#define TDSL_CODEGEN_CPU_KERNELCLOCK_H

#include "compiler/Codegen/Common/RuntimeCalls.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

namespace tdsl {

/// Adds the calls that time a kernel (tdsl_kernel_id, _begin, _end) and the
/// i32 global per launch site where the runtime keeps the kernel's id after
/// its first launch (a registration looks the name up in a map: in a loop
/// of small kernels it cost as much as the kernels). Module passes only:
/// it adds globals to the module.
class KernelClock {
public:
  KernelClock(mlir::ModuleOp module, RuntimeCalls &rt) : module(module), rt(rt) {}

  /// The kernel id of `name` at `loc`, looked up before `site`: outside the
  /// loops and branches around the kernel, since its first lookup registers
  /// the kernel (a microsecond), which must not fall between two launches
  /// that share a clock read (tdsl-chain-kernel-clocks).
  mlir::Value id(mlir::OpBuilder &b, mlir::Operation *site, mlir::Location loc,
                 llvm::StringRef name);
  /// The clock read that starts a kernel, before the builder's point.
  mlir::Value begin(mlir::OpBuilder &b, mlir::Location loc, mlir::Value id);
  /// The one that ends it, with its floating-point operations and bytes
  /// moved (f64).
  void end(mlir::OpBuilder &b, mlir::Location loc, mlir::Value id, mlir::Value t0,
           mlir::Value flops, mlir::Value bytes);

private:
  mlir::ModuleOp module;
  RuntimeCalls &rt;
  unsigned slots = 0;
};

} // namespace tdsl

#endif // TDSL_CODEGEN_CPU_KERNELCLOCK_H
