//===- MpiBackend.cpp - One process per rank over MPI ---------------------===//
//
// Only nonblocking point-to-point calls, polled, so that a dead or stalled
// rank produces an error instead of a hang; MPI errors are returned
// (MPI_ERRORS_RETURN), never aborted on. Every collective starts with an
// exchange of CallDescriptors under the communicator's deadline: that is
// where a rank that does not come turns into PRECRT_ERROR_TIMEOUT. Once
// every rank has arrived, the data moves until it is done, however long that
// takes, so that MPI never holds a caller's buffer after the call returns; it
// stops early only when a peer announces that it left, or when a peer it
// waits for stops answering: a data phase that moves nothing for half the
// timeout asks the peers it waits for whether they are alive (a zero-byte
// ping that every wait answers), and one that gives no answer within
// max(timeout / 2, 1 s) is taken for lost (killed, or hung in the middle of
// the call). MPI then still holds the requests to the lost peer, which can
// never complete; they are freed and never touched again by a dead process.
// All communicators of a world send on one duplicate of MPI_COMM_WORLD, each
// on a channel (a range of tags) of its own, so that making a grid group
// needs no MPI call: nothing blocks a rank that agreed on a split the others
// gave up on.
// A rank leaves a communicator by sending every peer a notice of how many
// calls it made there: at once when it gives up on a call (timeout, MPI error,
// a peer that left), and for every other communicator when its world is
// destroyed (the end of precrtRun, precrtFinalize). The waits watch for those
// notices, so that a peer left waiting in a call the rank never made (or gave
// up on) fails at once instead of at the deadline.
// Reductions run the same ring as the local backend (chunk c is reduced from
// rank c + 1 around to rank c, rounding to the dtype at each step), so both
// backends give the same bits.
//
//===----------------------------------------------------------------------===//

#include "core/Backends.h"
#include "core/Communicator.h"
#include "core/Error.h"
#include "core/Reduce.h"

#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <memory>
#include <sched.h>
#include <string>
#include <thread>
#include <vector>

namespace precrt {
namespace {

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

std::string mpiErrorText(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS)
    return "MPI error " + std::to_string(code);
  return std::string(text, length);
}

/// Keeps `buffer` allocated until the process ends: MPI may still use it
/// after a call that failed.
template <typename T> void retire(std::vector<T> &buffer) {
  static auto *retired = new std::vector<std::vector<T>>();
  retired->push_back(std::move(buffer));
}

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
                     const std::string &what) {
  std::string reason = " exited";
  if (notice.gaveUp && notice.lostPeer >= 0)
    reason = " gave up waiting for rank " + std::to_string(notice.lostPeer);
  else if (notice.gaveUp)
    reason = " gave up after a failure of its own";
  return "rank " + std::to_string(peer) + reason + " while the others waited in " +
         what;
}

/// "rank 5 stopped answering while the others waited in all_reduce #3 (...)".
std::string peerLost(int peer, const std::string &what, int64_t replyMs) {
  return "rank " + std::to_string(peer) + " stopped answering while the " +
         "others waited in " + what + ": no reply to a liveness check in " +
         std::to_string(replyMs) + " ms (the process died or hangs)";
}

/// Set when a process of the job was found lost (it stopped answering
/// liveness checks), with the reason: Open MPI's MPI_Finalize waits for every
/// process of the job, a dead one too, so finalizeMpi() must not call it.
std::string lostProcess;

void recordLostProcess(int mpiRank) {
  if (lostProcess.empty())
    lostProcess = "MPI_COMM_WORLD rank " + std::to_string(mpiRank) +
                  " stopped answering";
}

/// The liveness checks of one world: zero-byte messages on channel 0 of its
/// MPI communicator. Every wait of every communicator answers pings, so a
/// rank that is in a call (and only such a rank is ever asked) answers
/// within a poll, whatever it waits for.
class Liveness {
public:
  void start(MPI_Comm comm, int size) {
    comm_ = comm;
    lastAnswer_.assign(size, kNever);
  }

  /// Answers the pings that have arrived and takes in the answers.
  void poll() {
    if (comm_ == MPI_COMM_NULL)
      return;
    for (int kind : {kPing, kPong}) {
      for (;;) {
        int found = 0;
        MPI_Status status;
        if (MPI_Iprobe(MPI_ANY_SOURCE, kind, comm_, &found, &status) !=
                MPI_SUCCESS ||
            !found)
          break;
        // A probed zero-byte message: the receive returns at once.
        if (MPI_Recv(nullptr, 0, MPI_BYTE, status.MPI_SOURCE, kind, comm_,
                     MPI_STATUS_IGNORE) != MPI_SUCCESS)
          break;
        if (kind == kPing)
          send(status.MPI_SOURCE, kPong);
        else
          lastAnswer_[status.MPI_SOURCE] = Clock::now();
      }
    }
  }

  void ping(int mpiRank) { send(mpiRank, kPing); }
  bool answeredSince(int mpiRank, Clock::time_point asked) const {
    return lastAnswer_[mpiRank] >= asked;
  }

private:
  /// No buffer to keep: the request is freed at once (a ping to a dead rank
  /// never completes).
  void send(int mpiRank, int kind) {
    MPI_Request request = MPI_REQUEST_NULL;
    if (MPI_Isend(nullptr, 0, MPI_BYTE, mpiRank, kind, comm_, &request) ==
        MPI_SUCCESS)
      MPI_Request_free(&request);
  }

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
  void start(MPI_Comm comm, int tag, int size, std::vector<int> groupRanks) {
    comm_ = comm;
    tag_ = tag;
    groupRanks_ = std::move(groupRanks);
    notices_.resize(size);
    exited_.assign(size, false);
    expected_ = size - 1;
    post();
  }

