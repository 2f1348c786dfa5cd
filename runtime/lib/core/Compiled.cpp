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
#include "precrt/gpu.h"

#include "core/CommunicationThread.h"
#include "core/Communicator.h"
#include "core/Error.h"
#include "core/PeerWindows.h"
#include "core/Profile.h"
#include "gpu/ComputeStream.h"
#include "gpu/GpuContext.h"
#include "gpu/GpuMatmul.h"
#include "kernels/Matmul.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace {

struct CompiledError {
  precrt_status_t status = PRECRT_SUCCESS;
  std::string message;
};

thread_local CompiledError firstError;

/// The compiled collectives of this thread (rank) since the last reset.
struct TrafficLog {
  std::vector<precrt_compiled_traffic_t> records;
  int64_t completed = 0;
};
thread_local TrafficLog trafficLog;

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
  /// The compute stream of GPU code, whose work produces `send` and
  /// consumes `recv`; nullptr for host buffers.
  void *stream = nullptr;
  /// The events of a transport started on `stream`; nullptr when it runs
  /// synchronously.
  const precrt::cuda::StartedEvents *started = nullptr;
};

/// What running a transport produced: its failure, or its traffic record.
/// Made on whichever thread ran it; the rank's own thread records it.
struct Completion {
  precrt_status_t status = PRECRT_SUCCESS;
  std::string message;
  precrt_compiled_traffic_t record = {};
};

Completion failed(precrt_status_t status, std::string message) {
  Completion completion;
  completion.status = status;
  completion.message = std::move(message);
  return completion;
}

/// Moves the data of `call` over `group`; the thread's error says why not.
precrt_status_t moveData(precrt_comm_t group, int32_t groupSize,
                         const Transport &call) {
  auto count = static_cast<size_t>(call.send_count);
  auto type = static_cast<precrt_dtype_t>(call.dtype);
  auto op = static_cast<precrt_reduction_t>(call.reduction);
  switch (call.transport) {
  case PRECRT_TRANSPORT_ALL_GATHER:
    return precrtAllGather(group, call.send, call.recv, count, type);
  case PRECRT_TRANSPORT_ALL_TO_ALL:
    return precrtAllToAll(group, call.send, call.recv, count / groupSize, type);
  case PRECRT_TRANSPORT_REDUCE_SCATTER:
    return precrtReduceScatter(group, call.send, call.recv, count / groupSize,
                               type, op);
  default:
    return precrtAllReduce(group, call.send, call.recv, count, type, op);
  }
}

/// The calling rank's group for `axes` of a grid over `world` (num_axes == 0:
/// all axes), its size and, if asked, the rank's index in it.
precrt_status_t findGroup(precrt_comm_t world, int32_t num_dims,
                          const int64_t *shape, int32_t num_axes,
                          const int32_t *axes, precrt_comm_t *group,
                          int32_t *groupSize, int32_t *rank = nullptr) {
  std::vector<int32_t> groupAxes(axes, axes + num_axes);
  if (groupAxes.empty())
    for (int32_t axis = 0; axis < num_dims; ++axis)
      groupAxes.push_back(axis);
  precrt_status_t status = precrtCommForGridAxes(
      world, num_dims, shape, static_cast<int32_t>(groupAxes.size()),
      groupAxes.data(), group);
  if (status == PRECRT_SUCCESS)
    status = precrtCommSize(*group, groupSize);
  if (status == PRECRT_SUCCESS && rank)
    status = precrtCommRank(*group, rank);
  return status;
}

/// The record of one completed compiled collective.
/// `moved` is what the group's counters moved during the call.
precrt_compiled_traffic_t makeRecord(precrt_comm_t group, int32_t transport,
                                     int32_t dtype, int64_t sendCount,
                                     int32_t groupSize,
                                     const precrt_traffic_t &moved) {
  precrt_backend_t backend = PRECRT_BACKEND_LOCAL;
  if (group)
    precrtCommBackend(group, &backend);
  return {transport,
          dtype,
          sendCount,
          groupSize,
          backend,
          moved.bytes_sent,
          moved.bytes_received,
          moved.bytes_sent_across_hosts,
          moved.bytes_received_across_hosts};
}

/// What the counters `before` and `after` of one communicator moved between.
precrt_traffic_t getMoved(const precrt_traffic_t &before,
                          const precrt_traffic_t &after) {
  precrt_traffic_t moved = {};
  moved.bytes_sent = after.bytes_sent - before.bytes_sent;
  moved.bytes_received = after.bytes_received - before.bytes_received;
  moved.bytes_sent_across_hosts =
      after.bytes_sent_across_hosts - before.bytes_sent_across_hosts;
  moved.bytes_received_across_hosts =
      after.bytes_received_across_hosts - before.bytes_received_across_hosts;
  return moved;
}

