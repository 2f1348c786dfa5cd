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

struct InferPrecisionPass
    : public prec::impl::PrecInferPrecisionBase<InferPrecisionPass> {
  void runOnOperation() override {
    getOperation()->walk([](Operation *op) {
      if (auto collective = dyn_cast<CollectiveOpInterface>(op)) {
        if (!collective.getForwardDtypeAttr())
          collective.setForwardDtypeAttr(
              TypeAttr::get(collective.getEffectiveForwardDtype()));
        if (!collective.getBackwardDtypeAttr())
          collective.setBackwardDtypeAttr(
              TypeAttr::get(collective.getEffectiveBackwardDtype()));
        if (collective.isReduction() && !collective.getAccDtypeAttr())
          collective.setAccDtypeAttr(
              TypeAttr::get(collective.getEffectiveAccDtype()));
        return;
      }
      if (auto castOp = dyn_cast<CastOp>(op)) {
        if (!castOp.getBackwardDtypeAttr())
          castOp.setBackwardDtypeAttr(
              TypeAttr::get(castOp.getEffectiveBackwardDtype()));
        return;
      }
      if (auto reduce = dyn_cast<ReduceOp>(op);
          reduce && !reduce.getAccDtypeAttr())
        reduce.setAccDtypeAttr(TypeAttr::get(getDefaultAccumulationType(
            cast<FloatType>(reduce.getInput().getType().getElementType()))));
    });
  }
};

} // namespace
