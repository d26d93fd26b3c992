// An element-wise op computed into a tensor.empty, inserted into a region
// it reads element for element, computes into that region instead.
// RUN: tdsl-opt %s -split-input-file --tdsl-update-in-place | FileCheck %s

#id = affine_map<(d0, d1) -> (d0, d1)>

// The FDTD update ey[i + 1, j] = ey[i + 1, j] - 0.5 * (h[i + 1, j] - h[i, j]):
// the region becomes the op's outs and the body reads its element there.
// CHECK-LABEL: func.func @field_update(
// CHECK-SAME: %[[EY:.*]]: tensor<8x16xf64>, %[[H:.*]]: tensor<8x16xf64>
// CHECK: %[[R:.*]] = tensor.extract_slice %[[EY]][1, 0] [7, 16] [1, 1]
// CHECK: %[[A:.*]] = tensor.extract_slice %[[H]][1, 0]
// CHECK: %[[B:.*]] = tensor.extract_slice %[[H]][0, 0]
// CHECK: %[[N:.*]] = linalg.generic
// CHECK-SAME: ins(%[[A]], %[[B]] : tensor<7x16xf64>, tensor<7x16xf64>) outs(%[[R]] : tensor<7x16xf64>) attrs = {tdsl.mark}
// CHECK-NEXT: ^bb0(%[[X:.*]]: f64, %[[Y:.*]]: f64, %[[OUT:.*]]: f64):
// CHECK: %[[D:.*]] = arith.subf %[[X]], %[[Y]]
// CHECK: %[[M:.*]] = arith.mulf %[[D]]
// CHECK: arith.subf %[[OUT]], %[[M]]
// CHECK: tensor.insert_slice %[[N]] into %[[EY]][1, 0] [7, 16] [1, 1]
func.func @field_update(%ey: tensor<8x16xf64>, %h: tensor<8x16xf64>) -> tensor<8x16xf64> {
  %half = arith.constant 0.5 : f64
  %e = tensor.empty() : tensor<7x16xf64>
  %r = tensor.extract_slice %ey[1, 0] [7, 16] [1, 1] : tensor<8x16xf64> to tensor<7x16xf64>
  %a = tensor.extract_slice %h[1, 0] [7, 16] [1, 1] : tensor<8x16xf64> to tensor<7x16xf64>
  %b = tensor.extract_slice %h[0, 0] [7, 16] [1, 1] : tensor<8x16xf64> to tensor<7x16xf64>
  %n = linalg.generic {indexing_maps = [#id, #id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%r, %a, %b : tensor<7x16xf64>, tensor<7x16xf64>, tensor<7x16xf64>) outs(%e : tensor<7x16xf64>) attrs = {tdsl.mark} {
  ^bb0(%v: f64, %x: f64, %y: f64, %out: f64):
    %d = arith.subf %x, %y : f64
    %m = arith.mulf %d, %half : f64
    %s = arith.subf %v, %m : f64
    linalg.yield %s : f64
  } -> tensor<7x16xf64>
  %u = tensor.insert_slice %n into %ey[1, 0] [7, 16] [1, 1] : tensor<7x16xf64> into tensor<8x16xf64>
  return %u : tensor<8x16xf64>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// A stencil reads its destination at other offsets: the region it writes
// is not one of its inputs, so it stays as it is (the copy bufferization
// makes is what keeps the old values for the reads).
// CHECK-LABEL: func.func @stencil_reads_elsewhere(
// CHECK: %[[E:.*]] = tensor.empty
// CHECK: linalg.generic
// CHECK-SAME: outs(%[[E]] : tensor<6x16xf64>)
func.func @stencil_reads_elsewhere(%a: tensor<8x16xf64>) -> tensor<8x16xf64> {
  %e = tensor.empty() : tensor<6x16xf64>
  %up = tensor.extract_slice %a[0, 0] [6, 16] [1, 1] : tensor<8x16xf64> to tensor<6x16xf64>
  %down = tensor.extract_slice %a[2, 0] [6, 16] [1, 1] : tensor<8x16xf64> to tensor<6x16xf64>
  %n = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%up, %down : tensor<6x16xf64>, tensor<6x16xf64>) outs(%e : tensor<6x16xf64>) {
  ^bb0(%x: f64, %y: f64, %out: f64):
    %s = arith.addf %x, %y : f64
    linalg.yield %s : f64
  } -> tensor<6x16xf64>
  %u = tensor.insert_slice %n into %a[1, 0] [6, 16] [1, 1] : tensor<6x16xf64> into tensor<8x16xf64>
  return %u : tensor<8x16xf64>
}

// -----

// The region read transposed (another indexing map than the output's):
// element (i, j) reads what (j, i) writes, so nothing changes.
// CHECK-LABEL: func.func @transposed_read(
// CHECK: %[[E:.*]] = tensor.empty
// CHECK: linalg.generic
// CHECK-SAME: outs(%[[E]] : tensor<4x4xf64>)
func.func @transposed_read(%a: tensor<8x8xf64>) -> tensor<8x8xf64> {
  %e = tensor.empty() : tensor<4x4xf64>
  %r = tensor.extract_slice %a[0, 0] [4, 4] [1, 1] : tensor<8x8xf64> to tensor<4x4xf64>
  %n = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%r : tensor<4x4xf64>) outs(%e : tensor<4x4xf64>) {
  ^bb0(%x: f64, %out: f64):
    %s = arith.addf %x, %x : f64
    linalg.yield %s : f64
  } -> tensor<4x4xf64>
  %u = tensor.insert_slice %n into %a[0, 0] [4, 4] [1, 1] : tensor<4x4xf64> into tensor<8x8xf64>
  return %u : tensor<8x8xf64>
}

