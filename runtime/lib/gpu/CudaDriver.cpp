//===- CudaDriver.cpp - The CUDA driver API, loaded at run time -----------===//

#include "gpu/CudaDriver.h"

#include "core/Error.h"

#include <cstdlib>
#include <dlfcn.h>
#include <mutex>
#include <string>

namespace precrt {
namespace cuda {
namespace {

struct LoadResult {
  DriverApi api{};
  bool loaded = false;
  std::string failure;
};

template <typename Function>
bool resolve(void *library, const char *name, Function *slot,
             std::string *failure) {
  *slot = reinterpret_cast<Function>(dlsym(library, name));
  if (!*slot)
    *failure = std::string("the CUDA driver lacks ") + name;
  return *slot != nullptr;
}

LoadResult load() {
  LoadResult result;
  const char *path = std::getenv("PRECRT_CUDA_DRIVER_LIBRARY");
  if (!path || !*path)
    path = "libcuda.so.1";
  void *library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char *reason = dlerror();
    result.failure = std::string("CUDA driver unavailable: cannot load ") +
                     path + " (" + (reason ? reason : "unknown reason") +
                     "); GPU support needs an NVIDIA driver";
    return result;
  }
  DriverApi &api = result.api;
  std::string &failure = result.failure;
  // The version first: an older driver may lack later entry points.
  if (!resolve(library, "cuDriverGetVersion", &api.cuDriverGetVersion,
               &failure))
    return result;
  if (api.cuDriverGetVersion(&api.driverVersion) != CUDA_SUCCESS ||
      api.driverVersion < kMinimumDriverVersion) {
    failure = "CUDA driver unavailable: version " +
              std::to_string(api.driverVersion) + " is older than the " +
              std::to_string(kMinimumDriverVersion) + " precrt needs";
    return result;
  }
  bool ok =
      resolve(library, "cuInit", &api.cuInit, &failure) &&
      resolve(library, "cuGetErrorName", &api.cuGetErrorName, &failure) &&
      resolve(library, "cuGetErrorString", &api.cuGetErrorString, &failure) &&
      resolve(library, "cuDeviceGetCount", &api.cuDeviceGetCount, &failure) &&
      resolve(library, "cuDeviceGet", &api.cuDeviceGet, &failure) &&
      resolve(library, "cuDeviceGetAttribute", &api.cuDeviceGetAttribute,
              &failure) &&
      resolve(library, "cuDevicePrimaryCtxRetain",
              &api.cuDevicePrimaryCtxRetain, &failure) &&
      resolve(library, "cuCtxPushCurrent_v2", &api.cuCtxPushCurrent,
              &failure) &&
      resolve(library, "cuCtxPopCurrent_v2", &api.cuCtxPopCurrent, &failure) &&
      resolve(library, "cuModuleLoadData", &api.cuModuleLoadData, &failure) &&
      resolve(library, "cuModuleLoadDataEx", &api.cuModuleLoadDataEx,
              &failure) &&
      resolve(library, "cuModuleUnload", &api.cuModuleUnload, &failure) &&
      resolve(library, "cuModuleGetFunction", &api.cuModuleGetFunction,
              &failure) &&
      resolve(library, "cuFuncSetAttribute", &api.cuFuncSetAttribute,
              &failure) &&
      resolve(library, "cuLaunchKernel", &api.cuLaunchKernel, &failure) &&
      resolve(library, "cuLaunchKernelEx", &api.cuLaunchKernelEx, &failure) &&
      resolve(library, "cuStreamCreate", &api.cuStreamCreate, &failure) &&
      resolve(library, "cuStreamDestroy_v2", &api.cuStreamDestroy,
              &failure) &&
      resolve(library, "cuStreamSynchronize", &api.cuStreamSynchronize,
              &failure) &&
      resolve(library, "cuStreamQuery", &api.cuStreamQuery, &failure) &&
      resolve(library, "cuStreamWaitEvent", &api.cuStreamWaitEvent,
              &failure) &&
      resolve(library, "cuEventCreate", &api.cuEventCreate, &failure) &&
      resolve(library, "cuEventDestroy_v2", &api.cuEventDestroy, &failure) &&
      resolve(library, "cuEventRecord", &api.cuEventRecord, &failure) &&
      resolve(library, "cuEventSynchronize", &api.cuEventSynchronize,
              &failure) &&
      resolve(library, "cuMemAlloc_v2", &api.cuMemAlloc, &failure) &&
      resolve(library, "cuMemAllocManaged", &api.cuMemAllocManaged,
              &failure) &&
      resolve(library, "cuMemFree_v2", &api.cuMemFree, &failure) &&
      resolve(library, "cuMemcpyAsync", &api.cuMemcpyAsync, &failure) &&
      resolve(library, "cuMemsetD32Async", &api.cuMemsetD32Async, &failure) &&
      resolve(library, "cuMemsetD16Async", &api.cuMemsetD16Async, &failure) &&
      resolve(library, "cuMemHostRegister_v2", &api.cuMemHostRegister,
              &failure) &&
      resolve(library, "cuMemHostUnregister", &api.cuMemHostUnregister,
              &failure);
  if (!ok)
    return result;
  CUresult initialized = api.cuInit(0);
  if (initialized != CUDA_SUCCESS) {
    const char *name = nullptr;
    api.cuGetErrorName(initialized, &name);
    failure = std::string("CUDA driver unavailable: cuInit failed with ") +
              (name ? name : std::to_string(initialized).c_str());
    return result;
  }
  // The library stays loaded for the life of the process.
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
