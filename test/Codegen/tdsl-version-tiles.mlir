// Tiles of run-time-shaped contractions and reductions are versioned: full
// tiles run a copy of the op on static types (tdsl-version-tiles).
// RUN: tdsl-opt %s --tdsl-version-tiles --split-input-file | FileCheck %s

// CHECK-LABEL: func.func @tile(
// CHECK: scf.forall
// CHECK: %[[M:.*]] = affine.min
// CHECK: %[[N:.*]] = affine.min
// CHECK: %[[FM:.*]] = arith.cmpi eq, %[[M]], %c64
// CHECK: %[[FN:.*]] = arith.cmpi eq, %[[N]], %c64
// CHECK: %[[FULL:.*]] = arith.andi %[[FM]], %[[FN]] : i1
// CHECK: scf.if %[[FULL]] -> (tensor<?x?xf32>) {
// CHECK: tensor.cast %{{.*}} : tensor<?x?xf32> to tensor<64x?xf32>
// CHECK: tensor.cast %{{.*}} : tensor<?x?xf32> to tensor<?x64xf32>
// CHECK: tensor.cast %{{.*}} : tensor<?x?xf32> to tensor<64x64xf32>
// CHECK: %[[S:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<64x?xf32>, tensor<?x64xf32>) outs(%{{.*}} : tensor<64x64xf32>) -> tensor<64x64xf32>
// CHECK: tensor.cast %[[S]] : tensor<64x64xf32> to tensor<?x?xf32>
// CHECK: } else {
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<?x?xf32>, tensor<?x?xf32>) outs(%{{.*}} : tensor<?x?xf32>) -> tensor<?x?xf32>
#min = affine_map<(d0)[s0] -> (-d0 + s0, 64)>
func.func @tile(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cst = arith.constant 0.0 : f32
  %m = tensor.dim %a, %c0 : tensor<?x?xf32>
  %k = tensor.dim %a, %c1 : tensor<?x?xf32>
  %n = tensor.dim %b, %c1 : tensor<?x?xf32>
  %r = scf.forall (%i, %j) = (0, 0) to (%m, %n) step (64, 64) shared_outs(%o = %c) -> (tensor<?x?xf32>) {
    %ts = affine.min #min(%i)[%m]
    %tn = affine.min #min(%j)[%n]
    %as = tensor.extract_slice %a[%i, 0] [%ts, %k] [1, 1] : tensor<?x?xf32> to tensor<?x?xf32>
    %bs = tensor.extract_slice %b[0, %j] [%k, %tn] [1, 1] : tensor<?x?xf32> to tensor<?x?xf32>
    %cs = tensor.extract_slice %o[%i, %j] [%ts, %tn] [1, 1] : tensor<?x?xf32> to tensor<?x?xf32>
    %z = linalg.fill ins(%cst : f32) outs(%cs : tensor<?x?xf32>) -> tensor<?x?xf32>
    %t = linalg.matmul ins(%as, %bs : tensor<?x?xf32>, tensor<?x?xf32>) outs(%z : tensor<?x?xf32>) -> tensor<?x?xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %t into %o[%i, %j] [%ts, %tn] [1, 1] : tensor<?x?xf32> into tensor<?x?xf32>
    }
  }
  return %r : tensor<?x?xf32>
}

// -----

// A @ x on a static shape that the tile (256 rows) does not divide: the
// full tiles run on 256 rows, the last tile on its 1900 - 7 * 256 = 108.
// CHECK-LABEL: func.func @matvec(
// CHECK: scf.forall
// CHECK: %[[M:.*]] = affine.min
// CHECK: %[[F:.*]] = arith.cmpi eq, %[[M]], %c256
// CHECK: scf.if %[[F]] -> (tensor<?xf64>) {
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<256x2100xf64>, tensor<2100xf64>) outs(%{{.*}} : tensor<256xf64>)
// CHECK: } else {
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<108x2100xf64>, tensor<2100xf64>) outs(%{{.*}} : tensor<108xf64>)
// CHECK-NOT: tensor<?x2100xf64>, tensor<2100xf64>) outs
#min = affine_map<(d0) -> (-d0 + 1900, 256)>
func.func @matvec(%a: tensor<1900x2100xf64>, %x: tensor<2100xf64>, %y: tensor<1900xf64>) -> tensor<1900xf64> {
  %cst = arith.constant 0.0 : f64
  %r = scf.forall (%i) = (0) to (1900) step (256) shared_outs(%o = %y) -> (tensor<1900xf64>) {
    %ts = affine.min #min(%i)
    %as = tensor.extract_slice %a[%i, 0] [%ts, 2100] [1, 1] : tensor<1900x2100xf64> to tensor<?x2100xf64>
    %ys = tensor.extract_slice %o[%i] [%ts] [1] : tensor<1900xf64> to tensor<?xf64>
    %z = linalg.fill ins(%cst : f64) outs(%ys : tensor<?xf64>) -> tensor<?xf64>
    %t = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
        ins(%as, %x : tensor<?x2100xf64>, tensor<2100xf64>) outs(%z : tensor<?xf64>) {
    ^bb0(%av: f64, %xv: f64, %acc: f64):
      %p = arith.mulf %av, %xv : f64
      %s = arith.addf %acc, %p : f64
      linalg.yield %s : f64
    } -> tensor<?xf64>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %t into %o[%i] [%ts] [1] : tensor<?xf64> into tensor<1900xf64>
    }
  }
  return %r : tensor<1900xf64>
}

