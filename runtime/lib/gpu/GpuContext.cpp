//===- GpuContext.cpp - The calling thread's CUDA context -----------------===//

#include "gpu/GpuContext.h"

#include "core/Error.h"

#include <mutex>
#include <vector>

namespace precrt {
namespace cuda {
namespace {
thread_local int threadDevice = 0;
} // namespace

int currentDevice() { return threadDevice; }
void setCurrentDevice(int device) { threadDevice = device; }

precrt_status_t ScopedContext::enter() {
  api_ = driver();
  if (!api_)
    return PRECRT_ERROR_UNAVAILABLE;
  // Primary contexts are retained once per device and kept for the process.
  static std::mutex mutex;
  static std::vector<CUcontext> primaryContexts;
  CUcontext context = nullptr;
  {
    std::lock_guard<std::mutex> lock(mutex);
    int device = threadDevice;
    if (device < 0)
      return fail(PRECRT_ERROR_INVALID_ARGUMENT, "GPU device %d", device);
    if (size_t(device) >= primaryContexts.size())
      primaryContexts.resize(device + 1, nullptr);
    if (!primaryContexts[device]) {
      CUdevice handle;
      CUresult result = api_->cuDeviceGet(&handle, device);
      if (result != CUDA_SUCCESS)
        return driverFailure(*api_, result, "cuDeviceGet");
      result = api_->cuDevicePrimaryCtxRetain(&primaryContexts[device], handle);
      if (result != CUDA_SUCCESS)
        return driverFailure(*api_, result, "cuDevicePrimaryCtxRetain");
    }
    context = primaryContexts[device];
  }
  CUresult result = api_->cuCtxPushCurrent(context);
  if (result != CUDA_SUCCESS)
    return driverFailure(*api_, result, "cuCtxPushCurrent");
  pushed_ = true;
  return PRECRT_SUCCESS;
}

ScopedContext::~ScopedContext() {
  if (pushed_)
    api_->cuCtxPopCurrent(nullptr);
}

} // namespace cuda
} // namespace precrt
