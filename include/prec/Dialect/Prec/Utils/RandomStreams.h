//===- RandomStreams.h - the stochastic roundings' words ---------*- C++ -*-===//
//
// The Philox words stochastic rounding draws in kernels, and the keys of
// each rank's and each collective's stream (precrt/numerics.h).
// Part of MLIRPrecUtils, shared by the passes that build kernels.
//
//===----------------------------------------------------------------------===//

#ifndef PREC_DIALECT_PREC_UTILS_RANDOMSTREAMS_H
#define PREC_DIALECT_PREC_UTILS_RANDOMSTREAMS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

namespace mlir::prec {

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

} // namespace mlir::prec

#endif // PREC_DIALECT_PREC_UTILS_RANDOMSTREAMS_H
