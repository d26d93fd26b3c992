// RUN: tdsl-opt %s --tdsl-merge-exclusive-allocs | FileCheck %s

// The two versions of a kernel on run-time shapes (tdsl-tile-to-forall's
// scf.if on the tile count) share one output buffer: only one branch runs.

func.func private @use(memref<?x?xf32>)

// Right after bufferization: each branch yields its own buffer.
// CHECK-LABEL: func.func @yielded(
// CHECK-COUNT-1: memref.alloc
// CHECK-NOT:     memref.alloc
func.func @yielded(%c: i1, %m: index, %n: index) -> memref<?x?xf32> {
  %a = memref.alloc(%m, %n) {alignment = 64 : i64} : memref<?x?xf32>
  %b = memref.alloc(%m, %n) {alignment = 64 : i64} : memref<?x?xf32>
  %r = scf.if %c -> memref<?x?xf32> {
    func.call @use(%b) : (memref<?x?xf32>) -> ()
    scf.yield %b : memref<?x?xf32>
  } else {
    func.call @use(%a) : (memref<?x?xf32>) -> ()
    scf.yield %a : memref<?x?xf32>
  }
  return %r : memref<?x?xf32>
}

// After canonicalization: a select on the condition picks one.
// CHECK-LABEL: func.func @selected(
// CHECK:       %[[A:.*]] = memref.alloc
// CHECK-NOT:   memref.alloc
// CHECK:       arith.select %{{.*}}, %[[A]], %[[A]]
// CHECK:       call @use(%[[A]])
// CHECK:       call @use(%[[A]])
func.func @selected(%c: i1, %m: index, %n: index) -> memref<?x?xf32> {
  %a = memref.alloc(%m, %n) : memref<?x?xf32>
  %b = memref.alloc(%m, %n) : memref<?x?xf32>
  %r = arith.select %c, %b, %a : memref<?x?xf32>
  scf.if %c {
    func.call @use(%b) : (memref<?x?xf32>) -> ()
  } else {
    func.call @use(%a) : (memref<?x?xf32>) -> ()
  }
  return %r : memref<?x?xf32>
}

// Left alone: a buffer also used outside its branch, and buffers of
// different sizes.
// CHECK-LABEL: func.func @kept(
// CHECK-COUNT-4: memref.alloc
func.func @kept(%c: i1, %m: index, %n: index) -> (memref<?x?xf32>, memref<?x?xf32>) {
  %a = memref.alloc(%m, %n) : memref<?x?xf32>
  %b = memref.alloc(%m, %n) : memref<?x?xf32>
  func.call @use(%a) : (memref<?x?xf32>) -> ()
  %r = scf.if %c -> memref<?x?xf32> {
    scf.yield %b : memref<?x?xf32>
  } else {
    scf.yield %a : memref<?x?xf32>
  }
  %d = memref.alloc(%m, %m) : memref<?x?xf32>
  %e = memref.alloc(%m, %n) : memref<?x?xf32>
  %s = scf.if %c -> memref<?x?xf32> {
    scf.yield %e : memref<?x?xf32>
  } else {
    scf.yield %d : memref<?x?xf32>
  }
  return %r, %s : memref<?x?xf32>, memref<?x?xf32>
}