  /// Takes in the notices that have arrived; returns whether any peer has
  /// left.
  bool poll() {
    while (request_ != MPI_REQUEST_NULL) {
      int done = 0;
      MPI_Status status;
      if (MPI_Test(&request_, &done, &status) != MPI_SUCCESS || !done)
        break;
      int source = status.MPI_SOURCE;
      int peer = source >= 0 && source < int(groupRanks_.size())
                     ? groupRanks_[source]
                     : -1;
      if (peer >= 0 && !exited_[peer]) {
        notices_[peer] = incoming_;
        exited_[peer] = true;
        ++received_;
      }
      post();
    }
    return received_ > 0;
  }

  /// The notice of `peer`, or nullptr while it has not left.
  const ExitNotice *notice(int peer) const {
    return exited_[peer] ? &notices_[peer] : nullptr;
  }
  bool complete() const { return received_ >= expected_; }

  /// Withdraws the posted receive (when peers are still missing).
  void cancel() {
    if (request_ == MPI_REQUEST_NULL)
      return;
    MPI_Cancel(&request_);
    MPI_Wait(&request_, MPI_STATUS_IGNORE);
  }

private:
  void post() {
    if (complete())
      return;
    if (MPI_Irecv(&incoming_, sizeof(ExitNotice), MPI_BYTE, MPI_ANY_SOURCE,
                  tag_, comm_, &request_) != MPI_SUCCESS)
      request_ = MPI_REQUEST_NULL;
  }

  MPI_Comm comm_ = MPI_COMM_NULL;
  int tag_ = 0;
  std::vector<int> groupRanks_;
  MPI_Request request_ = MPI_REQUEST_NULL;
  ExitNotice incoming_;
  std::vector<ExitNotice> notices_;
  std::vector<bool> exited_;
  int expected_ = 0, received_ = 0;
};

/// Polls before a wait starts yielding the core (and looks for exits).
constexpr int kSpinPolls = 64;

/// Between two polls of a wait: spin briefly for latency, then yield the
/// core, since ranks often share cores with each other.
void pauseAfter(int polls) {
  if (polls < kSpinPolls)
    return;
  if (polls < 1024)
    sched_yield();
  else
    std::this_thread::sleep_for(std::chrono::microseconds(50));
}

/// Requests in flight on one communicator, with the rank each one talks to.
class RequestSet {
public:
  /// `ranks[peer]` is the MPI rank in `comm` of communicator rank `peer`.
  RequestSet(MPI_Comm comm, const std::vector<int> &ranks, Liveness &liveness)
      : comm_(comm), ranks_(ranks), liveness_(liveness),
        lost_(ranks.size(), false) {}
  RequestSet(const RequestSet &) = delete;
  RequestSet &operator=(const RequestSet &) = delete;

  void send(const void *data, size_t bytes, int peer, int tag) {
    post(
        peer, /*receive=*/false,
        [&](const char *piece, int length, MPI_Request *request) {
          return MPI_Isend(piece, length, MPI_BYTE, ranks_[peer], tag, comm_,
                           request);
        },
        static_cast<const char *>(data), bytes);
  }
  void recv(void *data, size_t bytes, int peer, int tag) {
    post(
        peer, /*receive=*/true,
        [&](const char *piece, int length, MPI_Request *request) {
          return MPI_Irecv(const_cast<char *>(piece), length, MPI_BYTE,
                           ranks_[peer], tag, comm_, request);
        },
        static_cast<const char *>(data), bytes);
  }

  /// Polls until every request completes, an MPI call fails, the deadline
  /// passes, a peer it waits for has left without making the call
  /// (`madeCall(peer, notice)` is false), or, without a deadline, a peer it
  /// waits for stops answering (see the file comment; `timeoutMs` sets the
  /// intervals). On failure the requests stay in flight: settle() must
  /// withdraw them.
  template <typename MadeCall>
  precrt_status_t wait(Clock::time_point deadline, int64_t timeoutMs,
                       const std::string &what, PeerExits &exits,
                       MadeCall madeCall) {
    if (postError_ != MPI_SUCCESS)
      return fail(PRECRT_ERROR_BACKEND, "%s: %s", what.c_str(),
                  mpiErrorText(postError_).c_str());
    std::vector<int> completed(requests_.size());
    size_t remaining = requests_.size();
    timeoutMs_ = timeoutMs;
    Watch watch(ranks_.size());
    for (int polls = 0; remaining > 0; ++polls) {
      int count = 0;
      int rc = MPI_Testsome(int(requests_.size()), requests_.data(), &count,
                            completed.data(), MPI_STATUSES_IGNORE);
      if (rc != MPI_SUCCESS)
        return fail(PRECRT_ERROR_BACKEND, "%s: %s", what.c_str(),
                    mpiErrorText(rc).c_str());
      if (count == MPI_UNDEFINED)
        break;
      remaining -= count;
      if (remaining == 0)
        break;
      if (count > 0)
        watch.progressed();
      if (Clock::now() >= deadline) {
        std::string missing;
        std::vector<int> missingPeers;
        for (size_t i = 0; i < requests_.size(); ++i) {
          if (requests_[i] == MPI_REQUEST_NULL ||
              std::find(missingPeers.begin(), missingPeers.end(), peers_[i]) !=
                  missingPeers.end())
            continue;
          missingPeers.push_back(peers_[i]);
          missing += (missing.empty() ? "rank " : ", rank ") +
                     std::to_string(peers_[i]);
        }
        if (missingPeers.size() == 1)
          lostPeer_ = missingPeers.front();
        return fail(PRECRT_ERROR_TIMEOUT, "%s timed out waiting for %s",
                    what.c_str(), missing.c_str());
      }
      // Past the spin, a wait is long enough to afford a look for exits.
      if (polls >= kSpinPolls && exits.poll()) {
        for (size_t i = 0; i < requests_.size(); ++i) {
          if (requests_[i] == MPI_REQUEST_NULL)
            continue;
          const ExitNotice *notice = exits.notice(peers_[i]);
          if (notice && !madeCall(peers_[i], *notice)) {
            lostPeer_ = int(notice->lostPeer);
            return fail(PRECRT_ERROR_PEER_FAILED, "%s",
                        peerLeft(peers_[i], *notice, what).c_str());
          }
        }
      }
      if (polls >= kSpinPolls) {
        liveness_.poll();
        // The exchange of descriptors has its deadline instead.
        int silent = deadline == kNoDeadline
                         ? silentPeer(watch, [](size_t) { return true; })
                         : -1;
        if (silent >= 0) {
          lost_[silent] = true;
          lostPeer_ = silent;
          recordLostProcess(ranks_[silent]);
          return fail(PRECRT_ERROR_PEER_FAILED, "%s",
                      peerLost(silent, what, replyMs()).c_str());
        }
      }
      pauseAfter(polls);
    }
    clear();
    return PRECRT_SUCCESS;
  }

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
  template <typename MadeCall, typename Leaving>
  void settle(bool retirable, PeerExits &exits, MadeCall madeCall,
              Leaving leaving) {
    for (size_t i = 0; i < requests_.size(); ++i)
      if (receives_[i] && requests_[i] != MPI_REQUEST_NULL)
        MPI_Cancel(&requests_[i]);
    auto lost = [&](size_t i) { return bool(lost_[peers_[i]]); };
    complete(
        retirable, exits, [&](size_t i) { return bool(receives_[i]); }, lost);
    leaving();
    complete(
        retirable, exits, [&](size_t i) { return !receives_[i]; },
        [&](size_t i) {
          const ExitNotice *notice = exits.notice(peers_[i]);
          return lost(i) || (notice && !madeCall(peers_[i], *notice));
        });
    for (MPI_Request &request : requests_) {
      if (request == MPI_REQUEST_NULL)
        continue;
      MPI_Request_free(&request);
      holdsBuffers_ = true;
    }
    clear();
  }

