//===- ElementwiseGradients.cpp - gradients of elementwise code -----------===//
//
// The gradient rules of scalar arith and math ops, kept in one table, and
// what is built from it: the rules of the same ops on tensors, and the rule
// of linalg ops whose body is made of them (elementwise maps, broadcasts,
// and reductions by sum, max or min along any dimensions).
//
// A linalg op is differentiated by reverse mode over its body: a
// linalg.generic over the same iteration space recomputes the body, seeds
// the adjoints of the yielded values with the result gradients, and runs
// the table's rules backwards. Each input's adjoint, one per iteration
// point, is then summed over the dimensions its indexing map drops (the
// transpose of a broadcast). Elements a body reads from a float table
// captured from outside the op (a gather) carry adjoints too, which are
// added into a zero table at the elements read (a scatter-add).
//
//===----------------------------------------------------------------------===//

#include "prec/Gradients/UpstreamGradients.h"

#include "prec/Gradients/PrecGradients.h"

#include "prec/Dialect/Prec/IR/PrecDialect.h"
#include "prec/Dialect/Prec/IR/PrecOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/StringMap.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::prec;

//===----------------------------------------------------------------------===//
// The table
//===----------------------------------------------------------------------===//

namespace {

/// What a rule builds its vector-Jacobian product from: the op, the
/// gradient `g` of its result, and arithmetic on values of the compute type
/// (scalars, or tensors shaped like `g`). `x(i)` and `y()` are the op's
/// operand and result converted to the compute type.
class Derivative {
public:
  Derivative(OpBuilder &builder, Location loc, Operation *op,
             const IRMapping &mapping, Value g, Type computeType)
      : g(g), builder(builder), loc(loc), op(op), mapping(mapping),
        computeType(computeType) {
    // The derivative's arithmetic keeps the op's fast-math flags.
    flags = arith::FastMathFlagsAttr::get(builder.getContext(),
                                          arith::FastMathFlags::none);
    if (auto fastMath = dyn_cast<arith::ArithFastMathInterface>(op))
      flags = fastMath.getFastMathFlagsAttr();
  }

  Value x(unsigned index) {
    return convert(mapping.lookupOrDefault(op->getOperand(index)));
  }
  Value y() { return convert(mapping.lookupOrDefault(op->getResult(0))); }
  /// The operand as it is, for conditions.
  Value raw(unsigned index) {
    return mapping.lookupOrDefault(op->getOperand(index));
  }

  Value c(double value) {
    if (isa<RankedTensorType>(g.getType()))
      return createSplatLike(builder, loc, g, computeType, value);
    return arith::ConstantOp::create(builder, loc,
                                     builder.getFloatAttr(computeType, value));
  }
  Value add(Value a, Value b) {
    return arith::AddFOp::create(builder, loc, a, b, flags);
  }
  Value sub(Value a, Value b) {
    return arith::SubFOp::create(builder, loc, a, b, flags);
  }
  Value mul(Value a, Value b) {
    return arith::MulFOp::create(builder, loc, a, b, flags);
  }
  Value div(Value a, Value b) {
    return arith::DivFOp::create(builder, loc, a, b, flags);
  }
  Value neg(Value a) { return arith::NegFOp::create(builder, loc, a, flags); }
  Value exp(Value a) { return math::ExpOp::create(builder, loc, a); }
  Value log(Value a) { return math::LogOp::create(builder, loc, a); }
  Value sin(Value a) { return math::SinOp::create(builder, loc, a); }
  Value cos(Value a) { return math::CosOp::create(builder, loc, a); }
  Value sinh(Value a) { return math::SinhOp::create(builder, loc, a); }
  Value cosh(Value a) { return math::CoshOp::create(builder, loc, a); }
  Value sqrt(Value a) { return math::SqrtOp::create(builder, loc, a); }
  /// a^2.
  Value square(Value a) { return mul(a, a); }
  Value pow(Value a, Value b) {
    return math::PowFOp::create(builder, loc, a, b);
  }
  /// `a` to the integer power `n` (a scalar, or a tensor shaped like `g`).
  Value powi(Value a, Value n) {
    return math::FPowIOp::create(builder, loc, a, n);
  }
  /// The integer `n` plus `value`.
  Value addi(Value n, int64_t value) {
    Type type = n.getType();
    TypedAttr attr = builder.getIntegerAttr(getElementTypeOrSelf(type), value);
    if (auto tensorType = dyn_cast<RankedTensorType>(type))
      attr = DenseElementsAttr::get(tensorType, attr);
    return arith::AddIOp::create(
        builder, loc, n, arith::ConstantOp::create(builder, loc, attr));
  }
  /// The integer `n` as a value of the compute type.
  Value toFloat(Value n) {
    Type type = computeType;
    if (auto tensorType = dyn_cast<RankedTensorType>(n.getType()))
      type = tensorType.clone(computeType);
    return arith::SIToFPOp::create(builder, loc, type, n);
  }
  Value cmp(arith::CmpFPredicate predicate, Value a, Value b) {
    return arith::CmpFOp::create(builder, loc, predicate, a, b);
  }
  Value select(Value condition, Value a, Value b) {
    return arith::SelectOp::create(builder, loc, condition, a, b);
  }
  /// `value` where `condition` holds, else zero.
  Value where(Value condition, Value value) {
    return select(condition, value, c(0.0));
  }

  /// The gradient of a max (`predicate` oge) or min (ole) of x(0) and x(1):
  /// all of it to the operand that wins, half to each on a tie, none to
  /// either when one is NaN.
  SmallVector<Value> extremum(arith::CmpFPredicate predicate) {
    Value lhs = x(0), rhs = x(1);
    Value share = select(cmp(arith::CmpFPredicate::OEQ, lhs, rhs),
                         mul(g, c(0.5)), g);
    return {where(cmp(predicate, lhs, rhs), share),
            where(cmp(predicate, rhs, lhs), share)};
  }

