//===- Bf16GemmTest.cpp - one summation order on every kernel -------------===//
//
// The bf16 kernels (lib/kernels/Bf16Gemm.h) against their order written out
// (the scalar kernel) bit for bit, on every kernel this CPU runs: odd shapes
// and edge tiles, transposed operands, an initial C, k odd, and operands
// whose products and partial sums are subnormal (which VDPBF16PS would
// flush); and the order against a float64 reference within the error bound
// of a sequential f32 sum of k products onto c, (k + 1) u (|c| + sum |a b|),
// u = 2^-24 (k roundings of partial sums no larger than that).
//
//===----------------------------------------------------------------------===//

#include "kernels/Bf16Gemm.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

using namespace precrt::kernels;

namespace {

uint16_t toBf16(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return uint16_t(bits >> 16); // truncation: any bf16 value will do
}

double fromBf16(uint16_t bits) {
  uint32_t wide = uint32_t(bits) << 16;
  float value;
  std::memcpy(&value, &wide, sizeof value);
  return value;
}

uint32_t bitsOf(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

enum class Layout { RowMajor, ColumnMajor, EveryOther };

/// A rows x cols bf16 matrix stored row-major, column-major, or row-major
/// in every other element of rows padded by 3 (no unit stride).
struct Stored {
  std::vector<uint16_t> data;
  Bf16Matrix view;
  int64_t rows, cols;
  uint16_t at(int64_t i, int64_t j) const {
    return view.data[i * view.rowStride + j * view.colStride];
  }
};

Stored makeMatrix(int64_t rows, int64_t cols, Layout layout,
                  std::mt19937 &random, float scale) {
  std::normal_distribution<float> normal(0.0f, 1.0f);
  int64_t size = layout == Layout::EveryOther ? rows * (2 * cols + 3)
                                              : rows * cols;
  Stored result{std::vector<uint16_t>(size_t(size)), {}, rows, cols};
  for (uint16_t &element : result.data)
    element = toBf16(normal(random) * scale);
  switch (layout) {
  case Layout::RowMajor:
    result.view = {result.data.data(), cols, 1};
    break;
  case Layout::ColumnMajor:
    result.view = {result.data.data(), 1, rows};
    break;
  case Layout::EveryOther:
    result.view = {result.data.data(), 2 * cols + 3, 2};
    break;
  }
  return result;
}

const Bf16GemmKernel kAllKernels[] = {
    Bf16GemmKernel::Avx512Bf16, Bf16GemmKernel::Avx512, Bf16GemmKernel::Avx2,
    Bf16GemmKernel::Scalar};

/// C0 + A x B with `kernel`.
std::vector<float> run(Bf16GemmKernel kernel, const Stored &a, const Stored &b,
                       const std::vector<float> &c0) {
  std::vector<float> c = c0;
  bf16Gemm(kernel, a.rows, b.cols, a.cols, a.view, b.view, c.data(), b.cols);
  return c;
}

/// Every kernel the CPU runs gives the scalar kernel's bits; returns them.
std::vector<float> expectSameBits(const Stored &a, const Stored &b,
                                  const std::vector<float> &c0,
                                  const std::string &what) {
  std::vector<float> reference = run(Bf16GemmKernel::Scalar, a, b, c0);
  for (Bf16GemmKernel kernel : kAllKernels) {
    if (kernel == Bf16GemmKernel::Scalar || !cpuRuns(kernel))
      continue;
    std::vector<float> c = run(kernel, a, b, c0);
    size_t differing = 0, first = 0;
    for (size_t i = 0; i < c.size(); ++i) {
      if (bitsOf(c[i]) != bitsOf(reference[i]) && differing++ == 0)
        first = i;
    }
    EXPECT_EQ(differing, 0u)
        << what << ", kernel " << bf16GemmKernelName(kernel) << ": first at "
        << first << ", " << c[first] << " instead of " << reference[first];
  }
  return reference;
}

TEST(Bf16Gemm, EveryKernelGivesTheOrdersBits) {
  struct Shape {
    int64_t m, n, k;
  };
  const Shape shapes[] = {{1, 1, 1},   {1, 1, 2},    {7, 13, 5},
                          {8, 32, 2},  {9, 33, 3},   {6, 16, 257},
                          {65, 129, 33}, {64, 96, 512}, {100, 70, 301}};
  std::mt19937 random(7);
  for (const Shape &shape : shapes) {
    // Every pair of layouts, C0 zero for half of them.
    for (int layout = 0; layout < 9; ++layout) {
      Stored a = makeMatrix(shape.m, shape.k, Layout(layout % 3), random, 1.0f);
      Stored b =
          makeMatrix(shape.k, shape.n, Layout(layout / 3), random, 0.05f);
      std::vector<float> c0(size_t(shape.m * shape.n));
      std::normal_distribution<float> normal(0.0f, 1.0f);
      for (float &value : c0)
        value = layout % 2 ? 0.0f : normal(random);
      std::string what = std::to_string(shape.m) + "x" +
                         std::to_string(shape.n) + "x" +
                         std::to_string(shape.k) + " layout " +
                         std::to_string(layout);
      std::vector<float> c = expectSameBits(a, b, c0, what);

      // The order against float64 within a sequential f32 sum's bound.
      const double u = std::ldexp(1.0, -24);
      for (int64_t i = 0; i < shape.m; ++i) {
        for (int64_t j = 0; j < shape.n; ++j) {
          double exact = c0[i * shape.n + j], magnitude = 0;
          for (int64_t p = 0; p < shape.k; ++p) {
            double product = fromBf16(a.at(i, p)) * fromBf16(b.at(p, j));
            exact += product;
            magnitude += std::fabs(product);
          }
          double bound = (shape.k + 1) * u *
                         (magnitude + std::fabs(c0[i * shape.n + j]));
          ASSERT_LE(std::fabs(c[i * shape.n + j] - exact), bound)
              << what << " at (" << i << ", " << j << ")";
        }
      }
    }
  }
}

TEST(Bf16Gemm, SubnormalsAreKeptOnEveryKernel) {
  // Products of about 2^-130 and partial sums below 2^-126: VDPBF16PS would
  // flush them; the kernels must not. A row of larger values mixes in sums
  // that leave the subnormal range again.
  std::mt19937 random(11);
  for (float scale : {0x1p-65f, 0x1p-70f, 0x1p-63f}) {
    Stored a = makeMatrix(20, 37, Layout::RowMajor, random, scale);
    Stored b = makeMatrix(37, 45, Layout::ColumnMajor, random, 0x1p-64f);
    a.data[5] = toBf16(3.0f); // one product far from the subnormal range
    std::vector<float> c0(20 * 45, 0.0f);
    c0[3] = 0x1p-140f; // a subnormal initial value
    std::vector<float> c = expectSameBits(a, b, c0, "subnormal products");
    size_t subnormal = 0;
    for (float value : c)
      subnormal += value != 0 && std::fpclassify(value) == FP_SUBNORMAL;
    EXPECT_GT(subnormal, c.size() / 10) << "scale " << scale;
  }
}

TEST(Bf16Gemm, SubnormalInitialValuesAreKept) {
  // A and B of ordinary magnitudes, so that VDPBF16PS may run, and a row of
  // A that is zero: its C elements keep their initial values, two of them
  // subnormal (VDPBF16PS would read them as zero) and one small enough
  // that partial sums near it could be; their tiles take the exact path,
  // the others VDPBF16PS, and every kernel gives the order's bits.
  std::mt19937 random(17);
  Stored a = makeMatrix(20, 37, Layout::RowMajor, random, 1.0f);
  Stored b = makeMatrix(37, 45, Layout::RowMajor, random, 1.0f);
  for (int64_t p = 0; p < 37; ++p)
    a.data[9 * 37 + p] = 0;
  std::vector<float> c0(20 * 45);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  for (float &value : c0)
    value = normal(random);
  c0[9 * 45 + 5] = 0x1p-140f;
  c0[9 * 45 + 40] = -0x1p-130f;
  c0[17 * 45 + 3] = 0x1p-120f;
  std::vector<float> c = expectSameBits(a, b, c0, "subnormal initial values");
  EXPECT_EQ(bitsOf(c[9 * 45 + 5]), bitsOf(0x1p-140f));
  EXPECT_EQ(bitsOf(c[9 * 45 + 40]), bitsOf(-0x1p-130f));
}

TEST(Bf16Gemm, TheCheckAtItsBoundaries) {
  // Products whose exponent fields sum to 142 (the least that VDPBF16PS may
  // take) and to 141; initial values with exponent field 24 and 23; 151
  // pairs of k (two blocks, so an exactly computed tile spans both); C with
  // a leading dimension larger than n. Every kernel gives the order's bits.
  std::mt19937 random(19);
  const int64_t m = 13, n = 37, k = 301, ldc = n + 5;
  for (int sum : {142, 141}) {
    Stored a = makeMatrix(m, k, Layout::RowMajor, random, 1.0f);
    Stored b = makeMatrix(k, n, Layout::ColumnMajor, random, 1.0f);
    // One element of each at the least exponents: fields 71 and sum - 71.
    a.data[2 * k + 7] = uint16_t((71 << 7) | 0x15);
    b.data[3 * k + 7] = uint16_t(((sum - 71) << 7) | 0x2A);
    std::vector<float> c0(size_t(m * ldc));
    std::normal_distribution<float> normal(0.0f, 1.0f);
    for (float &value : c0)
      value = normal(random);
    c0[2 * ldc + 3] = std::ldexp(1.5f, 24 - 127);  // field 24
    c0[9 * ldc + 30] = std::ldexp(1.25f, 23 - 127); // field 23
    std::vector<float> reference = c0;
    bf16Gemm(Bf16GemmKernel::Scalar, m, n, k, a.view, b.view,
             reference.data(), ldc);
    for (Bf16GemmKernel kernel : kAllKernels) {
      if (kernel == Bf16GemmKernel::Scalar || !cpuRuns(kernel))
        continue;
      std::vector<float> c = c0;
      bf16Gemm(kernel, m, n, k, a.view, b.view, c.data(), ldc);
      for (size_t i = 0; i < c.size(); ++i)
        ASSERT_EQ(bitsOf(c[i]), bitsOf(reference[i]))
            << "exponent sum " << sum << ", kernel "
            << bf16GemmKernelName(kernel) << ", element " << i;
    }
  }
}

TEST(Bf16Gemm, SpecialValuesAgreeOnEveryKernel) {
  // An infinity in A: every kernel agrees on the infinities and NaNs it
  // makes (NaNs compare by class: which NaN is not part of the contract).
  std::mt19937 random(13);
  Stored a = makeMatrix(9, 40, Layout::RowMajor, random, 1.0f);
  Stored b = makeMatrix(40, 33, Layout::RowMajor, random, 1.0f);
  a.data[3] = 0x7F80; // +inf
  std::vector<float> c0(9 * 33, 0.0f);
  std::vector<float> reference = run(Bf16GemmKernel::Scalar, a, b, c0);
  for (Bf16GemmKernel kernel : kAllKernels) {
    if (!cpuRuns(kernel))
      continue;
    std::vector<float> c = run(kernel, a, b, c0);
    for (size_t i = 0; i < c.size(); ++i) {
      if (std::isnan(reference[i]))
        EXPECT_TRUE(std::isnan(c[i])) << bf16GemmKernelName(kernel) << " " << i;
      else
        EXPECT_EQ(bitsOf(c[i]), bitsOf(reference[i]))
            << bf16GemmKernelName(kernel) << " " << i;
    }
  }
}

TEST(Bf16Gemm, TheCpusFastestKernelIsSelected) {
  if (std::getenv("PRECRT_BF16_GEMM_KERNEL"))
    GTEST_SKIP() << "PRECRT_BF16_GEMM_KERNEL chooses the kernel";
  Bf16GemmKernel kernel;
  std::string message;
  ASSERT_EQ(selectedBf16GemmKernel(kernel, message), PRECRT_SUCCESS) << message;
  EXPECT_TRUE(cpuRuns(kernel));
  for (Bf16GemmKernel faster : kAllKernels) {
    if (faster == kernel)
      break;
    EXPECT_FALSE(cpuRuns(faster)) << bf16GemmKernelName(faster);
  }
}

} // namespace