  bool holdsBuffers() const { return holdsBuffers_; }
  /// The peer the failed wait gave up on (one that stopped answering, or
  /// the only one missing at the deadline), or the one named by the notice
  /// that failed it; -1 if none.
  int lostPeer() const { return lostPeer_; }

  /// Payload bytes of the sends and receives posted so far.
  size_t bytesSent() const { return bytesSent_; }
  size_t bytesReceived() const { return bytesReceived_; }

private:
  /// What silentPeer() knows of one wait: when something last completed,
  /// and per peer when it was asked (kNever: not now) and when to ask it
  /// again after it answered.
  struct Watch {
    explicit Watch(size_t peers) : asked(peers, kNever), askAgain(peers, kNever) {}
    void progressed() {
      lastProgress = Clock::now();
      std::fill(asked.begin(), asked.end(), kNever);
    }
    Clock::time_point lastProgress = Clock::now();
    std::vector<Clock::time_point> asked, askAgain;
  };

  std::chrono::milliseconds stallAfter() const {
    return std::chrono::milliseconds(timeoutMs_ / 2);
  }
  int64_t replyMs() const { return std::max(timeoutMs_ / 2, kMinReplyMs); }

  /// Once nothing has completed for half the timeout, asks each peer that a
  /// request picked by `selected` waits for whether it is alive. Returns a
  /// peer that has not answered within replyMs(), or -1.
  template <typename Selected>
  int silentPeer(Watch &watch, Selected selected) {
    auto now = Clock::now();
    if (now - watch.lastProgress < stallAfter())
      return -1;
    for (size_t i = 0; i < requests_.size(); ++i) {
      int peer = peers_[i];
      if (requests_[i] == MPI_REQUEST_NULL || !selected(i) || lost_[peer])
        continue;
      int mpiRank = ranks_[peer];
      if (watch.asked[peer] == kNever) {
        if (now >= watch.askAgain[peer]) {
          liveness_.ping(mpiRank);
          watch.asked[peer] = now;
        }
      } else if (liveness_.answeredSince(mpiRank, watch.asked[peer])) {
        watch.asked[peer] = kNever;
        watch.askAgain[peer] = now + stallAfter();
      } else if (now - watch.asked[peer] >=
                 std::chrono::milliseconds(replyMs())) {
        return peer;
      }
    }
    return -1;
  }

  template <typename Post>
  void post(int peer, bool receive, Post postPiece, const char *data,
            size_t bytes) {
    size_t offset = 0;
    do {
      size_t length = std::min(bytes - offset, kMaxMessageBytes);
      MPI_Request request = MPI_REQUEST_NULL;
      int rc = postPiece(data + offset, int(length), &request);
      (receive ? bytesReceived_ : bytesSent_) += length;
      if (rc != MPI_SUCCESS && postError_ == MPI_SUCCESS)
        postError_ = rc;
      requests_.push_back(request);
      peers_.push_back(peer);
      receives_.push_back(receive);
      offset += length;
    } while (offset < bytes);
  }

  /// Polls the requests that `selected` picks until each completes,
  /// `unneeded` lets it go, or its peer stops answering (a single pass when
  /// `once`).
  template <typename Selected, typename Unneeded>
  void complete(bool once, PeerExits &exits, Selected selected,
                Unneeded unneeded) {
    Watch watch(ranks_.size());
    for (int polls = 0;; ++polls) {
      bool pending = false, progressed = false;
      for (size_t i = 0; i < requests_.size(); ++i) {
        if (requests_[i] == MPI_REQUEST_NULL || !selected(i))
          continue;
        int done = 0;
        // An MPI that fails here can tell nothing more.
        if (MPI_Test(&requests_[i], &done, MPI_STATUS_IGNORE) != MPI_SUCCESS)
          return;
        progressed = progressed || done;
        pending = pending || (!done && !unneeded(i) && !lost_[peers_[i]]);
      }
      if (!pending || once)
        return;
      if (progressed)
        watch.progressed();
      exits.poll();
      liveness_.poll();
      int silent = silentPeer(watch, [&](size_t i) {
        return selected(i) && !unneeded(i);
      });
      if (silent >= 0) {
        lost_[silent] = true;
        recordLostProcess(ranks_[silent]);
      }
      pauseAfter(polls);
    }
  }

  void clear() {
    requests_.clear();
    peers_.clear();
    receives_.clear();
  }

