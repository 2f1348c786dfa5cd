//===- MpiBackend.cpp - One process per rank over MPI ---------------------===//
//
// Only nonblocking point-to-point calls, polled, so that a dead or stalled
// rank produces an error instead of a hang; MPI errors are returned
// (MPI_ERRORS_RETURN), never aborted on. Every collective starts with an
// exchange of CallDescriptors under the communicator's deadline: that is
// where a rank that does not come turns into PRECRT_ERROR_TIMEOUT. Once
// every rank has arrived, the data moves until it is done, however long that
// takes, so that MPI never holds a caller's buffer after the call returns; it
// stops early only when a peer announces that it left.
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

enum MessageTag : int {
  kCollectiveHeaderTag = 101,
  kCollectiveDataTag = 102,
  kSendHeaderTag = 103,
  kExpectedHeaderTag = 104,
  kPointToPointDataTag = 105,
  kExitNoticeTag = 106,
};

/// MPI counts are ints: larger messages travel in pieces of this size.
constexpr size_t kMaxMessageBytes = size_t(1) << 30;

/// The data phase of a call waits for its peers, not for the clock.
constexpr Clock::time_point kNoDeadline = Clock::time_point::max();

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
};

/// "rank 2 exited while the others waited in all_reduce #3 (...)".
std::string peerLeft(int peer, const ExitNotice &notice,
                     const std::string &what) {
  return "rank " + std::to_string(peer) +
         (notice.gaveUp ? " gave up after a failure of its own" : " exited") +
         " while the others waited in " + what;
}

/// The exit notices of one communicator's peers. A single receive from any
/// source stays posted until every peer's notice is in: one entry in MPI's
/// matching queues however many ranks there are.
class PeerExits {
public:
  void start(MPI_Comm comm, int size) {
    comm_ = comm;
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
      int peer = status.MPI_SOURCE;
      if (peer >= 0 && peer < int(exited_.size()) && !exited_[peer]) {
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
                  kExitNoticeTag, comm_, &request_) != MPI_SUCCESS)
      request_ = MPI_REQUEST_NULL;
  }

  MPI_Comm comm_ = MPI_COMM_NULL;
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

/// Requests in flight with the rank each one talks to, for messages.
class RequestSet {
public:
  void send(const void *data, size_t bytes, int peer, int tag, MPI_Comm comm) {
    post(
        peer, /*receive=*/false,
        [&](const char *piece, int length, MPI_Request *request) {
          return MPI_Isend(piece, length, MPI_BYTE, peer, tag, comm, request);
        },
        static_cast<const char *>(data), bytes);
  }
  void recv(void *data, size_t bytes, int peer, int tag, MPI_Comm comm) {
    post(
        peer, /*receive=*/true,
        [&](const char *piece, int length, MPI_Request *request) {
          return MPI_Irecv(const_cast<char *>(piece), length, MPI_BYTE, peer,
                           tag, comm, request);
        },
        static_cast<const char *>(data), bytes);
  }

