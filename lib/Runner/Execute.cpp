//===- Execute.cpp - run the steps of a compiled program on every rank ----===//
//
// Each rank allocates its arguments, has the observer fill them, and calls
// the entry function once per step in the packed calling convention, feeding
// results back into the arguments of the same type. On GPUs the arguments
// are initialized on the host exactly as on CPUs (the same seed gives the
// same values, so results compare across backends) and copied into device
// buffers; results come back to the host when the observer asks for them,
// and feed the next step as device buffers.
//
//===----------------------------------------------------------------------===//

#include "RunnerImpl.h"

#include "precrt/compiled.h"
#include "precrt/gpu.h"
#include "precrt/precrt.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

using namespace mlir;
using namespace mlir::prec;

namespace {

llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// A failed precrt GPU call as a rank's error: what the runner was doing and
/// the runtime's reason.
llvm::Error describeGpuFailure(precrt_status_t status,
                               const llvm::Twine &what) {
  return makeError(what + ": " + precrtStatusName(status) + ": " +
                   precrtGetLastErrorMessage());
}

void *allocateBuffer(size_t bytes) {
  return std::aligned_alloc(64, std::max<size_t>(64, (bytes + 63) / 64 * 64));
}

/// Result layout: the LLVM struct of the results, with natural alignment.
struct ResultLayout {
  SmallVector<size_t> offsets;
  size_t size = 0;
};

ResultLayout layoutResults(ArrayRef<ValueSpec> results) {
  ResultLayout layout;
  auto place = [&](size_t bytes, size_t align) {
    layout.size = (layout.size + align - 1) / align * align;
    layout.offsets.push_back(layout.size);
    layout.size += bytes;
  };
  for (const ValueSpec &spec : results) {
    if (spec.isBuffer)
      place(8 * (3 + 2 * spec.shape.size()), 8);
    else
      place(spec.elementBytes(), spec.elementBytes());
  }
  layout.size = (layout.size + 7) / 8 * 8;
  return layout;
}

/// The fields of a dense row-major memref descriptor (allocated, aligned,
/// offset, sizes, strides) of `data`.
SmallVector<int64_t, 8> describeBuffer(void *data, ArrayRef<int64_t> shape) {
  auto address = reinterpret_cast<int64_t>(data);
  SmallVector<int64_t, 8> fields = {address, address, 0};
  fields.append(shape.begin(), shape.end());
  SmallVector<int64_t> strides(shape.size());
  int64_t stride = 1;
  for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
    strides[d] = stride;
    stride *= shape[d];
  }
  fields.append(strides.begin(), strides.end());
  return fields;
}

/// The entry's arguments in the packed calling convention: the fields of
/// each lowered argument (a buffer's descriptor, or a scalar's 8 bytes) into
/// `packed`, one pointer per field, then `resultStorage` if there are
/// results.
SmallVector<void *>
packArguments(const EntrySignature &signature, ArrayRef<void *> buffers,
              ArrayRef<int64_t> scalars,
              SmallVectorImpl<SmallVector<int64_t, 8>> &packed,
              void *resultStorage) {
  packed.assign(signature.arguments.size(), {});
  for (auto [i, spec] : llvm::enumerate(signature.arguments))
    packed[i] = spec.isBuffer ? describeBuffer(buffers[i], spec.shape)
                              : SmallVector<int64_t, 8>{scalars[i]};
  SmallVector<void *> pointers;
  for (SmallVector<int64_t, 8> &value : packed)
    for (int64_t &field : value)
      pointers.push_back(&field);
  if (!signature.results.empty())
    pointers.push_back(resultStorage);
  return pointers;
}

