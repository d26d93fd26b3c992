// RUN: tdsl-opt %s --tdsl-gpu-annotate-launches | FileCheck %s

// A kernel keeps its name when nothing else has it (its own module is no
// clash: it stayed @lone, not @lone_1), and a module launched twice is
// renamed once, after its first launch.

module attributes {gpu.container_module} {
  // CHECK-LABEL: func.func @main
  func.func @main(%m: memref<8xf32>) {
    %c1 = arith.constant 1 : index
    // CHECK: gpu.launch_func  @lone::@lone
    gpu.launch_func @lone::@lone blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<8xf32>)
    // CHECK: gpu.launch_func  @main_map::@main_map
    gpu.launch_func @twice::@twice blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<8xf32>) loc("main.map"("prog.tdsl":3:3))
    // CHECK: gpu.launch_func  @main_map::@main_map
    gpu.launch_func @twice::@twice blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<8xf32>) loc("main.map"("prog.tdsl":4:3))
    return
  }
  // CHECK: gpu.module @lone
  // CHECK-NEXT: gpu.func @lone(
  gpu.module @lone {
    gpu.func @lone(%a: memref<8xf32>) kernel {
      gpu.return
    }
  }
  // CHECK: gpu.module @main_map
  // CHECK-NEXT: gpu.func @main_map(
  // CHECK-NOT: main_map_1
  gpu.module @twice {
    gpu.func @twice(%a: memref<8xf32>) kernel {
      gpu.return
    }
  }
}
