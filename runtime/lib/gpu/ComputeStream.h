//===- ComputeStream.h - Streams and events of compiled GPU code *- C++ -*-===//
//
// Code lowered by prec-lower-to-cuda enqueues its kernels, copies and
// allocations on one compute stream per rank, and its collectives run on the
// stream of their group's NCCL communicator. Events order the two: the
// collective waits for the pack kernel before it, the unpack kernel after it
// waits for the collective. Streams and events are created once per thread
// and device and destroyed when the thread exits.
//
//===----------------------------------------------------------------------===//

#ifndef PRECRT_LIB_GPU_COMPUTESTREAM_H
#define PRECRT_LIB_GPU_COMPUTESTREAM_H

#include "precrt/precrt.h"

#include <functional>

namespace precrt {
namespace cuda {

/// The calling thread's compute stream on its current device, created on
/// first use (non-blocking, so it never waits for the legacy default
/// stream). On failure the thread's error says why.
precrt_status_t threadComputeStream(void **stream);

/// Runs `moveData`, which enqueues device work on the stream of `group` (an
/// NCCL communicator), between what the caller enqueued on `computeStream`
/// before and what it enqueues after: the group's stream first waits for an
/// event recorded on the compute stream, and the compute stream then waits
/// for an event recorded on the group's stream. Fails with a message naming
/// the backend when `group` is not an NCCL communicator.
precrt_status_t
runBetweenStreams(precrt_comm_t group, void *computeStream,
                  const std::function<precrt_status_t()> &moveData);

/// The events of a transport started on a compute stream (CUevents), taken
/// from the starting thread's pool for `device`.
struct StartedEvents {
  void *before = nullptr;
  void *after = nullptr;
  int device = 0;
};

/// At the start, on the rank's thread: takes two events of the thread's
/// pool (created on first use, destroyed when the thread exits) and records
/// `before` on `computeStream`, after the work that fills the send buffer.
precrt_status_t recordStart(void *computeStream, StartedEvents *events);

/// On the communication thread: as runBetweenStreams, with the group's
/// stream waiting for `events.before` and `events.after` recorded on it once
/// `moveData` returned.
precrt_status_t runStarted(precrt_comm_t group, const StartedEvents &events,
                           const std::function<precrt_status_t()> &moveData);

/// At the wait, on the rank's thread: makes `computeStream` wait for
/// `events.after` where the transport `completed`, and returns the events to
/// the pool.
precrt_status_t finishStarted(void *computeStream, StartedEvents &events,
                              bool completed);

} // namespace cuda
} // namespace precrt

#endif // PRECRT_LIB_GPU_COMPUTESTREAM_H
