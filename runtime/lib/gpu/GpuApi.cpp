//===- GpuApi.cpp - precrt/gpu.h over the dynamically loaded driver -------===//

#include "precrt/gpu.h"

#include "core/Error.h"
#include "gpu/CudaDriver.h"
#include "gpu/GpuContext.h"

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <map>
#include <mutex>
#include <unordered_set>

using namespace precrt;
using namespace precrt::cuda;

namespace {

#define PRECRT_ENTER_CONTEXT(scope)                                            \
  ScopedContext scope;                                                         \
  if (precrt_status_t entered = scope.enter(); entered != PRECRT_SUCCESS)      \
    return entered;

#define PRECRT_CUDA_CALL(scope, call)                                          \
  if (CUresult result = scope.api().call; result != CUDA_SUCCESS)              \
    return driverFailure(scope.api(), result, #call);

precrt_status_t requireOutput(const void *output, const char *what) {
  if (!output)
    return fail(PRECRT_ERROR_INVALID_ARGUMENT, "%s: null result pointer",
                what);
  return PRECRT_SUCCESS;
}

CUdeviceptr devicePointer(const void *ptr) {
  return static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(ptr));
}

struct LaunchShape {
  int64_t grid[3], block[3], cluster[3];
  int32_t dynamicSharedBytes;
};

precrt_status_t checkLaunch(const void *function, const LaunchShape &shape,
                            const char *what) {
  // Null when the kernel's module failed to load (mgpuModuleGetFunction of
  // a module that is not there); drivers may crash on it.
  if (!function)
    return fail(PRECRT_ERROR_INVALID_ARGUMENT, "%s: no kernel", what);
  for (const int64_t *extents : {shape.grid, shape.block, shape.cluster})
    for (int dim = 0; dim < 3; ++dim)
      if (extents[dim] <= 0 || extents[dim] > int64_t(UINT32_MAX))
        return fail(PRECRT_ERROR_INVALID_ARGUMENT,
                    "%s: grid/block/cluster extent %lld out of range", what,
                    static_cast<long long>(extents[dim]));
  if (shape.dynamicSharedBytes < 0)
    return fail(PRECRT_ERROR_INVALID_ARGUMENT,
                "%s: negative shared memory size", what);
  return PRECRT_SUCCESS;
}

/// Above 48 KiB a kernel must opt in to more dynamic shared memory, up to
/// the device's limit.
precrt_status_t prepareSharedMemory(ScopedContext &scope, CUfunction kernel,
                                    const LaunchShape &shape) {
  if (shape.dynamicSharedBytes <= 0)
    return PRECRT_SUCCESS;
  CUdevice device;
  int optInLimit = 0;
  PRECRT_CUDA_CALL(scope, cuDeviceGet(&device, currentDevice()));
  PRECRT_CUDA_CALL(scope, cuDeviceGetAttribute(
                              &optInLimit,
                              CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
                              device));
  if (shape.dynamicSharedBytes > optInLimit)
    return fail(PRECRT_ERROR_INVALID_ARGUMENT,
                "kernel launch: %d bytes of shared memory requested, the "
                "device allows %d",
                shape.dynamicSharedBytes, optInLimit);
  PRECRT_CUDA_CALL(scope, cuFuncSetAttribute(
                              kernel,
                              CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                              shape.dynamicSharedBytes));
  return PRECRT_SUCCESS;
}

precrt_status_t readDeviceProperties(const DriverApi &api, int ordinal,
                                     precrt_gpu_device_properties *result) {
  CUdevice device;
  if (CUresult failed = api.cuDeviceGet(&device, ordinal))
    return driverFailure(api, failed, "cuDeviceGet");
  precrt_gpu_device_properties properties{};
  if (CUresult failed = api.cuDeviceGetName(
          properties.name, int(sizeof(properties.name)), device))
    return driverFailure(api, failed, "cuDeviceGetName");
  properties.name[sizeof(properties.name) - 1] = '\0';
  struct {
    int attribute;
    int32_t *value;
  } attributes[] = {
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
       &properties.compute_capability_major},
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
       &properties.compute_capability_minor},
      {CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
       &properties.multiprocessor_count},
      {CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR,
       &properties.max_threads_per_multiprocessor},
      {CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED,
       &properties.stream_ordered_allocation},
  };
  for (auto [attribute, value] : attributes) {
    int read = 0;
    if (CUresult failed = api.cuDeviceGetAttribute(&read, attribute, device))
      return driverFailure(api, failed, "cuDeviceGetAttribute");
    *value = read;
  }
  // Pools on the device are of no use if the driver cannot reach them.
  properties.stream_ordered_allocation = properties.stream_ordered_allocation &&
                                         api.cuMemAllocAsync &&
                                         api.cuMemFreeAsync;
  *result = properties;
  return PRECRT_SUCCESS;
}

