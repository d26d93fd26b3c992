//===- SplitWideMaskedLoads.h - Masked loads in register-wide pieces -----===//
//
// LLVM 22's X86 back end miscompiles a masked load wider than a vector
// register whose mask is a select of constant masks on a scalar condition
// (`select i1 %c, <8 x i1> <1, 0, ...>, zeroinitializer` on `<8 x i64>` with
// AVX2): when it splits the load, a half whose mask is false on both sides
// becomes a plain load instead of the pass-through value. LLVM's optimizer
// makes such masks from the tail masks of short loops (a mask on a loop's
// induction variable becomes a select on "is this the last iteration"), so
// `--vector-width` or a CPU model wider than the host's registers gave wrong
// sums. This splits such loads into register-wide loads first, folding each
// piece of the mask, so the back end has nothing to split.
//
//===----------------------------------------------------------------------===//
#ifndef TDSL_TARGET_CPU_SPLITWIDEMASKEDLOADS_H
#define TDSL_TARGET_CPU_SPLITWIDEMASKEDLOADS_H

namespace llvm {
class Module;
class TargetMachine;
} // namespace llvm

namespace tdsl {

/// Rewrites every `llvm.masked.load` in `module` wider than `tm`'s vector
/// registers as register-wide pieces: a piece whose mask folds to false is
/// the pass-through value, one whose mask folds to true a plain load, any
/// other a masked load. Returns whether it changed anything.
bool splitWideMaskedLoads(llvm::Module &module, llvm::TargetMachine &tm);

} // namespace tdsl

#endif // TDSL_TARGET_CPU_SPLITWIDEMASKEDLOADS_H