/// Takes the results out of the struct the entry returned (`storage`): the
/// data of each into `data`, and into `allocations` the buffers the program
/// allocated for them (none of the `arguments`). `when` starts the
/// messages.
llvm::Error takeResults(const EntrySignature &signature,
                        const ResultLayout &layout, const int64_t *storage,
                        ArrayRef<void *> arguments,
                        SmallVectorImpl<void *> &data,
                        SmallVectorImpl<void *> &allocations,
                        const llvm::Twine &when) {
  auto *resultBytes = reinterpret_cast<const uint8_t *>(storage);
  for (auto [i, spec] : llvm::enumerate(signature.results)) {
    const uint8_t *field = resultBytes + layout.offsets[i];
    if (!spec.isBuffer) {
      data[i] = const_cast<uint8_t *>(field);
      continue;
    }
    int64_t fields[3];
    std::memcpy(fields, field, sizeof(fields));
    auto *allocated = reinterpret_cast<void *>(fields[0]);
    bool isArgument = llvm::is_contained(arguments, allocated);
    if (!isArgument && !llvm::is_contained(allocations, allocated))
      allocations.push_back(allocated);
    data[i] = reinterpret_cast<uint8_t *>(fields[1]) +
              fields[2] * spec.elementBytes();
    // The buffer is read as dense row-major data of the declared shape.
    size_t rank = spec.shape.size();
    SmallVector<int64_t> sizesAndStrides(2 * rank);
    std::memcpy(sizesAndStrides.data(), field + 24, 16 * rank);
    int64_t expectedStride = 1;
    for (int64_t d = static_cast<int64_t>(rank) - 1; d >= 0; --d) {
      int64_t size = sizesAndStrides[d], stride = sizesAndStrides[rank + d];
      if (size != spec.shape[d])
        return makeError(when + ": result " + llvm::Twine(i) + " has size " +
                         llvm::Twine(size) + " in dimension " + llvm::Twine(d) +
                         ", expected " + llvm::Twine(spec.shape[d]));
      if (size != 1 && stride != expectedStride)
        return makeError(when + ": result " + llvm::Twine(i) +
                         " is not dense row-major");
      expectedStride *= size;
    }
  }
  return llvm::Error::success();
}

/// Everything the rank threads share.
struct RunState {
  const Runner *runner;
  Runner::Impl *impl;
  RunObserver *observer;
  int numSteps;
  std::mutex mutex;
  std::map<int32_t, std::string> failures;
};

/// One rank's buffers, released on every path out of its run.
class RankRun : public RankResults {
public:
  RankRun(RunState &state, precrt_comm_t world, int32_t rank)
      : state(state), world(world), rank(rank), runner(*state.runner),
        signature(runner.getSignature()),
        onGpu(runner.getOptions().backend == RunnerBackend::NCCL) {}
  ~RankRun() override;

  llvm::Error run();
  llvm::Expected<const void *> getHostResult(unsigned index) override;

private:
  llvm::Error synchronize(const llvm::Twine &what);
  llvm::Error gatherReports();
  llvm::Error releaseResults();
  llvm::Error readResults(int step);

  RunState &state;
  precrt_comm_t world;
  int32_t rank;
  const Runner &runner;
  const EntrySignature &signature;
  bool onGpu;
  void *stream = nullptr;
  std::unique_ptr<ExecutionEngine> rankEngine;
  /// Host arguments (buffers allocated here; scalars in scalarStorage).
  SmallVector<void *> hostArgs;
  SmallVector<int64_t, 8> scalarStorage;
  /// What the entry function receives: the host buffers, or their copies in
  /// device memory on the nccl backend.
  SmallVector<void *> callBuffers;
  ResultLayout layout;
  std::vector<int64_t> resultStorage;
  SmallVector<void *> resultData;
  /// Host copies of GPU result buffers.
  SmallVector<std::vector<uint8_t>> resultCopies;
  /// Result buffers the program allocated; they belong to the caller. GPU
  /// code allocates them on the compute stream: they go back in stream
  /// order.
  SmallVector<void *> resultAllocations;
};

RankRun::~RankRun() {
  // The successful path released everything on the device already; after a
  // failure, work left on the stream may never finish, so device memory is
  // left to the process's end.
  if (!onGpu)
    if (llvm::Error error = releaseResults())
      llvm::consumeError(std::move(error));
  for (auto [i, spec] : llvm::enumerate(signature.arguments))
    if (spec.isBuffer && i < hostArgs.size())
      std::free(hostArgs[i]);
}

llvm::Error RankRun::synchronize(const llvm::Twine &what) {
  if (precrt_status_t status = precrtGpuStreamSynchronize(stream))
    return describeGpuFailure(status, what);
  return llvm::Error::success();
}

llvm::Error RankRun::releaseResults() {
  precrt_status_t status = PRECRT_SUCCESS;
  for (void *allocation : resultAllocations) {
    if (!onGpu)
      precrtCompiledFree(allocation); // free() unless it came from the cache
    else if (precrt_status_t freed = precrtGpuFreeAsync(allocation, stream);
             freed && !status)
      status = freed;
  }
  resultAllocations.clear();
  if (status == PRECRT_SUCCESS)
    return llvm::Error::success();
  return describeGpuFailure(status, "freeing a result on the GPU");
}