// -----

// A row sum written over the region's first column reduces: untouched.
// CHECK-LABEL: func.func @reduction(
// CHECK: %[[E:.*]] = tensor.empty
// CHECK: linalg.generic
// CHECK-SAME: outs(%[[E]] : tensor<4xf64>)
func.func @reduction(%a: tensor<4x4xf64>, %v: tensor<8xf64>) -> tensor<8xf64> {
  %e = tensor.empty() : tensor<4xf64>
  %r = tensor.extract_slice %v[0] [4] [1] : tensor<8xf64> to tensor<4xf64>
  %n = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%a, %r : tensor<4x4xf64>, tensor<4xf64>) outs(%e : tensor<4xf64>) {
  ^bb0(%x: f64, %y: f64, %out: f64):
    %s = arith.addf %x, %y : f64
    linalg.yield %s : f64
  } -> tensor<4xf64>
  %u = tensor.insert_slice %n into %v[0] [4] [1] : tensor<4xf64> into tensor<8xf64>
  return %u : tensor<8xf64>
}

// -----

// An output written by several iterations (map (d0, d1) -> (d0)) would read
// elements the op has already updated: untouched.
// CHECK-LABEL: func.func @output_written_twice(
// CHECK: %[[E:.*]] = tensor.empty
// CHECK: linalg.generic
// CHECK-SAME: outs(%[[E]] : tensor<4xf64>)
func.func @output_written_twice(%v: tensor<8xf64>, %w: tensor<4x3xf64>) -> tensor<8xf64> {
  %e = tensor.empty() : tensor<4xf64>
  %r = tensor.extract_slice %v[0] [4] [1] : tensor<8xf64> to tensor<4xf64>
  %n = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "parallel"]}
      ins(%r, %w : tensor<4xf64>, tensor<4x3xf64>) outs(%e : tensor<4xf64>) {
  ^bb0(%x: f64, %y: f64, %out: f64):
    %s = arith.addf %x, %y : f64
    linalg.yield %s : f64
  } -> tensor<4xf64>
  %u = tensor.insert_slice %n into %v[0] [4] [1] : tensor<4xf64> into tensor<8xf64>
  return %u : tensor<8xf64>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d0)>
#row = affine_map<(d0, d1) -> (d1)>

// A loop-carried update of a whole matrix that reads its own column and row
// k (Floyd-Warshall): the slices become copies taken before the op, and
// the op computes into the matrix.
// CHECK-LABEL: func.func @whole_update(
// CHECK: scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[P:.*]] = %{{.*}})
// CHECK: %[[C:.*]] = tensor.extract_slice %[[P]][0, %[[K]]] [8, 1] [1, 1]
// CHECK: %[[R:.*]] = tensor.extract_slice %[[P]][%[[K]], 0] [1, 8] [1, 1]
// CHECK: %[[CC:.*]] = bufferization.alloc_tensor() copy(%[[C]]) : tensor<8xi32>
// CHECK: %[[RC:.*]] = bufferization.alloc_tensor() copy(%[[R]]) : tensor<8xi32>
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[CC]], %[[RC]] : tensor<8xi32>, tensor<8xi32>) outs(%[[P]] : tensor<8x8xi32>)
// CHECK-NEXT: ^bb0(%[[X:.*]]: i32, %[[Y:.*]]: i32, %[[OUT:.*]]: i32):
// CHECK: %[[S:.*]] = arith.addi %[[X]], %[[Y]]
// CHECK: arith.minsi %[[OUT]], %[[S]]
func.func @whole_update(%p0: tensor<8x8xi32>) -> tensor<8x8xi32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %r = scf.for %k = %c0 to %c8 step %c1 iter_args(%p = %p0) -> (tensor<8x8xi32>) {
    %e = tensor.empty() : tensor<8x8xi32>
    %col = tensor.extract_slice %p[0, %k] [8, 1] [1, 1] : tensor<8x8xi32> to tensor<8xi32>
    %row = tensor.extract_slice %p[%k, 0] [1, 8] [1, 1] : tensor<8x8xi32> to tensor<8xi32>
    %n = linalg.generic {indexing_maps = [#id, #col, #row, #id], iterator_types = ["parallel", "parallel"]}
        ins(%p, %col, %row : tensor<8x8xi32>, tensor<8xi32>, tensor<8xi32>) outs(%e : tensor<8x8xi32>) {
    ^bb0(%v: i32, %x: i32, %y: i32, %out: i32):
      %s = arith.addi %x, %y : i32
      %m = arith.minsi %v, %s : i32
      linalg.yield %m : i32
    } -> tensor<8x8xi32>
    scf.yield %n : tensor<8x8xi32>
  }
  return %r : tensor<8x8xi32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d0)>

// Untouched: a function's argument (its caller's), a matrix read again after
// the op, one computed outside the loop (writing it in place would copy it
// at every iteration) and a constant.
// CHECK-LABEL: func.func @whole_argument(
// CHECK-NOT: bufferization.alloc_tensor
// CHECK: %[[E:.*]] = tensor.empty
// CHECK: outs(%[[E]] : tensor<8x8xf64>)
func.func @whole_argument(%p: tensor<8x8xf64>, %k: index) -> tensor<8x8xf64> {
  %e = tensor.empty() : tensor<8x8xf64>
  %col = tensor.extract_slice %p[0, %k] [8, 1] [1, 1] : tensor<8x8xf64> to tensor<8xf64>
  %n = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p, %col : tensor<8x8xf64>, tensor<8xf64>) outs(%e : tensor<8x8xf64>) {
  ^bb0(%v: f64, %x: f64, %out: f64):
    %s = arith.addf %v, %x : f64
    linalg.yield %s : f64
  } -> tensor<8x8xf64>
  return %n : tensor<8x8xf64>
}

