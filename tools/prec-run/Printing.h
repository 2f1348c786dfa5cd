//===- Printing.h - what prec-run prints ----------------------*- C++ -*-===//

#ifndef PREC_TOOLS_PREC_RUN_PRINTING_H
#define PREC_TOOLS_PREC_RUN_PRINTING_H

#include "prec/Runner/Runner.h"

#include <string>
#include <vector>

namespace prec_run {

/// One element as text: integers exactly, floats with 8 significant digits.
std::string formatElement(const mlir::prec::ValueSpec &spec, const void *data,
                          int64_t i);

/// A value as `type = [first elements, ...] sum S`, or every element.
std::string formatValues(const mlir::prec::ValueSpec &spec, const void *data,
                         bool allValues);

/// Where a rank's steps spent their time, per step.
std::string describeProfile(int32_t rank,
                            const mlir::prec::RankProfile &profile);

/// What a rank printed and, if it failed, why.
struct RankOutcome {
  std::string error;
  std::vector<std::string> lines; // printed in rank order afterwards
};

/// Prints what `rank` printed and, if it failed, why. Returns whether it
/// failed.
bool reportOutcome(size_t rank, const RankOutcome &outcome);

} // namespace prec_run

#endif // PREC_TOOLS_PREC_RUN_PRINTING_H
