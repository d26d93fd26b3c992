// TDSLEnums.td - enums of the tdsl dialect and their attribute wrappers.
#ifndef TDSL_ENUMS_TD
#define TDSL_ENUMS_TD

include "mlir/IR/EnumAttr.td"
include "dialects/TDSL/IR/TDSLDialect.td"

def TDSL_IteratorType : I32Enum<"IteratorType", "index_gen iterator kind", [
    I32EnumCase<"parallel", 0>,
    I32EnumCase<"reduction", 1>]> {
  let cppNamespace = "::tdsl::ir";
}

def TDSL_CombinerKind : I32Enum<"CombinerKind",
    "how index_gen folds values along reduction iterators", [
    I32EnumCase<"none", 0>,
    I32EnumCase<"sum", 1>,
    I32EnumCase<"max", 2>,
    I32EnumCase<"min", 3>]> {
  let cppNamespace = "::tdsl::ir";
}

def TDSL_ReduceKind : I32Enum<"ReduceKind",
    "how parallel_for combines its iterations", [
    I32EnumCase<"none", 0>,
    I32EnumCase<"add", 1>,
    I32EnumCase<"mul", 2>,
    I32EnumCase<"max", 3>,
    I32EnumCase<"min", 4>]> {
  let cppNamespace = "::tdsl::ir";
}

// Used as bare keywords in op syntax (`tdsl.cmp lt, ...`), so these two are
// IntegerAttr-backed like arith's predicates: ODS prints them without `#`.
def TDSL_CmpPredicateAttr : I32EnumAttr<"CmpPredicate", "comparison predicate", [
    I32EnumAttrCase<"eq", 0>,
    I32EnumAttrCase<"ne", 1>,
    I32EnumAttrCase<"lt", 2>,
    I32EnumAttrCase<"le", 3>,
    I32EnumAttrCase<"gt", 4>,
    I32EnumAttrCase<"ge", 5>]> {
  let cppNamespace = "::tdsl::ir";
}

def TDSL_DistributionAttr : I32EnumAttr<"Distribution", "RNG distribution", [
    I32EnumAttrCase<"uniform", 0>,   // [0, 1)
    I32EnumAttrCase<"normal", 1>]> { // mean 0, stddev 1
  let cppNamespace = "::tdsl::ir";
}

// Dialect attributes with the bracketed `#tdsl.iterator<parallel>` form, for
// use inside attribute dictionaries and arrays.
def TDSL_IteratorTypeAttr : EnumAttr<TDSL_Dialect, TDSL_IteratorType,
                                     "iterator"> {
  let assemblyFormat = "`<` $value `>`";
}
def TDSL_IteratorTypeArrayAttr
    : TypedArrayAttrBase<TDSL_IteratorTypeAttr, "array of iterator types">;

def TDSL_CombinerKindAttr : EnumAttr<TDSL_Dialect, TDSL_CombinerKind,
                                     "combiner"> {
  let assemblyFormat = "`<` $value `>`";
}
def TDSL_ReduceKindAttr : EnumAttr<TDSL_Dialect, TDSL_ReduceKind, "reduce"> {
  let assemblyFormat = "`<` $value `>`";
}

#endif // TDSL_ENUMS_TD