/// Appends a completed compiled collective to the calling rank's log.
void appendTraffic(const precrt_compiled_traffic_t &record) {
  ++trafficLog.completed;
  if (trafficLog.records.size() < PRECRT_COMPILED_TRAFFIC_RECORDS)
    trafficLog.records.push_back(record);
}

/// The arguments of `call` that can be checked without its group, or a
/// failure saying which is wrong.
Completion checkArguments(const Transport &call) {
  if (call.send_count < 0 || call.num_dims < 0 || call.num_axes < 0)
    return failed(PRECRT_ERROR_INVALID_ARGUMENT,
                  "a compiled collective got a negative count or rank");
  if (call.transport < PRECRT_TRANSPORT_ALL_GATHER ||
      call.transport > PRECRT_TRANSPORT_ALL_REDUCE)
    return failed(PRECRT_ERROR_INVALID_ARGUMENT,
                  "unknown transport " + std::to_string(call.transport));
  if ((call.num_axes > 0 && !call.axes) || (call.num_dims > 0 && !call.shape))
    return failed(PRECRT_ERROR_INVALID_ARGUMENT,
                  "a compiled collective got a null grid shape or axes");
  return {};
}

/// Runs `call` on `world`; touches no state of the calling thread but its
/// last error, so that a communication thread can run it for its rank.
Completion runTransport(precrt_comm_t world, const Transport &call) {
  if (Completion invalid = checkArguments(call); invalid.status)
    return invalid;
  auto [transport, send, recv, send_count, dtype, reduction, num_dims, shape,
        num_axes, axes, stream, started] = call;
  precrt_comm_t group = nullptr;
  int32_t groupSize = 1;
  precrt_status_t status =
      findGroup(world, num_dims, shape, num_axes, axes, &group, &groupSize);
  if (status != PRECRT_SUCCESS)
    return failed(status, precrtGetLastErrorMessage());
  // Each rank's share of the wire buffer is send_count / groupSize: a
  // remainder would be dropped.
  bool splitsSend = transport == PRECRT_TRANSPORT_ALL_TO_ALL ||
                    transport == PRECRT_TRANSPORT_REDUCE_SCATTER;
  if (splitsSend && send_count % groupSize != 0)
    return failed(PRECRT_ERROR_INVALID_ARGUMENT,
                  std::string("a compiled ") +
                      (transport == PRECRT_TRANSPORT_ALL_TO_ALL
                           ? "all_to_all"
                           : "reduce_scatter") +
                      " sends " + std::to_string(send_count) +
                      " elements over a group of " +
                      std::to_string(groupSize) +
                      " ranks: expected a multiple of " +
                      std::to_string(groupSize));

  precrt_traffic_t before{}, after{};
  precrtCommGetTraffic(group, &before);
  auto move = [&] { return moveData(group, groupSize, call); };
  if (stream && started)
    status = precrt::cuda::runStarted(group, *started, move);
  else if (stream)
    status = precrt::cuda::runBetweenStreams(group, stream, move);
  else
    status = move();
  if (status != PRECRT_SUCCESS)
    return failed(status, precrtGetLastErrorMessage());
  precrtCommGetTraffic(group, &after);
  Completion completion;
  completion.record = makeRecord(group, transport, dtype, send_count,
                                 groupSize, getMoved(before, after));
  return completion;
}

