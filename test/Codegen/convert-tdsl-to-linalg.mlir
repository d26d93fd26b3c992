// Lowering of every tdsl op family to linalg/tensor/arith/math/scf and calls
// of the TDSL runtime.
// RUN: tdsl-opt %s -split-input-file --convert-tdsl-to-linalg | FileCheck %s

// Element-wise ops on f32 scalars become arith/math ops, no linalg.
// CHECK-LABEL: func.func @scalar_f32(
// CHECK-SAME: %[[A:.*]]: f32, %[[B:.*]]: f32
// CHECK-NOT: linalg
// CHECK: %[[ADD:.*]] = arith.addf %[[A]], %[[B]] : f32
// CHECK: %[[SUB:.*]] = arith.subf %[[ADD]], %[[B]] : f32
// CHECK: %[[MUL:.*]] = arith.mulf %[[SUB]], %[[B]] : f32
// CHECK: %[[DIV:.*]] = arith.divf %[[MUL]], %[[B]] : f32
// CHECK: %[[REM:.*]] = arith.remf %[[DIV]], %[[B]] : f32
// CHECK: %[[POW:.*]] = math.powf %[[REM]], %[[B]] : f32
// CHECK: %[[MAX:.*]] = arith.maximumf %[[POW]], %[[B]] : f32
// CHECK: %[[MIN:.*]] = arith.minimumf %[[MAX]], %[[B]] : f32
// CHECK: %[[NEG:.*]] = arith.negf %[[MIN]] : f32
// CHECK: %[[ABS:.*]] = math.absf %[[NEG]] : f32
// CHECK: %[[EXP:.*]] = math.exp %[[ABS]] : f32
// CHECK: %[[LOG:.*]] = math.log %[[EXP]] : f32
// CHECK: %[[SQRT:.*]] = math.sqrt %[[LOG]] : f32
// CHECK: %[[TANH:.*]] = math.tanh %[[SQRT]] : f32
// CHECK: %[[SIN:.*]] = math.sin %[[TANH]] : f32
// CHECK: %[[COS:.*]] = math.cos %[[SIN]] : f32
// CHECK: %[[FLOOR:.*]] = math.floor %[[COS]] : f32
// CHECK: %[[CEIL:.*]] = math.ceil %[[FLOOR]] : f32
// sigmoid(x) = 1 / (1 + exp(-x))
// CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: %[[NX:.*]] = arith.negf %[[CEIL]] : f32
// CHECK: %[[E:.*]] = math.exp %[[NX]] : f32
// CHECK: %[[DEN:.*]] = arith.addf %[[ONE]], %[[E]] : f32
// CHECK: %[[SIG:.*]] = arith.divf %[[ONE]], %[[DEN]] : f32
// CHECK: return %[[SIG]] : f32
func.func @scalar_f32(%a: f32, %b: f32) -> f32 {
  %0 = tdsl.add %a, %b : f32, f32 -> f32
  %1 = tdsl.sub %0, %b : f32, f32 -> f32
  %2 = tdsl.mul %1, %b : f32, f32 -> f32
  %3 = tdsl.div %2, %b : f32, f32 -> f32
  %4 = tdsl.rem %3, %b : f32, f32 -> f32
  %5 = tdsl.pow %4, %b : f32, f32 -> f32
  %6 = tdsl.max %5, %b : f32, f32 -> f32
  %7 = tdsl.min %6, %b : f32, f32 -> f32
  %8 = tdsl.neg %7 : f32
  %9 = tdsl.abs %8 : f32
  %10 = tdsl.exp %9 : f32
  %11 = tdsl.log %10 : f32
  %12 = tdsl.sqrt %11 : f32
  %13 = tdsl.tanh %12 : f32
  %14 = tdsl.sin %13 : f32
  %15 = tdsl.cos %14 : f32
  %16 = tdsl.floor %15 : f32
  %17 = tdsl.ceil %16 : f32
  %18 = tdsl.sigmoid %17 : f32
  return %18 : f32
}

// Signed integers: the signed arith ops; neg is 0 - x, abs is math.absi.
// Division checks for 0 and for MIN / -1; the remainder by -1 is taken by 1.
// CHECK-LABEL: func.func @scalar_i64(
// CHECK-SAME: %[[A:.*]]: i64, %[[B:.*]]: i64
// CHECK: %[[MINUS1:.*]] = arith.cmpi eq, %[[B]], %c-1{{.*}} : i64
// CHECK: %[[MIN:.*]] = arith.constant -9223372036854775808 : i64
// CHECK: %[[ISMIN:.*]] = arith.cmpi eq, %[[A]], %[[MIN]] : i64
// CHECK: %[[OVERFLOW:.*]] = arith.andi %[[ISMIN]], %[[MINUS1]] : i1
// CHECK: scf.if %[[OVERFLOW]]
// CHECK: tdsl.check = "integer division overflow: the most negative i64 divided by -1 is not an i64"
// CHECK: %[[DIV:.*]] = arith.divsi %[[A]], %[[B]] : i64
// CHECK: %[[BY:.*]] = arith.select %{{.*}}, %{{.*}}, %[[B]] : i64
// CHECK: %[[REM:.*]] = arith.remsi %[[DIV]], %[[BY]] : i64
// CHECK: %[[MAX:.*]] = arith.maxsi %[[REM]], %[[B]] : i64
// CHECK: %[[MIN:.*]] = arith.minsi %[[MAX]], %[[B]] : i64
// CHECK: %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK: %[[NEG:.*]] = arith.subi %[[ZERO]], %[[MIN]] : i64
// abs of an integer: x < 0 ? 0 - x : x
// CHECK: %[[ISNEG:.*]] = arith.cmpi slt, %[[NEG]], %{{.*}} : i64
// CHECK: %[[NEGNEG:.*]] = arith.subi %{{.*}}, %[[NEG]] : i64
// CHECK: %[[ABS:.*]] = arith.select %[[ISNEG]], %[[NEGNEG]], %[[NEG]] : i64
// CHECK: %[[AND:.*]] = arith.andi %[[ABS]], %[[B]] : i64
// CHECK: %[[OR:.*]] = arith.ori %[[AND]], %[[B]] : i64
// CHECK: return %[[OR]] : i64
func.func @scalar_i64(%a: i64, %b: i64) -> i64 {
  %0 = tdsl.div %a, %b : i64, i64 -> i64
  %1 = tdsl.rem %0, %b : i64, i64 -> i64
  %2 = tdsl.max %1, %b : i64, i64 -> i64
  %3 = tdsl.min %2, %b : i64, i64 -> i64
  %4 = tdsl.neg %3 : i64
  %5 = tdsl.abs %4 : i64
  %6 = tdsl.and %5, %b : i64, i64 -> i64
  %7 = tdsl.or %6, %b : i64, i64 -> i64
  return %7 : i64
}

// ui64 becomes i64 (in the signature too) with the unsigned arith ops.
// CHECK-LABEL: func.func @scalar_ui64(
// CHECK-SAME: %[[A:.*]]: i64, %[[B:.*]]: i64) -> (i64, i1, f32, i64)
// CHECK: %[[DIV:.*]] = arith.divui %[[A]], %[[B]] : i64
// CHECK: %[[REM:.*]] = arith.remui %[[DIV]], %[[B]] : i64
// CHECK: %[[MAX:.*]] = arith.maxui %[[REM]], %[[B]] : i64
// CHECK: %[[MIN:.*]] = arith.minui %[[MAX]], %[[B]] : i64
// CHECK: %[[LT:.*]] = arith.cmpi ult, %[[MIN]], %[[B]] : i64
// CHECK: %[[F:.*]] = arith.uitofp %[[MIN]] : i64 to f32
// CHECK-NOT: math.absi
// CHECK: return %[[MIN]], %[[LT]], %[[F]], %[[MIN]] : i64, i1, f32, i64
// CHECK-NOT: ui64
func.func @scalar_ui64(%a: ui64, %b: ui64) -> (ui64, i1, f32, ui64) {
  %0 = tdsl.div %a, %b : ui64, ui64 -> ui64
  %1 = tdsl.rem %0, %b : ui64, ui64 -> ui64
  %2 = tdsl.max %1, %b : ui64, ui64 -> ui64
  %3 = tdsl.min %2, %b : ui64, ui64 -> ui64
  %c = tdsl.cmp lt, %3, %b : ui64, ui64 -> i1
  %f = tdsl.cast %3 : ui64 to f32
  %abs = tdsl.abs %3 : ui64
  return %3, %c, %f, %abs : ui64, i1, f32, ui64
}

