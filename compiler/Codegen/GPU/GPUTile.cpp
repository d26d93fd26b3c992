//===- GPUTile.cpp - linalg ops -> scf.forall over GPU blocks and threads ---===//
#include "compiler/Codegen/GPU/GPUKernelForms.h"
#include "compiler/Codegen/Common/KernelInfo.h"
#include "compiler/Codegen/GPU/Passes.h"
#include "compiler/Codegen/Common/RuntimeCalls.h"
#include "compiler/Codegen/Common/TilingUtils.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace tdsl {
#define GEN_PASS_DEF_GPUTILE
#include "compiler/Codegen/GPU/Passes.h.inc"
} // namespace tdsl

using namespace mlir;

namespace {

struct GPUTilePass : tdsl::impl::GPUTileBase<GPUTilePass> {
  using Base::Base;

  /// Tiles `op` into an scf.forall; returns the tiled op inside, or null.
  /// gpu-map-parallel-loops maps a loop's first dimension to x: the
  /// innermost loop is listed first, so consecutive threads (and blocks)
  /// touch consecutive elements (coalesced accesses).
  Operation *tileOp(IRRewriter &rw, Operation *op, ArrayRef<int64_t> sizes) {
    SmallVector<int64_t> interchange;
    for (int64_t i = sizes.size() - 1; i >= 0; --i)
      interchange.push_back(i);
    auto tiled = tdsl::tileToForallFusingFills(rw, op, sizes, interchange);
    return succeeded(tiled) ? tiled->first : nullptr;
  }

  /// When one block would hold the whole op (255 elements, blocks of 256),
  /// two blocks instead: canonicalization folds a loop of blocks that runs
  /// once, and gpu-map-parallel-loops then maps the loop of threads to
  /// blocks (255 blocks of one thread each).
  static void splitSingleBlock(linalg::LinalgOp op,
                               MutableArrayRef<int64_t> blockSizes) {
    SmallVector<int64_t> extents = op.getStaticLoopRanges();
    int64_t inner = -1;
    for (auto [loop, size] : llvm::enumerate(blockSizes)) {
      if (size == 0)
        continue;
      if (ShapedType::isDynamic(extents[loop]) || extents[loop] > size)
        return; // more than one block already (or not known)
      inner = loop;
    }
    // blockSizes lists the innermost tiled loop last.
    if (inner >= 0 && extents[inner] > 1)
      blockSizes[inner] = (extents[inner] + 1) / 2;
  }

  /// `op` (a fill, or a linalg.generic whose operands are all indexed by its
  /// loops in order) over one loop, between tensor reshapes; or none.
  std::optional<linalg::LinalgOp> collapseAll(IRRewriter &rw, linalg::LinalgOp op) {
    // Static shapes only: MLIR 22's expand-strided-metadata crashes on the
    // reshape of a buffer with dynamic sizes back to its shape.
    if (!op.hasPureTensorSemantics() || op.hasDynamicShape())
      return std::nullopt;
    if (auto fill = dyn_cast<linalg::FillOp>(op.getOperation())) {
      // A fill of the flattened tensor.
      auto type = cast<RankedTensorType>(fill.getResult(0).getType());
      ReassociationIndices all;
      for (unsigned d = 0; d < type.getRank(); ++d)
        all.push_back(d);
      rw.setInsertionPoint(fill);
      Location loc = fill.getLoc();
      Value flatInit = tensor::CollapseShapeOp::create(rw, loc, fill.getDpsInits()[0],
                                                       ArrayRef<ReassociationIndices>{all});
      auto flat = linalg::FillOp::create(rw, loc, fill.getDpsInputs()[0], flatInit);
      Value back = tensor::ExpandShapeOp::create(
          rw, loc, type, flat.getResult(0), ArrayRef<ReassociationIndices>{all},
          tensor::getMixedSizes(rw, loc, fill.getDpsInits()[0]));
      rw.replaceOp(fill, back);
      return cast<linalg::LinalgOp>(flat.getOperation());
    }
    // Every operand indexed by all the loops in order (or a scalar): a
    // constant subscript, a broadcast or a transpose does not flatten.
    if (!isa<linalg::GenericOp>(op) ||
        !llvm::all_of(op.getIndexingMapsArray(), [](AffineMap m) {
          return m.isIdentity() || m.getNumResults() == 0;
        }))
      return std::nullopt;
    ReassociationIndices all;
    for (unsigned d = 0; d < op.getNumLoops(); ++d)
      all.push_back(d);
    if (!linalg::areDimSequencesPreserved(op.getIndexingMapsArray(), {all}))
      return std::nullopt;
    rw.setInsertionPoint(op);
    FailureOr<linalg::CollapseResult> collapsed =
        linalg::collapseOpIterationDims(op, {all}, rw);
    if (failed(collapsed))
      return std::nullopt;
    rw.replaceOp(op, collapsed->results);
    return collapsed->collapsedOp;
  }

