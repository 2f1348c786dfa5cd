//===- LinalgGradients.cpp - gradient rules of linalg contractions --------===//
//
// The rules of the structured linalg ops that are not elementwise: matmul,
// transpose and fill. A matmul's gradients are matmuls that accumulate in
// f32 (f64 for f64) and are returned unrounded; prec-generate-backward
// rounds them once to each operand's gradient dtype.
//
//===----------------------------------------------------------------------===//

#include "prec/Gradients/UpstreamGradients.h"

#include "prec/Dialect/Prec/IR/BackwardOpInterfaceImpl.h"
#include "prec/Dialect/Prec/IR/PrecOps.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::prec;

/// `matrix` transposed (a 2-D `linalg.transpose`).
static Value createTranspose(OpBuilder &builder, Location loc, Value matrix) {
  auto type = cast<RankedTensorType>(matrix.getType());
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(builder, loc, matrix);
  std::swap(sizes[0], sizes[1]);
  Value init =
      tensor::EmptyOp::create(builder, loc, sizes, type.getElementType());
  return linalg::TransposeOp::create(builder, loc, matrix, init,
                                     ArrayRef<int64_t>{1, 0})
      ->getResult(0);
}

/// The dtype gradient matmuls accumulate in: f32, or the widest of the
/// forward's element types when that is wider (f64).
static Type getGradientAccumulationType(linalg::MatmulOp matmul) {
  FloatType widest;
  for (Value operand : matmul->getOperands())
    if (auto floatType = dyn_cast<FloatType>(
            cast<ShapedType>(operand.getType()).getElementType()))
      if (!widest || floatType.getWidth() > widest.getWidth())
        widest = floatType;
  return getDefaultAccumulationType(widest);
}

namespace {

/// linalg.matmul, `C = C0 + A B`: dA = dC B^T, dB = A^T dC, dC0 = dC. The
/// products accumulate in f32 (f64 for f64) and are returned unrounded; the
/// caller rounds them once to the operands' gradient dtypes.
struct MatmulBackwardModel
    : public BackwardOpInterface::ExternalModel<MatmulBackwardModel,
                                                linalg::MatmulOp> {
  LogicalResult buildGradients(Operation *op, OpBuilder &builder,
                               ArrayRef<Value> resultGradients,
                               SmallVectorImpl<Value> &operandGradients) const {
    auto matmul = cast<linalg::MatmulOp>(op);
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
      return linalg::MatmulOp::create(builder, loc, TypeRange{zeros.getType()},
                                      ValueRange{x, y}, ValueRange{zeros},
                                      castAttr)
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

void mlir::prec::registerLinalgBackwardModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, linalg::LinalgDialect *) {
    linalg::MatmulOp::attachInterface<MatmulBackwardModel>(*context);
    linalg::TransposeOp::attachInterface<TransposeBackwardModel>(*context);
    linalg::FillOp::attachInterface<FillBackwardModel>(*context);
  });
}

void mlir::prec::registerUpstreamBackwardOpInterfaceExternalModels(
    DialectRegistry &registry) {
  registerLinalgBackwardModels(registry);
  registerElementwiseBackwardModels(registry);
}
