//===- PeerWindows.cpp - Buffers a group's ranks read in place ------------===//

#include "core/PeerWindows.h"

#include "core/Communicator.h"
#include "core/Profile.h"
#include "precrt/compiled.h"

#include <atomic>
#include <chrono>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <limits>
#include <sys/mman.h>
#include <thread>
#include <unistd.h>
#include <vector>

#ifdef __linux__
#include <linux/futex.h>
#include <sys/syscall.h>
#endif

namespace precrt {
namespace {

/// What ranks compare before sharing memory: the machine they run on (its
/// host name and boot) and whether they may share it.
struct HostKey {
  char text[120] = {};
  int32_t sharingAllowed = 0;
  int32_t padding = 0;
};
static_assert(sizeof(HostKey) == 128, "HostKey travels as bytes");

HostKey getHostKey() {
  HostKey key;
  std::string text;
  char host[64] = {};
  if (gethostname(host, sizeof(host) - 1) == 0)
    text = host;
  std::ifstream boot("/proc/sys/kernel/random/boot_id");
  std::string bootId;
  if (boot >> bootId)
    text += "/" + bootId;
  std::strncpy(key.text, text.c_str(), sizeof(key.text) - 1);
  const char *setting = std::getenv("PRECRT_SHARED_WINDOWS");
  key.sharingAllowed = !(setting && std::strcmp(setting, "0") == 0);
  return key;
}

/// A shared memory object's name: unique on the machine while it exists.
std::string newObjectName() {
  static std::atomic<uint64_t> counter{0};
  return "/precrt-" + std::to_string(getpid()) + "-" +
         std::to_string(counter++);
}

/// Bytes before a shared window's data: the ranks' controls, the
/// creator's token and the wake-up words, rounded up to a page so that the
/// data starts aligned.
size_t controlBytes(int groupSize) {
  size_t bytes = size_t(groupSize) * 64 + sizeof(uint64_t) + 2 * sizeof(uint32_t);
  return (bytes + 4095) / 4096 * 4096;
}

/// Where the creator of a shared window leaves the token that tells the
/// others they mapped its object, not one of the same name elsewhere.
uint64_t *tokenOf(char *mapping, int groupSize) {
  return reinterpret_cast<uint64_t *>(mapping + size_t(groupSize) * 64);
}

/// The wake-up words after the token: a counter every arrival advances,
/// which sleeping ranks wait on (a futex), and the number of sleepers.
struct WakeWords {
  uint32_t arrivals;
  uint32_t sleepers;
};
WakeWords *wakeWordsOf(char *mapping, int groupSize) {
  return reinterpret_cast<WakeWords *>(mapping + size_t(groupSize) * 64 +
                                       sizeof(uint64_t));
}

/// What the creator of a shared window broadcasts: the object's name (empty
/// if it could not create one) and its token.
struct SharedObject {
  char name[56] = {};
  uint64_t token = 0;
};

// The arrival counters are plain words in memory other processes map:
// accessed with the compiler's atomics (C++17 has no atomic_ref).
// Sequentially consistent with the sleepers' count: a rank that goes to
// sleep either sees the arrival it waits for, or the arriving rank sees it
// sleeping and wakes it.
void publishArrival(uint64_t &arrivals, uint64_t fence, WakeWords &wake) {
  __atomic_store_n(&arrivals, fence, __ATOMIC_RELEASE);
  __atomic_fetch_add(&wake.arrivals, 1, __ATOMIC_SEQ_CST);
#ifdef __linux__
  if (__atomic_load_n(&wake.sleepers, __ATOMIC_SEQ_CST) > 0)
    syscall(SYS_futex, &wake.arrivals, FUTEX_WAKE, INT_MAX, nullptr, nullptr,
            0);
#endif
}
uint64_t readArrivals(uint64_t &arrivals) {
  return __atomic_load_n(&arrivals, __ATOMIC_SEQ_CST);
}

/// Polls spent spinning before a waiting rank sleeps: the peers are often
/// microseconds away where each rank has a core.
constexpr int kSpinPolls = 64;

/// Sleeps until some rank arrives at a fence of the window, `arrivals`
/// having been read as the wake-up counter before the last poll, or at
/// most a millisecond: where ranks share cores, the sleeper's core goes to
/// the ranks that have work, and the wake-up comes as soon as they arrive.
/// Elsewhere than on Linux (no futex), it sleeps 50 us.
void sleepUntilArrival(WakeWords &wake, uint32_t arrivals) {
#ifdef __linux__
  __atomic_fetch_add(&wake.sleepers, 1, __ATOMIC_SEQ_CST);
  timespec timeout{0, 1000000};
  syscall(SYS_futex, &wake.arrivals, FUTEX_WAIT, arrivals, &timeout, nullptr,
          0);
  __atomic_fetch_sub(&wake.sleepers, 1, __ATOMIC_SEQ_CST);
#else
  (void)wake;
  (void)arrivals;
  std::this_thread::sleep_for(std::chrono::microseconds(50));
#endif
}

} // namespace

PeerWindows::~PeerWindows() {
  for (auto &[key, window] : windows_) {
    if (window.shared)
      munmap(window.mapping, window.mappingBytes);
    else
      std::free(window.mapping);
  }
}

char *PeerWindows::acquire(precrt_comm_t group, int groupSize,
                           size_t segmentBytes, precrt_status_t &status,
                           std::string &message) {
  auto key = std::make_pair(groupSize, segmentBytes);
  auto found = windows_.find(key);
  if (found == windows_.end()) {
    if (groupSize < 1 ||
        segmentBytes > std::numeric_limits<size_t>::max() / 4 /
                           size_t(groupSize)) {
      status = PRECRT_ERROR_INVALID_ARGUMENT;
      message = "a window of " + std::to_string(segmentBytes) +
                " bytes per rank over " + std::to_string(groupSize) +
                " ranks does not fit in memory";
      return nullptr;
    }
    Window window;
    window.slotBytes = size_t(groupSize) * segmentBytes;
    // Two slots; an empty one still gets memory.
    size_t dataBytes = std::max<size_t>(2 * window.slotBytes, 64);
    status = create(group, groupSize, dataBytes, window, message);
    if (status != PRECRT_SUCCESS)
      return nullptr;
    found = windows_.emplace(key, window).first;
  }
  Window &window = found->second;
  size_t slot = window.uses++ % 2;
  return window.data + slot * window.slotBytes;
}

/// Every rank of `group` calls this for the same window: each learns whether
/// all share one machine and may share memory, then rank 0 creates the
/// object, the others map it by name, and all agree on whether every rank
/// succeeded. Otherwise each takes private memory.
precrt_status_t PeerWindows::create(precrt_comm_t group, int groupSize,
                                    size_t dataBytes, Window &window,
                                    std::string &message) {
  auto failed = [&](precrt_status_t status) {
    message = precrtGetLastErrorMessage();
    return status;
  };
  bool shared = false;
  if (group && groupSize > 1) {
    int32_t rank = 0;
    precrtCommRank(group, &rank);
    HostKey mine = getHostKey();
    std::vector<HostKey> keys(groupSize);
    if (precrt_status_t status = precrtAllGather(
            group, &mine, keys.data(), sizeof(HostKey), PRECRT_DTYPE_BYTES))
      return failed(status);
    shared = true;
    for (const HostKey &key : keys)
      shared = shared && key.sharingAllowed &&
               std::memcmp(key.text, mine.text, sizeof(mine.text)) == 0;
    if (shared) {
      size_t bytes = controlBytes(groupSize) + dataBytes;
      SharedObject object;
      int fd = -1;
      if (rank == 0) {
        std::string chosen = newObjectName();
        fd = shm_open(chosen.c_str(), O_CREAT | O_EXCL | O_RDWR, 0600);
        // Reserved up front: a full /dev/shm must fail here, not as a
        // SIGBUS at the first write of a kernel. The controls start at 0.
        if (fd >= 0 && (ftruncate(fd, off_t(bytes)) != 0 ||
                        posix_fallocate(fd, 0, off_t(bytes)) != 0)) {
          close(fd);
          shm_unlink(chosen.c_str());
          fd = -1;
        }
        if (fd >= 0) {
          std::strncpy(object.name, chosen.c_str(), sizeof(object.name) - 1);
          object.token = (uint64_t(getpid()) << 32) ^
                         uint64_t(reinterpret_cast<uintptr_t>(&object)) ^
                         uint64_t(std::chrono::steady_clock::now()
                                      .time_since_epoch()
                                      .count());
        }
      }
      if (precrt_status_t status =
              precrtBroadcast(group, &object, &object, sizeof(object),
                              PRECRT_DTYPE_BYTES, /*root=*/0)) {
        if (fd >= 0) {
          close(fd);
          shm_unlink(object.name);
        }
        return failed(status);
      }
      if (rank != 0 && object.name[0])
        fd = shm_open(object.name, O_RDWR, 0600);
      if (fd >= 0) {
        void *mapping =
            mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (mapping != MAP_FAILED) {
          window.mapping = static_cast<char *>(mapping);
          window.mappingBytes = bytes;
        }
        close(fd);
      }
      if (rank == 0 && window.mapping)
        *tokenOf(window.mapping, groupSize) = object.token;
      // The token is written before the all-gather below; a rank that
      // mapped another object of the same name sees another token.
      std::vector<int32_t> allMapped(groupSize);
      int32_t written = window.mapping != nullptr;
      precrt_status_t status = precrtAllGather(
          group, &written, allMapped.data(), 4, PRECRT_DTYPE_BYTES);
      if (status == PRECRT_SUCCESS && rank != 0 && window.mapping &&
          __atomic_load_n(tokenOf(window.mapping, groupSize),
                          __ATOMIC_ACQUIRE) != object.token) {
        munmap(window.mapping, window.mappingBytes);
        window.mapping = nullptr;
      }
      if (status != PRECRT_SUCCESS) {
        if (window.mapping)
          munmap(window.mapping, window.mappingBytes);
        if (rank == 0 && object.name[0])
          shm_unlink(object.name);
        return failed(status);
      }
      int32_t mapped = window.mapping != nullptr;
      status = precrtAllGather(group, &mapped, allMapped.data(), 4,
                               PRECRT_DTYPE_BYTES);
      // Every rank has opened it (or given up): the name can go, and the
      // memory lives as long as a mapping.
      if (rank == 0 && object.name[0])
        shm_unlink(object.name);
      for (int32_t peerMapped : allMapped)
        shared = shared && peerMapped;
      if (status != PRECRT_SUCCESS || !shared) {
        if (window.mapping)
          munmap(window.mapping, window.mappingBytes);
        window.mapping = nullptr;
        if (status != PRECRT_SUCCESS)
          return failed(status);
      }
    }
  }
  window.shared = shared;
  if (shared) {
    window.control = reinterpret_cast<RankControl *>(window.mapping);
    window.data = window.mapping + controlBytes(groupSize);
    return PRECRT_SUCCESS;
  }
  window.mapping = static_cast<char *>(std::calloc(dataBytes, 1));
  window.mappingBytes = dataBytes;
  window.data = window.mapping;
  if (!window.mapping) {
    message = "cannot allocate a window of " + std::to_string(dataBytes) +
              " bytes";
    return PRECRT_ERROR_INTERNAL;
  }
  return PRECRT_SUCCESS;
}

/// The barrier of a shared window: this rank publishes its call and that it
/// reached fence `window.fences`, waits until every rank has, then compares
/// the calls. Every rank sees the same calls and reaches the same verdict.
precrt_status_t
PeerWindows::waitForPeers(Window &window, Communicator &group, int groupSize,
                          int rank, int32_t transport, int slot,
                          size_t segmentCount, precrt_dtype_t dtype,
                          int64_t timeoutMs, std::string &message) {
  const uint64_t fence = ++window.fences;
  RankControl &mine = window.control[rank];
  mine.calls[fence % 2] = {int16_t(transport), int16_t(slot), int32_t(dtype),
                           int64_t(segmentCount)};
  // Releases this rank's writes to its segment and its call.
  WakeWords &wake = *wakeWordsOf(window.mapping, groupSize);
  publishArrival(mine.arrivals, fence, wake);
  // Timeouts beyond a century wait as if forever, instead of overflowing
  // the clock into the past.
  constexpr int64_t kCenturyMs = int64_t(100) * 365 * 24 * 3600 * 1000;
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::milliseconds(std::min(timeoutMs, kCenturyMs));
  // The wait for the peers is the fence's waiting (prec-run --profile).
  const int64_t arrived = profile::nowNanoseconds();
  for (int polls = 0;; ++polls) {
    // Read before the poll: an arrival after the poll changes the counter,
    // and the sleep returns at once.
    const uint32_t wakeCount =
        __atomic_load_n(&wake.arrivals, __ATOMIC_SEQ_CST);
    int missing = -1;
    for (int peer = 0; peer < groupSize && missing < 0; ++peer)
      if (readArrivals(window.control[peer].arrivals) < fence)
        missing = peer;
    if (missing < 0)
      break;
    // Past the spin, a wait can afford to ask the backend, as its own waits
    // do, whether a missing peer has left: one that has never comes. Its
    // arrival is read again after the answer, since it may have come to
    // this fence just before leaving.
    if (polls >= kSpinPolls) {
      const std::string what = "peer window fence #" + std::to_string(fence);
      for (int peer = missing; peer < groupSize; ++peer) {
        std::string reason;
        if (readArrivals(window.control[peer].arrivals) < fence &&
            group.peerHasLeft(peer, what, reason) &&
            readArrivals(window.control[peer].arrivals) < fence) {
          profile::record(PRECRT_PROFILE_WAIT, arrived);
          message = reason;
          return PRECRT_ERROR_PEER_FAILED;
        }
      }
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      profile::record(PRECRT_PROFILE_WAIT, arrived);
      message = "peer window fence #" + std::to_string(fence) +
                " timed out after " + std::to_string(timeoutMs) +
                " ms waiting for rank " + std::to_string(missing);
      return PRECRT_ERROR_TIMEOUT;
    }
    if (polls >= kSpinPolls)
      sleepUntilArrival(wake, wakeCount);
  }
  profile::record(PRECRT_PROFILE_WAIT, arrived);
  auto describe = [](const RankControl::Call &call) {
    return std::string(call.transport == PRECRT_TRANSPORT_ALL_TO_ALL
                           ? "all_to_all"
                           : "all_gather") +
           " of " + std::to_string(call.count) + " x " +
           precrtDtypeName(precrt_dtype_t(call.dtype)) + " per rank (slot " +
           std::to_string(call.slot) + ")";
  };
  // Against rank 0's call, so that every rank reports the same difference.
  const RankControl::Call &first = window.control[0].calls[fence % 2];
  for (int peer = 1; peer < groupSize; ++peer) {
    const RankControl::Call &call = window.control[peer].calls[fence % 2];
    if (call.transport != first.transport || call.slot != first.slot ||
        call.dtype != first.dtype || call.count != first.count) {
      message = "peer window fence #" + std::to_string(fence) +
                ": rank 0 called " + describe(first) + ", rank " +
                std::to_string(peer) + " " + describe(call);
      return PRECRT_ERROR_MISMATCH;
    }
  }
  return PRECRT_SUCCESS;
}

precrt_status_t PeerWindows::fence(precrt_comm_t group, int groupSize,
                                   int rank, int32_t transport, char *slot,
                                   size_t segmentCount, precrt_dtype_t dtype,
                                   int64_t timeoutMs, precrt_traffic_t &moved,
                                   std::string &message) {
  const size_t segmentBytes = byteSize(dtype, segmentCount);
  const bool allToAll = transport == PRECRT_TRANSPORT_ALL_TO_ALL;
  const size_t blockCount = allToAll ? segmentCount / groupSize : segmentCount;
  const size_t blockBytes = byteSize(dtype, blockCount);
  if (groupSize == 1 || !group)
    return PRECRT_SUCCESS;
  // The fence follows the acquisition of its slot.
  auto found = windows_.find(std::make_pair(groupSize, segmentBytes));
  const int slotIndex = found == windows_.end()
                            ? -1
                            : int((found->second.uses + 1) % 2);
  if (found == windows_.end() ||
      slot != found->second.data + slotIndex * found->second.slotBytes) {
    message = "a peer window fence got a slot other than the one last "
              "handed out for " +
              std::to_string(segmentBytes) + " bytes per rank";
    return PRECRT_ERROR_INVALID_ARGUMENT;
  }
  Window &window = found->second;
  // A group given up on (a peer failed in an earlier call) fails at once,
  // as its collectives do, instead of waiting for a peer that left.
  const std::string &broken =
      reinterpret_cast<Communicator *>(group)->brokenReason();
  if (!broken.empty()) {
    message = "peer window fence on a group given up on: " + broken;
    return PRECRT_ERROR_PEER_FAILED;
  }
  if (window.shared) {
    if (precrt_status_t status = waitForPeers(
            window, *reinterpret_cast<Communicator *>(group), groupSize, rank,
            transport, slotIndex, segmentCount, dtype, timeoutMs, message))
      return status;
    // Counted as the messages of a private window would be.
    uint64_t payload = uint64_t(groupSize - 1) * blockBytes;
    reinterpret_cast<Communicator *>(group)->countWindowTraffic(payload,
                                                                payload);
    moved.bytes_sent += payload;
    moved.bytes_received += payload;
    return PRECRT_SUCCESS;
  }
  // A private window: the same bytes land in the same places by messages.
  char *own = slot + rank * segmentBytes;
  precrt_traffic_t before{}, after{};
  precrtCommGetTraffic(group, &before);
  precrt_status_t status;
  if (allToAll) {
    // The received blocks are contiguous in the staging buffer, then placed
    // where a shared window holds them.
    std::vector<char> &staging = window.staging;
    staging.resize(segmentBytes);
    status = precrtAllToAll(group, own, staging.data(), blockCount, dtype);
    for (int source = 0; status == PRECRT_SUCCESS && source < groupSize;
         ++source)
      if (source != rank && blockBytes)
        std::memcpy(slot + source * segmentBytes + rank * blockBytes,
                    staging.data() + source * blockBytes, blockBytes);
  } else {
    // In place: the own segment is where the gather puts this rank's part.
    status = precrtAllGather(group, own, slot, blockCount, dtype);
  }
  if (status != PRECRT_SUCCESS) {
    message = precrtGetLastErrorMessage();
    return status;
  }
  precrtCommGetTraffic(group, &after);
  moved.bytes_sent += after.bytes_sent - before.bytes_sent;
  moved.bytes_received += after.bytes_received - before.bytes_received;
  moved.bytes_sent_across_hosts +=
      after.bytes_sent_across_hosts - before.bytes_sent_across_hosts;
  moved.bytes_received_across_hosts +=
      after.bytes_received_across_hosts - before.bytes_received_across_hosts;
  return PRECRT_SUCCESS;
}

} // namespace precrt