/// Records a transport run on the calling rank's thread: its failure as the
/// rank's error, or its traffic.
int32_t recordCompletion(const Completion &completion) {
  if (completion.status != PRECRT_SUCCESS)
    return fail(completion.status, completion.message);
  appendTraffic(completion.record);
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

/// Whether a driver (prec-run, precrtRun, precrtInit) runs the calling rank
/// and reads precrtCompiledGetError() after the program returns.
bool driverIsWatching() { return precrtGetWorld() && !joinedImplicitly; }

/// Records a failure outside a collective (the GPU entry points) as the
/// rank's error, unless an earlier one is recorded. Without a driver to
/// report it, ends the process as a failed collective does.
void recordFailure(const char *entryPoint, precrt_status_t status,
                   std::string message) {
  if (firstError.status == PRECRT_SUCCESS)
    fail(status, std::move(message));
  if (driverIsWatching())
    return;
  std::fprintf(stderr, "precrt: %s failed: %s\n", entryPoint,
               firstError.message.c_str());
  std::fflush(nullptr);
  std::_Exit(1);
}

/// Runs `run(world)` on the world of the calling rank: the driver's, else the
/// implicit world of generated code run without a driver.
template <typename Run> int32_t runOnWorld(Run run) {
  if (driverIsWatching())
    return run(precrtGetWorld());
  int32_t status;
  if (environmentSelectsProcessWorld()) {
    std::string message;
    status = joinProcessWorld(message);
    status = status == PRECRT_SUCCESS
                 ? run(precrtGetWorld())
                 : fail(static_cast<precrt_status_t>(status),
                        "cannot join the world of PRECRT_BACKEND: " + message);
  } else {
    // A local world of one rank, on this thread, for this call only.
    status = precrtLocalRun(
        1,
        [](precrt_comm_t world, void *data) {
          return static_cast<int>((*static_cast<Run *>(data))(world));
        },
        &run);
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

/// The ranks of a grid's group (num_axes == 0: all axes), or -1 for an
/// invalid grid.
int64_t gridGroupSize(int32_t num_dims, const int64_t *shape, int32_t num_axes,
                      const int32_t *axes) {
  if (num_dims < 0 || num_axes < 0 || (num_dims > 0 && !shape) ||
      (num_axes > 0 && !axes))
    return -1;
  int64_t size = 1;
  for (int32_t i = 0; i < (num_axes ? num_axes : num_dims); ++i) {
    int32_t axis = num_axes ? axes[i] : i;
    if (axis < 0 || axis >= num_dims || shape[axis] <= 0 ||
        size > (int64_t(1) << 30) / shape[axis])
      return -1;
    size *= shape[axis];
  }
  return size;
}

/// Windows of generated code run without a world (a local world of one rank
/// per call, which cannot keep them), and the private stand-ins returned
/// after a failure.
precrt::PeerWindows &worldlessWindows() {
  thread_local precrt::PeerWindows windows;
  return windows;
}

//===--- Started transports -----------------------------------------------===//

/// One started transport, shared by its rank's thread and its communication
/// thread.
struct Started {
  int64_t handle = 0;
  Transport call{};
  /// The grid, which the caller's arrays need not outlive the start.
  std::vector<int64_t> shape;
  std::vector<int32_t> axes;
  precrt::cuda::StartedEvents events;

  /// Written once by whichever thread ran it, before `done`.
  std::mutex mutex;
  std::condition_variable doneChanged;
  bool done = false;
  Completion completion;
  double backgroundSeconds = 0;

  /// Rank thread only: its record, time or failure is the rank's.
  bool collected = false;

  void complete(Completion result, double seconds = 0) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      completion = std::move(result);
      backgroundSeconds = seconds;
      done = true;
    }
    doneChanged.notify_all();
  }
  void waitUntilDone() {
    std::unique_lock<std::mutex> lock(mutex);
    doneChanged.wait(lock, [&] { return done; });
  }
  bool isDone() {
    std::lock_guard<std::mutex> lock(mutex);
    return done;
  }
};

/// The first failure of a rank's started transports, kept by its
/// communication thread (only that thread touches it): the transports
/// queued behind it fail with it without moving data, as the rank's later
/// collectives do after firstError.
struct BackgroundFailure {
  precrt_status_t status = PRECRT_SUCCESS;
  std::string message;
};

/// The calling rank's started transports.
struct RankStarted {
  int64_t nextHandle = 1;
  /// The communication thread the pending transports were queued on.
  uint64_t worker = 0;
  /// Not yet collected, in start order.
  std::deque<std::shared_ptr<Started>> uncollected;
  /// Not yet waited, by handle.
  std::map<int64_t, std::shared_ptr<Started>> unwaited;
  std::shared_ptr<BackgroundFailure> failure =
      std::make_shared<BackgroundFailure>();
};
thread_local RankStarted rankStarted;

const char *transportName(int32_t transport) {
  static const char *const names[] = {"all_gather", "all_to_all",
                                      "reduce_scatter", "all_reduce"};
  return transport >= 0 && transport <= PRECRT_TRANSPORT_ALL_REDUCE
             ? names[transport]
             : "transport";
}

/// "handle 3 (all_reduce of 16 f32)".
std::string describeStarted(const Started &started) {
  const char *dtype =
      precrtDtypeName(static_cast<precrt_dtype_t>(started.call.dtype));
  return "handle " + std::to_string(started.handle) + " (" +
         transportName(started.call.transport) + " of " +
         std::to_string(started.call.send_count) + " " +
         (dtype ? dtype : "elements") + ")";
}

/// After the rank's world ended, its communication thread was joined with
/// every transport run: what is left of them belongs to that world.
void forgetEndedWorld() {
  RankStarted &state = rankStarted;
  if (state.worker == 0 ||
      state.worker == precrt::communication_thread::currentId())
    return;
  for (auto &[handle, started] : state.unwaited)
    precrt::cuda::finishStarted(started->call.stream, started->events, false);
  state.uncollected.clear();
  state.unwaited.clear();
  state.failure = std::make_shared<BackgroundFailure>();
  state.worker = 0;
}

/// Takes the completed transports, in start order, as the rank's: their
/// traffic records, their time on the communication thread, and a failure
/// as the rank's error.
void collectStarted() {
  auto &uncollected = rankStarted.uncollected;
  while (!uncollected.empty() && uncollected.front()->isDone()) {
    Started &started = *uncollected.front();
    if (!started.collected) {
      started.collected = true;
      precrt::profile::add(PRECRT_PROFILE_BACKGROUND,
                           started.backgroundSeconds, 1);
      if (started.completion.status != PRECRT_SUCCESS) {
        if (firstError.status == PRECRT_SUCCESS)
          fail(started.completion.status, started.completion.message);
      } else {
        appendTraffic(started.completion.record);
      }
    }
    uncollected.pop_front();
  }
}

/// Waits until the rank's communication thread is idle and collects what it
/// ran: the rank may then communicate itself.
void drainStarted() {
  forgetEndedWorld();
  if (rankStarted.uncollected.empty())
    return;
  precrt::communication_thread::waitUntilIdle();
  collectStarted();
}

/// Without a driver, nobody reads the rank's error: a failure ends the
/// process, as a failed collective does.
int32_t endProcessUnlessWatched(int32_t status) {
  if (status == PRECRT_SUCCESS || driverIsWatching())
    return status;
  std::fprintf(stderr, "precrt: compiled collective failed: %s\n",
               firstError.message.c_str());
  std::fflush(nullptr);
  std::_Exit(1);
}

int64_t startTransport(const Transport &arguments) {
  forgetEndedWorld();
  RankStarted &state = rankStarted;
  auto started = std::make_shared<Started>();
  started->handle = state.nextHandle++;
  started->call = arguments;
  Transport &call = started->call;
  if (arguments.num_dims > 0 && arguments.shape)
    started->shape.assign(arguments.shape,
                          arguments.shape + arguments.num_dims);
  if (arguments.num_axes > 0 && arguments.axes)
    started->axes.assign(arguments.axes, arguments.axes + arguments.num_axes);
  call.shape = arguments.shape ? started->shape.data() : nullptr;
  call.axes = arguments.axes ? started->axes.data() : nullptr;
  state.uncollected.push_back(started);
  state.unwaited[started->handle] = started;

  // A failed rank, or arguments found wrong now: recorded at once, and
  // returned again by the wait.
  auto failNow = [&](precrt_status_t status, const std::string &message) {
    if (firstError.status == PRECRT_SUCCESS)
      fail(status, message);
    started->complete(failed(firstError.status, firstError.message));
    return started->handle;
  };
  if (firstError.status != PRECRT_SUCCESS)
    return failNow(firstError.status, firstError.message);
  if (Completion invalid = checkArguments(call); invalid.status)
    return failNow(invalid.status, invalid.message);

  precrt_comm_t world = nullptr;
  if (driverIsWatching()) {
    world = precrtGetWorld();
  } else if (environmentSelectsProcessWorld()) {
    std::string message;
    if (precrt_status_t status = joinProcessWorld(message))
      return failNow(status,
                     "cannot join the world of PRECRT_BACKEND: " + message);
    world = precrtGetWorld();
  } else {
    // A local world of one rank per call cannot outlive the call: the data
    // moves now (a copy, for one rank), and a failure ends the process.
    Completion completion;
    runOnWorld([&](precrt_comm_t oneRank) -> int32_t {
      completion = runTransport(oneRank, call);
      if (completion.status != PRECRT_SUCCESS)
        return fail(completion.status, completion.message);
      return PRECRT_SUCCESS;
    });
    started->complete(std::move(completion));
    return started->handle;
  }

  if (call.stream) {
    if (precrt_status_t status =
            precrt::cuda::recordStart(call.stream, &started->events))
      return failNow(status, precrtGetLastErrorMessage());
    call.started = &started->events;
  }
  auto *communicator = reinterpret_cast<precrt::Communicator *>(world);
  std::shared_ptr<BackgroundFailure> failure = state.failure;
  state.worker = precrt::communication_thread::submit(
      communicator, precrt::cuda::currentDevice(), [started, failure, world] {
        if (failure->status != PRECRT_SUCCESS) {
          started->complete(failed(failure->status, failure->message));
          return;
        }
        int64_t begin = precrt::profile::nowNanoseconds();
        Completion completion = runTransport(world, started->call);
        double seconds =
            double(precrt::profile::nowNanoseconds() - begin) * 1e-9;
        if (completion.status != PRECRT_SUCCESS) {
          failure->status = completion.status;
          failure->message = completion.message;
        }
        started->complete(std::move(completion), seconds);
      });
  return started->handle;
}

int32_t waitTransport(const char *entryPoint, int64_t handle, const void *send,
                      void *recv, void *stream) {
  precrt::profile::Scope timed(PRECRT_PROFILE_COLLECTIVE);
  forgetEndedWorld();
  RankStarted &state = rankStarted;
  auto found = state.unwaited.find(handle);
  if (found == state.unwaited.end()) {
    if (firstError.status == PRECRT_SUCCESS)
      fail(PRECRT_ERROR_INVALID_ARGUMENT,
           std::string(entryPoint) + ": handle " + std::to_string(handle) +
               " is not a started transport of this rank (unknown, or "
               "already waited)");
    return endProcessUnlessWatched(firstError.status);
  }
  std::shared_ptr<Started> started = found->second;
  state.unwaited.erase(found);
  // Bounded: the communication thread's collectives time out.
  started->waitUntilDone();
  collectStarted();

  std::string misuse;
  if (send != started->call.send || recv != started->call.recv) {
    char buffers[160];
    std::snprintf(buffers, sizeof(buffers),
                  " was started with send %p and recv %p, waited with send "
                  "%p and recv %p",
                  started->call.send, static_cast<void *>(started->call.recv),
                  send, recv);
    misuse = describeStarted(*started) + buffers;
  } else if (!stream != !started->call.stream) {
    misuse = describeStarted(*started) +
             (stream ? " was started on the host: wait for it with "
                       "precrtCompiledCollectiveWait"
                     : " was started on a compute stream: wait for it with "
                       "precrtCompiledCollectiveWaitOnStream");
  }
  if (started->events.before || started->events.after) {
    bool completed = started->completion.status == PRECRT_SUCCESS;
    if (precrt_status_t status = precrt::cuda::finishStarted(
            stream ? stream : started->call.stream, started->events,
            completed))
      if (firstError.status == PRECRT_SUCCESS)
        fail(status, precrtGetLastErrorMessage());
  }
  if (!misuse.empty() && firstError.status == PRECRT_SUCCESS)
    fail(PRECRT_ERROR_INVALID_ARGUMENT,
         std::string(entryPoint) + ": " + misuse);
  return endProcessUnlessWatched(firstError.status);
}

} // namespace

