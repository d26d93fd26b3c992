//===- GPUWrapBitcode.cpp - A size header on embedded kernel bitcode -------===//
#include "compiler/Codegen/GPU/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace tdsl {
#define GEN_PASS_DEF_GPUWRAPBITCODE
#include "compiler/Codegen/GPU/Passes.h.inc"
} // namespace tdsl

using namespace mlir;

namespace {
struct GPUWrapBitcodePass : tdsl::impl::GPUWrapBitcodeBase<GPUWrapBitcodePass> {
  void runOnOperation() override {
    getOperation().walk([&](gpu::BinaryOp binary) {
      SmallVector<Attribute> objects;
      for (Attribute a : binary.getObjects()) {
        auto object = cast<gpu::ObjectAttr>(a);
        StringRef bitcode = object.getObject().getValue();
        if (object.getFormat() != gpu::CompilationTarget::Offload ||
            !bitcode.starts_with("BC")) {
          objects.push_back(a);
          continue;
        }
        // Little-endian 32-bit words: magic, version, offset, size, cputype.
        uint32_t header[5] = {0x0B17C0DEu, 0, 20, uint32_t(bitcode.size()), 0};
        std::string wrapped(reinterpret_cast<const char *>(header), sizeof header);
        wrapped += bitcode;
        objects.push_back(gpu::ObjectAttr::get(
            &getContext(), object.getTarget(), object.getFormat(),
            StringAttr::get(&getContext(), wrapped), object.getProperties(),
            object.getKernels()));
      }
      binary.setObjectsAttr(ArrayAttr::get(&getContext(), objects));
    });
  }
};
} // namespace
