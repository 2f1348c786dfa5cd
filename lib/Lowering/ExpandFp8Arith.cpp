//===- ExpandFp8Arith.cpp - fp8 conversions as integer arithmetic ---------===//

#include "prec/Dialect/Prec/IR/PrecOps.h"
#include "prec/Dialect/Prec/Utils/FloatCodecs.h"
#include "prec/Lowering/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::prec {
#define GEN_PASS_DEF_PRECEXPANDFP8ARITH
#include "prec/Lowering/Passes.h.inc"
} // namespace mlir::prec

using namespace mlir;
using namespace mlir::prec;

namespace {

/// arith.extf and arith.truncf on scalars, one side an fp8 type that prec
/// converts by bit manipulation, through convertFloat.
template <typename ConversionOp>
struct ExpandFp8Conversion : OpRewritePattern<ConversionOp> {
  using OpRewritePattern<ConversionOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(ConversionOp op,
                                PatternRewriter &rewriter) const override {
    Type from = op.getIn().getType(), to = op.getType();
    if (!isBitManipulatedFloatType(from) && !isBitManipulatedFloatType(to))
      return failure();
    if (!isa<FloatType>(from) || !isa<FloatType>(to))
      return rewriter.notifyMatchFailure(op, "fp8 vectors are not expanded");
    rewriter.replaceOp(op, convertFloat(rewriter, op.getLoc(), op.getIn(),
                                        cast<FloatType>(to)));
    return success();
  }
};

/// prec.saturating_truncf, on scalars or vectors, as integer arithmetic.
struct ExpandSaturatingTruncF : OpRewritePattern<SaturatingTruncFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SaturatingTruncFOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, expandSaturatingTruncF(rewriter, op.getLoc(),
                                                  op.getIn(), op.getType()));
    return success();
  }
};

/// Rewrites each arith.truncf from f32 to bf16 or f16 that rounds to
/// nearest even, on scalars or vectors, so that it gives the runtime's
/// canonical NaN. Not a pattern: the f16 form keeps an arith.truncf.
void expandSixteenBitTruncations(Operation *root) {
  SmallVector<arith::TruncFOp> truncations;
  root->walk([&](arith::TruncFOp op) {
    std::optional<arith::RoundingMode> mode = op.getRoundingmode();
    Type to = getElementTypeOrSelf(op.getType());
    // Scalars and vectors: the pass runs on kernels' loop bodies.
    if (isa<FloatType, VectorType>(op.getIn().getType()) &&
        getElementTypeOrSelf(op.getIn().getType()).isF32() &&
        isa<BFloat16Type, Float16Type>(to) &&
        (!mode || *mode == arith::RoundingMode::to_nearest_even))
      truncations.push_back(op);
  });
  for (arith::TruncFOp op : truncations) {
    OpBuilder b(op->getContext());
    b.setInsertionPointAfter(op);
    if (isa<BFloat16Type>(getElementTypeOrSelf(op.getType()))) {
      op.replaceAllUsesWith(expandTruncFToBF16(b, op.getLoc(), op.getIn()));
      op.erase();
      continue;
    }
    // LLVM's f16 truncation (one instruction with F16C) keeps a NaN's sign
    // and payload; the select on f16 lanes vectorizes.
    Value canonical =
        selectCanonicalNaN(b, op.getLoc(), op.getIn(), op.getResult());
    op.getResult().replaceAllUsesExcept(canonical, canonical.getDefiningOp());
  }
}

struct ExpandFp8ArithPass
    : public prec::impl::PrecExpandFp8ArithBase<ExpandFp8ArithPass> {
  using Base::Base;
  void runOnOperation() override {
    // A conversion rounds where the program says: `contract` on a
    // truncation and the extension after it (upstream's emulation of bf16
    // arithmetic in f32 adds it) would let the folding below drop the
    // rounding of every bf16 op between two others.
    getOperation()->walk([](Operation *op) {
      if (auto ext = dyn_cast<arith::ExtFOp>(op))
        ext->removeAttr(ext.getFastmathAttrName());
      else if (auto trunc = dyn_cast<arith::TruncFOp>(op))
        trunc->removeAttr(trunc.getFastmathAttrName());
    });
    RewritePatternSet patterns(&getContext());
    patterns.add<ExpandFp8Conversion<arith::ExtFOp>,
                 ExpandFp8Conversion<arith::TruncFOp>, ExpandSaturatingTruncF>(
        &getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
    if (include16Bit)
      expandSixteenBitTruncations(getOperation());
    // Other arithmetic on fp8 has no lowering: name it rather than fail in
    // LLVM translation.
    WalkResult walk = getOperation()->walk([](Operation *op) {
      if (!isa<arith::ArithDialect>(op->getDialect()) ||
          isa<arith::BitcastOp, arith::SelectOp, arith::ConstantOp>(op))
        return WalkResult::advance();
      for (Type type :
           llvm::concat<Type>(op->getOperandTypes(), op->getResultTypes()))
        if (isBitManipulatedFloatType(getElementTypeOrSelf(type))) {
          op->emitOpError("computes in ")
              << getElementTypeOrSelf(type)
              << ", which has no arithmetic: extend it to f32 (arith.extf) "
                 "and compute there";
          return WalkResult::interrupt();
        }
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
