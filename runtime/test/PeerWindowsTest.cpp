//===- PeerWindowsTest.cpp - kernels' buffers read in place ---------------===//
//
// precrtCompiledWindow and precrtCompiledWindowFence as generated code calls
// them, on local ranks: what each rank reads after the fence of an
// all_gather and of an all_to_all, in shared windows and in private ones
// (PRECRT_SHARED_WINDOWS=0, whose fence moves the data with messages), the
// two slots used in turn, the traffic recorded, and the failures: ranks that
// disagree, a rank that comes too late, and one that exits.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "precrt/compiled.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

using namespace precrt_test;

namespace {

/// Sets PRECRT_SHARED_WINDOWS for the lifetime of the object.
class SharedWindowsSetting {
public:
  explicit SharedWindowsSetting(bool shared) {
    if (shared)
      unsetenv("PRECRT_SHARED_WINDOWS");
    else
      setenv("PRECRT_SHARED_WINDOWS", "0", 1);
  }
  ~SharedWindowsSetting() { unsetenv("PRECRT_SHARED_WINDOWS"); }
};

/// A grid of `n` ranks on one axis, as the compiler passes it.
struct Grid {
  explicit Grid(int n) : shape{n} {}
  int64_t shape[1];
};

/// The value rank `source` writes at `index` of its segment in call `call`.
float valueOf(int source, size_t index, int call) {
  return float(source * 1000 + int(index) + call * 100000);
}

class PeerWindowsTest
    : public ::testing::TestWithParam<std::tuple<int, bool>> {};

TEST_P(PeerWindowsTest, AllGatherAndAllToAllReadWhatPeersWrote) {
  const auto [n, shared] = GetParam();
  SharedWindowsSetting setting(shared);
  constexpr size_t kBlock = 5;
  const size_t segment = kBlock * n;
  const size_t bytes = segment * sizeof(float);
  ASSERT_EQ(runLocal(n, [&](precrt_comm_t, int rank) {
    Grid grid(n);
    precrtCompiledResetTraffic();
    std::vector<void *> slots;
    for (int call = 0; call < 4; ++call) {
      auto *slot = static_cast<float *>(
          precrtCompiledWindow(bytes, 1, grid.shape, 0, nullptr));
      ASSERT_NE(slot, nullptr);
      slots.push_back(slot);
      ASSERT_EQ(precrtCompiledGroupRank(1, grid.shape, 0, nullptr), rank);
      float *own = slot + rank * segment;
      for (size_t i = 0; i < segment; ++i)
        own[i] = valueOf(rank, i, call);
      // Even calls gather every segment, odd ones exchange blocks.
      int32_t transport = call % 2 ? PRECRT_TRANSPORT_ALL_TO_ALL
                                   : PRECRT_TRANSPORT_ALL_GATHER;
      ASSERT_EQ(precrtCompiledWindowFence(transport, slot, segment,
                                          PRECRT_DTYPE_F32, 1, grid.shape, 0,
                                          nullptr),
                0)
          << precrtCompiledGetError();
      for (int source = 0; source < n; ++source) {
        const float *theirs = slot + source * segment;
        if (transport == PRECRT_TRANSPORT_ALL_GATHER) {
          for (size_t i = 0; i < segment; ++i)
            ASSERT_EQ(theirs[i], valueOf(source, i, call))
                << "rank " << rank << " reads segment " << source;
        } else {
          for (size_t i = 0; i < kBlock; ++i)
            ASSERT_EQ(theirs[rank * kBlock + i],
                      valueOf(source, rank * kBlock + i, call))
                << "rank " << rank << " reads block " << rank << " of "
                << source;
        }
      }
    }
    // Two slots, in turn.
    EXPECT_NE(slots[0], slots[1]);
    EXPECT_EQ(slots[0], slots[2]);
    EXPECT_EQ(slots[1], slots[3]);
    // Recorded like the runtime's transports: the peers' part of the data.
    std::vector<precrt_compiled_traffic_t> records(4);
    ASSERT_EQ(precrtCompiledGetTraffic(records.data(), 4), 4);
    EXPECT_EQ(records[0].bytes_received, (n - 1) * bytes);
    EXPECT_EQ(records[1].bytes_received, (n - 1) * kBlock * sizeof(float));
    EXPECT_EQ(records[1].transport, PRECRT_TRANSPORT_ALL_TO_ALL);
    EXPECT_EQ(records[1].send_count, int64_t(segment));
    EXPECT_EQ(records[1].group_size, n);
  }),
            PRECRT_SUCCESS);
}

INSTANTIATE_TEST_SUITE_P(RanksAndSharing, PeerWindowsTest,
                         ::testing::Combine(::testing::Values(2, 3, 4, 8),
                                            ::testing::Bool()));

// Each call, one rank comes late, so that the others spin out and sleep
// until its arrival wakes them: every rank still reads what each peer wrote
// in that call, never the other slot's data or a stale value.
TEST(PeerWindows, SleepingRanksReadWhatTheLateRankWrote) {
  const int n = 4;
  constexpr size_t kSegment = 64;
  constexpr int kCalls = 24;
  ASSERT_EQ(runLocal(n, [&](precrt_comm_t, int rank) {
    Grid grid(n);
    for (int call = 0; call < kCalls; ++call) {
      auto *slot = static_cast<float *>(precrtCompiledWindow(
          kSegment * sizeof(float), 1, grid.shape, 0, nullptr));
      ASSERT_NE(slot, nullptr);
      if (rank == call % n)
        std::this_thread::sleep_for(std::chrono::milliseconds(3));
      for (size_t i = 0; i < kSegment; ++i)
        slot[rank * kSegment + i] = valueOf(rank, i, call);
      ASSERT_EQ(precrtCompiledWindowFence(PRECRT_TRANSPORT_ALL_GATHER, slot,
                                          kSegment, PRECRT_DTYPE_F32, 1,
                                          grid.shape, 0, nullptr),
                0)
          << precrtCompiledGetError();
      for (int source = 0; source < n; ++source)
        for (size_t i = 0; i < kSegment; ++i)
          ASSERT_EQ(slot[source * kSegment + i], valueOf(source, i, call))
              << "rank " << rank << " reads segment " << source << " of call "
              << call;
    }
  }),
            PRECRT_SUCCESS);
}

/// Runs `fence(grid, rank)` on 2 local ranks, each acquiring its slots and
/// calling the fence it returns the status of, and returns each rank's error
/// after checking that the fence failed with `expected`.
template <typename Fence>
std::vector<std::string> fenceErrors(precrt_status_t expected, Fence fence) {
  const int n = 2;
  std::vector<std::string> errors(n);
  EXPECT_EQ(runLocal(n, [&](precrt_comm_t, int rank) {
    Grid grid(n);
    precrtCompiledClearError();
    EXPECT_EQ(fence(grid, rank), expected);
    errors[rank] = precrtCompiledGetError();
    precrtCompiledClearError();
  }),
            PRECRT_SUCCESS);
  return errors;
}

TEST(PeerWindows, RanksThatDisagreeFailWithAMismatch) {
  auto errors = fenceErrors(PRECRT_ERROR_MISMATCH, [](Grid &grid, int rank) {
    void *slot = precrtCompiledWindow(64, 1, grid.shape, 0, nullptr);
    // Same segment size, another transport on rank 1.
    int32_t transport =
        rank ? PRECRT_TRANSPORT_ALL_TO_ALL : PRECRT_TRANSPORT_ALL_GATHER;
    return precrtCompiledWindowFence(transport, slot, 16, PRECRT_DTYPE_F32, 1,
                                     grid.shape, 0, nullptr);
  });
  for (const std::string &error : errors)
    EXPECT_NE(error.find("rank 0 called all_gather of 16 x f32 per rank "
                         "(slot 0), rank 1 all_to_all of 16 x f32 per rank "
                         "(slot 0)"),
              std::string::npos)
        << error;
}

TEST(PeerWindows, RanksInDifferentSlotsFailWithAMismatch) {
  auto errors = fenceErrors(PRECRT_ERROR_MISMATCH, [](Grid &grid, int rank) {
    void *slot = precrtCompiledWindow(64, 1, grid.shape, 0, nullptr);
    // Rank 1 skips a slot: its peers would read the other one.
    if (rank == 1)
      slot = precrtCompiledWindow(64, 1, grid.shape, 0, nullptr);
    return precrtCompiledWindowFence(PRECRT_TRANSPORT_ALL_GATHER, slot, 16,
                                     PRECRT_DTYPE_F32, 1, grid.shape, 0,
                                     nullptr);
  });
  for (const std::string &error : errors)
    EXPECT_NE(error.find("(slot 0), rank 1 all_gather of 16 x f32 per rank "
                         "(slot 1)"),
              std::string::npos)
        << error;
}

TEST(PeerWindows, AFenceOfAnotherSlotIsRefused) {
  ASSERT_EQ(runLocal(2, [&](precrt_comm_t, int) {
    Grid grid(2);
    precrtCompiledClearError();
    auto *slot = static_cast<char *>(
        precrtCompiledWindow(64, 1, grid.shape, 0, nullptr));
    EXPECT_EQ(precrtCompiledWindowFence(PRECRT_TRANSPORT_ALL_GATHER, slot + 64,
                                        16, PRECRT_DTYPE_F32, 1, grid.shape, 0,
                                        nullptr),
              PRECRT_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(precrtCompiledGetError())
                  .find("a slot other than the one last handed out"),
              std::string::npos);
    precrtCompiledClearError();
  }),
            PRECRT_SUCCESS);
}

TEST(PeerWindows, BadCallsAreErrorsWithMessages) {
  ASSERT_EQ(runLocal(2, [&](precrt_comm_t, int) {
    Grid grid(2);
    precrtCompiledClearError();
    void *slot = precrtCompiledWindow(64, 1, grid.shape, 0, nullptr);
    // Not a transport a window takes.
    EXPECT_EQ(precrtCompiledWindowFence(PRECRT_TRANSPORT_ALL_REDUCE, slot, 16,
                                        PRECRT_DTYPE_F32, 1, grid.shape, 0,
                                        nullptr),
              PRECRT_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(precrtCompiledGetError())
                  .find("expected all_gather (0) or all_to_all (1)"),
              std::string::npos);
    precrtCompiledClearError();
    // A negative size still returns memory the kernels may write, and
    // records the error.
    EXPECT_NE(precrtCompiledWindow(-8, 1, grid.shape, 0, nullptr), nullptr);
    EXPECT_NE(std::string(precrtCompiledGetError())
                  .find("a peer window got a negative size"),
              std::string::npos);
    precrtCompiledClearError();
    // A grid of 4 ranks on a world of 2: private memory of 4 segments, the
    // error recorded, and the fence returns it.
    Grid wrong(4);
    EXPECT_NE(precrtCompiledWindow(64, 1, wrong.shape, 0, nullptr), nullptr);
    std::string error = precrtCompiledGetError();
    EXPECT_NE(error.find("peer window:"), std::string::npos) << error;
    EXPECT_NE(precrtCompiledWindowFence(PRECRT_TRANSPORT_ALL_GATHER, slot, 16,
                                        PRECRT_DTYPE_F32, 1, wrong.shape, 0,
                                        nullptr),
              0);
    precrtCompiledClearError();
  }),
            PRECRT_SUCCESS);
}

TEST(PeerWindows, AGroupGivenUpOnFailsAtOnce) {
  precrtSetDefaultTimeoutMs(300);
  std::string error;
  double seconds = 0;
  ASSERT_EQ(runLocal(2, [&](precrt_comm_t world, int rank) {
    Grid grid(2);
    precrtCompiledClearError();
    void *slot = precrtCompiledWindow(64, 1, grid.shape, 0, nullptr);
    if (rank == 1)
      return;
    // Rank 1 has left and never comes to the group's barrier: the group is
    // given up on (the peer's exit, or the timeout).
    // The group the window's calls use: the grid's one axis.
    precrt_comm_t group = nullptr;
    const int32_t axis = 0;
    ASSERT_EQ(precrtCommForGridAxes(world, 1, grid.shape, 1, &axis, &group),
              PRECRT_SUCCESS);
    EXPECT_NE(precrtBarrier(group), PRECRT_SUCCESS);
    auto start = std::chrono::steady_clock::now();
    EXPECT_EQ(precrtCompiledWindowFence(PRECRT_TRANSPORT_ALL_GATHER, slot, 16,
                                        PRECRT_DTYPE_F32, 1, grid.shape, 0,
                                        nullptr),
              PRECRT_ERROR_PEER_FAILED);
    seconds = secondsSince(start);
    error = precrtCompiledGetError();
    precrtCompiledClearError();
  }),
            PRECRT_SUCCESS);
  precrtSetDefaultTimeoutMs(0);
  EXPECT_NE(error.find("peer window fence on a group given up on"),
            std::string::npos)
      << error;
  EXPECT_LT(seconds, 0.25) << "the fence waited for the timeout";
}

TEST(PeerWindows, ATimeoutBeyondTheClockWaitsAsIfForever) {
  precrtSetDefaultTimeoutMs(INT64_MAX);
  ASSERT_EQ(runLocal(2, [&](precrt_comm_t, int rank) {
    Grid grid(2);
    auto *slot = static_cast<float *>(
        precrtCompiledWindow(64, 1, grid.shape, 0, nullptr));
    slot[rank * 16] = float(rank + 1);
    EXPECT_EQ(precrtCompiledWindowFence(PRECRT_TRANSPORT_ALL_GATHER, slot, 16,
                                        PRECRT_DTYPE_F32, 1, grid.shape, 0,
                                        nullptr),
              0)
        << precrtCompiledGetError();
    EXPECT_EQ(slot[(1 - rank) * 16], float(2 - rank));
  }),
            PRECRT_SUCCESS);
  precrtSetDefaultTimeoutMs(0);
}

TEST(PeerWindows, ARankThatNeverComesTimesOut) {
  const int n = 2;
  precrtSetDefaultTimeoutMs(300);
  std::string error;
  ASSERT_EQ(runLocal(n, [&](precrt_comm_t, int rank) {
    Grid grid(n);
    precrtCompiledClearError();
    void *slot = precrtCompiledWindow(64, 1, grid.shape, 0, nullptr);
    // Alive past the timeout, so that it is late, not gone.
    if (rank == 1) {
      std::this_thread::sleep_for(std::chrono::milliseconds(900));
      return;
    }
    EXPECT_EQ(precrtCompiledWindowFence(PRECRT_TRANSPORT_ALL_GATHER, slot, 16,
                                        PRECRT_DTYPE_F32, 1, grid.shape, 0,
                                        nullptr),
              PRECRT_ERROR_TIMEOUT);
    error = precrtCompiledGetError();
    precrtCompiledClearError();
  }),
            PRECRT_SUCCESS);
  precrtSetDefaultTimeoutMs(0);
  EXPECT_NE(error.find("timed out after 300 ms waiting for rank 1"),
            std::string::npos)
      << error;
}

class PeerWindowsExitTest : public ::testing::TestWithParam<bool> {};

// A rank that leaves (its body returns, here after a failure) while the
// others wait in a fence is reported as exited, by its rank, as soon as it
// is gone: not at the timeout, and not as a rank that is merely late. The
// private window's fence is a collective, which reports it the same way.
TEST_P(PeerWindowsExitTest, ARankThatExitsFailsTheFenceAtOnce) {
  const bool shared = GetParam();
  SharedWindowsSetting setting(shared);
  const int n = 4, leaving = 2;
  precrtSetDefaultTimeoutMs(60000);
  std::vector<std::string> errors(n);
  std::vector<precrt_status_t> statuses(n, PRECRT_SUCCESS);
  std::vector<double> seconds(n, 0.0);
  struct Context {
    std::vector<std::string> &errors;
    std::vector<precrt_status_t> &statuses;
    std::vector<double> &seconds;
  } context{errors, statuses, seconds};
  precrt_status_t result = precrtLocalRun(
      n,
      [](precrt_comm_t world, void *data) -> int {
        auto &context = *static_cast<Context *>(data);
        int32_t rank = -1;
        precrtCommRank(world, &rank);
        Grid grid(n);
        precrtCompiledClearError();
        void *slot = precrtCompiledWindow(64, 1, grid.shape, 0, nullptr);
        if (rank == leaving) {
          // Gone once the others wait in the fence.
          std::this_thread::sleep_for(std::chrono::milliseconds(100));
          return PRECRT_ERROR_INTERNAL;
        }
        auto start = std::chrono::steady_clock::now();
        context.statuses[rank] = precrt_status_t(precrtCompiledWindowFence(
            PRECRT_TRANSPORT_ALL_GATHER, slot, 16, PRECRT_DTYPE_F32, 1,
            grid.shape, 0, nullptr));
        context.seconds[rank] = secondsSince(start);
        context.errors[rank] = precrtCompiledGetError();
        precrtCompiledClearError();
        return 0;
      },
      &context);
  precrtSetDefaultTimeoutMs(0);
  EXPECT_EQ(result, PRECRT_ERROR_INTERNAL);
  for (int rank = 0; rank < n; ++rank) {
    if (rank == leaving)
      continue;
    EXPECT_EQ(statuses[rank], PRECRT_ERROR_PEER_FAILED) << errors[rank];
    const std::string expected =
        shared ? "rank 2 exited while the others waited in peer window "
                 "fence #1"
               : "rank 2 exited while the others waited in all_gather";
    EXPECT_NE(errors[rank].find(expected), std::string::npos)
        << "rank " << rank << ": " << errors[rank];
    EXPECT_LT(seconds[rank], 1.0) << "rank " << rank << " waited for the "
                                  << "timeout";
  }
}

INSTANTIATE_TEST_SUITE_P(Sharing, PeerWindowsExitTest, ::testing::Bool());

} // namespace
