// TDSLOps.td - operations of the tdsl dialect.
#ifndef TDSL_OPS_TD
#define TDSL_OPS_TD

include "dialects/TDSL/IR/TDSLDialect.td"
include "dialects/TDSL/IR/TDSLEnums.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

def TDSL_ConstantOp : TDSL_Op<"constant",
    [ConstantLike, Pure, AllTypesMatch<["value", "result"]>]> {
  let summary = "scalar or tensor constant";
  let description = [{
    Materializes `value`: a FloatAttr/IntegerAttr for scalars, a
    DenseElementsAttr for (statically shaped) tensors. The result type is the
    attribute's type.

    ```mlir
    %c = tdsl.constant dense<[1.0, 2.0]> : tensor<2xf32>
    %s = tdsl.constant 1.5 : f32
    ```
  }];
  let arguments = (ins TypedAttrInterface:$value);
  let results = (outs TDSL_ScalarOrTensor:$result);
  let assemblyFormat = "attr-dict $value";
  let hasFolder = 1;
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Elementwise binary ops (numpy broadcasting)
//===----------------------------------------------------------------------===//

class TDSL_BinaryOp<string mnemonic, string what,
                    Type valueType = TDSL_ScalarOrTensor,
                    list<Trait> traits = []>
    : TDSL_Op<mnemonic, !listconcat([Pure], traits)> {
  let summary = "elementwise " # what # " with numpy broadcasting";
  let description = "Elementwise " # what # [{. Operands are scalars or
    ranked tensors with the same element type; shapes broadcast numpy style
    (trailing dims aligned, a dim of 1 or a scalar stretches) to the result.

    ```mlir
    %r = tdsl.}] # mnemonic # [{ %a, %b : tensor<4x3xf32>, tensor<3xf32> -> tensor<4x3xf32>
    ```
  }];
  let arguments = (ins valueType:$lhs, valueType:$rhs);
  let results = (outs valueType:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)
  }];
  // The result type inferred: the operands' element type, the broadcast of
  // their shapes (for code that builds ops, such as differentiation; the
  // front end gives its own, sometimes more static, type).
  let builders = [
    OpBuilder<(ins "::mlir::Value":$lhs, "::mlir::Value":$rhs), [{
      build($_builder, $_state, inferBroadcastResult(lhs, rhs), lhs, rhs);
    }]>
  ];
  let hasVerifier = 1;
  // A fill operand becomes its scalar (broadcast the same way).
  let hasCanonicalizer = 1;
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::verify() {
      return verifyBroadcastingElementwise(*this);
    }
    void $cppClass::getCanonicalizationPatterns(
        ::mlir::RewritePatternSet &results, ::mlir::MLIRContext *context) {
      results.add<FillOperandToScalar<$cppClass>>(context);
    }
  }];
}

// Folds: x + 0, x - 0, x * 1, x / 1 (0 is -0.0 for a float sum: -0.0 + +0.0
// is +0.0), when x already has the result's type.
def TDSL_AddOp : TDSL_BinaryOp<"add", "addition", TDSL_ScalarOrTensor, [Commutative]> {
  let hasFolder = 1;
}
def TDSL_SubOp : TDSL_BinaryOp<"sub", "subtraction"> {
  let hasFolder = 1;
}
def TDSL_MulOp : TDSL_BinaryOp<"mul", "multiplication", TDSL_ScalarOrTensor, [Commutative]> {
  let hasFolder = 1;
}
def TDSL_DivOp : TDSL_BinaryOp<"div", "division"> {
  let hasFolder = 1;
}
def TDSL_RemOp : TDSL_BinaryOp<"rem", "remainder">;
def TDSL_PowOp : TDSL_BinaryOp<"pow", "power">;
def TDSL_MaxOp : TDSL_BinaryOp<"max", "maximum", TDSL_ScalarOrTensor, [Commutative]>;
def TDSL_MinOp : TDSL_BinaryOp<"min", "minimum", TDSL_ScalarOrTensor, [Commutative]>;
def TDSL_AndOp : TDSL_BinaryOp<"and", "logical/bitwise and", TDSL_IntLike, [Commutative]>;
def TDSL_OrOp : TDSL_BinaryOp<"or", "logical/bitwise or", TDSL_IntLike, [Commutative]>;

