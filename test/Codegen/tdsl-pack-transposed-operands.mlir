// RUN: tdsl-opt %s --pass-pipeline='builtin.module(func.func(tdsl-pack-transposed-operands))' | FileCheck %s

// A contraction whose right-hand operand (the one the result's last loop
// reads) keeps a reduction loop innermost reads a copy of it with that loop
// outermost; products that already read it along the columns, or whose
// rows would not repay the copy, are left alone.

#a = affine_map<(i, j, k) -> (i, k)>
#bt = affine_map<(i, j, k) -> (j, k)>
#b = affine_map<(i, j, k) -> (k, j)>
#c = affine_map<(i, j, k) -> (i, j)>

// CHECK-DAG: #[[T:.*]] = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[KJ:.*]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-DAG: #[[W:.*]] = affine_map<(d0, d1, d2) -> (d0, d2, d1)>
// CHECK-LABEL: func.func @a_bt(
// CHECK-SAME: %[[A:[^:]*]]: tensor<64x32xf32>, %[[B:[^:]*]]: tensor<48x32xf32>
// CHECK: %[[E:.*]] = tensor.empty() : tensor<32x48xf32>
// CHECK: %[[P:.*]] = linalg.generic {indexing_maps = [#[[T]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[B]] : tensor<48x32xf32>) outs(%[[E]] : tensor<32x48xf32>) attrs = {tdsl.kernel_id = "f#3.packed"}
// CHECK-NEXT: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: linalg.yield %[[IN]] : f32
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[KJ]], #{{.*}}]
// CHECK-SAME: ins(%[[A]], %[[P]] : tensor<64x32xf32>, tensor<32x48xf32>)
func.func @a_bt(%a: tensor<64x32xf32>, %b: tensor<48x32xf32>, %c: tensor<64x48xf32>) -> tensor<64x48xf32> {
  %r = linalg.generic {indexing_maps = [#a, #bt, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<64x32xf32>, tensor<48x32xf32>) outs(%c : tensor<64x48xf32>)
      attrs = {tdsl.kernel_id = "f#3"} {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<64x48xf32>
  return %r : tensor<64x48xf32>
}

// The transposed operand first: the one the columns read is packed.
// CHECK-LABEL: func.func @bt_first(
// CHECK: tensor.empty(%{{.*}}, %{{.*}}) : tensor<?x?xf32>
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<?x?xf32>) outs(%{{.*}} : tensor<?x?xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[KJ]], #{{.*}}, #{{.*}}]
func.func @bt_first(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = linalg.generic {indexing_maps = [#bt, #a, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%b, %a : tensor<?x?xf32>, tensor<?x?xf32>) outs(%c : tensor<?x?xf32>) {
  ^bb0(%y: f32, %x: f32, %acc: f32):
    %m = arith.mulf %y, %x : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// CHECK-LABEL: func.func @a_b(
// CHECK-NOT: tensor.empty
// CHECK: return
func.func @a_b(%a: tensor<64x32xf32>, %b: tensor<32x48xf32>, %c: tensor<64x48xf32>) -> tensor<64x48xf32> {
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<64x32xf32>, tensor<32x48xf32>) outs(%c : tensor<64x48xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<64x48xf32>
  return %r : tensor<64x48xf32>
}

// Two rows: each element of a copy would serve two multiplies.
// CHECK-LABEL: func.func @two_rows(
// CHECK-NOT: tensor.empty
// CHECK: return
func.func @two_rows(%a: tensor<2x32xf32>, %b: tensor<48x32xf32>, %c: tensor<2x48xf32>) -> tensor<2x48xf32> {
  %r = linalg.generic {indexing_maps = [#a, #bt, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<2x32xf32>, tensor<48x32xf32>) outs(%c : tensor<2x48xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<2x48xf32>
  return %r : tensor<2x48xf32>
}

// The weights of a layer read through 3 x 2 output positions (a dense
// layer's input adjoint): the output loop moves innermost, the others keep
// their order.
// CHECK-LABEL: func.func @window(
// CHECK: tensor.empty() : tensor<3x10x2xf32>
// CHECK: linalg.generic {indexing_maps = [#[[W]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel"]}
func.func @window(%s: tensor<37x10xf32>, %w: tensor<3x2x10xf32>, %o: tensor<37x3x2xf32>) -> tensor<37x3x2xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(n, c, j, o) -> (n, o)>, affine_map<(n, c, j, o) -> (c, j, o)>, affine_map<(n, c, j, o) -> (n, c, j)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%s, %w : tensor<37x10xf32>, tensor<3x2x10xf32>) outs(%o : tensor<37x3x2xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %t = arith.addf %acc, %m : f32
    linalg.yield %t : f32
  } -> tensor<37x3x2xf32>
  return %r : tensor<37x3x2xf32>
}
