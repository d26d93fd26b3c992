// TDSLOps.cpp - verifiers, folders, builders and custom syntax of tdsl ops.
#include "dialects/TDSL/IR/TDSLOps.h"

#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;
using namespace tdsl::ir;

//===----------------------------------------------------------------------===//
// Broadcasting helpers
//===----------------------------------------------------------------------===//

LogicalResult tdsl::ir::getBroadcastShape(ArrayRef<int64_t> lhs,
                                            ArrayRef<int64_t> rhs,
                                            SmallVectorImpl<int64_t> &result) {
  size_t rank = std::max(lhs.size(), rhs.size());
  result.assign(rank, 1);
  // Walk from the trailing dim; a missing leading dim acts as 1.
  for (size_t i = 0; i < rank; ++i) {
    int64_t a = i < lhs.size() ? lhs[lhs.size() - 1 - i] : 1;
    int64_t b = i < rhs.size() ? rhs[rhs.size() - 1 - i] : 1;
    int64_t &out = result[rank - 1 - i];
    if (a == 1)
      out = b;
    else if (b == 1)
      out = a;
    else if (ShapedType::isDynamic(a))
      out = b; // `?` is either 1 or must equal b at run time.
    else if (ShapedType::isDynamic(b) || a == b)
      out = a;
    else
      return failure();
  }
  return success();
}

Type tdsl::ir::getBroadcastType(Type lhs, Type rhs, Type elementType) {
  auto lt = dyn_cast<RankedTensorType>(lhs);
  auto rt = dyn_cast<RankedTensorType>(rhs);
  if (!lt && !rt)
    return elementType;
  SmallVector<int64_t> shape;
  if (failed(getBroadcastShape(lt ? lt.getShape() : ArrayRef<int64_t>{},
                               rt ? rt.getShape() : ArrayRef<int64_t>{},
                               shape)))
    return nullptr;
  return RankedTensorType::get(shape, elementType);
}

/// Checks that `operandTypes` broadcast to `resultType`: the result rank is
/// the largest operand rank (a scalar iff all operands are scalars) and no
/// static extent contradicts the broadcast shape. Shared by all broadcasting
/// ops.
static LogicalResult verifyBroadcastTo(Operation *op, TypeRange operandTypes,
                                       Type resultType) {
  SmallVector<int64_t> shape;
  bool anyTensor = false;
  for (auto [idx, type] : llvm::enumerate(operandTypes)) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor)
      continue;
    anyTensor = true;
    SmallVector<int64_t> next;
    if (failed(getBroadcastShape(shape, tensor.getShape(), next)))
      return op->emitOpError("operand #")
             << idx << " of type " << type
             << " does not broadcast with the preceding operands";
    shape = std::move(next);
  }
  auto resultTensor = dyn_cast<RankedTensorType>(resultType);
  if (!anyTensor) {
    if (resultTensor)
      return op->emitOpError(
          "result must be a scalar when all operands are scalars");
    return success();
  }
  if (!resultTensor)
    return op->emitOpError(
        "result must be a ranked tensor when an operand is a tensor");
  if (resultTensor.getRank() != static_cast<int64_t>(shape.size()))
    return op->emitOpError("result rank ")
           << resultTensor.getRank() << " does not match broadcast rank "
           << shape.size();
  for (auto [dim, res, expected] :
       llvm::enumerate(resultTensor.getShape(), shape)) {
    if (ShapedType::isStatic(res) && ShapedType::isStatic(expected) &&
        res != expected)
      return op->emitOpError("result dim ")
             << dim << " is " << res << " but operands broadcast to "
             << expected;
  }
  return success();
}

/// Verifier of the elementwise binary ops (tdsl.add etc.): one element type
/// for lhs, rhs and result, plus broadcast-compatible shapes.
static LogicalResult verifyBroadcastingElementwise(Operation *op) {
  Type lhs = op->getOperand(0).getType(), rhs = op->getOperand(1).getType();
  Type result = op->getResult(0).getType();
  Type elem = getElementTypeOrSelf(lhs);
  if (getElementTypeOrSelf(rhs) != elem ||
      getElementTypeOrSelf(result) != elem)
    return op->emitOpError(
               "requires lhs, rhs and result to have the same element type, "
               "got ")
           << lhs << ", " << rhs << " -> " << result;
  return verifyBroadcastTo(op, {lhs, rhs}, result);
}

