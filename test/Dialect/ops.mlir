// Round-trip of every tdsl op through the printer and parser.
// RUN: tdsl-opt %s | tdsl-opt | FileCheck %s

// CHECK-LABEL: func.func @constants
func.func @constants() -> (tensor<2xf32>, f32, i64, tensor<2x2xi1>) {
  // CHECK: tdsl.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
  %0 = tdsl.constant dense<[1.0, 2.0]> : tensor<2xf32>
  // CHECK: tdsl.constant 1.500000e+00 : f32
  %1 = tdsl.constant 1.5 : f32
  // CHECK: tdsl.constant 7 : i64
  %2 = tdsl.constant 7 : i64
  // CHECK: tdsl.constant dense<true> : tensor<2x2xi1>
  %3 = tdsl.constant dense<true> : tensor<2x2xi1>
  return %0, %1, %2, %3 : tensor<2xf32>, f32, i64, tensor<2x2xi1>
}

// CHECK-LABEL: func.func @binary
func.func @binary(%a: tensor<4x3xf32>, %b: tensor<3xf32>, %s: f32,
                  %d: tensor<?x1xf32>, %i: tensor<4xi1>, %j: i1, %k: i64) {
  // CHECK: tdsl.add %{{.*}}, %{{.*}} : tensor<4x3xf32>, tensor<3xf32> -> tensor<4x3xf32>
  %0 = tdsl.add %a, %b : tensor<4x3xf32>, tensor<3xf32> -> tensor<4x3xf32>
  // CHECK: tdsl.sub %{{.*}}, %{{.*}} : f32, tensor<3xf32> -> tensor<3xf32>
  %1 = tdsl.sub %s, %b : f32, tensor<3xf32> -> tensor<3xf32>
  // CHECK: tdsl.mul %{{.*}}, %{{.*}} : tensor<?x1xf32>, tensor<3xf32> -> tensor<?x3xf32>
  %2 = tdsl.mul %d, %b : tensor<?x1xf32>, tensor<3xf32> -> tensor<?x3xf32>
  // CHECK: tdsl.div %{{.*}}, %{{.*}} : f32, f32 -> f32
  %3 = tdsl.div %s, %s : f32, f32 -> f32
  // CHECK: tdsl.rem %{{.*}}, %{{.*}} : i64, i64 -> i64
  %4 = tdsl.rem %k, %k : i64, i64 -> i64
  // CHECK: tdsl.pow %{{.*}}, %{{.*}} : tensor<4x3xf32>, f32 -> tensor<4x3xf32>
  %5 = tdsl.pow %a, %s : tensor<4x3xf32>, f32 -> tensor<4x3xf32>
  // CHECK: tdsl.max %{{.*}}, %{{.*}} : tensor<?x1xf32>, tensor<4x3xf32> -> tensor<4x3xf32>
  %6 = tdsl.max %d, %a : tensor<?x1xf32>, tensor<4x3xf32> -> tensor<4x3xf32>
  // CHECK: tdsl.min %{{.*}}, %{{.*}} : tensor<?x1xf32>, tensor<?x1xf32> -> tensor<?x?xf32>
  %7 = tdsl.min %d, %d : tensor<?x1xf32>, tensor<?x1xf32> -> tensor<?x?xf32>
  // CHECK: tdsl.and %{{.*}}, %{{.*}} : tensor<4xi1>, i1 -> tensor<4xi1>
  %8 = tdsl.and %i, %j : tensor<4xi1>, i1 -> tensor<4xi1>
  // CHECK: tdsl.or %{{.*}}, %{{.*}} : i64, i64 -> i64
  %9 = tdsl.or %k, %k : i64, i64 -> i64
  return
}

// CHECK-LABEL: func.func @cmp_select
func.func @cmp_select(%a: f32, %b: f32, %t: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // CHECK: tdsl.cmp lt, %{{.*}}, %{{.*}} : f32, f32 -> i1
  %c = tdsl.cmp lt, %a, %b : f32, f32 -> i1
  // CHECK: tdsl.cmp ge, %{{.*}}, %{{.*}} : tensor<?x4xf32>, f32 -> tensor<?x4xi1>
  %m = tdsl.cmp ge, %t, %a : tensor<?x4xf32>, f32 -> tensor<?x4xi1>
  // CHECK: tdsl.select %{{.*}}, %{{.*}}, %{{.*}} : i1, f32, f32 -> f32
  %s = tdsl.select %c, %a, %b : i1, f32, f32 -> f32
  // CHECK: tdsl.select %{{.*}}, %{{.*}}, %{{.*}} : tensor<?x4xi1>, tensor<?x4xf32>, f32 -> tensor<?x4xf32>
  %r = tdsl.select %m, %t, %s : tensor<?x4xi1>, tensor<?x4xf32>, f32 -> tensor<?x4xf32>
  return %r : tensor<?x4xf32>
}