/// Whether allocations on `stream` are stream-ordered on the thread's device.
bool useStreamOrderedAllocation(void *stream) {
  if (!stream)
    return false;
  precrt_gpu_device_properties properties;
  return precrtGpuGetDeviceProperties(currentDevice(), &properties) ==
             PRECRT_SUCCESS &&
         properties.stream_ordered_allocation;
}

/// Memory from cuMemAllocAsync. Only it goes back through cuMemFreeAsync;
/// anything else (cuMemAlloc, managed memory) through cuMemFree, whatever
/// stream the caller names.
class StreamOrderedAllocations {
public:
  void insert(CUdeviceptr ptr) {
    std::lock_guard<std::mutex> lock(mutex_);
    pointers_.insert(ptr);
  }
  bool erase(CUdeviceptr ptr) {
    std::lock_guard<std::mutex> lock(mutex_);
    return pointers_.erase(ptr) != 0;
  }

private:
  std::mutex mutex_;
  std::unordered_set<CUdeviceptr> pointers_;
};

StreamOrderedAllocations &streamOrderedAllocations() {
  static StreamOrderedAllocations allocations;
  return allocations;
}

} // namespace

extern "C" {

precrt_status_t precrtGpuAvailable(void) {
  return driver() ? PRECRT_SUCCESS : PRECRT_ERROR_UNAVAILABLE;
}

precrt_status_t precrtGpuGetDeviceCount(int32_t *count) {
  if (precrt_status_t status = requireOutput(count, "precrtGpuGetDeviceCount"))
    return status;
  const DriverApi *api = driver();
  if (!api)
    return PRECRT_ERROR_UNAVAILABLE;
  int devices = 0;
  if (CUresult result = api->cuDeviceGetCount(&devices); result != CUDA_SUCCESS)
    return driverFailure(*api, result, "cuDeviceGetCount");
  *count = devices;
  return PRECRT_SUCCESS;
}

precrt_status_t precrtGpuSetDevice(int32_t device) {
  if (device < 0)
    return fail(PRECRT_ERROR_INVALID_ARGUMENT, "precrtGpuSetDevice: device %d",
                device);
  setCurrentDevice(device);
  return PRECRT_SUCCESS;
}

precrt_status_t
precrtGpuGetDeviceProperties(int32_t device,
                             precrt_gpu_device_properties *properties) {
  if (precrt_status_t status =
          requireOutput(properties, "precrtGpuGetDeviceProperties"))
    return status;
  const DriverApi *api = driver();
  if (!api)
    return PRECRT_ERROR_UNAVAILABLE;
  // Read once per device: grid sizing asks on every call of generated code.
  static std::mutex mutex;
  static std::map<int32_t, precrt_gpu_device_properties> cache;
  std::lock_guard<std::mutex> lock(mutex);
  auto cached = cache.find(device);
  if (cached == cache.end()) {
    precrt_gpu_device_properties read;
    if (precrt_status_t status = readDeviceProperties(*api, device, &read))
      return status;
    cached = cache.emplace(device, read).first;
  }
  *properties = cached->second;
  return PRECRT_SUCCESS;
}

precrt_status_t precrtGpuMalloc(void **ptr, size_t bytes) {
  if (precrt_status_t status = requireOutput(ptr, "precrtGpuMalloc"))
    return status;
  *ptr = nullptr;
  if (bytes == 0)
    return PRECRT_SUCCESS;
  PRECRT_ENTER_CONTEXT(scope);
  CUdeviceptr device = 0;
  PRECRT_CUDA_CALL(scope, cuMemAlloc(&device, bytes));
  *ptr = reinterpret_cast<void *>(static_cast<uintptr_t>(device));
  return PRECRT_SUCCESS;
}

precrt_status_t precrtGpuMallocManaged(void **ptr, size_t bytes) {
  if (precrt_status_t status = requireOutput(ptr, "precrtGpuMallocManaged"))
    return status;
  *ptr = nullptr;
  if (bytes == 0)
    return PRECRT_SUCCESS;
  PRECRT_ENTER_CONTEXT(scope);
  CUdeviceptr device = 0;
  PRECRT_CUDA_CALL(scope,
                   cuMemAllocManaged(&device, bytes, CU_MEM_ATTACH_GLOBAL));
  *ptr = reinterpret_cast<void *>(static_cast<uintptr_t>(device));
  return PRECRT_SUCCESS;
}

precrt_status_t precrtGpuFree(void *ptr) {
  if (!ptr)
    return PRECRT_SUCCESS;
  streamOrderedAllocations().erase(devicePointer(ptr));
  PRECRT_ENTER_CONTEXT(scope);
  PRECRT_CUDA_CALL(scope, cuMemFree(devicePointer(ptr)));
  return PRECRT_SUCCESS;
}

precrt_status_t precrtGpuMallocAsync(void **ptr, size_t bytes, void *stream) {
  if (!useStreamOrderedAllocation(stream))
    return precrtGpuMalloc(ptr, bytes);
  if (precrt_status_t status = requireOutput(ptr, "precrtGpuMallocAsync"))
    return status;
  *ptr = nullptr;
  if (bytes == 0)
    return PRECRT_SUCCESS;
  PRECRT_ENTER_CONTEXT(scope);
  CUdeviceptr device = 0;
  PRECRT_CUDA_CALL(
      scope, cuMemAllocAsync(&device, bytes, static_cast<CUstream>(stream)));
  streamOrderedAllocations().insert(device);
  *ptr = reinterpret_cast<void *>(static_cast<uintptr_t>(device));
  return PRECRT_SUCCESS;
}

precrt_status_t precrtGpuFreeAsync(void *ptr, void *stream) {
  if (!ptr)
    return PRECRT_SUCCESS;
  if (!stream || !streamOrderedAllocations().erase(devicePointer(ptr)))
    return precrtGpuFree(ptr);
  PRECRT_ENTER_CONTEXT(scope);
  PRECRT_CUDA_CALL(
      scope, cuMemFreeAsync(devicePointer(ptr), static_cast<CUstream>(stream)));
  return PRECRT_SUCCESS;
}

precrt_status_t precrtGpuMemcpyAsync(void *dst, const void *src, size_t bytes,
                                     void *stream) {
  if (bytes && (!dst || !src))
    return fail(PRECRT_ERROR_INVALID_ARGUMENT,
                "precrtGpuMemcpyAsync: null buffer");
  PRECRT_ENTER_CONTEXT(scope);
  PRECRT_CUDA_CALL(scope, cuMemcpyAsync(devicePointer(dst), devicePointer(src),
                                        bytes, static_cast<CUstream>(stream)));
  return PRECRT_SUCCESS;
}

precrt_status_t precrtGpuMemset32Async(void *dst, uint32_t value, size_t count,
                                       void *stream) {
  PRECRT_ENTER_CONTEXT(scope);
  PRECRT_CUDA_CALL(scope, cuMemsetD32Async(devicePointer(dst), value, count,
                                           static_cast<CUstream>(stream)));
  return PRECRT_SUCCESS;
}

precrt_status_t precrtGpuMemset16Async(void *dst, uint16_t value, size_t count,
                                       void *stream) {
  PRECRT_ENTER_CONTEXT(scope);
  PRECRT_CUDA_CALL(scope, cuMemsetD16Async(devicePointer(dst), value, count,
                                           static_cast<CUstream>(stream)));
  return PRECRT_SUCCESS;
}

precrt_status_t precrtGpuHostRegister(void *ptr, size_t bytes) {
  PRECRT_ENTER_CONTEXT(scope);
  PRECRT_CUDA_CALL(scope, cuMemHostRegister(ptr, bytes, 0));
  return PRECRT_SUCCESS;
}

precrt_status_t precrtGpuHostUnregister(void *ptr) {
  PRECRT_ENTER_CONTEXT(scope);
  PRECRT_CUDA_CALL(scope, cuMemHostUnregister(ptr));
  return PRECRT_SUCCESS;
}

precrt_status_t precrtGpuStreamCreate(void **stream) {
  if (precrt_status_t status = requireOutput(stream, "precrtGpuStreamCreate"))
    return status;
  *stream = nullptr;
  PRECRT_ENTER_CONTEXT(scope);
  CUstream created = nullptr;
  PRECRT_CUDA_CALL(scope, cuStreamCreate(&created, CU_STREAM_NON_BLOCKING));
  *stream = created;
  return PRECRT_SUCCESS;
}

precrt_status_t precrtGpuStreamDestroy(void *stream) {
  PRECRT_ENTER_CONTEXT(scope);
  PRECRT_CUDA_CALL(scope, cuStreamDestroy(static_cast<CUstream>(stream)));
  return PRECRT_SUCCESS;
}

precrt_status_t precrtGpuStreamSynchronize(void *stream) {
  PRECRT_ENTER_CONTEXT(scope);
  PRECRT_CUDA_CALL(scope, cuStreamSynchronize(static_cast<CUstream>(stream)));
  return PRECRT_SUCCESS;
}

precrt_status_t precrtGpuStreamWaitEvent(void *stream, void *event) {
  PRECRT_ENTER_CONTEXT(scope);
  PRECRT_CUDA_CALL(scope, cuStreamWaitEvent(static_cast<CUstream>(stream),
                                            static_cast<CUevent>(event), 0));
  return PRECRT_SUCCESS;
}

precrt_status_t precrtGpuEventCreate(void **event) {
  if (precrt_status_t status = requireOutput(event, "precrtGpuEventCreate"))
    return status;
  *event = nullptr;
  PRECRT_ENTER_CONTEXT(scope);
  CUevent created = nullptr;
  PRECRT_CUDA_CALL(scope, cuEventCreate(&created, CU_EVENT_DISABLE_TIMING));
  *event = created;
  return PRECRT_SUCCESS;
}

precrt_status_t precrtGpuEventDestroy(void *event) {
  PRECRT_ENTER_CONTEXT(scope);
  PRECRT_CUDA_CALL(scope, cuEventDestroy(static_cast<CUevent>(event)));
  return PRECRT_SUCCESS;
}

precrt_status_t precrtGpuEventRecord(void *event, void *stream) {
  PRECRT_ENTER_CONTEXT(scope);
  PRECRT_CUDA_CALL(scope, cuEventRecord(static_cast<CUevent>(event),
                                        static_cast<CUstream>(stream)));
  return PRECRT_SUCCESS;
}

precrt_status_t precrtGpuEventSynchronize(void *event) {
  PRECRT_ENTER_CONTEXT(scope);
  PRECRT_CUDA_CALL(scope, cuEventSynchronize(static_cast<CUevent>(event)));
  return PRECRT_SUCCESS;
}

precrt_status_t precrtGpuModuleLoad(const void *image, void **module) {
  if (precrt_status_t status = requireOutput(module, "precrtGpuModuleLoad"))
    return status;
  *module = nullptr;
  if (!image)
    return fail(PRECRT_ERROR_INVALID_ARGUMENT, "precrtGpuModuleLoad: no image");
  PRECRT_ENTER_CONTEXT(scope);
  CUmodule loaded = nullptr;
  PRECRT_CUDA_CALL(scope, cuModuleLoadData(&loaded, image));
  *module = loaded;
  return PRECRT_SUCCESS;
}

precrt_status_t precrtGpuModuleLoadJIT(const char *ptx, int32_t opt_level,
                                       void **module) {
  if (precrt_status_t status = requireOutput(module, "precrtGpuModuleLoadJIT"))
    return status;
  *module = nullptr;
  if (!ptx)
    return fail(PRECRT_ERROR_INVALID_ARGUMENT,
                "precrtGpuModuleLoadJIT: no PTX");
  PRECRT_ENTER_CONTEXT(scope);
  char log[4096] = {0};
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER,
                            CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                            CU_JIT_OPTIMIZATION_LEVEL};
  void *values[] = {log, reinterpret_cast<void *>(sizeof(log)),
                    reinterpret_cast<void *>(static_cast<intptr_t>(opt_level))};
  CUmodule loaded = nullptr;
  CUresult result =
      scope.api().cuModuleLoadDataEx(&loaded, ptx, 3, options, values);
  if (result != CUDA_SUCCESS) {
    driverFailure(scope.api(), result, "cuModuleLoadDataEx");
    return fail(PRECRT_ERROR_BACKEND, "%s; JIT log: %s", lastErrorMessage(),
                log);
  }
  *module = loaded;
  return PRECRT_SUCCESS;
}

