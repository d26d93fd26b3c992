//===- ReverseMode.cpp - Adjoints of tdsl ops -----------------------------===//
//
// The rules follow ../shared/AUTODIFF.md: element-wise derivatives from the
// primal values, adjoints summed over broadcast dimensions, `@` as two
// contractions, and the adjoint of an index_gen for each input as an
// index_gen over the same loops whose output is that input's subscripts.
// Ties split as PyTorch does (max/min of two values: half to each), and a
// zero adjoint never meets an infinite derivative (log, division, sqrt and
// pow at their poles give 0, not NaN, where the branch was not taken).
//
//===----------------------------------------------------------------------===//
#include "dialects/TDSL/Transforms/ReverseMode.h"
#include "dialects/TDSL/IR/TDSLOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/IRMapping.h"

#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/TypeSwitch.h"

#include <limits>

using namespace mlir;
using namespace tdsl::ir;

static Type elementOf(Value v) { return getElementTypeOrSelf(v.getType()); }

static bool isFloat(Value v) { return isa<FloatType>(elementOf(v)); }

/// What to call an op the sweep cannot differentiate, for the error.
static std::string describe(Operation *op) {
  StringRef name = op->getName().getStringRef();
  if (name == "scf.for")
    return "a sequential 'for' loop";
  if (name == "scf.if")
    return "an 'if'";
  if (isa<ParallelForOp>(op))
    return "a 'parallel for'";
  if (name == "func.call")
    return "a call that cannot be inlined (recursion)";
  if (name == "tensor.extract")
    return "a read with a computed subscript";
  return ("'" + name + "'").str();
}

/// A value of `like`'s type, all zeros, that does not read `like`'s values
/// (an infinite element must not make a NaN).
Value tdsl::ir::zerosLike(OpBuilder &b, Location loc, Value like) {
  Type elem = getElementTypeOrSelf(like.getType());
  Value zero = ConstantOp::create(b, loc, FloatAttr::get(elem, 0));
  auto tensor = dyn_cast<RankedTensorType>(like.getType());
  if (!tensor)
    return zero;
  MLIRContext *ctx = b.getContext();
  unsigned rank = tensor.getRank();
  AffineMap id = AffineMap::getMultiDimIdentityMap(rank, ctx);
  SmallVector<IteratorType> iters(rank, IteratorType::parallel);
  auto op = IndexGenOp::create(b, loc, tensor, ValueRange{like},
                               ArrayRef<AffineMap>{id, id}, iters,
                               CombinerKind::none);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToEnd(&op.getRegion().front());
  YieldOp::create(b, loc, zero);
  return op.getResult();
}

Value ReverseSweep::constant(Location loc, Type type, double v) {
  return ConstantOp::create(b, loc, FloatAttr::get(type, v));
}

Value tdsl::ir::clonePrimalBody(OpBuilder &bb, Block &old, ValueRange args) {
  IRMapping mapping;
  mapping.map(old.getArguments(), args.take_front(old.getNumArguments()));
  for (Operation &inner : old.without_terminator())
    bb.clone(inner, mapping);
  return mapping.lookupOrDefault(old.getTerminator()->getOperand(0));
}

Value tdsl::ir::keepWhere(OpBuilder &bb, Location loc, Value seed,
                          Value cond) {
  Value zero = ConstantOp::create(bb, loc, FloatAttr::get(seed.getType(), 0));
  return SelectOp::create(bb, loc, seed.getType(), cond, seed, zero);
}

Value tdsl::ir::buildIndexGen(OpBuilder &b, Location loc, Type resultType,
                             ValueRange inputs, ArrayRef<AffineMap> maps,
                             unsigned numLoops,
                             function_ref<Value(OpBuilder &, ValueRange)> body,
                             CombinerKind reduce) {
  llvm::SmallBitVector parallel(numLoops);
  for (AffineExpr e : maps.back().getResults())
    parallel.set(cast<AffineDimExpr>(e).getPosition());
  SmallVector<IteratorType> iters;
  for (unsigned d = 0; d < numLoops; ++d)
    iters.push_back(parallel.test(d) ? IteratorType::parallel
                                     : IteratorType::reduction);
  CombinerKind combiner = parallel.all() ? CombinerKind::none : reduce;
  auto op = IndexGenOp::create(b, loc, resultType, inputs, maps, iters,
                               combiner);
  OpBuilder::InsertionGuard guard(b);
  Block &block = op.getRegion().front();
  b.setInsertionPointToEnd(&block);
  YieldOp::create(b, loc, body(b, block.getArguments()));
  return op.getResult();
}

Value ReverseSweep::unbroadcast(Location loc, Value g, Value target) {
  Type targetType = target.getType();
  if (g.getType() == targetType)
    return g;
  auto gType = cast<RankedTensorType>(g.getType());
  auto tType = dyn_cast<RankedTensorType>(targetType);
  unsigned n = gType.getRank(), k = tType ? tType.getRank() : 0;
  MLIRContext *ctx = b.getContext();
  // Loops over g, plus one of extent 1 (read from the target) per static
  // size-1 dimension the target was stretched along.
  SmallVector<AffineExpr> out;
  unsigned numLoops = n;
  for (unsigned j = 0; j < k; ++j) {
    unsigned rd = n - k + j;
    bool stretched = tType.getDimSize(j) == 1 && gType.getDimSize(rd) != 1;
    out.push_back(getAffineDimExpr(stretched ? numLoops++ : rd, ctx));
  }
  SmallVector<Value> inputs{g};
  SmallVector<AffineMap> maps;
  SmallVector<AffineExpr> all;
  for (unsigned d = 0; d < n; ++d)
    all.push_back(getAffineDimExpr(d, ctx));
  maps.push_back(AffineMap::get(numLoops, 0, all, ctx));
  if (numLoops > n) {
    inputs.push_back(target);
    maps.push_back(AffineMap::get(numLoops, 0, out, ctx));
  }
  maps.push_back(AffineMap::get(numLoops, 0, out, ctx));
  return buildIndexGen(b, loc, targetType, inputs, maps, numLoops,
                       [](OpBuilder &, ValueRange args) { return args[0]; });
}

Type ReverseSweep::adjointType(Value v) {
  if (gathered && v == gathered)
    return elementOf(v);
  return v.getType();
}

Value ReverseSweep::zeroAdjoint(OpBuilder &bb, Location loc, Value v) {
  if (gathered && v == gathered)
    return ConstantOp::create(bb, loc, FloatAttr::get(elementOf(v), 0));
  return zerosLike(bb, loc, v);
}

void ReverseSweep::accumulate(Location loc, Value operand,
                              Value contribution) {
  bool isGathered = gathered && operand == gathered;
  if (!isGathered || isa<RankedTensorType>(contribution.getType()))
    contribution = unbroadcast(loc, contribution, operand);
  // A whole-tensor op on the gathered tensor (x * f32(i) in a `parallel
  // for` body) contributes to every element: this iteration's is the one
  // at `element`.
  if (isGathered && isa<RankedTensorType>(contribution.getType())) {
    SmallVector<Value> at;
    for (Value e : element)
      at.push_back(CastOp::create(b, loc, b.getIndexType(), e));
    contribution = tensor::ExtractOp::create(b, loc, contribution, at);
  }
  Value &slot = adjoints[operand];
  slot = slot ? AddOp::create(b, loc, slot, contribution).getResult()
              : contribution;
}

void ReverseSweep::markActive(llvm::iterator_range<Block::iterator> ops) {
  for (Operation &op : ops) {
    bool usesActive = false;
    op.walk([&](Operation *inner) {
      usesActive |= llvm::any_of(inner->getOperands(),
                                 [&](Value v) { return active.contains(v); });
    });
    if (usesActive)
      for (Value r : op.getResults())
        if (isFloat(r))
          active.insert(r);
  }
}

