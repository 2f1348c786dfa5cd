//===- FailureTest.cpp - Disagreements, timeouts and dead ranks -----------===//
//
// Failures must be values on every rank, never hangs: ranks that disagree
// learn it together, a stalled rank makes the others time out, and a rank
// that exits makes the others fail without waiting for the timeout.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "precrt/compiled.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <thread>

using namespace precrt_test;
using Clock = std::chrono::steady_clock;

namespace {

TEST(Mismatch, CountDtypeOpAndReductionFailOnEveryRank) {
  const int n = 4;
  std::vector<float> send(64, 1.0f), recv(64 * n);
  ASSERT_EQ(
      runLocal(
          n,
          [&](precrt_comm_t world, int rank) {
            precrtCommSetTimeoutMs(world, 20000);
            std::vector<float> mine(send), out(recv.size());
            // Count.
            EXPECT_EQ(precrtAllReduce(world, mine.data(), out.data(),
                                      rank == 2 ? 17 : 16, PRECRT_DTYPE_F32,
                                      PRECRT_REDUCTION_SUM),
                      PRECRT_ERROR_MISMATCH);
            EXPECT_TRUE(messageContains("rank 2 called all_reduce"))
                << precrtGetLastErrorMessage();
            EXPECT_TRUE(messageContains("count=17"));
            // Dtype.
            EXPECT_EQ(precrtAllGather(world, mine.data(), out.data(), 8,
                                      rank == 1 ? PRECRT_DTYPE_BF16
                                                : PRECRT_DTYPE_F32),
                      PRECRT_ERROR_MISMATCH);
            EXPECT_TRUE(messageContains("dtype=bf16"));
            // Op.
            precrt_status_t status =
                rank == 3
                    ? precrtAllGather(world, mine.data(), out.data(), 8,
                                      PRECRT_DTYPE_F32)
                    : precrtAllReduce(world, mine.data(), out.data(), 8,
                                      PRECRT_DTYPE_F32, PRECRT_REDUCTION_SUM);
            EXPECT_EQ(status, PRECRT_ERROR_MISMATCH);
            EXPECT_TRUE(messageContains("rank 3 called all_gather"));
            // Reduction.
            EXPECT_EQ(precrtReduceScatter(world, mine.data(), out.data(), 4,
                                          PRECRT_DTYPE_F32,
                                          rank == 0 ? PRECRT_REDUCTION_MAX
                                                    : PRECRT_REDUCTION_SUM),
                      PRECRT_ERROR_MISMATCH);
            // Root.
            EXPECT_EQ(precrtBroadcast(world, mine.data(), out.data(), 4,
                                      PRECRT_DTYPE_F32, rank == 1 ? 1 : 0),
                      PRECRT_ERROR_MISMATCH);
            // A mismatch leaves the communicator usable.
            EXPECT_EQ(precrtAllReduce(world, mine.data(), out.data(), 16,
                                      PRECRT_DTYPE_F32, PRECRT_REDUCTION_SUM),
                      PRECRT_SUCCESS)
                << precrtGetLastErrorMessage();
            EXPECT_EQ(out[0], float(n));
          }),
      PRECRT_SUCCESS);
}

TEST(Mismatch, InvalidArgumentsOnOneRankFailTheOthersAtOnce) {
  const int n = 3;
  auto start = Clock::now();
  ASSERT_EQ(
      runLocal(n,
               [&](precrt_comm_t world, int rank) {
                 precrtCommSetTimeoutMs(world, 60000);
                 std::vector<float> data(8, 1.0f), out(8);
                 precrt_status_t status = precrtAllReduce(
                     world, rank == 1 ? nullptr : data.data(), out.data(), 8,
                     PRECRT_DTYPE_F32, PRECRT_REDUCTION_SUM);
                 if (rank == 1) {
                   EXPECT_EQ(status, PRECRT_ERROR_INVALID_ARGUMENT);
                   EXPECT_TRUE(messageContains("null send buffer"));
                 } else {
                   EXPECT_EQ(status, PRECRT_ERROR_PEER_FAILED);
                   EXPECT_TRUE(
                       messageContains("rank 1 passed invalid arguments"));
                 }
                 // Reducing bytes is a local error, reported the same way.
                 status = precrtAllReduce(world, data.data(), out.data(), 8,
                                          rank == 0 ? PRECRT_DTYPE_BYTES
                                                    : PRECRT_DTYPE_F32,
                                          PRECRT_REDUCTION_SUM);
                 EXPECT_EQ(status, rank == 0 ? PRECRT_ERROR_INVALID_ARGUMENT
                                             : PRECRT_ERROR_PEER_FAILED);
               }),
      PRECRT_SUCCESS);
  EXPECT_LT(secondsSince(start), 10.0) << "must not wait for the timeout";
}

TEST(Mismatch, SendRecvCountsDisagree) {
  ASSERT_EQ(
      runLocal(
          2,
          [&](precrt_comm_t world, int rank) {
            precrtCommSetTimeoutMs(world, 20000);
            std::vector<float> data(8, 1.0f);
            precrt_status_t status =
                rank == 0
                    ? precrtSend(world, data.data(), 8, PRECRT_DTYPE_F32, 1)
                    : precrtRecv(world, data.data(), 4, PRECRT_DTYPE_F32, 0);
            EXPECT_EQ(status, PRECRT_ERROR_MISMATCH);
            EXPECT_TRUE(messageContains("rank 0 sends message #0 of 8 x f32"))
                << precrtGetLastErrorMessage();
          }),
      PRECRT_SUCCESS);
}

TEST(Mismatch, InvalidSendRecvArgumentsReachThePeer) {
  auto start = Clock::now();
  ASSERT_EQ(
      runLocal(
          2,
          [&](precrt_comm_t world, int rank) {
            precrtCommSetTimeoutMs(world, 60000);
            float value = 1.0f;
            if (rank == 0) {
              EXPECT_EQ(precrtSend(world, nullptr, 1, PRECRT_DTYPE_F32, 1),
                        PRECRT_ERROR_INVALID_ARGUMENT);
              EXPECT_TRUE(messageContains("null send buffer"));
            } else {
              EXPECT_EQ(precrtRecv(world, &value, 1, PRECRT_DTYPE_F32, 0),
                        PRECRT_ERROR_PEER_FAILED);
              EXPECT_TRUE(messageContains("rank 0 passed invalid arguments"))
                  << precrtGetLastErrorMessage();
            }
          }),
      PRECRT_SUCCESS);
  EXPECT_LT(secondsSince(start), 10.0);
}

TEST(Timeout, StalledRankMakesOthersFailWithinTheTimeout) {
  const int n = 4;
  const int64_t timeoutMs = 200;
  std::vector<precrt_status_t> statuses(n);
  std::vector<double> elapsed(n);
  // Rank 3 stalls until the others have given up on it, however long the
  // machine takes to start them (a fixed sleep races a loaded machine).
  std::atomic<int> gaveUp{0};
  ASSERT_EQ(
      runLocal(n,
               [&](precrt_comm_t world, int rank) {
                 precrtCommSetTimeoutMs(world, timeoutMs);
                 std::vector<float> data(8, 1.0f), out(8);
                 if (rank == 3) {
                   auto stalled = Clock::now();
                   while (gaveUp.load() < n - 1 && secondsSince(stalled) < 60.0)
                     std::this_thread::sleep_for(std::chrono::milliseconds(5));
                 }
                 auto start = Clock::now();
                 statuses[rank] =
                     precrtAllReduce(world, data.data(), out.data(), 8,
                                     PRECRT_DTYPE_F32, PRECRT_REDUCTION_SUM);
                 elapsed[rank] = secondsSince(start);
                 if (rank != 3)
                   gaveUp.fetch_add(1);
                 if (rank != 3) {
                   EXPECT_TRUE(messageContains("timed out waiting for rank 3"))
                       << precrtGetLastErrorMessage();
                 } else {
                   EXPECT_TRUE(messageContains("timed out"))
                       << precrtGetLastErrorMessage();
                 }
                 // The communicator stays broken afterwards.
                 EXPECT_EQ(precrtBarrier(world), PRECRT_ERROR_PEER_FAILED);
               }),
      PRECRT_SUCCESS);
  for (int rank = 0; rank < 3; ++rank) {
    EXPECT_EQ(statuses[rank], PRECRT_ERROR_TIMEOUT) << rank;
    EXPECT_GE(elapsed[rank], 0.9 * timeoutMs / 1000.0);
    EXPECT_LT(elapsed[rank], 5.0);
  }
  EXPECT_EQ(statuses[3], PRECRT_ERROR_PEER_FAILED);
}

TEST(Timeout, SlowCopyDoesNotHandBuffersBackEarly) {
  // The root of a broadcast has nothing to copy and reaches the last barrier
  // long before its peer has read 128 MiB from the root's buffer, far past
  // a 5 ms timeout. Had the root timed out there, it would free the buffer
  // under the peer's copy. Once data moves, the call completes; only the
  // first barrier (every rank arriving) has a deadline.
  const size_t bytes = size_t(128) << 20;
  std::vector<precrt_status_t> statuses(2);
  ASSERT_EQ(runLocal(2,
                     [&](precrt_comm_t world, int rank) {
                       std::vector<char> buffer(bytes, rank == 0 ? 7 : 0);
                       ASSERT_EQ(precrtBarrier(world), PRECRT_SUCCESS);
                       precrtCommSetTimeoutMs(world, 5);
                       statuses[rank] =
                           precrtBroadcast(world, buffer.data(), buffer.data(),
                                           bytes, PRECRT_DTYPE_BYTES, 0);
                       if (statuses[rank] == PRECRT_SUCCESS)
                         EXPECT_EQ(buffer[bytes - 1], 7) << rank;
                     }),
            PRECRT_SUCCESS);
  // Both ranks passed the first barrier and completed; or, on a machine too
  // busy to bring them to it within 5 ms, one timed out there and the other
  // was refused, before any data moved.
  bool completed =
      statuses[0] == PRECRT_SUCCESS && statuses[1] == PRECRT_SUCCESS;
  bool missedFirstBarrier = (statuses[0] == PRECRT_ERROR_TIMEOUT ||
                             statuses[1] == PRECRT_ERROR_TIMEOUT) &&
                            (statuses[0] == PRECRT_ERROR_PEER_FAILED ||
                             statuses[1] == PRECRT_ERROR_PEER_FAILED);
  EXPECT_TRUE(completed || missedFirstBarrier)
      << precrtStatusName(statuses[0]) << ", " << precrtStatusName(statuses[1]);
}

TEST(Timeout, HugeTimeoutWaitsInsteadOfExpiring) {
  // Now plus INT64_MAX milliseconds would overflow the clock into the past.
  std::vector<precrt_status_t> statuses(2);
  ASSERT_EQ(runLocal(2,
                     [&](precrt_comm_t world, int rank) {
                       precrtCommSetTimeoutMs(world, INT64_MAX);
                       if (rank == 1)
                         std::this_thread::sleep_for(
                             std::chrono::milliseconds(200));
                       statuses[rank] = precrtBarrier(world);
                     }),
            PRECRT_SUCCESS);
  EXPECT_EQ(statuses[0], PRECRT_SUCCESS) << precrtGetLastErrorMessage();
  EXPECT_EQ(statuses[1], PRECRT_SUCCESS);
}

TEST(Timeout, EnvironmentAndApiDefaults) {
  ASSERT_EQ(setenv("PRECRT_TIMEOUT_MS", "150", 1), 0);
  EXPECT_EQ(precrtGetDefaultTimeoutMs(), 150);
  EXPECT_EQ(precrtSetDefaultTimeoutMs(250), PRECRT_SUCCESS);
  EXPECT_EQ(precrtGetDefaultTimeoutMs(), 250);
  EXPECT_EQ(precrtSetDefaultTimeoutMs(-1), PRECRT_ERROR_INVALID_ARGUMENT);
  // precrtRun takes the default in force when it starts: 250 ms.
  double waited = 0;
  ASSERT_EQ(runLocal(2,
                     [&](precrt_comm_t world, int rank) {
                       if (rank == 1)
                         std::this_thread::sleep_for(
                             std::chrono::milliseconds(2500));
                       auto start = Clock::now();
                       EXPECT_EQ(precrtBarrier(world),
                                 rank == 0 ? PRECRT_ERROR_TIMEOUT
                                           : PRECRT_ERROR_PEER_FAILED);
                       if (rank == 0)
                         waited = secondsSince(start);
                     }),
            PRECRT_SUCCESS);
  EXPECT_GE(waited, 0.2);
  EXPECT_LT(waited, 2.0);
  EXPECT_EQ(precrtSetDefaultTimeoutMs(0), PRECRT_SUCCESS); // back to the env
  EXPECT_EQ(precrtGetDefaultTimeoutMs(), 150);
  ASSERT_EQ(setenv("PRECRT_TIMEOUT_MS", "soon", 1), 0);
  precrt_init_options options{};
  options.backend = PRECRT_BACKEND_LOCAL;
  options.num_local_ranks = 2;
  EXPECT_EQ(precrtRun(
                &options, [](precrt_comm_t, void *) { return 0; }, nullptr),
            PRECRT_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(messageContains("PRECRT_TIMEOUT_MS='soon'"));
  ASSERT_EQ(unsetenv("PRECRT_TIMEOUT_MS"), 0);
  EXPECT_EQ(precrtGetDefaultTimeoutMs(), 300000);
}

TEST(DeadRank, ExitedRankFailsOthersWithoutWaitingForTimeout) {
  const int n = 4;
  auto start = Clock::now();
  std::vector<precrt_status_t> statuses(n, PRECRT_SUCCESS);
  ASSERT_EQ(runLocal(n,
                     [&](precrt_comm_t world, int rank) {
                       precrtCommSetTimeoutMs(world, 60000);
                       std::vector<float> data(1 << 12, 1.0f), out(data.size());
                       EXPECT_EQ(precrtAllReduce(world, data.data(), out.data(),
                                                 data.size(), PRECRT_DTYPE_F32,
                                                 PRECRT_REDUCTION_SUM),
                                 PRECRT_SUCCESS);
                       if (rank == 2)
                         return; // dies after the first collective
                       statuses[rank] = precrtAllReduce(
                           world, data.data(), out.data(), data.size(),
                           PRECRT_DTYPE_F32, PRECRT_REDUCTION_SUM);
                       EXPECT_TRUE(messageContains("rank 2 exited"))
                           << precrtGetLastErrorMessage();
                     }),
            PRECRT_SUCCESS);
  for (int rank : {0, 1, 3})
    EXPECT_EQ(statuses[rank], PRECRT_ERROR_PEER_FAILED) << rank;
  EXPECT_LT(secondsSince(start), 10.0);
}

TEST(DeadRank, ReceiverWaitingForExitedSender) {
  ASSERT_EQ(runLocal(2,
                     [&](precrt_comm_t world, int rank) {
                       precrtCommSetTimeoutMs(world, 60000);
                       if (rank == 0)
                         return;
                       float value = 0;
                       EXPECT_EQ(
                           precrtRecv(world, &value, 1, PRECRT_DTYPE_F32, 0),
                           PRECRT_ERROR_PEER_FAILED);
                     }),
            PRECRT_SUCCESS);
}

TEST(Run, FailingRankIsReported) {
  precrt_status_t status = precrtLocalRun(
      3,
      [](precrt_comm_t world, void *) {
        int32_t rank;
        precrtCommRank(world, &rank);
        return rank == 1 ? int(PRECRT_ERROR_BACKEND) : 0;
      },
      nullptr);
  EXPECT_EQ(status, PRECRT_ERROR_BACKEND);
  EXPECT_TRUE(messageContains("rank 1 failed"));
  EXPECT_EQ(precrtLocalRun(
                0, [](precrt_comm_t, void *) { return 0; }, nullptr),
            PRECRT_ERROR_INVALID_ARGUMENT);
}

TEST(Api, VersionNamesAndBadArguments) {
  EXPECT_EQ(precrtGetApiVersion(), PRECRT_API_VERSION);
  EXPECT_STREQ(precrtDtypeName(PRECRT_DTYPE_F8E4M3FN), "f8E4M3FN");
  EXPECT_EQ(precrtDtypeName(precrt_dtype_t(99)), nullptr);
  EXPECT_EQ(precrtDtypeSize(PRECRT_DTYPE_BF16), 2u);
  EXPECT_STREQ(precrtStatusName(PRECRT_ERROR_TIMEOUT), "PRECRT_ERROR_TIMEOUT");
  float x = 0;
  EXPECT_EQ(precrtAllReduce(nullptr, &x, &x, 1, PRECRT_DTYPE_F32,
                            PRECRT_REDUCTION_SUM),
            PRECRT_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(messageContains("null communicator"));
  EXPECT_EQ(precrtGetWorld(), nullptr);
  precrt_comm_t world = nullptr;
  precrt_init_options options{};
  options.backend = PRECRT_BACKEND_LOCAL;
  EXPECT_EQ(precrtInit(&options, &world), PRECRT_ERROR_INVALID_ARGUMENT);
  ASSERT_EQ(setenv("PRECRT_BACKEND", "carrier-pigeon", 1), 0);
  EXPECT_EQ(precrtRun(
                nullptr, [](precrt_comm_t, void *) { return 0; }, nullptr),
            PRECRT_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(messageContains("carrier-pigeon"));
  ASSERT_EQ(unsetenv("PRECRT_BACKEND"), 0);
  ASSERT_EQ(runLocal(2,
                     [&](precrt_comm_t comm, int) {
                       EXPECT_EQ(precrtGetWorld(), comm);
                       int32_t size = 0;
                       EXPECT_EQ(precrtCommSize(comm, &size), PRECRT_SUCCESS);
                       EXPECT_EQ(size, 2);
                       EXPECT_EQ(precrtCommSetStream(comm, &size),
                                 PRECRT_ERROR_INVALID_ARGUMENT);
                       EXPECT_EQ(precrtSendRecv(comm, &x, 1, 5, &x, 1, 0,
                                                PRECRT_DTYPE_F32),
                                 PRECRT_ERROR_INVALID_ARGUMENT);
                     }),
            PRECRT_SUCCESS);
}

TEST(Api, LocalRanksAreBounded) {
  precrt_init_options options{};
  options.backend = PRECRT_BACKEND_LOCAL;
  options.num_local_ranks = 4097;
  EXPECT_EQ(runWithOptions(options, [](precrt_comm_t, int) {}),
            PRECRT_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(messageContains("num_local_ranks 4097 is more than the local "
                              "backend's 4096 ranks"));
}

TEST(Api, SendRecvCountThatOverflowsIsAnError) {
  // (2^61 + 1) f64 elements are 8 bytes once the size wraps around.
  size_t count = (size_t(1) << 61) + 1;
  ASSERT_EQ(
      runLocal(2,
               [&](precrt_comm_t comm, int rank) {
                 double value = 42;
                 precrt_status_t status =
                     rank == 0
                         ? precrtSend(comm, &value, count, PRECRT_DTYPE_F64, 1)
                         : precrtRecv(comm, &value, count, PRECRT_DTYPE_F64, 0);
                 EXPECT_NE(status, PRECRT_SUCCESS);
                 if (rank == 0)
                   EXPECT_TRUE(messageContains(
                       "send count 2305843009213693953 overflows"));
               }),
      PRECRT_SUCCESS);
}

TEST(Api, OverlappingBuffersOnlyInTheirInPlaceForm) {
  ASSERT_EQ(
      runLocal(2,
               [](precrt_comm_t comm, int rank) {
                 float buffer[8];
                 for (int i = 0; i < 8; ++i)
                   buffer[i] = 100.0f * rank + i;
                 // The documented in-place forms work.
                 EXPECT_EQ(precrtAllGather(comm, buffer + 4 * rank, buffer, 4,
                                           PRECRT_DTYPE_F32),
                           PRECRT_SUCCESS);
                 EXPECT_EQ(precrtReduceScatter(comm, buffer, buffer + 4 * rank,
                                               4, PRECRT_DTYPE_F32,
                                               PRECRT_REDUCTION_SUM),
                           PRECRT_SUCCESS);
                 EXPECT_EQ(precrtAllReduce(comm, buffer, buffer, 8,
                                           PRECRT_DTYPE_F32,
                                           PRECRT_REDUCTION_SUM),
                           PRECRT_SUCCESS);
                 // Overlaps in any other way are errors on the rank that
                 // passes them; rank 0's all_gather below is in place.
                 precrt_status_t status =
                     precrtAllGather(comm, buffer, buffer, 4, PRECRT_DTYPE_F32);
                 if (rank == 1) {
                   EXPECT_EQ(status, PRECRT_ERROR_INVALID_ARGUMENT);
                   EXPECT_TRUE(messageContains(
                       "precrtAllGather: send and recv buffers overlap, but "
                       "not in place (send == recv + rank * count)"));
                 } else {
                   EXPECT_EQ(status, PRECRT_ERROR_PEER_FAILED);
                 }
               }),
      PRECRT_SUCCESS);
  ASSERT_EQ(runLocal(2,
                     [](precrt_comm_t comm, int) {
                       float buffer[8] = {};
                       EXPECT_EQ(precrtReduceScatter(
                                     comm, buffer + 1, buffer + 2, 2,
                                     PRECRT_DTYPE_F32, PRECRT_REDUCTION_SUM),
                                 PRECRT_ERROR_INVALID_ARGUMENT);
                       EXPECT_EQ(precrtAllReduce(comm, buffer, buffer + 1, 4,
                                                 PRECRT_DTYPE_F32,
                                                 PRECRT_REDUCTION_SUM),
                                 PRECRT_ERROR_INVALID_ARGUMENT);
                       EXPECT_TRUE(messageContains("(send == recv)"));
                     }),
            PRECRT_SUCCESS);
  ASSERT_EQ(
      runLocal(2,
               [](precrt_comm_t comm, int rank) {
                 float buffer[8] = {};
                 // Only the root's send is read: in place is
                 // send == recv there.
                 EXPECT_EQ(precrtBroadcast(comm, buffer, buffer, 8,
                                           PRECRT_DTYPE_F32, 0),
                           PRECRT_SUCCESS);
                 precrt_status_t status = precrtBroadcast(
                     comm, buffer, buffer + 3, 4, PRECRT_DTYPE_F32, 0);
                 EXPECT_EQ(status, rank == 0 ? PRECRT_ERROR_INVALID_ARGUMENT
                                             : PRECRT_ERROR_PEER_FAILED);
                 int peer = 1 - rank;
                 EXPECT_EQ(precrtSendRecv(comm, buffer, 6, peer, buffer + 2, 6,
                                          peer, PRECRT_DTYPE_F32),
                           PRECRT_ERROR_INVALID_ARGUMENT);
                 EXPECT_TRUE(messageContains(
                     "precrtSendRecv: send and recv buffers overlap"));
               }),
      PRECRT_SUCCESS);
}

TEST(Compiled, SplitTransportNeedsAMultipleOfTheGroup) {
  ASSERT_EQ(
      runLocal(4,
               [](precrt_comm_t, int) {
                 float send[10], recv[10];
                 for (float &x : send)
                   x = 1;
                 const int64_t shape[1] = {4};
                 for (int32_t transport : {PRECRT_TRANSPORT_REDUCE_SCATTER,
                                           PRECRT_TRANSPORT_ALL_TO_ALL}) {
                   precrtCompiledClearError();
                   EXPECT_EQ(precrtCompiledCollective(
                                 transport, send, recv, 10, PRECRT_DTYPE_F32,
                                 PRECRT_REDUCTION_SUM, 1, shape, 0, nullptr),
                             PRECRT_ERROR_INVALID_ARGUMENT);
                   const char *error = precrtCompiledGetError();
                   ASSERT_NE(error, nullptr);
                   EXPECT_NE(std::string(error).find(
                                 "sends 10 elements over a group of 4 ranks: "
                                 "expected a multiple of 4"),
                             std::string::npos)
                       << error;
                 }
                 precrtCompiledClearError();
                 // Null axes with a count of them, and a null shape.
                 EXPECT_EQ(precrtCompiledCollective(
                               PRECRT_TRANSPORT_ALL_REDUCE, send, recv, 4,
                               PRECRT_DTYPE_F32, PRECRT_REDUCTION_SUM, 1, shape,
                               1, nullptr),
                           PRECRT_ERROR_INVALID_ARGUMENT);
                 precrtCompiledClearError();
                 EXPECT_EQ(precrtCompiledCollective(
                               PRECRT_TRANSPORT_ALL_REDUCE, send, recv, 4,
                               PRECRT_DTYPE_F32, PRECRT_REDUCTION_SUM, 1,
                               nullptr, 0, nullptr),
                           PRECRT_ERROR_INVALID_ARGUMENT);
                 const char *error = precrtCompiledGetError();
                 ASSERT_NE(error, nullptr);
                 EXPECT_STREQ(error, "a compiled collective got a null grid "
                                     "shape or axes");
                 precrtCompiledClearError();
               }),
      PRECRT_SUCCESS);
}

TEST(Mismatch, GridCoordinatesOnAWorldOfAnotherSizeAreAnError) {
  // Generated code asks for its grid coordinates with the grid's size: on a
  // world of 2 ranks, a grid of 4 would give wrong coordinates silently.
  ASSERT_EQ(runLocal(2,
                     [](precrt_comm_t, int rank) {
                       precrtCompiledClearError();
                       EXPECT_EQ(precrtCompiledGridRank(2), rank);
                       EXPECT_EQ(precrtCompiledGetError(), nullptr);
                       precrtCompiledGridRank(4);
                       const char *error = precrtCompiledGetError();
                       ASSERT_NE(error, nullptr);
                       EXPECT_NE(std::string(error).find(
                                     "a grid of 4 ranks on a world of 2 "
                                     "ranks: its coordinates would be wrong"),
                                 std::string::npos)
                           << error;
                       precrtCompiledClearError();
                     }),
            PRECRT_SUCCESS);
}

} // namespace
