//===- precrt/numerics.h - Reference float conversions ----------*- C++ -*-===//
//
// Bit-exact scalar references for conversions between f32 and the narrow
// floating formats prec moves on the wire (bf16, f16, f8E4M3FN, f8E5M2), the
// counter-based generator behind stochastic rounding, and the vectorized
// buffer kernels of the runtime that tests compare against these references.
//
// Rules (the same on every backend, CPU and GPU):
//  - Round-to-nearest-even with gradual underflow: subnormal inputs and
//    results are kept, never flushed to zero.
//  - Overflow: bf16 and f16 round to +-infinity (IEEE); f8E4M3FN and f8E5M2
//    saturate to +-the largest finite value, infinities included.
//  - NaN in gives the canonical quiet NaN of the format, sign cleared:
//    bf16 0x7FC0, f16 0x7E00, f8E4M3FN 0x7F, f8E5M2 0x7E. Payloads are not
//    preserved.
//  - Narrow to f32 is exact; a narrow NaN becomes a quiet f32 NaN, sign kept.
//  - Stochastic rounding of a finite x: let q be the spacing of the target
//    format at |x| (its ulp, or the subnormal step), lo = |x| rounded down to a
//    multiple of q and frac = (|x| - lo) / q in [0, 1). With a uniform 32-bit
//    word r, the magnitude rounds up iff r < floor(frac * 2^32). Overflow,
//    infinity and NaN follow the round-to-nearest rules above.
//
//===----------------------------------------------------------------------===//

#ifndef PRECRT_NUMERICS_H
#define PRECRT_NUMERICS_H

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>

#include "precrt/precrt.h"

namespace precrt {
namespace numerics {

/// Layout of a narrow binary floating-point format.
struct NarrowFormat {
  int mantissaBits;
  int exponentBits;
  int exponentBias;
  /// Whether an all-ones exponent encodes infinities and NaNs (IEEE style).
  /// f8E4M3FN has no infinity: only S.1111.111 is NaN.
  bool ieeeSpecials;
  /// Overflow gives the largest finite value instead of infinity.
  bool saturates;
  uint32_t maxFiniteBits;
  uint32_t canonicalNaNBits;
  uint32_t infinityBits;

