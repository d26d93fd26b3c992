//===- ApplyTuning.cpp - Tile sizes of contractions from the tuner's cache -===//
//
// `tdslc --tune=SECONDS` times each contraction of a program with several
// tile sizes and keeps the fastest in a cache file, per machine. Every
// later compile on that machine gives each contraction found in the cache
// its sizes, as a `tdsl.tile` attribute that tdsl-tile-to-forall and
// tdsl-vectorize read in place of their options.
//
//===----------------------------------------------------------------------===//
#include "compiler/Codegen/CPU/Passes.h"
#include "compiler/Codegen/CPU/TileConfig.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

namespace tdsl {
#define GEN_PASS_DEF_APPLYTUNING
#include "compiler/Codegen/CPU/Passes.h.inc"
} // namespace tdsl

using namespace mlir;

namespace {
struct ApplyTuningPass : tdsl::impl::ApplyTuningBase<ApplyTuningPass> {
  using Base::Base;

  void runOnOperation() override {
    if (cache.empty())
      return;
    auto buffer = llvm::MemoryBuffer::getFile(cache);
    if (!buffer)
      return; // nothing tuned yet
    llvm::Expected<llvm::json::Value> json = llvm::json::parse((*buffer)->getBuffer());
    const llvm::json::Object *kernels = nullptr;
    if (json)
      if (const llvm::json::Object *root = json->getAsObject())
        if (const llvm::json::Object *machines = root->getObject("machines"))
          kernels = machines->getObject(machine);
    if (!json) {
      getOperation().emitWarning("ignoring the tuning cache ")
          << cache << ": " << llvm::toString(json.takeError());
      return;
    }
    if (!kernels)
      return;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (!tdsl::isTunableContraction(op) || tdsl::getTileConfig(op))
        return;
      const llvm::json::Object *entry = kernels->getObject(tdsl::contractionKey(op));
      if (!entry)
        return;
      std::optional<int64_t> tile = entry->getInteger("tile");
      std::optional<int64_t> rows = entry->getInteger("rows");
      if (tile && rows && *tile > 0 && *rows > 0)
        tdsl::setTileConfig(op, {*tile, *rows});
    });
  }
};
} // namespace
