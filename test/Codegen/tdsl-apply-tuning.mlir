// Contractions found in the tuner's cache under this machine get their
// tile sizes as an attribute (tdsl-apply-tuning); the others, and every op
// when the cache is missing or for another machine, are left as they are.
// RUN: tdsl-opt %s --tdsl-apply-tuning="cache=%S/Inputs/tune-cache.json machine=test-machine" | FileCheck %s
// RUN: tdsl-opt %s --tdsl-apply-tuning="cache=%S/Inputs/tune-cache.json machine=nobody" | FileCheck %s --check-prefix=NONE
// RUN: tdsl-opt %s --tdsl-apply-tuning="cache=%t.missing.json machine=test-machine" | FileCheck %s --check-prefix=NONE
// RUN: echo '{"machines": [' > %t.bad.json
// RUN: tdsl-opt %s --tdsl-apply-tuning="cache=%t.bad.json machine=test-machine" 2>&1 | FileCheck %s --check-prefix=BAD

// CHECK-LABEL: func.func @tuned(
// CHECK: linalg.matmul {tdsl.tile = {rows = 4 : i64, tile = 128 : i64}}
// CHECK-LABEL: func.func @other_shape(
// CHECK-NOT: tdsl.tile
// CHECK: return
// NONE-NOT: tdsl.tile
// BAD: warning: ignoring the tuning cache {{.*}}bad.json
// BAD-NOT: tdsl.tile
func.func @tuned(%a: tensor<64x16xf32>, %b: tensor<16x32xf32>, %c: tensor<64x32xf32>) -> tensor<64x32xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<64x16xf32>, tensor<16x32xf32>) outs(%c : tensor<64x32xf32>) -> tensor<64x32xf32>
  return %r : tensor<64x32xf32>
}

func.func @other_shape(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}
