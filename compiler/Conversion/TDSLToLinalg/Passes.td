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
  let options = [
    Option<"shareRandomBlocks", "share-random-blocks", "bool", /*default=*/"false",
           "Between the two steps, draws of loops share their Philox blocks "
           "(tdsl-share-random-blocks; the CPU pipeline above -O0)">,
    Option<"runtimeModelInit", "runtime-model-init", "bool", /*default=*/"false",
           "Random tensors marked tdsl.model_init (a model's initializers, "
           "which run once) are filled by the runtime's tdsl_rng_fill_buffer, "
           "bit for bit the values of the generated code, instead of "
           "compiling Philox and Box-Muller into the program (the CPU "
           "pipeline)">,
  ];
  let dependentDialects = [
    "mlir::linalg::LinalgDialect", "mlir::tensor::TensorDialect",
    "mlir::arith::ArithDialect", "mlir::math::MathDialect",
    "mlir::scf::SCFDialect", "mlir::func::FuncDialect",
    "mlir::memref::MemRefDialect", "mlir::bufferization::BufferizationDialect",
    "mlir::LLVM::LLVMDialect"
  ];
}

def ShareRandomBlocks : Pass<"tdsl-share-random-blocks", "mlir::func::FuncOp"> {
  let summary = "Draws of a loop at counters a * i + b share their Philox blocks";
  let description = [{
    A `tdsl.random` in an `scf.for` (step 1) whose counter is `a * i + b`
    (`a` a power of two dividing the 16G values of a group of 16 blocks, `b`
    invariant in the loop) computes a whole Philox4x32-10 block per value
    and uses W of its 4 words. The loop is cut into strips of S = 16G / a
    iterations aligned so that a strip's counters start a group; each strip
    first computes the 16 blocks of the groups its counters fall in into a
    stack table (a loop over blocks that vectorizes), and the draws read
    their values from it. Draws with the same seed, kind, `a` and invariant
    terms whose constants differ by at most `a` (`uniform(s, 2 * i)` and
    `uniform(s, 2 * i + 1)`) share one table; a family is served only when
    its table does at least half the work of its draws (one block per draw
    against a / G per iteration). Iterations before the first
    and after the last whole strip run the loop as it was, so values,
    their order and short loops are unchanged. Loops whose bodies make
    tensors or hold more than 400 ops are left alone (the body is copied
    three times). On the CPU pipeline above -O0 it runs inside
    convert-tdsl-to-linalg (`share-random-blocks`), between the lowering of
    the ops with regions (a reducing `parallel for`'s chunks become such
    loops) and the conversion of the scalar ops; alone, on loops of tdsl
    ops, for tests.

    ```mlir
    // before
    scf.for %i = %lb to %ub step %c1 iter_args(%acc = %z) -> (i64) {
      %k = arith.index_cast %i : index to i64
      %x = tdsl.random uniform %seed, %k : i64, i64 -> f32
      ...
    // after (head and tail loops as before, around)
    scf.for %i0 = %alb to %aub step %c64 iter_args(...) {
      scf.for %j = %c0 to %c64 step %c1 { ... 16 Philox blocks ... memref.store }
      scf.for %i = %i0 to %i0_64 step %c1 iter_args(...) {
        %x = memref.load %table[...] : memref<64xf32>
    ```
  }];
  let dependentDialects = [
    "mlir::memref::MemRefDialect", "mlir::arith::ArithDialect",
    "mlir::math::MathDialect", "mlir::scf::SCFDialect"
  ];
}

#endif // TDSL_CONVERSION_TDSLTOLINALG_PASSES_TD
