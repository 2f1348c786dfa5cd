//===- LocalCollectivesTest.cpp - Every collective on the local backend ---===//
//
// Every collective x dtype (x reduction) on 1, 2, 3, 4 and 8 ranks, checked
// against a float64 reference within the tolerances of TestUtil.h; data
// movement and max/min must match exactly. Reductions must also give the
// same bits on every rank.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include <gtest/gtest.h>

#include <mutex>
#include <tuple>

using namespace precrt_test;

namespace {

constexpr size_t kChunk = 37;    // elements per rank for gathers and scatters
constexpr size_t kCount = 1003;  // all_reduce: not a multiple of any rank count

using ReduceParam = std::tuple<int, precrt_dtype_t, precrt_reduction_t>;

class LocalReduceTest : public ::testing::TestWithParam<ReduceParam> {};

TEST_P(LocalReduceTest, AllReduce) {
  auto [n, dtype, reduction] = GetParam();
  auto inputs = rankInputs(n, dtype, kCount, 1);
  std::vector<std::vector<uint8_t>> outputs(n);
  ASSERT_EQ(runLocal(n, [&](precrt_comm_t world, int rank) {
              outputs[rank].resize(inputs[rank].size());
              EXPECT_EQ(precrtAllReduce(world, inputs[rank].data(),
                                        outputs[rank].data(), kCount, dtype,
                                        reduction),
                        PRECRT_SUCCESS)
                  << precrtGetLastErrorMessage();
            }),
            PRECRT_SUCCESS);
  for (size_t i = 0; i < kCount; ++i)
    expectWithin(outputs[0], dtype, i,
                 expectedReduction(inputs, dtype, reduction, i), "rank 0");
  for (int rank = 1; rank < n; ++rank)
    EXPECT_EQ(outputs[rank], outputs[0]) << "rank " << rank << " differs";
}

TEST_P(LocalReduceTest, AllReduceInPlace) {
  auto [n, dtype, reduction] = GetParam();
  auto inputs = rankInputs(n, dtype, kCount, 2);
  auto buffers = inputs;
  ASSERT_EQ(runLocal(n, [&](precrt_comm_t world, int rank) {
              EXPECT_EQ(precrtAllReduce(world, buffers[rank].data(),
                                        buffers[rank].data(), kCount, dtype,
                                        reduction),
                        PRECRT_SUCCESS);
            }),
            PRECRT_SUCCESS);
  for (size_t i = 0; i < kCount; ++i)
    expectWithin(buffers[n - 1], dtype, i,
                 expectedReduction(inputs, dtype, reduction, i), "in place");
}

TEST_P(LocalReduceTest, ReduceScatter) {
  auto [n, dtype, reduction] = GetParam();
  auto inputs = rankInputs(n, dtype, kChunk * n, 3);
  std::vector<std::vector<uint8_t>> outputs(n);
  ASSERT_EQ(runLocal(n, [&](precrt_comm_t world, int rank) {
              outputs[rank].resize(kChunk * precrtDtypeSize(dtype));
              EXPECT_EQ(precrtReduceScatter(world, inputs[rank].data(),
                                            outputs[rank].data(), kChunk,
                                            dtype, reduction),
                        PRECRT_SUCCESS)
                  << precrtGetLastErrorMessage();
            }),
            PRECRT_SUCCESS);
  for (int rank = 0; rank < n; ++rank)
    for (size_t i = 0; i < kChunk; ++i)
      expectWithin(outputs[rank], dtype, i,
                   expectedReduction(inputs, dtype, reduction, rank * kChunk + i),
                   "rank " + std::to_string(rank));
}

TEST_P(LocalReduceTest, ReduceScatterInPlace) {
  auto [n, dtype, reduction] = GetParam();
  auto inputs = rankInputs(n, dtype, kChunk * n, 4);
  auto buffers = inputs;
  size_t width = precrtDtypeSize(dtype);
  ASSERT_EQ(runLocal(n, [&](precrt_comm_t world, int rank) {
              uint8_t *data = buffers[rank].data();
              EXPECT_EQ(precrtReduceScatter(world, data,
                                            data + rank * kChunk * width,
                                            kChunk, dtype, reduction),
                        PRECRT_SUCCESS);
            }),
            PRECRT_SUCCESS);
  for (int rank = 0; rank < n; ++rank) {
    std::vector<uint8_t> mine(buffers[rank].begin() + rank * kChunk * width,
                              buffers[rank].begin() + (rank + 1) * kChunk * width);
    for (size_t i = 0; i < kChunk; ++i)
      expectWithin(mine, dtype, i,
                   expectedReduction(inputs, dtype, reduction, rank * kChunk + i),
                   "in place rank " + std::to_string(rank));
  }
}

INSTANTIATE_TEST_SUITE_P(
    Ranks, LocalReduceTest,
    ::testing::Combine(::testing::Values(1, 2, 3, 4, 8),
                       ::testing::ValuesIn(floatingDtypes()),
                       ::testing::Values(PRECRT_REDUCTION_SUM,
                                         PRECRT_REDUCTION_AVG,
                                         PRECRT_REDUCTION_MAX,
                                         PRECRT_REDUCTION_MIN)),
    [](const auto &info) {
      return "n" + std::to_string(std::get<0>(info.param)) + "_" +
             precrtDtypeName(std::get<1>(info.param)) + "_" +
             reductionName(std::get<2>(info.param));
    });

using MoveParam = std::tuple<int, precrt_dtype_t>;

class LocalMoveTest : public ::testing::TestWithParam<MoveParam> {};

TEST_P(LocalMoveTest, AllGather) {
  auto [n, dtype] = GetParam();
  auto inputs = rankInputs(n, dtype, kChunk, 5);
  size_t bytes = kChunk * precrtDtypeSize(dtype);
  std::vector<std::vector<uint8_t>> outputs(n);
  ASSERT_EQ(runLocal(n, [&](precrt_comm_t world, int rank) {
              outputs[rank].resize(bytes * n);
              EXPECT_EQ(precrtAllGather(world, inputs[rank].data(),
                                        outputs[rank].data(), kChunk, dtype),
                        PRECRT_SUCCESS);
            }),
            PRECRT_SUCCESS);
  std::vector<uint8_t> expected;
  for (auto &input : inputs)
    expected.insert(expected.end(), input.begin(), input.end());
  for (int rank = 0; rank < n; ++rank)
    EXPECT_EQ(outputs[rank], expected) << "rank " << rank;
}

TEST_P(LocalMoveTest, AllGatherInPlace) {
  auto [n, dtype] = GetParam();
  auto inputs = rankInputs(n, dtype, kChunk, 6);
  size_t bytes = kChunk * precrtDtypeSize(dtype);
  std::vector<std::vector<uint8_t>> buffers(n, std::vector<uint8_t>(bytes * n));
  std::vector<uint8_t> expected;
  for (int rank = 0; rank < n; ++rank) {
    std::copy(inputs[rank].begin(), inputs[rank].end(),
              buffers[rank].begin() + rank * bytes);
    expected.insert(expected.end(), inputs[rank].begin(), inputs[rank].end());
  }
  ASSERT_EQ(runLocal(n, [&](precrt_comm_t world, int rank) {
              uint8_t *data = buffers[rank].data();
              EXPECT_EQ(precrtAllGather(world, data + rank * bytes, data,
                                        kChunk, dtype),
                        PRECRT_SUCCESS);
            }),
            PRECRT_SUCCESS);
  for (int rank = 0; rank < n; ++rank)
    EXPECT_EQ(buffers[rank], expected) << "rank " << rank;
}

TEST_P(LocalMoveTest, AllToAll) {
  auto [n, dtype] = GetParam();
  auto inputs = rankInputs(n, dtype, kChunk * n, 7);
  size_t bytes = kChunk * precrtDtypeSize(dtype);
  std::vector<std::vector<uint8_t>> outputs(n);
  ASSERT_EQ(runLocal(n, [&](precrt_comm_t world, int rank) {
              outputs[rank].resize(bytes * n);
              EXPECT_EQ(precrtAllToAll(world, inputs[rank].data(),
                                       outputs[rank].data(), kChunk, dtype),
                        PRECRT_SUCCESS);
            }),
            PRECRT_SUCCESS);
  for (int rank = 0; rank < n; ++rank)
    for (int source = 0; source < n; ++source)
      EXPECT_TRUE(std::equal(outputs[rank].begin() + source * bytes,
                             outputs[rank].begin() + (source + 1) * bytes,
                             inputs[source].begin() + rank * bytes))
          << "rank " << rank << " block from " << source;
}

TEST_P(LocalMoveTest, Broadcast) {
  auto [n, dtype] = GetParam();
  const int root = n - 1;
  auto inputs = rankInputs(n, dtype, kCount, 8);
  std::vector<std::vector<uint8_t>> outputs(n);
  ASSERT_EQ(runLocal(n, [&](precrt_comm_t world, int rank) {
              outputs[rank].resize(inputs[rank].size());
              EXPECT_EQ(precrtBroadcast(world, inputs[rank].data(),
                                        outputs[rank].data(), kCount, dtype,
                                        root),
                        PRECRT_SUCCESS);
            }),
            PRECRT_SUCCESS);
  for (int rank = 0; rank < n; ++rank)
    EXPECT_EQ(outputs[rank], inputs[root]) << "rank " << rank;
}

TEST_P(LocalMoveTest, SendRecvRingAndPairs) {
  auto [n, dtype] = GetParam();
  auto inputs = rankInputs(n, dtype, kChunk, 9);
  std::vector<std::vector<uint8_t>> fromLeft(n), viaSendRecv(n);
  ASSERT_EQ(runLocal(n, [&](precrt_comm_t world, int rank) {
              int right = (rank + 1) % n, left = (rank + n - 1) % n;
              viaSendRecv[rank].resize(inputs[rank].size());
              EXPECT_EQ(precrtSendRecv(world, inputs[rank].data(), kChunk,
                                       right, viaSendRecv[rank].data(), kChunk,
                                       left, dtype),
                        PRECRT_SUCCESS)
                  << precrtGetLastErrorMessage();
              // Separate send and recv: even ranks send first, odd ranks
              // receive first (a 1-rank ring sends to itself via sendrecv
              // only).
              fromLeft[rank].resize(inputs[rank].size());
              if (n == 1) {
                fromLeft[rank] = inputs[rank];
                return;
              }
              if (rank % 2 == 0) {
                EXPECT_EQ(precrtSend(world, inputs[rank].data(), kChunk, dtype,
                                     right),
                          PRECRT_SUCCESS);
                EXPECT_EQ(precrtRecv(world, fromLeft[rank].data(), kChunk,
                                     dtype, left),
                          PRECRT_SUCCESS);
              } else {
                EXPECT_EQ(precrtRecv(world, fromLeft[rank].data(), kChunk,
                                     dtype, left),
                          PRECRT_SUCCESS);
                EXPECT_EQ(precrtSend(world, inputs[rank].data(), kChunk, dtype,
                                     right),
                          PRECRT_SUCCESS);
              }
            }),
            PRECRT_SUCCESS);
  for (int rank = 0; rank < n; ++rank) {
    EXPECT_EQ(viaSendRecv[rank], inputs[(rank + n - 1) % n]) << rank;
    EXPECT_EQ(fromLeft[rank], inputs[(rank + n - 1) % n]) << rank;
  }
}

TEST_P(LocalMoveTest, Barrier) {
  auto [n, dtype] = GetParam();
  (void)dtype;
  std::mutex mutex;
  int before = 0;
  std::vector<int> seen(n);
  ASSERT_EQ(runLocal(n, [&](precrt_comm_t world, int rank) {
              {
                std::lock_guard<std::mutex> lock(mutex);
                ++before;
              }
              EXPECT_EQ(precrtBarrier(world), PRECRT_SUCCESS);
              std::lock_guard<std::mutex> lock(mutex);
              seen[rank] = before;
            }),
            PRECRT_SUCCESS);
  for (int rank = 0; rank < n; ++rank)
    EXPECT_EQ(seen[rank], n);
}

INSTANTIATE_TEST_SUITE_P(
    Ranks, LocalMoveTest,
    ::testing::Combine(::testing::Values(1, 2, 3, 4, 8),
                       ::testing::ValuesIn(allDtypes())),
    [](const auto &info) {
      return "n" + std::to_string(std::get<0>(info.param)) + "_" +
             precrtDtypeName(std::get<1>(info.param));
    });

TEST(LocalBackend, IsItsOwnHostCommunicator) {
  ASSERT_EQ(runLocal(2, [&](precrt_comm_t world, int) {
              precrt_comm_t host = nullptr;
              EXPECT_EQ(precrtCommHost(world, &host), PRECRT_SUCCESS);
              EXPECT_EQ(host, world);
            }),
            PRECRT_SUCCESS);
}

TEST(LocalLossyReduction, Bf16SumRoundsAtEveryRingStep) {
  // Chunk c of an all_reduce over n ranks is summed in ring order, starting
  // at rank c + 1 and ending at rank c, rounding to bf16 after every
  // addition (docs/Runtime.md). Rebuild that order with the scalar reference.
  using namespace precrt::numerics;
  const int n = 4;
  const size_t count = 64;
  auto inputs = rankInputs(n, PRECRT_DTYPE_BF16, count, 10);
  std::vector<std::vector<uint8_t>> outputs(n);
  ASSERT_EQ(runLocal(n, [&](precrt_comm_t world, int rank) {
              outputs[rank].resize(count * 2);
              EXPECT_EQ(precrtAllReduce(world, inputs[rank].data(),
                                        outputs[rank].data(), count,
                                        PRECRT_DTYPE_BF16, PRECRT_REDUCTION_SUM),
                        PRECRT_SUCCESS);
            }),
            PRECRT_SUCCESS);
  int lossyElements = 0;
  for (size_t i = 0; i < count; ++i) {
    int owner = static_cast<int>(i / (count / n));
    float acc = static_cast<float>(valueAt(inputs[(owner + 1) % n],
                                           PRECRT_DTYPE_BF16, i));
    double exact = 0;
    for (int rank = 0; rank < n; ++rank)
      exact += valueAt(inputs[rank], PRECRT_DTYPE_BF16, i);
    for (int step = 2; step <= n; ++step)
      acc = bf16ToFloat(floatToBF16(
          acc + static_cast<float>(valueAt(inputs[(owner + step) % n],
                                           PRECRT_DTYPE_BF16, i))));
    EXPECT_EQ(valueAt(outputs[0], PRECRT_DTYPE_BF16, i), double(acc)) << i;
    lossyElements += double(acc) != double(bf16ToFloat(floatToBF16(float(exact))));
  }
  // The data are chosen so that per-step rounding is visible somewhere.
  EXPECT_GT(lossyElements, 0);
}

} // namespace
