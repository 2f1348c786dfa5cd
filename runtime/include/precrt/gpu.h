/*===- precrt/gpu.h - GPU memory, streams, events and kernels -----*- C -*-===*\
 *
 * A status-returning C API over the CUDA driver, which precrt loads at run
 * time (libcuda.so.1; PRECRT_CUDA_DRIVER_LIBRARY overrides the path). On a
 * machine without the driver every call returns PRECRT_ERROR_UNAVAILABLE
 * with the reason. Handles are the driver's (CUmodule, CUfunction, CUstream,
 * CUevent) as opaque pointers; device pointers are CUdeviceptr values.
 *
 * Every call runs in the primary context of the calling thread's device
 * (precrtGpuSetDevice, default 0), as MLIR's CUDA runtime wrappers do.
 *
 * The same library exports the mgpu* entry points that MLIR's gpu-to-llvm
 * lowering calls (declared in precrt/mgpu.h); they report errors on stderr
 * and through precrtGetLastErrorMessage().
 *
\*===----------------------------------------------------------------------===*/

#ifndef PRECRT_GPU_H
#define PRECRT_GPU_H

#include "precrt/precrt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* PRECRT_SUCCESS when a CUDA driver could be loaded and initialized. */
PRECRT_EXPORT precrt_status_t precrtGpuAvailable(void);
PRECRT_EXPORT precrt_status_t precrtGpuGetDeviceCount(int32_t *count);
/* The calling thread's device for later calls. */
PRECRT_EXPORT precrt_status_t precrtGpuSetDevice(int32_t device);

/* What precrt asks of a device; read once per device and cached. */
typedef struct precrt_gpu_device_properties {
  char name[256];
  int32_t compute_capability_major;
  int32_t compute_capability_minor;
  int32_t multiprocessor_count;
  int32_t max_threads_per_multiprocessor;
  /* Non-zero when the driver and the device support stream-ordered
   * allocation (cuMemAllocAsync / cuMemFreeAsync from the default pool). */
  int32_t stream_ordered_allocation;
} precrt_gpu_device_properties;

PRECRT_EXPORT precrt_status_t precrtGpuGetDeviceProperties(
    int32_t device, precrt_gpu_device_properties *properties);

PRECRT_EXPORT precrt_status_t precrtGpuMalloc(void **ptr, size_t bytes);
PRECRT_EXPORT precrt_status_t precrtGpuMallocManaged(void **ptr, size_t bytes);
PRECRT_EXPORT precrt_status_t precrtGpuFree(void *ptr);
/* Stream-ordered allocation on `stream` (cuMemAllocAsync): the memory may be
 * used by work enqueued on `stream` after this call, or on other streams
 * ordered after it by events, and neither call synchronizes the device.
 * With a NULL stream, or where the device has no stream-ordered allocation
 * (precrt_gpu_device_properties), they are precrtGpuMalloc / precrtGpuFree.
 * precrtGpuFreeAsync frees any pointer of this API: memory that was not
 * allocated stream-ordered goes back through cuMemFree, which synchronizes;
 * precrtGpuFree also frees stream-ordered memory. */
PRECRT_EXPORT precrt_status_t precrtGpuMallocAsync(void **ptr, size_t bytes,
                                                   void *stream);
PRECRT_EXPORT precrt_status_t precrtGpuFreeAsync(void *ptr, void *stream);
PRECRT_EXPORT precrt_status_t precrtGpuMemcpyAsync(void *dst, const void *src,
                                                   size_t bytes, void *stream);
PRECRT_EXPORT precrt_status_t precrtGpuMemset32Async(void *dst, uint32_t value,
                                                     size_t count,
                                                     void *stream);
PRECRT_EXPORT precrt_status_t precrtGpuMemset16Async(void *dst, uint16_t value,
                                                     size_t count,
                                                     void *stream);
PRECRT_EXPORT precrt_status_t precrtGpuHostRegister(void *ptr, size_t bytes);
PRECRT_EXPORT precrt_status_t precrtGpuHostUnregister(void *ptr);

PRECRT_EXPORT precrt_status_t precrtGpuStreamCreate(void **stream);
PRECRT_EXPORT precrt_status_t precrtGpuStreamDestroy(void *stream);
PRECRT_EXPORT precrt_status_t precrtGpuStreamSynchronize(void *stream);
PRECRT_EXPORT precrt_status_t precrtGpuStreamWaitEvent(void *stream,
                                                       void *event);
PRECRT_EXPORT precrt_status_t precrtGpuEventCreate(void **event);
PRECRT_EXPORT precrt_status_t precrtGpuEventDestroy(void *event);
PRECRT_EXPORT precrt_status_t precrtGpuEventRecord(void *event, void *stream);
PRECRT_EXPORT precrt_status_t precrtGpuEventSynchronize(void *event);

/* A cubin or fatbin image. */
PRECRT_EXPORT precrt_status_t precrtGpuModuleLoad(const void *image,
                                                  void **module);
/* NUL-terminated PTX compiled by the driver at `opt_level` (0-4); the JIT
 * log is in the error message on failure. */
PRECRT_EXPORT precrt_status_t precrtGpuModuleLoadJIT(const char *ptx,
                                                     int32_t opt_level,
                                                     void **module);
/* A NULL module (one whose load failed) is nothing to unload: success. */
PRECRT_EXPORT precrt_status_t precrtGpuModuleUnload(void *module);
PRECRT_EXPORT precrt_status_t precrtGpuModuleGetFunction(void *module,
                                                         const char *name,
                                                         void **function);
PRECRT_EXPORT precrt_status_t precrtGpuLaunchKernel(
    void *function, int64_t grid_x, int64_t grid_y, int64_t grid_z,
    int64_t block_x, int64_t block_y, int64_t block_z,
    int32_t dynamic_shared_bytes, void *stream, void **params, void **extra);
/* A launch in thread-block clusters of cluster_x * cluster_y * cluster_z
 * blocks (Hopper and later; cuLaunchKernelEx). */
PRECRT_EXPORT precrt_status_t precrtGpuLaunchClusterKernel(
    void *function, int64_t cluster_x, int64_t cluster_y, int64_t cluster_z,
    int64_t grid_x, int64_t grid_y, int64_t grid_z, int64_t block_x,
    int64_t block_y, int64_t block_z, int32_t dynamic_shared_bytes,
    void *stream, void **params, void **extra);

#ifdef __cplusplus
}
#endif

#endif /* PRECRT_GPU_H */
