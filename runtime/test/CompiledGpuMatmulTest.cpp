//===- CompiledGpuMatmulTest.cpp - precrtCompiledGpuMatmul ----------------===//
//
// The GPU gemm against the test cuBLASLt (FakeCublasLt.cpp), which refuses
// inconsistent descriptors, host pointers and reduced-precision compute, and
// computes the product on the host under prec's contract. The results are
// compared with a float64 reference; the test double's own checks are
// tested by handing it wrong descriptors directly.
//
//===----------------------------------------------------------------------===//

#include "FakeGpuTestUtil.h"

#include "precrt/compiled.h"
#include "precrt/gpu.h"
#include "precrt/numerics.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstring>
#include <random>

using namespace precrt_fake_gpu_test;

namespace {

/// Runs `body` on one rank of a local world (a driver watches it, so a
/// failed entry point is the rank's error instead of the process's end).
void onLocalRank(const std::function<void()> &body) {
  EXPECT_EQ(precrtLocalRun(
                1,
                [](precrt_comm_t, void *data) {
                  (*static_cast<const std::function<void()> *>(data))();
                  return 0;
                },
                const_cast<std::function<void()> *>(&body)),
            PRECRT_SUCCESS);
}

/// A counter of the test cuBLASLt; 0 before precrt loads it.
int fakeHook(const char *name) {
  auto hook = fakeSymbol<int (*)()>(PRECRT_FAKE_CUBLASLT, name);
  return hook ? hook() : 0;
}

/// A host matrix of one dtype, its elements also as doubles.
struct HostMatrix {
  precrt_dtype_t dtype;
  std::vector<uint8_t> bytes;
  std::vector<double> values;
};

size_t dtypeBytes(precrt_dtype_t dtype) {
  return dtype == PRECRT_DTYPE_F32 ? 4 : 2;
}

double readElement(precrt_dtype_t dtype, const uint8_t *bytes, size_t i) {
  using namespace precrt::numerics;
  if (dtype == PRECRT_DTYPE_F32) {
    float value;
    std::memcpy(&value, bytes + 4 * i, 4);
    return value;
  }
  uint16_t bits;
  std::memcpy(&bits, bytes + 2 * i, 2);
  return decode(bits, dtype == PRECRT_DTYPE_F16 ? kF16 : kBF16);
}

HostMatrix randomMatrix(precrt_dtype_t dtype, size_t elements,
                        std::mt19937 &random) {
  using namespace precrt::numerics;
  std::uniform_real_distribution<float> uniform(-2.0f, 2.0f);
  HostMatrix matrix{
      dtype, std::vector<uint8_t>(elements * dtypeBytes(dtype)), {}};
  for (size_t i = 0; i < elements; ++i) {
    float value = uniform(random);
    if (dtype == PRECRT_DTYPE_F32) {
      std::memcpy(matrix.bytes.data() + 4 * i, &value, 4);
    } else {
      auto bits = uint16_t(
          encodeNearestEven(value, dtype == PRECRT_DTYPE_F16 ? kF16 : kBF16));
      std::memcpy(matrix.bytes.data() + 2 * i, &bits, 2);
    }
    matrix.values.push_back(readElement(dtype, matrix.bytes.data(), i));
  }
  return matrix;
}

/// Unit roundoff of a dtype.
double roundoff(precrt_dtype_t dtype) {
  switch (dtype) {
  case PRECRT_DTYPE_BF16:
    return std::ldexp(1.0, -8);
  case PRECRT_DTYPE_F16:
    return std::ldexp(1.0, -11);
  default:
    return std::ldexp(1.0, -24);
  }
}

struct Strides {
  int64_t batch, row, col;
};

struct Case {
  const char *name;
  precrt_dtype_t in, out;
  int64_t batch, m, n, k;
  /// A and B column-major (transposed as the generated backward reads
  /// them), C column-major, B broadcast over the batch.
  bool aColumnMajor, bColumnMajor, cColumnMajor, bBroadcast;
  /// Elements before A's and C's first (a view at an offset, which
  /// cuBLASLt must not assume aligned).
  int64_t offset = 0;
};

Strides layoutStrides(int64_t rows, int64_t cols, bool columnMajor,
                      bool broadcast) {
  Strides strides = columnMajor ? Strides{rows * cols, 1, rows}
                                : Strides{rows * cols, cols, 1};
  if (broadcast)
    strides.batch = 0;
  return strides;
}

void runCase(const Case &c) {
  SCOPED_TRACE(c.name);
  std::mt19937 random(7);
  Strides sa = layoutStrides(c.m, c.k, c.aColumnMajor, false);
  Strides sb = layoutStrides(c.k, c.n, c.bColumnMajor, c.bBroadcast);
  Strides sc = layoutStrides(c.m, c.n, c.cColumnMajor, false);
  HostMatrix a = randomMatrix(c.in, c.offset + c.batch * c.m * c.k, random);
  HostMatrix b =
      randomMatrix(c.in, (c.bBroadcast ? 1 : c.batch) * c.k * c.n, random);
  HostMatrix out = randomMatrix(c.out, c.offset + c.batch * c.m * c.n, random);

  void *da = toDevice(a.bytes), *db = toDevice(b.bytes),
       *dc = toDevice(out.bytes);
  char *aView = static_cast<char *>(da) + c.offset * dtypeBytes(c.in);
  char *cView = static_cast<char *>(dc) + c.offset * dtypeBytes(c.out);
  void *stream = precrtCompiledGpuStream();
  ASSERT_NE(stream, nullptr);
  int gemmsBefore = fakeHook("fakeCublasLtGemms");
  ASSERT_EQ(precrtCompiledGpuMatmul(c.batch, c.m, c.n, c.k, c.in, aView,
                                    sa.batch, sa.row, sa.col, c.in, db,
                                    sb.batch, sb.row, sb.col, c.out, cView,
                                    sc.batch, sc.row, sc.col,
                                    nullptr, nullptr, PRECRT_REDUCED_PRECISION_NONE, stream),
            PRECRT_SUCCESS)
      << precrtCompiledGetError();
  EXPECT_EQ(fakeHook("fakeCublasLtGemms"), gemmsBefore + 1);
  ASSERT_EQ(precrtGpuStreamSynchronize(stream), PRECRT_SUCCESS);
  std::vector<uint8_t> result = toHost(dc, out.bytes.size());
  precrtGpuFree(da);
  precrtGpuFree(db);

  // Each element: k products and C summed in f32 in some order, then
  // rounded once to C's dtype. Products of bf16 and f16 values are exact in
  // f32, f32 products are rounded once; so the computed value lies within
  // (k + 1) u_f32 sum|terms| of the exact sum (Higham, recursive summation,
  // first order, doubled for second-order terms and the product roundings),
  // and the final rounding adds u_out |exact| (+ the same for the error).
  double uSum = roundoff(PRECRT_DTYPE_F32);
  double uOut = c.out == PRECRT_DTYPE_F32 ? 0 : roundoff(c.out);
  for (int64_t batch = 0; batch < c.batch; ++batch)
    for (int64_t i = 0; i < c.m; ++i)
      for (int64_t j = 0; j < c.n; ++j) {
        size_t ci = c.offset + batch * sc.batch + i * sc.row + j * sc.col;
        double exact = out.values[ci], magnitude = std::fabs(out.values[ci]);
        for (int64_t p = 0; p < c.k; ++p) {
          double term =
              a.values[c.offset + batch * sa.batch + i * sa.row + p * sa.col] *
              b.values[batch * sb.batch + p * sb.row + j * sb.col];
          exact += term;
          magnitude += std::fabs(term);
        }
        double sumError = 2 * (c.k + 1) * uSum * magnitude;
        double tolerance = sumError + uOut * (std::fabs(exact) + sumError);
        double got = readElement(c.out, result.data(), ci);
        ASSERT_LE(std::fabs(got - exact), tolerance)
            << "element [" << batch << "][" << i << "][" << j << "]";
      }
}

TEST(CompiledGpuMatmul, LayoutsAndDtypesAgainstFloat64) {
  ASSERT_EQ(
      precrtLocalRun(
          1,
          [](precrt_comm_t, void *) {
            const Case cases[] = {
                {"f32 row-major", PRECRT_DTYPE_F32, PRECRT_DTYPE_F32, 1, 5, 7,
                 9, false, false, false, false},
                {"bf16 A^T B -> f32", PRECRT_DTYPE_BF16, PRECRT_DTYPE_F32, 1, 6,
                 3, 17, true, false, false, false},
                {"bf16 A B^T -> bf16", PRECRT_DTYPE_BF16, PRECRT_DTYPE_BF16, 1,
                 4, 8, 33, false, true, false, false},
                {"f16 column-major C", PRECRT_DTYPE_F16, PRECRT_DTYPE_F16, 1, 5,
                 6, 7, true, true, true, false},
                {"batched bf16, B broadcast", PRECRT_DTYPE_BF16,
                 PRECRT_DTYPE_F32, 3, 4, 5, 6, false, false, false, true},
                {"batched f32, A^T, one row", PRECRT_DTYPE_F32,
                 PRECRT_DTYPE_F32, 2, 1, 5, 4, true, false, false, false},
                {"one column", PRECRT_DTYPE_F32, PRECRT_DTYPE_F32, 1, 6, 1, 3,
                 false, true, false, false},
                {"bf16 views one element in", PRECRT_DTYPE_BF16,
                 PRECRT_DTYPE_BF16, 2, 3, 5, 7, false, true, false, false, 1},
            };
            for (const Case &c : cases)
              runCase(c);
            EXPECT_EQ(precrtCompiledGetError(), nullptr);
            return 0;
          },
          nullptr),
      PRECRT_SUCCESS);
}

TEST(CompiledGpuMatmul, HandleAndWorkspaceOncePerDevice) {
  ASSERT_EQ(precrtLocalRun(
                1,
                [](precrt_comm_t, void *) {
                  void *buffer = toDevice(std::vector<uint8_t>(16));
                  void *stream = precrtCompiledGpuStream();
                  auto gemm = [&] {
                    return precrtCompiledGpuMatmul(
                        1, 2, 2, 1, PRECRT_DTYPE_F32, buffer, 0, 1, 1,
                        PRECRT_DTYPE_F32, buffer, 0, 2, 1, PRECRT_DTYPE_F32,
                        static_cast<char *>(buffer) + 0, 0, 2, 1,
                        nullptr, nullptr, PRECRT_REDUCED_PRECISION_NONE, stream);
                  };
                  EXPECT_EQ(gemm(), PRECRT_SUCCESS);
                  int handles = fakeHook("fakeCublasLtHandles");
                  EXPECT_GE(handles, 1);
                  EXPECT_EQ(gemm(), PRECRT_SUCCESS);
                  EXPECT_EQ(fakeHook("fakeCublasLtHandles"), handles);
                  precrtGpuStreamSynchronize(stream);
                  precrtGpuFree(buffer);
                  return 0;
                },
                nullptr),
            PRECRT_SUCCESS);
}

TEST(CompiledGpuMatmul, UnsupportedOperandsAreTheRanksError) {
  ASSERT_EQ(precrtLocalRun(
                1,
                [](precrt_comm_t, void *) {
                  void *buffer = toDevice(std::vector<uint8_t>(64));
                  void *stream = precrtCompiledGpuStream();
                  // f32 x bf16: cuBLASLt takes one input type.
                  EXPECT_EQ(precrtCompiledGpuMatmul(
                                1, 2, 2, 2, PRECRT_DTYPE_F32, buffer, 0, 2, 1,
                                PRECRT_DTYPE_BF16, buffer, 0, 2, 1,
                                PRECRT_DTYPE_F32, buffer, 0, 2, 1,
                                nullptr, nullptr, PRECRT_REDUCED_PRECISION_NONE, stream),
                            PRECRT_ERROR_INVALID_ARGUMENT);
                  std::string error = precrtCompiledGetError();
                  EXPECT_NE(error.find("f32 x bf16 -> f32"), std::string::npos)
                      << error;
                  precrtCompiledClearError();
                  // A with no unit stride.
                  EXPECT_EQ(precrtCompiledGpuMatmul(
                                1, 2, 2, 2, PRECRT_DTYPE_F32, buffer, 0, 4, 2,
                                PRECRT_DTYPE_F32, buffer, 0, 2, 1,
                                PRECRT_DTYPE_F32, buffer, 0, 2, 1,
                                nullptr, nullptr, PRECRT_REDUCED_PRECISION_NONE, stream),
                            PRECRT_ERROR_INVALID_ARGUMENT);
                  error = precrtCompiledGetError();
                  EXPECT_NE(error.find("no contiguous rows or columns"),
                            std::string::npos)
                      << error;
                  precrtCompiledClearError();
                  precrtGpuFree(buffer);
                  return 0;
                },
                nullptr),
            PRECRT_SUCCESS);
}

/// C = A B of a 1 x k row A and a k x 1 column B, with C zero, on the
/// rank's stream under `reducedPrecision`; the value of C, or NaN with the
/// rank's error printed when the call fails.
double dotProduct(precrt_dtype_t dtype, const std::vector<float> &a,
                  const std::vector<float> &b, int32_t reducedPrecision) {
  using namespace precrt::numerics;
  auto bytesOf = [&](const std::vector<float> &values) {
    std::vector<uint8_t> bytes(values.size() * dtypeBytes(dtype));
    for (size_t i = 0; i < values.size(); ++i) {
      if (dtype == PRECRT_DTYPE_F32) {
        std::memcpy(bytes.data() + 4 * i, &values[i], 4);
      } else {
        auto bits = uint16_t(encodeNearestEven(
            values[i], dtype == PRECRT_DTYPE_F16 ? kF16 : kBF16));
        std::memcpy(bytes.data() + 2 * i, &bits, 2);
      }
    }
    return bytes;
  };
  int64_t k = int64_t(a.size());
  void *da = toDevice(bytesOf(a)), *db = toDevice(bytesOf(b));
  void *dc = toDevice(bytesOf({0.0f}));
  void *stream = precrtCompiledGpuStream();
  int32_t status = precrtCompiledGpuMatmul(
      1, 1, 1, k, dtype, da, k, k, 1, dtype, db, k, 1, 1, dtype, dc, 1, 1, 1,
      nullptr, nullptr, reducedPrecision, stream);
  double result = std::nan("");
  if (status == PRECRT_SUCCESS && precrtGpuStreamSynchronize(stream) == 0) {
    result = readElement(dtype, toHost(dc, dtypeBytes(dtype)).data(), 0);
  } else {
    std::fprintf(stderr, "gemm failed: %s\n", precrtCompiledGetError());
    precrtGpuFree(dc);
  }
  precrtCompiledClearError();
  precrtGpuFree(da);
  precrtGpuFree(db);
  return result;
}

// What a program's #prec.reduced_precision allows reaches cuBLASLt, and
// nothing more: with the test double computing as cuBLASLt would
// (FAKE_CUBLASLT_REDUCED_PRECISION=1), 256 terms of 1 + 2^-12 sum to
// 256 + 2^-4 exactly in f32 and to 256 with TF32 inputs (1 + 2^-12 needs 12
// mantissa bits, TF32 has 10); bf16 terms 1, 3 * 2^-10, 3 * 2^-10, 0 give
// 1 + 2^-7 rounded once (the exact 1 + 6 * 2^-10 lies above the midpoint)
// and 1 in two split-K halves rounded to bf16 (1 + 3 * 2^-10 lies below it).
TEST(CompiledGpuMatmul, ReducedPrecisionOnlyWhereTheProgramAllowsIt) {
  expectInFreshProcess([] {
    setenv("FAKE_CUBLASLT_REDUCED_PRECISION", "1", 1);
    bool ok = true;
    precrtLocalRun(
        1,
        [](precrt_comm_t, void *data) {
          bool &ok = *static_cast<bool *>(data);
          auto expect = [&](const char *what, double got, double expected) {
            if (got != expected) {
              std::fprintf(stderr, "%s: got %.10g, expected %.10g\n", what,
                           got, expected);
              ok = false;
            }
          };
          std::vector<float> ones(256, 1.0f), terms(256, 1.0f + 0x1p-12f);
          expect("f32", dotProduct(PRECRT_DTYPE_F32, terms, ones, 0),
                 256.0 + 0x1p-4);
          expect("f32, output_type_reduction",
                 dotProduct(PRECRT_DTYPE_F32, terms, ones,
                            PRECRT_REDUCED_PRECISION_OUTPUT_TYPE_REDUCTION),
                 256.0 + 0x1p-4);
          expect("f32, tf32",
                 dotProduct(PRECRT_DTYPE_F32, terms, ones,
                            PRECRT_REDUCED_PRECISION_TF32),
                 256.0);
          std::vector<float> split = {1.0f, 3 * 0x1p-10f, 3 * 0x1p-10f, 0.0f};
          std::vector<float> four(4, 1.0f);
          expect("bf16", dotProduct(PRECRT_DTYPE_BF16, split, four, 0),
                 1.0 + 0x1p-7);
          expect("bf16, tf32",
                 dotProduct(PRECRT_DTYPE_BF16, split, four,
                            PRECRT_REDUCED_PRECISION_TF32),
                 1.0 + 0x1p-7);
          expect("bf16, output_type_reduction",
                 dotProduct(PRECRT_DTYPE_BF16, split, four,
                            PRECRT_REDUCED_PRECISION_OUTPUT_TYPE_REDUCTION),
                 1.0);
          // Bits no precrt_reduced_precision_t has are refused.
          void *buffer = toDevice(std::vector<uint8_t>(16));
          if (precrtCompiledGpuMatmul(1, 1, 1, 1, PRECRT_DTYPE_F32, buffer, 0,
                                      1, 1, PRECRT_DTYPE_F32, buffer, 0, 1, 1,
                                      PRECRT_DTYPE_F32, buffer, 0, 1, 1, nullptr,
                                      nullptr, 8,
                                      precrtCompiledGpuStream()) !=
              PRECRT_ERROR_INVALID_ARGUMENT) {
            std::fprintf(stderr, "reduced-precision bit 8 was taken\n");
            ok = false;
          }
          precrtGpuFree(buffer);
          return 0;
        },
        &ok);
    return ok;
  });
  // The strict double (the default) refuses TF32: the runtime asks for it
  // exactly when told to.
  expectInFreshProcess([] {
    bool ok = true;
    precrtLocalRun(
        1,
        [](precrt_comm_t, void *data) {
          std::vector<float> ones(4, 1.0f);
          // (A failed call is the rank's first error, which every later
          // one returns: the refused call comes last.)
          *static_cast<bool *>(data) =
              dotProduct(PRECRT_DTYPE_F32, ones, ones, 0) == 4.0 &&
              std::isnan(dotProduct(PRECRT_DTYPE_F32, ones, ones,
                                    PRECRT_REDUCED_PRECISION_TF32));
          return 0;
        },
        &ok);
    return ok;
  });
}

/// A host fp8 matrix of `elements` random values within the format's range.
HostMatrix randomFp8(precrt_dtype_t dtype, size_t elements,
                     std::mt19937 &random) {
  using namespace precrt::numerics;
  const NarrowFormat &format =
      dtype == PRECRT_DTYPE_F8E4M3FN ? kF8E4M3FN : kF8E5M2;
  std::uniform_real_distribution<float> uniform(-24.0f, 24.0f);
  HostMatrix matrix{dtype, std::vector<uint8_t>(elements), {}};
  for (size_t i = 0; i < elements; ++i) {
    matrix.bytes[i] = uint8_t(encodeNearestEven(uniform(random), format));
    matrix.values.push_back(decode(matrix.bytes[i], format));
  }
  return matrix;
}

/// C (m x n, row-major) += aScale * bScale * A B for fp8 A (m x k,
/// row-major) and B (k x n with a unit stride along k, as a weight [n, k]
/// is stored), against float64: the fp8 products are exact in f32, their
/// sum within (k + 1) u_f32 sum |a b| (doubled, as above), the scales'
/// product and its multiplication add 2 u_f32 |scaled sum|, C's addition and
/// the output's rounding u_out.
void runFp8Case(precrt_dtype_t aType, precrt_dtype_t bType,
                precrt_dtype_t out,
                const std::vector<std::array<float, 2>> &scaleSets = {
                    {0.375f, 3.0e-3f}},
                int64_t k = 48) {
  SCOPED_TRACE(std::string(precrtDtypeName(aType)) + " x " +
               precrtDtypeName(bType) + " -> " + precrtDtypeName(out));
  const int64_t m = 5, n = 7;
  std::mt19937 random(11);
  HostMatrix a = randomFp8(aType, m * k, random);
  HostMatrix b = randomFp8(bType, k * n, random);
  HostMatrix c = randomMatrix(out, m * n, random);
  // The same operands for every set of scales, each set at its own
  // device address: only the scales change from one gemm to the next.
  void *da = toDevice(a.bytes), *db = toDevice(b.bytes),
       *dc = toDevice(c.bytes),
       *ds = toDevice(std::vector<uint8_t>(scaleSets.size() * 2 * sizeof(float)));
  void *stream = precrtCompiledGpuStream();
  for (size_t set = 0; set < scaleSets.size(); ++set) {
    const std::array<float, 2> &scales = scaleSets[set];
    SCOPED_TRACE("scales " + std::to_string(scales[0]) + ", " +
                 std::to_string(scales[1]));
    const float *aScale = static_cast<const float *>(ds) + 2 * set;
    ASSERT_EQ(precrtGpuMemcpyAsync(const_cast<float *>(aScale), scales.data(),
                                   sizeof(scales), stream),
              PRECRT_SUCCESS);
    ASSERT_EQ(precrtGpuMemcpyAsync(dc, c.bytes.data(), c.bytes.size(), stream),
              PRECRT_SUCCESS);
    int gemmsBefore = fakeHook("fakeCublasLtGemms");
    ASSERT_EQ(precrtCompiledGpuMatmul(
                  1, m, n, k, aType, da, 0, k, 1, bType, db, 0, 1, k, out, dc,
                  0, n, 1, aScale, aScale + 1,
                  PRECRT_REDUCED_PRECISION_FP8_ACCUMULATION, stream),
              PRECRT_SUCCESS)
        << precrtCompiledGetError();
    EXPECT_EQ(fakeHook("fakeCublasLtGemms"), gemmsBefore + 1);
    ASSERT_EQ(precrtGpuStreamSynchronize(stream), PRECRT_SUCCESS);
    std::vector<uint8_t> result(c.bytes.size());
    ASSERT_EQ(precrtGpuMemcpyAsync(result.data(), dc, result.size(), nullptr),
              PRECRT_SUCCESS);
    double scale = double(scales[0]) * double(scales[1]);
    double u = roundoff(PRECRT_DTYPE_F32);
    double uOut = out == PRECRT_DTYPE_F32 ? u : roundoff(out);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double sum = 0, magnitude = 0;
        for (int64_t p = 0; p < k; ++p) {
          double term = a.values[i * k + p] * b.values[j * k + p];
          sum += term;
          magnitude += std::fabs(term);
        }
        double initial = c.values[i * n + j];
        double exact = initial + scale * sum;
        double scaledError = std::fabs(scale) * 2 * (k + 1) * u * magnitude +
                             2 * u * std::fabs(scale * sum);
        double tolerance = scaledError +
                           uOut * (std::fabs(exact) + scaledError) +
                           u * (std::fabs(initial) + std::fabs(scale * sum));
        double got = readElement(out, result.data(), i * n + j);
        ASSERT_LE(std::fabs(got - exact), tolerance)
            << "element [" << i << "][" << j << "]";
      }
  }
  precrtGpuFree(da);
  precrtGpuFree(db);
  precrtGpuFree(dc);
  precrtGpuFree(ds);
}

