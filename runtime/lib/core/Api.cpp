//===- Api.cpp - The C ABI of precrt.h ------------------------------------===//
//
// Validates arguments, then hands the call to the communicator's backend. A
// rank whose own arguments are invalid still joins the agreement exchange
// with its descriptor flagged, so the other ranks fail at once instead of at
// the timeout.
//
//===----------------------------------------------------------------------===//

#include "precrt/precrt.h"

#include "backends/local/LocalBackend.h"
#include "core/Backends.h"
#include "core/CommunicationThread.h"
#include "core/Communicator.h"
#include "core/CurrentWorld.h"
#include "core/Environment.h"
#include "core/Error.h"

#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

using namespace precrt;

namespace {

Communicator *unwrap(precrt_comm_t comm) {
  return reinterpret_cast<Communicator *>(comm);
}

precrt_comm_t wrap(Communicator *comm) {
  return reinterpret_cast<precrt_comm_t>(comm);
}

bool validDtype(precrt_dtype_t dtype) {
  return unsigned(dtype) < PRECRT_NUM_DTYPES;
}

/// Process-per-rank state of precrtInit / precrtFinalize.
struct ProcessState {
  std::mutex mutex;
  std::unique_ptr<Communicator> world;
  precrt_backend_t backend = PRECRT_BACKEND_DEFAULT;
};

ProcessState &processState() {
  static ProcessState state;
  return state;
}

precrt_status_t resolveBackend(const precrt_init_options *options,
                               precrt_backend_t *backend) {
  precrt_backend_t requested =
      options ? options->backend : PRECRT_BACKEND_DEFAULT;
  if (requested == PRECRT_BACKEND_LOCAL || requested == PRECRT_BACKEND_MPI ||
      requested == PRECRT_BACKEND_NCCL) {
    *backend = requested;
    return PRECRT_SUCCESS;
  }
  if (requested != PRECRT_BACKEND_DEFAULT)
    return fail(PRECRT_ERROR_INVALID_ARGUMENT, "unknown backend %d",
                int(requested));
  const char *env = std::getenv("PRECRT_BACKEND");
  if (!env || !*env || std::strcmp(env, "local") == 0)
    *backend = PRECRT_BACKEND_LOCAL;
  else if (std::strcmp(env, "mpi") == 0)
    *backend = PRECRT_BACKEND_MPI;
  else if (std::strcmp(env, "nccl") == 0)
    *backend = PRECRT_BACKEND_NCCL;
  else
    return fail(PRECRT_ERROR_INVALID_ARGUMENT,
                "PRECRT_BACKEND='%s' is not one of local, mpi, nccl", env);
  return PRECRT_SUCCESS;
}

precrt_status_t resolveTimeout(const precrt_init_options *options,
                               int64_t *timeoutMs) {
  if (options && options->timeout_ms > 0) {
    *timeoutMs = options->timeout_ms;
    return PRECRT_SUCCESS;
  }
  int64_t ignored;
  if (readPositiveEnv("PRECRT_TIMEOUT_MS", INT64_MAX, &ignored) ==
      EnvNumber::Malformed)
    return fail(PRECRT_ERROR_INVALID_ARGUMENT,
                "PRECRT_TIMEOUT_MS='%s' is not a positive number of "
                "milliseconds",
                std::getenv("PRECRT_TIMEOUT_MS"));
  *timeoutMs = defaultTimeoutMs();
  return PRECRT_SUCCESS;
}

/// The backend and timeout that `options` (and the environment) select.
precrt_status_t resolveOptions(const precrt_init_options *options,
                               precrt_backend_t *backend, int64_t *timeoutMs) {
  precrt_status_t status = resolveBackend(options, backend);
  if (status != PRECRT_SUCCESS)
    return status;
  return resolveTimeout(options, timeoutMs);
}

precrt_status_t resolveLocalRanks(const precrt_init_options *options,
                                  int *numRanks) {
  // Each pair of local ranks has a mailbox: the bound keeps that table (and
  // the threads) within what one process can hold.
  constexpr int32_t maxLocalRanks = 4096;
  if (options && options->num_local_ranks > 0) {
    if (options->num_local_ranks > maxLocalRanks)
      return fail(PRECRT_ERROR_INVALID_ARGUMENT,
                  "num_local_ranks %d is more than the local backend's %d "
                  "ranks",
                  options->num_local_ranks, maxLocalRanks);
    *numRanks = options->num_local_ranks;
    return PRECRT_SUCCESS;
  }
  int64_t fromEnvironment = 1;
  if (readPositiveEnv("PRECRT_LOCAL_RANKS", maxLocalRanks, &fromEnvironment) ==
      EnvNumber::Malformed)
    return fail(PRECRT_ERROR_INVALID_ARGUMENT,
                "PRECRT_LOCAL_RANKS='%s' is not a rank count in [1, %d]",
                std::getenv("PRECRT_LOCAL_RANKS"), maxLocalRanks);
  *numRanks = static_cast<int>(fromEnvironment);
  return PRECRT_SUCCESS;
}

/// Runs `call` on `comm`; when this rank's own arguments were invalid it
/// still takes part (flagged) and then reports its own error.
precrt_status_t runChecked(Communicator *comm, CollectiveCall &call,
                           precrt_status_t localStatus) {
  if (localStatus == PRECRT_SUCCESS)
    return comm->collective(call);
  std::string message = lastErrorMessage();
  call.descriptor.invalidOnRank = 1;
  call.send = nullptr;
  call.recv = nullptr;
  comm->collective(call);
  return fail(localStatus, "%s", message.c_str());
}

CollectiveCall makeCall(CollectiveOp op, const void *send, void *recv,
                        size_t count, precrt_dtype_t dtype,
                        precrt_reduction_t reduction = PRECRT_REDUCTION_SUM,
                        int32_t root = 0) {
  CollectiveCall call;
  call.descriptor.op = uint32_t(op);
  call.descriptor.dtype = uint32_t(dtype);
  call.descriptor.reduction = uint32_t(reduction);
  call.descriptor.root = root;
  call.descriptor.count = count;
  call.send = send;
  call.recv = recv;
  return call;
}

/// Checks what every collective needs; `scale` is how many `count`-element
/// blocks the larger buffer holds (the group size for gathers).
precrt_status_t validateBuffers(const char *name, const void *send,
                                const void *recv, size_t count,
                                precrt_dtype_t dtype, size_t scale,
                                bool needSend = true) {
  if (!validDtype(dtype))
    return fail(PRECRT_ERROR_INVALID_ARGUMENT, "%s: unknown dtype %d", name,
                int(dtype));
  size_t elementSize = precrtDtypeSize(dtype);
  if (count > std::numeric_limits<size_t>::max() / elementSize / scale)
    return fail(PRECRT_ERROR_INVALID_ARGUMENT, "%s: count %zu overflows", name,
                count);
  if (count && ((needSend && !send) || !recv))
    return fail(PRECRT_ERROR_INVALID_ARGUMENT,
                "%s: null %s buffer for %zu elements", name,
                (needSend && !send) ? "send" : "recv", count);
  return PRECRT_SUCCESS;
}

precrt_status_t validateReduction(const char *name, precrt_dtype_t dtype,
                                  precrt_reduction_t reduction) {
  if (unsigned(reduction) >= PRECRT_NUM_REDUCTIONS)
    return fail(PRECRT_ERROR_INVALID_ARGUMENT, "%s: unknown reduction %d", name,
                int(reduction));
  if (dtype == PRECRT_DTYPE_BYTES)
    return fail(PRECRT_ERROR_INVALID_ARGUMENT,
                "%s: bytes cannot be reduced; pick a floating dtype", name);
  return PRECRT_SUCCESS;
}

#define PRECRT_REQUIRE_COMM(comm, name)                                        \
  do {                                                                         \
    if (!(comm))                                                               \
      return fail(PRECRT_ERROR_INVALID_ARGUMENT, "%s: null communicator",      \
                  name);                                                       \
  } while (0)

} // namespace

