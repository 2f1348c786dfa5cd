//===- MathToIntrinsics.cpp - correctly rounded math as instructions ------===//
//
// convert-math-to-libm lowers math ops to a libm call per element, which
// keeps a CPU kernel's loop scalar; convert-gpu-to-nvvm lowers them to
// libdevice calls (__nv_sqrtf, ...), which the kernel binary can only link
// where the CUDA toolkit is, and marks the LLVM intrinsics of the same ops
// illegal. sqrt, fma and fabs have LLVM intrinsics that x86 and NVPTX turn
// into one correctly rounded instruction; calling those by name keeps them
// out of both.
//
//===----------------------------------------------------------------------===//

#include "prec/Lowering/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

namespace mlir::prec {
#define GEN_PASS_DEF_PRECMATHTOINTRINSICS
#include "prec/Lowering/Passes.h.inc"
} // namespace mlir::prec

using namespace mlir;
using namespace mlir::prec;

namespace {

/// `OpTy` on f32 or f64 (scalars or vectors) as a call of `intrinsic`, which
/// x86 and NVPTX lower to the correctly rounded instruction (`vsqrtps`,
/// `sqrt.rn.f32`, ...).
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

struct MathToIntrinsicsPass
    : public prec::impl::PrecMathToIntrinsicsBase<MathToIntrinsicsPass> {
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    RewritePatternSet patterns(context);
    patterns.add<MathToIntrinsic<math::SqrtOp>>(context, "llvm.sqrt");
    patterns.add<MathToIntrinsic<math::FmaOp>>(context, "llvm.fma");
    patterns.add<MathToIntrinsic<math::AbsFOp>>(context, "llvm.fabs");
    walkAndApplyPatterns(getOperation(), std::move(patterns));
  }
};

} // namespace