// CHECK-LABEL: func.func @unary
func.func @unary(%x: tensor<?xf32>, %i: i64, %b: tensor<3xi1>) {
  // CHECK: tdsl.neg %{{.*}} : i64
  %0 = tdsl.neg %i : i64
  // CHECK: tdsl.abs %{{.*}} : tensor<?xf32>
  %1 = tdsl.abs %x : tensor<?xf32>
  // CHECK: tdsl.not %{{.*}} : tensor<3xi1>
  %2 = tdsl.not %b : tensor<3xi1>
  // CHECK: tdsl.exp %{{.*}} : tensor<?xf32>
  %3 = tdsl.exp %x : tensor<?xf32>
  // CHECK: tdsl.log
  %4 = tdsl.log %x : tensor<?xf32>
  // CHECK: tdsl.sqrt
  %5 = tdsl.sqrt %x : tensor<?xf32>
  // CHECK: tdsl.tanh
  %6 = tdsl.tanh %x : tensor<?xf32>
  // CHECK: tdsl.sin
  %7 = tdsl.sin %x : tensor<?xf32>
  // CHECK: tdsl.cos
  %8 = tdsl.cos %x : tensor<?xf32>
  // CHECK: tdsl.floor
  %9 = tdsl.floor %x : tensor<?xf32>
  // CHECK: tdsl.ceil
  %10 = tdsl.ceil %x : tensor<?xf32>
  // CHECK: tdsl.sigmoid %{{.*}} : tensor<?xf32>
  %11 = tdsl.sigmoid %x : tensor<?xf32>
  return
}

// CHECK-LABEL: func.func @cast_matmul
func.func @cast_matmul(%x: tensor<3xi64>, %a: tensor<?x?xf32>, %m: tensor<4x3xf32>,
                       %v: tensor<3xf32>, %s: f64) {
  // CHECK: tdsl.cast %{{.*}} : tensor<3xi64> to tensor<3xf32>
  %0 = tdsl.cast %x : tensor<3xi64> to tensor<3xf32>
  // CHECK: tdsl.cast %{{.*}} : f64 to index
  %1 = tdsl.cast %s : f64 to index
  // CHECK: tdsl.cast %{{.*}} : tensor<3xi64> to tensor<?xui64>
  %2 = tdsl.cast %x : tensor<3xi64> to tensor<?xui64>
  // CHECK: tdsl.matmul %{{.*}}, %{{.*}} : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
  %3 = tdsl.matmul %a, %a : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
  // CHECK: tdsl.matmul %{{.*}}, %{{.*}} : tensor<4x3xf32>, tensor<3xf32> -> tensor<4xf32>
  %4 = tdsl.matmul %m, %v : tensor<4x3xf32>, tensor<3xf32> -> tensor<4xf32>
  // CHECK: tdsl.matmul %{{.*}}, %{{.*}} : tensor<3xf32>, tensor<?x?xf32> -> tensor<?xf32>
  %5 = tdsl.matmul %v, %a : tensor<3xf32>, tensor<?x?xf32> -> tensor<?xf32>
  return
}

