//===- CompiledGpuTest.cpp - The GPU entry points of compiled code --------===//
//
// precrtCompiledGpuStream, precrtCompiledGpuMaxBlocks,
// precrtCompiledCollectiveOnStream and stream-ordered allocation through
// mgpuMemAlloc/mgpuMemFree, against the fake driver and the fake NCCL. The
// fake driver logs event records, stream waits, stream queries and
// allocations per thread, which shows the order of the stream operations;
// that the GPU honours that order is the driver's promise, not tested here.
// precrt-gpu-probe runs against the fake driver too.
//
//===----------------------------------------------------------------------===//

#include "FakeGpuTestUtil.h"

#include "precrt/compiled.h"
#include "precrt/gpu.h"
#include "precrt/mgpu.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <set>
#include <sstream>
#include <sys/wait.h>
#include <thread>
#include <tuple>

using namespace precrt_fake_gpu_test;

namespace {

/// One line of the fake driver's log: an entry point and its two operands.
struct LoggedCall {
  std::string name, first, second;
  bool operator==(const LoggedCall &other) const {
    return name == other.name && first == other.first && second == other.second;
  }
};

std::ostream &operator<<(std::ostream &os, const LoggedCall &call) {
  return os << call.name << "(" << call.first << ", " << call.second << ")";
}

/// The calling thread's calls named in `names` since the last take.
std::vector<LoggedCall> takeCalls(const std::vector<std::string> &names) {
  auto log =
      fakeSymbol<const char *(*)()>(PRECRT_FAKE_CUDA_DRIVER, "fakeCudaCallLog");
  std::vector<LoggedCall> calls;
  if (!log)
    return calls;
  std::istringstream lines(log());
  LoggedCall call;
  while (lines >> call.name >> call.first >> call.second)
    if (std::find(names.begin(), names.end(), call.name) != names.end())
      calls.push_back(call);
  return calls;
}

/// An address as the fake driver logs it.
std::string text(const void *pointer) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%p", pointer);
  return buffer;
}

int fakeCount(const char *hook) {
  auto count = fakeSymbol<int (*)()>(PRECRT_FAKE_CUDA_DRIVER, hook);
  return count ? count() : -1;
}

TEST(CompiledGpu, ComputeStreamIsCreatedOncePerThreadAndDevice) {
  ASSERT_EQ(precrtGpuSetDevice(0), PRECRT_SUCCESS);
  void *stream = precrtCompiledGpuStream();
  ASSERT_NE(stream, nullptr) << precrtCompiledGetError();
  EXPECT_EQ(precrtCompiledGpuStream(), stream);
  int streamsBefore = fakeCount("fakeCudaLiveStreams");

  void *otherThreadStream = nullptr, *otherThreadAgain = nullptr;
  std::thread other([&] {
    otherThreadStream = precrtCompiledGpuStream();
    otherThreadAgain = precrtCompiledGpuStream();
    EXPECT_EQ(fakeCount("fakeCudaLiveStreams"), streamsBefore + 1);
  });
  other.join();
  EXPECT_NE(otherThreadStream, nullptr);
  EXPECT_NE(otherThreadStream, stream);
  EXPECT_EQ(otherThreadAgain, otherThreadStream);
  EXPECT_EQ(fakeCount("fakeCudaLiveStreams"), streamsBefore)
      << "a thread's stream is destroyed when the thread exits";

  ASSERT_EQ(precrtGpuSetDevice(1), PRECRT_SUCCESS);
  void *onDevice1 = precrtCompiledGpuStream();
  EXPECT_NE(onDevice1, nullptr);
  EXPECT_NE(onDevice1, stream);
  ASSERT_EQ(precrtGpuSetDevice(0), PRECRT_SUCCESS);
  EXPECT_EQ(precrtCompiledGpuStream(), stream);
  EXPECT_EQ(precrtCompiledGetError(), nullptr);
}

