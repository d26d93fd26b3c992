// RUN: tdsl-opt %s --tdsl-peel-masked-loops | FileCheck %s

// A loop over a run-time size in steps of 8: every step was masked. The
// main loop reads and writes whole vectors; only the last step is masked.
// CHECK-LABEL: func.func @tail
// CHECK:       scf.for
// CHECK-NOT:     vector.create_mask
// CHECK:         vector.transfer_read %{{.*}}[%{{.*}}], %{{.*}} {in_bounds = [true]}
// CHECK-NOT:     vector.create_mask
// CHECK:         vector.transfer_write %{{.*}}, %{{.*}}[%{{.*}}] {in_bounds = [true]}
// CHECK:       }
// CHECK:       scf.for
// CHECK:         vector.create_mask
// CHECK:         vector.transfer_read {{.*}}, %{{.*}} {in_bounds = [true]}
func.func @tail(%a: memref<?xf32>, %b: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %pad = arith.constant 0.0 : f32
  scf.for %i = %c0 to %n step %c8 {
    %m = affine.min affine_map<(d0)[s0] -> (8, s0 - d0)>(%i)[%n]
    %mask = vector.create_mask %m : vector<8xi1>
    %v = vector.transfer_read %a[%i], %pad, %mask {in_bounds = [true]} : memref<?xf32>, vector<8xf32>
    %w = arith.addf %v, %v : vector<8xf32>
    vector.transfer_write %w, %b[%i], %mask {in_bounds = [true]} : vector<8xf32>, memref<?xf32>
  }
  return
}

// A mask that is not the loop's tail (a size from outside): left alone.
// CHECK-LABEL: func.func @other_mask
// CHECK:       scf.for
// CHECK-NOT:   scf.for
func.func @other_mask(%a: memref<?xf32>, %n: index, %k: index) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %pad = arith.constant 0.0 : f32
  %mask = vector.create_mask %k : vector<8xi1>
  scf.for %i = %c0 to %n step %c8 {
    %v = vector.transfer_read %a[%i], %pad, %mask {in_bounds = [true]} : memref<?xf32>, vector<8xf32>
    vector.transfer_write %v, %a[%i], %mask {in_bounds = [true]} : vector<8xf32>, memref<?xf32>
  }
  return
}
