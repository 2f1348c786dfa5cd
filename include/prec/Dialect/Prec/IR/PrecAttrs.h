//===- PrecAttrs.h - prec attributes and enums ------------------*- C++ -*-===//

#ifndef PREC_DIALECT_PREC_IR_PRECATTRS_H
#define PREC_DIALECT_PREC_IR_PRECATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectImplementation.h"

#include "prec/Dialect/Prec/IR/PrecEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "prec/Dialect/Prec/IR/PrecAttrs.h.inc"

namespace mlir::prec {

/// Whether prec's kernels compute with and convert `type` on some target:
/// f64, f32, f16, bf16, f80, f128, the fp8 formats f8E4M3FN and f8E5M2, and
/// f8E8M0FNU block scales. Other float types (tf32, which no LLVM type
/// holds, and the other fp8, fp6 and fp4 formats) have no lowering.
bool isSupportedFloatType(Type type);

/// Whether the runtimes move values of `type` as a wire dtype: f64, f32,
/// f16, bf16, f8E4M3FN and f8E5M2.
bool isWireFloatType(Type type);

/// The `prec.reduced_precision` that holds for `op`: its own, else that of
/// the nearest op around it that has one; none without.
ReducedPrecision getEffectiveReducedPrecision(Operation *op);

/// The list isWireFloatType accepts, for diagnostics.
inline constexpr const char *kWireFloatTypes =
    "f64, f32, f16, bf16, f8E4M3FN or f8E5M2";

/// The list isSupportedFloatType accepts, for diagnostics.
inline constexpr const char *kSupportedFloatTypes =
    "f64, f32, f16, bf16, f80, f128, f8E4M3FN or f8E5M2 (f8E8M0FNU for "
    "scales)";

} // namespace mlir::prec

#endif // PREC_DIALECT_PREC_IR_PRECATTRS_H