/// Number of `?` extents, for ops taking one size operand per dynamic dim.
static LogicalResult verifyDynamicSizes(Operation *op, ShapedType type,
                                        size_t numSizes) {
  int64_t numDynamic = type.getNumDynamicDims();
  if (static_cast<int64_t>(numSizes) != numDynamic)
    return op->emitOpError("expected ")
           << numDynamic << " dynamic size operands (one per '?' dim of "
           << type << "), got " << numSizes;
  return success();
}

static bool isScalar(Type type) {
  return isa<IntegerType, FloatType, IndexType>(type);
}

//===----------------------------------------------------------------------===//
// ConstantOp
//===----------------------------------------------------------------------===//

LogicalResult ConstantOp::verify() {
  TypedAttr value = getValue();
  if (isa<RankedTensorType>(value.getType())) {
    if (!isa<DenseElementsAttr>(value))
      return emitOpError("tensor constant requires a dense elements attribute");
  } else if (!isa<IntegerAttr, FloatAttr>(value)) {
    return emitOpError(
        "scalar constant requires an integer or float attribute");
  }
  return success();
}

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

//===----------------------------------------------------------------------===//
// CmpOp / SelectOp
//===----------------------------------------------------------------------===//

LogicalResult CmpOp::verify() {
  Type lhs = getLhs().getType(), rhs = getRhs().getType();
  if (getElementTypeOrSelf(lhs) != getElementTypeOrSelf(rhs))
    return emitOpError("requires lhs and rhs to have the same element type, "
                       "got ")
           << lhs << " and " << rhs;
  return verifyBroadcastTo(*this, {lhs, rhs}, getType());
}

LogicalResult SelectOp::verify() {
  Type cond = getCond().getType();
  Type lhs = getTrueValue().getType(), rhs = getFalseValue().getType();
  Type elem = getElementTypeOrSelf(getType());
  if (getElementTypeOrSelf(lhs) != elem || getElementTypeOrSelf(rhs) != elem)
    return emitOpError("requires both values and the result to have the same "
                       "element type, got ")
           << lhs << ", " << rhs << " -> " << getType();
  return verifyBroadcastTo(*this, {cond, lhs, rhs}, getType());
}

//===----------------------------------------------------------------------===//
// CastOp
//===----------------------------------------------------------------------===//

LogicalResult CastOp::verify() {
  auto in = dyn_cast<RankedTensorType>(getInput().getType());
  auto out = dyn_cast<RankedTensorType>(getType());
  if (static_cast<bool>(in) != static_cast<bool>(out))
    return emitOpError(
        "requires input and result to be both scalars or both tensors");
  if (in && failed(verifyCompatibleShape(in.getShape(), out.getShape())))
    return emitOpError("requires input and result shapes to match, got ")
           << in << " and " << out;
  return success();
}

OpFoldResult CastOp::fold(FoldAdaptor) {
  if (getInput().getType() == getType())
    return getInput();
  return {};
}

//===----------------------------------------------------------------------===//
// MatmulOp
//===----------------------------------------------------------------------===//

/// Static extents that must agree; `?` agrees with anything.
static bool extentsClash(int64_t a, int64_t b) {
  return ShapedType::isStatic(a) && ShapedType::isStatic(b) && a != b;
}

