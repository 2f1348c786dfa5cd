//===- MpiLiveness.h - Failure detection of the MPI backend -----*- C++ -*-===//
//
// How a rank learns that a peer is gone: the exit notice a rank sends each
// peer of a communicator when it leaves it (PeerExits collects them), and
// zero-byte pings that every wait answers (Liveness), for a peer that died
// or hangs without a notice. A process found lost is recorded for
// finalizeMpi.
//
//===----------------------------------------------------------------------===//

#ifndef PRECRT_LIB_BACKENDS_MPI_MPILIVENESS_H
#define PRECRT_LIB_BACKENDS_MPI_MPILIVENESS_H

#include "backends/mpi/MpiCommon.h"

#include <cstdint>
#include <string>
#include <vector>

namespace precrt {
namespace mpi {

/// What a rank tells each peer of a communicator when it leaves it: how many
/// calls it made, so that a peer waiting for it can tell a call it never made
/// (fail now) from one whose messages are still on the way (keep waiting). A
/// call it gave up on midway (timeout, MPI error, a peer that left) does not
/// count: some of its messages may never have been sent.
struct ExitNotice {
  uint64_t collectives = 0;
  uint64_t sendsTo = 0;      ///< point-to-point sends to the notice's receiver
  uint64_t receivesFrom = 0; ///< and receives from it
  /// Nonzero when the rank gave up on the communicator after a failure,
  /// zero when its world ended.
  uint64_t gaveUp = 0;
  /// The peer it gave up waiting for (that stopped answering, or the only
  /// one missing at a deadline), or -1.
  int64_t lostPeer = -1;
};

/// "rank 2 exited while the others waited in all_reduce #3 (...)".
std::string peerLeft(int peer, const ExitNotice &notice,
                     const std::string &what);

/// "rank 5 stopped answering while the others waited in all_reduce #3 (...)".
std::string peerLost(int peer, const std::string &what, int64_t replyMs);

/// Records that a process of the job was found lost (it stopped answering
/// liveness checks): Open MPI's MPI_Finalize waits for every process of the
/// job, a dead one too, so finalizeMpi() must not call it.
void recordLostProcess(int mpiRank);
/// The first lost process recorded, as a reason; empty if none.
const std::string &lostProcess();

/// The liveness checks of one world: zero-byte messages on channel 0 of its
/// MPI communicator. Every wait of every communicator answers pings, so a
/// rank that is in a call (and only such a rank is ever asked) answers
/// within a poll, whatever it waits for.
class Liveness {
public:
  void start(MPI_Comm comm, int size);

  /// Answers the pings that have arrived and takes in the answers.
  void poll();

  void ping(int mpiRank) { send(mpiRank, kPing); }
  bool answeredSince(int mpiRank, Clock::time_point asked) const {
    return lastAnswer_[mpiRank] >= asked;
  }

private:
  /// No buffer to keep: the request is freed at once (a ping to a dead rank
  /// never completes).
  void send(int mpiRank, int kind);

  MPI_Comm comm_ = MPI_COMM_NULL;
  std::vector<Clock::time_point> lastAnswer_;
};

/// The exit notices of one communicator's peers. A single receive from any
/// source stays posted until every peer's notice is in: one entry in MPI's
/// matching queues however many ranks there are.
class PeerExits {
public:
  /// Notices come with `tag`; `groupRanks[r]` is the communicator rank of MPI
  /// rank r of `comm`, or -1 for a process outside the communicator.
  void start(MPI_Comm comm, int tag, int size, std::vector<int> groupRanks);

  /// Takes in the notices that have arrived; returns whether any peer has
  /// left.
  bool poll();

  /// The notice of `peer`, or nullptr while it has not left.
  const ExitNotice *notice(int peer) const {
    return exited_[peer] ? &notices_[peer] : nullptr;
  }
  bool complete() const { return received_ >= expected_; }

  /// Withdraws the posted receive (when peers are still missing).
  void cancel();

private:
  void post();

  MPI_Comm comm_ = MPI_COMM_NULL;
  int tag_ = 0;
  std::vector<int> groupRanks_;
  MPI_Request request_ = MPI_REQUEST_NULL;
  ExitNotice incoming_;
  std::vector<ExitNotice> notices_;
  std::vector<bool> exited_;
  int expected_ = 0, received_ = 0;
};

} // namespace mpi
} // namespace precrt

#endif // PRECRT_LIB_BACKENDS_MPI_MPILIVENESS_H