FailureOr<Value> ReverseSweep::run(Block &block, Value output,
                                   Value outputAdjoint, Value seedValue) {
  FailureOr<SmallVector<Value>> adj =
      run(block, output, outputAdjoint, seedValue, nullptr);
  if (failed(adj))
    return failure();
  return adj->front();
}

FailureOr<SmallVector<Value>>
ReverseSweep::run(Block &block, ValueRange outputs, ValueRange outputAdjoints,
                  ValueRange seedValues, Operation *after) {
  active.clear();
  active.insert(seedValues.begin(), seedValues.end());
  adjoints.clear();
  auto first = after ? std::next(after->getIterator()) : block.begin();
  markActive(llvm::make_range(first, block.end()));
  SmallVector<Operation *> ops;
  for (Operation &op : llvm::make_range(first, std::prev(block.end())))
    ops.push_back(&op);
  b.setInsertionPoint(block.getTerminator());
  for (auto [output, g] : llvm::zip(outputs, outputAdjoints)) {
    if (!g || !active.contains(output))
      continue;
    Value &slot = adjoints[output];
    slot = slot ? AddOp::create(b, output.getLoc(), slot, g).getResult() : g;
  }
  for (Operation *op : llvm::reverse(ops)) {
    if (llvm::none_of(op->getResults(),
                      [&](Value r) { return adjoints.count(r); }))
      continue;
    if (failed(visit(op)))
      return failure();
  }
  SmallVector<Value> result;
  for (Value s : seedValues)
    result.push_back(adjoints.lookup(s));
  return result;
}

/// The vocabulary of the element-wise rules: tdsl ops at the op's
/// location, constants of its result's element type, and `to`, which adds a
/// contribution to an operand when it is active.
struct ReverseSweep::Rules {
  ReverseSweep &s;
  Operation *op;
  Location loc;
  Value g, y;
  Type et;

  OpBuilder &b() { return s.b; }
  Value x(unsigned i) { return op->getOperand(i); }
  Value c(double v) { return s.constant(loc, et, v); }
  Value mul(Value l, Value r) { return MulOp::create(b(), loc, l, r); }
  Value div(Value l, Value r) { return DivOp::create(b(), loc, l, r); }
  Value sub(Value l, Value r) { return SubOp::create(b(), loc, l, r); }
  Value neg(Value v) { return NegOp::create(b(), loc, v.getType(), v); }
  Value cmp(CmpPredicate p, Value l, Value r) {
    Type t = getBroadcastType(l.getType(), r.getType(), b().getI1Type());
    return CmpOp::create(b(), loc, t, p, l, r);
  }
  Value select(Value cond, Value t, Value f) {
    Type rt = getBroadcastType(
        getBroadcastType(cond.getType(), t.getType(), elementOf(t)),
        f.getType(), elementOf(t));
    return SelectOp::create(b(), loc, rt, cond, t, f);
  }
  /// Where the adjoint is exactly 0 (an untaken branch), so is the
  /// contribution, even at a pole of the derivative.
  Value guarded(Value contribution) {
    return select(cmp(CmpPredicate::eq, g, c(0)), c(0), contribution);
  }
  void to(unsigned i, function_ref<Value()> contribution) {
    if (s.active.contains(x(i)))
      s.accumulate(loc, x(i), contribution());
  }
  /// max/min of two values: the whole adjoint to the larger (smaller), half
  /// to each at a tie (torch.maximum, torch.minimum).
  void tieSplit(CmpPredicate wins) {
    for (unsigned i : {0u, 1u})
      to(i, [&] {
        return mul(g, select(cmp(wins, x(i), x(1 - i)), c(1),
                             select(cmp(CmpPredicate::eq, x(0), x(1)), c(0.5),
                                    c(0))));
      });
  }

  /// Arithmetic, choices, conversions and fills; nothing if `op` is none.
  std::optional<LogicalResult> arithmetic() {
    return TypeSwitch<Operation *, std::optional<LogicalResult>>(op)
        .Case<AddOp>([&](auto) {
          to(0, [&] { return g; });
          to(1, [&] { return g; });
          return success();
        })
        .Case<SubOp>([&](auto) {
          to(0, [&] { return g; });
          to(1, [&] { return neg(g); });
          return success();
        })
        .Case<MulOp>([&](auto) {
          to(0, [&] { return mul(g, x(1)); });
          to(1, [&] { return mul(g, x(0)); });
          return success();
        })
        .Case<DivOp>([&](auto) {
          to(0, [&] { return guarded(div(g, x(1))); });
          to(1, [&] { return guarded(neg(div(mul(g, y), x(1)))); });
          return success();
        })
        .Case<RemOp>([&](auto) {
          // fmod(a, b) = a - trunc(a / b) * b, and trunc(a / b) = (a - y) / b.
          to(0, [&] { return g; });
          to(1, [&] { return guarded(neg(mul(g, div(sub(x(0), y), x(1))))); });
          return success();
        })
        .Case<NegOp>([&](auto) {
          to(0, [&] { return neg(g); });
          return success();
        })
        .Case<PowOp>([&](auto) {
          // As PyTorch: 0 where the exponent is 0 (y * x^(y-1) is 0 * inf
          // at x = 0), and for the exponent 0 where x = 0 and y >= 0
          // (x^y * log x is 0 * -inf).
          to(0, [&] {
            Value p = PowOp::create(b(), loc, x(0), sub(x(1), c(1)));
            return guarded(select(cmp(CmpPredicate::eq, x(1), c(0)), c(0),
                                  mul(g, mul(x(1), p))));
          });
          to(1, [&] {
            Value l = LogOp::create(b(), loc, x(0).getType(), x(0));
            Value d = mul(g, mul(y, l));
            Value atZero = select(cmp(CmpPredicate::ge, x(1), c(0)), c(0), d);
            return guarded(select(cmp(CmpPredicate::eq, x(0), c(0)), atZero, d));
          });
          return success();
        })
        .Case<MaxOp>([&](auto) {
          tieSplit(CmpPredicate::gt);
          return success();
        })
        .Case<MinOp>([&](auto) {
          tieSplit(CmpPredicate::lt);
          return success();
        })
        .Case<SelectOp>([&](auto) {
          to(1, [&] { return select(x(0), g, c(0)); });
          to(2, [&] { return select(x(0), c(0), g); });
          return success();
        })
        .Case<CastOp>([&](auto) {
          to(0, [&] {
            return CastOp::create(b(), loc, x(0).getType(), g).getResult();
        });
          return success();
        })
        .Case<FillOp>([&](auto) {
          to(0, [&] { return g; }); // summed over the whole tensor
          return success();
        })
        .Default([](Operation *) { return std::nullopt; });
  }

  /// The math built-ins; nothing if `op` is none.
  std::optional<LogicalResult> math() {
    return TypeSwitch<Operation *, std::optional<LogicalResult>>(op)
        .Case<ExpOp>([&](auto) {
          to(0, [&] { return mul(g, y); });
          return success();
        })
        .Case<LogOp>([&](auto) {
          to(0, [&] { return guarded(div(g, x(0))); });
          return success();
        })
        .Case<SqrtOp>([&](auto) {
          to(0, [&] { return guarded(div(mul(g, c(0.5)), y)); });
          return success();
        })
        .Case<TanhOp>([&](auto) {
          to(0, [&] { return mul(g, sub(c(1), mul(y, y))); });
          return success();
        })
        .Case<SigmoidOp>([&](auto) {
          to(0, [&] { return mul(g, mul(y, sub(c(1), y))); });
          return success();
        })
        .Case<SinOp>([&](auto) {
          to(0, [&] { return mul(g, CosOp::create(b(), loc, x(0).getType(), x(0))); });
          return success();
        })
        .Case<CosOp>([&](auto) {
          to(0, [&] {
            return neg(mul(g, SinOp::create(b(), loc, x(0).getType(), x(0))));
        });
          return success();
        })
        .Case<AbsOp>([&](auto) {
          // sign(x), 0 at 0 (torch.abs).
          to(0, [&] {
            Value zero = c(0);
            return mul(g, select(cmp(CmpPredicate::gt, x(0), zero), c(1),
                                 select(cmp(CmpPredicate::lt, x(0), zero),
                                        c(-1), zero)));
        });
          return success();
        })
        .Case<FloorOp, CeilOp>([&](auto) { return success(); }) // zero
        .Default([](Operation *) { return std::nullopt; });
  }
};

