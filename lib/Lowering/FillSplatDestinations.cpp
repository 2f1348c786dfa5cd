//===- FillSplatDestinations.cpp - splat destinations as fills ------------===//
//
// A kernel whose destination is a splat constant (a contraction's zero
// initial value) bufferizes to a copy of a global constant of the whole
// tensor into a fresh buffer: it reads as many bytes as it writes, keeps a
// global of that size in the binary, and the canonicalizer shares one such
// constant between every layer. A fill of a fresh tensor only writes.
//
//===----------------------------------------------------------------------===//

#include "prec/Lowering/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::prec {
#define GEN_PASS_DEF_PRECFILLSPLATDESTINATIONS
#include "prec/Lowering/Passes.h.inc"
} // namespace mlir::prec

using namespace mlir;

namespace {

struct FillSplatDestinationsPass
    : public prec::impl::PrecFillSplatDestinationsBase<
          FillSplatDestinationsPass> {
  void runOnOperation() override {
    SmallVector<OpOperand *> destinations;
    getOperation()->walk([&](DestinationStyleOpInterface op) {
      if (!op.hasPureTensorSemantics() || isa<linalg::FillOp>(op))
        return;
      for (OpOperand &init : op.getDpsInitsMutable()) {
        auto constant = init.get().getDefiningOp<arith::ConstantOp>();
        auto splat = constant
                         ? dyn_cast<SplatElementsAttr>(constant.getValue())
                         : SplatElementsAttr();
        if (splat && cast<ShapedType>(splat.getType()).hasStaticShape())
          destinations.push_back(&init);
      }
    });
    IRRewriter rewriter(&getContext());
    for (OpOperand *init : destinations) {
      auto constant = init->get().getDefiningOp<arith::ConstantOp>();
      auto splat = cast<DenseElementsAttr>(constant.getValue());
      auto type = cast<RankedTensorType>(splat.getType());
      Location loc = init->getOwner()->getLoc();
      // Each destination its own fill: a shared one would be copied too.
      rewriter.setInsertionPoint(init->getOwner());
      Value scalar = arith::ConstantOp::create(
          rewriter, loc, type.getElementType(),
          splat.getSplatValue<TypedAttr>());
      Value empty = tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                            type.getElementType());
      Value fill =
          linalg::FillOp::create(rewriter, loc, scalar, empty).getResult(0);
      rewriter.modifyOpInPlace(init->getOwner(), [&] { init->set(fill); });
      if (constant->use_empty())
        rewriter.eraseOp(constant);
    }
  }
};

} // namespace
