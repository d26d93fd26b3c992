//===- Passes.td - TDSL passes of the CUDA back end -------------------------===//
#ifndef TDSL_CODEGEN_GPU_PASSES_TD
#define TDSL_CODEGEN_GPU_PASSES_TD

include "mlir/Pass/PassBase.td"

def GPUTile : Pass<"tdsl-gpu-tile", "mlir::ModuleOp"> {
  let summary = "Tile linalg ops to GPU blocks and threads";
  let description = [{
    Tiles the parallel loops of each outermost linalg op into an
    `scf.forall` of blocks and the block's tile again into an `scf.forall`
    of threads, fusing fills. Element-wise ops get blocks of `block-size`
    threads along their innermost loop, each thread `elements-per-thread`
    consecutive elements, vectorized (masked at the end of a row) so that
    the thread's loads are all in flight before its first store: on an
    H200, 4 elements per thread took a 64M-element `a * x + y` from 3.3 to
    4.0-4.2 TB/s (8: 1.7 TB/s). Contractions get `tile x tile` blocks of
    outputs, one per thread, each thread running the reduction loop. The innermost loop is listed first in each forall, so
    `gpu-map-parallel-loops` (which maps a nest outermost-first: outer loop
    to blocks, inner to threads, first dimension to x) gives it `x` and
    consecutive threads touch consecutive elements. Before each kernel it
    calls `tdsl_cuda_set_work` with the work the compiler counts, which the
    runtime credits to the next launch (GFLOP/s and GB/s in the profile).
    Ops without a parallel loop are left for the host.

    ```mlir
    // after
    scf.forall (%b) = (0) to (1000) step (512) {
      scf.forall (%t) = (0) to (%n) step (4) {  // %n = min(512, 1000 - %b)
        vector.transfer_read ... : vector<4xf32>   // masked
        ...
      }
    }
    ```
  }];
  let options = [
    Option<"blockSize", "block-size", "int64_t", /*default=*/"128",
           "Threads per block of element-wise ops">,
    Option<"tile", "tile", "int64_t", /*default=*/"16",
           "Rows and columns of outputs per block of a contraction">,
    Option<"elementsPerThread", "elements-per-thread", "int64_t",
           /*default=*/"4",
           "Consecutive elements per thread of an element-wise op">,
  ];
  let dependentDialects = [
    "mlir::scf::SCFDialect", "mlir::tensor::TensorDialect",
    "mlir::linalg::LinalgDialect", "mlir::gpu::GPUDialect",
    "mlir::affine::AffineDialect", "mlir::arith::ArithDialect",
    "mlir::vector::VectorDialect"
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
    memory by all the block's threads (each issuing up to 8 global loads
    before their stores), followed by `gpu.barrier`, and read from there. A
    contraction stages its first reduction loop in chunks of up to 16 (two
    barriers per chunk), the chunk's loop unrolled by 4. Inputs read about once per thread, or
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

def GPULowerCopies : Pass<"tdsl-gpu-lower-copies", "mlir::gpu::GPUModuleOp"> {
  let summary = "Lower memref.copy in kernels to loops of loads and stores";
  let description = [{
    A copy inside a kernel (a tensor copied and updated in a parallel body,
    a reduction's partial result) whose operands are not both contiguous
    would become a call to the host runtime's `memrefCopy`; a contiguous one
    an llvm.memcpy aligned to 1 byte, which NVPTX expands into byte stores
    (slow, and wrong on an H200 for a float chosen between two constants).
    Every copy in a gpu.module becomes an `scf.for` nest of whole-element
    loads and stores instead (no loop for a static extent of 1), run by the
    thread that reaches it.

    ```mlir
    // before
    memref.copy %a, %sub : memref<3xf32> to memref<3xf32, strided<[2]>>
    // after
    scf.for %i = %c0 to %c3 step %c1 {
      %v = memref.load %a[%i] : memref<3xf32>
      memref.store %v, %sub[%i] : memref<3xf32, strided<[2]>>
    }
    ```
  }];
  let dependentDialects = ["mlir::scf::SCFDialect", "mlir::arith::ArithDialect",
                           "mlir::memref::MemRefDialect"];
}

def GPUExactSqrt : Pass<"tdsl-gpu-exact-sqrt", "mlir::gpu::GPUModuleOp"> {
  let summary = "f32 square roots in kernels rounded correctly (sqrt.rn.f32)";
  let description = [{
    Runs after `convert-gpu-to-nvvm`, which calls libdevice's `__nv_sqrtf`
    for `math.sqrt` on f32: that is `sqrt.approx.f32` unless the module asks
    for precise square roots (NVVM reflection's `__CUDA_PREC_SQRT`), results
    off by an ulp or two where the language defines `sqrt` as exact and the
    CPU computes it so. The calls become LLVM's `llvm.sqrt.f32`, which is
    `sqrt.rn.f32` on NVPTX (no `afn` flag); f64 square roots are exact in
    libdevice already.

    ```mlir
    // before
    %r = llvm.call @__nv_sqrtf(%x) : (f32) -> f32
    // after
    %r = llvm.intr.sqrt(%x) : (f32) -> f32
    ```
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect"];
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

    Each alloca has one stack slot for all iterations of a loop around it
    (tdsl-hoist-allocas), so a buffer that an `scf.for` carries to its next
    iteration (`t = t * x` in a `for` loop of a kernel's body) takes one of
    two slots made before the loop, by the iteration's parity: the next
    iteration's buffer overwrote the one it was reading. A buffer carried
    in other ways (through an `scf.if`, or by an outer loop too) stays on
    the device heap.
  }];
  let options = [
    Option<"maxBytes", "max-bytes", "int64_t", "1024",
           "The largest buffer (in bytes) that goes on the stack">,
  ];
  let dependentDialects = ["mlir::memref::MemRefDialect", "mlir::arith::ArithDialect"];
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

#endif // TDSL_CODEGEN_GPU_PASSES_TD
