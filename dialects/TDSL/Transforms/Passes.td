//===- Passes.td - Transformations of the tdsl dialect -----------------------===//
#ifndef TDSL_DIALECT_TDSL_TRANSFORMS_PASSES_TD
#define TDSL_DIALECT_TDSL_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def Simplify : Pass<"tdsl-simplify", "mlir::ModuleOp"> {
  let summary = "Fold and canonicalize tdsl ops, and only them";
  let description = [{
    Applies the folders and canonicalization patterns of the tdsl ops
    (`x + 0`, `x - 0`, `x * 1`, `x / 1` when `x` has the result's type;
    a cast of an exact cast; a static `tdsl.fill` operand of an element-wise
    op replaced by its scalar) to the tdsl ops of a module, and leaves the
    func, scf and tensor ops as MLIRGen wrote them. It erases only what a
    fold replaced: an unused op that may stop the program (a load of a
    missing file, an integer division by zero) stays. It is the first stage of
    every pipeline (`tdsl-transform`) and what `tdslc --emit=tdsl` shows.
    The identities are exact: `-0.0` is the identity of a float sum.

    ```mlir
    // before
    %f = tdsl.fill %c : f32 -> tensor<4xf32>
    %z = tdsl.constant -0.0 : f32
    %a = tdsl.add %x, %z : tensor<4xf32>, f32 -> tensor<4xf32>
    %m = tdsl.mul %a, %f : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
    // after
    %m = tdsl.mul %x, %c : tensor<4xf32>, f32 -> tensor<4xf32>
    ```
  }];
}

#endif // TDSL_DIALECT_TDSL_TRANSFORMS_PASSES_TD
