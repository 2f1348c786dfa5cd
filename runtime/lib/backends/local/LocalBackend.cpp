//===- LocalBackend.cpp - Ranks as threads of one process -----------------===//
//
// Ranks share memory, so a collective needs no messages: each rank publishes
// a descriptor and its buffer pointers in a slot, meets the others at a
// barrier, checks that all descriptors agree, and then copies or reduces
// straight from the other ranks' buffers. Further barriers order the phases
// that write memory others read, and a final one keeps every buffer alive
// until no rank reads it. The first barrier has the communicator's deadline;
// the later ones only wait for copies to end. Every wait watches for ranks
// that have exited.
//
//===----------------------------------------------------------------------===//

#include "backends/local/LocalBackend.h"

#include "core/Communicator.h"
#include "core/CurrentWorld.h"
#include "core/Error.h"
#include "core/Profile.h"
#include "core/Reduce.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

namespace precrt {
namespace {

struct LocalGroup;

/// State of one precrtLocalRun shared by all its ranks.
struct LocalWorld {
  explicit LocalWorld(int size) : exited(new std::atomic<bool>[size]) {
    for (int rank = 0; rank < size; ++rank)
      exited[rank] = false;
  }
  std::unique_ptr<std::atomic<bool>[]> exited;
  std::mutex groupsMutex;
  /// Grid groups by (parent group, grid fingerprint, color): the first member
  /// to arrive creates the shared state, the others join it.
  std::map<std::tuple<const LocalGroup *, uint64_t, int64_t>,
           std::shared_ptr<LocalGroup>>
      groups;
};

/// How long a waiting rank sleeps before it looks again for exited ranks.
constexpr auto kExitPollInterval = std::chrono::milliseconds(10);
/// How long a rank spins at a barrier before it sleeps.
constexpr auto kSpinBeforeSleeping = std::chrono::microseconds(50);

/// State of one group of ranks (the world or a grid group), shared by its
/// members.
struct LocalGroup {
  LocalGroup(LocalWorld *world, std::vector<int> worldRanks)
      : world(world), worldRanks(std::move(worldRanks)),
        size(static_cast<int>(this->worldRanks.size())), waiting(size, false),
        mailboxes(size_t(size) * size),
        bytesReadFrom(new std::atomic<uint64_t>[size]) {
    for (auto &slotSet : slots)
      slotSet.resize(size);
    for (int rank = 0; rank < size; ++rank)
      bytesReadFrom[rank] = 0;
  }

  struct Slot {
    CallDescriptor descriptor;
    const void *send = nullptr;
    void *recv = nullptr;
  };

  /// A send waiting for its receiver (sends are unbuffered, like NCCL's).
  struct Mailbox {
    bool posted = false;
    bool consumed = false;
    CallDescriptor header;
    const void *data = nullptr;
    precrt_status_t verdict = PRECRT_SUCCESS;
    std::string verdictMessage;
  };

  LocalWorld *world;
  std::vector<int> worldRanks;
  int size;

  std::mutex mutex;
  std::condition_variable changed;
  /// Advances when the last rank arrives at a barrier; atomic so that
  /// waiters can spin on it without the mutex.
  std::atomic<uint64_t> generation{0};
  int arrived = 0;
  std::vector<bool> waiting;
  /// Two slot sets, used by alternate collectives: a rank may publish the
  /// next call while a slower one still reads the descriptors of this one.
  std::vector<Slot> slots[2];
  std::vector<Mailbox> mailboxes; // [sender * size + receiver]
  /// Bytes peers read from each rank's buffers in the current collective:
  /// what that rank sent. A rank takes its own after the collective's last
  /// barrier; peers add to it only after the next call's first barrier,
  /// which the rank has not reached yet.
  std::unique_ptr<std::atomic<uint64_t>[]> bytesReadFrom;
  std::string broken;
  precrt_status_t brokenStatus = PRECRT_SUCCESS;

  Mailbox &mailbox(int sender, int receiver) {
    return mailboxes[size_t(sender) * size + receiver];
  }

