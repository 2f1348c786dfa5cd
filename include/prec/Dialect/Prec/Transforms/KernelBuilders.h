//===- KernelBuilders.h - pieces of prec's generated kernels ----*- C++ -*-===//
//
// Shared by the passes that build kernels on tensors: the decomposition of
// collectives, bucketing and the lowering of prec's local ops to linalg.
//
//===----------------------------------------------------------------------===//

#ifndef PREC_DIALECT_PREC_TRANSFORMS_KERNELBUILDERS_H
#define PREC_DIALECT_PREC_TRANSFORMS_KERNELBUILDERS_H

#include "prec/Dialect/Prec/IR/PrecAttrs.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

namespace mlir::prec {

/// Converts a float scalar to `to`, rounding at most once (to nearest even):
/// between bf16 and f16, which do not contain each other, through an exact
/// extension to f32.
Value convertFloat(OpBuilder &builder, Location loc, Value value, FloatType to);

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

#endif // PREC_DIALECT_PREC_TRANSFORMS_KERNELBUILDERS_H