  // A module pass: it declares a runtime function in the module, which
  // functions processed in parallel would race on.
  void runOnOperation() override {
    if (failed(rejectDeviceRecursion()))
      return signalPassFailure();
    for (auto fn : llvm::to_vector(getOperation().getOps<func::FuncOp>()))
      if (!fn.isExternal())
        tileFunction(fn);
  }

  /// After inlining, a call of a function defined in the module is a call
  /// of a recursive one. In a loop that becomes a kernel, that function would
  /// run on the device with its checks and buffers, which only kernel bodies
  /// get lowered for: an error at the call instead of an internal one later.
  LogicalResult rejectDeviceRecursion() {
    ModuleOp module = getOperation();
    LogicalResult result = success();
    module.walk([&](func::CallOp call) {
      auto callee = module.lookupSymbol<func::FuncOp>(call.getCallee());
      if (!callee || callee.isExternal() ||
          (!call->getParentOfType<linalg::LinalgOp>() &&
           !call->getParentOfType<scf::ForallOp>()))
        return;
      call.emitError() << "the recursive function '" << call.getCallee()
                       << "' cannot be called inside a parallel loop on the "
                          "GPU; call it outside the loop, or compile for the "
                          "CPU (--target=cpu)";
      result = failure();
    });
    return result;
  }

  void tileFunction(func::FuncOp fn) {
    MLIRContext *ctx = &getContext();
    SmallVector<linalg::LinalgOp> candidates;
    fn.walk([&](linalg::LinalgOp op) {
      if (op.hasPureTensorSemantics() && !op->getParentOfType<scf::ForallOp>() &&
          !isa<linalg::FillOp>(op))
        candidates.push_back(op);
    });
    IRRewriter rw(ctx);
    tdsl::RuntimeCalls rt(fn->getParentOfType<ModuleOp>());
    tileOps(rw, rt, candidates);
    // Fills that no tile absorbed: a kernel of their own, unless their one
    // user is written as gpu.launch later, which starts from the value.
    SmallVector<linalg::LinalgOp> fills;
    fn.walk([&](linalg::FillOp fill) {
      if (!fill.hasPureTensorSemantics() || fill->getParentOfType<scf::ForallOp>() ||
          fill->use_empty())
        return;
      if (fill->hasOneUse()) {
        auto user = dyn_cast<linalg::LinalgOp>(*fill->user_begin());
        if (user && (tdsl::isStagedTileKernel(user) || tdsl::isRowReduction(user)))
          return;
      }
      fill->setLoc(tdsl::kernelLoc(fill, "fill")); // its kernel's name
      fills.push_back(fill);
    });
    tileOps(rw, rt, fills);
  }

