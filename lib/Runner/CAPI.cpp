//===- CAPI.cpp - the runner from C ---------------------------------------===//
//
// The C entry points of prec-c/Runner.h over prec::Runner: buffers the
// caller owns are copied into each rank's arguments before the first step
// and out of its results after the last.
//
//===----------------------------------------------------------------------===//

#include "prec-c/Runner.h"

#include "prec/Runner/Checkpoint.h"
#include "prec/Runner/Runner.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

#include <cstring>
#include <string>

using namespace mlir;
using namespace mlir::prec;

namespace {

MlirLogicalResult fail(const std::string &message, char *error,
                       intptr_t errorSize) {
  if (error && errorSize > 0) {
    std::strncpy(error, message.c_str(), errorSize - 1);
    error[errorSize - 1] = '\0';
  }
  return mlirLogicalResultFailure();
}

Runner *unwrap(PrecRunner runner) { return static_cast<Runner *>(runner.ptr); }

/// Whether `buffer` can hold `spec`: the same rank, sizes and element size
/// (a scalar is a buffer of rank 0).
llvm::Error checkBuffer(const PrecBuffer &buffer, const ValueSpec &spec,
                        const char *kind, intptr_t index, int32_t rank) {
  auto mismatch = [&](const llvm::Twine &what) {
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        llvm::Twine(kind) + " " + llvm::Twine(index) + " of rank " +
            llvm::Twine(rank) + " (" + spec.typeName + "): " + what);
  };
  if (!buffer.data)
    return mismatch("expected a buffer, got a null pointer");
  if (buffer.rank != static_cast<int32_t>(spec.shape.size()))
    return mismatch("expected a buffer of rank " +
                    llvm::Twine(spec.shape.size()) + ", got rank " +
                    llvm::Twine(buffer.rank));
  if (buffer.rank > 0 && !buffer.sizes)
    return mismatch("expected the sizes of a buffer of rank " +
                    llvm::Twine(buffer.rank) + ", got a null pointer");
  for (int32_t d = 0; d < buffer.rank; ++d)
    if (buffer.sizes[d] != spec.shape[d])
      return mismatch("expected size " + llvm::Twine(spec.shape[d]) +
                      " in dimension " + llvm::Twine(d) + ", got " +
                      llvm::Twine(buffer.sizes[d]));
  if (buffer.elementBytes != static_cast<int64_t>(spec.elementBytes()))
    return mismatch("expected elements of " + llvm::Twine(spec.elementBytes()) +
                    " bytes, got " + llvm::Twine(buffer.elementBytes));
  return llvm::Error::success();
}

/// Checks every rank's buffers before any rank starts: a rank that fails
/// alone leaves the others to report that it left.
llvm::Error checkAllBuffers(const EntrySignature &signature, int32_t slots,
                            const PrecBuffer *arguments,
                            const PrecBuffer *results) {
  for (int32_t slot = 0; slot < slots; ++slot) {
    if (arguments)
      for (auto [i, spec] : llvm::enumerate(signature.arguments))
        if (llvm::Error mismatch =
                checkBuffer(arguments[slot * signature.arguments.size() + i],
                            spec, "argument", i, slot))
          return mismatch;
    if (results)
      for (auto [j, spec] : llvm::enumerate(signature.results))
        if (llvm::Error mismatch =
                checkBuffer(results[slot * signature.results.size() + j], spec,
                            "result", j, slot))
          return mismatch;
  }
  return llvm::Error::success();
}

/// Arguments from the caller's buffers (or generated from a seed), results
/// into them.
class CallerBuffers : public RunObserver {
public:
  CallerBuffers(const Runner &runner, const PrecBuffer *arguments,
                const PrecBuffer *results, uint64_t seed)
      : signature(runner.getSignature()), arguments(arguments),
        results(results), seed(seed),
        ranksAreThreads(runner.ranksAreThreads()) {}

