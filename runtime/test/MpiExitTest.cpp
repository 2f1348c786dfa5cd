//===- MpiExitTest.cpp - Ranks that return early on the MPI backend -------===//
//
// Run as `mpirun -np 4 precrt_mpi_exit_tests` (check-precrt does). Each test
// is one precrtRun in which some rank returns without a call that its peers
// make: the peers must fail at once, naming the rank that exited, rather
// than wait for the (long) timeout. The program initializes MPI itself, so
// precrt leaves it running and every test gets a fresh world.
//
//===----------------------------------------------------------------------===//

#include "MpiTestMain.h"
#include "TestUtil.h"

#include "precrt/compiled.h"
#include "precrt/precrt.h"

#include <gtest/gtest.h>
#include <mpi.h>

#include <chrono>
#include <cstdlib>
#include <functional>
#include <string>
#include <thread>
#include <vector>

using Clock = std::chrono::steady_clock;

using namespace precrt_test;

namespace {

int worldRank = 0, worldSize = 0;


TEST(MpiExit, ExitedRankFailsAWorldCollectiveAtOnce) {
  auto start = Clock::now();
  ASSERT_EQ(runMpi([](precrt_comm_t world, int rank) {
              std::vector<float> data(1 << 12, 1.0f), out(data.size());
              ASSERT_EQ(precrtAllReduce(world, data.data(), out.data(),
                                        data.size(), PRECRT_DTYPE_F32,
                                        PRECRT_REDUCTION_SUM),
                        PRECRT_SUCCESS);
              if (rank == 1) {
                // Leaves once the others wait in the next all_reduce.
                std::this_thread::sleep_for(std::chrono::milliseconds(200));
                return;
              }
              auto waited = Clock::now();
              EXPECT_EQ(precrtAllReduce(world, data.data(), out.data(),
                                        data.size(), PRECRT_DTYPE_F32,
                                        PRECRT_REDUCTION_SUM),
                        PRECRT_ERROR_PEER_FAILED);
              EXPECT_TRUE(messageContains(
                  "rank 1 exited while the others waited in all_reduce #1"))
                  << precrtGetLastErrorMessage();
              EXPECT_LT(secondsSince(waited), 10.0);
              // The world is broken now: later calls fail at once.
              EXPECT_EQ(precrtBarrier(world), PRECRT_ERROR_PEER_FAILED);
            }),
            PRECRT_SUCCESS)
      << precrtGetLastErrorMessage();
  EXPECT_LT(secondsSince(start), 10.0);
}

TEST(MpiExit, ExitedRankFailsItsGridGroupAtOnce) {
  if (worldSize != 4)
    GTEST_SKIP() << "needs 4 ranks";
  auto start = Clock::now();
  ASSERT_EQ(runMpi([](precrt_comm_t world, int rank) {
              // Rows of a 2 x 2 grid: world ranks {0, 1} and {2, 3}.
              const int64_t shape[] = {2, 2};
              const int32_t axes[] = {1};
              precrt_comm_t row = nullptr;
              ASSERT_EQ(precrtCommForGridAxes(world, 2, shape, 1, axes, &row),
                        PRECRT_SUCCESS)
                  << precrtGetLastErrorMessage();
              if (rank == 3)
                return;
              float value = 1.0f, sum = 0.0f;
              auto waited = Clock::now();
              precrt_status_t status = precrtAllReduce(
                  row, &value, &sum, 1, PRECRT_DTYPE_F32, PRECRT_REDUCTION_SUM);
              if (rank == 2) {
                // Rank 3 of the world is rank 1 of the row.
                EXPECT_EQ(status, PRECRT_ERROR_PEER_FAILED);
                EXPECT_TRUE(messageContains(
                    "rank 1 exited while the others waited in all_reduce #0"))
                    << precrtGetLastErrorMessage();
                EXPECT_LT(secondsSince(waited), 10.0);
              } else {
                // The other row is whole and unaffected.
                EXPECT_EQ(status, PRECRT_SUCCESS)
                    << precrtGetLastErrorMessage();
                EXPECT_EQ(sum, 2.0f);
              }
            }),
            PRECRT_SUCCESS)
      << precrtGetLastErrorMessage();
  EXPECT_LT(secondsSince(start), 10.0);
}

TEST(MpiExit, ExitedPeerFailsASendOrReceiveAtOnce) {
  if (worldSize != 4)
    GTEST_SKIP() << "needs 4 ranks";
  auto start = Clock::now();
  ASSERT_EQ(runMpi([](precrt_comm_t world, int rank) {
              // Rank 0 receives from rank 1 and rank 2 sends to rank 3; ranks
              // 1 and 3 leave without their side.
              if (rank == 1 || rank == 3)
                return;
              float value = 1.0f;
              auto waited = Clock::now();
              precrt_status_t status =
                  rank == 0
                      ? precrtRecv(world, &value, 1, PRECRT_DTYPE_F32, 1)
                      : precrtSend(world, &value, 1, PRECRT_DTYPE_F32, 3);
              EXPECT_EQ(status, PRECRT_ERROR_PEER_FAILED);
              std::string expected =
                  "rank " + std::to_string(rank + 1) +
                  " exited while the others waited in send/recv";
              EXPECT_TRUE(messageContains(expected))
                  << precrtGetLastErrorMessage();
              EXPECT_LT(secondsSince(waited), 10.0);
            }),
            PRECRT_SUCCESS)
      << precrtGetLastErrorMessage();
  EXPECT_LT(secondsSince(start), 10.0);
}

TEST(MpiExit, RankThatGaveUpOnACallAndLeftFailsThoseStillInIt) {
  if (worldSize < 3)
    GTEST_SKIP() << "needs 3 ranks";
  auto start = Clock::now();
  ASSERT_EQ(runMpi([](precrt_comm_t world, int rank) {
              // Rank 1 times out waiting for the late rank 2 and leaves; it
              // sent its descriptor but none of its data, so the others must
              // not wait for that data.
              if (rank == 1)
                precrtCommSetTimeoutMs(world, 300);
              if (rank == 2)
                std::this_thread::sleep_for(std::chrono::milliseconds(1000));
              std::vector<float> data(1 << 10, 1.0f), out(data.size());
              auto waited = Clock::now();
              precrt_status_t status =
                  precrtAllReduce(world, data.data(), out.data(), data.size(),
                                  PRECRT_DTYPE_F32, PRECRT_REDUCTION_SUM);
              if (rank == 1) {
                EXPECT_EQ(status, PRECRT_ERROR_TIMEOUT)
                    << precrtGetLastErrorMessage();
                return;
              }
              // Rank 1 told the others when it gave up (or a rank that failed
              // on its notice and gave up too).
              EXPECT_EQ(status, PRECRT_ERROR_PEER_FAILED);
              EXPECT_TRUE(messageContains(" gave up waiting for rank 2 "
                                          "while the others waited in "
                                          "all_reduce #0"))
                  << precrtGetLastErrorMessage();
              EXPECT_LT(secondsSince(waited), 10.0);
            }),
            PRECRT_SUCCESS)
      << precrtGetLastErrorMessage();
  EXPECT_LT(secondsSince(start), 10.0);
}

TEST(MpiExit, RankThatLeavesRightAfterItsLastCallIsNotMissed) {
  // Each rank returns as soon as its own part of the last calls is done,
  // while others may still be taking in its messages: they must complete,
  // not mistake it for a rank that skipped the call.
  for (int run = 0; run < 10; ++run) {
    ASSERT_EQ(runMpi([](precrt_comm_t world, int rank) {
                int32_t n = 0;
                precrtCommSize(world, &n);
                std::vector<float> data(1 << 16, float(rank)), out(data.size());
                for (int call = 0; call < 3; ++call) {
                  EXPECT_EQ(precrtAllReduce(world, data.data(), out.data(),
                                            data.size(), PRECRT_DTYPE_F32,
                                            PRECRT_REDUCTION_SUM),
                            PRECRT_SUCCESS)
                      << precrtGetLastErrorMessage();
                  EXPECT_EQ(out.back(), float(n * (n - 1) / 2));
                }
                std::vector<float> gathered(data.size() * n);
                EXPECT_EQ(precrtAllGather(world, data.data(), gathered.data(),
                                          data.size(), PRECRT_DTYPE_F32),
                          PRECRT_SUCCESS)
                    << precrtGetLastErrorMessage();
                float received = -1.0f, mine = float(rank);
                EXPECT_EQ(precrtSendRecv(world, &mine, 1, (rank + 1) % n,
                                         &received, 1, (rank + n - 1) % n,
                                         PRECRT_DTYPE_F32),
                          PRECRT_SUCCESS)
                    << precrtGetLastErrorMessage();
                EXPECT_EQ(received, float((rank + n - 1) % n));
              }),
              PRECRT_SUCCESS)
        << precrtGetLastErrorMessage();
  }
}

TEST(MpiExit, ExitedRankFailsAPeerWindowFenceAtOnce) {
  // Processes of one machine share the window's memory, and their fence
  // waits in it; with PRECRT_SHARED_WINDOWS=0 the fence is an all_gather.
  for (bool shared : {true, false}) {
    if (shared)
      unsetenv("PRECRT_SHARED_WINDOWS");
    else
      setenv("PRECRT_SHARED_WINDOWS", "0", 1);
    auto start = Clock::now();
    ASSERT_EQ(runMpi([shared](precrt_comm_t world, int rank) {
                int32_t n = 0;
                precrtCommSize(world, &n);
                const int64_t shape[] = {n};
                precrtCompiledClearError();
                void *slot = precrtCompiledWindow(64, 1, shape, 0, nullptr);
                ASSERT_EQ(precrtCompiledGetError(), nullptr)
                    << precrtCompiledGetError();
                if (rank == 1) {
                  // Leaves once the others wait in the fence.
                  std::this_thread::sleep_for(std::chrono::milliseconds(200));
                  return;
                }
                auto waited = Clock::now();
                EXPECT_EQ(precrtCompiledWindowFence(PRECRT_TRANSPORT_ALL_GATHER,
                                                    slot, 16, PRECRT_DTYPE_F32,
                                                    1, shape, 0, nullptr),
                          PRECRT_ERROR_PEER_FAILED);
                std::string error = precrtCompiledGetError();
                precrtCompiledClearError();
                std::string expected =
                    shared ? "rank 1 exited while the others waited in peer "
                             "window fence #1"
                           : "rank 1 exited while the others waited in "
                             "all_gather";
                EXPECT_NE(error.find(expected), std::string::npos) << error;
                // Far below the 60 s timeout: the exit notice ends the wait.
                EXPECT_LT(secondsSince(waited), 5.0);
              }),
              PRECRT_SUCCESS)
        << precrtGetLastErrorMessage();
    EXPECT_LT(secondsSince(start), 10.0);
  }
  unsetenv("PRECRT_SHARED_WINDOWS");
}

TEST(MpiExit, AfterAnEarlyExitTheNextWorldIsHealthy) {
  // The exits above left no message behind that a new world could see.
  ASSERT_EQ(runMpi([](precrt_comm_t world, int) {
              int32_t n = 0;
              precrtCommSize(world, &n);
              float one = 1.0f, sum = 0.0f;
              EXPECT_EQ(precrtAllReduce(world, &one, &sum, 1, PRECRT_DTYPE_F32,
                                        PRECRT_REDUCTION_SUM),
                        PRECRT_SUCCESS)
                  << precrtGetLastErrorMessage();
              EXPECT_EQ(sum, float(n));
              EXPECT_EQ(precrtBarrier(world), PRECRT_SUCCESS);
            }),
            PRECRT_SUCCESS)
      << precrtGetLastErrorMessage();
}

} // namespace

int main(int argc, char **argv) {
  return precrt_test::runMpiTests(argc, argv, worldRank, worldSize);
}
