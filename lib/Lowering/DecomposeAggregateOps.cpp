//===- DecomposeAggregateOps.cpp - linalg ops without loops ---------------===//

#include "prec/Lowering/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::prec {
#define GEN_PASS_DEF_PRECDECOMPOSEAGGREGATEOPS
#include "prec/Lowering/Passes.h.inc"
} // namespace mlir::prec

using namespace mlir;
using namespace mlir::prec;

namespace {

struct DecomposeAggregateOpsPass
    : public prec::impl::PrecDecomposeAggregateOpsBase<
          DecomposeAggregateOpsPass> {
  void runOnOperation() override {
    SmallVector<linalg::AggregatedOpInterface> aggregates;
    getOperation().walk([&](linalg::AggregatedOpInterface op) {
      // On buffers the decomposition's tensor ops would not type-check.
      if (llvm::all_of(op->getResultTypes(), llvm::IsaPred<RankedTensorType>) &&
          op->getNumResults() > 0)
        aggregates.push_back(op);
    });
    if (aggregates.empty())
      return markAllAnalysesPreserved();
    IRRewriter rewriter(&getContext());
    for (linalg::AggregatedOpInterface op : aggregates) {
      rewriter.setInsertionPoint(op);
      FailureOr<SmallVector<Value>> values = op.decomposeOperation(rewriter);
      if (failed(values)) {
        op->emitOpError("could not be decomposed into structured ops");
        return signalPassFailure();
      }
      rewriter.replaceOp(op, *values);
    }
  }
};

} // namespace
