//===- NumericsTest.cpp - Conversions against independent oracles ---------===//
//
// Every bf16, f16 and fp8 bit pattern is decoded, round-tripped and used to
// build the rounding boundaries (midpoints) of its format; random f32 inputs
// cover the rest. The references of precrt/numerics.h are checked against a
// float64 oracle written differently (nearbyint on a scaled value), and the
// runtime's vectorized kernels against the references, bit for bit.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include <gtest/gtest.h>

#include <cfenv>
#include <cmath>
#include <random>
#include <vector>

using namespace precrt::numerics;
using namespace precrt_test;

namespace {

struct FormatCase {
  const char *name;
  const NarrowFormat *format;
  precrt_dtype_t dtype;
};

const FormatCase kFormats[] = {
    {"bf16", &kBF16, PRECRT_DTYPE_BF16},
    {"f16", &kF16, PRECRT_DTYPE_F16},
    {"f8E4M3FN", &kF8E4M3FN, PRECRT_DTYPE_F8E4M3FN},
    {"f8E5M2", &kF8E5M2, PRECRT_DTYPE_F8E5M2},
};

uint32_t patternCount(const NarrowFormat &format) {
  return 1u << (format.mantissaBits + format.exponentBits + 1);
}

bool isNaNPattern(uint32_t bits, const NarrowFormat &format) {
  uint32_t magnitude = bits & (format.signBit() - 1);
  uint32_t exponentMask = (1u << format.exponentBits) - 1;
  uint32_t exponentField = magnitude >> format.mantissaBits;
  uint32_t mantissa = magnitude & ((1u << format.mantissaBits) - 1);
  if (format.ieeeSpecials)
    return exponentField == exponentMask && mantissa != 0;
  return magnitude == (exponentMask << format.mantissaBits | ((1u << format.mantissaBits) - 1));
}

bool isInfinityPattern(uint32_t bits, const NarrowFormat &format) {
  return format.ieeeSpecials &&
         (bits & (format.signBit() - 1)) == format.infinityBits;
}

/// Decoding from the definition: (-1)^s * 2^(e - bias) * 1.m, or the
/// subnormal 2^(1 - bias) * 0.m.
double oracleDecode(uint32_t bits, const NarrowFormat &format) {
  bool negative = bits & format.signBit();
  uint32_t magnitude = bits & (format.signBit() - 1);
  int exponentField = int(magnitude >> format.mantissaBits);
  double mantissa = magnitude & ((1u << format.mantissaBits) - 1);
  double value =
      exponentField == 0
          ? std::ldexp(mantissa, format.minNormalExponent() - format.mantissaBits)
          : std::ldexp(1.0 + std::ldexp(mantissa, -format.mantissaBits),
                       exponentField - format.exponentBias);
  return negative ? -value : value;
}

double largestFinite(const NarrowFormat &format) {
  return oracleDecode(format.maxFiniteBits, format);
}

/// Round-to-nearest-even by scaling to the format's spacing and nearbyint
/// (in the default rounding mode), as a float64 value; overflow per the
/// format's rules.
double oracleRoundNearestEven(float input, const NarrowFormat &format) {
  double x = input;
  if (std::isnan(x))
    return NAN;
  double maxFinite = largestFinite(format);
  if (std::isinf(x))
    return format.saturates ? std::copysign(maxFinite, x) : x;
  if (x == 0)
    return x;
  int exponent = std::ilogb(x);
  if (exponent < format.minNormalExponent())
    exponent = format.minNormalExponent();
  double spacing = std::ldexp(1.0, exponent - format.mantissaBits);
  double rounded = std::nearbyint(x / spacing) * spacing;
  if (std::fabs(rounded) > maxFinite)
    return format.saturates ? std::copysign(maxFinite, x)
                            : std::copysign(INFINITY, x);
  return rounded == 0 ? std::copysign(0.0, x) : rounded;
}

/// Random f32 values: uniform bit patterns (every exponent, NaNs and
/// infinities included) and values near the format's range.
std::vector<float> randomFloats(size_t count, uint64_t seed,
                                const NarrowFormat &format) {
  std::mt19937_64 generator(seed);
  std::vector<float> values(count);
  for (size_t i = 0; i < count; ++i) {
    if (i % 2 == 0) {
      values[i] = bitsToFloat(static_cast<uint32_t>(generator()));
    } else {
      int lowest = format.minNormalExponent() - format.mantissaBits - 3;
      int highest = format.exponentBias + 2;
      int exponent = lowest + int(generator() % uint64_t(highest - lowest + 1));
      float mantissa = 1.0f + float(generator() % (1u << 23)) * 0x1p-23f;
      float value = std::ldexp(mantissa, exponent);
      values[i] = (generator() & 1) ? -value : value;
    }
  }
  return values;
}

/// Every rounding boundary of the format: for each pair of adjacent finite
/// values, the midpoint and the f32 neighbours on both sides of it, with
/// both signs.
std::vector<float> boundaryFloats(const NarrowFormat &format) {
  std::vector<float> values;
  uint32_t positiveCount = format.signBit();
  for (uint32_t bits = 0; bits + 1 < positiveCount; ++bits) {
    if (isNaNPattern(bits + 1, format) || isInfinityPattern(bits + 1, format))
      break;
    float low = decode(bits, format), high = decode(bits + 1, format);
    float mid = static_cast<float>((double(low) + double(high)) / 2);
    for (float v : {low, mid, std::nextafter(mid, 0.0f),
                    std::nextafter(mid, INFINITY)}) {
      values.push_back(v);
      values.push_back(-v);
    }
  }
  // Around the overflow threshold (largest finite + half a spacing).
  double maxFinite = largestFinite(format);
  double spacing = std::ldexp(1.0, std::ilogb(maxFinite) - format.mantissaBits);
  float threshold = static_cast<float>(maxFinite + spacing / 2);
  for (float v : {threshold, std::nextafter(threshold, 0.0f),
                  std::nextafter(threshold, INFINITY), INFINITY, NAN,
                  std::numeric_limits<float>::max(),
                  std::numeric_limits<float>::denorm_min()}) {
    values.push_back(v);
    values.push_back(-v);
  }
  return values;
}

class NumericsTest : public ::testing::TestWithParam<FormatCase> {};

TEST_P(NumericsTest, DecodeEveryPatternMatchesDefinition) {
  const NarrowFormat &format = *GetParam().format;
  for (uint32_t bits = 0; bits < patternCount(format); ++bits) {
    float decoded = decode(bits, format);
    if (isNaNPattern(bits, format)) {
      EXPECT_TRUE(std::isnan(decoded)) << std::hex << bits;
    } else if (isInfinityPattern(bits, format)) {
      EXPECT_TRUE(std::isinf(decoded)) << std::hex << bits;
      EXPECT_EQ(std::signbit(decoded), bool(bits & format.signBit()));
    } else {
      double expected = oracleDecode(bits, format);
      EXPECT_EQ(double(decoded), expected) << std::hex << bits;
      EXPECT_EQ(std::signbit(decoded), bool(bits & format.signBit()))
          << std::hex << bits;
    }
  }
}

TEST_P(NumericsTest, EveryPatternRoundTrips) {
  const NarrowFormat &format = *GetParam().format;
  for (uint32_t bits = 0; bits < patternCount(format); ++bits) {
    uint32_t encoded = encodeNearestEven(decode(bits, format), format);
    uint32_t sign = bits & format.signBit();
    if (isNaNPattern(bits, format))
      EXPECT_EQ(encoded, format.canonicalNaNBits) << std::hex << bits;
    else if (isInfinityPattern(bits, format))
      EXPECT_EQ(encoded, sign | format.overflowBits()) << std::hex << bits;
    else
      EXPECT_EQ(encoded, bits) << std::hex << bits;
  }
}

TEST_P(NumericsTest, MidpointsRoundToEven) {
  const NarrowFormat &format = *GetParam().format;
  uint32_t positiveCount = format.signBit();
  for (uint32_t bits = 0; bits + 1 < positiveCount; ++bits) {
    if (isNaNPattern(bits + 1, format) || isInfinityPattern(bits + 1, format))
      break;
    double low = decode(bits, format), high = decode(bits + 1, format);
    float mid = static_cast<float>((low + high) / 2);
    ASSERT_EQ(double(mid), (low + high) / 2) << "midpoint not exact in f32";
    uint32_t even = (bits & 1) ? bits + 1 : bits;
    EXPECT_EQ(encodeNearestEven(mid, format), even) << std::hex << bits;
    EXPECT_EQ(encodeNearestEven(-mid, format), even | format.signBit());
    EXPECT_EQ(encodeNearestEven(std::nextafter(mid, 0.0f), format), bits);
    EXPECT_EQ(encodeNearestEven(std::nextafter(mid, INFINITY), format),
              bits + 1);
  }
}

TEST_P(NumericsTest, OverflowAndSpecialValues) {
  const NarrowFormat &format = *GetParam().format;
  uint32_t negative = format.signBit();
  EXPECT_EQ(encodeNearestEven(INFINITY, format), format.overflowBits());
  EXPECT_EQ(encodeNearestEven(-INFINITY, format), negative | format.overflowBits());
  EXPECT_EQ(encodeNearestEven(NAN, format), format.canonicalNaNBits);
  EXPECT_EQ(encodeNearestEven(-NAN, format), format.canonicalNaNBits);
  EXPECT_EQ(encodeNearestEven(std::numeric_limits<float>::max(), format),
            format.overflowBits());
  EXPECT_EQ(encodeNearestEven(0.0f, format), 0u);
  EXPECT_EQ(encodeNearestEven(-0.0f, format), negative);
  // Below half the smallest subnormal: signed zero; at exactly half: ties to
  // even (zero); just above: the smallest subnormal.
  float smallest = decode(1, format);
  EXPECT_EQ(encodeNearestEven(smallest / 2, format), 0u);
  EXPECT_EQ(encodeNearestEven(std::nextafter(smallest / 2, 1.0f), format), 1u);
  EXPECT_EQ(encodeNearestEven(-smallest / 4, format), negative);
}

TEST_P(NumericsTest, ReferenceMatchesFloat64Oracle) {
  const NarrowFormat &format = *GetParam().format;
  ASSERT_EQ(std::fegetround(), FE_TONEAREST);
  std::vector<float> inputs = randomFloats(1 << 20, 7, format);
  std::vector<float> boundaries = boundaryFloats(format);
  inputs.insert(inputs.end(), boundaries.begin(), boundaries.end());
  for (float x : inputs) {
    uint32_t encoded = encodeNearestEven(x, format);
    double expected = oracleRoundNearestEven(x, format);
    double got = decode(encoded, format);
    if (std::isnan(expected)) {
      EXPECT_EQ(encoded, format.canonicalNaNBits) << x;
      continue;
    }
    ASSERT_EQ(got, expected) << "input " << x << " bits " << std::hex
                             << floatBits(x);
    ASSERT_EQ(std::signbit(got), std::signbit(expected)) << x;
  }
}

TEST_P(NumericsTest, VectorKernelsMatchReference) {
  const FormatCase &param = GetParam();
  const NarrowFormat &format = *param.format;
  std::vector<float> inputs = randomFloats(1 << 20, 11, format);
  std::vector<float> boundaries = boundaryFloats(format);
  inputs.insert(inputs.end(), boundaries.begin(), boundaries.end());
  size_t width = precrtDtypeSize(param.dtype);
  std::vector<uint8_t> encoded(inputs.size() * width);
  encodeBuffer(inputs.data(), encoded.data(), inputs.size(), param.dtype);
  for (size_t i = 0; i < inputs.size(); ++i) {
    uint32_t got = width == 2 ? uint32_t(encoded[2 * i]) |
                                    uint32_t(encoded[2 * i + 1]) << 8
                              : encoded[i];
    ASSERT_EQ(got, encodeNearestEven(inputs[i], format))
        << "input bits " << std::hex << floatBits(inputs[i]);
  }

  uint32_t count = patternCount(format);
  std::vector<uint8_t> patterns(count * width);
  for (uint32_t bits = 0; bits < count; ++bits)
    std::memcpy(&patterns[bits * width], &bits, width); // little endian
  std::vector<float> decoded(count);
  decodeBuffer(patterns.data(), decoded.data(), count, param.dtype);
  for (uint32_t bits = 0; bits < count; ++bits) {
    float expected = decode(bits, format);
    if (std::isnan(expected))
      EXPECT_TRUE(std::isnan(decoded[bits]));
    else
      EXPECT_EQ(floatBits(decoded[bits]), floatBits(expected)) << bits;
  }
}

TEST_P(NumericsTest, StochasticRoundingExtremesAreDirectedRoundings) {
  // r = 2^32 - 1 never rounds up (truncation toward zero); r = 0 rounds up
  // every magnitude whose fraction of a spacing is at least 2^-32 (the
  // resolution of the random word); exact values never move.
  const NarrowFormat &format = *GetParam().format;
  std::vector<float> inputs = randomFloats(1 << 18, 13, format);
  for (float x : inputs) {
    if (std::isnan(x) || std::isinf(x))
      continue;
    uint32_t nearest = encodeNearestEven(x, format);
    double nearestValue = decode(nearest, format);
    double magnitude = std::fabs(double(x));
    double down = decode(encodeStochastic(x, format, 0xFFFFFFFFu), format);
    double up = decode(encodeStochastic(x, format, 0), format);
    double maxFinite = largestFinite(format);
    if (magnitude > maxFinite)
      continue; // overflow rules are checked below
    EXPECT_LE(std::fabs(down), magnitude) << x;
    int exponent = std::max(std::ilogb(double(x)), format.minNormalExponent());
    double spacing = std::ldexp(1.0, exponent - format.mantissaBits);
    double fraction = (magnitude - std::fabs(down)) / spacing;
    if (fraction >= std::ldexp(1.0, -32))
      EXPECT_GE(std::fabs(up), magnitude) << x;
    else
      EXPECT_EQ(up, down) << x;
    if (nearestValue == x) {
      EXPECT_EQ(down, double(x));
      EXPECT_EQ(up, double(x));
    } else {
      // Down and up are adjacent: nearest is one of them.
      EXPECT_TRUE(nearestValue == down || nearestValue == up) << x;
    }
  }
  EXPECT_EQ(encodeStochastic(NAN, format, 0), format.canonicalNaNBits);
  EXPECT_EQ(encodeStochastic(INFINITY, format, 0), format.overflowBits());
}

TEST_P(NumericsTest, StochasticRoundingIsUnbiased) {
  const NarrowFormat &format = *GetParam().format;
  // One third of a spacing above 1.0.
  double spacing = std::ldexp(1.0, -format.mantissaBits);
  float x = static_cast<float>(1.0 + spacing / 3);
  const int samples = 200000;
  double sum = 0;
  for (int i = 0; i < samples; ++i)
    sum += decode(encodeStochastic(x, format, philoxWord(99, i)), format);
  double mean = sum / samples;
  // Bernoulli(1/3) times the spacing: standard error spacing * 0.47 /
  // sqrt(samples); allow 5 standard errors.
  double tolerance = 5 * spacing * std::sqrt(2.0 / 9.0) / std::sqrt(samples);
  EXPECT_NEAR(mean, double(x), tolerance);
}

TEST_P(NumericsTest, StochasticKernelMatchesReferenceAndSplitsByOffset) {
  const FormatCase &param = GetParam();
  const NarrowFormat &format = *param.format;
  std::vector<float> inputs = randomFloats(10007, 17, format);
  size_t width = precrtDtypeSize(param.dtype);
  const uint64_t seed = 0x1234abcd5678ef00ull, offset = 3;
  std::vector<uint8_t> whole(inputs.size() * width), split(inputs.size() * width);
  ASSERT_EQ(precrtConvertF32Stochastic(inputs.data(), whole.data(), param.dtype,
                                       inputs.size(), seed, offset),
            PRECRT_SUCCESS);
  for (size_t i = 0; i < inputs.size(); ++i) {
    uint32_t got = 0;
    std::memcpy(&got, &whole[i * width], width);
    ASSERT_EQ(got, encodeStochastic(inputs[i], format,
                                    philoxWord(seed, offset + i)))
        << i;
  }
  // Two calls over halves of the buffer, the second starting at its offset,
  // give the same bits as one call: ranks can each convert their shard.
  size_t half = 4099;
  precrtConvertF32Stochastic(inputs.data(), split.data(), param.dtype, half,
                             seed, offset);
  precrtConvertF32Stochastic(inputs.data() + half, split.data() + half * width,
                             param.dtype, inputs.size() - half, seed,
                             offset + half);
  EXPECT_EQ(whole, split);
}

INSTANTIATE_TEST_SUITE_P(Formats, NumericsTest, ::testing::ValuesIn(kFormats),
                         [](const auto &info) { return std::string(info.param.name); });

TEST(Philox, KnownAnswers) {
  // Known-answer vectors of the Random123 distribution (kat_vectors).
  auto zeros = philox4x32_10({0, 0, 0, 0}, {0, 0});
  EXPECT_EQ(zeros, (std::array<uint32_t, 4>{0x6627e8d5u, 0xe169c58du,
                                            0xbc57ac4cu, 0x9b00dbd8u}));
  auto ones = philox4x32_10({~0u, ~0u, ~0u, ~0u}, {~0u, ~0u});
  EXPECT_EQ(ones, (std::array<uint32_t, 4>{0x408f276du, 0x41c83b0eu,
                                           0xa20bc7c6u, 0x6d5451fdu}));
  auto digitsOfPi = philox4x32_10({0x243f6a88u, 0x85a308d3u, 0x13198a2eu,
                                   0x03707344u},
                                  {0xa4093822u, 0x299f31d0u});
  EXPECT_EQ(digitsOfPi, (std::array<uint32_t, 4>{0xd16cfe09u, 0x94fdccebu,
                                                 0x5001e420u, 0x24126ea1u}));
}

TEST(Philox, WordsAreIndexedAcrossBlocks) {
  auto block1 = philox4x32_10({1, 0, 0, 0}, {42, 0});
  for (int word = 0; word < 4; ++word)
    EXPECT_EQ(philoxWord(42, 4 + word), block1[word]);
}

TEST(ConvertApi, RoundsOnceAndRefusesDoubleRounding) {
  // bf16 -> f8E4M3FN: exact widening, then one rounding.
  std::vector<uint16_t> bf16(256);
  for (int i = 0; i < 256; ++i)
    bf16[i] = floatToBF16(float(i - 128) / 7.0f);
  std::vector<uint8_t> fp8(256);
  ASSERT_EQ(precrtConvert(bf16.data(), PRECRT_DTYPE_BF16, fp8.data(),
                          PRECRT_DTYPE_F8E4M3FN, 256),
            PRECRT_SUCCESS);
  for (int i = 0; i < 256; ++i)
    EXPECT_EQ(fp8[i], floatToF8E4M3FN(bf16ToFloat(bf16[i])));

  double wide = 1.0;
  uint16_t narrow;
  EXPECT_EQ(precrtConvert(&wide, PRECRT_DTYPE_F64, &narrow, PRECRT_DTYPE_BF16, 1),
            PRECRT_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(precrtGetLastErrorMessage()).find("round twice"),
            std::string::npos);
  EXPECT_EQ(precrtConvert(&wide, PRECRT_DTYPE_BYTES, &narrow, PRECRT_DTYPE_BF16, 1),
            PRECRT_ERROR_INVALID_ARGUMENT);
  float f = 1.0f;
  EXPECT_EQ(precrtConvertF32Stochastic(&f, &narrow, PRECRT_DTYPE_F32, 1, 0, 0),
            PRECRT_ERROR_INVALID_ARGUMENT);
}

} // namespace