def TDSL_CmpOp : TDSL_Op<"cmp", [Pure]> {
  let summary = "elementwise comparison with numpy broadcasting";
  let description = [{
    Compares `lhs` and `rhs` (same element type, broadcast like `tdsl.add`)
    with `predicate` (eq, ne, lt, le, gt, ge); the result has element type i1.

    ```mlir
    %r = tdsl.cmp lt, %a, %b : f32, f32 -> i1
    %m = tdsl.cmp ge, %t, %z : tensor<?x4xf32>, f32 -> tensor<?x4xi1>
    ```
  }];
  let arguments = (ins TDSL_CmpPredicateAttr:$predicate,
                       TDSL_ScalarOrTensor:$lhs, TDSL_ScalarOrTensor:$rhs);
  let results = (outs TDSL_BoolLike:$result);
  let assemblyFormat = [{
    $predicate `,` $lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->`
    type($result)
  }];
  let hasVerifier = 1;
}

def TDSL_SelectOp : TDSL_Op<"select", [Pure]> {
  let summary = "elementwise choice with numpy broadcasting";
  let description = [{
    Picks `trueValue` where `cond` is true, else `falseValue`. All three
    operands broadcast to the result; `cond` has element type i1 and the two
    values share the result's element type.

    ```mlir
    %r = tdsl.select %c, %a, %b : i1, f32, f32 -> f32
    %t = tdsl.select %m, %x, %z : tensor<?x4xi1>, tensor<?x4xf32>, f32 -> tensor<?x4xf32>
    ```
  }];
  let arguments = (ins TDSL_BoolLike:$cond, TDSL_ScalarOrTensor:$trueValue,
                       TDSL_ScalarOrTensor:$falseValue);
  let results = (outs TDSL_ScalarOrTensor:$result);
  let assemblyFormat = [{
    $cond `,` $trueValue `,` $falseValue attr-dict `:` type($cond) `,`
    type($trueValue) `,` type($falseValue) `->` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Elementwise unary ops
//===----------------------------------------------------------------------===//

class TDSL_UnaryOp<string mnemonic, string what,
                   Type valueType = TDSL_FloatLike>
    : TDSL_Op<mnemonic, [Pure, SameOperandsAndResultType]> {
  let summary = "elementwise " # what;
  let description = "Elementwise " # what # [{ of a scalar or ranked tensor.

    ```mlir
    %r = tdsl.}] # mnemonic # [{ %x : tensor<?xf32>
    ```
  }];
  let arguments = (ins valueType:$operand);
  let results = (outs valueType:$result);
  let assemblyFormat = "$operand attr-dict `:` type($result)";
}

def TDSL_NegOp : TDSL_UnaryOp<"neg", "negation", TDSL_ScalarOrTensor>;
def TDSL_AbsOp : TDSL_UnaryOp<"abs", "absolute value", TDSL_ScalarOrTensor>;
def TDSL_NotOp : TDSL_UnaryOp<"not", "logical/bitwise not", TDSL_IntLike>;
def TDSL_ExpOp : TDSL_UnaryOp<"exp", "exponential">;
def TDSL_LogOp : TDSL_UnaryOp<"log", "natural logarithm">;
def TDSL_SqrtOp : TDSL_UnaryOp<"sqrt", "square root">;
def TDSL_TanhOp : TDSL_UnaryOp<"tanh", "hyperbolic tangent">;
def TDSL_SinOp : TDSL_UnaryOp<"sin", "sine">;
def TDSL_CosOp : TDSL_UnaryOp<"cos", "cosine">;
def TDSL_FloorOp : TDSL_UnaryOp<"floor", "floor">;
def TDSL_CeilOp : TDSL_UnaryOp<"ceil", "ceiling">;
def TDSL_SigmoidOp : TDSL_UnaryOp<"sigmoid", "logistic sigmoid 1/(1+exp(-x))">;

//===----------------------------------------------------------------------===//
// Conversions and linear algebra
//===----------------------------------------------------------------------===//

def TDSL_CastOp : TDSL_Op<"cast", [Pure]> {
  let summary = "element type conversion";
  let description = [{
    Converts each element to the element type of the result; shapes must
    match (a `?` matches any extent). Ints (any signedness), floats and
    index are allowed; i1 converts to/from 0 and 1.

    ```mlir
    %f = tdsl.cast %x : tensor<3xi64> to tensor<3xf32>
    %i = tdsl.cast %s : f64 to index
    ```
  }];
  let arguments = (ins TDSL_ScalarOrTensor:$input);
  let results = (outs TDSL_ScalarOrTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `to` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
  // cast(cast(x)) -> cast(x) when the inner cast is exact (a widening).
  let hasCanonicalizer = 1;
}

def TDSL_MatmulOp : TDSL_Op<"matmul", [Pure]> {
  let summary = "matrix product (matrix-matrix, matrix-vector, vector-matrix)";
  let description = [{
    Supports 2-D x 2-D -> 2-D, 2-D x 1-D -> 1-D and 1-D x 2-D -> 1-D with one
    element type. Static contracted and result extents must agree.

    ```mlir
    %c = tdsl.matmul %a, %b : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
    %y = tdsl.matmul %m, %v : tensor<4x3xf32>, tensor<3xf32> -> tensor<4xf32>
    ```
  }];
  let arguments = (ins TDSL_Tensor:$lhs, TDSL_Tensor:$rhs);
  let results = (outs TDSL_Tensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Index notation and comprehensions
//===----------------------------------------------------------------------===//

def TDSL_IndexGenOp : TDSL_Op<"index_gen",
    [RecursiveMemoryEffects, SingleBlock]> {
  let summary = "index-notation generic op on values";
  let description = [{
    Like `linalg.generic`, but on values and with a named combiner. One
    iterator per entry of `iterator_types`; `indexing_maps` holds one map per
    input (zero results for a scalar input) and a last map for the output,
    whose results are exactly the parallel iterators (in output dim order).
    The body receives one element per input (the scalar itself for scalar
    inputs) and yields the element to store; values produced for the same
    output element across reduction iterators are folded with `combiner`
    (`none` iff there are no reduction iterators). The result is a tensor of
    rank = #parallel iterators, or a scalar when there are none.
    `tdsl.index` reads the current value of an iterator inside the body.

    ```mlir
    %C = tdsl.index_gen ins(%A, %B : tensor<?x?xf32>, tensor<?x?xf32>) {
        indexing_maps = [affine_map<(i, j, k) -> (i, k)>,
                         affine_map<(i, j, k) -> (k, j)>,
                         affine_map<(i, j, k) -> (i, j)>],
        iterator_types = [#tdsl.iterator<parallel>, #tdsl.iterator<parallel>,
                          #tdsl.iterator<reduction>],
        combiner = #tdsl.combiner<sum>} -> tensor<?x?xf32> {
    ^bb0(%a: f32, %b: f32):
      %p = tdsl.mul %a, %b : f32, f32 -> f32
      tdsl.yield %p : f32
    }
    ```
  }];
  let arguments = (ins Variadic<TDSL_ScalarOrTensor>:$inputs,
                       AffineMapArrayAttr:$indexing_maps,
                       TDSL_IteratorTypeArrayAttr:$iterator_types,
                       TDSL_CombinerKindAttr:$combiner);
  let results = (outs TDSL_ScalarOrTensor:$result);
  let regions = (region SizedRegion<1>:$region);
  let assemblyFormat = [{
    (`ins` `(` $inputs^ `:` type($inputs) `)`)? attr-dict `->` type($result)
    $region
  }];
  let builders = [
    // Also creates the body block with one argument per input (element type
    // for tensors); the caller fills it and adds the tdsl.yield.
    OpBuilder<(ins "::mlir::Type":$resultType, "::mlir::ValueRange":$inputs,
                   "::llvm::ArrayRef<::mlir::AffineMap>":$indexingMaps,
                   "::llvm::ArrayRef<IteratorType>":$iteratorTypes,
                   "CombinerKind":$combiner)>
  ];
  let extraClassDeclaration = [{
    unsigned getNumLoops() { return getIteratorTypes().size(); }
    unsigned getNumParallelLoops();
    ::llvm::SmallVector<::mlir::AffineMap> getIndexingMapsArray();
    ::llvm::SmallVector<IteratorType> getIteratorTypesArray();
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
}

def TDSL_IndexOp : TDSL_Op<"index", [Pure]> {
  let summary = "current value of an index_gen iterator";
  let description = [{
    Inside the body of the closest enclosing `tdsl.index_gen`, returns the
    current value of iterator `dim`.

    ```mlir
    %i = tdsl.index 0 : index
    ```
  }];
  let arguments = (ins ConfinedAttr<I64Attr, [IntNonNegative]>:$dim);
  let results = (outs Index:$result);
  let assemblyFormat = "$dim attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def TDSL_YieldOp : TDSL_Op<"yield",
    [Pure, ReturnLike, Terminator,
     ParentOneOf<["IndexGenOp", "ParallelForOp"]>]> {
  let summary = "terminator of index_gen and parallel_for bodies";
  let description = [{
    Yields the value computed by one iteration.

    ```mlir
    tdsl.yield %v : f32
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$values);
  let assemblyFormat = "attr-dict ($values^ `:` type($values))?";
}

