// Each outermost kernel (linalg op other than a fill, scf.forall) is wrapped
// in tdsl_kernel_id/begin/end, with its work for the profile. Each launch
// site has an i32 global where the runtime keeps its id after the first
// launch; the id is looked up before the loops around the kernel.
//
// RUN: tdsl-opt %s --tdsl-time-kernels | FileCheck %s
// RUN: tdsl-opt %s --tdsl-time-kernels --canonicalize | FileCheck %s --check-prefix=WORK
// RUN: tdsl-opt %s --tdsl-time-kernels | FileCheck %s --check-prefix=WHERE

// CHECK-DAG: func.func private @tdsl_kernel_id(!llvm.ptr, !llvm.ptr, !llvm.ptr) -> i32
// CHECK-DAG: llvm.mlir.global internal @__tdsl_kernel_id_0(-1 : i32)
// CHECK-DAG: func.func private @tdsl_kernel_begin(i32) -> i64
// CHECK-DAG: func.func private @tdsl_kernel_end(i32, i64, f64, f64) -> i64
// The name comes from a NameLoc, the place from the file location inside it.
// CHECK-DAG: llvm.mlir.global private constant @[[MMNAME:.*]]("main.matmul\00")
// CHECK-DAG: llvm.mlir.global private constant @[[MMWHERE:.*]]("mm.tdsl:3:7\00")
// Without a NameLoc: "<function>.<op>" and this file's line.
// CHECK-DAG: llvm.mlir.global private constant @[[GNAME:.*]]("generic.generic\00")
// CHECK-DAG: llvm.mlir.global private constant @{{.*}}("tdsl-time-kernels.mlir:{{[0-9]+}}:8\00")
// CHECK-DAG: llvm.mlir.global private constant @{{.*}}("forall.forall\00")
// CHECK-DAG: llvm.mlir.global private constant @{{.*}}("nested.generic\00")

