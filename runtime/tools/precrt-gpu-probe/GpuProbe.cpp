//===- GpuProbe.cpp - Whether a CUDA GPU answers here ---------------------===//
//
// precrt-gpu-probe exits 0 and prints one line per device (name, compute
// capability, multiprocessor count) when the CUDA driver loads and has at
// least one device; otherwise it prints why not and exits 1. prec's lit
// configuration runs it to decide the cuda-gpu feature, so it must answer on
// any machine: it loads the driver the way precrt does (dlopen, version
// check, PRECRT_CUDA_DRIVER_LIBRARY) and needs neither MPI nor NCCL.
//
//===----------------------------------------------------------------------===//

#include "precrt/gpu.h"

#include "core/Error.h"

#include <cstdio>

int main() {
  int32_t devices = 0;
  if (precrtGpuGetDeviceCount(&devices) != PRECRT_SUCCESS) {
    std::fprintf(stderr, "precrt-gpu-probe: no GPU: %s\n",
                 precrt::lastErrorMessage());
    return 1;
  }
  if (devices <= 0) {
    std::fprintf(stderr, "precrt-gpu-probe: no GPU: the CUDA driver reports no "
                         "device\n");
    return 1;
  }
  for (int32_t device = 0; device < devices; ++device) {
    precrt_gpu_device_properties properties;
    if (precrtGpuGetDeviceProperties(device, &properties) != PRECRT_SUCCESS) {
      std::fprintf(stderr, "precrt-gpu-probe: device %d: %s\n", device,
                   precrt::lastErrorMessage());
      return 1;
    }
    std::printf("device %d: %s, compute capability %d.%d, %d multiprocessors\n",
                device, properties.name, properties.compute_capability_major,
                properties.compute_capability_minor,
                properties.multiprocessor_count);
  }
  return 0;
}