  Value g;

private:
  Value convert(Value value) {
    Type type = getElementTypeOrSelf(value.getType());
    if (type == computeType)
      return value;
    Type converted = value.getType();
    if (auto tensorType = dyn_cast<RankedTensorType>(converted))
      converted = tensorType.clone(computeType);
    else
      converted = computeType;
    if (cast<FloatType>(type).getWidth() <
        cast<FloatType>(computeType).getWidth())
      return arith::ExtFOp::create(builder, loc, converted, value);
    return arith::TruncFOp::create(builder, loc, converted, value);
  }

  OpBuilder &builder;
  Location loc;
  Operation *op;
  const IRMapping &mapping;
  Type computeType;
  arith::FastMathFlagsAttr flags;
};

/// A rule: the gradients of an op's operands (null for none) from its
/// result's.
using GradientRule = SmallVector<Value> (*)(Derivative &);
using G = SmallVector<Value>;
using P = arith::CmpFPredicate;

struct ElementwiseRule {
  StringLiteral op;
  GradientRule gradients;
};

// clang-format off
/// op -> gradients of its operands, given the gradient `g` of its result
/// `y`. Ties of max and min split the gradient evenly.
const ElementwiseRule kElementwiseRules[] = {
  {"arith.addf",     [](Derivative &d) { return G{d.g, d.g}; }},
  {"arith.subf",     [](Derivative &d) { return G{d.g, d.neg(d.g)}; }},
  {"arith.mulf",     [](Derivative &d) { return G{d.mul(d.g, d.x(1)), d.mul(d.g, d.x(0))}; }},
  {"arith.divf",     [](Derivative &d) { return G{d.div(d.g, d.x(1)),
                                                  d.neg(d.div(d.mul(d.g, d.y()), d.x(1)))}; }},
  {"arith.negf",     [](Derivative &d) { return G{d.neg(d.g)}; }},
  {"arith.maximumf", [](Derivative &d) { return d.extremum(P::OGE); }},
  {"arith.maxnumf",  [](Derivative &d) { return d.extremum(P::OGE); }},
  {"arith.minimumf", [](Derivative &d) { return d.extremum(P::OLE); }},
  {"arith.minnumf",  [](Derivative &d) { return d.extremum(P::OLE); }},
  {"arith.select",   [](Derivative &d) { return G{Value(), d.where(d.raw(0), d.g),
                                                  d.select(d.raw(0), d.c(0.0), d.g)}; }},
  {"arith.extf",     [](Derivative &d) { return G{d.g}; }},
  {"arith.truncf",   [](Derivative &d) { return G{d.g}; }},
  {"math.fma",       [](Derivative &d) { return G{d.mul(d.g, d.x(1)), d.mul(d.g, d.x(0)), d.g}; }},
  {"math.exp",       [](Derivative &d) { return G{d.mul(d.g, d.y())}; }},
  {"math.exp2",      [](Derivative &d) { return G{d.mul(d.g, d.mul(d.y(), d.c(llvm::numbers::ln2)))}; }},
  {"math.expm1",     [](Derivative &d) { return G{d.mul(d.g, d.add(d.y(), d.c(1.0)))}; }},
  {"math.log",       [](Derivative &d) { return G{d.div(d.g, d.x(0))}; }},
  {"math.log2",      [](Derivative &d) { return G{d.div(d.g, d.mul(d.x(0), d.c(llvm::numbers::ln2)))}; }},
  {"math.log1p",     [](Derivative &d) { return G{d.div(d.g, d.add(d.x(0), d.c(1.0)))}; }},
  {"math.tanh",      [](Derivative &d) { return G{d.mul(d.g, d.sub(d.c(1.0), d.mul(d.y(), d.y())))}; }},
  {"math.erf",       [](Derivative &d) { return G{d.mul(d.g, d.mul(d.c(2 * llvm::numbers::inv_sqrtpi),
                                                                   d.exp(d.neg(d.mul(d.x(0), d.x(0))))))}; }},
  {"math.sqrt",      [](Derivative &d) { return G{d.div(d.mul(d.g, d.c(0.5)), d.y())}; }},
  {"math.rsqrt",     [](Derivative &d) { return G{d.mul(d.g, d.mul(d.c(-0.5), d.mul(d.y(), d.mul(d.y(), d.y()))))}; }},
  {"math.absf",      [](Derivative &d) { return G{d.sub(d.where(d.cmp(P::OGT, d.x(0), d.c(0.0)), d.g),
                                                        d.where(d.cmp(P::OLT, d.x(0), d.c(0.0)), d.g))}; }},
  {"math.sin",       [](Derivative &d) { return G{d.mul(d.g, d.cos(d.x(0)))}; }},
  {"math.cos",       [](Derivative &d) { return G{d.neg(d.mul(d.g, d.sin(d.x(0))))}; }},
  {"math.tan",       [](Derivative &d) { return G{d.mul(d.g, d.add(d.c(1.0), d.square(d.y())))}; }},
  {"math.asin",      [](Derivative &d) { return G{d.div(d.g, d.sqrt(d.sub(d.c(1.0), d.square(d.x(0)))))}; }},
  {"math.acos",      [](Derivative &d) { return G{d.neg(d.div(d.g, d.sqrt(d.sub(d.c(1.0), d.square(d.x(0))))))}; }},
  {"math.atan",      [](Derivative &d) { return G{d.div(d.g, d.add(d.c(1.0), d.square(d.x(0))))}; }},
  {"math.atan2",     [](Derivative &d) {
     // atan2(a, b), the angle of (b, a): d/da = b / r^2, d/db = -a / r^2.
     Value r2 = d.add(d.square(d.x(0)), d.square(d.x(1)));
     return G{d.div(d.mul(d.g, d.x(1)), r2), d.neg(d.div(d.mul(d.g, d.x(0)), r2))}; }},
  {"math.sinh",      [](Derivative &d) { return G{d.mul(d.g, d.cosh(d.x(0)))}; }},
  {"math.cosh",      [](Derivative &d) { return G{d.mul(d.g, d.sinh(d.x(0)))}; }},
  {"math.asinh",     [](Derivative &d) { return G{d.div(d.g, d.sqrt(d.add(d.square(d.x(0)), d.c(1.0))))}; }},
  {"math.acosh",     [](Derivative &d) { return G{d.div(d.g, d.sqrt(d.sub(d.square(d.x(0)), d.c(1.0))))}; }},
  {"math.atanh",     [](Derivative &d) { return G{d.div(d.g, d.sub(d.c(1.0), d.square(d.x(0))))}; }},
  {"math.powf",      [](Derivative &d) { return G{d.mul(d.g, d.mul(d.x(1), d.pow(d.x(0), d.sub(d.x(1), d.c(1.0))))),
                                                  d.mul(d.g, d.mul(d.y(), d.log(d.x(0))))}; }},
  // The integer exponent gets none (fpowi is PyTorch's x**2 and x**3).
  {"math.fpowi",     [](Derivative &d) { return G{d.mul(d.g, d.mul(d.toFloat(d.raw(1)),
                                                                   d.powi(d.x(0), d.addi(d.raw(1), -1)))),
                                                  Value()}; }},
};
// clang-format on

GradientRule lookupElementwiseRule(Operation *op) {
  static const llvm::StringMap<GradientRule> rules = [] {
    llvm::StringMap<GradientRule> map;
    for (const ElementwiseRule &rule : kElementwiseRules)
      map[rule.op] = rule.gradients;
    return map;
  }();
  return rules.lookup(op->getName().getStringRef());
}

bool isFloatLike(Type type) {
  return isa<FloatType>(getElementTypeOrSelf(type));
}

//===----------------------------------------------------------------------===//
// Elementwise ops on tensors
//===----------------------------------------------------------------------===//

/// An elementwise arith or math op on tensors: the table's rule, computed
/// in the result's element type (the caller rounds to the operands').
template <typename OpTy>
struct ElementwiseBackwardModel
    : public BackwardOpInterface::ExternalModel<ElementwiseBackwardModel<OpTy>,
                                                OpTy> {
  LogicalResult buildGradients(Operation *op, OpBuilder &builder,
                               ArrayRef<Value> resultGradients,
                               SmallVectorImpl<Value> &operandGradients) const {
    GradientRule rule = lookupElementwiseRule(op);
    assert(rule && "attached to an op the table has no rule for");
    Value g = resultGradients[0];
    IRMapping identity;
    Derivative derivative(builder, op->getLoc(), op, identity, g,
                          getElementTypeOrSelf(g.getType()));
    operandGradients.append(rule(derivative));
    return success();
  }
};

template <typename... OpTys>
void attachElementwiseModels(MLIRContext *context) {
  (OpTys::template attachInterface<ElementwiseBackwardModel<OpTys>>(*context),
   ...);
}

//===----------------------------------------------------------------------===//
// Bodies of linalg ops
//===----------------------------------------------------------------------===//

/// Clones the ops of `body` but its terminator and `skip` (and, given
/// `only`, the ops not in it) at the builder's insertion point; returns the
/// originals, in order.
SmallVector<Operation *>
cloneBody(OpBuilder &builder, Block &body, IRMapping &mapping,
          Operation *skip = nullptr,
          const DenseSet<Operation *> *only = nullptr) {
  SmallVector<Operation *> cloned;
  for (Operation &op : body.without_terminator()) {
    if (&op == skip || (only && !only->contains(&op)))
      continue;
    builder.clone(op, mapping);
    cloned.push_back(&op);
  }
  return cloned;
}

/// Reverse mode over `ops` (body ops in program order, cloned through
/// `mapping`): `adjoints`, keyed by the original values and holding values
/// of `computeType`, is seeded by the caller and receives the adjoints of
/// the ops' operands.
LogicalResult propagateAdjoints(OpBuilder &builder, ArrayRef<Operation *> ops,
                                const IRMapping &mapping, Type computeType,
                                Operation *owner,
                                DenseMap<Value, Value> &adjoints,
                                ArrayRef<Value> alsoActive = {}) {
  // The body's values that depend on its float arguments (and on
  // `alsoActive`, the elements read from captured tables) through values
  // other than integers and indices: an op the gradient reaches through
  // them needs a rule, whatever their type (a complex has none).
  DenseSet<Value> active(llvm::from_range, alsoActive);
  auto isActive = [&](Value value) {
    if (auto arg = dyn_cast<BlockArgument>(value))
      return arg.getOwner()->getParentOp() == owner &&
             isFloatLike(arg.getType());
    return active.contains(value);
  };
  for (Operation *op : ops)
    if (llvm::any_of(op->getOperands(), isActive))
      for (Value result : op->getResults())
        if (!isa<IntegerType, IndexType>(result.getType()))
          active.insert(result);

  for (Operation *op : llvm::reverse(ops)) {
    auto reached = llvm::find_if(op->getResults(), [&](Value result) {
      return adjoints.count(result);
    });
    if (reached == op->result_end() ||
        llvm::none_of(op->getOperands(), isActive))
      continue;
    GradientRule rule = op->getNumResults() == 1 ? lookupElementwiseRule(op)
                                                 : nullptr;
    if (!rule) {
      InFlightDiagnostic diag = op->emitOpError("has no gradient rule");
      diag.attachNote(owner->getLoc())
          << "in the body of this '" << owner->getName() << "'";
      return diag;
    }
    Derivative derivative(builder, op->getLoc(), op, mapping,
                          adjoints.lookup(op->getResult(0)), computeType);
    SmallVector<Value> gradients = rule(derivative);
    for (auto [operand, gradient] : llvm::zip(op->getOperands(), gradients)) {
      if (!gradient || !isFloatLike(operand.getType()))
        continue;
      Value &adjoint = adjoints[operand];
      adjoint = adjoint ? arith::AddFOp::create(builder, op->getLoc(), adjoint,
                                                gradient)
                        : gradient;
    }
  }
  return success();
}

/// A linalg.generic over `shape`'s elements (identity maps) whose body
/// computes one `elementType` value from `inputs`' elements.
Value createMapGeneric(
    OpBuilder &builder, Location loc, ValueRange inputs, Value shape,
    Type elementType,
    function_ref<Value(OpBuilder &, Location, ValueRange)> compute) {
  auto type = cast<RankedTensorType>(shape.getType());
  Value init = tensor::EmptyOp::create(
      builder, loc, tensor::getMixedSizes(builder, loc, shape), elementType);
  SmallVector<AffineMap> maps(
      inputs.size() + 1, builder.getMultiDimIdentityMap(type.getRank()));
  SmallVector<utils::IteratorType> iterators(type.getRank(),
                                             utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             builder, loc, TypeRange{init.getType()}, inputs, ValueRange{init},
             maps, iterators,
             [&](OpBuilder &b, Location l, ValueRange args) {
               linalg::YieldOp::create(b, l, compute(b, l, args.drop_back()));
             })
      ->getResult(0);
}

/// Differentiates one linalg op (a structured op with a body of scalar
/// arith and math ops).
class LinalgDifferentiator {
public:
  LinalgDifferentiator(linalg::LinalgOp op, OpBuilder &builder)
      : op(op), builder(builder), loc(op.getLoc()), body(*op.getBlock()),
        maps(op.getIndexingMapsArray()) {}