llvm::Expected<const void *> RankRun::getHostResult(unsigned index) {
  const ValueSpec &spec = signature.results[index];
  if (!onGpu || !spec.isBuffer)
    return resultData[index];
  std::vector<uint8_t> &copy = resultCopies[index];
  copy.resize(spec.bytes());
  if (precrt_status_t status = precrtGpuMemcpyAsync(
          copy.data(), resultData[index], spec.bytes(), stream))
    return describeGpuFailure(status, "copying result " + llvm::Twine(index) +
                                          " to the host");
  if (llvm::Error error =
          synchronize("copying result " + llvm::Twine(index) + " to the host"))
    return std::move(error);
  return copy.data();
}

/// Takes the step's results out of the returned struct: the data of each,
/// and the buffers the program allocated for them.
llvm::Error RankRun::readResults(int step) {
  return takeResults(signature, layout, resultStorage.data(), callBuffers,
                     resultData, resultAllocations,
                     "step " + llvm::Twine(step));
}

llvm::Error RankRun::run() {
  const RunnerOptions &options = runner.getOptions();
  RunObserver &observer = *state.observer;
  int numSteps = state.numSteps;
  size_t numArgs = signature.arguments.size();
  void (*entry)(void **) = state.impl->entry;

  // GPU ranks compile for themselves and stage every buffer through the
  // compute stream that the generated code enqueues its work on.
  if (onGpu && !state.impl->engine) {
    auto started = std::chrono::steady_clock::now();
    if (llvm::Error error = prec::detail::compileForHost(
            runner.getModule(), signature.name, options, rankEngine, entry))
      return error;
    if (const char *loadError = precrtCompiledGetError())
      return makeError(llvm::Twine("loading the kernels: ") + loadError);
    observer.rankCompiled(rank, std::chrono::duration<double>(
                                    std::chrono::steady_clock::now() - started)
                                    .count());
  }
  if (onGpu) {
    stream = precrtCompiledGpuStream();
    if (!stream)
      return makeError(llvm::Twine("no compute stream: ") +
                       precrtCompiledGetError());
  }

  hostArgs.assign(numArgs, nullptr);
  scalarStorage.assign(numArgs, 0);
  for (auto [i, spec] : llvm::enumerate(signature.arguments)) {
    void *data = spec.isBuffer ? allocateBuffer(spec.bytes())
                               : static_cast<void *>(&scalarStorage[i]);
    if (!data)
      return makeError("cannot allocate " + llvm::Twine(spec.bytes()) +
                       " bytes for argument " + llvm::Twine(i) + " (" +
                       spec.typeName + ")");
    hostArgs[i] = spec.isBuffer ? data : nullptr;
    if (llvm::Error error = observer.initializeArgument(rank, i, data))
      return error;
  }
  {
    SmallVector<const void *> initialized;
    for (auto [i, spec] : llvm::enumerate(signature.arguments))
      initialized.push_back(spec.isBuffer ? hostArgs[i] : &scalarStorage[i]);
    if (llvm::Error error = observer.argumentsInitialized(rank, initialized))
      return error;
  }

  callBuffers.assign(numArgs, nullptr);
  for (auto [i, spec] : llvm::enumerate(signature.arguments)) {
    if (!spec.isBuffer)
      continue;
    if (!onGpu) {
      callBuffers[i] = hostArgs[i];
      continue;
    }
    // cuMemAlloc refuses 0 bytes; an empty tensor still needs an address.
    if (precrt_status_t status =
            precrtGpuMalloc(&callBuffers[i], std::max<size_t>(spec.bytes(), 1)))
      return describeGpuFailure(status, "allocating argument " +
                                            llvm::Twine(i) + " on the GPU");
    if (precrt_status_t status = precrtGpuMemcpyAsync(
            callBuffers[i], hostArgs[i], spec.bytes(), stream))
      return describeGpuFailure(status, "copying argument " + llvm::Twine(i) +
                                            " to the GPU");
  }

  // Arguments the compiled code may write although no result feeds them
  // (memrefs, modules lowered elsewhere) start every step as initialized:
  // from a copy on CPUs, where the call writes the host buffer itself, from
  // the host buffer on GPUs.
  const SmallVector<bool> &restored = state.impl->restoredArguments;
  SmallVector<std::vector<uint8_t>> initialValues(numArgs);
  if (numSteps > 1 && !onGpu)
    for (auto [i, spec] : llvm::enumerate(signature.arguments))
      if (i < restored.size() && restored[i]) {
        auto *data = static_cast<const uint8_t *>(hostArgs[i]);
        initialValues[i].assign(data, data + spec.bytes());
      }

  layout = layoutResults(signature.results);
  resultStorage.assign(layout.size / 8 + 1, 0);
  resultData.assign(signature.results.size(), nullptr);
  resultCopies.resize(signature.results.size());

  precrtCompiledResetProfile();
  precrtCompiledResetPeakMemory();
  precrt_compiled_memory_t memoryBeforeSteps;
  precrtCompiledGetMemory(&memoryBeforeSteps);
  RankProfile profile;
  profile.steps = numSteps;
  for (int step = 0; step < numSteps; ++step) {
    // The traffic log holds the last step's collectives.
    precrtCompiledResetTraffic();
    if (llvm::Error error = releaseResults())
      return error;
    // The step's own data (RunObserver::updateArgument).
    if (step > 0)
      for (auto [i, spec] : llvm::enumerate(signature.arguments)) {
        if (!spec.isBuffer || signature.feedsBack(i))
          continue;
        bool updated = false;
        if (llvm::Error error =
                observer.updateArgument(rank, step, i, hostArgs[i], updated))
          return error;
        if (!updated)
          continue;
        if (!initialValues[i].empty()) {
          auto *data = static_cast<const uint8_t *>(hostArgs[i]);
          initialValues[i].assign(data, data + spec.bytes());
        }
        if (onGpu)
          if (precrt_status_t status = precrtGpuMemcpyAsync(
                  callBuffers[i], hostArgs[i], spec.bytes(), stream))
            return describeGpuFailure(status,
                                      "copying argument " + llvm::Twine(i) +
                                          " to the GPU");
      }
    if (step > 0)
      for (auto [i, spec] : llvm::enumerate(signature.arguments)) {
        if (i >= restored.size() || !restored[i])
          continue;
        if (!onGpu)
          std::memcpy(hostArgs[i], initialValues[i].data(), spec.bytes());
        else if (precrt_status_t status = precrtGpuMemcpyAsync(
                     callBuffers[i], hostArgs[i], spec.bytes(), stream))
          return describeGpuFailure(status,
                                    "restoring argument " + llvm::Twine(i));
      }
    SmallVector<SmallVector<int64_t, 8>> packed;
    SmallVector<void *> pointers = packArguments(
        signature, callBuffers, scalarStorage, packed, resultStorage.data());

    auto stepStart = std::chrono::steady_clock::now();
    entry(pointers.data());
    profile.stepSeconds += std::chrono::duration<double>(
                               std::chrono::steady_clock::now() - stepStart)
                               .count();
    // A step leaves no started transport in flight: the driver's own
    // collectives come next, and one never waited is the step's error.
    precrtCompiledDrain();
    // A failed collective may leave work on the stream that never finishes:
    // look at the rank's error before waiting for the stream.
    if (const char *compiledError = precrtCompiledGetError())
      return makeError("step " + llvm::Twine(step) + ": " + compiledError);
    if (onGpu)
      if (llvm::Error error =
              synchronize("step " + llvm::Twine(step) + " on the GPU"))
        return error;
    if (llvm::Error error = readResults(step))
      return error;
    if (llvm::Error error = observer.stepFinished(rank, step, numSteps, *this))
      return error;

    // Results feed the arguments of the same type at the same position.
    if (step + 1 < numSteps)
      for (unsigned i = 0; i < std::min(numArgs, signature.results.size());
           ++i) {
        const ValueSpec &arg = signature.arguments[i];
        if (!signature.feedsBack(i))
          continue;
        if (!arg.isBuffer)
          std::memcpy(&scalarStorage[i], resultData[i], arg.elementBytes());
        else if (!onGpu)
          std::memcpy(hostArgs[i], resultData[i], arg.bytes());
        else if (resultData[i] != callBuffers[i])
          if (precrt_status_t status = precrtGpuMemcpyAsync(
                  callBuffers[i], resultData[i], arg.bytes(), stream))
            return describeGpuFailure(status, "feeding result " +
                                                  llvm::Twine(i) +
                                                  " to the next step");
      }
  }

  if (options.lowering.hostCodegen.profile) {
    precrtCompiledGetProfile(&profile.counters);
    // The most bytes the rank's generated code had allocated at once (CPU
    // buffers through the caching allocator, results included).
    precrt_compiled_memory_t memory;
    precrtCompiledGetMemory(&memory);
    profile.peakBufferBytes =
        memory.peak_in_use_bytes - memoryBeforeSteps.in_use_bytes;
  }
  if (llvm::Error error = observer.runFinished(rank, *this, profile))
    return error;
  if (!runner.ranksAreThreads())
    if (llvm::Error error = gatherReports())
      return error;
  if (llvm::Error error = releaseResults())
    return error;
  if (onGpu) {
    if (llvm::Error error = synchronize("freeing the results on the GPU"))
      return error;
    for (void *&buffer : callBuffers)
      if (buffer) {
        precrt_status_t status = precrtGpuFree(buffer);
        buffer = nullptr;
        if (status)
          return describeGpuFailure(status, "freeing an argument");
      }
  }
  return llvm::Error::success();
}

