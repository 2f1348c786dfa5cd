//===- PrecToLinalg.cpp - prec's local ops to linalg kernels --------------===//

#include "prec/Conversion/Passes.h"
#include "prec/Dialect/Prec/IR/PrecOps.h"
#include "prec/Dialect/Prec/Transforms/KernelBuilders.h"

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

/// Rejects, with a diagnostic, what the kernels do not implement: fp8
/// conversions (which need scales and saturation), fp8 quantization,
/// stochastic rounding and tf32 (which LLVM has no type for).
LogicalResult checkLowerable(Operation *op) {
  if (isa<QuantizeOp, DequantizeOp>(op))
    return op->emitOpError("is not lowered to linalg yet (fp8 scaling); "
                           "cast to bf16 or f16 instead");
  if (auto castOp = dyn_cast<CastOp>(op);
      castOp && castOp.getRounding() != RoundingMode::NearestEven)
    return op->emitOpError("stochastic rounding is not supported by the "
                           "linalg lowering");
  for (Type type :
       llvm::concat<Type>(op->getOperandTypes(), op->getResultTypes())) {
    if (auto shaped = dyn_cast<ShapedType>(type);
        shaped && !shaped.hasStaticShape())
      return op->emitOpError("expected static shapes, got ") << type;
    if (isScaledLowPrecisionType(getElementTypeOrSelf(type)))
      return op->emitOpError("fp8 conversions are not supported by the "
                             "linalg lowering, got ")
             << getElementTypeOrSelf(type);
    if (isa<FloatTF32Type>(getElementTypeOrSelf(type)))
      return op->emitOpError("tf32 is not supported by the linalg lowering "
                             "(no LLVM type holds it); use f32 or bf16");
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

struct CastOpLowering : OpConversionPattern<CastOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(CastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto target = cast<FloatType>(getElementTypeOrSelf(op.getType()));
    Location loc = op.getLoc();
    if (!isa<RankedTensorType>(op.getType())) {
      rewriter.replaceOp(
          op, convertFloat(rewriter, loc, adaptor.getInput(), target));
      return success();
    }
    rewriter.replaceOp(op, buildFusedElementwise(
                               rewriter, loc, adaptor.getInput(), op.getType(),
                               [&](OpBuilder &b, Location l,
                                   ValueRange x) -> SmallVector<Value> {
                                 return {convertFloat(b, l, x[0], target)};
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

/// `next` converted to the shard type, appended when the op has a shard.
void appendShard(OpBuilder &b, Location loc, Value shard, Value next,
                 SmallVectorImpl<Value> &results) {
  if (shard)
    results.push_back(convertFloat(
        b, loc, next,
        cast<FloatType>(
            cast<RankedTensorType>(shard.getType()).getElementType())));
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
              appendShard(b, l, op.getShard(), next, results);
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

    // Per-step scalars, computed once outside the kernel.
    Value lr = convertFloat(rewriter, loc, adaptor.getLr(), master);
    Value step = convertFloat(rewriter, loc, adaptor.getStep(), master);
    Value one = floatConstant(rewriter, loc, master, 1.0);
    auto biasCorrection = [&](double beta) -> Value {
      Value power = math::PowFOp::create(
          rewriter, loc, floatConstant(rewriter, loc, master, beta), step);
      return arith::SubFOp::create(rewriter, loc, one, power);
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
              appendShard(b, l, op.getShard(), next, results);
              return results;
            }));
    return success();
  }
};

struct ConvertPrecToLinalgPass
    : public prec::impl::ConvertPrecToLinalgBase<ConvertPrecToLinalgPass> {
  void runOnOperation() override {
    WalkResult checked = getOperation().walk([](Operation *op) {
      if (!isa<CastOp, ReduceOp, SGDOp, AdamWOp, QuantizeOp, DequantizeOp>(op))
        return WalkResult::advance();
      return failed(checkLowerable(op)) ? WalkResult::interrupt()
                                        : WalkResult::advance();
    });
    if (checked.wasInterrupted())
      return signalPassFailure();

    ConversionTarget target(getContext());
    target.addIllegalOp<CastOp, ReduceOp, SGDOp, AdamWOp>();
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
      .add<CastOpLowering, ReduceOpLowering, SGDOpLowering, AdamWOpLowering>(
          patterns.getContext());
}
