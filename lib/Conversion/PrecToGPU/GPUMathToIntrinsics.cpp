//===- GPUMathToIntrinsics.cpp - correctly rounded math in kernels --------===//
//
// convert-gpu-to-nvvm lowers math ops to libdevice calls (__nv_sqrtf, ...),
// which the kernel binary can only link where the CUDA toolkit is, and marks
// the LLVM intrinsics of the same ops illegal. The few math ops prec's
// kernels use have LLVM intrinsics that NVPTX turns into one correctly
// rounded instruction; calling those by name keeps them out of both.
//
//===----------------------------------------------------------------------===//

#include "prec/Conversion/PrecToGPU/PrecToGPU.h"

#include "prec/Conversion/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

namespace mlir::prec {
#define GEN_PASS_DEF_PRECGPUMATHTOINTRINSICS
#include "prec/Conversion/Passes.h.inc"
} // namespace mlir::prec

using namespace mlir;
using namespace mlir::prec;

namespace {

/// `OpTy` on f32 or f64 (scalars or vectors) as a call of `intrinsic`, which
/// NVPTX lowers to the correctly rounded instruction (`sqrt.rn.f32`,
/// `fma.rn.f32`, `abs.f32`).
template <typename OpTy>
struct MathToIntrinsic : public OpRewritePattern<OpTy> {
  MathToIntrinsic(MLIRContext *context, StringRef intrinsic)
      : OpRewritePattern<OpTy>(context), intrinsic(intrinsic) {}

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    Type element = getElementTypeOrSelf(op.getType());
    if (!element.isF32() && !element.isF64())
      return rewriter.notifyMatchFailure(op, "not f32 or f64");
    rewriter.replaceOpWithNewOp<LLVM::CallIntrinsicOp>(
        op, op.getType(), rewriter.getStringAttr(intrinsic), op->getOperands());
    return success();
  }

  StringRef intrinsic;
};

struct PrecGPUMathToIntrinsicsPass
    : public prec::impl::PrecGPUMathToIntrinsicsBase<
          PrecGPUMathToIntrinsicsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateGPUMathToIntrinsicsPatterns(patterns);
    walkAndApplyPatterns(getOperation(), std::move(patterns));
  }
};

} // namespace

void mlir::prec::populateGPUMathToIntrinsicsPatterns(
    RewritePatternSet &patterns) {
  MLIRContext *context = patterns.getContext();
  patterns.add<MathToIntrinsic<math::SqrtOp>>(context, "llvm.sqrt");
  patterns.add<MathToIntrinsic<math::FmaOp>>(context, "llvm.fma");
  patterns.add<MathToIntrinsic<math::AbsFOp>>(context, "llvm.fabs");
}
