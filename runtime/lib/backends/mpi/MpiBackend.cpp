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
// This file is the transport (the communicator, its collectives and
// point-to-point calls); MpiLiveness.h has the exit notices and liveness
// checks, MpiRequests.h the poller that waits for a phase's requests.
//
//===----------------------------------------------------------------------===//

#include "backends/mpi/MpiCommon.h"
#include "backends/mpi/MpiLiveness.h"
#include "backends/mpi/MpiRequests.h"
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

using namespace mpi;

/// Keeps `buffer` allocated until the process ends: MPI may still use it
/// after a call that failed.
template <typename T> void retire(std::vector<T> &buffer) {
  static auto *retired = new std::vector<std::vector<T>>();
  retired->push_back(std::move(buffer));
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
  /// The host of each MPI rank, numbered in order of first appearance: ranks
  /// with the same processor name share one.
  std::vector<int> hostOfRank;
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
    for (int peer = 0; peer < size; ++peer)
      onOtherHost_.push_back(world->hostOfRank[ranks_[peer]] !=
                             world->hostOfRank[ranks_[rank]]);
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
  template <typename Uncount>
  precrt_status_t finish(RequestSet &requests, Clock::time_point deadline,
                         const std::string &what, bool retirable,
                         const RequestSet::MadeCall &madeCall,
                         Uncount uncount) {
    precrt_status_t status =
        requests.wait(deadline, timeoutMs(), what, exits_, madeCall);
    if (status == PRECRT_SUCCESS) {
      // Only the data phase waits without a deadline; descriptors and
      // headers are not payload.
      if (deadline == kNoDeadline)
        countTraffic(requests.bytesSent(), requests.bytesReceived(),
                     requests.bytesSentAcrossHosts(),
                     requests.bytesReceivedAcrossHosts());
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
  /// The world rank of each rank, and whether it is on another host.
  std::vector<int> ranks_;
  std::vector<char> onOtherHost_;
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
/// as lost (see recordLostProcess): a process killed in the middle of a call
/// may never have been waited for in a data phase here.
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
    RequestSet requests(comm_, ranks_, onOtherHost_, world_->liveness);
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
  RequestSet requests(comm_, ranks_, onOtherHost_, world_->liveness);
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
    RequestSet requests(comm_, ranks_, onOtherHost_, world_->liveness);
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
    RequestSet requests(comm_, ranks_, onOtherHost_, world_->liveness);
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
  RequestSet requests(comm_, ranks_, onOtherHost_, world_->liveness);
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

/// The host of each rank of `comm` (MpiWorld::hostOfRank), from the ranks'
/// processor names, gathered without blocking past `timeoutMs`.
precrt_status_t findHosts(MPI_Comm comm, int size, int64_t timeoutMs,
                          std::vector<int> &hostOfRank) {
  std::vector<char> own(MPI_MAX_PROCESSOR_NAME, 0);
  std::vector<char> names(size_t(size) * MPI_MAX_PROCESSOR_NAME, 0);
  int length = 0;
  MPI_Get_processor_name(own.data(), &length);
  MPI_Request request = MPI_REQUEST_NULL;
  int rc = MPI_Iallgather(own.data(), MPI_MAX_PROCESSOR_NAME, MPI_CHAR,
                          names.data(), MPI_MAX_PROCESSOR_NAME, MPI_CHAR, comm,
                          &request);
  const auto deadline =
      Clock::now() +
      std::chrono::milliseconds(std::min<int64_t>(
          timeoutMs, int64_t(100) * 365 * 24 * 3600 * 1000));
  for (int done = 0; rc == MPI_SUCCESS && !done;) {
    rc = MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS || done)
      break;
    if (Clock::now() >= deadline) {
      // MPI still holds the buffers of the exchange.
      retire(own);
      retire(names);
      return fail(PRECRT_ERROR_TIMEOUT,
                  "not every rank took part in the exchange of host names "
                  "that starts an MPI world within %lld ms",
                  static_cast<long long>(timeoutMs));
    }
    sched_yield();
  }
  if (rc != MPI_SUCCESS)
    return fail(PRECRT_ERROR_BACKEND,
                "MPI_Iallgather of the host names failed: %s",
                mpiErrorText(rc).c_str());
  std::vector<std::string> hosts;
  for (int rank = 0; rank < size; ++rank) {
    std::string name(names.data() + size_t(rank) * MPI_MAX_PROCESSOR_NAME);
    auto found = std::find(hosts.begin(), hosts.end(), name);
    hostOfRank.push_back(int(found - hosts.begin()));
    if (found == hosts.end())
      hosts.push_back(name);
  }
  return PRECRT_SUCCESS;
}

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
  if (precrt_status_t status =
          findHosts(comm, size, timeoutMs, state->hostOfRank))
    return status;
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
  if (!lostProcess().empty())
    return fail(PRECRT_ERROR_PEER_FAILED,
                "MPI is left unfinalized: %s, and MPI_Finalize waits for every "
                "process of the job",
                lostProcess().c_str());
  int rc = MPI_Finalize();
  if (rc != MPI_SUCCESS)
    return fail(PRECRT_ERROR_BACKEND, "MPI_Finalize failed: %s",
                mpiErrorText(rc).c_str());
  return PRECRT_SUCCESS;
}

} // namespace precrt
