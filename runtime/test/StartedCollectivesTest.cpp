//===- StartedCollectivesTest.cpp - precrtCompiledCollectiveStart/Wait ----===//
//
// Started transports on the local backend: the same bytes as the
// synchronous form, the order ranks agree on, the checks of a wait, failures
// and timeouts, the drain of a step, traffic records and the profile's
// hidden and exposed communication.
//
//===----------------------------------------------------------------------===//

#include "StartedUtil.h"
#include "TestUtil.h"

#include "precrt/compiled.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

using namespace precrt_test;

namespace {

std::string compiledError() {
  const char *error = precrtCompiledGetError();
  return error ? error : "";
}

/// Runs `body(rank)` on `n` local ranks with a timeout of `timeoutMs`.
precrt_status_t runRanks(int n, int64_t timeoutMs,
                         const std::function<void(precrt_comm_t, int)> &body) {
  precrt_init_options options{};
  options.backend = PRECRT_BACKEND_LOCAL;
  options.num_local_ranks = n;
  options.timeout_ms = timeoutMs;
  return runWithOptions(options, body);
}

TEST(StartedCollectives, BitIdenticalToSynchronous) {
  ASSERT_EQ(runLocal(4,
                     [](precrt_comm_t, int rank) {
                       expectStartedMatchesSynchronous(rank);
                       precrtCompiledClearError();
                     }),
            PRECRT_SUCCESS)
      << precrtGetLastErrorMessage();
}

TEST(StartedCollectives, StartStartSyncWaitWaitKeepsTheOrderAcrossRanks) {
  for (int round = 0; round < 20; ++round)
    ASSERT_EQ(runLocal(4,
                       [](precrt_comm_t, int rank) {
                         expectStartedOrderAcrossRanks(rank, 4);
                         precrtCompiledClearError();
                       }),
              PRECRT_SUCCESS)
        << precrtGetLastErrorMessage();
}

TEST(StartedCollectives, AWaitChecksItsHandleAndBuffers) {
  ASSERT_EQ(
      runLocal(
          2,
          [](precrt_comm_t, int rank) {
            const int64_t shape[] = {2};
            float send[4] = {1, 2, 3, float(rank)}, recv[4], other[4];
            auto startOne = [&] {
              return precrtCompiledCollectiveStart(
                  PRECRT_TRANSPORT_ALL_REDUCE, send, recv, 4, PRECRT_DTYPE_F32,
                  PRECRT_REDUCTION_SUM, 1, shape, 0, nullptr);
            };
            // Wrong buffers: refused once the transport is done.
            int64_t handle = startOne();
            ASSERT_GT(handle, 0);
            EXPECT_EQ(precrtCompiledCollectiveWait(handle, send, other),
                      PRECRT_ERROR_INVALID_ARGUMENT);
            EXPECT_NE(
                compiledError().find("precrtCompiledCollectiveWait: handle " +
                                     std::to_string(handle) +
                                     " (all_reduce of 4 f32) was started with"),
                std::string::npos)
                << compiledError();
            EXPECT_NE(compiledError().find("waited with send"),
                      std::string::npos)
                << compiledError();
            EXPECT_EQ(recv[3], 1.0f) << "the transport completed";
            precrtCompiledClearError();

            // Twice.
            handle = startOne();
            ASSERT_EQ(precrtCompiledCollectiveWait(handle, send, recv),
                      PRECRT_SUCCESS)
                << compiledError();
            EXPECT_EQ(precrtCompiledCollectiveWait(handle, send, recv),
                      PRECRT_ERROR_INVALID_ARGUMENT);
            EXPECT_EQ(compiledError(),
                      "precrtCompiledCollectiveWait: handle " +
                          std::to_string(handle) +
                          " is not a started transport of this rank (unknown, "
                          "or already waited)");
            precrtCompiledClearError();

            // Unknown, and no handle at all.
            for (int64_t unknown : {int64_t(123456), int64_t(0), int64_t(-1)}) {
              EXPECT_EQ(precrtCompiledCollectiveWait(unknown, send, recv),
                        PRECRT_ERROR_INVALID_ARGUMENT);
              EXPECT_NE(compiledError().find("handle " +
                                             std::to_string(unknown) +
                                             " is not a started transport"),
                        std::string::npos)
                  << compiledError();
              precrtCompiledClearError();
            }
          }),
      PRECRT_SUCCESS)
      << precrtGetLastErrorMessage();
}

TEST(StartedCollectives, InvalidArgumentsFailTheStartAndItsWait) {
  ASSERT_EQ(
      runLocal(1,
               [](precrt_comm_t, int) {
                 float send[3] = {1, 2, 3}, recv[3];
                 const int64_t shape[] = {1};
                 int64_t handle = precrtCompiledCollectiveStart(
                     7, send, recv, 3, PRECRT_DTYPE_F32, PRECRT_REDUCTION_SUM,
                     1, shape, 0, nullptr);
                 ASSERT_GT(handle, 0);
                 EXPECT_EQ(compiledError(), "unknown transport 7")
                     << "recorded at the start";
                 EXPECT_EQ(precrtCompiledCollectiveWait(handle, send, recv),
                           PRECRT_ERROR_INVALID_ARGUMENT);
                 // A rank that failed: a later start's wait returns the
                 // failure.
                 handle = precrtCompiledCollectiveStart(
                     PRECRT_TRANSPORT_ALL_REDUCE, send, recv, 3,
                     PRECRT_DTYPE_F32, PRECRT_REDUCTION_SUM, 1, shape, 0,
                     nullptr);
                 EXPECT_EQ(precrtCompiledCollectiveWait(handle, send, recv),
                           PRECRT_ERROR_INVALID_ARGUMENT);
                 EXPECT_EQ(compiledError(), "unknown transport 7");
                 precrtCompiledClearError();
               }),
      PRECRT_SUCCESS);
}

TEST(StartedCollectives, APeerThatNeverJoinsIsATimeoutAtTheWait) {
  const int64_t timeoutMs = 300;
  ASSERT_EQ(
      runRanks(
          2, timeoutMs,
          [&](precrt_comm_t, int rank) {
            if (rank == 1)
              return; // never joins
            const int64_t shape[] = {2};
            float send[4] = {1, 2, 3, 4}, recv[4];
            auto begin = std::chrono::steady_clock::now();
            int64_t handle = precrtCompiledCollectiveStart(
                PRECRT_TRANSPORT_ALL_REDUCE, send, recv, 4, PRECRT_DTYPE_F32,
                PRECRT_REDUCTION_SUM, 1, shape, 0, nullptr);
            EXPECT_LT(secondsSince(begin), 0.25) << "a start does not block";
            int32_t status = precrtCompiledCollectiveWait(handle, send, recv);
            EXPECT_TRUE(status == PRECRT_ERROR_TIMEOUT ||
                        status == PRECRT_ERROR_PEER_FAILED)
                << status << ": " << compiledError();
            EXPECT_LT(secondsSince(begin), 10.0);
            std::string error = compiledError();
            EXPECT_FALSE(error.empty());
            // Later starts and collectives fail at once with the same status.
            begin = std::chrono::steady_clock::now();
            handle = precrtCompiledCollectiveStart(
                PRECRT_TRANSPORT_ALL_REDUCE, send, recv, 4, PRECRT_DTYPE_F32,
                PRECRT_REDUCTION_SUM, 1, shape, 0, nullptr);
            EXPECT_EQ(precrtCompiledCollectiveWait(handle, send, recv), status);
            EXPECT_EQ(precrtCompiledCollective(PRECRT_TRANSPORT_ALL_REDUCE,
                                               send, recv, 4, PRECRT_DTYPE_F32,
                                               PRECRT_REDUCTION_SUM, 1, shape,
                                               0, nullptr),
                      status);
            EXPECT_LT(secondsSince(begin), 0.25);
            EXPECT_EQ(compiledError(), error) << "the first failure stays";
            precrtCompiledClearError();
          }),
      PRECRT_SUCCESS)
      << precrtGetLastErrorMessage();
}

TEST(StartedCollectives, AFailedTransportFailsTheLaterOnesQueuedBehindIt) {
  ASSERT_EQ(
      runLocal(
          2,
          [](precrt_comm_t, int) {
            const int64_t shape[] = {2};
            float send[5] = {1, 2, 3, 4, 5}, recv[10];
            // 5 elements over 2 ranks: found on the communication thread.
            int64_t bad = precrtCompiledCollectiveStart(
                PRECRT_TRANSPORT_REDUCE_SCATTER, send, recv, 5,
                PRECRT_DTYPE_F32, PRECRT_REDUCTION_SUM, 1, shape, 0, nullptr);
            int64_t later = precrtCompiledCollectiveStart(
                PRECRT_TRANSPORT_ALL_GATHER, send, recv, 5, PRECRT_DTYPE_F32,
                PRECRT_REDUCTION_SUM, 1, shape, 0, nullptr);
            EXPECT_EQ(compiledError(), "") << "nothing known at the start";
            EXPECT_EQ(precrtCompiledCollectiveWait(later, send, recv),
                      PRECRT_ERROR_INVALID_ARGUMENT);
            EXPECT_NE(compiledError().find("sends 5 elements over a group of "
                                           "2 ranks: expected a multiple of 2"),
                      std::string::npos)
                << compiledError();
            EXPECT_EQ(precrtCompiledCollectiveWait(bad, send, recv),
                      PRECRT_ERROR_INVALID_ARGUMENT);
            precrtCompiledClearError();
            // Cleared: the rank communicates again.
            float one[2] = {1, 1}, sum[2];
            int64_t handle = precrtCompiledCollectiveStart(
                PRECRT_TRANSPORT_ALL_REDUCE, one, sum, 2, PRECRT_DTYPE_F32,
                PRECRT_REDUCTION_SUM, 1, shape, 0, nullptr);
            EXPECT_EQ(precrtCompiledCollectiveWait(handle, one, sum),
                      PRECRT_SUCCESS)
                << compiledError();
            EXPECT_EQ(sum[0], 2.0f);
          }),
      PRECRT_SUCCESS);
}

TEST(StartedCollectives, ADrainReportsTransportsNeverWaited) {
  ASSERT_EQ(
      runLocal(
          2,
          [](precrt_comm_t, int rank) {
            const int64_t shape[] = {2};
            float send[2] = {float(rank), 1}, recv[2] = {-1, -1};
            int64_t handle = precrtCompiledCollectiveStart(
                PRECRT_TRANSPORT_ALL_REDUCE, send, recv, 2, PRECRT_DTYPE_F32,
                PRECRT_REDUCTION_SUM, 1, shape, 0, nullptr);
            EXPECT_EQ(precrtCompiledDrain(), PRECRT_ERROR_INVALID_ARGUMENT);
            EXPECT_EQ(compiledError(),
                      "handle " + std::to_string(handle) +
                          " (all_reduce of 2 f32) was started but never "
                          "waited");
            EXPECT_EQ(recv[0], 1.0f) << "it ran";
            EXPECT_EQ(recv[1], 2.0f);
            precrtCompiledClearError();
            EXPECT_EQ(precrtCompiledCollectiveWait(handle, send, recv),
                      PRECRT_ERROR_INVALID_ARGUMENT)
                << "the drain forgot it";
            precrtCompiledClearError();
            EXPECT_EQ(precrtCompiledDrain(), PRECRT_SUCCESS);
          }),
      PRECRT_SUCCESS);
}

TEST(StartedCollectives, ARankThatReturnsWithTransportsInFlightDrains) {
  const int n = 3;
  std::vector<std::vector<float>> recv(n, std::vector<float>(n, -1));
  std::vector<std::vector<float>> send(n);
  ASSERT_EQ(runLocal(n,
                     [&](precrt_comm_t, int rank) {
                       const int64_t shape[] = {n};
                       send[rank] = {float(rank + 1)};
                       precrtCompiledCollectiveStart(
                           PRECRT_TRANSPORT_ALL_GATHER, send[rank].data(),
                           recv[rank].data(), 1, PRECRT_DTYPE_F32,
                           PRECRT_REDUCTION_SUM, 1, shape, 0, nullptr);
                       // Returns at once: the world's end runs it.
                     }),
            PRECRT_SUCCESS)
      << precrtGetLastErrorMessage();
  for (int rank = 0; rank < n; ++rank)
    for (int i = 0; i < n; ++i)
      EXPECT_EQ(recv[rank][i], float(i + 1)) << "rank " << rank;
}

TEST(StartedCollectives, TheProfileSplitsBackgroundFromExposedTime) {
  // Rank 1 joins 300 ms late: rank 0's transport spends that long on its
  // communication thread. Rank 0 computes (sleeps) 600 ms before its wait,
  // which then finds the transport done: hidden. Then a start waited at
  // once: exposed, about as long as the background time.
  const double late = 0.3;
  ASSERT_EQ(
      runLocal(
          2,
          [&](precrt_comm_t, int rank) {
            const int64_t shape[] = {2};
            float send[4] = {1, 2, 3, 4}, recv[4];
            auto startOne = [&] {
              return precrtCompiledCollectiveStart(
                  PRECRT_TRANSPORT_ALL_REDUCE, send, recv, 4, PRECRT_DTYPE_F32,
                  PRECRT_REDUCTION_SUM, 1, shape, 0, nullptr);
            };
            auto sleep = [](double seconds) {
              std::this_thread::sleep_for(
                  std::chrono::duration<double>(seconds));
            };
            precrtCompiledResetProfile();
            if (rank == 1)
              sleep(late);
            int64_t handle = startOne();
            if (rank == 0)
              sleep(2 * late);
            ASSERT_EQ(precrtCompiledCollectiveWait(handle, send, recv),
                      PRECRT_SUCCESS)
                << compiledError();
            precrt_profile_t hidden;
            precrtCompiledGetProfile(&hidden);
            EXPECT_EQ(hidden.calls[PRECRT_PROFILE_BACKGROUND], 1);
            EXPECT_EQ(hidden.calls[PRECRT_PROFILE_COLLECTIVE], 1);
            if (rank == 0) {
              EXPECT_GE(hidden.seconds[PRECRT_PROFILE_BACKGROUND], late * 0.9);
              EXPECT_LT(hidden.seconds[PRECRT_PROFILE_COLLECTIVE],
                        hidden.seconds[PRECRT_PROFILE_BACKGROUND] / 2);
            }

            // Both ranks leave this collective together.
            ASSERT_EQ(precrtCompiledCollective(PRECRT_TRANSPORT_ALL_REDUCE,
                                               send, recv, 4, PRECRT_DTYPE_F32,
                                               PRECRT_REDUCTION_SUM, 1, shape,
                                               0, nullptr),
                      PRECRT_SUCCESS);
            precrtCompiledResetProfile();
            if (rank == 1)
              sleep(late);
            handle = startOne();
            ASSERT_EQ(precrtCompiledCollectiveWait(handle, send, recv),
                      PRECRT_SUCCESS)
                << compiledError();
            precrt_profile_t exposed;
            precrtCompiledGetProfile(&exposed);
            if (rank == 0) {
              EXPECT_GE(exposed.seconds[PRECRT_PROFILE_COLLECTIVE], late * 0.9);
              EXPECT_GE(exposed.seconds[PRECRT_PROFILE_COLLECTIVE],
                        exposed.seconds[PRECRT_PROFILE_BACKGROUND] * 0.9);
            }
          }),
      PRECRT_SUCCESS);
}

TEST(StartedCollectives, WithoutAWorldTheStartMovesTheData) {
  // Generated code run without a driver and without PRECRT_BACKEND: each
  // collective runs on a local world of one rank.
  float send[3] = {1.5f, -2, 4}, recv[3] = {0, 0, 0};
  const int64_t shape[] = {1};
  int64_t handle = precrtCompiledCollectiveStart(
      PRECRT_TRANSPORT_ALL_REDUCE, send, recv, 3, PRECRT_DTYPE_F32,
      PRECRT_REDUCTION_SUM, 1, shape, 0, nullptr);
  ASSERT_GT(handle, 0);
  EXPECT_EQ(precrtCompiledCollectiveWait(handle, send, recv), PRECRT_SUCCESS);
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(recv[i], send[i]);
  EXPECT_EQ(precrtCompiledDrain(), PRECRT_SUCCESS);
}

} // namespace