LogicalResult MatmulOp::verify() {
  auto lhs = cast<RankedTensorType>(getLhs().getType());
  auto rhs = cast<RankedTensorType>(getRhs().getType());
  auto res = cast<RankedTensorType>(getType());
  int64_t lr = lhs.getRank(), rr = rhs.getRank();
  if (!((lr == 2 && rr == 2) || (lr == 2 && rr == 1) || (lr == 1 && rr == 2)))
    return emitOpError("expects operand ranks 2x2, 2x1 or 1x2, got ")
           << lr << "x" << rr;
  int64_t expectedRank = (lr == 2 && rr == 2) ? 2 : 1;
  if (res.getRank() != expectedRank)
    return emitOpError("expects a result of rank ")
           << expectedRank << ", got " << res.getRank();
  if (lhs.getElementType() != rhs.getElementType() ||
      lhs.getElementType() != res.getElementType())
    return emitOpError("requires operands and result to have the same "
                       "element type");
  // The contracted dim is lhs's last and rhs's first.
  int64_t lk = lhs.getShape().back(), rk = rhs.getShape().front();
  if (extentsClash(lk, rk))
    return emitOpError("contracted dimensions differ: ") << lk << " vs " << rk;
  SmallVector<int64_t> expected;
  if (lr == 2)
    expected.push_back(lhs.getDimSize(0));
  if (rr == 2)
    expected.push_back(rhs.getDimSize(1));
  for (auto [dim, want, got] : llvm::enumerate(expected, res.getShape()))
    if (extentsClash(want, got))
      return emitOpError("result dim ")
             << dim << " is " << got << " but operands imply " << want;
  return success();
}

//===----------------------------------------------------------------------===//
// IndexGenOp
//===----------------------------------------------------------------------===//

void IndexGenOp::build(OpBuilder &builder, OperationState &state,
                       Type resultType, ValueRange inputs,
                       ArrayRef<AffineMap> indexingMaps,
                       ArrayRef<IteratorType> iteratorTypes,
                       CombinerKind combiner) {
  MLIRContext *ctx = builder.getContext();
  state.addOperands(inputs);
  state.addAttribute(getIndexingMapsAttrName(state.name),
                     builder.getAffineMapArrayAttr(indexingMaps));
  SmallVector<Attribute> iters;
  for (IteratorType it : iteratorTypes)
    iters.push_back(IteratorTypeAttr::get(ctx, it));
  state.addAttribute(getIteratorTypesAttrName(state.name),
                     builder.getArrayAttr(iters));
  state.addAttribute(getCombinerAttrName(state.name),
                     CombinerKindAttr::get(ctx, combiner));
  state.addTypes(resultType);
  // Built by hand so the caller's insertion point is left untouched.
  auto *body = new Block();
  state.addRegion()->push_back(body);
  for (Value input : inputs)
    body->addArgument(getElementTypeOrSelf(input.getType()), input.getLoc());
}

unsigned IndexGenOp::getNumParallelLoops() {
  return llvm::count(getIteratorTypesArray(), IteratorType::parallel);
}

SmallVector<AffineMap> IndexGenOp::getIndexingMapsArray() {
  return llvm::to_vector(
      getIndexingMaps().getAsValueRange<AffineMapAttr>());
}

SmallVector<IteratorType> IndexGenOp::getIteratorTypesArray() {
  return llvm::map_to_vector(getIteratorTypes(), [](Attribute attr) {
    return cast<IteratorTypeAttr>(attr).getValue();
  });
}

LogicalResult IndexGenOp::verify() {
  SmallVector<AffineMap> maps = getIndexingMapsArray();
  SmallVector<IteratorType> iters = getIteratorTypesArray();
  unsigned numLoops = iters.size();
  size_t numInputs = getInputs().size();
  if (maps.size() != numInputs + 1)
    return emitOpError("expected ")
           << numInputs + 1
           << " indexing maps (one per input plus one for the result), got "
           << maps.size();
  for (auto [idx, map] : llvm::enumerate(maps)) {
    if (map.getNumDims() != numLoops)
      return emitOpError("indexing map #")
             << idx << " has " << map.getNumDims() << " dims but there are "
             << numLoops << " iterators";
    if (map.getNumSymbols() != 0)
      return emitOpError("indexing map #") << idx << " must not use symbols";
  }
  for (auto [idx, input] : llvm::enumerate(getInputs())) {
    auto tensor = dyn_cast<RankedTensorType>(input.getType());
    unsigned rank = tensor ? tensor.getRank() : 0;
    if (maps[idx].getNumResults() != rank)
      return emitOpError("indexing map #")
             << idx << " has " << maps[idx].getNumResults()
             << " results but input #" << idx << " has rank " << rank;
  }

  // The output map lists each parallel iterator exactly once.
  AffineMap outMap = maps.back();
  unsigned numParallel = llvm::count(iters, IteratorType::parallel);
  llvm::SmallBitVector seen(numLoops);
  for (auto [idx, expr] : llvm::enumerate(outMap.getResults())) {
    auto dim = dyn_cast<AffineDimExpr>(expr);
    if (!dim)
      return emitOpError("output indexing map result #")
             << idx << " must be a plain iterator";
    unsigned pos = dim.getPosition();
    if (iters[pos] != IteratorType::parallel)
      return emitOpError("output indexing map uses reduction iterator d")
             << pos;
    if (seen.test(pos))
      return emitOpError("output indexing map uses iterator d")
             << pos << " twice";
    seen.set(pos);
  }
  if (outMap.getNumResults() != numParallel)
    return emitOpError("output indexing map must use each of the ")
           << numParallel << " parallel iterators exactly once";

  auto resultTensor = dyn_cast<RankedTensorType>(getType());
  if (numParallel == 0 && resultTensor)
    return emitOpError(
        "result must be a scalar when there are no parallel iterators");
  if (numParallel != 0 &&
      (!resultTensor || resultTensor.getRank() != numParallel))
    return emitOpError("result must be a ranked tensor of rank ")
           << numParallel << " (the number of parallel iterators), got "
           << getType();

  bool hasReduction = numParallel != numLoops;
  if (hasReduction == (getCombiner() == CombinerKind::none))
    return emitOpError("combiner must be 'none' exactly when there are no "
                       "reduction iterators");
  return success();
}