void precrt::recordGpuWrapperFailure(precrt_status_t status,
                                     const char *entryPoint) {
  if (driverIsWatching() && firstError.status == PRECRT_SUCCESS)
    ::fail(status,
           std::string(entryPoint) + ": " + precrtGetLastErrorMessage());
}

extern "C" int32_t precrtCompiledCollective(
    int32_t transport, const void *send, void *recv, int64_t send_count,
    int32_t dtype, int32_t reduction, int32_t num_dims, const int64_t *shape,
    int32_t num_axes, const int32_t *axes) {
  precrt::profile::Scope timed(PRECRT_PROFILE_COLLECTIVE);
  drainStarted();
  if (firstError.status != PRECRT_SUCCESS)
    return firstError.status;
  Transport call{transport, send,     recv,  send_count, dtype,
                 reduction, num_dims, shape, num_axes,   axes};
  return runOnWorld([&](precrt_comm_t world) {
    return recordCompletion(runTransport(world, call));
  });
}

extern "C" int32_t precrtCompiledCollectiveOnStream(
    int32_t transport, const void *send, void *recv, int64_t send_count,
    int32_t dtype, int32_t reduction, int32_t num_dims, const int64_t *shape,
    int32_t num_axes, const int32_t *axes, void *stream) {
  drainStarted();
  if (firstError.status != PRECRT_SUCCESS)
    return firstError.status;
  Transport call{transport, send,  recv,     send_count, dtype, reduction,
                 num_dims,  shape, num_axes, axes,       stream};
  if (!stream) {
    recordFailure(PRECRT_COMPILED_COLLECTIVE_ON_STREAM_SYMBOL,
                  PRECRT_ERROR_INVALID_ARGUMENT,
                  "a collective of GPU code got no compute stream");
    return firstError.status;
  }
  return runOnWorld([&](precrt_comm_t world) {
    return recordCompletion(runTransport(world, call));
  });
}

