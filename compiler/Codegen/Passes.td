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

def ForallToTBB : Pass<"tdsl-forall-to-tbb", "mlir::ModuleOp"> {
  let summary = "Run scf.forall loops on oneTBB through the TDSL runtime";
  let description = [{
    Outlines the body of each outermost `scf.forall` on buffers into a
    function `(i64 begin, i64 end, !llvm.ptr ctx)` that runs the linearized
    iterations [begin, end), packs the values the body uses into a stack
    context, and replaces the loop by a call of the runtime's
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

def Vectorize : Pass<"tdsl-vectorize", "mlir::func::FuncOp"> {
  let summary = "Tile linalg ops to register-sized tiles and vectorize them";
  let description = [{
    For each linalg op on tensors, tiles its loops with `scf.for` to a
    register-sized tile and vectorizes the tile with `linalg::vectorize`
    (masked where shapes are only known at run time). Contractions get an
    `m x n x 1` tile (m = `contraction-rows`, n = `vector-width` * 2) that
    becomes a `vector.contract` (an outer product of FMAs after lowering);
    other ops vectorize their innermost loop by `vector-width`. Ops that do
    not meet the vectorizer's preconditions stay scalar.

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
           "Lanes of the widest vector register (16 f32 with AVX-512)">,
    Option<"contractionRows", "contraction-rows", "int64_t", /*default=*/"8",
           "Rows of a contraction's register tile">,
  ];
  let dependentDialects = [
    "mlir::scf::SCFDialect", "mlir::tensor::TensorDialect",
    "mlir::vector::VectorDialect", "mlir::affine::AffineDialect",
    "mlir::arith::ArithDialect"
  ];
}

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

def LowerVector : Pass<"tdsl-lower-vector", "mlir::func::FuncOp"> {
  let summary = "Lower n-D vector ops to the 1-D forms LLVM has";
  let description = [{
    Applies MLIR's progressive vector lowerings chosen for x86 CPUs:
    `vector.contract` to outer products (then FMAs), `vector.multi_reduction`
    to inner reductions, transposes to shuffles, masks, broadcasts and shape
    casts to 1-D ops, and transfers of rank 1 to plain loads and stores.
    It runs after `convert-vector-to-scf` has cut transfers down to rank 1.

    ```mlir
    // before
    %r = vector.multi_reduction <add>, %v, %acc [1] : vector<1x8xf32> to vector<1xf32>
    // after
    %e = vector.extract %v[0] : vector<8xf32> from vector<1x8xf32>
    %s = vector.reduction <add>, %e, %a : vector<8xf32> into f32
    ```
  }];
  let dependentDialects = ["mlir::vector::VectorDialect", "mlir::arith::ArithDialect"];
}

def FuseElementwise : Pass<"tdsl-fuse-elementwise", "mlir::func::FuncOp"> {
  let summary = "Fuse element-wise producers into consumers that read each element once";
  let description = [{
    Fuses an element-wise `linalg.generic` producer into its consumer when
    the consumer reads every produced element exactly once (its indexing map
    for the operand uses every loop of the consumer). A consumer that reads
    an element many times, like a matmul reading A[i, k] for every j, would
    recompute the producer each time, so those stay separate ops.

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

def TimeKernels : Pass<"tdsl-time-kernels", "mlir::ModuleOp"> {
  let summary = "Time every kernel launch and count its work for the profile";
  let description = [{
    Wraps each outermost linalg op (fills aside) and each outermost
    `scf.forall`, also inside sequential loops, in calls of the runtime's `tdsl_kernel_begin` and
    `tdsl_kernel_end`. The kernel's name and DSL line come from its location.
    For linalg ops the end call also gets the work the compiler knows:
    floating-point and integer operations (iterations times the arithmetic
    ops of the body) and bytes (the sizes of all operands), from which the
    profile derives GFLOP/s and GB/s. Runs before tiling, so a kernel is timed
    whole, whether it then runs in parallel or not.

    ```mlir
    // after
    %id = call @tdsl_kernel_register(%name, %where)
    %t0 = call @tdsl_kernel_begin(%id)
    %r = linalg.matmul ...
    call @tdsl_kernel_end(%id, %t0, %flops, %bytes)
    ```
  }];
  let dependentDialects = ["mlir::func::FuncDialect", "mlir::LLVM::LLVMDialect",
                           "mlir::arith::ArithDialect", "mlir::tensor::TensorDialect"];
}

def CheckStaticShapes : Pass<"tdsl-check-static-shapes", "mlir::ModuleOp"> {
  let summary = "Report run-time shape checks that fail for sure as errors";
  let description = [{
    After inlining, a caller's static shapes reach the shape checks
    (`scf.if` ops marked `tdsl.check`) of the code it called. This pass folds
    `tensor.dim` and integer comparisons (and nothing else: in particular no
    linalg canonicalization, which would absorb the conflicting shapes into
    the ops) and reports each check whose failure condition became the
    constant true as a compile-time error at the check's DSL location.

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

def GPUTile : Pass<"tdsl-gpu-tile", "mlir::ModuleOp"> {
  let summary = "Tile linalg ops to GPU blocks and threads";
  let description = [{
    Tiles the parallel loops of each outermost linalg op into an
    `scf.forall` of blocks and the block's tile again into an `scf.forall`
    of threads (one output element per thread), fusing fills. Element-wise
    ops get blocks of `block-size` elements along their innermost loop;
    contractions get `tile x tile` blocks of outputs, each thread running the
    reduction loop. The innermost loop is listed first in each forall, so
    `gpu-map-parallel-loops` (which maps a nest outermost-first: outer loop
    to blocks, inner to threads, first dimension to x) gives it `x` and
    consecutive threads touch consecutive elements. Before each kernel it
    calls `tdsl_cuda_set_work` with the work the compiler counts, which the
    runtime credits to the next launch (GFLOP/s and GB/s in the profile).
    Ops without a parallel loop are left for the host.

    ```mlir
    // after
    scf.forall (%b) = (0) to (1000) step (256) {
      scf.forall (%t) in (%n) { linalg.generic ... }
    }
    ```
  }];
  let options = [
    Option<"blockSize", "block-size", "int64_t", /*default=*/"256",
           "Threads per block of element-wise ops">,
    Option<"tile", "tile", "int64_t", /*default=*/"16",
           "Rows and columns of outputs per block of a contraction">,
  ];
  let dependentDialects = [
    "mlir::scf::SCFDialect", "mlir::tensor::TensorDialect",
    "mlir::linalg::LinalgDialect", "mlir::gpu::GPUDialect",
    "mlir::affine::AffineDialect", "mlir::arith::ArithDialect"
  ];
}

def GPUStageShared : Pass<"tdsl-gpu-stage-shared", "mlir::ModuleOp"> {
  let summary = "Contractions and window ops as T x T tile kernels with inputs staged in shared memory";
  let description = [{
    A bufferized linalg op with one output over two or more parallel loops
    that reads a window per output (reduction loops: matmul; or loops in its
    body: a convolution written as `parallel for` with an inner `sum`)
    becomes a `gpu.launch` of `tile` x `tile` threads per tile of outputs,
    one output per thread, or, for contractions whose output sides are
    dynamic or at least 2 x `tile` x `outputs-per-thread`, R x R outputs per
    thread (R = `outputs-per-thread`; thread (tx, ty) owns (ty + r tile,
    tx + c tile)), so that each value read from shared memory serves R
    outputs. The box of an input that a block reads (affine
    subscripts with non-negative coefficients) is copied into workgroup
    memory by all the block's threads, followed by `gpu.barrier`, and read
    from there. A contraction stages its first reduction loop in chunks of
    up to 16 (two barriers per chunk). Inputs read about once per thread, or
    with other subscripts, or beyond the 40 KiB budget, are read from global
    memory. A fill of the output just before the op becomes the initial
    value of each thread's accumulator.

    ```mlir
    // before
    linalg.matmul ins(%A, %B : memref<256x256xf32>, memref<256x256xf32>) outs(%C : ...)
    // after
    gpu.launch blocks(...) in (16, 16, 1) threads(...) in (16, 16, 1)
        workgroup(%a : memref<16x16xf32, #gpu.address_space<workgroup>>,
                  %b : memref<16x16xf32, #gpu.address_space<workgroup>>) {
      %c = scf.for %k0 = 0 to 256 step 16 iter_args(%acc = %zero) {
        ... each thread copies one element of A's and B's tiles ...
        gpu.barrier
        ... 16 multiply-adds from %a and %b ...
        gpu.barrier
      }
      scf.if %valid { memref.store %c, %C[...] }
    }
    ```
  }];
  let options = [
    Option<"tile", "tile", "int64_t", /*default=*/"16",
           "Rows and columns of threads per block">,
    Option<"outputsPerThread", "outputs-per-thread", "int64_t", /*default=*/"4",
           "Rows and columns of outputs per thread of a contraction whose "
           "output sides are dynamic or at least twice tile x this">,
  ];
  let dependentDialects = ["mlir::gpu::GPUDialect", "mlir::scf::SCFDialect",
                           "mlir::memref::MemRefDialect", "mlir::arith::ArithDialect",
                           "mlir::affine::AffineDialect"];
}

def GPUWrapBitcode : Pass<"tdsl-gpu-wrap-bitcode", "mlir::ModuleOp"> {
  let summary = "Give the LLVM bitcode objects of gpu.binary ops a wrapper header with their size";
  let description = [{
    With `tdslc --gpu-bitcode` the kernels are embedded as LLVM bitcode
    (`gpu-module-to-binary{format=llvm}`) for the CPU emulator of the tests.
    The driver API passes a module image without its size; this pass
    prefixes each such object with LLVM's bitcode wrapper header (magic
    0x0B17C0DE, version, offset, size, CPU type), which gives it.

    ```mlir
    // before
    gpu.binary @k [#gpu.object<#nvvm.target, offload = "BC\C0\DE...">]
    // after
    gpu.binary @k [#gpu.object<#nvvm.target, offload = "\DE\C0\17\0B...BC\C0\DE...">]
    ```
  }];
  let dependentDialects = ["mlir::gpu::GPUDialect"];
}

def GPUTransfers : Pass<"tdsl-gpu-transfers", "mlir::ModuleOp"> {
  let summary = "Tell the runtime before each launch and host access where buffers are used";
  let description = [{
    Buffers are CUDA managed memory (tdsl-gpu-host-memory). Before each
    `gpu.launch_func`, calls `tdsl_cuda_to_device(ptr)` for every buffer
    among the kernel's operands; before each host op that reads or writes a
    buffer (loads, stores, copies, runtime calls such as prints), calls
    `tdsl_cuda_to_host(ptr, "file:line:col")`, hoisted out of host loops and
    branches that launch no kernel. The runtime keeps where each buffer's
    data is and moves it in one timed prefetch when it is on the other side
    (h2d and d2h rows in the profile); buffers that consecutive kernels
    share stay on the device. `ptr` is the buffer's allocated pointer
    (views are traced to their source); the runtime ignores pointers it did
    not allocate.

    ```mlir
    // after
    call @tdsl_cuda_to_device(%pa) : (!llvm.ptr) -> ()
    gpu.launch_func @k::@k ... args(%a : memref<256xf32>)
    call @tdsl_cuda_to_host(%pa, %where) : (!llvm.ptr, !llvm.ptr) -> ()
    %x = memref.load %a[%c0] : memref<256xf32>
    ```
  }];
  let dependentDialects = ["mlir::func::FuncDialect", "mlir::LLVM::LLVMDialect",
                           "mlir::memref::MemRefDialect", "mlir::arith::ArithDialect"];
}

def GPUHostMemory : Pass<"tdsl-gpu-host-memory", "mlir::ModuleOp"> {
  let summary = "Put buffers where both the host and the GPU can reach them";
  let description = [{
    The CUDA back end keeps every buffer in CUDA managed memory:
    `memref.alloc` becomes `gpu.alloc host_shared` (cuMemAllocManaged through
    the runtime), `memref.dealloc` calls the runtime's `mgpuMemFree`, and a constant
    global is copied once into such a buffer. Kernels and host code (prints,
    `.npy` I/O, serial loops) then read the same pointers (tdsl-gpu-transfers
    tells the runtime where each is used). Before each buffer that is dynamic
    or at least 1 MiB it calls `tdsl_alloc_site` with the buffer's DSL
    position, which a failed allocation reports.

    ```mlir
    // before
    %a = memref.alloc() : memref<1000xf32>
    // after
    %a = gpu.alloc host_shared () : memref<1000xf32>
    ```
  }];
  let dependentDialects = ["mlir::gpu::GPUDialect", "mlir::memref::MemRefDialect",
                           "mlir::LLVM::LLVMDialect", "mlir::arith::ArithDialect",
                           "mlir::func::FuncDialect"];
}

def GPUAnnotateLaunches : Pass<"tdsl-gpu-annotate-launches", "mlir::ModuleOp"> {
  let summary = "Name GPU kernels after the DSL and tell the runtime where they come from";
  let description = [{
    After outlining, renames each kernel after the DSL construct its location
    names (`tdsl_main_matmul`), so the profile and error messages show it, and
    calls `tdsl_cuda_set_location("prog.tdsl:12:3\n<source line>\n<caret>")`
    before each `gpu.launch_func`, so a CUDA error names the DSL line and
    shows it with a caret (the profile keys rows by the first line).

    ```mlir
    // after
    call @tdsl_cuda_set_location(%where) : (!llvm.ptr) -> ()
    gpu.launch_func @tdsl_main_matmul::@tdsl_main_matmul blocks in (...) threads in (...)
    ```
  }];
  let dependentDialects = ["mlir::gpu::GPUDialect", "mlir::func::FuncDialect",
                           "mlir::LLVM::LLVMDialect"];
}

def LocateAllocs : Pass<"tdsl-locate-allocs", "mlir::ModuleOp"> {
  let summary = "Give large buffers the DSL position that running out of memory reports";
  let description = [{
    Before each `memref.alloc` whose size is dynamic or at least 1 MiB, calls
    the runtime's `tdsl_alloc_site` with the DSL position of the allocation.
    The runtime keeps it for the next allocation on the same thread, so a
    failed allocation prints `prog.tdsl:line:col: error: out of memory ...`
    with the source line, like every other run-time error.

    ```mlir
    // before
    %m = memref.alloc(%n) : memref<?xf32>
    // after
    %where = llvm.mlir.addressof @__tdsl_str_0 : !llvm.ptr
    func.call @tdsl_alloc_site(%where) : (!llvm.ptr) -> ()
    %m = memref.alloc(%n) : memref<?xf32>
    ```
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect", "mlir::func::FuncDialect"];
}

def GPUDeviceChecks : Pass<"tdsl-gpu-device-checks", "mlir::ModuleOp"> {
  let summary = "Turn run-time checks inside GPU kernels into traps";
  let description = [{
    A run-time check (a subscript out of range, an integer division by
    zero) calls the host runtime's `tdsl_fatal`, which a kernel cannot.
    Inside the loops that become kernels every such call becomes
    `llvm.intr.trap`, whatever `scf.if` holds it (canonicalization merges
    checks with one condition into one `scf.if`): the kernel stops, the CUDA runtime reports the failed
    launch with the kernel's name and DSL line, and the program exits 1.
    Checks on the host keep their located message.

    ```mlir
    // inside scf.forall, before
    scf.if %bad { func.call @tdsl_fatal(%where, %msg) } {tdsl.check = "..."}
    // after
    scf.if %bad { llvm.intr.trap } {tdsl.check = "..."}
    ```
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect", "mlir::scf::SCFDialect"];
}

def GPUCheckDeviceCalls : Pass<"tdsl-gpu-check-device-calls",
                                "mlir::gpu::GPUModuleOp"> {
  let summary = "Report kernels that call host functions";
  let description = [{
    Runs on each kernel module after `convert-gpu-to-nvvm`. A call to a
    function that the module does not define and the device does not
    provide (libdevice's `__nv_*`, `malloc`, `free`, `vprintf`, LLVM
    intrinsics) would make PTX that ptxas rejects as an unresolved extern
    function: it is reported as an internal error at the call's DSL line
    and compilation fails, so `--emit=ptx` never prints such PTX.

    ```mlir
    gpu.module @tdsl_main_parallel_for {
      llvm.func @_mlir_ciface_tdsl_fatal(!llvm.ptr, !llvm.ptr)
      ... llvm.call @_mlir_ciface_tdsl_fatal(...)   // error: calls the host function
    }
    ```
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect"];
}

def GPUPromoteBuffers : Pass<"tdsl-gpu-promote-buffers", "mlir::ModuleOp"> {
  let summary = "Put small buffers of kernel bodies on the stack";
  let description = [{
    Runs after bufferization and before deallocation is decided. A
    `memref.alloc` of static size up to `max-bytes` inside an `scf.forall` or
    `scf.parallel` (a loop that becomes a kernel) becomes a `memref.alloca`:
    per thread and free, instead of a device-side malloc. Buffers outside
    those loops stay where they are: on the host's stack, a buffer that a
    kernel reads would be out of the GPU's reach (upstream
    `promote-buffers-to-stack` moved them too, and, run after deallocation,
    kept the dealloc of a buffer that an `scf.if` yields).

    ```mlir
    // before
    scf.forall (%i) in (%n) {
      %t = memref.alloc() : memref<4xf32>
      ...
    }
    // after
    scf.forall (%i) in (%n) {
      %t = memref.alloca() : memref<4xf32>
      ...
    }
    ```
  }];
  let options = [
    Option<"maxBytes", "max-bytes", "int64_t", "1024",
           "The largest buffer (in bytes) that goes on the stack">,
  ];
  let dependentDialects = ["mlir::memref::MemRefDialect"];
}

def GPUReduce : Pass<"tdsl-gpu-reduce", "mlir::ModuleOp"> {
  let summary = "Whole-tensor reductions as a GPU tree reduction plus a second pass";
  let description = [{
    A bufferized `linalg.generic` whose loops are all reductions (a scalar
    result: `sum(x)`, `max(i) a[i]`) becomes a `gpu.launch` of
    `blocks` x `threads`: each thread reduces a grid-strided share of the
    elements serially, `gpu.all_reduce` combines the threads of a block as a
    tree (shuffles and shared memory), and thread 0 writes the block's
    partial result; the host then combines the `blocks` partials, in order,
    into the output. Reductions with another combiner than add, mul, max or
    min stay on the host.

    ```mlir
    // before
    linalg.generic {iterator_types = ["reduction"]} ins(%x : memref<?xf32>) outs(%s : memref<f32>)
    // after
    gpu.launch blocks(...) in (256, 1, 1) threads(...) in (256, 1, 1) {
      %acc = scf.for %i = %gid to %n step %stride ... // serial share
      %r = gpu.all_reduce add %acc uniform {} : (f32) -> f32
      scf.if %first_thread { memref.store %r, %partials[%bid] }
    }
    scf.for %b = 0 to 256 { ... combine partials into %s ... }
    ```
  }];
  let options = [
    Option<"blocks", "blocks", "int64_t", /*default=*/"256", "Blocks of the launch">,
    Option<"threads", "threads", "int64_t", /*default=*/"256", "Threads per block">,
  ];
  let dependentDialects = ["mlir::gpu::GPUDialect", "mlir::scf::SCFDialect",
                           "mlir::memref::MemRefDialect", "mlir::arith::ArithDialect"];
}

def GPULowerAllReduce : Pass<"tdsl-gpu-lower-all-reduce", "mlir::gpu::GPUModuleOp"> {
  let summary = "Lower gpu.all_reduce in kernels to shuffles and shared memory";
  let description = [{
    Applies MLIR's `gpu.all_reduce` rewrite inside outlined kernels: a warp
    reduces with shuffles, warps exchange through workgroup memory, and a
    barrier separates the steps (the tree of tdsl-gpu-reduce).

    ```mlir
    // before
    %r = gpu.all_reduce add %v uniform {} : (f32) -> f32
    // after
    ... gpu.shuffle xor ..., gpu.barrier, memref.load %workgroup[...] ...
    ```
  }];
  let dependentDialects = ["mlir::gpu::GPUDialect", "mlir::memref::MemRefDialect",
                           "mlir::arith::ArithDialect", "mlir::cf::ControlFlowDialect"];
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
    iteration wrote into the kernel's output.

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

#endif // TDSL_CODEGEN_PASSES_TD
