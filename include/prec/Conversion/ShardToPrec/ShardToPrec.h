//===- ShardToPrec.h - shard collectives to prec collectives ----*- C++ -*-===//

#ifndef PREC_CONVERSION_SHARDTOPREC_SHARDTOPREC_H
#define PREC_CONVERSION_SHARDTOPREC_SHARDTOPREC_H

#include "mlir/IR/PatternMatch.h"

namespace mlir::prec {

class PolicyAttr;

/// Patterns turning shard collectives into prec collectives whose dtypes come
/// from `policy` (the defaults where it is null or has no entry). The policy
/// of the function around an op, if it has one, takes precedence.
void populateShardToPrecConversionPatterns(RewritePatternSet &patterns,
                                           PolicyAttr policy);

} // namespace mlir::prec

#endif // PREC_CONVERSION_SHARDTOPREC_SHARDTOPREC_H
