//===- MpiCommon.h - What the MPI backend's files share ---------*- C++ -*-===//
//
// The kinds of message and their tags, the clock's sentinels and the pause
// between two polls of a wait: shared by the liveness checks, the request
// poller and the communicator (MpiBackend.cpp has the design).
//
//===----------------------------------------------------------------------===//

#ifndef PRECRT_LIB_BACKENDS_MPI_MPICOMMON_H
#define PRECRT_LIB_BACKENDS_MPI_MPICOMMON_H

#include "core/Communicator.h"

#include <mpi.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <sched.h>
#include <string>
#include <thread>

namespace precrt {
namespace mpi {

/// Every communicator of a world sends on the world's MPI communicator, on a
/// channel of its own: channel c has the tags [c * kTagsPerChannel,
/// (c + 1) * kTagsPerChannel), one per kind of message.
enum MessageKind : int {
  kCollectiveHeader,
  kCollectiveData,
  kSendHeader,
  kExpectedHeader,
  kPointToPointData,
  kExitNotice,
  kPing, ///< channel 0 only: are you alive?
  kPong, ///< the answer
};
constexpr int kTagsPerChannel = 8;

/// MPI counts are ints: larger messages travel in pieces of this size.
constexpr size_t kMaxMessageBytes = size_t(1) << 30;

/// The data phase of a call waits for its peers, not for the clock.
constexpr Clock::time_point kNoDeadline = Clock::time_point::max();
constexpr Clock::time_point kNever = Clock::time_point::min();

/// The shortest wait for the answer to a ping: a live rank on a loaded
/// machine may not run for a while.
constexpr int64_t kMinReplyMs = 1000;

inline std::string mpiErrorText(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS)
    return "MPI error " + std::to_string(code);
  return std::string(text, length);
}

/// Polls before a wait starts yielding the core (and looks for exits).
constexpr int kSpinPolls = 64;

/// Between two polls of a wait: spin briefly for latency, then yield the
/// core, since ranks often share cores with each other.
inline void pauseAfter(int polls) {
  if (polls < kSpinPolls)
    return;
  if (polls < 1024)
    sched_yield();
  else
    std::this_thread::sleep_for(std::chrono::microseconds(50));
}

} // namespace mpi
} // namespace precrt

#endif // PRECRT_LIB_BACKENDS_MPI_MPICOMMON_H