LogicalResult ReverseSweep::visit(Operation *op) {
  if (auto ifOp = dyn_cast<scf::IfOp>(op))
    return visitIf(ifOp);
  if (auto forOp = dyn_cast<scf::ForOp>(op))
    return visitFor(forOp);
  if (auto par = dyn_cast<ParallelForOp>(op))
    return visitParallelFor(par);
  Value y = op->getResult(0);
  Rules rules{*this, op, op->getLoc(), adjoints.lookup(y), y, elementOf(y)};
  if (std::optional<LogicalResult> done = rules.arithmetic())
    return *done;
  if (std::optional<LogicalResult> done = rules.math())
    return *done;
  Value g = rules.g;
  return TypeSwitch<Operation *, LogicalResult>(op)
      .Case<MatmulOp>([&](auto) { return visitMatmul(op, g); })
      .Case<tensor::ExtractOp>([&](auto) { return visitExtract(op, g); })
      .Case<tensor::CastOp>([&](auto cast) {
        // A static size made dynamic or the reverse: the adjoint casts back.
        Value x = cast.getSource();
        if (active.contains(x))
          accumulate(op->getLoc(), x,
                     tensor::CastOp::create(b, op->getLoc(), x.getType(), g));
        return success();
      })
      .Case<IndexGenOp>([&](auto) { return visitIndexGen(op, g); })
      .Case<tensor::InsertOp, tensor::InsertSliceOp, tensor::ExtractSliceOp>(
          [&](auto) { return visitSlice(op, g); })
      .Default([&](Operation *) {
        return op->emitError("cannot differentiate ")
               << describe(op) << " on the path from the argument to the "
               << "result yet";
      });
}

/// dA = dC @ B^T and dB = A^T @ dC, as contractions over the same loops, for
/// the three forms of `@` (matrix-matrix, matrix-vector, vector-matrix).
LogicalResult ReverseSweep::visitMatmul(Operation *op, Value g) {
  Location loc = op->getLoc();
  Value lhs = op->getOperand(0), rhs = op->getOperand(1);
  unsigned lr = cast<RankedTensorType>(lhs.getType()).getRank();
  unsigned rr = cast<RankedTensorType>(rhs.getType()).getRank();
  MLIRContext *ctx = b.getContext();
  auto map = [&](unsigned numLoops, ArrayRef<unsigned> dims) {
    SmallVector<AffineExpr> exprs;
    for (unsigned d : dims)
      exprs.push_back(getAffineDimExpr(d, ctx));
    return AffineMap::get(numLoops, 0, exprs, ctx);
  };
  auto product = [](OpBuilder &bb, ValueRange args) -> Value {
    return MulOp::create(bb, bb.getUnknownLoc(), args[0], args[1]);
  };
  auto contract = [&](Value target, Value p, ArrayRef<unsigned> pm, Value q,
                      ArrayRef<unsigned> qm, ArrayRef<unsigned> om,
                      unsigned numLoops) {
    if (!active.contains(target))
      return;
    SmallVector<AffineMap> maps{map(numLoops, pm), map(numLoops, qm),
                                map(numLoops, om)};
    Value v = buildIndexGen(b, loc, target.getType(), ValueRange{p, q}, maps,
                            numLoops, product);
    accumulate(loc, target, v);
  };
  if (lr == 2 && rr == 2) {
    // C[i, j] = A[i, k] B[k, j]
    contract(lhs, g, {0, 2}, rhs, {1, 2}, {0, 1}, 3); // dA[i,k] = g[i,j] B[k,j]
    contract(rhs, lhs, {2, 0}, g, {2, 1}, {0, 1}, 3); // dB[k,j] = A[i,k] g[i,j]
  } else if (lr == 2) {
    // y[i] = A[i, k] v[k]
    contract(lhs, g, {0}, rhs, {1}, {0, 1}, 2);       // dA[i,k] = g[i] v[k]
    contract(rhs, lhs, {1, 0}, g, {1}, {0}, 2);       // dv[k] = A[i,k] g[i]
  } else {
    // y[j] = v[k] B[k, j]
    contract(lhs, g, {1}, rhs, {0, 1}, {0}, 2);       // dv[k] = g[j] B[k,j]
    contract(rhs, lhs, {0}, g, {1}, {0, 1}, 2);       // dB[k,j] = v[k] g[j]
  }
  return success();
}

LogicalResult ReverseSweep::visitIndexGen(Operation *op, Value g) {
  auto gen = cast<IndexGenOp>(op);
  CombinerKind combiner = gen.getCombiner();
  if (combiner != CombinerKind::sum && combiner != CombinerKind::none &&
      combiner != CombinerKind::max && combiner != CombinerKind::min)
    return op->emitError("cannot differentiate a ")
           << stringifyCombinerKind(combiner)
           << " reduction in index notation yet";
  Extremum extremum;
  if (combiner == CombinerKind::max || combiner == CombinerKind::min) {
    FailureOr<Extremum> found = findFirstExtremum(gen);
    if (failed(found))
      return failure();
    extremum = *found;
  }
  for (auto [i, input] : llvm::enumerate(gen.getInputs())) {
    // An element the body does not use (an input that only gives loops
    // their ranges) has a zero adjoint.
    if (!active.contains(input) ||
        gen.getRegion().front().getArgument(i).use_empty())
      continue;
    FailureOr<Value> adj = indexGenAdjoint(op, g, input, i, extremum);
    if (failed(adj))
      return failure();
    accumulate(op->getLoc(), input, *adj);
  }
  // Scalars of this block read directly inside the body.
  llvm::SetVector<Value> captured;
  op->walk([&](Operation *inner) {
    if (inner == op)
      return;
    for (Value v : inner->getOperands())
      if (active.contains(v) && !op->isAncestor(v.getParentBlock()->getParentOp()))
        captured.insert(v);
  });
  for (Value v : captured) {
    FailureOr<Value> adj = indexGenAdjoint(op, g, v, ~0u, extremum);
    if (failed(adj))
      return failure();
    accumulate(op->getLoc(), v, *adj);
  }
  return success();
}

/// dI[u] = sum over the iterations x with M(x) = u of g[out(x)] * d body /
/// d I, for the input `inputIndex` read through M, or (~0u) a value `input`
/// the body reads directly: a scalar (summed over every loop) or a tensor
/// read with computed subscripts (tensor.extract).
///
/// A subscript of M that is the first use of a loop makes that loop an
/// output loop. Any other subscript (a constant, a repeated index), and
/// each dimension of a tensor read with computed subscripts, gets a loop of
/// its own over that dimension of the input, and the iteration contributes
/// only where the subscript equals that loop: a masked gather, as
/// deterministic as the rest, but it visits every element of that
/// dimension for every iteration.
FailureOr<Value> ReverseSweep::indexGenAdjoint(Operation *op, Value g,
                                               Value input,
                                               unsigned inputIndex,
                                               const Extremum &extremum) {
  bool direct = inputIndex != ~0u;
  if (gathered && input == gathered)
    return elementAdjoint(op, g, inputIndex, extremum);
  if (direct) {
    bool applicable = false;
    FailureOr<Value> inverted =
        invertedAdjoint(op, g, inputIndex, extremum, applicable);
    if (applicable)
      return inverted;
  }
  bool gatheredInput = !direct && isa<RankedTensorType>(input.getType());
  if (gatheredInput && !extremum.first)
    if (std::optional<ShiftPlan> plan =
            planShifts(cast<IndexGenOp>(op), input))
      return shiftedAdjoint(op, g, input, *plan);
  if (gatheredInput && !extremum.first)
    if (std::optional<RadixPlan> plan = planRadix(cast<IndexGenOp>(op), input))
      return radixAdjoint(op, g, input, *plan);
  if (gatheredInput)
    op->emitRemark("the adjoint of a read with computed subscripts is a "
                   "masked gather over the whole tensor");
  return gatherAdjoint(op, g, input, inputIndex, extremum, nullptr);
}