  constexpr int minNormalExponent() const { return 1 - exponentBias; }
  constexpr uint32_t signBit() const {
    return 1u << (mantissaBits + exponentBits);
  }
  constexpr uint32_t overflowBits() const {
    return saturates ? maxFiniteBits : infinityBits;
  }
};

inline constexpr NarrowFormat kBF16{7, 8, 127, true, false, 0x7F7F, 0x7FC0,
                                    0x7F80};
inline constexpr NarrowFormat kF16{10, 5, 15, true, false, 0x7BFF, 0x7E00,
                                   0x7C00};
inline constexpr NarrowFormat kF8E4M3FN{3, 4, 7, false, true, 0x7E, 0x7F, 0x7F};
inline constexpr NarrowFormat kF8E5M2{2, 5, 15, true, true, 0x7B, 0x7E, 0x7C};

inline uint32_t floatBits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

inline float bitsToFloat(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

namespace detail {

/// |x| of a finite f32 as significand * 2^(exponent - 23), significand < 2^24.
struct Unpacked {
  uint32_t significand;
  int exponent;
};

inline Unpacked unpackFinite(uint32_t absBits) {
  int biased = static_cast<int>(absBits >> 23);
  uint32_t fraction = absBits & 0x7FFFFFu;
  if (biased == 0)
    return {fraction, -126};
  return {fraction | 0x800000u, biased - 127};
}

/// NaN (absBits above infinity) gives the canonical NaN; infinity
/// overflows (to infinity, or the largest finite value for fp8).
inline uint32_t encodeNonFinite(uint32_t absBits, uint32_t sign,
                                const NarrowFormat &format) {
  return absBits > 0x7F800000u ? format.canonicalNaNBits
                               : (sign | format.overflowBits());
}

/// Number of low significand bits below the target's spacing at |x|.
inline int droppedBits(const NarrowFormat &format, int exponent) {
  int belowNormal = format.minNormalExponent() - exponent;
  return 23 - format.mantissaBits + (belowNormal > 0 ? belowNormal : 0);
}

/// Target bits from a magnitude already rounded to a multiple of the target's
/// spacing (`kept` units). A carry out of the mantissa lands in the exponent.
inline uint32_t packRounded(const NarrowFormat &format, int exponent,
                            uint64_t kept) {
  if (exponent < format.minNormalExponent())
    return static_cast<uint32_t>(kept); // subnormal (or the smallest normal)
  uint64_t exponentField =
      static_cast<uint64_t>(exponent + format.exponentBias - 1);
  uint64_t bits = (exponentField << format.mantissaBits) + kept;
  return bits > format.maxFiniteBits ? format.overflowBits()
                                     : static_cast<uint32_t>(bits);
}

} // namespace detail

/// Reference f32 -> narrow conversion, round-to-nearest-even.
inline uint32_t encodeNearestEven(float value, const NarrowFormat &format) {
  uint32_t bits = floatBits(value);
  uint32_t sign = (bits >> 31) ? format.signBit() : 0;
  uint32_t absBits = bits & 0x7FFFFFFFu;
  if (absBits >= 0x7F800000u)
    return detail::encodeNonFinite(absBits, sign, format);
  detail::Unpacked x = detail::unpackFinite(absBits);
  int drop = detail::droppedBits(format, x.exponent);
  if (drop >= 25) // |x| is below half the smallest subnormal: rounds to zero
    return sign;
  uint64_t kept = x.significand >> drop;
  uint64_t remainder = x.significand & ((1u << drop) - 1);
  uint64_t half = 1u << (drop - 1);
  if (remainder > half || (remainder == half && (kept & 1)))
    ++kept;
  return sign | detail::packRounded(format, x.exponent, kept);
}

/// Reference f32 -> narrow conversion with stochastic rounding driven by the
/// uniform 32-bit word `random` (rule in the file comment).
inline uint32_t encodeStochastic(float value, const NarrowFormat &format,
                                 uint32_t random) {
  uint32_t bits = floatBits(value);
  uint32_t sign = (bits >> 31) ? format.signBit() : 0;
  uint32_t absBits = bits & 0x7FFFFFFFu;
  if (absBits >= 0x7F800000u)
    return detail::encodeNonFinite(absBits, sign, format);
  detail::Unpacked x = detail::unpackFinite(absBits);
  int drop = detail::droppedBits(format, x.exponent);
  uint64_t significand = x.significand;
  uint64_t kept = drop >= 64 ? 0 : significand >> drop;
  uint64_t remainder =
      drop >= 64 ? significand : significand & ((uint64_t(1) << drop) - 1);
  // floor(frac * 2^32) with frac = remainder / 2^drop.
  uint64_t threshold;
  if (drop <= 32)
    threshold = remainder << (32 - drop);
  else
    threshold = drop - 32 >= 64 ? 0 : remainder >> (drop - 32);
  if (random < threshold)
    ++kept;
  return sign | detail::packRounded(format, x.exponent, kept);
}

/// Reference narrow -> f32 conversion (exact).
inline float decode(uint32_t bits, const NarrowFormat &format) {
  uint32_t mantissaMask = (1u << format.mantissaBits) - 1;
  uint32_t exponentMask = (1u << format.exponentBits) - 1;
  bool negative = (bits & format.signBit()) != 0;
  uint32_t mantissa = bits & mantissaMask;
  uint32_t exponentField = (bits >> format.mantissaBits) & exponentMask;
  uint32_t sign32 = negative ? 0x80000000u : 0;
  bool allOnes = exponentField == exponentMask;
  if (format.ieeeSpecials && allOnes)
    return bitsToFloat(sign32 | (mantissa == 0 ? 0x7F800000u : 0x7FC00000u));
  if (!format.ieeeSpecials && allOnes && mantissa == mantissaMask)
    return bitsToFloat(sign32 | 0x7FC00000u);
  if (exponentField == 0) {
    // Subnormal: mantissa * 2^(minNormalExponent - mantissaBits), exact in
    // f32 (for bf16 the result is an f32 subnormal with the same bits).
    uint32_t shift = static_cast<uint32_t>(format.mantissaBits -
                                           format.minNormalExponent());
    float magnitude = static_cast<float>(mantissa);
    for (; shift >= 32; shift -= 32)
      magnitude *= 0x1p-32f;
    magnitude *= 1.0f / static_cast<float>(uint64_t(1) << shift);
    return negative ? -magnitude : magnitude;
  }
  uint32_t exponent32 = exponentField - format.exponentBias + 127;
  return bitsToFloat(sign32 | (exponent32 << 23) |
                     (mantissa << (23 - format.mantissaBits)));
}

/// The format of a narrow dtype, or nullptr for f64/f32/bytes.
inline const NarrowFormat *narrowFormatOf(precrt_dtype_t dtype) {
  switch (dtype) {
  case PRECRT_DTYPE_BF16:
    return &kBF16;
  case PRECRT_DTYPE_F16:
    return &kF16;
  case PRECRT_DTYPE_F8E4M3FN:
    return &kF8E4M3FN;
  case PRECRT_DTYPE_F8E5M2:
    return &kF8E5M2;
  default:
    return nullptr;
  }
}

inline uint16_t floatToBF16(float v) {
  return static_cast<uint16_t>(encodeNearestEven(v, kBF16));
}
inline uint16_t floatToF16(float v) {
  return static_cast<uint16_t>(encodeNearestEven(v, kF16));
}
inline uint8_t floatToF8E4M3FN(float v) {
  return static_cast<uint8_t>(encodeNearestEven(v, kF8E4M3FN));
}
inline uint8_t floatToF8E5M2(float v) {
  return static_cast<uint8_t>(encodeNearestEven(v, kF8E5M2));
}
inline float bf16ToFloat(uint16_t b) { return decode(b, kBF16); }
inline float f16ToFloat(uint16_t b) { return decode(b, kF16); }
inline float f8E4M3FNToFloat(uint8_t b) { return decode(b, kF8E4M3FN); }
inline float f8E5M2ToFloat(uint8_t b) { return decode(b, kF8E5M2); }

//===----------------------------------------------------------------------===//
// Philox 4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2,
// 3", SC'11), the generator of cuRAND and JAX. Counter-based: word i of a
// stream is a pure function of (key, i), so any rank, thread or GPU block can
// produce its slice of the stream without state.
//===----------------------------------------------------------------------===//

/// One Philox block: four 32-bit words from a 128-bit counter and 64-bit key.
inline std::array<uint32_t, 4> philox4x32_10(std::array<uint32_t, 4> counter,
                                             std::array<uint32_t, 2> key) {
  constexpr uint32_t kMultiplier0 = 0xD2511F53u, kMultiplier1 = 0xCD9E8D57u;
  constexpr uint32_t kWeyl0 = 0x9E3779B9u, kWeyl1 = 0xBB67AE85u;
  for (int round = 0; round < 10; ++round) {
    uint64_t product0 = uint64_t(kMultiplier0) * counter[0];
    uint64_t product1 = uint64_t(kMultiplier1) * counter[2];
    counter = {uint32_t(product1 >> 32) ^ counter[1] ^ key[0], uint32_t(product1),
               uint32_t(product0 >> 32) ^ counter[3] ^ key[1], uint32_t(product0)};
    key[0] += kWeyl0;
    key[1] += kWeyl1;
  }
  return counter;
}

/// Word `index` of the stream keyed by `seed`: block index / 4 of the counter
/// {lo32(index / 4), hi32(index / 4), 0, 0}, word index % 4 of it.
inline uint32_t philoxWord(uint64_t seed, uint64_t index) {
  uint64_t block = index / 4;
  std::array<uint32_t, 4> words = philox4x32_10(
      {uint32_t(block), uint32_t(block >> 32), 0, 0},
      {uint32_t(seed), uint32_t(seed >> 32)});
  return words[index % 4];
}

//===----------------------------------------------------------------------===//
// Vectorized buffer kernels (in the runtime library; bit-identical to the
// references above).
//===----------------------------------------------------------------------===//

/// f32 -> narrow, round-to-nearest-even. `dst` holds 16-bit elements for bf16
/// and f16, bytes for fp8.
PRECRT_EXPORT void encodeBuffer(const float *src, void *dst, size_t count,
                                precrt_dtype_t dstDtype);
/// narrow -> f32, exact.
PRECRT_EXPORT void decodeBuffer(const void *src, float *dst, size_t count,
                                precrt_dtype_t srcDtype);
/// f32 -> narrow, stochastic: element i uses philoxWord(seed, offset + i).
PRECRT_EXPORT void encodeBufferStochastic(const float *src, void *dst,
                                          size_t count,
                                          precrt_dtype_t dstDtype,
                                          uint64_t seed, uint64_t offset);

} // namespace numerics
} // namespace precrt

#endif // PRECRT_NUMERICS_H