/// Checks that `block` ends in a tdsl.yield of exactly one value; returns it.
static FailureOr<Value> getSingleYieldedValue(Operation *op, Block &block) {
  auto yield = block.empty() ? YieldOp() : dyn_cast<YieldOp>(block.back());
  if (!yield)
    return op->emitOpError("body must end with tdsl.yield");
  if (yield.getValues().size() != 1)
    return op->emitOpError("body must yield exactly one value, got ")
           << yield.getValues().size();
  return yield.getValues().front();
}

LogicalResult IndexGenOp::verifyRegions() {
  Block &body = getRegion().front();
  if (body.getNumArguments() != getInputs().size())
    return emitOpError("body must have one argument per input (")
           << getInputs().size() << "), got " << body.getNumArguments();
  for (auto [idx, input, arg] :
       llvm::enumerate(getInputs(), body.getArguments())) {
    Type expected = getElementTypeOrSelf(input.getType());
    if (arg.getType() != expected)
      return emitOpError("body argument #")
             << idx << " has type " << arg.getType() << " but input #" << idx
             << " needs " << expected;
  }
  FailureOr<Value> yielded = getSingleYieldedValue(*this, body);
  if (failed(yielded))
    return failure();
  Type expected = getElementTypeOrSelf(getType());
  if (yielded->getType() != expected)
    return emitOpError("yielded type ")
           << yielded->getType() << " does not match the result element type "
           << expected;
  return success();
}

//===----------------------------------------------------------------------===//
// IndexOp
//===----------------------------------------------------------------------===//

LogicalResult IndexOp::verify() {
  auto parent = (*this)->getParentOfType<IndexGenOp>();
  if (!parent)
    return emitOpError("must be nested in a tdsl.index_gen");
  if (getDim() >= parent.getNumLoops())
    return emitOpError("dim ")
           << getDim() << " is out of range: the enclosing tdsl.index_gen has "
           << parent.getNumLoops() << " iterators";
  return success();
}

//===----------------------------------------------------------------------===//
// ParallelForOp
//===----------------------------------------------------------------------===//

void ParallelForOp::build(OpBuilder &builder, OperationState &state,
                          Type resultType, ValueRange lowerBounds,
                          ValueRange upperBounds, ReduceKind reduce) {
  state.addOperands(lowerBounds);
  state.addOperands(upperBounds);
  state.addAttribute(
      getOperandSegmentSizesAttrName(state.name),
      builder.getDenseI32ArrayAttr({static_cast<int32_t>(lowerBounds.size()),
                                    static_cast<int32_t>(upperBounds.size())}));
  state.addAttribute(getReduceAttrName(state.name),
                     ReduceKindAttr::get(builder.getContext(), reduce));
  state.addTypes(resultType);
  // Built by hand so the caller's insertion point is left untouched.
  auto *body = new Block();
  state.addRegion()->push_back(body);
  for (size_t i = 0; i < lowerBounds.size(); ++i)
    body->addArgument(builder.getIndexType(), state.location);
}

