//===- ShardToPrec.cpp - shard collectives to prec collectives ------------===//

#include "prec/Conversion/Passes.h"
#include "prec/Dialect/Prec/IR/PrecOps.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/Dialect/Shard/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::prec {
#define GEN_PASS_DEF_CONVERTSHARDTOPREC
#include "prec/Conversion/Passes.h.inc"
} // namespace mlir::prec

using namespace mlir;
using namespace mlir::prec;

namespace {

/// The dtypes a policy gives a converted collective.
struct CollectiveDtypes {
  TypeAttr forward;
  TypeAttr backward;
};

/// The policy governing `op`: that of its function or an enclosing op,
/// else `fallback`.
PolicyAttr getGoverningPolicy(Operation *op, PolicyAttr fallback) {
  for (Operation *parent = op->getParentOp(); parent;
       parent = parent->getParentOp())
    if (auto policy =
            parent->getAttrOfType<PolicyAttr>(PrecDialect::kPolicyAttrName))
      return policy;
  return fallback;
}

TypeAttr getTypeAttrOrNull(Type type) {
  return type ? TypeAttr::get(type) : TypeAttr();
}

/// The shard op's result as a statically shaped float tensor, or a
/// diagnostic: prec collectives move floats.
FailureOr<RankedTensorType> getFloatTensorType(Operation *op, Type type,
                                               StringRef what) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !isa<FloatType>(tensor.getElementType()) ||
      !tensor.hasStaticShape()) {
    op->emitOpError("has no prec form: expected a statically shaped float "
                    "tensor as its ")
        << what << ", got " << type;
    return failure();
  }
  return tensor;
}

/// A shard reduction kind as prec's, or a diagnostic naming the op and kind.
FailureOr<ReductionKind> getPrecReduction(Operation *op,
                                          shard::ReductionKind kind) {
  switch (kind) {
  case shard::ReductionKind::Sum:
    return ReductionKind::Sum;
  case shard::ReductionKind::Average:
    return ReductionKind::Avg;
  case shard::ReductionKind::Max:
    return ReductionKind::Max;
  case shard::ReductionKind::Min:
    return ReductionKind::Min;
  default:
    op->emitOpError("has no prec form for reduction '")
        << shard::stringifyReductionKind(kind)
        << "': expected sum, average, max or min";
    return failure();
  }
}

/// The dtypes the governing policy gives the converted form of `op` (a
/// gather moves `param`, a reduction `reduce`), or a diagnostic: fp8 needs a
/// scaling mode, which a policy cannot give.
FailureOr<CollectiveDtypes> getPolicyDtypes(Operation *op,
                                            PolicyAttr fallback) {
  PolicyAttr governing = getGoverningPolicy(op, fallback);
  CollectiveDtypes dtypes;
  if (!governing || isa<shard::AllToAllOp>(op))
    return dtypes;
  bool isGather = isa<shard::AllGatherOp>(op);
  FloatType forward = isGather ? governing.getParam() : governing.getReduce();
  FloatType backward = isGather ? governing.getReduce() : FloatType();
  for (auto [type, entry] : {std::pair(forward, isGather ? "param" : "reduce"),
                             std::pair(backward, "reduce")})
    if (type && isScaledLowPrecisionType(type))
      return op->emitOpError("cannot take ")
             << type << " from the policy's '" << entry
             << "' entry: an fp8 collective needs a scaling mode";
  dtypes.forward = getTypeAttrOrNull(forward);
  dtypes.backward = getTypeAttrOrNull(backward);
  return dtypes;
}

/// Base of the collective patterns: the policy of the pass option.
template <typename ShardOp>
struct CollectivePattern : OpConversionPattern<ShardOp> {
  CollectivePattern(MLIRContext *context, PolicyAttr policy)
      : OpConversionPattern<ShardOp>(context), policy(policy) {}

  FailureOr<CollectiveDtypes> getDtypes(Operation *op) const {
    return getPolicyDtypes(op, policy);
  }

  /// A collective over no grid axes is a group of one: its input, converted
  /// to the result element type. (prec reads empty axes as all axes.)
  LogicalResult replaceWithInput(ShardOp op, Value input,
                                 RankedTensorType resultType,
                                 ConversionPatternRewriter &rewriter) const {
    Value result = input;
    if (input.getType() != resultType)
      result = CastOp::create(rewriter, op.getLoc(), resultType, input);
    rewriter.replaceOp(op, result);
    return success();
  }

  PolicyAttr policy;
};

struct AllReduceOpLowering : CollectivePattern<shard::AllReduceOp> {
  using CollectivePattern::CollectivePattern;