// -----

// CHECK-DAG: #[[ID2:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[SCAL2:.*]] = affine_map<(d0, d1) -> ()>

// Predicates: ordered float compares except ne (une); signed/unsigned
// integer compares by the operand type.
// CHECK-LABEL: func.func @cmp_scalars(
// CHECK: arith.cmpf oeq
// CHECK: arith.cmpf une
// CHECK: arith.cmpf olt
// CHECK: arith.cmpf ole
// CHECK: arith.cmpf ogt
// CHECK: arith.cmpf oge
// CHECK: arith.cmpi eq
// CHECK: arith.cmpi ne
// CHECK: arith.cmpi slt
// CHECK: arith.cmpi sle
// CHECK: arith.cmpi sgt
// CHECK: arith.cmpi sge
// CHECK: arith.cmpi ule
// CHECK: arith.cmpi ugt
// CHECK: arith.cmpi uge
func.func @cmp_scalars(%a: f32, %b: f32, %i: i64, %j: i64, %u: ui64, %v: ui64) {
  %0 = tdsl.cmp eq, %a, %b : f32, f32 -> i1
  %1 = tdsl.cmp ne, %a, %b : f32, f32 -> i1
  %2 = tdsl.cmp lt, %a, %b : f32, f32 -> i1
  %3 = tdsl.cmp le, %a, %b : f32, f32 -> i1
  %4 = tdsl.cmp gt, %a, %b : f32, f32 -> i1
  %5 = tdsl.cmp ge, %a, %b : f32, f32 -> i1
  %6 = tdsl.cmp eq, %i, %j : i64, i64 -> i1
  %7 = tdsl.cmp ne, %i, %j : i64, i64 -> i1
  %8 = tdsl.cmp lt, %i, %j : i64, i64 -> i1
  %9 = tdsl.cmp le, %i, %j : i64, i64 -> i1
  %10 = tdsl.cmp gt, %i, %j : i64, i64 -> i1
  %11 = tdsl.cmp ge, %i, %j : i64, i64 -> i1
  %12 = tdsl.cmp le, %u, %v : ui64, ui64 -> i1
  %13 = tdsl.cmp gt, %u, %v : ui64, ui64 -> i1
  %14 = tdsl.cmp ge, %u, %v : ui64, ui64 -> i1
  return
}

// A scalar select is arith.select; a tensor cmp and select are generics whose
// scalar operands have the map (d0, d1) -> ().
// CHECK-LABEL: func.func @cmp_select(
// CHECK-SAME: %[[A:.*]]: f32, %[[B:.*]]: f32, %[[T:.*]]: tensor<?x4xf32>
// CHECK: %[[C:.*]] = arith.cmpf olt, %[[A]], %[[B]] : f32
// CHECK: %[[D:.*]] = tensor.dim %[[T]], %{{.*}} : tensor<?x4xf32>
// CHECK: %[[E:.*]] = tensor.empty(%[[D]]) : tensor<?x4xi1>
// CHECK: %[[M:.*]] = linalg.generic {indexing_maps = [#[[ID2]], #[[SCAL2]], #[[ID2]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: ins(%[[T]], %[[A]] : tensor<?x4xf32>, f32) outs(%[[E]] : tensor<?x4xi1>)
// CHECK: arith.cmpf oge
// CHECK: linalg.yield %{{.*}} : i1
// CHECK: %[[S:.*]] = arith.select %[[C]], %[[A]], %[[B]] : f32
// CHECK: linalg.generic {indexing_maps = [#[[ID2]], #[[ID2]], #[[SCAL2]], #[[ID2]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: ins(%[[M]], %[[T]], %[[S]] : tensor<?x4xi1>, tensor<?x4xf32>, f32)
// CHECK: ^bb0(%[[IC:.*]]: i1, %[[IT:.*]]: f32, %[[IS:.*]]: f32, %{{.*}}: f32):
// CHECK: arith.select %[[IC]], %[[IT]], %[[IS]] : f32
func.func @cmp_select(%a: f32, %b: f32, %t: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %c = tdsl.cmp lt, %a, %b : f32, f32 -> i1
  %m = tdsl.cmp ge, %t, %a : tensor<?x4xf32>, f32 -> tensor<?x4xi1>
  %s = tdsl.select %c, %a, %b : i1, f32, f32 -> f32
  %r = tdsl.select %m, %t, %s : tensor<?x4xi1>, tensor<?x4xf32>, f32 -> tensor<?x4xf32>
  return %r : tensor<?x4xf32>
}

// -----

// Casts between every kind of element type.
// CHECK-LABEL: func.func @casts(
// CHECK-SAME: %[[I:[^:]*]]: i64, %[[F:[^:]*]]: f32, %[[D:[^:]*]]: f64, %[[X:[^:]*]]: index, %[[B:[^:]*]]: i1, %[[H:[^:]*]]: f16, %[[U:[^:]*]]: i64
// CHECK: arith.sitofp %[[I]] : i64 to f32
// Float to integer saturates: below -2^63 the smallest i64, from 2^63 the
// largest, NaN 0.
// CHECK: %[[FI:.*]] = arith.fptosi %[[F]] : f32 to i64
// CHECK: %[[LOW:.*]] = arith.cmpf olt, %[[F]], %{{.*}} : f32
// CHECK: %[[S1:.*]] = arith.select %[[LOW]], %{{.*}}, %[[FI]] : i64
// CHECK: %[[HIGH:.*]] = arith.cmpf oge, %[[F]], %{{.*}} : f32
// CHECK: %[[S2:.*]] = arith.select %[[HIGH]], %{{.*}}, %[[S1]] : i64
// CHECK: %[[NAN:.*]] = arith.cmpf uno, %[[F]], %[[F]] : f32
// CHECK: arith.select %[[NAN]], %{{.*}}, %[[S2]] : i64
// CHECK: arith.extf %[[F]] : f32 to f64
// CHECK: arith.truncf %[[D]] : f64 to f32
// f64 -> index goes through i64 (saturated).
// CHECK: arith.fptosi %[[D]] : f64 to i64
// CHECK: %[[DN:.*]] = arith.cmpf uno, %[[D]], %[[D]] : f64
// CHECK: %[[DI:.*]] = arith.select %[[DN]], %{{.*}} : i64
// CHECK-NEXT: arith.index_cast %[[DI]] : i64 to index
// index -> f32 goes through i64.
// CHECK: %[[XI:.*]] = arith.index_cast %[[X]] : index to i64
// CHECK: arith.sitofp %[[XI]] : i64 to f32
// CHECK: arith.index_cast %[[X]] : index to i64
// To i1 is "nonzero".
// CHECK: %[[FZ:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: arith.cmpf une, %[[F]], %[[FZ]] : f32
// CHECK: %[[IZ:.*]] = arith.constant 0 : i64
// CHECK: arith.cmpi ne, %[[I]], %[[IZ]] : i64
// i1 is unsigned: true is 1.
// CHECK: arith.extui %[[B]] : i1 to i64
// CHECK: arith.uitofp %[[B]] : i1 to f32
// CHECK: arith.fptoui %[[F]] : f32 to i64
// CHECK: arith.index_castui %[[U]] : i64 to index
// CHECK: arith.index_castui %[[X]] : index to i64
// f16 -> bf16 goes through f32.
// CHECK: %[[HF:.*]] = arith.extf %[[H]] : f16 to f32
// CHECK: arith.truncf %[[HF]] : f32 to bf16
// CHECK: arith.trunci %[[I]] : i64 to i32
// A tensor cast is a generic with the scalar cast in its body.
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.*}} : tensor<3xi64>) outs(%{{.*}} : tensor<3xf32>)
// CHECK: arith.sitofp %{{.*}} : i64 to f32
func.func @casts(%i: i64, %f: f32, %d: f64, %x: index, %b: i1, %h: f16, %u: ui64,
                 %t: tensor<3xi64>) {
  %0 = tdsl.cast %i : i64 to f32
  %1 = tdsl.cast %f : f32 to i64
  %2 = tdsl.cast %f : f32 to f64
  %3 = tdsl.cast %d : f64 to f32
  %4 = tdsl.cast %d : f64 to index
  %5 = tdsl.cast %x : index to f32
  %6 = tdsl.cast %x : index to i64
  %7 = tdsl.cast %f : f32 to i1
  %8 = tdsl.cast %i : i64 to i1
  %9 = tdsl.cast %b : i1 to i64
  %10 = tdsl.cast %b : i1 to f32
  %11 = tdsl.cast %f : f32 to ui64
  %12 = tdsl.cast %u : ui64 to index
  %13 = tdsl.cast %x : index to ui64
  %14 = tdsl.cast %h : f16 to bf16
  %15 = tdsl.cast %i : i64 to i32
  %16 = tdsl.cast %t : tensor<3xi64> to tensor<3xf32>
  return
}

