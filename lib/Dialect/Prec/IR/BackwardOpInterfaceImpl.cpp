//===- BackwardOpInterfaceImpl.cpp - gradient rules -----------------------===//
//
// Gradient rules of prec's ops (transposes that carry the precision
// contract) and of the upstream tensor ops prec differentiates. All of them
// are external models, so that a gradient rule for any other op joins the
// same way.
//
//===----------------------------------------------------------------------===//

#include "prec/Dialect/Prec/IR/BackwardOpInterfaceImpl.h"

#include "prec/Dialect/Prec/IR/PrecDialect.h"
#include "prec/Dialect/Prec/IR/PrecOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Sequence.h"

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

/// An uninitialized tensor of `like`'s shape with element type
/// `elementType`.
static Value createEmptyLike(OpBuilder &builder, Location loc, Value like,
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

/// `tensor / divisor`, elementwise, in the tensor's element type where it
/// holds `divisor` exactly, else in a wider type and rounded back once.
static Value createDivide(OpBuilder &builder, Location loc, Value tensor,
                          double divisor) {
  auto type = cast<RankedTensorType>(tensor.getType());
  auto elementType = cast<FloatType>(type.getElementType());
  FloatType divisionType = getExactDivisionType(elementType, divisor);
  Value dividend = tensor;
  if (divisionType != elementType)
    dividend =
        arith::ExtFOp::create(builder, loc, type.clone(divisionType), tensor);
  Value splat = createSplatLike(builder, loc, dividend, divisionType, divisor);
  Value quotient = arith::DivFOp::create(builder, loc, dividend, splat);
  if (divisionType == elementType)
    return quotient;
  return arith::TruncFOp::create(builder, loc, type, quotient);
}

/// `matrix` with its last two dimensions swapped (a `linalg.transpose`):
/// the transpose of a matrix, or of every matrix of a batch.
static Value createTranspose(OpBuilder &builder, Location loc, Value matrix) {
  auto type = cast<RankedTensorType>(matrix.getType());
  int64_t rank = type.getRank();
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(builder, loc, matrix);
  std::swap(sizes[rank - 2], sizes[rank - 1]);
  auto permutation = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  std::swap(permutation[rank - 2], permutation[rank - 1]);
  Value init =
      tensor::EmptyOp::create(builder, loc, sizes, type.getElementType());
  return linalg::TransposeOp::create(builder, loc, matrix, init, permutation)
      ->getResult(0);
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

/// all_gather -> reduce_scatter with the gather's `grad_reduction`.
struct AllGatherBackwardModel
    : public BackwardOpInterface::ExternalModel<AllGatherBackwardModel,
                                                AllGatherOp> {
  LogicalResult buildGradients(Operation *op, OpBuilder &builder,
                               ArrayRef<Value> resultGradients,
                               SmallVectorImpl<Value> &operandGradients) const {
    auto gather = cast<AllGatherOp>(op);
    operandGradients.push_back(ReduceScatterOp::create(
        builder, op->getLoc(), gather.getInput().getType(), resultGradients[0],
        gather.getGrid(), gather.getGridAxes(),
        TypeAttr::get(gather.getEffectiveBackwardDtype()),
        TypeAttr::get(gather.getEffectiveForwardDtype()),
        RoundingMode::NearestEven, gather.getScalingAttr(),
        gather.getGradReduction(), /*acc_dtype=*/nullptr,
        gather.getGatherAxis()));
    return success();
  }
};

/// reduce_scatter -> all_gather; an `avg` divides the gradient by the group
/// size first (each rank's input contributed 1/N to the result), explicit
/// divisors by `pre_divisor * post_divisor`.
struct ReduceScatterBackwardModel
    : public BackwardOpInterface::ExternalModel<ReduceScatterBackwardModel,
                                                ReduceScatterOp> {
  LogicalResult buildGradients(Operation *op, OpBuilder &builder,
                               ArrayRef<Value> resultGradients,
                               SmallVectorImpl<Value> &operandGradients) const {
    auto scatter = cast<ReduceScatterOp>(op);
    FailureOr<ReductionKind> kind =
        getLinearReduction(op, scatter.getReduction());
    if (failed(kind))
      return failure();
    Location loc = op->getLoc();
    Value gradient = resultGradients[0];
    ReductionDivisors divisors = getExplicitDivisors(scatter);
    if (double divisor = divisors.pre * divisors.post; divisor != 1.0)
      gradient = createDivide(builder, loc, gradient, divisor);
    if (*kind == ReductionKind::Avg) {
      auto grid = SymbolTable::lookupNearestSymbolFrom<shard::GridOp>(
          op, scatter.getGridAttr());
      int64_t groupSize =
          grid ? getCollectiveGroupSize(grid, scatter.getGridAxes())
               : ShapedType::kDynamic;
      if (ShapedType::isDynamic(groupSize))
        return op->emitOpError("has no gradient rule for an avg over a ")
               << "group of dynamic size";
      gradient =
          createDivide(builder, loc, gradient, static_cast<double>(groupSize));
    }
    operandGradients.push_back(
        AllGatherOp::create(builder, loc, scatter.getInput().getType(),
                            gradient, scatter.getGrid(), scatter.getGridAxes(),
                            TypeAttr::get(scatter.getEffectiveBackwardDtype()),
                            TypeAttr::get(scatter.getEffectiveForwardDtype()),
                            RoundingMode::NearestEven, scatter.getScalingAttr(),
                            /*seed=*/Value(),
                            scatter.getScatterAxis(), ReductionKind::Sum));
    return success();
  }
};

/// all_reduce -> all_reduce of the same (sum or avg) reduction and divisors:
/// both are symmetric linear maps.
struct AllReduceBackwardModel
    : public BackwardOpInterface::ExternalModel<AllReduceBackwardModel,
                                                AllReduceOp> {
  LogicalResult buildGradients(Operation *op, OpBuilder &builder,
                               ArrayRef<Value> resultGradients,
                               SmallVectorImpl<Value> &operandGradients) const {
    auto allReduce = cast<AllReduceOp>(op);
    FailureOr<ReductionKind> kind =
        getLinearReduction(op, allReduce.getReduction());
    if (failed(kind))
      return failure();
    operandGradients.push_back(AllReduceOp::create(
        builder, op->getLoc(), allReduce.getInput().getType(),
        resultGradients[0], allReduce.getGrid(), allReduce.getGridAxes(),
        TypeAttr::get(allReduce.getEffectiveBackwardDtype()),
        TypeAttr::get(allReduce.getEffectiveForwardDtype()),
        RoundingMode::NearestEven, allReduce.getScalingAttr(),
        /*seed=*/Value(), *kind,
        /*acc_dtype=*/nullptr, allReduce.getPreDivisorAttr(),
        allReduce.getPostDivisorAttr(), /*algorithm=*/nullptr));
    return success();
  }
};

/// all_to_all -> the inverse all_to_all: split and concat axes swapped.
struct AllToAllBackwardModel
    : public BackwardOpInterface::ExternalModel<AllToAllBackwardModel,
                                                AllToAllOp> {
  LogicalResult buildGradients(Operation *op, OpBuilder &builder,
                               ArrayRef<Value> resultGradients,
                               SmallVectorImpl<Value> &operandGradients) const {
    auto allToAll = cast<AllToAllOp>(op);
    operandGradients.push_back(AllToAllOp::create(
        builder, op->getLoc(), allToAll.getInput().getType(),
        resultGradients[0], allToAll.getGrid(), allToAll.getGridAxes(),
        TypeAttr::get(allToAll.getEffectiveBackwardDtype()),
        TypeAttr::get(allToAll.getEffectiveForwardDtype()),
        RoundingMode::NearestEven, allToAll.getScalingAttr(), /*seed=*/Value(),
        /*split_axis=*/allToAll.getConcatAxis(),
        /*concat_axis=*/allToAll.getSplitAxis()));
    return success();
  }
};

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

//===----------------------------------------------------------------------===//
// linalg
//===----------------------------------------------------------------------===//

/// The dtype gradient matmuls accumulate in: f32, or the widest of the
/// forward's element types when that is wider (f64).
static Type getGradientAccumulationType(linalg::LinalgOp matmul) {
  FloatType widest;
  for (Value operand : matmul->getOperands())
    if (auto floatType = dyn_cast<FloatType>(
            cast<ShapedType>(operand.getType()).getElementType()))
      if (!widest || floatType.getWidth() > widest.getWidth())
        widest = floatType;
  return getDefaultAccumulationType(widest);
}

/// linalg.matmul, `C = C0 + A B`: dA = dC B^T, dB = A^T dC, dC0 = dC; and
/// linalg.batch_matmul, the same for each matrix of the batch (dimension
/// 0), so that the gradient of each batch's operands stays separate. The
/// products accumulate in f32 (f64 for f64) and are returned unrounded; the
/// caller rounds them once to the operands' gradient dtypes.
template <typename MatmulOpTy>
struct MatmulBackwardModel
    : public BackwardOpInterface::ExternalModel<
          MatmulBackwardModel<MatmulOpTy>, MatmulOpTy> {
  LogicalResult buildGradients(Operation *op, OpBuilder &builder,
                               ArrayRef<Value> resultGradients,
                               SmallVectorImpl<Value> &operandGradients) const {
    auto matmul = cast<MatmulOpTy>(op);
    if (matmul.hasUserDefinedMaps())
      return op->emitOpError("has no gradient rule for non-default ")
             << "indexing maps";
    Location loc = op->getLoc();
    Value lhs = matmul.getInputs()[0], rhs = matmul.getInputs()[1];
    Value resultGradient = resultGradients[0];
    Type accType = getGradientAccumulationType(matmul);

    // Integer factors convert as in the forward matmul.
    SmallVector<NamedAttribute> castAttr;
    if (linalg::TypeFnAttr cast = matmul.getCastAttr())
      castAttr.push_back(builder.getNamedAttr(matmul.getCastAttrName(), cast));
    auto multiply = [&](Value x, Value y, Value shapeLike) -> Value {
      Value zeros = createSplatLike(builder, loc, shapeLike, accType, 0.0);
      return MatmulOpTy::create(builder, loc, TypeRange{zeros.getType()},
                                ValueRange{x, y}, ValueRange{zeros}, castAttr)
          ->getResult(0);
    };
    Value lhsGradient, rhsGradient;
    if (BackwardOpInterface::isDifferentiable(lhs.getType()))
      lhsGradient =
          multiply(resultGradient, createTranspose(builder, loc, rhs), lhs);
    if (BackwardOpInterface::isDifferentiable(rhs.getType()))
      rhsGradient =
          multiply(createTranspose(builder, loc, lhs), resultGradient, rhs);
    operandGradients.append({lhsGradient, rhsGradient, resultGradient});
    return success();
  }
};

/// `value` (a scalar) in `type`, extended when it is narrower.
static Value extendTo(OpBuilder &builder, Location loc, Value value,
                      Type type) {
  if (value.getType() == type)
    return value;
  return arith::ExtFOp::create(builder, loc, type, value);
}

/// linalg.softmax along dimension `d`, `y = exp(x - max_d x) / sum_d exp(x -
/// max_d x)`: `dx = y (dy - sum_d dy y)`, computed in f32 (f64 for f64) from
/// the forward's result and returned unrounded; the init is overwritten and
/// receives none.
struct SoftmaxBackwardModel
    : public BackwardOpInterface::ExternalModel<SoftmaxBackwardModel,
                                                linalg::SoftmaxOp> {
  LogicalResult buildGradients(Operation *op, OpBuilder &builder,
                               ArrayRef<Value> resultGradients,
                               SmallVectorImpl<Value> &operandGradients) const {
    auto softmax = cast<linalg::SoftmaxOp>(op);
    if (!isa<RankedTensorType>(softmax.getInput().getType()))
      return op->emitOpError("has no gradient rule on buffers");
    Location loc = op->getLoc();
    Value y = softmax.getResult()[0];
    Value gradient = resultGradients[0];
    auto type = cast<RankedTensorType>(y.getType());
    auto widest = cast<FloatType>(type.getElementType());
    auto gradientType = cast<FloatType>(getElementTypeOrSelf(gradient));
    if (gradientType.getWidth() > widest.getWidth())
      widest = gradientType;
    Type computeType = getDefaultAccumulationType(widest);
    int64_t rank = type.getRank();
    int64_t dimension = softmax.getDimension();

    // s = sum_d dy * y, over the softmax's dimension.
    SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(builder, loc, y);
    SmallVector<OpFoldResult> reducedSizes(sizes);
    reducedSizes.erase(reducedSizes.begin() + dimension);
    Value zero = arith::ConstantOp::create(
        builder, loc, builder.getFloatAttr(computeType, 0.0));
    Value sumInit =
        tensor::EmptyOp::create(builder, loc, reducedSizes, computeType);
    sumInit = linalg::FillOp::create(builder, loc, ValueRange{zero},
                                     ValueRange{sumInit})
                  ->getResult(0);
    AffineMap identity = builder.getMultiDimIdentityMap(rank);
    AffineMap reduced = identity.dropResult(dimension);
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    iterators[dimension] = utils::IteratorType::reduction;
    Value sum =
        linalg::GenericOp::create(
            builder, loc, TypeRange{sumInit.getType()},
            ValueRange{gradient, y}, ValueRange{sumInit},
            ArrayRef<AffineMap>{identity, identity, reduced}, iterators,
            [&](OpBuilder &b, Location l, ValueRange args) {
              Value product = arith::MulFOp::create(
                  b, l, extendTo(b, l, args[0], computeType),
                  extendTo(b, l, args[1], computeType));
              linalg::YieldOp::create(
                  b, l,
                  ValueRange{arith::AddFOp::create(b, l, args[2], product)});
            })
            ->getResult(0);

    // dx = y * (dy - s), s broadcast along the dimension.
    Value init = tensor::EmptyOp::create(builder, loc, sizes, computeType);
    Value inputGradient =
        linalg::GenericOp::create(
            builder, loc, TypeRange{init.getType()},
            ValueRange{gradient, y, sum}, ValueRange{init},
            ArrayRef<AffineMap>{identity, identity, reduced, identity},
            SmallVector<utils::IteratorType>(rank,
                                             utils::IteratorType::parallel),
            [&](OpBuilder &b, Location l, ValueRange args) {
              Value difference = arith::SubFOp::create(
                  b, l, extendTo(b, l, args[0], computeType), args[2]);
              linalg::YieldOp::create(
                  b, l,
                  ValueRange{arith::MulFOp::create(
                      b, l, extendTo(b, l, args[1], computeType),
                      difference)});
            })
            ->getResult(0);
    operandGradients.append({inputGradient, Value()});
    return success();
  }
};

/// linalg.transpose: the gradient transposed back by the inverse
/// permutation; the init is overwritten and receives none.
struct TransposeBackwardModel
    : public BackwardOpInterface::ExternalModel<TransposeBackwardModel,
                                                linalg::TransposeOp> {
  LogicalResult buildGradients(Operation *op, OpBuilder &builder,
                               ArrayRef<Value> resultGradients,
                               SmallVectorImpl<Value> &operandGradients) const {
    auto transpose = cast<linalg::TransposeOp>(op);
    ArrayRef<int64_t> permutation = transpose.getPermutation();
    SmallVector<int64_t> inverse(permutation.size());
    for (auto [index, dim] : llvm::enumerate(permutation))
      inverse[dim] = index;
    Location loc = op->getLoc();
    Value gradient = resultGradients[0];
    Value init = createEmptyLike(
        builder, loc, transpose.getInput(),
        cast<RankedTensorType>(gradient.getType()).getElementType());
    operandGradients.append(
        {linalg::TransposeOp::create(builder, loc, gradient, init, inverse)
             ->getResult(0),
         Value()});
    return success();
  }
};

/// linalg.fill overwrites its init with a scalar, and scalars carry no
/// gradient: nothing flows back. This is what makes a zero-filled matmul
/// init differentiable.
struct FillBackwardModel
    : public BackwardOpInterface::ExternalModel<FillBackwardModel,
                                                linalg::FillOp> {
  LogicalResult buildGradients(Operation *op, OpBuilder &, ArrayRef<Value>,
                               SmallVectorImpl<Value> &operandGradients) const {
    operandGradients.append(op->getNumOperands(), Value());
    return success();
  }
};

} // namespace

void mlir::prec::registerBackwardOpInterfaceExternalModels(
    DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, PrecDialect *) {
    AllGatherOp::attachInterface<AllGatherBackwardModel>(*context);
    ReduceScatterOp::attachInterface<ReduceScatterBackwardModel>(*context);
    AllReduceOp::attachInterface<AllReduceBackwardModel>(*context);
    AllToAllOp::attachInterface<AllToAllBackwardModel>(*context);
    CastOp::attachInterface<CastBackwardModel>(*context);
    ReduceOp::attachInterface<ReduceBackwardModel>(*context);
  });
  registry.addExtension(+[](MLIRContext *context, linalg::LinalgDialect *) {
    linalg::MatmulOp::attachInterface<MatmulBackwardModel<linalg::MatmulOp>>(
        *context);
    linalg::BatchMatmulOp::attachInterface<
        MatmulBackwardModel<linalg::BatchMatmulOp>>(*context);
    linalg::SoftmaxOp::attachInterface<SoftmaxBackwardModel>(*context);
    linalg::TransposeOp::attachInterface<TransposeBackwardModel>(*context);
    linalg::FillOp::attachInterface<FillBackwardModel>(*context);
  });
  registerElementwiseBackwardModels(registry);
}
