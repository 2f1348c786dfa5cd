//===- ShardToPrec.cpp - shard collectives to prec collectives ------------===//

#include "prec/Conversion/Passes.h"
#include "prec/Dialect/Prec/IR/PrecOps.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/Dialect/Shard/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <type_traits>

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

/// Whether `value` is an entry argument of its function or a piece of one
/// that data movement alone made (a slice, a gather, an exchange, a cast):
/// a parameter, in the policy's vocabulary.
bool isParameter(Value value) {
  while (true) {
    if (auto arg = dyn_cast<BlockArgument>(value))
      return arg.getOwner()->isEntryBlock() &&
             isa<FunctionOpInterface>(arg.getOwner()->getParentOp());
    Operation *def = value.getDefiningOp();
    if (isa<tensor::CastOp, tensor::ExtractSliceOp, shard::AllGatherOp,
            shard::AllToAllOp, shard::AllSliceOp, AllGatherOp, AllToAllOp,
            CastOp>(def))
      value = def->getOperand(0);
    else
      return false;
  }
}

/// The dtypes the governing policy gives the converted form of `op` (a
/// gather of a parameter moves `param`; the gradient of any gather and every
/// reduction move `reduce`), or a diagnostic: fp8 needs a scaling mode,
/// which a policy cannot give.
FailureOr<CollectiveDtypes> getPolicyDtypes(Operation *op,
                                            PolicyAttr fallback) {
  PolicyAttr governing = getGoverningPolicy(op, fallback);
  CollectiveDtypes dtypes;
  if (!governing || isa<shard::AllToAllOp>(op))
    return dtypes;
  bool isGather = isa<shard::AllGatherOp>(op);
  // Activations are gathered in their own dtype: `param` is the dtype of
  // the parameters.
  FloatType forward = !isGather                        ? governing.getReduce()
                      : isParameter(op->getOperand(0)) ? governing.getParam()
                                                       : FloatType();
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

/// Whether a value may differ between the ranks of its grid, axis by axis:
/// entry arguments may along every axis (the partitioned program no longer
/// says how they were split), a rank's index or slice along its axes, and
/// what is computed from them as what it reads; a gather or all-reduce makes
/// its result the same along its axes (and axes of one rank never differ).
class VaryingValues {
public:
  /// The grid axes along which `value` may differ, one bit each.
  using Axes = uint64_t;

  bool mayVary(Value value) { return getAxes(value) != 0; }

private:
  Axes getAxes(Value value) {
    auto [it, inserted] = cache.try_emplace(value, ~Axes(0));
    if (!inserted)
      return it->second;
    Axes axes = compute(value);
    cache[value] = axes;
    return axes;
  }

  Axes compute(Value value) {
    if (isa<BlockArgument>(value))
      return ~Axes(0);
    Operation *def = value.getDefiningOp();
    if (auto index = dyn_cast<shard::ProcessMultiIndexOp>(def))
      return toMask(index.getAxes());
    if (isa<shard::ProcessLinearIndexOp>(def))
      return ~Axes(0);
    if (auto gather = dyn_cast<shard::AllGatherOp>(def))
      return getAxes(gather.getInput()) &
             ~madeSame(def, gather.getGridAttr(), gather.getGridAxes());
    if (auto reduce = dyn_cast<shard::AllReduceOp>(def))
      return getAxes(reduce.getInput()) &
             ~madeSame(def, reduce.getGridAttr(), reduce.getGridAxes());
    if (auto scatter = dyn_cast<shard::ReduceScatterOp>(def))
      return getAxes(scatter.getInput()) | toMask(scatter.getGridAxes());
    if (auto exchange = dyn_cast<shard::AllToAllOp>(def))
      return getAxes(exchange.getInput()) | toMask(exchange.getGridAxes());
    if (auto slice = dyn_cast<shard::AllSliceOp>(def))
      return getAxes(slice.getInput()) | toMask(slice.getGridAxes());
    // Anything else is as varying as what it reads, its regions' captures
    // included.
    Axes axes = 0;
    for (Value operand : def->getOperands())
      axes |= getAxes(operand);
    def->walk([&](Operation *nested) {
      for (Value operand : nested->getOperands())
        if (!def->isAncestor(operand.getParentRegion()->getParentOp()))
          axes |= getAxes(operand);
    });
    return axes;
  }

  static Axes toMask(ArrayRef<int16_t> axes) {
    Axes mask = 0;
    for (int16_t axis : axes)
      mask |= axis < 64 ? Axes(1) << axis : 0;
    return mask;
  }

  /// The axes along which a collective over `axes` of `gridName` leaves
  /// every rank the same value: its own, those of one rank, and those
  /// beyond the grid's rank.
  static Axes madeSame(Operation *op, FlatSymbolRefAttr gridName,
                       ArrayRef<int16_t> axes) {
    Axes same = toMask(axes);
    auto grid =
        SymbolTable::lookupNearestSymbolFrom<shard::GridOp>(op, gridName);
    if (!grid)
      return same;
    ArrayRef<int64_t> shape = grid.getShape();
    for (size_t axis = 0; axis < 64; ++axis)
      if (axis >= shape.size() || shape[axis] == 1)
        same |= Axes(1) << axis;
    return same;
  }

  DenseMap<Value, Axes> cache;
};

/// A tensor captured by a linalg body (defined outside, read inside) that
/// may differ between ranks: shard-partition leaves such a value as it is,
/// so the body would read this rank's piece at the indices of the whole
/// tensor. A diagnostic at the op that captures it.
LogicalResult checkCaptures(linalg::LinalgOp op, VaryingValues &varying) {
  WalkResult result = op->walk([&](Operation *nested) {
    if (nested == op.getOperation())
      return WalkResult::advance();
    for (Value operand : nested->getOperands()) {
      if (!isa<RankedTensorType>(operand.getType()) ||
          op->isAncestor(operand.getParentRegion()->getParentOp()) ||
          !varying.mayVary(operand))
        continue;
      InFlightDiagnostic diag =
          op->emitOpError("reads a tensor captured from outside its body "
                          "that may differ between ranks: shard-partition "
                          "does not partition captured values, so the body "
                          "would index this rank's shard as the whole "
                          "tensor; pass it as an operand, or gather it first");
      diag.attachNote(nested->getLoc()) << "captured here";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

/// Base of the collective patterns: what every conversion checks (float
/// tensors, a reduction prec has, the policy's dtypes) and the group of one,
/// before `rewriteCollective` builds the prec op.
template <typename ShardOp>
struct CollectivePattern : OpConversionPattern<ShardOp> {
  using OpAdaptor = typename OpConversionPattern<ShardOp>::OpAdaptor;

  CollectivePattern(MLIRContext *context, PolicyAttr policy)
      : OpConversionPattern<ShardOp>(context), policy(policy) {}

  LogicalResult
  matchAndRewrite(ShardOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const final {
    FailureOr<RankedTensorType> inputType =
        getFloatTensorType(op, op.getInput().getType(), "input");
    FailureOr<RankedTensorType> resultType =
        getFloatTensorType(op, op.getType(), "result");
    if (failed(inputType) || failed(resultType))
      return failure();
    ReductionKind reduction = ReductionKind::Sum;
    if constexpr (std::is_same_v<ShardOp, shard::AllReduceOp> ||
                  std::is_same_v<ShardOp, shard::ReduceScatterOp>) {
      FailureOr<ReductionKind> kind = getPrecReduction(op, op.getReduction());
      if (failed(kind))
        return failure();
      reduction = *kind;
    }
    // A collective over no grid axes is a group of one: its input,
    // converted to the result element type. (prec reads empty axes as all
    // axes.)
    if (op.getGridAxes().empty()) {
      Value result = adaptor.getInput();
      if (result.getType() != *resultType)
        result = CastOp::create(rewriter, op.getLoc(), *resultType, result);
      rewriter.replaceOp(op, result);
      return success();
    }
    FailureOr<CollectiveDtypes> dtypes = getPolicyDtypes(op, policy);
    if (failed(dtypes))
      return failure();
    rewriteCollective(op, adaptor.getInput(), *resultType, reduction, *dtypes,
                      rewriter);
    return success();
  }

  /// Replaces `op` by its prec form (`reduction` only for reductions).
  virtual void rewriteCollective(ShardOp op, Value input,
                                 RankedTensorType resultType,
                                 ReductionKind reduction,
                                 const CollectiveDtypes &dtypes,
                                 ConversionPatternRewriter &rewriter) const = 0;

  PolicyAttr policy;
};

struct AllReduceOpLowering : CollectivePattern<shard::AllReduceOp> {
  using CollectivePattern::CollectivePattern;

  void rewriteCollective(shard::AllReduceOp op, Value input,
                         RankedTensorType resultType, ReductionKind reduction,
                         const CollectiveDtypes &dtypes,
                         ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<AllReduceOp>(
        op, resultType, input, op.getGrid(), op.getGridAxes(), dtypes.forward,
        dtypes.backward, RoundingMode::NearestEven, ScalingAttr(), reduction,
        /*acc_dtype=*/TypeAttr());
  }
};

struct ReduceScatterOpLowering : CollectivePattern<shard::ReduceScatterOp> {
  using CollectivePattern::CollectivePattern;

  void rewriteCollective(shard::ReduceScatterOp op, Value input,
                         RankedTensorType resultType, ReductionKind reduction,
                         const CollectiveDtypes &dtypes,
                         ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<ReduceScatterOp>(
        op, resultType, input, op.getGrid(), op.getGridAxes(), dtypes.forward,
        dtypes.backward, RoundingMode::NearestEven, ScalingAttr(), reduction,
        /*acc_dtype=*/TypeAttr(), op.getScatterAxis().getSExtValue());
  }
};

struct AllGatherOpLowering : CollectivePattern<shard::AllGatherOp> {
  using CollectivePattern::CollectivePattern;

  void rewriteCollective(shard::AllGatherOp op, Value input,
                         RankedTensorType resultType, ReductionKind,
                         const CollectiveDtypes &dtypes,
                         ConversionPatternRewriter &rewriter) const override {
    // The result keeps shard's element type: the gathered wire values are
    // converted to it, as prec.all_gather defines. The gradient sums: a
    // replicated result of shard-partition's program is the whole value on
    // every rank, never a rank's local loss, so the transpose is exact.
    rewriter.replaceOpWithNewOp<AllGatherOp>(
        op, resultType, input, op.getGridAttr(),
        rewriter.getDenseI16ArrayAttr(op.getGridAxes()), dtypes.forward,
        dtypes.backward, RoundingModeAttr(), ScalingAttr(), /*seed=*/Value(),
        rewriter.getI64IntegerAttr(op.getGatherAxis().getSExtValue()),
        ReductionKindAttr::get(rewriter.getContext(), ReductionKind::Sum),
        /*grad_inter_host_dtype=*/TypeAttr(),
        /*grad_inter_host_scaling=*/ScalingAttr());
  }
};

struct AllToAllOpLowering : CollectivePattern<shard::AllToAllOp> {
  using CollectivePattern::CollectivePattern;

  void rewriteCollective(shard::AllToAllOp op, Value input,
                         RankedTensorType resultType, ReductionKind,
                         const CollectiveDtypes &,
                         ConversionPatternRewriter &rewriter) const override {
    // A policy names no dtype for exchanges of activations.
    rewriter.replaceOpWithNewOp<AllToAllOp>(
        op, resultType, input, op.getGridAttr(),
        rewriter.getDenseI16ArrayAttr(op.getGridAxes()),
        /*forward_dtype=*/TypeAttr(), /*backward_dtype=*/TypeAttr(),
        RoundingModeAttr(), ScalingAttr(), /*seed=*/Value(),
        rewriter.getI64IntegerAttr(op.getSplitAxis().getSExtValue()),
        rewriter.getI64IntegerAttr(op.getConcatAxis().getSExtValue()));
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

    // A slice over no grid axes is a group of one: its input, cast to the
    // result type where that says less of the shape (shard's verifier makes
    // the shapes agree). Upstream's lowering would slice as if over the
    // whole grid.
    module.walk([](shard::AllSliceOp slice) {
      if (!slice.getGridAxes().empty())
        return;
      Value input = slice.getInput();
      if (input.getType() != slice.getType()) {
        OpBuilder builder(slice);
        input = tensor::CastOp::create(builder, slice.getLoc(), slice.getType(),
                                       input);
      }
      slice.replaceAllUsesWith(input);
      slice.erase();
    });
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
    VaryingValues varying;
    WalkResult unsupported = module.walk([&](Operation *op) {
      if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op))
        if (failed(checkCaptures(linalgOp, varying)))
          return WalkResult::interrupt();
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