/// Sends `mine` from every rank to rank 0, which gets them all in rank order
/// in `all`. The strings are host memory, so they travel over the world's
/// host communicator (the control communicator of NCCL).
static llvm::Error gatherToRankZero(precrt_comm_t deviceWorld, int32_t rank,
                                    std::string mine,
                                    std::vector<std::string> &all,
                                    const llvm::Twine &what) {
  auto failed = [&](precrt_status_t status, const llvm::Twine &step) {
    return makeError("gathering " + what + ": " + step + ": " +
                     precrtStatusName(status) + ": " +
                     precrtGetLastErrorMessage());
  };
  precrt_comm_t world = nullptr;
  if (precrt_status_t status = precrtCommHost(deviceWorld, &world))
    return failed(status, "finding the host communicator");
  int32_t size = 1;
  precrtCommSize(world, &size);
  if (rank != 0) {
    uint64_t length = mine.size();
    if (precrt_status_t status =
            precrtSend(world, &length, sizeof(length), PRECRT_DTYPE_BYTES, 0))
      return failed(status, "sending its length");
    if (length)
      if (precrt_status_t status =
              precrtSend(world, mine.data(), length, PRECRT_DTYPE_BYTES, 0))
        return failed(status, "sending it");
    return llvm::Error::success();
  }
  all.assign(size, std::string());
  all[0] = std::move(mine);
  for (int32_t peer = 1; peer < size; ++peer) {
    uint64_t length = 0;
    if (precrt_status_t status = precrtRecv(world, &length, sizeof(length),
                                            PRECRT_DTYPE_BYTES, peer))
      return failed(status,
                    "receiving rank " + llvm::Twine(peer) + "'s length");
    all[peer].resize(length);
    if (length)
      if (precrt_status_t status = precrtRecv(world, all[peer].data(), length,
                                              PRECRT_DTYPE_BYTES, peer))
        return failed(status, "receiving rank " + llvm::Twine(peer) + "'s");
  }
  return llvm::Error::success();
}

