//===- MlirGpuWrappers.cpp - MLIR's mgpu* entry points over precrt --------===//
//
// The signatures are those of mlir/lib/ExecutionEngine/CudaRuntimeWrappers.cpp
// (LLVM 22), which gpu-to-llvm lowers host code to. Like upstream, failures
// are reported on stderr, since these functions return no status; the message
// is also the thread's precrtGetLastErrorMessage().
//
//===----------------------------------------------------------------------===//

#include "precrt/gpu.h"
#include "precrt/mgpu.h"

#include "core/Error.h"

#include <cstdio>

using namespace precrt;

namespace {

void report(precrt_status_t status, const char *entryPoint) {
  if (status == PRECRT_SUCCESS)
    return;
  std::fprintf(stderr, "precrt: %s failed: %s\n", entryPoint,
               precrtGetLastErrorMessage());
  recordGpuWrapperFailure(status, entryPoint);
}

/// The leading fields of MLIR's ranked memref descriptor; sizes and strides
/// follow, `rank` of each.
struct MemRefDescriptorPrefix {
  char *allocated;
  char *aligned;
  int64_t offset;
  int64_t sizesAndStrides[1];
};

/// Bytes spanned by a memref, from its sizes (dense, as upstream requires).
uint64_t memrefBytes(int64_t rank, const MemRefDescriptorPrefix *descriptor,
                     int64_t elementSizeBytes) {
  uint64_t elements = 1;
  for (int64_t dim = 0; dim < rank; ++dim)
    elements *= static_cast<uint64_t>(descriptor->sizesAndStrides[dim]);
  return elements * static_cast<uint64_t>(elementSizeBytes);
}

} // namespace

extern "C" {

void *mgpuModuleLoad(void *data, size_t /*gpuBlobSize*/) {
  void *module = nullptr;
  report(precrtGpuModuleLoad(data, &module), "mgpuModuleLoad");
  return module;
}

void *mgpuModuleLoadJIT(void *data, int optLevel, size_t /*assemblySize*/) {
  void *module = nullptr;
  report(precrtGpuModuleLoadJIT(static_cast<const char *>(data), optLevel,
                                &module),
         "mgpuModuleLoadJIT");
  return module;
}

void mgpuModuleUnload(void *module) {
  report(precrtGpuModuleUnload(module), "mgpuModuleUnload");
}

void *mgpuModuleGetFunction(void *module, const char *name) {
  void *function = nullptr;
  report(precrtGpuModuleGetFunction(module, name, &function),
         "mgpuModuleGetFunction");
  return function;
}

void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY,
                      intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                      intptr_t blockZ, int32_t smem, void *stream,
                      void **params, void **extra, size_t /*paramsCount*/) {
  report(precrtGpuLaunchKernel(function, gridX, gridY, gridZ, blockX, blockY,
                               blockZ, smem, stream, params, extra),
         "mgpuLaunchKernel");
}

void mgpuLaunchClusterKernel(void *function, intptr_t clusterX,
                             intptr_t clusterY, intptr_t clusterZ,
                             intptr_t gridX, intptr_t gridY, intptr_t gridZ,
                             intptr_t blockX, intptr_t blockY, intptr_t blockZ,
                             int32_t smem, void *stream, void **params,
                             void **extra, size_t /*paramsCount*/) {
  report(precrtGpuLaunchClusterKernel(function, clusterX, clusterY, clusterZ,
                                      gridX, gridY, gridZ, blockX, blockY,
                                      blockZ, smem, stream, params, extra),
         "mgpuLaunchClusterKernel");
}

void *mgpuStreamCreate(void) {
  void *stream = nullptr;
  report(precrtGpuStreamCreate(&stream), "mgpuStreamCreate");
  return stream;
}

void mgpuStreamDestroy(void *stream) {
  report(precrtGpuStreamDestroy(stream), "mgpuStreamDestroy");
}

void mgpuStreamSynchronize(void *stream) {
  report(precrtGpuStreamSynchronize(stream), "mgpuStreamSynchronize");
}

void mgpuStreamWaitEvent(void *stream, void *event) {
  report(precrtGpuStreamWaitEvent(stream, event), "mgpuStreamWaitEvent");
}

void *mgpuEventCreate(void) {
  void *event = nullptr;
  report(precrtGpuEventCreate(&event), "mgpuEventCreate");
  return event;
}

void mgpuEventDestroy(void *event) {
  report(precrtGpuEventDestroy(event), "mgpuEventDestroy");
}

void mgpuEventSynchronize(void *event) {
  report(precrtGpuEventSynchronize(event), "mgpuEventSynchronize");
}

void mgpuEventRecord(void *event, void *stream) {
  report(precrtGpuEventRecord(event, stream), "mgpuEventRecord");
}

// Unlike upstream, allocations on a stream are stream-ordered where the
// device allows it: generated code allocates its buffers every step, and
// cuMemAlloc/cuMemFree would synchronize the device each time.
void *mgpuMemAlloc(uint64_t sizeBytes, void *stream, bool isHostShared) {
  void *ptr = nullptr;
  if (isHostShared)
    report(precrtGpuMallocManaged(&ptr, sizeBytes), "mgpuMemAlloc");
  else
    report(precrtGpuMallocAsync(&ptr, sizeBytes, stream), "mgpuMemAlloc");
  return ptr;
}

void mgpuMemFree(void *ptr, void *stream) {
  report(precrtGpuFreeAsync(ptr, stream), "mgpuMemFree");
}

void mgpuMemcpy(void *dst, void *src, size_t sizeBytes, void *stream) {
  report(precrtGpuMemcpyAsync(dst, src, sizeBytes, stream), "mgpuMemcpy");
}

void mgpuMemset32(void *dst, unsigned int value, size_t count, void *stream) {
  report(precrtGpuMemset32Async(dst, value, count, stream), "mgpuMemset32");
}

void mgpuMemset16(void *dst, unsigned short value, size_t count,
                  void *stream) {
  report(precrtGpuMemset16Async(dst, value, count, stream), "mgpuMemset16");
}

void mgpuMemHostRegister(void *ptr, uint64_t sizeBytes) {
  report(precrtGpuHostRegister(ptr, sizeBytes), "mgpuMemHostRegister");
}

void mgpuMemHostRegisterMemRef(int64_t rank, void *descriptor,
                               int64_t elementSizeBytes) {
  auto *memref = static_cast<const MemRefDescriptorPrefix *>(descriptor);
  char *base = memref->aligned + memref->offset * elementSizeBytes;
  report(precrtGpuHostRegister(base,
                               memrefBytes(rank, memref, elementSizeBytes)),
         "mgpuMemHostRegisterMemRef");
}

void mgpuMemHostUnregister(void *ptr) {
  report(precrtGpuHostUnregister(ptr), "mgpuMemHostUnregister");
}

void mgpuMemHostUnregisterMemRef(int64_t /*rank*/, void *descriptor,
                                 int64_t elementSizeBytes) {
  auto *memref = static_cast<const MemRefDescriptorPrefix *>(descriptor);
  report(precrtGpuHostUnregister(memref->aligned +
                                 memref->offset * elementSizeBytes),
         "mgpuMemHostUnregisterMemRef");
}

void mgpuSetDefaultDevice(int32_t device) {
  report(precrtGpuSetDevice(device), "mgpuSetDefaultDevice");
}

} // extern "C"
