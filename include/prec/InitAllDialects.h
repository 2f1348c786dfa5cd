//===- InitAllDialects.h - register prec's dialects -------------*- C++ -*-===//
//
// The one registration point of prec's dialects: prec-opt, prec-lsp-server,
// the mlir-opt plugin and the C API all call it.
//
//===----------------------------------------------------------------------===//

#ifndef PREC_INITALLDIALECTS_H
#define PREC_INITALLDIALECTS_H

#include "prec/Gradients/PrecGradients.h"
#include "prec/Dialect/Prec/IR/PrecDialect.h"
#include "prec/Gradients/UpstreamGradients.h"

#include "mlir/Dialect/Shard/IR/ShardDialect.h"
#include "mlir/IR/DialectRegistry.h"

namespace mlir::prec {

/// Registers the prec dialect and the upstream dialects prec IR refers to,
/// and the gradient rules prec attaches to its own and upstream ops.
inline void registerPrecDialects(DialectRegistry &registry) {
  registry.insert<PrecDialect, shard::ShardDialect>();
  registerBackwardOpInterfaceExternalModels(registry);
  registerUpstreamBackwardOpInterfaceExternalModels(registry);
}

} // namespace mlir::prec

#endif // PREC_INITALLDIALECTS_H
