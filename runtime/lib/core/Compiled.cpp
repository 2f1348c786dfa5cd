//===- Compiled.cpp - entry points of generated code ----------------------===//
//
// Generated code run by a driver (prec-run, precrtRun, precrtInit) finds its
// rank's world with precrtGetWorld(). Run without one, as by mlir-runner, it
// gets an implicit world from the environment: with PRECRT_BACKEND=mpi (or
// nccl) the process joins that backend's world at its first collective and
// leaves it at exit; otherwise every collective runs on a local world of one
// rank. No driver reports failures then: a failed collective prints its error
// and ends the process with exit status 1.
//
//===----------------------------------------------------------------------===//

#include "precrt/compiled.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

namespace {

struct CompiledError {
  precrt_status_t status = PRECRT_SUCCESS;
  std::string message;
};

thread_local CompiledError firstError;

int32_t fail(precrt_status_t status, std::string message) {
  firstError.status = status;
  firstError.message = std::move(message);
  return status;
}

/// The arguments of one compiled collective.
struct Transport {
  int32_t transport;
  const void *send;
  void *recv;
  int64_t send_count;
  int32_t dtype, reduction, num_dims;
  const int64_t *shape;
  int32_t num_axes;
  const int32_t *axes;
};

int32_t runTransport(precrt_comm_t world, const Transport &call) {
  auto [transport, send, recv, send_count, dtype, reduction, num_dims, shape,
        num_axes, axes] = call;
  if (send_count < 0 || num_dims < 0 || num_axes < 0)
    return fail(PRECRT_ERROR_INVALID_ARGUMENT,
                "a compiled collective got a negative count or rank");

  std::vector<int32_t> groupAxes(axes, axes + num_axes);
  if (groupAxes.empty())
    for (int32_t axis = 0; axis < num_dims; ++axis)
      groupAxes.push_back(axis);
  precrt_comm_t group = nullptr;
  precrt_status_t status =
      precrtCommForGridAxes(world, num_dims, shape,
                            static_cast<int32_t>(groupAxes.size()),
                            groupAxes.data(), &group);
  int32_t groupSize = 1;
  if (status == PRECRT_SUCCESS)
    status = precrtCommSize(group, &groupSize);
  if (status != PRECRT_SUCCESS)
    return fail(status, precrtGetLastErrorMessage());

  auto count = static_cast<size_t>(send_count);
  auto type = static_cast<precrt_dtype_t>(dtype);
  auto op = static_cast<precrt_reduction_t>(reduction);
  switch (transport) {
  case PRECRT_TRANSPORT_ALL_GATHER:
    status = precrtAllGather(group, send, recv, count, type);
    break;
  case PRECRT_TRANSPORT_ALL_TO_ALL:
    status = precrtAllToAll(group, send, recv, count / groupSize, type);
    break;
  case PRECRT_TRANSPORT_REDUCE_SCATTER:
    status = precrtReduceScatter(group, send, recv, count / groupSize, type, op);
    break;
  case PRECRT_TRANSPORT_ALL_REDUCE:
    status = precrtAllReduce(group, send, recv, count, type, op);
    break;
  default:
    return fail(PRECRT_ERROR_INVALID_ARGUMENT,
                "unknown transport " + std::to_string(transport));
  }
  if (status != PRECRT_SUCCESS)
    return fail(status, precrtGetLastErrorMessage());
  return PRECRT_SUCCESS;
}

/// Whether PRECRT_BACKEND names a process-per-rank backend (mpi, nccl);
/// unset, empty or local means ranks as threads.
bool environmentSelectsProcessWorld() {
  const char *backend = std::getenv("PRECRT_BACKEND");
  return backend && *backend && std::strcmp(backend, "local") != 0;
}

/// Set once this file has joined the environment's process world.
std::atomic<bool> joinedImplicitly{false};

/// Joins the environment's process world once; it is left at exit.
precrt_status_t joinProcessWorld(std::string &message) {
  static std::once_flag once;
  static precrt_status_t status = PRECRT_SUCCESS;
  static std::string initMessage;
  std::call_once(once, [] {
    precrt_init_options options{};
    options.backend = PRECRT_BACKEND_DEFAULT;
    precrt_comm_t world = nullptr;
    status = precrtInit(&options, &world);
    if (status != PRECRT_SUCCESS) {
      initMessage = precrtGetLastErrorMessage();
      return;
    }
    joinedImplicitly = true;
    std::atexit([] { precrtFinalize(); });
  });
  message = initMessage;
  return status;
}

/// Runs `call` on the implicit world of generated code run without a driver.
int32_t runOnImplicitWorld(const Transport &call) {
  int32_t status;
  if (environmentSelectsProcessWorld()) {
    std::string message;
    status = joinProcessWorld(message);
    status = status == PRECRT_SUCCESS
                 ? runTransport(precrtGetWorld(), call)
                 : fail(static_cast<precrt_status_t>(status),
                        "cannot join the world of PRECRT_BACKEND: " + message);
  } else {
    // A local world of one rank, on this thread, for this call only.
    status = precrtLocalRun(
        1,
        [](precrt_comm_t world, void *data) {
          return static_cast<int>(
              runTransport(world, *static_cast<const Transport *>(data)));
        },
        const_cast<Transport *>(&call));
    if (status != PRECRT_SUCCESS && firstError.status == PRECRT_SUCCESS)
      fail(static_cast<precrt_status_t>(status), precrtGetLastErrorMessage());
  }
  // Nobody checks precrtCompiledGetError() here, and the program would go
  // on with garbage: end the process (under mpirun, the job) without
  // finalizing a world whose peers may wait for this rank.
  if (status != PRECRT_SUCCESS) {
    std::fprintf(stderr, "precrt: compiled collective failed: %s\n",
                 firstError.message.c_str());
    std::fflush(nullptr);
    std::_Exit(1);
  }
  return status;
}

} // namespace

extern "C" int32_t precrtCompiledCollective(
    int32_t transport, const void *send, void *recv, int64_t send_count,
    int32_t dtype, int32_t reduction, int32_t num_dims, const int64_t *shape,
    int32_t num_axes, const int32_t *axes) {
  if (firstError.status != PRECRT_SUCCESS)
    return firstError.status;
  Transport call{transport, send,     recv,  send_count, dtype,
                 reduction, num_dims, shape, num_axes,   axes};
  precrt_comm_t world = precrtGetWorld();
  if (world && !joinedImplicitly)
    return runTransport(world, call);
  return runOnImplicitWorld(call);
}

extern "C" const char *precrtCompiledGetError(void) {
  return firstError.status == PRECRT_SUCCESS ? nullptr
                                             : firstError.message.c_str();
}

extern "C" void precrtCompiledClearError(void) { firstError = CompiledError(); }
