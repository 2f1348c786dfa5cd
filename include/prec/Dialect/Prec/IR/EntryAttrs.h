//===- EntryAttrs.h - names and defaults of entry arguments ---*- C++ -*-===//
//
// Discardable attributes on the arguments and results of a function that a
// runner calls: the name prec-run's options and the runner's manifest know
// a value by, and a scalar argument's value when none is given. The prec
// dialect verifies them.
//
//===----------------------------------------------------------------------===//

#ifndef PREC_DIALECT_PREC_IR_ENTRYATTRS_H
#define PREC_DIALECT_PREC_IR_ENTRYATTRS_H

#include "llvm/ADT/StringRef.h"

namespace mlir {
namespace prec {

/// On an argument or result: a string of letters, digits, '_', '.' and '-'
/// that does not start with a digit, distinct among the function's
/// arguments (results).
constexpr llvm::StringLiteral kNameAttrName = "prec.name";
/// On a scalar argument: a number of the argument's type.
constexpr llvm::StringLiteral kDefaultAttrName = "prec.default";
/// On a tensor argument: `{grid = @g, grid_axes = [a, ...], dim = d, size =
/// n}`, the argument is this rank's block of dimension `d` of a tensor whose
/// dimension `d` has `n` elements, split over the group of `grid_axes` in
/// blocks of ceil(n / G), the last ones padded with zeros (prec-fully-shard's
/// parameters and optimizer state; checkpoints read and write it).
constexpr llvm::StringLiteral kShardAttrName = "prec.shard";
/// On an integer tensor argument: `[lo, hi]`, its values v are lo <= v < hi
/// (token ids), for generated arguments.
constexpr llvm::StringLiteral kRangeAttrName = "prec.range";

} // namespace prec
} // namespace mlir

#endif // PREC_DIALECT_PREC_IR_ENTRYATTRS_H
