// Draws at counters a * i + b of a loop read their values from a table of
// Philox blocks computed once per strip (tdsl-share-random-blocks). The
// values themselves are checked bit for bit against numpy by
// test/Regression/shared-draws.test.
// RUN: tdsl-opt %s --tdsl-share-random-blocks --canonicalize --cse | FileCheck %s

// Monte Carlo's pair: counters 2i and 2i + 1 share one table of 16 blocks
// (64 f32 values) per strip of 32 iterations; the loop before the first
// aligned strip and the one after the last draw as before.
// CHECK-LABEL: func.func @pair(
// CHECK-SAME: %[[LB:[^:]*]]: index, %[[UB:[^:]*]]: index, %[[SEED:[^:]*]]: i64
// The bounds from the trip count (unsigned: no overflow near the ends of
// the index range): skip = -lb mod 32 iterations, then whole strips.
// CHECK-DAG: %[[M32:.*]] = arith.constant -32 : index
// CHECK-DAG: %[[C31:.*]] = arith.constant 31 : index
// CHECK: %[[POS:.*]] = arith.cmpi sgt, %[[UB]], %[[LB]]
// CHECK: %[[DIFF:.*]] = arith.subi %[[UB]], %[[LB]]
// CHECK: %[[TRIPS:.*]] = arith.select %[[POS]], %[[DIFF]], %c0
// CHECK: %[[NEG:.*]] = arith.subi %c0, %[[LB]]
// CHECK: %[[SKIP:.*]] = arith.andi %[[NEG]], %[[C31]]
// CHECK: %[[FITS:.*]] = arith.cmpi ult, %[[SKIP]], %[[TRIPS]]
// CHECK: %[[REST:.*]] = arith.subi %[[TRIPS]], %[[SKIP]]
// CHECK: %[[WHOLE:.*]] = arith.andi %[[REST]], %[[M32]]
// CHECK: %[[FIRST:.*]] = arith.addi %[[LB]], %[[SKIP]]
// CHECK: %[[SLB:.*]] = arith.select %[[FITS]], %[[FIRST]], %[[UB]]
// CHECK: %[[LAST:.*]] = arith.addi %[[SLB]], %[[WHOLE]]
// CHECK: %[[SUB:.*]] = arith.select %[[FITS]], %[[LAST]], %[[UB]]
// CHECK: %[[T:.*]] = memref.alloca() : memref<128xf32>
// CHECK: %[[HEAD:.*]] = scf.for %{{.*}} = %[[LB]] to %[[SLB]]
// CHECK-COUNT-2: tdsl.random uniform
// CHECK: %[[STRIPS:.*]] = scf.for %[[I0:.*]] = %[[SLB]] to %[[SUB]] step %c32 iter_args(%{{.*}} = %[[HEAD]])
// CHECK: scf.for %[[L:.*]] = %c0 to %c16
// CHECK-COUNT-4: memref.store %{{.*}}, %[[T]]
// CHECK: scf.for %[[I:.*]] = %[[I0]] to
// CHECK-NOT: tdsl.random
// CHECK: %[[OFF:.*]] = arith.subi %[[I]], %[[I0]]
// CHECK: %[[AT:.*]] = arith.muli %[[OFF]], %c2
// CHECK: memref.load %[[T]][%[[AT]]]
// CHECK: %[[AT1:.*]] = arith.addi %[[AT]], %c1
// CHECK: memref.load %[[T]][%[[AT1]]]
// CHECK: scf.for %{{.*}} = %[[SUB]] to %[[UB]] {{.*}} iter_args(%{{.*}} = %[[STRIPS]])
// CHECK-COUNT-2: tdsl.random uniform
func.func @pair(%lb: index, %ub: index, %seed: i64) -> i64 {
  %c1 = arith.constant 1 : index
  %z = arith.constant 0 : i64
  %r = scf.for %i = %lb to %ub step %c1 iter_args(%acc = %z) -> (i64) {
    %k = tdsl.cast %i : index to i64
    %two = tdsl.constant 2 : i64
    %k0 = tdsl.mul %k, %two : i64, i64 -> i64
    %x = tdsl.random uniform %seed, %k0 : i64, i64 -> f32
    %one = tdsl.constant 1 : i64
    %k1 = tdsl.add %k0, %one : i64, i64 -> i64
    %y = tdsl.random uniform %seed, %k1 : i64, i64 -> f32
    %s = tdsl.add %x, %y : f32, f32 -> f32
    %lim = tdsl.constant 1.0 : f32
    %in = tdsl.cmp lt, %s, %lim : f32, f32 -> i1
    %n = tdsl.cast %in : i1 to i64
    %next = tdsl.add %acc, %n : i64, i64 -> i64
    scf.yield %next : i64
  }
  return %r : i64
}