  void tileOps(IRRewriter &rw, tdsl::RuntimeCalls &rt,
               ArrayRef<linalg::LinalgOp> candidates) {
    for (linalg::LinalgOp op : llvm::reverse(candidates)) {
      if (!op->getBlock())
        continue;
      SmallVector<utils::IteratorType> iters = op.getIteratorTypesArray();
      SmallVector<unsigned> parallel;
      for (unsigned i = 0; i < iters.size(); ++i)
        if (iters[i] == utils::IteratorType::parallel)
          parallel.push_back(i);
      if (parallel.empty())
        continue; // runs on the host
      // Block tiles over (up to) the two innermost parallel loops; x is the
      // innermost, so consecutive threads touch consecutive elements.
      unsigned used = std::min<size_t>(2, parallel.size());
      bool contraction = parallel.size() != iters.size() && used == 2;
      SmallVector<int64_t> blockSizes(iters.size(), 0), threadSizes(iters.size(), 0);
      for (unsigned k = 0; k < parallel.size(); ++k) {
        unsigned loop = parallel[parallel.size() - 1 - k];
        if (k < used) {
          blockSizes[loop] = contraction ? tile : (k == 0 ? blockSize : 1);
          threadSizes[loop] = 1;
        } else {
          blockSizes[loop] = 1; // outer parallel loops: one block each
          threadSizes[loop] = 0;
        }
      }
      // An element-wise op gives each thread `perThread` consecutive
      // elements of its innermost loop, read together (below).
      bool elementwise = parallel.size() == iters.size() && vectorizable(op);
      int64_t perThread = elementwise ? std::max<int64_t>(1, elementsPerThread) : 1;
      if (elementwise) {
        blockSizes[parallel.back()] *= perThread;
        threadSizes[parallel.back()] = perThread;
      }
      // Written as gpu.launch after bufferization (GPUKernelForms.h).
      bool later = tdsl::isStagedTileKernel(op) || tdsl::isRowReduction(op);
      // A grid has 3 dimensions: more parallel loops stay on the host.
      if (!later &&
          llvm::count_if(blockSizes, [](int64_t s) { return s != 0; }) > 3)
        continue;
      // The runtime credits this work to the next launch: this op's kernel.
      rw.setInsertionPoint(op);
      auto [flops, bytes] = tdsl::buildKernelWork(rw, op.getLoc(), op);
      rt.call(rw, op.getLoc(), tdsl::RuntimeFn::tdsl_cuda_set_work, {flops, bytes});
      if (later)
        continue;
      // An element-wise op over contiguous elements is one loop: blocks of
      // blockSize threads however narrow its rows, and no grid dimension
      // other than x (CUDA allows 65535 blocks along y and z).
      if (parallel.size() == iters.size() && iters.size() > 1) {
        if (auto flat = collapseAll(rw, op)) {
          op = *flat;
          blockSizes.assign(1, blockSize * perThread);
          threadSizes.assign(1, perThread);
        }
      }
      splitSingleBlock(op, blockSizes);
      Operation *inner = tileOp(rw, op, blockSizes);
      if (!inner)
        continue;
      Operation *thread = tileOp(rw, inner, threadSizes);
      if (thread && perThread > 1)
        vectorizeThread(rw, cast<linalg::LinalgOp>(thread), threadSizes);
    }
  }

  /// Whether a thread's elements of `op` can be one vector op: not an op
  /// on booleans (LLVM stores a vector of i1 as packed bits, where memory
  /// holds a byte per element: fuzz seed 50218 on an H200), nor a body with
  /// loops or calls, which the vectorizer does not take (4 elements of a
  /// thread in a loop would only cost parallelism).
  static bool vectorizable(linalg::LinalgOp op) {
    for (OpOperand &operand : op->getOpOperands()) {
      Type elem = getElementTypeOrSelf(operand.get().getType());
      if (!elem.isIntOrFloat() || elem.getIntOrFloatBitWidth() % 8 != 0)
        return false;
    }
    for (Operation &inner : op.getBlock()->getOperations())
      if (inner.getNumRegions() > 0 || isa<func::CallOp>(inner))
        return false;
    return true;
  }

  /// A thread's elements as one vector op: its loads are all issued before
  /// the first store, so `perThread` of them are in flight at once (the
  /// scalar loop would wait for each load before storing, as the output may
  /// alias an input). A partial tile at the end of a row gets a mask. What
  /// the vectorizer still refuses stays a loop.
  static void vectorizeThread(IRRewriter &rw, linalg::LinalgOp op,
                              ArrayRef<int64_t> threadSizes) {
    SmallVector<int64_t> sizes;
    for (int64_t s : threadSizes)
      sizes.push_back(std::max<int64_t>(s, 1));
    SmallVector<bool> scalable(sizes.size(), false);
    if (sizes.size() != op.getNumLoops() ||
        failed(linalg::vectorizeOpPrecondition(op, sizes, scalable)))
      return;
    rw.setInsertionPoint(op);
    auto vec = linalg::vectorize(rw, op, sizes, scalable);
    if (failed(vec))
      return;
    if (!vec->replacements.empty())
      rw.replaceOp(op, vec->replacements);
    else
      rw.eraseOp(op);
  }
};

} // namespace
