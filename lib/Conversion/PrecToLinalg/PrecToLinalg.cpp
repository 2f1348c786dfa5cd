//===- PrecToLinalg.cpp - prec's local ops to linalg kernels --------------===//

#include "prec/Conversion/Passes.h"
#include "prec/Dialect/Prec/IR/PrecOps.h"
#include "prec/Dialect/Prec/Utils/FloatCodecs.h"
#include "prec/Dialect/Prec/Utils/Quantization.h"
#include "prec/Dialect/Prec/Utils/RandomStreams.h"
#include "prec/Dialect/Prec/Utils/TensorBuilders.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::prec {
#define GEN_PASS_DEF_CONVERTPRECTOLINALG
#include "prec/Conversion/Passes.h.inc"
} // namespace mlir::prec

using namespace mlir;
using namespace mlir::prec;

namespace {

/// Rejects, with a diagnostic, what the kernels do not implement: dynamic
/// shapes. (Element types the kernels do not convert are rejected by the
/// ops' verifiers.)
LogicalResult checkLowerable(Operation *op) {
  for (Type type :
       llvm::concat<Type>(op->getOperandTypes(), op->getResultTypes())) {
    if (auto shaped = dyn_cast<ShapedType>(type);
        shaped && !shaped.hasStaticShape())
      return op->emitOpError("expected static shapes, got ") << type;
  }
  return success();
}

Value floatConstant(OpBuilder &b, Location loc, FloatType type, double value) {
  return arith::ConstantOp::create(b, loc, type, b.getFloatAttr(type, value));
}

/// One elementwise kernel over `inputs` producing `outputTypes`, all of the
/// same shape; `body` maps the input elements to the output elements.
SmallVector<Value> buildFusedElementwise(
    OpBuilder &b, Location loc, ValueRange inputs, TypeRange outputTypes,
    function_ref<SmallVector<Value>(OpBuilder &, Location, ValueRange)> body) {
  auto shape = cast<RankedTensorType>(outputTypes.front()).getShape();
  SmallVector<Value> inits;
  for (Type type : outputTypes)
    inits.push_back(tensor::EmptyOp::create(
        b, loc, shape, cast<RankedTensorType>(type).getElementType()));
  int64_t rank = shape.size();
  SmallVector<AffineMap> maps(inputs.size() + inits.size(),
                              b.getMultiDimIdentityMap(rank));
  auto generic = linalg::GenericOp::create(
      b, loc, outputTypes, inputs, inits, maps,
      SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
      [&](OpBuilder &nb, Location nl, ValueRange args) {
        linalg::YieldOp::create(nb, nl,
                                body(nb, nl, args.take_front(inputs.size())));
      });
  return SmallVector<Value>(generic.getResults());
}

/// Inside an elementwise kernel over a tensor of `shape` (identity maps):
/// `value` converted to `to`, stochastically with word i of `seed`'s Philox
/// stream for element i (row-major) when `seed` is given.
Value convertElement(OpBuilder &b, Location loc, Value value, FloatType to,
                     Value seed, ArrayRef<int64_t> shape) {
  if (!seed)
    return convertFloat(b, loc, value, to);
  Value index;
  if (shape.empty()) {
    index = arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(0));
  } else {
    SmallVector<unsigned> dims;
    for (unsigned d = 0; d < shape.size(); ++d)
      dims.push_back(d);
    index = buildLinearIndex(b, loc, shape, dims);
  }
  return convertFloatStochastic(b, loc, value, to,
                                buildPhiloxWord(b, loc, seed, index));
}

struct CastOpLowering : OpConversionPattern<CastOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(CastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto target = cast<FloatType>(getElementTypeOrSelf(op.getType()));
    Location loc = op.getLoc();
    Value seed = adaptor.getSeed();
    auto tensorType = dyn_cast<RankedTensorType>(op.getType());
    if (!tensorType) {
      rewriter.replaceOp(op, convertElement(rewriter, loc, adaptor.getInput(),
                                            target, seed, {}));
      return success();
    }
    rewriter.replaceOp(
        op, buildFusedElementwise(
                rewriter, loc, adaptor.getInput(), op.getType(),
                [&](OpBuilder &b, Location l,
                    ValueRange x) -> SmallVector<Value> {
                  return {convertElement(b, l, x[0], target, seed,
                                         tensorType.getShape())};
                }));
    return success();
  }
};

