//===- ReductionErrorBench.cpp - Reduction error against group size -------===//
//
// Simulates the sum (or average) of one gradient element over N ranks, for N
// = 8 to 1024, with the runtime's conversions (precrt/numerics.h), in the
// algorithms prec chooses between:
//
//   f32 ring         f32 wire, partial sums rounded to f32 at each hop
//   bf16->f32 direct each input rounded once to bf16, N values summed in f32
//   bf16 ring        bf16 wire, partial sums rounded to bf16 at each of the
//                    N - 1 hops (NCCL's bf16 ring)
//   f16 ring avg     average with FSDP2's divide factors: x / f in f32, f16
//                    wire, f16 ring, / (N / f) in f16
//
// Each element's result is compared with the exact sum (float64; the inputs
// are f32, so the float64 sum of at most 1024 of them is exact to far below
// the errors measured). Errors are reported relative to sum_i |x_i| / divisor
// (what prec-error-bounds bounds) and relative to |sum_i x_i| / divisor, next
// to the bound from the formula of docs/Prec.md. Output: CSV on stdout, one
// row per (distribution, N, algorithm). Fixed seeds: the output is the same
// on every run.
//
//   prec_bench_reduction_error [elements per N, default 16384]
//
//===----------------------------------------------------------------------===//

#include "precrt/numerics.h"
#include "precrt/precrt.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace precrt::numerics;

//===----------------------------------------------------------------------===//
// Rounding with the runtime's conversions
//===----------------------------------------------------------------------===//

float roundTo(float value, const NarrowFormat &format) {
  return decode(encodeNearestEven(value, format), format);
}

/// Rounds a whole rank's contribution to a wire dtype with the runtime's
/// vectorized kernels (bit-identical to encodeNearestEven), as the pack
/// kernel of a collective does.
std::vector<float> toWire(const std::vector<float> &values,
                          precrt_dtype_t dtype) {
  std::vector<uint8_t> wire(values.size() * precrtDtypeSize(dtype));
  std::vector<float> decoded(values.size());
  encodeBuffer(values.data(), wire.data(), values.size(), dtype);
  decodeBuffer(wire.data(), decoded.data(), values.size(), dtype);
  return decoded;
}

//===----------------------------------------------------------------------===//
// The bound of docs/Prec.md (prec-error-bounds)
//===----------------------------------------------------------------------===//

constexpr double kUnitF32 = 0x1p-24, kUnitF16 = 0x1p-11, kUnitBF16 = 0x1p-8;

/// gamma(k, u) = k u / (1 - k u), NaN where k u >= 1 (no bound).
double gamma(int64_t k, double unit) {
  double ku = double(k) * unit;
  return ku >= 1.0 ? NAN : ku / (1.0 - ku);
}

bool isPowerOfTwo(int64_t n) { return n > 0 && (n & (n - 1)) == 0; }

/// FSDP2's pre-divide factor: the largest power of two f dividing N with
/// f <= N / f.
int64_t preDivideFactor(int64_t n) {
  int64_t factor = 1;
  while (n % factor == 0 && n / factor > factor)
    factor *= 2;
  return factor;
}

//===----------------------------------------------------------------------===//
// Algorithms
//===----------------------------------------------------------------------===//

/// ranks[r][j]: element j of rank r's gradient (f32).
using Contributions = std::vector<std::vector<float>>;

struct Algorithm {
  const char *name;
  /// Divisor of the reduction (1 for sum, N for avg).
  int64_t (*divisor)(int64_t n);
  double (*bound)(int64_t n);
  /// The reduced value of every element.
  std::vector<double> (*run)(const Contributions &ranks);
};

int64_t sumDivisor(int64_t) { return 1; }
int64_t avgDivisor(int64_t n) { return n; }

/// Rank at which element j's ring starts: in a ring reduce-scatter, chunk c
/// starts at rank c + 1 and meets the ranks in ring order; elements are
/// spread over the N starting points.
size_t ringStart(size_t element, size_t n) { return (element + 1) % n; }