  llvm::Error initializeArgument(int32_t rank, unsigned index,
                                 void *data) override {
    const ValueSpec &spec = signature.arguments[index];
    if (!arguments) {
      if (!spec.isBuffer)
        return llvm::createStringError(
            llvm::inconvertibleErrorCode(),
            "argument " + llvm::Twine(index) + " (" + spec.typeName +
                ") is a scalar: give the arguments' values");
      generateArgument(spec, seed, index, rank, /*replicated=*/false, data);
      return llvm::Error::success();
    }
    const PrecBuffer &buffer =
        arguments[slot(rank) * signature.arguments.size() + index];
    if (llvm::Error error = checkBuffer(buffer, spec, "argument", index, rank))
      return error;
    std::memcpy(data, buffer.data,
                spec.isBuffer ? spec.bytes() : spec.elementBytes());
    return llvm::Error::success();
  }

  llvm::Error runFinished(int32_t rank, RankResults &rankResults,
                          const RankProfile &) override {
    if (!results)
      return llvm::Error::success();
    for (auto [j, spec] : llvm::enumerate(signature.results)) {
      const PrecBuffer &buffer =
          results[slot(rank) * signature.results.size() + j];
      if (llvm::Error error = checkBuffer(buffer, spec, "result", j, rank))
        return error;
      llvm::Expected<const void *> value = rankResults.getHostResult(j);
      if (!value)
        return value.takeError();
      std::memcpy(buffer.data, *value,
                  spec.isBuffer ? spec.bytes() : spec.elementBytes());
    }
    return llvm::Error::success();
  }

private:
  /// Where a rank's buffers are: a process of mpirun has its own rank only.
  int32_t slot(int32_t rank) const { return ranksAreThreads ? rank : 0; }

  const EntrySignature &signature;
  const PrecBuffer *arguments;
  const PrecBuffer *results;
  uint64_t seed;
  bool ranksAreThreads;
};

/// A lowered entry's values as the caller's buffers describe them: only
/// their sizes are known, so the element kind is one of that many bytes.
llvm::Expected<ValueSpec> describeLowered(const PrecBuffer &buffer,
                                          const char *kind, intptr_t index) {
  ValueSpec spec;
  spec.isBuffer = true;
  switch (buffer.elementBytes) {
  case 8:
    spec.element = ElementKind::I64;
    break;
  case 4:
    spec.element = ElementKind::I32;
    break;
  case 2:
    spec.element = ElementKind::F16;
    break;
  case 1:
    spec.element = ElementKind::F8E4M3FN;
    break;
  default:
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        llvm::Twine(kind) + " " + llvm::Twine(index) +
            ": expected elements of 1, 2, 4 or 8 bytes, got " +
            llvm::Twine(buffer.elementBytes));
  }
  auto invalid = [&](const llvm::Twine &what) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   llvm::Twine(kind) + " " +
                                       llvm::Twine(index) + ": " + what);
  };
  if (!buffer.data)
    return invalid("expected a buffer, got a null pointer");
  if (buffer.rank < 0)
    return invalid("expected a rank of at least 0, got " +
                   llvm::Twine(buffer.rank));
  if (buffer.rank > 0 && !buffer.sizes)
    return invalid("expected the sizes of a buffer of rank " +
                   llvm::Twine(buffer.rank) + ", got a null pointer");
  spec.shape.assign(buffer.sizes, buffer.sizes + buffer.rank);
  int64_t bytes = buffer.elementBytes;
  for (auto [d, size] : llvm::enumerate(spec.shape))
    if (size < 0 || llvm::MulOverflow(bytes, size, bytes) ||
        bytes > kMaxBufferBytes)
      return invalid("expected sizes of at most " +
                     llvm::Twine(kMaxBufferBytes) + " bytes in all, got " +
                     llvm::Twine(size) + " in dimension " + llvm::Twine(d));
  spec.typeName =
      "memref of " + std::to_string(buffer.elementBytes) + "-byte elements";
  return spec;
}

} // namespace