TEST(CompiledGpuMatmul, Fp8OperandsWithTheirScalesAgainstFloat64) {
  onLocalRank([] {
    runFp8Case(PRECRT_DTYPE_F8E4M3FN, PRECRT_DTYPE_F8E4M3FN, PRECRT_DTYPE_F32);
    runFp8Case(PRECRT_DTYPE_F8E4M3FN, PRECRT_DTYPE_F8E5M2, PRECRT_DTYPE_BF16);
    runFp8Case(PRECRT_DTYPE_F8E5M2, PRECRT_DTYPE_F8E4M3FN, PRECRT_DTYPE_F16);
    EXPECT_EQ(precrtCompiledGetError(), nullptr);
  });
}

TEST(CompiledGpuMatmul, PlansAreMadeOncePerGemmAndTakeEachCallsScales) {
  // Shapes no other test uses: a thread keeps its plans for the life of the
  // process.
  onLocalRank([] {
    // The same fp8 gemm with other scales reuses the plan and computes with
    // each call's scales (the float64 check of runFp8Case).
    const int64_t k = 80;
    int queries = fakeHook("fakeCublasLtHeuristicQueries");
    runFp8Case(PRECRT_DTYPE_F8E4M3FN, PRECRT_DTYPE_F8E4M3FN, PRECRT_DTYPE_F32,
               {{0.375f, 3.0e-3f}, {-2.5f, 0.125f}, {1.0f, 1.0f}}, k);
    EXPECT_EQ(fakeHook("fakeCublasLtHeuristicQueries"), queries + 1);
  });
  ASSERT_EQ(precrtLocalRun(
                1,
                [](precrt_comm_t, void *) {
                  void *buffer = toDevice(std::vector<uint8_t>(64));
                  void *stream = precrtCompiledGpuStream();
                  auto gemm = [&](int64_t m) {
                    return precrtCompiledGpuMatmul(
                        1, m, 3, 1, PRECRT_DTYPE_F32, buffer, 0, 1, 1,
                        PRECRT_DTYPE_F32, buffer, 0, 3, 1, PRECRT_DTYPE_F32,
                        static_cast<char *>(buffer) + 32, 0, 3, 1, nullptr,
                        nullptr, PRECRT_REDUCED_PRECISION_NONE, stream);
                  };
                  int queries = fakeHook("fakeCublasLtHeuristicQueries");
                  for (int call = 0; call < 3; ++call)
                    EXPECT_EQ(gemm(2), PRECRT_SUCCESS);
                  EXPECT_EQ(fakeHook("fakeCublasLtHeuristicQueries"),
                            queries + 1);
                  EXPECT_EQ(gemm(1), PRECRT_SUCCESS);
                  EXPECT_EQ(fakeHook("fakeCublasLtHeuristicQueries"),
                            queries + 2);
                  precrtGpuStreamSynchronize(stream);
                  precrtGpuFree(buffer);
                  return 0;
                },
                nullptr),
            PRECRT_SUCCESS);
}