// Run-time constants (the counters i + off and i + off + 1, f64 normal: 16
// values a group) and a seed computed in the body: strips of 16, the second
// group of the table filled only when off % 16 + 1 >= 1, that is always.
// CHECK-LABEL: func.func @offset(
// CHECK-SAME: %[[OFF:[^:]*]]: i64, %[[S:[^:]*]]: i64
// CHECK: memref.alloca() : memref<32xf64>
// CHECK: scf.for %[[I0:.*]] = {{.*}} step %c16
// CHECK: %[[K0:.*]] = tdsl.add %{{.*}}, %[[OFF]]
// CHECK: %[[SEED:.*]] = tdsl.add %[[S]], %{{.*}} : i64, i64 -> i64
// CHECK: %[[R:.*]] = arith.andi %[[K0]], %c15_i64
// CHECK: %[[RI:.*]] = arith.index_cast %[[R]]
// CHECK: %[[SPREAD:.*]] = arith.addi %[[RI]], %c1
// CHECK: %[[EXTRA:.*]] = arith.cmpi uge, %[[SPREAD]], %c1
// CHECK: %[[N:.*]] = arith.select %[[EXTRA]], %c2, %c1
// CHECK: scf.for %{{.*}} = %c0 to %[[N]]
// CHECK: arith.trunci %[[SEED]]
// CHECK: scf.for
// CHECK-NOT: tdsl.random
// CHECK: memref.load
// CHECK: memref.load
// CHECK: scf.yield
func.func @offset(%off: i64, %s: i64) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c1000 = arith.constant 1000 : index
  %z = arith.constant 0.0 : f64
  %r = scf.for %i = %c0 to %c1000 step %c1 iter_args(%acc = %z) -> (f64) {
    %k = tdsl.cast %i : index to i64
    %ctr = tdsl.add %k, %off : i64, i64 -> i64
    %c7 = tdsl.constant 7 : i64
    %seed = tdsl.add %s, %c7 : i64, i64 -> i64
    %x = tdsl.random normal %seed, %ctr : i64, i64 -> f64
    %one = tdsl.constant 1 : i64
    %ctr1 = tdsl.add %ctr, %one : i64, i64 -> i64
    %y = tdsl.random normal %seed, %ctr1 : i64, i64 -> f64
    %xy = tdsl.add %x, %y : f64, f64 -> f64
    %next = tdsl.add %acc, %xy : f64, f64 -> f64
    scf.yield %next : f64
  }
  return %r : f64
}

// Left alone: a = 3 (not a power of two), a = 128 (past a group of 64), a
// counter that is not affine (i * i), a = 8 alone (a table of 16 blocks
// per 8 iterations: twice the draw's own work), a seed divided in the body
// (a division could trap: never moved out of a condition), a body that
// makes a tensor.
// CHECK-LABEL: func.func @left_alone(
// CHECK-NOT: memref.alloca
// CHECK-COUNT-6: tdsl.random
// CHECK-NOT: memref.alloca
// CHECK: return
func.func @left_alone(%n: index, %s: i64, %t: tensor<4xf32>) -> (f32, tensor<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f32
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (f32) {
    %k = tdsl.cast %i : index to i64
    %c3 = tdsl.constant 3 : i64
    %k3 = tdsl.mul %k, %c3 : i64, i64 -> i64
    %x = tdsl.random uniform %s, %k3 : i64, i64 -> f32
    %c128 = tdsl.constant 128 : i64
    %k128 = tdsl.mul %c128, %k : i64, i64 -> i64
    %y = tdsl.random uniform %s, %k128 : i64, i64 -> f32
    %kk = tdsl.mul %k, %k : i64, i64 -> i64
    %w = tdsl.random uniform %s, %kk : i64, i64 -> f32
    %c8 = tdsl.constant 8 : i64
    %k8 = tdsl.mul %k, %c8 : i64, i64 -> i64
    %v = tdsl.random uniform %s, %k8 : i64, i64 -> f32
    %c2 = tdsl.constant 2 : i64
    %sd = tdsl.div %s, %c2 : i64, i64 -> i64
    %u = tdsl.random uniform %sd, %k : i64, i64 -> f32
    %a = tdsl.add %acc, %x : f32, f32 -> f32
    %b = tdsl.add %a, %y : f32, f32 -> f32
    %c = tdsl.add %b, %w : f32, f32 -> f32
    %d = tdsl.add %c, %v : f32, f32 -> f32
    %e = tdsl.add %d, %u : f32, f32 -> f32
    scf.yield %e : f32
  }
  %u = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %t) -> (tensor<4xf32>) {
    %k = tdsl.cast %i : index to i64
    %x = tdsl.random uniform %s, %k : i64, i64 -> f32
    %v = tdsl.add %acc, %x : tensor<4xf32>, f32 -> tensor<4xf32>
    scf.yield %v : tensor<4xf32>
  }
  return %r, %u : f32, tensor<4xf32>
}
