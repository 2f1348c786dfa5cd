//===- MpiRequests.h - The MPI backend's request poller ---------*- C++ -*-===//
//
// The nonblocking sends and receives of one phase of a call, polled until
// they complete, the deadline passes or a peer is found gone (MpiLiveness.h):
// a dead or stalled rank becomes an error, never a hang. After a failure,
// settle() withdraws what is still in flight, so that MPI lets go of the
// buffers.
//
//===----------------------------------------------------------------------===//

#ifndef PRECRT_LIB_BACKENDS_MPI_MPIREQUESTS_H
#define PRECRT_LIB_BACKENDS_MPI_MPIREQUESTS_H

#include "backends/mpi/MpiCommon.h"
#include "backends/mpi/MpiLiveness.h"

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace precrt {
namespace mpi {

/// Requests in flight on one communicator, with the rank each one talks to.
class RequestSet {
public:
  /// Whether `peer`, which left with `notice`, made the call waited for
  /// before it left.
  using MadeCall = std::function<bool(int peer, const ExitNotice &notice)>;

  /// `ranks[peer]` is the MPI rank in `comm` of communicator rank `peer`,
  /// `onOtherHost[peer]` whether it runs on another host than this rank.
  RequestSet(MPI_Comm comm, const std::vector<int> &ranks,
             const std::vector<char> &onOtherHost, Liveness &liveness)
      : comm_(comm), ranks_(ranks), onOtherHost_(onOtherHost),
        liveness_(liveness), lost_(ranks.size(), false) {}
  RequestSet(const RequestSet &) = delete;
  RequestSet &operator=(const RequestSet &) = delete;

  void send(const void *data, size_t bytes, int peer, int tag);
  void recv(void *data, size_t bytes, int peer, int tag);

  /// Polls until every request completes, an MPI call fails, the deadline
  /// passes, a peer it waits for has left without making the call
  /// (`madeCall(peer, notice)` is false), or, without a deadline, a peer it
  /// waits for stops answering (see MpiBackend.cpp's file comment;
  /// `timeoutMs` sets the intervals). On failure the requests stay in
  /// flight: settle() must withdraw them.
  precrt_status_t wait(Clock::time_point deadline, int64_t timeoutMs,
                       const std::string &what, PeerExits &exits,
                       const MadeCall &madeCall);

  /// After a failed wait, withdraws what is still in flight so that MPI is
  /// done with the buffers when it returns. A receive that has not matched a
  /// message yet is cancelled; one that has is being filled by a peer that
  /// waits for it, and is waited for. Then `leaving()` tells the peers that
  /// this rank takes in nothing more, and each send is waited for until it
  /// completes or its peer has left without the call (`madeCall` false):
  /// that peer never matches it, so MPI never reads its buffer again. These
  /// waits end when the peers, all past the deadline-bound exchange of
  /// descriptors, finish or leave; nothing is waited for from a peer that
  /// stopped answering (its requests are freed: a dead process never writes
  /// or reads the buffers again). With `retirable` (buffers of the runtime's
  /// own) nothing is waited for, and holdsBuffers() says whether the caller
  /// must retire the buffers.
  void settle(bool retirable, PeerExits &exits, const MadeCall &madeCall,
              const std::function<void()> &leaving);

  bool holdsBuffers() const { return holdsBuffers_; }
  /// The peer the failed wait gave up on (one that stopped answering, or
  /// the only one missing at the deadline), or the one named by the notice
  /// that failed it; -1 if none.
  int lostPeer() const { return lostPeer_; }

  /// Payload bytes of the sends and receives posted so far, and of those
  /// to and from peers on other hosts.
  size_t bytesSent() const { return bytesSent_; }
  size_t bytesReceived() const { return bytesReceived_; }
  size_t bytesSentAcrossHosts() const { return bytesSentAcrossHosts_; }
  size_t bytesReceivedAcrossHosts() const { return bytesReceivedAcrossHosts_; }

private:
  /// What silentPeer() knows of one wait.
  struct Watch;

  std::chrono::milliseconds stallAfter() const {
    return std::chrono::milliseconds(timeoutMs_ / 2);
  }
  int64_t replyMs() const { return std::max(timeoutMs_ / 2, kMinReplyMs); }

  /// Once nothing has completed for half the timeout, asks each peer that a
  /// request picked by `selected` waits for whether it is alive. Returns a
  /// peer that has not answered within replyMs(), or -1.
  template <typename Selected> int silentPeer(Watch &watch, Selected selected);

  template <typename Post>
  void post(int peer, bool receive, Post postPiece, const char *data,
            size_t bytes);

  /// Polls the requests that `selected` picks until each completes,
  /// `unneeded` lets it go, or its peer stops answering (a single pass when
  /// `once`).
  template <typename Selected, typename Unneeded>
  void complete(bool once, PeerExits &exits, Selected selected,
                Unneeded unneeded);

  void clear();

  MPI_Comm comm_;
  const std::vector<int> &ranks_;
  const std::vector<char> &onOtherHost_;
  Liveness &liveness_;
  std::vector<MPI_Request> requests_;
  std::vector<int> peers_;
  std::vector<bool> receives_;
  int postError_ = MPI_SUCCESS;
  bool holdsBuffers_ = false;
  size_t bytesSent_ = 0;
  size_t bytesReceived_ = 0;
  size_t bytesSentAcrossHosts_ = 0;
  size_t bytesReceivedAcrossHosts_ = 0;
  int64_t timeoutMs_ = 0;
  /// Peers that stopped answering: nothing more is waited for from them.
  std::vector<bool> lost_;
  int lostPeer_ = -1;
};

/// Receives and drops every message still waiting on `comm` with a tag in
/// [firstTag, firstTag + tags): descriptors of calls this rank never made.
/// Returns false if one could not be taken in by the deadline.
bool drainUnreceived(MPI_Comm comm, int firstTag, int tags,
                     Clock::time_point deadline);

} // namespace mpi
} // namespace precrt

#endif // PRECRT_LIB_BACKENDS_MPI_MPIREQUESTS_H
