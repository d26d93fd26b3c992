// An element-wise op that updates a contraction's result (a bias, an
// activation) is marked as its epilogue and moved right after it
// (tdsl-fuse-epilogues); the later passes keep the two together: one timed
// kernel, the epilogue computed in each tile of the contraction, and the
// two versioned together for full and partial tiles.
//
// RUN: tdsl-opt %s --tdsl-fuse-epilogues --split-input-file | FileCheck %s
// RUN: tdsl-opt %s --tdsl-fuse-epilogues --tdsl-time-kernels --split-input-file | FileCheck %s --check-prefix=TIME
// RUN: tdsl-opt %s --tdsl-fuse-epilogues --tdsl-time-kernels --canonicalize --split-input-file | FileCheck %s --check-prefix=WORK
// RUN: tdsl-opt %s --tdsl-fuse-epilogues --tdsl-tile-to-forall --split-input-file | FileCheck %s --check-prefix=TILE
// RUN: tdsl-opt %s --tdsl-fuse-epilogues --tdsl-tile-to-forall --canonicalize --tdsl-version-tiles --split-input-file | FileCheck %s --check-prefix=VERSION

#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>

// The epilogue computes into the product's result already (as
// tdsl-update-in-place leaves it): marked, and the product moves down to it,
// past a fill, a check of the bias's extent and a scalar the epilogue's
// body reads, which all still run first.
// CHECK-LABEL: func.func @in_place(
// CHECK: linalg.fill {{.*}} -> tensor<4xf32>
// CHECK: scf.if
// CHECK: call @fatal()
// CHECK: arith.mulf
// CHECK-NEXT: %[[C:.*]] = linalg.matmul
// CHECK-NEXT: %[[H:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<96xf32>) outs(%[[C]] : tensor<128x96xf32>) attrs = {tdsl.epilogue}
// CHECK: return %[[H]]
// One kernel: begin before the product, end after the epilogue, with the
// work of both (128 x 96 x 64 x 2 + 128 x 96 x 2 operations; the product's
// bytes and the bias's, the result counted once).
// TIME-LABEL: func.func @in_place(
// TIME: call @tdsl_kernel_begin
// TIME-NEXT: linalg.matmul
// TIME-NEXT: linalg.generic
// TIME-NOT: tdsl_kernel_begin
// TIME: call @tdsl_kernel_end
// TIME-NOT: tdsl_kernel_begin
// TIME: return
// WORK-LABEL: func.func @in_place(
// WORK-DAG: %[[FLOPS:.*]] = arith.constant 1.597440e+06 : f64
// WORK-DAG: %[[BYTES:.*]] = arith.constant 1.068800e+05 : f64
// WORK: call @tdsl_kernel_end(%{{.*}}, %{{.*}}, %[[FLOPS]], %[[BYTES]])
// One parallel loop whose tile computes the product, then the epilogue on
// that tile and the bias's slice, and inserts the result.
// TILE-LABEL: func.func @in_place(
// TILE: scf.forall (%[[I:.*]], %[[J:.*]]) = (0, 0) to (128, 96) step (32, 32) shared_outs(%[[OUT:.*]] = %{{.*}})
// TILE: %[[T:.*]] = linalg.matmul
// TILE: %[[B:.*]] = tensor.extract_slice %{{.*}}[%[[J]]] [32] [1] : tensor<96xf32> to tensor<32xf32>
// TILE: %[[E:.*]] = linalg.generic {{.*}} ins(%[[B]] : tensor<32xf32>) outs(%[[T]] : tensor<32x32xf32>) attrs = {tdsl.epilogue}
// TILE: tensor.parallel_insert_slice %[[E]] into %[[OUT]][%[[I]], %[[J]]]
// TILE-NOT: linalg.generic
// TILE: return
func.func private @fatal()
func.func @in_place(%a: tensor<128x64xf32>, %b: tensor<64x96xf32>, %bias: tensor<96xf32>, %bad: i1) -> (tensor<128x96xf32>, tensor<4xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x96xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<128x96xf32>) -> tensor<128x96xf32>
  %c = linalg.matmul ins(%a, %b : tensor<128x64xf32>, tensor<64x96xf32>) outs(%f : tensor<128x96xf32>) -> tensor<128x96xf32>
  %e2 = tensor.empty() : tensor<4xf32>
  %other = linalg.fill ins(%zero : f32) outs(%e2 : tensor<4xf32>) -> tensor<4xf32>
  scf.if %bad {
    func.call @fatal() : () -> ()
  }
  %two = arith.mulf %zero, %zero : f32
  %h = linalg.generic {indexing_maps = [#col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%bias : tensor<96xf32>) outs(%c : tensor<128x96xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %acc, %x : f32
    %r = arith.maximumf %s, %two : f32
    linalg.yield %r : f32
  } -> tensor<128x96xf32>
  return %h, %other : tensor<128x96xf32>, tensor<4xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>

// An epilogue that reads the product as an input and writes a new tensor
// it does not read computes into the product's result instead.
// CHECK-LABEL: func.func @into_result(
// CHECK: %[[C:.*]] = linalg.matmul
// CHECK-NEXT: %[[H:.*]] = linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel"]} ins(%{{.*}} : tensor<96xf32>) outs(%[[C]] : tensor<128x96xf32>) attrs = {tdsl.epilogue}
// CHECK-NEXT: ^bb0(%[[X:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK-NEXT: arith.subf %[[ACC]], %[[X]] : f32
// CHECK: return %[[H]]
func.func @into_result(%a: tensor<128x64xf32>, %b: tensor<64x96xf32>, %bias: tensor<96xf32>) -> tensor<128x96xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x96xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<128x96xf32>) -> tensor<128x96xf32>
  %c = linalg.matmul ins(%a, %b : tensor<128x64xf32>, tensor<64x96xf32>) outs(%f : tensor<128x96xf32>) -> tensor<128x96xf32>
  %h = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%c, %bias : tensor<128x96xf32>, tensor<96xf32>) outs(%e : tensor<128x96xf32>) {
  ^bb0(%p: f32, %x: f32, %unused: f32):
    %s = arith.subf %p, %x : f32
    linalg.yield %s : f32
  } -> tensor<128x96xf32>
  return %h : tensor<128x96xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#tr = affine_map<(d0, d1) -> (d1, d0)>
