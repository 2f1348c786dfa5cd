//===- QuotientRounding.h - quotients rounded once ---------------*- C++
//-*-===//
//
// Shared by the gradient rules (prec's IR library) and the kernels the
// passes build: a division by a constant whose quotient is rounded once to
// a narrow type, never first to nearest in a wider one.
//
//===----------------------------------------------------------------------===//

#ifndef PREC_DIALECT_PREC_UTILS_QUOTIENTROUNDING_H
#define PREC_DIALECT_PREC_UTILS_QUOTIENTROUNDING_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

namespace mlir::prec {

/// Rounds the scalar `value`, of a float type wider than f32, to f32 by
/// round-to-odd: an inexact result is the neighbour whose last bit is 1.
/// Rounding that to a type with at least two fewer significand bits (bf16,
/// f16) to nearest even then gives the nearest-even rounding of `value`
/// itself. A direct `arith.truncf` from f64 to bf16 does not: LLVM goes
/// through f32 with two roundings on x86 (1 + 2^-8 + 2^-30 would become 1,
/// not 1 + 2^-7).
Value buildRoundToOddF32(OpBuilder &builder, Location loc, Value value);

/// The f64 scalar `x / divisor` rounded to odd in f64: rounded to nearest,
/// then, where the exact remainder `x - q divisor` (math.fma) is not 0,
/// the neighbour toward zero from the exact quotient with its last bit set.
/// One more rounding to a type of at most 51 significand bits is then the
/// rounding of the exact quotient itself; an f64 quotient rounded to
/// nearest may be a midpoint of that type (x / 0.1 returns 10 x for most
/// f16 x) that the exact quotient is not, and would round a second time.
Value buildQuotientRoundedToOdd(OpBuilder &builder, Location loc, Value x,
                                double divisor);

/// The scalar `value` (bf16, f16, f32 or f64) divided by `divisor`, the
/// exact quotient rounded once to nearest even in `value`'s type: by one
/// IEEE division where `value` is f64, or f32 and f32 holds the divisor;
/// otherwise in f64 rounded to odd (buildQuotientRoundedToOdd), to f32
/// rounded to odd for bf16 and f16, then to the type.
Value buildDivisionRoundedOnce(OpBuilder &builder, Location loc, Value value,
                               double divisor);

} // namespace mlir::prec

#endif // PREC_DIALECT_PREC_UTILS_QUOTIENTROUNDING_H
