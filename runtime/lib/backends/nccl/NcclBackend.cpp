//===- NcclBackend.cpp - GPUs through NCCL --------------------------------===//
//
// Data moves through NCCL on the communicator's stream; agreement checks and
// bootstrap messages go through a control communicator (MPI when each GPU
// has its own process, the local backend when ranks are threads). Each call
// waits for its stream by polling, so a stalled peer turns into
// PRECRT_ERROR_TIMEOUT and an aborted NCCL communicator, not a hang.
//
// Buffers are device memory. Reductions are NCCL's own: its sum rounds to
// the dtype at every step, and its avg pre-multiplies by 1/n in the dtype,
// unlike the CPU backends' final division (docs/Runtime.md).
//
//===----------------------------------------------------------------------===//

#include "backends/local/LocalBackend.h"
#include "backends/nccl/NcclLibrary.h"
#include "core/Backends.h"
#include "core/Communicator.h"
#include "core/CurrentWorld.h"
#include "core/Error.h"
#include "gpu/GpuContext.h"
#include "precrt/gpu.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sched.h>
#include <string>
#include <thread>

namespace precrt {
namespace {

using namespace nccl;

/// Both libraries, or nullptr with the reason as the thread's error.
bool loadGpuLibraries(const NcclApi **ncclApi) {
  if (!cuda::driver())
    return false;
  *ncclApi = library();
  return *ncclApi != nullptr;
}

class NcclCommunicator final : public Communicator {
public:
  /// `control` is borrowed from the caller (thread bootstrap, grid groups)
  /// or owned (`ownedControl`, MPI bootstrap).
  NcclCommunicator(const NcclApi &api, ncclComm_t comm, int device,
                   Communicator *control,
                   std::unique_ptr<Communicator> ownedControl,
                   cuda::CUstream stream, int64_t timeoutMs)
      : Communicator(PRECRT_BACKEND_NCCL, control->rank(), control->size(),
                     timeoutMs),
        api_(api), comm_(comm), device_(device), control_(control),
        ownedControl_(std::move(ownedControl)), ownStream_(stream),
        stream_(stream) {}

  ~NcclCommunicator() override {
    // NCCL, like the driver, works in the thread's current context.
    cuda::setCurrentDevice(device_);
    cuda::ScopedContext scope;
    if (scope.enter() != PRECRT_SUCCESS)
      return;
    if (comm_)
      api_.ncclCommDestroy(comm_);
    if (ownStream_)
      scope.api().cuStreamDestroy(ownStream_);
  }

  precrt_status_t setStream(void *stream) override {
    stream_ = stream ? static_cast<cuda::CUstream>(stream) : ownStream_;
    return PRECRT_SUCCESS;
  }
  void *stream() const override { return stream_; }
  Communicator *hostCommunicator() override { return control_; }
  /// The control plane's ranks are this communicator's.
  bool peerHasLeft(int peer, const std::string &what,
                   std::string &reason) override {
    return control_->peerHasLeft(peer, what, reason);
  }

protected:
  precrt_status_t runCollective(const CollectiveCall &call) override;
  precrt_status_t runPointToPoint(const PointToPointCall &call,
                                  const CallDescriptor &sendHeader,
                                  const CallDescriptor &recvHeader) override;
  precrt_status_t createGroup(const GridGroup &membership,
                              std::unique_ptr<Communicator> *result) override;

private:
  precrt_status_t ncclFailure(ncclResult_t result, const char *what) {
    const char *detail = comm_ ? api_.ncclGetLastError(comm_) : nullptr;
    return fail(PRECRT_ERROR_BACKEND, "%s failed: %s%s%s", what,
                api_.ncclGetErrorString(result), detail ? ": " : "",
                detail ? detail : "");
  }

  /// Polls the stream until the enqueued work is done, NCCL reports an
  /// asynchronous error, or the deadline passes (then aborts the
  /// communicator: its kernels may wait forever for a dead peer).
  precrt_status_t waitForStream(cuda::ScopedContext &scope,
                                Clock::time_point deadline,
                                const std::string &what);

