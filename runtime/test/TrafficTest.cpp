//===- TrafficTest.cpp - the local backend's byte counters ----------------===//
//
// precrtCommGetTraffic after every collective on 1, 2, 3, 4 and 8 local
// ranks, against the figures of TrafficUtil.h; the bytes all ranks sent
// must equal those they received.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"
#include "TrafficUtil.h"

#include <gtest/gtest.h>

#include <atomic>

using namespace precrt_test;

namespace {

constexpr size_t kChunk = 37;
constexpr size_t kCount = 1003; // not a multiple of any rank count

class LocalTrafficTest : public ::testing::TestWithParam<int> {};

TEST_P(LocalTrafficTest, EveryCollective) {
  const int n = GetParam();
  const precrt_dtype_t dtype = PRECRT_DTYPE_BF16;
  const uint64_t bytes = precrtDtypeSize(dtype);
  std::atomic<uint64_t> sentByAll{0}, receivedByAll{0};
  ASSERT_EQ(
      runLocal(n,
               [&](precrt_comm_t world, int rank) {
                 std::vector<uint8_t> send(kCount * n * bytes, 1),
                     recv(kCount * n * bytes);
                 auto expected = [&](Collective collective, uint64_t count) {
                   return expectedTraffic(collective, PRECRT_BACKEND_LOCAL, n,
                                          rank, count, bytes);
                 };
                 expectTraffic(
                     world, expected(Collective::AllGather, kChunk),
                     [&] {
                       EXPECT_EQ(precrtAllGather(world, send.data(),
                                                 recv.data(), kChunk, dtype),
                                 PRECRT_SUCCESS);
                     },
                     "all_gather");
                 expectTraffic(
                     world, expected(Collective::AllToAll, kChunk),
                     [&] {
                       EXPECT_EQ(precrtAllToAll(world, send.data(), recv.data(),
                                                kChunk, dtype),
                                 PRECRT_SUCCESS);
                     },
                     "all_to_all");
                 expectTraffic(
                     world, expected(Collective::ReduceScatter, kChunk),
                     [&] {
                       EXPECT_EQ(precrtReduceScatter(world, send.data(),
                                                     recv.data(), kChunk, dtype,
                                                     PRECRT_REDUCTION_SUM),
                                 PRECRT_SUCCESS);
                     },
                     "reduce_scatter");
                 expectTraffic(
                     world, expected(Collective::AllReduce, kCount),
                     [&] {
                       EXPECT_EQ(precrtAllReduce(world, send.data(),
                                                 recv.data(), kCount, dtype,
                                                 PRECRT_REDUCTION_SUM),
                                 PRECRT_SUCCESS);
                     },
                     "all_reduce");
                 // The root sends its buffer to every peer.
                 const int root = n - 1;
                 Traffic broadcast = rank == root
                                         ? Traffic{(n - 1) * kCount * bytes, 0}
                                         : Traffic{0, kCount * bytes};
                 expectTraffic(
                     world, broadcast,
                     [&] {
                       EXPECT_EQ(precrtBroadcast(world, send.data(),
                                                 recv.data(), kCount, dtype,
                                                 root),
                                 PRECRT_SUCCESS);
                     },
                     "broadcast");
                 precrt_traffic_t total{};
                 ASSERT_EQ(precrtCommGetTraffic(world, &total), PRECRT_SUCCESS);
                 EXPECT_EQ(total.calls, 5u);
                 sentByAll += total.bytes_sent;
                 receivedByAll += total.bytes_received;
               }),
      PRECRT_SUCCESS);
  EXPECT_EQ(sentByAll.load(), receivedByAll.load());
  if (n > 1)
    EXPECT_GT(sentByAll.load(), 0u);
}

TEST_P(LocalTrafficTest, GroupsCountTheirOwn) {
  const int n = GetParam();
  if (n % 2 != 0)
    GTEST_SKIP() << "needs an even number of ranks";
  ASSERT_EQ(
      runLocal(
          n,
          [&](precrt_comm_t world, int rank) {
            const int64_t shape[] = {n / 2, 2};
            const int32_t axes[] = {1};
            precrt_comm_t pair = nullptr;
            ASSERT_EQ(precrtCommForGridAxes(world, 2, shape, 1, axes, &pair),
                      PRECRT_SUCCESS);
            std::vector<float> send(2 * kChunk, 1.0f), recv(2 * kChunk);
            expectTraffic(
                pair,
                expectedTraffic(Collective::AllGather, PRECRT_BACKEND_LOCAL, 2,
                                rank % 2, kChunk, 4),
                [&] {
                  EXPECT_EQ(precrtAllGather(pair, send.data(), recv.data(),
                                            kChunk, PRECRT_DTYPE_F32),
                            PRECRT_SUCCESS);
                },
                "all_gather of a pair");
            // The split's agreement moved no payload on the world.
            precrt_traffic_t onWorld{};
            ASSERT_EQ(precrtCommGetTraffic(world, &onWorld), PRECRT_SUCCESS);
            EXPECT_EQ(onWorld.bytes_sent, 0u);
            EXPECT_EQ(onWorld.bytes_received, 0u);
          }),
      PRECRT_SUCCESS);
}

TEST(LocalTraffic, NullArgumentsAreRefused) {
  precrt_traffic_t traffic;
  EXPECT_EQ(precrtCommGetTraffic(nullptr, &traffic),
            PRECRT_ERROR_INVALID_ARGUMENT);
  ASSERT_EQ(runLocal(1,
                     [&](precrt_comm_t world, int) {
                       EXPECT_EQ(precrtCommGetTraffic(world, nullptr),
                                 PRECRT_ERROR_INVALID_ARGUMENT);
                     }),
            PRECRT_SUCCESS);
}

INSTANTIATE_TEST_SUITE_P(Ranks, LocalTrafficTest,
                         ::testing::Values(1, 2, 3, 4, 8));

} // namespace
