//===- TileConfig.cpp - A contraction's own tile sizes (from the tuner) ----===//
#include "compiler/Codegen/CPU/TileConfig.h"

#include "mlir/IR/BuiltinAttributes.h"

#include "llvm/Support/raw_ostream.h"

using namespace mlir;

std::optional<tdsl::TileConfig> tdsl::getTileConfig(Operation *op) {
  auto dict = op->getAttrOfType<DictionaryAttr>(kTileConfigAttr);
  if (!dict)
    return std::nullopt;
  auto tile = dict.getAs<IntegerAttr>("tile");
  auto rows = dict.getAs<IntegerAttr>("rows");
  if (!tile || !rows || tile.getInt() <= 0 || rows.getInt() <= 0)
    return std::nullopt;
  return TileConfig{tile.getInt(), rows.getInt()};
}

void tdsl::setTileConfig(Operation *op, TileConfig config) {
  Builder b(op->getContext());
  op->setAttr(kTileConfigAttr,
              b.getDictionaryAttr({b.getNamedAttr("tile", b.getI64IntegerAttr(config.tile)),
                                   b.getNamedAttr("rows", b.getI64IntegerAttr(config.rows))}));
}

bool tdsl::isTunableContraction(linalg::LinalgOp op) {
  if (!op.hasPureTensorSemantics() || op->hasAttr("tdsl.blocked_reduction") ||
      op.hasDynamicShape())
    return false;
  unsigned parallel = op.getNumParallelLoops();
  if (parallel < 2 || op.getNumReductionLoops() == 0)
    return false;
  // f32 and f64 only: the tuner's timing function returns the result's
  // element type as a C float or double.
  return llvm::all_of(op->getOperandTypes(), [](Type t) {
    auto tensor = dyn_cast<RankedTensorType>(t);
    return tensor && isa<Float32Type, Float64Type>(tensor.getElementType());
  });
}

std::string tdsl::contractionKey(linalg::LinalgOp op) {
  std::string key;
  llvm::raw_string_ostream os(key);
  os << op->getName() << " [";
  llvm::interleaveComma(op.getStaticLoopRanges(), os);
  os << "] [";
  llvm::interleaveComma(op.getIteratorTypesArray(), os, [&](utils::IteratorType t) {
    os << (t == utils::IteratorType::parallel ? "p" : "r");
  });
  os << "] " << op.getIndexingMaps() << " ";
  llvm::interleaveComma(op->getOperandTypes(), os,
                        [&](Type t) { os << getElementTypeOrSelf(t); });
  return key;
}

std::pair<unsigned, unsigned> tdsl::contractionTileLoops(linalg::LinalgOp op) {
  SmallVector<unsigned> parallel;
  op.getParallelDims(parallel);
  unsigned cols = parallel.back();
  for (OpOperand *in : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(in);
    if (!map.isFunctionOfDim(cols))
      continue;
    for (unsigned k = parallel.size() - 1; k-- > 0;)
      if (!map.isFunctionOfDim(parallel[k]))
        return {parallel[k], cols};
  }
  return {parallel[parallel.size() - 2], cols};
}