MlirLogicalResult
precRunOnLocalRanks(MlirModule module, MlirStringRef entry, int32_t numRanks,
                    const PrecBuffer *arguments, intptr_t numArguments,
                    const PrecBuffer *results, intptr_t numResults, char *error,
                    intptr_t errorSize) {
  if (mlirModuleIsNull(module))
    return fail("expected a module, got a null one", error, errorSize);
  if (!entry.data && entry.length)
    return fail("expected an entry name, got a null pointer", error, errorSize);
  if (numRanks <= 0 || numArguments < 0 || numResults < 0)
    return fail("expected a positive number of ranks and no negative counts",
                error, errorSize);
  if (numArguments && !arguments)
    return fail("expected " + std::to_string(numArguments) +
                    " arguments per rank, got a null pointer",
                error, errorSize);
  if (numResults && !results)
    return fail("expected " + std::to_string(numResults) +
                    " results per rank, got a null pointer",
                error, errorSize);
  // The signature as rank 0's buffers describe it.
  EntrySignature signature;
  signature.name = unwrap(entry).str();
  for (intptr_t i = 0; i < numArguments; ++i) {
    llvm::Expected<ValueSpec> spec =
        describeLowered(arguments[i], "argument", i);
    if (!spec)
      return fail(llvm::toString(spec.takeError()), error, errorSize);
    signature.arguments.push_back(std::move(*spec));
  }
  for (intptr_t j = 0; j < numResults; ++j) {
    llvm::Expected<ValueSpec> spec = describeLowered(results[j], "result", j);
    if (!spec)
      return fail(llvm::toString(spec.takeError()), error, errorSize);
    signature.results.push_back(std::move(*spec));
  }
  RunnerOptions options;
  options.numRanks = numRanks;
  if (llvm::Error mismatch =
          checkAllBuffers(signature, numRanks, arguments, results))
    return fail(llvm::toString(std::move(mismatch)), error, errorSize);
  auto runner = Runner::createLowered(unwrap(module), signature, options);
  if (!runner)
    return fail(llvm::toString(runner.takeError()), error, errorSize);
  CallerBuffers buffers(**runner, arguments, results, /*seed=*/0);
  if (llvm::Error failure = (*runner)->run(1, buffers))
    return fail(llvm::toString(std::move(failure)), error, errorSize);
  return mlirLogicalResultSuccess();
}

PrecRunnerOptions precRunnerOptionsGetDefault(void) {
  PrecRunnerOptions options;
  options.entry = mlirStringRefCreate(nullptr, 0);
  options.backend = PREC_RUNNER_BACKEND_LOCAL;
  options.numRanks = 0;
  options.timeoutMs = 0;
  return options;
}

PrecRunner precRunnerCreate(MlirModule module, const PrecRunnerOptions *options,
                            char *error, intptr_t errorSize) {
  if (mlirModuleIsNull(module)) {
    fail("expected a module, got a null one", error, errorSize);
    return {nullptr};
  }
  RunnerOptions runnerOptions;
  if (options) {
    if (!options->entry.data && options->entry.length) {
      fail("expected an entry name, got a null pointer", error, errorSize);
      return {nullptr};
    }
    if (options->entry.data)
      runnerOptions.entry = unwrap(options->entry).str();
    switch (options->backend) {
    case PREC_RUNNER_BACKEND_LOCAL:
      runnerOptions.backend = RunnerBackend::Local;
      break;
    case PREC_RUNNER_BACKEND_MPI:
      runnerOptions.backend = RunnerBackend::MPI;
      break;
    case PREC_RUNNER_BACKEND_NCCL:
      runnerOptions.backend = RunnerBackend::NCCL;
      break;
    default:
      fail("expected a backend of PrecRunnerBackend, got " +
               std::to_string(options->backend),
           error, errorSize);
      return {nullptr};
    }
    runnerOptions.numRanks = options->numRanks;
    runnerOptions.timeoutMs = options->timeoutMs;
  }
  auto runner = Runner::compile(unwrap(module), runnerOptions);
  if (!runner) {
    fail(llvm::toString(runner.takeError()), error, errorSize);
    return {nullptr};
  }
  return {runner->release()};
}