// CHECK-LABEL: func.func @whole_read_later(
// CHECK: scf.for
// CHECK-NOT: bufferization.alloc_tensor
// CHECK: %[[E:.*]] = tensor.empty
// CHECK: outs(%[[E]] : tensor<8x8xf64>)
func.func @whole_read_later(%p0: tensor<8x8xf64>, %n: index) -> tensor<8x8xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%p = %p0) -> (tensor<8x8xf64>) {
    %e = tensor.empty() : tensor<8x8xf64>
    %col = tensor.extract_slice %p[0, %k] [8, 1] [1, 1] : tensor<8x8xf64> to tensor<8xf64>
    %u = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
        ins(%p, %col : tensor<8x8xf64>, tensor<8xf64>) outs(%e : tensor<8x8xf64>) {
    ^bb0(%v: f64, %x: f64, %out: f64):
      %s = arith.addf %v, %x : f64
      linalg.yield %s : f64
    } -> tensor<8x8xf64>
    %w = linalg.add ins(%u, %p : tensor<8x8xf64>, tensor<8x8xf64>) outs(%e : tensor<8x8xf64>) -> tensor<8x8xf64>
    scf.yield %w : tensor<8x8xf64>
  }
  return %r : tensor<8x8xf64>
}

// CHECK-LABEL: func.func @whole_loop_invariant(
// CHECK: scf.for
// CHECK-NOT: bufferization.alloc_tensor
// CHECK: %[[E:.*]] = tensor.empty
// CHECK: outs(%[[E]] : tensor<8x8xf64>)
func.func @whole_loop_invariant(%a: tensor<8x8xf64>, %n: index) -> tensor<8x8xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f64
  %f = tensor.empty() : tensor<8x8xf64>
  %c = linalg.fill ins(%one : f64) outs(%f : tensor<8x8xf64>) -> tensor<8x8xf64>
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %a) -> (tensor<8x8xf64>) {
    %e = tensor.empty() : tensor<8x8xf64>
    %col = tensor.extract_slice %c[0, %k] [8, 1] [1, 1] : tensor<8x8xf64> to tensor<8xf64>
    %u = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
        ins(%c, %col : tensor<8x8xf64>, tensor<8xf64>) outs(%e : tensor<8x8xf64>) {
    ^bb0(%v: f64, %x: f64, %out: f64):
      %s = arith.addf %v, %x : f64
      linalg.yield %s : f64
    } -> tensor<8x8xf64>
    scf.yield %u : tensor<8x8xf64>
  }
  return %r : tensor<8x8xf64>
}

// CHECK-LABEL: func.func @whole_constant(
// CHECK-NOT: bufferization.alloc_tensor
// CHECK: %[[E:.*]] = tensor.empty
// CHECK: outs(%[[E]] : tensor<2x2xf64>)
func.func @whole_constant(%k: index) -> tensor<2x2xf64> {
  %p = arith.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf64>
  %e = tensor.empty() : tensor<2x2xf64>
  %col = tensor.extract_slice %p[0, %k] [2, 1] [1, 1] : tensor<2x2xf64> to tensor<2xf64>
  %n = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p, %col : tensor<2x2xf64>, tensor<2xf64>) outs(%e : tensor<2x2xf64>) {
  ^bb0(%v: f64, %x: f64, %out: f64):
    %s = arith.addf %v, %x : f64
    linalg.yield %s : f64
  } -> tensor<2x2xf64>
  return %n : tensor<2x2xf64>
}