  /// Returns a failure (and breaks the group) if the wait must end: the group
  /// broke, one of `awaited` exited, or the deadline passed. A rank that was
  /// waiting when the group broke gets the status of the failure itself.
  precrt_status_t checkWait(std::unique_lock<std::mutex> &lock,
                            Clock::time_point deadline, const std::string &what,
                            const std::vector<int> &awaited) {
    if (!broken.empty())
      return fail(brokenStatus, "%s failed: %s", what.c_str(), broken.c_str());
    for (int rank : awaited) {
      if (world->exited[worldRanks[rank]].load()) {
        breakGroup(PRECRT_ERROR_PEER_FAILED,
                   "rank " + std::to_string(rank) +
                       " exited while the others waited in " + what);
        return fail(brokenStatus, "%s", broken.c_str());
      }
    }
    auto now = Clock::now();
    if (now >= deadline) {
      std::string missing;
      for (int rank : awaited)
        missing += (missing.empty() ? "rank " : ", rank ") + std::to_string(rank);
      breakGroup(PRECRT_ERROR_TIMEOUT, what + " timed out waiting for " + missing);
      return fail(brokenStatus, "%s", broken.c_str());
    }
    changed.wait_until(lock, std::min(deadline, now + kExitPollInterval));
    return PRECRT_SUCCESS;
  }

  void breakGroup(precrt_status_t status, const std::string &reason) {
    brokenStatus = status;
    broken = reason;
    changed.notify_all();
  }

  /// For ranks that arrive after the group broke.
  precrt_status_t refuseBroken(const std::string &what) {
    return fail(PRECRT_ERROR_PEER_FAILED, "%s failed: %s", what.c_str(),
                broken.c_str());
  }

  /// Barrier with a deadline.
  precrt_status_t arrive(int rank, Clock::time_point deadline,
                         const std::string &what) {
    std::unique_lock<std::mutex> lock(mutex);
    if (!broken.empty())
      return refuseBroken(what);
    uint64_t myGeneration = generation.load();
    waiting[rank] = true;
    if (++arrived == size) {
      arrived = 0;
      std::fill(waiting.begin(), waiting.end(), false);
      generation.fetch_add(1);
      changed.notify_all();
      return PRECRT_SUCCESS;
    }
    // Collectives on small messages are dominated by this wait: spin briefly
    // (yielding, since ranks may outnumber cores) before sleeping on the
    // condition variable.
    lock.unlock();
    auto spinUntil = Clock::now() + kSpinBeforeSleeping;
    for (int polls = 1; generation.load() == myGeneration; ++polls) {
      if (polls % 64 == 0 && Clock::now() > spinUntil)
        break;
      std::this_thread::yield();
    }
    lock.lock();
    while (generation.load() == myGeneration) {
      std::vector<int> missing;
      for (int other = 0; other < size; ++other)
        if (!waiting[other])
          missing.push_back(other);
      precrt_status_t status = checkWait(lock, deadline, what, missing);
      if (status != PRECRT_SUCCESS)
        return status;
    }
    return PRECRT_SUCCESS;
  }
};

/// Elements reduced per step; the partial sums of a tile stay in cache.
constexpr size_t kReduceTileBytes = 32 * 1024;

class LocalCommunicator final : public Communicator {
public:
  LocalCommunicator(std::shared_ptr<LocalGroup> group, int rank,
                    int64_t timeoutMs)
      : Communicator(PRECRT_BACKEND_LOCAL, rank, group->size, timeoutMs),
        group_(std::move(group)) {}

