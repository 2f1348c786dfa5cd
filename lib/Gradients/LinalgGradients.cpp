//===- LinalgGradients.cpp - gradient rules of linalg contractions --------===//
//
// The rules of the structured linalg ops that are not elementwise: matmul,
// batch_matmul, softmax, transpose and fill; and of tensor.cast. A matmul's
// gradients are matmuls that accumulate in f32 (f64 for f64) and are returned
// unrounded; prec-generate-backward rounds them once to each operand's gradient
// dtype.
//
//===----------------------------------------------------------------------===//

#include "prec/Gradients/UpstreamGradients.h"

#include "prec/Gradients/PrecGradients.h"
#include "prec/Dialect/Prec/IR/PrecOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/Sequence.h"

using namespace mlir;
using namespace mlir::prec;

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

/// `value` (a scalar) in `type`, extended when it is narrower.
static Value extendTo(OpBuilder &builder, Location loc, Value value,
                      Type type) {
  if (value.getType() == type)
    return value;
  return arith::ExtFOp::create(builder, loc, type, value);
}

namespace {

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

/// tensor.cast changes only what the type says of the shape: the gradient
/// is cast back to the operand's shape (shard-partition leaves such casts
/// next to its collectives).
struct TensorCastBackwardModel
    : public BackwardOpInterface::ExternalModel<TensorCastBackwardModel,
                                                tensor::CastOp> {
  LogicalResult buildGradients(Operation *op, OpBuilder &builder,
                               ArrayRef<Value> resultGradients,
                               SmallVectorImpl<Value> &operandGradients) const {
    auto castOp = cast<tensor::CastOp>(op);
    auto sourceType = dyn_cast<RankedTensorType>(castOp.getSource().getType());
    if (!sourceType)
      return op->emitOpError("has no gradient rule from an unranked tensor");
    Value gradient = resultGradients[0];
    Type gradientType = sourceType.clone(
        cast<RankedTensorType>(gradient.getType()).getElementType());
    if (gradientType != gradient.getType())
      gradient =
          tensor::CastOp::create(builder, op->getLoc(), gradientType, gradient);
    operandGradients.push_back(gradient);
    return success();
  }
};

} // namespace

void mlir::prec::registerLinalgBackwardModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, tensor::TensorDialect *) {
    tensor::CastOp::attachInterface<TensorCastBackwardModel>(*context);
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
}

void mlir::prec::registerUpstreamBackwardOpInterfaceExternalModels(
    DialectRegistry &registry) {
  registerLinalgBackwardModels(registry);
  registerElementwiseBackwardModels(registry);
  registerTensorBackwardModels(registry);
}
