//===- Checkpoint.h - a run's state from and to safetensors -----*- C++ -*-===//
//
// Checkpoints as PyTorch keeps them: one safetensors file of whole tensors
// under their state_dict names, whatever the sharding. A CheckpointLoader
// fills the arguments whose name (`prec.name`) is a tensor of the file, each
// rank with its block of a sharded one (`prec.shard`); a CheckpointSaver
// reassembles the state the steps fed back (parameters, optimizer state,
// scalars such as "step") from the ranks into whole tensors and writes them.
//
//   auto file = prec::SafeTensorsFile::open("init.safetensors");
//   auto loader = prec::CheckpointLoader::create(signature, std::move(*file));
//   ... RunObserver::initializeArgument: loader->initializeArgument(...) ...
//   prec::CheckpointSaver saver(signature);
//   ... RunObserver::runFinished: saver.addRank(rank, results) ...
//   saver.write("final.safetensors");
//
// prec::CheckpointObserver does all of this for a run.
//
//===----------------------------------------------------------------------===//

#ifndef PREC_RUNNER_CHECKPOINT_H
#define PREC_RUNNER_CHECKPOINT_H

#include "prec/Runner/Runner.h"
#include "prec/Runner/SafeTensors.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace mlir {
namespace prec {

/// Whether argument `spec` is optimizer state (`exp_avg.<name>`,
/// `exp_avg_sq.<name>`), which starts at zero when a checkpoint lacks it.
bool isOptimizerState(const ValueSpec &spec);
/// Whether argument `spec` is a parameter: sharded (`prec.shard`) and not
/// optimizer state. A checkpoint loaded for a run must hold every one.
bool isParameter(const ValueSpec &spec);
/// The shape of the whole tensor argument `spec` is a block of: its own,
/// with dimension `dim` of a sharded one `size`.
llvm::SmallVector<int64_t> getFullShape(const ValueSpec &spec);

/// The arguments a safetensors file fills, checked before anything runs.
class CheckpointLoader {
public:
  /// Matches `file` against `signature`'s arguments: each argument whose
  /// name is a tensor of the file is filled from it, which must have the
  /// argument's dtype and whole shape (getFullShape; a scalar: shape []).
  /// A parameter the file lacks is an error unless `givenElsewhere(index)`
  /// names what else gives it (an option, say); so is an argument the file
  /// fills that something else gives too.
  /// Optimizer state the file lacks starts at zero (zeroes()).
  static llvm::Expected<std::unique_ptr<CheckpointLoader>>
  create(const EntrySignature &signature, std::unique_ptr<SafeTensorsFile> file,
         llvm::function_ref<std::string(unsigned)> givenElsewhere = nullptr);

  /// Whether argument `index` comes from the file.
  bool fills(unsigned index) const { return filled[index]; }
  /// Whether argument `index` is optimizer state the file lacks (nothing
  /// else gives it): zeros.
  bool zeroes(unsigned index) const { return zeroed[index]; }
  /// Fills argument `index` of world rank `rank` (`spec.bytes()`, or the 8
  /// bytes a scalar is passed in): its block of the file's tensor, rows
  /// beyond the tensor's zero; zeros for zeroes().
  void initializeArgument(int32_t rank, unsigned index, void *data) const;

  const SafeTensorsFile &getFile() const { return *file; }

private:
  CheckpointLoader(const EntrySignature &signature,
                   std::unique_ptr<SafeTensorsFile> file);

  const EntrySignature &signature;
  std::unique_ptr<SafeTensorsFile> file;
  std::vector<const SafeTensor *> tensors;
  std::vector<bool> filled, zeroed;
};

/// The state a run's last step fed back, reassembled into whole tensors:
/// each result that feeds an argument, under the argument's name (a scalar
/// as a tensor of shape []). A sharded one is put together from the ranks
/// of the first replica (grid coordinate 0 on the axes its group does not
/// span), padding dropped; the others from rank 0.
class CheckpointSaver {
public:
  explicit CheckpointSaver(const EntrySignature &signature);

  /// On `rank`'s thread after the last step (RunObserver::runFinished):
  /// takes its part of each saved result. Thread-safe.
  llvm::Error addRank(int32_t rank, RankResults &results);

  /// Under mpirun, where rank 0 holds the others' parts only once they are
  /// sent: `rank`'s part as bytes (RunObserver::takeRankData), and rank 0's
  /// addition of them all (RunObserver::receiveRankData).
  llvm::Expected<std::string> takeRankPart(int32_t rank, RankResults &results);
  llvm::Error addRankPart(int32_t rank, llvm::StringRef part);

  /// Writes the whole tensors to `path`; every rank that holds a part has
  /// been added. `metadata` goes to the header's "__metadata__".
  llvm::Error write(llvm::StringRef path,
                    const std::map<std::string, std::string> &metadata = {});

private:
  /// Whether `rank` holds a part of saved result `index` that is not held
  /// by a rank before it.
  bool contributes(int32_t rank, unsigned index) const;
  void place(int32_t rank, unsigned index, const uint8_t *part);

  const EntrySignature &signature;
  std::vector<unsigned> saved;
  std::map<unsigned, std::vector<uint8_t>> whole;
  std::mutex mutex;
};

/// A run on a checkpoint: arguments from a safetensors file (a
/// CheckpointLoader), the others from the seeded generator (optimizer state
/// the file lacks: zeros; scalars: their prec.default), and the fed-back
/// state written to a safetensors file after the last step. The MPI
/// backend sends each rank's part to rank 0, which writes the file.
class CheckpointObserver : public RunObserver {
public:
  /// `loader` may be null (every argument generated), `savePath` empty
  /// (nothing saved).
  CheckpointObserver(const Runner &runner,
                     std::unique_ptr<CheckpointLoader> loader,
                     std::string savePath, uint64_t seed);

  llvm::Error initializeArgument(int32_t rank, unsigned index,
                                 void *data) override;
  llvm::Error runFinished(int32_t rank, RankResults &results,
                          const RankProfile &profile) override;
  std::string takeRankData(int32_t rank) override;
  llvm::Error receiveRankData(llvm::ArrayRef<std::string> parts) override;

  /// After a successful run: writes the file (in the process of rank 0).
  llvm::Error finish();

private:
  const Runner &runner;
  std::unique_ptr<CheckpointLoader> loader;
  std::string savePath;
  uint64_t seed;
  std::unique_ptr<CheckpointSaver> saver;
  std::mutex mutex;
  std::map<int32_t, std::string> parts;
  bool holdsRankZero = false;
};

} // namespace prec
} // namespace mlir

#endif // PREC_RUNNER_CHECKPOINT_H