extern "C" int64_t precrtCompiledCollectiveStart(
    int32_t transport, const void *send, void *recv, int64_t send_count,
    int32_t dtype, int32_t reduction, int32_t num_dims, const int64_t *shape,
    int32_t num_axes, const int32_t *axes) {
  return startTransport(Transport{transport, send, recv, send_count, dtype,
                                  reduction, num_dims, shape, num_axes, axes});
}

extern "C" int32_t precrtCompiledCollectiveWait(int64_t handle,
                                                const void *send, void *recv) {
  return waitTransport(PRECRT_COMPILED_COLLECTIVE_WAIT_SYMBOL, handle, send,
                       recv, nullptr);
}

extern "C" int64_t precrtCompiledCollectiveStartOnStream(
    int32_t transport, const void *send, void *recv, int64_t send_count,
    int32_t dtype, int32_t reduction, int32_t num_dims, const int64_t *shape,
    int32_t num_axes, const int32_t *axes, void *stream) {
  if (!stream) {
    // Recorded (or, without a driver, the end of the process) as for the
    // synchronous form; the handle's wait returns it.
    if (firstError.status == PRECRT_SUCCESS)
      recordFailure(PRECRT_COMPILED_COLLECTIVE_START_ON_STREAM_SYMBOL,
                    PRECRT_ERROR_INVALID_ARGUMENT,
                    "a collective of GPU code got no compute stream");
    return startTransport(Transport{transport, send, recv, send_count, dtype,
                                    reduction, num_dims, shape, num_axes,
                                    axes});
  }
  return startTransport(Transport{transport, send, recv, send_count, dtype,
                                  reduction, num_dims, shape, num_axes, axes,
                                  stream});
}