ParseResult ParallelForOp::parse(OpAsmParser &parser, OperationState &result) {
  Builder &builder = parser.getBuilder();
  Type indexType = builder.getIndexType();
  SmallVector<OpAsmParser::Argument> ivs;
  SmallVector<OpAsmParser::UnresolvedOperand> lbs, ubs;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseArgumentList(ivs, OpAsmParser::Delimiter::Paren) ||
      parser.parseEqual() ||
      parser.parseOperandList(lbs, OpAsmParser::Delimiter::Paren) ||
      parser.parseKeyword("to") ||
      parser.parseOperandList(ubs, OpAsmParser::Delimiter::Paren))
    return failure();
  if (ivs.size() != lbs.size() || ivs.size() != ubs.size())
    return parser.emitError(loc, "expected as many lower and upper bounds as "
                                 "induction variables");

  ReduceKind reduce = ReduceKind::none;
  if (succeeded(parser.parseOptionalKeyword("reduce"))) {
    StringRef kind;
    SMLoc kindLoc = parser.getCurrentLocation();
    if (parser.parseLParen() || parser.parseKeyword(&kind) ||
        parser.parseRParen())
      return failure();
    std::optional<ReduceKind> parsed = symbolizeReduceKind(kind);
    if (!parsed)
      return parser.emitError(kindLoc, "unknown reduction kind '")
             << kind << "'";
    reduce = *parsed;
  }

  Type resultType;
  if (parser.parseOptionalAttrDict(result.attributes) || parser.parseArrow() ||
      parser.parseType(resultType))
    return failure();
  for (OpAsmParser::Argument &iv : ivs)
    iv.type = indexType;
  if (parser.parseRegion(*result.addRegion(), ivs) ||
      parser.resolveOperands(lbs, indexType, result.operands) ||
      parser.resolveOperands(ubs, indexType, result.operands))
    return failure();
  result.addAttribute(getOperandSegmentSizesAttrName(result.name),
                      builder.getDenseI32ArrayAttr(
                          {static_cast<int32_t>(lbs.size()),
                           static_cast<int32_t>(ubs.size())}));
  result.addAttribute(getReduceAttrName(result.name),
                      ReduceKindAttr::get(builder.getContext(), reduce));
  result.addTypes(resultType);
  return success();
}

void ParallelForOp::print(OpAsmPrinter &p) {
  p << " (";
  llvm::interleaveComma(getInductionVars(), p,
                        [&](BlockArgument iv) { p << iv; });
  p << ") = (";
  p.printOperands(getLowerBounds());
  p << ") to (";
  p.printOperands(getUpperBounds());
  p << ")";
  if (getReduce() != ReduceKind::none)
    p << " reduce(" << stringifyReduceKind(getReduce()) << ")";
  p.printOptionalAttrDict(
      (*this)->getAttrs(),
      {getOperandSegmentSizesAttrName(), getReduceAttrName()});
  p << " -> " << getType() << " ";
  p.printRegion(getRegion(), /*printEntryBlockArgs=*/false);
}

LogicalResult ParallelForOp::verify() {
  size_t numDims = getLowerBounds().size();
  if (getUpperBounds().size() != numDims)
    return emitOpError("requires as many upper bounds as lower bounds, got ")
           << getUpperBounds().size() << " and " << numDims;
  if (numDims == 0)
    return emitOpError("requires at least one dimension");
  auto tensor = dyn_cast<RankedTensorType>(getType());
  if (getReduce() == ReduceKind::none) {
    if (!tensor || tensor.getRank() != static_cast<int64_t>(numDims))
      return emitOpError("without a reduction the result must be a ranked "
                         "tensor of rank ")
             << numDims << ", got " << getType();
  } else if (tensor) {
    return emitOpError("with a reduction the result must be a scalar, got ")
           << getType();
  }
  return success();
}