  LogicalResult run(ArrayRef<Value> resultGradients,
                    SmallVectorImpl<Value> &operandGradients);

private:
  using Seeder = function_ref<void(OpBuilder &, Location, const IRMapping &,
                                   ValueRange extras,
                                   DenseMap<Value, Value> &adjoints)>;

  LogicalResult differentiateElementwise(ArrayRef<Value> resultGradients,
                                         SmallVectorImpl<Value> &gradients);
  LogicalResult differentiateReduction(unsigned resultIndex,
                                       Value resultGradient,
                                       SmallVectorImpl<Value> &gradients);

  /// A generic over the op's iteration space, all parallel, that
  /// recomputes the body (but `skip`; given `only`, only its ops) and
  /// yields, per iteration point, the adjoints of the body values `wanted`
  /// after `seed` has seeded others, then the recomputed index values
  /// `indices`. `extras` are more inputs, read through their maps;
  /// `alsoActive` are body values that carry adjoints without depending on
  /// the body's arguments (elements of captured tables).
  FailureOr<SmallVector<Value>>
  buildAdjoints(ArrayRef<std::pair<Value, AffineMap>> extras,
                ArrayRef<Value> wanted, Operation *skip, Seeder seed,
                ArrayRef<Value> indices = {},
                const DenseSet<Operation *> *only = nullptr,
                ArrayRef<Value> alsoActive = {});