std::optional<unsigned> tdsl::ir::loopOf(Value v, IndexGenOp gen) {
  while (auto cast = v.getDefiningOp<CastOp>()) {
    auto wide = [](Type t) { return t.isIndex() || t.isInteger(64); };
    if (!wide(cast.getInput().getType()) || !wide(cast.getType()))
      return std::nullopt;
    v = cast.getInput();
  }
  auto index = v.getDefiningOp<IndexOp>();
  if (!index || index->getParentOfType<IndexGenOp>() != gen)
    return std::nullopt;
  return index.getDim();
}

SmallVector<int> tdsl::ir::directLoops(IndexGenOp gen, Value input) {
  auto type = cast<RankedTensorType>(input.getType());
  SmallVector<int> loops(type.getRank(), -1);
  SmallVector<tensor::ExtractOp> reads;
  for (Operation *user : input.getUsers()) {
    // Sizes (the reads' checks) are no element reads.
    if (!gen->isProperAncestor(user) || isa<tensor::DimOp>(user))
      continue;
    auto read = dyn_cast<tensor::ExtractOp>(user);
    if (!read)
      return loops;
    reads.push_back(read);
  }
  SmallVector<AffineMap> maps = gen.getIndexingMapsArray();
  for (unsigned k = 0; k < loops.size(); ++k) {
    std::optional<unsigned> common;
    for (tensor::ExtractOp read : reads) {
      std::optional<unsigned> loop = loopOf(read.getIndices()[k], gen);
      if (!loop || (common && *common != *loop)) {
        common.reset();
        break;
      }
      common = loop;
    }
    if (!common)
      continue;
    AffineExpr dim = getAffineDimExpr(*common, gen.getContext());
    for (auto [operand, map] : llvm::zip(gen.getInputs(), maps))
      if (operand == input && map.getResult(k) == dim)
        loops[k] = *common;
  }
  return loops;
}

/// The masked gather of indexGenAdjoint or, with `shift`, one term of a
/// shifted adjoint: the loops of the op itself, the output indexed by the
/// shift's loops, each iteration contributing the reads of `input` at
/// those loops plus the shift's offsets.
FailureOr<Value> ReverseSweep::gatherAdjoint(Operation *op, Value g,
                                             Value input, unsigned inputIndex,
                                             const Extremum &extremum,
                                             const Shift *shift) {
  auto gen = cast<IndexGenOp>(op);
  Location loc = op->getLoc();
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineMap> maps = gen.getIndexingMapsArray();
  unsigned numOldLoops = gen.getIteratorTypes().size();
  bool direct = inputIndex != ~0u;
  bool gatheredInput = !direct && isa<RankedTensorType>(input.getType());
  // The output's subscripts, and the (new loop, subscript) pairs to mask.
  SmallVector<AffineExpr> out;
  SmallVector<std::pair<unsigned, AffineExpr>> masked;
  unsigned numLoops = numOldLoops;
  llvm::SmallBitVector seen(numOldLoops);
  SmallVector<unsigned> gatherLoops; // per dimension of a gathered input
  Type resultType = input.getType();
  if (shift) {
    for (unsigned loop : shift->loops)
      out.push_back(getAffineDimExpr(loop, ctx));
    resultType = shift->type;
  } else if (direct) {
    for (AffineExpr e : maps[inputIndex].getResults()) {
      auto dim = dyn_cast<AffineDimExpr>(e);
      if (dim && !seen.test(dim.getPosition())) {
        seen.set(dim.getPosition());
        out.push_back(e);
        continue;
      }
      masked.push_back({numLoops, e});
      out.push_back(getAffineDimExpr(numLoops++, ctx));
    }
  } else if (gatheredInput) {
    // A dimension read at one loop of the op is that loop of the adjoint
    // (a batch index, `x[n, f / (H * W), ...]` of nn.flatten), not a loop
    // of its own over the dimension: the gather visits the tensor once
    // per value of the other loops only.
    for (int loop : directLoops(gen, input)) {
      if (loop < 0 || seen.test(loop))
        loop = numLoops++;
      else
        seen.set(loop);
      gatherLoops.push_back(loop);
      out.push_back(getAffineDimExpr(loop, ctx));
    }
  }
  auto widen = [&](AffineMap m) {
    return AffineMap::get(numLoops, 0, m.getResults(), ctx);
  };
  SmallVector<Value> inputs(gen.getInputs());
  SmallVector<AffineMap> newMaps;
  for (AffineMap m : ArrayRef(maps).drop_back())
    newMaps.push_back(widen(m));
  unsigned numOld = inputs.size();
  inputs.push_back(g);
  newMaps.push_back(widen(maps.back()));
  if (extremum.first) {
    inputs.push_back(extremum.first);
    newMaps.push_back(widen(maps.back()));
  }
  AffineMap outMap = AffineMap::get(numLoops, 0, out, ctx);
  // The input itself carries the extents of the new loops.
  if (numLoops > numOldLoops) {
    inputs.push_back(input);
    newMaps.push_back(outMap);
  }
  newMaps.push_back(outMap);
  Block &old = gen.getRegion().front();
  FailureOr<Value> result = failure();
  Value adjoint = buildIndexGen(
      b, loc, resultType, inputs, newMaps, numLoops,
      [&](OpBuilder &bb, ValueRange args) -> Value {
        Value yielded = clonePrimalBody(bb, old, args);
        Block *body = bb.getInsertionBlock();
        Value seedAdjoint = args[numOld];
        // Only the first extremal iteration of each output gets the adjoint.
        if (extremum.first)
          seedAdjoint = keepWhere(
              bb, loc, seedAdjoint,
              CmpOp::create(bb, loc, bb.getI1Type(), CmpPredicate::eq,
                            linearIndex(bb, loc, extremum), args[numOld + 1]));
        // Only iterations whose subscripts are the output element's.
        for (auto [loop, e] : masked)
          seedAdjoint = keepWhere(
              bb, loc, seedAdjoint,
              CmpOp::create(bb, loc, bb.getI1Type(), CmpPredicate::eq,
                            loopIndex(bb, loc, loop), evaluate(bb, loc, e)));
        // The sweep writes before a terminator: a yield of the primal value,
        // whose operand becomes the adjoint.
        auto yield = YieldOp::create(bb, loc, yielded);
        ReverseSweep inner(ctx);
        if (shift) {
          SmallVector<Value> at;
          for (auto [loop, c] : llvm::zip(shift->loops, shift->offset))
            at.push_back(AddOp::create(
                bb, loc, loopIndex(bb, loc, loop),
                ConstantOp::create(bb, loc, bb.getI64IntegerAttr(c))));
          inner.setElement(input, at);
        } else if (gatheredInput) {
          SmallVector<Value> at;
          for (unsigned loop : gatherLoops)
            at.push_back(loopIndex(bb, loc, loop));
          inner.setElement(input, at);
        } else {
          inner.setElement(this->gathered, element);
        }
        yield->moveAfter(&body->back());
        result = inner.run(*body, yielded, seedAdjoint,
                           direct ? args[inputIndex] : input);
        if (failed(result))
          return yielded;
        Value adj = *result;
        if (!adj) {
          OpBuilder zb(yield);
          adj = ConstantOp::create(zb, loc, FloatAttr::get(elementOf(input), 0));
        }
        yield->erase();
        return adj;
      });
  if (failed(result))
    return failure();
  return adjoint;
}

