//===- GpuMatmul.h - Contractions of GPU code through cuBLASLt --*- C++ -*-===//

#ifndef PRECRT_LIB_GPU_GPUMATMUL_H
#define PRECRT_LIB_GPU_GPUMATMUL_H

#include "kernels/Matmul.h"

namespace precrt {
namespace cuda {

/// C[b] += A[b] x B[b] on device buffers (times `aScale` and `bScale`, device
/// pointers to an f32 each, for fp8 A and B), enqueued on `stream`, through
/// cuBLASLt under precrtCompiledMatmul's contract, or below it as far as
/// the precrt_reduced_precision_t bits of `reducedPrecision` allow (see
/// precrtCompiledGpuMatmul in precrt/compiled.h). On failure the thread's
/// error says why.
precrt_status_t gpuMatmul(int64_t batch, int64_t m, int64_t n, int64_t k,
                          const kernels::MatrixOperand &a,
                          const kernels::MatrixOperand &b,
                          const kernels::MatrixOperand &c, const void *aScale,
                          const void *bScale, int32_t reducedPrecision,
                          void *stream);

} // namespace cuda
} // namespace precrt

#endif // PRECRT_LIB_GPU_GPUMATMUL_H
