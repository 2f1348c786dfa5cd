//===- TrafficUtil.h - the bytes each collective should move ----*- C++ -*-===//
//
// What precrtCommGetTraffic must count for one call, derived from the
// algorithms of docs/Runtime.md rather than from the code that counts.
//
//===----------------------------------------------------------------------===//

#ifndef PRECRT_TEST_TRAFFICUTIL_H
#define PRECRT_TEST_TRAFFICUTIL_H

#include "precrt/precrt.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <string>

namespace precrt_test {

struct Traffic {
  uint64_t sent = 0, received = 0;
};

/// Elements of chunk `index` when `count` is cut into `n` chunks, the first
/// count % n one longer.
inline uint64_t chunkElements(uint64_t count, int n, int index) {
  return count / n + (uint64_t(index) < count % n ? 1 : 0);
}

enum class Collective { AllGather, AllToAll, ReduceScatter, AllReduce };

/// Payload bytes rank `rank` of `n` moves in one call of `count` elements of
/// `bytes` each (per rank for gathers and scatters, as the C API counts).
/// Gathers and all-to-all exchange one block with each peer; a reduce-scatter
/// passes one block per ring step (MPI) or reads each peer's block for this
/// rank (local); an all-reduce reduces its chunk and gathers the others.
/// With chunks of unequal length, a ring receives chunks r - 2, ..., r - n
/// and gathers all but chunk r; the local backend reads chunk r from every
/// peer and gathers all but chunk r.
inline Traffic expectedTraffic(Collective collective, precrt_backend_t backend,
                               int n, int rank, uint64_t count,
                               uint64_t bytes) {
  uint64_t peers = uint64_t(n - 1);
  switch (collective) {
  case Collective::AllGather:
  case Collective::AllToAll:
  case Collective::ReduceScatter:
    return {peers * count * bytes, peers * count * bytes};
  case Collective::AllReduce: {
    uint64_t mine = chunkElements(count, n, rank);
    uint64_t left = chunkElements(count, n, (rank + n - 1) % n);
    uint64_t sent = (count - mine) + peers * mine;
    uint64_t received = backend == PRECRT_BACKEND_MPI
                            ? (count - left) + (count - mine)
                            : peers * mine + (count - mine);
    if (n == 1)
      return {};
    return {sent * bytes, received * bytes};
  }
  }
  return {};
}

/// Runs `call` and checks the communicator's counters moved by `expected`
/// and one call. The tests' ranks share one host: nothing crosses hosts
/// (test/Integration/CPU/mpi-cluster.test counts what does).
inline void expectTraffic(precrt_comm_t comm, const Traffic &expected,
                          const std::function<void()> &call,
                          const std::string &what) {
  precrt_traffic_t before{}, after{};
  ASSERT_EQ(precrtCommGetTraffic(comm, &before), PRECRT_SUCCESS);
  call();
  ASSERT_EQ(precrtCommGetTraffic(comm, &after), PRECRT_SUCCESS);
  EXPECT_EQ(after.bytes_sent - before.bytes_sent, expected.sent) << what;
  EXPECT_EQ(after.bytes_received - before.bytes_received, expected.received)
      << what;
  EXPECT_EQ(after.bytes_sent_across_hosts, 0u) << what;
  EXPECT_EQ(after.bytes_received_across_hosts, 0u) << what;
  EXPECT_EQ(after.calls - before.calls, 1u) << what;
}

} // namespace precrt_test

#endif // PRECRT_TEST_TRAFFICUTIL_H
