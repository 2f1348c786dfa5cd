//===- Bf16Gemm.h - bf16 contractions in one order on every host -*- C++ -*-===//
//
// C += A x B for bf16 A and B and an f32 C, each C element summing its
// products in one order, whatever the CPU: the pairs of k in increasing
// order and, inside a pair, the odd product first,
//
//   c = fma(a[2q+1], b[2q+1], c);  c = fma(a[2q], b[2q], c);
//
// every fma rounded to nearest even, subnormals kept. That is the order of
// AVX512_BF16's VDPBF16PS, so where the CPU has it the kernel uses it
// (twice the products per instruction of f32 FMAs), wherever no subnormal
// can arise, since VDPBF16PS flushes them; elsewhere f32 FMAs on AVX-512F
// or AVX2 vectors, or std::fma one element at a time, give the same bits.
//
//===----------------------------------------------------------------------===//

#ifndef PRECRT_LIB_KERNELS_BF16GEMM_H
#define PRECRT_LIB_KERNELS_BF16GEMM_H

#include "precrt/precrt.h"

#include <cstdint>
#include <string>

namespace precrt {
namespace kernels {

/// A bf16 matrix: element (i, j) is data[i * rowStride + j * colStride].
struct Bf16Matrix {
  const uint16_t *data;
  int64_t rowStride, colStride;
};

/// The implementations, fastest first. Each computes the same bits.
enum class Bf16GemmKernel {
  Avx512Bf16, // VDPBF16PS where no subnormal can arise, else Avx512
  Avx512,     // f32 FMAs on 16 lanes
  Avx2,       // f32 FMAs on 8 lanes
  Scalar,     // std::fma
};

/// The kernel bf16Gemm uses: the fastest the CPU runs, or the one
/// PRECRT_BF16_GEMM_KERNEL names (avx512bf16, avx512, avx2, scalar).
/// Fails with a message for a name it does not know or a kernel the CPU
/// cannot run.
precrt_status_t selectedBf16GemmKernel(Bf16GemmKernel &kernel,
                                       std::string &message);

/// Whether the CPU runs `kernel`.
bool cpuRuns(Bf16GemmKernel kernel);

/// "avx512bf16", "avx512", "avx2" or "scalar".
const char *bf16GemmKernelName(Bf16GemmKernel kernel);

/// C += A x B with `kernel` (which the CPU must run): A m x k, B k x n, C
/// m x n f32, row-major with leading dimension ldc.
void bf16Gemm(Bf16GemmKernel kernel, int64_t m, int64_t n, int64_t k,
              const Bf16Matrix &a, const Bf16Matrix &b, float *c,
              int64_t ldc);

} // namespace kernels
} // namespace precrt

#endif // PRECRT_LIB_KERNELS_BF16GEMM_H
