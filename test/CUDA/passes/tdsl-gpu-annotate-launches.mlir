// RUN: tdsl-opt %s --tdsl-gpu-annotate-launches | FileCheck %s

// After gpu-kernel-outlining every kernel is called <fn>_kernel[_<n>]. The
// pass renames each kernel module and its kernel after the DSL construct
// that the launch's location names ("saxpy.index_gen" -> saxpy_index_gen),
// so that the profile and CUDA errors show it, and calls
// tdsl_cuda_set_location before each gpu.launch_func with the launch's DSL
// position (and, when the source file can be read, its line and a caret),
// so that a failed launch names its DSL line.

// CHECK-DAG:   llvm.mlir.global private constant @[[W0:.*]]("prog.tdsl:9:3\0Aprog.tdsl:16:7: note: called from\00")
// CHECK-DAG:   llvm.mlir.global private constant @[[W1:.*]]("prog.tdsl:20:3\00")
// CHECK-DAG:   llvm.mlir.global private constant @[[W2:.*]]("prog.tdsl:21:3\00")
// CHECK-DAG:   llvm.mlir.global private constant @[[W3:.*]]("tdsl-gpu-annotate-launches.mlir:[[#@LINE+35]]:5\0A    gpu.launch_func @main_kernel_2::@main_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<8xf32>)\0A    ^\00")
// CHECK-DAG:   func.func private @tdsl_cuda_set_location(!llvm.ptr)
// CHECK-LABEL: func.func @main(
// An inlined launch: the name comes from the callee's NameLoc, the
// position from the callee's line, then the call's as a note.
// CHECK:         %[[P0:.*]] = llvm.mlir.addressof @[[W0]] : !llvm.ptr
// CHECK-NEXT:    call @tdsl_cuda_set_location(%[[P0]]) : (!llvm.ptr) -> ()
// CHECK-NEXT:    gpu.launch_func  @saxpy_index_gen::@saxpy_index_gen blocks
// Two kernels of one name: the second gets a suffix.
// CHECK-NEXT:    %[[P1:.*]] = llvm.mlir.addressof @[[W1]] : !llvm.ptr
// CHECK-NEXT:    call @tdsl_cuda_set_location(%[[P1]])
// CHECK-NEXT:    gpu.launch_func  @main_fill::@main_fill blocks
// CHECK-NEXT:    %[[P2:.*]] = llvm.mlir.addressof @[[W2]] : !llvm.ptr
// CHECK-NEXT:    call @tdsl_cuda_set_location(%[[P2]])
// CHECK-NEXT:    gpu.launch_func  @main_fill_1::@main_fill_1 blocks
// No name in the location: the kernel keeps its own name, which its
// module now has too.
// CHECK-NEXT:    %[[P3:.*]] = llvm.mlir.addressof @[[W3]] : !llvm.ptr
// CHECK-NEXT:    call @tdsl_cuda_set_location(%[[P3]])
// CHECK-NEXT:    gpu.launch_func  @main_kernel::@main_kernel blocks
// CHECK:       gpu.module @saxpy_index_gen {
// CHECK-NEXT:    gpu.func @saxpy_index_gen(%{{.*}}: memref<8xf32>) kernel
// CHECK:       gpu.module @main_fill {
// CHECK-NEXT:    gpu.func @main_fill(
// CHECK:       gpu.module @main_fill_1 {
// CHECK-NEXT:    gpu.func @main_fill_1(
// CHECK:       gpu.module @main_kernel {
// CHECK-NEXT:    gpu.func @main_kernel(
// CHECK-NOT:   @main_kernel_
module attributes {gpu.container_module} {
  func.func @main(%m: memref<8xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @main_kernel::@main_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<8xf32>) loc(callsite("saxpy.index_gen"("prog.tdsl":9:3) at "prog.tdsl":16:7))
    gpu.launch_func @main_kernel_0::@main_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<8xf32>) loc("main.fill"("prog.tdsl":20:3))
    gpu.launch_func @main_kernel_1::@main_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<8xf32>) loc("main.fill"("prog.tdsl":21:3))
    gpu.launch_func @main_kernel_2::@main_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<8xf32>)
    return
  }
  gpu.module @main_kernel {
    gpu.func @main_kernel(%a: memref<8xf32>) kernel { gpu.return }
  }
  gpu.module @main_kernel_0 {
    gpu.func @main_kernel(%a: memref<8xf32>) kernel { gpu.return }
  }
  gpu.module @main_kernel_1 {
    gpu.func @main_kernel(%a: memref<8xf32>) kernel { gpu.return }
  }
  gpu.module @main_kernel_2 {
    gpu.func @main_kernel(%a: memref<8xf32>) kernel { gpu.return }
  }
}
