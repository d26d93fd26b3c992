// RUN: tdsl-opt %s --tdsl-gpu-stage-shared --canonicalize --split-input-file | FileCheck %s
// RUN: tdsl-opt %s --tdsl-gpu-stage-shared=tile=8 --split-input-file | FileCheck %s --check-prefix=TILE8

// A matmul: one block of 16 x 16 threads per 16 x 16 outputs (12 tiles,
// numbered along grid x); A's rows and
// B's columns for a chunk of 16 k are copied to workgroup memory (256
// elements each, one per thread: each thread issues its loads before its
// stores), between barriers; the fill before it is each thread's initial
// accumulator; 100 = 6 x 16 + 4 leaves a chunk of 4. The chunk's loop is
// unrolled by 4 (its trip count is not a constant: an epilogue loop
// follows).

#mA = affine_map<(i, j, k) -> (i, k)>
#mB = affine_map<(i, j, k) -> (k, j)>
#mC = affine_map<(i, j, k) -> (i, j)>
func.func @matmul(%A: memref<40x100xf32>, %B: memref<100x50xf32>, %C: memref<40x50xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%C : memref<40x50xf32>)
  linalg.generic {indexing_maps = [#mA, #mB, #mC],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%A, %B : memref<40x100xf32>, memref<100x50xf32>) outs(%C : memref<40x50xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %c, %p : f32
    linalg.yield %s : f32
  }
  return
}
// CHECK-LABEL: func.func @matmul(
// CHECK-NOT:   linalg.fill
// CHECK:       gpu.launch blocks(%[[BX:.*]], %[[BY:.*]], %{{.*}}) in (%{{.*}} = %c12, %{{.*}} = %c1, %{{.*}} = %c1) threads(%[[TX:.*]], %[[TY:.*]], %{{.*}}) in (%{{.*}} = %c16, %{{.*}} = %c16, %{{.*}} = %c1)
// CHECK-SAME:  workgroup(%[[SA:.*]] : memref<16x16xf32, #gpu.address_space<workgroup>>, %[[SB:.*]] : memref<16x16xf32, #gpu.address_space<workgroup>>)
// CHECK:       %[[ACC:.*]] = scf.for %[[K0:.*]] = %c0 to %c100 step %c16 iter_args(%{{.*}} = %cst)
// CHECK-NOT:     scf.for
// CHECK:         memref.load %{{.*}}[%{{.*}}, %{{.*}}] : memref<40x100xf32>
// CHECK:         memref.store %{{.*}}, %[[SA]]
// CHECK-NOT:     scf.for
// CHECK:         memref.load %{{.*}}[%{{.*}}, %{{.*}}] : memref<100x50xf32>
// CHECK:         memref.store %{{.*}}, %[[SB]]
// CHECK:         gpu.barrier
// CHECK:         %[[N:.*]] = arith.minui
// CHECK:         scf.for %[[K:.*]] = %c0 to %{{.*}} step %c4
// CHECK-COUNT-4:   memref.load %[[SA]][%[[TY]], %{{.*}}]
// CHECK:         scf.for %{{.*}} = %{{.*}} to %[[N]] step %c1
// CHECK:           memref.load %[[SA]][%[[TY]], %{{.*}}]
// CHECK:           memref.load %[[SB]][%{{.*}}, %[[TX]]]
// CHECK:           arith.mulf
// CHECK:           arith.addf
// CHECK:         gpu.barrier
// CHECK:       scf.if
// CHECK:         memref.store %[[ACC]], %{{.*}} : memref<40x50xf32>
// CHECK:       gpu.terminator
// CHECK-NOT:   linalg.generic

// TILE8-LABEL: func.func @matmul(
// TILE8: workgroup(%{{.*}} : memref<8x16xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<16x8xf32, #gpu.address_space<workgroup>>)

// -----

// A 3 x 3 window in the body's loops (a convolution written with an inner
// sum): the block's (16 + 2) x (16 + 2) box of the image is staged once, and
// so is the kernel (smallest first); the body reads them at subscript -
// origin.

#id = affine_map<(y, x) -> (y, x)>
func.func @window(%img: memref<64x64xf32>, %k: memref<3x3xf32>, %out: memref<62x62xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %zero = arith.constant 0.0 : f32
  linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]}
      outs(%out : memref<62x62xf32>) {
  ^bb0(%o: f32):
    %y = linalg.index 0 : index
    %x = linalg.index 1 : index
    %s = scf.for %dy = %c0 to %c3 step %c1 iter_args(%a = %zero) -> (f32) {
      %t = scf.for %dx = %c0 to %c3 step %c1 iter_args(%b = %a) -> (f32) {
        %yy = arith.addi %y, %dy : index
        %xx = arith.addi %x, %dx : index
        %v = memref.load %img[%yy, %xx] : memref<64x64xf32>
        %w = memref.load %k[%dy, %dx] : memref<3x3xf32>
        %m = arith.mulf %v, %w : f32
        %n = arith.addf %b, %m : f32
        scf.yield %n : f32
      }
      scf.yield %t : f32
    }
    linalg.yield %s : f32
  }
  return
}
// CHECK-LABEL: func.func @window(
// CHECK:       gpu.launch
// CHECK-SAME:  workgroup(%[[SK:.*]] : memref<3x3xf32, #gpu.address_space<workgroup>>, %[[SI:.*]] : memref<18x18xf32, #gpu.address_space<workgroup>>)
// CHECK-DAG:   memref.store %{{.*}}, %[[SI]]
// CHECK-DAG:   memref.store %{{.*}}, %[[SK]]
// CHECK:       gpu.barrier
// CHECK:       scf.if
// CHECK:         scf.for
// CHECK:           scf.for
// CHECK-DAG:         memref.load %[[SI]]
// CHECK-DAG:         memref.load %[[SK]]
// CHECK-NOT:   gpu.barrier
// CHECK:       gpu.terminator

// -----

// No reuse: each thread reads its own element of %x, and a row of %m with
// a subscript that is not affine (a product of two loop variables). Both
// are read from global memory; no barrier.

#id2 = affine_map<(y, x) -> (y, x)>
func.func @no_reuse(%x: memref<32x32xf32>, %m: memref<32x1024xf32>, %out: memref<32x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<32x32xf32>) outs(%out : memref<32x32xf32>) {
  ^bb0(%v: f32, %o: f32):
    %y = linalg.index 0 : index
    %xi = linalg.index 1 : index
    %s = scf.for %i = %c0 to %c4 step %c1 iter_args(%a = %v) -> (f32) {
      %j = arith.muli %xi, %i : index
      %w = memref.load %m[%y, %j] : memref<32x1024xf32>
      %n = arith.addf %a, %w : f32
      scf.yield %n : f32
    }
    linalg.yield %s : f32
  }
  return
}
// CHECK-LABEL: func.func @no_reuse(
// CHECK:       gpu.launch
// CHECK-NOT:   workgroup
// CHECK-NOT:   gpu.barrier
// CHECK:       memref.load %{{.*}} : memref<32x32xf32>
// CHECK:       memref.load %{{.*}} : memref<32x1024xf32>
// CHECK:       gpu.terminator
