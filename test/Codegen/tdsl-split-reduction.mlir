// Whole-tensor reductions split into blocks reduced in parallel, lanes, the
// rows after the last block and the last elements (tdsl-split-reduction).
// RUN: tdsl-opt %s --tdsl-split-reduction | FileCheck %s
// RUN: tdsl-opt %s --tdsl-split-reduction="block-size=1024 lanes=32" | FileCheck %s --check-prefix=OPT

#id1 = affine_map<(d0) -> (d0)>
#sc1 = affine_map<(d0) -> ()>
#tr2 = affine_map<(d0, d1) -> (d1, d0)>
#sc2 = affine_map<(d0, d1) -> ()>

// 100000 = 3 blocks of 32768, 26 rows of 64, 32 elements.
// CHECK-LABEL: func.func @sum_static(
// CHECK-SAME: %[[X:[^:]*]]: tensor<100000xf32>, %[[I:[^:]*]]: tensor<f32>
// CHECK: %[[Z:.*]] = linalg.fill {{.*}} -> tensor<3x64xf32>
// CHECK: %[[H:.*]] = tensor.extract_slice %[[X]][0] [98304] [1]
// CHECK: %[[B:.*]] = tensor.expand_shape %[[H]] {{\[\[}}0, 1, 2]] output_shape [3, 512, 64] : tensor<98304xf32> into tensor<3x512x64xf32>
// CHECK: %[[L:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "reduction", "parallel"]} ins(%[[B]] : tensor<3x512x64xf32>) outs(%[[Z]] : tensor<3x64xf32>) attrs = {tdsl.blocked_reduction, tdsl.split}
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: %[[C:.*]] = linalg.generic {{.*}}iterator_types = ["reduction", "parallel"]} ins(%[[L]] : tensor<3x64xf32>) outs(%{{.*}} : tensor<64xf32>)
// CHECK: %[[RS:.*]] = tensor.extract_slice %[[X]][98304] [1664] [1]
// CHECK: %[[R:.*]] = tensor.expand_shape %[[RS]] {{\[\[}}0, 1]] output_shape [26, 64]
// The rows and the last elements are summed apart (from the identity),
// then added: onto the blocks' sums, each small term lost its low bits.
// CHECK: %[[RL:.*]] = linalg.generic {{.*}}iterator_types = ["reduction", "parallel"]} ins(%[[R]] : tensor<26x64xf32>) outs(%{{.*}} : tensor<64xf32>)
// CHECK: arith.mulf
// CHECK: %[[C2:.*]] = linalg.generic {{.*}}iterator_types = ["parallel"]} ins(%[[RL]] : tensor<64xf32>) outs(%[[C]] : tensor<64xf32>)
// CHECK: %[[W:.*]] = linalg.generic {{.*}}iterator_types = ["reduction"]} ins(%[[C2]] : tensor<64xf32>) outs(%[[I]] : tensor<f32>)
// CHECK: %[[TS:.*]] = tensor.extract_slice %[[X]][99968] [32] [1]
// CHECK: %[[TL:.*]] = linalg.generic {{.*}}iterator_types = ["reduction"]} ins(%[[TS]] : tensor<32xf32>) outs(%{{.*}} : tensor<f32>)
// CHECK: arith.mulf
// CHECK: %[[T:.*]] = linalg.generic {{.*}}iterator_types = []} ins(%[[TL]] : tensor<f32>) outs(%[[W]] : tensor<f32>)
// CHECK: return %[[T]]
// OPT-LABEL: func.func @sum_static(
// OPT: tensor.expand_shape %{{.*}} output_shape [97, 32, 32]
func.func @sum_static(%x: tensor<100000xf32>, %init: tensor<f32>) -> tensor<f32> {
  %two = arith.constant 2.0 : f32
  %r = linalg.generic {indexing_maps = [#id1, #sc1], iterator_types = ["reduction"]}
      ins(%x : tensor<100000xf32>) outs(%init : tensor<f32>) {
  ^bb0(%e: f32, %acc: f32):
    %m = arith.mulf %e, %two : f32
    %s = arith.addf %m, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}

// Exactly 2 blocks: no rows and no last elements.
// CHECK-LABEL: func.func @max_two_blocks(
// CHECK: tensor.expand_shape %{{.*}} output_shape [2, 512, 64]
// CHECK: arith.constant 0xFF800000 : f32
// CHECK: arith.maximumf
// CHECK-NOT: tensor.extract_slice
// CHECK: return
func.func @max_two_blocks(%x: tensor<65536xf32>, %init: tensor<f32>) -> tensor<f32> {
  %r = linalg.generic {indexing_maps = [#id1, #sc1], iterator_types = ["reduction"]}
      ins(%x : tensor<65536xf32>) outs(%init : tensor<f32>) {
  ^bb0(%e: f32, %acc: f32):
    %s = arith.maximumf %e, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}

// A run-time size: below 2 blocks (65536 elements) the op stays one chain,
// as a static one would (the order depends on the size only), in a version
// marked not to be split again. Above, every piece is computed from n, and
// the slices after the blocks start at min(offset, n - 1) (a slice may not
// start at the end). Two inputs read in the same transposed order are read
// in memory order, and a scalar input is read as it is.
// CHECK-LABEL: func.func @dot_dynamic_transposed(
// CHECK-SAME: %[[A:[^:]*]]: tensor<?x?xi32>, %[[B:[^:]*]]: tensor<?x?xi32>, %[[S:[^:]*]]: tensor<i32>
// CHECK-DAG: %[[D0:.*]] = tensor.dim %[[A]], %c0
// CHECK-DAG: %[[D1:.*]] = tensor.dim %[[A]], %c1
// CHECK: %[[SIZE:.*]] = arith.muli %{{.*}}, %{{.*}} : index
// CHECK: %[[LARGE:.*]] = arith.cmpi uge, %[[SIZE]], %c65536 : index
// CHECK: %[[V:.*]] = scf.if %[[LARGE]] -> (tensor<i32>) {
// CHECK: %[[N:.*]] = arith.muli %{{.*}}, %{{.*}} : index
// CHECK: %[[FA:.*]] = tensor.collapse_shape %[[A]] {{\[\[}}0, 1]] : tensor<?x?xi32> into tensor<?xi32>
// CHECK: %[[FB:.*]] = tensor.collapse_shape %[[B]] {{\[\[}}0, 1]] : tensor<?x?xi32> into tensor<?xi32>
// CHECK: %[[NB:.*]] = arith.divui %[[N]], %{{.*}} : index
// CHECK: tensor.expand_shape %{{.*}} output_shape [%[[NB]], 512, 64] : tensor<?xi32> into tensor<?x512x64xi32>
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}}, %[[S]] : tensor<?x512x64xi32>, tensor<?x512x64xi32>, tensor<i32>) outs(%{{.*}} : tensor<?x64xi32>)
// CHECK: arith.minui
// CHECK: linalg.generic {{.*}}iterator_types = ["reduction", "parallel"]} ins(%{{.*}}, %{{.*}}, %[[S]] : tensor<?x64xi32>, tensor<?x64xi32>, tensor<i32>)
// CHECK: linalg.generic {{.*}}iterator_types = ["reduction"]} ins(%{{.*}} : tensor<64xi32>)
// CHECK: linalg.generic {{.*}}iterator_types = ["reduction"]} ins(%{{.*}}, %{{.*}}, %[[S]] : tensor<?xi32>, tensor<?xi32>, tensor<i32>)
// CHECK: arith.muli
// CHECK: arith.addi
// CHECK: %[[T:.*]] = linalg.generic {{.*}}iterator_types = []}
// CHECK: scf.yield %[[T]]
// CHECK: } else {
// CHECK: %[[C:.*]] = linalg.generic {{.*}}iterator_types = ["reduction", "reduction"]} ins(%[[A]], %[[B]], %[[S]] : {{.*}} attrs = {tdsl.split}
// CHECK: scf.yield %[[C]]
// CHECK: return %[[V]]
func.func @dot_dynamic_transposed(%a: tensor<?x?xi32>, %b: tensor<?x?xi32>, %s: tensor<i32>,
                                  %init: tensor<i32>) -> tensor<i32> {
  %r = linalg.generic {indexing_maps = [#tr2, #tr2, #sc2, #sc2],
                       iterator_types = ["reduction", "reduction"]}
      ins(%a, %b, %s : tensor<?x?xi32>, tensor<?x?xi32>, tensor<i32>) outs(%init : tensor<i32>) {
  ^bb0(%x: i32, %y: i32, %k: i32, %acc: i32):
    %p = arith.muli %x, %y : i32
    %q = arith.muli %p, %k : i32
    %t = arith.addi %q, %acc : i32
    linalg.yield %t : i32
  } -> tensor<i32>
  return %r : tensor<i32>
}

// A body that reads its position gets it from the element's place in the
// block, row or last elements.
// CHECK-LABEL: func.func @indexed(
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction", "parallel"]}
// CHECK-NEXT: ^bb0(
// CHECK: %[[B:.*]] = linalg.index 0 : index
// CHECK: %[[BB:.*]] = arith.muli %[[B]], %{{.*}} : index
// CHECK: %[[R:.*]] = linalg.index 1 : index
// CHECK: %[[RL:.*]] = arith.muli %[[R]], %{{.*}} : index
// CHECK: %[[L:.*]] = linalg.index 2 : index
// CHECK: %[[RLL:.*]] = arith.addi %[[RL]], %[[L]]
// CHECK: %[[E:.*]] = arith.addi %[[BB]], %[[RLL]]
// CHECK: arith.index_cast %[[E]] : index to i64
// The last elements: from their offset.
// CHECK: linalg.generic {{.*}}iterator_types = ["reduction"]} ins(%{{.*}} : tensor<?xf32>)
// CHECK-NEXT: ^bb0(
// CHECK: %[[T:.*]] = linalg.index 0 : index
// CHECK: %[[E2:.*]] = arith.addi %{{.*}}, %[[T]] : index
// CHECK: arith.index_cast %[[E2]] : index to i64
// CHECK: return
func.func @indexed(%y: tensor<?xf32>, %init: tensor<f32>) -> tensor<f32> {
  %r = linalg.generic {indexing_maps = [#id1, #sc1], iterator_types = ["reduction"]}
      ins(%y : tensor<?xf32>) outs(%init : tensor<f32>) {
  ^bb0(%e: f32, %acc: f32):
    %i = linalg.index 0 : index
    %ii = arith.index_cast %i : index to i64
    %f = arith.sitofp %ii : i64 to f32
    %m = arith.mulf %e, %f : f32
    %s = arith.addf %m, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}

// Inputs read in different orders: one partial result per row, in
// parallel, then the rows in order.
// CHECK-LABEL: func.func @mixed_orders(
// CHECK: %[[P:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]} ins(%{{.*}}, %{{.*}} : tensor<?x?xf32>, tensor<?x?xf32>) outs(%{{.*}} : tensor<?xf32>)
// CHECK: linalg.generic {{.*}}iterator_types = ["reduction"]} ins(%[[P]] : tensor<?xf32>) outs(%{{.*}} : tensor<f32>)
func.func @mixed_orders(%a: tensor<?x?xf32>, %init: tensor<f32>) -> tensor<f32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, #tr2, #sc2],
                       iterator_types = ["reduction", "reduction"]}
      ins(%a, %a : tensor<?x?xf32>, tensor<?x?xf32>) outs(%init : tensor<f32>) {
  ^bb0(%e: f32, %g: f32, %acc: f32):
    %m = arith.mulf %e, %g : f32
    %s = arith.addf %m, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}

// An element-wise result fused into the reduction is written piece by piece
// and put back together in its shape.
// CHECK-LABEL: func.func @fused_output(
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1]] : tensor<300x300xf32> into tensor<90000xf32>
// CHECK: %[[F:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0, 1]] : tensor<300x300xf32> into tensor<90000xf32>
// CHECK: %[[S1:.*]]:2 = linalg.generic {{.*}} outs(%{{.*}}, %{{.*}} : tensor<2x512x64xf32>, tensor<2x64xf32>)
// CHECK: %[[S2:.*]]:2 = linalg.generic {{.*}} outs(%{{.*}}, %{{.*}} : tensor<382x64xf32>, tensor<64xf32>)
// CHECK: %[[S3:.*]]:2 = linalg.generic {{.*}} outs(%{{.*}}, %{{.*}} : tensor<16xf32>, tensor<f32>)
// CHECK: %[[W:.*]] = linalg.generic {{.*}}iterator_types = []} ins(%[[S3]]#1 : tensor<f32>)
// CHECK: %[[C1:.*]] = tensor.collapse_shape %[[S1]]#0
// CHECK: %[[I1:.*]] = tensor.insert_slice %[[C1]] into %[[F]][0] [65536] [1]
// CHECK: %[[C2:.*]] = tensor.collapse_shape %[[S2]]#0
// CHECK: %[[I2:.*]] = tensor.insert_slice %[[C2]] into %[[I1]][65536] [24448] [1]
// CHECK: %[[I3:.*]] = tensor.insert_slice %[[S3]]#0 into %[[I2]][89984] [16] [1]
// CHECK: %[[O:.*]] = tensor.expand_shape %[[I3]] {{\[\[}}0, 1]] output_shape [300, 300]
// CHECK: return %[[O]], %[[W]]
func.func @fused_output(%a: tensor<300x300xf32>, %init: tensor<f32>)
    -> (tensor<300x300xf32>, tensor<f32>) {
  %e0 = tensor.empty() : tensor<300x300xf32>
  %r:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                          affine_map<(d0, d1) -> (d0, d1)>, #sc2],
                         iterator_types = ["reduction", "reduction"]}
      ins(%a : tensor<300x300xf32>) outs(%e0, %init : tensor<300x300xf32>, tensor<f32>) {
  ^bb0(%e: f32, %o: f32, %acc: f32):
    %m = arith.mulf %e, %e : f32
    %s = arith.addf %m, %acc : f32
    linalg.yield %m, %s : f32, f32
  } -> (tensor<300x300xf32>, tensor<f32>)
  return %r#0, %r#1 : tensor<300x300xf32>, tensor<f32>
}

// Left alone: fewer than 2 blocks known at compile time.
// CHECK-LABEL: func.func @left_alone(
// CHECK-NOT: tensor.expand_shape
// CHECK: return
func.func @left_alone(%x: tensor<65535xf32>, %init: tensor<f32>) -> tensor<f32> {
  %small = linalg.generic {indexing_maps = [#id1, #sc1], iterator_types = ["reduction"]}
      ins(%x : tensor<65535xf32>) outs(%init : tensor<f32>) {
  ^bb0(%e: f32, %acc: f32):
    %s = arith.addf %e, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %small : tensor<f32>
}