LogicalResult ParallelForOp::verifyRegions() {
  Block &body = getRegion().front();
  if (body.getNumArguments() != getNumDims() ||
      !llvm::all_of(body.getArgumentTypes(), llvm::IsaPred<IndexType>))
    return emitOpError("body must have one index argument per dimension (")
           << getNumDims() << ")";
  FailureOr<Value> yielded = getSingleYieldedValue(*this, body);
  if (failed(yielded))
    return failure();
  Type yieldedType = yielded->getType();
  if (!isScalar(yieldedType))
    return emitOpError("body must yield a scalar, got ") << yieldedType;
  Type expected = getElementTypeOrSelf(getType());
  if (yieldedType != expected)
    return emitOpError("yielded type ")
           << yieldedType << " does not match the result "
           << (getReduce() == ReduceKind::none ? "element type " : "type ")
           << expected;
  return success();
}

//===----------------------------------------------------------------------===//
// Tensor creation
//===----------------------------------------------------------------------===//

LogicalResult RandomTensorOp::verify() {
  return verifyDynamicSizes(*this, getType(), getDynamicSizes().size());
}

LogicalResult FillOp::verify() {
  auto type = cast<RankedTensorType>(getType());
  if (type.getElementType() != getValue().getType())
    return emitOpError("fill value type ")
           << getValue().getType() << " does not match the element type of "
           << type;
  return verifyDynamicSizes(*this, type, getDynamicSizes().size());
}

LogicalResult ArangeOp::verify() {
  return verifyDynamicSizes(*this, getType(), getSize() ? 1 : 0);
}

//===----------------------------------------------------------------------===//
// PrintOp
//===----------------------------------------------------------------------===//

// Syntax: `tdsl.print "msg"`, `tdsl.print "msg", %v : T`, `tdsl.print %v : T`
// (attr-dict last). The comma keeps a message-only print from parsing the
// next line's `%x = ...` as its operand.
ParseResult PrintOp::parse(OpAsmParser &parser, OperationState &result) {
  std::string message;
  bool hasValue = true;
  if (succeeded(parser.parseOptionalString(&message))) {
    result.addAttribute(getMessageAttrName(result.name),
                        parser.getBuilder().getStringAttr(message));
    hasValue = succeeded(parser.parseOptionalComma());
  }
  if (hasValue) {
    OpAsmParser::UnresolvedOperand operand;
    Type type;
    if (parser.parseOperand(operand) || parser.parseColonType(type) ||
        parser.resolveOperand(operand, type, result.operands))
      return failure();
  }
  return parser.parseOptionalAttrDict(result.attributes);
}

void PrintOp::print(OpAsmPrinter &p) {
  // Without a value the message is mandatory syntax, so print "" if unset.
  bool printMessage = getMessage().has_value() || !getValue();
  if (printMessage) {
    p << ' ';
    p.printString(getMessage().value_or(""));
  }
  if (Value value = getValue()) {
    if (printMessage)
      p << ',';
    p << ' ' << value << " : " << value.getType();
  }
  p.printOptionalAttrDict((*this)->getAttrs(), {getMessageAttrName()});
}

LogicalResult PrintOp::verify() {
  if (!getMessage() && !getValue())
    return emitOpError("requires a message or a value");
  return success();
}

//===----------------------------------------------------------------------===//
// Result types of the broadcasting binary ops
//===----------------------------------------------------------------------===//

/// The result of a broadcasting binary op on `lhs` and `rhs`: their element
/// type, the broadcast of their shapes. Operands that do not broadcast give
/// lhs's type, which the verifier then rejects with the reason.
Type tdsl::ir::inferBroadcastResult(Value lhs, Value rhs) {
  Type type = getBroadcastType(lhs.getType(), rhs.getType(),
                               getElementTypeOrSelf(lhs.getType()));
  return type ? type : lhs.getType();
}

//===----------------------------------------------------------------------===//
// Folders and canonicalization patterns of the binary ops
//===----------------------------------------------------------------------===//