precrt_status_t precrtGpuModuleUnload(void *module) {
  // A module whose load failed is null, and the destructors of embedded
  // kernels unload it all the same (at exit, where no driver may be loaded).
  if (!module)
    return PRECRT_SUCCESS;
  // Like every driver call, it needs the context the module was loaded in:
  // the thread's device's, as when the embedded kernels loaded.
  PRECRT_ENTER_CONTEXT(scope);
  CUresult result = scope.api().cuModuleUnload(static_cast<CUmodule>(module));
  // At process exit the primary context may already be gone; nothing leaks.
  if (result != CUDA_SUCCESS && result != CUDA_ERROR_DEINITIALIZED)
    return driverFailure(scope.api(), result, "cuModuleUnload");
  return PRECRT_SUCCESS;
}

precrt_status_t precrtGpuModuleGetFunction(void *module, const char *name,
                                           void **function) {
  if (precrt_status_t status =
          requireOutput(function, "precrtGpuModuleGetFunction"))
    return status;
  *function = nullptr;
  if (!name)
    return fail(PRECRT_ERROR_INVALID_ARGUMENT,
                "precrtGpuModuleGetFunction: no name");
  PRECRT_ENTER_CONTEXT(scope);
  CUfunction found = nullptr;
  CUresult result = scope.api().cuModuleGetFunction(
      &found, static_cast<CUmodule>(module), name);
  if (result != CUDA_SUCCESS) {
    driverFailure(scope.api(), result, "cuModuleGetFunction");
    return fail(PRECRT_ERROR_BACKEND, "%s (kernel '%s')", lastErrorMessage(),
                name);
  }
  *function = found;
  return PRECRT_SUCCESS;
}

