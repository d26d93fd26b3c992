//===- MergeExclusiveAllocs.cpp - one buffer for exclusive versions --------===//
#include "compiler/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace tdsl {
#define GEN_PASS_DEF_MERGEEXCLUSIVEALLOCS
#include "compiler/Codegen/CPU/Passes.h.inc"
} // namespace tdsl

using namespace mlir;

namespace {

/// Whether every use of `alloc` but `except` is inside `region`.
bool onlyUsedIn(memref::AllocOp alloc, Operation *except, Region &region) {
  return llvm::all_of(alloc->getUsers(), [&](Operation *user) {
    return user == except || region.isAncestor(user->getParentRegion());
  });
}

/// Allocations of one type and sizes, in one block.
bool alike(memref::AllocOp a, memref::AllocOp b) {
  return a && b && a != b && a->getBlock() == b->getBlock() &&
         a.getType() == b.getType() && a->getOperands() == b->getOperands() &&
         a->getAttrDictionary() == b->getAttrDictionary();
}

/// Replaces the later of two allocations by the earlier.
void merge(memref::AllocOp a, memref::AllocOp b) {
  if (b->isBeforeInBlock(a))
    std::swap(a, b);
  b.getResult().replaceAllUsesWith(a.getResult());
  b.erase();
}

struct MergeExclusiveAllocsPass
    : tdsl::impl::MergeExclusiveAllocsBase<MergeExclusiveAllocsPass> {
  void runOnOperation() override {
    SmallVector<scf::IfOp> ifs;
    getOperation().walk([&](scf::IfOp op) {
      if (!op.getElseRegion().empty())
        ifs.push_back(op);
    });
    for (scf::IfOp op : ifs) {
      Region &thenRegion = op.getThenRegion(), &elseRegion = op.getElseRegion();
      // The branches yield them (right after bufferization)...
      for (auto [t, e] : llvm::zip(op.thenYield().getOperands(),
                                   op.elseYield().getOperands())) {
        auto a = t.getDefiningOp<memref::AllocOp>();
        auto b = e.getDefiningOp<memref::AllocOp>();
        if (alike(a, b) && onlyUsedIn(a, nullptr, thenRegion) &&
            onlyUsedIn(b, nullptr, elseRegion))
          merge(a, b);
      }
      // ... or a select on the condition picks one (after canonicalization).
      for (Operation *user : llvm::to_vector(op.getCondition().getUsers())) {
        auto select = dyn_cast<arith::SelectOp>(user);
        if (!select || select.getCondition() != op.getCondition())
          continue;
        auto a = select.getTrueValue().getDefiningOp<memref::AllocOp>();
        auto b = select.getFalseValue().getDefiningOp<memref::AllocOp>();
        if (alike(a, b) && onlyUsedIn(a, select, thenRegion) &&
            onlyUsedIn(b, select, elseRegion))
          merge(a, b);
      }
    }
  }
};

} // namespace