void precRunnerDestroy(PrecRunner runner) { delete unwrap(runner); }

int32_t precRunnerGetNumRanks(PrecRunner runner) {
  if (!runner.ptr)
    return -1;
  return unwrap(runner)->getNumRanks();
}

intptr_t precRunnerGetNumArguments(PrecRunner runner) {
  if (!runner.ptr)
    return -1;
  return unwrap(runner)->getSignature().arguments.size();
}

intptr_t precRunnerGetNumResults(PrecRunner runner) {
  if (!runner.ptr)
    return -1;
  return unwrap(runner)->getSignature().results.size();
}

MlirLogicalResult precRunnerRun(PrecRunner runner, int32_t numSteps,
                                const PrecBuffer *arguments,
                                const PrecBuffer *results, uint64_t seed,
                                char *error, intptr_t errorSize) {
  if (!runner.ptr)
    return fail("expected a runner, got a null one", error, errorSize);
  int32_t slots =
      unwrap(runner)->ranksAreThreads() ? unwrap(runner)->getNumRanks() : 1;
  if (llvm::Error mismatch = checkAllBuffers(unwrap(runner)->getSignature(),
                                             slots, arguments, results))
    return fail(llvm::toString(std::move(mismatch)), error, errorSize);
  CallerBuffers buffers(*unwrap(runner), arguments, results, seed);
  if (llvm::Error failure = unwrap(runner)->run(numSteps, buffers))
    return fail(llvm::toString(std::move(failure)), error, errorSize);
  return mlirLogicalResultSuccess();
}

MlirLogicalResult precRunnerRunCheckpoint(PrecRunner runner, int32_t numSteps,
                                          MlirStringRef loadPath,
                                          MlirStringRef savePath, uint64_t seed,
                                          char *error, intptr_t errorSize) {
  if (!runner.ptr)
    return fail("expected a runner, got a null one", error, errorSize);
  if ((!loadPath.data && loadPath.length) ||
      (!savePath.data && savePath.length))
    return fail("expected a path, got a null pointer", error, errorSize);
  const EntrySignature &signature = unwrap(runner)->getSignature();
  std::unique_ptr<CheckpointLoader> loader;
  if (loadPath.length) {
    auto file = SafeTensorsFile::open(unwrap(loadPath));
    if (!file)
      return fail(llvm::toString(file.takeError()), error, errorSize);
    auto created = CheckpointLoader::create(signature, std::move(*file));
    if (!created)
      return fail(llvm::toString(created.takeError()), error, errorSize);
    loader = std::move(*created);
  }
  // Scalars the file does not fill need a default before any rank starts.
  for (auto [i, spec] : llvm::enumerate(signature.arguments))
    if (!spec.isBuffer && spec.defaultValue.empty() &&
        !(loader && loader->fills(i)))
      return fail("argument " + std::to_string(i) + " '" + spec.name + "' (" +
                      spec.typeName +
                      ") is a scalar with no prec.default, and no checkpoint "
                      "tensor gives it",
                  error, errorSize);
  CheckpointObserver observer(*unwrap(runner), std::move(loader),
                              unwrap(savePath).str(), seed);
  if (llvm::Error failure = unwrap(runner)->run(numSteps, observer))
    return fail(llvm::toString(std::move(failure)), error, errorSize);
  if (llvm::Error failure = observer.finish())
    return fail(llvm::toString(std::move(failure)), error, errorSize);
  return mlirLogicalResultSuccess();
}