  MPI_Comm comm_;
  const std::vector<int> &ranks_;
  Liveness &liveness_;
  std::vector<MPI_Request> requests_;
  std::vector<int> peers_;
  std::vector<bool> receives_;
  int postError_ = MPI_SUCCESS;
  bool holdsBuffers_ = false;
  size_t bytesSent_ = 0;
  size_t bytesReceived_ = 0;
  int64_t timeoutMs_ = 0;
  /// Peers that stopped answering: nothing more is waited for from them.
  std::vector<bool> lost_;
  int lostPeer_ = -1;
};

/// Receives and drops every message still waiting on `comm` with a tag in
/// [firstTag, firstTag + tags): descriptors of calls this rank never made.
/// Returns false if one could not be taken in by the deadline.
bool drainUnreceived(MPI_Comm comm, int firstTag, int tags,
                     Clock::time_point deadline) {
  for (int tag = firstTag; tag < firstTag + tags;) {
    int found = 0, bytes = 0;
    MPI_Status status;
    if (MPI_Iprobe(MPI_ANY_SOURCE, tag, comm, &found, &status) != MPI_SUCCESS)
      return false;
    if (!found) {
      ++tag;
      continue;
    }
    if (MPI_Get_count(&status, MPI_BYTE, &bytes) != MPI_SUCCESS)
      return false;
    std::unique_ptr<char[]> scratch(new char[std::max(bytes, 1)]);
    MPI_Request request = MPI_REQUEST_NULL;
    if (MPI_Irecv(scratch.get(), bytes, MPI_BYTE, status.MPI_SOURCE,
                  status.MPI_TAG, comm, &request) != MPI_SUCCESS)
      return false;
    int done = 0;
    while (MPI_Test(&request, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS &&
           !done && Clock::now() < deadline)
      sched_yield();
    if (!done) {
      // A matched receive cannot be cancelled: MPI keeps the buffer.
      MPI_Request_free(&request);
      scratch.release();
      return false;
    }
  }
  return true;
}

/// What the communicators of one world share.
struct MpiWorld {
  /// The duplicate of MPI_COMM_WORLD that every message travels on.
  MPI_Comm comm = MPI_COMM_NULL;
  /// Channels that MPI's tags allow, and the first one this rank has not
  /// used (the world itself uses channel 0).
  uint32_t channels = 0;
  uint32_t nextChannel = 1;
  Liveness liveness;
};

class MpiCommunicator;

/// Every MPI communicator of this process: the world announces the exit for
/// all of them (see announceExit). Not function-local, so that it outlives a
/// world destroyed at exit.
std::vector<MpiCommunicator *> liveCommunicators;

class MpiCommunicator final : public Communicator {
public:
  /// The world: channel 0 of `world`, which it owns.
  MpiCommunicator(std::unique_ptr<MpiWorld> world, int rank, int size,
                  int64_t timeoutMs)
      : MpiCommunicator(world.get(), 0, rank, size, timeoutMs, {}) {
    ownedWorld_ = std::move(world);
  }
  /// A group: `ranks[r]` is the world rank of its rank r.
  MpiCommunicator(MpiWorld *world, uint32_t channel, int rank, int size,
                  int64_t timeoutMs, std::vector<int> ranks)
      : Communicator(PRECRT_BACKEND_MPI, rank, size, timeoutMs), world_(world),
        comm_(world->comm), channel_(channel), ranks_(std::move(ranks)),
        sendsTo_(size, 0), receivesFrom_(size, 0) {
    if (ranks_.empty())
      for (int peer = 0; peer < size; ++peer)
        ranks_.push_back(peer);
    int worldSize = 0;
    MPI_Comm_size(comm_, &worldSize);
    std::vector<int> groupRanks(worldSize, -1);
    for (int peer = 0; peer < size; ++peer)
      groupRanks[ranks_[peer]] = peer;
    exits_.start(comm_, tag(kExitNotice), size, std::move(groupRanks));
    liveCommunicators.push_back(this);
  }

  ~MpiCommunicator() override {
    int finalized = 0;
    MPI_Finalized(&finalized);
    // The world goes first, while its groups still exist.
    if (ownedWorld_ && !finalized) {
      if (!brokenReason().empty())
        lookForLostProcesses();
      if (announceExit())
        MPI_Comm_free(&ownedWorld_->comm);
    }
    liveCommunicators.erase(
        std::find(liveCommunicators.begin(), liveCommunicators.end(), this));
  }

  /// A peer has left once its exit notice is in (its world ended, or it
  /// gave up on this communicator).
  bool peerHasLeft(int peer, const std::string &what,
                   std::string &reason) override {
    exits_.poll();
    const ExitNotice *notice = exits_.notice(peer);
    if (!notice)
      return false;
    reason = peerLeft(peer, *notice, what);
    return true;
  }

protected:
  precrt_status_t runCollective(const CollectiveCall &call) override;
  precrt_status_t runPointToPoint(const PointToPointCall &call,
                                  const CallDescriptor &sendHeader,
                                  const CallDescriptor &recvHeader) override;
  precrt_status_t createGroup(const GridGroup &membership,
                              std::unique_ptr<Communicator> *result) override;

private:
  /// Waits for `requests`; a peer that left fails the wait unless
  /// `madeCall(peer, notice)` says it made the call before it left. On
  /// failure this rank gives up on the communicator: `uncount()` takes the
  /// call out of its counts, and the requests are settled (see
  /// RequestSet::settle), telling the peers on the way.
  template <typename MadeCall, typename Uncount>
  precrt_status_t finish(RequestSet &requests, Clock::time_point deadline,
                         const std::string &what, bool retirable,
                         MadeCall madeCall, Uncount uncount) {
    precrt_status_t status =
        requests.wait(deadline, timeoutMs(), what, exits_, madeCall);
    if (status == PRECRT_SUCCESS) {
      // Only the data phase waits without a deadline; descriptors and
      // headers are not payload.
      if (deadline == kNoDeadline)
        countTraffic(requests.bytesSent(), requests.bytesReceived());
      return status;
    }
    std::string reason = lastErrorMessage();
    lostPeer_ = requests.lostPeer();
    requests.settle(retirable, exits_, madeCall, [&] {
      uncount();
      giveUp(reason);
    });
    return fail(status, "%s", reason.c_str());
  }
  /// For the messages of a collective.
  precrt_status_t finish(RequestSet &requests, const CollectiveCall &call,
                         Clock::time_point deadline, const std::string &what,
                         bool retirable) {
    uint64_t sequence = call.descriptor.sequence;
    return finish(
        requests, deadline, what, retirable,
        [sequence](int, const ExitNotice &notice) {
          return notice.collectives > sequence;
        },
        [&] { collectivesMade_ = sequence; });
  }

  /// Fails a collective whose descriptors are all in if a peer has already
  /// left without it.
  precrt_status_t checkPeersStayed(const CollectiveCall &call,
                                   const std::string &what);
  /// Marks the communicator broken and tells the peers at once that this
  /// rank left it.
  void giveUp(const std::string &reason) {
    markBroken(reason);
    sendNotices(/*gaveUp=*/true);
  }
  void sendNotices(bool gaveUp);
  /// Withdraws notices still not sent; their memory stays for MPI.
  void retireNotices();

  int tag(MessageKind kind) const {
    return int(channel_) * kTagsPerChannel + kind;
  }

  precrt_status_t ringReduce(const CollectiveCall &call, size_t chunkElements,
                             bool equalChunks, const std::string &what,
                             void *out);

  static bool announceExit();
  void lookForLostProcesses();

  MpiWorld *world_;
  std::unique_ptr<MpiWorld> ownedWorld_;
  MPI_Comm comm_;
  uint32_t channel_;
  /// The world rank of each rank.
  std::vector<int> ranks_;
  PeerExits exits_;
  /// What this rank made, for its exit notices: collectives, and
  /// point-to-point messages per peer.
  uint64_t collectivesMade_ = 0;
  std::vector<uint64_t> sendsTo_, receivesFrom_;
  /// The peer that stopped answering in the call this rank gave up on, or -1.
  int lostPeer_ = -1;
  /// The notices this rank sent (read by MPI in place) and their sends.
  bool noticesSent_ = false;
  std::vector<ExitNotice> notices_;
  std::vector<MPI_Request> noticeSends_;
  std::vector<char> partial_, incoming_;
  /// The channel the last grid split chose, for createGroup.
  uint32_t splitChannel_ = 0;
};

/// Tells every peer how many calls this rank made here; it makes no more.
void MpiCommunicator::sendNotices(bool gaveUp) {
  if (noticesSent_)
    return;
  noticesSent_ = true;
  notices_.reserve(size()); // the sends read them in place
  for (int peer = 0; peer < size(); ++peer) {
    if (peer == rank())
      continue;
    notices_.push_back({collectivesMade_, sendsTo_[peer], receivesFrom_[peer],
                        uint64_t(gaveUp), gaveUp ? lostPeer_ : -1});
    MPI_Request request = MPI_REQUEST_NULL;
    if (MPI_Isend(&notices_.back(), sizeof(ExitNotice), MPI_BYTE, ranks_[peer],
                  tag(kExitNotice), comm_, &request) == MPI_SUCCESS)
      noticeSends_.push_back(request);
  }
}

void MpiCommunicator::retireNotices() {
  bool pending = false;
  for (MPI_Request &request : noticeSends_) {
    if (request == MPI_REQUEST_NULL)
      continue;
    MPI_Cancel(&request);
    MPI_Request_free(&request);
    pending = true;
  }
  noticeSends_.clear();
  // A send that could not be cancelled still reads its notice.
  if (pending)
    retire(notices_);
}

/// The end of this rank's world: every communicator of the process that this
/// rank has not given up on tells its peers how many calls this rank made,
/// then the notices of the peers are collected (for at most the longest
/// timeout), so that none is left unmatched at MPI_Finalize. Last, it takes
/// in the descriptors peers sent for calls this rank never made: left there,
/// they would be delivered to a later communicator that MPI gives the same
/// context id. Returns whether the world's MPI communicator may be freed.
bool MpiCommunicator::announceExit() {
  int64_t timeoutMs = 0;
  for (MpiCommunicator *comm : liveCommunicators) {
    timeoutMs = std::max(timeoutMs, comm->timeoutMs());
    comm->sendNotices(/*gaveUp=*/false);
  }
  // A communicator given up on is kept (below): its peers' notices do not
  // matter.
  auto givenUp = [](MpiCommunicator *comm) {
    return !comm->brokenReason().empty();
  };
  const auto deadline = Clock::now() + std::chrono::milliseconds(timeoutMs);
  for (int polls = 0;; ++polls) {
    bool complete = true, sent = true, failed = false;
    for (MpiCommunicator *comm : liveCommunicators) {
      comm->exits_.poll();
      comm->world_->liveness.poll();
      complete = complete && (givenUp(comm) || comm->exits_.complete());
      int done = 0;
      failed = failed || MPI_Testall(int(comm->noticeSends_.size()),
                                     comm->noticeSends_.data(), &done,
                                     MPI_STATUSES_IGNORE) != MPI_SUCCESS;
      sent = sent && done;
    }
    if (failed || (complete && sent) || Clock::now() >= deadline)
      break;
    // Peers may compute for a long while yet: leave them the core.
    if (polls < 1024)
      sched_yield();
    else
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  for (MpiCommunicator *comm : liveCommunicators)
    comm->retireNotices();
  // Each peer sent its notice after its last message to this rank.
  const auto drainDeadline =
      Clock::now() + std::chrono::milliseconds(timeoutMs);
  bool drained = true;
  for (MpiCommunicator *comm : liveCommunicators) {
    // A communicator given up on keeps what it holds: peers that left sends
    // to this rank in flight after its notice freed their buffers, and
    // matching such a send would make their MPI read that memory. Where a
    // peer may still send, the world's MPI communicator is kept too, so that
    // late messages cannot reach a later one with the same context id (Open
    // MPI even matches them against the parent while it agrees on the id).
    drained =
        drained && !givenUp(comm) && comm->exits_.complete() &&
        drainUnreceived(comm->comm_, int(comm->channel_) * kTagsPerChannel,
                        kTagsPerChannel, drainDeadline);
    comm->exits_.cancel();
  }
  return drained;
}

/// A world given up on asks each peer whose notice is not in whether it is
/// alive, and records one that neither answers nor leaves within the timeout
/// as lost (see lostProcess): a process killed in the middle of a call may
/// never have been waited for in a data phase here.
void MpiCommunicator::lookForLostProcesses() {
  Liveness &liveness = world_->liveness;
  exits_.poll();
  const auto asked = Clock::now();
  std::vector<int> unknown;
  for (int peer = 0; peer < size(); ++peer) {
    if (peer == rank() || exits_.notice(peer))
      continue;
    liveness.ping(ranks_[peer]);
    unknown.push_back(peer);
  }
  // Peers may still be busy outside precrt: they get the whole timeout.
  const auto replyWait =
      std::chrono::milliseconds(std::max(timeoutMs(), kMinReplyMs));
  for (int polls = 0; !unknown.empty(); ++polls) {
    liveness.poll();
    exits_.poll();
    unknown.erase(std::remove_if(unknown.begin(), unknown.end(),
                                 [&](int peer) {
                                   return exits_.notice(peer) ||
                                          liveness.answeredSince(ranks_[peer],
                                                                 asked);
                                 }),
                  unknown.end());
    if (!unknown.empty() && Clock::now() - asked >= replyWait) {
      recordLostProcess(ranks_[unknown.front()]);
      return;
    }
    pauseAfter(polls);
  }
}

/// A peer gives up on a call when it misses a descriptor by its deadline,
/// possibly after its own descriptor reached this rank: a call that moves no
/// data (barrier, grid split, agreement) would then succeed here alone. A
/// notice still on its way is missed; then the peer's absence shows in the
/// next call.
precrt_status_t MpiCommunicator::checkPeersStayed(const CollectiveCall &call,
                                                  const std::string &what) {
  const uint64_t sequence = call.descriptor.sequence;
  exits_.poll();
  for (int peer = 0; peer < size(); ++peer) {
    const ExitNotice *notice = exits_.notice(peer);
    if (!notice || notice->collectives > sequence)
      continue;
    std::string reason = peerLeft(peer, *notice, what);
    collectivesMade_ = sequence;
    giveUp(reason);
    return fail(PRECRT_ERROR_PEER_FAILED, "%s", reason.c_str());
  }
  return PRECRT_SUCCESS;
}

precrt_status_t MpiCommunicator::runCollective(const CollectiveCall &call) {
  const std::string what = describeCall(call.descriptor);
  const int n = size(), me = rank();
  collectivesMade_ = call.descriptor.sequence + 1;

  // The descriptors travel in memory of the runtime's own, retired if the
  // exchange fails with messages still in flight.
  std::vector<CallDescriptor> descriptors(n);
  descriptors[me] = call.descriptor;
  // A grid split offers the first channel this rank has free for the group.
  if (call.op() == CollectiveOp::GridSplit && !call.agreementOnly)
    descriptors[me].backendWord = world_->nextChannel;
  {
    RequestSet requests(comm_, ranks_, world_->liveness);
    for (int peer = 0; peer < n; ++peer) {
      if (peer == me)
        continue;
      requests.send(&descriptors[me], sizeof(CallDescriptor), peer,
                    tag(kCollectiveHeader));
      requests.recv(&descriptors[peer], sizeof(CallDescriptor), peer,
                    tag(kCollectiveHeader));
    }
    precrt_status_t status =
        finish(requests, call, deadline(), what, /*retirable=*/true);
    if (requests.holdsBuffers())
      retire(descriptors);
    if (status != PRECRT_SUCCESS)
      return status;
  }
  if (precrt_status_t status = checkAgreement(descriptors.data(), n, me))
    return status;
  // A call that moves data notices a peer that left in its wait; one that
  // moves none must look.
  if (call.agreementOnly || call.count() == 0) {
    if (precrt_status_t status = checkPeersStayed(call, what))
      return status;
  }
  if (call.agreementOnly)
    return PRECRT_SUCCESS;

  // Every rank has arrived: the data moves without a deadline (see the file
  // comment).
  const size_t bytes = byteSize(call.dtype(), call.count());
  const char *send = static_cast<const char *>(call.send);
  char *recv = static_cast<char *>(call.recv);
  auto copyLocal = [](void *dst, const void *src, size_t length) {
    if (dst != src && length)
      std::memcpy(dst, src, length);
  };
  RequestSet requests(comm_, ranks_, world_->liveness);
  switch (call.op()) {
  case CollectiveOp::Barrier:
  case CollectiveOp::PointToPoint:
    return PRECRT_SUCCESS;
  case CollectiveOp::GridSplit: {
    // The group takes the highest channel offered: free on every rank, and
    // the same on all (groups of one split have no rank in common).
    uint32_t channel = 0;
    for (const CallDescriptor &descriptor : descriptors)
      channel = std::max(channel, descriptor.backendWord);
    if (channel >= world_->channels)
      return fail(PRECRT_ERROR_BACKEND,
                  "%s: out of MPI tags for another group (%u channels of %d "
                  "tags)",
                  what.c_str(), world_->channels, kTagsPerChannel);
    world_->nextChannel = channel + 1;
    splitChannel_ = channel;
    return PRECRT_SUCCESS;
  }
  // Pairwise order: in round k a rank receives from me - k and sends to
  // me + k, so that each sender's data has one reader at a time instead of
  // every rank reading rank 0's first. Receives are posted first, so that a
  // send finds its receive already waiting.
  case CollectiveOp::AllGather:
    for (int offset = 1; offset < n && bytes; ++offset) {
      int from = (me + n - offset) % n, to = (me + offset) % n;
      requests.recv(recv + from * bytes, bytes, from, tag(kCollectiveData));
      requests.send(send, bytes, to, tag(kCollectiveData));
    }
    copyLocal(recv + me * bytes, send, bytes);
    return finish(requests, call, kNoDeadline, what, /*retirable=*/false);
  case CollectiveOp::AllToAll:
    for (int offset = 1; offset < n && bytes; ++offset) {
      int from = (me + n - offset) % n, to = (me + offset) % n;
      requests.recv(recv + from * bytes, bytes, from, tag(kCollectiveData));
      requests.send(send + to * bytes, bytes, to, tag(kCollectiveData));
    }
    copyLocal(recv + me * bytes, send + me * bytes, bytes);
    return finish(requests, call, kNoDeadline, what, /*retirable=*/false);
  case CollectiveOp::Broadcast: {
    int root = call.descriptor.root;
    if (bytes && me == root) {
      for (int peer = 0; peer < n; ++peer)
        if (peer != me)
          requests.send(send, bytes, peer, tag(kCollectiveData));
      copyLocal(recv, send, bytes);
    } else if (bytes) {
      requests.recv(recv, bytes, root, tag(kCollectiveData));
    }
    return finish(requests, call, kNoDeadline, what, /*retirable=*/false);
  }
  case CollectiveOp::ReduceScatter:
    return ringReduce(call, call.count(), /*equalChunks=*/true, what, recv);
  case CollectiveOp::AllReduce: {
    size_t elementSize = precrtDtypeSize(call.dtype());
    auto [mineBegin, mineEnd] = chunkRange(call.count(), n, me);
    if (precrt_status_t status =
            ringReduce(call, 0, /*equalChunks=*/false, what,
                       recv + mineBegin * elementSize))
      return status;
    // Gather the reduced chunks: every rank owns one.
    for (int peer = 0; peer < n; ++peer) {
      if (peer == me)
        continue;
      auto [peerBegin, peerEnd] = chunkRange(call.count(), n, peer);
      if (mineEnd > mineBegin)
        requests.send(recv + mineBegin * elementSize,
                      (mineEnd - mineBegin) * elementSize, peer,
                      tag(kCollectiveData));
      if (peerEnd > peerBegin)
        requests.recv(recv + peerBegin * elementSize,
                      (peerEnd - peerBegin) * elementSize, peer,
                      tag(kCollectiveData));
    }
    return finish(requests, call, kNoDeadline, what, /*retirable=*/false);
  }
  }
  return PRECRT_SUCCESS;
}

/// Ring reduce-scatter. With equalChunks, chunk c is elements
/// [c * chunkElements, (c + 1) * chunkElements) of the send buffer (reduce
/// scatter); otherwise chunkRange(count, n, c) (all_reduce). At step s rank r
/// passes the partial of chunk r - 1 - s to its right neighbour and adds its
/// own elements to the partial of chunk r - 2 - s from its left; after n - 1
/// steps it holds chunk r, reduced in the order r + 1, r + 2, ..., r. Only
/// the communicator's own buffers travel, so a failed step retires them
/// rather than wait for MPI to let go of them.
precrt_status_t MpiCommunicator::ringReduce(const CollectiveCall &call,
                                            size_t chunkElements,
                                            bool equalChunks,
                                            const std::string &what,
                                            void *out) {
  const int n = size(), me = rank();
  const precrt_dtype_t dtype = call.dtype();
  const size_t elementSize = precrtDtypeSize(dtype);
  auto chunk = [&](int index) -> std::pair<size_t, size_t> {
    index = ((index % n) + n) % n;
    if (equalChunks)
      return {index * chunkElements, (index + 1) * chunkElements};
    return chunkRange(call.count(), n, index);
  };
  const char *send = static_cast<const char *>(call.send);
  auto ownElements = [&](int index) { return send + chunk(index).first * elementSize; };
  auto chunkBytes = [&](int index) {
    auto [begin, end] = chunk(index);
    return (end - begin) * elementSize;
  };

  size_t largest = 0;
  for (int index = 0; index < n; ++index)
    largest = std::max(largest, chunkBytes(index));
  partial_.resize(largest);
  incoming_.resize(largest);
  const int right = (me + 1) % n, left = (me + n - 1) % n;

  if (n > 1 && chunkBytes(me - 1))
    std::memcpy(partial_.data(), ownElements(me - 1), chunkBytes(me - 1));
  for (int step = 0; step < n - 1; ++step) {
    int sendIndex = me - 1 - step, recvIndex = me - 2 - step;
    RequestSet requests(comm_, ranks_, world_->liveness);
    if (chunkBytes(sendIndex))
      requests.send(partial_.data(), chunkBytes(sendIndex), right,
                    tag(kCollectiveData));
    if (chunkBytes(recvIndex))
      requests.recv(incoming_.data(), chunkBytes(recvIndex), left,
                    tag(kCollectiveData));
    precrt_status_t status =
        finish(requests, call, kNoDeadline, what, /*retirable=*/true);
    if (requests.holdsBuffers()) {
      retire(partial_);
      retire(incoming_);
    }
    if (status != PRECRT_SUCCESS)
      return status;
    size_t elements = chunkBytes(recvIndex) / elementSize;
    accumulate(incoming_.data(), ownElements(recvIndex), elements, dtype,
               call.reduction());
    std::swap(partial_, incoming_);
  }
  size_t elements = chunkBytes(me) / elementSize;
  if (n == 1 && elements)
    std::memcpy(partial_.data(), ownElements(me), chunkBytes(me));
  if (call.reduction() == PRECRT_REDUCTION_AVG)
    divideInPlace(partial_.data(), elements, dtype, n);
  if (elements)
    std::memmove(out, partial_.data(), chunkBytes(me));
  return PRECRT_SUCCESS;
}

precrt_status_t
MpiCommunicator::runPointToPoint(const PointToPointCall &call,
                                 const CallDescriptor &sendHeader,
                                 const CallDescriptor &recvHeader) {
  const std::string what = "send/recv";
  // The exit notices count this call unless it is given up on midway.
  auto count = [&](uint64_t made) {
    if (call.sendPeer >= 0)
      sendsTo_[call.sendPeer] = sendHeader.sequence + made;
    if (call.recvPeer >= 0)
      receivesFrom_[call.recvPeer] = recvHeader.sequence + made;
  };
  count(1);
  // A peer that left before its side of this exchange will not make it.
  auto finishPart = [&](RequestSet &requests, Clock::time_point deadline,
                        bool retirable) {
    return finish(
        requests, deadline, what, retirable,
        [&](int peer, const ExitNotice &notice) {
          return (peer != call.sendPeer ||
                  notice.receivesFrom > sendHeader.sequence) &&
                 (peer != call.recvPeer ||
                  notice.sendsTo > recvHeader.sequence);
        },
        [&] { count(0); });
  };
  // Both ends exchange what they intend, so both detect a disagreement; the
  // headers travel in memory of the runtime's own (see runCollective).
  enum { kSent, kExpected, kPeerExpects, kPeerSends, kHeaders };
  std::vector<CallDescriptor> headers(kHeaders);
  headers[kSent] = sendHeader;
  headers[kExpected] = recvHeader;
  {
    RequestSet requests(comm_, ranks_, world_->liveness);
    if (call.sendPeer >= 0) {
      requests.send(&headers[kSent], sizeof(CallDescriptor), call.sendPeer,
                    tag(kSendHeader));
      requests.recv(&headers[kPeerExpects], sizeof(CallDescriptor),
                    call.sendPeer, tag(kExpectedHeader));
    }
    if (call.recvPeer >= 0) {
      requests.send(&headers[kExpected], sizeof(CallDescriptor), call.recvPeer,
                    tag(kExpectedHeader));
      requests.recv(&headers[kPeerSends], sizeof(CallDescriptor), call.recvPeer,
                    tag(kSendHeader));
    }
    precrt_status_t status =
        finishPart(requests, deadline(), /*retirable=*/true);
    if (requests.holdsBuffers())
      retire(headers);
    if (status != PRECRT_SUCCESS)
      return status;
  }
  if (call.recvPeer >= 0) {
    if (precrt_status_t status = checkPairAgreement(
            headers[kPeerSends], recvHeader, call.recvPeer, rank()))
      return status;
  }
  if (call.sendPeer >= 0) {
    if (precrt_status_t status = checkPairAgreement(
            sendHeader, headers[kPeerExpects], rank(), call.sendPeer))
      return status;
  }
  if (call.agreementOnly)
    return PRECRT_SUCCESS;
  size_t elementSize = precrtDtypeSize(call.dtype);
  RequestSet requests(comm_, ranks_, world_->liveness);
  if (call.sendPeer >= 0 && call.sendCount)
    requests.send(call.send, call.sendCount * elementSize, call.sendPeer,
                  tag(kPointToPointData));
  if (call.recvPeer >= 0 && call.recvCount)
    requests.recv(call.recv, call.recvCount * elementSize, call.recvPeer,
                  tag(kPointToPointData));
  return finishPart(requests, kNoDeadline, /*retirable=*/false);
}

precrt_status_t
MpiCommunicator::createGroup(const GridGroup &membership,
                             std::unique_ptr<Communicator> *result) {
  // No MPI call: the group talks on the channel its split chose, so there is
  // nothing for a rank that does not follow the agreement to block.
  std::vector<int> ranks;
  for (int member : membership.members)
    ranks.push_back(ranks_[member]);
  *result = std::make_unique<MpiCommunicator>(
      world_, splitChannel_, membership.rankInGroup,
      int(membership.members.size()), timeoutMs(), std::move(ranks));
  return PRECRT_SUCCESS;
}

bool initializedMpiHere = false;

} // namespace

precrt_status_t mpiBackendAvailable() { return PRECRT_SUCCESS; }

precrt_status_t createMpiWorld(int64_t timeoutMs,
                               std::unique_ptr<Communicator> *world) {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (finalized)
    return fail(PRECRT_ERROR_UNAVAILABLE,
                "MPI was already finalized in this process and cannot start "
                "again");
  if (!initialized) {
    int provided = 0;
    int rc = MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided);
    if (rc != MPI_SUCCESS)
      return fail(PRECRT_ERROR_BACKEND, "MPI_Init_thread failed: %s",
                  mpiErrorText(rc).c_str());
    initializedMpiHere = true;
  }
  // A program that initialized MPI itself keeps its own error handler on
  // MPI_COMM_WORLD; precrt's duplicate always returns errors.
  if (initializedMpiHere)
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm comm = MPI_COMM_NULL;
  int rc = MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  if (rc != MPI_SUCCESS)
    return fail(PRECRT_ERROR_BACKEND, "MPI_Comm_dup failed: %s",
                mpiErrorText(rc).c_str());
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  int rank = 0, size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  auto state = std::make_unique<MpiWorld>();
  state->comm = comm;
  state->liveness.start(comm, size);
  int *tagUpperBound = nullptr, found = 0;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tagUpperBound, &found);
  // MPI promises tags up to at least 32767.
  int64_t tags = found && tagUpperBound ? int64_t(*tagUpperBound) + 1 : 32768;
  state->channels =
      uint32_t(std::min<int64_t>(tags / kTagsPerChannel, UINT32_MAX));
  *world = std::make_unique<MpiCommunicator>(std::move(state), rank, size,
                                             timeoutMs);
  return PRECRT_SUCCESS;
}

precrt_status_t finalizeMpi() {
  if (!initializedMpiHere)
    return PRECRT_SUCCESS;
  initializedMpiHere = false;
  if (!lostProcess.empty())
    return fail(PRECRT_ERROR_PEER_FAILED,
                "MPI is left unfinalized: %s, and MPI_Finalize waits for every "
                "process of the job",
                lostProcess.c_str());
  int rc = MPI_Finalize();
  if (rc != MPI_SUCCESS)
    return fail(PRECRT_ERROR_BACKEND, "MPI_Finalize failed: %s",
                mpiErrorText(rc).c_str());
  return PRECRT_SUCCESS;
}

} // namespace precrt