  /// A rank has left once its body returned (the flag its waits watch).
  bool peerHasLeft(int peer, const std::string &what,
                   std::string &reason) override {
    if (!group_->world->exited[group_->worldRanks[peer]].load())
      return false;
    reason = "rank " + std::to_string(peer) +
             " exited while the others waited in " + what;
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
  /// Breaks this rank's communicator too when the group failed.
  precrt_status_t noteFailure(precrt_status_t status) {
    if (status == PRECRT_ERROR_TIMEOUT || status == PRECRT_ERROR_PEER_FAILED)
      markBroken(lastErrorMessage());
    return status;
  }

  /// Reduces `count` elements starting at element `sendOffset` of every
  /// rank's send buffer, in ring order starting after rank `owner` (see
  /// docs/Runtime.md), into `out`.
  void reduceRange(const std::vector<LocalGroup::Slot> &slots,
                   const CollectiveCall &call, size_t sendOffset, size_t count,
                   int owner, void *out);

  /// Notes that this rank read `bytes` of rank `peer`'s buffers.
  void readFromPeer(int peer, size_t bytes) {
    if (peer == rank() || !bytes)
      return;
    group_->bytesReadFrom[peer].fetch_add(bytes, std::memory_order_relaxed);
    bytesReceived_ += bytes;
  }

  std::shared_ptr<LocalGroup> group_;
  /// Bytes this rank read from peers in the current collective.
  uint64_t bytesReceived_ = 0;
  std::vector<char> tile_ = std::vector<char>(kReduceTileBytes);
};

void LocalCommunicator::reduceRange(const std::vector<LocalGroup::Slot> &slots,
                                    const CollectiveCall &call,
                                    size_t sendOffset, size_t count, int owner,
                                    void *out) {
  precrt_dtype_t dtype = call.dtype();
  size_t elementSize = precrtDtypeSize(dtype);
  size_t tileElements = kReduceTileBytes / elementSize;
  int n = size();
  for (size_t begin = 0; begin < count; begin += tileElements) {
    size_t length = std::min(tileElements, count - begin);
    size_t byteOffset = (sendOffset + begin) * elementSize;
    auto sendOf = [&](int rank) {
      return static_cast<const char *>(slots[rank].send) + byteOffset;
    };
    std::memcpy(tile_.data(), sendOf((owner + 1) % n), length * elementSize);
    readFromPeer((owner + 1) % n, length * elementSize);
    for (int step = 2; step <= n; ++step) {
      accumulate(tile_.data(), sendOf((owner + step) % n), length, dtype,
                 call.reduction());
      readFromPeer((owner + step) % n, length * elementSize);
    }
    if (call.reduction() == PRECRT_REDUCTION_AVG)
      divideInPlace(tile_.data(), length, dtype, n);
    std::memcpy(static_cast<char *>(out) + begin * elementSize, tile_.data(),
                length * elementSize);
  }
}

precrt_status_t LocalCommunicator::runCollective(const CollectiveCall &call) {
  LocalGroup &group = *group_;
  const std::string what = describeCall(call.descriptor);
  auto deadline = this->deadline();
  std::vector<LocalGroup::Slot> &slots = group.slots[call.descriptor.sequence % 2];
  slots[rank()] = {call.descriptor, call.send, call.recv};

  int64_t arriving = profile::nowNanoseconds();
  precrt_status_t status = group.arrive(rank(), deadline, what);
  profile::record(PRECRT_PROFILE_WAIT, arriving);
  if (status != PRECRT_SUCCESS)
    return noteFailure(status);
  std::vector<CallDescriptor> descriptors(size());
  for (int rank = 0; rank < size(); ++rank)
    descriptors[rank] = slots[rank].descriptor;
  status = checkAgreement(descriptors.data(), size(), rank());
  if (status != PRECRT_SUCCESS || call.agreementOnly)
    return status;

  // Past the first barrier every rank only copies and reduces, which ends;
  // the barriers after that wait without a deadline, since a rank that
  // timed out there would hand its buffers back while peers still read or
  // write them.
  const Clock::time_point whileDataMoves = Clock::time_point::max();
  const size_t bytes = byteSize(call.dtype(), call.count());
  char *recv = static_cast<char *>(call.recv);
  const int n = size(), me = rank();
  auto copy = [](void *dst, const void *src, size_t length) {
    if (dst != src && length)
      std::memcpy(dst, src, length);
  };
  bytesReceived_ = 0;
  switch (call.op()) {
  case CollectiveOp::Barrier:
  case CollectiveOp::GridSplit:
  case CollectiveOp::PointToPoint:
    return PRECRT_SUCCESS;
  case CollectiveOp::AllGather:
    for (int rank = 0; rank < n; ++rank) {
      copy(recv + rank * bytes, slots[rank].send, bytes);
      readFromPeer(rank, bytes);
    }
    break;
  case CollectiveOp::AllToAll:
    for (int rank = 0; rank < n; ++rank) {
      copy(recv + rank * bytes,
           static_cast<const char *>(slots[rank].send) + me * bytes, bytes);
      readFromPeer(rank, bytes);
    }
    break;
  case CollectiveOp::Broadcast:
    copy(recv, slots[call.descriptor.root].send, bytes);
    readFromPeer(call.descriptor.root, bytes);
    break;
  case CollectiveOp::ReduceScatter:
    reduceRange(slots, call, me * call.count(), call.count(), me, recv);
    break;
  case CollectiveOp::AllReduce: {
    // Reduce-scatter into each rank's own chunk, then gather the chunks: the
    // two halves of NCCL's ring, with its chunk ownership.
    auto [begin, end] = chunkRange(call.count(), n, me);
    size_t elementSize = precrtDtypeSize(call.dtype());
    reduceRange(slots, call, begin, end - begin, me,
                recv + begin * elementSize);
    status = group.arrive(me, whileDataMoves, what);
    if (status != PRECRT_SUCCESS)
      return noteFailure(status);
    for (int rank = 0; rank < n; ++rank) {
      if (rank == me)
        continue;
      auto [chunkBegin, chunkEnd] = chunkRange(call.count(), n, rank);
      copy(recv + chunkBegin * elementSize,
           static_cast<const char *>(slots[rank].recv) +
               chunkBegin * elementSize,
           (chunkEnd - chunkBegin) * elementSize);
      readFromPeer(rank, (chunkEnd - chunkBegin) * elementSize);
    }
    break;
  }
  }
  status = group.arrive(me, whileDataMoves, what);
  if (status != PRECRT_SUCCESS)
    return noteFailure(status);
  // Every peer has finished reading this rank's buffers.
  countTraffic(group.bytesReadFrom[me].exchange(0), bytesReceived_);
  return PRECRT_SUCCESS;
}

precrt_status_t
LocalCommunicator::runPointToPoint(const PointToPointCall &call,
                                   const CallDescriptor &sendHeader,
                                   const CallDescriptor &recvHeader) {
  LocalGroup &group = *group_;
  auto deadline = this->deadline();
  std::unique_lock<std::mutex> lock(group.mutex);
  if (!group.broken.empty())
    return noteFailure(group.refuseBroken("send/recv"));
  const int me = rank();
  const size_t elementSize = precrtDtypeSize(call.dtype);

  if (call.sendPeer >= 0) {
    LocalGroup::Mailbox &box = group.mailbox(me, call.sendPeer);
    box = LocalGroup::Mailbox();
    box.posted = true;
    box.header = sendHeader;
    box.data = call.send;
    group.changed.notify_all();
  }

  precrt_status_t recvStatus = PRECRT_SUCCESS;
  std::string recvMessage;
  if (call.recvPeer >= 0) {
    LocalGroup::Mailbox &box = group.mailbox(call.recvPeer, me);
    std::string what = "recv #" + std::to_string(recvHeader.sequence) +
                       " from rank " + std::to_string(call.recvPeer);
    while (!box.posted) {
      precrt_status_t status =
          group.checkWait(lock, deadline, what, {call.recvPeer});
      if (status != PRECRT_SUCCESS)
        return noteFailure(status);
    }
    recvStatus =
        checkPairAgreement(box.header, recvHeader, call.recvPeer, me);
    if (recvStatus == PRECRT_SUCCESS && !call.agreementOnly) {
      if (recvHeader.count)
        std::memcpy(call.recv, box.data, recvHeader.count * elementSize);
      countTraffic(0, recvHeader.count * elementSize);
    } else {
      recvMessage = lastErrorMessage();
    }
    box.posted = false;
    box.consumed = true;
    box.verdict = recvStatus;
    box.verdictMessage = recvMessage;
    group.changed.notify_all();
  }

  precrt_status_t sendStatus = PRECRT_SUCCESS;
  std::string sendMessage;
  if (call.sendPeer >= 0) {
    LocalGroup::Mailbox &box = group.mailbox(me, call.sendPeer);
    std::string what = "send #" + std::to_string(sendHeader.sequence) +
                       " to rank " + std::to_string(call.sendPeer);
    while (!box.consumed) {
      precrt_status_t status =
          group.checkWait(lock, deadline, what, {call.sendPeer});
      if (status != PRECRT_SUCCESS)
        return noteFailure(status);
    }
    sendStatus = box.verdict;
    sendMessage = box.verdictMessage;
    box.consumed = false;
    if (sendStatus == PRECRT_SUCCESS && !call.agreementOnly)
      countTraffic(sendHeader.count * elementSize, 0);
  }
  if (recvStatus != PRECRT_SUCCESS)
    return fail(recvStatus, "%s", recvMessage.c_str());
  if (sendStatus != PRECRT_SUCCESS)
    return fail(sendStatus, "%s", sendMessage.c_str());
  return PRECRT_SUCCESS;
}

precrt_status_t
LocalCommunicator::createGroup(const GridGroup &membership,
                               std::unique_ptr<Communicator> *result) {
  LocalWorld &world = *group_->world;
  std::shared_ptr<LocalGroup> shared;
  {
    std::lock_guard<std::mutex> lock(world.groupsMutex);
    auto key = std::make_tuple(static_cast<const LocalGroup *>(group_.get()),
                               membership.fingerprint, membership.color);
    std::shared_ptr<LocalGroup> &entry = world.groups[key];
    if (!entry) {
      std::vector<int> worldRanks;
      for (int parentRank : membership.members)
        worldRanks.push_back(group_->worldRanks[parentRank]);
      entry = std::make_shared<LocalGroup>(&world, std::move(worldRanks));
    }
    shared = entry;
  }
  *result = std::make_unique<LocalCommunicator>(
      std::move(shared), membership.rankInGroup, timeoutMs());
  return PRECRT_SUCCESS;
}

} // namespace

precrt_status_t runLocalRanks(int numRanks, int64_t timeoutMs,
                              const std::function<int(Communicator *)> &body) {
  if (numRanks <= 0)
    return fail(PRECRT_ERROR_INVALID_ARGUMENT,
                "the local backend needs at least one rank, got %d", numRanks);
  LocalWorld world(numRanks);
  std::vector<int> allRanks(numRanks);
  for (int rank = 0; rank < numRanks; ++rank)
    allRanks[rank] = rank;
  auto worldGroup = std::make_shared<LocalGroup>(&world, allRanks);

  std::vector<int> results(numRanks, 0);
  std::vector<std::string> messages(numRanks);
  auto runRank = [&](int rank) {
    {
      LocalCommunicator communicator(worldGroup, rank, timeoutMs);
      CurrentWorldScope scope(&communicator);
      results[rank] = body(&communicator);
      if (results[rank] != 0)
        messages[rank] = lastErrorMessage();
    }
    world.exited[rank] = true;
  };
  std::vector<std::thread> threads;
  threads.reserve(numRanks - 1);
  for (int rank = 1; rank < numRanks; ++rank)
    threads.emplace_back(runRank, rank);
  runRank(0);
  for (std::thread &thread : threads)
    thread.join();

  for (int rank = 0; rank < numRanks; ++rank) {
    if (results[rank] == 0)
      continue;
    precrt_status_t status =
        results[rank] > 0 && results[rank] <= PRECRT_ERROR_INTERNAL
            ? precrt_status_t(results[rank])
            : PRECRT_ERROR_INTERNAL;
    return fail(status, "rank %d failed with %d: %s", rank, results[rank],
                messages[rank].c_str());
  }
  return PRECRT_SUCCESS;
}

} // namespace precrt
