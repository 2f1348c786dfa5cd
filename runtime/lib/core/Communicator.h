//===- Communicator.h - One rank's view of a group of ranks -----*- C++ -*-===//
//
// The backend-independent part of a communicator: the descriptor that ranks
// compare before every collective, sequence numbers, the cache of grid-axis
// groups, and the "broken" state after a timeout or a peer failure. Backends
// (local threads, MPI, NCCL) derive from Communicator and move the data.
//
//===----------------------------------------------------------------------===//

#ifndef PRECRT_LIB_CORE_COMMUNICATOR_H
#define PRECRT_LIB_CORE_COMMUNICATOR_H

#include "precrt/precrt.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace precrt {

class PeerWindows;

enum class CollectiveOp : uint32_t {
  AllGather = 1,
  ReduceScatter = 2,
  AllReduce = 3,
  AllToAll = 4,
  Broadcast = 5,
  Barrier = 6,
  /// Agreement on a precrtCommForGridAxes call, before the group is built.
  GridSplit = 7,
  /// One direction of a send/recv pair.
  PointToPoint = 8,
};

const char *collectiveOpName(CollectiveOp op);

/// What a rank is about to do. Every rank of a group exchanges (or, for the
/// local backend, publishes) its descriptor before moving any data, so ranks
/// that disagree all return PRECRT_ERROR_MISMATCH instead of hanging or
/// corrupting memory. Fixed size and layout: it travels over MPI as bytes.
struct CallDescriptor {
  uint32_t op = 0;
  uint32_t dtype = 0;
  uint32_t reduction = 0;
  int32_t root = 0;
  uint64_t count = 0;
  /// Position of the call in this communicator's sequence of collectives (for
  /// point-to-point: in the sequence of messages of this ordered pair).
  uint64_t sequence = 0;
  /// Hash of the grid shape and axes for GridSplit, 0 otherwise.
  uint64_t fingerprint = 0;
  /// Set by a rank whose own arguments were invalid: it still joins the
  /// exchange, so the others fail at once rather than at the timeout.
  uint32_t invalidOnRank = 0;
  /// Not compared: the backend's own (MPI offers a message channel for the
  /// group of a grid split).
  uint32_t backendWord = 0;
};
static_assert(sizeof(CallDescriptor) == 48, "CallDescriptor travels as bytes");

/// "all_reduce #3 (count=16, dtype=f32, reduction=sum)".
std::string describeCall(const CallDescriptor &call);

/// Compares the descriptors of all `size` ranks, as seen by `myRank`. Every
/// rank reaches the same verdict from the same descriptors. Returns
/// PRECRT_SUCCESS, PRECRT_ERROR_MISMATCH, PRECRT_ERROR_INVALID_ARGUMENT (this
/// rank flagged its own arguments; its message is kept) or
/// PRECRT_ERROR_PEER_FAILED (another rank flagged its arguments).
precrt_status_t checkAgreement(const CallDescriptor *descriptors, int size,
                               int myRank);

/// Same for the two ends of a point-to-point message.
precrt_status_t checkPairAgreement(const CallDescriptor &sent,
                                   const CallDescriptor &expected, int sender,
                                   int receiver);

/// A collective as the C API received it, validated.
struct CollectiveCall {
  CallDescriptor descriptor;
  const void *send = nullptr;
  void *recv = nullptr;
  /// Only check that the ranks agree; the data moves elsewhere (NCCL uses a
  /// local or MPI communicator this way as its control plane).
  bool agreementOnly = false;

  CollectiveOp op() const { return CollectiveOp(descriptor.op); }
  precrt_dtype_t dtype() const { return precrt_dtype_t(descriptor.dtype); }
  precrt_reduction_t reduction() const {
    return precrt_reduction_t(descriptor.reduction);
  }
  size_t count() const { return static_cast<size_t>(descriptor.count); }
  bool locallyInvalid() const { return descriptor.invalidOnRank != 0; }
};

/// A send to `sendPeer` and/or a receive from `recvPeer` (-1: none).
struct PointToPointCall {
  precrt_dtype_t dtype = PRECRT_DTYPE_BYTES;
  const void *send = nullptr;
  size_t sendCount = 0;
  int sendPeer = -1;
  void *recv = nullptr;
  size_t recvCount = 0;
  int recvPeer = -1;
  /// As CollectiveCall::agreementOnly.
  bool agreementOnly = false;
  /// This rank's arguments were invalid: it only tells its peers.
  bool locallyInvalid = false;
};

/// The group of a rank for some axes of a grid laid over a parent
/// communicator.
struct GridGroup {
  /// Which group: row-major index of the coordinates on the other axes.
  int64_t color = 0;
  /// Parent ranks of the group, in group-rank order.
  std::vector<int> members;
  /// This rank's position in `members`.
  int rankInGroup = 0;
  uint64_t fingerprint = 0;
  /// The request it was computed from.
  std::vector<int64_t> shape;
  std::vector<int32_t> axes;
};

/// Computes the group of `parentRank`; returns INVALID_ARGUMENT (with a
/// message) for a shape or axes that do not fit a parent of `parentSize`.
precrt_status_t computeGridGroup(int parentRank, int parentSize,
                                 const std::vector<int64_t> &shape,
                                 const std::vector<int32_t> &axes,
                                 GridGroup *group);

/// Bytes of `count` elements; also for PRECRT_DTYPE_BYTES.
size_t byteSize(precrt_dtype_t dtype, size_t count);

