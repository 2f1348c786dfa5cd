//===- TestUtil.h - Shared helpers of the precrt tests ----------*- C++ -*-===//
//
// Inputs drawn on each dtype's grid, a float64 reference, and the error
// bound a reduction may show against it.
//
// Tolerance of a reduction over n ranks in a dtype with unit roundoff u
// (2^-53 f64, 2^-24 f32, 2^-11 f16, 2^-8 bf16, 2^-4 f8E4M3FN, 2^-3 f8E5M2):
// the ring rounds after each of its n-1 additions (and once more for avg's
// division), each rounding off by at most u times the partial result (or half
// a subnormal step), so
//   |got - exact| <= (n + 1) * u * sum_r |x_r| + (n + 1) * subnormalStep / 2.
// For fp8 that bound exceeds the sum itself at 8 ranks ((n + 1) * u > 1 for
// f8E5M2), so an all-zero result would pass. fp8 inputs are therefore drawn
// positive, in [1/4, 2], where every partial sum is positive and normal:
// each rounding scales the partial result by a factor in [1 - u, 1 + u],
// whatever the order of the additions, and the result lies in
//   [exact * (1 - u)^k, exact * (1 + u)^k], k = n - 1 (+ 1 for avg),
// which excludes 0 (at 8 ranks, f8E5M2: at least 0.30 of the exact sum).
// max and min round nothing and must match exactly.
//
//===----------------------------------------------------------------------===//

#ifndef PRECRT_TEST_TESTUTIL_H
#define PRECRT_TEST_TESTUTIL_H

#include "precrt/numerics.h"
#include "precrt/precrt.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace precrt_test {

inline const std::vector<precrt_dtype_t> &floatingDtypes() {
  static const std::vector<precrt_dtype_t> dtypes = {
      PRECRT_DTYPE_F64,  PRECRT_DTYPE_F32,      PRECRT_DTYPE_F16,
      PRECRT_DTYPE_BF16, PRECRT_DTYPE_F8E4M3FN, PRECRT_DTYPE_F8E5M2};
  return dtypes;
}

inline const std::vector<precrt_dtype_t> &allDtypes() {
  static const std::vector<precrt_dtype_t> dtypes = {
      PRECRT_DTYPE_F64,      PRECRT_DTYPE_F32,    PRECRT_DTYPE_F16,
      PRECRT_DTYPE_BF16,     PRECRT_DTYPE_F8E4M3FN, PRECRT_DTYPE_F8E5M2,
      PRECRT_DTYPE_BYTES};
  return dtypes;
}

inline const char *reductionName(precrt_reduction_t reduction) {
  static const char *const names[] = {"sum", "avg", "max", "min"};
  return names[reduction];
}

/// Element i of a typed byte buffer as a double (exact).
inline double valueAt(const std::vector<uint8_t> &buffer, precrt_dtype_t dtype,
                      size_t i) {
  using namespace precrt::numerics;
  switch (dtype) {
  case PRECRT_DTYPE_F64: {
    double v;
    std::memcpy(&v, &buffer[i * 8], 8);
    return v;
  }
  case PRECRT_DTYPE_F32: {
    float v;
    std::memcpy(&v, &buffer[i * 4], 4);
    return v;
  }
  case PRECRT_DTYPE_F16:
  case PRECRT_DTYPE_BF16: {
    uint16_t bits;
    std::memcpy(&bits, &buffer[i * 2], 2);
    return decode(bits, *narrowFormatOf(dtype));
  }
  case PRECRT_DTYPE_F8E4M3FN:
  case PRECRT_DTYPE_F8E5M2:
    return decode(buffer[i], *narrowFormatOf(dtype));
  case PRECRT_DTYPE_BYTES:
    return buffer[i];
  }
  return NAN;
}

inline bool isFp8(precrt_dtype_t dtype) {
  return dtype == PRECRT_DTYPE_F8E4M3FN || dtype == PRECRT_DTYPE_F8E5M2;
}

/// `count` elements of `dtype`, uniform in [-2, 2] (fp8: [1/4, 2], see the
/// file comment) rounded to the dtype (random bytes for PRECRT_DTYPE_BYTES),
/// reproducible from `seed`.
inline std::vector<uint8_t> randomBuffer(precrt_dtype_t dtype, size_t count,
                                         uint64_t seed) {
  std::mt19937_64 generator(seed);
  std::uniform_real_distribution<double> uniform(isFp8(dtype) ? 0.25 : -2.0,
                                                 2.0);
  std::vector<uint8_t> buffer(count * precrtDtypeSize(dtype));
  if (dtype == PRECRT_DTYPE_BYTES) {
    for (uint8_t &byte : buffer)
      byte = static_cast<uint8_t>(generator());
    return buffer;
  }
  if (dtype == PRECRT_DTYPE_F64) {
    for (size_t i = 0; i < count; ++i) {
      double v = uniform(generator);
      std::memcpy(&buffer[i * 8], &v, 8);
    }
    return buffer;
  }
  std::vector<float> wide(count);
  for (float &v : wide)
    v = static_cast<float>(uniform(generator));
  precrtConvert(wide.data(), PRECRT_DTYPE_F32, buffer.data(), dtype, count);
  return buffer;
}

