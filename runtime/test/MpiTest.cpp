//===- MpiTest.cpp - The MPI backend under mpirun -------------------------===//
//
// Run as `mpirun -np 4 precrt_mpi_tests` (check-precrt does). Every rank
// runs the same tests in the same order; each collective x dtype (x
// reduction) is checked against the float64 reference of TestUtil.h, on the
// world and on the groups of a 2 x 2 grid, followed by the failure tests.
// Only rank 0 prints; any rank's failure fails the run.
//
//===----------------------------------------------------------------------===//

#include "MpiTestMain.h"
#include "StartedUtil.h"
#include "TestUtil.h"
#include "TrafficUtil.h"

#include <gtest/gtest.h>
#include <mpi.h>

#include <chrono>
#include <thread>

using namespace precrt_test;
using Clock = std::chrono::steady_clock;

namespace {

precrt_comm_t world = nullptr;
int worldRank = 0, worldSize = 0;

constexpr size_t kChunk = 29;
constexpr size_t kCount = 1001;

/// The communicators to test on: the world, and when there are 4 ranks the
/// row group of a 2 x 2 grid (ranks {0,1} and {2,3}), a group of those rows
/// (the same ranks again), and the whole grid with its axes swapped (ranks
/// 0, 2, 1, 3).
std::vector<std::pair<std::string, precrt_comm_t>> communicators() {
  std::vector<std::pair<std::string, precrt_comm_t>> comms = {{"world", world}};
  if (worldSize == 4) {
    const int64_t shape[] = {2, 2};
    const int32_t axes[] = {1};
    precrt_comm_t rows = nullptr;
    EXPECT_EQ(precrtCommForGridAxes(world, 2, shape, 1, axes, &rows),
              PRECRT_SUCCESS)
        << precrtGetLastErrorMessage();
    comms.push_back({"grid rows", rows});
    const int64_t line[] = {2};
    const int32_t first[] = {0};
    precrt_comm_t nested = nullptr;
    EXPECT_EQ(precrtCommForGridAxes(rows, 1, line, 1, first, &nested),
              PRECRT_SUCCESS)
        << precrtGetLastErrorMessage();
    comms.push_back({"group of grid rows", nested});
    const int32_t swapped[] = {1, 0};
    precrt_comm_t transposed = nullptr;
    EXPECT_EQ(precrtCommForGridAxes(world, 2, shape, 2, swapped, &transposed),
              PRECRT_SUCCESS)
        << precrtGetLastErrorMessage();
    comms.push_back({"transposed grid", transposed});
  }
  return comms;
}

using ReduceParam = std::tuple<precrt_dtype_t, precrt_reduction_t>;
class MpiReduceTest : public ::testing::TestWithParam<ReduceParam> {};

TEST_P(MpiReduceTest, AllReduceAndReduceScatter) {
  auto [dtype, reduction] = GetParam();
  for (auto &[name, comm] : communicators()) {
    SCOPED_TRACE(name);
    int32_t n = 0, me = 0;
    precrtCommSize(comm, &n);
    precrtCommRank(comm, &me);
    auto inputs = rankInputs(n, dtype, kCount, 1 + n);
    std::vector<uint8_t> out(inputs[me].size());
    ASSERT_EQ(precrtAllReduce(comm, inputs[me].data(), out.data(), kCount,
                              dtype, reduction),
              PRECRT_SUCCESS)
        << precrtGetLastErrorMessage();
    for (size_t i = 0; i < kCount; ++i)
      expectWithin(out, dtype, i, expectedReduction(inputs, dtype, reduction, i));

    auto scatterInputs = rankInputs(n, dtype, kChunk * n, 50 + n);
    std::vector<uint8_t> chunk(kChunk * precrtDtypeSize(dtype));
    ASSERT_EQ(precrtReduceScatter(comm, scatterInputs[me].data(), chunk.data(),
                                  kChunk, dtype, reduction),
              PRECRT_SUCCESS)
        << precrtGetLastErrorMessage();
    for (size_t i = 0; i < kChunk; ++i)
      expectWithin(chunk, dtype, i,
                   expectedReduction(scatterInputs, dtype, reduction,
                                     me * kChunk + i));
  }
}

INSTANTIATE_TEST_SUITE_P(
    Dtypes, MpiReduceTest,
    ::testing::Combine(::testing::ValuesIn(floatingDtypes()),
                       ::testing::Values(PRECRT_REDUCTION_SUM,
                                         PRECRT_REDUCTION_AVG,
                                         PRECRT_REDUCTION_MAX,
                                         PRECRT_REDUCTION_MIN)),
    [](const auto &info) {
      return std::string(precrtDtypeName(std::get<0>(info.param))) + "_" +
             reductionName(std::get<1>(info.param));
    });

class MpiMoveTest : public ::testing::TestWithParam<precrt_dtype_t> {};

TEST_P(MpiMoveTest, GatherAllToAllBroadcastSendRecv) {
  precrt_dtype_t dtype = GetParam();
  size_t width = precrtDtypeSize(dtype);
  for (auto &[name, comm] : communicators()) {
    SCOPED_TRACE(name);
    int32_t n = 0, me = 0;
    precrtCommSize(comm, &n);
    precrtCommRank(comm, &me);
    size_t bytes = kChunk * width;

    auto inputs = rankInputs(n, dtype, kChunk, 7);
    std::vector<uint8_t> gathered(bytes * n), expected;
    ASSERT_EQ(precrtAllGather(comm, inputs[me].data(), gathered.data(), kChunk,
                              dtype),
              PRECRT_SUCCESS);
    for (auto &input : inputs)
      expected.insert(expected.end(), input.begin(), input.end());
    EXPECT_EQ(gathered, expected);

    auto blocks = rankInputs(n, dtype, kChunk * n, 8);
    std::vector<uint8_t> exchanged(bytes * n);
    ASSERT_EQ(precrtAllToAll(comm, blocks[me].data(), exchanged.data(), kChunk,
                             dtype),
              PRECRT_SUCCESS);
    for (int source = 0; source < n; ++source)
      EXPECT_TRUE(std::equal(exchanged.begin() + source * bytes,
                             exchanged.begin() + (source + 1) * bytes,
                             blocks[source].begin() + me * bytes));

    auto big = rankInputs(n, dtype, kCount, 9);
    std::vector<uint8_t> broadcast(big[me].size());
    ASSERT_EQ(precrtBroadcast(comm, big[me].data(), broadcast.data(), kCount,
                              dtype, n - 1),
              PRECRT_SUCCESS);
    EXPECT_EQ(broadcast, big[n - 1]);

    std::vector<uint8_t> fromLeft(bytes);
    ASSERT_EQ(precrtSendRecv(comm, inputs[me].data(), kChunk, (me + 1) % n,
                             fromLeft.data(), kChunk, (me + n - 1) % n, dtype),
              PRECRT_SUCCESS)
        << precrtGetLastErrorMessage();
    EXPECT_EQ(fromLeft, inputs[(me + n - 1) % n]);
    EXPECT_EQ(precrtBarrier(comm), PRECRT_SUCCESS);
  }
}

INSTANTIATE_TEST_SUITE_P(Dtypes, MpiMoveTest, ::testing::ValuesIn(allDtypes()),
                         [](const auto &info) {
                           return std::string(precrtDtypeName(info.param));
                         });

TEST(MpiBackend, IsAvailableAndSized) {
  EXPECT_EQ(precrtBackendAvailable(PRECRT_BACKEND_MPI), PRECRT_SUCCESS);
  precrt_backend_t backend;
  ASSERT_EQ(precrtCommBackend(world, &backend), PRECRT_SUCCESS);
  EXPECT_EQ(backend, PRECRT_BACKEND_MPI);
  EXPECT_EQ(precrtGetWorld(), world);
  precrt_comm_t host = nullptr;
  ASSERT_EQ(precrtCommHost(world, &host), PRECRT_SUCCESS);
  EXPECT_EQ(host, world) << "MPI's buffers are host memory already";
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  EXPECT_EQ(worldSize, size);
}

// The payload each rank's messages carry, against TrafficUtil.h's figures:
// the ring's chunks for reductions (1001 elements: unequal chunks).
TEST(MpiTraffic, EveryCollectiveOnEveryCommunicator) {
  const precrt_dtype_t dtype = PRECRT_DTYPE_BF16;
  const uint64_t bytes = precrtDtypeSize(dtype);
  for (auto &[name, comm] : communicators()) {
    int32_t n = 0, rank = 0;
    ASSERT_EQ(precrtCommSize(comm, &n), PRECRT_SUCCESS);
    ASSERT_EQ(precrtCommRank(comm, &rank), PRECRT_SUCCESS);
    std::vector<uint8_t> send(kCount * n * bytes, 1), recv(kCount * n * bytes);
    auto expected = [&](Collective collective, uint64_t count) {
      return expectedTraffic(collective, PRECRT_BACKEND_MPI, n, rank, count,
                             bytes);
    };
    expectTraffic(
        comm, expected(Collective::AllGather, kChunk),
        [&] {
          EXPECT_EQ(precrtAllGather(comm, send.data(), recv.data(), kChunk,
                                    dtype),
                    PRECRT_SUCCESS);
        },
        name + ": all_gather");
    expectTraffic(
        comm, expected(Collective::AllToAll, kChunk),
        [&] {
          EXPECT_EQ(precrtAllToAll(comm, send.data(), recv.data(), kChunk,
                                   dtype),
                    PRECRT_SUCCESS);
        },
        name + ": all_to_all");
    expectTraffic(
        comm, expected(Collective::ReduceScatter, kChunk),
        [&] {
          EXPECT_EQ(precrtReduceScatter(comm, send.data(), recv.data(), kChunk,
                                        dtype, PRECRT_REDUCTION_SUM),
                    PRECRT_SUCCESS);
        },
        name + ": reduce_scatter");
    expectTraffic(
        comm, expected(Collective::AllReduce, kCount),
        [&] {
          EXPECT_EQ(precrtAllReduce(comm, send.data(), recv.data(), kCount,
                                    dtype, PRECRT_REDUCTION_SUM),
                    PRECRT_SUCCESS);
        },
        name + ": all_reduce");
  }
}

TEST(MpiLossyReduction, SameBitsAsTheLocalBackend) {
  // The ring order is shared: a bf16 sum over the MPI ranks equals the same
  // sum over as many local threads, bit for bit.
  auto inputs = rankInputs(worldSize, PRECRT_DTYPE_BF16, kCount, 77);
  std::vector<uint8_t> viaMpi(kCount * 2);
  ASSERT_EQ(precrtAllReduce(world, inputs[worldRank].data(), viaMpi.data(),
                            kCount, PRECRT_DTYPE_BF16, PRECRT_REDUCTION_SUM),
            PRECRT_SUCCESS);
  std::vector<std::vector<uint8_t>> viaThreads(worldSize);
  ASSERT_EQ(runLocal(worldSize, [&](precrt_comm_t local, int rank) {
              viaThreads[rank].resize(kCount * 2);
              EXPECT_EQ(precrtAllReduce(local, inputs[rank].data(),
                                        viaThreads[rank].data(), kCount,
                                        PRECRT_DTYPE_BF16, PRECRT_REDUCTION_SUM),
                        PRECRT_SUCCESS);
            }),
            PRECRT_SUCCESS);
  EXPECT_EQ(viaMpi, viaThreads[0]);
}

// The failure tests run last: a timeout leaves the communicator broken, so
// each one works on a fresh group of the world.
precrt_comm_t freshGroup(int32_t axisCount) {
  // Distinct grid shapes give distinct (uncached) communicators over all
  // ranks: [n], [n, 1], [n, 1, 1], ...
  std::vector<int64_t> shape(axisCount, 1);
  shape[0] = worldSize;
  std::vector<int32_t> axes(axisCount);
  for (int32_t i = 0; i < axisCount; ++i)
    axes[i] = i;
  precrt_comm_t group = nullptr;
  EXPECT_EQ(precrtCommForGridAxes(world, axisCount, shape.data(), axisCount,
                                  axes.data(), &group),
            PRECRT_SUCCESS)
      << precrtGetLastErrorMessage();
  return group;
}

// Started transports run on each process's communication thread, with MPI
// initialized MPI_THREAD_SERIALIZED: the rank's own collectives wait for it.
TEST(MpiStarted, BitIdenticalToSynchronous) {
  if (worldSize != 4)
    GTEST_SKIP() << "needs 4 ranks";
  expectStartedMatchesSynchronous(worldRank);
  precrtCompiledClearError();
}

TEST(MpiStarted, StartStartSyncWaitWaitKeepsTheOrderAcrossRanks) {
  for (int round = 0; round < 10; ++round)
    expectStartedOrderAcrossRanks(worldRank, worldSize);
  // The C API's own collectives wait for the started ones too.
  const int64_t shape[] = {worldSize};
  float one = 1, gathered[64] = {}, sum = 0;
  int64_t handle = precrtCompiledCollectiveStart(
      PRECRT_TRANSPORT_ALL_GATHER, &one, gathered, 1, PRECRT_DTYPE_F32,
      PRECRT_REDUCTION_SUM, 1, shape, 0, nullptr);
  ASSERT_EQ(precrtAllReduce(world, &one, &sum, 1, PRECRT_DTYPE_F32,
                            PRECRT_REDUCTION_SUM),
            PRECRT_SUCCESS)
      << precrtGetLastErrorMessage();
  EXPECT_EQ(sum, float(worldSize));
  ASSERT_EQ(precrtCompiledCollectiveWait(handle, &one, gathered),
            PRECRT_SUCCESS)
      << precrtCompiledGetError();
  for (int r = 0; r < worldSize; ++r)
    EXPECT_EQ(gathered[r], 1.0f);
  EXPECT_EQ(precrtCompiledDrain(), PRECRT_SUCCESS);
  precrtCompiledClearError();
}

TEST(MpiFailures, MismatchedCountsFailEveryRank) {
  precrt_comm_t comm = freshGroup(2);
  precrtCommSetTimeoutMs(comm, 20000);
  std::vector<float> data(64, 1.0f), out(64);
  size_t count = worldRank == 1 ? 9 : 8;
  EXPECT_EQ(precrtAllReduce(comm, data.data(), out.data(), count,
                            PRECRT_DTYPE_F32, PRECRT_REDUCTION_SUM),
            PRECRT_ERROR_MISMATCH);
  EXPECT_NE(std::string(precrtGetLastErrorMessage()).find("rank 1 called"),
            std::string::npos)
      << precrtGetLastErrorMessage();
  // Op mismatch: rank 0 gathers, the others reduce.
  precrt_status_t status =
      worldRank == 0
          ? precrtAllGather(comm, data.data(), out.data(), 8, PRECRT_DTYPE_F32)
          : precrtAllReduce(comm, data.data(), out.data(), 8, PRECRT_DTYPE_F32,
                            PRECRT_REDUCTION_SUM);
  EXPECT_EQ(status, PRECRT_ERROR_MISMATCH);
  // Still usable afterwards.
  EXPECT_EQ(precrtAllReduce(comm, data.data(), out.data(), 8, PRECRT_DTYPE_F32,
                            PRECRT_REDUCTION_SUM),
            PRECRT_SUCCESS);
  EXPECT_EQ(out[0], float(worldSize));
  // Point to point: counts disagree.
  if (worldSize >= 2 && worldRank < 2) {
    status = worldRank == 0
                 ? precrtSend(comm, data.data(), 8, PRECRT_DTYPE_F32, 1)
                 : precrtRecv(comm, out.data(), 7, PRECRT_DTYPE_F32, 0);
    EXPECT_EQ(status, PRECRT_ERROR_MISMATCH) << precrtGetLastErrorMessage();
  }
}

TEST(MpiFailures, InvalidArgumentOnOneRankFailsOthersAtOnce) {
  precrt_comm_t comm = freshGroup(3);
  precrtCommSetTimeoutMs(comm, 60000);
  std::vector<float> data(8, 1.0f), out(8);
  auto start = Clock::now();
  precrt_status_t status = precrtAllReduce(
      comm, data.data(), worldRank == 2 ? nullptr : out.data(), 8,
      PRECRT_DTYPE_F32, PRECRT_REDUCTION_SUM);
  EXPECT_EQ(status, worldRank == 2 ? PRECRT_ERROR_INVALID_ARGUMENT
                                   : PRECRT_ERROR_PEER_FAILED);
  // Point to point: rank 1 receives into a null buffer; rank 0 learns it.
  if (worldRank < 2) {
    status = worldRank == 0
                 ? precrtSend(comm, data.data(), 8, PRECRT_DTYPE_F32, 1)
                 : precrtRecv(comm, nullptr, 8, PRECRT_DTYPE_F32, 0);
    EXPECT_EQ(status, worldRank == 1 ? PRECRT_ERROR_INVALID_ARGUMENT
                                     : PRECRT_ERROR_PEER_FAILED)
        << precrtGetLastErrorMessage();
  }
  EXPECT_LT(std::chrono::duration<double>(Clock::now() - start).count(), 10.0);
}

TEST(MpiFailures, StalledRankTimesOutTheOthers) {
  precrt_comm_t comm = freshGroup(4);
  const int64_t timeoutMs = 300;
  precrtCommSetTimeoutMs(comm, timeoutMs);
  std::vector<float> data(1024, 1.0f), out(1024);
  const int stalled = worldSize - 1;
  if (worldRank == stalled)
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  auto start = Clock::now();
  precrt_status_t status = precrtAllReduce(comm, data.data(), out.data(), 1024,
                                           PRECRT_DTYPE_F32,
                                           PRECRT_REDUCTION_SUM);
  double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  if (worldRank != stalled) {
    EXPECT_EQ(status, PRECRT_ERROR_TIMEOUT) << precrtGetLastErrorMessage();
    EXPECT_NE(std::string(precrtGetLastErrorMessage())
                  .find("waiting for rank " + std::to_string(stalled)),
              std::string::npos)
        << precrtGetLastErrorMessage();
    EXPECT_LT(elapsed, 3.0);
    EXPECT_EQ(precrtBarrier(comm), PRECRT_ERROR_PEER_FAILED);
  } else {
    // The others gave up before this rank arrived: it cannot complete either.
    EXPECT_NE(status, PRECRT_SUCCESS);
  }
}

TEST(MpiFailures, RankThatSkipsACollective) {
  // A rank that never makes the call (as if it had died) makes the others
  // time out instead of hanging.
  precrt_comm_t comm = freshGroup(5);
  precrtCommSetTimeoutMs(comm, 300);
  std::vector<float> data(16, 1.0f), out(16);
  if (worldRank == 0)
    return;
  EXPECT_EQ(precrtAllGather(comm, data.data(), out.data(), 4, PRECRT_DTYPE_F32),
            PRECRT_ERROR_TIMEOUT);
  EXPECT_NE(std::string(precrtGetLastErrorMessage()).find("rank 0"),
            std::string::npos);
}

} // namespace

int main(int argc, char **argv) {
  ::testing::InitGoogleTest(&argc, argv);
  precrt_init_options options{};
  options.backend = PRECRT_BACKEND_MPI;
  if (precrtInit(&options, &world) != PRECRT_SUCCESS) {
    std::fprintf(stderr, "precrtInit(mpi) failed: %s\n",
                 precrtGetLastErrorMessage());
    return 1;
  }
  precrtCommRank(world, &worldRank);
  precrtCommSize(world, &worldSize);
  int anyFailed = precrt_test::runTestsOnEveryRank(worldRank);
  // After the failure tests, messages of abandoned calls may still be in
  // flight; the world itself is healthy, so finalize normally.
  precrtFinalize();
  return anyFailed;
}
