//===- PrecGradients.cpp - gradient rules of prec's ops -------------------===//
//
// Gradient rules of prec's ops: transposes that carry the precision
// contract. They are external models like the rules of upstream ops
// (prec/Gradients), so that every rule joins the same way.
//
//===----------------------------------------------------------------------===//

#include "prec/Gradients/PrecGradients.h"

#include "prec/Dialect/Prec/IR/PrecDialect.h"
#include "prec/Dialect/Prec/IR/PrecOps.h"
#include "prec/Dialect/Prec/Utils/QuotientRounding.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"

#include <cmath>

using namespace mlir;
using namespace mlir::prec;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

Value mlir::prec::createElementTypeCast(OpBuilder &builder, Location loc,
                                        Value tensor, Type elementType) {
  auto type = cast<RankedTensorType>(tensor.getType());
  if (type.getElementType() == elementType)
    return tensor;
  return CastOp::create(builder, loc, type.clone(elementType), tensor,
                        /*backward_dtype=*/nullptr, RoundingModeAttr(),
                        /*seed=*/Value());
}

Value mlir::prec::createEmptyLike(OpBuilder &builder, Location loc, Value like,
                                 Type elementType) {
  return tensor::EmptyOp::create(
      builder, loc, tensor::getMixedSizes(builder, loc, like), elementType);
}

Value mlir::prec::createSplatLike(OpBuilder &builder, Location loc, Value like,
                                  Type elementType, double value) {
  auto type = cast<RankedTensorType>(like.getType()).clone(elementType);
  FloatAttr element = builder.getFloatAttr(elementType, value);
  if (type.hasStaticShape())
    return arith::ConstantOp::create(
        builder, loc, cast<TypedAttr>(DenseElementsAttr::get(type, element)));
  Value scalar = arith::ConstantOp::create(builder, loc, element);
  Value empty = createEmptyLike(builder, loc, like, elementType);
  return linalg::FillOp::create(builder, loc, ValueRange{scalar},
                                ValueRange{empty})
      ->getResult(0);
}

SmallVector<Value> mlir::prec::getCapturedValues(Operation *op) {
  llvm::SetVector<Value> captured;
  op->walk([&](Operation *nested) {
    if (nested == op)
      return;
    for (Value operand : nested->getOperands())
      if (!op->isAncestor(operand.getParentRegion()->getParentOp()))
        captured.insert(operand);
  });
  return captured.takeVector();
}

/// `tensor / divisor`, elementwise, the exact quotient rounded once to the
/// tensor's element type. A power of two divides exactly in a type that
/// holds it, and f32 and f64 tensors divide by one IEEE division where their
/// type holds the divisor; any other quotient is rounded once by
/// buildDivisionRoundedOnce (a divisor the type does not hold, 0.1, divided
/// in f64 and rounded to nearest would land on midpoints of bf16 and f16
/// that the exact quotient is not on).
static Value createDivide(OpBuilder &builder, Location loc, Value tensor,
                          double divisor) {
  auto type = cast<RankedTensorType>(tensor.getType());
  auto elementType = cast<FloatType>(type.getElementType());
  FloatType divisionType = getExactDivisionType(elementType, divisor);
  int exponent;
  bool powerOfTwo = std::frexp(divisor, &exponent) == 0.5;
  if (powerOfTwo || (divisionType == elementType &&
                     elementType.getWidth() >= 32)) {
    Value dividend = tensor;
    if (divisionType != elementType)
      dividend =
          arith::ExtFOp::create(builder, loc, type.clone(divisionType), tensor);
    Value splat =
        createSplatLike(builder, loc, dividend, divisionType, divisor);
    Value quotient = arith::DivFOp::create(builder, loc, dividend, splat);
    if (divisionType == elementType)
      return quotient;
    return arith::TruncFOp::create(builder, loc, type, quotient);
  }
  AffineMap identity = builder.getMultiDimIdentityMap(type.getRank());
  return linalg::GenericOp::create(
             builder, loc, type, tensor,
             createEmptyLike(builder, loc, tensor, type.getElementType()),
             ArrayRef<AffineMap>{identity, identity},
             SmallVector<utils::IteratorType>(type.getRank(),
                                              utils::IteratorType::parallel),
             [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
               linalg::YieldOp::create(
                   nested, nestedLoc,
                   buildDivisionRoundedOnce(nested, nestedLoc, args[0],
                                            divisor));
             })
      .getResult(0);
}