struct ReduceOpLowering : OpConversionPattern<ReduceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ReduceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType inputType = op.getInput().getType();
    Location loc = op.getLoc();
    auto input = cast<FloatType>(inputType.getElementType());
    auto acc = op.getAccDtype() ? cast<FloatType>(*op.getAccDtype())
                                : getDefaultAccumulationType(input);
    auto resultElement = cast<FloatType>(op.getType().getElementType());
    ReductionKind kind = op.getReduction();

    auto accType = RankedTensorType::get(op.getType().getShape(), acc);
    Value init =
        linalg::FillOp::create(
            rewriter, loc,
            ValueRange{arith::ConstantOp::create(
                rewriter, loc, getReductionIdentity(rewriter, kind, acc))},
            ValueRange{tensor::EmptyOp::create(rewriter, loc,
                                               accType.getShape(), acc)})
            .getResult(0);
    int64_t rank = inputType.getRank();
    SmallVector<AffineExpr> kept;
    SmallVector<utils::IteratorType> iterators;
    int64_t reducedCount = 1;
    for (int64_t d = 0; d < rank; ++d) {
      if (llvm::is_contained(op.getDims(), d)) {
        iterators.push_back(utils::IteratorType::reduction);
        reducedCount *= inputType.getDimSize(d);
      } else {
        iterators.push_back(utils::IteratorType::parallel);
        kept.push_back(rewriter.getAffineDimExpr(d));
      }
    }
    auto reduced = linalg::GenericOp::create(
        rewriter, loc, accType, adaptor.getInput(), init,
        ArrayRef<AffineMap>{
            rewriter.getMultiDimIdentityMap(rank),
            AffineMap::get(rank, 0, kept, rewriter.getContext())},
        iterators, [&](OpBuilder &b, Location l, ValueRange args) {
          Value term = convertFloat(b, l, args[0], acc);
          linalg::YieldOp::create(
              b, l, combineReduction(b, l, kind, args[1], term));
        });
    rewriter.replaceOp(
        op,
        buildFusedElementwise(
            rewriter, loc, reduced.getResult(0), op.getType(),
            [&](OpBuilder &b, Location l, ValueRange v) -> SmallVector<Value> {
              Value value = v[0];
              if (kind == ReductionKind::Avg) {
                auto count = static_cast<double>(reducedCount);
                FloatType divisionType = getExactDivisionType(acc, count);
                Value dividend = convertFloat(b, l, value, divisionType);
                Value divisor = floatConstant(b, l, divisionType, count);
                value = arith::DivFOp::create(b, l, dividend, divisor);
              }
              return {convertFloat(b, l, value, resultElement)};
            }));
    return success();
  }
};

/// `next` converted to the shard type (stochastically with a `seed`),
/// appended when the op has a shard.
void appendShard(OpBuilder &b, Location loc, Value shard, Value next,
                 Value seed, SmallVectorImpl<Value> &results) {
  if (!shard)
    return;
  auto type = cast<RankedTensorType>(shard.getType());
  results.push_back(convertElement(b, loc, next,
                                   cast<FloatType>(type.getElementType()),
                                   seed, type.getShape()));
}

struct SGDOpLowering : OpConversionPattern<SGDOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SGDOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto master = cast<FloatType>(op.getParam().getType().getElementType());
    Value lr = convertFloat(rewriter, loc, adaptor.getLr(), master);
    double weightDecay = op.getWeightDecay().convertToDouble();
    rewriter.replaceOp(
        op,
        buildFusedElementwise(
            rewriter, loc, ValueRange{adaptor.getParam(), adaptor.getGrad()},
            op->getResultTypes(),
            [&](OpBuilder &b, Location l, ValueRange x) -> SmallVector<Value> {
              Value param = x[0];
              Value grad = convertFloat(b, l, x[1], master);
              if (weightDecay != 0.0)
                grad = arith::AddFOp::create(
                    b, l, grad,
                    arith::MulFOp::create(
                        b, l, floatConstant(b, l, master, weightDecay), param));
              Value next = arith::SubFOp::create(
                  b, l, param, arith::MulFOp::create(b, l, lr, grad));
              SmallVector<Value> results{next};
              appendShard(b, l, op.getShard(), next, adaptor.getSeed(), results);
              return results;
            }));
    return success();
  }
};

