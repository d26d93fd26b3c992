//===- Passes.td - TDSL the tdsl-to-linalg conversion -----------------------===//
#ifndef TDSL_CONVERSION_TDSLTOLINALG_PASSES_TD
#define TDSL_CONVERSION_TDSLTOLINALG_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertTDSLToLinalg : Pass<"convert-tdsl-to-linalg", "mlir::ModuleOp"> {
  let summary = "Lower tdsl ops to linalg, tensor, arith, math and scf";
  let description = [{
    Element-wise tdsl ops on tensors become `linalg.generic` ops with
    broadcasting indexing maps (on scalars, arith/math ops); `tdsl.matmul`
    becomes `linalg.matmul`/`matvec`/`vecmat`; `tdsl.index_gen` becomes a
    `linalg.generic` whose body is the op's region with the combiner applied;
    a map-form `tdsl.parallel_for` becomes a `linalg.generic` over its range
    and a reducing one becomes an `scf.forall` over a fixed number of chunks
    (so results do not depend on the thread count) followed by a serial
    combine. `u64` values become `i64` with unsigned arithmetic. The RNG
    becomes Philox4x32-10 in arith ops (bit-identical to the runtime's);
    print, load and save become calls into the TDSL runtime.

    ```mlir
    // before
    %r = tdsl.add %a, %b : tensor<4x3xf32>, tensor<3xf32> -> tensor<4x3xf32>
    // after
    %e = tensor.empty() : tensor<4x3xf32>
    %r = linalg.generic {indexing_maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d1),
                                          (d0, d1) -> (d0, d1)], ...}
           ins(%a, %b : ...) outs(%e : ...) { arith.addf ... }
    ```
  }];
  let dependentDialects = [
    "mlir::linalg::LinalgDialect", "mlir::tensor::TensorDialect",
    "mlir::arith::ArithDialect", "mlir::math::MathDialect",
    "mlir::scf::SCFDialect", "mlir::func::FuncDialect",
    "mlir::memref::MemRefDialect", "mlir::bufferization::BufferizationDialect",
    "mlir::LLVM::LLVMDialect"
  ];
}

#endif // TDSL_CONVERSION_TDSLTOLINALG_PASSES_TD