#col = affine_map<(d0, d1) -> (d1)>
#row = affine_map<(d0, d1) -> (d0)>

// Left alone: a product used twice; a consumer that reads it transposed; a
// consumer whose body has a side effect; a consumer that reduces.
// CHECK-LABEL: func.func @left_alone(
// CHECK-NOT: tdsl.epilogue
// CHECK: return
func.func private @effect()
func.func @left_alone(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>) -> (tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %twice = linalg.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
  %t1 = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%twice : tensor<64x64xf32>) {
  ^bb0(%acc: f32):
    %r = arith.maximumf %acc, %zero : f32
    linalg.yield %r : f32
  } -> tensor<64x64xf32>
  %c2 = linalg.matmul ins(%b, %a : tensor<64x64xf32>, tensor<64x64xf32>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
  %t2 = linalg.generic {indexing_maps = [#tr, #id], iterator_types = ["parallel", "parallel"]} ins(%c2 : tensor<64x64xf32>) outs(%e : tensor<64x64xf32>) {
  ^bb0(%p: f32, %unused: f32):
    linalg.yield %p : f32
  } -> tensor<64x64xf32>
  %c3 = linalg.matmul ins(%a, %a : tensor<64x64xf32>, tensor<64x64xf32>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
  %t3 = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%c3 : tensor<64x64xf32>) {
  ^bb0(%acc: f32):
    func.call @effect() : () -> ()
    linalg.yield %acc : f32
  } -> tensor<64x64xf32>
  %c4 = linalg.matmul ins(%b, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
  %e1 = tensor.empty() : tensor<64xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<64xf32>) -> tensor<64xf32>
  %t4 = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%c4 : tensor<64x64xf32>) outs(%f1 : tensor<64xf32>) {
  ^bb0(%p: f32, %acc: f32):
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<64xf32>
  return %twice, %t1, %t2, %t3, %t4 : tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
#scalar = affine_map<(d0, d1) -> ()>

// Tiles of 64 leave partial ones at the edges of 203 x 150 (11 rows, 22
// columns): each version of a tile (full, or partial along the rows, the
// columns or both) runs the product and its epilogue on static types (a
// scalar operand as it is).
// TILE-LABEL: func.func @partial_tiles(
// TILE: scf.forall {{.*}} to (203, 150) step (64, 64)
// TILE: linalg.matmul
// TILE: linalg.generic {{.*}} attrs = {tdsl.epilogue}
// TILE-NOT: scf.forall (
// TILE: return
// VERSION-LABEL: func.func @partial_tiles(
// VERSION: scf.forall {{.*}} step (64, 64)
// VERSION: scf.if %{{.*}} -> (tensor<?x?xf32>) {
// VERSION: scf.if %{{.*}} -> (tensor<?x?xf32>) {
// VERSION: %[[S:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<64x64xf32>, tensor<64x64xf32>) outs(%{{.*}} : tensor<64x64xf32>) -> tensor<64x64xf32>
// VERSION: %[[E:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<64xf32>, f32) outs(%[[S]] : tensor<64x64xf32>) attrs = {tdsl.epilogue}
// VERSION: tensor.cast %[[E]] : tensor<64x64xf32> to tensor<?x?xf32>
// VERSION: } else {
// VERSION: %[[C:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<64x64xf32>, tensor<64x22xf32>) outs(%{{.*}} : tensor<64x22xf32>)
// VERSION: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<22xf32>, f32) outs(%[[C]] : tensor<64x22xf32>) attrs = {tdsl.epilogue}
// VERSION: } else {
// VERSION: scf.if %{{.*}} -> (tensor<?x?xf32>) {
// VERSION: %[[R:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<11x64xf32>, tensor<64x64xf32>) outs(%{{.*}} : tensor<11x64xf32>)
// VERSION: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<64xf32>, f32) outs(%[[R]] : tensor<11x64xf32>) attrs = {tdsl.epilogue}
// VERSION: } else {
// VERSION: %[[D:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<11x64xf32>, tensor<64x22xf32>) outs(%{{.*}} : tensor<11x22xf32>)
// VERSION: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<22xf32>, f32) outs(%[[D]] : tensor<11x22xf32>) attrs = {tdsl.epilogue}
// VERSION-NOT: linalg.matmul {{.*}} -> tensor<?x?xf32>
// VERSION: return
func.func @partial_tiles(%a: tensor<203x64xf32>, %b: tensor<64x150xf32>, %bias: tensor<150xf32>, %scale: f32) -> tensor<203x150xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<203x150xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<203x150xf32>) -> tensor<203x150xf32>
  %c = linalg.matmul ins(%a, %b : tensor<203x64xf32>, tensor<64x150xf32>) outs(%f : tensor<203x150xf32>) -> tensor<203x150xf32>
  %h = linalg.generic {indexing_maps = [#col, #scalar, #id], iterator_types = ["parallel", "parallel"]}
      ins(%bias, %scale : tensor<150xf32>, f32) outs(%c : tensor<203x150xf32>) {
  ^bb0(%x: f32, %k: f32, %acc: f32):
    %s = arith.addf %acc, %x : f32
    %sk = arith.mulf %s, %k : f32
    %r = arith.maximumf %sk, %zero : f32
    linalg.yield %r : f32
  } -> tensor<203x150xf32>
  return %h : tensor<203x150xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>

// Run-time shapes: left alone (the product runs in four versions; an
// epilogue in each cost more compile time than it saved).
// CHECK-LABEL: func.func @dynamic(
// CHECK-NOT: tdsl.epilogue
// CHECK: return
func.func @dynamic(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %bias: tensor<?xf32>) -> tensor<?x?xf32> {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %a, %c0 : tensor<?x?xf32>
  %n = tensor.dim %b, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %c = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%f : tensor<?x?xf32>) -> tensor<?x?xf32>
  %h = linalg.generic {indexing_maps = [#col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%bias : tensor<?xf32>) outs(%c : tensor<?x?xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %acc, %x : f32
    linalg.yield %s : f32
  } -> tensor<?x?xf32>
  return %h : tensor<?x?xf32>
}

// -----

// A convolution on run-time shapes runs in one version (its parallel tiles
// are not versioned by size nor by fullness), so its bias joins its tiles.
// CHECK-LABEL: func.func @dynamic_conv(
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>)
// CHECK: tdsl.epilogue
// TILE-LABEL: func.func @dynamic_conv(
// TILE: scf.forall
// TILE: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<?x?x?x?xf32>, tensor<1x?x?x?xf32>)
// TILE: linalg.generic {{.*}}tdsl.epilogue
// TILE: scf.forall.in_parallel
func.func @dynamic_conv(%x: tensor<?x?x?x?xf32>, %w: tensor<?x?x?x?xf32>, %bias: tensor<?xf32>) -> tensor<?x?x?x?xf32> {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %n = tensor.dim %x, %c0 : tensor<?x?x?x?xf32>
  %k = tensor.dim %w, %c0 : tensor<?x?x?x?xf32>
  %h = tensor.dim %x, %c2 : tensor<?x?x?x?xf32>
  %wd = tensor.dim %x, %c3 : tensor<?x?x?x?xf32>
  %e = tensor.empty(%n, %k, %h, %wd) : tensor<?x?x?x?xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32>
  %c = linalg.generic {indexing_maps = [affine_map<(n, k, i, j, c, p, q) -> (k, c, p, q)>,
                                        affine_map<(n, k, i, j, c, p, q) -> (n, c, i + p, j + q)>,
                                        affine_map<(n, k, i, j, c, p, q) -> (n, k, i, j)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel",
                                         "reduction", "reduction", "reduction"]}
      ins(%w, %x : tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>) outs(%f : tensor<?x?x?x?xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<?x?x?x?xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(n, k, i, j) -> (k)>, affine_map<(n, k, i, j) -> (n, k, i, j)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%bias : tensor<?xf32>) outs(%c : tensor<?x?x?x?xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %acc, %v : f32
    linalg.yield %s : f32
  } -> tensor<?x?x?x?xf32>
  return %r : tensor<?x?x?x?xf32>
}