struct AdamWOpLowering : OpConversionPattern<AdamWOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AdamWOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto master = cast<FloatType>(op.getParam().getType().getElementType());
    double beta1 = op.getBeta1().convertToDouble();
    double beta2 = op.getBeta2().convertToDouble();
    double eps = op.getEps().convertToDouble();
    double weightDecay = op.getWeightDecay().convertToDouble();

    // Per-step scalars, computed once outside the kernel. The bias
    // corrections 1 - beta^step in f64, as torch.optim.AdamW computes them
    // (in Python floats), then rounded once: in f32, 1 - 0.999^step cancels
    // all but a few bits of beta's rounding.
    Value lr = convertFloat(rewriter, loc, adaptor.getLr(), master);
    Value one = floatConstant(rewriter, loc, master, 1.0);
    Type f64 = rewriter.getF64Type();
    Value step64 = convertFloat(rewriter, loc, adaptor.getStep(),
                                cast<FloatType>(f64));
    auto biasCorrection = [&](double beta) -> Value {
      Value power = math::PowFOp::create(
          rewriter, loc, floatConstant(rewriter, loc, cast<FloatType>(f64), beta),
          step64);
      Value correction = arith::SubFOp::create(
          rewriter, loc, floatConstant(rewriter, loc, cast<FloatType>(f64), 1.0),
          power);
      return convertFloat(rewriter, loc, correction, master);
    };
    Value correction1 = biasCorrection(beta1);
    Value correction2 = biasCorrection(beta2);
    Value decay = arith::SubFOp::create(
        rewriter, loc, one,
        arith::MulFOp::create(
            rewriter, loc, lr,
            floatConstant(rewriter, loc, master, weightDecay)));

    rewriter.replaceOp(
        op,
        buildFusedElementwise(
            rewriter, loc,
            ValueRange{adaptor.getParam(), adaptor.getGrad(),
                       adaptor.getExpAvg(), adaptor.getExpAvgSq()},
            op->getResultTypes(),
            [&](OpBuilder &b, Location l, ValueRange x) -> SmallVector<Value> {
              auto constant = [&](double v) {
                return floatConstant(b, l, master, v);
              };
              Value grad = convertFloat(b, l, x[1], master);
              Value m = arith::AddFOp::create(
                  b, l, arith::MulFOp::create(b, l, constant(beta1), x[2]),
                  arith::MulFOp::create(b, l, constant(1.0 - beta1), grad));
              Value v = arith::AddFOp::create(
                  b, l, arith::MulFOp::create(b, l, constant(beta2), x[3]),
                  arith::MulFOp::create(
                      b, l, constant(1.0 - beta2),
                      arith::MulFOp::create(b, l, grad, grad)));
              Value mHat = arith::DivFOp::create(b, l, m, correction1);
              Value vHat = arith::DivFOp::create(b, l, v, correction2);
              Value denominator = arith::AddFOp::create(
                  b, l, math::SqrtOp::create(b, l, vHat), constant(eps));
              Value update = arith::MulFOp::create(
                  b, l, lr, arith::DivFOp::create(b, l, mHat, denominator));
              Value next = arith::SubFOp::create(
                  b, l, arith::MulFOp::create(b, l, x[0], decay), update);
              SmallVector<Value> results{next, m, v};
              appendShard(b, l, op.getShard(), next, adaptor.getSeed(), results);
              return results;
            }));
    return success();
  }
};

/// The map from an element of a `rank`-dimensional tensor to its scale:
/// the one scale of per-tensor scaling, or the scale of its block of the
/// innermost dimension.
AffineMap getScaleMap(OpBuilder &b, int64_t rank, ScalingAttr scaling) {
  if (scaling.getKind() != ScalingKind::Block)
    return AffineMap::get(rank, 0, {}, b.getContext());
  SmallVector<AffineExpr> exprs;
  for (int64_t d = 0; d + 1 < rank; ++d)
    exprs.push_back(b.getAffineDimExpr(d));
  exprs.push_back(b.getAffineDimExpr(rank - 1).floorDiv(scaling.getBlockSize()));
  return AffineMap::get(rank, 0, exprs, b.getContext());
}

/// An elementwise kernel over `data` (and its result) that also reads each
/// element's scale.
Value buildScaledElementwise(
    OpBuilder &b, Location loc, Value data, Value scale, ScalingAttr scaling,
    RankedTensorType resultType,
    function_ref<Value(OpBuilder &, Location, Value, Value)> body) {
  int64_t rank = resultType.getRank();
  Value init = tensor::EmptyOp::create(b, loc, resultType.getShape(),
                                       resultType.getElementType());
  AffineMap identity = b.getMultiDimIdentityMap(rank);
  auto generic = linalg::GenericOp::create(
      b, loc, resultType, ValueRange{data, scale}, init,
      ArrayRef<AffineMap>{identity, getScaleMap(b, rank, scaling), identity},
      SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
      [&](OpBuilder &nb, Location nl, ValueRange args) {
        linalg::YieldOp::create(nb, nl, body(nb, nl, args[0], args[1]));
      });
  return generic.getResult(0);
}

