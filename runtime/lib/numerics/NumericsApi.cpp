//===- NumericsApi.cpp - C entry points for buffer conversions ------------===//

#include "precrt/numerics.h"
#include "precrt/precrt.h"

#include "core/Error.h"

#include <algorithm>
#include <vector>

using namespace precrt;
using namespace precrt::numerics;

namespace {

bool isFloating(precrt_dtype_t dtype) {
  return unsigned(dtype) < PRECRT_NUM_DTYPES && dtype != PRECRT_DTYPE_BYTES;
}

/// Converts through f32 in cache-sized blocks. Exact except for the final
/// rounding, because every source reaching here widens to f32 exactly.
void convertThroughF32(const void *src, precrt_dtype_t srcDtype, void *dst,
                       precrt_dtype_t dstDtype, size_t count) {
  constexpr size_t kBlock = 4096;
  float wide[kBlock];
  size_t srcSize = precrtDtypeSize(srcDtype), dstSize = precrtDtypeSize(dstDtype);
  for (size_t begin = 0; begin < count; begin += kBlock) {
    size_t n = std::min(kBlock, count - begin);
    const char *from = static_cast<const char *>(src) + begin * srcSize;
    char *to = static_cast<char *>(dst) + begin * dstSize;
    if (srcDtype == PRECRT_DTYPE_F32)
      std::copy_n(reinterpret_cast<const float *>(from), n, wide);
    else
      decodeBuffer(from, wide, n, srcDtype);
    if (dstDtype == PRECRT_DTYPE_F64)
      std::copy_n(wide, n, reinterpret_cast<double *>(to));
    else if (dstDtype == PRECRT_DTYPE_F32)
      std::copy_n(wide, n, reinterpret_cast<float *>(to));
    else
      encodeBuffer(wide, to, n, dstDtype);
  }
}

} // namespace

extern "C" {

precrt_status_t precrtConvert(const void *src, precrt_dtype_t src_dtype,
                              void *dst, precrt_dtype_t dst_dtype,
                              size_t count) {
  if (!isFloating(src_dtype) || !isFloating(dst_dtype))
    return fail(PRECRT_ERROR_INVALID_ARGUMENT,
                "precrtConvert: dtypes %d -> %d are not both floating",
                int(src_dtype), int(dst_dtype));
  if (count && (!src || !dst))
    return fail(PRECRT_ERROR_INVALID_ARGUMENT, "precrtConvert: null buffer");
  if (src_dtype == dst_dtype) {
    std::copy_n(static_cast<const char *>(src),
                count * precrtDtypeSize(src_dtype), static_cast<char *>(dst));
    return PRECRT_SUCCESS;
  }
  if (src_dtype == PRECRT_DTYPE_F64) {
    if (dst_dtype != PRECRT_DTYPE_F32)
      return fail(PRECRT_ERROR_INVALID_ARGUMENT,
                  "precrtConvert: f64 -> %s through f32 would round twice; "
                  "only f64 -> f32 is supported from f64",
                  precrtDtypeName(dst_dtype));
    const double *from = static_cast<const double *>(src);
    float *to = static_cast<float *>(dst);
    for (size_t i = 0; i < count; ++i)
      to[i] = static_cast<float>(from[i]);
    return PRECRT_SUCCESS;
  }
  convertThroughF32(src, src_dtype, dst, dst_dtype, count);
  return PRECRT_SUCCESS;
}

precrt_status_t precrtConvertF32Stochastic(const float *src, void *dst,
                                           precrt_dtype_t dst_dtype,
                                           size_t count, uint64_t seed,
                                           uint64_t offset) {
  if (!narrowFormatOf(dst_dtype))
    return fail(PRECRT_ERROR_INVALID_ARGUMENT,
                "precrtConvertF32Stochastic: destination dtype %d is not "
                "f16, bf16 or fp8",
                int(dst_dtype));
  if (count && (!src || !dst))
    return fail(PRECRT_ERROR_INVALID_ARGUMENT,
                "precrtConvertF32Stochastic: null buffer");
  encodeBufferStochastic(src, dst, count, dst_dtype, seed, offset);
  return PRECRT_SUCCESS;
}

} // extern "C"
