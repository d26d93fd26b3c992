// RUN: tdsl-opt %s --pass-pipeline='builtin.module(gpu.module(tdsl-gpu-lower-all-reduce))' | FileCheck %s

// tdsl-gpu-reduce combines the threads of a block with gpu.all_reduce,
// which convert-gpu-to-nvvm cannot lower. In each kernel module this pass
// applies MLIR's all_reduce rewrite: every warp reduces its values with
// five xor shuffles (1, 2, 4, 8, 16), lane 0 of each warp writes the
// warp's value to a 32-element workgroup buffer added to the kernel, a
// barrier, then the first warp reduces those values the same way and
// writes the block's value to element 0, which every thread reads after a
// second barrier. The kernel's own op (add, maxsi) combines. Host code and
// non-uniform reductions (which the rewrite does not support) are left
// alone.

// CHECK-LABEL: gpu.module @sum
// CHECK:         gpu.func @sum(%{{.*}}: memref<256xf32>, %[[OUT:.*]]: memref<1xf32>) workgroup(%[[WG:.*]] : memref<32xf32, #gpu.address_space<workgroup>>) kernel
// CHECK-NOT:       gpu.all_reduce
// CHECK:           %[[V:.*]] = memref.load
// Warp step (the partial-warp path with validity checks comes first).
// CHECK:           %{{.*}}, %{{.*}} = gpu.shuffle  xor %[[V]], %c1_i32, %{{.*}} : f32
// CHECK:           arith.addf %[[V]], %{{.*}} : f32
// CHECK:           gpu.shuffle  xor %{{.*}}, %c2_i32
// CHECK:           gpu.shuffle  xor %{{.*}}, %c4_i32
// CHECK:           gpu.shuffle  xor %{{.*}}, %c8_i32
// CHECK:           gpu.shuffle  xor %{{.*}}, %c16_i32
// CHECK:           memref.store %{{.*}}, %[[WG]][%{{.*}}] : memref<32xf32, #gpu.address_space<workgroup>>
// CHECK:           gpu.barrier
// Block step: the first warp reduces the warps' values.
// CHECK:           %[[W:.*]] = memref.load %[[WG]][%{{.*}}] : memref<32xf32, #gpu.address_space<workgroup>>
// CHECK:           gpu.shuffle  xor %[[W]], %c1_i32
// CHECK:           memref.store %{{.*}}, %[[WG]][%c0] : memref<32xf32, #gpu.address_space<workgroup>>
// CHECK:           gpu.barrier
// CHECK-NEXT:      %[[R:.*]] = memref.load %[[WG]][%c0] : memref<32xf32, #gpu.address_space<workgroup>>
// CHECK:           scf.if
// CHECK-NEXT:        memref.store %[[R]], %[[OUT]][%c0] : memref<1xf32>
// CHECK:           gpu.return
gpu.module @sum [#nvvm.target<chip = "sm_90">] {
  gpu.func @sum(%in: memref<256xf32>, %out: memref<1xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %c0 = arith.constant 0 : index
    %t = gpu.thread_id x
    %v = memref.load %in[%t] : memref<256xf32>
    %r = gpu.all_reduce add %v uniform {} : (f32) -> f32
    %first = arith.cmpi eq, %t, %c0 : index
    scf.if %first {
      memref.store %r, %out[%c0] : memref<1xf32>
    }
    gpu.return
  }
}

// An integer maximum: shuffles of i32 combined with arith.maxsi, an i32
// workgroup buffer.
// CHECK-LABEL: gpu.module @imax
// CHECK:         gpu.func @imax({{.*}}) workgroup(%[[WG:.*]] : memref<32xi32, #gpu.address_space<workgroup>>) kernel
// CHECK-NOT:       gpu.all_reduce
// CHECK:           %[[V:.*]] = memref.load
// CHECK:           %[[S:[^,]*]], %{{.*}} = gpu.shuffle  xor %[[V]], %c1_i32, %{{.*}} : i32
// CHECK:           arith.maxsi %[[V]], %[[S]] : i32
// CHECK:           gpu.barrier
// CHECK:           gpu.barrier
// CHECK-NEXT:      %[[R:.*]] = memref.load %[[WG]][%c0]
// CHECK-NEXT:      memref.store %[[R]], %{{.*}}[%c0] : memref<1xi32>
gpu.module @imax {
  gpu.func @imax(%in: memref<64xi32>, %out: memref<1xi32>) kernel {
    %c0 = arith.constant 0 : index
    %t = gpu.thread_id x
    %v = memref.load %in[%t] : memref<64xi32>
    %r = gpu.all_reduce maxsi %v uniform {} : (i32) -> i32
    memref.store %r, %out[%c0] : memref<1xi32>
    gpu.return
  }
}

// Not uniform: the rewrite does not apply; no workgroup buffer is added.
// CHECK-LABEL: gpu.module @nonuniform
// CHECK:         gpu.func @nonuniform(%{{.*}}: memref<64xf32>, %{{.*}}: memref<1xf32>) kernel {
// CHECK-NEXT:      arith.constant
// CHECK-NEXT:      gpu.thread_id
// CHECK-NEXT:      %[[V:.*]] = memref.load
// CHECK-NEXT:      gpu.all_reduce  add %[[V]] {
// CHECK-NOT:       gpu.shuffle
gpu.module @nonuniform {
  gpu.func @nonuniform(%in: memref<64xf32>, %out: memref<1xf32>) kernel {
    %c0 = arith.constant 0 : index
    %t = gpu.thread_id x
    %v = memref.load %in[%t] : memref<64xf32>
    %r = gpu.all_reduce add %v {} : (f32) -> f32
    memref.store %r, %out[%c0] : memref<1xf32>
    gpu.return
  }
}

// Outside kernel modules (a gpu.launch not outlined yet): left alone.
// CHECK-LABEL: func.func @host(
// CHECK:         gpu.launch
// CHECK-NEXT:      gpu.all_reduce  add %{{.*}} uniform {
// CHECK-NOT:     gpu.shuffle
func.func @host(%v: f32) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1) threads(%tx, %ty, %tz) in (%u = %c1, %w = %c1, %q = %c1) {
    %r = gpu.all_reduce add %v uniform {} : (f32) -> f32
    gpu.terminator
  }
  return
}