  precrt_status_t enqueue(const CollectiveCall &call);

  const NcclApi &api_;
  ncclComm_t comm_;
  int device_;
  Communicator *control_;
  std::unique_ptr<Communicator> ownedControl_;
  cuda::CUstream ownStream_;
  cuda::CUstream stream_;
};

/// A nonblocking communicator: NCCL returns from creating it at once and
/// the caller polls, so that a peer that never joins is a timeout with a
/// reason, not a hang in NCCL's default blocking initialization.
ncclConfig nonblockingConfig() {
  ncclConfig config{};
  config.size = sizeof(config);
  config.magic = ncclConfigMagic;
  config.version = kMinimumVersion;
  config.blocking = 0;
  config.cgaClusterSize = ncclConfigUndefined;
  config.minCTAs = ncclConfigUndefined;
  config.maxCTAs = ncclConfigUndefined;
  config.netName = nullptr;
  config.splitShare = ncclConfigUndefined;
  return config;
}

/// Polls `comm`, being created by `what`, until it is ready, fails, or the
/// deadline passes; a communicator that is not ready is aborted.
precrt_status_t waitUntilReady(const NcclApi &api, ncclComm_t comm,
                               Clock::time_point deadline, int64_t timeoutMs,
                               const char *what) {
  for (int polls = 0;; ++polls) {
    ncclResult_t state = ncclSuccess;
    if (ncclResult_t result = api.ncclCommGetAsyncError(comm, &state))
      state = result;
    if (state == ncclSuccess)
      return PRECRT_SUCCESS;
    if (state != ncclInProgress) {
      api.ncclCommAbort(comm);
      return fail(PRECRT_ERROR_BACKEND, "%s failed: %s", what,
                  api.ncclGetErrorString(state));
    }
    if (Clock::now() >= deadline) {
      api.ncclCommAbort(comm);
      return fail(PRECRT_ERROR_TIMEOUT,
                  "%s did not complete within %lld ms (a peer did not "
                  "join); the communicator was aborted",
                  what, static_cast<long long>(timeoutMs));
    }
    if (polls > 1024)
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    else
      sched_yield();
  }
}

precrt_status_t dtypeForNccl(const NcclApi &api, precrt_dtype_t dtype,
                             ncclDataType_t *type) {
  switch (dtype) {
  case PRECRT_DTYPE_F64:
    *type = ncclFloat64;
    return PRECRT_SUCCESS;
  case PRECRT_DTYPE_F32:
    *type = ncclFloat32;
    return PRECRT_SUCCESS;
  case PRECRT_DTYPE_F16:
    *type = ncclFloat16;
    return PRECRT_SUCCESS;
  case PRECRT_DTYPE_BF16:
    *type = ncclBfloat16;
    return PRECRT_SUCCESS;
  case PRECRT_DTYPE_F8E4M3FN:
  case PRECRT_DTYPE_F8E5M2:
    if (api.version < kFloat8Version)
      return fail(PRECRT_ERROR_UNAVAILABLE,
                  "%s needs NCCL 2.24 or newer, this one is %d",
                  precrtDtypeName(dtype), api.version);
    *type = dtype == PRECRT_DTYPE_F8E4M3FN ? ncclFloat8e4m3 : ncclFloat8e5m2;
    return PRECRT_SUCCESS;
  case PRECRT_DTYPE_BYTES:
    *type = ncclUint8;
    return PRECRT_SUCCESS;
  }
  return fail(PRECRT_ERROR_INVALID_ARGUMENT, "unknown dtype %d", int(dtype));
}

ncclRedOp_t reductionForNccl(precrt_reduction_t reduction) {
  switch (reduction) {
  case PRECRT_REDUCTION_AVG:
    return ncclAvg;
  case PRECRT_REDUCTION_MAX:
    return ncclMax;
  case PRECRT_REDUCTION_MIN:
    return ncclMin;
  default:
    return ncclSum;
  }
}

precrt_status_t NcclCommunicator::waitForStream(cuda::ScopedContext &scope,
                                                Clock::time_point deadline,
                                                const std::string &what) {
  for (int polls = 0;; ++polls) {
    cuda::CUresult state = scope.api().cuStreamQuery(stream_);
    if (state == cuda::CUDA_SUCCESS)
      return PRECRT_SUCCESS;
    if (state != cuda::CUDA_ERROR_NOT_READY) {
      precrt_status_t status =
          cuda::driverFailure(scope.api(), state, "cuStreamQuery");
      markBroken(lastErrorMessage());
      return status;
    }
    ncclResult_t asyncError = ncclSuccess;
    api_.ncclCommGetAsyncError(comm_, &asyncError);
    if (asyncError != ncclSuccess && asyncError != ncclInProgress) {
      precrt_status_t status = ncclFailure(asyncError, what.c_str());
      api_.ncclCommAbort(comm_);
      comm_ = nullptr;
      markBroken(lastErrorMessage());
      return status;
    }
    if (Clock::now() >= deadline) {
      api_.ncclCommAbort(comm_);
      comm_ = nullptr;
      precrt_status_t status =
          fail(PRECRT_ERROR_TIMEOUT,
               "%s timed out on the GPU after %lld ms; the NCCL communicator "
               "was aborted",
               what.c_str(), static_cast<long long>(timeoutMs()));
      markBroken(lastErrorMessage());
      return status;
    }
    if (polls > 1024)
      std::this_thread::sleep_for(std::chrono::microseconds(20));
    else
      sched_yield();
  }
}

/// The type data that NCCL only moves travels as: fp8 as bytes.
precrt_status_t moveTypeForNccl(const NcclApi &api, precrt_dtype_t dtype,
                                ncclDataType_t *type) {
  if (dtype == PRECRT_DTYPE_F8E4M3FN || dtype == PRECRT_DTYPE_F8E5M2) {
    *type = ncclUint8;
    return PRECRT_SUCCESS;
  }
  return dtypeForNccl(api, dtype, type);
}

/// fp8 goes to NCCL's fp8 types only where NCCL reduces it: those need
/// NCCL 2.24 and a device of compute capability 9.0 or newer, below which
/// NCCL refuses fp8 reductions (and some versions fp8 gathers too). Data
/// that is only moved travels as bytes on every device and version.
precrt_status_t wireTypeForNccl(const NcclApi &api, const CollectiveCall &call,
                                int device, ncclDataType_t *type) {
  bool fp8 = call.dtype() == PRECRT_DTYPE_F8E4M3FN ||
             call.dtype() == PRECRT_DTYPE_F8E5M2;
  bool reduces = call.op() == CollectiveOp::ReduceScatter ||
                 call.op() == CollectiveOp::AllReduce;
  if (!reduces)
    return moveTypeForNccl(api, call.dtype(), type);
  if (fp8) {
    precrt_gpu_device_properties properties;
    if (precrt_status_t status =
            precrtGpuGetDeviceProperties(device, &properties))
      return status;
    if (properties.compute_capability_major < 9)
      return fail(PRECRT_ERROR_UNAVAILABLE,
                  "NCCL reduces %s only on devices of compute capability 9.0 "
                  "or newer; device %d (%s) is %d.%d: reduce in a wider "
                  "acc_dtype",
                  precrtDtypeName(call.dtype()), device, properties.name,
                  properties.compute_capability_major,
                  properties.compute_capability_minor);
  }
  return dtypeForNccl(api, call.dtype(), type);
}

precrt_status_t NcclCommunicator::enqueue(const CollectiveCall &call) {
  ncclDataType_t type;
  if (precrt_status_t status = wireTypeForNccl(api_, call, device_, &type))
    return status;
  const size_t count = call.count();
  const size_t bytes = byteSize(call.dtype(), count);
  ncclRedOp_t op = reductionForNccl(call.reduction());
  ncclResult_t result = ncclSuccess;
  const char *what = "";
  switch (call.op()) {
  case CollectiveOp::AllGather:
    what = "ncclAllGather";
    result = api_.ncclAllGather(call.send, call.recv, count, type, comm_,
                                stream_);
    break;
  case CollectiveOp::ReduceScatter:
    what = "ncclReduceScatter";
    result = api_.ncclReduceScatter(call.send, call.recv, count, type, op,
                                    comm_, stream_);
    break;
  case CollectiveOp::AllReduce:
    what = "ncclAllReduce";
    result = api_.ncclAllReduce(call.send, call.recv, count, type, op, comm_,
                                stream_);
    break;
  case CollectiveOp::Broadcast:
    what = "ncclBroadcast";
    result = api_.ncclBroadcast(call.send, call.recv, count, type,
                                call.descriptor.root, comm_, stream_);
    break;
  case CollectiveOp::AllToAll: {
    what = "all_to_all (grouped ncclSend/ncclRecv)";
    result = api_.ncclGroupStart();
    if (result != ncclSuccess) {
      what = "ncclGroupStart";
      break;
    }
    for (int peer = 0; peer < size() && result == ncclSuccess; ++peer) {
      result = api_.ncclSend(static_cast<const char *>(call.send) + peer * bytes,
                             count, type, peer, comm_, stream_);
      if (result == ncclSuccess)
        result = api_.ncclRecv(static_cast<char *>(call.recv) + peer * bytes,
                               count, type, peer, comm_, stream_);
    }
    ncclResult_t ended = api_.ncclGroupEnd();
    if (result == ncclSuccess)
      result = ended;
    break;
  }
  default:
    return PRECRT_SUCCESS;
  }
  // A nonblocking communicator may still be enqueueing: waitForStream
  // polls its asynchronous state.
  if (result != ncclSuccess && result != ncclInProgress)
    return ncclFailure(result, what);
  return PRECRT_SUCCESS;
}

precrt_status_t NcclCommunicator::runCollective(const CollectiveCall &call) {
  CollectiveCall agreement = call;
  agreement.agreementOnly = true;
  if (precrt_status_t status = control_->collective(agreement)) {
    if (status == PRECRT_ERROR_TIMEOUT || status == PRECRT_ERROR_PEER_FAILED)
      markBroken(lastErrorMessage());
    return status;
  }
  if (call.op() == CollectiveOp::Barrier ||
      call.op() == CollectiveOp::GridSplit)
    return PRECRT_SUCCESS;
  if (!comm_)
    return fail(PRECRT_ERROR_PEER_FAILED, "the NCCL communicator was aborted");
  auto deadline = this->deadline();
  cuda::setCurrentDevice(device_);
  cuda::ScopedContext scope;
  if (precrt_status_t status = scope.enter())
    return status;
  if (precrt_status_t status = enqueue(call))
    return status;
  return waitForStream(scope, deadline, describeCall(call.descriptor));
}

precrt_status_t
NcclCommunicator::runPointToPoint(const PointToPointCall &call,
                                  const CallDescriptor &, const CallDescriptor &) {
  PointToPointCall agreement = call;
  agreement.agreementOnly = true;
  if (precrt_status_t status = control_->pointToPoint(agreement)) {
    if (status == PRECRT_ERROR_TIMEOUT || status == PRECRT_ERROR_PEER_FAILED)
      markBroken(lastErrorMessage());
    return status;
  }
  if (!comm_)
    return fail(PRECRT_ERROR_PEER_FAILED, "the NCCL communicator was aborted");
  ncclDataType_t type;
  if (precrt_status_t status = moveTypeForNccl(api_, call.dtype, &type))
    return status;
  auto deadline = this->deadline();
  cuda::setCurrentDevice(device_);
  cuda::ScopedContext scope;
  if (precrt_status_t status = scope.enter())
    return status;
  ncclResult_t result = api_.ncclGroupStart();
  if (result == ncclSuccess && call.sendPeer >= 0)
    result = api_.ncclSend(call.send, call.sendCount, type, call.sendPeer,
                           comm_, stream_);
  if (result == ncclSuccess && call.recvPeer >= 0)
    result = api_.ncclRecv(call.recv, call.recvCount, type, call.recvPeer,
                           comm_, stream_);
  ncclResult_t ended = api_.ncclGroupEnd();
  if (result == ncclSuccess)
    result = ended;
  if (result != ncclSuccess && result != ncclInProgress)
    return ncclFailure(result, "ncclSend/ncclRecv");
  return waitForStream(scope, deadline, "send/recv");
}

precrt_status_t
NcclCommunicator::createGroup(const GridGroup &membership,
                              std::unique_ptr<Communicator> *result) {
  Communicator *controlGroup = nullptr;
  if (precrt_status_t status =
          control_->forGridAxes(membership.shape, membership.axes, &controlGroup))
    return status;
  if (!comm_)
    return fail(PRECRT_ERROR_PEER_FAILED, "the NCCL communicator was aborted");
  cuda::setCurrentDevice(device_);
  cuda::ScopedContext scope;
  if (precrt_status_t status = scope.enter())
    return status;
  // All ranks agreed on the split just before, so ncclCommSplit (collective
  // over this communicator) has every rank coming.
  ncclComm_t split = nullptr;
  ncclConfig config = nonblockingConfig();
  auto deadline = this->deadline();
  ncclResult_t ncclStatus = api_.ncclCommSplit(
      comm_, int(membership.color), membership.rankInGroup, &split, &config);
  if (ncclStatus != ncclSuccess && ncclStatus != ncclInProgress)
    return ncclFailure(ncclStatus, "ncclCommSplit");
  if (split)
    if (precrt_status_t status = waitUntilReady(api_, split, deadline,
                                                timeoutMs(), "ncclCommSplit"))
      return status;
  cuda::CUstream stream = nullptr;
  if (cuda::CUresult created =
          scope.api().cuStreamCreate(&stream, cuda::CU_STREAM_NON_BLOCKING))
    return cuda::driverFailure(scope.api(), created, "cuStreamCreate");
  *result = std::make_unique<NcclCommunicator>(api_, split, device_,
                                               controlGroup, nullptr, stream,
                                               timeoutMs());
  return PRECRT_SUCCESS;
}

/// Joins an NCCL world of `control`'s ranks on `device`: rank 0 creates the
/// unique id, the control communicator broadcasts it (with the timeout).
precrt_status_t createNcclWorld(const NcclApi &api, Communicator *control,
                                std::unique_ptr<Communicator> ownedControl,
                                int device, int64_t timeoutMs,
                                std::unique_ptr<Communicator> *world) {
  // Rank 0 broadcasts the id or why it has none: its peers wait in the
  // broadcast, and must fail with it rather than at their timeout.
  struct {
    ncclUniqueId id;
    char failure[256];
  } bootstrap{};
  if (control->rank() == 0) {
    if (ncclResult_t result = api.ncclGetUniqueId(&bootstrap.id))
      std::snprintf(bootstrap.failure, sizeof(bootstrap.failure),
                    "ncclGetUniqueId failed on rank 0: %s",
                    api.ncclGetErrorString(result));
  }
  CollectiveCall broadcast;
  broadcast.descriptor.op = uint32_t(CollectiveOp::Broadcast);
  broadcast.descriptor.dtype = PRECRT_DTYPE_BYTES;
  broadcast.descriptor.count = sizeof(bootstrap);
  broadcast.send = &bootstrap;
  broadcast.recv = &bootstrap;
  if (precrt_status_t status = control->collective(broadcast))
    return status;
  if (bootstrap.failure[0])
    return fail(PRECRT_ERROR_BACKEND, "%s", bootstrap.failure);
  const ncclUniqueId &id = bootstrap.id;

  cuda::setCurrentDevice(device);
  cuda::ScopedContext scope;
  if (precrt_status_t status = scope.enter())
    return status;
  ncclComm_t comm = nullptr;
  ncclConfig config = nonblockingConfig();
  auto deadline = Clock::now() + std::chrono::milliseconds(timeoutMs);
  ncclResult_t result = api.ncclCommInitRankConfig(&comm, control->size(), id,
                                                   control->rank(), &config);
  if (result != ncclSuccess && result != ncclInProgress)
    return fail(PRECRT_ERROR_BACKEND, "ncclCommInitRank failed: %s",
                api.ncclGetErrorString(result));
  if (precrt_status_t status = waitUntilReady(api, comm, deadline, timeoutMs,
                                              "ncclCommInitRank"))
    return status;
  cuda::CUstream stream = nullptr;
  if (cuda::CUresult created =
          scope.api().cuStreamCreate(&stream, cuda::CU_STREAM_NON_BLOCKING)) {
    api.ncclCommDestroy(comm);
    return cuda::driverFailure(scope.api(), created, "cuStreamCreate");
  }
  *world = std::make_unique<NcclCommunicator>(api, comm, device, control,
                                              std::move(ownedControl), stream,
                                              timeoutMs);
  return PRECRT_SUCCESS;
}

/// The launcher's node-local rank, which picks the GPU of a process.
int localRankFromLauncher(int worldRank, int deviceCount) {
  for (const char *name : {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID",
                           "MV2_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID"}) {
    if (const char *value = std::getenv(name))
      return std::atoi(value);
  }
  return deviceCount > 0 ? worldRank % deviceCount : 0;
}

} // namespace

precrt_status_t ncclBackendAvailable() {
  const NcclApi *api = nullptr;
  if (!loadGpuLibraries(&api))
    return PRECRT_ERROR_UNAVAILABLE;
  int devices = 0;
  cuda::driver()->cuDeviceGetCount(&devices);
  if (devices <= 0)
    return fail(PRECRT_ERROR_UNAVAILABLE, "NCCL backend: no CUDA device");
  return PRECRT_SUCCESS;
}

precrt_status_t createNcclWorldOverMpi(int64_t timeoutMs,
                                       std::unique_ptr<Communicator> *world) {
  const NcclApi *api = nullptr;
  if (!loadGpuLibraries(&api))
    return PRECRT_ERROR_UNAVAILABLE;
  std::unique_ptr<Communicator> control;
  if (precrt_status_t status = createMpiWorld(timeoutMs, &control))
    return status;
  int devices = 0;
  cuda::driver()->cuDeviceGetCount(&devices);
  if (devices <= 0)
    return fail(PRECRT_ERROR_UNAVAILABLE, "NCCL backend: no CUDA device");
  int device = localRankFromLauncher(control->rank(), devices);
  if (device >= devices)
    return fail(PRECRT_ERROR_INVALID_ARGUMENT,
                "NCCL backend: local rank %d has no GPU (%d devices)", device,
                devices);
  Communicator *borrowed = control.get();
  return createNcclWorld(*api, borrowed, std::move(control), device, timeoutMs,
                         world);
}

precrt_status_t runNcclRanks(int numRanks, int64_t timeoutMs,
                             const std::function<int(Communicator *)> &body) {
  const NcclApi *api = nullptr;
  if (!loadGpuLibraries(&api))
    return PRECRT_ERROR_UNAVAILABLE;
  int devices = 0;
  cuda::driver()->cuDeviceGetCount(&devices);
  if (numRanks > devices)
    return fail(PRECRT_ERROR_UNAVAILABLE,
                "NCCL thread bootstrap: %d ranks need %d GPUs, %d found",
                numRanks, numRanks, devices);
  return runLocalRanks(numRanks, timeoutMs, [&](Communicator *control) {
    std::unique_ptr<Communicator> world;
    if (precrt_status_t status = createNcclWorld(
            *api, control, nullptr, control->rank(), timeoutMs, &world))
      return int(status);
    CurrentWorldScope scope(world.get());
    return body(world.get());
  });
}

} // namespace precrt
