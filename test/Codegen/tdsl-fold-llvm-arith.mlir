// Integer arithmetic on constants in the LLVM dialect folds: the address
// computations of loads at constant indices (tdsl-fold-llvm-arith).
// RUN: tdsl-opt %s --tdsl-fold-llvm-arith | FileCheck %s

// 0 * 576 + 1 * 6 + 0: the offset 6, which the GEP then takes as a
// constant index; x * 1, x + 0, x - 0 are x; x * 0 is 0.
// CHECK-LABEL: llvm.func @address(
// CHECK-SAME: %[[P:[^:]*]]: !llvm.ptr, %[[X:[^:]*]]: i64
// CHECK-NOT: llvm.mul
// CHECK-NOT: llvm.add
// CHECK-NOT: llvm.sub
// CHECK-DAG: %[[ZERO:.*]] = llvm.mlir.constant(0 : i64) : i64
// CHECK-DAG: %[[G:.*]] = llvm.getelementptr %[[P]][6] : (!llvm.ptr) -> !llvm.ptr, f32
// CHECK: llvm.insertvalue %[[G]], %{{.*}}[0]
// CHECK: llvm.insertvalue %[[X]], %{{.*}}[1]
// CHECK: llvm.insertvalue %[[ZERO]], %{{.*}}[2]
llvm.func @address(%p: !llvm.ptr, %x: i64) -> !llvm.struct<(ptr, i64, i64)> {
  %c0 = llvm.mlir.constant(0 : index) : i64
  %c1 = llvm.mlir.constant(1 : index) : i64
  %c6 = llvm.mlir.constant(6 : index) : i64
  %c576 = llvm.mlir.constant(576 : index) : i64
  %a = llvm.mul %c0, %c576 overflow<nsw> : i64
  %b = llvm.mul %c1, %c6 : i64
  %s = llvm.add %a, %b : i64
  %t = llvm.add %s, %c0 : i64
  %g = llvm.getelementptr %p[%t] : (!llvm.ptr, i64) -> !llvm.ptr, f32
  %x1 = llvm.mul %x, %c1 : i64
  %x2 = llvm.add %c0, %x1 : i64
  %x3 = llvm.sub %x2, %c0 : i64
  %z = llvm.mul %x3, %c0 : i64
  %u = llvm.mlir.undef : !llvm.struct<(ptr, i64, i64)>
  %u1 = llvm.insertvalue %g, %u[0] : !llvm.struct<(ptr, i64, i64)>
  %u2 = llvm.insertvalue %x3, %u1[1] : !llvm.struct<(ptr, i64, i64)>
  %u3 = llvm.insertvalue %z, %u2[2] : !llvm.struct<(ptr, i64, i64)>
  llvm.return %u3 : !llvm.struct<(ptr, i64, i64)>
}

// Wrapping arithmetic in the result's width; vectors are left alone.
// CHECK-LABEL: llvm.func @wrap(
// CHECK: %[[W:.*]] = llvm.mlir.constant(-2147483648 : i32) : i32
// CHECK: llvm.add %{{.*}}, %{{.*}} : vector<2xi32>
// CHECK: llvm.return %[[W]]
llvm.func @wrap(%v: vector<2xi32>) -> i32 {
  %max = llvm.mlir.constant(2147483647 : i32) : i32
  %one = llvm.mlir.constant(1 : i32) : i32
  %r = llvm.add %max, %one overflow<nsw> : i32
  %zero = llvm.mlir.constant(dense<0> : vector<2xi32>) : vector<2xi32>
  %vv = llvm.add %v, %zero : vector<2xi32>
  llvm.call @use(%vv) : (vector<2xi32>) -> ()
  llvm.return %r : i32
}
llvm.func @use(vector<2xi32>)
