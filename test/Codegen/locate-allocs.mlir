// RUN: tdsl-opt %s -tdsl-locate-allocs | FileCheck %s

// Dynamic and large buffers get their DSL position (before each one, the
// runtime is told where the next allocation comes from); small static ones
// do not.

// CHECK-DAG: llvm.mlir.global private constant @[[WHERE:.*]]("prog.tdsl:3:7\00")
// CHECK-DAG: func.func private @tdsl_alloc_site(!llvm.ptr)
// CHECK-LABEL: func.func @main
func.func @main(%n: index) {
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
