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
#include "mlir/IR/Matchers.h"

namespace mlir::prec {
#define GEN_PASS_DEF_PRECHINTVECTORWIDTH
#include "prec/Lowering/Passes.h.inc"
} // namespace mlir::prec

using namespace mlir;
using namespace mlir::prec;

namespace {

/// Whether an access of `memref` at `indices` inside `loop` reads the same
/// element on every iteration, or consecutive elements (the innermost index
/// is the induction variable and the innermost stride is one).
bool isInvariantOrContiguous(scf::ForOp loop, Value memref,
                             ValueRange indices) {
  auto outside = [&](Value index) { return loop.isDefinedOutsideOfLoop(index); };
  if (llvm::all_of(indices, outside))
    return true;
  if (indices.empty() || indices.back() != loop.getInductionVar() ||
      !llvm::all_of(indices.drop_back(), outside))
    return false;
  SmallVector<int64_t> strides;
  int64_t offset;
  return succeeded(cast<MemRefType>(memref.getType())
                       .getStridesAndOffset(strides, offset)) &&
         strides.back() == 1;
}

/// The bit widths of the narrowest and widest elements `loop` loads or
/// stores, if it is an innermost loop with unit step and no carried values
/// whose accesses are all invariant or contiguous.
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
    } else if (auto store = dyn_cast<memref::StoreOp>(op)) {
      memref = store.getMemRef();
      indices = store.getIndices();
    } else {
      return WalkResult::advance();
    }
    if (!isInvariantOrContiguous(loop, memref, indices))
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

struct HintVectorWidthPass
    : public prec::impl::PrecHintVectorWidthBase<HintVectorWidthPass> {
  using Base::Base;
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    getOperation()->walk([&](scf::ForOp loop) {
      if (loop->hasAttr("loop_annotation"))
        return;
      std::optional<std::pair<unsigned, unsigned>> widths =
          getAccessWidths(loop);
      // Bits below a byte (i1 masks) are not what a vector register holds.
      if (!widths || widths->first < 8 || widths->first == widths->second)
        return;
      auto width = static_cast<int32_t>(vectorBits / widths->first);
      if (width <= 1)
        return;
      auto vectorize = LLVM::LoopVectorizeAttr::get(
          context, /*disable=*/nullptr,
          /*predicateEnable=*/nullptr, /*scalableEnable=*/nullptr,
          IntegerAttr::get(IntegerType::get(context, 32), width),
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
