//===- DivideFactors.cpp - averages become explicit divisors --------------===//

#include "prec/Dialect/Prec/IR/PrecOps.h"
#include "prec/Dialect/Prec/Transforms/Passes.h"

#include "llvm/ADT/TypeSwitch.h"

namespace mlir::prec {
#define GEN_PASS_DEF_PRECDIVIDEFACTORS
#include "prec/Dialect/Prec/Transforms/Passes.h.inc"
} // namespace mlir::prec

using namespace mlir;
using namespace mlir::prec;

namespace {

/// Sets `name` to `divisor` unless it divides by one.
void setDivisorIfNotOne(Operation *op, StringRef name, double divisor) {
  if (divisor != 1.0)
    op->setAttr(name,
                FloatAttr::get(Float64Type::get(op->getContext()), divisor));
}

/// Rewrites an `avg` reduction into a `sum` with divisors whose product is
/// the size of the group this op reduces over.
template <typename ReductionOp>
LogicalResult makeDivisorsExplicit(ReductionOp op) {
  if (op.getReduction() != ReductionKind::Avg)
    return success();
  auto acc = cast<FloatType>(op.getEffectiveAccDtype());
  assert(!isScaledLowPrecisionType(acc) &&
         "the verifier rejects an average in a scaled fp8 accumulation");
  FailureOr<int64_t> groupSize =
      getStaticCollectiveGroupSize(op, "its divide factors");
  if (failed(groupSize))
    return failure();
  ReductionDivisors divisors = getAverageDivisors(*groupSize, acc);
  op.setReduction(ReductionKind::Sum);
  setDivisorIfNotOne(op, op.getPreDivisorAttrName(), divisors.pre);
  setDivisorIfNotOne(op, op.getPostDivisorAttrName(), divisors.post);
  return success();
}

struct DivideFactorsPass
    : public prec::impl::PrecDivideFactorsBase<DivideFactorsPass> {
  void runOnOperation() override {
    bool failedAny = false;
    getOperation()->walk([&](Operation *op) {
      LogicalResult result =
          TypeSwitch<Operation *, LogicalResult>(op)
              .Case<ReduceScatterOp, AllReduceOp>([](auto reduction) {
                return makeDivisorsExplicit(reduction);
              })
              .Default([](Operation *) { return success(); });
      failedAny |= failed(result);
    });
    if (failedAny)
      signalPassFailure();
  }
};

} // namespace
