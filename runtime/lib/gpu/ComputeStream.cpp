//===- ComputeStream.cpp - Streams and events of compiled GPU code --------===//

#include "gpu/ComputeStream.h"

#include "core/CommunicationThread.h"
#include "core/Error.h"
#include "gpu/GpuContext.h"

#include <map>
#include <vector>

namespace precrt {
namespace cuda {
namespace {

/// Which way an event orders a collective against the compute stream.
enum EventSlot { BeforeCollective = 0, AfterCollective = 1, NumEventSlots };

struct DeviceResources {
  CUstream computeStream = nullptr;
  CUevent events[NumEventSlots] = {};
  /// The events of started transports, each pair in use from a start to its
  /// wait: all created, and those free.
  std::vector<CUevent> startedEvents, freeStartedEvents;
};

/// The streams and events of one thread, by device. A rank of a thread world
/// is a thread, so this is also per rank; a process rank's main thread
/// releases them at exit, before the driver unloads.
class ThreadResources {
public:
  ThreadResources() = default;
  ThreadResources(const ThreadResources &) = delete;
  ThreadResources &operator=(const ThreadResources &) = delete;

  ~ThreadResources() {
    // The communication thread's queued work uses these events.
    communication_thread::endCallingThread();
    int device = currentDevice();
    for (auto &[ordinal, resources] : devices_) {
      setCurrentDevice(ordinal);
      ScopedContext scope;
      if (scope.enter() != PRECRT_SUCCESS)
        continue;
      // Pending work still completes: the driver releases a destroyed
      // stream's resources once its work is done.
      for (CUevent event : resources.events)
        if (event)
          scope.api().cuEventDestroy(event);
      for (CUevent event : resources.startedEvents)
        scope.api().cuEventDestroy(event);
      if (resources.computeStream)
        scope.api().cuStreamDestroy(resources.computeStream);
    }
    setCurrentDevice(device);
  }