  /// The gradient of the table a `tensor.extract` in the body reads from
  /// outside the op, given the adjoint of the element read at every
  /// iteration point and the index values it was read at (null for the
  /// indices that are loop dimensions, `dims`): a zero table into which
  /// every adjoint is added at its element (a scatter-add: a loop nest over
  /// the op's points; a point whose index lies outside the table adds
  /// nothing).
  Value scatterToTable(tensor::ExtractOp extract, Value adjoint,
                       ArrayRef<Value> indexValues,
                       ArrayRef<std::optional<unsigned>> dims);

  /// `adjoint`, one value per iteration point, summed into the shape of
  /// `operand` read through `map`.
  Value sumToOperand(Value adjoint, Value operand, AffineMap map);

  Value convert(OpBuilder &b, Location l, Value scalar) {
    Type type = scalar.getType();
    if (type == computeType)
      return scalar;
    if (cast<FloatType>(type).getWidth() <
        cast<FloatType>(computeType).getWidth())
      return arith::ExtFOp::create(b, l, computeType, scalar);
    return arith::TruncFOp::create(b, l, computeType, scalar);
  }

  linalg::LinalgOp op;
  OpBuilder &builder;
  Location loc;
  Block &body;
  SmallVector<AffineMap> maps;
  Type computeType;
};

} // namespace

LogicalResult
LinalgDifferentiator::run(ArrayRef<Value> resultGradients,
                          SmallVectorImpl<Value> &operandGradients) {
  if (!op.hasPureTensorSemantics())
    return op->emitOpError("has no gradient rule on buffers");
  // Keepdim reductions read their size-1 dimension through a constant 0.
  for (auto [index, map] : llvm::enumerate(maps))
    if (!map.isProjectedPermutation(/*allowZeroInResults=*/true))
      return op->emitOpError("has no gradient rule for indexing map #")
             << index << " " << AffineMapAttr::get(map)
             << ": expected a projected permutation";

  // Derivatives are computed in f32, or f64 when the op touches f64.
  FloatType widest;
  auto widen = [&](Type type) {
    if (auto floatType = dyn_cast<FloatType>(getElementTypeOrSelf(type)))
      if (!widest || floatType.getWidth() > widest.getWidth())
        widest = floatType;
  };
  for (Type type : op->getOperandTypes())
    widen(type);
  for (Value gradient : resultGradients)
    if (gradient)
      widen(gradient.getType());
  if (!widest)
    return op->emitOpError("has no gradient rule without float operands");
  computeType = getDefaultAccumulationType(widest);

  if (llvm::all_of(op.getIteratorTypesArray(), [](utils::IteratorType type) {
        return type == utils::IteratorType::parallel;
      }))
    return differentiateElementwise(resultGradients, operandGradients);
  // A reduction may have more results (an argmax beside a max) as long as
  // only one takes a gradient.
  std::optional<unsigned> reached;
  for (auto [index, gradient] : llvm::enumerate(resultGradients)) {
    if (!gradient)
      continue;
    if (reached)
      return op->emitOpError("has no gradient rule for a reduction with ")
             << "gradients for results #" << *reached << " and #" << index
             << ": expected one";
    reached = index;
  }
  return differentiateReduction(*reached, resultGradients[*reached],
                                operandGradients);
}

