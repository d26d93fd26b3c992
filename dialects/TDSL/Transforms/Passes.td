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

def Differentiate : Pass<"tdsl-differentiate", "mlir::ModuleOp"> {
  let summary = "Replace tdsl.grad with calls of reverse-mode gradient functions";
  let dependentDialects = ["mlir::tensor::TensorDialect"];
  let description = [{
    For each function `@f` that a `tdsl.grad` names, writes `@f_grad`: the
    body of `@f` with its calls inlined, then the adjoint of every value
    between the first argument and the result, in reverse order
    (ReverseMode.cpp), returning the adjoint of the first argument. The
    `tdsl.grad` ops become calls of it. The gradient is ordinary tdsl ops,
    so the rest of the pipeline tiles, fuses and parallelizes it like any
    other code. `print` and `save` in `@f` do not run in `@f_grad` (a
    warning says so). What it cannot differentiate is a located error.
    A max or min reduction sends its adjoint to the first extremal
    element in row-major order (as PyTorch).

    ```mlir
    // before
    func.func @f(%x: tensor<4xf32>) -> f32 {
      %e = tdsl.exp %x : tensor<4xf32>
      %s = tdsl.index_gen ins(%e : tensor<4xf32>) {...sum...} -> f32 {...}
      return %s : f32
    }
    %g = tdsl.grad @f(%x) : (tensor<4xf32>) -> tensor<4xf32>
    // after
    func.func private @f_grad(%x: tensor<4xf32>) -> tensor<4xf32> {
      %e = tdsl.exp %x : tensor<4xf32>
      ...
      %ge = tdsl.index_gen ins(%one ...) -> tensor<4xf32> {...}  // ds/de = 1
      %gx = tdsl.mul %ge, %e : ...                                  // de/dx = e
      return %gx : tensor<4xf32>
    }
    %g = call @f_grad(%x) : (tensor<4xf32>) -> tensor<4xf32>
    ```
  }];
}

#endif // TDSL_DIALECT_TDSL_TRANSFORMS_PASSES_TD
