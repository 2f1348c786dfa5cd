//===- fp16_avg_main.cpp - examples/fp16_avg.mlir compiled ahead of time --===//
//
// Runs `fp16_average` of examples/fp16_avg.mlir, lowered by prec-lower-to-cuda
// and compiled to an object file, through its C interface
// `_mlir_ciface_fp16_average`, and checks its results against a float64
// reference computed here. The program links precrt statically
// (libprecrt_nompi.a) and loads libcuda.so.1 and libnccl.so.2 at run time.
//
// One rank on GPU 0: the embedded kernels are loaded by constructors that run
// before main, on the main thread's device (0), so one process drives one
// GPU. The build lowers the example with its grid rewritten to one rank.
//
// Exit status: 0 when every result is within its tolerance, 1 on a mismatch
// or when anything fails (no CUDA driver, no NCCL, no GPU, a failed call).
//
//===----------------------------------------------------------------------===//

#include "precrt/compiled.h"
#include "precrt/gpu.h"
#include "precrt/precrt.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <vector>

namespace {

constexpr int64_t kRows = 64;
constexpr int64_t kCols = 16;
constexpr int64_t kElements = kRows * kCols;
/// The grid of the lowered example (`shard.grid @dp(shape = 1)`).
constexpr int kRanks = 1;

/// A memref<64x16xT> as MLIR's C interface passes it.
template <typename T> struct MemRef2D {
  T *allocated;
  T *aligned;
  int64_t offset;
  int64_t sizes[2];
  int64_t strides[2];
};

/// The two results of fp16_average, returned through the first argument.
struct Fp16AverageResults {
  MemRef2D<uint16_t> average; // f16 bits
  MemRef2D<float> weightNext;
};

} // namespace

extern "C" void _mlir_ciface_fp16_average(Fp16AverageResults *results,
                                          MemRef2D<float> *grad,
                                          float lossScale,
                                          MemRef2D<float> *weight, float lr);