/// An fp8 gemm of 2 x 2 x 16 on the rank's stream with B's strides `bRow`
/// and `bCol` and the scales given (or not); the rank's error, "" if none.
std::string fp8GemmError(int64_t bRow, int64_t bCol, bool withScales,
                         precrt_dtype_t bType = PRECRT_DTYPE_F8E4M3FN,
                         int32_t reducedPrecision =
                             PRECRT_REDUCED_PRECISION_FP8_ACCUMULATION) {
  void *buffer = toDevice(std::vector<uint8_t>(256));
  const float *scale = static_cast<const float *>(buffer);
  int32_t status = precrtCompiledGpuMatmul(
      1, 2, 2, 16, PRECRT_DTYPE_F8E4M3FN, static_cast<char *>(buffer) + 64, 0,
      16, 1, bType, static_cast<char *>(buffer) + 128, 0, bRow, bCol,
      PRECRT_DTYPE_F32, static_cast<char *>(buffer) + 192, 0, 2, 1,
      withScales ? scale : nullptr, withScales ? scale : nullptr,
      reducedPrecision, precrtCompiledGpuStream());
  const char *error = precrtCompiledGetError();
  std::string message =
      status == PRECRT_SUCCESS ? "" : (error ? error : "(no message)");
  precrtGpuStreamSynchronize(precrtCompiledGpuStream());
  precrtGpuFree(buffer);
  return message;
}