extern "C" int32_t precrtCompiledCollectiveWaitOnStream(int64_t handle,
                                                        const void *send,
                                                        void *recv,
                                                        void *stream) {
  if (!stream) {
    if (firstError.status == PRECRT_SUCCESS)
      recordFailure(PRECRT_COMPILED_COLLECTIVE_WAIT_ON_STREAM_SYMBOL,
                    PRECRT_ERROR_INVALID_ARGUMENT,
                    "a collective of GPU code got no compute stream");
  }
  return waitTransport(PRECRT_COMPILED_COLLECTIVE_WAIT_ON_STREAM_SYMBOL,
                       handle, send, recv, stream);
}

extern "C" int32_t precrtCompiledDrain(void) {
  drainStarted();
  RankStarted &state = rankStarted;
  for (auto &[handle, started] : state.unwaited) {
    started->waitUntilDone();
    if (firstError.status == PRECRT_SUCCESS)
      fail(PRECRT_ERROR_INVALID_ARGUMENT,
           describeStarted(*started) + " was started but never waited");
    precrt::cuda::finishStarted(started->call.stream, started->events, false);
  }
  state.unwaited.clear();
  collectStarted();
  return endProcessUnlessWatched(firstError.status);
}

/// The world whose groups keep peer windows: the driver's, or the process
/// world of PRECRT_BACKEND; nullptr for code that runs each collective on a
/// local world of one rank.
static precrt_comm_t windowWorld() {
  if (driverIsWatching())
    return precrtGetWorld();
  if (!environmentSelectsProcessWorld())
    return nullptr;
  std::string message;
  return joinProcessWorld(message) == PRECRT_SUCCESS ? precrtGetWorld()
                                                     : nullptr;
}

extern "C" void *precrtCompiledWindow(int64_t segment_bytes, int32_t num_dims,
                                      const int64_t *shape, int32_t num_axes,
                                      const int32_t *axes) {
  // The first call for a window is a collective over the group: its time
  // (not a call) goes to the collectives.
  const int64_t start = precrt::profile::nowNanoseconds();
  drainStarted();
  int64_t groupSize = gridGroupSize(num_dims, shape, num_axes, axes);
  precrt_status_t status = PRECRT_SUCCESS;
  std::string message;
  char *slot = nullptr;
  if (groupSize < 0 || segment_bytes < 0) {
    status = PRECRT_ERROR_INVALID_ARGUMENT;
    message = "a peer window got a negative size or an invalid grid";
    groupSize = 1;
    segment_bytes = 0;
  } else if (firstError.status == PRECRT_SUCCESS) {
    if (precrt_comm_t world = windowWorld()) {
      precrt_comm_t group = nullptr;
      int32_t size = 1;
      status = findGroup(world, num_dims, shape, num_axes, axes, &group, &size);
      if (status != PRECRT_SUCCESS)
        message = precrtGetLastErrorMessage();
      else
        slot = reinterpret_cast<precrt::Communicator *>(group)
                   ->peerWindows()
                   .acquire(group, size, size_t(segment_bytes), status,
                            message);
    }
  }
  if (status != PRECRT_SUCCESS)
    recordFailure(PRECRT_COMPILED_WINDOW_SYMBOL, status,
                  "peer window: " + message);
  // Without a world, or after a failure (the kernels still write the slot
  // before the next collective returns the error): private memory.
  if (!slot) {
    precrt_status_t ignored;
    slot = worldlessWindows().acquire(nullptr, int(groupSize),
                                      size_t(segment_bytes), ignored, message);
  }
  if (!slot) {
    std::fprintf(stderr, "precrt: %s failed: %s\n",
                 PRECRT_COMPILED_WINDOW_SYMBOL, message.c_str());
    std::fflush(nullptr);
    std::_Exit(1);
  }
  precrt::profile::addTime(PRECRT_PROFILE_COLLECTIVE, start);
  return slot;
}