namespace {

constexpr float kLossScale = 16384.0f; // 2^14, as in the example
constexpr float kLearningRate = 0.01f;

/// A deterministic hash of (rank, element, stream) for the inputs.
uint32_t mix(uint32_t value) {
  value ^= value >> 16;
  value *= 0x7feb352dU;
  value ^= value >> 15;
  value *= 0x846ca68bU;
  value ^= value >> 16;
  return value;
}

/// The gradient of `rank` at element `i`: a 10-bit mantissa times 2^-e for
/// e in [0, 29], with either sign, so exact in f32. Scaled by 2^14 the values
/// span f16 from 2^14 down to its subnormals (below 2^-14).
float gradient(int rank, int64_t i) {
  uint32_t bits = mix(static_cast<uint32_t>(rank * kElements + i) * 2 + 1);
  double mantissa = 1.0 + (bits & 1023) / 1024.0;
  int exponent = static_cast<int>((bits >> 10) % 30);
  double value = std::ldexp(mantissa, -exponent - 1);
  return static_cast<float>((bits >> 31) ? -value : value);
}

/// The replicated master weight at element `i`, in [-1, 1].
float weight(int64_t i) {
  uint32_t bits = mix(static_cast<uint32_t>(i) * 2);
  return static_cast<float>(static_cast<int>(bits % 2001) - 1000) / 1000.0f;
}

/// The value of IEEE binary16 `bits`, decoded independently of any f16
/// conversion of the runtime or the compiler.
double halfToDouble(uint16_t bits) {
  double sign = (bits & 0x8000) ? -1.0 : 1.0;
  int exponent = (bits >> 10) & 0x1f;
  int mantissa = bits & 0x3ff;
  if (exponent == 0x1f)
    return mantissa ? NAN : sign * INFINITY;
  if (exponent == 0)
    return sign * std::ldexp(mantissa, -24);
  return sign * std::ldexp(1024 + mantissa, exponent - 25);
}

/// What one rank brings back.
struct RankResults {
  std::vector<uint16_t> average = std::vector<uint16_t>(kElements);
  std::vector<float> weightNext = std::vector<float>(kElements);
};

int fail(int rank, const char *what, const char *why) {
  std::fprintf(stderr, "fp16_avg_main: rank %d: %s: %s\n", rank, what,
               why ? why : "(no message)");
  return 1;
}

bool isDense64x16(int64_t offset, const int64_t *sizes,
                  const int64_t *strides) {
  return offset == 0 && sizes[0] == kRows && sizes[1] == kCols &&
         strides[0] == kCols && strides[1] == 1;
}

/// The body of every rank: inputs to device buffers, one call of the compiled
/// function, results back to the host.
int runRank(precrt_comm_t world, void *userData) {
  auto &allResults = *static_cast<std::vector<RankResults> *>(userData);
  int32_t rank = 0;
  if (precrtCommRank(world, &rank) != PRECRT_SUCCESS)
    return fail(rank, "precrtCommRank", precrtGetLastErrorMessage());

  std::vector<float> hostGrad(kElements), hostWeight(kElements);
  for (int64_t i = 0; i < kElements; ++i) {
    hostGrad[i] = gradient(rank, i);
    hostWeight[i] = weight(i);
  }

  // Everything the compiled code does is ordered on the rank's compute
  // stream; the copies in and out go on it too.
  void *stream = precrtCompiledGpuStream();
  if (!stream)
    return fail(rank, "no compute stream", precrtCompiledGetError());
  const size_t bytes = kElements * sizeof(float);
  // The inputs go back to the device allocator on every way out; the
  // normal one frees them explicitly, to check that it works.
  struct DeviceInputs {
    void *grad = nullptr, *weight = nullptr;
    ~DeviceInputs() {
      for (void *buffer : {grad, weight})
        if (buffer)
          precrtGpuFree(buffer);
    }
  } inputs;
  void *&deviceGrad = inputs.grad, *&deviceWeight = inputs.weight;
  if (precrtGpuMalloc(&deviceGrad, bytes) != PRECRT_SUCCESS ||
      precrtGpuMalloc(&deviceWeight, bytes) != PRECRT_SUCCESS)
    return fail(rank, "device allocation", precrtGetLastErrorMessage());
  if (precrtGpuMemcpyAsync(deviceGrad, hostGrad.data(), bytes, stream) ||
      precrtGpuMemcpyAsync(deviceWeight, hostWeight.data(), bytes, stream))
    return fail(rank, "copy to the device", precrtGetLastErrorMessage());

  auto *grad = static_cast<float *>(deviceGrad);
  auto *master = static_cast<float *>(deviceWeight);
  MemRef2D<float> gradArg = {grad, grad, 0, {kRows, kCols}, {kCols, 1}};
  MemRef2D<float> weightArg = {master, master, 0, {kRows, kCols}, {kCols, 1}};
  Fp16AverageResults results = {};
  _mlir_ciface_fp16_average(&results, &gradArg, kLossScale, &weightArg,
                            kLearningRate);
  // Results are buffers the call allocated on the stream (unless one is an
  // argument returned as is, which this function never does); like the
  // inputs, they go back on every way out, a failed call's included.
  struct DeviceResults {
    std::vector<void *> owned;
    ~DeviceResults() {
      for (void *buffer : owned)
        precrtGpuFree(buffer);
    }
  } resultBuffers;
  for (void *allocation : {static_cast<void *>(results.average.allocated),
                           static_cast<void *>(results.weightNext.allocated)})
    if (allocation && allocation != deviceGrad && allocation != deviceWeight)
      resultBuffers.owned.push_back(allocation);

  // The compiled code returns without waiting for the GPU.
  if (precrtGpuStreamSynchronize(stream) != PRECRT_SUCCESS)
    return fail(rank, "synchronizing the compute stream",
                precrtGetLastErrorMessage());
  if (const char *error = precrtCompiledGetError())
    return fail(rank, "fp16_average failed", error);
  if (!isDense64x16(results.average.offset, results.average.sizes,
                    results.average.strides) ||
      !isDense64x16(results.weightNext.offset, results.weightNext.sizes,
                    results.weightNext.strides))
    return fail(rank, "fp16_average", "results are not dense 64x16 buffers");

  RankResults &mine = allResults[rank];
  if (precrtGpuMemcpyAsync(mine.average.data(), results.average.aligned,
                           kElements * sizeof(uint16_t), stream) ||
      precrtGpuMemcpyAsync(mine.weightNext.data(), results.weightNext.aligned,
                           bytes, stream) ||
      precrtGpuStreamSynchronize(stream))
    return fail(rank, "copy to the host", precrtGetLastErrorMessage());

  std::vector<void *> finished;
  finished.swap(resultBuffers.owned);
  for (void *allocation : finished)
    if (precrtGpuFreeAsync(allocation, stream) != PRECRT_SUCCESS)
      return fail(rank, "freeing a result", precrtGetLastErrorMessage());
  if (precrtGpuStreamSynchronize(stream) != PRECRT_SUCCESS)
    return fail(rank, "freeing the inputs", precrtGetLastErrorMessage());
  for (void *&buffer : {std::ref(deviceGrad), std::ref(deviceWeight)}) {
    void *owned = buffer;
    buffer = nullptr;
    if (precrtGpuFree(owned) != PRECRT_SUCCESS)
      return fail(rank, "freeing the inputs", precrtGetLastErrorMessage());
  }
  return 0;
}

/// Compares every rank's results with a float64 reference. The lowering
/// rounds each input x_r = grad_r * 2^14 (exact in f32) to f16 on the wire,
/// sums the N values in f16 (N - 1 roundings of partial sums bounded by
/// sum |x_r|) and divides the sum by N in f16 (one more rounding; with
/// prec-divide-factors, a power-of-two pre-divisor before the wire is exact).
/// With u = 2^-11 the unit roundoff of f16 and A = sum |x_r| / N, the average
/// is within (N + 1) u A of the exact mean, plus N * 2^-24 for inputs among
/// f16's subnormals (absolute spacing 2^-24). The weight update
/// w - (lr / scale) * average in f32 inherits that error times lr / scale,
/// plus two f32 roundings (u = 2^-24) of its terms.
int check(const std::vector<RankResults> &allResults) {
  const double f16Roundoff = std::ldexp(1.0, -11);
  const double f32Roundoff = std::ldexp(1.0, -24);
  const double step = static_cast<double>(kLearningRate / kLossScale);
  double maxAverageError = 0.0, maxWeightError = 0.0;
  int64_t mismatches = 0;
  for (int rank = 0; rank < kRanks; ++rank) {
    for (int64_t i = 0; i < kElements; ++i) {
      double sum = 0.0, magnitude = 0.0;
      for (int source = 0; source < kRanks; ++source) {
        double input = static_cast<double>(gradient(source, i)) * kLossScale;
        sum += input;
        magnitude += std::fabs(input);
      }
      double want = sum / kRanks;
      double tolerance = (kRanks + 1) * f16Roundoff * magnitude / kRanks +
                         kRanks * std::ldexp(1.0, -24);
      double got = halfToDouble(allResults[rank].average[i]);
      double error = std::fabs(got - want);
      double w = weight(i);
      double wantWeight = w - step * want;
      double weightTolerance =
          step * tolerance +
          2 * f32Roundoff * (std::fabs(w) + std::fabs(step * want));
      double gotWeight = allResults[rank].weightNext[i];
      double weightError = std::fabs(gotWeight - wantWeight);
      // A NaN error fails the comparisons below and is never a maximum.
      if (!(error <= tolerance) || !(weightError <= weightTolerance)) {
        if (++mismatches <= 10)
          std::printf("rank %d element %lld: average %.9g (want %.9g, "
                      "tolerance %.3g), weight %.9g (want %.9g, tolerance "
                      "%.3g)\n",
                      rank, static_cast<long long>(i), got, want, tolerance,
                      gotWeight, wantWeight, weightTolerance);
        if (!std::isfinite(error) || !std::isfinite(weightError))
          maxAverageError = maxWeightError = INFINITY;
      }
      if (error > maxAverageError)
        maxAverageError = error;
      if (weightError > maxWeightError)
        maxWeightError = weightError;
    }
  }
  std::printf("fp16_average on %d rank(s): max error %.3g in the f16 average, "
              "%.3g in the f32 weight; %lld of %lld values out of tolerance\n",
              kRanks, maxAverageError, maxWeightError,
              static_cast<long long>(mismatches),
              static_cast<long long>(2 * kRanks * kElements));
  return mismatches == 0 ? 0 : 1;
}

} // namespace

int main() {
  // Where the CUDA driver or NCCL is missing, say so before anything else.
  if (precrtBackendAvailable(PRECRT_BACKEND_NCCL) != PRECRT_SUCCESS) {
    std::fprintf(stderr, "fp16_avg_main: cannot run on GPUs: %s\n",
                 precrtGetLastErrorMessage());
    return 1;
  }

  precrt_init_options options = {};
  options.backend = PRECRT_BACKEND_NCCL;
  options.num_local_ranks = kRanks;
  options.nccl_bootstrap = PRECRT_NCCL_BOOTSTRAP_THREADS;
  std::vector<RankResults> allResults(kRanks);
  if (precrt_status_t status = precrtRun(&options, runRank, &allResults)) {
    std::fprintf(stderr, "fp16_avg_main: %s: %s\n", precrtStatusName(status),
                 precrtGetLastErrorMessage());
    return 1;
  }
  return check(allResults);
}
