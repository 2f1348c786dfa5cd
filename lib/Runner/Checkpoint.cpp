//===- Checkpoint.cpp - a run's state from and to safetensors -------------===//

#include "prec/Runner/Checkpoint.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Twine.h"

#include <cstring>

using namespace mlir;
using namespace mlir::prec;

namespace {

llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

std::string describe(const EntrySignature &signature, unsigned index) {
  const ValueSpec &spec = signature.arguments[index];
  return "argument " + std::to_string(index) + " '" + spec.name + "' (" +
         spec.typeName + ")";
}

/// The bytes of a block of argument `spec` below dimension `dim` (a row of
/// dimension `dim`), and the number of such blocks above it.
std::pair<size_t, int64_t> getRowLayout(const ValueSpec &spec, int64_t dim) {
  size_t rowBytes = spec.elementBytes();
  int64_t outer = 1;
  for (auto [d, extent] : llvm::enumerate(spec.shape)) {
    if (static_cast<int64_t>(d) > dim)
      rowBytes *= extent;
    else if (static_cast<int64_t>(d) < dim)
      outer *= extent;
  }
  return {rowBytes, outer};
}

/// Copies, for each of `outer` blocks, `rows` rows of `rowBytes` starting at
/// row `first` of the whole tensor (`fullRows` rows a block) from or into
/// the rank's block (`localRows` rows a block); local rows beyond `rows`
/// are zero when loading.
void copyRows(bool load, uint8_t *local, const uint8_t *fullIn,
              uint8_t *fullOut, int64_t outer, size_t rowBytes,
              int64_t localRows, int64_t fullRows, int64_t first) {
  int64_t rows = std::max<int64_t>(0, std::min(localRows, fullRows - first));
  for (int64_t o = 0; o < outer; ++o) {
    uint8_t *block = local + o * localRows * rowBytes;
    size_t offset = (o * fullRows + first) * rowBytes;
    if (load) {
      if (rows)
        std::memcpy(block, fullIn + offset, rows * rowBytes);
      std::memset(block + rows * rowBytes, 0, (localRows - rows) * rowBytes);
    } else if (rows) {
      std::memcpy(fullOut + offset, block, rows * rowBytes);
    }
  }
}

} // namespace

bool prec::isOptimizerState(const ValueSpec &spec) {
  return StringRef(spec.name).starts_with("exp_avg.") ||
         StringRef(spec.name).starts_with("exp_avg_sq.");
}

bool prec::isParameter(const ValueSpec &spec) {
  return spec.shard && !isOptimizerState(spec);
}

SmallVector<int64_t> prec::getFullShape(const ValueSpec &spec) {
  SmallVector<int64_t> shape = spec.shape;
  if (spec.shard && spec.shard->dim >= 0 &&
      spec.shard->dim < static_cast<int64_t>(shape.size()))
    shape[spec.shard->dim] = spec.shard->size;
  return shape;
}

//===----------------------------------------------------------------------===//
// CheckpointLoader
//===----------------------------------------------------------------------===//

CheckpointLoader::CheckpointLoader(const EntrySignature &signature,
                                   std::unique_ptr<SafeTensorsFile> file)
    : signature(signature), file(std::move(file)),
      tensors(signature.arguments.size(), nullptr),
      filled(signature.arguments.size(), false),
      zeroed(signature.arguments.size(), false) {}

