//===- InferPrecision.cpp - make every dtype explicit ---------------------===//

#include "prec/Dialect/Prec/IR/PrecOps.h"
#include "prec/Dialect/Prec/Transforms/Passes.h"


namespace mlir::prec {
#define GEN_PASS_DEF_PRECINFERPRECISION
#include "prec/Dialect/Prec/Transforms/Passes.h.inc"
} // namespace mlir::prec

using namespace mlir;
using namespace mlir::prec;

namespace {

/// Sets `name` to `type` unless the op already carries it.
void setDtypeIfAbsent(Operation *op, StringRef name, Type type) {
  if (!op->hasAttr(name))
    op->setAttr(name, TypeAttr::get(type));
}

struct InferPrecisionPass
    : public prec::impl::PrecInferPrecisionBase<InferPrecisionPass> {
  void runOnOperation() override {
    getOperation()->walk([](Operation *op) {
      if (auto collective = dyn_cast<CollectiveOpInterface>(op)) {
        setDtypeIfAbsent(op, "forward_dtype",
                         collective.getEffectiveForwardDtype());
        setDtypeIfAbsent(op, "backward_dtype",
                         collective.getEffectiveBackwardDtype());
        if (Type acc = getEffectiveAccDtype(collective))
          setDtypeIfAbsent(op, "acc_dtype", acc);
        return;
      }
      if (auto castOp = dyn_cast<CastOp>(op)) {
        setDtypeIfAbsent(op, "backward_dtype",
                         castOp.getEffectiveBackwardDtype());
        return;
      }
      if (auto reduce = dyn_cast<ReduceOp>(op))
        setDtypeIfAbsent(op, "acc_dtype",
                         getDefaultAccumulationType(cast<FloatType>(
                             reduce.getInput().getType().getElementType())));
    });
  }
};

} // namespace
