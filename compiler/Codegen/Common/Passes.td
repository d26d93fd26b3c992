//===- Passes.td - TDSL code generation passes both back ends use -----------===//
#ifndef TDSL_CODEGEN_COMMON_PASSES_TD
#define TDSL_CODEGEN_COMMON_PASSES_TD

include "mlir/Pass/PassBase.td"

def HoistAllocas : Pass<"tdsl-hoist-allocas"> {
  let summary = "Move stack buffers of LLVM functions to their entry block";
  let description = [{
    Runs on the LLVM dialect, on every `llvm.func` under the op it is given
    (a module, or a GPU kernel module before serialization). An
    `llvm.alloca` of constant size outside the entry block (in a loop: a
    parallel body's context record, a print's shape array, a kernel
    launch's argument array, a buffer that `promote-buffers-to-stack` put on
    the stack) takes new stack each time it runs, and a long loop overflowed
    the stack. It moves to the start of the entry block, where LLVM gives it
    one fixed slot; its element count is copied along. Parallel loop bodies
    are outlined functions by then, so no two iterations share a slot.

    ```mlir
    // before
    ^loop:
      %n = llvm.mlir.constant(1 : i64) : i64
      %ctx = llvm.alloca %n x !llvm.struct<(i64, f32)> : (i64) -> !llvm.ptr
    // after (at the start of the entry block)
      %n = llvm.mlir.constant(1 : i64) : i64
      %ctx = llvm.alloca %n x !llvm.struct<(i64, f32)> : (i64) -> !llvm.ptr
    ```
  }];
}