/// Processes of mpirun (MPI backend, or NCCL with a process per GPU) print
/// to one terminal through mpirun, which does not keep their order: each
/// rank sends its report to rank 0, which prints them all, in rank order.
/// Its data (RunObserver::takeRankData) goes the same way.
llvm::Error RankRun::gatherReports() {
  std::vector<std::string> all;
  if (llvm::Error error =
          gatherToRankZero(world, rank, state.observer->takeRankReport(rank),
                           all, "the ranks' reports"))
    return error;
  if (rank == 0)
    state.observer->printRankReports(all);
  if (llvm::Error error =
          gatherToRankZero(world, rank, state.observer->takeRankData(rank),
                           all, "the ranks' data"))
    return error;
  if (rank == 0)
    return state.observer->receiveRankData(all);
  return llvm::Error::success();
}

int runRank(precrt_comm_t world, void *userData) {
  auto &state = *static_cast<RunState *>(userData);
  int32_t rank = 0;
  precrtCommRank(world, &rank);
  precrtCompiledClearError();
  llvm::Error error = llvm::Error::success();
  // Before anything GPU happens on this thread. Under mpirun the runtime
  // already chose the GPU of the process's node-local rank.
  if (state.runner->getOptions().backend == RunnerBackend::NCCL &&
      state.runner->ranksAreThreads())
    if (precrt_status_t selected =
            precrtGpuSetDevice(rank % state.impl->deviceCount))
      error = describeGpuFailure(selected, "selecting the GPU");
  if (!error) {
    RankRun run(state, world, rank);
    error = run.run();
  }
  if (!error)
    return 0;
  std::string message = llvm::toString(std::move(error));
  state.observer->rankFailed(rank, message);
  std::lock_guard<std::mutex> lock(state.mutex);
  state.failures[rank] = std::move(message);
  return 1;
}

} // namespace

