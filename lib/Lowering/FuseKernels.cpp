//===- FuseKernels.cpp - elementwise kernels into their consumers ---------===//
//
// A kernel whose only consumer is another kernel costs a write and a read of
// its whole result. Upstream's elementwise fusion computes the producer's
// body inside the consumer instead; with one use per producer nothing is
// computed twice, and the fused body keeps every operation and its order,
// so the values are bit for bit the same. A kernel read through disjoint
// slices (a bucket's unpack kernel, read member by member) is first split
// into one kernel per slice, which then fuse into their readers the same way.
//
//===----------------------------------------------------------------------===//

#include "prec/Lowering/Passes.h"
#include "prec/Dialect/Prec/Utils/StaticSlices.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/IR/Dominance.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::prec {
#define GEN_PASS_DEF_PRECFUSEKERNELS
#include "prec/Lowering/Passes.h.inc"
} // namespace mlir::prec

using namespace mlir;
using namespace mlir::prec;

namespace {

/// Fuse a producer only into its single consumer, and only within a block:
/// a producer with more uses would be recomputed in each consumer. And only
/// where the consumer reads each element of it once (the operand's indexing
/// map a permutation of the consumer's loops): a contraction reads an
/// element of either factor once per row or column of the other, so fused
/// it would recompute the producer as often, and its body would no longer
/// be the multiply-add that convert-contractions-to-runtime hands to the
/// gemm, whose summation order differs from the loops'.
bool isSingleUseProducer(OpOperand *fusedOperand) {
  Operation *producer = fusedOperand->get().getDefiningOp();
  if (!producer || !producer->hasOneUse() ||
      producer->getBlock() != fusedOperand->getOwner()->getBlock())
    return false;
  auto consumer = dyn_cast<linalg::LinalgOp>(fusedOperand->getOwner());
  return consumer &&
         consumer.getMatchingIndexingMap(fusedOperand).isPermutation();
}

/// Whether `value` is read by exactly one kernel of its block (where it can
/// fuse), through single-use static reshapes.
bool isReadByOneKernel(Value value) {
  if (!value.hasOneUse())
    return false;
  Operation *user = *value.getUsers().begin();
  if (user->getBlock() != value.getParentBlock())
    return false;
  if (isa<linalg::GenericOp>(user))
    return true;
  return isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(user) &&
         cast<ShapedType>(user->getResult(0).getType()).hasStaticShape() &&
         isReadByOneKernel(user->getResult(0));
}

/// Whether all uses of `value` are static, unit-stride, rank-preserving
/// slices, each read by one kernel, and pairwise disjoint (known from one
/// dimension along which none overlaps another).
bool isReadThroughDisjointSlices(Value value) {
  SmallVector<tensor::ExtractSliceOp> slices;
  for (Operation *user : value.getUsers()) {
    auto slice = dyn_cast<tensor::ExtractSliceOp>(user);
    if (!slice || !slice.hasUnitStride() || !slice.getOffsets().empty() ||
        !slice.getSizes().empty() ||
        slice.getType().getRank() != slice.getSourceType().getRank() ||
        !isReadByOneKernel(slice.getResult()))
      return false;
    slices.push_back(slice);
  }
  if (slices.size() < 2)
    return !slices.empty();
  return areSeparatedAlongOneDimension(slices);
}

/// A slice of an elementwise kernel's result becomes a kernel that computes
/// just that slice from slices of its operands. Only when all the kernel's
/// uses are such slices and disjoint, so that each element is still
/// computed once; and only when each slice is read by one kernel, which the
/// sliced kernel can then fuse into.
struct SliceElementwiseProducer
    : public OpRewritePattern<tensor::ExtractSliceOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(tensor::ExtractSliceOp slice,
                                PatternRewriter &rewriter) const override {
    auto producer = slice.getSource().getDefiningOp<linalg::GenericOp>();
    if (!producer || producer->getNumResults() != 1 ||
        !linalg::isElementwise(producer) ||
        producer->getBlock() != slice->getBlock())
      return rewriter.notifyMatchFailure(slice, "not an elementwise kernel");
    if (!isReadThroughDisjointSlices(slice.getSource()))
      return rewriter.notifyMatchFailure(
          slice, "kernel not read through disjoint slices only");
    rewriter.setInsertionPoint(slice);
    FailureOr<TilingResult> sliced =
        tensor::replaceExtractSliceWithTiledProducer(
            rewriter, slice, cast<OpResult>(slice.getSource()));
    if (failed(sliced))
      return failure();
    rewriter.replaceOp(slice, sliced->tiledValues.front());
    return success();
  }
};

/// A static expansion of a single-use elementwise kernel's result read by
/// one kernel: moving the expansion above the producer lets the two fuse.
bool isExpansionBetweenKernels(OpOperand *fusedOperand) {
  auto expand = dyn_cast<tensor::ExpandShapeOp>(fusedOperand->getOwner());
  if (!expand || !expand.getResultType().hasStaticShape() ||
      !expand->hasOneUse() || !isa<linalg::GenericOp>(*expand->user_begin()))
    return false;
  auto producer = expand.getSrc().getDefiningOp<linalg::GenericOp>();
  return producer && producer->hasOneUse() && linalg::isElementwise(producer) &&
         producer->getBlock() == expand->getBlock();
}

