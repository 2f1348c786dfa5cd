//===- Compiled.cpp - entry points of generated code ----------------------===//

#include "precrt/compiled.h"

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

} // namespace

extern "C" int32_t precrtCompiledCollective(
    int32_t transport, const void *send, void *recv, int64_t send_count,
    int32_t dtype, int32_t reduction, int32_t num_dims, const int64_t *shape,
    int32_t num_axes, const int32_t *axes) {
  if (firstError.status != PRECRT_SUCCESS)
    return firstError.status;
  precrt_comm_t world = precrtGetWorld();
  if (!world)
    return fail(PRECRT_ERROR_INVALID_ARGUMENT,
                "a compiled collective ran outside precrtRun/precrtInit: no "
                "world communicator on this thread");
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

extern "C" const char *precrtCompiledGetError(void) {
  return firstError.status == PRECRT_SUCCESS ? nullptr
                                             : firstError.message.c_str();
}

extern "C" void precrtCompiledClearError(void) { firstError = CompiledError(); }