llvm::Expected<std::unique_ptr<CheckpointLoader>> CheckpointLoader::create(
    const EntrySignature &signature, std::unique_ptr<SafeTensorsFile> file,
    llvm::function_ref<std::string(unsigned)> givenElsewhere) {
  if (!file)
    return makeError("expected a safetensors file, got none");
  std::unique_ptr<CheckpointLoader> loader(
      new CheckpointLoader(signature, std::move(file)));
  StringRef path = loader->file->getPath();
  auto listNames = [&] {
    std::string names;
    size_t shown = 0;
    for (const SafeTensor &tensor : loader->file->getTensors()) {
      if (++shown > 8) {
        names += ", ...";
        break;
      }
      names += (names.empty() ? "" : ", ") + tensor.name;
    }
    return names.empty() ? std::string("none") : names;
  };
  for (auto [i, spec] : llvm::enumerate(signature.arguments)) {
    std::string givenBy = givenElsewhere ? givenElsewhere(i) : std::string();
    bool elsewhere = !givenBy.empty();
    const SafeTensor *tensor = loader->file->lookup(spec.name);
    if (!tensor) {
      if (isParameter(spec) && !elsewhere)
        return makeError(path + " has no tensor '" + spec.name + "' for " +
                         describe(signature, i) + ", a parameter (its " +
                         llvm::Twine(loader->file->getTensors().size()) +
                         " tensors: " + listNames() + ")");
      loader->zeroed[i] = isOptimizerState(spec) && spec.isBuffer && !elsewhere;
      continue;
    }
    auto mismatch = [&](const llvm::Twine &what) {
      return makeError(path + ": tensor '" + spec.name + "' for " +
                       describe(signature, i) + ": " + what);
    };
    if (elsewhere)
      return mismatch("given twice: by the file and by " + givenBy);
    StringRef dtype = getSafeTensorsDtype(spec.element);
    if (tensor->dtype != dtype)
      return mismatch("expected dtype " + dtype + ", found " + tensor->dtype);
    SmallVector<int64_t> shape = getFullShape(spec);
    if (ArrayRef<int64_t>(tensor->shape) != ArrayRef<int64_t>(shape))
      return mismatch("expected shape " + formatShape(shape) +
                      (spec.shard ? " (the whole tensor its prec.shard " +
                                        std::string("describes)")
                                  : std::string()) +
                      ", found " + formatShape(tensor->shape));
    if (spec.shard) {
      const ShardSpec &shard = *spec.shard;
      if (shard.gridShape.empty())
        return mismatch("its grid @" + shard.grid +
                        " has no static shape to place the ranks' blocks by");
      int64_t groupSize = shard.getGroupSize();
      int64_t rows = spec.shape[shard.dim];
      if (groupSize <= 0 || (shard.size + groupSize - 1) / groupSize != rows)
        return mismatch(
            "its prec.shard splits " + llvm::Twine(shard.size) + " rows over " +
            llvm::Twine(groupSize) + " ranks in blocks of " +
            llvm::Twine(groupSize > 0 ? (shard.size + groupSize - 1) / groupSize
                                      : 0) +
            ", the argument has " + llvm::Twine(rows));
    }
    if (spec.element == ElementKind::I1)
      for (auto [e, byte] : llvm::enumerate(tensor->data))
        if (byte > 1)
          return mismatch("expected booleans (bytes 0 and 1), found byte " +
                          llvm::Twine(int(byte)) + " at element " +
                          llvm::Twine(e));
    loader->tensors[i] = tensor;
    loader->filled[i] = true;
  }
  return std::move(loader);
}

void CheckpointLoader::initializeArgument(int32_t rank, unsigned index,
                                          void *data) const {
  const ValueSpec &spec = signature.arguments[index];
  if (zeroed[index] || !filled[index]) {
    std::memset(data, 0, spec.isBuffer ? spec.bytes() : 8);
    return;
  }
  const SafeTensor &tensor = *tensors[index];
  if (!spec.isBuffer) {
    std::memset(data, 0, 8);
    std::memcpy(data, tensor.data.data(), spec.elementBytes());
    return;
  }
  if (!spec.shard) {
    std::memcpy(data, tensor.data.data(), spec.bytes());
    return;
  }
  const ShardSpec &shard = *spec.shard;
  auto [rowBytes, outer] = getRowLayout(spec, shard.dim);
  int64_t rows = spec.shape[shard.dim];
  copyRows(/*load=*/true, static_cast<uint8_t *>(data), tensor.data.data(),
           nullptr, outer, rowBytes, rows, shard.size,
           shard.getGroupIndex(rank) * rows);
}

//===----------------------------------------------------------------------===//
// CheckpointSaver
//===----------------------------------------------------------------------===//

CheckpointSaver::CheckpointSaver(const EntrySignature &signature)
    : signature(signature) {
  for (unsigned i = 0; i < signature.arguments.size(); ++i)
    if (signature.feedsBack(i))
      saved.push_back(i);
}

bool CheckpointSaver::contributes(int32_t rank, unsigned index) const {
  const ValueSpec &spec = signature.arguments[index];
  if (spec.shard && !spec.shard->gridShape.empty())
    return spec.shard->isFirstReplica(rank);
  return rank == 0;
}

void CheckpointSaver::place(int32_t rank, unsigned index, const uint8_t *part) {
  const ValueSpec &spec = signature.arguments[index];
  std::vector<uint8_t> &full = whole[index];
  if (!spec.isBuffer) {
    full.assign(part, part + spec.elementBytes());
    return;
  }
  if (!spec.shard || spec.shard->gridShape.empty()) {
    full.assign(part, part + spec.bytes());
    return;
  }
  const ShardSpec &shard = *spec.shard;
  auto [rowBytes, outer] = getRowLayout(spec, shard.dim);
  full.resize(rowBytes * outer * shard.size);
  int64_t rows = spec.shape[shard.dim];
  copyRows(/*load=*/false, const_cast<uint8_t *>(part), nullptr, full.data(),
           outer, rowBytes, rows, shard.size, shard.getGroupIndex(rank) * rows);
}

llvm::Error CheckpointSaver::addRank(int32_t rank, RankResults &results) {
  for (unsigned index : saved) {
    if (!contributes(rank, index))
      continue;
    llvm::Expected<const void *> value = results.getHostResult(index);
    if (!value)
      return value.takeError();
    std::lock_guard<std::mutex> lock(mutex);
    place(rank, index, static_cast<const uint8_t *>(*value));
  }
  return llvm::Error::success();
}