/// Upstream's fusion patterns give a kernel whose body does not read its
/// init a `tensor.empty` init instead (`RemoveOutsDependency`). A loop's
/// accumulation, `ins(%acc, %x) outs(%acc)` yielded as the next `%acc`
/// (prec-accumulate-microbatches' form), would then carry a fresh tensor:
/// bufferized, an allocation per iteration, and a loop that
/// prec-lower-to-cuda rejects. Such a kernel writes into the iteration
/// argument again; it reads each element where it writes it, so no value
/// changes.
void restoreLoopCarriedInits(Operation *root) {
  root->walk([](LoopLikeOpInterface loop) {
    for (auto [iterArg, yielded] :
         llvm::zip(loop.getRegionIterArgs(), loop.getYieldedValues())) {
      auto result = dyn_cast<OpResult>(yielded);
      auto kernel =
          result ? dyn_cast<linalg::GenericOp>(result.getOwner()) : nullptr;
      if (!kernel || !linalg::isElementwise(kernel) ||
          kernel->getParentRegion() != iterArg.getParentRegion())
        continue;
      OpOperand *init = kernel.getDpsInitOperand(result.getResultNumber());
      auto empty = init->get().getDefiningOp<tensor::EmptyOp>();
      if (!empty || empty.getType() != iterArg.getType() ||
          kernel.payloadUsesValueFromOperand(init))
        continue;
      AffineMap written = kernel.getMatchingIndexingMap(init);
      if (llvm::none_of(kernel.getDpsInputOperands(), [&](OpOperand *input) {
            return input->get() == iterArg &&
                   kernel.getMatchingIndexingMap(input) == written;
          }))
        continue;
      init->set(iterArg);
      if (empty->use_empty())
        empty->erase();
    }
  });
}

/// The same for a kernel that writes one slice of a loop's iteration
/// argument (prec-fuse-amax's loop over rows): its result, possibly through
/// static reshapes, is inserted into the iteration argument and yielded,
/// and its init was that slice of the iteration argument before
/// `RemoveOutsDependency` made it a `tensor.empty`. Bufferized, the empty
/// init is a buffer per iteration copied into the slice. The kernel writes
/// into the slice again (its body does not read its init, so no value
/// changes; other readers of its result read the same values).
void restoreLoopCarriedSliceInits(Operation *root) {
  DominanceInfo dominance(root);
  root->walk([&](LoopLikeOpInterface loop) {
    for (auto [iterArg, yielded] :
         llvm::zip(loop.getRegionIterArgs(), loop.getYieldedValues())) {
      auto insert = yielded.getDefiningOp<tensor::InsertSliceOp>();
      if (!insert || insert.getDest() != iterArg || !insert->hasOneUse())
        continue;
      // The reshapes between the kernel and the insertion, nearest first.
      SmallVector<Operation *> reshapes;
      Value source = insert.getSource();
      while (Operation *reshape = source.getDefiningOp()) {
        if (!isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(reshape) ||
            !reshape->hasOneUse() ||
            !cast<RankedTensorType>(reshape->getOperand(0).getType())
                 .hasStaticShape() ||
            !cast<RankedTensorType>(reshape->getResult(0).getType())
                 .hasStaticShape())
          break;
        reshapes.push_back(reshape);
        source = reshape->getOperand(0);
      }
      auto result = dyn_cast<OpResult>(source);
      auto kernel =
          result ? dyn_cast<linalg::GenericOp>(result.getOwner()) : nullptr;
      if (!kernel || kernel->getParentRegion() != iterArg.getParentRegion())
        continue;
      // The slice is taken before the kernel, so its dynamic offsets, sizes
      // and strides must be known there.
      if (llvm::any_of(
              llvm::concat<Value>(insert.getOffsets(), insert.getSizes(),
                                  insert.getStrides()),
              [&](Value v) { return !dominance.properlyDominates(v, kernel); }))
        continue;
      OpOperand *init = kernel.getDpsInitOperand(result.getResultNumber());
      auto empty = init->get().getDefiningOp<tensor::EmptyOp>();
      if (!empty || kernel.payloadUsesValueFromOperand(init))
        continue;

      OpBuilder b(kernel);
      Location loc = kernel.getLoc();
      Value slice = tensor::ExtractSliceOp::create(
          b, loc, insert.getSourceType(), iterArg, insert.getMixedOffsets(),
          insert.getMixedSizes(), insert.getMixedStrides());
      // The slice in the kernel's shape: each reshape undone, nearest first.
      for (Operation *reshape : reshapes) {
        auto shape = cast<RankedTensorType>(reshape->getOperand(0).getType());
        if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(reshape))
          slice = tensor::ExpandShapeOp::create(
              b, loc, shape, slice, collapse.getReassociationIndices());
        else
          slice = tensor::CollapseShapeOp::create(
              b, loc, shape, slice,
              cast<tensor::ExpandShapeOp>(reshape).getReassociationIndices());
      }
      if (slice.getType() != empty.getType()) {
        for (Value created = slice; created != iterArg;) {
          Operation *op = created.getDefiningOp();
          created = op->getOperand(0);
          op->erase();
        }
        continue;
      }
      init->set(slice);
      if (empty->use_empty())
        empty->erase();
    }
  });
}

struct FuseKernelsPass
    : public prec::impl::PrecFuseKernelsBase<FuseKernelsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    linalg::populateElementwiseOpsFusionPatterns(patterns, isSingleUseProducer);
    linalg::populateFoldReshapeOpsByExpansionPatterns(
        patterns, isExpansionBetweenKernels);
    patterns.add<SliceElementwiseProducer>(&getContext());
    // Only the fusion itself: no folding of the kernels' constants or
    // shapes, which the rest of the pipeline does not expect here.
    GreedyRewriteConfig config;
    config.enableFolding(false);
    config.setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
    if (failed(
            applyPatternsGreedily(getOperation(), std::move(patterns), config)))
      return signalPassFailure();
    restoreLoopCarriedInits(getOperation());
    restoreLoopCarriedSliceInits(getOperation());
  }
};

} // namespace