/// The current value of `loop` of the enclosing index_gen, as an i64.
Value ReverseSweep::loopIndex(OpBuilder &bb, Location loc, unsigned loop) {
  Value i = IndexOp::create(bb, loc, bb.getIndexType(), (int64_t)loop);
  return CastOp::create(bb, loc, bb.getI64Type(), i);
}

/// An affine subscript of the enclosing index_gen's loops, as an i64.
Value ReverseSweep::evaluate(OpBuilder &bb, Location loc, AffineExpr e) {
  if (auto d = dyn_cast<AffineDimExpr>(e))
    return loopIndex(bb, loc, d.getPosition());
  if (auto c = dyn_cast<AffineConstantExpr>(e))
    return ConstantOp::create(bb, loc, bb.getI64IntegerAttr(c.getValue()));
  auto bin = cast<AffineBinaryOpExpr>(e);
  Value l = evaluate(bb, loc, bin.getLHS()), r = evaluate(bb, loc, bin.getRHS());
  if (e.getKind() == AffineExprKind::Add)
    return AddOp::create(bb, loc, l, r);
  if (e.getKind() == AffineExprKind::Mul)
    return MulOp::create(bb, loc, l, r);
  if (e.getKind() == AffineExprKind::FloorDiv)
    return DivOp::create(bb, loc, l, r);
  return RemOp::create(bb, loc, l, r);
}

/// Row-major number of the current iteration of the reduction loops.
Value ReverseSweep::linearIndex(OpBuilder &bb, Location loc,
                                const Extremum &extremum) {
  return linearIndex(bb, loc, extremum,
                     [&](unsigned loop) { return loopIndex(bb, loc, loop); });
}

Value ReverseSweep::linearIndex(OpBuilder &bb, Location loc,
                                const Extremum &extremum,
                                function_ref<Value(unsigned)> loopValue) {
  Value lin = ConstantOp::create(bb, loc, bb.getI64IntegerAttr(0));
  for (auto [loop, extent] : llvm::zip(extremum.loops, extremum.extents))
    lin = AddOp::create(bb, loc, MulOp::create(bb, loc, lin, extent),
                        loopValue(loop));
  return lin;
}

/// For O[o] = max over r of body(x) (min likewise), the first r in
/// row-major order where body(x) == O[o], as PyTorch's max with a dim and
/// its max-pool choose: first[o] = min over r of (body(x) == O[o] ? r :
/// INT64_MAX).
FailureOr<ReverseSweep::Extremum>
ReverseSweep::findFirstExtremum(IndexGenOp gen) {
  Location loc = gen.getLoc();
  SmallVector<AffineMap> maps = gen.getIndexingMapsArray();
  Extremum extremum;
  for (auto [loop, iter] : llvm::enumerate(gen.getIteratorTypesArray())) {
    if (iter != IteratorType::reduction)
      continue;
    Value extent;
    for (auto [input, map] : llvm::zip(gen.getInputs(), maps))
      for (auto [pos, e] : llvm::enumerate(map.getResults()))
        if (!extent && e == getAffineDimExpr(loop, b.getContext())) {
          Value d = tensor::DimOp::create(b, loc, input, (int64_t)pos);
          extent = CastOp::create(b, loc, b.getI64Type(), d);
        }
    if (!extent)
      return gen.emitError("cannot differentiate this reduction: no input "
                           "gives the extent of its loop ")
             << loop;
    extremum.loops.push_back(loop);
    extremum.extents.push_back(extent);
  }
  Value result = gen.getResult();
  SmallVector<Value> inputs(gen.getInputs());
  inputs.push_back(result);
  SmallVector<AffineMap> newMaps(maps.begin(), maps.end() - 1);
  newMaps.push_back(maps.back());
  newMaps.push_back(maps.back());
  Type i64 = b.getI64Type();
  Type resultType = i64;
  if (auto t = dyn_cast<RankedTensorType>(result.getType()))
    resultType = t.clone(i64);
  Block &old = gen.getRegion().front();
  unsigned numOld = gen.getInputs().size();
  extremum.first = buildIndexGen(
      b, loc, resultType, inputs, newMaps, maps.back().getNumDims(),
      [&](OpBuilder &bb, ValueRange args) -> Value {
        IRMapping mapping;
        mapping.map(old.getArguments(), args.take_front(numOld));
        for (Operation &inner : old.without_terminator())
          bb.clone(inner, mapping);
        Value v = mapping.lookupOrDefault(old.getTerminator()->getOperand(0));
        Value hit = CmpOp::create(bb, loc, bb.getI1Type(), CmpPredicate::eq,
                                  v, args[numOld]);
        Value none = ConstantOp::create(
            bb, loc, bb.getI64IntegerAttr(std::numeric_limits<int64_t>::max()));
        return SelectOp::create(bb, loc, i64, hit,
                                linearIndex(bb, loc, extremum), none);
      },
      CombinerKind::min);
  return extremum;
}

/// A read t[idx] of an active tensor. Inside the adjoint of an index_gen
/// that gathers `t` (the seed), it contributes where idx is the element
/// accumulated; elsewhere its adjoint is a tensor of t's shape that is g at
/// idx and 0 everywhere else.
LogicalResult ReverseSweep::visitExtract(Operation *op, Value g) {
  auto extract = cast<tensor::ExtractOp>(op);
  Value t = extract.getTensor();
  if (!active.contains(t))
    return success();
  Location loc = op->getLoc();
  auto same = [&](OpBuilder &bb, ValueRange at) {
    Value hit;
    for (auto [idx, u] : llvm::zip(extract.getIndices(), at)) {
      Value i = CastOp::create(bb, loc, bb.getI64Type(), idx);
      Value eq = CmpOp::create(bb, loc, bb.getI1Type(), CmpPredicate::eq, i, u);
      hit = hit ? AndOp::create(bb, loc, hit, eq).getResult() : eq;
    }
    return hit;
  };
  Value zero = constant(loc, g.getType(), 0);
  if (gathered && t == gathered) {
    accumulate(loc, t, SelectOp::create(b, loc, g.getType(),
                                        same(b, element), g, zero));
    return success();
  }
  auto type = cast<RankedTensorType>(t.getType());
  AffineMap id = AffineMap::getMultiDimIdentityMap(type.getRank(), b.getContext());
  Value oneHot = buildIndexGen(
      b, loc, type, ValueRange{t}, {id, id}, type.getRank(),
      [&](OpBuilder &bb, ValueRange) -> Value {
        SmallVector<Value> at;
        for (unsigned d = 0; d < type.getRank(); ++d)
          at.push_back(loopIndex(bb, loc, d));
        Value hit = same(bb, at);
        return hit ? SelectOp::create(bb, loc, g.getType(), hit, g, zero)
                         .getResult()
                   : g;
      });
  accumulate(loc, t, oneHot);
  return success();
}

