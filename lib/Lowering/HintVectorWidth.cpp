//===- HintVectorWidth.cpp - vectorize by the narrowest element type ------===//
//
// LLVM's loop vectorizer sizes vectors by a loop's widest element type, so a
// kernel that narrows f32 to fp8 stores 8 bytes per vector and spends a
// shuffle sequence on each. Sized by the narrowest type, the wide vectors
// narrow together into full-width stores. This pass asks for that width
// where a loop's accesses are contiguous, through loop metadata.
//
//===----------------------------------------------------------------------===//

#include "prec/Lowering/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMAttrs.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/Support/CheckedArithmetic.h"

namespace mlir::prec {
#define GEN_PASS_DEF_PRECHINTVECTORWIDTH
#include "prec/Lowering/Passes.h.inc"
} // namespace mlir::prec

using namespace mlir;
using namespace mlir::prec;

namespace {

/// Whether every index of an access inside `loop` is defined outside it.
bool isInvariant(scf::ForOp loop, ValueRange indices) {
  return llvm::all_of(
      indices, [&](Value index) { return loop.isDefinedOutsideOfLoop(index); });
}

/// Whether an access of `memref` at `indices` inside `loop` reaches
/// consecutive elements: a buffer defined outside the loop, indexed by the
/// induction variable in its innermost dimension (whose stride is one) and
/// by invariant values elsewhere.
bool isContiguous(scf::ForOp loop, Value memref, ValueRange indices) {
  if (!loop.isDefinedOutsideOfLoop(memref) || indices.empty() ||
      indices.back() != loop.getInductionVar() ||
      !isInvariant(loop, indices.drop_back()))
    return false;
  SmallVector<int64_t> strides;
  int64_t offset;
  return succeeded(cast<MemRefType>(memref.getType())
                       .getStridesAndOffset(strides, offset)) &&
         strides.back() == 1;
}

/// The bit widths of the narrowest and widest elements `loop` accesses
/// contiguously, if it is an innermost loop with unit step and no carried
/// values that stores only contiguously and loads only contiguously or at
/// an invariant position. A store to an invariant position would be a
/// reduction through memory, which a width hint lets LLVM reorder
/// (`llvm.loop.vectorize.width` permits reassociating a floating-point
/// sum).
std::optional<std::pair<unsigned, unsigned>> getAccessWidths(scf::ForOp loop) {
  if (!matchPattern(loop.getStep(), m_One()) || loop.getNumRegionIterArgs())
    return std::nullopt;
  unsigned narrowest = std::numeric_limits<unsigned>::max(), widest = 0;
  WalkResult walk = loop.getBody()->walk([&](Operation *op) {
    if (isa<LoopLikeOpInterface, CallOpInterface>(op))
      return WalkResult::interrupt();
    Value memref;
    ValueRange indices;
    if (auto load = dyn_cast<memref::LoadOp>(op)) {
      memref = load.getMemRef();
      indices = load.getIndices();
      if (isInvariant(loop, indices) && loop.isDefinedOutsideOfLoop(memref))
        return WalkResult::advance();
    } else if (auto store = dyn_cast<memref::StoreOp>(op)) {
      memref = store.getMemRef();
      indices = store.getIndices();
    } else {
      // Any other access to memory (a copy, a call into the runtime) is
      // one this cannot place; ops that only hold others (scf.if) are
      // judged by what they hold, which the walk visits.
      if (op->hasTrait<OpTrait::HasRecursiveMemoryEffects>() ||
          isMemoryEffectFree(op))
        return WalkResult::advance();
      return WalkResult::interrupt();
    }
    if (!isContiguous(loop, memref, indices))
      return WalkResult::interrupt();
    Type element = cast<MemRefType>(memref.getType()).getElementType();
    if (!element.isIntOrFloat())
      return WalkResult::interrupt();
    unsigned bits = element.getIntOrFloatBitWidth();
    narrowest = std::min(narrowest, bits);
    widest = std::max(widest, bits);
    return WalkResult::advance();
  });
  if (walk.wasInterrupted() || widest == 0)
    return std::nullopt;
  return std::make_pair(narrowest, widest);
}

/// LLVM's loop vectorizer treats a loop of fewer iterations than this as one
/// to optimize for size (`TinyTripCountVectorThreshold`): it then adds no
/// runtime alias checks, and a loop whose width was asked for but that
/// needs them is reported as not vectorized, a warning for every such
/// loop of a small tensor.
constexpr int64_t kTinyTripCount = 16;

/// Whether `loop`'s trip count is a constant below kTinyTripCount.
bool hasTinyTripCount(scf::ForOp loop) {
  std::optional<int64_t> lower = getConstantIntValue(loop.getLowerBound());
  std::optional<int64_t> upper = getConstantIntValue(loop.getUpperBound());
  std::optional<int64_t> step = getConstantIntValue(loop.getStep());
  if (!lower || !upper || !step || *step <= 0)
    return false;
  if (*upper <= *lower)
    return true;
  // Fewer than kTinyTripCount iterations: upper - lower is at most
  // (kTinyTripCount - 1) steps (checked: the bounds may be any i64).
  std::optional<int64_t> span = llvm::checkedSub(*upper, *lower);
  std::optional<int64_t> limit = llvm::checkedMul(kTinyTripCount - 1, *step);
  return span && (!limit || *span <= *limit);
}

struct HintVectorWidthPass
    : public prec::impl::PrecHintVectorWidthBase<HintVectorWidthPass> {
  using Base::Base;
  /// Checked when the pass manager starts, before any pass of the pipeline
  /// runs: a bad value is said before the lowering, not after it.
  LogicalResult initialize(MLIRContext *context) override {
    if (vectorBits >= 8 && llvm::isPowerOf2_64(vectorBits))
      return success();
    return emitError(UnknownLoc::get(context))
           << "prec-hint-vector-width: vector-bits must be a power of two of "
              "at least 8, got "
           << static_cast<int64_t>(vectorBits);
  }
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    getOperation()->walk([&](scf::ForOp loop) {
      if (loop->hasAttr("loop_annotation") || hasTinyTripCount(loop))
        return;
      std::optional<std::pair<unsigned, unsigned>> widths =
          getAccessWidths(loop);
      // Lanes of whole bytes, a power of two of them (i1 masks and odd
      // widths such as tf32's are not what a vector register holds), at
      // most 64, beyond which LLVM ignores the hint.
      if (!widths || widths->first < 8 ||
          !llvm::isPowerOf2_32(widths->first) ||
          widths->first == widths->second)
        return;
      int64_t width = std::min<int64_t>(vectorBits / widths->first, 64);
      if (width <= 1 || !llvm::isPowerOf2_64(width))
        return;
      auto vectorize = LLVM::LoopVectorizeAttr::get(
          context, /*disable=*/nullptr,
          /*predicateEnable=*/nullptr, /*scalableEnable=*/nullptr,
          IntegerAttr::get(IntegerType::get(context, 32),
                           static_cast<int32_t>(width)),
          /*followupVectorized=*/nullptr, /*followupEpilogue=*/nullptr,
          /*followupAll=*/nullptr);
      // scf-to-cf carries the loop's attributes to its latch branch, where
      // llvm.br's own `loop_annotation` becomes LLVM IR's llvm.loop.
      loop->setAttr("loop_annotation",
                    LLVM::LoopAnnotationAttr::get(
                        context, /*disableNonforced=*/nullptr, vectorize,
                        /*interleave=*/nullptr, /*unroll=*/nullptr,
                        /*unrollAndJam=*/nullptr, /*licm=*/nullptr,
                        /*distribute=*/nullptr, /*pipeline=*/nullptr,
                        /*peeled=*/nullptr, /*unswitch=*/nullptr,
                        /*mustProgress=*/nullptr, /*isVectorized=*/nullptr,
                        /*startLoc=*/nullptr, /*endLoc=*/nullptr,
                        /*parallelAccesses=*/{}));
    });
  }
};

} // namespace
