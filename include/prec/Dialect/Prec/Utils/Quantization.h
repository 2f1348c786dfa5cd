//===- Quantization.h - fp8 scales, amaxes and quotients ---------*- C++ -*-===//
//
// The pieces of fp8 quantization in kernels: amaxes, scales from them, the
// quotient by a scale.
// Part of MLIRPrecUtils, shared by the passes that build kernels.
//
//===----------------------------------------------------------------------===//

#ifndef PREC_DIALECT_PREC_UTILS_QUANTIZATION_H
#define PREC_DIALECT_PREC_UTILS_QUANTIZATION_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

namespace mlir::prec {

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

} // namespace mlir::prec

#endif // PREC_DIALECT_PREC_UTILS_QUANTIZATION_H
