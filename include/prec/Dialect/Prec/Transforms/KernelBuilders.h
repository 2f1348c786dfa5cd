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

/// The scale prec.scale_from_amax defines for the f32 `amax`, of type
/// `scaleType` (f32, or f8E8M0FNU for OCP MX block scaling), for elements of
/// the fp8 type `elementType`.
Value buildScaleFromAmax(OpBuilder &builder, Location loc, Value amax,
                         FloatType elementType, FloatType scaleType);

/// The largest divisor of `n` that is at most `limit` (at least 1).
int64_t getLargestDivisor(int64_t n, int64_t limit);

/// Columns of the [elements / columns, columns] view over which a per-tensor
/// amax keeps column maxima: a vector loop per row, at least 16 rows where
/// the size allows, at most 4096 columns.
int64_t getAmaxColumns(int64_t elements);

/// One element's term of prec.amax: `|x|` in f32 for a finite `x` (an f64
/// magnitude rounded to f32, at most the largest f32), 0 for an infinity or
/// a NaN.
Value buildAmaxTerm(OpBuilder &builder, Location loc, Value x);

/// The larger of two amax terms (buildAmaxTerm) or partial amaxes: both are
/// finite and non-negative (+0 included, never -0 or NaN), whose f32 bits
/// order as integers as the values do, so their maximum is the unsigned
/// maximum of the bits: one instruction, without the NaN and signed-zero
/// handling of arith.maximumf. (A compare and a select of the accumulator
/// it reads let LLVM turn the accumulator's store into a masked store, slow
/// on x86.)
Value buildAmaxMaximum(OpBuilder &builder, Location loc, Value lhs, Value rhs);

/// The largest of `partials`, a 1-D f32 tensor of partial amaxes (the
/// column maxima of a per-tensor amax), as a rank-0 f32 tensor.
Value buildLargestPartialAmax(OpBuilder &builder, Location loc, Value partials);

/// prec.quantize's quotient `x / scale`, in f32, or in the type of `x`
/// where that is wider; by an f8E8M0FNU scale (a power of two), the
/// product with its exact reciprocal, which rounds as the quotient.
Value buildQuantizeQuotient(OpBuilder &builder, Location loc, Value x,
                            Value scale);

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

/// Word `index` (i64) of the Philox 4x32-10 stream keyed by `seed` (i64):
/// precrt/numerics.h's philoxWord, as i32 arithmetic in the kernel.
Value buildPhiloxWord(OpBuilder &builder, Location loc, Value seed,
                      Value index);

/// Word 2^63 + `index` (i64) of the stream keyed by `key`: the words of a
/// collective's second rounding (of reduced or dequantized values), which no
/// first rounding draws (those take the words below 2^63, one per element
/// of a tensor that fits in memory).
Value buildArrivalWord(OpBuilder &builder, Location loc, Value key,
                       Value index);

/// The key of a collective's stochastic rounding on this rank:
/// `seed + r * 0x9E3779B97F4A7C15` (mod 2^64) with `r` this rank's linear
/// index in `grid` (shard.process_linear_index), so that every rank draws
/// its own stream from the one seed of the program.
Value buildRankRoundingKey(OpBuilder &builder, Location loc,
                           FlatSymbolRefAttr grid, Value seed);

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

#endif // PREC_DIALECT_PREC_TRANSFORMS_KERNELBUILDERS_H
