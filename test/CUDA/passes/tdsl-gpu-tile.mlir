// RUN: tdsl-opt %s '--tdsl-gpu-tile=block-size=256 elements-per-thread=1' --canonicalize --split-input-file | FileCheck %s
// RUN: tdsl-opt %s '--tdsl-gpu-tile=block-size=128 tile=8' --canonicalize --split-input-file | FileCheck %s --check-prefix=OPT
// RUN: tdsl-opt %s '--tdsl-gpu-tile=block-size=256 elements-per-thread=1' --split-input-file --mlir-print-debuginfo --mlir-print-local-scope | FileCheck %s --check-prefix=NAME

// Each outermost linalg op on tensors becomes an scf.forall of blocks whose
// body is an scf.forall of threads, one output element per thread (later
// mapped to gpu.launch). Element-wise ops get blocks of `block-size`
// elements, flattened to one loop when their operands allow it; ops with
// reductions get `tile` x `tile` blocks, each thread running the reduction
// loop. The innermost loop is listed first, so that it becomes x and
// consecutive threads touch consecutive elements. (The CHECK lines give a
// thread one element; by default each thread of an element-wise op gets 4
// consecutive ones as one vector op, see OPT.) Before each kernel the
// pass calls tdsl_cuda_set_work with the flops and bytes the runtime credits
// to the next launch. Contractions and row reductions (written as
// gpu.launch by tdsl-gpu-stage-shared / tdsl-gpu-reduce) only get the work
// call; ops with no parallel loop or more than 3 are left alone.

// 1000 elements: blocks of 256 (the last one partial), a thread per element.
// Work: 2 ops x 1000 elements; 3 x 1000 x 4 bytes.
// CHECK:       func.func private @tdsl_cuda_set_work(f64, f64)
// CHECK-LABEL: func.func @saxpy(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<1000xf32>, %[[Y:[^:]*]]: tensor<1000xf32>
// CHECK-DAG:     %[[BYTES:.*]] = arith.constant 1.200000e+04 : f64
// CHECK-DAG:     %[[FLOPS:.*]] = arith.constant 2.000000e+03 : f64
// CHECK-DAG:     %[[E:.*]] = tensor.empty() : tensor<1000xf32>
// CHECK:         call @tdsl_cuda_set_work(%[[FLOPS]], %[[BYTES]]) : (f64, f64) -> ()
// CHECK-NEXT:    %[[R:.*]] = scf.forall (%[[B:.*]]) = (0) to (1000) step (256) shared_outs(%[[BO:.*]] = %[[E]]) -> (tensor<1000xf32>) {
// CHECK:           %[[N:.*]] = affine.min #{{.*}}(%[[B]])
// CHECK:           %[[XS:.*]] = tensor.extract_slice %[[X]][%[[B]]] [%[[N]]] [1]
// CHECK:           scf.forall (%[[T:.*]]) in (%[[N]]) shared_outs(
// CHECK:             %[[XT:.*]] = tensor.extract_slice %[[XS]][%[[T]]] [1] [1] : tensor<?xf32> to tensor<1xf32>
// CHECK:             linalg.generic {{.*}} ins(%[[XT]], %{{.*}} : tensor<1xf32>, tensor<1xf32>) outs(%{{.*}} : tensor<1xf32>)
// CHECK:               arith.mulf
// CHECK:               arith.addf
// CHECK:         return %[[R]]
// With 4 elements per thread (the default), blocks of 128 threads hold 512
// elements; each thread reads its 4 with masked vector reads before it
// writes any (masked in every block: the second block holds 488 elements,
// so a block's size is not known statically).
// OPT-LABEL:   func.func @saxpy(
// OPT:           scf.forall (%[[B:.*]]) = (0) to (1000) step (512)
// OPT:             %[[N:.*]] = affine.min #{{.*}}(%[[B]])
// OPT:             scf.forall (%[[T:.*]]) = (0) to (%[[N]]) step (4)
// OPT:               %[[K:.*]] = affine.min #{{.*}}(%[[T]])[%[[N]]]
// OPT:               %[[M:.*]] = vector.create_mask %[[K]] : vector<4xi1>
// OPT:               vector.mask %[[M]] { vector.transfer_read {{.*}} : tensor<?xf32>, vector<4xf32> }
// OPT:               vector.mask %[[M]] { vector.transfer_read {{.*}} : tensor<?xf32>, vector<4xf32> }
// OPT:               arith.mulf {{.*}} : vector<4xf32>
// OPT:               arith.addf {{.*}} : vector<4xf32>
// OPT:               vector.mask %[[M]] { vector.transfer_write {{.*}} : vector<4xf32>, tensor<?xf32> }
// NAME-LABEL:  func.func @saxpy(
#id = affine_map<(d0) -> (d0)>
func.func @saxpy(%x: tensor<1000xf32>, %y: tensor<1000xf32>, %a: f32) -> tensor<1000xf32> {
  %e = tensor.empty() : tensor<1000xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%x, %y : tensor<1000xf32>, tensor<1000xf32>) outs(%e : tensor<1000xf32>) {
  ^bb0(%xv: f32, %yv: f32, %o: f32):
    %m = arith.mulf %a, %xv : f32
    %s = arith.addf %m, %yv : f32
    linalg.yield %s : f32
  } -> tensor<1000xf32>
  return %r : tensor<1000xf32>
}

