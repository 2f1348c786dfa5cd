//===- ReducedPrecision.h - keeping a contraction's permission -*- C++ -*-===//
//
// `prec.reduced_precision` holds for a contraction through the nearest op
// around it that has one (getEffectiveReducedPrecision). Passes that move
// contractions to another place (inlining) or make new ones for an op
// elsewhere (gradient rules) pin the value that held where they came from.
//
//===----------------------------------------------------------------------===//

#ifndef PREC_DIALECT_PREC_UTILS_REDUCEDPRECISION_H
#define PREC_DIALECT_PREC_UTILS_REDUCEDPRECISION_H

#include "prec/Dialect/Prec/IR/PrecAttrs.h"
#include "prec/Dialect/Prec/IR/PrecDialect.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace mlir::prec {

/// Calls `visit` on every contraction (a linalg op a gemm may compute) in
/// the ops of `range`, nested ones included.
template <typename Range, typename Visit>
void forEachContraction(Range &&range, Visit &&visit) {
  for (Operation &op : range)
    op.walk([&](linalg::LinalgOp linalgOp) {
      if (linalg::isaContractionOpInterface(linalgOp))
        visit(linalgOp.getOperation());
    });
}

/// Gives each contraction in `range` the reduced precision `value`
/// explicitly, unless it is what `inherited` (what the place they end up in
/// gives them) already is; returns whether any changed.
template <typename Range>
bool pinReducedPrecision(Range &&range, ReducedPrecision value,
                         ReducedPrecision inherited) {
  if (value == inherited)
    return false;
  bool changed = false;
  forEachContraction(range, [&](Operation *contraction) {
    if (contraction->hasAttr(PrecDialect::kReducedPrecisionAttrName))
      return;
    contraction->setAttr(
        PrecDialect::kReducedPrecisionAttrName,
        ReducedPrecisionAttr::get(contraction->getContext(), value));
    changed = true;
  });
  return changed;
}

} // namespace mlir::prec

#endif // PREC_DIALECT_PREC_UTILS_REDUCEDPRECISION_H
