//===- BackwardOpInterfaceImpl.h - gradient rules ---------------*- C++ -*-===//
//
// The gradient rules (BackwardOpInterface models) of prec's ops and of the
// upstream ops prec differentiates, and the helpers gradient rules share.
//
//===----------------------------------------------------------------------===//

#ifndef PREC_DIALECT_PREC_IR_BACKWARDOPINTERFACEIMPL_H
#define PREC_DIALECT_PREC_IR_BACKWARDOPINTERFACEIMPL_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectRegistry.h"

namespace mlir::prec {

/// Attaches BackwardOpInterface to the prec ops that have a gradient rule,
/// to `linalg.matmul`, `linalg.transpose`, `linalg.fill`, and to the ops of
/// registerElementwiseBackwardModels.
void registerBackwardOpInterfaceExternalModels(DialectRegistry &registry);

/// Attaches the rules of the elementwise table (ElementwiseBackward.cpp) to
/// the arith and math ops it lists, on tensors, and the rule of linalg ops
/// with a body of such ops (linalg.generic, map, reduce, broadcast and the
/// elementwise named ops) to those.
void registerElementwiseBackwardModels(DialectRegistry &registry);

/// `tensor` with its elements converted to `elementType` by a `prec.cast`
/// (rounding to nearest even), or `tensor` itself when it already has that
/// element type.
Value createElementTypeCast(OpBuilder &builder, Location loc, Value tensor,
                            Type elementType);

/// A tensor of `like`'s shape (dynamic extents taken from `like`) and element
/// type `elementType` whose elements all equal `value`.
Value createSplatLike(OpBuilder &builder, Location loc, Value like,
                      Type elementType, double value);

} // namespace mlir::prec

#endif // PREC_DIALECT_PREC_IR_BACKWARDOPINTERFACEIMPL_H