/// Whether `attr` (a constant operand: a scalar or a splat tensor) holds
/// one value that `isInt` or `isFloat` accepts.
static bool isConstantWhere(Attribute attr, function_ref<bool(const APInt &)> isInt,
                            function_ref<bool(const APFloat &)> isFloat) {
  if (auto splat = dyn_cast_or_null<SplatElementsAttr>(attr))
    attr = splat.getSplatValue<Attribute>();
  if (auto i = dyn_cast_or_null<IntegerAttr>(attr))
    return isInt(i.getValue());
  if (auto f = dyn_cast_or_null<FloatAttr>(attr))
    return isFloat(f.getValue());
  return false;
}

/// `x op c` -> x when `c` is the op's identity and x has the result's type
/// (otherwise the op broadcasts x, which folding would lose).
static OpFoldResult foldIdentity(Operation *op, Value x, Attribute c,
                                 function_ref<bool(const APInt &)> isInt,
                                 function_ref<bool(const APFloat &)> isFloat) {
  if (x.getType() == op->getResult(0).getType() &&
      isConstantWhere(c, isInt, isFloat))
    return x;
  return {};
}

static bool isIntZero(const APInt &v) { return v.isZero(); }
static bool isIntOne(const APInt &v) { return v.isOne(); }
static bool isFloatOne(const APFloat &v) { return v.isExactlyValue(1.0); }

OpFoldResult AddOp::fold(FoldAdaptor adaptor) {
  // -0.0 is the identity of a float sum (+0.0 would turn -0.0 into +0.0).
  auto negZero = [](const APFloat &v) { return v.isZero() && v.isNegative(); };
  if (OpFoldResult r = foldIdentity(*this, getLhs(), adaptor.getRhs(), isIntZero, negZero))
    return r;
  return foldIdentity(*this, getRhs(), adaptor.getLhs(), isIntZero, negZero);
}

OpFoldResult SubOp::fold(FoldAdaptor adaptor) {
  auto posZero = [](const APFloat &v) { return v.isZero() && !v.isNegative(); };
  return foldIdentity(*this, getLhs(), adaptor.getRhs(), isIntZero, posZero);
}

OpFoldResult MulOp::fold(FoldAdaptor adaptor) {
  if (OpFoldResult r = foldIdentity(*this, getLhs(), adaptor.getRhs(), isIntOne, isFloatOne))
    return r;
  return foldIdentity(*this, getRhs(), adaptor.getLhs(), isIntOne, isFloatOne);
}

OpFoldResult DivOp::fold(FoldAdaptor adaptor) {
  return foldIdentity(*this, getLhs(), adaptor.getRhs(), isIntOne, isFloatOne);
}

namespace {
/// `op(fill(c), y)` -> `op(c, y)` when y has the result's type and the fill
/// a static shape: the scalar broadcasts as the fill did, and no tensor of
/// c's is made.
template <typename OpTy>
struct FillOperandToScalar : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op, PatternRewriter &rw) const override {
    Value lhs = op.getLhs(), rhs = op.getRhs();
    Type result = op.getType();
    // A fill of run-time size also checks that size against y's: keep it.
    auto staticFill = [](Value v) {
      auto fill = v.template getDefiningOp<FillOp>();
      return fill && fill.getType().hasStaticShape() ? fill : FillOp();
    };
    if (auto fill = staticFill(lhs); fill && rhs.getType() == result) {
      rw.modifyOpInPlace(op, [&] { op.getLhsMutable().assign(fill.getValue()); });
      return success();
    }
    if (auto fill = staticFill(rhs); fill && lhs.getType() == result) {
      rw.modifyOpInPlace(op, [&] { op.getRhsMutable().assign(fill.getValue()); });
      return success();
    }
    return failure();
  }
};

/// Whether every value of `from` converts to `to` exactly, so a later
/// conversion from `to` gives what a conversion from `from` gives: float
/// widening, integer widening from a signed type or i1, i1 and i32 to f64.
bool isExactConversion(Type from, Type to) {
  if (from == to)
    return true;
  if (isa<IndexType>(from) || isa<IndexType>(to))
    return false;
  auto fi = dyn_cast<IntegerType>(from), ti = dyn_cast<IntegerType>(to);
  auto ff = dyn_cast<FloatType>(from), tf = dyn_cast<FloatType>(to);
  if (ff && tf)
    return APFloat::isRepresentableAsNormalIn(ff.getFloatSemantics(),
                                              tf.getFloatSemantics());
  if (fi && ti)
    return fi.getWidth() == 1 ||
           (!fi.isUnsigned() && !ti.isUnsigned() && ti.getWidth() > fi.getWidth());
  if (fi && tf)
    return fi.getWidth() == 1 ||
           (!fi.isUnsigned() &&
            int(fi.getWidth()) <= int(APFloat::semanticsPrecision(tf.getFloatSemantics())));
  return false;
}