  /// Polls until every request completes, an MPI call fails, the deadline
  /// passes, or a peer it waits for has left without making the call
  /// (`madeCall(peer, notice)` is false). On failure the requests stay in
  /// flight: settle() must withdraw them.
  template <typename MadeCall>
  precrt_status_t wait(Clock::time_point deadline, const std::string &what,
                       PeerExits &exits, MadeCall madeCall) {
    if (postError_ != MPI_SUCCESS)
      return fail(PRECRT_ERROR_BACKEND, "%s: %s", what.c_str(),
                  mpiErrorText(postError_).c_str());
    std::vector<int> completed(requests_.size());
    size_t remaining = requests_.size();
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
      if (Clock::now() >= deadline) {
        std::string missing;
        for (size_t i = 0; i < requests_.size(); ++i) {
          if (requests_[i] == MPI_REQUEST_NULL)
            continue;
          std::string peer = "rank " + std::to_string(peers_[i]);
          if (missing.find(peer) == std::string::npos)
            missing += (missing.empty() ? "" : ", ") + peer;
        }
        return fail(PRECRT_ERROR_TIMEOUT, "%s timed out waiting for %s",
                    what.c_str(), missing.c_str());
      }
      // Past the spin, a wait is long enough to afford a look for exits.
      if (polls >= kSpinPolls && exits.poll()) {
        for (size_t i = 0; i < requests_.size(); ++i) {
          if (requests_[i] == MPI_REQUEST_NULL)
            continue;
          const ExitNotice *notice = exits.notice(peers_[i]);
          if (notice && !madeCall(peers_[i], *notice))
            return fail(PRECRT_ERROR_PEER_FAILED, "%s",
                        peerLeft(peers_[i], *notice, what).c_str());
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
  /// descriptors, finish or leave. With `retirable` (buffers of the runtime's
  /// own) nothing is waited for, and holdsBuffers() says whether the caller
  /// must retire the buffers.
  template <typename MadeCall, typename Leaving>
  void settle(bool retirable, PeerExits &exits, MadeCall madeCall,
              Leaving leaving) {
    for (size_t i = 0; i < requests_.size(); ++i)
      if (receives_[i] && requests_[i] != MPI_REQUEST_NULL)
        MPI_Cancel(&requests_[i]);
    complete(
        retirable, exits, [&](size_t i) { return bool(receives_[i]); },
        [](size_t) { return false; });
    leaving();
    complete(
        retirable, exits, [&](size_t i) { return !receives_[i]; },
        [&](size_t i) {
          const ExitNotice *notice = exits.notice(peers_[i]);
          return notice && !madeCall(peers_[i], *notice);
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

private:
  template <typename Post>
  void post(int peer, bool receive, Post postPiece, const char *data,
            size_t bytes) {
    size_t offset = 0;
    do {
      size_t length = std::min(bytes - offset, kMaxMessageBytes);
      MPI_Request request = MPI_REQUEST_NULL;
      int rc = postPiece(data + offset, int(length), &request);
      if (rc != MPI_SUCCESS && postError_ == MPI_SUCCESS)
        postError_ = rc;
      requests_.push_back(request);
      peers_.push_back(peer);
      receives_.push_back(receive);
      offset += length;
    } while (offset < bytes);
  }

  /// Polls the requests that `selected` picks until each completes or
  /// `unneeded` lets it go (a single pass when `once`).
  template <typename Selected, typename Unneeded>
  void complete(bool once, PeerExits &exits, Selected selected,
                Unneeded unneeded) {
    for (int polls = 0;; ++polls) {
      bool pending = false;
      for (size_t i = 0; i < requests_.size(); ++i) {
        if (requests_[i] == MPI_REQUEST_NULL || !selected(i))
          continue;
        int done = 0;
        // An MPI that fails here can tell nothing more.
        if (MPI_Test(&requests_[i], &done, MPI_STATUS_IGNORE) != MPI_SUCCESS)
          return;
        pending = pending || (!done && !unneeded(i));
      }
      if (!pending || once)
        return;
      exits.poll();
      pauseAfter(polls);
    }
  }

  void clear() {
    requests_.clear();
    peers_.clear();
    receives_.clear();
  }

  std::vector<MPI_Request> requests_;
  std::vector<int> peers_;
  std::vector<bool> receives_;
  int postError_ = MPI_SUCCESS;
  bool holdsBuffers_ = false;
};

/// Receives and drops every message still waiting on `comm`: descriptors of
/// calls this rank never made. Returns false if one could not be taken in by
/// the deadline.
bool drainUnreceived(MPI_Comm comm, Clock::time_point deadline) {
  for (;;) {
    int found = 0, bytes = 0;
    MPI_Status status;
    if (MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &found, &status) !=
        MPI_SUCCESS)
      return false;
    if (!found)
      return true;
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
}

class MpiCommunicator;

/// Every MPI communicator of this process: the world announces the exit for
/// all of them (see announceExit). Not function-local, so that it outlives a
/// world destroyed at exit.
std::vector<MpiCommunicator *> liveCommunicators;

class MpiCommunicator final : public Communicator {
public:
  MpiCommunicator(MPI_Comm comm, int rank, int size, int64_t timeoutMs,
                  bool isWorld = false)
      : Communicator(PRECRT_BACKEND_MPI, rank, size, timeoutMs), comm_(comm),
        isWorld_(isWorld), sendsTo_(size, 0), receivesFrom_(size, 0) {
    exits_.start(comm_, size);
    liveCommunicators.push_back(this);
  }

  ~MpiCommunicator() override {
    int finalized = 0;
    MPI_Finalized(&finalized);
    // The world goes first, while its groups still exist.
    if (isWorld_ && !finalized)
      announceExit();
    liveCommunicators.erase(
        std::find(liveCommunicators.begin(), liveCommunicators.end(), this));
    if (!finalized && !keep_) {
      exits_.cancel();
      MPI_Comm_free(&comm_);
    }
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
    precrt_status_t status = requests.wait(deadline, what, exits_, madeCall);
    if (status == PRECRT_SUCCESS)
      return status;
    std::string reason = lastErrorMessage();
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

  /// Marks the communicator broken and tells the peers at once that this
  /// rank left it.
  void giveUp(const std::string &reason) {
    markBroken(reason);
    sendNotices(/*gaveUp=*/true);
  }
  void sendNotices(bool gaveUp);
  /// Withdraws notices still not sent; their memory stays for MPI.
  void retireNotices();

  precrt_status_t ringReduce(const CollectiveCall &call, size_t chunkElements,
                             bool equalChunks, const std::string &what,
                             void *out);

  static void announceExit();

  MPI_Comm comm_;
  bool isWorld_;
  /// Left allocated at the end: peers may still send on it.
  bool keep_ = false;
  PeerExits exits_;
  /// What this rank made, for its exit notices: collectives, and
  /// point-to-point messages per peer.
  uint64_t collectivesMade_ = 0;
  std::vector<uint64_t> sendsTo_, receivesFrom_;
  /// The notices this rank sent (read by MPI in place) and their sends.
  bool noticesSent_ = false;
  std::vector<ExitNotice> notices_;
  std::vector<MPI_Request> noticeSends_;
  std::vector<char> partial_, incoming_;
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
                        uint64_t(gaveUp)});
    MPI_Request request = MPI_REQUEST_NULL;
    if (MPI_Isend(&notices_.back(), sizeof(ExitNotice), MPI_BYTE, peer,
                  kExitNoticeTag, comm_, &request) == MPI_SUCCESS)
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
/// context id.
void MpiCommunicator::announceExit() {
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
  for (MpiCommunicator *comm : liveCommunicators) {
    // A communicator given up on keeps what it holds: peers that left sends
    // to this rank in flight after its notice freed their buffers, and
    // matching such a send would make their MPI read that memory.
    if (!givenUp(comm) && comm->exits_.complete() &&
        drainUnreceived(comm->comm_, drainDeadline))
      continue;
    // Otherwise a peer may still send: keep the communicator, so that its
    // late messages cannot reach a later one with the same context id (Open
    // MPI even matches them against the parent while it agrees on the id).
    comm->exits_.cancel();
    comm->keep_ = true;
  }
}

precrt_status_t MpiCommunicator::runCollective(const CollectiveCall &call) {
  const std::string what = describeCall(call.descriptor);
  const int n = size(), me = rank();
  collectivesMade_ = call.descriptor.sequence + 1;

  // The descriptors travel in memory of the runtime's own, retired if the
  // exchange fails with messages still in flight.
  std::vector<CallDescriptor> descriptors(n);
  descriptors[me] = call.descriptor;
  {
    RequestSet requests;
    for (int peer = 0; peer < n; ++peer) {
      if (peer == me)
        continue;
      requests.send(&descriptors[me], sizeof(CallDescriptor), peer,
                    kCollectiveHeaderTag, comm_);
      requests.recv(&descriptors[peer], sizeof(CallDescriptor), peer,
                    kCollectiveHeaderTag, comm_);
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
  RequestSet requests;
  switch (call.op()) {
  case CollectiveOp::Barrier:
  case CollectiveOp::GridSplit:
  case CollectiveOp::PointToPoint:
    return PRECRT_SUCCESS;
  case CollectiveOp::AllGather:
    for (int peer = 0; peer < n; ++peer) {
      if (peer == me || !bytes)
        continue;
      requests.send(send, bytes, peer, kCollectiveDataTag, comm_);
      requests.recv(recv + peer * bytes, bytes, peer, kCollectiveDataTag, comm_);
    }
    copyLocal(recv + me * bytes, send, bytes);
    return finish(requests, call, kNoDeadline, what, /*retirable=*/false);
  case CollectiveOp::AllToAll:
    for (int peer = 0; peer < n; ++peer) {
      if (peer == me || !bytes)
        continue;
      requests.send(send + peer * bytes, bytes, peer, kCollectiveDataTag, comm_);
      requests.recv(recv + peer * bytes, bytes, peer, kCollectiveDataTag, comm_);
    }
    copyLocal(recv + me * bytes, send + me * bytes, bytes);
    return finish(requests, call, kNoDeadline, what, /*retirable=*/false);
  case CollectiveOp::Broadcast: {
    int root = call.descriptor.root;
    if (bytes && me == root) {
      for (int peer = 0; peer < n; ++peer)
        if (peer != me)
          requests.send(send, bytes, peer, kCollectiveDataTag, comm_);
      copyLocal(recv, send, bytes);
    } else if (bytes) {
      requests.recv(recv, bytes, root, kCollectiveDataTag, comm_);
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
                      kCollectiveDataTag, comm_);
      if (peerEnd > peerBegin)
        requests.recv(recv + peerBegin * elementSize,
                      (peerEnd - peerBegin) * elementSize, peer,
                      kCollectiveDataTag, comm_);
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
    RequestSet requests;
    if (chunkBytes(sendIndex))
      requests.send(partial_.data(), chunkBytes(sendIndex), right,
                    kCollectiveDataTag, comm_);
    if (chunkBytes(recvIndex))
      requests.recv(incoming_.data(), chunkBytes(recvIndex), left,
                    kCollectiveDataTag, comm_);
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
  if (n == 1)
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
    RequestSet requests;
    if (call.sendPeer >= 0) {
      requests.send(&headers[kSent], sizeof(CallDescriptor), call.sendPeer,
                    kSendHeaderTag, comm_);
      requests.recv(&headers[kPeerExpects], sizeof(CallDescriptor),
                    call.sendPeer, kExpectedHeaderTag, comm_);
    }
    if (call.recvPeer >= 0) {
      requests.send(&headers[kExpected], sizeof(CallDescriptor), call.recvPeer,
                    kExpectedHeaderTag, comm_);
      requests.recv(&headers[kPeerSends], sizeof(CallDescriptor), call.recvPeer,
                    kSendHeaderTag, comm_);
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
  RequestSet requests;
  if (call.sendPeer >= 0 && call.sendCount)
    requests.send(call.send, call.sendCount * elementSize, call.sendPeer,
                  kPointToPointDataTag, comm_);
  if (call.recvPeer >= 0 && call.recvCount)
    requests.recv(call.recv, call.recvCount * elementSize, call.recvPeer,
                  kPointToPointDataTag, comm_);
  return finishPart(requests, kNoDeadline, /*retirable=*/false);
}

precrt_status_t
MpiCommunicator::createGroup(const GridGroup &membership,
                             std::unique_ptr<Communicator> *result) {
  // Every rank has just agreed on the split, so this blocking call cannot
  // wait for a rank that is not coming (short of one dying right now).
  MPI_Comm groupComm = MPI_COMM_NULL;
  int rc = MPI_Comm_split(comm_, int(membership.color), membership.rankInGroup,
                          &groupComm);
  if (rc != MPI_SUCCESS)
    return fail(PRECRT_ERROR_BACKEND, "MPI_Comm_split: %s",
                mpiErrorText(rc).c_str());
  MPI_Comm_set_errhandler(groupComm, MPI_ERRORS_RETURN);
  *result = std::make_unique<MpiCommunicator>(
      groupComm, membership.rankInGroup, int(membership.members.size()),
      timeoutMs());
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
  *world = std::make_unique<MpiCommunicator>(comm, rank, size, timeoutMs,
                                             /*isWorld=*/true);
  return PRECRT_SUCCESS;
}

precrt_status_t finalizeMpi() {
  if (!initializedMpiHere)
    return PRECRT_SUCCESS;
  initializedMpiHere = false;
  int rc = MPI_Finalize();
  if (rc != MPI_SUCCESS)
    return fail(PRECRT_ERROR_BACKEND, "MPI_Finalize failed: %s",
                mpiErrorText(rc).c_str());
  return PRECRT_SUCCESS;
}

} // namespace precrt
