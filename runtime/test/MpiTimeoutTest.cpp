//===- MpiTimeoutTest.cpp - Calls that outlast their timeout on MPI -------===//
//
// Run as `mpirun -np 4 precrt_mpi_timeout_tests` (check-precrt does). Each
// test is one precrtRun on the MPI backend in which a call takes longer than
// its timeout: a transfer slower than the timeout, a rank that gives up on a
// call the others are already moving data in, a rank that comes late to a
// grid split. Every rank must return within about its timeout, and the
// buffers a rank frees after a call returned must stay untouched by MPI (a
// violation crashes the run). The program initializes MPI itself, so every
// test gets a fresh world.
//
//===----------------------------------------------------------------------===//

#include "MpiTestMain.h"
#include "TestUtil.h"

#include "precrt/precrt.h"

#include <gtest/gtest.h>
#include <mpi.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

using Clock = std::chrono::steady_clock;

using namespace precrt_test;

namespace {

int worldRank = 0, worldSize = 0;


/// Ends the process unless destroyed within `seconds`: a call that hangs
/// must fail the run rather than stall it.
class Watchdog {
public:
  Watchdog(double seconds, std::string what)
      : thread_([this, seconds, what = std::move(what)] {
          std::unique_lock<std::mutex> lock(mutex_);
          if (!stopped_.wait_for(lock, std::chrono::duration<double>(seconds),
                                 [this] { return done_; })) {
            std::fprintf(stderr, "rank %d: %s still running after %.0f s\n",
                         worldRank, what.c_str(), seconds);
            std::_Exit(1);
          }
        }) {}
  ~Watchdog() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      done_ = true;
    }
    stopped_.notify_all();
    thread_.join();
  }

private:
  std::mutex mutex_;
  std::condition_variable stopped_;
  bool done_ = false;
  std::thread thread_;
};

TEST(MpiTimeout, TransferSlowerThanTheTimeoutCompletes) {
  // Every rank arrives at once, then 256 MiB go to each rank, which takes
  // far longer than the timeout: the data must arrive, and the buffers are
  // freed as soon as the call returns.
  ASSERT_EQ(runMpi([](precrt_comm_t world, int rank) {
              const size_t bytes = size_t(256) << 20;
              char *buffer = static_cast<char *>(std::malloc(bytes));
              ASSERT_NE(buffer, nullptr);
              std::memset(buffer, rank, bytes);
              ASSERT_EQ(precrtBarrier(world), PRECRT_SUCCESS);
              precrtCommSetTimeoutMs(world, 100);
              EXPECT_EQ(precrtBroadcast(world, buffer, buffer, bytes,
                                        PRECRT_DTYPE_BYTES, 1),
                        PRECRT_SUCCESS)
                  << precrtGetLastErrorMessage();
              size_t wrong = 0;
              for (size_t i = 0; i < bytes; i += 4096)
                wrong += buffer[i] != 1 || buffer[bytes - 1 - i] != 1;
              EXPECT_EQ(wrong, 0u);
              std::free(buffer);
            }),
            PRECRT_SUCCESS)
      << precrtGetLastErrorMessage();
}