FailureOr<SmallVector<Value>> LinalgDifferentiator::buildAdjoints(
    ArrayRef<std::pair<Value, AffineMap>> extras, ArrayRef<Value> wanted,
    Operation *skip, Seeder seed, ArrayRef<Value> indices,
    const DenseSet<Operation *> *only, ArrayRef<Value> alsoActive) {
  unsigned numLoops = op.getNumLoops();
  SmallVector<OpFoldResult> sizes;
  for (Range range : op.createLoopRanges(builder, loc))
    sizes.push_back(range.size);

  SmallVector<Value> inputs(op->getOperands());
  SmallVector<AffineMap> genericMaps(maps);
  for (auto [extra, map] : extras) {
    inputs.push_back(extra);
    genericMaps.push_back(map);
  }
  SmallVector<Value> inits;
  for (size_t i = 0; i < wanted.size() + indices.size(); ++i) {
    inits.push_back(tensor::EmptyOp::create(
        builder, loc, sizes,
        i < wanted.size() ? computeType : builder.getIndexType()));
    genericMaps.push_back(builder.getMultiDimIdentityMap(numLoops));
  }
  SmallVector<utils::IteratorType> iterators(numLoops,
                                             utils::IteratorType::parallel);

  LogicalResult result = success();
  auto generic = linalg::GenericOp::create(
      builder, loc, ValueRange(inits).getTypes(), inputs, inits, genericMaps,
      iterators, [&](OpBuilder &b, Location l, ValueRange args) {
        IRMapping mapping;
        mapping.map(body.getArguments(),
                    args.take_front(body.getNumArguments()));
        SmallVector<Operation *> ops =
            cloneBody(b, body, mapping, skip, only);
        DenseMap<Value, Value> adjoints;
        seed(b, l, mapping,
             args.slice(body.getNumArguments(), extras.size()), adjoints);
        result = propagateAdjoints(b, ops, mapping, computeType, op, adjoints,
                                   alsoActive);
        SmallVector<Value> yielded;
        for (Value arg : wanted) {
          Value adjoint = adjoints.lookup(arg);
          yielded.push_back(adjoint ? adjoint
                                    : arith::ConstantOp::create(
                                          b, l,
                                          b.getFloatAttr(computeType, 0.0)));
        }
        for (Value index : indices)
          yielded.push_back(mapping.lookupOrDefault(index));
        linalg::YieldOp::create(b, l, yielded);
      });
  if (failed(result)) {
    generic->erase();
    return failure();
  }
  return SmallVector<Value>(generic->getResults());
}

Value LinalgDifferentiator::sumToOperand(Value adjoint, Value operand,
                                         AffineMap map) {
  if (map.isIdentity())
    return adjoint;
  unsigned numLoops = op.getNumLoops();
  SmallVector<utils::IteratorType> iterators(numLoops,
                                             utils::IteratorType::reduction);
  for (AffineExpr result : map.getResults())
    if (auto dim = dyn_cast<AffineDimExpr>(result))
      iterators[dim.getPosition()] = utils::IteratorType::parallel;
  Value zeros = createSplatLike(builder, loc, operand, computeType, 0.0);
  return linalg::GenericOp::create(
             builder, loc, TypeRange{zeros.getType()}, ValueRange{adjoint},
             ValueRange{zeros},
             ArrayRef<AffineMap>{builder.getMultiDimIdentityMap(numLoops),
                                 map},
             iterators,
             [&](OpBuilder &b, Location l, ValueRange args) {
               linalg::YieldOp::create(
                   b, l, ValueRange{arith::AddFOp::create(b, l, args[1],
                                                          args[0])});
             })
      ->getResult(0);
}