/// Updates and slices (`x[k, j] = e`, `out[n, c, y + 1, x + 1] = ...`,
/// and the rows they read): the adjoint of an updated part is that part of
/// the seed, the rest of the seed goes to the old tensor, and a slice's
/// adjoint is the seed put back in place among zeros.
LogicalResult ReverseSweep::visitSlice(Operation *op, Value g) {
  Location loc = op->getLoc();
  if (auto slice = dyn_cast<tensor::ExtractSliceOp>(op);
      slice && gathered && slice.getSource() == gathered)
    return gatheredSlice(slice, g);
  for (Value v : op->getOperands())
    if (gathered && v == gathered)
      return op->emitError("cannot differentiate an update of a tensor read "
                           "with computed subscripts yet");
  if (auto insert = dyn_cast<tensor::InsertOp>(op)) {
    Value scalar = insert.getScalar(), dest = insert.getDest();
    if (active.contains(scalar))
      accumulate(loc, scalar,
                 tensor::ExtractOp::create(b, loc, g, insert.getIndices()));
    if (active.contains(dest))
      accumulate(loc, dest,
                 tensor::InsertOp::create(b, loc,
                                          constant(loc, elementOf(g), 0), g,
                                          insert.getIndices()));
    return success();
  }
  if (auto insert = dyn_cast<tensor::InsertSliceOp>(op)) {
    Value src = insert.getSource(), dest = insert.getDest();
    if (active.contains(src))
      accumulate(loc, src,
                 tensor::ExtractSliceOp::create(
                     b, loc, cast<RankedTensorType>(src.getType()), g,
                     insert.getMixedOffsets(), insert.getMixedSizes(),
                     insert.getMixedStrides()));
    if (active.contains(dest))
      accumulate(loc, dest,
                 tensor::InsertSliceOp::create(
                     b, loc, zerosLike(b, loc, src), g,
                     insert.getMixedOffsets(), insert.getMixedSizes(),
                     insert.getMixedStrides()));
    return success();
  }
  auto slice = cast<tensor::ExtractSliceOp>(op);
  Value src = slice.getSource();
  if (active.contains(src))
    accumulate(loc, src,
               tensor::InsertSliceOp::create(
                   b, loc, g, zerosLike(b, loc, src), slice.getMixedOffsets(),
                   slice.getMixedSizes(), slice.getMixedStrides()));
  return success();
}

/// A slice of the gathered tensor (a row read at an invariant position by
/// an op nested in the gather's body): the gathered element gets the
/// slice's adjoint at its place in the slice, or nothing outside it.
LogicalResult ReverseSweep::gatheredSlice(tensor::ExtractSliceOp slice,
                                          Value g) {
  Location loc = slice.getLoc();
  if (!slice.hasUnitStride())
    return slice.emitError("cannot differentiate a strided slice of a tensor "
                           "read with computed subscripts yet");
  Type i64 = b.getI64Type();
  llvm::SmallBitVector dropped = slice.getDroppedDims();
  Value inside = ConstantOp::create(b, loc, b.getBoolAttr(true));
  Value zeroI = ConstantOp::create(b, loc, b.getI64IntegerAttr(0));
  SmallVector<Value> at;
  for (auto [d, e] : llvm::enumerate(element)) {
    Value off = CastOp::create(
        b, loc, i64,
        getValueOrCreateConstantIndexOp(b, loc, slice.getMixedOffsets()[d]));
    Value size = CastOp::create(
        b, loc, i64,
        getValueOrCreateConstantIndexOp(b, loc, slice.getMixedSizes()[d]));
    Value rel = SubOp::create(b, loc, e, off);
    Value ok = AndOp::create(
        b, loc, CmpOp::create(b, loc, b.getI1Type(), CmpPredicate::ge, rel, zeroI),
        CmpOp::create(b, loc, b.getI1Type(), CmpPredicate::lt, rel, size));
    inside = AndOp::create(b, loc, inside, ok);
    if (!dropped.test(d))
      at.push_back(CastOp::create(
          b, loc, b.getIndexType(),
          SelectOp::create(b, loc, i64, ok, rel, zeroI)));
  }
  Value value = tensor::ExtractOp::create(b, loc, g, at);
  Value zero = constant(loc, value.getType(), 0);
  accumulate(loc, gathered,
             SelectOp::create(b, loc, value.getType(), inside, value, zero));
  return success();
}

/// Active values of the enclosing block that `op`'s regions read.
llvm::SetVector<Value> ReverseSweep::capturedActive(Operation *op) {
  llvm::SetVector<Value> captured;
  op->walk([&](Operation *inner) {
    if (inner == op)
      return;
    for (Value v : inner->getOperands())
      if (active.contains(v) &&
          !op->isAncestor(v.getParentBlock()->getParentOp()))
        captured.insert(v);
  });
  return captured;
}

/// The adjoint of `if c { ... yield a } else { ... yield b }` is
/// `if c { adjoint of the then branch } else { ... }` on the same
/// condition, each branch a copy of the primal one followed by its sweep,
/// yielding the adjoints of the active values the branches read.
LogicalResult ReverseSweep::visitIf(scf::IfOp ifOp) {
  Location loc = ifOp.getLoc();
  SmallVector<Value> seeds = capturedActive(ifOp).takeVector();
  if (seeds.empty())
    return success();
  SmallVector<Value> gs;
  for (Value r : ifOp.getResults())
    gs.push_back(adjoints.lookup(r));
  SmallVector<Type> types;
  for (Value v : seeds)
    types.push_back(adjointType(v));
  auto reverse = scf::IfOp::create(b, loc, types, ifOp.getCondition(),
                                   /*withElseRegion=*/true);
  for (auto [primal, rev] : {std::pair(&ifOp.getThenRegion(),
                                       &reverse.getThenRegion()),
                             std::pair(&ifOp.getElseRegion(),
                                       &reverse.getElseRegion())}) {
    if (rev->empty())
      rev->emplaceBlock();
    Block &rb = rev->front();
    OpBuilder rbld = OpBuilder::atBlockEnd(&rb);
    IRMapping mapping;
    SmallVector<Value> outs;
    if (!primal->empty()) {
      for (Operation &op : primal->front().without_terminator())
        rbld.clone(op, mapping);
      for (Value v : primal->front().getTerminator()->getOperands())
        outs.push_back(mapping.lookupOrDefault(v));
    }
    auto tmp = scf::YieldOp::create(rbld, loc);
    ReverseSweep inner(b.getContext());
    inner.setElement(gathered, element);
    FailureOr<SmallVector<Value>> adj =
        inner.run(rb, outs, ValueRange(gs).take_front(outs.size()), seeds,
                  nullptr);
    if (failed(adj))
      return failure();
    rbld.setInsertionPoint(tmp);
    SmallVector<Value> yields;
    for (auto [s, a] : llvm::zip(seeds, *adj))
      yields.push_back(a ? a : zeroAdjoint(rbld, loc, s));
    tmp->erase();
    rbld.setInsertionPointToEnd(&rb);
    scf::YieldOp::create(rbld, loc, yields);
  }
  for (auto [s, r] : llvm::zip(seeds, reverse.getResults()))
    accumulate(loc, s, r);
  return success();
}

