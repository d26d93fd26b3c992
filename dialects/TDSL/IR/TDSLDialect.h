// TDSLDialect.h - the tdsl dialect class, its enums and enum attributes.
#ifndef TDSL_DIALECT_TDSL_IR_TDSLDIALECT_H
#define TDSL_DIALECT_TDSL_IR_TDSLDIALECT_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"

#include "dialects/TDSL/IR/TDSLDialect.h.inc"

#include "dialects/TDSL/IR/TDSLEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/TDSL/IR/TDSLAttrs.h.inc"

namespace tdsl {
/// Marks an scf.if that computes `c ? a : b` lazily (only the chosen
/// side): where neither side can fail, it may become a select.
inline constexpr llvm::StringLiteral kLazySelectAttr = "tdsl.lazy_select";
/// Marks a tdsl.random_tensor that initializes a model's field: it runs
/// once, and the CPU fills it through the runtime instead of compiling it.
inline constexpr llvm::StringLiteral kModelInitAttr = "tdsl.model_init";
} // namespace tdsl

#endif // TDSL_DIALECT_TDSL_IR_TDSLDIALECT_H