def FoldLLVMArith : Pass<"tdsl-fold-llvm-arith"> {
  let summary = "Fold integer arithmetic on constants in the LLVM dialect";
  let description = [{
    The conversions to the LLVM dialect compute addresses as
    `offset + i * stride` with `llvm.add` and `llvm.mul`, which have no
    folders: a vector load at constant indices of a static buffer is a
    chain of multiplications by 0 and 1 and additions of constants (16% of
    the digits CNN's operations). This pass folds `llvm.add`, `llvm.sub`
    and `llvm.mul` of integer constants, `x + 0`, `x - 0`, `x * 1` and
    `x * 0`, so that the translation to LLVM IR and LLVM's passes see less.
    It runs on every op under the one it is given.

    ```mlir
    // before
    %0 = llvm.mlir.constant(0 : index) : i64
    %6 = llvm.mlir.constant(6 : index) : i64
    %a = llvm.mul %0, %stride : i64
    %b = llvm.add %a, %6 : i64
    %p = llvm.getelementptr %base[%b] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    // after
    %6 = llvm.mlir.constant(6 : index) : i64
    %p = llvm.getelementptr %base[%6] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    ```
  }];
}

def LocateChecks : Pass<"tdsl-locate-checks", "mlir::ModuleOp"> {
  let summary = "Run-time errors inside inlined calls name the calls";
  let description = [{
    convert-tdsl-to-linalg gives each run-time check the place of its op
    (`nn.tdsl:47:31` and the line, for a shape check of `nn.dense`), before
    inlining. After it, the check's location holds the calls it was inlined
    through; this pass remakes the place string of each `tdsl_fatal` call
    whose location has such calls, so that the runtime prints a
    `note: called from` with the line and a caret for each, innermost
    first, as the compiler's own diagnostics do (the entry point's call of
    main is left out).

    ```mlir
    // before: "nn.tdsl:47:31\n<line>\n<caret>"
    func.call @tdsl_fatal(%where, %message) loc(callsite("nn.tdsl":47:31 at "prog.tdsl":5:9))
    // after: "nn.tdsl:47:31\n...\nprog.tdsl:5:9: note: called from\n<line>\n<caret>"
    func.call @tdsl_fatal(%where2, %message) loc(...)
    ```
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect"];
}

def RefineLoopShapes : Pass<"tdsl-refine-loop-shapes", "mlir::func::FuncOp"> {
  let summary = "Give tensors carried by scf.for the static shapes they keep";
  let description = [{
    For each tensor iteration argument of an `scf.for` with run-time sizes,
    asks the value-bounds analysis whether each such size is a constant on
    every trip (it follows the body: `tensor.insert_slice` keeps its
    destination's shape, a `tensor.cast` of a static initial value gives
    the first trip's). Where it is, the argument, the initial value, the
    yielded value and the result get that static type, with `tensor.cast`s
    back to the old type for the existing users, which canonicalization
    then folds away. Checks on the carried tensor fold and reads of it
    become element-wise inputs, as for a tensor outside any loop.

    ```mlir
    // before
    %r = scf.for ... iter_args(%b = %cast) -> (tensor<?x?xf64>) {
      %u = tensor.insert_slice %nb into %b[1, 1] [1298, 1298] [1, 1] ...
      scf.yield %u : tensor<?x?xf64>
    }
    // after
    %r = scf.for ... iter_args(%b = %static) -> (tensor<1300x1300xf64>) {
      %d = tensor.cast %b : tensor<1300x1300xf64> to tensor<?x?xf64>
      ...
      %s = tensor.cast %u : tensor<?x?xf64> to tensor<1300x1300xf64>
      scf.yield %s : tensor<1300x1300xf64>
    }
    ```
  }];
  let dependentDialects = ["mlir::tensor::TensorDialect"];
}

def FoldChecks : Pass<"tdsl-fold-checks", "mlir::func::FuncOp"> {
  let summary = "Remove run-time checks that cannot fail in the loops they are in";
  let description = [{
    Bounds integer values by the loops they come from (`linalg.index` of a
    loop of known size, the induction variables of `scf.for` and
    `scf.forall` with constant bounds) and the arithmetic on them (add,
    sub, mul of non-negative values, min, max, rem, div, casts), and erases
    each run-time check (an `scf.if` that only calls `tdsl_fatal`) whose
    condition is false for every value in those bounds. An index is also
    known to be below the run-time size of its own loop (the size an
    output's `tensor.empty` was made with). Checks left in a linalg body
    keep it from vectorizing. Those that can fail move before their op when
    they compare, with `uge`, a subscript that does not decrease as the op's
    indices grow (indices added, multiplied by non-negative constants,
    constants and values from outside the op) against a size from outside:
    such a check fails for some iteration exactly when it fails at the first
    (all indices 0) or the last (each index at its loop's size - 1), so one
    check of those two, made when the op has iterations, replaces a check
    per element (also when the last value is below the first: the subscript
    wrapped around; factors are limited to 16 bits and casts must not
    truncate). A generic whose checks all went this way or were erased
    gets `tdsl.bounds_checked`: whenever it runs, its subscripts are in
    bounds.

    ```mlir
    // before (in a linalg.generic over 32 x 64)
    %i = linalg.index 0 : index
    %bad = arith.cmpi uge, %i, %c32 : index
    scf.if %bad { func.call @tdsl_fatal(...) }
    // after: the check is gone
    ```
  }];
  let dependentDialects = ["mlir::scf::SCFDialect"];
}

def HideLoopCarriedSizes : Pass<"tdsl-hide-loop-carried-sizes", "mlir::func::FuncOp"> {
  let summary = "Put a tdsl.size_barrier on each size of a loop-carried tensor";
  let description = [{
    A `tensor.dim` of a tensor that an `scf.for` or `scf.while` carries (an
    iteration argument, or the loop's result) gets a `tdsl.size_barrier`,
    which its uses take instead. Bufferization compares the offsets and
    sizes of slices through `ValueBoundsConstraintSet`, which derives the
    bound of such a size by asking whether the loop keeps it, through every
    `scf.if` and loop up to the yield: a Presburger problem per question,
    per pair of slices: a `?`-shaped product in five nested `if`s in a loop
    compiled in 2.85 s, 0.5 s with the barriers. Behind the barrier the size
    is an unknown;
    bufferization's decisions rest on slices with the same SSA sizes, which
    stay the same. `tdsl-remove-size-barriers` takes them out afterwards.

    ```mlir
    // before
    %d = tensor.dim %acc, %c0 : tensor<?x?xf32>
    %e = tensor.empty(%d, %n) : tensor<?x?xf32>
    // after
    %d = tensor.dim %acc, %c0 : tensor<?x?xf32>
    %s = tdsl.size_barrier %d
    %e = tensor.empty(%s, %n) : tensor<?x?xf32>
    ```
  }];
  let dependentDialects = ["tdsl::ir::TDSLDialect"];
}

def RemoveSizeBarriers : Pass<"tdsl-remove-size-barriers", "mlir::func::FuncOp"> {
  let summary = "Replace each tdsl.size_barrier by its operand";
  let description = [{
    Undoes `tdsl-hide-loop-carried-sizes` once bufferization is done, so
    that later folds see the sizes again.
  }];
}

def RaiseLoopContractions : Pass<"tdsl-raise-loop-contractions", "mlir::func::FuncOp"> {
  let summary = "Turn a loop that sums products in a parallel body into a contraction";
  let description = [{
    A `linalg.generic` with only parallel loops whose body yields
    `scf.for k = 0 to K { s = s + x * y }`, where x and y are reads of
    tensors defined outside it at distinct loops of the op and k (static
    sizes, every read in bounds), both reading k and each output loop read
    by one of them but not every one by both, becomes two generics: the
    loop's initial values, then a generic with a reduction loop k that adds
    `x * y` to them. Each output still adds its terms in k's order; after
    tdsl-raise-extracts the second is a contraction that tdsl-vectorize
    takes as `@` (a matrix product written as a `parallel for` with an inner
    `for k` ran one scalar loop per output).

    ```mlir
    // before
    %c = linalg.generic {iterator_types = ["parallel", "parallel"]} outs(%e) {
      %i = linalg.index 0 : index
      %j = linalg.index 1 : index
      %s = scf.for %k = %c0 to %c512 step %c1 iter_args(%acc = %zero) -> (f32) {
        %x = tensor.extract %a[%i, %k] : tensor<512x512xf32>
        %y = tensor.extract %b[%k, %j] : tensor<512x512xf32>
        ...
    // after
    %init = linalg.generic {...} outs(%e) { ... linalg.yield %zero : f32 }
    %c = linalg.generic {iterator_types = ["parallel", "parallel", "reduction"]}
           ins(%extent : tensor<512xf32>) outs(%init) {
    ^bb0(%unused: f32, %acc: f32):
      %x = tensor.extract %a[%i, %k] ...
    ```
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect", "mlir::tensor::TensorDialect"];
}

def SplitDividedLoops : Pass<"tdsl-split-divided-loops", "mlir::func::FuncOp"> {
  let summary = "Split a loop that a body reads only as i / k and i % k into two loops";
  let description = [{
    In an element-wise `linalg.generic` on tensors (one output indexed by
    every loop), a loop of static range, a multiple of k, that no operand's
    map uses and whose every use in the body (through index casts) is a
    division or a remainder by the constant k >= 2 becomes two loops, q and
    r in 0..k after it; the divisions become q, the remainders r, and the
    output is written as its `tensor.expand_shape` along that dimension
    ([range / k, k]), collapsed back after. Nearest-neighbour upsampling
    (`x[n, c, i / 2, j / 2]`) then reads x at plain loops, which
    tdsl-raise-extracts makes an input: the op vectorizes. In the CPU
    pipeline only (the CUDA tiling left the split ops on the host).
  }];
  let dependentDialects = ["mlir::arith::ArithDialect", "mlir::tensor::TensorDialect"];
}

def RaiseExtracts : Pass<"tdsl-raise-extracts", "mlir::func::FuncOp"> {
  let summary = "Turn reads at a linalg body's loop indices into inputs of the op";
  let description = [{
    A `tensor.extract` in a `linalg.generic` body from a tensor defined
    outside it, whose subscripts are the op's `linalg.index` values plus
    constants, constants, or linear forms of distinct loops with positive
    constant factors (`2 * i + di`, through `arith.muli` by a constant),
    becomes a new input of the op with the map of those subscripts (from a
    slice that starts at their constants), and the read becomes the input's
    block argument. A run of static dimensions read at the digits of one
    loop in the mixed radix of their sizes (nn.flatten's
    `x[n, f / 49, f / 7 % 7, f % 7]` on `16 x 7 x 7`, the loop below their
    product) is read at that loop from the tensor with the run collapsed. Only reads that stay in bounds are raised: the largest
    subscript is below the dimension, checked on static sizes, or, with
    run-time sizes, guaranteed by the checks tdsl-fold-checks moved before
    the op (`tdsl.bounds_checked`); those checks hold only when the op has
    iterations, so such a read must use every loop of the op whose range
    is not a positive constant (it then never runs when one is empty).
    The op is then element-wise in the eyes of fusion, tiling and
    vectorization (a `parallel for` body that reads `x[n, k, i, j]`).

    ```mlir
    // before
    %r = linalg.generic {indexing_maps = [#id]} outs(%e : tensor<4x8xf32>) {
      %i = linalg.index 0 : index
      %j = linalg.index 1 : index
      %v = tensor.extract %x[%i, %j] : tensor<4x8xf32>
      ...
    // after
    %r = linalg.generic {indexing_maps = [#id, #id]} ins(%x : tensor<4x8xf32>)
           outs(%e : tensor<4x8xf32>) {
    ^bb0(%v: f32, %out: f32):
      ...
    ```
  }];
}

def FuseElementwise : Pass<"tdsl-fuse-elementwise", "mlir::func::FuncOp"> {
  let summary = "Fuse element-wise producers into consumers that read each element once";
  let description = [{
    Fuses an element-wise `linalg.generic` producer into its consumer when
    the consumer reads every produced element exactly once (its indexing map
    for the operand uses every loop of the consumer). A consumer that reads
    an element many times, like a matmul reading A[i, k] for every j, would
    recompute the producer each time, so those stay separate ops. A
    producer read by several consumers is copied into each; such copies
    have a budget of 1 per op of the function, since each copy can be
    copied again (a gradient of a gradient reads most values twice at every
    level: one fusion per path, 2500 for 51 ops). Past it, those consumers
    read the stored value.

    ```mlir
    // before
    %e = linalg.generic {exp} ins(%x) ...      // e[i, j] = exp(x[i, j])
    %s = linalg.generic {sum over j} ins(%e)   // s[i] = sum_j e[i, j]
    // after
    %s = linalg.generic {sum over j of exp} ins(%x)
    ```
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect", "mlir::tensor::TensorDialect"];
}

def UpdateInPlace : Pass<"tdsl-update-in-place", "mlir::func::FuncOp"> {
  let summary = "Compute element-wise updates of a region into that region";
  let description = [{
    `ey[i + 1, j] = ney[i, j]` where `ney[i, j]` reads `ey[i + 1, j]` (an
    FDTD field update) is, after lowering, an element-wise
    `linalg.generic` into a `tensor.empty` whose result is inserted into a
    region of `ey`, and that reads the same region through a
    `tensor.extract_slice` with the output's indexing map. Bufferization
    cannot write it in place (the op's input and its destination are two
    different slices to its analysis), so the update went through a
    temporary with two copies. This pass makes the region the op's `outs`
    and has the body read it there, which bufferization writes in place
    (tiled, each tile reads the tile it writes). Only ops whose loops are
    all parallel: each element is read before it is written, by the same
    iteration.

    The same holds for an element-wise op into a `tensor.empty` that reads
    a whole tensor with the output's map, when nothing else reads that
    tensor but slices of it that only the op reads (a loop-carried update
    such as Floyd-Warshall's `p[i, j] = min(p[i, j], p[i, k] + p[k, j])`):
    those slices become copies (`bufferization.alloc_tensor copy`) taken
    before the op, and the op computes into the tensor itself. Without
    this, each step copied the whole tensor (Floyd-Warshall, N = 500: 1 MB
    a step, half of the run).

    ```mlir
    // before
    %r = tensor.extract_slice %ey[1, 0] [199, 240] [1, 1]
    %n = linalg.generic ins(%r, %h : ...) outs(%empty : ...) {
    ^bb0(%e: f64, %x: f64, %out: f64): ... uses %e
    }
    %u = tensor.insert_slice %n into %ey[1, 0] [199, 240] [1, 1]
    // after
    %n = linalg.generic ins(%h : ...) outs(%r : ...) {
    ^bb0(%x: f64, %e: f64): ... uses %e
    }
    %u = tensor.insert_slice %n into %ey[1, 0] [199, 240] [1, 1]
    ```
  }];
  let dependentDialects = ["mlir::bufferization::BufferizationDialect",
                           "mlir::linalg::LinalgDialect", "mlir::tensor::TensorDialect"];
}

def PrepareInPlaceUpdates : Pass<"tdsl-prepare-in-place-updates", "mlir::func::FuncOp"> {
  let summary = "Shape offset updates so bufferization writes them in place";
  let description = [{
    Runs just before `eliminate-empty-tensors` and one-shot bufferization.
    An update at an offset (`b[i + 1] = nb[i]`, a `tensor.insert_slice`)
    whose source an op computed into a `tensor.empty` can be written
    straight into the destination, but two shapes of the IR stop that:

    - one `tensor.empty` serving several ops (CSE merges equal ones), of
      which empty-tensor elimination can turn only one into a slice of its
      destination: each use gets its own `tensor.empty`;
    - a read of the inserted value after the update (the next sweep of a
      stencil reads `nb`, since canonicalization folds the slice of the
      updated tensor back to it), which one-shot analysis counts as a read
      after a write of the destination and answers with a copy: the read
      takes the same slice of the updated tensor instead.


    ```mlir
    // before
    %e = tensor.empty() : tensor<398xf64>
    %nb = linalg.generic ... outs(%e)
    %b2 = tensor.insert_slice %nb into %b[1] [398] [1]
    %na = linalg.generic ins(%nb, ...) outs(%e)
    // after
    %e = tensor.empty() : tensor<398xf64>
    %nb = linalg.generic ... outs(%e)
    %b2 = tensor.insert_slice %nb into %b[1] [398] [1]
    %s = tensor.extract_slice %b2[1] [398] [1]
    %e1 = tensor.empty() : tensor<398xf64>
    %na = linalg.generic ins(%s, ...) outs(%e1)
    ```

    And one shape that must not be written in place: an update inside a
    loop of a tensor defined outside it (`h = zeros(...)` hoisted out of a
    `for` by loop-invariant code motion, then `h[k, j] = ...` in the loop)
    reads that tensor again on every trip. MLIR 22's empty-tensor
    elimination still made the updating op write into it, so each trip saw
    the rows of the earlier ones; the update now takes a copy
    (`bufferization.alloc_tensor() copy(...)`) made in the loop, which
    bufferization would make anyway.
  }];
  let dependentDialects = ["mlir::tensor::TensorDialect",
                           "mlir::bufferization::BufferizationDialect"];
}

def CheckStaticShapes : Pass<"tdsl-check-static-shapes", "mlir::ModuleOp"> {
  let summary = "Report run-time shape checks that fail for sure as errors";
  let description = [{
    After inlining, a caller's static shapes reach the shape checks
    (`scf.if` ops marked `tdsl.check`) of the code it called. This pass folds
    `tensor.dim` and integer comparisons (and nothing else: in particular no
    linalg canonicalization, which would absorb the conflicting shapes into
    the ops) and reports each check whose failure condition became the
    constant true as a compile-time error at the check's DSL location. A
    check that may not run when its function does (under an `scf.if` or
    `scf.while`, or in an `scf.for` that may run no iteration) is a warning
    instead, and its run-time check stays: `if c { b[5] }` is an error only
    if it runs.

    ```mlir
    // input after inlining: %x : tensor<3xf32>, %y : tensor<4xf32>
    %a = tensor.cast %x : tensor<3xf32> to tensor<?xf32>
    %b = tensor.cast %y : tensor<4xf32> to tensor<?xf32>
    %ok = arith.cmpi eq, (tensor.dim %a, 0), (tensor.dim %b, 0)
    scf.if (not %ok) { call @tdsl_fatal(...) } {tdsl.check = "shapes ... differ"}
    // error: shapes ... differ
    ```
  }];
  let dependentDialects = ["mlir::scf::SCFDialect", "mlir::arith::ArithDialect",
                           "mlir::tensor::TensorDialect"];
}

def LowerNestedLinalg : Pass<"tdsl-lower-nested-linalg", "mlir::ModuleOp"> {
  let summary = "Rewrite linalg.generic ops nested in another's body as loops";
  let description = [{
    A `linalg.generic` inside the body of another (an `arange` or a map-form
    `parallel for` in a loop body, or a function with one inlined there)
    reads its loop indices with `linalg.index`, exactly like the outer op;
    CSE would merge the two and the inner op would read the outer loop. This
    pass, run before any CSE, rewrites every nested generic on tensors as an
    `scf.for` nest that extracts its inputs, runs the body, and inserts (or
    accumulates) into its output. Every `tensor.empty` left in a kernel's
    body then becomes a `bufferization.alloc_tensor`: CSE would merge it with
    an equal `tensor.empty` outside (the kernel's own output), and
    bufferization does not see the conflict across the region, so each
    iteration wrote into the kernel's output. Likewise a tensor defined
    outside a kernel and updated in its body (the destination of a
    `tensor.insert`, `insert_slice` or a loop's initial value) gets a copy
    made in the body (`bufferization.alloc_tensor() copy(%t)`): updated in
    place, later iterations would read earlier ones' writes.
    A kernel whose result is unused but whose body checks its subscripts
    becomes loops too: canonicalization would drop its unused operands, and
    with them its loop bounds, but not its checks.

    ```mlir
    // before (inside an outer linalg.generic body)
    %e = tensor.empty() : tensor<4xf32>
    %a = linalg.generic {iterator_types = ["parallel"]} outs(%e : tensor<4xf32>) {
      %i = linalg.index 0 : index ... }
    // after
    %e = bufferization.alloc_tensor() : tensor<4xf32>
    %a = scf.for %i = %c0 to %c4 step %c1 iter_args(%t = %e) -> tensor<4xf32> {
      ... %u = tensor.insert %v into %t[%i] ... }
    ```
  }];
  let dependentDialects = ["mlir::scf::SCFDialect", "mlir::tensor::TensorDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::bufferization::BufferizationDialect"];
}

def GuardRecursion : Pass<"tdsl-guard-recursion", "mlir::ModuleOp"> {
  let summary = "Recursive functions check the stack on entry";
  let description = [{
    After inlining, the functions left with bodies, other than the entry
    point, are the recursive ones (those in a cycle of direct calls). Each
    gets a check at entry: when less than 256 KiB of the thread's stack is
    left (`tdsl_stack_left`), the program stops with a located error at the
    function instead of crashing on the stack's guard page.

    ```mlir
    func.func @fact(%n: i64) -> i64 {
      %left = call @tdsl_stack_left() : () -> i64
      %low = arith.cmpi slt, %left, %c262144 : i64
      scf.if %low { call @tdsl_fatal(...) } {tdsl.check = "recursion ..."}
      ...
    ```
  }];
  let dependentDialects = ["mlir::scf::SCFDialect", "mlir::arith::ArithDialect",
                           "mlir::LLVM::LLVMDialect"];
}

#endif // TDSL_CODEGEN_COMMON_PASSES_TD
