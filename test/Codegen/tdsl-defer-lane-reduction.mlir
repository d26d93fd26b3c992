// Reduction loops marked by tdsl-vectorize carry their lanes and reduce
// them once, after the loop.
// RUN: tdsl-opt %s --tdsl-defer-lane-reduction --split-input-file | FileCheck %s

#a = affine_map<(i, j) -> (i, j)>
#x = affine_map<(i, j) -> (j)>
#y = affine_map<(i, j) -> (i)>

// A @ x, masked: the lanes start at -0 (the identity of +: -0 + x is x for
// every x), each step is an FMA under the
// step's mask, and one multi_reduction adds them into the old accumulator.
// CHECK-LABEL: func.func @matvec(
// CHECK-SAME: %[[INIT:[^:]*]]: vector<8xf64>
// CHECK: %[[ZERO:.*]] = arith.constant dense<-0.000000e+00> : vector<8x16xf64>
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

// -----

// Row sums under a mask: masked-off lanes keep their value.
// CHECK-LABEL: func.func @masked_rowsum(
// CHECK: %[[Z:.*]] = arith.constant dense<-0.000000e+00> : vector<4x16xf32>
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}, %[[L:.*]] = %[[Z]]) -> (vector<4xf32>, vector<4x16xf32>)
// CHECK: %[[S:.*]] = arith.addf %{{.*}}, %[[L]] : vector<4x16xf32>
// CHECK: arith.select %{{.*}}, %[[S]], %[[L]] : vector<4x16xi1>, vector<4x16xf32>
// CHECK: vector.multi_reduction <add>, %{{.*}}, %{{.*}} [1] : vector<4x16xf32> to vector<4xf32>
func.func @masked_rowsum(%init: vector<4xf32>, %v: vector<4x16xf32>, %n: index) -> vector<4xf32> {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c4 = arith.constant 4 : index
  %r = scf.for %k = %c0 to %n step %c16 iter_args(%acc = %init) -> (vector<4xf32>) {
    %left = arith.subi %n, %k : index
    %m = vector.create_mask %c4, %left : vector<4x16xi1>
    %s = vector.mask %m { vector.multi_reduction <add>, %v, %acc [1] : vector<4x16xf32> to vector<4xf32> } : vector<4x16xi1> -> vector<4xf32>
    scf.yield %s : vector<4xf32>
  } {tdsl.reduction_loop}
  return %r : vector<4xf32>
}

// -----

#a = affine_map<(i, j) -> (i, j)>
#x = affine_map<(i, j) -> (j)>
#y = affine_map<(i, j) -> (i)>

// An integer product: a multiply and an add per step.
// CHECK-LABEL: func.func @int_matvec(
// CHECK: arith.constant dense<0> : vector<8x16xi32>
// CHECK: %[[P:.*]] = arith.muli %{{.*}}, %{{.*}} : vector<8x16xi32>
// CHECK: arith.addi %[[P]], %{{.*}} : vector<8x16xi32>
// CHECK: vector.multi_reduction <add>, %{{.*}}, %{{.*}} [1] : vector<8x16xi32> to vector<8xi32>
func.func @int_matvec(%init: vector<8xi32>, %a: vector<8x16xi32>, %x: vector<16xi32>,
                      %n: index) -> vector<8xi32> {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %r = scf.for %k = %c0 to %n step %c16 iter_args(%acc = %init) -> (vector<8xi32>) {
    %s = vector.contract {indexing_maps = [#a, #x, #y], iterator_types = ["parallel", "reduction"], kind = #vector.kind<add>} %a, %x, %acc : vector<8x16xi32>, vector<16xi32> into vector<8xi32>
    scf.yield %s : vector<8xi32>
  } {tdsl.reduction_loop}
  return %r : vector<8xi32>
}

// Left alone: lanes that would not fit in 16 registers of 512 bits (16 x 16
// f64), and index elements (no identity constant to start from).
// CHECK-LABEL: func.func @too_wide(
// CHECK: scf.for {{.*}} -> (vector<16xf64>)
// CHECK: vector.multi_reduction
// CHECK-NEXT: scf.yield
func.func @too_wide(%init: vector<16xf64>, %v: vector<16x16xf64>, %n: index) -> vector<16xf64> {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %r = scf.for %k = %c0 to %n step %c16 iter_args(%acc = %init) -> (vector<16xf64>) {
    %s = vector.multi_reduction <add>, %v, %acc [1] : vector<16x16xf64> to vector<16xf64>
    scf.yield %s : vector<16xf64>
  } {tdsl.reduction_loop}
  return %r : vector<16xf64>
}

// CHECK-LABEL: func.func @index_matvec(
// CHECK: scf.for {{.*}} -> (vector<8xindex>)
// CHECK: vector.contract
func.func @index_matvec(%init: vector<8xindex>, %a: vector<8x16xindex>, %x: vector<16xindex>,
                        %n: index) -> vector<8xindex> {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %r = scf.for %k = %c0 to %n step %c16 iter_args(%acc = %init) -> (vector<8xindex>) {
    %s = vector.contract {indexing_maps = [#a, #x, #y], iterator_types = ["parallel", "reduction"], kind = #vector.kind<add>} %a, %x, %acc : vector<8x16xindex>, vector<16xindex> into vector<8xindex>
    scf.yield %s : vector<8xindex>
  } {tdsl.reduction_loop}
  return %r : vector<8xindex>
}