llvm::Expected<std::string>
CheckpointSaver::takeRankPart(int32_t rank, RankResults &results) {
  std::string part;
  for (unsigned index : saved) {
    if (!contributes(rank, index))
      continue;
    llvm::Expected<const void *> value = results.getHostResult(index);
    if (!value)
      return value.takeError();
    const ValueSpec &spec = signature.arguments[index];
    part.append(static_cast<const char *>(*value),
                spec.isBuffer ? spec.bytes() : spec.elementBytes());
  }
  return part;
}

llvm::Error CheckpointSaver::addRankPart(int32_t rank, StringRef part) {
  size_t offset = 0;
  for (unsigned index : saved) {
    if (!contributes(rank, index))
      continue;
    const ValueSpec &spec = signature.arguments[index];
    size_t bytes = spec.isBuffer ? spec.bytes() : spec.elementBytes();
    if (offset + bytes > part.size())
      break;
    std::lock_guard<std::mutex> lock(mutex);
    place(rank, index, reinterpret_cast<const uint8_t *>(part.data()) + offset);
    offset += bytes;
  }
  if (offset != part.size())
    return makeError(
        "rank " + llvm::Twine(rank) + " sent " + llvm::Twine(part.size()) +
        " bytes of the checkpoint, expected " + llvm::Twine(offset));
  return llvm::Error::success();
}

llvm::Error
CheckpointSaver::write(StringRef path,
                       const std::map<std::string, std::string> &metadata) {
  std::lock_guard<std::mutex> lock(mutex);
  std::vector<SafeTensorToWrite> tensors;
  for (unsigned index : saved) {
    const ValueSpec &spec = signature.arguments[index];
    auto it = whole.find(index);
    if (it == whole.end())
      return makeError("cannot write " + path + ": no rank gave " +
                       describe(signature, index));
    SmallVector<int64_t> shape =
        spec.isBuffer ? getFullShape(spec) : SmallVector<int64_t>();
    tensors.push_back({spec.name, getSafeTensorsDtype(spec.element).str(),
                       shape, it->second});
  }
  return writeSafeTensors(path, tensors, metadata);
}

//===----------------------------------------------------------------------===//
// CheckpointObserver
//===----------------------------------------------------------------------===//

CheckpointObserver::CheckpointObserver(const Runner &runner,
                                       std::unique_ptr<CheckpointLoader> loader,
                                       std::string savePath, uint64_t seed)
    : runner(runner), loader(std::move(loader)), savePath(std::move(savePath)),
      seed(seed) {
  if (!this->savePath.empty())
    saver = std::make_unique<CheckpointSaver>(runner.getSignature());
}

llvm::Error CheckpointObserver::initializeArgument(int32_t rank, unsigned index,
                                                   void *data) {
  if (rank == 0) {
    std::lock_guard<std::mutex> lock(mutex);
    holdsRankZero = true;
  }
  const ValueSpec &spec = runner.getSignature().arguments[index];
  if (loader && (loader->fills(index) || loader->zeroes(index))) {
    loader->initializeArgument(rank, index, data);
    return llvm::Error::success();
  }
  if (spec.isBuffer) {
    if (isOptimizerState(spec))
      std::memset(data, 0, spec.bytes());
    else
      generateArgument(spec, seed, index, rank, /*replicated=*/false, data);
    return llvm::Error::success();
  }
  std::string problem;
  int64_t storage = 0;
  if (spec.defaultValue.empty() ||
      failed(parseScalar(spec, spec.defaultValue, storage, problem)))
    return makeError(describe(runner.getSignature(), index) +
                     " is a scalar with no prec.default and the checkpoint "
                     "has no tensor of its name");
  std::memcpy(data, &storage, sizeof(storage));
  return llvm::Error::success();
}

llvm::Error CheckpointObserver::runFinished(int32_t rank, RankResults &results,
                                            const RankProfile &) {
  if (!saver)
    return llvm::Error::success();
  if (runner.ranksAreThreads())
    return saver->addRank(rank, results);
  llvm::Expected<std::string> part = saver->takeRankPart(rank, results);
  if (!part)
    return part.takeError();
  std::lock_guard<std::mutex> lock(mutex);
  parts[rank] = std::move(*part);
  return llvm::Error::success();
}

std::string CheckpointObserver::takeRankData(int32_t rank) {
  std::lock_guard<std::mutex> lock(mutex);
  std::string part = std::move(parts[rank]);
  parts.erase(rank);
  return part;
}

llvm::Error
CheckpointObserver::receiveRankData(llvm::ArrayRef<std::string> received) {
  if (!saver)
    return llvm::Error::success();
  for (auto [rank, part] : llvm::enumerate(received))
    if (llvm::Error error = saver->addRankPart(rank, part))
      return error;
  return llvm::Error::success();
}

llvm::Error CheckpointObserver::finish() {
  if (!saver || !holdsRankZero)
    return llvm::Error::success();
  return saver->write(savePath);
}
