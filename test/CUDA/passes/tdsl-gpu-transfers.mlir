// RUN: tdsl-opt %s --tdsl-gpu-transfers --canonicalize | FileCheck %s

// Before a launch, each buffer among the kernel's operands (a view counts as
// its source) goes to the device; before host accesses, to the host, hoisted
// out of a host loop that launches nothing; a copy between two whole
// managed buffers is left to the runtime (tdsl_cuda_copy), which makes it
// where the source's data is. Ops that only view buffers or free them move
// nothing, and neither do the .npy reads and writes, which see to their
// buffers themselves.

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @k(%a: memref<16xf32>, %b: memref<8xf32, strided<[1], offset: 4>>) kernel {
      gpu.return
    }
  }
  func.func private @tdsl_print_memref(memref<16xf32>)
  func.func private @tdsl_print_pointer(!llvm.ptr)

  func.func @transfers() -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %zero = arith.constant 0.0 : f32
    %a = gpu.alloc host_shared () : memref<16xf32>
    %b = gpu.alloc host_shared () : memref<16xf32>
    scf.for %i = %c0 to %c16 step %c1 {
      memref.store %zero, %a[%i] : memref<16xf32>
    }
    %view = memref.subview %b[4] [8] [1] : memref<16xf32> to memref<8xf32, strided<[1], offset: 4>>
    gpu.launch_func @k::@k blocks in (%c1, %c1, %c1) threads in (%c16, %c1, %c1)
        args(%a : memref<16xf32>, %view : memref<8xf32, strided<[1], offset: 4>>)
    memref.copy %a, %b : memref<16xf32> to memref<16xf32>
    func.call @tdsl_print_memref(%b) : (memref<16xf32>) -> ()
    %x = memref.load %a[%c0] : memref<16xf32>
    %d = memref.dim %a, %c0 : memref<16xf32>
    %c = gpu.alloc host_shared () : memref<16xf32>
    %i = memref.extract_aligned_pointer_as_index %c : memref<16xf32> -> index
    %i64 = arith.index_cast %i : index to i64
    %p = llvm.inttoptr %i64 : i64 to !llvm.ptr
    func.call @tdsl_print_pointer(%p) : (!llvm.ptr) -> ()
    %carried = scf.for %j = %c0 to %c16 step %c1 iter_args(%m = %c) -> (memref<16xf32>) {
      scf.yield %m : memref<16xf32>
    }
    gpu.dealloc %b : memref<16xf32>
    return %x : f32
  }

  // A copy of run-time size counts its bytes; the buffers of .npy reads
  // and writes are the runtime's to move.
  func.func private @tdsl_npy_write(!llvm.ptr, i32, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr)
  func.func @dynamic(%n: index, %path: !llvm.ptr, %sizes: !llvm.ptr, %where: !llvm.ptr) {
    %dt = arith.constant 2 : i32
    %rk = arith.constant 1 : i64
    %a = gpu.alloc host_shared (%n) : memref<?xf64>
    %b = gpu.alloc host_shared (%n) : memref<?xf64>
    memref.copy %a, %b : memref<?xf64> to memref<?xf64>
    %i = memref.extract_aligned_pointer_as_index %b : memref<?xf64> -> index
    %i64 = arith.index_cast %i : index to i64
    %p = llvm.inttoptr %i64 : i64 to !llvm.ptr
    func.call @tdsl_npy_write(%path, %dt, %rk, %sizes, %p, %where) : (!llvm.ptr, i32, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> ()
    return
  }
}
// CHECK-LABEL: func.func @transfers()
// CHECK:       %[[A:.*]] = gpu.alloc host_shared () : memref<16xf32>
// CHECK:       %[[B:.*]] = gpu.alloc host_shared () : memref<16xf32>
// CHECK:       %[[PA:.*]] = memref.extract_aligned_pointer_as_index %[[A]]
// CHECK:       call @tdsl_cuda_to_host(%{{.*}}, %{{.*}}) : (!llvm.ptr, !llvm.ptr) -> ()
// CHECK-NEXT:  scf.for
// CHECK:       memref.extract_aligned_pointer_as_index %[[A]]
// CHECK:       call @tdsl_cuda_to_device(
// CHECK:       memref.extract_aligned_pointer_as_index %[[B]]
// CHECK:       call @tdsl_cuda_to_device(
// CHECK-NEXT:  gpu.launch_func @k::@k
// CHECK-NOT:   call @tdsl_cuda_to_device(
// CHECK:       call @tdsl_cuda_copy(%{{.*}}, %{{.*}}, %c64_i64) : (!llvm.ptr, !llvm.ptr, i64) -> ()
// CHECK-NOT:   memref.copy
// CHECK:       call @tdsl_cuda_to_host(
// CHECK-NEXT:  call @tdsl_print_memref(%[[B]])
// CHECK:       call @tdsl_cuda_to_host(
// CHECK-NEXT:  memref.load %[[A]][%c0]
// A pointer passed to the runtime is data (a print of a tensor); buffers
// passed along by loops are not.
// CHECK:       %[[C:.*]] = gpu.alloc host_shared () : memref<16xf32>
// CHECK:       call @tdsl_cuda_to_host(
// CHECK-NEXT:  memref.extract_aligned_pointer_as_index %[[C]]
// CHECK:       call @tdsl_print_pointer(
// CHECK-NOT:   call @tdsl_cuda
// CHECK:       return

// CHECK-LABEL: func.func @dynamic(
// CHECK-SAME:  %[[N:[a-z0-9]+]]: index
// CHECK:       %[[BYTES:.*]] = arith.muli %[[N]], %c8
// CHECK:       %[[B64:.*]] = arith.index_cast %[[BYTES]] : index to i64
// CHECK:       call @tdsl_cuda_copy(%{{.*}}, %{{.*}}, %[[B64]])
// CHECK-NOT:   call @tdsl_cuda_to_host
// CHECK:       call @tdsl_npy_write(
