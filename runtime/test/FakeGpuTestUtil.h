//===- FakeGpuTestUtil.h - Helpers of the tests on the GPU fakes *- C++ -*-===//
//
// The tests linked into precrt_fake_gpu_tests run against FakeCudaDriver and
// FakeNccl (test/fakes), selected by path in main() before anything loads
// them. These helpers reach the fakes' own test hooks and run NCCL ranks.
//
//===----------------------------------------------------------------------===//

#ifndef PRECRT_TEST_FAKEGPUTESTUTIL_H
#define PRECRT_TEST_FAKEGPUTESTUTIL_H

#include "TestUtil.h"

#include "precrt/gpu.h"
#include "precrt/precrt.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <dlfcn.h>
#include <functional>
#include <string>
#include <vector>

namespace precrt_fake_gpu_test {

inline std::string lastError() { return precrtGetLastErrorMessage(); }

/// A test hook of a fake that precrt has loaded, or nullptr.
template <typename Function>
Function fakeSymbol(const char *library, const char *name) {
  void *handle = dlopen(library, RTLD_NOW | RTLD_NOLOAD);
  return handle ? reinterpret_cast<Function>(dlsym(handle, name)) : nullptr;
}

/// Runs `body` on `n` NCCL ranks (thread bootstrap) with device buffers.
inline precrt_status_t
runNccl(int n, const std::function<void(precrt_comm_t, int)> &body,
        int64_t timeoutMs = 20000) {
  precrt_init_options options{};
  options.backend = PRECRT_BACKEND_NCCL;
  options.nccl_bootstrap = PRECRT_NCCL_BOOTSTRAP_THREADS;
  options.num_local_ranks = n;
  options.timeout_ms = timeoutMs;
  return precrt_test::runWithOptions(options, body);
}

/// A device copy of `host`.
inline void *toDevice(const std::vector<uint8_t> &host) {
  void *device = nullptr;
  EXPECT_EQ(precrtGpuMalloc(&device, host.size()), PRECRT_SUCCESS);
  EXPECT_EQ(precrtGpuMemcpyAsync(device, host.data(), host.size(), nullptr),
            PRECRT_SUCCESS);
  return device;
}

/// The contents of `device`, which is freed.
inline std::vector<uint8_t> toHost(void *device, size_t bytes) {
  std::vector<uint8_t> host(bytes);
  EXPECT_EQ(precrtGpuMemcpyAsync(host.data(), device, bytes, nullptr),
            PRECRT_SUCCESS);
  precrtGpuFree(device);
  return host;
}

/// Checks run in a fresh copy of the binary, before any library is loaded.
inline void expectInFreshProcess(const std::function<bool()> &check) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(std::exit(check() ? 0 : 1), ::testing::ExitedWithCode(0), "");
}

} // namespace precrt_fake_gpu_test

#endif // PRECRT_TEST_FAKEGPUTESTUTIL_H