llvm::Error Runner::run(int numSteps, RunObserver &observer) {
  if (numSteps < 1)
    return makeError("expected at least 1 step, got " + llvm::Twine(numSteps));
  if (!impl->compiled)
    return makeError("the program is not compiled: call jit() first");
  if (!impl->missingOnHost.empty())
    return makeError("the program is compiled for CPU '" + options.targetCPU +
                     "', whose features " + impl->missingOnHost +
                     " this host lacks: it can be compiled here, not run");

  precrt_init_options init{};
  switch (options.backend) {
  case RunnerBackend::Local:
    init.backend = PRECRT_BACKEND_LOCAL;
    init.num_local_ranks = numRanks;
    break;
  case RunnerBackend::MPI:
    init.backend = PRECRT_BACKEND_MPI;
    break;
  case RunnerBackend::NCCL:
    init.backend = PRECRT_BACKEND_NCCL;
    if (ranksAreThreads()) {
      // NCCL cannot run two ranks of one communicator on one device.
      if (numRanks > impl->deviceCount)
        return makeError(llvm::formatv(
            "the nccl backend runs one rank per GPU: {0} ranks need {0} "
            "GPUs, this machine has {1}",
            numRanks, impl->deviceCount));
      init.nccl_bootstrap = PRECRT_NCCL_BOOTSTRAP_THREADS;
      init.num_local_ranks = numRanks;
    } else {
      init.nccl_bootstrap = PRECRT_NCCL_BOOTSTRAP_MPI;
    }
    break;
  }
  if (ranksAreThreads() && numRanks < 1)
    return makeError("expected a positive number of ranks, got " +
                     llvm::Twine(numRanks));
  init.timeout_ms = options.timeoutMs;

  RunState state{this, impl.get(), &observer, numSteps, {}, {}};
  precrt_status_t status = precrtRun(&init, runRank, &state);
  llvm::Error failures = llvm::Error::success();
  for (auto &[rank, message] : state.failures)
    failures = llvm::joinErrors(std::move(failures),
                                llvm::make_error<RankError>(rank, message));
  if (failures)
    return failures;
  if (status != PRECRT_SUCCESS)
    return makeError(llvm::Twine(precrtStatusName(status)) + ": " +
                     precrtGetLastErrorMessage());
  return llvm::Error::success();
}

void CallResults::release() {
  for (void *allocation : allocations)
    precrtCompiledFree(allocation); // free() unless it came from the cache
  allocations.clear();
}

llvm::Error Runner::call(llvm::ArrayRef<void *> arguments,
                         CallResults &results) const {
  if (options.backend == RunnerBackend::NCCL)
    return makeError("call runs the entry on CPU backends only");
  if (!impl->compiled)
    return makeError("the program is not compiled: call jit() first");
  if (!impl->missingOnHost.empty())
    return makeError("the program is compiled for CPU '" + options.targetCPU +
                     "', whose features " + impl->missingOnHost +
                     " this host lacks: it can be compiled here, not run");
  if (arguments.size() != signature.arguments.size())
    return makeError("expected " + llvm::Twine(signature.arguments.size()) +
                     " arguments, got " + llvm::Twine(arguments.size()));
  SmallVector<int64_t> scalars(arguments.size(), 0);
  for (auto [i, spec] : llvm::enumerate(signature.arguments))
    if (!spec.isBuffer)
      std::memcpy(&scalars[i], arguments[i], spec.elementBytes());
  results.release();
  ResultLayout layout = layoutResults(signature.results);
  results.storage.assign(layout.size / 8 + 1, 0);
  results.data.assign(signature.results.size(), nullptr);
  SmallVector<SmallVector<int64_t, 8>> packed;
  SmallVector<void *> pointers = packArguments(signature, arguments, scalars,
                                               packed, results.storage.data());
  impl->entry(pointers.data());
  if (const char *compiledError = precrtCompiledGetError())
    return makeError(compiledError);
  return takeResults(signature, layout, results.storage.data(), arguments,
                     results.data, results.allocations, "the call");
}
