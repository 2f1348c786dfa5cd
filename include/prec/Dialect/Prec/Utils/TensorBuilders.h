//===- TensorBuilders.h - indices, reshapes and reductions -------*- C++ -*-===//
//
// Small tensor pieces of kernels: linear indices, reshapes, reductions.
// Part of MLIRPrecUtils, shared by the passes that build kernels.
//
//===----------------------------------------------------------------------===//

#ifndef PREC_DIALECT_PREC_UTILS_TENSORBUILDERS_H
#define PREC_DIALECT_PREC_UTILS_TENSORBUILDERS_H

#include "prec/Dialect/Prec/IR/PrecAttrs.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

namespace mlir::prec {

/// Inside a linalg.generic: the row-major linear index (i64) of the element
/// of a tensor of `shape` whose dimension d is iteration dimension
/// `iterationDims[d]`.
Value buildLinearIndex(OpBuilder &builder, Location loc,
                       ArrayRef<int64_t> shape,
                       ArrayRef<unsigned> iterationDims);

/// `value` reshaped to `type`, which has as many elements, through its flat
/// form (collapse_shape / expand_shape, so no data moves).
Value reshapeTensor(OpBuilder &builder, Location loc, Value value,
                    RankedTensorType type);

/// The value a reduction of `kind` starts from in `type`: 0 for sums and
/// averages, -inf for max, +inf for min.
TypedAttr getReductionIdentity(OpBuilder &builder, ReductionKind kind,
                               FloatType type);

/// One step of a reduction of `kind`: `accumulator (op) term`.
Value combineReduction(OpBuilder &builder, Location loc, ReductionKind kind,
                       Value accumulator, Value term);

} // namespace mlir::prec

#endif // PREC_DIALECT_PREC_UTILS_TENSORBUILDERS_H