/// One input buffer per rank, reproducible from `salt` (so every rank, or
/// process, can rebuild every other rank's input for the reference).
inline std::vector<std::vector<uint8_t>>
rankInputs(int ranks, precrt_dtype_t dtype, size_t count, uint64_t salt) {
  std::vector<std::vector<uint8_t>> inputs;
  for (int rank = 0; rank < ranks; ++rank)
    inputs.push_back(randomBuffer(dtype, count, salt * 1000 + rank));
  return inputs;
}

inline double unitRoundoff(precrt_dtype_t dtype) {
  switch (dtype) {
  case PRECRT_DTYPE_F64:
    return std::ldexp(1.0, -53);
  case PRECRT_DTYPE_F32:
    return std::ldexp(1.0, -24);
  default: {
    const auto *format = precrt::numerics::narrowFormatOf(dtype);
    return format ? std::ldexp(1.0, -(format->mantissaBits + 1)) : 0.0;
  }
  }
}

inline double subnormalStep(precrt_dtype_t dtype) {
  switch (dtype) {
  case PRECRT_DTYPE_F64:
    return std::ldexp(1.0, -1074);
  case PRECRT_DTYPE_F32:
    return std::ldexp(1.0, -149);
  default: {
    const auto *format = precrt::numerics::narrowFormatOf(dtype);
    return format ? std::ldexp(1.0, format->minNormalExponent() -
                                        format->mantissaBits)
                  : 0.0;
  }
  }
}

/// Exact reduction of element i over `inputs` (one buffer per rank) and the
/// tolerance the runtime's result may deviate by.
struct Expected {
  double value;
  double tolerance;
  /// Where set (fp8 sums), the result must lie in [lower, upper] instead.
  std::optional<std::pair<double, double>> interval = std::nullopt;
};

inline Expected expectedReduction(const std::vector<std::vector<uint8_t>> &inputs,
                                  precrt_dtype_t dtype,
                                  precrt_reduction_t reduction, size_t i) {
  int n = static_cast<int>(inputs.size());
  double sum = 0, magnitude = 0;
  double extreme = valueAt(inputs[0], dtype, i);
  for (int rank = 0; rank < n; ++rank) {
    double v = valueAt(inputs[rank], dtype, i);
    sum += v;
    magnitude += std::fabs(v);
    extreme = reduction == PRECRT_REDUCTION_MAX ? std::fmax(extreme, v)
                                                : std::fmin(extreme, v);
  }
  if (reduction == PRECRT_REDUCTION_MAX || reduction == PRECRT_REDUCTION_MIN)
    return {extreme, 0.0};
  bool average = reduction == PRECRT_REDUCTION_AVG;
  if (isFp8(dtype)) {
    double exact = average ? sum / n : sum;
    double u = unitRoundoff(dtype);
    int roundings = n - 1 + (average ? 1 : 0);
    return {exact, 0.0,
            std::make_pair(exact * std::pow(1 - u, roundings),
                           exact * std::pow(1 + u, roundings))};
  }
  double tolerance = (n + 1) * (unitRoundoff(dtype) * magnitude +
                                subnormalStep(dtype) / 2);
  if (average)
    return {sum / n, tolerance / n};
  return {sum, tolerance};
}

/// Checks element i of `got` against `expected` (exactly when the tolerance
/// is 0).
inline void expectWithin(const std::vector<uint8_t> &got, precrt_dtype_t dtype,
                         size_t i, const Expected &expected,
                         const std::string &where = "") {
  double value = valueAt(got, dtype, i);
  if (expected.interval) {
    EXPECT_GE(value, expected.interval->first) << where << " element " << i;
    EXPECT_LE(value, expected.interval->second) << where << " element " << i;
  } else if (expected.tolerance == 0)
    EXPECT_EQ(value, expected.value) << where << " element " << i;
  else
    EXPECT_NEAR(value, expected.value, expected.tolerance)
        << where << " element " << i;
}

/// Runs `body(comm, rank)` on `n` local ranks; fails the test if the run
/// itself fails.
inline precrt_status_t runLocal(int n,
                                const std::function<void(precrt_comm_t, int)> &body) {
  struct Context {
    const std::function<void(precrt_comm_t, int)> *body;
  } context{&body};
  return precrtLocalRun(
      n,
      [](precrt_comm_t world, void *data) {
        int32_t rank = -1;
        precrtCommRank(world, &rank);
        (*static_cast<Context *>(data)->body)(world, rank);
        return 0;
      },
      &context);
}

/// Seconds since `start`, for tests that bound how long a failure takes.
inline double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                       start)
      .count();
}

/// Whether the calling thread's last precrt error message contains `text`.
inline bool messageContains(const std::string &text) {
  return std::string(precrtGetLastErrorMessage()).find(text) !=
         std::string::npos;
}

/// Runs `body(comm, rank)` as the rank function of precrtRun with `options`.
inline precrt_status_t
runWithOptions(const precrt_init_options &options,
               const std::function<void(precrt_comm_t, int)> &body) {
  return precrtRun(
      &options,
      [](precrt_comm_t world, void *data) {
        int32_t rank = -1;
        precrtCommRank(world, &rank);
        (*static_cast<const std::function<void(precrt_comm_t, int)> *>(data))(
            world, rank);
        return 0;
      },
      const_cast<std::function<void(precrt_comm_t, int)> *>(&body));
}

} // namespace precrt_test

#endif // PRECRT_TEST_TESTUTIL_H
