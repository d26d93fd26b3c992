// Tiling of linalg ops into scf.forall with target tile sizes: square tiles
// for contractions, outer-dimension tiles of ~elementwise-tile elements for
// element-wise ops, nothing for whole reductions; fills fuse into the tiles.
// RUN: tdsl-opt %s --tdsl-tile-to-forall | FileCheck %s
// RUN: tdsl-opt %s --tdsl-tile-to-forall="contraction-tile=32 min-tasks=0 elementwise-tile=1024" | FileCheck %s --check-prefix=OPT

// CHECK-DAG: #[[CLAMP:.*]] = affine_map<(d0)[s0] -> (-d0 + s0, 64)>

// CHECK-LABEL: func.func @matmul(
// CHECK-SAME: %[[A:.*]]: tensor<256x512xf32>, %[[B:.*]]: tensor<512x128xf32>
// CHECK: %[[E:.*]] = tensor.empty() : tensor<256x128xf32>
// CHECK: %[[R:.*]] = scf.forall (%[[I:.*]], %[[J:.*]]) = (0, 0) to (256, 128) step (64, 64) shared_outs(%[[O:.*]] = %[[E]]) -> (tensor<256x128xf32>) {
// CHECK: %[[AS:.*]] = tensor.extract_slice %[[A]][%[[I]], 0] [64, 512] [1, 1] : tensor<256x512xf32> to tensor<64x512xf32>
// CHECK: %[[BS:.*]] = tensor.extract_slice %[[B]][0, %[[J]]] [512, 64] [1, 1] : tensor<512x128xf32> to tensor<512x64xf32>
// CHECK: %[[OS:.*]] = tensor.extract_slice %[[O]][%[[I]], %[[J]]] [64, 64] [1, 1]
// The fill runs on the tile.
// CHECK: %[[F:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[OS]] : tensor<64x64xf32>) -> tensor<64x64xf32>
// CHECK: %[[T:.*]] = linalg.matmul ins(%[[AS]], %[[BS]] : tensor<64x512xf32>, tensor<512x64xf32>) outs(%[[F]] : tensor<64x64xf32>)
// CHECK: scf.forall.in_parallel {
// CHECK: tensor.parallel_insert_slice %[[T]] into %[[O]][%[[I]], %[[J]]] [64, 64] [1, 1] : tensor<64x64xf32> into tensor<256x128xf32>
// CHECK: return %[[R]]
// OPT-LABEL: func.func @matmul(
// OPT: scf.forall (%{{.*}}, %{{.*}}) = (0, 0) to (256, 128) step (32, 32)
// OPT: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<32x512xf32>, tensor<512x32xf32>) outs(%{{.*}} : tensor<32x32xf32>)
func.func @matmul(%a: tensor<256x512xf32>, %b: tensor<512x128xf32>) -> tensor<256x128xf32> {
  %cst = arith.constant 0.0 : f32
  %c0 = tensor.empty() : tensor<256x128xf32>
  %c1 = linalg.fill ins(%cst : f32) outs(%c0 : tensor<256x128xf32>) -> tensor<256x128xf32>
  %c = linalg.matmul ins(%a, %b : tensor<256x512xf32>, tensor<512x128xf32>) outs(%c1 : tensor<256x128xf32>) -> tensor<256x128xf32>
  return %c : tensor<256x128xf32>
}

// 16384 elements per tile: 256 rows of 64.
// CHECK-LABEL: func.func @elementwise(
// CHECK: scf.forall (%[[I:.*]]) = (0) to (1024) step (256) shared_outs(%[[O:.*]] = %{{.*}}) -> (tensor<1024x64xf32>) {
// CHECK: %[[XS:.*]] = tensor.extract_slice %{{.*}}[%[[I]], 0] [256, 64] [1, 1] : tensor<1024x64xf32> to tensor<256x64xf32>
// CHECK: %[[G:.*]] = linalg.generic
// CHECK-SAME: ins(%[[XS]] : tensor<256x64xf32>) outs(%{{.*}} : tensor<256x64xf32>)
// CHECK: math.exp
// CHECK: tensor.parallel_insert_slice %[[G]] into %[[O]][%[[I]], 0] [256, 64] [1, 1]
// OPT-LABEL: func.func @elementwise(
// OPT: scf.forall (%{{.*}}) = (0) to (1024) step (16)
// OPT: linalg.generic
// OPT-SAME: ins(%{{.*}} : tensor<16x64xf32>)
func.func @elementwise(%x: tensor<1024x64xf32>) -> tensor<1024x64xf32> {
  %e = tensor.empty() : tensor<1024x64xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<1024x64xf32>) outs(%e : tensor<1024x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = math.exp %in : f32
    linalg.yield %m : f32
  } -> tensor<1024x64xf32>
  return %r : tensor<1024x64xf32>
}