TEST(CompiledGpuMatmul, Fp8OperandsCuBlasLtCannotTakeAreRefused) {
  // Each in its own process: a failure is the rank's first error, which
  // every later call returns.
  auto refused = [](std::function<std::string()> gemm, const char *expected,
                    const char *capability = nullptr) {
    expectInFreshProcess([=] {
      if (capability)
        setenv("FAKE_CUDA_COMPUTE_CAPABILITY", capability, 1);
      std::pair<std::function<std::string()>, std::string> state{gemm, ""};
      precrtLocalRun(
          1,
          [](precrt_comm_t, void *data) {
            auto *state = static_cast<
                std::pair<std::function<std::string()>, std::string> *>(data);
            state->second = state->first();
            return 0;
          },
          &state);
      if (state.second.find(expected) != std::string::npos)
        return true;
      std::fprintf(stderr, "got: %s\n", state.second.c_str());
      return false;
    });
  };
  // B with a unit stride along n, not k.
  refused([] { return fp8GemmError(2, 1, true); },
          "need a unit stride along k, the layout of cuBLASLt's fp8 gemm");
  refused([] { return fp8GemmError(1, 16, false); },
          "GPU gemm of fp8 operands without A's scale");
  refused([] { return fp8GemmError(1, 16, true, PRECRT_DTYPE_BF16); },
          "cuBLASLt's fp8 gemm takes A and B fp8");
  refused(
      [] {
        return fp8GemmError(1, 16, true, PRECRT_DTYPE_F8E4M3FN,
                            PRECRT_REDUCED_PRECISION_NONE);
      },
      "GPU gemm of fp8 operands without the program's permission");
  refused([] { return fp8GemmError(1, 16, true); },
          "compute capability 8.0: cuBLASLt's fp8 gemm needs 8.9 or later",
          "8.0");
  // And what is right runs.
  expectInFreshProcess([] {
    std::string error = "unset";
    precrtLocalRun(
        1,
        [](precrt_comm_t, void *data) {
          *static_cast<std::string *>(data) = fp8GemmError(1, 16, true);
          return 0;
        },
        &error);
    if (!error.empty())
      std::fprintf(stderr, "got: %s\n", error.c_str());
    return error.empty();
  });
}

