// Each named pipeline of tdsl-opt once, chained from tdsl IR to the LLVM
// dialect, and the whole CPU pipeline at -O2 and -O0.
// RUN: tdsl-opt %s --tdsl-to-linalg | FileCheck %s --check-prefix=LINALG
// RUN: tdsl-opt %s --tdsl-to-linalg --tdsl-cpu-tile | FileCheck %s --check-prefix=TILE
// RUN: tdsl-opt %s --tdsl-to-linalg --tdsl-cpu-tile --tdsl-cpu-bufferize | FileCheck %s --check-prefix=BUF
// RUN: tdsl-opt %s --tdsl-to-linalg --tdsl-cpu-tile --tdsl-cpu-bufferize --tdsl-cpu-to-llvm | FileCheck %s --check-prefix=LLVM
// RUN: tdsl-opt %s --tdsl-cpu-pipeline | FileCheck %s --check-prefix=LLVM
// RUN: tdsl-opt %s --tdsl-cpu-pipeline=opt-level=0 | FileCheck %s --check-prefix=O0

// tdsl-to-linalg: no tdsl ops are left; the multiplication by 2 is fused
// into the sum, which reads each element once.
// LINALG-NOT: tdsl.
// LINALG-LABEL: func.func @main()
// LINALG: %[[X:.*]] = linalg.generic {{.*}}iterator_types = ["parallel"]} outs(%{{.*}} : tensor<65536xf32>)
// LINALG: linalg.index 0
// LINALG: %[[S:.*]] = linalg.generic {{.*}}iterator_types = ["reduction"]} ins(%[[X]] : tensor<65536xf32>) outs(%{{.*}} : tensor<f32>)
// LINALG: arith.mulf
// LINALG: arith.addf
// LINALG: %[[V:.*]] = tensor.extract %[[S]][] : tensor<f32>
// LINALG: call @tdsl_print_f32(%[[V]]
// LINALG-NOT: linalg.generic

// tdsl-cpu-tile: timed kernels; the parallel_for is an scf.forall of 16384
// element tiles, vectorized by 16 (the lanes' offsets, loop-invariant, move
// out of the loops); the whole sum is split
// (tdsl-split-reduction): an scf.forall over its 2 blocks of 512 x 64
// elements, each carrying 64 lanes in registers, then the lanes summed
// serially.
// TILE-LABEL: func.func @main()
// TILE: call @tdsl_kernel_begin
// TILE: vector.step : vector<16xindex>
// TILE: scf.forall (%{{.*}}) = (0) to (65536) step (16384)
// TILE: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// TILE: arith.sitofp %{{.*}} : vector<16xi64> to vector<16xf32>
// TILE: vector.transfer_write %{{.*}} : vector<16xf32>, tensor<16xf32>
// TILE: scf.forall.in_parallel
// TILE: call @tdsl_kernel_end
// TILE: call @tdsl_kernel_begin
// TILE: tensor.expand_shape %{{.*}} {{\[\[}}0, 1, 2]] output_shape [2, 512, 64]
// TILE: scf.forall (%{{.*}}) in (2)
// TILE: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (vector<1x64xf32>)
// TILE: arith.mulf %{{.*}}, %{{.*}} : vector<1x1x64xf32>
// TILE: arith.addf %{{.*}}, %{{.*}} : vector<1x64xf32>
// TILE: scf.forall.in_parallel
// TILE-NOT: scf.forall
// TILE: vector.multi_reduction <add>, %{{.*}}, %{{.*}} [0] : vector<16xf32> to f32
// TILE: call @tdsl_kernel_end
// TILE-NOT: linalg.generic

