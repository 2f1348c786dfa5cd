//===- FoldCasts.cpp - move conversions where they cost least -------------===//
//
// Every rewrite here is exact: the values a step computes, and the values of
// its gradients, stay bit for bit the same. The justification of each
// condition is in the comment of its pattern; docs/Prec.md has the rules.
//
//===----------------------------------------------------------------------===//

#include "prec/Dialect/Prec/IR/PrecOps.h"
#include "prec/Dialect/Prec/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::prec {
#define GEN_PASS_DEF_PRECFOLDCASTS
#include "prec/Dialect/Prec/Transforms/Passes.h.inc"
} // namespace mlir::prec

using namespace mlir;
using namespace mlir::prec;

namespace {

bool contains(Type wide, Type narrow) {
  return floatTypeContains(cast<FloatType>(wide), cast<FloatType>(narrow));
}

/// A cast that only converts values: round-to-nearest-even, and a gradient
/// that goes back to the input type.
bool isPlainCast(CastOp castOp) {
  return castOp.getRounding() == RoundingMode::NearestEven &&
         castOp.getEffectiveBackwardDtype() ==
             getElementTypeOrSelf(castOp.getInput().getType());
}

/// The dtype of the values a collective computes before converting them to
/// its result type.
Type getComputedDtype(CollectiveOpInterface op) {
  if (Type acc = op.getEffectiveAccDtype())
    return acc;
  return op.getEffectiveForwardDtype();
}

bool hasScaledWire(CollectiveOpInterface op) {
  return isScaledLowPrecisionType(op.getEffectiveForwardDtype()) ||
         isScaledLowPrecisionType(op.getEffectiveBackwardDtype());
}

/// Pins the forward and backward dtypes of `op` to their current effective
/// values, so that changing its input type leaves them unchanged.
void pinDtypes(CollectiveOpInterface op) {
  Type forward = op.getEffectiveForwardDtype();
  Type backward = op.getEffectiveBackwardDtype();
  Type acc = op.getEffectiveAccDtype();
  op.setForwardDtypeAttr(TypeAttr::get(forward));
  op.setBackwardDtypeAttr(TypeAttr::get(backward));
  if (acc)
    op.setAccDtypeAttr(TypeAttr::get(acc));
}

/// cast(collective(x)) -> collective(x) with the cast's result type.
///
/// Forwards the collective computes v in dtype D and writes round_R(v); the
/// cast writes round_C(round_R(v)), which is round_C(v) when R holds every D
/// value. Backwards the cast's gradient ext_R(g) is exact when R holds every
/// C value, so the collective's gradient sees the same values.
struct MergeCastIntoResult : OpRewritePattern<CastOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(CastOp castOp,
                                PatternRewriter &rewriter) const override {
    auto collective = castOp.getInput().getDefiningOp<CollectiveOpInterface>();
    if (!collective || !collective->hasOneUse() || !isPlainCast(castOp) ||
        hasScaledWire(collective))
      return rewriter.notifyMatchFailure(castOp, "not a plain cast of a "
                                                 "single-use collective");
    // Only the element type moves: a cast that also refines the shape
    // would give the collective a result its input does not make.
    if (cast<ShapedType>(castOp.getInput().getType()).getShape() !=
        cast<ShapedType>(castOp.getType()).getShape())
      return rewriter.notifyMatchFailure(castOp, "the cast changes the shape");
    Type resultDtype = collective.getResult().getType().getElementType();
    Type castDtype = getElementTypeOrSelf(castOp.getType());
    if (!contains(resultDtype, getComputedDtype(collective)) ||
        !contains(resultDtype, castDtype))
      return rewriter.notifyMatchFailure(castOp, "the result type rounds");
    rewriter.modifyOpInPlace(collective, [&] {
      collective.getResult().setType(cast<RankedTensorType>(castOp.getType()));
    });
    rewriter.replaceOp(castOp, collective.getResult());
    return success();
  }
};

/// all_gather / all_to_all converting to a narrower result type move the
/// conversion onto the wire.
///
/// The wire holds round_W(x) = x when W holds every input value, so the
/// result round_C(round_W(x)) is round_C(x): sending C gives the same values
/// with fewer bytes. The gradient dtype is pinned, since its default follows
/// the wire dtype.
template <typename OpTy>
struct HoistNarrowingOntoWire : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    auto collective = cast<CollectiveOpInterface>(op.getOperation());
    Type wire = collective.getEffectiveForwardDtype();
    Type input = op.getInput().getType().getElementType();
    Type result = op.getType().getElementType();
    if (wire == result || op.getRounding() != RoundingMode::NearestEven ||
        hasScaledWire(collective) || isScaledLowPrecisionType(result) ||
        !contains(wire, input) || !contains(wire, result))
      return rewriter.notifyMatchFailure(op, "the wire is not an exact, "
                                             "wider copy of the input");
    rewriter.modifyOpInPlace(op, [&] {
      pinDtypes(collective);
      op.setForwardDtypeAttr(TypeAttr::get(result));
    });
    return success();
  }
};

/// collective(cast(x)) with a widening cast -> collective(x).
///
/// Forwards round_W(ext_B(x)) = round_W(x) because the widening is exact.
/// Backwards the collective's gradient used to be rounded to B and then by
/// the cast to A; it is now rounded to A once, which is the same when B holds
/// every value of the gradient's accumulation dtype.
struct MergeWideningCastIntoOperand
    : OpInterfaceRewritePattern<CollectiveOpInterface> {
  using OpInterfaceRewritePattern::OpInterfaceRewritePattern;

  LogicalResult matchAndRewrite(CollectiveOpInterface collective,
                                PatternRewriter &rewriter) const override {
    auto castOp = collective.getInput().getDefiningOp<CastOp>();
    if (!castOp || !isPlainCast(castOp) || hasScaledWire(collective))
      return rewriter.notifyMatchFailure(collective, "no plain cast operand");
    Type narrow = getElementTypeOrSelf(castOp.getInput().getType());
    Type wide = getElementTypeOrSelf(castOp.getType());
    Type backward = collective.getEffectiveBackwardDtype();
    if (!isa<RankedTensorType>(castOp.getInput().getType()) ||
        !contains(wide, narrow) || !contains(wide, backward) ||
        !contains(wide,
                  getDefaultAccumulationType(cast<FloatType>(backward))))
      return rewriter.notifyMatchFailure(collective, "the widening or the "
                                                     "gradient would round");
    rewriter.modifyOpInPlace(collective, [&] {
      pinDtypes(collective);
      collective->setOperand(0, castOp.getInput());
    });
    return success();
  }
};

struct FoldCastsPass : public prec::impl::PrecFoldCastsBase<FoldCastsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<MergeCastIntoResult, MergeWideningCastIntoOperand,
                 HoistNarrowingOntoWire<AllGatherOp>,
                 HoistNarrowingOntoWire<AllToAllOp>>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