// -----

// Element-wise over contiguous elements: flattened to one loop of 1200, so
// narrow rows still fill blocks of 256 and the grid only uses x.
// CHECK-LABEL: func.func @flattened(
// CHECK:         call @tdsl_cuda_set_work
// CHECK:         %[[IN:.*]] = tensor.collapse_shape %arg0 {{\[}}[0, 1]] : tensor<30x40xf32> into tensor<1200xf32>
// CHECK:         %[[OUT:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0, 1]] : tensor<30x40xf32> into tensor<1200xf32>
// CHECK:         %[[R:.*]] = scf.forall (%{{.*}}) = (0) to (1200) step (256) shared_outs(%{{.*}} = %[[OUT]]) -> (tensor<1200xf32>)
// CHECK:           scf.forall (%{{.*}}) in (%{{.*}})
// CHECK:             linalg.generic {{.*}} iterator_types = ["parallel"]} ins(%{{.*}} : tensor<1xf32>)
// CHECK:         %[[BACK:.*]] = tensor.expand_shape %[[R]] {{\[}}[0, 1]] output_shape [30, 40] : tensor<1200xf32> into tensor<30x40xf32>
// CHECK:         return %[[BACK]]
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @flattened(%x: tensor<30x40xf32>) -> tensor<30x40xf32> {
  %e = tensor.empty() : tensor<30x40xf32>
  %r = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<30x40xf32>) outs(%e : tensor<30x40xf32>) {
  ^bb0(%xv: f32, %o: f32):
    %s = arith.addf %xv, %xv : f32
    linalg.yield %s : f32
  } -> tensor<30x40xf32>
  return %r : tensor<30x40xf32>
}

// -----

