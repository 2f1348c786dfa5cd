//===- Communicator.cpp - Backend-independent communicator logic ----------===//

#include "core/Communicator.h"

#include "core/CommunicationThread.h"
#include "core/Environment.h"
#include "core/Error.h"
#include "core/PeerWindows.h"

#include <atomic>
#include <cinttypes>
#include <cstring>

namespace precrt {

const char *collectiveOpName(CollectiveOp op) {
  switch (op) {
  case CollectiveOp::AllGather:
    return "all_gather";
  case CollectiveOp::ReduceScatter:
    return "reduce_scatter";
  case CollectiveOp::AllReduce:
    return "all_reduce";
  case CollectiveOp::AllToAll:
    return "all_to_all";
  case CollectiveOp::Broadcast:
    return "broadcast";
  case CollectiveOp::Barrier:
    return "barrier";
  case CollectiveOp::GridSplit:
    return "comm_for_grid_axes";
  case CollectiveOp::PointToPoint:
    return "send/recv";
  }
  return "unknown collective";
}

static const char *reductionName(uint32_t reduction) {
  static const char *const names[] = {"sum", "avg", "max", "min"};
  return reduction < PRECRT_NUM_REDUCTIONS ? names[reduction] : "unknown";
}

static bool isReducing(CollectiveOp op) {
  return op == CollectiveOp::ReduceScatter || op == CollectiveOp::AllReduce;
}

std::string describeCall(const CallDescriptor &call) {
  CollectiveOp op = CollectiveOp(call.op);
  const char *dtype = precrtDtypeName(precrt_dtype_t(call.dtype));
  char text[256];
  int length = std::snprintf(text, sizeof(text), "%s #%" PRIu64,
                             collectiveOpName(op), call.sequence);
  auto append = [&](const char *format, auto... args) {
    if (length < int(sizeof(text)))
      length += std::snprintf(text + length, sizeof(text) - length, format,
                              args...);
  };
  switch (op) {
  case CollectiveOp::Barrier:
    break;
  case CollectiveOp::GridSplit:
    append(" (grid fingerprint %016" PRIx64 ")", call.fingerprint);
    break;
  default:
    append(" (count=%" PRIu64 ", dtype=%s", call.count, dtype ? dtype : "?");
    if (isReducing(op))
      append(", reduction=%s", reductionName(call.reduction));
    if (op == CollectiveOp::Broadcast)
      append(", root=%d", call.root);
    append(")");
  }
  return text;
}

static bool sameCall(const CallDescriptor &a, const CallDescriptor &b) {
  if (a.op != b.op || a.sequence != b.sequence)
    return false;
  switch (CollectiveOp(a.op)) {
  case CollectiveOp::Barrier:
    return true;
  case CollectiveOp::GridSplit:
    return a.fingerprint == b.fingerprint;
  case CollectiveOp::Broadcast:
    return a.count == b.count && a.dtype == b.dtype && a.root == b.root;
  case CollectiveOp::ReduceScatter:
  case CollectiveOp::AllReduce:
    return a.count == b.count && a.dtype == b.dtype &&
           a.reduction == b.reduction;
  default:
    return a.count == b.count && a.dtype == b.dtype;
  }
}

precrt_status_t checkAgreement(const CallDescriptor *descriptors, int size,
                               int myRank) {
  if (descriptors[myRank].invalidOnRank)
    return PRECRT_ERROR_INVALID_ARGUMENT; // keeps the caller's own message
  for (int rank = 0; rank < size; ++rank) {
    if (descriptors[rank].invalidOnRank)
      return fail(PRECRT_ERROR_PEER_FAILED,
                  "rank %d passed invalid arguments to %s", rank,
                  describeCall(descriptors[rank]).c_str());
  }
  for (int rank = 1; rank < size; ++rank) {
    if (!sameCall(descriptors[0], descriptors[rank]))
      return fail(PRECRT_ERROR_MISMATCH,
                  "ranks disagree on the collective: rank 0 called %s but "
                  "rank %d called %s",
                  describeCall(descriptors[0]).c_str(), rank,
                  describeCall(descriptors[rank]).c_str());
  }
  return PRECRT_SUCCESS;
}

precrt_status_t checkPairAgreement(const CallDescriptor &sent,
                                   const CallDescriptor &expected, int sender,
                                   int receiver) {
  if (sent.invalidOnRank || expected.invalidOnRank)
    return fail(PRECRT_ERROR_PEER_FAILED,
                "rank %d passed invalid arguments to a send/recv with rank %d",
                sent.invalidOnRank ? sender : receiver,
                sent.invalidOnRank ? receiver : sender);
  if (sent.op != expected.op || sent.count != expected.count ||
      sent.dtype != expected.dtype || sent.sequence != expected.sequence) {
    const char *sentType = precrtDtypeName(precrt_dtype_t(sent.dtype));
    const char *expectedType = precrtDtypeName(precrt_dtype_t(expected.dtype));
    return fail(PRECRT_ERROR_MISMATCH,
                "send/recv mismatch: rank %d sends message #%" PRIu64
                " of %" PRIu64 " x %s to rank %d, which expects message #%" PRIu64
                " of %" PRIu64 " x %s",
                sender, sent.sequence, sent.count, sentType ? sentType : "?",
                receiver, expected.sequence, expected.count,
                expectedType ? expectedType : "?");
  }
  return PRECRT_SUCCESS;
}

precrt_status_t computeGridGroup(int parentRank, int parentSize,
                                 const std::vector<int64_t> &shape,
                                 const std::vector<int32_t> &axes,
                                 GridGroup *group) {
  if (shape.empty())
    return fail(PRECRT_ERROR_INVALID_ARGUMENT, "grid shape has no dimensions");
  int64_t gridSize = 1;
  for (size_t dim = 0; dim < shape.size(); ++dim) {
    if (shape[dim] <= 0)
      return fail(PRECRT_ERROR_INVALID_ARGUMENT,
                  "grid dimension %zu has size %" PRId64 ", expected > 0", dim,
                  shape[dim]);
    gridSize *= shape[dim];
    if (gridSize > parentSize)
      break;
  }
  if (gridSize != parentSize) {
    std::string shapeText;
    for (int64_t extent : shape)
      shapeText += (shapeText.empty() ? "" : "x") + std::to_string(extent);
    return fail(PRECRT_ERROR_INVALID_ARGUMENT,
                "grid of shape %s does not cover the %d ranks of the parent "
                "communicator: its size must equal theirs",
                shapeText.c_str(), parentSize);
  }
  std::vector<bool> isGroupAxis(shape.size(), false);
  for (int32_t axis : axes) {
    if (axis < 0 || size_t(axis) >= shape.size())
      return fail(PRECRT_ERROR_INVALID_ARGUMENT,
                  "grid axis %d out of range for a %zu-d grid", axis,
                  shape.size());
    if (isGroupAxis[axis])
      return fail(PRECRT_ERROR_INVALID_ARGUMENT, "grid axis %d listed twice",
                  axis);
    isGroupAxis[axis] = true;
  }

  // Row-major coordinates, last axis fastest.
  auto coordinatesOf = [&](int64_t linear) {
    std::vector<int64_t> coords(shape.size());
    for (size_t dim = shape.size(); dim-- > 0;) {
      coords[dim] = linear % shape[dim];
      linear /= shape[dim];
    }
    return coords;
  };
  auto colorOf = [&](const std::vector<int64_t> &coords) {
    int64_t color = 0;
    for (size_t dim = 0; dim < shape.size(); ++dim)
      if (!isGroupAxis[dim])
        color = color * shape[dim] + coords[dim];
    return color;
  };
  auto keyOf = [&](const std::vector<int64_t> &coords) {
    int64_t key = 0;
    for (int32_t axis : axes)
      key = key * shape[axis] + coords[axis];
    return key;
  };

  std::vector<int64_t> myCoords = coordinatesOf(parentRank);
  group->color = colorOf(myCoords);
  int64_t groupSize = 1;
  for (int32_t axis : axes)
    groupSize *= shape[axis];
  group->members.assign(groupSize, -1);
  for (int rank = 0; rank < parentSize; ++rank) {
    std::vector<int64_t> coords = coordinatesOf(rank);
    if (colorOf(coords) == group->color)
      group->members[keyOf(coords)] = rank;
  }
  group->rankInGroup = static_cast<int>(keyOf(myCoords));

  // FNV-1a over the shape and axes: ranks that split differently disagree.
  uint64_t hash = 1469598103934665603ull;
  auto mix = [&](int64_t value) {
    for (int byte = 0; byte < 8; ++byte) {
      hash ^= uint64_t(value >> (8 * byte)) & 0xFF;
      hash *= 1099511628211ull;
    }
  };
  mix(int64_t(shape.size()));
  for (int64_t extent : shape)
    mix(extent);
  mix(int64_t(axes.size()));
  for (int32_t axis : axes)
    mix(axis);
  group->fingerprint = hash;
  group->shape = shape;
  group->axes = axes;
  return PRECRT_SUCCESS;
}

size_t byteSize(precrt_dtype_t dtype, size_t count) {
  return precrtDtypeSize(dtype) * count;
}

std::pair<size_t, size_t> chunkRange(size_t count, int parts, int index) {
  size_t base = count / parts, longer = count % parts;
  size_t i = static_cast<size_t>(index);
  size_t begin = base * i + (i < longer ? i : longer);
  return {begin, begin + base + (i < longer ? 1 : 0)};
}

Communicator::Communicator(precrt_backend_t backend, int rank, int size,
                           int64_t timeoutMs)
    : backend_(backend), rank_(rank), size_(size), timeoutMs_(timeoutMs),
      nextSendSequence_(size, 0), nextRecvSequence_(size, 0) {}

Communicator::~Communicator() = default;

PeerWindows &Communicator::peerWindows() {
  if (!peerWindows_)
    peerWindows_ = std::make_unique<PeerWindows>();
  return *peerWindows_;
}

precrt_status_t Communicator::setStream(void *stream) {
  if (stream)
    return fail(PRECRT_ERROR_INVALID_ARGUMENT,
                "only the nccl backend takes a stream");
  return PRECRT_SUCCESS;
}

void Communicator::markBroken(const std::string &reason) {
  if (brokenReason_.empty())
    brokenReason_ = reason;
}

precrt_status_t Communicator::collective(CollectiveCall &call) {
  // The rank's started transports use its communicators (and MPI) on its
  // communication thread: they run first.
  communication_thread::waitUntilIdle();
  call.descriptor.sequence = nextSequence_++;
  if (!brokenReason_.empty())
    return fail(PRECRT_ERROR_PEER_FAILED,
                "%s refused: communicator unusable after an earlier failure "
                "(%s)",
                describeCall(call.descriptor).c_str(), brokenReason_.c_str());
  if (!call.agreementOnly && call.op() != CollectiveOp::GridSplit &&
      call.op() != CollectiveOp::Barrier)
    ++traffic_.calls;
  return runCollective(call);
}

precrt_status_t Communicator::pointToPoint(const PointToPointCall &call) {
  communication_thread::waitUntilIdle();
  CallDescriptor sendHeader, recvHeader;
  sendHeader.op = recvHeader.op = uint32_t(CollectiveOp::PointToPoint);
  sendHeader.dtype = recvHeader.dtype = call.dtype;
  sendHeader.invalidOnRank = recvHeader.invalidOnRank = call.locallyInvalid;
  if (call.sendPeer >= 0) {
    sendHeader.count = call.sendCount;
    sendHeader.sequence = nextSendSequence_[call.sendPeer]++;
  }
  if (call.recvPeer >= 0) {
    recvHeader.count = call.recvCount;
    recvHeader.sequence = nextRecvSequence_[call.recvPeer]++;
  }
  if (!brokenReason_.empty())
    return fail(PRECRT_ERROR_PEER_FAILED,
                "send/recv refused: communicator unusable after an earlier "
                "failure (%s)",
                brokenReason_.c_str());
  if (!call.agreementOnly)
    ++traffic_.calls;
  return runPointToPoint(call, sendHeader, recvHeader);
}

precrt_status_t Communicator::forGridAxes(const std::vector<int64_t> &shape,
                                          const std::vector<int32_t> &axes,
                                          Communicator **group) {
  communication_thread::waitUntilIdle();
  auto key = std::make_pair(shape, axes);
  auto cached = gridGroups_.find(key);
  if (cached != gridGroups_.end()) {
    *group = cached->second.get();
    return PRECRT_SUCCESS;
  }
  GridGroup membership;
  precrt_status_t validity =
      computeGridGroup(rank_, size_, shape, axes, &membership);
  // Agree on the split first (a rank with a bad grid still takes part, so
  // that the others fail at once), then build the group.
  CollectiveCall agreement;
  agreement.descriptor.op = uint32_t(CollectiveOp::GridSplit);
  agreement.descriptor.fingerprint = membership.fingerprint;
  agreement.descriptor.invalidOnRank = validity != PRECRT_SUCCESS;
  std::string invalidGrid =
      validity != PRECRT_SUCCESS ? lastErrorMessage() : std::string();
  precrt_status_t status = collective(agreement);
  // This rank's own reason, not the agreement's echo of it.
  if (validity != PRECRT_SUCCESS)
    return fail(validity, "%s", invalidGrid.c_str());
  if (status != PRECRT_SUCCESS)
    return status;
  std::unique_ptr<Communicator> created;
  status = createGroup(membership, &created);
  if (status != PRECRT_SUCCESS)
    return status;
  created->setTimeoutMs(timeoutMs_);
  *group = created.get();
  gridGroups_.emplace(key, std::move(created));
  return PRECRT_SUCCESS;
}

namespace {
std::atomic<int64_t> processDefaultTimeoutMs{0};
} // namespace

int64_t defaultTimeoutMs() {
  int64_t configured = processDefaultTimeoutMs.load();
  if (configured > 0)
    return configured;
  int64_t fromEnvironment = 0;
  if (readPositiveEnv("PRECRT_TIMEOUT_MS", INT64_MAX, &fromEnvironment) ==
      EnvNumber::Valid)
    return fromEnvironment;
  return 300000;
}

void setDefaultTimeoutMs(int64_t timeoutMs) {
  processDefaultTimeoutMs.store(timeoutMs);
}

} // namespace precrt
