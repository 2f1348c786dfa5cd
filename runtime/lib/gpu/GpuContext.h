//===- GpuContext.h - The calling thread's CUDA context ---------*- C++ -*-===//

#ifndef PRECRT_LIB_GPU_GPUCONTEXT_H
#define PRECRT_LIB_GPU_GPUCONTEXT_H

#include "gpu/CudaDriver.h"

namespace precrt {
namespace cuda {

/// The calling thread's device (precrtGpuSetDevice / mgpuSetDefaultDevice).
int currentDevice();
void setCurrentDevice(int device);

/// Makes the primary context of the thread's device current for its
/// lifetime, as MLIR's CUDA wrappers do around every driver call.
class ScopedContext {
public:
  ScopedContext() = default;
  ~ScopedContext();
  ScopedContext(const ScopedContext &) = delete;
  ScopedContext &operator=(const ScopedContext &) = delete;

  /// Loads the driver if needed and pushes the context; on failure the
  /// thread's error says why.
  precrt_status_t enter();
  const DriverApi &api() const { return *api_; }

private:
  const DriverApi *api_ = nullptr;
  bool pushed_ = false;
};

} // namespace cuda
} // namespace precrt

#endif // PRECRT_LIB_GPU_GPUCONTEXT_H