// -----

// Both loops partial on a static shape: each combination of full (256) and
// partial (1000 - 3 * 256 = 232) rows and columns runs on static types.
// CHECK-LABEL: func.func @corners(
// CHECK: %[[M:.*]] = affine.min
// CHECK: %[[N:.*]] = affine.min
// CHECK: %[[FM:.*]] = arith.cmpi eq, %[[M]], %c256
// CHECK: %[[FN:.*]] = arith.cmpi eq, %[[N]], %c256
// CHECK: scf.if %[[FM]] -> (tensor<?x?xf32>) {
// CHECK: scf.if %[[FN]] -> (tensor<?x?xf32>) {
// CHECK: linalg.matmul {{.*}} outs(%{{.*}} : tensor<256x256xf32>)
// CHECK: } else {
// CHECK: linalg.matmul {{.*}} outs(%{{.*}} : tensor<256x232xf32>)
// CHECK: } else {
// CHECK: scf.if %[[FN]] -> (tensor<?x?xf32>) {
// CHECK: linalg.matmul {{.*}} outs(%{{.*}} : tensor<232x256xf32>)
// CHECK: } else {
// CHECK: linalg.matmul {{.*}} outs(%{{.*}} : tensor<232x232xf32>)
// CHECK-NOT: linalg.matmul
#min = affine_map<(d0) -> (-d0 + 1000, 256)>
func.func @corners(%a: tensor<1000x64xf32>, %b: tensor<64x1000xf32>, %c: tensor<1000x1000xf32>) -> tensor<1000x1000xf32> {
  %cst = arith.constant 0.0 : f32
  %r = scf.forall (%i, %j) = (0, 0) to (1000, 1000) step (256, 256) shared_outs(%o = %c) -> (tensor<1000x1000xf32>) {
    %ts = affine.min #min(%i)
    %tn = affine.min #min(%j)
    %as = tensor.extract_slice %a[%i, 0] [%ts, 64] [1, 1] : tensor<1000x64xf32> to tensor<?x64xf32>
    %bs = tensor.extract_slice %b[0, %j] [64, %tn] [1, 1] : tensor<64x1000xf32> to tensor<64x?xf32>
    %cs = tensor.extract_slice %o[%i, %j] [%ts, %tn] [1, 1] : tensor<1000x1000xf32> to tensor<?x?xf32>
    %z = linalg.fill ins(%cst : f32) outs(%cs : tensor<?x?xf32>) -> tensor<?x?xf32>
    %t = linalg.matmul ins(%as, %bs : tensor<?x64xf32>, tensor<64x?xf32>) outs(%z : tensor<?x?xf32>) -> tensor<?x?xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %t into %o[%i, %j] [%ts, %tn] [1, 1] : tensor<?x?xf32> into tensor<1000x1000xf32>
    }
  }
  return %r : tensor<1000x1000xf32>
}

// -----

// A convolution's tile is not versioned: tdsl-vectorize peels its register
// tiles (a static copy of the whole tile would run the same ones).
// CHECK-LABEL: func.func @conv(
// CHECK-NOT: scf.if
// CHECK-NOT: tensor.cast
// CHECK: linalg.generic
// CHECK-NOT: linalg.generic
// CHECK: return
#min = affine_map<(d0)[s0] -> (-d0 + s0, 64)>
func.func @conv(%w: tensor<?x?x?x?xf32>, %x: tensor<1x?x?x?xf32>, %out: tensor<1x?x1x?xf32>) -> tensor<1x?x1x?xf32> {
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %k = tensor.dim %out, %c1 : tensor<1x?x1x?xf32>
  %n = tensor.dim %out, %c3 : tensor<1x?x1x?xf32>
  %r = scf.forall (%i, %j) = (0, 0) to (%k, %n) step (64, 64) shared_outs(%o = %out) -> (tensor<1x?x1x?xf32>) {
    %tk = affine.min #min(%i)[%k]
    %tn = affine.min #min(%j)[%n]
    %cs = tensor.extract_slice %o[0, %i, 0, %j] [1, %tk, 1, %tn] [1, 1, 1, 1] : tensor<1x?x1x?xf32> to tensor<1x?x1x?xf32>
    %t = linalg.generic {indexing_maps = [affine_map<(n, k, i, j, c, di, dj) -> (k, c, di, dj)>, affine_map<(n, k, i, j, c, di, dj) -> (n, c, i + di, j + dj)>, affine_map<(n, k, i, j, c, di, dj) -> (n, k, i, j)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
        ins(%w, %x : tensor<?x?x?x?xf32>, tensor<1x?x?x?xf32>) outs(%cs : tensor<1x?x1x?xf32>) {
    ^bb0(%a: f32, %b: f32, %acc: f32):
      %m = arith.mulf %a, %b : f32
      %s = arith.addf %acc, %m : f32
      linalg.yield %s : f32
    } -> tensor<1x?x1x?xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %t into %o[0, %i, 0, %j] [1, %tk, 1, %tn] [1, 1, 1, 1] : tensor<1x?x1x?xf32> into tensor<1x?x1x?xf32>
    }
  }
  return %r : tensor<1x?x1x?xf32>
}
