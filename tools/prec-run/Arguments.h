//===- Arguments.h - where prec-run's arguments come from -----*- C++ -*-===//
//
// --scalar, --arg and --replicate against the entry function's signature,
// the raw files arguments are read from and results written to, and the
// memory the buffers of a run take.
//
//===----------------------------------------------------------------------===//

#ifndef PREC_TOOLS_PREC_RUN_ARGUMENTS_H
#define PREC_TOOLS_PREC_RUN_ARGUMENTS_H

#include "prec/Runner/Runner.h"

#include "mlir/Support/LogicalResult.h"
#include "llvm/Support/Error.h"

#include <map>
#include <set>
#include <string>

namespace prec_run {

/// How each argument gets its value before the first step.
struct ArgumentPlan {
  /// --scalar values, as the 8 bytes of storage the argument is passed in.
  std::map<unsigned, int64_t> scalars;
  /// --arg paths, %r not yet replaced by the rank.
  std::map<unsigned, std::string> files;
  /// --zeros: filled with zeros.
  std::set<unsigned> zeros;
  /// --replicate: the same generated values on every rank.
  std::set<unsigned> replicated;
  uint64_t seed = 1;
};

/// "argument 4 'lr' (f32)".
std::string describeArgument(const mlir::prec::EntrySignature &signature,
                             unsigned index);

/// The arguments `key` names for `option`: a position, a name, or (with
/// `allowGlob`) a glob over the names that matches at least one. Failure
/// with what is wrong, and the names there are, in `error`.
mlir::LogicalResult
resolveArguments(const mlir::prec::EntrySignature &signature,
                 llvm::StringRef option, llvm::StringRef key, bool allowGlob,
                 llvm::SmallVectorImpl<unsigned> &indices, std::string &error);

/// Reads --scalar, --arg, --zeros, --replicate and --seed against `signature`, and
/// checks once, before anything is compiled, what does not depend on the
/// rank. Scalars that no option gives take the program's `prec.default`.
/// Says what is wrong on stderr.
mlir::LogicalResult parseArgumentOptions(const mlir::prec::EntrySignature &,
                                         ArgumentPlan &plan);

/// Fills argument `index` of `rank`: from a file, the scalar table, or the
/// seeded generator.
llvm::Error initializeArgument(const mlir::prec::EntrySignature &signature,
                               const ArgumentPlan &plan, unsigned index,
                               int32_t rank, void *data);

/// Writes `bytes` bytes of `data` to `path`.
llvm::Error writeRaw(const std::string &path, const void *data, size_t bytes);

/// Checks, before anything is allocated, that the arguments and results of
/// the ranks of this process fit in --max-memory (the machine's memory by
/// default). Says what is wrong on stderr.
mlir::LogicalResult checkMemory(const mlir::prec::EntrySignature &signature,
                                int64_t ranksInProcess);

} // namespace prec_run

#endif // PREC_TOOLS_PREC_RUN_ARGUMENTS_H