extern "C" int32_t precrtCompiledWindowFence(
    int32_t transport, void *slot, int64_t segment_count, int32_t dtype,
    int32_t num_dims, const int64_t *shape, int32_t num_axes,
    const int32_t *axes) {
  precrt::profile::Scope timed(PRECRT_PROFILE_COLLECTIVE);
  drainStarted();
  if (firstError.status != PRECRT_SUCCESS)
    return firstError.status;
  auto type = static_cast<precrt_dtype_t>(dtype);
  // Checked on the world, so that without a driver a bad call ends the
  // process as a failed collective does.
  return runOnWorld([&](precrt_comm_t world) -> int32_t {
    if (transport != PRECRT_TRANSPORT_ALL_GATHER &&
        transport != PRECRT_TRANSPORT_ALL_TO_ALL)
      return fail(PRECRT_ERROR_INVALID_ARGUMENT,
                  "a peer window fence got transport " +
                      std::to_string(transport) +
                      ": expected all_gather (0) or all_to_all (1)");
    if (segment_count < 0 || !slot || precrtDtypeSize(type) == 0 ||
        gridGroupSize(num_dims, shape, num_axes, axes) < 0)
      return fail(PRECRT_ERROR_INVALID_ARGUMENT,
                  "a peer window fence got a negative count, no slot, an "
                  "unknown dtype or an invalid grid");
    precrt_comm_t group = nullptr;
    int32_t groupSize = 1, rank = 0;
    if (precrt_status_t status = findGroup(world, num_dims, shape, num_axes,
                                           axes, &group, &groupSize, &rank))
      return fail(status, precrtGetLastErrorMessage());
    if (transport == PRECRT_TRANSPORT_ALL_TO_ALL &&
        segment_count % groupSize != 0)
      return fail(PRECRT_ERROR_INVALID_ARGUMENT,
                  "a peer window all_to_all of " +
                      std::to_string(segment_count) +
                      " elements per rank over a group of " +
                      std::to_string(groupSize) +
                      " ranks: expected a multiple of " +
                      std::to_string(groupSize));
    auto *comm = reinterpret_cast<precrt::Communicator *>(group);
    precrt_traffic_t moved = {};
    std::string message;
    precrt_status_t status = comm->peerWindows().fence(
        group, groupSize, rank, transport, static_cast<char *>(slot),
        size_t(segment_count), type, comm->timeoutMs(), moved, message);
    if (status != PRECRT_SUCCESS)
      return fail(status, message);
    appendTraffic(
        makeRecord(group, transport, dtype, segment_count, groupSize, moved));
    return PRECRT_SUCCESS;
  });
}

extern "C" int64_t precrtCompiledGroupRank(int32_t num_dims,
                                           const int64_t *shape,
                                           int32_t num_axes,
                                           const int32_t *axes) {
  drainStarted();
  precrt_comm_t world = windowWorld();
  if (!world || firstError.status != PRECRT_SUCCESS)
    return 0;
  precrt_comm_t group = nullptr;
  int32_t size = 1, rank = 0;
  if (precrt_status_t status = findGroup(world, num_dims, shape, num_axes,
                                         axes, &group, &size, &rank)) {
    recordFailure(PRECRT_COMPILED_GROUP_RANK_SYMBOL, status,
                  precrtGetLastErrorMessage());
    return 0;
  }
  return rank;
}

extern "C" void *precrtCompiledGpuStream(void) {
  // Without a driver, an nccl world from the environment is joined first:
  // joining picks this process's GPU, on which the stream must live.
  if (!precrtGetWorld() && environmentSelectsProcessWorld()) {
    std::string message;
    if (precrt_status_t status = joinProcessWorld(message)) {
      recordFailure(PRECRT_COMPILED_GPU_STREAM_SYMBOL, status,
                    "cannot join the world of PRECRT_BACKEND: " + message);
      return nullptr;
    }
  }
  void *stream = nullptr;
  if (precrt_status_t status = precrt::cuda::threadComputeStream(&stream))
    recordFailure(PRECRT_COMPILED_GPU_STREAM_SYMBOL, status,
                  precrtGetLastErrorMessage());
  return stream;
}

extern "C" int64_t precrtCompiledGpuMaxBlocks(int64_t threads_per_block) {
  if (threads_per_block <= 0) {
    recordFailure(PRECRT_COMPILED_GPU_MAX_BLOCKS_SYMBOL,
                  PRECRT_ERROR_INVALID_ARGUMENT,
                  "grid sizing needs a positive number of threads per "
                  "block, got " +
                      std::to_string(threads_per_block));
    return 1;
  }
  precrt_gpu_device_properties properties;
  if (precrt_status_t status = precrtGpuGetDeviceProperties(
          precrt::cuda::currentDevice(), &properties)) {
    recordFailure(PRECRT_COMPILED_GPU_MAX_BLOCKS_SYMBOL, status,
                  precrtGetLastErrorMessage());
    return 1;
  }
  // As many blocks as can be resident at once: a grid-stride loop covers
  // the rest, and larger grids only queue.
  int64_t blocksPerMultiprocessor =
      properties.max_threads_per_multiprocessor / threads_per_block;
  return std::max<int64_t>(1, properties.multiprocessor_count *
                                  blocksPerMultiprocessor);
}

extern "C" const char *precrtCompiledGetError(void) {
  return firstError.status == PRECRT_SUCCESS ? nullptr
                                             : firstError.message.c_str();
}

