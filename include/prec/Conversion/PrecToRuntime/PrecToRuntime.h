//===- PrecToRuntime.h - prec.transport to precrt calls ---------*- C++ -*-===//

#ifndef PREC_CONVERSION_PRECTORUNTIME_PRECTORUNTIME_H
#define PREC_CONVERSION_PRECTORUNTIME_PRECTORUNTIME_H

#include "mlir/IR/PatternMatch.h"

namespace mlir::prec {

/// Patterns lowering prec.transport to calls of precrtCompiledCollective.
void populatePrecToRuntimeConversionPatterns(RewritePatternSet &patterns);

} // namespace mlir::prec

#endif // PREC_CONVERSION_PRECTORUNTIME_PRECTORUNTIME_H