extern "C" {

int32_t precrtGetApiVersion(void) { return PRECRT_API_VERSION; }

const char *precrtGetLastErrorMessage(void) { return lastErrorMessage(); }

const char *precrtStatusName(precrt_status_t status) {
  switch (status) {
  case PRECRT_SUCCESS:
    return "PRECRT_SUCCESS";
  case PRECRT_ERROR_INVALID_ARGUMENT:
    return "PRECRT_ERROR_INVALID_ARGUMENT";
  case PRECRT_ERROR_MISMATCH:
    return "PRECRT_ERROR_MISMATCH";
  case PRECRT_ERROR_TIMEOUT:
    return "PRECRT_ERROR_TIMEOUT";
  case PRECRT_ERROR_PEER_FAILED:
    return "PRECRT_ERROR_PEER_FAILED";
  case PRECRT_ERROR_UNAVAILABLE:
    return "PRECRT_ERROR_UNAVAILABLE";
  case PRECRT_ERROR_BACKEND:
    return "PRECRT_ERROR_BACKEND";
  case PRECRT_ERROR_INTERNAL:
    return "PRECRT_ERROR_INTERNAL";
  }
  return "unknown precrt_status_t";
}

const char *precrtDtypeName(precrt_dtype_t dtype) {
  static const char *const names[PRECRT_NUM_DTYPES] = {
      "f64", "f32", "f16", "bf16", "f8E4M3FN", "f8E5M2", "bytes"};
  return validDtype(dtype) ? names[dtype] : nullptr;
}

size_t precrtDtypeSize(precrt_dtype_t dtype) {
  static const size_t sizes[PRECRT_NUM_DTYPES] = {8, 4, 2, 2, 1, 1, 1};
  return validDtype(dtype) ? sizes[dtype] : 0;
}

precrt_status_t precrtSetDefaultTimeoutMs(int64_t timeout_ms) {
  if (timeout_ms < 0)
    return fail(PRECRT_ERROR_INVALID_ARGUMENT,
                "timeout must be a positive number of milliseconds (or 0 to "
                "clear), got %lld",
                static_cast<long long>(timeout_ms));
  setDefaultTimeoutMs(timeout_ms);
  return PRECRT_SUCCESS;
}

int64_t precrtGetDefaultTimeoutMs(void) { return defaultTimeoutMs(); }

precrt_status_t precrtBackendAvailable(precrt_backend_t backend) {
  switch (backend) {
  case PRECRT_BACKEND_LOCAL:
    return PRECRT_SUCCESS;
  case PRECRT_BACKEND_MPI:
    return mpiBackendAvailable();
  case PRECRT_BACKEND_NCCL:
    return ncclBackendAvailable();
  default:
    return fail(PRECRT_ERROR_INVALID_ARGUMENT,
                "precrtBackendAvailable: unknown backend %d", int(backend));
  }
}

precrt_status_t precrtRun(const precrt_init_options *options, precrt_rank_fn fn,
                          void *user_data) {
  if (!fn)
    return fail(PRECRT_ERROR_INVALID_ARGUMENT, "precrtRun: null rank function");
  precrt_backend_t backend = PRECRT_BACKEND_DEFAULT;
  int64_t timeoutMs = 0;
  precrt_status_t status = resolveOptions(options, &backend, &timeoutMs);
  if (status != PRECRT_SUCCESS)
    return status;
  auto body = [&](Communicator *world) { return fn(wrap(world), user_data); };

  bool threaded = backend == PRECRT_BACKEND_LOCAL ||
                  (backend == PRECRT_BACKEND_NCCL && options &&
                   options->nccl_bootstrap == PRECRT_NCCL_BOOTSTRAP_THREADS);
  if (threaded) {
    int numRanks = 1;
    if ((status = resolveLocalRanks(options, &numRanks)) != PRECRT_SUCCESS)
      return status;
    return backend == PRECRT_BACKEND_LOCAL
               ? runLocalRanks(numRanks, timeoutMs, body)
               : runNcclRanks(numRanks, timeoutMs, body);
  }

  precrt_init_options resolved = options ? *options : precrt_init_options{};
  resolved.backend = backend;
  resolved.timeout_ms = timeoutMs;
  precrt_comm_t world = nullptr;
  if ((status = precrtInit(&resolved, &world)) != PRECRT_SUCCESS)
    return status;
  int result = body(unwrap(world));
  std::string message = result ? lastErrorMessage() : "";
  precrt_status_t finalized = precrtFinalize();
  if (result != 0) {
    precrt_status_t rankStatus = result > 0 && result <= PRECRT_ERROR_INTERNAL
                                     ? precrt_status_t(result)
                                     : PRECRT_ERROR_INTERNAL;
    return fail(rankStatus, "rank function failed with %d: %s", result,
                message.c_str());
  }
  return finalized;
}

precrt_status_t precrtLocalRun(int32_t num_ranks, precrt_rank_fn fn,
                               void *user_data) {
  precrt_init_options options{};
  options.backend = PRECRT_BACKEND_LOCAL;
  if (num_ranks <= 0)
    return fail(PRECRT_ERROR_INVALID_ARGUMENT,
                "precrtLocalRun: need at least one rank, got %d", num_ranks);
  options.num_local_ranks = num_ranks;
  return precrtRun(&options, fn, user_data);
}

precrt_status_t precrtInit(const precrt_init_options *options,
                           precrt_comm_t *world) {
  if (!world)
    return fail(PRECRT_ERROR_INVALID_ARGUMENT, "precrtInit: null world");
  precrt_backend_t backend = PRECRT_BACKEND_DEFAULT;
  int64_t timeoutMs = 0;
  precrt_status_t status = resolveOptions(options, &backend, &timeoutMs);
  if (status != PRECRT_SUCCESS)
    return status;
  ProcessState &state = processState();
  std::lock_guard<std::mutex> lock(state.mutex);
  if (state.world)
    return fail(PRECRT_ERROR_INVALID_ARGUMENT,
                "precrtInit: already initialized; call precrtFinalize first");
  switch (backend) {
  case PRECRT_BACKEND_MPI:
    status = createMpiWorld(timeoutMs, &state.world);
    break;
  case PRECRT_BACKEND_NCCL:
    if (options && options->nccl_bootstrap == PRECRT_NCCL_BOOTSTRAP_THREADS)
      return fail(PRECRT_ERROR_INVALID_ARGUMENT,
                  "precrtInit: NCCL's thread bootstrap runs ranks as threads; "
                  "use precrtRun");
    status = createNcclWorldOverMpi(timeoutMs, &state.world);
    break;
  default:
    return fail(PRECRT_ERROR_INVALID_ARGUMENT,
                "precrtInit: the local backend runs ranks as threads; use "
                "precrtRun or precrtLocalRun");
  }
  if (status != PRECRT_SUCCESS)
    return status;
  state.backend = backend;
  setProcessWorld(state.world.get());
  *world = wrap(state.world.get());
  return PRECRT_SUCCESS;
}

precrt_status_t precrtFinalize(void) {
  ProcessState &state = processState();
  std::lock_guard<std::mutex> lock(state.mutex);
  if (!state.world)
    return fail(PRECRT_ERROR_INVALID_ARGUMENT,
                "precrtFinalize: precrtInit was not called");
  communication_thread::endWorld(state.world.get());
  setProcessWorld(nullptr);
  state.world.reset();
  return finalizeMpi();
}

precrt_comm_t precrtGetWorld(void) { return wrap(currentWorld()); }

precrt_status_t precrtCommRank(precrt_comm_t comm, int32_t *rank) {
  PRECRT_REQUIRE_COMM(comm, "precrtCommRank");
  if (!rank)
    return fail(PRECRT_ERROR_INVALID_ARGUMENT, "precrtCommRank: null result");
  *rank = unwrap(comm)->rank();
  return PRECRT_SUCCESS;
}

precrt_status_t precrtCommSize(precrt_comm_t comm, int32_t *size) {
  PRECRT_REQUIRE_COMM(comm, "precrtCommSize");
  if (!size)
    return fail(PRECRT_ERROR_INVALID_ARGUMENT, "precrtCommSize: null result");
  *size = unwrap(comm)->size();
  return PRECRT_SUCCESS;
}

precrt_status_t precrtCommBackend(precrt_comm_t comm,
                                  precrt_backend_t *backend) {
  PRECRT_REQUIRE_COMM(comm, "precrtCommBackend");
  if (!backend)
    return fail(PRECRT_ERROR_INVALID_ARGUMENT,
                "precrtCommBackend: null result");
  *backend = unwrap(comm)->backend();
  return PRECRT_SUCCESS;
}

precrt_status_t precrtCommSetTimeoutMs(precrt_comm_t comm, int64_t timeout_ms) {
  PRECRT_REQUIRE_COMM(comm, "precrtCommSetTimeoutMs");
  if (timeout_ms <= 0)
    return fail(PRECRT_ERROR_INVALID_ARGUMENT,
                "timeout must be a positive number of milliseconds, got %lld",
                static_cast<long long>(timeout_ms));
  unwrap(comm)->setTimeoutMs(timeout_ms);
  return PRECRT_SUCCESS;
}

precrt_status_t precrtCommGetTraffic(precrt_comm_t comm,
                                     precrt_traffic_t *traffic) {
  PRECRT_REQUIRE_COMM(comm, "precrtCommGetTraffic");
  if (!traffic)
    return fail(PRECRT_ERROR_INVALID_ARGUMENT,
                "precrtCommGetTraffic: null result");
  *traffic = unwrap(comm)->traffic();
  return PRECRT_SUCCESS;
}

precrt_status_t precrtCommSetStream(precrt_comm_t comm, void *stream) {
  PRECRT_REQUIRE_COMM(comm, "precrtCommSetStream");
  return unwrap(comm)->setStream(stream);
}

precrt_status_t precrtCommGetStream(precrt_comm_t comm, void **stream) {
  PRECRT_REQUIRE_COMM(comm, "precrtCommGetStream");
  if (!stream)
    return fail(PRECRT_ERROR_INVALID_ARGUMENT,
                "precrtCommGetStream: null result");
  *stream = unwrap(comm)->stream();
  return PRECRT_SUCCESS;
}

precrt_status_t precrtCommHost(precrt_comm_t comm, precrt_comm_t *host) {
  PRECRT_REQUIRE_COMM(comm, "precrtCommHost");
  if (!host)
    return fail(PRECRT_ERROR_INVALID_ARGUMENT, "precrtCommHost: null result");
  *host = wrap(unwrap(comm)->hostCommunicator());
  return PRECRT_SUCCESS;
}

const char *precrtBackendName(precrt_backend_t backend) {
  switch (backend) {
  case PRECRT_BACKEND_LOCAL:
    return "local";
  case PRECRT_BACKEND_MPI:
    return "mpi";
  case PRECRT_BACKEND_NCCL:
    return "nccl";
  default:
    return nullptr;
  }
}

precrt_status_t precrtCommForGridAxes(precrt_comm_t parent, int32_t num_dims,
                                      const int64_t *shape, int32_t num_axes,
                                      const int32_t *axes,
                                      precrt_comm_t *group) {
  PRECRT_REQUIRE_COMM(parent, "precrtCommForGridAxes");
  if (!group)
    return fail(PRECRT_ERROR_INVALID_ARGUMENT,
                "precrtCommForGridAxes: null result");
  // Malformed arguments still take part in the split, as an empty grid that
  // the other ranks see flagged, so that they fail at once.
  bool malformed =
      num_dims <= 0 || !shape || num_axes < 0 || (num_axes > 0 && !axes);
  std::vector<int64_t> shapeVector;
  std::vector<int32_t> axesVector;
  if (!malformed) {
    shapeVector.assign(shape, shape + num_dims);
    axesVector.assign(axes, axes + num_axes);
  }
  Communicator *result = nullptr;
  precrt_status_t status =
      unwrap(parent)->forGridAxes(shapeVector, axesVector, &result);
  if (malformed)
    return fail(PRECRT_ERROR_INVALID_ARGUMENT,
                "precrtCommForGridAxes: need a shape of at least one "
                "dimension and %d axes",
                num_axes);
  if (status == PRECRT_SUCCESS)
    *group = wrap(result);
  return status;
}

/// Rejects send and recv buffers that share bytes unless the call is in
/// its documented in-place form: the kernels would read what they already
/// overwrote.
static precrt_status_t checkOverlap(const char *name, const void *send,
                                    size_t sendBytes, const void *recv,
                                    size_t recvBytes, bool inPlace,
                                    const char *inPlaceForm) {
  auto sendBegin = reinterpret_cast<uintptr_t>(send);
  auto recvBegin = reinterpret_cast<uintptr_t>(recv);
  bool overlap = sendBytes && recvBytes && sendBegin < recvBegin + recvBytes &&
                 recvBegin < sendBegin + sendBytes;
  if (!overlap || inPlace)
    return PRECRT_SUCCESS;
  return fail(PRECRT_ERROR_INVALID_ARGUMENT,
              "%s: send and recv buffers overlap, but not in place (%s)", name,
              inPlaceForm);
}

precrt_status_t precrtAllGather(precrt_comm_t comm, const void *send,
                                void *recv, size_t count,
                                precrt_dtype_t dtype) {
  PRECRT_REQUIRE_COMM(comm, "precrtAllGather");
  Communicator *c = unwrap(comm);
  precrt_status_t local =
      validateBuffers("precrtAllGather", send, recv, count, dtype, c->size());
  if (local == PRECRT_SUCCESS) {
    size_t bytes = byteSize(dtype, count);
    local =
        checkOverlap("precrtAllGather", send, bytes, recv, bytes * c->size(),
                     send == static_cast<char *>(recv) + c->rank() * bytes,
                     "send == recv + rank * count");
  }
  CollectiveCall call =
      makeCall(CollectiveOp::AllGather, send, recv, count, dtype);
  return runChecked(c, call, local);
}

precrt_status_t precrtReduceScatter(precrt_comm_t comm, const void *send,
                                    void *recv, size_t recv_count,
                                    precrt_dtype_t dtype,
                                    precrt_reduction_t reduction) {
  PRECRT_REQUIRE_COMM(comm, "precrtReduceScatter");
  Communicator *c = unwrap(comm);
  precrt_status_t local = validateBuffers("precrtReduceScatter", send, recv,
                                          recv_count, dtype, c->size());
  if (local == PRECRT_SUCCESS)
    local = validateReduction("precrtReduceScatter", dtype, reduction);
  if (local == PRECRT_SUCCESS) {
    size_t bytes = byteSize(dtype, recv_count);
    local = checkOverlap(
        "precrtReduceScatter", send, bytes * c->size(), recv, bytes,
        recv == static_cast<const char *>(send) + c->rank() * bytes,
        "recv == send + rank * recv_count");
  }
  CollectiveCall call = makeCall(CollectiveOp::ReduceScatter, send, recv,
                                 recv_count, dtype, reduction);
  return runChecked(c, call, local);
}

precrt_status_t precrtAllReduce(precrt_comm_t comm, const void *send,
                                void *recv, size_t count, precrt_dtype_t dtype,
                                precrt_reduction_t reduction) {
  PRECRT_REQUIRE_COMM(comm, "precrtAllReduce");
  Communicator *c = unwrap(comm);
  precrt_status_t local =
      validateBuffers("precrtAllReduce", send, recv, count, dtype, 1);
  if (local == PRECRT_SUCCESS)
    local = validateReduction("precrtAllReduce", dtype, reduction);
  if (local == PRECRT_SUCCESS) {
    size_t bytes = byteSize(dtype, count);
    local = checkOverlap("precrtAllReduce", send, bytes, recv, bytes,
                         send == recv, "send == recv");
  }
  CollectiveCall call =
      makeCall(CollectiveOp::AllReduce, send, recv, count, dtype, reduction);
  return runChecked(c, call, local);
}

precrt_status_t precrtAllToAll(precrt_comm_t comm, const void *send, void *recv,
                               size_t count, precrt_dtype_t dtype) {
  PRECRT_REQUIRE_COMM(comm, "precrtAllToAll");
  Communicator *c = unwrap(comm);
  precrt_status_t local =
      validateBuffers("precrtAllToAll", send, recv, count, dtype, c->size());
  if (local == PRECRT_SUCCESS && count) {
    size_t bytes = byteSize(dtype, count) * c->size();
    auto sendBegin = reinterpret_cast<uintptr_t>(send);
    auto recvBegin = reinterpret_cast<uintptr_t>(recv);
    if (sendBegin < recvBegin + bytes && recvBegin < sendBegin + bytes)
      local = fail(PRECRT_ERROR_INVALID_ARGUMENT,
                   "precrtAllToAll: send and recv buffers overlap");
  }
  CollectiveCall call =
      makeCall(CollectiveOp::AllToAll, send, recv, count, dtype);
  return runChecked(c, call, local);
}

precrt_status_t precrtBroadcast(precrt_comm_t comm, const void *send,
                                void *recv, size_t count, precrt_dtype_t dtype,
                                int32_t root) {
  PRECRT_REQUIRE_COMM(comm, "precrtBroadcast");
  Communicator *c = unwrap(comm);
  precrt_status_t local = PRECRT_SUCCESS;
  if (root < 0 || root >= c->size())
    local = fail(PRECRT_ERROR_INVALID_ARGUMENT,
                 "precrtBroadcast: root %d out of range for %d ranks", root,
                 c->size());
  else
    local = validateBuffers("precrtBroadcast", send, recv, count, dtype, 1,
                            /*needSend=*/c->rank() == root);
  if (local == PRECRT_SUCCESS && c->rank() == root) {
    size_t bytes = byteSize(dtype, count);
    local = checkOverlap("precrtBroadcast", send, bytes, recv, bytes,
                         send == recv, "send == recv");
  }
  CollectiveCall call = makeCall(CollectiveOp::Broadcast, send, recv, count,
                                 dtype, PRECRT_REDUCTION_SUM, root);
  return runChecked(c, call, local);
}

precrt_status_t precrtBarrier(precrt_comm_t comm) {
  PRECRT_REQUIRE_COMM(comm, "precrtBarrier");
  CollectiveCall call =
      makeCall(CollectiveOp::Barrier, nullptr, nullptr, 0, PRECRT_DTYPE_BYTES);
  return unwrap(comm)->collective(call);
}

precrt_status_t precrtSendRecv(precrt_comm_t comm, const void *send,
                               size_t send_count, int32_t send_peer, void *recv,
                               size_t recv_count, int32_t recv_peer,
                               precrt_dtype_t dtype) {
  PRECRT_REQUIRE_COMM(comm, "precrtSendRecv");
  Communicator *c = unwrap(comm);
  if (send_peer < -1 || send_peer >= c->size() || recv_peer < -1 ||
      recv_peer >= c->size())
    return fail(PRECRT_ERROR_INVALID_ARGUMENT,
                "precrtSendRecv: peer out of range for %d ranks (send peer "
                "%d, recv peer %d)",
                c->size(), send_peer, recv_peer);
  if (send_peer < 0 && recv_peer < 0)
    return fail(PRECRT_ERROR_INVALID_ARGUMENT,
                "precrtSendRecv: neither a send nor a receive peer");
  // With valid peers, bad buffers or dtypes are reported to the peers too
  // (flagged headers), so they fail at once instead of at the timeout.
  precrt_status_t local = PRECRT_SUCCESS;
  if (!validDtype(dtype))
    local = fail(PRECRT_ERROR_INVALID_ARGUMENT,
                 "precrtSendRecv: unknown dtype %d", int(dtype));
  else if (size_t most =
               std::numeric_limits<size_t>::max() / precrtDtypeSize(dtype);
           send_count > most || recv_count > most)
    local = fail(PRECRT_ERROR_INVALID_ARGUMENT,
                 "precrtSendRecv: %s count %zu overflows",
                 send_count > most ? "send" : "recv",
                 send_count > most ? send_count : recv_count);
  else if ((send_peer >= 0 && send_count && !send) ||
           (recv_peer >= 0 && recv_count && !recv))
    local =
        fail(PRECRT_ERROR_INVALID_ARGUMENT, "precrtSendRecv: null %s buffer",
             (send_peer >= 0 && send_count && !send) ? "send" : "recv");
  else if (send_peer >= 0 && recv_peer >= 0)
    local = checkOverlap("precrtSendRecv", send, byteSize(dtype, send_count),
                         recv, byteSize(dtype, recv_count), /*inPlace=*/false,
                         "none: use separate buffers");
  PointToPointCall call;
  call.dtype = dtype;
  call.send = send;
  call.sendCount = send_count;
  call.sendPeer = send_peer;
  call.recv = recv;
  call.recvCount = recv_count;
  call.recvPeer = recv_peer;
  if (local == PRECRT_SUCCESS)
    return c->pointToPoint(call);
  std::string message = lastErrorMessage();
  call.locallyInvalid = true;
  call.send = nullptr;
  call.recv = nullptr;
  c->pointToPoint(call);
  return fail(local, "%s", message.c_str());
}

precrt_status_t precrtSend(precrt_comm_t comm, const void *send, size_t count,
                           precrt_dtype_t dtype, int32_t peer) {
  if (comm && peer < 0)
    return fail(PRECRT_ERROR_INVALID_ARGUMENT, "precrtSend: peer %d", peer);
  return precrtSendRecv(comm, send, count, peer, nullptr, 0, -1, dtype);
}

precrt_status_t precrtRecv(precrt_comm_t comm, void *recv, size_t count,
                           precrt_dtype_t dtype, int32_t peer) {
  if (comm && peer < 0)
    return fail(PRECRT_ERROR_INVALID_ARGUMENT, "precrtRecv: peer %d", peer);
  return precrtSendRecv(comm, nullptr, 0, -1, recv, count, peer, dtype);
}

} // extern "C"
