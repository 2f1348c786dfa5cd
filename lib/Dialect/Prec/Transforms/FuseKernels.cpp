//===- FuseKernels.cpp - elementwise kernels into their consumers ---------===//
//
// A kernel whose only consumer is another kernel costs a write and a read of
// its whole result. Upstream's elementwise fusion computes the producer's
// body inside the consumer instead; with one use per producer nothing is
// computed twice, and the fused body keeps every operation and its order,
// so the values are bit for bit the same.
//
//===----------------------------------------------------------------------===//

#include "prec/Dialect/Prec/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::prec {
#define GEN_PASS_DEF_PRECFUSEKERNELS
#include "prec/Dialect/Prec/Transforms/Passes.h.inc"
} // namespace mlir::prec

using namespace mlir;
using namespace mlir::prec;

namespace {

/// Fuse a producer only into its single consumer, and only within a block:
/// a producer with more uses would be recomputed in each consumer.
bool isSingleUseProducer(OpOperand *fusedOperand) {
  Operation *producer = fusedOperand->get().getDefiningOp();
  return producer && producer->hasOneUse() &&
         producer->getBlock() == fusedOperand->getOwner()->getBlock();
}

struct FuseKernelsPass
    : public prec::impl::PrecFuseKernelsBase<FuseKernelsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    linalg::populateElementwiseOpsFusionPatterns(patterns,
                                                 isSingleUseProducer);
    // Only the fusion itself: no folding of the kernels' constants or
    // shapes, which the rest of the pipeline does not expect here.
    GreedyRewriteConfig config;
    config.enableFolding(false);
    config.setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns),
                                     config)))
      return signalPassFailure();
  }
};

} // namespace
