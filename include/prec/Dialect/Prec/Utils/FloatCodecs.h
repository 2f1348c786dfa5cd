//===- FloatCodecs.h - rounding to and from narrow floats --------*- C++ -*-===//
//
// Conversions between float types as prec's kernels round them: to and
// from fp8 by bit manipulation, bf16 and f16 with the runtime's canonical NaN,
// stochastic rounding, quotients rounded once.
// Part of MLIRPrecUtils, shared by the passes that build kernels.
//
//===----------------------------------------------------------------------===//

#ifndef PREC_DIALECT_PREC_UTILS_FLOATCODECS_H
#define PREC_DIALECT_PREC_UTILS_FLOATCODECS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

namespace mlir::prec {

/// Converts a float scalar to `to`, rounding at most once (to nearest even):
/// between bf16 and f16, which do not contain each other, through an exact
/// extension to f32.
Value convertFloat(OpBuilder &builder, Location loc, Value value, FloatType to);

/// Whether the kernels convert to and from `type` by bit manipulation: the
/// fp8 formats the runtime moves (f8E4M3FN, f8E5M2). LLVM has no arithmetic
/// on them.
bool isBitManipulatedFloatType(Type type);

/// f32 `value` to the fp8 type `to` (isBitManipulatedFloatType) with the
/// runtime's reference rules (precrt/numerics.h): round to nearest even, or
/// stochastic rounding driven by the i32 word `random` when it is given;
/// saturating to the largest finite value (infinities included); a NaN
/// becomes the format's canonical NaN. Round to nearest even is one
/// prec.saturating_truncf, which each target lowers (expandSaturatingTruncF
/// or PTX's conversion).
Value encodeLowPrecisionFloat(OpBuilder &builder, Location loc, Value value,
                              FloatType to, Value random = {});

/// The integer arithmetic of prec.saturating_truncf: f32 `value` (a scalar
/// or a vector) to `to`, an fp8 type (isBitManipulatedFloatType) or a
/// vector of one of its shape, with the runtime's nearest-even rule.
Value expandSaturatingTruncF(OpBuilder &builder, Location loc, Value value,
                             Type to);

/// `arith.truncf` of f32 `value` (a scalar or a vector) to bf16 in 32-bit
/// integer arithmetic, bit for bit the runtime's floatToBF16 (nearest even,
/// the canonical NaN), in a form that vectorizes at full width on x86.
Value expandTruncFToBF16(OpBuilder &builder, Location loc, Value value);

/// `narrow`, the bf16 or f16 truncation of the f32 `source` (scalars or
/// vectors of one shape), with the runtime's canonical NaN where `source` is
/// a NaN; LLVM's truncation keeps a NaN's sign and payload.
Value selectCanonicalNaN(OpBuilder &builder, Location loc, Value source,
                         Value narrow);

/// The product of `q`, an f8E4M3FN or f8E5M2 value decoded to f32, and the
/// f32 `scale`, rounded to odd on f32's grid (normal or subnormal; beyond the
/// largest finite value, infinity), in f32 arithmetic only. Rounding the
/// result to bf16 or f16 (at least two bits fewer everywhere) then gives the
/// nearest-even rounding of the exact product: one rounding, as the f64
/// product rounded through f32 to odd gives, at f32's vector width. Zeros,
/// infinities and NaN give `q * scale`.
Value buildFp8TimesScaleRoundedToOdd(OpBuilder &builder, Location loc, Value q,
                                     Value scale);

/// An fp8 value (isBitManipulatedFloatType) to f32, exactly.
Value decodeLowPrecisionFloat(OpBuilder &builder, Location loc, Value value);

/// An f8E8M0FNU scale (2^(bits - 127)) as f32, exactly.
Value decodeScale(OpBuilder &builder, Location loc, Value value);

/// `value / divisor` in a type from which one rounding to `target`
/// (convertFloat, or convertFloatStochastic) rounds the exact quotient once;
/// `value` itself for a divisor of 1. A power of two divides exactly in
/// `value`'s type; f32 divides where `value`, `target` and the divisor are
/// f32 (IEEE division rounds once). Otherwise the quotient is computed in
/// f64 and rounded to odd there, with the sign of its exact remainder
/// (math.fma): an f64 quotient rounded to nearest may be a midpoint of
/// `target` (x / 0.1 returns 10 x for most f16 x) that the exact quotient
/// is not, and would then round a second time, to even.
Value buildQuotientForRounding(OpBuilder &builder, Location loc, Value value,
                               double divisor, FloatType target);

/// Converts a float scalar to `to` like convertFloat, rounding stochastically
/// with the i32 word `random` where it rounds to a type narrower than f32
/// (through f32, rounded to odd, from a wider type).
Value convertFloatStochastic(OpBuilder &builder, Location loc, Value value,
                             FloatType to, Value random);

} // namespace mlir::prec

#endif // PREC_DIALECT_PREC_UTILS_FLOATCODECS_H
