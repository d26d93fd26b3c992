//===- LocateAllocs.cpp - large buffers tell the runtime where they come from -===//
#include "compiler/Codegen/LoweringUtils.h"
#include "compiler/Codegen/Passes.h"
#include "compiler/Codegen/RuntimeCalls.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace tdsl {
#define GEN_PASS_DEF_LOCATEALLOCS
#include "compiler/Codegen/Passes.h.inc"
} // namespace tdsl

using namespace mlir;

/// Buffers smaller than this cannot plausibly exhaust memory; leaving them
/// alone keeps small allocations in hot loops free of the extra call.
static constexpr int64_t kMinLocatedBytes = 1 << 20;

bool tdsl::mayExhaustMemory(MemRefType type) {
  if (!type.hasStaticShape())
    return true;
  Type elem = type.getElementType();
  unsigned bits = elem.isIntOrFloat() ? elem.getIntOrFloatBitWidth() : 64; // index
  return type.getNumElements() * std::max(bits / 8, 1u) >= kMinLocatedBytes;
}

namespace {

struct LocateAllocsPass : ::tdsl::impl::LocateAllocsBase<LocateAllocsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<memref::AllocOp> allocs;
    module.walk([&](memref::AllocOp alloc) {
      if (::tdsl::mayExhaustMemory(alloc.getType()) &&
          ::tdsl::RuntimeCalls::whereOf(alloc.getLoc()) != "<unknown>")
        allocs.push_back(alloc);
    });
    ::tdsl::RuntimeCalls rt(module);
    OpBuilder b(&getContext());
    for (memref::AllocOp alloc : allocs) {
      b.setInsertionPoint(alloc);
      rt.call(b, alloc.getLoc(), "tdsl_alloc_site", {},
              {rt.getErrorWhere(b, alloc.getLoc())});
    }
  }
};
} // namespace
