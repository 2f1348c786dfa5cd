/*===- precrt/mgpu.h - Entry points of MLIR's CUDA runtime wrappers -*- C -*-===*\
 *
 * The functions that MLIR's gpu-to-llvm lowering (LLVM 22) emits calls to,
 * with the signatures of mlir/lib/ExecutionEngine/CudaRuntimeWrappers.cpp,
 * so that upstream-lowered GPU code links and runs against precrt instead of
 * libmlir_cuda_runtime. Implemented over precrt/gpu.h: failures print a line
 * to stderr (as upstream does) and set precrtGetLastErrorMessage(); functions
 * returning a handle return NULL on failure.
 *
\*===----------------------------------------------------------------------===*/

#ifndef PRECRT_MGPU_H
#define PRECRT_MGPU_H

#include "precrt/precrt.h"

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

PRECRT_EXPORT void *mgpuModuleLoad(void *data, size_t gpuBlobSize);
PRECRT_EXPORT void *mgpuModuleLoadJIT(void *data, int optLevel,
                                      size_t assemblySize);
PRECRT_EXPORT void mgpuModuleUnload(void *module);
PRECRT_EXPORT void *mgpuModuleGetFunction(void *module, const char *name);
PRECRT_EXPORT void mgpuLaunchKernel(void *function, intptr_t gridX,
                                    intptr_t gridY, intptr_t gridZ,
                                    intptr_t blockX, intptr_t blockY,
                                    intptr_t blockZ, int32_t smem,
                                    void *stream, void **params, void **extra,
                                    size_t paramsCount);
PRECRT_EXPORT void mgpuLaunchClusterKernel(
    void *function, intptr_t clusterX, intptr_t clusterY, intptr_t clusterZ,
    intptr_t gridX, intptr_t gridY, intptr_t gridZ, intptr_t blockX,
    intptr_t blockY, intptr_t blockZ, int32_t smem, void *stream,
    void **params, void **extra, size_t paramsCount);
PRECRT_EXPORT void *mgpuStreamCreate(void);
PRECRT_EXPORT void mgpuStreamDestroy(void *stream);
PRECRT_EXPORT void mgpuStreamSynchronize(void *stream);
PRECRT_EXPORT void mgpuStreamWaitEvent(void *stream, void *event);
PRECRT_EXPORT void *mgpuEventCreate(void);
PRECRT_EXPORT void mgpuEventDestroy(void *event);
PRECRT_EXPORT void mgpuEventSynchronize(void *event);
PRECRT_EXPORT void mgpuEventRecord(void *event, void *stream);
PRECRT_EXPORT void *mgpuMemAlloc(uint64_t sizeBytes, void *stream,
                                 bool isHostShared);
PRECRT_EXPORT void mgpuMemFree(void *ptr, void *stream);
PRECRT_EXPORT void mgpuMemcpy(void *dst, void *src, size_t sizeBytes,
                              void *stream);
PRECRT_EXPORT void mgpuMemset32(void *dst, unsigned int value, size_t count,
                                void *stream);
PRECRT_EXPORT void mgpuMemset16(void *dst, unsigned short value, size_t count,
                                void *stream);
PRECRT_EXPORT void mgpuMemHostRegister(void *ptr, uint64_t sizeBytes);
/* `descriptor` points to a ranked memref descriptor of rank `rank`
 * ({allocated, aligned, offset, sizes[rank], strides[rank]}). */
PRECRT_EXPORT void mgpuMemHostRegisterMemRef(int64_t rank, void *descriptor,
                                             int64_t elementSizeBytes);
PRECRT_EXPORT void mgpuMemHostUnregister(void *ptr);
PRECRT_EXPORT void mgpuMemHostUnregisterMemRef(int64_t rank, void *descriptor,
                                               int64_t elementSizeBytes);
PRECRT_EXPORT void mgpuSetDefaultDevice(int32_t device);

#ifdef __cplusplus
}
#endif

#endif /* PRECRT_MGPU_H */
