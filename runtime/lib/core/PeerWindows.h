//===- PeerWindows.h - Buffers a group's ranks read in place ----*- C++ -*-===//
//
// A peer window is where generated code writes its wire data for a transport
// (its own segment) and reads its peers' segments in place after a fence,
// instead of sending the data and receiving a copy. One window per segment
// size and group, of two slots used in turn: a rank writes a slot again only
// after the fence of the other slot, which every peer reaches after its last
// read of the slot's previous contents (the compiler reads a received view
// only before the next collective). Where the ranks share a machine the
// window is memory they all map (POSIX shared memory, also for the threads of
// the local backend), and its fence is a barrier in that memory: each rank
// publishes how many fences it reached and what it called, and waits for the
// others without messages. Elsewhere, or with PRECRT_SHARED_WINDOWS=0, each
// rank has a private window and the fence moves the data with the backend's
// collectives into the same places.
//
//===----------------------------------------------------------------------===//

#ifndef PRECRT_LIB_CORE_PEERWINDOWS_H
#define PRECRT_LIB_CORE_PEERWINDOWS_H

#include "precrt/precrt.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace precrt {

class Communicator;

class PeerWindows {
public:
  PeerWindows() = default;
  PeerWindows(const PeerWindows &) = delete;
  PeerWindows &operator=(const PeerWindows &) = delete;
  ~PeerWindows();

  /// The slot for this call of a transport with `segmentBytes` per rank over
  /// `group` (`groupSize` ranks; nullptr: a group of one without a world):
  /// groupSize segments of segmentBytes, one after another. The first call
  /// for a size creates the window, a collective over `group`. Returns
  /// nullptr with `message` set on failure.
  char *acquire(precrt_comm_t group, int groupSize, size_t segmentBytes,
                precrt_status_t &status, std::string &message);

  /// Makes the data of the slot that acquire() returned for `segmentCount`
  /// elements of `dtype` per segment visible where each rank reads it: for
  /// an all_gather (`transport` PRECRT_TRANSPORT_ALL_GATHER), every segment;
  /// for an all_to_all, block `rank` of every segment (a segment holds one
  /// block per rank). A shared window waits until every rank has arrived (at
  /// most `timeoutMs`, less when a missing rank has left the group) and
  /// checks that all made the same call; a private one
  /// moves the data with the backend's collectives. Adds the payload bytes
  /// this rank read from its peers or made readable for them to `moved`
  /// (those of a shared window to its bytes sent and received: its ranks
  /// share one machine).
  precrt_status_t fence(precrt_comm_t group, int groupSize, int rank,
                        int32_t transport, char *slot, size_t segmentCount,
                        precrt_dtype_t dtype, int64_t timeoutMs,
                        precrt_traffic_t &moved, std::string &message);

private:
  /// What each rank of a shared window publishes in the shared memory, one
  /// cache line each: the number of fences it has reached, and its call at
  /// the last two (a fast rank may publish the next one while a slow one
  /// still compares).
  struct RankControl {
    uint64_t arrivals;
    struct Call {
      int16_t transport;
      int16_t slot;
      int32_t dtype;
      int64_t count;
    } calls[2];
    char padding[64 - 8 - 2 * sizeof(Call)];
  };
  static_assert(sizeof(RankControl) == 64, "one cache line per rank");

  struct Window {
    /// The mapping (shared) or allocation (private), and its data: two slots.
    char *mapping = nullptr;
    size_t mappingBytes = 0;
    char *data = nullptr;
    size_t slotBytes = 0;
    /// Shared windows only: one RankControl per rank, before the data.
    RankControl *control = nullptr;
    bool shared = false;
    uint64_t uses = 0, fences = 0;
    /// Private windows: where an all_to_all's blocks arrive before they are
    /// placed in the segments.
    std::vector<char> staging;
  };
  precrt_status_t create(precrt_comm_t group, int groupSize,
                         size_t dataBytes, Window &window,
                         std::string &message);
  precrt_status_t waitForPeers(Window &window, Communicator &group,
                               int groupSize, int rank, int32_t transport,
                               int slot, size_t segmentCount,
                               precrt_dtype_t dtype, int64_t timeoutMs,
                               std::string &message);

  /// By group size (fixed for a group's own windows, not for the stand-ins
  /// without a world) and segment bytes.
  std::map<std::pair<int, size_t>, Window> windows_;
};

} // namespace precrt

#endif // PRECRT_LIB_CORE_PEERWINDOWS_H