  LogicalResult
  matchAndRewrite(shard::AllReduceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<RankedTensorType> inputType =
        getFloatTensorType(op, op.getInput().getType(), "input");
    FailureOr<RankedTensorType> resultType =
        getFloatTensorType(op, op.getType(), "result");
    if (failed(inputType) || failed(resultType))
      return failure();
    FailureOr<ReductionKind> reduction =
        getPrecReduction(op, op.getReduction());
    if (failed(reduction))
      return failure();
    if (op.getGridAxes().empty())
      return replaceWithInput(op, adaptor.getInput(), *resultType, rewriter);
    FailureOr<CollectiveDtypes> dtypes = getDtypes(op);
    if (failed(dtypes))
      return failure();
    rewriter.replaceOpWithNewOp<AllReduceOp>(
        op, *resultType, adaptor.getInput(), op.getGrid(), op.getGridAxes(),
        dtypes->forward, dtypes->backward, RoundingMode::NearestEven,
        ScalingAttr(), *reduction, /*acc_dtype=*/TypeAttr());
    return success();
  }
};

struct ReduceScatterOpLowering : CollectivePattern<shard::ReduceScatterOp> {
  using CollectivePattern::CollectivePattern;

  LogicalResult
  matchAndRewrite(shard::ReduceScatterOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<RankedTensorType> inputType =
        getFloatTensorType(op, op.getInput().getType(), "input");
    FailureOr<RankedTensorType> resultType =
        getFloatTensorType(op, op.getType(), "result");
    if (failed(inputType) || failed(resultType))
      return failure();
    FailureOr<ReductionKind> reduction =
        getPrecReduction(op, op.getReduction());
    if (failed(reduction))
      return failure();
    if (op.getGridAxes().empty())
      return replaceWithInput(op, adaptor.getInput(), *resultType, rewriter);
    FailureOr<CollectiveDtypes> dtypes = getDtypes(op);
    if (failed(dtypes))
      return failure();
    rewriter.replaceOpWithNewOp<ReduceScatterOp>(
        op, *resultType, adaptor.getInput(), op.getGrid(), op.getGridAxes(),
        dtypes->forward, dtypes->backward, RoundingMode::NearestEven,
        ScalingAttr(), *reduction, /*acc_dtype=*/TypeAttr(),
        op.getScatterAxis().getSExtValue());
    return success();
  }
};

struct AllGatherOpLowering : CollectivePattern<shard::AllGatherOp> {
  using CollectivePattern::CollectivePattern;

  LogicalResult
  matchAndRewrite(shard::AllGatherOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<RankedTensorType> inputType =
        getFloatTensorType(op, op.getInput().getType(), "input");
    FailureOr<RankedTensorType> resultType =
        getFloatTensorType(op, op.getType(), "result");
    if (failed(inputType) || failed(resultType))
      return failure();
    if (op.getGridAxes().empty())
      return replaceWithInput(op, adaptor.getInput(), *resultType, rewriter);
    FailureOr<CollectiveDtypes> dtypes = getDtypes(op);
    if (failed(dtypes))
      return failure();
    // The result keeps shard's element type: the gathered wire values are
    // converted to it, as prec.all_gather defines.
    rewriter.replaceOpWithNewOp<AllGatherOp>(
        op, *resultType, adaptor.getInput(), op.getGridAttr(),
        rewriter.getDenseI16ArrayAttr(op.getGridAxes()), dtypes->forward,
        dtypes->backward, RoundingModeAttr(), ScalingAttr(), /*seed=*/Value(),
        rewriter.getI64IntegerAttr(op.getGatherAxis().getSExtValue()),
        ReductionKindAttr());
    return success();
  }
};

struct AllToAllOpLowering : CollectivePattern<shard::AllToAllOp> {
  using CollectivePattern::CollectivePattern;

  LogicalResult
  matchAndRewrite(shard::AllToAllOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<RankedTensorType> inputType =
        getFloatTensorType(op, op.getInput().getType(), "input");
    FailureOr<RankedTensorType> resultType =
        getFloatTensorType(op, op.getType(), "result");
    if (failed(inputType) || failed(resultType))
      return failure();
    if (op.getGridAxes().empty())
      return replaceWithInput(op, adaptor.getInput(), *resultType, rewriter);
    // A policy names no dtype for exchanges of activations.
    rewriter.replaceOpWithNewOp<AllToAllOp>(
        op, *resultType, adaptor.getInput(), op.getGridAttr(),
        rewriter.getDenseI16ArrayAttr(op.getGridAxes()),
        /*forward_dtype=*/TypeAttr(), /*backward_dtype=*/TypeAttr(),
        RoundingModeAttr(), ScalingAttr(), /*seed=*/Value(),
        rewriter.getI64IntegerAttr(op.getSplitAxis().getSExtValue()),
        rewriter.getI64IntegerAttr(op.getConcatAxis().getSExtValue()));
    return success();
  }
};