/// A sequential loop runs backwards: at reverse step k it recomputes the
/// carried values of iteration i = lb + (N - 1 - k) * step by running the
/// loop forward from its initial values (no values are kept: time N^2 / 2
/// bodies, memory of one iteration), then sweeps one copy of the body from
/// the adjoints of that iteration's results to those of its carried values
/// and of the active values it reads, which accumulate across steps.
LogicalResult ReverseSweep::visitFor(scf::ForOp forOp) {
  Location loc = forOp.getLoc();
  SmallVector<Value> captured = capturedActive(forOp).takeVector();
  Value lb = forOp.getLowerBound(), ub = forOp.getUpperBound(),
        step = forOp.getStep();
  // N = max(0, ceil((ub - lb) / step)).
  Value zeroIdx = arith::ConstantIndexOp::create(b, loc, 0);
  Value span = arith::SubIOp::create(b, loc, ub, lb);
  span = arith::MaxSIOp::create(b, loc, span, zeroIdx);
  Value n = arith::CeilDivSIOp::create(b, loc, span, step);
  SmallVector<Value> inits;
  for (auto [r, init] : llvm::zip(forOp.getResults(), forOp.getInitArgs())) {
    Value g = adjoints.lookup(r);
    inits.push_back(g ? g : zerosLike(b, loc, r));
  }
  unsigned numCarried = inits.size();
  for (Value c : captured)
    inits.push_back(zeroAdjoint(b, loc, c));
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  auto reverse = scf::ForOp::create(b, loc, zeroIdx, n, one, inits);
  Block &rb = *reverse.getBody();
  OpBuilder rbld = OpBuilder::atBlockBegin(&rb);
  // i = lb + (n - 1 - k) * step
  Value k = reverse.getInductionVar();
  Value back = arith::SubIOp::create(
      rbld, loc, arith::SubIOp::create(rbld, loc, n, one), k);
  Value i = arith::AddIOp::create(rbld, loc, lb,
                                  arith::MulIOp::create(rbld, loc, back, step));
  // The carried values at the start of iteration i.
  auto replay = scf::ForOp::create(rbld, loc, lb, i, step, forOp.getInitArgs());
  {
    OpBuilder pb = OpBuilder::atBlockBegin(replay.getBody());
    IRMapping m;
    m.map(forOp.getInductionVar(), replay.getInductionVar());
    m.map(forOp.getRegionIterArgs(), replay.getRegionIterArgs());
    for (Operation &op : *forOp.getBody())
      pb.clone(op, m);
  }
  IRMapping m;
  m.map(forOp.getInductionVar(), i);
  m.map(forOp.getRegionIterArgs(), replay.getResults());
  for (Operation &op : forOp.getBody()->without_terminator())
    rbld.clone(op, m);
  SmallVector<Value> outs;
  for (Value v : forOp.getBody()->getTerminator()->getOperands())
    outs.push_back(m.lookupOrDefault(v));
  auto tmp = scf::YieldOp::create(rbld, loc);
  SmallVector<Value> seeds(replay.getResults());
  seeds.append(captured.begin(), captured.end());
  ReverseSweep inner(b.getContext());
  inner.setElement(gathered, element);
  FailureOr<SmallVector<Value>> adj =
      inner.run(rb, outs, reverse.getRegionIterArgs().take_front(numCarried),
                seeds, replay);
  if (failed(adj))
    return failure();
  rbld.setInsertionPoint(tmp);
  SmallVector<Value> yields;
  for (auto [j, s] : llvm::enumerate(seeds)) {
    Value a = (*adj)[j];
    if (j < numCarried) {
      yields.push_back(a ? a : zerosLike(rbld, loc, s));
      continue;
    }
    Value acc = reverse.getRegionIterArgs()[j];
    yields.push_back(a ? AddOp::create(rbld, loc, acc, a).getResult() : acc);
  }
  tmp->erase();
  rbld.setInsertionPointToEnd(&rb);
  scf::YieldOp::create(rbld, loc, yields);
  for (auto [j, init] : llvm::enumerate(forOp.getInitArgs()))
    if (active.contains(init))
      accumulate(loc, init, reverse.getResult(j));
  for (auto [j, c] : llvm::enumerate(captured))
    accumulate(loc, c, reverse.getResult(numCarried + j));
  return success();
}

/// Copies `par`'s body at the point `indices` to `bb`; returns the value
/// that point yields.
static Value clonePointBody(ParallelForOp par, OpBuilder &bb,
                            ValueRange indices) {
  Block &old = *par.getBody();
  IRMapping mapping;
  mapping.map(old.getArguments(), indices);
  for (Operation &inner : old.without_terminator())
    bb.clone(inner, mapping);
  return mapping.lookupOrDefault(old.getTerminator()->getOperand(0));
}

/// A parallel_for over `par`'s box that recomputes each point's value v
/// and combines `term(point, v)` with `kind`.
static Value
reduceOverBox(OpBuilder &b, ParallelForOp par, Type type, ReduceKind kind,
              function_ref<Value(OpBuilder &, ValueRange, Value)> term) {
  auto scan = ParallelForOp::create(b, par.getLoc(), type,
                                    par.getLowerBounds(),
                                    par.getUpperBounds(), kind);
  OpBuilder sb = OpBuilder::atBlockEnd(scan.getBody());
  ValueRange point = scan.getBody()->getArguments();
  Value v = clonePointBody(par, sb, point);
  YieldOp::create(sb, par.getLoc(), ValueRange{term(sb, point, v)});
  return scan.getResult();
}

/// Copies `par`'s body into `block` (whose first arguments are the point's
/// indices) and sweeps it from `pointAdjoint` (the adjoint of the value the
/// point yields) to `seed`; returns the seed's adjoint at that point, 0
/// when it does not depend on the seed. `element` (for a tensor seed read
/// with computed subscripts) is the seed element accumulated.
static FailureOr<Value>
sweepParallelBody(ParallelForOp par, OpBuilder &bb, ValueRange indices,
                  function_ref<Value(OpBuilder &, Value)> pointAdjoint,
                  Value seed, ArrayRef<Value> element) {
  Location loc = par.getLoc();
  Value yielded = clonePointBody(par, bb, indices);
  Value g = pointAdjoint(bb, yielded);
  auto yield = YieldOp::create(bb, loc, yielded);
  ReverseSweep inner(bb.getContext());
  inner.setElement(element.empty() ? Value() : seed, element);
  FailureOr<Value> adj = inner.run(*bb.getInsertionBlock(), yielded, g, seed);
  if (failed(adj))
    return failure();
  OpBuilder zb(yield);
  Value result = *adj ? *adj
                      : ConstantOp::create(zb, loc,
                                           FloatAttr::get(elementOf(seed), 0))
                            .getResult();
  yield->erase();
  return result;
}

/// The adjoint of `parallel for` for each active value its body reads: the
/// same box again, each point recomputing its body and sweeping it from the
/// adjoint of what it yields (the adjoint tensor's element at the point, or
/// the whole adjoint for reduce(+), or that at the first extremal point
/// for max and min, the product of the other factors for reduce(*)),
/// summed over the box. A tensor the body reads with
/// computed subscripts gets a masked gather: one such sum per element.
/// What the adjoint of one point of a parallel_for is, given the adjoint g
/// of its result: g's element at the point (no reduction), g (reduce(+)),
/// g at the first extremal point only (max, min), or g times the product
/// of the other factors (reduce(*): the product of the nonzero factors and
/// the count of zeros, so that a zero factor gets the product of the
/// others, as Futhark does, and nothing divides by zero).
struct tdsl::ir::PointAdjoint {
  ParallelForOp par;
  Value g;
  Value first;                 // max, min: row-major number of the point
  Value nonzeroProduct, zeros; // reduce(*)

  PointAdjoint(OpBuilder &b, ParallelForOp par, Value g) : par(par), g(g) {
    ReduceKind reduce = par.getReduce();
    Location loc = par.getLoc();
    if (reduce == ReduceKind::max || reduce == ReduceKind::min) {
      Type i64 = b.getI64Type();
      first = reduceOverBox(
          b, par, i64, ReduceKind::min,
          [&](OpBuilder &sb, ValueRange point, Value v) -> Value {
            Value hit = CmpOp::create(sb, loc, sb.getI1Type(),
                                      CmpPredicate::eq, v, par.getResult());
            Value none = ConstantOp::create(
                sb, loc,
                sb.getI64IntegerAttr(std::numeric_limits<int64_t>::max()));
            return SelectOp::create(sb, loc, i64, hit, linear(sb, point), none);
          });
    }
    if (reduce == ReduceKind::mul) {
      Type et = par.getType();
      for (ReduceKind kind : {ReduceKind::mul, ReduceKind::add})
        (kind == ReduceKind::mul ? nonzeroProduct : zeros) = reduceOverBox(
            b, par, et, kind, [&](OpBuilder &sb, ValueRange, Value v) -> Value {
              Value zero = ConstantOp::create(sb, loc, FloatAttr::get(et, 0));
              Value one = ConstantOp::create(sb, loc, FloatAttr::get(et, 1));
              Value isZero = CmpOp::create(sb, loc, sb.getI1Type(),
                                           CmpPredicate::eq, v, zero);
              return SelectOp::create(sb, loc, et, isZero, one,
                                      kind == ReduceKind::mul ? v : zero);
            });
    }
  }

