//===- StartedUtil.h - Started transports on any backend --------*- C++ -*-===//
//
// The checks of precrtCompiledCollectiveStart/Wait that every CPU backend
// must pass, run by each rank of a 2 x 2 grid (the local backend's threads,
// mpirun's processes).
//
//===----------------------------------------------------------------------===//

#ifndef PRECRT_TEST_STARTEDUTIL_H
#define PRECRT_TEST_STARTEDUTIL_H

#include "TestUtil.h"

#include "precrt/compiled.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

namespace precrt_test {

/// One compiled transport of a test, with its buffers.
struct StartedCase {
  int32_t transport;
  precrt_dtype_t dtype;
  precrt_reduction_t reduction;
  std::vector<int32_t> axes; // empty: the whole grid
  std::vector<uint8_t> send, recv;
  int64_t sendCount = 0;
};

inline const char *transportName(int32_t transport) {
  static const char *const names[] = {"all_gather", "all_to_all",
                                      "reduce_scatter", "all_reduce"};
  return names[transport];
}

/// Every transport on the whole grid and on each axis of a 2 x 2 grid, in
/// dtypes whose reductions round (bf16, f8E4M3FN) or not (f32), with
/// reductions that round (sum, avg) or not (max).
inline std::vector<StartedCase> startedCases(int rank) {
  std::vector<StartedCase> cases;
  const size_t perRank = 12; // a multiple of every group size
  uint64_t salt = 0;
  for (precrt_dtype_t dtype :
       {PRECRT_DTYPE_F32, PRECRT_DTYPE_BF16, PRECRT_DTYPE_F8E4M3FN})
    for (int32_t transport = PRECRT_TRANSPORT_ALL_GATHER;
         transport <= PRECRT_TRANSPORT_ALL_REDUCE; ++transport)
      for (std::vector<int32_t> axes :
           {std::vector<int32_t>{}, std::vector<int32_t>{0},
            std::vector<int32_t>{1}})
        for (precrt_reduction_t reduction :
             {PRECRT_REDUCTION_SUM, PRECRT_REDUCTION_AVG,
              PRECRT_REDUCTION_MAX}) {
          bool reduces = transport == PRECRT_TRANSPORT_REDUCE_SCATTER ||
                         transport == PRECRT_TRANSPORT_ALL_REDUCE;
          if (!reduces && reduction != PRECRT_REDUCTION_SUM)
            continue;
          StartedCase c{transport, dtype, reduction, axes, {}, {}, 0};
          c.sendCount = perRank;
          c.send = randomBuffer(dtype, perRank, ++salt * 100 + rank);
          // all_gather receives a block per rank (at most 4); a byte
          // pattern no transport writes marks what was not written.
          c.recv.assign(4 * perRank * precrtDtypeSize(dtype), 0xA5);
          cases.push_back(std::move(c));
        }
  return cases;
}

inline int32_t runSynchronously(StartedCase &c) {
  const int64_t shape[] = {2, 2};
  return precrtCompiledCollective(c.transport, c.send.data(), c.recv.data(),
                                  c.sendCount, c.dtype, c.reduction, 2, shape,
                                  int32_t(c.axes.size()), c.axes.data());
}

inline int64_t start(StartedCase &c) {
  const int64_t shape[] = {2, 2};
  return precrtCompiledCollectiveStart(
      c.transport, c.send.data(), c.recv.data(), c.sendCount, c.dtype,
      c.reduction, 2, shape, int32_t(c.axes.size()), c.axes.data());
}

inline std::string describe(const StartedCase &c) {
  std::string axes;
  for (int32_t axis : c.axes)
    axes += std::to_string(axis);
  return std::string(transportName(c.transport)) + " " +
         precrtDtypeName(c.dtype) + " " + reductionName(c.reduction) +
         " axes [" + axes + "]";
}

/// Every case started at once (all in flight), waited in reverse order,
/// against the same cases run synchronously: the same code moves the same
/// data in the same order, so the bytes must be identical (tolerance 0),
/// unwritten bytes included. The synchronous all_reduce sums of f32 are
/// also checked against the float64 reference of TestUtil.h, so that two
/// equal wrong results cannot pass.
inline void expectStartedMatchesSynchronous(int rank) {
  std::vector<StartedCase> synchronous = startedCases(rank);
  std::vector<StartedCase> started = startedCases(rank);
  for (StartedCase &c : synchronous)
    ASSERT_EQ(runSynchronously(c), PRECRT_SUCCESS)
        << describe(c) << ": " << precrtCompiledGetError();
  std::vector<int64_t> handles;
  for (StartedCase &c : started) {
    handles.push_back(start(c));
    ASSERT_GT(handles.back(), 0) << describe(c);
  }
  for (size_t i = started.size(); i-- > 0;)
    ASSERT_EQ(precrtCompiledCollectiveWait(handles[i], started[i].send.data(),
                                           started[i].recv.data()),
              PRECRT_SUCCESS)
        << describe(started[i]) << ": " << precrtCompiledGetError();
  for (size_t i = 0; i < started.size(); ++i)
    EXPECT_EQ(std::memcmp(started[i].recv.data(), synchronous[i].recv.data(),
                          started[i].recv.size()),
              0)
        << describe(started[i]);

  // The reference: all_reduce sums of f32 over the whole grid, whose inputs
  // every rank can rebuild (startedCases of each rank).
  std::vector<std::vector<StartedCase>> all;
  for (int r = 0; r < 4; ++r)
    all.push_back(startedCases(r));
  for (size_t i = 0; i < synchronous.size(); ++i) {
    const StartedCase &c = synchronous[i];
    if (c.transport != PRECRT_TRANSPORT_ALL_REDUCE ||
        c.dtype != PRECRT_DTYPE_F32 || c.reduction != PRECRT_REDUCTION_SUM ||
        !c.axes.empty())
      continue;
    std::vector<std::vector<uint8_t>> inputs;
    for (int r = 0; r < 4; ++r)
      inputs.push_back(all[r][i].send);
    for (size_t e = 0; e < size_t(c.sendCount); ++e)
      expectWithin(c.recv, c.dtype, e,
                   expectedReduction(inputs, c.dtype, c.reduction, e),
                   describe(c));
  }
}

/// Start A (all_gather), start B (all_reduce), run C (all_reduce)
/// synchronously, wait B, wait A: every rank must see the three in that
/// order. The values are small integers, whose f32 sums and gathers are
/// exact (tolerance 0). The traffic records list A, B, C.
inline void expectStartedOrderAcrossRanks(int rank, int size) {
  const int64_t shape[] = {size};
  const size_t count = 8, countC = 4;
  std::vector<float> sendA(count), recvA(count * size, -1), sendB(count),
      recvB(count, -1), sendC(count), recvC(count, -1);
  for (size_t i = 0; i < count; ++i) {
    sendA[i] = float(100 * rank + i);
    sendB[i] = float(rank + 1);
    sendC[i] = float(i * (rank + 1));
  }
  precrtCompiledResetTraffic();
  int64_t a = precrtCompiledCollectiveStart(
      PRECRT_TRANSPORT_ALL_GATHER, sendA.data(), recvA.data(), count,
      PRECRT_DTYPE_F32, PRECRT_REDUCTION_SUM, 1, shape, 0, nullptr);
  int64_t b = precrtCompiledCollectiveStart(
      PRECRT_TRANSPORT_ALL_REDUCE, sendB.data(), recvB.data(), count,
      PRECRT_DTYPE_F32, PRECRT_REDUCTION_SUM, 1, shape, 0, nullptr);
  ASSERT_GT(a, 0);
  ASSERT_GT(b, 0);
  EXPECT_NE(a, b);
  ASSERT_EQ(precrtCompiledCollective(
                PRECRT_TRANSPORT_ALL_REDUCE, sendC.data(), recvC.data(), countC,
                PRECRT_DTYPE_F32, PRECRT_REDUCTION_MAX, 1, shape, 0, nullptr),
            PRECRT_SUCCESS)
      << precrtCompiledGetError();
  ASSERT_EQ(precrtCompiledCollectiveWait(b, sendB.data(), recvB.data()),
            PRECRT_SUCCESS)
      << precrtCompiledGetError();
  ASSERT_EQ(precrtCompiledCollectiveWait(a, sendA.data(), recvA.data()),
            PRECRT_SUCCESS)
      << precrtCompiledGetError();
  for (int r = 0; r < size; ++r)
    for (size_t i = 0; i < count; ++i)
      EXPECT_EQ(recvA[r * count + i], float(100 * r + i));
  for (size_t i = 0; i < count; ++i) {
    EXPECT_EQ(recvB[i], float(size * (size + 1) / 2));
    EXPECT_EQ(recvC[i], i < countC ? float(i * size) : -1.0f);
  }
  precrt_compiled_traffic_t records[4];
  ASSERT_EQ(precrtCompiledGetTraffic(records, 4), 3);
  EXPECT_EQ(records[0].transport, PRECRT_TRANSPORT_ALL_GATHER);
  EXPECT_EQ(records[1].transport, PRECRT_TRANSPORT_ALL_REDUCE);
  EXPECT_EQ(records[1].send_count, int64_t(count));
  EXPECT_EQ(records[2].transport, PRECRT_TRANSPORT_ALL_REDUCE);
  EXPECT_EQ(records[2].send_count, int64_t(countC));
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(records[i].group_size, size);
  EXPECT_EQ(precrtCompiledGetError(), nullptr);
}

} // namespace precrt_test

#endif // PRECRT_TEST_STARTEDUTIL_H