// A dynamic inner extent counts as 256: tiles of 64 rows, the last one
// clamped with affine.min.
// CHECK-LABEL: func.func @dynamic(
// CHECK-SAME: %[[X:.*]]: tensor<?x?xf32>
// CHECK: scf.forall (%[[I:.*]]) = (0) to (%[[N:.*]]) step (64)
// CHECK: %[[SZ:.*]] = affine.min #[[CLAMP]](%[[I]])[%[[N]]]
// CHECK: tensor.extract_slice %[[X]][%[[I]], 0] [%[[SZ]], %{{.*}}] [1, 1]
// OPT-LABEL: func.func @dynamic(
// OPT: scf.forall (%{{.*}}) = (0) to (%{{.*}}) step (4)
func.func @dynamic(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d0 = tensor.dim %x, %c0 : tensor<?x?xf32>
  %d1 = tensor.dim %x, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%d0, %d1) : tensor<?x?xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<?x?xf32>) outs(%e : tensor<?x?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = math.exp %in : f32
    linalg.yield %m : f32
  } -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// A product on run-time shapes: tiles of 256 when they number min-tasks (8)
// or more at run time, else tiles of 64 (a copy in the else branch).
// CHECK-LABEL: func.func @dynamic_matmul(
// CHECK: arith.ceildivui %{{.*}}, %c256
// CHECK: arith.ceildivui %{{.*}}, %c256
// CHECK: %[[T:.*]] = arith.muli
// CHECK: %[[BIG:.*]] = arith.cmpi uge, %[[T]], %c8
// CHECK: scf.if %[[BIG]] -> (tensor<?x?xf32>) {
// CHECK: scf.forall (%{{.*}}, %{{.*}}) = (0, 0) to (%{{.*}}, %{{.*}}) step (256, 256)
// CHECK: } else {
// CHECK: scf.forall (%{{.*}}, %{{.*}}) = (0, 0) to (%{{.*}}, %{{.*}}) step (64, 64)
// The side given as an option is the side of every tile.
// OPT-LABEL: func.func @dynamic_matmul(
// OPT-NOT: scf.if
// OPT: scf.forall (%{{.*}}, %{{.*}}) = (0, 0) to (%{{.*}}, %{{.*}}) step (32, 32)
func.func @dynamic_matmul(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cst = arith.constant 0.0 : f32
  %m = tensor.dim %a, %c0 : tensor<?x?xf32>
  %n = tensor.dim %b, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %r = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%f : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// A whole reduction has no parallel loop: it stays serial, untiled.
// CHECK-LABEL: func.func @full_reduction(
// CHECK-NOT: scf.forall (
// CHECK: linalg.fill
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["reduction"]
// CHECK-SAME: ins(%{{.*}} : tensor<1024xf32>)
// CHECK-NOT: scf.forall (
// CHECK: return
func.func @full_reduction(%x: tensor<1024xf32>) -> tensor<f32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]}
      ins(%x : tensor<1024xf32>) outs(%f : tensor<f32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.addf %out, %in : f32
    linalg.yield %a : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}

// An op already inside an scf.forall is not tiled again.
// CHECK-LABEL: func.func @inside_forall(
// CHECK: scf.forall (%{{.*}}) in (4)
// CHECK-NOT: scf.forall (
// CHECK: return
func.func @inside_forall(%x: tensor<4x1024xf32>) -> tensor<4x1024xf32> {
  %e = tensor.empty() : tensor<4x1024xf32>
  %r = scf.forall (%i) in (4) shared_outs(%o = %e) -> (tensor<4x1024xf32>) {
    %xs = tensor.extract_slice %x[%i, 0] [1, 1024] [1, 1] : tensor<4x1024xf32> to tensor<1024xf32>
    %os = tensor.extract_slice %o[%i, 0] [1, 1024] [1, 1] : tensor<4x1024xf32> to tensor<1024xf32>
    %g = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
        ins(%xs : tensor<1024xf32>) outs(%os : tensor<1024xf32>) {
    ^bb0(%in: f32, %out: f32):
      %m = math.exp %in : f32
      linalg.yield %m : f32
    } -> tensor<1024xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %g into %o[%i, 0] [1, 1024] [1, 1] : tensor<1024xf32> into tensor<4x1024xf32>
    }
  }
  return %r : tensor<4x1024xf32>
}