precrt_status_t precrtGpuLaunchKernel(void *function, int64_t grid_x,
                                      int64_t grid_y, int64_t grid_z,
                                      int64_t block_x, int64_t block_y,
                                      int64_t block_z,
                                      int32_t dynamic_shared_bytes,
                                      void *stream, void **params,
                                      void **extra) {
  LaunchShape shape{{grid_x, grid_y, grid_z},
                    {block_x, block_y, block_z},
                    {1, 1, 1},
                    dynamic_shared_bytes};
  if (precrt_status_t status =
          checkLaunch(function, shape, "precrtGpuLaunchKernel"))
    return status;
  PRECRT_ENTER_CONTEXT(scope);
  auto kernel = static_cast<CUfunction>(function);
  if (precrt_status_t status = prepareSharedMemory(scope, kernel, shape))
    return status;
  PRECRT_CUDA_CALL(scope,
                   cuLaunchKernel(kernel, unsigned(grid_x), unsigned(grid_y),
                                  unsigned(grid_z), unsigned(block_x),
                                  unsigned(block_y), unsigned(block_z),
                                  unsigned(dynamic_shared_bytes),
                                  static_cast<CUstream>(stream), params, extra));
  return PRECRT_SUCCESS;
}

precrt_status_t precrtGpuLaunchClusterKernel(
    void *function, int64_t cluster_x, int64_t cluster_y, int64_t cluster_z,
    int64_t grid_x, int64_t grid_y, int64_t grid_z, int64_t block_x,
    int64_t block_y, int64_t block_z, int32_t dynamic_shared_bytes,
    void *stream, void **params, void **extra) {
  LaunchShape shape{{grid_x, grid_y, grid_z},
                    {block_x, block_y, block_z},
                    {cluster_x, cluster_y, cluster_z},
                    dynamic_shared_bytes};
  if (precrt_status_t status =
          checkLaunch(function, shape, "precrtGpuLaunchClusterKernel"))
    return status;
  PRECRT_ENTER_CONTEXT(scope);
  auto kernel = static_cast<CUfunction>(function);
  if (precrt_status_t status = prepareSharedMemory(scope, kernel, shape))
    return status;
  // Clusters of more than 8 blocks are "non-portable": the kernel must opt
  // in (as upstream's wrapper does).
  if (cluster_x * cluster_y * cluster_z > 8)
    PRECRT_CUDA_CALL(scope,
                     cuFuncSetAttribute(
                         kernel,
                         CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED,
                         1));
  CUlaunchAttribute cluster{};
  cluster.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
  cluster.value.clusterDim = {unsigned(cluster_x), unsigned(cluster_y),
                              unsigned(cluster_z)};
  CUlaunchConfig config{};
  config.gridDimX = unsigned(grid_x);
  config.gridDimY = unsigned(grid_y);
  config.gridDimZ = unsigned(grid_z);
  config.blockDimX = unsigned(block_x);
  config.blockDimY = unsigned(block_y);
  config.blockDimZ = unsigned(block_z);
  config.sharedMemBytes = unsigned(dynamic_shared_bytes);
  config.hStream = static_cast<CUstream>(stream);
  config.attrs = &cluster;
  config.numAttrs = 1;
  PRECRT_CUDA_CALL(scope, cuLaunchKernelEx(&config, kernel, params, extra));
  return PRECRT_SUCCESS;
}

} // extern "C"
