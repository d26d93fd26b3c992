// RUN: tdsl-opt %s --tdsl-gpu-reduce --canonicalize --split-input-file | FileCheck %s

// Row reductions: a block per output row; its threads (256, or fewer for
// short rows: a multiple of 32 covering the row) reduce strided shares,
// gpu.all_reduce combines them as a tree, thread 0 combines with the fill
// (folded: the fill is gone) and stores. No host pass.

#in = affine_map<(i, j) -> (i, j)>
#out = affine_map<(i, j) -> (i)>
func.func @row_sums(%x: memref<6x1000xf32>, %s: memref<6xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%s : memref<6xf32>)
  linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<6x1000xf32>) outs(%s : memref<6xf32>) {
  ^bb0(%v: f32, %a: f32):
    %r = arith.addf %a, %v : f32
    linalg.yield %r : f32
  }
  return
}
// CHECK-LABEL: func.func @row_sums(
// CHECK-NOT:   linalg.fill
// CHECK:       gpu.launch blocks(%[[B:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c6, %{{.*}} = %c1, %{{.*}} = %c1) threads(%[[T:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c256, %{{.*}} = %c1, %{{.*}} = %c1)
// CHECK:         %[[P:.*]] = scf.for %[[J:.*]] = %[[T]] to %c1000 step %c256 iter_args(%{{.*}} = %cst)
// CHECK:           memref.load %{{.*}}[%{{.*}}, %[[J]]] : memref<6x1000xf32>
// CHECK:         %[[R:.*]] = gpu.all_reduce add %[[P]] uniform
// CHECK:         scf.if
// CHECK:           %[[V:.*]] = arith.addf %[[R]], %cst : f32
// CHECK:           memref.store %[[V]], %{{.*}} : memref<6xf32>
// CHECK-NOT:   linalg.generic

// -----

// A short row (10): a warp of 32 threads; max starts from the output's
// value (no fill here).

#in2 = affine_map<(i, j) -> (i, j)>
#out2 = affine_map<(i, j) -> (i)>
func.func @row_max(%x: memref<4x10xf32>, %m: memref<4xf32>) {
  linalg.generic {indexing_maps = [#in2, #out2], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<4x10xf32>) outs(%m : memref<4xf32>) {
  ^bb0(%v: f32, %a: f32):
    %r = arith.maximumf %a, %v : f32
    linalg.yield %r : f32
  }
  return
}
// CHECK-LABEL: func.func @row_max(
// CHECK:       gpu.launch {{.*}} in (%{{.*}} = %c4, {{.*}} threads({{.*}}) in (%{{.*}} = %c32,
// CHECK:         gpu.all_reduce maximumf
// CHECK:         scf.if
// CHECK:           %[[OLD:.*]] = memref.load %{{.*}} : memref<4xf32>
// CHECK:           arith.maximumf %[[OLD]], %{{.*}} : f32

// -----

// Fused: exp(x) written per element and summed per row in one op. The
// element-wise output is stored by whichever thread computes the element.

#e3 = affine_map<(i, j) -> (i, j)>
#s3 = affine_map<(i, j) -> (i)>
func.func @fused(%x: memref<3x50xf32>, %e: memref<3x50xf32>, %s: memref<3xf32>) {
  linalg.generic {indexing_maps = [#e3, #e3, #s3], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<3x50xf32>) outs(%e, %s : memref<3x50xf32>, memref<3xf32>) {
  ^bb0(%v: f32, %eo: f32, %a: f32):
    %ex = math.exp %v : f32
    %r = arith.addf %a, %ex : f32
    linalg.yield %ex, %r : f32, f32
  }
  return
}
// CHECK-LABEL: func.func @fused(
// CHECK:       gpu.launch {{.*}} threads({{.*}}) in (%{{.*}} = %c64,
// CHECK:         scf.for %[[J:[a-z0-9_]+]] =
// CHECK:           %[[EX:.*]] = math.exp
// CHECK:           memref.store %[[EX]], %{{.*}}[%{{.*}}, %[[J]]] : memref<3x50xf32>
// CHECK:         gpu.all_reduce add

// -----

// A combiner that also reads the accumulator elsewhere cannot be split
// over threads: it stays a linalg op (the host's loops).

#in4 = affine_map<(i, j) -> (i, j)>
#out4 = affine_map<(i, j) -> (i)>
func.func @not_a_combine(%x: memref<4x10xf32>, %m: memref<4xf32>) {
  linalg.generic {indexing_maps = [#in4, #out4], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<4x10xf32>) outs(%m : memref<4xf32>) {
  ^bb0(%v: f32, %a: f32):
    %t = arith.mulf %a, %v : f32
    %r = arith.addf %a, %t : f32
    linalg.yield %r : f32
  }
  return
}
// CHECK-LABEL: func.func @not_a_combine(
// CHECK-NOT:   gpu.launch
// CHECK:       linalg.generic