TEST(CompiledGpu, MaxBlocksFillEveryMultiprocessor) {
  // The fake device: 132 multiprocessors of 2048 resident threads.
  EXPECT_EQ(precrtCompiledGpuMaxBlocks(256), 132 * 8);
  EXPECT_EQ(precrtCompiledGpuMaxBlocks(1024), 132 * 2);
  EXPECT_EQ(precrtCompiledGpuMaxBlocks(96), 132 * 21);
  EXPECT_EQ(precrtCompiledGpuMaxBlocks(4096), 1) << "at least one block";
  precrt_gpu_device_properties properties;
  ASSERT_EQ(precrtGpuGetDeviceProperties(2, &properties), PRECRT_SUCCESS);
  EXPECT_STREQ(properties.name, "Fake H100 #2");
  EXPECT_EQ(properties.compute_capability_major, 9);
  EXPECT_EQ(properties.compute_capability_minor, 0);
  EXPECT_EQ(properties.stream_ordered_allocation, 1);
  EXPECT_EQ(precrtGpuGetDeviceProperties(7, &properties), PRECRT_ERROR_BACKEND);
  EXPECT_NE(lastError().find("cuDeviceGet"), std::string::npos) << lastError();
}

TEST(CompiledGpu, BadBlockSizeIsTheRanksError) {
  ASSERT_EQ(precrtLocalRun(
                1,
                [](precrt_comm_t, void *) {
                  EXPECT_EQ(precrtCompiledGpuMaxBlocks(0), 1);
                  const char *error = precrtCompiledGetError();
                  EXPECT_NE(error, nullptr);
                  EXPECT_STREQ(
                      error,
                      "grid sizing needs a positive number of threads per "
                      "block, got 0");
                  precrtCompiledClearError();
                  return 0;
                },
                nullptr),
            PRECRT_SUCCESS);
}

TEST(CompiledGpu, CollectiveOnStreamRunsOnTheGroupStreamBetweenEvents) {
  const int n = 2;
  const int64_t shape[] = {n};
  const size_t count = 6;
  std::vector<std::vector<float>> reduced(n), scattered(n);
  ASSERT_EQ(
      runNccl(
          n,
          [&](precrt_comm_t world, int rank) {
            void *compute = precrtCompiledGpuStream();
            ASSERT_NE(compute, nullptr) << precrtCompiledGetError();
            // The group compiled code asks for: all axes of the grid.
            const int32_t axes[] = {0};
            precrt_comm_t group = nullptr;
            ASSERT_EQ(precrtCommForGridAxes(world, 1, shape, 1, axes, &group),
                      PRECRT_SUCCESS);
            void *groupStream = nullptr;
            ASSERT_EQ(precrtCommGetStream(group, &groupStream), PRECRT_SUCCESS);
            ASSERT_NE(groupStream, nullptr);
            EXPECT_NE(groupStream, compute);

            std::vector<float> input(count);
            for (size_t i = 0; i < count; ++i)
              input[i] = float(10 * rank + i);
            const size_t bytes = count * sizeof(float);
            void *send = mgpuMemAlloc(bytes, compute, false);
            void *recv = mgpuMemAlloc(bytes, compute, false);
            mgpuMemcpy(send, input.data(), bytes, compute);
            takeCalls({});

            const std::vector<std::string> ordering = {
                "cuEventRecord", "cuStreamWaitEvent", "cuStreamQuery"};
            std::vector<LoggedCall> previous;
            for (int32_t transport : {PRECRT_TRANSPORT_ALL_REDUCE,
                                      PRECRT_TRANSPORT_REDUCE_SCATTER}) {
              ASSERT_EQ(precrtCompiledCollectiveOnStream(
                            transport, send, recv, count, PRECRT_DTYPE_F32,
                            PRECRT_REDUCTION_SUM, 1, shape, 0, nullptr,
                            compute),
                        PRECRT_SUCCESS)
                  << precrtCompiledGetError();
              auto issuedOn = fakeSymbol<void *(*)()>(PRECRT_FAKE_NCCL,
                                                      "fakeNcclLastStream");
              ASSERT_NE(issuedOn, nullptr);
              EXPECT_EQ(issuedOn(), groupStream);

              // Pack kernel -> collective -> unpack kernel.
              std::vector<LoggedCall> calls = takeCalls(ordering);
              ASSERT_EQ(calls.size(), 5u);
              std::string before = calls[0].first, after = calls[3].first;
              EXPECT_NE(before, after);
              std::vector<LoggedCall> expected = {
                  {"cuEventRecord", before, text(compute)},
                  {"cuStreamWaitEvent", text(groupStream), before},
                  {"cuStreamQuery", text(groupStream), text(nullptr)},
                  {"cuEventRecord", after, text(groupStream)},
                  {"cuStreamWaitEvent", text(compute), after},
              };
              EXPECT_EQ(calls, expected);
              if (!previous.empty()) {
                EXPECT_EQ(calls, previous)
                    << "the thread's events are created once";
              }
              previous = calls;

              auto &result = transport == PRECRT_TRANSPORT_ALL_REDUCE
                                 ? reduced[rank]
                                 : scattered[rank];
              size_t resultCount =
                  transport == PRECRT_TRANSPORT_ALL_REDUCE ? count : count / n;
              result.resize(resultCount);
              mgpuMemcpy(result.data(), recv, resultCount * sizeof(float),
                         compute);
            }
            mgpuMemFree(send, compute);
            mgpuMemFree(recv, compute);
            mgpuStreamSynchronize(compute);
          }),
      PRECRT_SUCCESS)
      << lastError();
  for (int rank = 0; rank < n; ++rank) {
    ASSERT_EQ(reduced[rank].size(), count);
    for (size_t i = 0; i < count; ++i)
      EXPECT_EQ(reduced[rank][i], float(2 * i + 10));
    ASSERT_EQ(scattered[rank].size(), count / n);
    // Both read the inputs in `send`; the reduce_scatter keeps this rank's
    // chunk of the sum.
    for (size_t i = 0; i < count / n; ++i)
      EXPECT_EQ(scattered[rank][i], float(2 * (rank * count / n + i) + 10));
  }
}

