//===- Arguments.h - where prec-run's arguments come from -----*- C++ -*-===//
//
// --scalar, --arg and --replicate against the entry function's signature,
// the raw files arguments are read from and results written to, and the
// memory the buffers of a run take.
//
//===----------------------------------------------------------------------===//

#ifndef PREC_TOOLS_PREC_RUN_ARGUMENTS_H
#define PREC_TOOLS_PREC_RUN_ARGUMENTS_H

#include "prec/Runner/Checkpoint.h"
#include "prec/Runner/Runner.h"

#include "mlir/Support/LogicalResult.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace prec_run {

/// Where --data reads an argument's values at each step: a stream of
/// little-endian tokens of `dtype`, a window a step and rank, or (with %s
/// in `path`) one file per step.
struct DataSource {
  std::string path;
  /// "u8", "u16", "u32", "i8", "i16", "i32", "i64", "f32", "f64", "bool",
  /// "bf16", "f16": the argument's own type unless given.
  std::string dtype;
  size_t tokenBytes = 0;
  bool perStep = false;
  /// The streams, opened once per path (a path with %r: one per rank).
  struct Streams {
    std::mutex mutex;
    std::map<std::string, std::unique_ptr<llvm::MemoryBuffer>> buffers;
  };
  std::shared_ptr<Streams> streams = std::make_shared<Streams>();
};

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
  /// --load: the arguments a checkpoint fills (or zeroes).
  std::unique_ptr<mlir::prec::CheckpointLoader> checkpoint;
  /// --data: each step's own values of these arguments.
  std::map<unsigned, DataSource> data;
  uint64_t seed = 1;
  /// The ranks of the whole run (the windows of --data depend on them),
  /// and those this process runs.
  int64_t worldRanks = 1;
  std::vector<int32_t> ranksHere;
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

/// Fills argument `index` of `rank`: from a file, the scalar table, the
/// checkpoint, step 0's --data, or the seeded generator.
llvm::Error initializeArgument(const mlir::prec::EntrySignature &signature,
                               const ArgumentPlan &plan, unsigned index,
                               int32_t rank, void *data);

/// Fills --data argument `index` of `rank` with step `step`'s values.
llvm::Error readStepData(const mlir::prec::EntrySignature &signature,
                         const ArgumentPlan &plan, unsigned index, int step,
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