/// `saturate(round(x / scale))`, the quotient computed in f32 (in the input
/// type where that is wider).
struct QuantizeOpLowering : OpConversionPattern<QuantizeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(QuantizeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto resultElement = cast<FloatType>(op.getType().getElementType());
    rewriter.replaceOp(
        op, buildScaledElementwise(
                rewriter, op.getLoc(), adaptor.getInput(), adaptor.getScale(),
                op.getScaling(), op.getType(),
                [&](OpBuilder &b, Location l, Value x, Value scale) {
                  Value quotient = buildQuantizeQuotient(b, l, x, scale);
                  return convertElement(b, l, quotient, resultElement,
                                        adaptor.getSeed(),
                                        op.getType().getShape());
                }));
    return success();
  }
};

/// `q * scale` rounded once to the result type: in f32 for f32 results
/// (with scales that f32 holds); for bf16 and f16 results, the exact
/// product rounded to odd in f32 arithmetic (buildFp8TimesScaleRoundedToOdd)
/// and then to the result; otherwise in f64, where the product of an fp8
/// value and an f32 scale is exact.
struct DequantizeOpLowering : OpConversionPattern<DequantizeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(DequantizeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto resultElement = cast<FloatType>(op.getType().getElementType());
    auto scaleElement =
        cast<FloatType>(op.getScale().getType().getElementType());
    FloatType f32 = rewriter.getF32Type();
    bool scaleInF32 = isa<Float8E8M0FNUType>(scaleElement) ||
                      floatTypeContains(f32, scaleElement);
    if (scaleInF32 && isa<BFloat16Type, Float16Type>(resultElement) &&
        isBitManipulatedFloatType(op.getInput().getType().getElementType())) {
      rewriter.replaceOp(
          op, buildScaledElementwise(
                  rewriter, op.getLoc(), adaptor.getInput(), adaptor.getScale(),
                  op.getScaling(), op.getType(),
                  [&](OpBuilder &b, Location l, Value q, Value scale) {
                    Value product = buildFp8TimesScaleRoundedToOdd(
                        b, l, convertFloat(b, l, q, f32),
                        convertFloat(b, l, scale, f32));
                    return convertFloat(b, l, product, resultElement);
                  }));
      return success();
    }
    bool exactInF32 = resultElement == f32 && scaleInF32;
    FloatType compute = exactInF32 ? f32 : rewriter.getF64Type();
    rewriter.replaceOp(
        op, buildScaledElementwise(
                rewriter, op.getLoc(), adaptor.getInput(), adaptor.getScale(),
                op.getScaling(), op.getType(),
                [&](OpBuilder &b, Location l, Value q, Value scale) {
                  Value product = arith::MulFOp::create(
                      b, l, convertFloat(b, l, q, compute),
                      convertFloat(b, l, scale, compute));
                  return convertFloat(b, l, product, resultElement);
                }));
    return success();
  }
};

/// A tensor of `shape` filled with `value`.
Value buildFilledTensor(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                        FloatType type, double value) {
  Value fill = floatConstant(b, loc, type, value);
  return linalg::FillOp::create(
             b, loc, ValueRange{fill},
             ValueRange{tensor::EmptyOp::create(b, loc, shape, type)})
      .getResult(0);
}

