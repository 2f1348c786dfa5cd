//===- EntryAttrs.h - names and defaults of entry arguments ---*- C++ -*-===//
//
// Discardable attributes on the arguments and results of a function that a
// runner calls: the name prec-run's options and the runner's manifest know
// a value by, a scalar argument's value when none is given, how an argument
// is a block of a sharded tensor, and the values an integer argument takes. The prec
// dialect verifies them.
//
//===----------------------------------------------------------------------===//

#ifndef PREC_DIALECT_PREC_IR_ENTRYATTRS_H
#define PREC_DIALECT_PREC_IR_ENTRYATTRS_H

#include "llvm/ADT/StringRef.h"

namespace mlir {
namespace prec {

/// On an argument or result: a string of letters, digits, '_', '.' and '-'
/// that is not a number (which prec-run reads as a position), distinct
/// among the function's arguments (results).
constexpr llvm::StringLiteral kNameAttrName = "prec.name";
/// On a scalar argument: a number of the argument's type.
constexpr llvm::StringLiteral kDefaultAttrName = "prec.default";
/// On a tensor argument: the argument is one rank's block of a larger
/// tensor, `{grid = @g, grid_axes = [1], dim = 0 : i64, size = 10 : i64}`:
/// dimension `dim` of the full tensor has `size` elements; the group member
/// with index i (docs/Prec.md, "Groups") holds rows [i*c, (i+1)*c) with
/// c = ceil(size / group size), the argument's extent, and rows at or beyond
/// `size` are zero padding.
constexpr llvm::StringLiteral kShardAttrName = "prec.shard";
/// On an integer argument (scalar or tensor): `[lo, hi]`, two i64 with
/// lo < hi: the values lie in [lo, hi) (token ids below a vocabulary size).
constexpr llvm::StringLiteral kRangeAttrName = "prec.range";

} // namespace prec
} // namespace mlir

#endif // PREC_DIALECT_PREC_IR_ENTRYATTRS_H
