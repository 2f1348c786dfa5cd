//===- PrecToRuntime.h - prec.transport to precrt calls ---------*- C++ -*-===//

#ifndef PREC_CONVERSION_PRECTORUNTIME_PRECTORUNTIME_H
#define PREC_CONVERSION_PRECTORUNTIME_PRECTORUNTIME_H

#include "mlir/IR/PatternMatch.h"

namespace mlir::prec {

/// Patterns lowering prec.transport to calls of precrtCompiledCollective, or
/// through a peer window where prec-plan-peer-windows marked it and it
/// fits; and the shard queries of a static grid to the calling rank's.
void populatePrecToRuntimeConversionPatterns(RewritePatternSet &patterns);

} // namespace mlir::prec

#endif // PREC_CONVERSION_PRECTORUNTIME_PRECTORUNTIME_H