/// max |x| over the finite elements, per tensor or per block: a reduction
/// over the whole tensor, or over the innermost dimension of the
/// [.., K / B, B] view.
struct AmaxOpLowering : OpConversionPattern<AmaxOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AmaxOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType inputType = op.getInput().getType();
    auto inputElement = cast<FloatType>(inputType.getElementType());
    FloatType f32 = rewriter.getF32Type();
    Value input = adaptor.getInput();
    if (std::optional<uint64_t> block = op.getBlockSize()) {
      SmallVector<int64_t> shape(inputType.getShape());
      int64_t inner = shape.back();
      shape.back() = inner / static_cast<int64_t>(*block);
      shape.push_back(static_cast<int64_t>(*block));
      SmallVector<ReassociationIndices> groups;
      for (int64_t d = 0; d + 1 < inputType.getRank(); ++d)
        groups.push_back({d});
      groups.push_back({inputType.getRank() - 1, inputType.getRank()});
      input = tensor::ExpandShapeOp::create(
          rewriter, loc, RankedTensorType::get(shape, inputElement), input,
          groups);
    }
    RankedTensorType resultType = op.getType();
    // Per tensor, a reduction into one accumulator is a loop LLVM leaves
    // scalar (the maximum goes through memory each element): the maxima of
    // the columns of a [rows, columns] view are a vector loop per row, then
    // one short reduction. A maximum is exact in any order: the same value.
    int64_t elements = inputType.getNumElements();
    if (!op.getBlockSize() && inputType.hasStaticShape() &&
        getAmaxColumns(elements) >= 8) {
      int64_t columns = getAmaxColumns(elements);
      MLIRContext *context = rewriter.getContext();
      Value matrix = reshapeTensor(
          rewriter, loc, input,
          RankedTensorType::get({elements / columns, columns}, inputElement));
      AffineExpr i = rewriter.getAffineDimExpr(0),
                 j = rewriter.getAffineDimExpr(1);
      auto columnMaxima = linalg::GenericOp::create(
          rewriter, loc, RankedTensorType::get({columns}, f32), matrix,
          buildFilledTensor(rewriter, loc, {columns}, f32, 0.0),
          ArrayRef{AffineMap::get(2, 0, {i, j}, context),
                   AffineMap::get(2, 0, {j}, context)},
          ArrayRef{utils::IteratorType::reduction,
                   utils::IteratorType::parallel},
          [&](OpBuilder &b, Location l, ValueRange args) {
            linalg::YieldOp::create(
                b, l,
                buildAmaxMaximum(b, l, args[1], buildAmaxTerm(b, l, args[0])));
          });
      rewriter.replaceOp(op, buildLargestPartialAmax(
                                 rewriter, loc, columnMaxima.getResult(0)));
      return success();
    }
    auto viewType = cast<RankedTensorType>(input.getType());
    int64_t rank = viewType.getRank();
    SmallVector<AffineExpr> kept;
    SmallVector<utils::IteratorType> iterators;
    for (int64_t d = 0; d < rank; ++d) {
      bool reduced = op.getBlockSize() ? d == rank - 1 : true;
      iterators.push_back(reduced ? utils::IteratorType::reduction
                                  : utils::IteratorType::parallel);
      if (!reduced)
        kept.push_back(rewriter.getAffineDimExpr(d));
    }
    Value init =
        buildFilledTensor(rewriter, loc, resultType.getShape(), f32, 0.0);
    auto reduced = linalg::GenericOp::create(
        rewriter, loc, resultType, input, init,
        ArrayRef<AffineMap>{
            rewriter.getMultiDimIdentityMap(rank),
            AffineMap::get(rank, 0, kept, rewriter.getContext())},
        iterators, [&](OpBuilder &b, Location l, ValueRange args) {
          linalg::YieldOp::create(
              b, l,
              buildAmaxMaximum(b, l, args[1], buildAmaxTerm(b, l, args[0])));
        });
    rewriter.replaceOp(op, reduced.getResult(0));
    return success();
  }
};

struct ScaleFromAmaxOpLowering : OpConversionPattern<ScaleFromAmaxOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ScaleFromAmaxOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto element = cast<FloatType>(op.getElementType());
    auto scaleType = cast<FloatType>(op.getType().getElementType());
    rewriter.replaceOp(
        op, buildFusedElementwise(
                rewriter, op.getLoc(), adaptor.getAmax(), op.getType(),
                [&](OpBuilder &b, Location l,
                    ValueRange amax) -> SmallVector<Value> {
                  return {buildScaleFromAmax(b, l, amax[0], element,
                                             scaleType)};
                }));
    return success();
  }
};

struct ConvertPrecToLinalgPass
    : public prec::impl::ConvertPrecToLinalgBase<ConvertPrecToLinalgPass> {
  void runOnOperation() override {
    WalkResult checked = getOperation().walk([](Operation *op) {
      if (!isa<CastOp, ReduceOp, SGDOp, AdamWOp, QuantizeOp, DequantizeOp,
               AmaxOp, ScaleFromAmaxOp>(op))
        return WalkResult::advance();
      return failed(checkLowerable(op)) ? WalkResult::interrupt()
                                        : WalkResult::advance();
    });
    if (checked.wasInterrupted())
      return signalPassFailure();

    ConversionTarget target(getContext());
    target.addIllegalOp<CastOp, ReduceOp, SGDOp, AdamWOp, QuantizeOp,
                        DequantizeOp, AmaxOp, ScaleFromAmaxOp>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    RewritePatternSet patterns(&getContext());
    populatePrecToLinalgConversionPatterns(patterns);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

void mlir::prec::populatePrecToLinalgConversionPatterns(
    RewritePatternSet &patterns) {
  patterns
      .add<CastOpLowering, ReduceOpLowering, SGDOpLowering, AdamWOpLowering,
           QuantizeOpLowering, DequantizeOpLowering, AmaxOpLowering,
           ScaleFromAmaxOpLowering>(patterns.getContext());
}