TEST(MpiTimeout, RankThatGivesUpReleasesThoseMovingDataAtOnce) {
  // How long rank 1 stays after giving up: what the others must not wait.
  static constexpr int kStaySeconds = 6;
  if (worldSize < 3)
    GTEST_SKIP() << "needs 3 ranks";
  ASSERT_EQ(runMpi([](precrt_comm_t world, int rank) {
              // Rank 1 times out waiting for the late rank 2 but stays; rank
              // 2 then finds every descriptor in and moves data, as do the
              // others, with rank 1 among the peers. They must learn from
              // rank 1 that it gave up, not wait for it to exit, and their
              // buffers (freed then) must stay untouched when it does.
              if (rank == 1)
                precrtCommSetTimeoutMs(world, 200);
              if (rank == 2)
                std::this_thread::sleep_for(std::chrono::milliseconds(700));
              const size_t count = size_t(4) << 20;
              std::vector<float> send(count, float(rank));
              std::vector<float> gathered(count * worldSize);
              auto called = Clock::now();
              precrt_status_t status = precrtAllGather(
                  world, send.data(), gathered.data(), count, PRECRT_DTYPE_F32);
              if (rank == 1) {
                EXPECT_EQ(status, PRECRT_ERROR_TIMEOUT)
                    << precrtGetLastErrorMessage();
                std::this_thread::sleep_for(
                    std::chrono::seconds(kStaySeconds));
                return;
              }
              EXPECT_EQ(status, PRECRT_ERROR_PEER_FAILED);
              EXPECT_TRUE(messageContains(" gave up waiting for rank 2 "
                                          "while the others waited in "
                                          "all_gather #0"))
                  << precrtGetLastErrorMessage();
              // The late rank 2 waited for nobody; the others for rank 2.
              // Both bounds lie well below rank 1's exit (0.2 s + its stay),
              // with room for 4 processes on 2 loaded cores.
              EXPECT_LT(secondsSince(called), rank == 2 ? 3.0 : 4.0);
            }),
            PRECRT_SUCCESS)
      << precrtGetLastErrorMessage();
}

TEST(MpiTimeout, RankLateToAGridSplitFailsWithinItsTimeout) {
  ASSERT_EQ(runMpi([](precrt_comm_t world, int rank) {
              // The others give up on the split before rank 1 arrives; rank
              // 1 still finds all their descriptors, but must not wait for
              // them to build the group.
              precrtCommSetTimeoutMs(world, 1000);
              if (rank == 1)
                std::this_thread::sleep_for(std::chrono::milliseconds(2000));
              const int64_t shape[] = {worldSize};
              const int32_t axes[] = {0};
              precrt_comm_t group = nullptr;
              auto called = Clock::now();
              precrt_status_t status = PRECRT_SUCCESS;
              {
                Watchdog watchdog(20, "precrtCommForGridAxes");
                status =
                    precrtCommForGridAxes(world, 1, shape, 1, axes, &group);
              }
              if (rank != 1) {
                EXPECT_EQ(status, PRECRT_ERROR_TIMEOUT)
                    << precrtGetLastErrorMessage();
              } else {
                EXPECT_TRUE(status == PRECRT_ERROR_PEER_FAILED ||
                            status == PRECRT_ERROR_TIMEOUT)
                    << precrtStatusName(status) << ": "
                    << precrtGetLastErrorMessage();
                EXPECT_TRUE(messageContains("comm_for_grid_axes #0"))
                    << precrtGetLastErrorMessage();
              }
              EXPECT_LT(secondsSince(called), 3.0);
              EXPECT_EQ(precrtBarrier(world), PRECRT_ERROR_PEER_FAILED);
            }),
            PRECRT_SUCCESS)
      << precrtGetLastErrorMessage();
}

TEST(MpiTimeout, AfterTheFailuresTheNextWorldIsHealthy) {
  // Nothing the failures above left behind reaches a new world, and it can
  // still build groups.
  ASSERT_EQ(runMpi([](precrt_comm_t world, int) {
              const int64_t shape[] = {worldSize};
              const int32_t axes[] = {0};
              precrt_comm_t group = nullptr;
              ASSERT_EQ(precrtCommForGridAxes(world, 1, shape, 1, axes, &group),
                        PRECRT_SUCCESS)
                  << precrtGetLastErrorMessage();
              for (precrt_comm_t comm : {world, group}) {
                float one = 1.0f, sum = 0.0f;
                EXPECT_EQ(precrtAllReduce(comm, &one, &sum, 1, PRECRT_DTYPE_F32,
                                          PRECRT_REDUCTION_SUM),
                          PRECRT_SUCCESS)
                    << precrtGetLastErrorMessage();
                EXPECT_EQ(sum, float(worldSize));
              }
            }),
            PRECRT_SUCCESS)
      << precrtGetLastErrorMessage();
}

} // namespace

int main(int argc, char **argv) {
  return precrt_test::runMpiTests(argc, argv, worldRank, worldSize);
}
