//===- Passes.td - TDSL passes of the CPU back end --------------------------===//
#ifndef TDSL_CODEGEN_CPU_PASSES_TD
#define TDSL_CODEGEN_CPU_PASSES_TD

include "mlir/Pass/PassBase.td"

def ForallToTBB : Pass<"tdsl-forall-to-tbb", "mlir::ModuleOp"> {
  let summary = "Run scf.forall loops on oneTBB through the TDSL runtime";
  let description = [{
    Outlines the body of each outermost `scf.forall` on buffers into a
    function `(i64 begin, i64 end, !llvm.ptr ctx)` that runs the linearized
    iterations [begin, end), packs the values the body uses into a stack
    context (constants are cloned into the body instead, so that LLVM
    sees them when it optimizes and vectorizes it), and replaces the loop by a call of the runtime's
    `tdsl_parallel_for`, which splits the range with `tbb::parallel_for`.
    Nested `scf.forall` loops run serially inside the outlined body.

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

def SliceOffsetReads : Pass<"tdsl-slice-offset-reads", "mlir::func::FuncOp"> {
  let summary = "Reads at a loop plus a constant as shifted slices";
  let description = [{
    A linalg.generic input whose map results are loops plus constants
    (`x[i + 1, j]` in index notation: `d0 + 1`) or constants is not a
    projected permutation, so linalg's vectorizer leaves the op scalar. The
    input becomes the slice of the tensor the loops read (offsets the
    constants, sizes the loops' extents, 1 at a constant) and the map the
    plain loops, with 0 for a constant. A loop read twice stays as it is.

    ```mlir
    // before
    linalg.generic {indexing_maps = [affine_map<(d0) -> (d0 + 1)>, ...]}
      ins(%x : tensor<8xf32>) outs(%o : tensor<7xf32>)
    // after
    %s = tensor.extract_slice %x[1] [7] [1] : tensor<8xf32> to tensor<7xf32>
    linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, ...]}
      ins(%s : tensor<7xf32>) outs(%o : tensor<7xf32>)
    ```
  }];
  let dependentDialects = ["mlir::tensor::TensorDialect"];
}

def PackTransposedOperands : Pass<"tdsl-pack-transposed-operands", "mlir::func::FuncOp"> {
  let summary = "Copy a contraction's transposed right-hand operand with its columns innermost";
  let description = [{
    A contraction's register tile (tdsl-vectorize) loads vectors of the
    operand that the result's last loop reads (B[k, j:j+32] of A @ B). When
    that operand keeps a reduction loop innermost instead (A @ B^T:
    `sum(k) a[i, k] * b[j, k]`; the adjoint of a dense layer for its input),
    each vector was a gather a row apart. Such an operand is first copied,
    by a linalg.generic transpose, into a tensor with the result's last
    loop innermost, and the contraction reads the copy: the same code as
    A @ B. Only where the product's other output loops (its rows) reuse
    each element at least 4 times; the copy inherits the product's kernel
    id with `.packed`, so it is timed with the product.

    ```mlir
    // before: c[i, j] = sum(k) a[i, k] * b[j, k]
    linalg.generic {indexing_maps = [(i, j, k) -> (i, k), (i, j, k) -> (j, k),
                                     (i, j, k) -> (i, j)], ...}
      ins(%a, %b : tensor<64x32xf32>, tensor<48x32xf32>)
    // after
    %bt = linalg.generic {indexing_maps = [(d0, d1) -> (d1, d0), (d0, d1) -> (d0, d1)], ...}
      ins(%b : tensor<48x32xf32>) outs(%e : tensor<32x48xf32>)
    linalg.generic {indexing_maps = [(i, j, k) -> (i, k), (i, j, k) -> (k, j),
                                     (i, j, k) -> (i, j)], ...}
      ins(%a, %bt : tensor<64x32xf32>, tensor<32x48xf32>)
    ```
  }];
  let dependentDialects = ["mlir::tensor::TensorDialect", "mlir::linalg::LinalgDialect"];
}

def CollapseDims : Pass<"tdsl-collapse-dims", "mlir::func::FuncOp"> {
  let summary = "Merge runs of loops that memory keeps contiguous";
  let description = [{
    For each linalg.generic (but split whole reductions), merges each
    maximal run of consecutive loops of one kind (parallel or reduction)
    that every operand reads contiguously and in order into one loop,
    reshaping the operands (`linalg::collapseOpIterationDims`). Tiles and
    vectors then run along the merged loop: an add over [32, 64, 56, 56]
    with a bias b[k] becomes one over [32, 64, 3136], whose rows are whole
    vectors of 16 with no masked remainder; a contraction over (c, i, j) of
    [32, 2, 2] reduces over one loop of 128.

    ```mlir
    // before
    linalg.generic {iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %b : tensor<32x64x56x56xf32>, tensor<64xf32>) ...
    // after
    %xc = tensor.collapse_shape %x [[0], [1], [2, 3]] : ... into tensor<32x64x3136xf32>
    linalg.generic {iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%xc, %b : tensor<32x64x3136xf32>, tensor<64xf32>) ...
    %r = tensor.expand_shape ... into tensor<32x64x56x56xf32>
    ```
  }];
  let dependentDialects = [
    "mlir::tensor::TensorDialect", "mlir::linalg::LinalgDialect",
    "mlir::arith::ArithDialect", "mlir::affine::AffineDialect"
  ];
}

def SplitStridedWindows : Pass<"tdsl-split-strided-windows", "mlir::func::FuncOp"> {
  let summary = "Read windows as wide as their stride through a reshaped operand";
  let description = [{
    An input read at `a * i + di` where the loop `di` runs over exactly
    `0..a` (a pooling window of stride 2: `x[n, c, 2 * i + di, 2 * j +
    dj]`, or a convolution whose stride is its kernel's size) reads each
    element once, in order. Its dimension is split into [range of i, a]
    (a `tensor.expand_shape`, after a `tensor.extract_slice` of the first
    a * range elements when the dimension is longer: odd rows dropped), and
    the subscript becomes the two loops, a projected permutation. The
    vectorizer then reads whole vectors of each row instead of leaving the
    op a scalar loop. Loops of run-time range are left alone.

    ```mlir
    // before
    linalg.generic {indexing_maps = [(n, c, i, j, di, dj) -> (n, c, i * 2 + di, j * 2 + dj), ...]}
      ins(%x : tensor<32x16x9x8xf32>) outs(%o : tensor<32x16x4x4xf32>)
    // after
    %s = tensor.extract_slice %x[0, 0, 0, 0] [32, 16, 8, 8] [1, 1, 1, 1]
    %e = tensor.expand_shape %s [[0], [1], [2, 3], [4, 5]] ... into tensor<32x16x4x2x4x2xf32>
    linalg.generic {indexing_maps = [(n, c, i, j, di, dj) -> (n, c, i, di, j, dj), ...]}
      ins(%e : tensor<32x16x4x2x4x2xf32>) outs(%o : tensor<32x16x4x4xf32>)
    ```
  }];
  let dependentDialects = ["mlir::tensor::TensorDialect"];
}

def SplitReduction : Pass<"tdsl-split-reduction", "mlir::func::FuncOp"> {
  let summary = "Split whole-tensor reductions into parallel, blocked partial results";
  let description = [{
    A linalg.generic whose loops are all reductions (`sum(x)`, `sum(i, j)
    a[i, j] * b[i, j]`) reads its inputs as one run of n elements in memory
    order and is split into: per block of `block-size` elements (in
    parallel), `lanes` partial results, each combining every `lanes`-th
    element; those combined lane by lane over the blocks; the lanes combined
    into the initial value; and the elements after the last full block.
    The split depends on n only, so results do not depend on the thread
    count, and a float sum adds at most max(block-size / lanes, n /
    block-size, lanes) terms in one chain (numpy's pairwise sum is of the
    same kind). Reductions of fewer than 2 * block-size elements known at
    compile time are left as they are.

    ```mlir
    // before
    %s = linalg.generic {iterator_types = ["reduction"]}
           ins(%x : tensor<10000000xf32>) outs(%init : tensor<f32>) { addf }
    // after
    %lanes = linalg.generic {iterator_types = ["parallel", "reduction", "parallel"]}
           ins(%x3 : tensor<305x512x64xf32>) outs(%z : tensor<305x64xf32>) { addf }
    %cols = linalg.generic ... -> tensor<64xf32>
    %all = linalg.generic ... outs(%init : tensor<f32>)
    %s = linalg.generic ins(%tail : tensor<?xf32>) outs(%all : tensor<f32>) { addf }
    ```
  }];
  let options = [
    Option<"blockSize", "block-size", "int64_t", /*default=*/"32768",
           "Elements per block (a multiple of lanes)">,
    Option<"lanes", "lanes", "int64_t", /*default=*/"64",
           "Partial results per block (4 AVX-512 registers of f32)">,
  ];
  let dependentDialects = [
    "mlir::tensor::TensorDialect", "mlir::linalg::LinalgDialect",
    "mlir::arith::ArithDialect"
  ];
}

def FuseEpilogues : Pass<"tdsl-fuse-epilogues", "mlir::func::FuncOp"> {
  let summary = "Keep a contraction's element-wise epilogue in its tiles";
  let description = [{
    Marks with `tdsl.epilogue` each element-wise linalg.generic (every loop
    parallel, a body without side effects) whose init is the result of a
    contraction of static shape (a linalg op with parallel and reduction
    loops; one on run-time shapes runs in four versions, and its epilogue
    in each cost more compile time than it saved) and its only use, read element for element: the bias and activation of a
    layer, `relu(x @ w + b)`, as tdsl-update-in-place leaves them. One that
    reads the result as an input and writes a new tensor it does not read
    computes into the result instead. The contraction moves down, right
    before the epilogue (what ran between them, such as a check of the
    epilogue's extents, still runs first). The later passes keep the two together:
    tdsl-time-kernels times them as one kernel, tdsl-tile-to-forall
    applies the epilogue to each tile of the contraction in the tile's own
    task, right after the tile is computed (while it is in cache, without a
    second launch or a second pass over the result), tdsl-collapse-dims
    leaves the epilogue's loops alone, and tdsl-version-tiles versions the
    two together.

    ```mlir
    // before
    %c = linalg.matmul ins(%x, %w : ...) outs(%zero : tensor<256x512xf32>)
    %h = linalg.generic {iterator_types = ["parallel", "parallel"]}
           ins(%b : tensor<512xf32>) outs(%c : tensor<256x512xf32>) { add, max }
    // after: the same ops, %h marked {tdsl.epilogue} and %c right before it
    ```
  }];
}

def TileToForall : Pass<"tdsl-tile-to-forall", "mlir::func::FuncOp"> {
  let summary = "Tile linalg ops into scf.forall with target-chosen tile sizes";
  let description = [{
    Tiles the parallel loops of each linalg op that is not yet inside a
    parallel loop into an `scf.forall`, fusing the producers of its operands
    (fills, element-wise ops) into the tiles, and a contraction's epilogue
    (`tdsl.epilogue`, tdsl-fuse-epilogues) after the tiled contraction in
    each tile; an epilogue that cannot join is tiled on its own. Tile sizes come from the
    target: contractions get square tiles of `contraction-tile` rows and
    columns over the loops of their register tiles (the columns: the last
    parallel loop; the rows: the innermost other one that the input read
    along the columns does not use, a matrix product's rows, a
    convolution's output channels), one tile per value of the others
    (halved, down to 32, while a contraction of static shape has
    fewer than `min-tasks` tiles and each keeps 32K steps, so that every
    core has work; a contraction on run-time shapes runs in an `scf.if` on
    whether its tiles number `min-tasks`, with a copy of 64 x 64 tiles in
    the else branch), element-wise
    ops tile their outermost dimension so that a tile
    holds about `elementwise-tile` elements. Ops with no parallel loop (whole
    reductions) stay serial (tdsl-split-reduction has split the large ones
    first; a block of one, tagged `tdsl.blocked_reduction`, is one tile).

    ```mlir
    // before
    %r = linalg.matmul ins(%a, %b : ...) outs(%c : tensor<1024x1024xf32>)
    // after
    %r = scf.forall (%i, %j) = (0, 0) to (1024, 1024) step (64, 64)
           shared_outs(%o = %c) { ... linalg.matmul on 64x64 slices ... }
    ```
  }];
  let options = [
    Option<"contractionTile", "contraction-tile", "int64_t", /*default=*/"256",
           "Tile size of the parallel dimensions of contractions">,
    Option<"minTasks", "min-tasks", "int64_t", /*default=*/"8",
           "Tiles a static contraction should have at least (0: the tile "
           "size as given)">,
    Option<"elementwiseTile", "elementwise-tile", "int64_t", /*default=*/"16384",
           "Elements per tile of element-wise ops">,
  ];
  let dependentDialects = [
    "mlir::scf::SCFDialect", "mlir::tensor::TensorDialect",
    "mlir::linalg::LinalgDialect", "mlir::affine::AffineDialect",
    "mlir::arith::ArithDialect"
  ];
}

def VersionTiles : Pass<"tdsl-version-tiles", "mlir::func::FuncOp"> {
  let summary = "Run full tiles of run-time-shaped contractions and reductions on static types";
  let description = [{
    Tiling a contraction on run-time (`?`) shapes gives tiles of size
    `min(64, n - i)`: only the edge tiles are partial, but every tile has a
    dynamic type, so its register tiles vectorize with masks and keep the
    accumulator in memory. The same holds for any shape that the tile size
    does not divide, and for reductions that keep one loop (`A @ x`,
    `x @ A`, row sums: 1900 x 2100 f64 on 1 thread, `x @ A` 2.0 -> 0.9-1.2
    ms, `A @ x` 1.4 -> 0.7-0.8 ms). This pass versions each such tile inside an
    `scf.forall`: when the tile's sizes (the `affine.min` its output slice
    was taken with) equal their constant bounds, a copy of the op on
    operands cast to static types runs (it vectorizes like a static
    contraction); otherwise the original op runs. The op's epilogue in the
    tile (`tdsl.epilogue`) is versioned with it. When the loop's bounds are
    static (a static shape that the tile does not divide), the partial tile
    has a size known at compile time too: each combination of full and
    partial loops (at most two loops, four copies) runs on static types,
    without masks (PolyBench gemm, 2mm, 3mm 17-23% faster at LARGE sizes).

    ```mlir
    // before
    %t = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%c : tensor<?x?xf32>)
    // after
    %full = arith.andi %m_is_64, %n_is_64 : i1
    %t = scf.if %full -> (tensor<?x?xf32>) {
      %s = linalg.matmul ins(%a64, %b64 : tensor<64x?xf32>, tensor<?x64xf32>) outs(%c64 : tensor<64x64xf32>)
      %d = tensor.cast %s : tensor<64x64xf32> to tensor<?x?xf32>
      scf.yield %d : tensor<?x?xf32>
    } else {
      %d = linalg.matmul ins(%a, %b : ...) outs(%c : tensor<?x?xf32>)
      scf.yield %d : tensor<?x?xf32>
    }
    ```
  }];
  let dependentDialects = ["mlir::scf::SCFDialect", "mlir::tensor::TensorDialect",
                           "mlir::arith::ArithDialect"];
}

def Vectorize : Pass<"tdsl-vectorize", "mlir::func::FuncOp"> {
  let summary = "Tile linalg ops to register-sized tiles and vectorize them";
  let description = [{
    For each linalg op on tensors, tiles its loops with `scf.for` to a
    register-sized tile and vectorizes the tile with `linalg::vectorize`
    (masked where shapes are only known at run time). Contractions get an
    `m x n x 1` tile (m = `contraction-rows`, n = `vector-width` * 2) that
    becomes a `vector.contract` (an outer product of FMAs after lowering);
    other ops vectorize their innermost loop by `vector-width`. A
    contraction whose one reduction loop is longer than `reduction-block`
    first runs in blocks of that many steps (an `scf.for` carrying the
    output), so that the rows of A and the columns of B that a block's
    register tiles read stay in the cache across them. A contraction's
    static loop that its register tile does not divide is split into whole
    tiles, then whole vectors, and a static remainder (56 columns: 32, 16,
    8), so no tile is masked. A register tile of a convolution, whose
    window loops take one step there, drops them from its subscripts
    (`x[n, c, i + di, j + dj]` reads `x[n, c, i, j]`), so it is a
    contraction too. Ops that do not meet the vectorizer's preconditions
    stay scalar.

    ```mlir
    // before (inside a 64x64 scf.forall tile)
    %t = linalg.matmul ins(%a, %b : tensor<64x1024xf32>, tensor<1024x64xf32>) ...
    // after
    scf.for %i ... step 8 { scf.for %j ... step 32 { scf.for %k ... step 1 {
      %r = vector.contract ... : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
    } } }
    ```
  }];
  let options = [
    Option<"vectorWidth", "vector-width", "int64_t", /*default=*/"16",
           "f32 lanes of the widest vector register (16 with AVX-512); half as many for 64-bit elements">,
    Option<"contractionRows", "contraction-rows", "int64_t", /*default=*/"8",
           "Rows of a contraction's register tile">,
    Option<"reductionBlock", "reduction-block", "int64_t", /*default=*/"256",
           "Steps of a contraction's reduction per block (0: one block)">,
  ];
  let dependentDialects = [
    "mlir::scf::SCFDialect", "mlir::tensor::TensorDialect",
    "mlir::vector::VectorDialect", "mlir::affine::AffineDialect",
    "mlir::arith::ArithDialect"
  ];
}

def DeferLaneReduction : Pass<"tdsl-defer-lane-reduction", "mlir::func::FuncOp"> {
  let summary = "Reduce vector lanes once after a reduction loop, not at every step";
  let description = [{
    After `tdsl-vectorize` and the hoisting of accumulators into
    `iter_args`. In an `scf.for` that `tdsl-vectorize` marked as stepping
    through a reduction (`tdsl.reduction_loop`), a vector accumulator used
    only by one `vector.contract` (of kind add) or `vector.multi_reduction`
    that reduces lanes of the step (`A @ x`, row sums and maxima along the
    contiguous dimension) is replaced by a vector of the step's whole shape,
    starting from the combiner's identity and combined lane by lane (an FMA
    for a contraction, under the step's mask); one `vector.multi_reduction`
    after the loop reduces the lanes into the old accumulator. Each output
    then adds its terms in as many chains as it has lanes, a fixed order
    that depends on the shapes only: the results are the same at any
    thread count.

    ```mlir
    // before
    %r = scf.for %k = %c0 to %c2100 step %c16 iter_args(%acc = %init) -> (vector<8xf64>) {
      %s = vector.contract {...} %a, %x, %acc : vector<8x16xf64>, vector<16xf64> into vector<8xf64>
      scf.yield %s : vector<8xf64>
    } {tdsl.reduction_loop}
    // after
    %l = scf.for %k = %c0 to %c2100 step %c16 iter_args(%lanes = %zero) -> (vector<8x16xf64>) {
      %xb = vector.broadcast %x : vector<16xf64> to vector<8x16xf64>
      %n = vector.fma %a, %xb, %lanes : vector<8x16xf64>
      scf.yield %n : vector<8x16xf64>
    } {tdsl.reduction_loop}
    %r = vector.multi_reduction <add>, %l, %init [1] : vector<8x16xf64> to vector<8xf64>
    ```
  }];
  let dependentDialects = ["mlir::arith::ArithDialect", "mlir::vector::VectorDialect"];
}

def MergeExclusiveAllocs : Pass<"tdsl-merge-exclusive-allocs", "mlir::func::FuncOp"> {
  let summary = "One buffer for the two versions of a kernel that picks its tiles at run time";
  let description = [{
    After bufferization, before deallocation. `tdsl-tile-to-forall` runs a
    contraction on run-time shapes in an `scf.if` (big tiles or small), and
    bufferization gives each branch its own output buffer, both allocated
    before the `scf.if` and chosen by an `arith.select` on its condition.
    Only one is ever written; in a loop the written one alternated between
    two allocations, and the never-touched one cost a page fault per 4 KiB
    every iteration (SGEMM 1024 on `?` shapes: twice the static time).
    Where two `memref.alloc`s of one type and sizes are used only by such
    a select and each inside its own branch of an `scf.if` on the select's
    condition, the later one is replaced by the earlier one.

    ```mlir
    // before
    %a = memref.alloc(%m, %n) : memref<?x?xf32>
    %b = memref.alloc(%m, %n) : memref<?x?xf32>
    %r = arith.select %c, %b, %a : memref<?x?xf32>
    scf.if %c { ... %b ... } else { ... %a ... }
    // after
    %a = memref.alloc(%m, %n) : memref<?x?xf32>
    %r = arith.select %c, %a, %a : memref<?x?xf32>
    scf.if %c { ... %a ... } else { ... %a ... }
    ```
  }];
}

def HoistVectorTransfers : Pass<"tdsl-hoist-vector-transfers", "mlir::func::FuncOp"> {
  let summary = "Keep loop-invariant vector accumulators in registers";
  let description = [{
    After bufferization, moves `vector.transfer_read`/`transfer_write` pairs
    of the same buffer slice out of the loops that do not change it (the
    reduction loop of a vectorized contraction), so the accumulator tile
    stays in registers across the whole reduction.

    ```mlir
    // before
    scf.for %k ... { %c = vector.transfer_read %C[..] ...; %r = vector.contract ..., %c
                     vector.transfer_write %r, %C[..] }
    // after
    %c = vector.transfer_read %C[..]
    %r = scf.for %k ... iter_args(%acc = %c) { vector.contract ..., %acc }
    vector.transfer_write %r, %C[..]
    ```
  }];
  let dependentDialects = ["mlir::scf::SCFDialect", "mlir::vector::VectorDialect"];
}

def LoopInvariantCodeMotion : Pass<"tdsl-loop-invariant-code-motion", "mlir::func::FuncOp"> {
  let summary = "Upstream's loop-invariant code motion, but fills the loop writes into stay";
  let description = [{
    Moves pure, speculatable ops out of loops as `loop-invariant-code-motion`
    does, except a `linalg.fill` whose tensor an op that stays in the loop
    writes into: it is that op's destination (a `linalg` op's `outs`, an
    `insert_slice`'s or `transfer_write`'s destination, a loop's `iter_args`
    init). Hoisted, the filled tensor must survive every iteration, so
    bufferization copies it into a new buffer in each: `pad2d`'s zeros,
    filled once before the loop, were copied whole (a memcpy) where the
    fill in the loop writes them once (a memset). A fill whose writers move
    too (an invariant product) moves with them.

    ```mlir
    scf.for %i = %c0 to %n step %c1 {
      %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4x6xf32>) -> tensor<4x6xf32>
      %x = ... (depends on %i)
      %p = tensor.insert_slice %x into %z[1, 1] [2, 4] [1, 1] : tensor<2x4xf32> into tensor<4x6xf32>
    }
    // the fill stays in the loop; upstream's pass moves it out.
    ```
  }];
}

def LowerStridedCopies : Pass<"tdsl-lower-strided-copies", "mlir::ModuleOp"> {
  let summary = "Copies between strided buffers as linalg.copy (loops), large ones in parallel and timed";
  let description = [{
    `memref.copy` between buffers of plain layout lowers to a memcpy; any
    other (the slice an update at an offset writes, a window of a padded
    image) lowers to a call of MLIR's generic `memrefCopy`, which moves one
    element at a time through the buffers' descriptors. Such copies become
    `linalg.copy`, which `convert-linalg-to-loops` turns into loops whose
    rows LLVM copies with memcpy or vector moves.

    A copy of `min-elements` elements or more (or of run-time sizes) that no
    parallel loop holds runs as an `scf.forall` over its first dimension
    that is not 1 (tdsl-forall-to-tbb runs it on the thread pool), and,
    outside the timed region of a kernel, as a kernel of its own in the
    profile, named after the statement it copies for (`pad2d`'s update of
    an image into its zeros was a serial loop of the program's that the
    profile did not show).

    ```mlir
    // before
    memref.copy %a, %s : memref<1298x1298xf64> to memref<1298x1298xf64, strided<[1300, 1], offset: 1301>>
    // after (with the calls that time it)
    scf.forall (%i) in (1298) {
      linalg.copy ins(%a[%i, 0] [1, 1298] [1, 1] ...) outs(%s[%i, 0] [1, 1298] [1, 1] ...)
    }
    ```
  }];
  let options = [
    Option<"minElements", "min-elements", "int64_t", /*default=*/"65536",
           "Fewest elements of a copy of static size that runs in parallel">,
  ];
  let dependentDialects = ["mlir::linalg::LinalgDialect", "mlir::scf::SCFDialect",
                           "mlir::LLVM::LLVMDialect", "mlir::arith::ArithDialect"];
}

def LowerVector : Pass<"tdsl-lower-vector", "mlir::func::FuncOp"> {
  let summary = "Lower n-D vector ops to the 1-D forms LLVM has";
  let description = [{
    Applies MLIR's progressive vector lowerings chosen for x86 CPUs:
    `vector.contract` to outer products (then FMAs), `vector.multi_reduction`
    to inner reductions, transposes to shuffles, masks, broadcasts and shape
    casts to 1-D ops, and transfers of rank 1 to plain loads and stores.
    A gather from a buffer whose innermost stride is not known to be 1 (a
    buffer yielded by an `scf.if` with a slice on the other branch) becomes
    conditional scalar loads. It runs after `convert-vector-to-scf` has cut
    transfers down to rank 1.

    ```mlir
    // before
    %r = vector.multi_reduction <add>, %v, %acc [1] : vector<1x8xf32> to vector<1xf32>
    // after
    %e = vector.extract %v[0] : vector<8xf32> from vector<1x8xf32>
    %s = vector.reduction <add>, %e, %a : vector<8xf32> into f32
    ```
  }];
  let dependentDialects = ["mlir::vector::VectorDialect", "mlir::arith::ArithDialect",
                           "mlir::memref::MemRefDialect", "mlir::scf::SCFDialect"];
}

def ApproximateMath : Pass<"tdsl-approximate-math", "mlir::func::FuncOp"> {
  let summary = "exp, log and tanh on f32 as inline polynomials, also on vectors";
  let description = [{
    Rewrites `math.exp`, `math.log` and `math.tanh` on f32 scalars and
    vectors with MLIR's polynomial approximations (range reduction, then
    FMAs), which stay vectors: `convert-math-to-libm` would turn each lane
    into a libm call. Scalar and vector code compute the same values, so a
    result does not depend on vectorization. f64 keeps libm.

    ```mlir
    // before
    %e = math.exp %v : vector<16xf32>
    // after: arith and math.fma on vector<16xf32>, no call
    ```
  }];
  let dependentDialects = ["mlir::math::MathDialect", "mlir::arith::ArithDialect",
                           "mlir::vector::VectorDialect"];
}

def ExpandBF16 : Pass<"tdsl-expand-bf16", "mlir::func::FuncOp"> {
  let summary = "bf16 arithmetic in f32, and f32 to bf16 rounding in integers";
  let description = [{
    x86 has no bf16 instructions without AVX512-BF16, and LLVM lowers each
    rounding to bf16 to a call of `__truncsfbf2`, which nothing provided:
    every program that computed a bf16 value at run time failed to link
    (the runtime now provides it for what LLVM itself narrows back to bf16,
    runtime/lib/SoftFloat.cpp). This pass computes each arith and math op on bf16 scalars or
    vectors in f32 (`arith.extf` before, `arith.truncf` after: exact for
    `+ - * /` and `sqrt`, whose f32 results round to the same bf16 as the
    exact ones) and rewrites `arith.truncf` to bf16 into integer ops that
    round to nearest, ties to even, keep subnormals, infinities and the
    sign of NaN, and stay vectors.

    ```mlir
    // before
    %s = arith.addf %a, %b : bf16
    // after
    %x = arith.extf %a : bf16 to f32
    %y = arith.extf %b : bf16 to f32
    %z = arith.addf %x, %y : f32
    // bits of %z + 0x7fff + bit 16, shifted right by 16; NaN made quiet
    %s = arith.bitcast %h : i16 to bf16
    ```
  }];
  let dependentDialects = ["mlir::arith::ArithDialect"];
}

def TimeKernels : Pass<"tdsl-time-kernels", "mlir::ModuleOp"> {
  let summary = "Time every kernel launch and count its work for the profile";
  let description = [{
    Wraps each outermost linalg op (fills aside) and each outermost
    `scf.forall`, also inside sequential loops, in calls of the runtime's
    `tdsl_kernel_id` (which keeps the launch site's id in an i32 global
    after its first launch), `tdsl_kernel_begin` and `tdsl_kernel_end`. The kernel's name and DSL line come from its location.
    The id is looked up before the outermost loop or branch around the
    kernel, so that its first lookup (which registers the kernel) never
    falls between two launches that tdsl-chain-kernel-clocks chains.
    For linalg ops the end call also gets the work the compiler knows:
    floating-point and integer operations (iterations times the arithmetic
    ops of the body) and bytes (the sizes of all operands), from which the
    profile derives GFLOP/s and GB/s. A contraction and its epilogue
    (`tdsl.epilogue`) are one kernel, with the work of both. Runs before tiling, so a kernel is timed
    whole, whether it then runs in parallel or not.

    ```mlir
    // after
    %id = call @tdsl_kernel_id(%slot, %name, %where)
    %t0 = call @tdsl_kernel_begin(%id)
    %r = linalg.matmul ...
    call @tdsl_kernel_end(%id, %t0, %flops, %bytes)
    ```
  }];
  let dependentDialects = ["mlir::func::FuncDialect", "mlir::LLVM::LLVMDialect",
                           "mlir::arith::ArithDialect", "mlir::tensor::TensorDialect"];
}

def PeelMaskedLoops : Pass<"tdsl-peel-masked-loops", "mlir::func::FuncOp"> {
  let summary = "Peel the masked last step off vector loops";
  let description = [{
    An innermost `scf.for` whose vector transfers are all masked by its own
    tail (`vector.create_mask` of an `affine.min` of its induction
    variable: a size the vector length does not divide, or a run-time
    size) is split by `scf::peelForLoopAndSimplifyBounds` into a loop of
    whole steps, whose masks become whole and fold away, and one last
    masked step. LLVM kept the masks in every step, and masked loads and
    stores are slow on AVX2 (`vmaskmovps`).

    ```mlir
    // before: every step masked
    scf.for %i = %c0 to %n step %c8 {
      %m = affine.min #tail(%i)[%n]
      %mask = vector.create_mask %m : vector<8xi1>
      %v = vector.transfer_read %a[%i], %pad, %mask ...
    }
    // after: whole vectors, then the tail
    scf.for %i = %c0 to %main step %c8 { %v = vector.transfer_read %a[%i], %pad ... }
    scf.for %i = %main to %n step %c8 { ... masked ... }
    ```
  }];
  let dependentDialects = ["mlir::affine::AffineDialect", "mlir::scf::SCFDialect",
                           "mlir::vector::VectorDialect"];
}

def DeinterleaveStridedReads : Pass<"tdsl-deinterleave-strided-reads", "mlir::func::FuncOp"> {
  let summary = "Read strided vectors as contiguous reads and shuffles";
  let description = [{
    After bufferization: a `vector.transfer_read` along a memref dimension
    of constant stride 2 to 4 (the innermost), in bounds along it, with
    only one element in each other vector dimension and no mask (after
    broadcasts and permutations became minor-identity reads), becomes a
    read of `s * V` contiguous elements through a unit-stride view of the
    same buffer, masked past the last element the strided dimension spans,
    and a `vector.shuffle` that keeps lanes 0, s, 2s, ... LLVM built the
    strided read from one scalar load per lane.

    ```mlir
    // before: x[.., 2 * j] for 16 values of j
    %v = vector.transfer_read %x[%i], %pad {in_bounds = [true]}
        : memref<16xf32, strided<[2], offset: ?>>, vector<16xf32>
    // after
    %w = vector.transfer_read %flat[%i2], %pad {in_bounds = [false]}
        : memref<31xf32, strided<[1], offset: ?>>, vector<32xf32>
    %v = vector.shuffle %w, %w [0, 2, 4, ..., 30]
    ```
  }];
  let dependentDialects = ["mlir::arith::ArithDialect", "mlir::memref::MemRefDialect",
                           "mlir::vector::VectorDialect"];
}

def ShareShiftedReads : Pass<"tdsl-share-shifted-reads", "mlir::func::FuncOp"> {
  let summary = "Build a stencil's shifted reads of a row from two loads and shuffles";
  let description = [{
    After bufferization, in each innermost `scf.for`: vector reads of one
    buffer (through any subviews and casts; with run-time strides, through
    subviews that keep the rank and have unit strides) along its
    unit-stride innermost dimension, whose element offsets from the buffer
    differ only by constants smaller than the vector (`a[i - 1]`, `a[i]`, `a[i + 1]`), three
    or more of them before the body's first write, are served by the reads
    at the lowest and highest offset: each read between them becomes a
    `vector.shuffle` of those two. A loop whose reads are masked is peeled
    first (`scf::peelForLoopAndSimplifyBounds`) and its main part rewritten,
    since a masked lane can stand for an element that the other reads do
    not load.

    ```mlir
    // before: three loads of %a's row
    %l = vector.transfer_read %a[%i0] ...   // a[i - 1 .. i + 6]
    %m = vector.transfer_read %a1[%i0] ...  // a[i .. i + 7]
    %h = vector.transfer_read %a2[%i0] ...  // a[i + 1 .. i + 8]
    // after: two
    %l = vector.transfer_read %a[%i0] ...
    %h = vector.transfer_read %a2[%i0] ...
    %m = vector.shuffle %l, %h [1, 2, 3, 4, 5, 6, 7, 14]
    ```
  }];
  let dependentDialects = ["mlir::scf::SCFDialect", "mlir::vector::VectorDialect",
                           "mlir::arith::ArithDialect", "mlir::affine::AffineDialect"];
}

def ChainKernelClocks : Pass<"tdsl-chain-kernel-clocks", "mlir::func::FuncOp"> {
  let summary = "Start a kernel that follows another at the time the other ended";
  let description = [{
    After bufferization, where the ops between two launches are the work
    they really do: a `tdsl_kernel_begin` that follows a `tdsl_kernel_end`
    with only ops without regions and with no memory effects but reads
    between them (index arithmetic, views, scalar loads) is replaced by the
    end's result, the time that call
    read. Each launch of a loop of back-to-back kernels then reads the clock
    once, not twice (25-30 ns a read on kvm-clock VMs). An allocation, a
    copy, a call or a loop between two kernels keeps them apart, so no
    kernel's time includes work that is not its own.

    ```mlir
    // before
    %e0 = call @tdsl_kernel_end(%id0, %t0, %f0, %b0)
    %v = memref.subview ...
    %t1 = call @tdsl_kernel_begin(%id1)
    // after: %t1's uses read %e0
    %e0 = call @tdsl_kernel_end(%id0, %t0, %f0, %b0)
    %v = memref.subview ...
    ```
  }];
}

def LocateAllocs : Pass<"tdsl-locate-allocs", "mlir::ModuleOp"> {
  let summary = "Give large buffers the DSL position that running out of memory reports";
  let description = [{
    Before each `memref.alloc` whose size is dynamic or at least 1 MiB, calls
    the runtime's `tdsl_alloc_site` with the DSL position of the allocation.
    The runtime keeps it for the next allocation on the same thread, so a
    failed allocation prints `prog.tdsl:line:col: error: out of memory ...`
    with the source line, like every other run-time error. A buffer of
    run-time size first checks that its byte count fits in an i64: the
    product of sizes such as [2^32, 2^32] wrapped around to a few bytes,
    which the program then wrote past.

    ```mlir
    // before
    %m = memref.alloc(%n) : memref<?xf32>
    // after
    %where = llvm.mlir.addressof @__tdsl_str_0 : !llvm.ptr
    func.call @tdsl_alloc_site(%where) : (!llvm.ptr) -> ()
    %m = memref.alloc(%n) : memref<?xf32>
    ```
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect", "mlir::func::FuncDialect",
                           "mlir::arith::ArithDialect", "mlir::scf::SCFDialect"];
}

def ApplyTuning : Pass<"tdsl-apply-tuning", "mlir::ModuleOp"> {
  let summary = "Give contractions the tile sizes the tuner chose for them";
  let description = [{
    Reads the tuner's cache (`tdslc --tune=SECONDS` writes it): a JSON file
    `{"machines": {MACHINE: {KERNEL: {"tile": T, "rows": R, ...}}}}`,
    where KERNEL is a contraction's op, loop ranges and kinds, indexing
    maps and element types (tdsl::contractionKey). Each contraction of the
    module found under `machine` gets the attribute `tdsl.tile = {tile = T,
    rows = R}`, which tdsl-tile-to-forall (the side of its parallel tile)
    and tdsl-vectorize (the rows of its register tile) use in place of
    their options. No file, or no entry: nothing changes. Runs first in the
    CPU tiling pipeline when the compile has a cache.

    ```mlir
    // before
    %c = linalg.matmul ins(%a, %b : tensor<512x512xf32>, tensor<512x512xf32>) ...
    // after
    %c = linalg.matmul {tdsl.tile = {rows = 4 : i64, tile = 128 : i64}} ins(...) ...
    ```
  }];
  let options = [
    Option<"cache", "cache", "std::string", /*default=*/"\"\"",
           "The tuner's cache file (none: nothing to apply)">,
    Option<"machine", "machine", "std::string", /*default=*/"\"\"",
           "The machine's key in the cache (tdslc --print-target-model)">,
  ];
  let dependentDialects = ["mlir::linalg::LinalgDialect"];
}

#endif // TDSL_CODEGEN_CPU_PASSES_TD