/// Partial sums rounded by `round` at each of the N - 1 hops.
template <typename Round>
std::vector<double> ring(const Contributions &ranks, Round round) {
  size_t n = ranks.size(), count = ranks[0].size();
  std::vector<double> out(count);
  for (size_t j = 0; j < count; ++j) {
    size_t start = ringStart(j, n);
    float partial = ranks[start][j];
    for (size_t hop = 1; hop < n; ++hop)
      partial = round(partial + ranks[(start + hop) % n][j]);
    out[j] = partial;
  }
  return out;
}

std::vector<double> f32Ring(const Contributions &ranks) {
  return ring(ranks, [](float v) { return v; });
}

std::vector<double> bf16Direct(const Contributions &ranks) {
  size_t count = ranks[0].size();
  std::vector<float> acc(count, 0.0f);
  // The fused reduce kernel: the N wire chunks of a slice, summed in f32 in
  // rank order.
  for (const std::vector<float> &rank : ranks) {
    std::vector<float> wire = toWire(rank, PRECRT_DTYPE_BF16);
    for (size_t j = 0; j < count; ++j)
      acc[j] += wire[j];
  }
  return std::vector<double>(acc.begin(), acc.end());
}

std::vector<double> bf16Ring(const Contributions &ranks) {
  Contributions wire;
  for (const std::vector<float> &rank : ranks)
    wire.push_back(toWire(rank, PRECRT_DTYPE_BF16));
  return ring(wire, [](float v) { return roundTo(v, kBF16); });
}

std::vector<double> f16RingAvg(const Contributions &ranks) {
  int64_t n = int64_t(ranks.size());
  float pre = float(preDivideFactor(n));
  float post = float(n / preDivideFactor(n));
  Contributions wire;
  for (const std::vector<float> &rank : ranks) {
    std::vector<float> divided(rank.size());
    for (size_t j = 0; j < rank.size(); ++j)
      divided[j] = rank[j] / pre;
    wire.push_back(toWire(divided, PRECRT_DTYPE_F16));
  }
  std::vector<double> sums =
      ring(wire, [](float v) { return roundTo(v, kF16); });
  for (double &sum : sums)
    sum = roundTo(float(sum) / post, kF16);
  return sums;
}

// Bounds: (1 + e_pre)(1 + e_wire)(1 + gamma(N - 1, u_sum))(1 + e_post)
// (1 + e_out) - 1, each factor 1 where the step is exact.

double f32RingBound(int64_t n) { return gamma(n - 1, kUnitF32); }

double bf16DirectBound(int64_t n) {
  return (1 + kUnitBF16) * (1 + gamma(n - 1, kUnitF32)) - 1;
}

double bf16RingBound(int64_t n) {
  return (1 + kUnitBF16) * (1 + gamma(n - 1, kUnitBF16)) - 1;
}

double f16RingAvgBound(int64_t n) {
  double post = double(n / preDivideFactor(n));
  double ePost = isPowerOfTwo(int64_t(post)) ? 0.0 : kUnitF16;
  return (1 + kUnitF16) * (1 + gamma(n - 1, kUnitF16)) * (1 + ePost) - 1;
}

const Algorithm kAlgorithms[] = {
    {"f32 ring", sumDivisor, f32RingBound, f32Ring},
    {"bf16->f32 direct", sumDivisor, bf16DirectBound, bf16Direct},
    {"bf16 ring", sumDivisor, bf16RingBound, bf16Ring},
    {"f16 ring avg", avgDivisor, f16RingAvgBound, f16RingAvg},
};

//===----------------------------------------------------------------------===//
// Input distributions
//===----------------------------------------------------------------------===//

struct Distribution {
  const char *name;
  /// Fills ranks[r][j] for N ranks.
  void (*generate)(Contributions &ranks, std::mt19937_64 &generator);
};

/// Independent N(0, 1) per rank and element: a typical gradient.
void normal(Contributions &ranks, std::mt19937_64 &generator) {
  std::normal_distribution<double> gaussian(0.0, 1.0);
  for (std::vector<float> &rank : ranks)
    for (float &v : rank)
      v = float(gaussian(generator));
}

