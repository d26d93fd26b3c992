// Outermost scf.forall loops on buffers become calls of tdsl_parallel_for
// with an outlined body (i64 begin, i64 end, !llvm.ptr ctx) that reads its
// captured values from a stack context.
// RUN: tdsl-opt %s -split-input-file -verify-diagnostics --tdsl-forall-to-tbb | FileCheck %s
// RUN: tdsl-opt %s -split-input-file -verify-diagnostics --tdsl-forall-to-tbb=grain=64 | FileCheck %s --check-prefix=GRAIN

// CHECK: func.func private @tdsl_parallel_for(i64, i64, i64, (i64, i64, !llvm.ptr) -> (), !llvm.ptr)
// The body: constants (lower bound, step) rematerialized, so that LLVM sees
// them; the other captures (the buffer, the scalar, the count) loaded from
// the context; then a loop over [begin, end).
// CHECK-LABEL: func.func private @scale_forall_0(
// CHECK-SAME: %[[BEGIN:.*]]: i64, %[[END:.*]]: i64, %[[CTX:.*]]: !llvm.ptr) {
// CHECK-DAG: %[[LB:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[STEP:.*]] = arith.constant 1 : index
// CHECK: %[[F0:.*]] = llvm.getelementptr %[[CTX]][0, 0] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>, f32, i64)>
// CHECK: %[[D:.*]] = llvm.load %[[F0]] : !llvm.ptr -> !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
// CHECK: %[[BUF:.*]] = builtin.unrealized_conversion_cast %[[D]] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> to memref<?xf32>
// CHECK: %[[F1:.*]] = llvm.getelementptr %[[CTX]][0, 1]
// CHECK: %[[S:.*]] = llvm.load %[[F1]] : !llvm.ptr -> f32
// CHECK: %[[SC:.*]] = builtin.unrealized_conversion_cast %[[S]] : f32 to f32
// CHECK: llvm.getelementptr %[[CTX]][0, 2]
// CHECK-NOT: llvm.getelementptr %[[CTX]][0, 3]
// CHECK: %[[B:.*]] = arith.index_cast %[[BEGIN]] : i64 to index
// CHECK: %[[E:.*]] = arith.index_cast %[[END]] : i64 to index
// CHECK: scf.for %[[L:.*]] = %[[B]] to %[[E]] step %{{.*}} {
// CHECK: %[[SCALED:.*]] = arith.muli %[[L]], %[[STEP]] : index
// CHECK: %[[I:.*]] = arith.addi %[[SCALED]], %[[LB]] : index
// CHECK: %[[V:.*]] = memref.load %[[BUF]][%[[I]]] : memref<?xf32>
// CHECK: %[[W:.*]] = arith.mulf %[[V]], %[[SC]] : f32
// CHECK: memref.store %[[W]], %[[BUF]][%[[I]]] : memref<?xf32>
// CHECK: return