// A broadcast does not flatten: blocks of 256 along the inner loop (listed
// first: x) and one block per row (y); threads likewise.
// CHECK-LABEL: func.func @broadcast(
// CHECK:         call @tdsl_cuda_set_work
// CHECK:         scf.forall (%[[J:.*]], %[[I:.*]]) = (0, 0) to (1000, 6) step (256, 1)
// CHECK:           %[[N:.*]] = affine.min #{{.*}}(%[[J]])
// CHECK:           tensor.extract_slice %arg0[%[[I]], %[[J]]] [1, %[[N]]] [1, 1] : tensor<6x1000xf32> to tensor<1x?xf32>
// CHECK:           tensor.extract_slice %arg1[%[[J]]] [%[[N]]] [1] : tensor<1000xf32> to tensor<?xf32>
// CHECK:           scf.forall (%{{.*}}) in (%[[N]])
// CHECK:             linalg.generic {{.*}} outs(%{{.*}} : tensor<1x1xf32>)
// CHECK-NOT:     tensor.collapse_shape
#in = affine_map<(d0, d1) -> (d0, d1)>
#bc = affine_map<(d0, d1) -> (d1)>
func.func @broadcast(%x: tensor<6x1000xf32>, %b: tensor<1000xf32>) -> tensor<6x1000xf32> {
  %e = tensor.empty() : tensor<6x1000xf32>
  %r = linalg.generic {indexing_maps = [#in, #bc, #in], iterator_types = ["parallel", "parallel"]}
      ins(%x, %b : tensor<6x1000xf32>, tensor<1000xf32>) outs(%e : tensor<6x1000xf32>) {
  ^bb0(%xv: f32, %bv: f32, %o: f32):
    %s = arith.addf %xv, %bv : f32
    linalg.yield %s : f32
  } -> tensor<6x1000xf32>
  return %r : tensor<6x1000xf32>
}

// -----

// Parallel loops and a reduction, but neither a staged tile kernel (two
// outputs) nor a row reduction (two reduced outputs): 16 x 16 blocks of
// outputs (8 x 8 with tile=8), a thread per output running the whole
// reduction over k. Work: 40 x 50 x 8 x 3 ops.
// CHECK-LABEL: func.func @two_reductions(
// CHECK-DAG:     %[[BYTES:.*]] = arith.constant 1.888000e+04 : f64
// CHECK-DAG:     %[[FLOPS:.*]] = arith.constant 4.800000e+04 : f64
// CHECK:         call @tdsl_cuda_set_work(%[[FLOPS]], %[[BYTES]])
// CHECK:         scf.forall (%[[J:.*]], %[[I:.*]]) = (0, 0) to (50, 40) step (16, 16)
// CHECK:           scf.forall (%{{.*}}, %{{.*}}) in (%{{.*}}, %{{.*}})
// CHECK:             linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%{{.*}}, %{{.*}} : tensor<1x8xf32>, tensor<8x1xf32>) outs(%{{.*}}, %{{.*}} : tensor<1x1xf32>, tensor<1x1xf32>)
// OPT-LABEL:   func.func @two_reductions(
// OPT:           scf.forall (%{{.*}}, %{{.*}}) = (0, 0) to (50, 40) step (8, 8)
#x = affine_map<(i, j, k) -> (i, k)>
#y = affine_map<(i, j, k) -> (k, j)>
#o = affine_map<(i, j, k) -> (i, j)>
func.func @two_reductions(%a: tensor<40x8xf32>, %b: tensor<8x50xf32>, %s0: tensor<40x50xf32>, %m0: tensor<40x50xf32>) -> (tensor<40x50xf32>, tensor<40x50xf32>) {
  %r:2 = linalg.generic {indexing_maps = [#x, #y, #o, #o], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<40x8xf32>, tensor<8x50xf32>) outs(%s0, %m0 : tensor<40x50xf32>, tensor<40x50xf32>) {
  ^bb0(%av: f32, %bv: f32, %s: f32, %m: f32):
    %p = arith.mulf %av, %bv : f32
    %s1 = arith.addf %s, %p : f32
    %m1 = arith.maximumf %m, %p : f32
    linalg.yield %s1, %m1 : f32, f32
  } -> (tensor<40x50xf32>, tensor<40x50xf32>)
  return %r#0, %r#1 : tensor<40x50xf32>, tensor<40x50xf32>
}

// -----

// A matmul and a row sum are written as gpu.launch after bufferization:
// only their work is counted here (64 x 48 x 32 x 2 flops; 6 x 1000 adds),
// and their fills stay for those passes to fold.
// CHECK-LABEL: func.func @left_for_later(
// CHECK-DAG:     %[[MMFLOPS:.*]] = arith.constant 1.966080e+05 : f64
// CHECK-DAG:     %[[MMBYTES:.*]] = arith.constant 2.662400e+04 : f64
// CHECK-DAG:     %[[RFLOPS:.*]] = arith.constant 6.000000e+03 : f64
// CHECK-NOT:     scf.forall
// CHECK:         %[[F:.*]] = linalg.fill {{.*}} -> tensor<64x48xf32>
// CHECK-NEXT:    call @tdsl_cuda_set_work(%[[MMFLOPS]], %[[MMBYTES]])
// CHECK-NEXT:    linalg.matmul {{.*}} outs(%[[F]] : tensor<64x48xf32>)
// CHECK:         %[[RF:.*]] = linalg.fill {{.*}} -> tensor<6xf32>
// CHECK-NEXT:    call @tdsl_cuda_set_work(%[[RFLOPS]], %{{.*}})
// CHECK-NEXT:    linalg.generic {{.*}} outs(%[[RF]] : tensor<6xf32>)
// CHECK-NOT:     scf.forall
#in5 = affine_map<(i, j) -> (i, j)>
#out5 = affine_map<(i, j) -> (i)>
func.func @left_for_later(%a: tensor<64x32xf32>, %b: tensor<32x48xf32>, %x: tensor<6x1000xf32>) -> (tensor<64x48xf32>, tensor<6xf32>) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x48xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<64x48xf32>) -> tensor<64x48xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<64x32xf32>, tensor<32x48xf32>) outs(%f : tensor<64x48xf32>) -> tensor<64x48xf32>
  %e2 = tensor.empty() : tensor<6xf32>
  %f2 = linalg.fill ins(%z : f32) outs(%e2 : tensor<6xf32>) -> tensor<6xf32>
  %rs = linalg.generic {indexing_maps = [#in5, #out5], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<6x1000xf32>) outs(%f2 : tensor<6xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %acc, %v : f32
    linalg.yield %s : f32
  } -> tensor<6xf32>
  return %mm, %rs : tensor<64x48xf32>, tensor<6xf32>
}

// -----

// A fill that no tile absorbed is a kernel of its own, named "<fn>.fill"
// in the profile (work: no flops, 4000 bytes). A fill of an element-wise
// op's output is fused into the op's thread tiles instead.
// CHECK-LABEL: func.func @fills(
// CHECK-DAG:     %[[ZERO:.*]] = arith.constant 0.000000e+00 : f64
// CHECK-DAG:     %[[FBYTES:.*]] = arith.constant 4.000000e+03 : f64
// CHECK-DAG:     %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NOT:     linalg.fill
// CHECK:         scf.forall (%{{.*}}) = (0) to (1000) step (256)
// CHECK:           scf.forall
// CHECK:             %[[FT:.*]] = linalg.fill ins(%[[ONE]] : f32) outs(%{{.*}} : tensor<1xf32>) -> tensor<1xf32>
// CHECK:             linalg.generic {{.*}} outs(%[[FT]] : tensor<1xf32>)
// CHECK:         call @tdsl_cuda_set_work(%[[ZERO]], %[[FBYTES]])
// CHECK-NEXT:    scf.forall (%{{.*}}) = (0) to (1000) step (256)
// CHECK:           scf.forall
// CHECK:             linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1xf32>) -> tensor<1xf32>
// NAME-LABEL:  func.func @fills(
// NAME:          call @tdsl_cuda_set_work({{.*}}) : (f64, f64) -> () loc("fills.fill"({{.*}}))
// NAME-NEXT:     scf.forall
#id6 = affine_map<(d0) -> (d0)>
func.func @fills(%x: tensor<1000xf32>) -> (tensor<1000xf32>, tensor<1000xf32>) {
  %z = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<1000xf32>
  %f = linalg.fill ins(%one : f32) outs(%e : tensor<1000xf32>) -> tensor<1000xf32>
  %r = linalg.generic {indexing_maps = [#id6, #id6], iterator_types = ["parallel"]}
      ins(%x : tensor<1000xf32>) outs(%f : tensor<1000xf32>) {
  ^bb0(%xv: f32, %o: f32):
    %s = arith.addf %xv, %o : f32
    linalg.yield %s : f32
  } -> tensor<1000xf32>
  %e2 = tensor.empty() : tensor<1000xf32>
  %f2 = linalg.fill ins(%z : f32) outs(%e2 : tensor<1000xf32>) -> tensor<1000xf32>
  return %r, %f2 : tensor<1000xf32>, tensor<1000xf32>
}

// -----

// Left for the host, with no work call: a whole reduction (no parallel
// loop; tdsl-gpu-reduce may take it later), an op with 4 parallel loops
// that do not flatten (a grid has 3 dimensions), ops on buffers, and ops
// already inside an scf.forall. The work function is not even declared.
// CHECK-NOT:   tdsl_cuda_set_work
// CHECK-LABEL: func.func @host(
// CHECK-NOT:     tdsl_cuda_set_work
// CHECK:         linalg.generic {{.*}} iterator_types = ["reduction"]
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel"]
// CHECK:         linalg.generic {{.*}} outs(%{{.*}} : memref<1000xf32>)
// CHECK:         scf.forall (%{{.*}}) in (4) shared_outs
// CHECK-NEXT:      linalg.generic {{.*}} outs(%{{.*}} : tensor<1000xf32>)
// CHECK-NOT:     scf.forall (
// CHECK:         return
#r1 = affine_map<(i) -> (i)>
#r0 = affine_map<(i) -> ()>
#q = affine_map<(a, b, c, d) -> (a, b, c, d)>
#p = affine_map<(a, b, c, d) -> (d, c, b, a)>
func.func @host(%x: tensor<1000xf32>, %s: tensor<f32>, %t: tensor<2x3x4x5xf32>, %m: memref<1000xf32>) -> (tensor<f32>, tensor<5x4x3x2xf32>, tensor<1000xf32>) {
  %sum = linalg.generic {indexing_maps = [#r1, #r0], iterator_types = ["reduction"]}
      ins(%x : tensor<1000xf32>) outs(%s : tensor<f32>) {
  ^bb0(%v: f32, %acc: f32):
    %a = arith.addf %acc, %v : f32
    linalg.yield %a : f32
  } -> tensor<f32>
  %e = tensor.empty() : tensor<5x4x3x2xf32>
  %tr = linalg.generic {indexing_maps = [#q, #p], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%t : tensor<2x3x4x5xf32>) outs(%e : tensor<5x4x3x2xf32>) {
  ^bb0(%v: f32, %o: f32):
    linalg.yield %v : f32
  } -> tensor<5x4x3x2xf32>
  linalg.generic {indexing_maps = [#r1], iterator_types = ["parallel"]} outs(%m : memref<1000xf32>) {
  ^bb0(%o: f32):
    %d = arith.addf %o, %o : f32
    linalg.yield %d : f32
  }
  %fo = scf.forall (%i) in (4) shared_outs(%o = %x) -> (tensor<1000xf32>) {
    %in = linalg.generic {indexing_maps = [#r1, #r1], iterator_types = ["parallel"]}
        ins(%x : tensor<1000xf32>) outs(%o : tensor<1000xf32>) {
    ^bb0(%v: f32, %ov: f32):
      %d = arith.addf %v, %ov : f32
      linalg.yield %d : f32
    } -> tensor<1000xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %in into %o[0] [1000] [1] : tensor<1000xf32> into tensor<1000xf32>
    }
  }
  return %sum, %tr, %fo : tensor<f32>, tensor<5x4x3x2xf32>, tensor<1000xf32>
}
