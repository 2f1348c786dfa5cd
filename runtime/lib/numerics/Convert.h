//===- Convert.h - Inline conversion kernels shared by the runtime -*- C++ -*-===//
//
// The branch-free encoder behind the buffer kernels, inline so that the
// reduction loops of the backends vectorize with it too.
//
//===----------------------------------------------------------------------===//

#ifndef PRECRT_LIB_NUMERICS_CONVERT_H
#define PRECRT_LIB_NUMERICS_CONVERT_H

#include "precrt/numerics.h"

namespace precrt {
namespace numerics {

/// Branch-free round-to-nearest-even f32 -> narrow; same results as
/// encodeNearestEven, written with selects so that loops vectorize.
template <const NarrowFormat &Format>
inline uint32_t encodeBranchFree(uint32_t bits) {
  constexpr int kMantissa = Format.mantissaBits;
  constexpr int kMinNormal = Format.minNormalExponent();
  uint32_t absBits = bits & 0x7FFFFFFFu;
  uint32_t sign = (bits >> 31) << (Format.mantissaBits + Format.exponentBits);
  int32_t biased = static_cast<int32_t>(absBits >> 23);
  uint32_t significand = (absBits & 0x7FFFFFu) | (biased != 0 ? 0x800000u : 0);
  int32_t exponent = (biased != 0 ? biased : 1) - 127;
  int32_t belowNormal = kMinNormal - exponent;
  int32_t drop = 23 - kMantissa + (belowNormal > 0 ? belowNormal : 0);
  drop = drop < 31 ? drop : 31; // beyond 25 everything rounds to zero anyway
  uint32_t kept = significand >> drop;
  uint32_t remainder = significand & ((1u << drop) - 1);
  uint32_t half = 1u << (drop - 1);
  kept += (remainder > half) | ((remainder == half) & kept);
  uint32_t exponentField =
      static_cast<uint32_t>(exponent + Format.exponentBias - 1) << kMantissa;
  uint32_t magnitude = (belowNormal > 0 ? 0 : exponentField) + kept;
  bool overflows = magnitude > Format.maxFiniteBits || absBits == 0x7F800000u;
  magnitude = overflows ? Format.overflowBits() : magnitude;
  return absBits > 0x7F800000u ? Format.canonicalNaNBits : (sign | magnitude);
}

} // namespace numerics
} // namespace precrt

#endif // PRECRT_LIB_NUMERICS_CONVERT_H
