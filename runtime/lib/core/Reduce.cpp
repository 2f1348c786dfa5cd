//===- Reduce.cpp - Element-wise reduction steps --------------------------===//
//
// Narrow dtypes are widened to f32, combined, and rounded back (RNE). f32 has
// at least 2p+2 bits for every narrow format's p, so the f32 sum rounded to
// the narrow format equals the correctly rounded narrow sum (no double
// rounding error), which is what NCCL's native half/bf16/fp8 kernels compute.
//
//===----------------------------------------------------------------------===//

#include "core/Reduce.h"

#include "numerics/Convert.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

using namespace precrt::numerics;

namespace precrt {
namespace {

template <typename T> struct Combine {
  static T apply(T a, T b, precrt_reduction_t reduction) {
    switch (reduction) {
    case PRECRT_REDUCTION_MAX:
      return (a != a || b != b) ? std::numeric_limits<T>::quiet_NaN()
                                : (a > b ? a : b);
    case PRECRT_REDUCTION_MIN:
      return (a != a || b != b) ? std::numeric_limits<T>::quiet_NaN()
                                : (a < b ? a : b);
    default:
      return a + b;
    }
  }
};

template <typename T>
void accumulateWide(T *__restrict acc, const T *__restrict src, size_t count,
                    precrt_reduction_t reduction) {
  switch (reduction) {
  case PRECRT_REDUCTION_MAX:
    for (size_t i = 0; i < count; ++i)
      acc[i] = Combine<T>::apply(acc[i], src[i], PRECRT_REDUCTION_MAX);
    return;
  case PRECRT_REDUCTION_MIN:
    for (size_t i = 0; i < count; ++i)
      acc[i] = Combine<T>::apply(acc[i], src[i], PRECRT_REDUCTION_MIN);
    return;
  default:
    for (size_t i = 0; i < count; ++i)
      acc[i] += src[i];
  }
}


/// Narrow values in blocks: widen both operands, combine in f32, round back.
template <const NarrowFormat &Format, typename Narrow>
void accumulateNarrow(Narrow *__restrict acc, const Narrow *__restrict src,
                      size_t count, precrt_reduction_t reduction,
                      precrt_dtype_t dtype) {
  constexpr size_t kBlock = 1024;
  float wideAcc[kBlock], wideSrc[kBlock];
  for (size_t begin = 0; begin < count; begin += kBlock) {
    size_t n = count - begin < kBlock ? count - begin : kBlock;
    decodeBuffer(acc + begin, wideAcc, n, dtype);
    decodeBuffer(src + begin, wideSrc, n, dtype);
    if (reduction == PRECRT_REDUCTION_SUM || reduction == PRECRT_REDUCTION_AVG) {
      for (size_t i = 0; i < n; ++i)
        wideAcc[i] += wideSrc[i];
    } else {
      for (size_t i = 0; i < n; ++i)
        wideAcc[i] = Combine<float>::apply(wideAcc[i], wideSrc[i], reduction);
    }
    for (size_t i = 0; i < n; ++i)
      acc[begin + i] =
          static_cast<Narrow>(encodeBranchFree<Format>(floatBits(wideAcc[i])));
  }
}

template <const NarrowFormat &Format, typename Narrow>
void divideNarrow(Narrow *buf, size_t count, int divisor,
                  precrt_dtype_t dtype) {
  constexpr size_t kBlock = 1024;
  float wide[kBlock];
  float d = static_cast<float>(divisor);
  for (size_t begin = 0; begin < count; begin += kBlock) {
    size_t n = count - begin < kBlock ? count - begin : kBlock;
    decodeBuffer(buf + begin, wide, n, dtype);
    for (size_t i = 0; i < n; ++i)
      buf[begin + i] =
          static_cast<Narrow>(encodeBranchFree<Format>(floatBits(wide[i] / d)));
  }
}

} // namespace

void accumulate(void *acc, const void *src, size_t count, precrt_dtype_t dtype,
                precrt_reduction_t reduction) {
  switch (dtype) {
  case PRECRT_DTYPE_F64:
    return accumulateWide(static_cast<double *>(acc),
                          static_cast<const double *>(src), count, reduction);
  case PRECRT_DTYPE_F32:
    return accumulateWide(static_cast<float *>(acc),
                          static_cast<const float *>(src), count, reduction);
  case PRECRT_DTYPE_BF16:
    return accumulateNarrow<kBF16>(static_cast<uint16_t *>(acc),
                                   static_cast<const uint16_t *>(src), count,
                                   reduction, dtype);
  case PRECRT_DTYPE_F16:
    return accumulateNarrow<kF16>(static_cast<uint16_t *>(acc),
                                  static_cast<const uint16_t *>(src), count,
                                  reduction, dtype);
  case PRECRT_DTYPE_F8E4M3FN:
    return accumulateNarrow<kF8E4M3FN>(static_cast<uint8_t *>(acc),
                                       static_cast<const uint8_t *>(src),
                                       count, reduction, dtype);
  case PRECRT_DTYPE_F8E5M2:
    return accumulateNarrow<kF8E5M2>(static_cast<uint8_t *>(acc),
                                     static_cast<const uint8_t *>(src), count,
                                     reduction, dtype);
  case PRECRT_DTYPE_BYTES:
    return; // rejected by the API layer
  }
}

void divideInPlace(void *buf, size_t count, precrt_dtype_t dtype, int divisor) {
  switch (dtype) {
  case PRECRT_DTYPE_F64: {
    double *values = static_cast<double *>(buf);
    for (size_t i = 0; i < count; ++i)
      values[i] /= divisor;
    return;
  }
  case PRECRT_DTYPE_F32: {
    float *values = static_cast<float *>(buf);
    float d = static_cast<float>(divisor);
    for (size_t i = 0; i < count; ++i)
      values[i] /= d;
    return;
  }
  case PRECRT_DTYPE_BF16:
    return divideNarrow<kBF16>(static_cast<uint16_t *>(buf), count, divisor,
                               dtype);
  case PRECRT_DTYPE_F16:
    return divideNarrow<kF16>(static_cast<uint16_t *>(buf), count, divisor,
                              dtype);
  case PRECRT_DTYPE_F8E4M3FN:
    return divideNarrow<kF8E4M3FN>(static_cast<uint8_t *>(buf), count, divisor,
                                   dtype);
  case PRECRT_DTYPE_F8E5M2:
    return divideNarrow<kF8E5M2>(static_cast<uint8_t *>(buf), count, divisor,
                                 dtype);
  case PRECRT_DTYPE_BYTES:
    return;
  }
}

} // namespace precrt