TEST(CompiledGpuMatmul, MissingOrOldLibraryIsReported) {
  auto failure = [](const char *variable, const char *value,
                    const char *expected) {
    expectInFreshProcess([=] {
      setenv(variable, value, 1);
      std::pair<const char *, bool> result{expected, false};
      precrtLocalRun(
          1,
          [](precrt_comm_t, void *data) {
            auto *result = static_cast<std::pair<const char *, bool> *>(data);
            void *buffer = toDevice(std::vector<uint8_t>(16));
            int32_t status = precrtCompiledGpuMatmul(
                1, 1, 1, 1, PRECRT_DTYPE_F32, buffer, 0, 1, 1, PRECRT_DTYPE_F32,
                buffer, 0, 1, 1, PRECRT_DTYPE_F32, buffer, 0, 1, 1,
                nullptr, nullptr, PRECRT_REDUCED_PRECISION_NONE, precrtCompiledGpuStream());
            const char *error = precrtCompiledGetError();
            result->second = status == PRECRT_ERROR_UNAVAILABLE && error &&
                             std::strstr(error, result->first);
            if (!result->second)
              std::fprintf(stderr, "got: %s\n", error ? error : "(none)");
            return 0;
          },
          &result);
      return result.second;
    });
  };
  failure("PRECRT_CUBLASLT_LIBRARY", "/nonexistent/libcublasLt.so.13",
          "cuBLASLt unavailable: cannot load /nonexistent/libcublasLt.so.13");
  failure("FAKE_CUBLASLT_VERSION", "110800",
          "version 11.8.0 is older than the 12.0.0 precrt needs");
}