/// Element range [begin, end) of chunk `index` when `count` elements are cut
/// into `parts` nearly equal chunks (the first count % parts are one longer).
/// The ring reductions of every backend use the same cut.
std::pair<size_t, size_t> chunkRange(size_t count, int parts, int index);

using Clock = std::chrono::steady_clock;

class Communicator {
public:
  Communicator(precrt_backend_t backend, int rank, int size,
               int64_t timeoutMs);
  virtual ~Communicator();
  Communicator(const Communicator &) = delete;
  Communicator &operator=(const Communicator &) = delete;

  precrt_backend_t backend() const { return backend_; }
  int rank() const { return rank_; }
  int size() const { return size_; }
  int64_t timeoutMs() const { return timeoutMs_; }
  void setTimeoutMs(int64_t timeoutMs) { timeoutMs_ = timeoutMs; }

  /// Accepts only nullptr; NCCL overrides it.
  virtual precrt_status_t setStream(void *stream);
  /// The CUstream the backend enqueues device work on; nullptr for the CPU
  /// backends.
  virtual void *stream() const { return nullptr; }
  /// The communicator of the same ranks whose buffers are host memory: this
  /// one on the CPU backends; NCCL's control communicator.
  virtual Communicator *hostCommunicator() { return this; }

  /// Runs one collective: numbers it, refuses it on a broken communicator,
  /// then hands it to the backend (which checks agreement first).
  precrt_status_t collective(CollectiveCall &call);
  precrt_status_t pointToPoint(const PointToPointCall &call);

  /// precrtCommForGridAxes: cached per (shape, axes).
  precrt_status_t forGridAxes(const std::vector<int64_t> &shape,
                              const std::vector<int32_t> &axes,
                              Communicator **group);

  /// The payload bytes this rank moved over this communicator.
  const precrt_traffic_t &traffic() const { return traffic_; }

  /// The peer windows of generated code on this group (created on first use).
  PeerWindows &peerWindows();
  /// Counts what the peers read from this rank's window and it from theirs.
  void countWindowTraffic(uint64_t sent, uint64_t received) {
    countTraffic(sent, received);
  }

  /// Why the communicator is unusable, empty while it is usable.
  const std::string &brokenReason() const { return brokenReason_; }

  /// For a wait outside the backend's calls (a peer window fence): whether
  /// rank `peer` has left this communicator for good (its world ended, or
  /// it gave up on the communicator), as the backend's own waits notice it.
  /// Then `reason` says so as they do ("rank 1 exited while the others
  /// waited in " + `what`). A backend that cannot tell answers false, and
  /// the wait ends at its deadline.
  virtual bool peerHasLeft(int peer, const std::string &what,
                           std::string &reason) {
    return false;
  }

protected:
  /// Checks agreement on `call.descriptor` across the group, then moves the
  /// data. A rank whose call is locallyInvalid() only takes part in the check.
  virtual precrt_status_t runCollective(const CollectiveCall &call) = 0;
  virtual precrt_status_t runPointToPoint(const PointToPointCall &call,
                                          const CallDescriptor &sendHeader,
                                          const CallDescriptor &recvHeader) = 0;
  /// Builds this rank's communicator for `group`; every rank of this
  /// communicator calls it, after agreeing on the split.
  virtual precrt_status_t createGroup(const GridGroup &group,
                                      std::unique_ptr<Communicator> *result) = 0;

  /// Counts payload that the backend moved for this rank: `sent` bytes to
  /// peers (read by them, on the local backend) and `received` from them,
  /// of which `sentAcross` and `receivedAcross` to and from other hosts.
  void countTraffic(uint64_t sent, uint64_t received, uint64_t sentAcross = 0,
                    uint64_t receivedAcross = 0) {
    traffic_.bytes_sent += sent;
    traffic_.bytes_received += received;
    traffic_.bytes_sent_across_hosts += sentAcross;
    traffic_.bytes_received_across_hosts += receivedAcross;
  }

  /// After a timeout or a peer failure: every later call fails at once with
  /// PRECRT_ERROR_PEER_FAILED, since messages of the failed call may still be
  /// in flight.
  void markBroken(const std::string &reason);

  /// Now plus the timeout. Timeouts beyond a century wait as if forever,
  /// instead of overflowing the clock into the past.
  Clock::time_point deadline() const {
    constexpr int64_t kCenturyMs = int64_t(100) * 365 * 24 * 3600 * 1000;
    return Clock::now() +
           std::chrono::milliseconds(std::min(timeoutMs_, kCenturyMs));
  }

private:
  precrt_backend_t backend_;
  int rank_;
  int size_;
  int64_t timeoutMs_;
  uint64_t nextSequence_ = 0;
  std::vector<uint64_t> nextSendSequence_;
  std::vector<uint64_t> nextRecvSequence_;
  std::string brokenReason_;
  precrt_traffic_t traffic_ = {};
  std::map<std::pair<std::vector<int64_t>, std::vector<int32_t>>,
           std::unique_ptr<Communicator>>
      gridGroups_;
  std::unique_ptr<PeerWindows> peerWindows_;
};

/// The process default timeout: precrtSetDefaultTimeoutMs, else
/// PRECRT_TIMEOUT_MS, else 300000.
int64_t defaultTimeoutMs();
void setDefaultTimeoutMs(int64_t timeoutMs);

} // namespace precrt

#endif // PRECRT_LIB_CORE_COMMUNICATOR_H
