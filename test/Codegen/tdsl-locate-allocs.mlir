// RUN: tdsl-opt %s --tdsl-locate-allocs --split-input-file | FileCheck %s

// Before each memref.alloc that may exhaust memory (dynamic size, or at
// least 1 MiB), the pass calls tdsl_alloc_site with the allocation's DSL
// position, so that a failed allocation is reported at its source line like
// every other run-time error. Smaller buffers (hot loops allocate them) and
// allocations without a position get no call. Below: the basic cases, the
// size threshold, which position a location gives, and that strings and
// the declaration are made once.

// Dynamic and large buffers get their DSL position (before each one, the
// runtime is told where the next allocation comes from); small static ones
// do not. One of run-time size first checks that its byte count (4 * n)
// fits in an i64.

// CHECK-DAG: llvm.mlir.global private constant @[[WHERE:.*]]("prog.tdsl:3:7\00")
// CHECK-DAG: llvm.mlir.global private constant @[[TOO_LARGE:.*]]("this tensor's sizes multiply to more than 2^63 bytes: it cannot be allocated\00")
// CHECK-DAG: func.func private @tdsl_alloc_site(!llvm.ptr)
// CHECK-LABEL: func.func @main
func.func @main(%n: index) {
  // CHECK: %[[N:.*]] = arith.index_castui %{{.*}} : index to i64
  // CHECK: %[[LOW:.*]], %[[HIGH:.*]] = arith.mului_extended %c4_i64, %[[N]] : i64
  // CHECK: %[[WRAPS:.*]] = arith.cmpi ne, %[[HIGH]], %c0_i64
  // CHECK: %[[SIGN:.*]] = arith.cmpi slt, %[[LOW]], %c0_i64
  // CHECK: %[[OVER:.*]] = arith.ori %{{.*}}, %[[SIGN]]
  // CHECK: scf.if %[[OVER]] {
  // CHECK: %[[FW:.*]] = llvm.mlir.addressof @[[WHERE]]
  // CHECK: %[[FM:.*]] = llvm.mlir.addressof @[[TOO_LARGE]]
  // CHECK: func.call @tdsl_fatal(%[[FW]], %[[FM]])
  // CHECK: }
  // CHECK: %[[P:.*]] = llvm.mlir.addressof @[[WHERE]]
  // CHECK-NEXT: call @tdsl_alloc_site(%[[P]])
  // CHECK-NEXT: memref.alloc(%{{.*}}) : memref<?xf32>
  %a = memref.alloc(%n) : memref<?xf32> loc("prog.tdsl":3:7)
  // CHECK: call @tdsl_alloc_site
  // CHECK-NEXT: memref.alloc() : memref<512x512xf32>
  %b = memref.alloc() : memref<512x512xf32> loc("prog.tdsl":4:7)
  // CHECK-NOT: tdsl_alloc_site
  // CHECK: memref.alloc() : memref<16xf32>
  %c = memref.alloc() : memref<16xf32> loc("prog.tdsl":5:7)
  memref.dealloc %a : memref<?xf32>
  memref.dealloc %b : memref<512x512xf32>
  memref.dealloc %c : memref<16xf32>
  return
}

// -----

// The threshold is 1 MiB, counted with the element's width (index: 8 bytes).
// CHECK-DAG:   llvm.mlir.global private constant @[[F32:.*]]("prog.tdsl:3:7\00")
// CHECK-DAG:   llvm.mlir.global private constant @[[I8:.*]]("prog.tdsl:5:7\00")
// CHECK-DAG:   llvm.mlir.global private constant @[[IDX:.*]]("prog.tdsl:6:7\00")
// CHECK-DAG:   func.func private @tdsl_alloc_site(!llvm.ptr)
// CHECK-LABEL: func.func @threshold(
// CHECK:         %[[P0:.*]] = llvm.mlir.addressof @[[F32]] : !llvm.ptr
// CHECK-NEXT:    call @tdsl_alloc_site(%[[P0]]) : (!llvm.ptr) -> ()
// CHECK-NEXT:    memref.alloc() : memref<262144xf32>
// CHECK-NEXT:    memref.alloc() : memref<262143xf32>
// CHECK-NEXT:    %[[P1:.*]] = llvm.mlir.addressof @[[I8]] : !llvm.ptr
// CHECK-NEXT:    call @tdsl_alloc_site(%[[P1]])
// CHECK-NEXT:    memref.alloc() : memref<1048576xi8>
// CHECK-NEXT:    %[[P2:.*]] = llvm.mlir.addressof @[[IDX]] : !llvm.ptr
// CHECK-NEXT:    call @tdsl_alloc_site(%[[P2]])
// CHECK-NEXT:    memref.alloc() : memref<131072xindex>
// CHECK-NEXT:    return
func.func @threshold() {
  %a = memref.alloc() : memref<262144xf32> loc("prog.tdsl":3:7)
  %b = memref.alloc() : memref<262143xf32> loc("prog.tdsl":4:7)
  %c = memref.alloc() : memref<1048576xi8> loc("prog.tdsl":5:7)
  %d = memref.alloc() : memref<131072xindex> loc("prog.tdsl":6:7)
  return
}