/// The test cuBLASLt's own checks, given descriptors directly.
class FakeCublasLtChecks : public ::testing::Test {
protected:
  using Status = int;
  template <typename Function> Function entry(const char *name) {
    void *handle = dlopen(PRECRT_FAKE_CUBLASLT, RTLD_NOW);
    EXPECT_NE(handle, nullptr);
    return reinterpret_cast<Function>(dlsym(handle, name));
  }

  /// A 4 x 3 (A, f32) times 3 x 2 (B) gemm, column-major, with `edit`
  /// applied to the descriptors before the call; returns the status.
  Status gemm(const std::function<void(void *desc, void *&a, void *&b, void *&d,
                                       int *computeType, uint32_t *mask)> &edit,
              bool hostA = false, int outType = 0, bool assume256 = false) {
    auto descCreate =
        entry<Status (*)(void **, int, int)>("cublasLtMatmulDescCreate");
    auto layoutCreate =
        entry<Status (*)(void **, int, uint64_t, uint64_t, int64_t)>(
            "cublasLtMatrixLayoutCreate");
    auto create = entry<Status (*)(void **)>("cublasLtCreate");
    auto preferenceCreate =
        entry<Status (*)(void **)>("cublasLtMatmulPreferenceCreate");
    auto preferenceSet = entry<Status (*)(void *, int, const void *, size_t)>(
        "cublasLtMatmulPreferenceSetAttribute");
    auto heuristic =
        entry<Status (*)(void *, void *, void *, void *, void *, void *, void *,
                         int, void *, int *)>("cublasLtMatmulAlgoGetHeuristic");
    auto matmul = entry<Status (*)(
        void *, void *, const void *, const void *, void *, const void *,
        void *, const void *, const void *, void *, void *, void *,
        const void *, void *, size_t, void *)>("cublasLtMatmul");

    Status status = 0;
    if (auto clear = fakeSymbol<const char *(*)()>(PRECRT_FAKE_CUBLASLT,
                                                   "fakeCublasLtLastRefusal"))
      const_cast<char *>(clear())[0] = 0;
    onLocalRank([&] {
      // A context on this thread, as precrt's calls have.
      void *stream = precrtCompiledGpuStream();
      auto push = fakeSymbol<int (*)(void *)>(PRECRT_FAKE_CUDA_DRIVER,
                                              "cuCtxPushCurrent_v2");
      auto pop = fakeSymbol<int (*)(void **)>(PRECRT_FAKE_CUDA_DRIVER,
                                              "cuCtxPopCurrent_v2");
      ASSERT_TRUE(push && pop);
      push(nullptr);
      struct Pop {
        int (*pop)(void **);
        ~Pop() {
          void *popped;
          pop(&popped);
        }
      } popLater{pop};
      void *device = nullptr;
      precrtGpuMalloc(&device, 1 << 21);
      std::vector<float> host(12);
      int computeType = 68;
      uint32_t mask = outType == 0 ? 0x3 : 0x2;
      void *handle, *desc, *a, *b, *d, *preference;
      create(&handle);
      layoutCreate(&a, 0, 4, 3, 4);
      layoutCreate(&b, 0, 3, 2, 3);
      layoutCreate(&d, outType, 4, 2, 4);
      edit(nullptr, a, b, d, &computeType, &mask);
      descCreate(&desc, computeType, 0);
      edit(desc, a, b, d, &computeType, &mask);
      preferenceCreate(&preference);
      uint64_t workspace = 1 << 20;
      preferenceSet(preference, 1, &workspace, 8);
      preferenceSet(preference, 3, &mask, 4);
      // The operands' alignment (the device buffer's, 16 bytes), unless the
      // test keeps cuBLASLt's default of 256.
      for (int attribute = 5; attribute <= 8 && !assume256; ++attribute) {
        uint32_t bytes = 16;
        preferenceSet(preference, attribute, &bytes, 4);
      }
      char result[96] = {};
      int found = 0;
      status =
          heuristic(handle, desc, a, b, d, d, preference, 1, result, &found);
      if (status != 0) {
        precrtGpuFree(device);
        return;
      }
      float one = 1;
      char *base = static_cast<char *>(device);
      const void *aData = hostA ? static_cast<const void *>(host.data()) : base;
      status =
          matmul(handle, desc, &one, aData, a, base + 64, b, &one, base + 128,
                 d, base + 128, d, result, base + (1 << 20), 1 << 20, stream);
      precrtGpuStreamSynchronize(stream);
      precrtGpuFree(device);
    });
    auto refusal = fakeSymbol<const char *(*)()>(PRECRT_FAKE_CUBLASLT,
                                                 "fakeCublasLtLastRefusal");
    refused = refusal ? refusal() : "";
    return status;
  }