TEST(CompiledGpu, StartedCollectiveOnStreamIsOrderedByEvents) {
  // Stream work runs in the fake driver only when something waits for it:
  // the send buffer is filled, and the receive buffer cleared, by copies
  // still pending on the compute stream at the start. The collective reads
  // the right input only if the group's stream waited for the start's
  // event, and the clearing copy would overwrite the result if it ran
  // after it.
  const int n = 2;
  const int64_t shape[] = {n};
  const size_t count = 6;
  std::vector<std::vector<float>> started(n), synchronous(n);
  ASSERT_EQ(
      runNccl(
          n,
          [&](precrt_comm_t, int rank) {
            void *compute = precrtCompiledGpuStream();
            ASSERT_NE(compute, nullptr) << precrtCompiledGetError();
            const size_t bytes = count * sizeof(float);
            std::vector<float> input(count), cleared(count, -1);
            for (size_t i = 0; i < count; ++i)
              input[i] = float(10 * rank + i);
            void *send = mgpuMemAlloc(bytes, compute, false);
            void *recv = mgpuMemAlloc(bytes, compute, false);
            void *recvSync = mgpuMemAlloc(bytes, compute, false);
            std::vector<std::string> before(2), after(2);
            for (int round = 0; round < 2; ++round) {
              mgpuMemcpy(send, input.data(), bytes, compute);
              mgpuMemcpy(recv, cleared.data(), bytes, compute);
              takeCalls({});
              int64_t handle = precrtCompiledCollectiveStartOnStream(
                  PRECRT_TRANSPORT_ALL_REDUCE, send, recv, count,
                  PRECRT_DTYPE_F32, PRECRT_REDUCTION_SUM, 1, shape, 0, nullptr,
                  compute);
              ASSERT_GT(handle, 0);
              const std::vector<std::string> ordering = {"cuEventRecord",
                                                         "cuStreamWaitEvent"};
              std::vector<LoggedCall> calls = takeCalls(ordering);
              ASSERT_EQ(calls.size(), 1u);
              EXPECT_EQ(calls[0].name, "cuEventRecord");
              EXPECT_EQ(calls[0].second, text(compute));
              before[round] = calls[0].first;
              ASSERT_EQ(precrtCompiledCollectiveWaitOnStream(handle, send, recv,
                                                             compute),
                        PRECRT_SUCCESS)
                  << precrtCompiledGetError();
              calls = takeCalls(ordering);
              ASSERT_EQ(calls.size(), 1u);
              EXPECT_EQ(calls[0].name, "cuStreamWaitEvent");
              EXPECT_EQ(calls[0].first, text(compute));
              after[round] = calls[0].second;
              EXPECT_NE(after[round], before[round]);
            }
            // The pool's two events again, in either role.
            EXPECT_EQ(std::set<std::string>({before[1], after[1]}),
                      std::set<std::string>({before[0], after[0]}))
                << "the events are pooled";

            ASSERT_EQ(precrtCompiledCollectiveOnStream(
                          PRECRT_TRANSPORT_ALL_REDUCE, send, recvSync, count,
                          PRECRT_DTYPE_F32, PRECRT_REDUCTION_SUM, 1, shape, 0,
                          nullptr, compute),
                      PRECRT_SUCCESS)
                << precrtCompiledGetError();
            started[rank].resize(count);
            synchronous[rank].resize(count);
            mgpuMemcpy(started[rank].data(), recv, bytes, compute);
            mgpuMemcpy(synchronous[rank].data(), recvSync, bytes, compute);

            // A transport started on a stream is waited on one.
            int64_t handle = precrtCompiledCollectiveStartOnStream(
                PRECRT_TRANSPORT_ALL_REDUCE, send, recv, count,
                PRECRT_DTYPE_F32, PRECRT_REDUCTION_SUM, 1, shape, 0, nullptr,
                compute);
            EXPECT_EQ(precrtCompiledCollectiveWait(handle, send, recv),
                      PRECRT_ERROR_INVALID_ARGUMENT);
            const char *error = precrtCompiledGetError();
            EXPECT_NE(std::string(error ? error : "")
                          .find("was started on a compute stream: wait for it "
                                "with precrtCompiledCollectiveWaitOnStream"),
                      std::string::npos)
                << (error ? error : "");
            precrtCompiledClearError();
            mgpuMemFree(send, compute);
            mgpuMemFree(recv, compute);
            mgpuMemFree(recvSync, compute);
            mgpuStreamSynchronize(compute);
          }),
      PRECRT_SUCCESS)
      << lastError();
  for (int rank = 0; rank < n; ++rank) {
    ASSERT_EQ(started[rank].size(), count);
    // Sums of two small integers: exact in f32.
    for (size_t i = 0; i < count; ++i)
      EXPECT_EQ(started[rank][i], float(2 * i + 10)) << "rank " << rank;
    EXPECT_EQ(std::memcmp(started[rank].data(), synchronous[rank].data(),
                          count * sizeof(float)),
              0);
  }
}