// CHECK-LABEL: func.func @matmul(
// The fill is not a kernel.
// CHECK: %[[FILL:.*]] = linalg.fill
// CHECK-NEXT: %[[S:.*]] = llvm.mlir.addressof @__tdsl_kernel_id_{{[0-9]+}} : !llvm.ptr
// CHECK-NEXT: %[[N:.*]] = llvm.mlir.addressof @[[MMNAME]] : !llvm.ptr
// CHECK-NEXT: %[[W:.*]] = llvm.mlir.addressof @[[MMWHERE]] : !llvm.ptr
// CHECK-NEXT: %[[ID:.*]] = call @tdsl_kernel_id(%[[S]], %[[N]], %[[W]]) : (!llvm.ptr, !llvm.ptr, !llvm.ptr) -> i32
// CHECK-NEXT: %[[T0:.*]] = call @tdsl_kernel_begin(%[[ID]]) : (i32) -> i64
// Each kernel gets an id ("<function>#<n>") so that CSE cannot merge two
// identical kernels and leave one timed region empty.
// CHECK-NEXT: %[[MM:.*]] = linalg.matmul {tdsl.kernel_id = "matmul#0"} ins(%{{.*}}, %{{.*}} : tensor<8x4xf32>, tensor<4x16xf32>) outs(%[[FILL]] : tensor<8x16xf32>)
// CHECK: call @tdsl_kernel_end(%[[ID]], %[[T0]], %{{.*}}, %{{.*}}) : (i32, i64, f64, f64) -> i64
// CHECK-NEXT: return %[[MM]]
// 8 x 16 x 4 iterations x 2 ops; (8x4 + 4x16 + 8x16) x 4 bytes.
// WORK-LABEL: func.func @matmul(
// WORK-DAG: %[[BYTES:.*]] = arith.constant 8.960000e+02 : f64
// WORK-DAG: %[[FLOPS:.*]] = arith.constant 1.024000e+03 : f64
// WORK: call @tdsl_kernel_end(%{{.*}}, %{{.*}}, %[[FLOPS]], %[[BYTES]]) : (i32, i64, f64, f64) -> i64
func.func @matmul(%a: tensor<8x4xf32>, %b: tensor<4x16xf32>) -> tensor<8x16xf32> {
  %cst = arith.constant 0.0 : f32
  %c0 = tensor.empty() : tensor<8x16xf32>
  %c1 = linalg.fill ins(%cst : f32) outs(%c0 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %c = linalg.matmul ins(%a, %b : tensor<8x4xf32>, tensor<4x16xf32>) outs(%c1 : tensor<8x16xf32>) -> tensor<8x16xf32> loc(#loc_mm)
  return %c : tensor<8x16xf32>
}

// Dynamic sizes: the work is computed at run time from tensor.dim; three
// arithmetic ops (mulf, addf, sqrt) per element, 8 bytes per f64 element
// of each operand.
// CHECK-LABEL: func.func @generic(
// CHECK-SAME: %[[X:.*]]: tensor<?xf64>
// CHECK: call @tdsl_kernel_id
// CHECK: %[[T0:.*]] = call @tdsl_kernel_begin
// CHECK: linalg.generic
// CHECK-SAME: attrs = {tdsl.kernel_id = "generic#0"}
// CHECK: math.sqrt
// CHECK: tensor.dim %[[X]]
// CHECK: call @tdsl_kernel_end(%{{.*}}, %[[T0]], %{{.*}}, %{{.*}})
// WORK-LABEL: func.func @generic(
// WORK-DAG: %[[EIGHT:.*]] = arith.constant 8.000000e+00 : f64
// WORK-DAG: %[[THREE:.*]] = arith.constant 3.000000e+00 : f64
// WORK: linalg.generic
// WORK: %[[N:.*]] = tensor.dim
// WORK: %[[NI:.*]] = arith.index_cast %[[N]] : index to i64
// WORK: %[[NF:.*]] = arith.sitofp %[[NI]] : i64 to f64
// WORK: %[[FLOPS:.*]] = arith.mulf %[[NF]], %[[THREE]] : f64
// WORK: call @tdsl_kernel_end(%{{.*}}, %{{.*}}, %[[FLOPS]], %{{.*}})
func.func @generic(%x: tensor<?xf64>) -> tensor<?xf64> {
  %c0 = arith.constant 0 : index
  %d = tensor.dim %x, %c0 : tensor<?xf64>
  %e = tensor.empty(%d) : tensor<?xf64>
  // WHERE: llvm.mlir.global private constant @{{.*}}("tdsl-time-kernels.mlir:[[#@LINE+1]]:8\00")
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x : tensor<?xf64>) outs(%e : tensor<?xf64>) {
  ^bb0(%in: f64, %out: f64):
    %m = arith.mulf %in, %in : f64
    %a = arith.addf %m, %in : f64
    %s = math.sqrt %a : f64
    linalg.yield %s : f64
  } -> tensor<?xf64>
  return %r : tensor<?xf64>
}

// An scf.forall is timed with no work count (0, 0).
// CHECK-LABEL: func.func @forall(
// CHECK: %[[T0:.*]] = call @tdsl_kernel_begin
// CHECK-NEXT: scf.forall
// CHECK: } {tdsl.kernel_id = "forall#0"}
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT: call @tdsl_kernel_end(%{{.*}}, %[[T0]], %[[ZERO]], %[[ZERO]])
func.func @forall() -> tensor<256xi64> {
  %e = tensor.empty() : tensor<256xi64>
  %r = scf.forall (%i) in (256) shared_outs(%o = %e) -> (tensor<256xi64>) {
    %c = arith.constant dense<1> : tensor<1xi64>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %c into %o[%i] [1] [1] : tensor<1xi64> into tensor<256xi64>
    }
  }
  return %r : tensor<256xi64>
}

// Kernels inside sequential loops are timed on each trip; 4 exps, 32 bytes.
// The id is looked up once, before the loop.
// CHECK-LABEL: func.func @nested(
// CHECK: %[[ID:.*]] = call @tdsl_kernel_id
// CHECK: scf.for
// CHECK-NOT: tdsl_kernel_id
// CHECK: %[[T0:.*]] = func.call @tdsl_kernel_begin(%[[ID]])
// CHECK-NEXT: linalg.generic
// CHECK-SAME: {tdsl.kernel_id = "nested#0"}
// CHECK: func.call @tdsl_kernel_end(%{{.*}}, %[[T0]], %{{.*}}, %{{.*}})
// CHECK-NEXT: scf.yield
// WORK-LABEL: func.func @nested(
// WORK-DAG: %[[BYTES:.*]] = arith.constant 3.200000e+01 : f64
// WORK-DAG: %[[FLOPS:.*]] = arith.constant 4.000000e+00 : f64
// WORK: func.call @tdsl_kernel_end(%{{.*}}, %{{.*}}, %[[FLOPS]], %[[BYTES]])
func.func @nested(%x: tensor<4xf32>, %n: index) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> tensor<4xf32> {
    %e = tensor.empty() : tensor<4xf32>
    %g = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
        ins(%acc : tensor<4xf32>) outs(%e : tensor<4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %m = math.exp %in : f32
      linalg.yield %m : f32
    } -> tensor<4xf32>
    scf.yield %g : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

#loc_mm = loc("main.matmul"("mm.tdsl":3:7))