/// cast(cast(x : A -> B) -> C) -> cast(x : A -> C) when A -> B is exact.
struct CastOfExactCast : OpRewritePattern<CastOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(CastOp op, PatternRewriter &rw) const override {
    auto inner = op.getInput().getDefiningOp<CastOp>();
    if (!inner || !isExactConversion(getElementTypeOrSelf(inner.getInput()),
                                     getElementTypeOrSelf(inner.getType())))
      return failure();
    rw.modifyOpInPlace(op, [&] { op.getInputMutable().assign(inner.getInput()); });
    return success();
  }
};
} // namespace

void CastOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                         MLIRContext *context) {
  results.add<CastOfExactCast>(context);
}

#define GET_OP_CLASSES
#include "dialects/TDSL/IR/TDSLOps.cpp.inc"

//===----------------------------------------------------------------------===//
// GradOp
//===----------------------------------------------------------------------===//

LogicalResult GradOp::verifySymbolUses(SymbolTableCollection &symbols) {
  auto fn = symbols.lookupNearestSymbolFrom<FunctionOpInterface>(
      *this, getCalleeAttr());
  if (!fn)
    return emitOpError("'") << getCallee() << "' is not a function";
  auto type = cast<FunctionType>(fn.getFunctionType());
  if (!llvm::equal(type.getInputs(), getArgs().getTypes()))
    return emitOpError("arguments ")
           << getArgs().getTypes() << " do not match the inputs of '"
           << getCallee() << "' " << type.getInputs();
  if (type.getNumResults() != 1 || !isa<FloatType>(type.getResult(0)))
    return emitOpError("'") << getCallee()
                            << "' must return one floating-point scalar";
  unsigned n = getNumResults();
  if (n == 0 || n > type.getNumInputs())
    return emitOpError("needs one result per differentiated argument: 1 to ")
           << type.getNumInputs() << ", not " << n;
  for (unsigned i = 0; i < n; ++i) {
    if (!isa<FloatType>(getElementTypeOrSelf(type.getInput(i))))
      return emitOpError("argument ")
             << i << " of '" << getCallee() << "' must be floating-point";
    if (getResult(i).getType() != type.getInput(i))
      return emitOpError("result type ")
             << getResult(i).getType() << " must be argument " << i
             << "'s type " << type.getInput(i);
  }
  return success();
}

//===----------------------------------------------------------------------===//
// LoadOp
//===----------------------------------------------------------------------===//

LogicalResult LoadOp::verify() {
  if (getFormat() == "npy")
    return success();
  if (getFormat() != "csv")
    return emitOpError("format must be \"npy\" or \"csv\", not \"")
           << getFormat() << "\"";
  auto type = cast<RankedTensorType>(getType());
  Type elem = type.getElementType();
  if (type.getRank() != 2 ||
      !(elem.isF32() || elem.isF64() || elem.isSignlessInteger(32) ||
        elem.isSignlessInteger(64)))
    return emitOpError("a CSV file is read as a rank-2 tensor of f32, f64, "
                       "i32 or i64, not ")
           << type;
  return success();
}

/// Results of a collective have the types of its operands.
static LogicalResult verifyCollective(Operation *op, TypeRange operands,
                                      TypeRange results) {
  if (!llvm::equal(operands, results))
    return op->emitOpError("results must have the types of the operands");
  return success();
}

LogicalResult AllReduceOp::verify() {
  if (getKind() != "sum" && getKind() != "max" && getKind() != "min")
    return emitOpError("kind must be \"sum\", \"max\" or \"min\", not \"")
           << getKind() << "\"";
  return verifyCollective(*this, getValues().getTypes(), getResultTypes());
}

LogicalResult BroadcastOp::verify() {
  return verifyCollective(*this, getValues().getTypes(), getResultTypes());
}
