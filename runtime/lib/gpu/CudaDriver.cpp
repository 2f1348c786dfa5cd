//===- CudaDriver.cpp - The CUDA driver API, loaded at run time -----------===//

#include "gpu/CudaDriver.h"

#include "core/DynamicLibrary.h"
#include "core/Error.h"

#include <string>

namespace precrt {
namespace cuda {
namespace {

struct LoadResult {
  DriverApi api{};
  bool loaded = false;
  std::string failure;
};

LoadResult load() {
  LoadResult result;
  DynamicLibrary library("CUDA driver", "PRECRT_CUDA_DRIVER_LIBRARY",
                         "libcuda.so.1");
  DriverApi &api = result.api;
  // The version first: an older driver may lack later entry points.
  if (!library.resolve("cuDriverGetVersion", &api.cuDriverGetVersion)) {
    result.failure =
        library.failure() + "; GPU support needs an NVIDIA driver";
    return result;
  }
  if (api.cuDriverGetVersion(&api.driverVersion) != CUDA_SUCCESS ||
      api.driverVersion < kMinimumDriverVersion) {
    library.refuse("version " + std::to_string(api.driverVersion) +
                   " is older than the " +
                   std::to_string(kMinimumDriverVersion) + " precrt needs");
    result.failure = library.failure();
    return result;
  }
  bool ok =
      library.resolve("cuInit", &api.cuInit) &&
      library.resolve("cuGetErrorName", &api.cuGetErrorName) &&
      library.resolve("cuGetErrorString", &api.cuGetErrorString) &&
      library.resolve("cuDeviceGetCount", &api.cuDeviceGetCount) &&
      library.resolve("cuDeviceGet", &api.cuDeviceGet) &&
      library.resolve("cuDeviceGetAttribute", &api.cuDeviceGetAttribute) &&
      library.resolve("cuDeviceGetName", &api.cuDeviceGetName) &&
      library.resolve("cuDevicePrimaryCtxRetain",
                      &api.cuDevicePrimaryCtxRetain) &&
      library.resolve("cuCtxPushCurrent_v2", &api.cuCtxPushCurrent) &&
      library.resolve("cuCtxPopCurrent_v2", &api.cuCtxPopCurrent) &&
      library.resolve("cuModuleLoadData", &api.cuModuleLoadData) &&
      library.resolve("cuModuleLoadDataEx", &api.cuModuleLoadDataEx) &&
      library.resolve("cuModuleUnload", &api.cuModuleUnload) &&
      library.resolve("cuModuleGetFunction", &api.cuModuleGetFunction) &&
      library.resolve("cuFuncSetAttribute", &api.cuFuncSetAttribute) &&
      library.resolve("cuLaunchKernel", &api.cuLaunchKernel) &&
      library.resolve("cuLaunchKernelEx", &api.cuLaunchKernelEx) &&
      library.resolve("cuStreamCreate", &api.cuStreamCreate) &&
      library.resolve("cuStreamDestroy_v2", &api.cuStreamDestroy) &&
      library.resolve("cuStreamSynchronize", &api.cuStreamSynchronize) &&
      library.resolve("cuStreamQuery", &api.cuStreamQuery) &&
      library.resolve("cuStreamWaitEvent", &api.cuStreamWaitEvent) &&
      library.resolve("cuEventCreate", &api.cuEventCreate) &&
      library.resolve("cuEventDestroy_v2", &api.cuEventDestroy) &&
      library.resolve("cuEventRecord", &api.cuEventRecord) &&
      library.resolve("cuEventSynchronize", &api.cuEventSynchronize) &&
      library.resolve("cuMemAlloc_v2", &api.cuMemAlloc) &&
      library.resolve("cuMemAllocManaged", &api.cuMemAllocManaged) &&
      library.resolve("cuMemFree_v2", &api.cuMemFree) &&
      library.resolve("cuMemcpyAsync", &api.cuMemcpyAsync) &&
      library.resolve("cuMemsetD32Async", &api.cuMemsetD32Async) &&
      library.resolve("cuMemsetD16Async", &api.cuMemsetD16Async) &&
      library.resolve("cuMemHostRegister_v2", &api.cuMemHostRegister) &&
      library.resolve("cuMemHostUnregister", &api.cuMemHostUnregister);
  if (!ok) {
    result.failure = library.failure();
    return result;
  }
  // Optional: without them, allocation falls back to cuMemAlloc/cuMemFree.
  api.cuMemAllocAsync =
      library.resolveOptional<decltype(api.cuMemAllocAsync)>("cuMemAllocAsync");
  api.cuMemFreeAsync =
      library.resolveOptional<decltype(api.cuMemFreeAsync)>("cuMemFreeAsync");
  CUresult initialized = api.cuInit(0);
  if (initialized != CUDA_SUCCESS) {
    const char *name = nullptr;
    api.cuGetErrorName(initialized, &name);
    library.refuse(std::string("cuInit failed with ") +
                   (name ? name : std::to_string(initialized).c_str()));
    result.failure = library.failure();
    return result;
  }
  result.loaded = true;
  return result;
}

} // namespace

const DriverApi *driver() {
  static const LoadResult loaded = load();
  if (!loaded.loaded) {
    fail(PRECRT_ERROR_UNAVAILABLE, "%s", loaded.failure.c_str());
    return nullptr;
  }
  return &loaded.api;
}

precrt_status_t driverFailure(const DriverApi &api, CUresult result,
                              const char *what) {
  const char *name = nullptr, *text = nullptr;
  api.cuGetErrorName(result, &name);
  api.cuGetErrorString(result, &text);
  return fail(PRECRT_ERROR_BACKEND, "%s failed: %s (%s)", what,
              name ? name : "unknown CUDA error", text ? text : "");
}

} // namespace cuda
} // namespace precrt