Value LinalgDifferentiator::scatterToTable(
    tensor::ExtractOp extract, Value adjoint, ArrayRef<Value> indexValues,
    ArrayRef<std::optional<unsigned>> dims) {
  // A loop nest over the op's points, in their lexicographic order, that
  // adds each point's adjoint into the element it read: every element sums
  // its contributions in that order, and the work is the op's, not the
  // op's times the rows of the table. Bufferization updates the table in
  // place.
  Value table = extract.getTensor();
  auto tableType = cast<RankedTensorType>(table.getType());
  Value zero = arith::ConstantOp::create(
      builder, loc, builder.getFloatAttr(computeType, 0.0));
  Value zeros =
      linalg::FillOp::create(
          builder, loc, ValueRange{zero},
          ValueRange{createEmptyLike(builder, loc, table, computeType)})
          ->getResult(0);
  SmallVector<Value> lowerBounds, upperBounds, steps;
  Value c0 = arith::ConstantIndexOp::create(builder, loc, 0);
  Value c1 = arith::ConstantIndexOp::create(builder, loc, 1);
  for (Range range : op.createLoopRanges(builder, loc)) {
    lowerBounds.push_back(c0);
    upperBounds.push_back(
        getValueOrCreateConstantIndexOp(builder, loc, range.size));
    steps.push_back(c1);
  }
  // The extents of the dimensions read at data-dependent indices.
  SmallVector<Value> extents;
  for (auto [k, dim] : llvm::enumerate(dims))
    if (!dim)
      extents.push_back(
          tableType.isDynamicDim(k)
              ? tensor::DimOp::create(builder, loc, table, k).getResult()
              : arith::ConstantIndexOp::create(builder, loc,
                                               tableType.getDimSize(k))
                    .getResult());

  scf::LoopNest nest = scf::buildLoopNest(
      builder, loc, lowerBounds, upperBounds, steps, ValueRange{zeros},
      [&](OpBuilder &b, Location l, ValueRange point,
          ValueRange sums) -> scf::ValueVector {
        // The element this point read; an index outside the table (negative
        // ones too, which compare as large unsigned values) reads none, as
        // the element-by-element comparison never matched it.
        SmallVector<Value> element;
        Value inside;
        unsigned k = 0;
        for (std::optional<unsigned> dim : dims) {
          if (dim) {
            element.push_back(point[*dim]);
            continue;
          }
          Value index = tensor::ExtractOp::create(b, l, indexValues[k], point);
          Value fits = arith::CmpIOp::create(b, l, arith::CmpIPredicate::ult,
                                             index, extents[k]);
          inside = inside ? arith::AndIOp::create(b, l, inside, fits) : fits;
          element.push_back(index);
          ++k;
        }
        Value sum = sums[0];
        auto add = [&](OpBuilder &ib, Location il) -> Value {
          Value read = tensor::ExtractOp::create(ib, il, sum, element);
          Value added = arith::AddFOp::create(
              ib, il, read, tensor::ExtractOp::create(ib, il, adjoint, point));
          return tensor::InsertOp::create(ib, il, added, sum, element);
        };
        if (!inside)
          return {add(b, l)};
        auto branch = scf::IfOp::create(
            b, l, inside,
            [&](OpBuilder &ib, Location il) {
              scf::YieldOp::create(ib, il, add(ib, il));
            },
            [&](OpBuilder &ib, Location il) {
              scf::YieldOp::create(ib, il, sum);
            });
        return {branch.getResult(0)};
      });
  return nest.results[0];
}

LogicalResult LinalgDifferentiator::differentiateElementwise(
    ArrayRef<Value> resultGradients, SmallVectorImpl<Value> &gradients) {
  unsigned numInputs = op.getNumDpsInputs();
  for (unsigned i = 0, e = op.getNumDpsInits(); i < e; ++i)
    if (!maps[numInputs + i].isPermutation())
      return op->emitOpError("has no gradient rule for init #")
             << i << " indexed by " << AffineMapAttr::get(maps[numInputs + i])
             << ": expected a permutation";

  // Each result's gradient, read where the result is written.
  SmallVector<std::pair<Value, AffineMap>> extras;
  SmallVector<unsigned> seeded;
  for (auto [index, gradient] : llvm::enumerate(resultGradients))
    if (gradient) {
      extras.push_back({gradient, maps[numInputs + index]});
      seeded.push_back(index);
    }
  // Inits carry a gradient only when the body reads them.
  SmallVector<Value> wanted;
  SmallVector<unsigned> wantedOperands;
  for (OpOperand &operand : op->getOpOperands()) {
    BlockArgument arg = op.getMatchingBlockArgument(&operand);
    if (!BackwardOpInterface::isDifferentiable(operand.get().getType()) ||
        (op.isDpsInit(&operand) && arg.use_empty()))
      continue;
    wanted.push_back(arg);
    wantedOperands.push_back(operand.getOperandNumber());
  }

  // Gathers: elements of float tables the body reads from outside the op
  // (PyTorch's embeddings and the target pick of its cross-entropy). The
  // elements carry adjoints like the arguments; each index that is not
  // simply a loop dimension of the table's extent is recomputed too.
  SmallVector<Value> captured = getCapturedValues(op);
  SmallVector<tensor::ExtractOp> gathers;
  SmallVector<Value> gathered, indexValues;
  SmallVector<SmallVector<std::optional<unsigned>>> gatherDims;
  SmallVector<int64_t> loopSizes = op.getStaticLoopRanges();
  for (Value table : captured) {
    if (!BackwardOpInterface::isDifferentiable(table.getType()))
      continue;
    for (OpOperand &use : table.getUses()) {
      // The op's own operand (torch-mlir's flip passes the table it reads
      // as an input too) takes the operands' rule; uses inside are reads.
      if (use.getOwner() == op.getOperation() ||
          !op->isAncestor(use.getOwner()))
        continue;
      auto extract = dyn_cast<tensor::ExtractOp>(use.getOwner());
      if (!extract || extract->getBlock() != &body)
        return use.getOwner()->emitOpError("has no gradient rule for a ")
               << "float tensor captured from outside the '"
               << op->getName()
               << "': expected only 'tensor.extract's in its body to read it";
      auto tableType = cast<RankedTensorType>(table.getType());
      SmallVector<std::optional<unsigned>> dims;
      llvm::SmallBitVector used(op.getNumLoops());
      for (auto [k, index] : llvm::enumerate(extract.getIndices())) {
        auto loopIndex = index.getDefiningOp<linalg::IndexOp>();
        if (loopIndex && !used.test(loopIndex.getDim()) &&
            loopSizes[loopIndex.getDim()] == tableType.getDimSize(k) &&
            !ShapedType::isDynamic(tableType.getDimSize(k))) {
          used.set(loopIndex.getDim());
          dims.push_back(loopIndex.getDim());
          continue;
        }
        dims.push_back(std::nullopt);
        indexValues.push_back(index);
      }
      gathers.push_back(extract);
      gathered.push_back(extract.getResult());
      gatherDims.push_back(std::move(dims));
    }
  }
  SmallVector<Value> wantedAll(wanted);
  wantedAll.append(gathered);

  Operation *yield = body.getTerminator();
  FailureOr<SmallVector<Value>> adjoints = buildAdjoints(
      extras, wantedAll, /*skip=*/nullptr,
      [&](OpBuilder &b, Location l, const IRMapping &,
          ValueRange extraArgs, DenseMap<Value, Value> &seeds) {
        for (auto [index, arg] : llvm::zip(seeded, extraArgs)) {
          Value yielded = yield->getOperand(index);
          Value g = convert(b, l, arg);
          Value &seedValue = seeds[yielded];
          seedValue = seedValue ? arith::AddFOp::create(b, l, seedValue, g)
                                : g;
        }
      },
      indexValues, /*only=*/nullptr, gathered);
  if (failed(adjoints))
    return failure();

  gradients.assign(op->getNumOperands(), Value());
  for (auto [operandNumber, adjoint] : llvm::zip(wantedOperands, *adjoints))
    gradients[operandNumber] = sumToOperand(
        adjoint, op->getOperand(operandNumber), maps[operandNumber]);
  if (gathers.empty())
    return success();

  // The captured tables' gradients follow the operands', in the order of
  // getCapturedValues; a table read twice sums both scatters.
  gradients.resize(op->getNumOperands() + captured.size(), Value());
  ArrayRef<Value> results(*adjoints);
  ArrayRef<Value> gatheredAdjoints =
      results.slice(wanted.size(), gathers.size());
  ArrayRef<Value> recomputedIndices = results.drop_front(wantedAll.size());
  for (auto [extract, adjoint, dims] :
       llvm::zip(gathers, gatheredAdjoints, gatherDims)) {
    unsigned numData = llvm::count(dims, std::nullopt);
    Value tableGradient = scatterToTable(
        extract, adjoint, recomputedIndices.take_front(numData), dims);
    recomputedIndices = recomputedIndices.drop_front(numData);
    unsigned position =
        op->getNumOperands() +
        (llvm::find(captured, extract.getTensor()) - captured.begin());
    Value &sum = gradients[position];
    sum = sum ? arith::AddFOp::create(builder, loc, sum, tableGradient)
                    .getResult()
              : tableGradient;
  }
  return success();
}

