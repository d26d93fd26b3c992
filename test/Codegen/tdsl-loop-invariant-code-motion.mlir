// Loop-invariant code motion that keeps in the loop a fill which an op
// staying in the loop writes into (tdsl-loop-invariant-code-motion): hoisted,
// bufferization would copy the filled tensor at every iteration.
// RUN: tdsl-opt %s --tdsl-loop-invariant-code-motion | FileCheck %s

// pad2d of a tensor made in the loop: the fill of the zeros stays, the
// empty tensor and the invariant arithmetic move.
// CHECK-LABEL: func.func @pad_in_loop(
// CHECK: tensor.empty() : tensor<4x6xf32>
// CHECK: arith.addf
// CHECK: scf.for
// CHECK:   linalg.fill
// CHECK:   linalg.generic
// CHECK:   tensor.insert_slice
func.func @pad_in_loop(%x: tensor<2x4xf32>, %n: index, %a: f32) -> tensor<4x6xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<4x6xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> tensor<4x6xf32> {
    %e = tensor.empty() : tensor<4x6xf32>
    %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4x6xf32>) -> tensor<4x6xf32>
    %s = arith.addf %a, %a : f32
    %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>],
                         iterator_types = ["parallel", "parallel"]}
        outs(%x : tensor<2x4xf32>) {
    ^bb0(%o: f32):
      %t = arith.addf %o, %s : f32
      %k = arith.index_cast %i : index to i32
      %f = arith.sitofp %k : i32 to f32
      %u = arith.addf %t, %f : f32
      linalg.yield %u : f32
    } -> tensor<2x4xf32>
    %p = tensor.insert_slice %y into %z[1, 1] [2, 4] [1, 1] : tensor<2x4xf32> into tensor<4x6xf32>
    scf.yield %p : tensor<4x6xf32>
  }
  return %r : tensor<4x6xf32>
}

// The same pad of a tensor from outside the loop: all of it is invariant
// and moves, the fill with the insert that writes into it.
// CHECK-LABEL: func.func @pad_invariant(
// CHECK: linalg.fill
// CHECK: tensor.insert_slice
// CHECK: scf.for
// CHECK-NOT: linalg.fill
// CHECK: return
func.func @pad_invariant(%x: tensor<2x4xf32>, %n: index) -> tensor<4x6xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<4x6xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> tensor<4x6xf32> {
    %e = tensor.empty() : tensor<4x6xf32>
    %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4x6xf32>) -> tensor<4x6xf32>
    %p = tensor.insert_slice %x into %z[1, 1] [2, 4] [1, 1] : tensor<2x4xf32> into tensor<4x6xf32>
    %q = arith.addf %p, %acc : tensor<4x6xf32>
    scf.yield %q : tensor<4x6xf32>
  }
  return %r : tensor<4x6xf32>
}

// A fill that the loop only reads moves; one that is the init of an inner
// loop which runs on the outer loop's index stays.
// CHECK-LABEL: func.func @read_and_carried(
// CHECK: %[[READ:.*]] = linalg.fill
// CHECK: scf.for
// CHECK:   %[[INIT:.*]] = linalg.fill
// CHECK:   scf.for {{.*}} iter_args(%{{.*}} = %[[INIT]])
func.func @read_and_carried(%n: index) -> tensor<8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %init = tensor.empty() : tensor<8xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> tensor<8xf32> {
    %e = tensor.empty() : tensor<8xf32>
    %ones = linalg.fill ins(%one : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
    %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
    %in = scf.for %j = %c0 to %i step %c1 iter_args(%t = %z) -> tensor<8xf32> {
      %u = arith.addf %t, %ones : tensor<8xf32>
      scf.yield %u : tensor<8xf32>
    }
    %v = arith.addf %in, %acc : tensor<8xf32>
    scf.yield %v : tensor<8xf32>
  }
  return %r : tensor<8xf32>
}