  /// Why the latest gemm() was refused.
  std::string refused;

  static void setInt(const char *name, void *target, int attribute,
                     int32_t value) {
    void *handle = dlopen(PRECRT_FAKE_CUBLASLT, RTLD_NOW);
    auto set = reinterpret_cast<int (*)(void *, int, const void *, size_t)>(
        dlsym(handle, name));
    EXPECT_EQ(set(target, attribute, &value, sizeof(value)), 0);
  }
};

TEST_F(FakeCublasLtChecks, ConsistentDescriptorsRun) {
  EXPECT_EQ(gemm([](void *, void *, void *, void *, int *, uint32_t *) {}), 0)
      << refused;
}

TEST_F(FakeCublasLtChecks, WrongLeadingDimensionIsRefused) {
  auto layoutCreate =
      entry<Status (*)(void **, int, uint64_t, uint64_t, int64_t)>(
          "cublasLtMatrixLayoutCreate");
  EXPECT_NE(gemm([&](void *desc, void *&a, void *, void *, int *, uint32_t *) {
              if (!desc)
                layoutCreate(&a, 0, 4, 3, 3); // ld 3 < 4 rows
            }),
            0);
  EXPECT_EQ(refused, "A: leading dimension 3 is less than its 4 rows");
}

TEST_F(FakeCublasLtChecks, MissingTransposeIsRefused) {
  // B^T would be 2 x 3: op(A) 4 x 3 times op(B) 2 x 3 does not fit D.
  EXPECT_NE(gemm([](void *desc, void *, void *, void *, int *, uint32_t *) {
              if (desc)
                setInt("cublasLtMatmulDescSetAttribute", desc, 4, 1);
            }),
            0);
  EXPECT_EQ(refused, "op(A) is 4 x 3 and op(B) 2 x 3 for a D of 4 x 2");
}

