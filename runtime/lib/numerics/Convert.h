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

/// Branch-free round-to-nearest-even f32 -> narrow with the results of
/// encodeNearestEven, written with selects and no variable shifts so that
/// loops vectorize even at SSE2.
///
/// bf16 shares f32's exponent range: adding 0x7FFF plus the kept lsb rounds,
/// and a carry moves into the exponent (up to infinity). Narrower formats:
/// - normal results: rebias the exponent and round the dropped bits the same
///   way;
/// - subnormal results: add a power of two whose ulp is the format's
///   subnormal step, so the FPU rounds (to nearest even, the default mode)
///   and the low bits of the sum are the result. The sum is a normal float,
///   so flush-to-zero cannot touch it, and f32 subnormal inputs are far
///   below half a step of any of these formats, so treating them as zero
///   (DAZ) changes nothing.
template <const NarrowFormat &Format>
inline uint32_t encodeBranchFree(uint32_t bits) {
  constexpr int kDropped = 23 - Format.mantissaBits;
  uint32_t absBits = bits & 0x7FFFFFFFu;
  uint32_t sign = (bits >> 31) << (Format.mantissaBits + Format.exponentBits);
  bool isNaN = absBits > 0x7F800000u;
  if constexpr (Format.exponentBits == 8) {
    uint32_t rounded =
        (bits + 0x7FFFu + ((bits >> kDropped) & 1u)) >> kDropped;
    return isNaN ? Format.canonicalNaNBits : rounded;
  } else {
    // Smallest f32 that rounds past the largest finite value: the largest
    // finite value plus half a spacing (its mantissa is odd, so the tie
    // rounds up too).
    constexpr uint32_t kMaxFiniteExponent =
        (Format.maxFiniteBits >> Format.mantissaBits) - Format.exponentBias +
        127;
    constexpr uint32_t kOverflowThreshold =
        ((kMaxFiniteExponent << 23) |
         ((Format.maxFiniteBits & ((1u << Format.mantissaBits) - 1))
          << kDropped)) +
        (1u << (kDropped - 1));
    constexpr uint32_t kMinNormalBits =
        uint32_t(127 + Format.minNormalExponent()) << 23;
    constexpr uint32_t kSubnormalMagicBits =
        uint32_t(127 + Format.minNormalExponent() - Format.mantissaBits + 23)
        << 23;

    uint32_t rebased =
        absBits - (uint32_t(127 - Format.exponentBias) << 23);
    uint32_t normal =
        (rebased + (1u << (kDropped - 1)) - 1 + ((absBits >> kDropped) & 1u)) >>
        kDropped;
    float sum = bitsToFloat(absBits) + bitsToFloat(kSubnormalMagicBits);
    uint32_t subnormal = floatBits(sum) - kSubnormalMagicBits;
    uint32_t magnitude = absBits < kMinNormalBits ? subnormal : normal;
    magnitude = absBits >= kOverflowThreshold ? Format.overflowBits() : magnitude;
    return isNaN ? Format.canonicalNaNBits : (sign | magnitude);
  }
}

/// Stochastic rounding as encodeStochastic, branch-free, for results in the
/// normal range of the format (and every result for bf16, whose subnormals
/// have the same number of dropped bits as its normals). Rounding up iff
/// r < floor(frac * 2^32) is rounding up iff the dropped bits exceed the top
/// bits of r, which adding (mask - top bits of r) and truncating computes.
/// Results below the smallest normal of f16 and fp8 are not handled here;
/// isStochasticFastPath tells which inputs are.
template <const NarrowFormat &Format>
inline uint32_t encodeStochasticNormal(uint32_t bits, uint32_t random) {
  constexpr int kDropped = 23 - Format.mantissaBits;
  constexpr uint32_t kMask = (1u << kDropped) - 1;
  uint32_t absBits = bits & 0x7FFFFFFFu;
  uint32_t sign = (bits >> 31) << (Format.mantissaBits + Format.exponentBits);
  bool isNaN = absBits > 0x7F800000u;
  uint32_t rebased = absBits - (uint32_t(127 - Format.exponentBias) << 23);
  uint32_t magnitude = (rebased + (kMask - (random >> (32 - kDropped)))) >> kDropped;
  if constexpr (Format.exponentBits != 8)
    magnitude = magnitude > Format.maxFiniteBits ? Format.overflowBits() : magnitude;
  return isNaN ? Format.canonicalNaNBits : (sign | magnitude);
}

template <const NarrowFormat &Format>
inline bool isStochasticFastPath(uint32_t bits) {
  constexpr uint32_t kMinNormalBits =
      uint32_t(127 + Format.minNormalExponent()) << 23;
  return Format.exponentBits == 8 || (bits & 0x7FFFFFFFu) >= kMinNormalBits;
}

} // namespace numerics
} // namespace precrt

#endif // PRECRT_LIB_NUMERICS_CONVERT_H