def TDSL_ParallelForOp : TDSL_Op<"parallel_for",
    [AttrSizedOperandSegments, RecursiveMemoryEffects, SingleBlock]> {
  let summary = "parallel comprehension over an index box";
  let description = [{
    Runs the body for every point of [lowerBounds, upperBounds) (one `index`
    block argument per dimension; iterations are independent). With
    `reduce` = none the result is a tensor of rank #dims with extents
    ub - lb whose elements are the yielded scalars. Otherwise the yielded
    scalars are combined with add/mul/max/min (identities 0, 1, lowest,
    highest) and the result is that scalar. The body may use values defined
    above.

    ```mlir
    %s = tdsl.parallel_for (%i) = (%c0) to (%n) reduce(add) -> i64 {
      %v = arith.index_cast %i : index to i64
      tdsl.yield %v : i64
    }
    %t = tdsl.parallel_for (%i, %j) = (%c0, %c0) to (%h, %w) -> tensor<?x?xf32> {
      tdsl.yield %x : f32
    }
    ```
  }];
  let arguments = (ins Variadic<Index>:$lowerBounds,
                       Variadic<Index>:$upperBounds,
                       TDSL_ReduceKindAttr:$reduce);
  let results = (outs TDSL_ScalarOrTensor:$result);
  let regions = (region SizedRegion<1>:$region);
  let skipDefaultBuilders = 1;
  let builders = [
    // Also creates the body block with one index argument per dimension; the
    // caller fills it and adds the tdsl.yield.
    OpBuilder<(ins "::mlir::Type":$resultType,
                   "::mlir::ValueRange":$lowerBounds,
                   "::mlir::ValueRange":$upperBounds,
                   CArg<"ReduceKind", "ReduceKind::none">:$reduce)>
  ];
  let extraClassDeclaration = [{
    unsigned getNumDims() { return getLowerBounds().size(); }
    ::mlir::Block::BlockArgListType getInductionVars() {
      return getBody()->getArguments();
    }
  }];
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Random numbers and tensor creation
//===----------------------------------------------------------------------===//

def TDSL_Seed : AnyTypeOf<[UI64, I64], "ui64 or i64 seed">;

def TDSL_RandomOp : TDSL_Op<"random", [Pure]> {
  let summary = "counter-based random number";
  let description = [{
    A pure function of (seed, counter): the same pair always gives the same
    value. `uniform` draws from [0, 1), `normal` from N(0, 1).

    ```mlir
    %u = tdsl.random uniform %seed, %ctr : ui64, i64 -> f32
    ```
  }];
  let arguments = (ins TDSL_DistributionAttr:$distribution, TDSL_Seed:$seed,
                       AnyTypeOf<[I64, Index]>:$counter);
  let results = (outs AnyTypeOf<[F32, F64]>:$result);
  let assemblyFormat = [{
    $distribution $seed `,` $counter attr-dict `:` type($seed) `,`
    type($counter) `->` type($result)
  }];
}

def TDSL_RandomTensorOp : TDSL_Op<"random_tensor", [Pure]> {
  let summary = "tensor of counter-based random numbers";
  let description = [{
    The element with row-major linear index k equals
    `tdsl.random <distribution> %seed, k`. `dynamicSizes` gives one extent
    per `?` dim of the result, in order.

    ```mlir
    %t = tdsl.random_tensor normal %seed [%n] : ui64 -> tensor<?x4xf32>
    ```
  }];
  let arguments = (ins TDSL_DistributionAttr:$distribution, TDSL_Seed:$seed,
                       Variadic<Index>:$dynamicSizes);
  let results = (outs RankedTensorOf<[F32, F64]>:$result);
  let assemblyFormat = [{
    $distribution $seed (` ` `[` $dynamicSizes^ `]`)? attr-dict `:` type($seed)
    `->` type($result)
  }];
  let hasVerifier = 1;
}

def TDSL_FillOp : TDSL_Op<"fill", [Pure]> {
  let summary = "tensor filled with one scalar";
  let description = [{
    `dynamicSizes` gives one extent per `?` dim of the result, in order.

    ```mlir
    %z = tdsl.fill %c0 [%n] : f32 -> tensor<?x4xf32>
    ```
  }];
  let arguments = (ins TDSL_Scalar:$value, Variadic<Index>:$dynamicSizes);
  let results = (outs TDSL_Tensor:$result);
  let assemblyFormat = [{
    $value (` ` `[` $dynamicSizes^ `]`)? attr-dict `:` type($value) `->`
    type($result)
  }];
  let hasVerifier = 1;
}

def TDSL_ArangeOp : TDSL_Op<"arange", [Pure]> {
  let summary = "1-D tensor holding 0, 1, ..., n-1";
  let description = [{
    `size` is given iff the result extent is dynamic.

    ```mlir
    %r = tdsl.arange : tensor<5xi64>
    %f = tdsl.arange [%n] : tensor<?xf32>
    ```
  }];
  let arguments = (ins Optional<Index>:$size);
  let results = (outs 1DTensorOf<[AnyInteger, AnyFloat, Index]>:$result);
  let assemblyFormat = "(` ` `[` $size^ `]`)? attr-dict `:` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// I/O
//===----------------------------------------------------------------------===//

def TDSL_GradOp : TDSL_Op<"grad",
    [DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "gradient of a scalar function with respect to its first arguments";
  let description = [{
    The gradient of `callee`, a function returning one f32 or f64 scalar,
    with respect to each of its first N arguments, at `args`, where N is the
    number of results: result i has the type of argument i. A model (a
    record of parameter tensors) is passed as one argument per field, so
    the gradient of a model is one result per field. `tdsl-differentiate`
    replaces the op with a call of a function that runs `callee` forward and
    then its adjoint (reverse mode).

    ```mlir
    %g = tdsl.grad @loss(%w, %x) : (tensor<3xf32>, tensor<4x3xf32>) -> tensor<3xf32>
    %gw, %gb = tdsl.grad @loss2(%w, %b, %x)
        : (tensor<3xf32>, f32, tensor<4x3xf32>) -> (tensor<3xf32>, f32)
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$callee,
                       Variadic<TDSL_ScalarOrTensor>:$args);
  let results = (outs Variadic<TDSL_ScalarOrTensor>:$results);
  let assemblyFormat = [{
    $callee `(` $args `)` attr-dict `:` functional-type($args, $results)
  }];
}

def TDSL_PrintOp : TDSL_Op<"print", [MemoryEffects<[MemWrite]>]> {
  let summary = "print a message and/or a value to stdout";
  let description = [{
    Prints `message` (if any), then `value` (if any, separated by a space),
    then a newline unless `no_newline` is set. At least one of the two must
    be present; print an empty message for a bare newline. The value follows
    a comma when a message is given so that the op never swallows the next
    line's `%result =`.

    ```mlir
    tdsl.print "pi =", %x : f32
    tdsl.print %t : tensor<?x4xf32>
    tdsl.print "done"
    tdsl.print "no newline" {no_newline}
    ```
  }];
  let arguments = (ins Optional<TDSL_ScalarOrTensor>:$value,
                       OptionalAttr<StrAttr>:$message,
                       UnitAttr:$no_newline);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

def TDSL_LoadOp : TDSL_Op<"load", [MemoryEffects<[MemRead]>]> {
  let summary = "read a tensor from a .npy or CSV file";
  let description = [{
    Reads `path` at run time; dynamic dims take the file's extents, static
    dims and the element type must match the file (checked at run time).
    With `format = "csv"` the file (gzipped or not) is a table of numbers,
    one row per line, read as a rank-2 tensor of f32, f64, i32 or i64.

    ```mlir
    %x = tdsl.load "data.npy" : tensor<?x64xf32>
    %t = tdsl.load "table.csv.gz" {format = "csv"} : tensor<?x65xf32>
    ```
  }];
  let arguments = (ins StrAttr:$path,
                       DefaultValuedStrAttr<StrAttr, "npy">:$format);
  let results = (outs TDSL_Tensor:$result);
  let assemblyFormat = "$path attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def TDSL_SaveOp : TDSL_Op<"save", [MemoryEffects<[MemWrite]>]> {
  let summary = "write a tensor to a .npy file";
  let description = [{
    ```mlir
    tdsl.save %x, "out.npy" : tensor<?x64xf32>
    ```
  }];
  let arguments = (ins TDSL_Tensor:$value, StrAttr:$path);
  let assemblyFormat = "$value `,` $path attr-dict `:` type($value)";
}

//===----------------------------------------------------------------------===//
// Code generation
//===----------------------------------------------------------------------===//

def TDSL_SizeBarrierOp : TDSL_Op<"size_barrier",
    [Pure, SameOperandsAndResultType]> {
  let summary = "an index that bound analyses take as unknown";
  let description = [{
    Its result is its operand. Value-bounds analyses (the
    `ValueBoundsOpInterface` that bufferization asks whether two slices are
    the same) do not look through it. `tdsl-hide-loop-carried-sizes` puts
    it on the sizes of loop-carried tensors of run-time shape, whose bounds
    those analyses would otherwise derive through every `scf.if` and loop
    between the iteration argument and its yield, once per question;
    `tdsl-remove-size-barriers` takes it out after bufferization.

    ```mlir
    %d = tensor.dim %acc, %c0 : tensor<?x?xf32>
    %s = tdsl.size_barrier %d
    ```
  }];
  let arguments = (ins Index:$input);
  let results = (outs Index:$result);
  let assemblyFormat = "$input attr-dict";
}

//===----------------------------------------------------------------------===//
// Processes (MPI collectives)
//===----------------------------------------------------------------------===//

def TDSL_WorldSizeOp : TDSL_Op<"world_size", [Pure]> {
  let summary = "the number of processes of the program";
  let description = [{
    1 for a program not started by mpirun.

    ```mlir
    %n = tdsl.world_size : i64
    ```
  }];
  let results = (outs I64:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

def TDSL_WorldRankOp : TDSL_Op<"world_rank", [Pure]> {
  let summary = "this process's rank, 0 to world_size - 1";
  let description = [{
    ```mlir
    %r = tdsl.world_rank : i64
    ```
  }];
  let results = (outs I64:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

def TDSL_AllReduceOp : TDSL_Op<"allreduce",
    [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "reduce tensors across every process";
  let description = [{
    Each result is the element-wise `sum`, `max` or `min` over the processes
    of its operand (for i1: or, or, and). Every process runs the same
    collectives in the same order, with tensors of the same shapes. The
    operands go in one message per element type (the fields of a model
    together, as DDP buckets gradients).

    ```mlir
    %g:2 = tdsl.allreduce "sum" %w, %b : (tensor<64x10xf32>, tensor<10xf32>)
           -> (tensor<64x10xf32>, tensor<10xf32>)
    ```
  }];
  let arguments = (ins StrAttr:$kind, Variadic<TDSL_Tensor>:$values);
  let results = (outs Variadic<TDSL_Tensor>:$results);
  let assemblyFormat = [{
    $kind $values attr-dict `:` functional-type($values, $results)
  }];
  let hasVerifier = 1;
}

def TDSL_BroadcastOp : TDSL_Op<"broadcast",
    [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "every process gets the tensors of one";
  let description = [{
    Each result is process `root`'s operand, in every process.

    ```mlir
    %w = tdsl.broadcast %x from %root : (tensor<4xf32>) -> tensor<4xf32>
    ```
  }];
  let arguments = (ins Variadic<TDSL_Tensor>:$values, I64:$root);
  let results = (outs Variadic<TDSL_Tensor>:$results);
  let assemblyFormat = [{
    $values `from` $root attr-dict `:` functional-type($values, $results)
  }];
  let hasVerifier = 1;
}

#endif // TDSL_OPS_TD
