//===- GridGroupsTest.cpp - Communicators for the axes of a grid ----------===//

#include "TestUtil.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <thread>

using namespace precrt_test;

namespace {

/// World ranks of the members of `group`, in group-rank order.
std::vector<int32_t> membersOf(precrt_comm_t group, int32_t worldRank) {
  int32_t size = 0;
  precrtCommSize(group, &size);
  std::vector<int32_t> members(size);
  EXPECT_EQ(precrtAllGather(group, &worldRank, members.data(),
                            sizeof(int32_t), PRECRT_DTYPE_BYTES),
            PRECRT_SUCCESS)
      << precrtGetLastErrorMessage();
  return members;
}

TEST(GridGroups, RowMajorMembershipAndCaching) {
  const int64_t shape[] = {2, 4};
  ASSERT_EQ(runLocal(8, [&](precrt_comm_t world, int rank) {
              int row = rank / 4, column = rank % 4;
              const int32_t columnAxis[] = {1}, rowAxis[] = {0};
              const int32_t bothAxes[] = {0, 1}, swappedAxes[] = {1, 0};
              precrt_comm_t rowGroup, columnGroup, all, swapped, single, again;
              ASSERT_EQ(precrtCommForGridAxes(world, 2, shape, 1, columnAxis,
                                              &rowGroup),
                        PRECRT_SUCCESS)
                  << precrtGetLastErrorMessage();
              ASSERT_EQ(precrtCommForGridAxes(world, 2, shape, 1, rowAxis,
                                              &columnGroup),
                        PRECRT_SUCCESS);
              ASSERT_EQ(precrtCommForGridAxes(world, 2, shape, 2, bothAxes, &all),
                        PRECRT_SUCCESS);
              ASSERT_EQ(precrtCommForGridAxes(world, 2, shape, 2, swappedAxes,
                                              &swapped),
                        PRECRT_SUCCESS);
              ASSERT_EQ(precrtCommForGridAxes(world, 2, shape, 0, nullptr,
                                              &single),
                        PRECRT_SUCCESS);
              ASSERT_EQ(precrtCommForGridAxes(world, 2, shape, 1, columnAxis,
                                              &again),
                        PRECRT_SUCCESS);
              EXPECT_EQ(again, rowGroup) << "groups are cached";

              int32_t groupRank = -1;
              precrtCommRank(rowGroup, &groupRank);
              EXPECT_EQ(groupRank, column);
              EXPECT_EQ(membersOf(rowGroup, rank),
                        (std::vector<int32_t>{row * 4, row * 4 + 1, row * 4 + 2,
                                              row * 4 + 3}));
              precrtCommRank(columnGroup, &groupRank);
              EXPECT_EQ(groupRank, row);
              EXPECT_EQ(membersOf(columnGroup, rank),
                        (std::vector<int32_t>{column, column + 4}));
              EXPECT_EQ(membersOf(all, rank),
                        (std::vector<int32_t>{0, 1, 2, 3, 4, 5, 6, 7}));
              // Axes (1, 0): the first listed axis varies slowest.
              EXPECT_EQ(membersOf(swapped, rank),
                        (std::vector<int32_t>{0, 4, 1, 5, 2, 6, 3, 7}));
              EXPECT_EQ(membersOf(single, rank), (std::vector<int32_t>{rank}));
            }),
            PRECRT_SUCCESS);
}

TEST(GridGroups, HsdpReduceScatterThenAllReduceOn4x8) {
  // 32 ranks = 4 replicas x 8 shards. Gradients are reduce-scattered (avg)
  // over the shard axis, then all-reduced (avg) over the replicate axis:
  // every rank ends with 1/32 of the sum over all ranks of its shard.
  const int replicas = 4, shards = 8, n = replicas * shards;
  const size_t shardElements = 5;
  const int64_t shape[] = {replicas, shards};
  std::vector<std::vector<uint8_t>> gradients;
  for (int rank = 0; rank < n; ++rank)
    gradients.push_back(
        randomBuffer(PRECRT_DTYPE_F32, shardElements * shards, 500 + rank));
  std::vector<std::vector<float>> results(n);
  ASSERT_EQ(runLocal(n, [&](precrt_comm_t world, int rank) {
              const int32_t shardAxis[] = {1}, replicateAxis[] = {0};
              precrt_comm_t shardGroup, replicateGroup;
              ASSERT_EQ(precrtCommForGridAxes(world, 2, shape, 1, shardAxis,
                                              &shardGroup),
                        PRECRT_SUCCESS);
              ASSERT_EQ(precrtCommForGridAxes(world, 2, shape, 1, replicateAxis,
                                              &replicateGroup),
                        PRECRT_SUCCESS);
              results[rank].resize(shardElements);
              ASSERT_EQ(precrtReduceScatter(shardGroup, gradients[rank].data(),
                                            results[rank].data(), shardElements,
                                            PRECRT_DTYPE_F32,
                                            PRECRT_REDUCTION_AVG),
                        PRECRT_SUCCESS);
              ASSERT_EQ(precrtAllReduce(replicateGroup, results[rank].data(),
                                        results[rank].data(), shardElements,
                                        PRECRT_DTYPE_F32, PRECRT_REDUCTION_AVG),
                        PRECRT_SUCCESS);
            }),
            PRECRT_SUCCESS);
  for (int rank = 0; rank < n; ++rank) {
    int shard = rank % shards;
    for (size_t i = 0; i < shardElements; ++i) {
      double sum = 0, magnitude = 0;
      for (int other = 0; other < n; ++other) {
        double v = valueAt(gradients[other], PRECRT_DTYPE_F32,
                           shard * shardElements + i);
        sum += v;
        magnitude += std::fabs(v);
      }
      double tolerance = (n + 2) * unitRoundoff(PRECRT_DTYPE_F32) * magnitude;
      EXPECT_NEAR(results[rank][i], sum / n, tolerance)
          << "rank " << rank << " element " << i;
    }
  }
}

TEST(GridGroups, BadGridsAreRejectedOnEveryRank) {
  ASSERT_EQ(runLocal(4, [&](precrt_comm_t world, int rank) {
              const int64_t tooBig[] = {2, 4};
              const int32_t axis[] = {1};
              precrt_comm_t group = nullptr;
              EXPECT_EQ(precrtCommForGridAxes(world, 2, tooBig, 1, axis, &group),
                        PRECRT_ERROR_INVALID_ARGUMENT);
              EXPECT_NE(std::string(precrtGetLastErrorMessage())
                            .find("grid of shape 2x4 does not cover the 4 ranks"),
                        std::string::npos)
                  << precrtGetLastErrorMessage();
              const int64_t shape[] = {2, 2};
              const int32_t outOfRange[] = {2};
              EXPECT_EQ(
                  precrtCommForGridAxes(world, 2, shape, 1, outOfRange, &group),
                  PRECRT_ERROR_INVALID_ARGUMENT);
              // Ranks that pick different axes disagree, and all learn it.
              const int32_t mine[] = {rank == 3 ? 0 : 1};
              EXPECT_EQ(precrtCommForGridAxes(world, 2, shape, 1, mine, &group),
                        PRECRT_ERROR_MISMATCH);
              EXPECT_NE(std::string(precrtGetLastErrorMessage()).find("rank 3"),
                        std::string::npos)
                  << precrtGetLastErrorMessage();
            }),
            PRECRT_SUCCESS);
}

TEST(GridGroups, MalformedArgumentsOnOneRankFailTheOthersAtOnce) {
  // Rank 1 passes no dimensions, then stays busy: the others must not wait
  // for it (their timeout is a minute) to learn that the split failed.
  ASSERT_EQ(runLocal(3, [&](precrt_comm_t world, int rank) {
              precrtCommSetTimeoutMs(world, 60000);
              const int64_t shape[] = {3};
              const int32_t axis[] = {0};
              precrt_comm_t group = nullptr;
              auto start = std::chrono::steady_clock::now();
              precrt_status_t status = precrtCommForGridAxes(
                  world, rank == 1 ? 0 : 1, shape, 1, axis, &group);
              double seconds = std::chrono::duration<double>(
                                   std::chrono::steady_clock::now() - start)
                                   .count();
              EXPECT_NE(status, PRECRT_SUCCESS);
              EXPECT_LT(seconds, 0.5);
              if (rank != 1)
                EXPECT_EQ(status, PRECRT_ERROR_PEER_FAILED)
                    << precrtGetLastErrorMessage();
              if (rank == 1) {
                EXPECT_NE(std::string(precrtGetLastErrorMessage())
                              .find("need a shape of at least one dimension"),
                          std::string::npos)
                    << precrtGetLastErrorMessage();
                std::this_thread::sleep_for(std::chrono::seconds(1));
              }
              precrtBarrier(world);
            }),
            PRECRT_SUCCESS);
}

} // namespace