// -----

// An inlined allocation reports the callee's line, then the call's as a
// note. Without
// an explicit location an op has this file's position; the file can be
// read, so the string also holds the source line and a caret under the
// column, which the runtime prints after the message. A buffer with no
// position and a memref.alloca get no call.
// CHECK-DAG:   llvm.mlir.global private constant @[[CALLEE:.*]]("lib.tdsl:2:5\0Aprog.tdsl:9:3: note: called from\00")
// CHECK-DAG:   llvm.mlir.global private constant @[[HERE:.*]]("tdsl-locate-allocs.mlir:[[#@LINE+15]]:8\0A  %b = memref.alloc(%n) : memref<?xf32>\0A       ^\00")
// CHECK-LABEL: func.func @where(
// CHECK:         func.call @tdsl_fatal
// CHECK:         %[[P0:.*]] = llvm.mlir.addressof @[[CALLEE]]
// CHECK-NEXT:    call @tdsl_alloc_site(%[[P0]])
// CHECK-NEXT:    memref.alloc(%{{.*}}) : memref<?xf32>
// CHECK:         func.call @tdsl_fatal
// CHECK:         %[[P1:.*]] = llvm.mlir.addressof @[[HERE]]
// CHECK-NEXT:    call @tdsl_alloc_site(%[[P1]])
// CHECK-NEXT:    memref.alloc(%{{.*}}) : memref<?xf32>
// CHECK-NEXT:    memref.alloc(%{{.*}}) : memref<?xf32>
// CHECK-NEXT:    memref.alloca(%{{.*}}) : memref<?xf32>
// CHECK-NEXT:    return
func.func @where(%n: index) {
  %a = memref.alloc(%n) : memref<?xf32> loc(callsite("lib.tdsl":2:5 at "prog.tdsl":9:3))
  %b = memref.alloc(%n) : memref<?xf32>
  %c = memref.alloc(%n) : memref<?xf32> loc(unknown)
  %d = memref.alloca(%n) : memref<?xf32> loc("prog.tdsl":8:7)
  return
}

// -----

// One string per position, shared by allocations at the same position and
// by the strings earlier passes made (@__tdsl_str_0 here); the runtime
// function is declared once. The call goes right before the allocation,
// also inside a loop. (Each is after its size check, the `scf.if`.)
// CHECK-NOT:   func.func private @tdsl_alloc_site
// CHECK:       llvm.mlir.global private constant @[[NEW:.*]]("prog.tdsl:4:7\00")
// CHECK-NOT:   prog.tdsl:3:7
// CHECK:       llvm.mlir.global private constant @__tdsl_str_0("prog.tdsl:3:7\00")
// CHECK-NOT:   prog.tdsl:3:7
// CHECK:       func.func private @tdsl_alloc_site(!llvm.ptr)
// CHECK-NOT:   func.func private @tdsl_alloc_site
// CHECK-LABEL: func.func @interned(
// CHECK:         scf.for
// CHECK:           func.call @tdsl_fatal
// CHECK:           %[[P0:.*]] = llvm.mlir.addressof @__tdsl_str_0
// CHECK-NEXT:      func.call @tdsl_alloc_site(%[[P0]])
// CHECK-NEXT:      memref.alloc
// CHECK-NEXT:      memref.dealloc
// CHECK-NEXT:    }
// CHECK:         func.call @tdsl_fatal
// CHECK:         %[[P1:.*]] = llvm.mlir.addressof @__tdsl_str_0
// CHECK-NEXT:    call @tdsl_alloc_site(%[[P1]])
// CHECK-NEXT:    memref.alloc
// CHECK:         func.call @tdsl_fatal
// CHECK:         %[[P2:.*]] = llvm.mlir.addressof @[[NEW]]
// CHECK-NEXT:    call @tdsl_alloc_site(%[[P2]])
// CHECK-NEXT:    memref.alloc
llvm.mlir.global private constant @__tdsl_str_0("prog.tdsl:3:7\00") {addr_space = 0 : i32}
func.func private @tdsl_alloc_site(!llvm.ptr)
func.func @interned(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %a = memref.alloc(%n) : memref<?xf32> loc("prog.tdsl":3:7)
    memref.dealloc %a : memref<?xf32>
  }
  %b = memref.alloc(%n) : memref<?xf32> loc("prog.tdsl":3:7)
  %c = memref.alloc(%n) : memref<?xf32> loc("prog.tdsl":4:7)
  return
}