  DeviceResources &forCurrentDevice() { return devices_[currentDevice()]; }

private:
  std::map<int, DeviceResources> devices_;
};

thread_local ThreadResources threadResources;

precrt_status_t threadEvent(ScopedContext &scope, EventSlot slot,
                            CUevent *event) {
  CUevent &cached = threadResources.forCurrentDevice().events[slot];
  if (!cached) {
    if (CUresult result =
            scope.api().cuEventCreate(&cached, CU_EVENT_DISABLE_TIMING))
      return driverFailure(scope.api(), result, "cuEventCreate");
  }
  *event = cached;
  return PRECRT_SUCCESS;
}

/// Work enqueued on `waiting` from now on starts after the work enqueued on
/// `producer` so far. Reusing one event per slot is safe: a wait captures
/// the event's most recent record when it is enqueued.
precrt_status_t orderAfter(ScopedContext &scope, CUstream waiting,
                           CUstream producer, EventSlot slot) {
  CUevent event = nullptr;
  if (precrt_status_t status = threadEvent(scope, slot, &event))
    return status;
  if (CUresult result = scope.api().cuEventRecord(event, producer))
    return driverFailure(scope.api(), result, "cuEventRecord");
  if (CUresult result = scope.api().cuStreamWaitEvent(waiting, event, 0))
    return driverFailure(scope.api(), result, "cuStreamWaitEvent");
  return PRECRT_SUCCESS;
}

/// An event of the calling thread's pool for started transports.
precrt_status_t takeStartedEvent(ScopedContext &scope, CUevent *event) {
  DeviceResources &resources = threadResources.forCurrentDevice();
  if (resources.freeStartedEvents.empty()) {
    CUevent created = nullptr;
    if (CUresult result =
            scope.api().cuEventCreate(&created, CU_EVENT_DISABLE_TIMING))
      return driverFailure(scope.api(), result, "cuEventCreate");
    resources.startedEvents.push_back(created);
    resources.freeStartedEvents.push_back(created);
  }
  *event = resources.freeStartedEvents.back();
  resources.freeStartedEvents.pop_back();
  return PRECRT_SUCCESS;
}

/// The stream of `group`'s NCCL communicator, which GPU code's collectives
/// run on; an error naming the backend when the group is not NCCL's.
precrt_status_t getGroupStream(precrt_comm_t group, CUstream *stream) {
  precrt_backend_t backend = PRECRT_BACKEND_DEFAULT;
  if (precrt_status_t status = precrtCommBackend(group, &backend))
    return status;
  if (backend != PRECRT_BACKEND_NCCL) {
    const char *name = precrtBackendName(backend);
    return fail(PRECRT_ERROR_INVALID_ARGUMENT,
                "GPU code needs the nccl backend, the world runs on %s",
                name ? name : "an unknown backend");
  }
  void *groupStream = nullptr;
  if (precrt_status_t status = precrtCommGetStream(group, &groupStream))
    return status;
  *stream = static_cast<CUstream>(groupStream);
  return PRECRT_SUCCESS;
}

} // namespace

precrt_status_t recordStart(void *computeStream, StartedEvents *events) {
  *events = StartedEvents{};
  events->device = currentDevice();
  ScopedContext scope;
  if (precrt_status_t status = scope.enter())
    return status;
  CUevent before = nullptr, after = nullptr;
  if (precrt_status_t status = takeStartedEvent(scope, &before))
    return status;
  events->before = before;
  if (precrt_status_t status = takeStartedEvent(scope, &after))
    return status;
  events->after = after;
  if (CUresult result = scope.api().cuEventRecord(
          before, static_cast<CUstream>(computeStream)))
    return driverFailure(scope.api(), result, "cuEventRecord");
  return PRECRT_SUCCESS;
}

precrt_status_t
runStarted(precrt_comm_t group, const StartedEvents &events,
           const std::function<precrt_status_t()> &moveData) {
  CUstream collective = nullptr;
  if (precrt_status_t status = getGroupStream(group, &collective))
    return status;
  {
    ScopedContext scope;
    if (precrt_status_t status = scope.enter())
      return status;
    if (CUresult result = scope.api().cuStreamWaitEvent(
            collective, static_cast<CUevent>(events.before), 0))
      return driverFailure(scope.api(), result, "cuStreamWaitEvent");
  }
  if (precrt_status_t status = moveData())
    return status;
  ScopedContext scope;
  if (precrt_status_t status = scope.enter())
    return status;
  if (CUresult result = scope.api().cuEventRecord(
          static_cast<CUevent>(events.after), collective))
    return driverFailure(scope.api(), result, "cuEventRecord");
  // The collective is done (moveData waited for the group's stream), so the
  // event completes at once; waiting for it here means the compute stream
  // later waits only for a completed event, and never for work still on
  // the group's stream, which this thread may be running.
  if (CUresult result =
          scope.api().cuEventSynchronize(static_cast<CUevent>(events.after)))
    return driverFailure(scope.api(), result, "cuEventSynchronize");
  return PRECRT_SUCCESS;
}

precrt_status_t finishStarted(void *computeStream, StartedEvents &events,
                              bool completed) {
  if (!events.before && !events.after)
    return PRECRT_SUCCESS;
  int device = currentDevice();
  setCurrentDevice(events.device);
  precrt_status_t status = PRECRT_SUCCESS;
  {
    ScopedContext scope;
    status = scope.enter();
    if (status == PRECRT_SUCCESS && completed) {
      if (CUresult result = scope.api().cuStreamWaitEvent(
              static_cast<CUstream>(computeStream),
              static_cast<CUevent>(events.after), 0))
        status = driverFailure(scope.api(), result, "cuStreamWaitEvent");
    }
  }
  // A wait captured the event's record: both can be recorded again.
  DeviceResources &resources = threadResources.forCurrentDevice();
  for (void *event : {events.before, events.after})
    if (event)
      resources.freeStartedEvents.push_back(static_cast<CUevent>(event));
  events = StartedEvents{};
  setCurrentDevice(device);
  return status;
}

precrt_status_t threadComputeStream(void **stream) {
  *stream = nullptr;
  CUstream &cached = threadResources.forCurrentDevice().computeStream;
  if (!cached) {
    ScopedContext scope;
    if (precrt_status_t status = scope.enter())
      return status;
    if (CUresult result =
            scope.api().cuStreamCreate(&cached, CU_STREAM_NON_BLOCKING))
      return driverFailure(scope.api(), result, "cuStreamCreate");
  }
  *stream = cached;
  return PRECRT_SUCCESS;
}

precrt_status_t
runBetweenStreams(precrt_comm_t group, void *computeStream,
                  const std::function<precrt_status_t()> &moveData) {
  CUstream collective = nullptr;
  if (precrt_status_t status = getGroupStream(group, &collective))
    return status;
  auto compute = static_cast<CUstream>(computeStream);
  {
    ScopedContext scope;
    if (precrt_status_t status = scope.enter())
      return status;
    if (precrt_status_t status =
            orderAfter(scope, collective, compute, BeforeCollective))
      return status;
  }
  if (precrt_status_t status = moveData())
    return status;
  ScopedContext scope;
  if (precrt_status_t status = scope.enter())
    return status;
  return orderAfter(scope, compute, collective, AfterCollective);
}

} // namespace cuda
} // namespace precrt