LogicalResult
LinalgDifferentiator::differentiateReduction(unsigned resultIndex,
                                             Value resultGradient,
                                             SmallVectorImpl<Value> &gradients) {
  unsigned numInputs = op.getNumDpsInputs();
  BlockArgument accumulator = body.getArgument(numInputs + resultIndex);
  Operation *combine =
      body.getTerminator()->getOperand(resultIndex).getDefiningOp();
  enum class Kind { Sum, Max, Min } kind = Kind::Sum;
  if (combine && combine->getBlock() == &body) {
    if (isa<arith::AddFOp>(combine))
      kind = Kind::Sum;
    else if (isa<arith::MaximumFOp, arith::MaxNumFOp>(combine))
      kind = Kind::Max;
    else if (isa<arith::MinimumFOp, arith::MinNumFOp>(combine))
      kind = Kind::Min;
    else
      combine = nullptr;
  } else {
    combine = nullptr;
  }
  // The value reduced at each iteration point, and the body ops it is
  // computed from: they must not read any accumulator (other results, such
  // as an argmax, may read this one).
  Value reduced;
  DenseSet<Operation *> slice;
  bool readsAccumulator = false;
  if (combine && llvm::is_contained(combine->getOperands(), accumulator) &&
      combine->getOperand(0) != combine->getOperand(1)) {
    reduced = combine->getOperand(combine->getOperand(0) == accumulator);
    SmallVector<Value> worklist{reduced};
    while (!worklist.empty()) {
      Value value = worklist.pop_back_val();
      if (auto arg = dyn_cast<BlockArgument>(value)) {
        readsAccumulator |=
            arg.getOwner() == &body && arg.getArgNumber() >= numInputs;
        continue;
      }
      Operation *def = value.getDefiningOp();
      if (def->getBlock() != &body || !slice.insert(def).second)
        continue;
      llvm::append_range(worklist, def->getOperands());
    }
  }
  if (!reduced || readsAccumulator ||
      llvm::any_of(accumulator.getUsers(), [&](Operation *user) {
        return user != combine &&
               llvm::any_of(user->getResultTypes(), isFloatLike);
      }))
    return op->emitOpError("has no gradient rule for this reduction: ")
           << "expected its body to yield 'arith.addf', 'arith.maximumf' or "
              "'arith.minimumf' of the accumulator and a value of the inputs";

  AffineMap resultMap = maps[numInputs + resultIndex];
  Value result = op->getResult(resultIndex);
  Value init = op.getDpsInits()[resultIndex];
  SmallVector<Value> wanted;
  SmallVector<unsigned> wantedOperands;
  for (OpOperand *operand : op.getDpsInputOperands())
    if (BackwardOpInterface::isDifferentiable(operand->get().getType())) {
      wanted.push_back(op.getMatchingBlockArgument(operand));
      wantedOperands.push_back(operand->getOperandNumber());
    }

  gradients.assign(op->getNumOperands(), Value());
  FailureOr<SmallVector<Value>> adjoints;
  Value initGradient;
  if (kind == Kind::Sum) {
    // d(init + sum_k h_k) = g to the init and to every h_k.
    adjoints = buildAdjoints(
        {{resultGradient, resultMap}}, wanted, combine,
        [&](OpBuilder &b, Location l, const IRMapping &, ValueRange extras,
            DenseMap<Value, Value> &seeds) {
          seeds[reduced] = convert(b, l, extras[0]);
        },
        /*indices=*/{}, &slice);
    initGradient = resultGradient;
  } else {
    // The gradient is split evenly among the elements equal to the result,
    // the init counting as one of them.
    auto isExtremum = [&](OpBuilder &b, Location l, Value value,
                          Value extremum) {
      return arith::CmpFOp::create(b, l, arith::CmpFPredicate::OEQ, value,
                                   extremum);
    };
    auto oneWhere = [&](OpBuilder &b, Location l, Value condition) -> Value {
      return arith::SelectOp::create(
          b, l, condition,
          arith::ConstantOp::create(b, l, b.getFloatAttr(computeType, 1.0)),
          arith::ConstantOp::create(b, l, b.getFloatAttr(computeType, 0.0)));
    };
    Value initCount = createMapGeneric(
        builder, loc, {init, result}, result, computeType,
        [&](OpBuilder &b, Location l, ValueRange args) {
          return oneWhere(b, l, isExtremum(b, l, args[0], args[1]));
        });
    SmallVector<Value> countInputs(op.getDpsInputs());
    countInputs.push_back(result);
    SmallVector<AffineMap> countMaps(maps.begin(), maps.begin() + numInputs);
    countMaps.append({resultMap, resultMap});
    Value count =
        linalg::GenericOp::create(
            builder, loc, TypeRange{initCount.getType()}, countInputs,
            ValueRange{initCount}, countMaps, op.getIteratorTypesArray(),
            [&](OpBuilder &b, Location l, ValueRange args) {
              IRMapping mapping;
              mapping.map(body.getArguments().take_front(numInputs),
                          args.take_front(numInputs));
              cloneBody(b, body, mapping, combine, &slice);
              Value hit = oneWhere(
                  b, l,
                  isExtremum(b, l, mapping.lookupOrDefault(reduced),
                             args[numInputs]));
              linalg::YieldOp::create(
                  b, l,
                  ValueRange{arith::AddFOp::create(b, l, args.back(), hit)});
            })
            ->getResult(0);
    Value share = createMapGeneric(
        builder, loc, {resultGradient, count}, result, computeType,
        [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          return arith::DivFOp::create(b, l, convert(b, l, args[0]), args[1]);
        });
    adjoints = buildAdjoints(
        {{result, resultMap}, {share, resultMap}}, wanted, combine,
        [&](OpBuilder &b, Location l, const IRMapping &mapping,
            ValueRange extras, DenseMap<Value, Value> &seeds) {
          seeds[reduced] = arith::SelectOp::create(
              b, l,
              isExtremum(b, l, mapping.lookupOrDefault(reduced), extras[0]),
              extras[1],
              arith::ConstantOp::create(b, l,
                                        b.getFloatAttr(computeType, 0.0)));
        },
        /*indices=*/{}, &slice);
    initGradient = createMapGeneric(
        builder, loc, {init, result, share}, result, computeType,
        [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          return arith::SelectOp::create(
              b, l, isExtremum(b, l, args[0], args[1]), args[2],
              arith::ConstantOp::create(b, l,
                                        b.getFloatAttr(computeType, 0.0)));
        });
  }
  if (failed(adjoints))
    return failure();
  for (auto [operandNumber, adjoint] : llvm::zip(wantedOperands, *adjoints))
    gradients[operandNumber] = sumToOperand(
        adjoint, op->getOperand(operandNumber), maps[operandNumber]);
  if (BackwardOpInterface::isDifferentiable(init.getType()))
    gradients[op.getDpsInitsMutable()[resultIndex].getOperandNumber()] =
        initGradient;
  return success();
}