/// |N(0, 1)|: every rank pushes the same way, so partial sums grow like N
/// and a narrow accumulator stagnates (absorbs small addends).
void positive(Contributions &ranks, std::mt19937_64 &generator) {
  std::normal_distribution<double> gaussian(0.0, 1.0);
  for (std::vector<float> &rank : ranks)
    for (float &v : rank)
      v = float(std::fabs(gaussian(generator)));
}

/// Large terms that cancel in pairs (+a on one rank, -a on another,
/// a ~ 1000 N(0, 1)) plus N(0, 1) noise: sum_i |x_i| is about 800 times
/// |sum_i x_i|, so errors relative to the sum itself are large.
void cancelling(Contributions &ranks, std::mt19937_64 &generator) {
  std::normal_distribution<double> gaussian(0.0, 1.0);
  size_t n = ranks.size(), count = ranks[0].size();
  std::vector<size_t> order(n);
  for (size_t j = 0; j < count; ++j) {
    for (size_t r = 0; r < n; ++r)
      order[r] = r;
    std::shuffle(order.begin(), order.end(), generator);
    for (size_t pair = 0; pair + 1 < n; pair += 2) {
      float large = float(1000.0 * gaussian(generator));
      ranks[order[pair]][j] = large + float(gaussian(generator));
      ranks[order[pair + 1]][j] = -large + float(gaussian(generator));
    }
  }
}

const Distribution kDistributions[] = {
    {"normal", normal},
    {"positive", positive},
    {"cancelling", cancelling},
};

//===----------------------------------------------------------------------===//
// Driver
//===----------------------------------------------------------------------===//

struct Errors {
  double maxVsAbsSum = 0, meanVsAbsSum = 0, maxVsSum = 0, medianVsSum = 0;
};

Errors measure(const Contributions &ranks, const std::vector<double> &result,
               double divisor) {
  size_t count = result.size();
  Errors errors;
  std::vector<double> vsSum(count);
  for (size_t j = 0; j < count; ++j) {
    double sum = 0, absSum = 0;
    for (const std::vector<float> &rank : ranks) {
      sum += double(rank[j]);
      absSum += std::fabs(double(rank[j]));
    }
    double error = std::fabs(result[j] - sum / divisor);
    double vsAbsSum = error / (absSum / divisor);
    errors.maxVsAbsSum = std::max(errors.maxVsAbsSum, vsAbsSum);
    errors.meanVsAbsSum += vsAbsSum / double(count);
    vsSum[j] = sum == 0 ? (error == 0 ? 0 : INFINITY)
                        : error / std::fabs(sum / divisor);
    errors.maxVsSum = std::max(errors.maxVsSum, vsSum[j]);
  }
  std::nth_element(vsSum.begin(), vsSum.begin() + count / 2, vsSum.end());
  errors.medianVsSum = vsSum[count / 2];
  return errors;
}

} // namespace

int main(int argc, char **argv) {
  size_t count = argc > 1 ? size_t(std::strtoull(argv[1], nullptr, 10)) : 16384;
  if (count == 0) {
    std::fprintf(stderr, "usage: %s [elements per N (> 0)]\n", argv[0]);
    return 1;
  }
  std::printf("distribution,n,algorithm,bound,max_vs_abs_sum,mean_vs_abs_sum,"
              "max_vs_sum,median_vs_sum\n");
  uint64_t seed = 1;
  for (const Distribution &distribution : kDistributions) {
    for (int64_t n = 8; n <= 1024; n *= 2) {
      std::mt19937_64 generator(seed++);
      Contributions ranks(static_cast<size_t>(n), std::vector<float>(count));
      distribution.generate(ranks, generator);
      for (const Algorithm &algorithm : kAlgorithms) {
        Errors errors = measure(ranks, algorithm.run(ranks),
                                double(algorithm.divisor(n)));
        std::printf("%s,%lld,%s,%.6e,%.6e,%.6e,%.6e,%.6e\n", distribution.name,
                    (long long)n, algorithm.name, algorithm.bound(n),
                    errors.maxVsAbsSum, errors.meanVsAbsSum, errors.maxVsSum,
                    errors.medianVsSum);
      }
    }
  }
  return 0;
}