TEST(CompiledGpu, CollectiveOnStreamNeedsNccl) {
  ASSERT_EQ(precrtLocalRun(
                2,
                [](precrt_comm_t, void *) {
                  const int64_t shape[] = {2};
                  float buffer[2] = {1, 2};
                  void *compute = precrtCompiledGpuStream();
                  EXPECT_NE(compute, nullptr);
                  EXPECT_EQ(precrtCompiledCollectiveOnStream(
                                PRECRT_TRANSPORT_ALL_REDUCE, buffer, buffer, 2,
                                PRECRT_DTYPE_F32, PRECRT_REDUCTION_SUM, 1,
                                shape, 0, nullptr, compute),
                            PRECRT_ERROR_INVALID_ARGUMENT);
                  const char *error = precrtCompiledGetError();
                  EXPECT_STREQ(
                      error ? error : "",
                      "GPU code needs the nccl backend, the world runs on "
                      "local");
                  EXPECT_EQ(precrtCompiledCollective(
                                PRECRT_TRANSPORT_ALL_REDUCE, buffer, buffer, 2,
                                PRECRT_DTYPE_F32, PRECRT_REDUCTION_SUM, 1,
                                shape, 0, nullptr),
                            PRECRT_ERROR_INVALID_ARGUMENT)
                      << "later collectives return the first failure";
                  precrtCompiledClearError();
                  return 0;
                },
                nullptr),
            PRECRT_SUCCESS);
}

TEST(CompiledGpu, WithoutADriverAFailureEndsTheProcess) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const int64_t shape[] = {1};
  float buffer[1] = {1};
  EXPECT_EXIT(precrtCompiledCollectiveOnStream(
                  PRECRT_TRANSPORT_ALL_REDUCE, buffer, buffer, 1,
                  PRECRT_DTYPE_F32, PRECRT_REDUCTION_SUM, 1, shape, 0, nullptr,
                  precrtCompiledGpuStream()),
              ::testing::ExitedWithCode(1),
              "GPU code needs the nccl backend, the world runs on local");
  EXPECT_EXIT(precrtCompiledGpuMaxBlocks(-1), ::testing::ExitedWithCode(1),
              "precrtCompiledGpuMaxBlocks failed: grid sizing needs a "
              "positive number of threads per block, got -1");
}

