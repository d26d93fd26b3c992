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
