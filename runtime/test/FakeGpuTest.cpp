//===- FakeGpuTest.cpp - GPU layer and NCCL backend on test doubles -------===//
//
// Runs precrt's CUDA-driver layer, the mgpu* entry points and the NCCL
// backend (thread bootstrap) against FakeCudaDriver and FakeNccl
// (test/fakes), which work on host memory. This covers the dlopen tables,
// version checks, contexts, error reporting, the control-plane agreement,
// stream polling and the abort on timeout on machines without a GPU; it says
// nothing about real kernels or NCCL's own numerics.
//
//===----------------------------------------------------------------------===//

#include "FakeGpuTestUtil.h"
#include "TestUtil.h"

#include "precrt/gpu.h"
#include "precrt/mgpu.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <functional>

using namespace precrt_test;
using namespace precrt_fake_gpu_test;

namespace {

int contextDepth() {
  auto depth = fakeSymbol<int (*)()>(PRECRT_FAKE_CUDA_DRIVER, "fakeCudaContextDepth");
  return depth ? depth() : -1;
}

int ncclAborts() {
  auto count = fakeSymbol<int (*)()>(PRECRT_FAKE_NCCL, "fakeNcclAbortCount");
  return count ? count() : -1;
}

TEST(FakeGpu, MemoryStreamsEventsThroughMgpu) {
  ASSERT_EQ(precrtGpuAvailable(), PRECRT_SUCCESS) << lastError();
  int32_t devices = 0;
  ASSERT_EQ(precrtGpuGetDeviceCount(&devices), PRECRT_SUCCESS);
  EXPECT_EQ(devices, 4);
  void *stream = mgpuStreamCreate();
  ASSERT_NE(stream, nullptr);
  void *device = mgpuMemAlloc(64 * 4, stream, false);
  ASSERT_NE(device, nullptr);
  mgpuMemset32(device, 0xdeadbeef, 64, stream);
  std::vector<uint32_t> host(64, 0);
  mgpuMemcpy(host.data(), device, 64 * 4, stream);
  mgpuMemset16(device, 0x1234, 2, stream);
  void *event = mgpuEventCreate();
  mgpuEventRecord(event, stream);
  mgpuStreamWaitEvent(stream, event);
  mgpuEventSynchronize(event);
  mgpuEventDestroy(event);
  mgpuStreamSynchronize(stream);
  for (uint32_t value : host)
    EXPECT_EQ(value, 0xdeadbeefu);
  EXPECT_EQ(*static_cast<uint32_t *>(device), 0x12341234u);
  mgpuMemFree(device, stream);
  mgpuStreamDestroy(stream);
  EXPECT_EQ(mgpuMemAlloc(0, nullptr, true), nullptr) << "zero bytes: no pointer";

  struct {
    char *allocated, *aligned;
    int64_t offset, sizes[2], strides[2];
  } memref{nullptr, nullptr, 1, {2, 3}, {3, 1}};
  std::vector<float> data(7);
  memref.allocated = memref.aligned = reinterpret_cast<char *>(data.data());
  mgpuMemHostRegisterMemRef(2, &memref, sizeof(float));
  mgpuMemHostUnregisterMemRef(2, &memref, sizeof(float));
  EXPECT_EQ(contextDepth(), 0) << "every pushed context is popped";
}

// A copy that runs past the end of its device allocation is refused, as
// CUDA refuses it, instead of writing the host memory behind it.
TEST(FakeGpu, CopiesStayInsideTheirAllocation) {
  void *device = nullptr;
  ASSERT_EQ(precrtGpuMalloc(&device, 16), PRECRT_SUCCESS);
  std::vector<uint8_t> host(32, 7);
  EXPECT_NE(precrtGpuMemcpyAsync(device, host.data(), 32, nullptr),
            PRECRT_SUCCESS);
  EXPECT_NE(precrtGpuMemcpyAsync(host.data(), device, 32, nullptr),
            PRECRT_SUCCESS);
  EXPECT_EQ(precrtGpuMemcpyAsync(device, host.data(), 16, nullptr),
            PRECRT_SUCCESS);
  precrtGpuFree(device);
}

TEST(FakeGpu, ModulesAndKernelLaunches) {
  testing::internal::CaptureStderr();
  EXPECT_EQ(mgpuModuleLoad(const_cast<char *>("garbage"), 8), nullptr);
  std::string printed = testing::internal::GetCapturedStderr();
  EXPECT_NE(printed.find("mgpuModuleLoad failed: cuModuleLoadData"),
            std::string::npos)
      << printed;
  EXPECT_NE(printed.find("CUDA_ERROR_INVALID_IMAGE"), std::string::npos);

  void *module = nullptr;
  EXPECT_EQ(precrtGpuModuleLoadJIT("not ptx", 2, &module), PRECRT_ERROR_BACKEND);
  EXPECT_NE(lastError().find("ptxas fatal: not PTX"), std::string::npos)
      << lastError();
  module = mgpuModuleLoadJIT(const_cast<char *>("FAKEPTX"), 2, 8);
  ASSERT_NE(module, nullptr);
  // Unloading needs a current context, as loading does (the driver fails
  // the call without one).
  EXPECT_EQ(precrtGpuModuleUnload(module), PRECRT_SUCCESS) << lastError();

  module = mgpuModuleLoad(const_cast<char *>("FAKECUBIN"), 10);
  ASSERT_NE(module, nullptr);
  void *missing = nullptr;
  EXPECT_EQ(precrtGpuModuleGetFunction(module, "missing", &missing),
            PRECRT_ERROR_BACKEND);
  EXPECT_NE(lastError().find("kernel 'missing'"), std::string::npos);
  void *kernel = mgpuModuleGetFunction(module, "store");
  ASSERT_NE(kernel, nullptr);
  int target = 0, value = 42;
  int *targetPointer = &target;
  void *params[] = {&targetPointer, &value};
  mgpuLaunchKernel(kernel, 1, 1, 1, 32, 1, 1, 1024, nullptr, params, nullptr, 2);
  EXPECT_EQ(target, 42);
  EXPECT_EQ(precrtGpuLaunchKernel(kernel, 0, 1, 1, 1, 1, 1, 0, nullptr, params,
                                  nullptr),
            PRECRT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(precrtGpuLaunchKernel(kernel, 1, 1, 1, 1, 1, 1, 1 << 20, nullptr,
                                  params, nullptr),
            PRECRT_ERROR_INVALID_ARGUMENT)
      << "more shared memory than the device allows";
  // The driver's own limits, as CUDA's.
  EXPECT_NE(precrtGpuLaunchKernel(kernel, 1, 65536, 1, 1, 1, 1, 0, nullptr,
                                  params, nullptr),
            PRECRT_SUCCESS)
      << "at most 65535 blocks along y";
  EXPECT_NE(precrtGpuLaunchKernel(kernel, 1, 1, 65536, 1, 1, 1, 0, nullptr,
                                  params, nullptr),
            PRECRT_SUCCESS)
      << "at most 65535 blocks along z";
  EXPECT_NE(precrtGpuLaunchKernel(kernel, 1, 1, 1, 512, 4, 1, 0, nullptr,
                                  params, nullptr),
            PRECRT_SUCCESS)
      << "at most 1024 threads a block";
  EXPECT_EQ(precrtGpuLaunchKernel(kernel, 2147483647u, 65535, 1, 1, 1, 1, 0,
                                  nullptr, params, nullptr),
            PRECRT_SUCCESS)
      << "the largest grid";
  target = 0;
  value = 7;
  mgpuLaunchClusterKernel(kernel, 2, 2, 1, 4, 2, 1, 128, 1, 1, 0, nullptr,
                          params, nullptr, 2);
  EXPECT_EQ(target, 7);
  auto clusterSize = fakeSymbol<unsigned (*)()>(PRECRT_FAKE_CUDA_DRIVER,
                                                "fakeCudaLastClusterSize");
  ASSERT_NE(clusterSize, nullptr);
  EXPECT_EQ(clusterSize(), 4u);
  EXPECT_EQ(precrtGpuLaunchClusterKernel(kernel, 0, 1, 1, 1, 1, 1, 1, 1, 1, 0,
                                         nullptr, params, nullptr),
            PRECRT_ERROR_INVALID_ARGUMENT);
  mgpuModuleUnload(module);
  EXPECT_EQ(contextDepth(), 0);
}

/// The NCCL data type of the calling thread's last collective.
int lastDataType() {
  auto last = fakeSymbol<int (*)()>(PRECRT_FAKE_NCCL, "fakeNcclLastDataType");
  return last ? last() : -1;
}

TEST(FakeNccl, CollectivesOnFourRanks) {
  const int n = 4;
  const size_t count = 33;
  for (precrt_dtype_t dtype : {PRECRT_DTYPE_F32, PRECRT_DTYPE_BF16,
                               PRECRT_DTYPE_F8E4M3FN}) {
    SCOPED_TRACE(precrtDtypeName(dtype));
    size_t width = precrtDtypeSize(dtype);
    auto inputs = rankInputs(n, dtype, count, 90);
    auto scatterInputs = rankInputs(n, dtype, count * n, 95);
    std::vector<std::vector<uint8_t>> reduced(n), scattered(n), gathered(n),
        exchanged(n), broadcast(n), fromLeft(n);
    ASSERT_EQ(runNccl(n, [&](precrt_comm_t world, int rank) {
                precrt_backend_t backend;
                precrtCommBackend(world, &backend);
                EXPECT_EQ(backend, PRECRT_BACKEND_NCCL);
                void *send = toDevice(inputs[rank]);
                void *recv = toDevice(std::vector<uint8_t>(count * width * n));
                EXPECT_EQ(precrtAllReduce(world, send, recv, count, dtype,
                                          PRECRT_REDUCTION_SUM),
                          PRECRT_SUCCESS)
                    << lastError();
                reduced[rank] = toHost(recv, count * width);

                void *scatterSend = toDevice(scatterInputs[rank]);
                recv = toDevice(std::vector<uint8_t>(count * width));
                EXPECT_EQ(precrtReduceScatter(world, scatterSend, recv, count,
                                              dtype, PRECRT_REDUCTION_MAX),
                          PRECRT_SUCCESS);
                scattered[rank] = toHost(recv, count * width);

                recv = toDevice(std::vector<uint8_t>(count * width * n));
                EXPECT_EQ(precrtAllGather(world, send, recv, count, dtype),
                          PRECRT_SUCCESS)
                    << lastError();
                if (width == 1)
                  EXPECT_EQ(lastDataType(), 1) << "fp8 moves as ncclUint8";
                gathered[rank] = toHost(recv, count * width * n);

                recv = toDevice(std::vector<uint8_t>(count * width * n));
                EXPECT_EQ(precrtAllToAll(world, scatterSend, recv, count, dtype),
                          PRECRT_SUCCESS);
                exchanged[rank] = toHost(recv, count * width * n);

                recv = toDevice(std::vector<uint8_t>(count * width));
                EXPECT_EQ(precrtBroadcast(world, send, recv, count, dtype, 2),
                          PRECRT_SUCCESS);
                broadcast[rank] = toHost(recv, count * width);

                recv = toDevice(std::vector<uint8_t>(count * width));
                EXPECT_EQ(precrtSendRecv(world, send, count, (rank + 1) % n, recv,
                                         count, (rank + n - 1) % n, dtype),
                          PRECRT_SUCCESS)
                    << lastError();
                fromLeft[rank] = toHost(recv, count * width);
                EXPECT_EQ(precrtBarrier(world), PRECRT_SUCCESS);
                precrtGpuFree(send);
                precrtGpuFree(scatterSend);
              }),
              PRECRT_SUCCESS)
        << lastError();
    for (int rank = 0; rank < n; ++rank) {
      for (size_t i = 0; i < count; ++i) {
        Expected sum = expectedReduction(inputs, dtype, PRECRT_REDUCTION_SUM, i);
        expectWithin(reduced[rank], dtype, i, sum);
        Expected max = expectedReduction(scatterInputs, dtype,
                                         PRECRT_REDUCTION_MAX, rank * count + i);
        EXPECT_EQ(valueAt(scattered[rank], dtype, i), max.value);
      }
      for (int source = 0; source < n; ++source) {
        EXPECT_TRUE(std::equal(inputs[source].begin(), inputs[source].end(),
                               gathered[rank].begin() + source * count * width));
        EXPECT_TRUE(std::equal(exchanged[rank].begin() + source * count * width,
                               exchanged[rank].begin() + (source + 1) * count * width,
                               scatterInputs[source].begin() + rank * count * width));
      }
      EXPECT_EQ(broadcast[rank], inputs[2]);
      EXPECT_EQ(fromLeft[rank], inputs[(rank + n - 1) % n]);
    }
  }
  // Every NCCL call, the communicators' destruction included, ran in the
  // rank's CUDA context.
  auto withoutContext = fakeSymbol<int (*)()>(PRECRT_FAKE_NCCL,
                                              "fakeNcclCallsWithoutContext");
  ASSERT_NE(withoutContext, nullptr);
  EXPECT_EQ(withoutContext(), 0);
}

// NCCL reduces fp8 only on compute capability 9.0 and newer: below, an fp8
// reduction fails with a clear reason before reaching NCCL, while fp8 that
// only moves (as bytes) works on any device.
TEST(FakeNccl, Fp8ReductionsNeedComputeCapability9) {
  expectInFreshProcess([] {
    setenv("FAKE_CUDA_COMPUTE_CAPABILITY", "8.0", 1);
    std::string reduceError;
    bool gathered = true;
    precrt_status_t status = runNccl(2, [&](precrt_comm_t world, int rank) {
      const size_t count = 5;
      void *send = toDevice(std::vector<uint8_t>(count, 0x38));
      void *recv = toDevice(std::vector<uint8_t>(count * 2));
      if (precrtAllGather(world, send, recv, count, PRECRT_DTYPE_F8E4M3FN) !=
          PRECRT_SUCCESS)
        gathered = false;
      if (precrtAllReduce(world, send, recv, count, PRECRT_DTYPE_F8E5M2,
                          PRECRT_REDUCTION_SUM) != PRECRT_SUCCESS &&
          rank == 0)
        reduceError = lastError();
      precrtGpuFree(send);
      precrtGpuFree(recv);
    });
    std::fprintf(stderr, "status %d, gathered %d, reduce error '%s'\n",
                 int(status), int(gathered), reduceError.c_str());
    return gathered &&
           reduceError.find("NCCL reduces f8E5M2 only on devices of compute "
                            "capability 9.0 or newer; device 0 (Fake H100 "
                            "#0) is 8.0") != std::string::npos;
  });
}

// NCCL works on device memory: the test NCCL refuses a host buffer, as a
// GPU would fault on it.
TEST(FakeNccl, HostBuffersAreRefused) {
  expectInFreshProcess([] {
    std::vector<precrt_status_t> statuses(2, PRECRT_SUCCESS);
    runNccl(2, [&](precrt_comm_t world, int rank) {
      std::vector<float> host(8, 1.0f);
      statuses[rank] = precrtAllReduce(world, host.data(), host.data(), 8,
                                       PRECRT_DTYPE_F32, PRECRT_REDUCTION_SUM);
    });
    std::fprintf(stderr, "statuses %d %d\n", int(statuses[0]),
                 int(statuses[1]));
    return statuses[0] != PRECRT_SUCCESS && statuses[1] != PRECRT_SUCCESS;
  });
}

// A peer that never joins the NCCL communicator: creating it is a timeout
// with the reason, not a hang in NCCL's blocking initialization.
TEST(FakeNccl, CommunicatorThatNeverCompletesTimesOut) {
  expectInFreshProcess([] {
    setenv("FAKE_NCCL_INIT_NEVER_COMPLETES", "1", 1);
    auto started = std::chrono::steady_clock::now();
    precrt_status_t status =
        runNccl(2, [](precrt_comm_t, int) {}, /*timeoutMs=*/300);
    double seconds = std::chrono::duration<double>(
                         std::chrono::steady_clock::now() - started)
                         .count();
    std::string error = lastError();
    std::fprintf(stderr, "status %d after %.1f s: '%s'\n", int(status),
                 seconds, error.c_str());
    return status != PRECRT_SUCCESS && seconds < 10 &&
           error.find("ncclCommInitRank did not complete within 300 ms") !=
               std::string::npos;
  });
}

// A failed ncclGroupStart fails the all-to-all with NCCL's reason.
TEST(FakeNccl, GroupStartFailureFailsAllToAll) {
  expectInFreshProcess([] {
    setenv("FAKE_NCCL_GROUP_START_FAILS", "1", 1);
    std::string error;
    runNccl(2, [&](precrt_comm_t world, int rank) {
      const size_t count = 4;
      void *send = toDevice(std::vector<uint8_t>(count * 4 * 2));
      void *recv = toDevice(std::vector<uint8_t>(count * 4 * 2));
      if (precrtAllToAll(world, send, recv, count, PRECRT_DTYPE_F32) !=
              PRECRT_SUCCESS &&
          rank == 0)
        error = lastError();
      precrtGpuFree(send);
      precrtGpuFree(recv);
    });
    std::fprintf(stderr, "all_to_all error '%s'\n", error.c_str());
    return error.find("ncclGroupStart") != std::string::npos;
  });
}

// ncclAvg on floating types multiplies every input by 1/N and sums (NCCL's
// PreMulSum): four f16 inputs of 65504 average to 65504, where a sum
// divided afterwards would overflow to infinity.
TEST(FakeNccl, AvgPremultipliesAsNcclDoes) {
  const int n = 4;
  std::vector<uint16_t> averaged(n);
  ASSERT_EQ(runNccl(n, [&](precrt_comm_t world, int rank) {
              uint16_t largest = 0x7BFF; // 65504 in f16
              void *send = toDevice(std::vector<uint8_t>(
                  reinterpret_cast<uint8_t *>(&largest),
                  reinterpret_cast<uint8_t *>(&largest) + 2));
              void *recv = toDevice(std::vector<uint8_t>(2));
              EXPECT_EQ(precrtAllReduce(world, send, recv, 1, PRECRT_DTYPE_F16,
                                        PRECRT_REDUCTION_AVG),
                        PRECRT_SUCCESS)
                  << lastError();
              std::vector<uint8_t> result = toHost(recv, 2);
              std::memcpy(&averaged[rank], result.data(), 2);
              precrtGpuFree(send);
            }),
            PRECRT_SUCCESS)
      << lastError();
  for (int rank = 0; rank < n; ++rank)
    EXPECT_EQ(averaged[rank], 0x7BFF) << "rank " << rank;
}

// Without a unique id, rank 0 still broadcasts: every rank fails at once
// with rank 0's reason, none waits in the broadcast for an id (the control
// plane would notice rank 0 leaving, but not say why).
TEST(FakeNccl, UniqueIdFailureFailsEveryRankAtOnce) {
  expectInFreshProcess([] {
    setenv("FAKE_NCCL_UNIQUE_ID_FAILS", "1", 1);
    auto started = std::chrono::steady_clock::now();
    precrt_status_t status =
        runNccl(2, [](precrt_comm_t, int) {}, /*timeoutMs=*/10000);
    double seconds = std::chrono::duration<double>(
                         std::chrono::steady_clock::now() - started)
                         .count();
    std::string error = lastError();
    std::fprintf(stderr, "status %d after %.1f s: '%s'\n", int(status),
                 seconds, error.c_str());
    return status != PRECRT_SUCCESS && seconds < 5 &&
           error.find("ncclGetUniqueId failed on rank 0") != std::string::npos;
  });
}

TEST(FakeNccl, GridGroupsSplitTheCommunicator) {
  const int64_t shape[] = {2, 2};
  const int32_t rowAxis[] = {1};
  ASSERT_EQ(runNccl(4, [&](precrt_comm_t world, int rank) {
              precrt_comm_t row = nullptr;
              ASSERT_EQ(precrtCommForGridAxes(world, 2, shape, 1, rowAxis, &row),
                        PRECRT_SUCCESS)
                  << lastError();
              int32_t size = 0, rowRank = -1;
              precrtCommSize(row, &size);
              precrtCommRank(row, &rowRank);
              EXPECT_EQ(size, 2);
              EXPECT_EQ(rowRank, rank % 2);
              float value = float(rank);
              void *buffer = toDevice(std::vector<uint8_t>(
                  reinterpret_cast<uint8_t *>(&value),
                  reinterpret_cast<uint8_t *>(&value) + 4));
              EXPECT_EQ(precrtAllReduce(row, buffer, buffer, 1, PRECRT_DTYPE_F32,
                                        PRECRT_REDUCTION_SUM),
                        PRECRT_SUCCESS)
                  << lastError();
              auto result = toHost(buffer, 4);
              float sum;
              std::memcpy(&sum, result.data(), 4);
              int row0 = rank / 2 * 2;
              EXPECT_EQ(sum, float(row0 + row0 + 1));
            }),
            PRECRT_SUCCESS);
}

// Host memory between the ranks of an NCCL world (a report for rank 0)
// travels over its host communicator: the control plane, with the same ranks
// in the same order (NCCL itself refuses host buffers, as above).
TEST(FakeNccl, HostMessagesGoThroughTheHostCommunicator) {
  ASSERT_EQ(runNccl(2, [&](precrt_comm_t world, int rank) {
              precrt_comm_t host = nullptr;
              ASSERT_EQ(precrtCommHost(world, &host), PRECRT_SUCCESS) << lastError();
              ASSERT_NE(host, nullptr);
              EXPECT_NE(host, world);
              precrt_backend_t backend = PRECRT_BACKEND_DEFAULT;
              precrtCommBackend(host, &backend);
              EXPECT_EQ(backend, PRECRT_BACKEND_LOCAL);
              int32_t hostRank = -1, hostSize = 0;
              precrtCommRank(host, &hostRank);
              precrtCommSize(host, &hostSize);
              EXPECT_EQ(hostRank, rank);
              EXPECT_EQ(hostSize, 2);
              std::vector<uint8_t> text(5);
              if (rank == 1) {
                std::memcpy(text.data(), "rank1", 5);
                EXPECT_EQ(precrtSend(host, text.data(), 5, PRECRT_DTYPE_BYTES, 0),
                          PRECRT_SUCCESS)
                    << lastError();
              } else {
                EXPECT_EQ(precrtRecv(host, text.data(), 5, PRECRT_DTYPE_BYTES, 1),
                          PRECRT_SUCCESS)
                    << lastError();
                EXPECT_EQ(std::string(text.begin(), text.end()), "rank1");
              }
              precrt_comm_t none = nullptr;
              EXPECT_EQ(precrtCommHost(world, nullptr), PRECRT_ERROR_INVALID_ARGUMENT);
              EXPECT_EQ(precrtCommHost(nullptr, &none), PRECRT_ERROR_INVALID_ARGUMENT);
            }),
            PRECRT_SUCCESS);
}

TEST(FakeNccl, DisagreementsAreCaughtByTheControlPlane) {
  ASSERT_EQ(runNccl(2, [&](precrt_comm_t world, int rank) {
              void *buffer = toDevice(std::vector<uint8_t>(64));
              EXPECT_EQ(precrtAllReduce(world, buffer, buffer, rank == 0 ? 4 : 5,
                                        PRECRT_DTYPE_F32, PRECRT_REDUCTION_SUM),
                        PRECRT_ERROR_MISMATCH);
              EXPECT_NE(lastError().find("rank 1 called all_reduce"),
                        std::string::npos)
                  << lastError();
              EXPECT_EQ(precrtAllReduce(world, buffer, buffer, 4, PRECRT_DTYPE_F32,
                                        PRECRT_REDUCTION_SUM),
                        PRECRT_SUCCESS);
              precrtGpuFree(buffer);
            }),
            PRECRT_SUCCESS);
}

TEST(FakeNccl, HungStreamTimesOutAndAbortsTheCommunicator) {
  int abortsBefore = ncclAborts();
  ASSERT_EQ(setenv("FAKE_CUDA_STREAM_NEVER_DONE", "1", 1), 0);
  auto start = std::chrono::steady_clock::now();
  ASSERT_EQ(runNccl(1,
                    [&](precrt_comm_t world, int) {
                      void *buffer = toDevice(std::vector<uint8_t>(16));
                      EXPECT_EQ(precrtAllReduce(world, buffer, buffer, 4,
                                                PRECRT_DTYPE_F32,
                                                PRECRT_REDUCTION_SUM),
                                PRECRT_ERROR_TIMEOUT);
                      EXPECT_NE(lastError().find("aborted"), std::string::npos)
                          << lastError();
                      EXPECT_EQ(precrtBarrier(world), PRECRT_ERROR_PEER_FAILED);
                      precrtGpuFree(buffer);
                    },
                    /*timeoutMs=*/150),
            PRECRT_SUCCESS);
  ASSERT_EQ(unsetenv("FAKE_CUDA_STREAM_NEVER_DONE"), 0);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
                .count(),
            5.0);
  EXPECT_EQ(ncclAborts(), abortsBefore + 1);
}

TEST(FakeNccl, BackendIsAvailable) {
  EXPECT_EQ(precrtBackendAvailable(PRECRT_BACKEND_NCCL), PRECRT_SUCCESS)
      << lastError();
}

TEST(FakeNccl, MoreRanksThanGpusIsUnavailable) {
  EXPECT_EQ(runNccl(5, [](precrt_comm_t, int) {}), PRECRT_ERROR_UNAVAILABLE);
  EXPECT_NE(lastError().find("5 ranks need 5 GPUs, 4 found"), std::string::npos)
      << lastError();
}

TEST(FakeVersions, OldLibrariesAreRefusedWithTheirVersion) {
  expectInFreshProcess([] {
    setenv("FAKE_CUDA_DRIVER_VERSION", "11080", 1);
    return precrtGpuAvailable() == PRECRT_ERROR_UNAVAILABLE &&
           lastError().find("version 11080 is older than the 12000") !=
               std::string::npos;
  });
  expectInFreshProcess([] {
    setenv("FAKE_NCCL_VERSION", "21509", 1);
    return runNccl(1, [](precrt_comm_t, int) {}) == PRECRT_ERROR_UNAVAILABLE &&
           lastError().find("version 2.15.9 is older than the 2.18.0") !=
               std::string::npos;
  });
  expectInFreshProcess([] {
    setenv("FAKE_NCCL_VERSION", "22309", 1);
    bool refused = false;
    runNccl(1, [&](precrt_comm_t world, int) {
      void *buffer = toDevice(std::vector<uint8_t>(4));
      refused = precrtAllReduce(world, buffer, buffer, 4, PRECRT_DTYPE_F8E4M3FN,
                                PRECRT_REDUCTION_SUM) == PRECRT_ERROR_UNAVAILABLE &&
                lastError().find("needs NCCL 2.24") != std::string::npos;
      precrtGpuFree(buffer);
    });
    return refused;
  });
}

} // namespace

int main(int argc, char **argv) {
  // Before anything loads the driver or NCCL (they are loaded once).
  setenv("PRECRT_CUDA_DRIVER_LIBRARY", PRECRT_FAKE_CUDA_DRIVER, 1);
  setenv("PRECRT_NCCL_LIBRARY", PRECRT_FAKE_NCCL, 1);
  setenv("PRECRT_CUBLASLT_LIBRARY", PRECRT_FAKE_CUBLASLT, 1);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
