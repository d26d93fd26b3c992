// Reduction loops marked by tdsl-vectorize carry their lanes and reduce
// them once, after the loop.
// RUN: tdsl-opt %s --tdsl-defer-lane-reduction --split-input-file | FileCheck %s

#a = affine_map<(i, j) -> (i, j)>
#x = affine_map<(i, j) -> (j)>
#y = affine_map<(i, j) -> (i)>

// A @ x, masked: the lanes start at zero, each step is an FMA under the
// step's mask, and one multi_reduction adds them into the old accumulator.
// CHECK-LABEL: func.func @matvec(
// CHECK-SAME: %[[INIT:[^:]*]]: vector<8xf64>
// CHECK: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<8x16xf64>
// CHECK: %[[R:.*]]:2 = scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[INIT]], %[[L:.*]] = %[[ZERO]]) -> (vector<8xf64>, vector<8x16xf64>)
// CHECK-NOT: vector.contract
// CHECK: %[[XB:.*]] = vector.broadcast %{{.*}} : vector<16xf64> to vector<8x16xf64>
// CHECK: %[[F:.*]] = vector.fma %{{.*}}, %[[XB]], %[[L]] : vector<8x16xf64>
// CHECK: %[[S:.*]] = arith.select %{{.*}}, %[[F]], %[[L]] : vector<8x16xi1>, vector<8x16xf64>
// CHECK: scf.yield %[[ACC]], %[[S]] : vector<8xf64>, vector<8x16xf64>
// CHECK: } {tdsl.reduction_loop}
// CHECK: %[[T:.*]] = vector.multi_reduction <add>, %[[R]]#1, %[[R]]#0 [1] : vector<8x16xf64> to vector<8xf64>
// CHECK: return %[[T]]
func.func @matvec(%init: vector<8xf64>, %a: vector<8x16xf64>, %x: vector<16xf64>,
                  %n: index, %rows: index) -> vector<8xf64> {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %r = scf.for %k = %c0 to %n step %c16 iter_args(%acc = %init) -> (vector<8xf64>) {
    %left = arith.subi %n, %k : index
    %m = vector.create_mask %rows, %left : vector<8x16xi1>
    %s = vector.mask %m { vector.contract {indexing_maps = [#a, #x, #y], iterator_types = ["parallel", "reduction"], kind = #vector.kind<add>} %a, %x, %acc : vector<8x16xf64>, vector<16xf64> into vector<8xf64> } : vector<8x16xi1> -> vector<8xf64>
    scf.yield %s : vector<8xf64>
  } {tdsl.reduction_loop}
  return %r : vector<8xf64>
}

// -----

#at = affine_map<(i, j) -> (j, i)>
#x = affine_map<(i, j) -> (j)>
#y = affine_map<(i, j) -> (i)>

// An operand stored the other way round is transposed to the lanes' order.
// CHECK-LABEL: func.func @transposed(
// CHECK: scf.for {{.*}} -> (vector<4xf32>, vector<4x16xf32>)
// CHECK: %[[T:.*]] = vector.transpose %{{.*}}, [1, 0] : vector<16x4xf32> to vector<4x16xf32>
// CHECK: vector.fma %[[T]], %{{.*}}, %{{.*}} : vector<4x16xf32>
func.func @transposed(%init: vector<4xf32>, %a: vector<16x4xf32>, %x: vector<16xf32>,
                      %n: index) -> vector<4xf32> {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %r = scf.for %k = %c0 to %n step %c16 iter_args(%acc = %init) -> (vector<4xf32>) {
    %s = vector.contract {indexing_maps = [#at, #x, #y], iterator_types = ["parallel", "reduction"], kind = #vector.kind<add>} %a, %x, %acc : vector<16x4xf32>, vector<16xf32> into vector<4xf32>
    scf.yield %s : vector<4xf32>
  } {tdsl.reduction_loop}
  return %r : vector<4xf32>
}

// -----

// Row maxima: lanes start at -inf and take the maximum lane by lane.
// CHECK-LABEL: func.func @rowmax(
// CHECK: %[[NINF:.*]] = arith.constant dense<0xFF800000> : vector<4x16xf32>
// CHECK: scf.for {{.*}} -> (vector<4xf32>, vector<4x16xf32>)
// CHECK: arith.maximumf %{{.*}}, %{{.*}} : vector<4x16xf32>
// CHECK: vector.multi_reduction <maximumf>, %{{.*}}, %{{.*}} [1] : vector<4x16xf32> to vector<4xf32>
func.func @rowmax(%init: vector<4xf32>, %v: vector<4x16xf32>, %n: index) -> vector<4xf32> {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %r = scf.for %k = %c0 to %n step %c16 iter_args(%acc = %init) -> (vector<4xf32>) {
    %s = vector.multi_reduction <maximumf>, %v, %acc [1] : vector<4x16xf32> to vector<4xf32>
    scf.yield %s : vector<4xf32>
  } {tdsl.reduction_loop}
  return %r : vector<4xf32>
}

// -----

// Left alone: a loop tdsl-vectorize did not mark, a step that reduces no
// lanes (a matmul's 8 x 32 x 1 outer product) and an accumulator that is
// also read elsewhere.
// CHECK-LABEL: func.func @unmarked(
// CHECK: vector.multi_reduction <add>, %{{.*}}, %{{.*}} [1] : vector<4x16xf32> to vector<4xf32>
// CHECK-NEXT: scf.yield
func.func @unmarked(%init: vector<4xf32>, %v: vector<4x16xf32>, %n: index) -> vector<4xf32> {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %r = scf.for %k = %c0 to %n step %c16 iter_args(%acc = %init) -> (vector<4xf32>) {
    %s = vector.multi_reduction <add>, %v, %acc [1] : vector<4x16xf32> to vector<4xf32>
    scf.yield %s : vector<4xf32>
  }
  return %r : vector<4xf32>
}

#mk = affine_map<(m, n, k) -> (m, k)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>

// CHECK-LABEL: func.func @outer_product(
// CHECK: scf.for {{.*}} -> (vector<8x32xf32>)
// CHECK: vector.contract
func.func @outer_product(%init: vector<8x32xf32>, %a: vector<8x1xf32>, %b: vector<1x32xf32>,
                         %n: index) -> vector<8x32xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %init) -> (vector<8x32xf32>) {
    %s = vector.contract {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %a, %b, %acc : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
    scf.yield %s : vector<8x32xf32>
  } {tdsl.reduction_loop}
  return %r : vector<8x32xf32>
}

// CHECK-LABEL: func.func @read_twice(
// CHECK: scf.for {{.*}} -> (vector<4xf32>)
// CHECK: vector.multi_reduction <add>, %{{.*}}, %{{.*}} [1] : vector<4x16xf32> to vector<4xf32>
// CHECK: arith.addf
func.func @read_twice(%init: vector<4xf32>, %v: vector<4x16xf32>, %n: index) -> vector<4xf32> {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %r = scf.for %k = %c0 to %n step %c16 iter_args(%acc = %init) -> (vector<4xf32>) {
    %s = vector.multi_reduction <add>, %v, %acc [1] : vector<4x16xf32> to vector<4xf32>
    %t = arith.addf %s, %acc : vector<4xf32>
    scf.yield %t : vector<4xf32>
  } {tdsl.reduction_loop}
  return %r : vector<4xf32>
}