// -----

// Broadcasting: trailing dimensions align; a static 1 against a larger
// extent reads element 0.
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[COL0:.*]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-DAG: #[[ID1:.*]] = affine_map<(d0) -> (d0)>
// CHECK-DAG: #[[SCAL1:.*]] = affine_map<(d0) -> ()>

// CHECK-LABEL: func.func @bcast_row(
// CHECK-SAME: %[[A:.*]]: tensor<4x3xf32>, %[[B:.*]]: tensor<3xf32>
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4x3xf32>
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[ID]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: ins(%[[A]], %[[B]] : tensor<4x3xf32>, tensor<3xf32>) outs(%[[E]] : tensor<4x3xf32>)
// CHECK: ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[S:.*]] = arith.addf %[[X]], %[[Y]] : f32
// CHECK: linalg.yield %[[S]] : f32
// CHECK: return %[[R]]
func.func @bcast_row(%a: tensor<4x3xf32>, %b: tensor<3xf32>) -> tensor<4x3xf32> {
  %0 = tdsl.add %a, %b : tensor<4x3xf32>, tensor<3xf32> -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// CHECK-LABEL: func.func @bcast_static_one(
// CHECK: linalg.generic {indexing_maps = [#[[COL0]], #[[ID]], #[[ID]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: ins(%{{.*}}, %{{.*}} : tensor<4x1xf32>, tensor<4x3xf32>)
// CHECK: arith.mulf
func.func @bcast_static_one(%a: tensor<4x1xf32>, %b: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %0 = tdsl.mul %a, %b : tensor<4x1xf32>, tensor<4x3xf32> -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// Dynamic result sizes come from an operand not broadcast along them.
// CHECK-LABEL: func.func @bcast_dynamic(
// CHECK-SAME: %[[D:.*]]: tensor<?x1xf32>, %[[V:.*]]: tensor<?xf32>
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[N0:.*]] = tensor.dim %[[D]], %{{.*}} : tensor<?x1xf32>
// CHECK-DAG: %[[N1:.*]] = tensor.dim %[[V]], %{{.*}} : tensor<?xf32>
// CHECK: %[[E:.*]] = tensor.empty(%[[N0]], %[[N1]]) : tensor<?x?xf32>
// CHECK: linalg.generic {indexing_maps = [#[[COL0]], #[[ROW]], #[[ID]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: ins(%[[D]], %[[V]] : tensor<?x1xf32>, tensor<?xf32>) outs(%[[E]] : tensor<?x?xf32>)
// CHECK: arith.minimumf
func.func @bcast_dynamic(%d: tensor<?x1xf32>, %v: tensor<?xf32>) -> tensor<?x?xf32> {
  %0 = tdsl.min %d, %v : tensor<?x1xf32>, tensor<?xf32> -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// A scalar operand of a tensor op has the map (d0) -> (); ui64 tensors are
// i64 tensors with unsigned ops.
// CHECK-LABEL: func.func @scalar_and_tensor(
// CHECK-SAME: %[[S:.*]]: i64, %[[T:.*]]: tensor<?xi64>) -> tensor<?xi64>
// CHECK: %[[N:.*]] = tensor.dim %[[T]], %{{.*}} : tensor<?xi64>
// CHECK: %[[E:.*]] = tensor.empty(%[[N]]) : tensor<?xi64>
// CHECK: linalg.generic {indexing_maps = [#[[SCAL1]], #[[ID1]], #[[ID1]]], iterator_types = ["parallel"]}
// CHECK-SAME: ins(%[[S]], %[[T]] : i64, tensor<?xi64>) outs(%[[E]] : tensor<?xi64>)
// CHECK: arith.divui
func.func @scalar_and_tensor(%s: ui64, %t: tensor<?xui64>) -> tensor<?xui64> {
  %0 = tdsl.div %s, %t : ui64, tensor<?xui64> -> tensor<?xui64>
  return %0 : tensor<?xui64>
}

// CHECK-LABEL: func.func @unary_tensor(
// CHECK: linalg.generic {indexing_maps = [#[[ID1]], #[[ID1]]], iterator_types = ["parallel"]}
// CHECK: math.exp %{{.*}} : f32
// CHECK: linalg.generic {indexing_maps = [#[[ID1]], #[[ID1]]], iterator_types = ["parallel"]}
// CHECK: %[[ONES:.*]] = arith.constant true
// CHECK: arith.xori %{{.*}}, %[[ONES]] : i1
func.func @unary_tensor(%x: tensor<?xf32>, %b: tensor<8xi1>) -> (tensor<?xf32>, tensor<8xi1>) {
  %0 = tdsl.exp %x : tensor<?xf32>
  %1 = tdsl.not %b : tensor<8xi1>
  return %0, %1 : tensor<?xf32>, tensor<8xi1>
}

// -----

// Constants: ui64 values become i64 ones.
// CHECK-LABEL: func.func @constants(
// CHECK-SAME: -> (tensor<2xf32>, f32, i64, tensor<2xi64>)
// CHECK-DAG: arith.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK-DAG: arith.constant 1.500000e+00 : f32
// CHECK-DAG: arith.constant 7 : i64
// CHECK-DAG: arith.constant dense<[1, 2]> : tensor<2xi64>
// CHECK-NOT: tdsl.
func.func @constants() -> (tensor<2xf32>, f32, ui64, tensor<2xui64>) {
  %0 = tdsl.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %1 = tdsl.constant 1.5 : f32
  %2 = tdsl.constant 7 : ui64
  %3 = tdsl.constant dense<[1, 2]> : tensor<2xui64>
  return %0, %1, %2, %3 : tensor<2xf32>, f32, ui64, tensor<2xui64>
}

// ui64 through calls and scf ops: signatures, call and scf.if results.
// CHECK-LABEL: func.func private @callee(
// CHECK-SAME: %{{.*}}: i64) -> i64
// CHECK-LABEL: func.func @ui64_calls(
// CHECK-SAME: %[[A:.*]]: i64, %[[C:.*]]: i1) -> i64
// CHECK: %[[R:.*]] = call @callee(%[[A]]) : (i64) -> i64
// CHECK: scf.if %[[C]] -> (i64)
// CHECK: arith.maxui %[[R]], %[[A]] : i64
// CHECK-NOT: ui64
func.func private @callee(%a: ui64) -> ui64 {
  return %a : ui64
}
func.func @ui64_calls(%a: ui64, %c: i1) -> ui64 {
  %0 = func.call @callee(%a) : (ui64) -> ui64
  %1 = scf.if %c -> ui64 {
    scf.yield %0 : ui64
  } else {
    %m = tdsl.max %0, %a : ui64, ui64 -> ui64
    scf.yield %m : ui64
  }
  return %1 : ui64
}

// -----

// tdsl.matmul: a run-time check of the inner dimensions, a zero-filled
// accumulator, then the named op for the ranks.
// CHECK-LABEL: func.func @matmuls(
// CHECK-SAME: %[[A:[^:]*]]: tensor<?x?xf32>, %[[M:[^:]*]]: tensor<4x3xf32>, %[[V:[^:]*]]: tensor<3xf32>, %[[W:[^:]*]]: tensor<4xf32>
// CHECK: %[[KA:.*]] = tensor.dim %[[A]], %{{.*}} : tensor<?x?xf32>
// CHECK: %[[KB:.*]] = tensor.dim %[[A]], %{{.*}} : tensor<?x?xf32>
// CHECK: %[[KOK:.*]] = arith.cmpi eq, %[[KA]], %[[KB]] : index
// CHECK: scf.if %{{.*}} {
// CHECK: call @tdsl_fatal
// CHECK: } {tdsl.check = "the inner dimensions of '@' differ"}
// CHECK: %[[D0:.*]] = tensor.dim %[[A]], %{{.*}} : tensor<?x?xf32>
// CHECK: %[[D1:.*]] = tensor.dim %[[A]], %{{.*}} : tensor<?x?xf32>
// CHECK: %[[E:.*]] = tensor.empty(%[[D0]], %[[D1]]) : tensor<?x?xf32>
// CHECK: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[F:.*]] = linalg.fill ins(%[[Z]] : f32) outs(%[[E]] : tensor<?x?xf32>)
// CHECK: linalg.matmul ins(%[[A]], %[[A]] : tensor<?x?xf32>, tensor<?x?xf32>) outs(%[[F]] : tensor<?x?xf32>)
// CHECK: %[[FV:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<4xf32>)
// CHECK: linalg.matvec ins(%[[M]], %[[V]] : tensor<4x3xf32>, tensor<3xf32>) outs(%[[FV]] : tensor<4xf32>)
// CHECK: %[[FW:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<3xf32>)
// CHECK: linalg.vecmat ins(%[[W]], %[[M]] : tensor<4xf32>, tensor<4x3xf32>) outs(%[[FW]] : tensor<3xf32>)
func.func @matmuls(%a: tensor<?x?xf32>, %m: tensor<4x3xf32>, %v: tensor<3xf32>,
                   %w: tensor<4xf32>) -> (tensor<?x?xf32>, tensor<4xf32>, tensor<3xf32>) {
  %0 = tdsl.matmul %a, %a : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
  %1 = tdsl.matmul %m, %v : tensor<4x3xf32>, tensor<3xf32> -> tensor<4xf32>
  %2 = tdsl.matmul %w, %m : tensor<4xf32>, tensor<4x3xf32> -> tensor<3xf32>
  return %0, %1, %2 : tensor<?x?xf32>, tensor<4xf32>, tensor<3xf32>
}

// -----

// tdsl.index_gen: a linalg.generic with the same maps and iterators; the
// combiner folds the body's value into the accumulator, filled with the
// combiner's identity.
// CHECK-DAG: #[[MK:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[KN:.*]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-DAG: #[[MN:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[COL0:.*]] = affine_map<(d0) -> (d0, 0)>
// CHECK-DAG: #[[SCAL:.*]] = affine_map<(d0) -> ()>
// CHECK-DAG: #[[ID2:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROWS:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG: #[[TRANS:.*]] = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-DAG: #[[ID1:.*]] = affine_map<(d0) -> (d0)>

// CHECK-LABEL: func.func @index_gen_sum(
// CHECK-SAME: %[[A:.*]]: tensor<?x?xf32>, %[[B:.*]]: tensor<?x?xf32>
// k indexes both A and B: their extents are compared at run time.
// CHECK: scf.if %{{.*}} {
// CHECK: call @tdsl_fatal
// CHECK: } {tdsl.check = "an index variable ranges over tensors of different extents (dimension 0 of an operand)"}
// CHECK: %[[M:.*]] = tensor.dim %[[A]], %{{.*}} : tensor<?x?xf32>
// CHECK: %[[N:.*]] = tensor.dim %[[B]], %{{.*}} : tensor<?x?xf32>
// CHECK: %[[E:.*]] = tensor.empty(%[[M]], %[[N]]) : tensor<?x?xf32>
// CHECK: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[F:.*]] = linalg.fill ins(%[[Z]] : f32) outs(%[[E]] : tensor<?x?xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[MK]], #[[KN]], #[[MN]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK-SAME: ins(%[[A]], %[[B]] : tensor<?x?xf32>, tensor<?x?xf32>) outs(%[[F]] : tensor<?x?xf32>)
// CHECK: ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK: %[[P:.*]] = arith.mulf %[[X]], %[[Y]] : f32
// CHECK: %[[S:.*]] = arith.addf %[[ACC]], %[[P]] : f32
// CHECK: linalg.yield %[[S]] : f32
func.func @index_gen_sum(%A: tensor<?x?xf32>, %B: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %C = tdsl.index_gen ins(%A, %B : tensor<?x?xf32>, tensor<?x?xf32>) {
      indexing_maps = [affine_map<(i, j, k) -> (i, k)>,
                       affine_map<(i, j, k) -> (k, j)>,
                       affine_map<(i, j, k) -> (i, j)>],
      iterator_types = [#tdsl.iterator<parallel>, #tdsl.iterator<parallel>,
                        #tdsl.iterator<reduction>],
      combiner = #tdsl.combiner<sum>} -> tensor<?x?xf32> {
  ^bb0(%a: f32, %b: f32):
    %p = tdsl.mul %a, %b : f32, f32 -> f32
    tdsl.yield %p : f32
  }
  return %C : tensor<?x?xf32>
}

// Scalar result: a rank-0 tensor, read back with tensor.extract; max starts
// at -inf.
// CHECK-LABEL: func.func @index_gen_max_scalar(
// CHECK-SAME: %[[X:.*]]: tensor<?x2xf32>, %[[S:.*]]: f32) -> f32
// CHECK: %[[E:.*]] = tensor.empty() : tensor<f32>
// CHECK: %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: %[[F:.*]] = linalg.fill ins(%[[NINF]] : f32) outs(%[[E]] : tensor<f32>) -> tensor<f32>
// CHECK: %[[G:.*]] = linalg.generic {indexing_maps = [#[[COL0]], #[[SCAL]], #[[SCAL]]], iterator_types = ["reduction"]}
// CHECK-SAME: ins(%[[X]], %[[S]] : tensor<?x2xf32>, f32) outs(%[[F]] : tensor<f32>)
// CHECK: ^bb0(%[[IN:.*]]: f32, %[[IS:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK: %[[V:.*]] = arith.mulf %[[IN]], %[[IS]] : f32
// CHECK: arith.maximumf %[[ACC]], %[[V]] : f32
// CHECK: %[[R:.*]] = tensor.extract %[[G]][] : tensor<f32>
// CHECK: return %[[R]] : f32
func.func @index_gen_max_scalar(%x: tensor<?x2xf32>, %s: f32) -> f32 {
  %m = tdsl.index_gen ins(%x, %s : tensor<?x2xf32>, f32) {
      indexing_maps = [affine_map<(i) -> (i, 0)>, affine_map<(i) -> ()>,
                       affine_map<(i) -> ()>],
      iterator_types = [#tdsl.iterator<reduction>],
      combiner = #tdsl.combiner<max>} -> f32 {
  ^bb0(%e: f32, %t: f32):
    %v = tdsl.mul %e, %t : f32, f32 -> f32
    tdsl.yield %v : f32
  }
  return %m : f32
}

// Integer min starts at the largest value: signed i64 max, and all ones for
// ui64.
// CHECK-LABEL: func.func @index_gen_min(
// CHECK: %[[BIG:.*]] = arith.constant 9223372036854775807 : i64
// CHECK: linalg.fill ins(%[[BIG]] : i64) outs(%{{.*}} : tensor<8xi64>)
// CHECK: linalg.generic {indexing_maps = [#[[ID2]], #[[ROWS]]], iterator_types = ["parallel", "reduction"]}
// CHECK: arith.minsi
// CHECK: %[[UBIG:.*]] = arith.constant -1 : i64
// CHECK: linalg.fill ins(%[[UBIG]] : i64) outs(%{{.*}} : tensor<i64>)
// CHECK: arith.minui
func.func @index_gen_min(%x: tensor<8x4xi64>, %u: tensor<8xui64>) -> (tensor<8xi64>, ui64) {
  %m = tdsl.index_gen ins(%x : tensor<8x4xi64>) {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
      iterator_types = [#tdsl.iterator<parallel>, #tdsl.iterator<reduction>],
      combiner = #tdsl.combiner<min>} -> tensor<8xi64> {
  ^bb0(%e: i64):
    tdsl.yield %e : i64
  }
  %n = tdsl.index_gen ins(%u : tensor<8xui64>) {
      indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> ()>],
      iterator_types = [#tdsl.iterator<reduction>],
      combiner = #tdsl.combiner<min>} -> ui64 {
  ^bb0(%e: ui64):
    tdsl.yield %e : ui64
  }
  return %m, %n : tensor<8xi64>, ui64
}

// No combiner: no fill; tdsl.index becomes linalg.index.
// CHECK-LABEL: func.func @index_gen_none(
// CHECK-SAME: %[[X:.*]]: tensor<?x2xf32>
// CHECK: %[[E:.*]] = tensor.empty(%{{.*}}) : tensor<2x?xf32>
// CHECK-NOT: linalg.fill
// CHECK: linalg.generic {indexing_maps = [#[[ID2]], #[[TRANS]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: ins(%[[X]] : tensor<?x2xf32>) outs(%[[E]] : tensor<2x?xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[ID1]]], iterator_types = ["parallel"]}
// CHECK-SAME: outs(%{{.*}} : tensor<4xindex>)
// CHECK: %[[I:.*]] = linalg.index 0 : index
// CHECK: linalg.yield %[[I]] : index
func.func @index_gen_none(%x: tensor<?x2xf32>) -> (tensor<2x?xf32>, tensor<4xindex>) {
  %t = tdsl.index_gen ins(%x : tensor<?x2xf32>) {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j, i)>],
      iterator_types = [#tdsl.iterator<parallel>, #tdsl.iterator<parallel>],
      combiner = #tdsl.combiner<none>} -> tensor<2x?xf32> {
  ^bb0(%e: f32):
    tdsl.yield %e : f32
  }
  %r = tdsl.index_gen {
      indexing_maps = [affine_map<(i) -> (i)>],
      iterator_types = [#tdsl.iterator<parallel>],
      combiner = #tdsl.combiner<none>} -> tensor<4xindex> {
    %i = tdsl.index 0 : index
    tdsl.yield %i : index
  }
  return %t, %r : tensor<2x?xf32>, tensor<4xindex>
}

// -----

// Map-form parallel_for: a generic with no inputs over ub - lb; the body
// gets linalg.index + lower bound.
// CHECK-DAG: #[[ID2:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @parallel_map(
// CHECK-SAME: %[[LO:.*]]: index, %[[H:.*]]: index, %[[W:.*]]: index, %[[X:.*]]: f32
// Extents are hi - lo, clamped at 0 (a reversed range is empty).
// CHECK: %[[S0:.*]] = arith.subi %[[H]], %[[LO]] : index
// CHECK: %[[E0:.*]] = arith.maxsi %[[S0]], %{{.*}} : index
// CHECK: %[[S1:.*]] = arith.subi %[[W]], %{{.*}} : index
// CHECK: %[[E1:.*]] = arith.maxsi %[[S1]], %{{.*}} : index
// CHECK: %[[E:.*]] = tensor.empty(%[[E0]], %[[E1]]) : tensor<?x?xf32>
// CHECK: linalg.generic {indexing_maps = [#[[ID2]]], iterator_types = ["parallel", "parallel"]} outs(%[[E]] : tensor<?x?xf32>)
// CHECK: %[[I0:.*]] = linalg.index 0 : index
// CHECK: %[[I:.*]] = arith.addi %[[I0]], %[[LO]] : index
// CHECK: %[[J0:.*]] = linalg.index 1 : index
// CHECK: arith.addi %[[J0]], %[[C0]] : index
// CHECK: %[[I64:.*]] = arith.index_cast %[[I]] : index to i64
// CHECK: %[[F:.*]] = arith.sitofp %[[I64]] : i64 to f32
// CHECK: %[[R:.*]] = arith.mulf %[[F]], %[[X]] : f32
// CHECK: linalg.yield %[[R]] : f32
func.func @parallel_map(%lo: index, %h: index, %w: index, %x: f32) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %t = tdsl.parallel_for (%i, %j) = (%lo, %c0) to (%h, %w) -> tensor<?x?xf32> {
    %a = arith.index_cast %i : index to i64
    %f = tdsl.cast %a : i64 to f32
    %r = tdsl.mul %f, %x : f32, f32 -> f32
    tdsl.yield %r : f32
  }
  return %t : tensor<?x?xf32>
}

// Reducing parallel_for: an scf.forall over 256 chunks of the linearized
// range, each reduced serially (from the identity) into one partial, then a
// serial combine of the partials in chunk order.
// CHECK-LABEL: func.func @parallel_reduce(
// CHECK-SAME: %[[N:.*]]: index) -> i64
// CHECK: %[[SPAN:.*]] = arith.subi %[[N]], %{{.*}} : index
// CHECK: %[[EXT:.*]] = arith.maxsi %[[SPAN]], %{{.*}} : index
// CHECK: %[[TOTAL:.*]] = arith.muli %{{.*}}, %[[EXT]] : index
// CHECK: %[[C256:.*]] = arith.constant 256 : index
// CHECK: %[[PART:.*]] = tensor.empty() : tensor<256xi64>
// CHECK: %[[P:.*]] = scf.forall (%[[CH:.*]]) in (256) shared_outs(%[[OUT:.*]] = %[[PART]]) -> (tensor<256xi64>) {
// CHECK: %[[B0:.*]] = arith.muli %[[CH]], %[[TOTAL]] : index
// CHECK: %[[BEGIN:.*]] = arith.divui %[[B0]], %[[C256]] : index
// CHECK: %[[NEXT:.*]] = arith.addi %[[CH]], %{{.*}} : index
// CHECK: %[[E0:.*]] = arith.muli %[[NEXT]], %[[TOTAL]] : index
// CHECK: %[[END:.*]] = arith.divui %[[E0]], %[[C256]] : index
// CHECK: %[[ID:.*]] = arith.constant 0 : i64
// CHECK: %[[LOC:.*]] = scf.for %[[IV:.*]] = %[[BEGIN]] to %[[END]] step %{{.*}} iter_args(%[[ACC:.*]] = %[[ID]]) -> (i64) {
// CHECK: %[[V:.*]] = arith.index_cast %{{.*}} : index to i64
// CHECK: %[[SUM:.*]] = arith.addi %[[ACC]], %[[V]] : i64
// CHECK: scf.yield %[[SUM]] : i64
// CHECK: %[[ONE:.*]] = tensor.from_elements %[[LOC]] : tensor<1xi64>
// CHECK: scf.forall.in_parallel {
// CHECK: tensor.parallel_insert_slice %[[ONE]] into %[[OUT]][%[[CH]]] [1] [1] : tensor<1xi64> into tensor<256xi64>
// CHECK: %[[R:.*]] = scf.for %[[K:.*]] = %{{.*}} to %[[C256]] step %{{.*}} iter_args(%[[RACC:.*]] = %{{.*}}) -> (i64) {
// CHECK: %[[PK:.*]] = tensor.extract %[[P]][%[[K]]] : tensor<256xi64>
// CHECK: %[[RS:.*]] = arith.addi %[[RACC]], %[[PK]] : i64
// CHECK: scf.yield %[[RS]] : i64
// CHECK: return %[[R]] : i64
func.func @parallel_reduce(%n: index) -> i64 {
  %c0 = arith.constant 0 : index
  %s = tdsl.parallel_for (%i) = (%c0) to (%n) reduce(add) -> i64 {
    %v = arith.index_cast %i : index to i64
    tdsl.yield %v : i64
  }
  return %s : i64
}

// Two dimensions: the linear index is split innermost-fastest; max starts
// at -inf in the chunks and in the final combine.
// CHECK-LABEL: func.func @parallel_reduce_max_2d(
// CHECK-SAME: %[[N:.*]]: index, %[[M:.*]]: index, %[[X:.*]]: f32
// CHECK: arith.maxsi
// CHECK: %[[EXT1:.*]] = arith.maxsi
// CHECK: scf.forall (%{{.*}}) in (256)
// CHECK: %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: scf.for %[[IV:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %[[NINF]]) -> (f32)
// CHECK: arith.remui %[[IV]], %[[EXT1]] : index
// CHECK: arith.divui %[[IV]], %[[EXT1]] : index
// CHECK: arith.maximumf %[[ACC]], %[[X]] : f32
// CHECK: tensor.parallel_insert_slice %{{.*}} : tensor<1xf32> into tensor<256xf32>
// CHECK: %[[NINF2:.*]] = arith.constant 0xFF800000 : f32
// CHECK: scf.for %{{.*}} iter_args(%{{.*}} = %[[NINF2]]) -> (f32)
// CHECK: arith.maximumf
func.func @parallel_reduce_max_2d(%n: index, %m: index, %x: f32) -> f32 {
  %c1 = arith.constant 1 : index
  %s = tdsl.parallel_for (%i, %j) = (%c1, %c1) to (%n, %m) reduce(max) -> f32 {
    tdsl.yield %x : f32
  }
  return %s : f32
}

// -----

// Regression: an index_gen nested in a parallel_for becomes an scf.for nest
// (not a linalg.generic inside the generic's body, where CSE would merge
// the inner and outer linalg.index ops).
// CHECK-LABEL: func.func @index_gen_in_parallel_for(
// CHECK-SAME: %[[A:.*]]: tensor<?x?xf32>, %[[N:.*]]: index
// CHECK: linalg.generic
// CHECK-SAME: outs(%{{.*}} : tensor<?xf32>)
// CHECK: %[[OI:.*]] = linalg.index 0 : index
// CHECK: %[[I:.*]] = arith.addi %[[OI]], %{{.*}} : index
// k subscripts both dimensions of A: they must agree at run time.
// CHECK: } {tdsl.check = "an index variable ranges over tensors of different extents (dimension 1 of an operand)"}
// CHECK: %[[EXT:.*]] = tensor.dim %[[A]], %{{.*}} : tensor<?x?xf32>
// CHECK: %[[E:.*]] = tensor.empty() : tensor<f32>
// CHECK: %[[F:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E]] : tensor<f32>)
// CHECK-NOT: linalg.generic
// CHECK: %[[LOOP:.*]] = scf.for %[[K:.*]] = %{{.*}} to %[[EXT]] step %{{.*}} iter_args(%[[ACC:.*]] = %[[F]]) -> (tensor<f32>) {
// CHECK-NOT: linalg.index
// CHECK: %[[AK:.*]] = tensor.extract %[[A]][%[[K]], %[[K]]] : tensor<?x?xf32>
// CHECK: %[[KI:.*]] = arith.index_cast %[[K]] : index to i64
// CHECK: %[[II:.*]] = arith.index_cast %[[I]] : index to i64
// CHECK: %[[KII:.*]] = arith.addi %[[KI]], %[[II]] : i64
// CHECK: %[[KF:.*]] = arith.sitofp %[[KII]] : i64 to f32
// CHECK: %[[P:.*]] = arith.mulf %[[AK]], %[[KF]] : f32
// CHECK: %[[OLD:.*]] = tensor.extract %[[ACC]][] : tensor<f32>
// CHECK: %[[NEW:.*]] = arith.addf %[[OLD]], %[[P]] : f32
// CHECK: %[[INS:.*]] = tensor.insert %[[NEW]] into %[[ACC]][] : tensor<f32>
// CHECK: scf.yield %[[INS]] : tensor<f32>
// CHECK: %[[S:.*]] = tensor.extract %[[LOOP]][] : tensor<f32>
// CHECK: linalg.yield %[[S]] : f32
func.func @index_gen_in_parallel_for(%A: tensor<?x?xf32>, %n: index) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %t = tdsl.parallel_for (%i) = (%c0) to (%n) -> tensor<?xf32> {
    %row = tdsl.index_gen ins(%A : tensor<?x?xf32>) {
        indexing_maps = [affine_map<(k) -> (k, k)>, affine_map<(k) -> ()>],
        iterator_types = [#tdsl.iterator<reduction>],
        combiner = #tdsl.combiner<sum>} -> f32 {
    ^bb0(%e: f32):
      %k = tdsl.index 0 : index
      %ki = arith.index_cast %k : index to i64
      %ii = arith.index_cast %i : index to i64
      %kii = tdsl.add %ki, %ii : i64, i64 -> i64
      %kf = tdsl.cast %kii : i64 to f32
      %p = tdsl.mul %e, %kf : f32, f32 -> f32
      tdsl.yield %p : f32
    }
    tdsl.yield %row : f32
  }
  return %t : tensor<?xf32>
}

// -----

// The RNG is Philox4x32-10 in arith ops (no runtime call). Value k (f32
// uniform: one word, four values per block) is word (k & 63) >> 4 of block
// ((k >> 6) << 4) | (k & 15); the block counter and the seed split into
// 32-bit halves, ten rounds of the Philox multipliers with nine Weyl key
// bumps, the word chosen by the slot, then its bits become a float in [0, 1).
// CHECK-DAG: #[[ID2:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-NOT: tdsl_rng
// CHECK-LABEL: func.func @random_uniform_f32(
// CHECK-SAME: %[[SEED:.*]]: i64, %[[CTR:.*]]: i64) -> f32
// CHECK-DAG: %[[C6:.*]] = arith.constant 6 : i64
// CHECK-DAG: %[[C63:.*]] = arith.constant 63 : i64
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : i64
// CHECK-DAG: %[[C15:.*]] = arith.constant 15 : i64
// CHECK-DAG: %[[G:.*]] = arith.shrui %[[CTR]], %[[C6]] : i64
// CHECK-DAG: %[[P:.*]] = arith.andi %[[CTR]], %[[C63]] : i64
// CHECK-DAG: %[[HI:.*]] = arith.shli %[[G]], %[[C4]] : i64
// CHECK-DAG: %[[LO:.*]] = arith.andi %[[P]], %[[C15]] : i64
// CHECK-DAG: %[[BLK:.*]] = arith.ori %[[HI]], %[[LO]] : i64
// CHECK-DAG: %[[SLOT:.*]] = arith.shrui %[[P]], %{{.*}} : i64
// CHECK-DAG: arith.trunci %[[BLK]] : i64 to i32
// CHECK-DAG: arith.shrui %[[BLK]], %{{.*}} : i64
// CHECK-DAG: arith.trunci %[[SEED]] : i64 to i32
// CHECK-DAG: arith.shrui %[[SEED]], %{{.*}} : i64
// CHECK-DAG: arith.constant -766435501 : i32
// CHECK-DAG: arith.constant -845247145 : i32
// CHECK-COUNT-9: arith.constant -1640531527 : i32
// CHECK-NOT: arith.constant -1640531527 : i32
// CHECK: arith.cmpi eq, %[[SLOT]], %{{.*}} : i64
// CHECK: arith.select
// CHECK: arith.cmpi eq, %[[SLOT]], %{{.*}} : i64
// CHECK: arith.select
// CHECK: arith.cmpi eq, %[[SLOT]], %{{.*}} : i64
// CHECK: %[[W:.*]] = arith.select
// 24 random bits times 2^-24.
// CHECK: %[[BITS:.*]] = arith.shrui %[[W]], %{{.*}} : i32
// CHECK: %[[F:.*]] = arith.uitofp %[[BITS]] : i32 to f32
// CHECK: %[[SCALE:.*]] = arith.constant 5.96046448E-8 : f32
// CHECK: %[[U:.*]] = arith.mulf %[[F]], %[[SCALE]] : f32
// CHECK: return %[[U]] : f32
func.func @random_uniform_f32(%seed: ui64, %ctr: i64) -> f32 {
  %0 = tdsl.random uniform %seed, %ctr : ui64, i64 -> f32
  return %0 : f32
}

// An index counter is cast to i64; normal f64 is Box-Muller on two 53-bit
// uniforms, with basic IEEE operations only (no libm or libdevice call, so
// every back end rounds alike): the logarithm from the exponent and a series
// in s = (m - 1) / (m + 1), a correctly rounded square root, and the cosine
// of the angle's integer as a quadrant and a polynomial.
// CHECK-LABEL: func.func @random_normal_f64(
// CHECK-SAME: %[[SEED:.*]]: i64, %[[K:.*]]: index) -> f64
// CHECK: %[[CTR:.*]] = arith.index_cast %[[K]] : index to i64
// CHECK: arith.trunci %{{.*}} : i64 to i32
// CHECK-COUNT-9: arith.constant -1150833019 : i32
// CHECK: arith.uitofp %{{.*}} : i64 to f64
// CHECK: arith.constant 1.1102230246251565E-16 : f64
// CHECK: arith.bitcast %{{.*}} : f64 to i64
// CHECK: arith.divf %{{.*}}, %{{.*}} : f64
// CHECK: math.sqrt %{{.*}} : f64
// CHECK: arith.select
// CHECK: %[[R:.*]] = arith.mulf %{{.*}}, %{{.*}} : f64
// CHECK-NEXT: return %[[R]] : f64
// CHECK-NOT: math.log
// CHECK-NOT: math.cos
func.func @random_normal_f64(%seed: i64, %k: index) -> f64 {
  %1 = tdsl.random normal %seed, %k : i64, index -> f64
  return %1 : f64
}

// random_tensor with two run-time sizes: a generic whose counter is the
// row-major linear index (one Philox block per value).
// CHECK-LABEL: func.func @random_tensor(
// CHECK-SAME: %[[SEED:.*]]: i64, %[[N:.*]]: index) -> tensor<?x4xf32>
// CHECK: %[[E:.*]] = tensor.empty(%[[N]]) : tensor<?x4xf32>
// CHECK: linalg.generic {indexing_maps = [#[[ID2]]], iterator_types = ["parallel", "parallel"]} outs(%[[E]] : tensor<?x4xf32>)
// CHECK: %[[I0:.*]] = linalg.index 0 : index
// CHECK: %[[R0:.*]] = arith.addi %{{.*}}, %[[I0]] : index
// CHECK: %[[D1:.*]] = tensor.dim %[[E]], %{{.*}} : tensor<?x4xf32>
// CHECK: %[[R1:.*]] = arith.muli %[[R0]], %[[D1]] : index
// CHECK: %[[I1:.*]] = linalg.index 1 : index
// CHECK: %[[LIN:.*]] = arith.addi %[[R1]], %[[I1]] : index
// CHECK: %[[CTR:.*]] = arith.index_cast %[[LIN]] : index to i64
// CHECK: arith.shrui %[[CTR]], %{{.*}} : i64
// CHECK: arith.trunci %[[SEED]] : i64 to i32
// CHECK: arith.bitcast %{{.*}} : f32 to i32
// CHECK: arith.extf %{{.*}} : f32 to f64
// CHECK: math.sqrt %{{.*}} : f64
// CHECK: arith.truncf %{{.*}} : f64 to f32
// CHECK: linalg.yield %{{.*}} : f32
func.func @random_tensor(%seed: ui64, %n: index) -> tensor<?x4xf32> {
  %2 = tdsl.random_tensor normal %seed [%n] : ui64 -> tensor<?x4xf32>
  return %2 : tensor<?x4xf32>
}

// A static random tensor is made block by block: value (c, s, l) of a
// [groups, slots, 16] generic is slot s of block 16c + l, i.e. value
// 64c + 16s + l of the stream, so each block's four words fill four
// values; then flattened, cut to 70 values and shaped.
// CHECK-LABEL: func.func @random_blocks(
// CHECK: %[[E:.*]] = tensor.empty() : tensor<2x4x16xf32>
// CHECK: %[[G:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel"]} outs(%[[E]] : tensor<2x4x16xf32>)
// CHECK: %[[I0:.*]] = linalg.index 0 : index
// CHECK: %[[C:.*]] = arith.index_cast %[[I0]] : index to i64
// CHECK: %[[C16:.*]] = arith.muli %[[C]], %{{.*}} : i64
// CHECK: %[[I2:.*]] = linalg.index 2 : index
// CHECK: %[[L:.*]] = arith.index_cast %[[I2]] : index to i64
// CHECK: %[[BLK:.*]] = arith.addi %[[C16]], %[[L]] : i64
// CHECK: %[[I1:.*]] = linalg.index 1 : index
// CHECK: %[[SLOT:.*]] = arith.index_cast %[[I1]] : index to i64
// CHECK: arith.trunci %[[BLK]] : i64 to i32
// CHECK: arith.cmpi eq, %[[SLOT]], %{{.*}} : i64
// CHECK: %[[F:.*]] = tensor.collapse_shape %[[G]] {{\[\[}}0, 1, 2]] : tensor<2x4x16xf32> into tensor<128xf32>
// CHECK: %[[S:.*]] = tensor.extract_slice %[[F]][0] [70] [1] : tensor<128xf32> to tensor<70xf32>
// CHECK: %[[R:.*]] = tensor.expand_shape %[[S]] {{\[\[}}0, 1]] output_shape [10, 7] : tensor<70xf32> into tensor<10x7xf32>
// CHECK: return %[[R]]
func.func @random_blocks(%seed: ui64) -> tensor<10x7xf32> {
  %2 = tdsl.random_tensor uniform %seed : ui64 -> tensor<10x7xf32>
  return %2 : tensor<10x7xf32>
}

// -----

// fill is linalg.fill; arange is a generic yielding the (converted) linear
// index.
// CHECK-DAG: #[[ID1:.*]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @creation(
// CHECK-SAME: %[[N:.*]]: index, %[[V:.*]]: f32
// CHECK: %[[E0:.*]] = tensor.empty(%[[N]]) : tensor<?x4xf32>
// CHECK: %[[F0:.*]] = linalg.fill ins(%[[V]] : f32) outs(%[[E0]] : tensor<?x4xf32>) -> tensor<?x4xf32>
// CHECK: %[[E1:.*]] = tensor.empty() : tensor<2x2xf32>
// CHECK: %[[F1:.*]] = linalg.fill ins(%[[V]] : f32) outs(%[[E1]] : tensor<2x2xf32>) -> tensor<2x2xf32>
// CHECK: %[[E2:.*]] = tensor.empty() : tensor<5xi64>
// CHECK: %[[A2:.*]] = linalg.generic {indexing_maps = [#[[ID1]]], iterator_types = ["parallel"]} outs(%[[E2]] : tensor<5xi64>)
// CHECK: %[[I2:.*]] = linalg.index 0 : index
// CHECK: %[[L2:.*]] = arith.addi %{{.*}}, %[[I2]] : index
// CHECK: %[[C2:.*]] = arith.index_cast %[[L2]] : index to i64
// CHECK: linalg.yield %[[C2]] : i64
// CHECK: %[[E3:.*]] = tensor.empty(%[[N]]) : tensor<?xf32>
// CHECK: %[[A3:.*]] = linalg.generic {indexing_maps = [#[[ID1]]], iterator_types = ["parallel"]} outs(%[[E3]] : tensor<?xf32>)
// CHECK: %[[I3:.*]] = linalg.index 0 : index
// CHECK: %[[L3:.*]] = arith.addi %{{.*}}, %[[I3]] : index
// CHECK: %[[C3:.*]] = arith.index_cast %[[L3]] : index to i64
// CHECK: %[[F3:.*]] = arith.sitofp %[[C3]] : i64 to f32
// CHECK: linalg.yield %[[F3]] : f32
// CHECK: return %[[F0]], %[[F1]], %[[A2]], %[[A3]]
func.func @creation(%n: index, %v: f32)
    -> (tensor<?x4xf32>, tensor<2x2xf32>, tensor<5xi64>, tensor<?xf32>) {
  %0 = tdsl.fill %v [%n] : f32 -> tensor<?x4xf32>
  %1 = tdsl.fill %v : f32 -> tensor<2x2xf32>
  %2 = tdsl.arange : tensor<5xi64>
  %3 = tdsl.arange [%n] : tensor<?xf32>
  return %0, %1, %2, %3 : tensor<?x4xf32>, tensor<2x2xf32>, tensor<5xi64>, tensor<?xf32>
}

// -----

// print, load and save are runtime calls; strings are private globals.
// CHECK-DAG: func.func private @tdsl_print_f32(f32, !llvm.ptr, i32)
// CHECK-DAG: func.func private @tdsl_print_u64(i64, !llvm.ptr, i32)
// CHECK-DAG: func.func private @tdsl_print_i1(i8, !llvm.ptr, i32)
// CHECK-DAG: func.func private @tdsl_print_f16(i16, !llvm.ptr, i32)
// CHECK-DAG: func.func private @tdsl_print_str(!llvm.ptr, i32)
// CHECK-DAG: llvm.mlir.global private constant @[[PI:.*]]("pi =\00")
// CHECK-DAG: llvm.mlir.global private constant @[[DONE:.*]]("done\00")
// CHECK-DAG: func.func private @tdsl_npy_shape(!llvm.ptr, i32, i64, !llvm.ptr, !llvm.ptr)
// CHECK-DAG: func.func private @tdsl_npy_read(!llvm.ptr, i32, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr)
// CHECK-DAG: func.func private @tdsl_print_tensor(i32, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32)
// CHECK-DAG: func.func private @tdsl_npy_write(!llvm.ptr, i32, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr)
// CHECK-DAG: llvm.mlir.global private constant @[[IN:.*]]("data.npy\00")
// CHECK-DAG: llvm.mlir.global private constant @[[OUT:.*]]("out.npy\00")
// The error position carries the source line and a caret for the runtime.
// CHECK-DAG: llvm.mlir.global private constant @{{.*}}("convert-tdsl-to-linalg.mlir:{{[0-9]+}}:8\0A{{ +}}%t = tdsl.load \22data.npy\22 : tensor<?x64xf32>\0A{{ +}}^\00")
// CHECK-LABEL: func.func @print_scalars(
// CHECK-SAME: %[[X:.*]]: f32, %[[U:.*]]: i64, %[[B:.*]]: i1, %[[H:.*]]: f16
// CHECK: %[[PIA:.*]] = llvm.mlir.addressof @[[PI]] : !llvm.ptr
// CHECK: %[[NL:.*]] = arith.constant 1 : i32
// CHECK: call @tdsl_print_f32(%[[X]], %[[PIA]], %[[NL]]) : (f32, !llvm.ptr, i32) -> ()
// CHECK: %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK: call @tdsl_print_u64(%[[U]], %[[NULL]], %{{.*}}) : (i64, !llvm.ptr, i32) -> ()
// no_newline passes 0.
// CHECK: %[[NONL:.*]] = arith.constant 0 : i32
// CHECK: %[[B8:.*]] = arith.extui %[[B]] : i1 to i8
// CHECK: call @tdsl_print_i1(%[[B8]], %{{.*}}, %[[NONL]]) : (i8, !llvm.ptr, i32) -> ()
// CHECK: %[[H16:.*]] = arith.bitcast %[[H]] : f16 to i16
// CHECK: call @tdsl_print_f16(%[[H16]], %{{.*}}, %{{.*}}) : (i16, !llvm.ptr, i32) -> ()
// CHECK: %[[DA:.*]] = llvm.mlir.addressof @[[DONE]] : !llvm.ptr
// CHECK: call @tdsl_print_str(%[[DA]], %{{.*}}) : (!llvm.ptr, i32) -> ()
func.func @print_scalars(%x: f32, %u: ui64, %b: i1, %h: f16) {
  tdsl.print "pi =", %x : f32
  tdsl.print %u : ui64
  tdsl.print %b : i1 {no_newline}
  tdsl.print %h : f16
  tdsl.print "done"
  return
}

// load: tdsl_npy_shape fills the sizes (-1 where dynamic), the buffer is
// allocated with them and filled by tdsl_npy_read. Printing a tensor passes
// dtype (2 = f32), rank, sizes and data of its buffer; save likewise.
// CHECK-LABEL: func.func @load_print_save(
// CHECK: %[[PATH:.*]] = llvm.mlir.addressof @[[IN]] : !llvm.ptr
// CHECK: %[[WHERE:.*]] = llvm.mlir.addressof
// CHECK: %[[DT:.*]] = arith.constant 2 : i32
// CHECK: %[[RK:.*]] = arith.constant 2 : i64
// CHECK: %[[SIZES:.*]] = memref.alloca() : memref<2xi64>
// CHECK: %[[M1:.*]] = arith.constant -1 : i64
// CHECK: memref.store %[[M1]], %[[SIZES]][%{{.*}}] : memref<2xi64>
// CHECK: %[[C64:.*]] = arith.constant 64 : i64
// CHECK: memref.store %[[C64]], %[[SIZES]][%{{.*}}] : memref<2xi64>
// CHECK: %[[SP:.*]] = memref.extract_aligned_pointer_as_index %[[SIZES]]
// CHECK: %[[SI:.*]] = arith.index_cast %[[SP]] : index to i64
// CHECK: %[[SPTR:.*]] = llvm.inttoptr %[[SI]] : i64 to !llvm.ptr
// CHECK: call @tdsl_npy_shape(%[[PATH]], %[[DT]], %[[RK]], %[[SPTR]], %[[WHERE]])
// CHECK: %[[D0:.*]] = memref.load %[[SIZES]][%{{.*}}] : memref<2xi64>
// CHECK: %[[N0:.*]] = arith.index_cast %[[D0]] : i64 to index
// CHECK: %[[BUF:.*]] = memref.alloc(%[[N0]]) : memref<?x64xf32>
// CHECK: %[[BP:.*]] = memref.extract_aligned_pointer_as_index %[[BUF]]
// CHECK: call @tdsl_npy_read(%[[PATH]], %[[DT]], %[[RK]], %[[SPTR]], %{{.*}}, %[[WHERE]])
// CHECK: %[[T:.*]] = bufferization.to_tensor %[[BUF]] restrict writable : memref<?x64xf32> to tensor<?x64xf32>
// The runtime reads a copy, which bufferization sees as a read of %T.
// CHECK: %[[TC:.*]] = bufferization.alloc_tensor() copy(%[[T]]) : tensor<?x64xf32>
// CHECK: %[[TB:.*]] = bufferization.to_buffer %[[TC]] read_only : tensor<?x64xf32> to memref<?x64xf32>
// CHECK: %[[PDT:.*]] = arith.constant 2 : i32
// CHECK: %[[PRK:.*]] = arith.constant 2 : i64
// CHECK: %[[PS:.*]] = memref.alloca() : memref<2xi64>
// CHECK: memref.dim %[[TB]], %{{.*}} : memref<?x64xf32>
// CHECK: memref.extract_aligned_pointer_as_index %[[TB]]
// CHECK: call @tdsl_print_tensor(%[[PDT]], %[[PRK]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (i32, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32) -> ()
// CHECK: %[[WC:.*]] = bufferization.alloc_tensor() copy(%[[T]]) : tensor<?x64xf32>
// CHECK: %[[WB:.*]] = bufferization.to_buffer %[[WC]] read_only : tensor<?x64xf32> to memref<?x64xf32>
// CHECK: memref.extract_aligned_pointer_as_index %[[WB]]
// CHECK: call @tdsl_npy_write(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (!llvm.ptr, i32, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> ()
func.func @load_print_save() {
  %t = tdsl.load "data.npy" : tensor<?x64xf32>
  tdsl.print %t : tensor<?x64xf32>
  tdsl.save %t, "out.npy" : tensor<?x64xf32>
  return
}

// -----

// Collectives are runtime calls with a table of {input, output, count,
// dtype} rows: each operand read from a copy, each result a new buffer.
// CHECK-LABEL: func.func @collectives
// CHECK: call @tdsl_world_rank(%{{.*}}) : (!llvm.ptr) -> i64
// CHECK: %[[MAX:.*]] = arith.constant 1 : i32
// CHECK: %[[TAB:.*]] = memref.alloc() : memref<2x4xi64>
// CHECK: bufferization.alloc_tensor() copy(%arg0) : tensor<4x8xf32>
// CHECK: %[[OUT0:.*]] = memref.alloc() : memref<4x8xf32>
// CHECK: arith.constant 2 : i64
// CHECK: bufferization.alloc_tensor() copy(%arg1) : tensor<?xf64>
// CHECK: %[[OUT1:.*]] = memref.alloc(%{{.*}}) : memref<?xf64>
// CHECK: arith.constant 3 : i64
// CHECK: %[[N:.*]] = arith.constant 2 : i64
// CHECK: memref.extract_aligned_pointer_as_index %[[TAB]]
// CHECK: call @tdsl_allreduce(%[[N]], %{{.*}}, %[[MAX]], %{{.*}}) : (i64, !llvm.ptr, i32, !llvm.ptr) -> ()
// CHECK: bufferization.to_tensor %[[OUT0]] restrict writable
// CHECK: bufferization.to_tensor %[[OUT1]] restrict writable
// CHECK: call @tdsl_broadcast(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (i64, !llvm.ptr, i64, !llvm.ptr) -> ()
func.func @collectives(%w: tensor<4x8xf32>, %b: tensor<?xf64>) -> (tensor<4x8xf32>, tensor<?xf64>, tensor<4x8xf32>) {
  %r = tdsl.world_rank : i64
  %g:2 = tdsl.allreduce "max" %w, %b : (tensor<4x8xf32>, tensor<?xf64>) -> (tensor<4x8xf32>, tensor<?xf64>)
  %c = tdsl.broadcast %w from %r : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %g#0, %g#1, %c : tensor<4x8xf32>, tensor<?xf64>, tensor<4x8xf32>
}