/// The reduction a transposed collective keeps: `sum` and `avg` are linear;
/// `max` and `min` have no collective transpose.
static FailureOr<ReductionKind> getLinearReduction(Operation *op,
                                                   ReductionKind kind) {
  if (kind == ReductionKind::Sum || kind == ReductionKind::Avg)
    return kind;
  return op->emitOpError("has no gradient rule for reduction '")
         << stringifyReductionKind(kind) << "'";
}

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//
//
// A collective's gradient is the transposed collective on the same group.
// Its wire dtype is the forward op's effective `backward_dtype`, and its own
// `backward_dtype` the forward op's wire dtype, so that transposing twice
// gives the forward collective back. Its result has the forward input's
// type, and its accumulation dtype follows the default rule of its wire
// dtype. Gradient collectives always round to nearest even.
//
//===----------------------------------------------------------------------===//

namespace {

/// What the transpose of a collective shares with every other: the gradient
/// on the forward collective's group, the dtypes swapped, the scaling kept,
/// rounded to nearest even, of the forward input's type.
struct Transpose {
  OpBuilder &builder;
  Location loc;
  RankedTensorType type;
  Value gradient;
  StringRef grid;
  ArrayRef<int16_t> axes;
  TypeAttr wire, backward;
  ScalingAttr scaling;
};

// One rule per collective, chosen by the forward op's type: each builds its
// transposed collective from `t` and what is the forward op's own.

/// all_gather -> reduce_scatter with the gather's `grad_reduction`, whose
/// partial sums cross hosts in the gather's `grad_inter_host_dtype` (with
/// its `grad_inter_host_scaling`).
FailureOr<Value> transpose(AllGatherOp gather, const Transpose &t) {
  return ReduceScatterOp::create(
             t.builder, t.loc, t.type, t.gradient, t.grid, t.axes, t.wire,
             t.backward, RoundingMode::NearestEven, t.scaling,
             /*seed=*/Value(), gather.getGradReduction(),
             /*acc_dtype=*/nullptr, /*pre_divisor=*/nullptr,
             /*post_divisor=*/nullptr, /*algorithm=*/nullptr,
             gather.getGradInterHostDtypeAttr(),
             gather.getGradInterHostScalingAttr(), gather.getGatherAxis())
      .getResult();
}

/// reduce_scatter -> all_gather; an `avg` divides the gradient by the group
/// size first (each rank's input contributed 1/N to the result), explicit
/// divisors by `pre_divisor * post_divisor`.
FailureOr<Value> transpose(ReduceScatterOp scatter, const Transpose &t) {
  FailureOr<ReductionKind> kind =
      getLinearReduction(scatter, scatter.getReduction());
  if (failed(kind))
    return failure();
  Value gradient = t.gradient;
  ReductionDivisors divisors = getExplicitDivisors(scatter);
  if (double divisor = divisors.pre * divisors.post; divisor != 1.0)
    gradient = createDivide(t.builder, t.loc, gradient, divisor);
  if (*kind == ReductionKind::Avg) {
    auto grid = SymbolTable::lookupNearestSymbolFrom<shard::GridOp>(
        scatter, scatter.getGridAttr());
    int64_t groupSize =
        grid ? getCollectiveGroupSize(grid, t.axes) : ShapedType::kDynamic;
    if (ShapedType::isDynamic(groupSize))
      return scatter.emitOpError("has no gradient rule for an avg over a ")
             << "group of dynamic size";
    gradient = createDivide(t.builder, t.loc, gradient,
                            static_cast<double>(groupSize));
  }
  return AllGatherOp::create(
             t.builder, t.loc, t.type, gradient, t.grid, t.axes, t.wire,
             t.backward, RoundingMode::NearestEven, t.scaling,
             /*seed=*/Value(), scatter.getScatterAxis(), ReductionKind::Sum,
             /*grad_inter_host_dtype=*/nullptr,
             /*grad_inter_host_scaling=*/nullptr)
      .getResult();
}

/// all_reduce -> all_reduce of the same (sum or avg) reduction and divisors:
/// both are symmetric linear maps. Its partial sums cross hosts in the
/// forward op's `grad_inter_host_dtype` (with its `grad_inter_host_scaling`).
FailureOr<Value> transpose(AllReduceOp allReduce, const Transpose &t) {
  FailureOr<ReductionKind> kind =
      getLinearReduction(allReduce, allReduce.getReduction());
  if (failed(kind))
    return failure();
  return AllReduceOp::create(
             t.builder, t.loc, t.type, t.gradient, t.grid, t.axes, t.wire,
             t.backward, RoundingMode::NearestEven, t.scaling,
             /*seed=*/Value(), *kind, /*acc_dtype=*/nullptr,
             allReduce.getPreDivisorAttr(), allReduce.getPostDivisorAttr(),
             /*algorithm=*/nullptr, allReduce.getGradInterHostDtypeAttr(),
             allReduce.getGradInterHostScalingAttr(),
             /*grad_inter_host_dtype=*/nullptr,
             /*grad_inter_host_scaling=*/nullptr)
      .getResult();
}

/// all_to_all -> the inverse all_to_all: split and concat axes swapped.
FailureOr<Value> transpose(AllToAllOp allToAll, const Transpose &t) {
  return AllToAllOp::create(t.builder, t.loc, t.type, t.gradient, t.grid,
                            t.axes, t.wire, t.backward,
                            RoundingMode::NearestEven, t.scaling,
                            /*seed=*/Value(),
                            /*split_axis=*/allToAll.getConcatAxis(),
                            /*concat_axis=*/allToAll.getSplitAxis())
      .getResult();
}

/// The gradient rule of every collective: the shared part of its transpose,
/// then its own rule (`transpose` above).
template <typename OpTy>
struct CollectiveBackwardModel
    : public BackwardOpInterface::ExternalModel<CollectiveBackwardModel<OpTy>,
                                                OpTy> {
  LogicalResult buildGradients(Operation *op, OpBuilder &builder,
                               ArrayRef<Value> resultGradients,
                               SmallVectorImpl<Value> &operandGradients) const {
    auto forward = cast<OpTy>(op);
    Transpose t{builder,
                op->getLoc(),
                forward.getInput().getType(),
                resultGradients[0],
                forward.getGrid(),
                forward.getGridAxes(),
                TypeAttr::get(forward.getEffectiveBackwardDtype()),
                TypeAttr::get(forward.getEffectiveForwardDtype()),
                forward.getScalingAttr()};
    FailureOr<Value> gradient = transpose(forward, t);
    if (failed(gradient))
      return failure();
    operandGradients.push_back(*gradient);
    return success();
  }
};

template <typename... OpTys> void attachCollectiveModels(MLIRContext *context) {
  (OpTys::template attachInterface<CollectiveBackwardModel<OpTys>>(*context),
   ...);
}

//===----------------------------------------------------------------------===//
// Casts and local reductions
//===----------------------------------------------------------------------===//

/// prec.cast: the gradient is cast to the cast's effective backward dtype;
/// the caller then converts it to the input's gradient dtype.
struct CastBackwardModel
    : public BackwardOpInterface::ExternalModel<CastBackwardModel, CastOp> {
  LogicalResult buildGradients(Operation *op, OpBuilder &builder,
                               ArrayRef<Value> resultGradients,
                               SmallVectorImpl<Value> &operandGradients) const {
    auto castOp = cast<CastOp>(op);
    operandGradients.push_back(
        createElementTypeCast(builder, op->getLoc(), resultGradients[0],
                              castOp.getEffectiveBackwardDtype()));
    return success();
  }
};

/// prec.reduce (sum, avg): the gradient broadcast over the reduced
/// dimensions, divided by their element count for `avg`. It stays in the
/// result's element type; the caller converts it to the input's gradient
/// dtype.
struct ReduceBackwardModel
    : public BackwardOpInterface::ExternalModel<ReduceBackwardModel, ReduceOp> {
  LogicalResult buildGradients(Operation *op, OpBuilder &builder,
                               ArrayRef<Value> resultGradients,
                               SmallVectorImpl<Value> &operandGradients) const {
    auto reduce = cast<ReduceOp>(op);
    FailureOr<ReductionKind> kind =
        getLinearReduction(op, reduce.getReduction());
    if (failed(kind))
      return failure();
    Location loc = op->getLoc();
    RankedTensorType inputType = reduce.getInput().getType();
    SmallVector<int64_t> dims(reduce.getDims());
    llvm::sort(dims);

    Value gradient = resultGradients[0];
    if (*kind == ReductionKind::Avg) {
      int64_t count = 1;
      for (int64_t dim : dims) {
        if (inputType.isDynamicDim(dim))
          return op->emitOpError("has no gradient rule for an avg over the ")
                 << "dynamic dimension " << dim;
        count *= inputType.getDimSize(dim);
      }
      gradient = createDivide(builder, loc, gradient, count);
    }
    Type elementType =
        cast<RankedTensorType>(gradient.getType()).getElementType();
    Value init = createEmptyLike(builder, loc, reduce.getInput(), elementType);
    operandGradients.push_back(
        linalg::BroadcastOp::create(builder, loc, gradient, init, dims)
            ->getResult(0));
    return success();
  }
};

} // namespace

void mlir::prec::registerBackwardOpInterfaceExternalModels(
    DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, PrecDialect *) {
    attachCollectiveModels<AllGatherOp, ReduceScatterOp, AllReduceOp,
                           AllToAllOp>(context);
    CastOp::attachInterface<CastBackwardModel>(*context);
    ReduceOp::attachInterface<ReduceBackwardModel>(*context);
  });
}
