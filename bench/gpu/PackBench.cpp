//===- PackBench.cpp - the generated pack kernel against a device copy ----===//
//
// Times the pack kernels of bench/gpu/pack.mlir, compiled ahead of time by
// prec-lower-to-cuda (f32 gradients divided and rounded to bf16, 64 Mi
// elements), against cuMemcpyDtoDAsync of the input's bytes on the same
// stream, measured in the same run. Both are memory-bound, so the figure is
// the effective bandwidth (bytes read + bytes written per second) of each
// and their ratio. The kernel's output is checked bit for bit against a
// float64 reference first: a fast wrong kernel must not count.
//
//   prec_bench_gpu_pack [iterations]
//
// Prints one line per kernel; exits 1 without a GPU.
//
//===----------------------------------------------------------------------===//

#include "precrt/compiled.h"
#include "precrt/gpu.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <vector>

namespace {

constexpr int64_t kElements = 67108864;

/// A ranked memref descriptor of rank 1, as the C interface passes it.
template <typename T> struct MemRef1D {
  T *allocated;
  T *aligned;
  int64_t offset;
  int64_t sizes[1];
  int64_t strides[1];
};

MemRef1D<void> describe(void *device) {
  return {device, device, 0, {kElements}, {1}};
}

} // namespace

extern "C" {
void _mlir_ciface_pack_div4(MemRef1D<void> *grad, MemRef1D<void> *wire);
void _mlir_ciface_pack_div3(MemRef1D<void> *grad, MemRef1D<void> *wire);
}

namespace {

bool check(precrt_status_t status, const char *what) {
  if (status == PRECRT_SUCCESS)
    return true;
  std::fprintf(stderr, "prec_bench_gpu_pack: %s failed: %s\n", what,
               precrtGetLastErrorMessage());
  return false;
}

using PackFn = void (*)(MemRef1D<void> *, MemRef1D<void> *);

struct Kernel {
  const char *name;
  PackFn fn;
  double divisor;
};

double secondsPerCall(void *stream, int iterations,
                      const std::function<void()> &call) {
  for (int warmup = 0; warmup < 3; ++warmup)
    call();
  precrtGpuStreamSynchronize(stream);
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < iterations; ++i)
    call();
  precrtGpuStreamSynchronize(stream);
  std::chrono::duration<double> elapsed =
      std::chrono::steady_clock::now() - start;
  return elapsed.count() / iterations;
}

} // namespace

int main(int argc, char **argv) {
  int iterations = argc > 1 ? std::atoi(argv[1]) : 50;
  if (!check(precrtGpuAvailable(), "loading the CUDA driver") ||
      !check(precrtGpuSetDevice(0), "selecting device 0"))
    return 1;
  void *stream = precrtCompiledGpuStream();
  if (!stream) {
    std::fprintf(stderr, "prec_bench_gpu_pack: %s\n", precrtCompiledGetError());
    return 1;
  }

  // Gradients of every magnitude a step sees, including ties for bf16.
  std::vector<float> grad(kElements);
  std::mt19937 random(42);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::uniform_int_distribution<int> exponent(-30, 10);
  for (float &value : grad)
    value = std::ldexp(normal(random), exponent(random));

  const size_t gradBytes = kElements * sizeof(float);
  const size_t wireBytes = kElements * sizeof(uint16_t);
  void *deviceGrad = nullptr, *deviceWire = nullptr, *deviceCopy = nullptr;
  if (!check(precrtGpuMalloc(&deviceGrad, gradBytes), "cuMemAlloc") ||
      !check(precrtGpuMalloc(&deviceWire, wireBytes), "cuMemAlloc") ||
      !check(precrtGpuMalloc(&deviceCopy, gradBytes), "cuMemAlloc") ||
      !check(precrtGpuMemcpyAsync(deviceGrad, grad.data(), gradBytes, stream),
             "copying the gradients in") ||
      !check(precrtGpuStreamSynchronize(stream), "synchronizing"))
    return 1;

  MemRef1D<void> gradRef = describe(deviceGrad);
  MemRef1D<void> wireRef = describe(deviceWire);

  double copySeconds = secondsPerCall(stream, iterations, [&] {
    precrtGpuMemcpyAsync(deviceCopy, deviceGrad, gradBytes, stream);
  });
  double copyBandwidth = 2.0 * gradBytes / copySeconds;
  std::printf("device-to-device copy of %zu MiB: %.1f us, %.0f GB/s "
              "(read + write)\n",
              gradBytes >> 20, copySeconds * 1e6, copyBandwidth / 1e9);

  Kernel kernels[] = {{"pack_div4", _mlir_ciface_pack_div4, 4.0},
                      {"pack_div3", _mlir_ciface_pack_div3, 3.0}};
  std::vector<uint16_t> wire(kElements);
  int failures = 0;
  for (const Kernel &kernel : kernels) {
    // Correctness first: bit-exact against RNE(bf16, RN(f32, g / d)), the
    // quotient computed in float64 (exact to far more than f32's precision,
    // so rounding it to f32 is the correctly rounded f32 division).
    std::memset(wire.data(), 0, wireBytes);
    kernel.fn(&gradRef, &wireRef);
    if (!check(precrtGpuStreamSynchronize(stream), kernel.name) ||
        !check(precrtGpuMemcpyAsync(wire.data(), deviceWire, wireBytes,
                                    stream),
               "copying the wire buffer out") ||
        !check(precrtGpuStreamSynchronize(stream), "synchronizing"))
      return 1;
    if (const char *error = precrtCompiledGetError()) {
      std::fprintf(stderr, "prec_bench_gpu_pack: %s: %s\n", kernel.name, error);
      return 1;
    }
    std::vector<float> quotients(kElements);
    for (int64_t i = 0; i < kElements; ++i)
      quotients[i] = static_cast<float>(grad[i] / kernel.divisor);
    std::vector<uint16_t> expected(kElements);
    precrtConvert(quotients.data(), PRECRT_DTYPE_F32, expected.data(),
                  PRECRT_DTYPE_BF16, kElements);
    int64_t mismatches = 0;
    for (int64_t i = 0; i < kElements; ++i)
      if (wire[i] != expected[i] && mismatches++ < 5)
        std::fprintf(stderr, "%s: element %lld: %g / %g gave bf16 0x%04x, "
                     "expected 0x%04x\n",
                     kernel.name, static_cast<long long>(i), grad[i],
                     kernel.divisor, wire[i], expected[i]);
    if (mismatches) {
      std::fprintf(stderr, "%s: %lld of %lld elements differ\n", kernel.name,
                   static_cast<long long>(mismatches),
                   static_cast<long long>(kElements));
      ++failures;
      continue;
    }

    double seconds = secondsPerCall(
        stream, iterations, [&] { kernel.fn(&gradRef, &wireRef); });
    double bandwidth = (gradBytes + wireBytes) / seconds;
    std::printf("%s (f32 -> bf16, / %g): %.1f us, %.0f GB/s, %.2f x the "
                "copy's bandwidth\n",
                kernel.name, kernel.divisor, seconds * 1e6, bandwidth / 1e9,
                bandwidth / copyBandwidth);
  }
  precrtGpuFree(deviceGrad);
  precrtGpuFree(deviceWire);
  precrtGpuFree(deviceCopy);
  return failures ? 1 : 0;
}