  /// The row-major number of `point` in the box.
  Value linear(OpBuilder &bb, ValueRange point) {
    Location loc = par.getLoc();
    Type i64 = bb.getI64Type();
    Value lin = ConstantOp::create(bb, loc, bb.getI64IntegerAttr(0));
    for (unsigned d = 0; d < par.getNumDims(); ++d) {
      Value lb = par.getLowerBounds()[d], ub = par.getUpperBounds()[d];
      Value extent = arith::SubIOp::create(bb, loc, ub, lb);
      Value off = arith::SubIOp::create(bb, loc, point[d], lb);
      lin = AddOp::create(bb, loc,
                          MulOp::create(bb, loc, lin,
                                        CastOp::create(bb, loc, i64, extent)),
                          CastOp::create(bb, loc, i64, off));
    }
    return lin;
  }

  /// The adjoint of `yielded`, the value the point `point` yields.
  Value at(OpBuilder &bb, ValueRange point, Value yielded) {
    Location loc = par.getLoc();
    Type et = g.getType();
    auto cst = [&](double v) -> Value {
      return ConstantOp::create(bb, loc, FloatAttr::get(et, v));
    };
    auto eq = [&](Value l, Value r) -> Value {
      return CmpOp::create(bb, loc, bb.getI1Type(), CmpPredicate::eq, l, r);
    };
    switch (par.getReduce()) {
    case ReduceKind::none: {
      SmallVector<Value> at;
      for (unsigned d = 0; d < par.getNumDims(); ++d)
        at.push_back(arith::SubIOp::create(bb, loc, point[d],
                                           par.getLowerBounds()[d]));
      return tensor::ExtractOp::create(bb, loc, g, at);
    }
    case ReduceKind::add:
      return g;
    case ReduceKind::max:
    case ReduceKind::min:
      return SelectOp::create(bb, loc, et, eq(linear(bb, point), first), g,
                              cst(0));
    case ReduceKind::mul: {
      // y != 0: g * P / y when no factor is zero; y == 0: g * P when it is
      // the only zero; else 0.
      Value gp = MulOp::create(bb, loc, g, nonzeroProduct);
      Value isZero = eq(yielded, cst(0));
      Value safe = SelectOp::create(bb, loc, et, isZero, cst(1), yielded);
      Value nonzeroCase = SelectOp::create(
          bb, loc, et, eq(zeros, cst(0)), DivOp::create(bb, loc, gp, safe),
          cst(0));
      Value zeroCase =
          SelectOp::create(bb, loc, et, eq(zeros, cst(1)), gp, cst(0));
      return SelectOp::create(bb, loc, et, isZero, zeroCase, nonzeroCase);
    }
    }
    llvm_unreachable("unhandled ReduceKind");
  }
};

LogicalResult ReverseSweep::visitParallelFor(ParallelForOp par) {
  PointAdjoint point(b, par, adjoints.lookup(par.getResult()));
  for (Value c : capturedActive(par))
    if (failed(parallelInputAdjoint(par, c, point)))
      return failure();
  return success();
}

/// The adjoint of `c`, which `par`'s body reads: a scalar's sums every
/// point's; a tensor read at each point's own indices takes each element's
/// from its one reader; any other tensor gets a masked gather.
LogicalResult ReverseSweep::parallelInputAdjoint(ParallelForOp par, Value c,
                                                 PointAdjoint &point) {
  Location loc = par.getLoc();
  ValueRange lbs = par.getLowerBounds(), ubs = par.getUpperBounds();
  auto sumOverBox = [&](OpBuilder &ob, Type type, ArrayRef<Value> element)
      -> FailureOr<Value> {
    auto sum = ParallelForOp::create(ob, loc, type, lbs, ubs, ReduceKind::add);
    OpBuilder bb = OpBuilder::atBlockEnd(sum.getBody());
    ValueRange p = sum.getBody()->getArguments();
    auto at = [&](OpBuilder &ab, Value y) { return point.at(ab, p, y); };
    FailureOr<Value> adj = sweepParallelBody(par, bb, p, at, c, element);
    if (failed(adj))
      return failure();
    YieldOp::create(bb, loc, ValueRange{*adj});
    return sum.getResult();
  };
  auto tensor = dyn_cast<RankedTensorType>(c.getType());
  if (!tensor) {
    FailureOr<Value> adj = sumOverBox(b, c.getType(), {});
    if (failed(adj))
      return failure();
    accumulate(loc, c, *adj);
    return success();
  }
  SmallVector<Value> zeros, extents;
  for (int64_t d = 0; d < tensor.getRank(); ++d) {
    zeros.push_back(arith::ConstantIndexOp::create(b, loc, 0));
    extents.push_back(tensor::DimOp::create(b, loc, c, d));
  }
  auto gather = ParallelForOp::create(b, loc, tensor, zeros, extents);
  OpBuilder ob = OpBuilder::atBlockEnd(gather.getBody());
  ValueRange u = gather.getBody()->getArguments();
  SmallVector<Value> element;
  for (Value ud : u)
    element.push_back(CastOp::create(ob, loc, ob.getI64Type(), ud));
  Type et = tensor.getElementType();
  FailureOr<Value> adj = failure();
  if (auto offsets = pointOffsets(par, c)) {
    // Element u is read only by the points u - k, for the offsets k of the
    // reads: its adjoint is the sum of theirs, each taken inside the box.
    adj = ConstantOp::create(ob, loc, FloatAttr::get(et, 0)).getResult();
    bool first = true;
    for (ArrayRef<int64_t> offset : *offsets) {
      SmallVector<Value> p;
      Value inBox;
      for (unsigned d = 0; d < par.getNumDims(); ++d) {
        Value k = arith::ConstantIndexOp::create(ob, loc, offset[d]);
        p.push_back(arith::SubIOp::create(ob, loc, u[d], k));
        Value ge = arith::CmpIOp::create(ob, loc, arith::CmpIPredicate::sge,
                                         p[d], lbs[d]);
        Value lt = arith::CmpIOp::create(ob, loc, arith::CmpIPredicate::slt,
                                         p[d], ubs[d]);
        Value both = arith::AndIOp::create(ob, loc, ge, lt);
        inBox = inBox ? arith::AndIOp::create(ob, loc, inBox, both) : both;
      }
      auto ifIn = scf::IfOp::create(ob, loc, TypeRange{et}, inBox, true);
      OpBuilder tb = ifIn.getThenBodyBuilder();
      auto at = [&](OpBuilder &ab, Value y) { return point.at(ab, p, y); };
      FailureOr<Value> one = sweepParallelBody(par, tb, p, at, c, element);
      if (failed(one))
        return failure();
      scf::YieldOp::create(tb, loc, ValueRange{*one});
      OpBuilder eb = ifIn.getElseBodyBuilder();
      scf::YieldOp::create(
          eb, loc,
          ValueRange{ConstantOp::create(eb, loc, FloatAttr::get(et, 0))});
      Value part = ifIn.getResult(0);
      adj = first ? part : AddOp::create(ob, loc, *adj, part).getResult();
      first = false;
    }
  } else {
    par.emitRemark("the adjoint of a read with computed subscripts is a "
                   "masked gather over the whole tensor");
    adj = sumOverBox(ob, et, element);
    if (failed(adj))
      return failure();
  }
  YieldOp::create(ob, loc, ValueRange{*adj});
  accumulate(loc, c, gather.getResult());
  return success();
}