// tdsl-cpu-bufferize: buffers, a forall without shared_outs writing subviews,
// and deallocation.
// BUF-NOT: tensor<
// BUF-LABEL: func.func @main()
// BUF: %[[X:.*]] = memref.alloc() {{.*}}: memref<65536xf32>
// BUF: scf.forall (%[[I:.*]]) = (0) to (65536) step (16384) {
// BUF: memref.subview %[[X]][%[[I]]] [16384] [1]
// BUF: vector.transfer_write %{{.*}} : vector<16xf32>, memref<16xf32, strided<[1], offset: ?>>
// BUF: memref.alloc() {{.*}}: memref<f32>
// BUF: memref.expand_shape %[[X]] {{\[\[}}0, 1, 2]] output_shape [2, 512, 64]
// BUF: scf.forall (%{{.*}}) in (2) {
// BUF: vector.transfer_read %{{.*}} : memref<16xf32, strided<[1], offset: ?>>, vector<16xf32>
// BUF: call @tdsl_print_f32
// BUF-DAG: memref.dealloc %[[X]] : memref<65536xf32>
// BUF-DAG: memref.dealloc %{{.*}} : memref<f32>

// tdsl-cpu-to-llvm (and the whole pipeline): LLVM dialect only; each forall
// is an outlined body launched through tdsl_parallel_for.
// LLVM-DAG: llvm.func @tdsl_parallel_for(i64, i64, i64, !llvm.ptr, !llvm.ptr)
// LLVM-DAG: llvm.func @tdsl_kernel_id(!llvm.ptr, !llvm.ptr, !llvm.ptr) -> i32
// LLVM-DAG: llvm.func @tdsl_print_f32(f32, !llvm.ptr, i32)
// LLVM-LABEL: llvm.func @main_forall_0(
// LLVM-SAME: %{{.*}}: i64, %{{.*}}: i64, %[[CTX:.*]]: !llvm.ptr)
// LLVM: llvm.load %{{.*}} : !llvm.ptr -> !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
// LLVM: llvm.sitofp %{{.*}} : vector<16xi64> to vector<16xf32>
// LLVM: llvm.store %{{.*}}, %{{.*}} {{.*}}: vector<16xf32>, !llvm.ptr
// LLVM-LABEL: llvm.func @main()
// LLVM-DAG: %[[BODY:.*]] = llvm.mlir.addressof @main_forall_0 : !llvm.ptr
// LLVM-DAG: %[[GRAIN:.*]] = llvm.mlir.constant(1 : i64) : i64
// LLVM-DAG: %[[TOTAL:.*]] = llvm.mlir.constant(4 : i64) : i64
// LLVM-DAG: %[[ZERO:.*]] = llvm.mlir.constant(0 : i64) : i64
// LLVM: %[[CTXP:.*]] = llvm.alloca %{{.*}} x !llvm.struct<(struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
// LLVM: llvm.call @tdsl_parallel_for(%[[ZERO]], %[[TOTAL]], %[[GRAIN]], %[[BODY]], %[[CTXP]]) : (i64, i64, i64, !llvm.ptr, !llvm.ptr) -> ()
// LLVM: llvm.call @tdsl_parallel_for(
// LLVM: llvm.intr.vector.reduce.fadd
// LLVM: llvm.call @tdsl_print_f32(
// LLVM-NOT: scf.
// LLVM-NOT: memref.
// LLVM-NOT: func.func

// -O0: serial and scalar: no tdsl_parallel_for, no outlined body, no
// vectors; the kernels are still timed.
// O0-NOT: tdsl_parallel_for
// O0-NOT: _forall_
// O0-NOT: vector<
// O0-LABEL: llvm.func @main()
// O0: llvm.call @tdsl_kernel_begin
// O0: llvm.call @tdsl_kernel_end
// O0: llvm.call @tdsl_print_f32(
// O0-NOT: tdsl_parallel_for
// O0-NOT: vector<
func.func @main() {
  %lo = arith.constant 0 : index
  %hi = arith.constant 65536 : index
  %x = tdsl.parallel_for (%i) = (%lo) to (%hi) -> tensor<65536xf32> {
    %a = tdsl.cast %i : index to f32
    tdsl.yield %a : f32
  }
  %two = tdsl.constant 2.0 : f32
  %y = tdsl.mul %two, %x : f32, tensor<65536xf32> -> tensor<65536xf32>
  %s = tdsl.index_gen ins(%y : tensor<65536xf32>) {
      combiner = #tdsl.combiner<sum>,
      indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>],
      iterator_types = [#tdsl.iterator<reduction>]} -> f32 {
  ^bb0(%e: f32):
    tdsl.yield %e : f32
  }
  tdsl.print %s : f32
  return
}
