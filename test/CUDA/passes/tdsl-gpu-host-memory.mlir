// RUN: tdsl-opt %s --tdsl-gpu-host-memory --split-input-file | FileCheck %s

// The CUDA back end keeps every host buffer in CUDA managed memory, which
// kernels and host code (prints, .npy I/O, serial loops) both reach through
// the same pointer: memref.alloc becomes gpu.alloc host_shared, memref.dealloc
// frees through the runtime's mgpuMemFree (gpu-to-llvm lowers only an async
// gpu.dealloc), and a constant global is copied once into a managed buffer
// that all its uses read. Buffers that may exhaust memory (dynamic, or at
// least 1 MiB) first tell the runtime their DSL position, as
// tdsl-locate-allocs does on the CPU. Buffers of the loops that become
// kernels are the kernel's own and stay.

// CHECK-DAG:   func.func private @mgpuMemFree(!llvm.ptr, !llvm.ptr)
// CHECK-DAG:   func.func private @tdsl_alloc_site(!llvm.ptr)
// CHECK-DAG:   llvm.mlir.global private constant @[[WHERE:.*]]("prog.tdsl:3:7\00")
// CHECK-LABEL: func.func @buffers(
// CHECK-SAME:    %[[N:[^:]*]]: index, %[[V:[^:]*]]: f32
// CHECK-NOT:     memref.alloc
// CHECK:         %[[P:.*]] = llvm.mlir.addressof @[[WHERE]] : !llvm.ptr
// CHECK-NEXT:    call @tdsl_alloc_site(%[[P]]) : (!llvm.ptr) -> ()
// CHECK-NEXT:    %[[BIG:.*]] = gpu.alloc  host_shared (%[[N]]) : memref<?xf32>
// CHECK-NEXT:    %[[SMALL:.*]] = gpu.alloc  host_shared () : memref<4xf32>
// CHECK-NEXT:    %[[ANON:.*]] = gpu.alloc  host_shared (%[[N]]) : memref<?xf32>
// CHECK-NEXT:    memref.store %[[V]], %[[BIG]]
// CHECK-NEXT:    memref.store %[[V]], %[[SMALL]]
// CHECK-NEXT:    memref.store %[[V]], %[[ANON]]
// CHECK-NEXT:    %[[I:.*]] = memref.extract_aligned_pointer_as_index %[[BIG]] : memref<?xf32> -> index
// CHECK-NEXT:    %[[I64:.*]] = arith.index_cast %[[I]] : index to i64
// CHECK-NEXT:    %[[PTR:.*]] = llvm.inttoptr %[[I64]] : i64 to !llvm.ptr
// CHECK-NEXT:    %[[STREAM:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK-NEXT:    call @mgpuMemFree(%[[PTR]], %[[STREAM]]) : (!llvm.ptr, !llvm.ptr) -> ()
// CHECK-NOT:     memref.dealloc
// CHECK:         return
func.func @buffers(%n: index, %v: f32) {
  %c0 = arith.constant 0 : index
  %big = memref.alloc(%n) : memref<?xf32> loc("prog.tdsl":3:7)
  // Small: no position needed; unknown position: none to give.
  %small = memref.alloc() {alignment = 64 : i64} : memref<4xf32> loc("prog.tdsl":4:7)
  %anon = memref.alloc(%n) : memref<?xf32> loc(unknown)
  memref.store %v, %big[%c0] : memref<?xf32>
  memref.store %v, %small[%c0] : memref<4xf32>
  memref.store %v, %anon[%c0] : memref<?xf32>
  memref.dealloc %big : memref<?xf32>
  return
}

// -----

// A constant: one managed copy right after memref.get_global, read by the
// kernel and by the host; the global itself is left as it is.
// CHECK:       memref.global "private" constant @__constant_3xf32
// CHECK-LABEL: func.func @constant(
// CHECK:         %[[G:.*]] = memref.get_global @__constant_3xf32 : memref<3xf32>
// CHECK-NEXT:    %[[M:.*]] = gpu.alloc  host_shared () : memref<3xf32>
// CHECK-NEXT:    memref.copy %[[G]], %[[M]] : memref<3xf32> to memref<3xf32>
// CHECK:         scf.forall
// CHECK-NEXT:      memref.load %[[M]][%{{.*}}] : memref<3xf32>
// CHECK:         memref.load %[[M]][%{{.*}}] : memref<3xf32>
// CHECK-NOT:     mgpuMemFree
memref.global "private" constant @__constant_3xf32 : memref<3xf32> = dense<[1.0, 2.0, 3.0]> {alignment = 64 : i64}
func.func @constant(%out: memref<3xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %g = memref.get_global @__constant_3xf32 : memref<3xf32>
  scf.forall (%i) in (3) {
    %x = memref.load %g[%i] : memref<3xf32>
    memref.store %x, %out[%i] : memref<3xf32>
  }
  %y = memref.load %g[%c0] : memref<3xf32>
  return %y : f32
}

// -----

// Buffers of kernel bodies (scf.forall and scf.parallel, which become
// kernels; gpu.launch; kernel modules) stay memref.alloc/dealloc, even when
// large: they are not host buffers, and no runtime call can run there.
// CHECK-NOT:   mgpuMemFree
// CHECK-NOT:   tdsl_alloc_site
// CHECK-LABEL: func.func @kernel_buffers(
// CHECK-NOT:     gpu.alloc
// CHECK:         scf.forall
// CHECK-NEXT:      %[[A:.*]] = memref.alloc(%{{.*}}) : memref<?xf32>
// CHECK-NEXT:      memref.dealloc %[[A]]
// CHECK:         scf.parallel
// CHECK-NEXT:      memref.alloc() : memref<8xf32>
// CHECK:         gpu.launch
// CHECK-NEXT:      memref.alloc() : memref<8xf32>
// CHECK:         gpu.module @kernels
// CHECK:           %[[D:.*]] = memref.alloc() : memref<8xf32>
// CHECK-NEXT:      memref.dealloc %[[D]]
// CHECK-NOT:     gpu.alloc
func.func @kernel_buffers(%n: index) {
  %c1 = arith.constant 1 : index
  scf.forall (%i) in (%n) {
    %a = memref.alloc(%n) : memref<?xf32> loc("prog.tdsl":3:7)
    memref.dealloc %a : memref<?xf32>
  }
  scf.parallel (%i) = (%c1) to (%n) step (%c1) {
    %b = memref.alloc() : memref<8xf32>
    scf.reduce
  }
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1) threads(%tx, %ty, %tz) in (%u = %c1, %v = %c1, %w = %c1) {
    %c = memref.alloc() : memref<8xf32>
    gpu.terminator
  }
  return
}
gpu.module @kernels {
  gpu.func @k() kernel {
    %d = memref.alloc() : memref<8xf32>
    memref.dealloc %d : memref<8xf32>
    gpu.return
  }
}