namespace {

/// A structured linalg op with a body of scalar ops from the table.
template <typename OpTy>
struct LinalgBodyBackwardModel
    : public BackwardOpInterface::ExternalModel<LinalgBodyBackwardModel<OpTy>,
                                                OpTy> {
  LogicalResult buildGradients(Operation *op, OpBuilder &builder,
                               ArrayRef<Value> resultGradients,
                               SmallVectorImpl<Value> &operandGradients) const {
    return LinalgDifferentiator(cast<linalg::LinalgOp>(op), builder)
        .run(resultGradients, operandGradients);
  }
};

template <typename... OpTys>
void attachLinalgBodyModels(MLIRContext *context) {
  (OpTys::template attachInterface<LinalgBodyBackwardModel<OpTys>>(*context),
   ...);
}

} // namespace

void mlir::prec::registerElementwiseBackwardModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, arith::ArithDialect *) {
    attachElementwiseModels<
        arith::AddFOp, arith::SubFOp, arith::MulFOp, arith::DivFOp,
        arith::NegFOp, arith::MaximumFOp, arith::MaxNumFOp, arith::MinimumFOp,
        arith::MinNumFOp, arith::SelectOp, arith::ExtFOp, arith::TruncFOp>(
        context);
  });
  registry.addExtension(+[](MLIRContext *context, math::MathDialect *) {
    attachElementwiseModels<math::FmaOp, math::ExpOp, math::Exp2Op,
                            math::ExpM1Op, math::LogOp, math::Log2Op,
                            math::Log1pOp, math::TanhOp, math::ErfOp,
                            math::SqrtOp, math::RsqrtOp, math::AbsFOp,
                            math::SinOp, math::CosOp, math::TanOp,
                            math::AsinOp, math::AcosOp, math::AtanOp,
                            math::Atan2Op, math::SinhOp, math::CoshOp,
                            math::AsinhOp, math::AcoshOp, math::AtanhOp,
                            math::PowFOp, math::FPowIOp>(context);
  });
  registry.addExtension(+[](MLIRContext *context, linalg::LinalgDialect *) {
    attachLinalgBodyModels<
        linalg::GenericOp, linalg::MapOp, linalg::ReduceOp,
        linalg::BroadcastOp, linalg::ElementwiseOp, linalg::CopyOp,
        linalg::ExpOp, linalg::LogOp, linalg::AbsOp, linalg::NegFOp,
        linalg::ReciprocalOp, linalg::SqrtOp, linalg::RsqrtOp,
        linalg::SquareOp, linalg::TanhOp, linalg::ErfOp, linalg::AddOp,
        linalg::SubOp, linalg::MulOp, linalg::DivOp, linalg::MaxOp,
        linalg::MinOp, linalg::PowFOp, linalg::SelectOp>(context);
  });
}
