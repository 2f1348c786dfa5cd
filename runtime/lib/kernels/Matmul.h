//===- Matmul.h - contractions of compiled code -----------------*- C++ -*-===//
//
// C[b] += A[b] x B[b] on strided buffers of f32, bf16 or f16, accumulated in
// f32: precrt's bf16 kernel for two bf16 operands (Bf16Gemm.h), otherwise
// OpenBLAS's sgemm when it loads, a builtin kernel where it does not.
//
//===----------------------------------------------------------------------===//

#ifndef PRECRT_LIB_KERNELS_MATMUL_H
#define PRECRT_LIB_KERNELS_MATMUL_H

#include "precrt/precrt.h"

#include <cstdint>
#include <string>

namespace precrt {
namespace kernels {

/// One operand: `data` points at element (0, 0, 0); strides in elements.
struct MatrixOperand {
  precrt_dtype_t dtype;
  const void *data;
  int64_t batchStride, rowStride, colStride;
};

/// C[b] += A[b] x B[b] for b < batch, A m x k, B k x n, C m x n (C's data is
/// written through). A and B are f32, bf16, f16, f8E4M3FN or f8E5M2, C f32,
/// bf16 or f16; other dtypes and negative sizes fail with a message.
precrt_status_t matmul(int64_t batch, int64_t m, int64_t n, int64_t k,
                       const MatrixOperand &a, const MatrixOperand &b,
                       const MatrixOperand &c, std::string &message);

/// OpenBLAS's configuration string, or "builtin (<why OpenBLAS is not
/// used>)".
const char *matmulKernelName();

} // namespace kernels
} // namespace precrt

#endif // PRECRT_LIB_KERNELS_MATMUL_H
