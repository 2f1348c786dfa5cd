//===- ApproximateMath.cpp - math functions as arithmetic -----------------===//
//
// A math function that LLVM lowers to a libm call per element (tanh) keeps
// the loop around it scalar; upstream's polynomial approximation is plain
// arithmetic, which vectorizes, and the same arithmetic on every target:
// a CPU, the emulated GPU and a GPU compute the same bits.
//
//===----------------------------------------------------------------------===//

#include "prec/Lowering/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

namespace mlir::prec {
#define GEN_PASS_DEF_PRECAPPROXIMATEMATH
#include "prec/Lowering/Passes.h.inc"
} // namespace mlir::prec

using namespace mlir;

namespace {

struct ApproximateMathPass
    : public prec::impl::PrecApproximateMathBase<ApproximateMathPass> {
  void runOnOperation() override {
    // tanh on f16 or bf16 (a model run in bf16) in f32, rounded once to its
    // type at the end, as LLVM's promotion of the libm call did.
    auto isTanh = [](StringRef name) {
      return name == math::TanhOp::getOperationName();
    };
    // Two walks: the second rewrites the f32 ops the first creates.
    RewritePatternSet toF32(&getContext()), approximations(&getContext());
    populateMathF32ExpansionPatterns(toF32, isTanh);
    populateMathPolynomialApproximationPatterns(approximations, isTanh);
    walkAndApplyPatterns(getOperation(), std::move(toF32));
    walkAndApplyPatterns(getOperation(), std::move(approximations));
  }
};

} // namespace
