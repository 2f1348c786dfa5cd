//===- KernelBuilders.h - pieces of prec's generated kernels ----*- C++ -*-===//

#ifndef PREC_DIALECT_PREC_TRANSFORMS_KERNELBUILDERS_H
#define PREC_DIALECT_PREC_TRANSFORMS_KERNELBUILDERS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

namespace mlir::prec {

/// Converts a float scalar to `to`, rounding at most once (to nearest even):
/// between bf16 and f16, which do not contain each other, through an exact
/// extension to f32.
Value convertFloat(OpBuilder &builder, Location loc, Value value, FloatType to);

} // namespace mlir::prec

#endif // PREC_DIALECT_PREC_TRANSFORMS_KERNELBUILDERS_H