TEST(CompiledGpu, AllocationOnAStreamIsStreamOrdered) {
  void *stream = precrtCompiledGpuStream();
  ASSERT_NE(stream, nullptr);
  const std::vector<std::string> allocations = {
      "cuMemAlloc", "cuMemFree", "cuMemAllocAsync", "cuMemFreeAsync"};
  takeCalls({});
  void *ordered = mgpuMemAlloc(64, stream, false);
  void *plain = mgpuMemAlloc(64, nullptr, false);
  mgpuMemFree(ordered, stream);
  // Memory from cuMemAlloc goes back through cuMemFree, stream or not.
  mgpuMemFree(plain, stream);
  void *freedWithoutStream = mgpuMemAlloc(64, stream, false);
  mgpuMemFree(freedWithoutStream, nullptr);
  std::vector<LoggedCall> expected = {
      {"cuMemAllocAsync", text(ordered), text(stream)},
      {"cuMemAlloc", text(plain), text(nullptr)},
      {"cuMemFreeAsync", text(ordered), text(stream)},
      {"cuMemFree", text(plain), text(nullptr)},
      {"cuMemAllocAsync", text(freedWithoutStream), text(stream)},
      {"cuMemFree", text(freedWithoutStream), text(nullptr)},
  };
  EXPECT_EQ(takeCalls(allocations), expected);
}

TEST(CompiledGpu, WithoutMemoryPoolsAllocationFallsBack) {
  expectInFreshProcess([] {
    setenv("FAKE_CUDA_MEMORY_POOLS", "0", 1);
    void *stream = precrtCompiledGpuStream();
    takeCalls({});
    void *ptr = mgpuMemAlloc(64, stream, false);
    mgpuMemFree(ptr, stream);
    std::vector<LoggedCall> expected = {
        {"cuMemAlloc", text(ptr), text(nullptr)},
        {"cuMemFree", text(ptr), text(nullptr)},
    };
    return takeCalls({"cuMemAlloc", "cuMemFree", "cuMemAllocAsync",
                      "cuMemFreeAsync"}) == expected;
  });
}

/// The exit status and the output (stdout and stderr) of `command`.
std::pair<int, std::string> runCommand(const std::string &command) {
  std::string output;
  FILE *pipe = popen((command + " 2>&1").c_str(), "r");
  if (!pipe)
    return {-1, output};
  char buffer[256];
  while (size_t read = std::fread(buffer, 1, sizeof(buffer), pipe))
    output.append(buffer, read);
  int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, output};
}

TEST(GpuProbe, ListsTheDevicesOfTheDriver) {
  auto [status, output] = runCommand(
      std::string("env PRECRT_CUDA_DRIVER_LIBRARY=") + PRECRT_FAKE_CUDA_DRIVER +
      " FAKE_CUDA_DEVICE_COUNT=2 " + PRECRT_GPU_PROBE);
  EXPECT_EQ(status, 0) << output;
  EXPECT_EQ(output, "device 0: Fake H100 #0, compute capability 9.0, 132 "
                    "multiprocessors\n"
                    "device 1: Fake H100 #1, compute capability 9.0, 132 "
                    "multiprocessors\n");
}

TEST(GpuProbe, SaysWhyThereIsNoGpu) {
  auto [status, output] = runCommand(
      std::string("env PRECRT_CUDA_DRIVER_LIBRARY=") + PRECRT_FAKE_CUDA_DRIVER +
      " FAKE_CUDA_DEVICE_COUNT=0 " + PRECRT_GPU_PROBE);
  EXPECT_EQ(status, 1);
  EXPECT_EQ(output, "precrt-gpu-probe: no GPU: the CUDA driver reports no "
                    "device\n");

  std::tie(status, output) = runCommand(
      std::string("env PRECRT_CUDA_DRIVER_LIBRARY=/nonexistent/libcuda.so.1 ") +
      PRECRT_GPU_PROBE);
  EXPECT_EQ(status, 1);
  EXPECT_NE(output.find("precrt-gpu-probe: no GPU: CUDA driver unavailable: "
                        "cannot load /nonexistent/libcuda.so.1"),
            std::string::npos)
      << output;

  std::tie(status, output) = runCommand(
      std::string("env PRECRT_CUDA_DRIVER_LIBRARY=") + PRECRT_FAKE_CUDA_DRIVER +
      " FAKE_CUDA_DRIVER_VERSION=11080 " + PRECRT_GPU_PROBE);
  EXPECT_EQ(status, 1);
  EXPECT_NE(output.find("version 11080 is older than the 12000"),
            std::string::npos)
      << output;
}

} // namespace
