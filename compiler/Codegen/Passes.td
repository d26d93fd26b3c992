//===- Passes.td - TDSL code generation passes -----------------------------===//
#ifndef TDSL_CODEGEN_PASSES_TD
#define TDSL_CODEGEN_PASSES_TD

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
    combine. `u64` values become `i64` with unsigned arithmetic. RNG, print,
    load and save become calls into the TDSL runtime.

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

def ForallToTBB : Pass<"tdsl-forall-to-tbb", "mlir::ModuleOp"> {
  let summary = "Run scf.forall loops on oneTBB through the TDSL runtime";
  let description = [{
    Outlines the body of each outermost `scf.forall` on buffers into a
    function `(i64 begin, i64 end, !llvm.ptr ctx)` that runs the linearized
    iterations [begin, end), packs the values the body uses into a stack
    context, and replaces the loop by a call of the runtime's
    `tdsl_parallel_for`, which splits the range with `tbb::parallel_for`.
    Nested `scf.forall` loops run serially inside the outlined body. The
    launch is timed with `tdsl_kernel_begin`/`tdsl_kernel_end`.

    ```mlir
    // before
    scf.forall (%i) in (%n) { memref.store ... %buf[%i] }
    // after
    %f = func.constant @main_forall_0 : (i64, i64, !llvm.ptr) -> ()
    call @tdsl_parallel_for(%c0, %n64, %c1, %f, %ctx) : ...
    ```
  }];
  let options = [
    Option<"grain", "grain", "int64_t", /*default=*/"1",
           "Smallest number of iterations one TBB task runs">,
  ];
  let dependentDialects = [
    "mlir::func::FuncDialect", "mlir::LLVM::LLVMDialect",
    "mlir::scf::SCFDialect", "mlir::arith::ArithDialect"
  ];
}

def TileToForall : Pass<"tdsl-tile-to-forall", "mlir::func::FuncOp"> {
  let summary = "Tile linalg ops into scf.forall with target-chosen tile sizes";
  let description = [{
    Tiles the parallel loops of each linalg op that is not yet inside a
    parallel loop into an `scf.forall`, fusing the producers of its operands
    (fills, element-wise ops) into the tiles. Tile sizes come from the
    target: contractions get square tiles of `contraction-tile` rows and
    columns, element-wise ops tile their outermost dimension so that a tile
    holds about `elementwise-tile` elements. Ops with no parallel loop (whole
    reductions) stay serial.

    ```mlir
    // before
    %r = linalg.matmul ins(%a, %b : ...) outs(%c : tensor<1024x1024xf32>)
    // after
    %r = scf.forall (%i, %j) = (0, 0) to (1024, 1024) step (64, 64)
           shared_outs(%o = %c) { ... linalg.matmul on 64x64 slices ... }
    ```
  }];
  let options = [
    Option<"contractionTile", "contraction-tile", "int64_t", /*default=*/"64",
           "Tile size of the parallel dimensions of contractions">,
    Option<"elementwiseTile", "elementwise-tile", "int64_t", /*default=*/"16384",
           "Elements per tile of element-wise ops">,
  ];
  let dependentDialects = [
    "mlir::scf::SCFDialect", "mlir::tensor::TensorDialect",
    "mlir::linalg::LinalgDialect", "mlir::affine::AffineDialect",
    "mlir::arith::ArithDialect"
  ];
}

#endif // TDSL_CODEGEN_PASSES_TD
