//===- PrecGradients.h - gradient rules of prec's ops ----------*- C++ -*-===//
//
// The gradient rules (BackwardOpInterface models) of prec's ops, and the
// helpers every gradient rule shares (the rules of upstream ops are in
// UpstreamGradients.h).
//
//===----------------------------------------------------------------------===//

#ifndef PREC_GRADIENTS_PRECGRADIENTS_H
#define PREC_GRADIENTS_PRECGRADIENTS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectRegistry.h"

namespace mlir::prec {

/// Attaches BackwardOpInterface to the prec ops that have a gradient rule:
/// the collectives, `prec.cast` and `prec.reduce`.
void registerBackwardOpInterfaceExternalModels(DialectRegistry &registry);

/// `tensor` with its elements converted to `elementType` by a `prec.cast`
/// (rounding to nearest even), or `tensor` itself when it already has that
/// element type.
Value createElementTypeCast(OpBuilder &builder, Location loc, Value tensor,
                            Type elementType);

/// An uninitialized tensor of `like`'s shape (dynamic extents taken from
/// `like`) with element type `elementType`.
Value createEmptyLike(OpBuilder &builder, Location loc, Value like,
                      Type elementType);

/// A tensor of `like`'s shape (dynamic extents taken from `like`) and element
/// type `elementType` whose elements all equal `value`.
Value createSplatLike(OpBuilder &builder, Location loc, Value like,
                      Type elementType, double value);

/// The values `op`'s regions read from outside `op`, each once, in the
/// order they are first read. A gradient rule may return gradients for
/// them after the operands' (see BackwardOpInterface).
SmallVector<Value> getCapturedValues(Operation *op);

} // namespace mlir::prec

#endif // PREC_GRADIENTS_PRECGRADIENTS_H