// CHECK-LABEL: func.func @index_gen_matmul
func.func @index_gen_matmul(%A: tensor<?x?xf32>, %B: tensor<?x?xf32>) -> tensor<?x?xf32> {
  // CHECK: tdsl.index_gen ins(%{{.*}}, %{{.*}} : tensor<?x?xf32>, tensor<?x?xf32>)
  // CHECK-SAME: combiner = #tdsl.combiner<sum>
  // CHECK-SAME: indexing_maps = [#map, #map1, #map2]
  // CHECK-SAME: iterator_types = [#tdsl.iterator<parallel>, #tdsl.iterator<parallel>, #tdsl.iterator<reduction>]
  // CHECK-SAME: -> tensor<?x?xf32> {
  // CHECK-NEXT: ^bb0(%{{.*}}: f32, %{{.*}}: f32):
  // CHECK-NEXT: tdsl.mul
  // CHECK-NEXT: tdsl.yield %{{.*}} : f32
  %C = tdsl.index_gen ins(%A, %B : tensor<?x?xf32>, tensor<?x?xf32>) {
      indexing_maps = [affine_map<(i, j, k) -> (i, k)>,
                       affine_map<(i, j, k) -> (k, j)>,
                       affine_map<(i, j, k) -> (i, j)>],
      iterator_types = [#tdsl.iterator<parallel>, #tdsl.iterator<parallel>,
                        #tdsl.iterator<reduction>],
      combiner = #tdsl.combiner<sum>} -> tensor<?x?xf32> {
  ^bb0(%a: f32, %b: f32):
    %p = tdsl.mul %a, %b : f32, f32 -> f32
    tdsl.yield %p : f32
  }
  return %C : tensor<?x?xf32>
}

// Scalar input, constant map result, tdsl.index, scalar result, transpose.
// CHECK-LABEL: func.func @index_gen_misc
func.func @index_gen_misc(%x: tensor<?x2xf32>, %s: f32) -> (f32, tensor<2x?xf32>, tensor<4xindex>) {
  // CHECK: tdsl.index_gen ins(%{{.*}}, %{{.*}} : tensor<?x2xf32>, f32)
  // CHECK-SAME: combiner = #tdsl.combiner<max>
  // CHECK-SAME: -> f32
  %m = tdsl.index_gen ins(%x, %s : tensor<?x2xf32>, f32) {
      indexing_maps = [affine_map<(i) -> (i, 0)>, affine_map<(i) -> ()>,
                       affine_map<(i) -> ()>],
      iterator_types = [#tdsl.iterator<reduction>],
      combiner = #tdsl.combiner<max>} -> f32 {
  ^bb0(%e: f32, %t: f32):
    %v = tdsl.mul %e, %t : f32, f32 -> f32
    tdsl.yield %v : f32
  }
  // CHECK: tdsl.index_gen ins(%{{.*}} : tensor<?x2xf32>)
  // CHECK-SAME: combiner = #tdsl.combiner<none>
  %t = tdsl.index_gen ins(%x : tensor<?x2xf32>) {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j, i)>],
      iterator_types = [#tdsl.iterator<parallel>, #tdsl.iterator<parallel>],
      combiner = #tdsl.combiner<none>} -> tensor<2x?xf32> {
  ^bb0(%e: f32):
    tdsl.yield %e : f32
  }
  // CHECK: tdsl.index_gen {
  // CHECK: tdsl.index 0 : index
  %r = tdsl.index_gen {
      indexing_maps = [affine_map<(i) -> (i)>],
      iterator_types = [#tdsl.iterator<parallel>],
      combiner = #tdsl.combiner<none>} -> tensor<4xindex> {
    %i = tdsl.index 0 : index
    tdsl.yield %i : index
  }
  return %m, %t, %r : f32, tensor<2x?xf32>, tensor<4xindex>
}

// CHECK-LABEL: func.func @parallel_for
func.func @parallel_for(%n: index, %h: index, %w: index, %x: f32) -> (i64, tensor<?x?xf32>) {
  %c0 = arith.constant 0 : index
  // CHECK: tdsl.parallel_for (%[[I:.*]]) = (%{{.*}}) to (%{{.*}}) reduce(add) -> i64 {
  // CHECK-NEXT: arith.index_cast %[[I]] : index to i64
  // CHECK-NEXT: tdsl.yield %{{.*}} : i64
  %s = tdsl.parallel_for (%i) = (%c0) to (%n) reduce(add) -> i64 {
    %v = arith.index_cast %i : index to i64
    tdsl.yield %v : i64
  }
  // CHECK: tdsl.parallel_for (%{{.*}}, %{{.*}}) = (%{{.*}}, %{{.*}}) to (%{{.*}}, %{{.*}}) -> tensor<?x?xf32> {
  %t = tdsl.parallel_for (%i, %j) = (%c0, %c0) to (%h, %w) -> tensor<?x?xf32> {
    tdsl.yield %x : f32
  }
  // CHECK: reduce(max) -> f32
  %m = tdsl.parallel_for (%i) = (%c0) to (%n) reduce(max) -> f32 {
    tdsl.yield %x : f32
  }
  // CHECK: reduce(mul) {tdsl.note = 1 : i64} -> f32
  %p = tdsl.parallel_for (%i) = (%c0) to (%n) reduce(mul) {tdsl.note = 1} -> f32 {
    tdsl.yield %x : f32
  }
  // CHECK: reduce(min) -> f32
  %q = tdsl.parallel_for (%i) = (%c0) to (%n) reduce(min) -> f32 {
    tdsl.yield %x : f32
  }
  return %s, %t : i64, tensor<?x?xf32>
}

// CHECK-LABEL: func.func @random_and_creation
func.func @random_and_creation(%seed: ui64, %iseed: i64, %ctr: i64, %k: index,
                               %n: index, %v: f32) {
  // CHECK: tdsl.random uniform %{{.*}}, %{{.*}} : ui64, i64 -> f32
  %0 = tdsl.random uniform %seed, %ctr : ui64, i64 -> f32
  // CHECK: tdsl.random normal %{{.*}}, %{{.*}} : i64, index -> f64
  %1 = tdsl.random normal %iseed, %k : i64, index -> f64
  // CHECK: tdsl.random_tensor normal %{{.*}} [%{{.*}}] : ui64 -> tensor<?x4xf32>
  %2 = tdsl.random_tensor normal %seed [%n] : ui64 -> tensor<?x4xf32>
  // CHECK: tdsl.random_tensor uniform %{{.*}} : ui64 -> tensor<3x4xf64>
  %3 = tdsl.random_tensor uniform %seed : ui64 -> tensor<3x4xf64>
  // CHECK: tdsl.fill %{{.*}} [%{{.*}}] : f32 -> tensor<?x4xf32>
  %4 = tdsl.fill %v [%n] : f32 -> tensor<?x4xf32>
  // CHECK: tdsl.fill %{{.*}} : f32 -> tensor<2x2xf32>
  %5 = tdsl.fill %v : f32 -> tensor<2x2xf32>
  // CHECK: tdsl.arange : tensor<5xi64>
  %6 = tdsl.arange : tensor<5xi64>
  // CHECK: tdsl.arange [%{{.*}}] : tensor<?xf32>
  %7 = tdsl.arange [%n] : tensor<?xf32>
  return
}

// CHECK-LABEL: func.func @io
func.func @io(%x: f32) {
  // CHECK: tdsl.print "pi =", %{{.*}} : f32
  tdsl.print "pi =", %x : f32
  // CHECK-NEXT: tdsl.print "done"
  tdsl.print "done"
  // CHECK-NEXT: tdsl.load "data.npy" : tensor<?x64xf32>
  %t = tdsl.load "data.npy" : tensor<?x64xf32>
  // CHECK-NEXT: tdsl.print %{{.*}} : tensor<?x64xf32>
  tdsl.print %t : tensor<?x64xf32>
  // CHECK-NEXT: tdsl.print "a\22b\0A" {no_newline}
  tdsl.print "a\"b\n" {no_newline}
  // CHECK-NEXT: tdsl.print "" {no_newline}
  tdsl.print "" {no_newline}
  // CHECK-NEXT: tdsl.save %{{.*}}, "out.npy" : tensor<?x64xf32>
  tdsl.save %t, "out.npy" : tensor<?x64xf32>
  return
}

// CHECK-LABEL: func.func @collectives
func.func @collectives(%w: tensor<64x10xf32>, %b: tensor<10xf64>, %x: tensor<?xi32>) {
  // CHECK: tdsl.world_size : i64
  %n = tdsl.world_size : i64
  // CHECK-NEXT: tdsl.world_rank : i64
  %r = tdsl.world_rank : i64
  // CHECK-NEXT: tdsl.allreduce "sum" %{{.*}}, %{{.*}} : (tensor<64x10xf32>, tensor<10xf64>) -> (tensor<64x10xf32>, tensor<10xf64>)
  %g:2 = tdsl.allreduce "sum" %w, %b : (tensor<64x10xf32>, tensor<10xf64>) -> (tensor<64x10xf32>, tensor<10xf64>)
  // CHECK-NEXT: tdsl.allreduce "min" %{{.*}} : (tensor<?xi32>) -> tensor<?xi32>
  %m = tdsl.allreduce "min" %x : (tensor<?xi32>) -> tensor<?xi32>
  // CHECK-NEXT: tdsl.broadcast %{{.*}} from %{{.*}} : (tensor<?xi32>) -> tensor<?xi32>
  %c = tdsl.broadcast %x from %r : (tensor<?xi32>) -> tensor<?xi32>
  return
}
