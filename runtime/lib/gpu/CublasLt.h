//===- CublasLt.h - cuBLASLt, loaded at run time ----------------*- C++ -*-===//
//
// precrt never links cuBLASLt: libcublasLt.so.13 (or .12, or the path in
// PRECRT_CUBLASLT_LIBRARY) is opened with dlopen on the first GPU gemm, its
// version checked before anything else is resolved. The types and constants
// used are declared here with the values of NVIDIA's cublasLt.h,
// cublas_api.h and library_types.h, so precrt builds without CUDA.
//
//===----------------------------------------------------------------------===//

#ifndef PRECRT_LIB_GPU_CUBLASLT_H
#define PRECRT_LIB_GPU_CUBLASLT_H

#include "gpu/CudaDriver.h"

#include <cstddef>
#include <cstdint>

namespace precrt {
namespace cublaslt {

using cublasStatus_t = int;
using cudaDataType_t = int;
using cublasComputeType_t = int;
using cublasLtHandle_t = struct cublasLtContext *;
using cublasLtMatmulDesc_t = struct cublasLtMatmulDescOpaque *;
using cublasLtMatrixLayout_t = struct cublasLtMatrixLayoutOpaque *;
using cublasLtMatmulPreference_t = struct cublasLtMatmulPreferenceOpaque *;
using cudaStream_t = cuda::CUstream;

struct cublasLtMatmulAlgo_t {
  uint64_t data[8];
};
struct cublasLtMatmulHeuristicResult_t {
  cublasLtMatmulAlgo_t algo;
  size_t workspaceSize;
  cublasStatus_t state;
  float wavesCount;
  int reserved[4];
};
static_assert(sizeof(cublasLtMatmulHeuristicResult_t) == 96,
              "layout of cublasLt.h");

constexpr cublasStatus_t CUBLAS_STATUS_SUCCESS = 0;
constexpr cublasStatus_t CUBLAS_STATUS_NOT_SUPPORTED = 15;

// cudaDataType_t (library_types.h).
constexpr cudaDataType_t CUDA_R_32F = 0;
constexpr cudaDataType_t CUDA_R_16F = 2;
constexpr cudaDataType_t CUDA_R_16BF = 14;
constexpr cudaDataType_t CUDA_R_8F_E4M3 = 28;
constexpr cudaDataType_t CUDA_R_8F_E5M2 = 29;

// cublasComputeType_t: f32 products and sums. The _FAST_ variants (TF32,
// 16F, 16BF) round inputs, which prec's contract allows only where a
// program's #prec.reduced_precision says tf32 (and never 16F or 16BF).
constexpr cublasComputeType_t CUBLAS_COMPUTE_32F = 68;
constexpr cublasComputeType_t CUBLAS_COMPUTE_32F_FAST_TF32 = 77;

// cublasOperation_t.
constexpr int32_t CUBLAS_OP_N = 0;
constexpr int32_t CUBLAS_OP_T = 1;

// cublasLtMatmulDescAttributes_t.
constexpr int CUBLASLT_MATMUL_DESC_TRANSA = 3;
constexpr int CUBLASLT_MATMUL_DESC_TRANSB = 4;
constexpr int CUBLASLT_MATMUL_DESC_A_SCALE_POINTER = 17;
constexpr int CUBLASLT_MATMUL_DESC_B_SCALE_POINTER = 18;
// int8_t: 0 (the default) promotes fp8 partial sums to f32 periodically.
constexpr int CUBLASLT_MATMUL_DESC_FAST_ACCUM = 25;

// cublasLtMatrixLayoutAttribute_t.
constexpr int CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT = 5;          // int32_t
constexpr int CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET = 6; // int64_t

// cublasLtMatmulPreferenceAttributes_t.
constexpr int CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES = 1;   // uint64_t
constexpr int CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK = 3; // uint32_t
// uint32_t each, default 256: the alignment the heuristic may assume of the
// A, B, C and D pointers.
constexpr int CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES = 5;

// cublasLtReductionScheme_t: how split-K partial sums are combined.
// INPLACE and OUTPUT_TYPE sum in the output's type (bf16 / f16 partial
// sums); COMPUTE_TYPE sums in f32.
constexpr uint32_t CUBLASLT_REDUCTION_SCHEME_INPLACE = 1;
constexpr uint32_t CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE = 2;
constexpr uint32_t CUBLASLT_REDUCTION_SCHEME_OUTPUT_TYPE = 4;

/// cuBLASLt 12.0 or later (cublasLtGetVersion: major * 10000 + minor * 100
/// + patch).
constexpr size_t kMinimumVersion = 120000;

struct CublasLtApi {
  size_t version;
  size_t (*cublasLtGetVersion)();
  const char *(*cublasLtGetStatusString)(cublasStatus_t);
  cublasStatus_t (*cublasLtCreate)(cublasLtHandle_t *);
  cublasStatus_t (*cublasLtDestroy)(cublasLtHandle_t);
  cublasStatus_t (*cublasLtMatmulDescCreate)(cublasLtMatmulDesc_t *,
                                             cublasComputeType_t,
                                             cudaDataType_t);
  cublasStatus_t (*cublasLtMatmulDescDestroy)(cublasLtMatmulDesc_t);
  cublasStatus_t (*cublasLtMatmulDescSetAttribute)(cublasLtMatmulDesc_t, int,
                                                   const void *, size_t);
  cublasStatus_t (*cublasLtMatrixLayoutCreate)(cublasLtMatrixLayout_t *,
                                               cudaDataType_t, uint64_t,
                                               uint64_t, int64_t);
  cublasStatus_t (*cublasLtMatrixLayoutDestroy)(cublasLtMatrixLayout_t);
  cublasStatus_t (*cublasLtMatrixLayoutSetAttribute)(cublasLtMatrixLayout_t,
                                                     int, const void *, size_t);
  cublasStatus_t (*cublasLtMatmulPreferenceCreate)(
      cublasLtMatmulPreference_t *);
  cublasStatus_t (*cublasLtMatmulPreferenceDestroy)(cublasLtMatmulPreference_t);
  cublasStatus_t (*cublasLtMatmulPreferenceSetAttribute)(
      cublasLtMatmulPreference_t, int, const void *, size_t);
  cublasStatus_t (*cublasLtMatmulAlgoGetHeuristic)(
      cublasLtHandle_t, cublasLtMatmulDesc_t, cublasLtMatrixLayout_t,
      cublasLtMatrixLayout_t, cublasLtMatrixLayout_t, cublasLtMatrixLayout_t,
      cublasLtMatmulPreference_t, int, cublasLtMatmulHeuristicResult_t *,
      int *);
  cublasStatus_t (*cublasLtMatmul)(cublasLtHandle_t, cublasLtMatmulDesc_t,
                                   const void *, const void *,
                                   cublasLtMatrixLayout_t, const void *,
                                   cublasLtMatrixLayout_t, const void *,
                                   const void *, cublasLtMatrixLayout_t, void *,
                                   cublasLtMatrixLayout_t,
                                   const cublasLtMatmulAlgo_t *, void *, size_t,
                                   cudaStream_t);
};

/// The loaded library, or nullptr with the thread's error saying why
/// ("cuBLASLt unavailable: ...").
const CublasLtApi *library();

} // namespace cublaslt
} // namespace precrt

#endif // PRECRT_LIB_GPU_CUBLASLT_H
