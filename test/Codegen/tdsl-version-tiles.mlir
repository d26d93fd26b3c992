// Tiles of run-time-shaped contractions are versioned: full tiles run a
// copy of the op on static types (tdsl-version-tiles).
// RUN: tdsl-opt %s --tdsl-version-tiles | FileCheck %s

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
