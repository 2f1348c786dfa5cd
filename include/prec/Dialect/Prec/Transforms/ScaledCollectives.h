//===- ScaledCollectives.h - fp8 collectives as explicit scales -*- C++ -*-===//
//
// What prec-materialize-scales makes of one collective, for the passes that
// create scaled collectives after it has run (the fp8 inter-host level of a
// two-level reduction, made by prec-decompose-collectives).
//
//===----------------------------------------------------------------------===//

#ifndef PREC_DIALECT_PREC_TRANSFORMS_SCALEDCOLLECTIVES_H
#define PREC_DIALECT_PREC_TRANSFORMS_SCALEDCOLLECTIVES_H

#include "prec/Dialect/Prec/IR/PrecOps.h"

#include "mlir/IR/SymbolTable.h"

namespace mlir::prec {

/// Builds at `builder`'s insertion point what `op`, a reduce_scatter or
/// all_reduce that converts to a scaled fp8 wire, computes: each rank's
/// scales and quantized input, a collective that moves both unconverted,
/// and the kernel that dequantizes and combines the terms. Returns the
/// value that replaces `op`'s result (`op` itself is left in place), or
/// fails with a diagnostic at `op`.
FailureOr<Value> materializeScaledReduction(OpBuilder &builder,
                                            CollectiveOpInterface op,
                                            SymbolTableCollection &tables);

} // namespace mlir::prec

#endif // PREC_DIALECT_PREC_TRANSFORMS_SCALEDCOLLECTIVES_H
