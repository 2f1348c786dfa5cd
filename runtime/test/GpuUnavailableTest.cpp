//===- GpuUnavailableTest.cpp - CUDA and NCCL missing or present ----------===//
//
// Without a CUDA driver (as on the CI machines) the GPU entry points and the
// NCCL backend must answer PRECRT_ERROR_UNAVAILABLE with a message naming
// what is missing, never crash. Where a driver and a GPU answer, the same
// tests run a round trip through device memory instead.
//
//===----------------------------------------------------------------------===//

#include "precrt/compiled.h"
#include "precrt/gpu.h"
#include "precrt/mgpu.h"
#include "precrt/precrt.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

namespace {

bool gpuPresent() {
  int32_t devices = 0;
  return precrtGpuAvailable() == PRECRT_SUCCESS &&
         precrtGpuGetDeviceCount(&devices) == PRECRT_SUCCESS && devices > 0;
}

std::string lastError() { return precrtGetLastErrorMessage(); }

TEST(GpuUnavailable, DriverEntryPointsReportTheMissingDriver) {
  if (gpuPresent())
    GTEST_SKIP() << "a CUDA driver and GPU are present";
  EXPECT_EQ(precrtGpuAvailable(), PRECRT_ERROR_UNAVAILABLE);
  EXPECT_NE(lastError().find("libcuda.so.1"), std::string::npos) << lastError();
  void *ptr = reinterpret_cast<void *>(0x1);
  EXPECT_EQ(precrtGpuMalloc(&ptr, 64), PRECRT_ERROR_UNAVAILABLE);
  EXPECT_EQ(ptr, nullptr);
  void *stream = nullptr;
  EXPECT_EQ(precrtGpuStreamCreate(&stream), PRECRT_ERROR_UNAVAILABLE);
  int32_t count = -1;
  EXPECT_EQ(precrtGpuGetDeviceCount(&count), PRECRT_ERROR_UNAVAILABLE);
  // The mgpu* entry points of MLIR's lowering return null and say why.
  testing::internal::CaptureStderr();
  EXPECT_EQ(mgpuStreamCreate(), nullptr);
  EXPECT_EQ(mgpuMemAlloc(64, nullptr, false), nullptr);
  EXPECT_EQ(mgpuModuleLoad(nullptr, 0), nullptr);
  std::string printed = testing::internal::GetCapturedStderr();
  EXPECT_NE(printed.find("mgpuStreamCreate failed: CUDA driver unavailable"),
            std::string::npos)
      << printed;
}

TEST(GpuUnavailable, CompiledGpuCodeRecordsTheMissingDriver) {
  if (gpuPresent())
    GTEST_SKIP() << "a CUDA driver and GPU are present";
  ASSERT_EQ(
      precrtLocalRun(
          1,
          [](precrt_comm_t, void *) {
            EXPECT_EQ(precrtCompiledGpuStream(), nullptr);
            const char *error = precrtCompiledGetError();
            EXPECT_NE(
                std::string(error ? error : "").find("CUDA driver unavailable"),
                std::string::npos);
            EXPECT_EQ(precrtCompiledGpuMaxBlocks(256), 1);
            precrtCompiledClearError();
            return 0;
          },
          nullptr),
      PRECRT_SUCCESS);
}

/// Runs `check` in a fresh copy of this test binary (a death test in the
/// "threadsafe" style re-executes it), where the libraries are not loaded
/// yet, and expects it to exit with 0.
void expectInFreshProcess(const std::function<bool()> &check) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(std::exit(check() ? 0 : 1), ::testing::ExitedWithCode(0), "");
}

TEST(GpuUnavailable, LibraryPathOverridesAreUsedAndNamed) {
  expectInFreshProcess([] {
    setenv("PRECRT_CUDA_DRIVER_LIBRARY", "/nonexistent/libcuda-precrt-test.so",
           1);
    return precrtGpuAvailable() == PRECRT_ERROR_UNAVAILABLE &&
           lastError().find("/nonexistent/libcuda-precrt-test.so") !=
               std::string::npos;
  });
  if (!gpuPresent())
    return; // NCCL is only loaded once the driver is there
  expectInFreshProcess([] {
    setenv("PRECRT_NCCL_LIBRARY", "/nonexistent/libnccl-precrt-test.so", 1);
    precrt_init_options options{};
    options.backend = PRECRT_BACKEND_NCCL;
    options.nccl_bootstrap = PRECRT_NCCL_BOOTSTRAP_THREADS;
    options.num_local_ranks = 1;
    return precrtRun(&options, [](precrt_comm_t, void *) { return 0; },
                     nullptr) == PRECRT_ERROR_UNAVAILABLE &&
           lastError().find("/nonexistent/libnccl-precrt-test.so") !=
               std::string::npos;
  });
}

TEST(NcclUnavailable, BackendReportsUnavailable) {
  if (gpuPresent())
    GTEST_SKIP() << "a CUDA driver and GPU are present";
  EXPECT_EQ(precrtBackendAvailable(PRECRT_BACKEND_NCCL),
            PRECRT_ERROR_UNAVAILABLE);
  EXPECT_NE(lastError().find("CUDA driver unavailable"), std::string::npos)
      << lastError();
  EXPECT_EQ(precrtBackendAvailable(PRECRT_BACKEND_LOCAL), PRECRT_SUCCESS);
  EXPECT_EQ(precrtBackendAvailable(precrt_backend_t(17)),
            PRECRT_ERROR_INVALID_ARGUMENT);
  precrt_init_options options{};
  options.backend = PRECRT_BACKEND_NCCL;
  options.nccl_bootstrap = PRECRT_NCCL_BOOTSTRAP_THREADS;
  options.num_local_ranks = 2;
  int calls = 0;
  EXPECT_EQ(precrtRun(
                &options,
                [](precrt_comm_t, void *data) {
                  ++*static_cast<int *>(data);
                  return 0;
                },
                &calls),
            PRECRT_ERROR_UNAVAILABLE);
  EXPECT_EQ(calls, 0);
  EXPECT_NE(lastError().find("unavailable"), std::string::npos) << lastError();

  precrt_comm_t world = nullptr;
  options.nccl_bootstrap = PRECRT_NCCL_BOOTSTRAP_MPI;
  EXPECT_EQ(precrtInit(&options, &world), PRECRT_ERROR_UNAVAILABLE);
  EXPECT_EQ(world, nullptr);
  EXPECT_NE(lastError().find("unavailable"), std::string::npos) << lastError();

  ASSERT_EQ(setenv("PRECRT_BACKEND", "nccl", 1), 0);
  EXPECT_EQ(precrtInit(nullptr, &world), PRECRT_ERROR_UNAVAILABLE);
  ASSERT_EQ(unsetenv("PRECRT_BACKEND"), 0);
}

TEST(GpuPresent, DeviceMemoryRoundTrip) {
  if (!gpuPresent())
    GTEST_SKIP() << "no CUDA driver or GPU: " << lastError();
  std::vector<uint32_t> host(1024, 0), back(1024, 1);
  void *stream = mgpuStreamCreate();
  ASSERT_NE(stream, nullptr);
  void *device = mgpuMemAlloc(host.size() * 4, stream, false);
  ASSERT_NE(device, nullptr);
  mgpuMemset32(device, 0xdeadbeef, host.size(), stream);
  mgpuMemcpy(back.data(), device, back.size() * 4, stream);
  mgpuStreamSynchronize(stream);
  for (uint32_t value : back)
    EXPECT_EQ(value, 0xdeadbeefu);
  mgpuMemFree(device, stream);
  mgpuStreamDestroy(stream);
}

} // namespace