TEST_F(FakeCublasLtChecks, Tf32ComputeIsRefused) {
  EXPECT_NE(gemm([](void *desc, void *, void *, void *, int *computeType,
                    uint32_t *) {
              if (!desc)
                *computeType = 77; // CUBLAS_COMPUTE_32F_FAST_TF32
            }),
            0);
  EXPECT_NE(refused.find("compute type 77 is not CUBLAS_COMPUTE_32F"),
            std::string::npos)
      << refused;
}

TEST_F(FakeCublasLtChecks, ReductionsInANarrowOutputAreRefused) {
  // A bf16 D (with bf16 inputs) whose algorithm may sum split-K partial
  // results in bf16.
  auto layoutCreate =
      entry<Status (*)(void **, int, uint64_t, uint64_t, int64_t)>(
          "cublasLtMatrixLayoutCreate");
  auto bf16 = [&](uint32_t reductions) {
    return gemm(
        [&](void *desc, void *&a, void *&b, void *, int *, uint32_t *mask) {
          if (desc)
            return;
          layoutCreate(&a, 14, 4, 3, 4);
          layoutCreate(&b, 14, 3, 2, 3);
          *mask = reductions;
        },
        false, 14);
  };
  EXPECT_EQ(bf16(0x2), 0) << refused;
  EXPECT_NE(bf16(0x7), 0);
  EXPECT_NE(refused.find("split-K partial results in D's type CUDA_R_16BF"),
            std::string::npos)
      << refused;
}

TEST_F(FakeCublasLtChecks, OperandsLessAlignedThanAssumedAreRefused) {
  // The heuristic assumes 256-byte operands unless told; B is 64 bytes in.
  EXPECT_NE(gemm([](void *, void *, void *, void *, int *, uint32_t *) {},
                 false, 0, /*assume256=*/true),
            0);
  EXPECT_NE(refused.find("is not aligned to the 256 bytes the algorithm "
                         "assumes"),
            std::string::npos)
      << refused;
}

TEST_F(FakeCublasLtChecks, HostPointersAreRefused) {
  EXPECT_NE(gemm([](void *, void *, void *, void *, int *, uint32_t *) {},
                 /*hostA=*/true),
            0);
  EXPECT_NE(refused.find("A: 48 bytes at"), std::string::npos) << refused;
  EXPECT_NE(refused.find("are not device memory"), std::string::npos)
      << refused;
}

} // namespace
