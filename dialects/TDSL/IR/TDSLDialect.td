// TDSLDialect.td - tdsl dialect definition, shared type constraints, op base.
#ifndef TDSL_DIALECT_TD
#define TDSL_DIALECT_TD

include "mlir/IR/OpBase.td"

def TDSL_Dialect : Dialect {
  let name = "tdsl";
  let cppNamespace = "::tdsl::ir";
  let summary = "High-level value-semantics tensor ops of the TDSL language";
  let description = [{
    The tdsl dialect models TDSL programs right after the front end: numpy
    style broadcasting elementwise ops, matmul, the index-notation generic op
    `tdsl.index_gen`, the `tdsl.parallel_for` comprehension, RNG, and I/O.
    Values are builtin scalars (int/float/index) or builtin ranked tensors.
  }];
  // Enum attributes (#tdsl.iterator<...>, #tdsl.combiner<...>) live here.
  let useDefaultAttributePrinterParser = 1;
  // tdsl.constant folds need the dialect to rebuild constants.
  let hasConstantMaterializer = 1;
}

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

// Element types TDSL values may carry (any signedness for ints, e.g. ui64).
def TDSL_Scalar : AnyTypeOf<[AnyInteger, AnyFloat, Index], "scalar">;
def TDSL_Tensor : RankedTensorOf<[AnyInteger, AnyFloat, Index]>;
def TDSL_ScalarOrTensor : AnyTypeOf<[TDSL_Scalar, TDSL_Tensor],
                                    "scalar or ranked tensor">;

def TDSL_FloatLike : AnyTypeOf<[AnyFloat, RankedTensorOf<[AnyFloat]>],
                               "float or ranked tensor of floats">;
def TDSL_IntLike : AnyTypeOf<[AnyInteger, RankedTensorOf<[AnyInteger]>],
                             "integer or ranked tensor of integers">;
def TDSL_BoolLike : AnyTypeOf<[I1, RankedTensorOf<[I1]>],
                              "i1 or ranked tensor of i1">;

class TDSL_Op<string mnemonic, list<Trait> traits = []>
    : Op<TDSL_Dialect, mnemonic, traits>;

#endif // TDSL_DIALECT_TD