/// Whether `op`, if a shard collective, has a prec form; a diagnostic
/// naming the op and what it lacks if not.
LogicalResult checkConvertible(Operation *op, PolicyAttr policy) {
  if (isa<shard::BroadcastOp, shard::GatherOp, shard::ScatterOp,
          shard::ReduceOp, shard::SendOp, shard::RecvOp, shard::ShiftOp,
          shard::UpdateHaloOp>(op))
    return op->emitOpError("has no prec form: convert-shard-to-prec converts "
                           "all_reduce, all_gather, reduce_scatter, "
                           "all_to_all and all_slice");
  if (!isa<shard::AllReduceOp, shard::AllGatherOp, shard::ReduceScatterOp,
           shard::AllToAllOp>(op))
    return success();
  if (failed(getFloatTensorType(op, op->getOperand(0).getType(), "input")) ||
      failed(getFloatTensorType(op, op->getResult(0).getType(), "result")))
    return failure();
  if (auto allReduce = dyn_cast<shard::AllReduceOp>(op))
    if (failed(getPrecReduction(op, allReduce.getReduction())))
      return failure();
  if (auto reduceScatter = dyn_cast<shard::ReduceScatterOp>(op))
    if (failed(getPrecReduction(op, reduceScatter.getReduction())))
      return failure();
  return getPolicyDtypes(op, policy);
}

struct ConvertShardToPrecPass
    : public prec::impl::ConvertShardToPrecBase<ConvertShardToPrecPass> {
  using ConvertShardToPrecBase::ConvertShardToPrecBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *context = &getContext();

    PolicyAttr optionPolicy;
    if (!policy.empty()) {
      Attribute parsed = parseAttribute(policy, context);
      optionPolicy = dyn_cast_or_null<PolicyAttr>(parsed);
      if (!optionPolicy) {
        module.emitError("expected a #prec.policy attribute as the policy "
                         "option, got '")
            << policy << "'";
        return signalPassFailure();
      }
      // The module then carries the policy for prec-apply-policy, which
      // applies its `output` entry.
      if (!module->hasAttr(PrecDialect::kPolicyAttrName))
        module->setAttr(PrecDialect::kPolicyAttrName, optionPolicy);
    }

    // all_slice is local: upstream's lowering makes it an extract_slice at
    // the process's index, which prec's runtime lowering provides. Its
    // patterns are written for the greedy driver (they leave the slice dead).
    {
      SymbolTableCollection symbolTables;
      RewritePatternSet slicePatterns(context);
      shard::populateAllSliceOpLoweringPatterns(slicePatterns, symbolTables);
      if (failed(applyPatternsGreedily(module, std::move(slicePatterns))))
        return signalPassFailure();
      WalkResult remaining = module.walk([](shard::AllSliceOp slice) {
        slice.emitOpError("could not be lowered: expected a static slice of "
                          "a ranked tensor");
        return WalkResult::interrupt();
      });
      if (remaining.wasInterrupted())
        return signalPassFailure();
    }

    // Diagnostics first, so that the conversion below only meets ops it can
    // convert.
    WalkResult unsupported = module.walk([&](Operation *op) {
      return failed(checkConvertible(op, optionPolicy))
                 ? WalkResult::interrupt()
                 : WalkResult::advance();
    });
    if (unsupported.wasInterrupted())
      return signalPassFailure();

    ConversionTarget target(*context);
    target.addIllegalOp<shard::AllReduceOp, shard::AllGatherOp,
                        shard::ReduceScatterOp, shard::AllToAllOp,
                        shard::BroadcastOp, shard::GatherOp, shard::ScatterOp,
                        shard::ReduceOp, shard::SendOp, shard::RecvOp,
                        shard::ShiftOp, shard::UpdateHaloOp>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    RewritePatternSet patterns(context);
    populateShardToPrecConversionPatterns(patterns, optionPolicy);
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace

void mlir::prec::populateShardToPrecConversionPatterns(
    RewritePatternSet &patterns, PolicyAttr policy) {
  MLIRContext *context = patterns.getContext();
  patterns.add<AllReduceOpLowering, ReduceScatterOpLowering,
               AllGatherOpLowering, AllToAllOpLowering>(context, policy);
}
