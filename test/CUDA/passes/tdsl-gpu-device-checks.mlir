// RUN: tdsl-opt %s --tdsl-gpu-device-checks | FileCheck %s

// A run-time check (subscript out of range, division by zero) calls the
// host runtime's tdsl_fatal, which a kernel cannot call (ptxas rejects the
// unresolved function, test/Regression/gpu-check-in-kernel.test). Inside the
// loops that become kernels (scf.forall, scf.parallel, gpu.launch) each such
// call becomes llvm.intr.trap: the kernel stops and the runtime reports the
// failed launch. The call is matched, not the scf.if, since
// canonicalization merges checks of one condition into an scf.if without the
// tdsl.check attribute. Host checks keep their located message, and other
// calls are left alone.

// CHECK-LABEL: func.func @checks(
// CHECK-SAME:    %{{[^:]*}}: index, %[[BAD:[^:]*]]: i1
// CHECK:         %[[W:.*]] = llvm.mlir.addressof
// On the host: unchanged.
// CHECK:         scf.if %[[BAD]] {
// CHECK-NEXT:      func.call @tdsl_fatal(%[[W]], %[[W]]) : (!llvm.ptr, !llvm.ptr) -> ()
// CHECK-NEXT:    } {tdsl.check = "host"}
// CHECK:         scf.forall
// CHECK-NEXT:      scf.if %[[BAD]] {
// CHECK-NEXT:        llvm.intr.trap
// CHECK-NEXT:      } {tdsl.check = "subscript 0 is out of range"}
// Deeper in the kernel's body, in a merged scf.if; @other stays.
// CHECK:           scf.for
// CHECK-NEXT:        scf.if %[[BAD]] {
// CHECK-NEXT:          llvm.intr.trap
// CHECK-NEXT:          llvm.intr.trap
// CHECK-NEXT:          func.call @other(%[[W]], %[[W]])
// CHECK-NEXT:        }
// CHECK:         scf.parallel
// CHECK-NEXT:      scf.if %[[BAD]] {
// CHECK-NEXT:        llvm.intr.trap
// CHECK-NEXT:      } {tdsl.check = "division by zero"}
// CHECK:         gpu.launch
// CHECK-NEXT:      scf.if %[[BAD]] {
// CHECK-NEXT:        llvm.intr.trap
// CHECK-NEXT:      } {tdsl.check = "in a launch"}
// CHECK-NOT:     call @tdsl_fatal
// CHECK:         return
func.func private @tdsl_fatal(!llvm.ptr, !llvm.ptr)
func.func private @other(!llvm.ptr, !llvm.ptr)
llvm.mlir.global private constant @__tdsl_str_0("prog.tdsl:3:7\00") {addr_space = 0 : i32}
func.func @checks(%n: index, %bad: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %w = llvm.mlir.addressof @__tdsl_str_0 : !llvm.ptr
  scf.if %bad {
    func.call @tdsl_fatal(%w, %w) : (!llvm.ptr, !llvm.ptr) -> ()
  } {tdsl.check = "host"}
  scf.forall (%i) in (%n) {
    scf.if %bad {
      func.call @tdsl_fatal(%w, %w) : (!llvm.ptr, !llvm.ptr) -> ()
    } {tdsl.check = "subscript 0 is out of range"}
    scf.for %j = %c0 to %n step %c1 {
      scf.if %bad {
        func.call @tdsl_fatal(%w, %w) : (!llvm.ptr, !llvm.ptr) -> ()
        func.call @tdsl_fatal(%w, %w) : (!llvm.ptr, !llvm.ptr) -> ()
        func.call @other(%w, %w) : (!llvm.ptr, !llvm.ptr) -> ()
      }
    }
  }
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    scf.if %bad {
      func.call @tdsl_fatal(%w, %w) : (!llvm.ptr, !llvm.ptr) -> ()
    } {tdsl.check = "division by zero"}
    scf.reduce
  }
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1) threads(%tx, %ty, %tz) in (%u = %c1, %v = %c1, %q = %c1) {
    scf.if %bad {
      func.call @tdsl_fatal(%w, %w) : (!llvm.ptr, !llvm.ptr) -> ()
    } {tdsl.check = "in a launch"}
    gpu.terminator
  }
  return
}
