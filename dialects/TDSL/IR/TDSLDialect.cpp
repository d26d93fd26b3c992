// TDSLDialect.cpp - tdsl dialect registration, attributes, constant folding.
#include "dialects/TDSL/IR/TDSLDialect.h"

#include "dialects/TDSL/IR/TDSLOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Transforms/InliningUtils.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace tdsl::ir;

#include "dialects/TDSL/IR/TDSLDialect.cpp.inc"

#include "dialects/TDSL/IR/TDSLEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/TDSL/IR/TDSLAttrs.cpp.inc"

namespace {
/// Every tdsl op may be inlined: ops are values without side effects on
/// anything but the runtime (print, load, save), and the region ops
/// (index_gen, parallel_for) end in their own tdsl.yield, not in a
/// function's return.
struct TDSLInlinerInterface : DialectInlinerInterface {
  using DialectInlinerInterface::DialectInlinerInterface;
  bool isLegalToInline(Operation *, Operation *, bool) const final {
    return true;
  }
  bool isLegalToInline(Operation *, Region *, bool, IRMapping &) const final {
    return true;
  }
  bool isLegalToInline(Region *, Region *, bool, IRMapping &) const final {
    return true;
  }
};
} // namespace

void TDSLDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialects/TDSL/IR/TDSLAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "dialects/TDSL/IR/TDSLOps.cpp.inc"
      >();
  addInterfaces<TDSLInlinerInterface>();
}

Operation *TDSLDialect::materializeConstant(OpBuilder &builder,
                                            Attribute value, Type type,
                                            Location loc) {
  auto typed = dyn_cast<TypedAttr>(value);
  if (!typed || typed.getType() != type)
    return nullptr;
  if (!isa<IntegerAttr, FloatAttr, DenseElementsAttr>(typed))
    return nullptr;
  return ConstantOp::create(builder, loc, typed);
}