extern "C" void precrtCompiledClearError(void) {
  firstError = CompiledError();
  // Transports started from now on run again.
  rankStarted.failure = std::make_shared<BackgroundFailure>();
}

extern "C" int64_t precrtCompiledWorldRank(void) {
  precrt_comm_t world = precrtGetWorld();
  if (!world && environmentSelectsProcessWorld()) {
    std::string message;
    if (joinProcessWorld(message) == PRECRT_SUCCESS)
      world = precrtGetWorld();
  }
  int32_t rank = 0;
  if (world && precrtCommRank(world, &rank) != PRECRT_SUCCESS)
    rank = 0;
  return rank;
}

extern "C" int64_t precrtCompiledGridRank(int64_t grid_ranks) {
  int64_t rank = precrtCompiledWorldRank();
  precrt_comm_t world = precrtGetWorld();
  int32_t size = 1;
  if (world && precrtCommSize(world, &size) != PRECRT_SUCCESS)
    size = 1;
  if (size != grid_ranks)
    recordFailure("precrtCompiledGridRank", PRECRT_ERROR_INVALID_ARGUMENT,
                  "a grid of " + std::to_string(grid_ranks) +
                      " ranks on a world of " + std::to_string(size) +
                      " ranks: its coordinates would be wrong");
  return rank;
}

extern "C" int32_t precrtCompiledMatmul(
    int64_t batch, int64_t m, int64_t n, int64_t k, int32_t a_dtype,
    const void *a, int64_t a_batch_stride, int64_t a_row_stride,
    int64_t a_col_stride, int32_t b_dtype, const void *b,
    int64_t b_batch_stride, int64_t b_row_stride, int64_t b_col_stride,
    int32_t c_dtype, void *c, int64_t c_batch_stride, int64_t c_row_stride,
    int64_t c_col_stride) {
  using precrt::kernels::MatrixOperand;
  precrt::profile::Scope timed(PRECRT_PROFILE_GEMM);
  std::string message;
  precrt_status_t status = precrt::kernels::matmul(
      batch, m, n, k,
      MatrixOperand{static_cast<precrt_dtype_t>(a_dtype), a, a_batch_stride,
                    a_row_stride, a_col_stride},
      MatrixOperand{static_cast<precrt_dtype_t>(b_dtype), b, b_batch_stride,
                    b_row_stride, b_col_stride},
      MatrixOperand{static_cast<precrt_dtype_t>(c_dtype), c, c_batch_stride,
                    c_row_stride, c_col_stride},
      message);
  if (status != PRECRT_SUCCESS)
    recordFailure(PRECRT_COMPILED_MATMUL_SYMBOL, status, std::move(message));
  return status;
}

extern "C" int32_t precrtCompiledGpuMatmul(
    int64_t batch, int64_t m, int64_t n, int64_t k, int32_t a_dtype,
    const void *a, int64_t a_batch_stride, int64_t a_row_stride,
    int64_t a_col_stride, int32_t b_dtype, const void *b,
    int64_t b_batch_stride, int64_t b_row_stride, int64_t b_col_stride,
    int32_t c_dtype, void *c, int64_t c_batch_stride, int64_t c_row_stride,
    int64_t c_col_stride, const void *a_scale, const void *b_scale,
    int32_t reduced_precision, void *stream) {
  using precrt::kernels::MatrixOperand;
  if (firstError.status != PRECRT_SUCCESS)
    return firstError.status;
  precrt_status_t status = precrt::cuda::gpuMatmul(
      batch, m, n, k,
      MatrixOperand{static_cast<precrt_dtype_t>(a_dtype), a, a_batch_stride,
                    a_row_stride, a_col_stride},
      MatrixOperand{static_cast<precrt_dtype_t>(b_dtype), b, b_batch_stride,
                    b_row_stride, b_col_stride},
      MatrixOperand{static_cast<precrt_dtype_t>(c_dtype), c, c_batch_stride,
                    c_row_stride, c_col_stride},
      a_scale, b_scale, reduced_precision, stream);
  if (status != PRECRT_SUCCESS)
    recordFailure(PRECRT_COMPILED_GPU_MATMUL_SYMBOL, status,
                  precrtGetLastErrorMessage());
  return status;
}

extern "C" const char *precrtCompiledMatmulKernel(void) {
  return precrt::kernels::matmulKernelName();
}

extern "C" int64_t precrtCompiledGetTraffic(precrt_compiled_traffic_t *records,
                                           int64_t capacity) {
  if (records && capacity > 0) {
    size_t copied = std::min<size_t>(size_t(capacity), trafficLog.records.size());
    std::copy_n(trafficLog.records.begin(), copied, records);
  }
  return trafficLog.completed;
}

extern "C" void precrtCompiledResetTraffic(void) {
  trafficLog.records.clear();
  trafficLog.completed = 0;
}
