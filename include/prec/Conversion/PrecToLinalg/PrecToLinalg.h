//===- PrecToLinalg.h - prec's local ops to linalg kernels ------*- C++ -*-===//

#ifndef PREC_CONVERSION_PRECTOLINALG_PRECTOLINALG_H
#define PREC_CONVERSION_PRECTOLINALG_PRECTOLINALG_H

#include "mlir/IR/PatternMatch.h"

namespace mlir::prec {

/// Patterns lowering prec.cast, prec.reduce, prec.sgd and prec.adamw to
/// linalg.generic kernels on tensors.
void populatePrecToLinalgConversionPatterns(RewritePatternSet &patterns);

} // namespace mlir::prec

#endif // PREC_CONVERSION_PRECTOLINALG_PRECTOLINALG_H