// The kernel id set by tdsl-time-kernels moves to the tiled loop.
// CHECK-LABEL: func.func @kernel_id(
// CHECK: scf.forall
// CHECK: } {tdsl.kernel_id = "main#3"}
func.func @kernel_id(%x: tensor<1024x64xf32>) -> tensor<1024x64xf32> {
  %e = tensor.empty() : tensor<1024x64xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<1024x64xf32>) outs(%e : tensor<1024x64xf32>) attrs = {tdsl.kernel_id = "main#3"} {
  ^bb0(%in: f32, %out: f32):
    %m = math.exp %in : f32
    linalg.yield %m : f32
  } -> tensor<1024x64xf32>
  return %r : tensor<1024x64xf32>
}

// A contraction with more than two parallel loops (a convolution over n, k,
// i, j): square tiles over the output channels and the columns (the loops
// of its register tiles: the image does not vary with k, so each vector of
// it serves several channels), one tile per value of the others (images,
// rows), so small images still give every core tiles.
// CHECK-LABEL: func.func @conv(
// CHECK: scf.forall (%{{.*}}, %{{.*}}) in (4, 6)
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<1x8x1x6xf32>)
func.func @conv(%x: tensor<4x3x8x8xf32>, %w: tensor<8x3x3x3xf32>) -> tensor<4x8x6x6xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8x6x6xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<4x8x6x6xf32>) -> tensor<4x8x6x6xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(n, k, i, j, c, p, q) -> (k, c, p, q)>,
                                        affine_map<(n, k, i, j, c, p, q) -> (n, c, i + p, j + q)>,
                                        affine_map<(n, k, i, j, c, p, q) -> (n, k, i, j)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel",
                                         "reduction", "reduction", "reduction"]}
      ins(%w, %x : tensor<8x3x3x3xf32>, tensor<4x3x8x8xf32>) outs(%z : tensor<4x8x6x6xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<4x8x6x6xf32>
  return %r : tensor<4x8x6x6xf32>
}

// The same on run-time sizes takes the small tiles (64) alone, not an
// scf.if between two versions: tdsl-vectorize peels each version's
// register tiles into a dozen copies.
// CHECK-LABEL: func.func @dynamic_conv(
// CHECK-NOT: scf.if
// CHECK: scf.forall (%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) = (0, 0, 0, 0) to (%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) step (1, 64, 1, 64)
// CHECK-NOT: scf.forall (
// CHECK: return
func.func @dynamic_conv(%x: tensor<?x?x?x?xf32>, %w: tensor<?x?x?x?xf32>, %o: tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(n, k, i, j, c, p, q) -> (k, c, p, q)>,
                                        affine_map<(n, k, i, j, c, p, q) -> (n, c, i + p, j + q)>,
                                        affine_map<(n, k, i, j, c, p, q) -> (n, k, i, j)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel",
                                         "reduction", "reduction", "reduction"]}
      ins(%w, %x : tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>) outs(%o : tensor<?x?x?x?xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<?x?x?x?xf32>
  return %r : tensor<?x?x?x?xf32>
}

// An empty batch (0 tiles) does not halve its tiles (it divided by zero).
// CHECK-LABEL: func.func @empty_batch(
// CHECK: linalg.batch_matmul
func.func @empty_batch(%a: tensor<0x64x64xf32>, %b: tensor<0x64x64xf32>) -> tensor<0x64x64xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<0x64x64xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<0x64x64xf32>) -> tensor<0x64x64xf32>
  %r = linalg.batch_matmul ins(%a, %b : tensor<0x64x64xf32>, tensor<0x64x64xf32>) outs(%f : tensor<0x64x64xf32>) -> tensor<0x64x64xf32>
  return %r : tensor<0x64x64xf32>
}