// The launch: the trip count max(ceildiv(ub - lb, step), 0), the context
// filled on the stack, and the call.
// CHECK-LABEL: func.func @scale(
// CHECK-SAME: %[[ARG:.*]]: memref<?xf32>, %[[X:.*]]: f32)
// CHECK: %[[N:.*]] = memref.dim %[[ARG]]
// CHECK: %[[SPAN:.*]] = arith.subi %[[N]], %{{.*}} : index
// CHECK: %[[CD:.*]] = arith.ceildivsi %[[SPAN]], %{{.*}} : index
// CHECK: %[[CNT:.*]] = arith.maxsi %[[CD]], %{{.*}} : index
// CHECK: %[[TOTAL:.*]] = arith.muli %{{.*}}, %[[CNT]] : index
// CHECK: %[[ONE:.*]] = llvm.mlir.constant(1 : i64) : i64
// CHECK: %[[CTXP:.*]] = llvm.alloca %[[ONE]] x !llvm.struct<(struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>, f32, i64)> : (i64) -> !llvm.ptr
// CHECK: %[[DESC:.*]] = builtin.unrealized_conversion_cast %[[ARG]] : memref<?xf32> to !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
// CHECK: %[[G0:.*]] = llvm.getelementptr %[[CTXP]][0, 0]
// CHECK: llvm.store %[[DESC]], %[[G0]]
// CHECK: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr
// CHECK: %[[FN:.*]] = constant @scale_forall_0 : (i64, i64, !llvm.ptr) -> ()
// CHECK: %[[ZERO:.*]] = llvm.mlir.constant(0 : i64) : i64
// CHECK: %[[TOTAL64:.*]] = arith.index_cast %[[TOTAL]] : index to i64
// CHECK: %[[GR:.*]] = llvm.mlir.constant(1 : i64) : i64
// CHECK: call @tdsl_parallel_for(%[[ZERO]], %[[TOTAL64]], %[[GR]], %[[FN]], %[[CTXP]]) : (i64, i64, i64, (i64, i64, !llvm.ptr) -> (), !llvm.ptr) -> ()
// CHECK-NOT: scf.forall
// GRAIN-LABEL: func.func @scale(
// GRAIN: %[[GR:.*]] = llvm.mlir.constant(64 : i64) : i64
// GRAIN: call @tdsl_parallel_for(%{{.*}}, %{{.*}}, %[[GR]], %{{.*}}, %{{.*}})
func.func @scale(%buf: memref<?xf32>, %s: f32) {
  %c0 = arith.constant 0 : index
  %n = memref.dim %buf, %c0 : memref<?xf32>
  scf.forall (%i) in (%n) {
    %v = memref.load %buf[%i] : memref<?xf32>
    %w = arith.mulf %v, %s : f32
    memref.store %w, %buf[%i] : memref<?xf32>
  }
  return
}

// -----

// Two dimensions are linearized (innermost fastest); a nested scf.forall
// runs serially (scf.for) inside the outlined body.
// CHECK-LABEL: func.func private @tiles_forall_0(
// CHECK: scf.for %[[L:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: %[[JI:.*]] = arith.remui %[[L]], %[[CJ:.*]] : index
// CHECK: %[[JS:.*]] = arith.muli %[[JI]], %{{.*}} : index
// CHECK: %[[J:.*]] = arith.addi %[[JS]], %{{.*}} : index
// CHECK: %[[II:.*]] = arith.divui %[[L]], %[[CJ]] : index
// CHECK: %[[IS:.*]] = arith.muli %[[II]], %{{.*}} : index
// CHECK: %[[I:.*]] = arith.addi %[[IS]], %{{.*}} : index
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[I]], %[[J]]] : memref<256x128xf32>
// CHECK-NOT: scf.forall
// CHECK-LABEL: func.func @tiles(
// CHECK: %[[CI:.*]] = arith.ceildivsi %{{.*}}, %{{.*}} : index
// CHECK: %[[CJ:.*]] = arith.ceildivsi %{{.*}}, %{{.*}} : index
// CHECK: constant @tiles_forall_0
// CHECK: call @tdsl_parallel_for
// CHECK-NOT: scf.forall
func.func @tiles(%buf: memref<256x128xf32>) {
  %cst = arith.constant 1.0 : f32
  scf.forall (%i, %j) = (0, 0) to (256, 128) step (64, 32) {
    scf.forall (%k) in (4) {
      memref.store %cst, %buf[%i, %j] : memref<256x128xf32>
    }
  }
  return
}

// -----

// Loops still on tensors are rejected.
func.func @on_tensors(%t: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{expected a bufferized scf.forall (no shared_outs)}}
  %r = scf.forall (%i) in (4) shared_outs(%o = %t) -> (tensor<4xf32>) {
    %c = arith.constant dense<1.0> : tensor<1xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %c into %o[%i] [1] [1] : tensor<1xf32> into tensor<4xf32>
    }
  }
  return %r : tensor<4xf32>
}
