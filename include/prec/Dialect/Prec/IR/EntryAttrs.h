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

} // namespace prec
} // namespace mlir

#endif // PREC_DIALECT_PREC_IR_ENTRYATTRS_H
