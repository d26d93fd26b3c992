// TDSLDialect.h - the tdsl dialect class, its enums and enum attributes.
#ifndef TDSL_DIALECT_TDSL_IR_TDSLDIALECT_H
#define TDSL_DIALECT_TDSL_IR_TDSLDIALECT_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"

#include "dialects/TDSL/IR/TDSLDialect.h.inc"

#include "dialects/TDSL/IR/TDSLEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/TDSL/IR/TDSLAttrs.h.inc"

#endif // TDSL_DIALECT_TDSL_IR_TDSLDIALECT_H
