//===- ConversionBench.cpp - Conversion kernels against memcpy ------------===//
//
// Each conversion is timed next to a memcpy that moves the same traffic: an
// f32 -> bf16 conversion of N elements reads 4N bytes and writes 2N, so its
// baseline is memcpy of 3N bytes (reads 3N, writes 3N). Counters report the
// traffic in bytes per second. versusMemcpy alternates the two in every
// iteration (so both see the same machine load) and reports memcpy time /
// conversion time as `vs_memcpy`, for buffers far larger than the
// last-level cache; docs/performance.md records the results.
//
//   precrt_bench_conversions --benchmark_min_time=0.5
//
//===----------------------------------------------------------------------===//

#include "precrt/numerics.h"
#include "precrt/precrt.h"

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstring>
#include <random>
#include <vector>

namespace {

using namespace precrt::numerics;

std::vector<float> randomFloats(size_t count) {
  std::mt19937 generator(1);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> values(count);
  for (float &v : values)
    v = normal(generator);
  return values;
}

/// Elements per run: 1 Mi (in cache) and 64 Mi (256 MiB of f32, far above
/// the 32 MiB last-level cache of the machine measured).
void sizes(benchmark::internal::Benchmark *bench) {
  bench->Arg(1 << 20)->Arg(64 << 20)->Unit(benchmark::kMillisecond);
}

void setTraffic(benchmark::State &state, size_t bytesPerIteration) {
  state.counters["traffic"] = benchmark::Counter(
      double(bytesPerIteration) * double(state.iterations()),
      benchmark::Counter::kIsRate, benchmark::Counter::kIs1024);
}

template <precrt_dtype_t Dtype> void encodeNearest(benchmark::State &state) {
  size_t count = size_t(state.range(0));
  std::vector<float> src = randomFloats(count);
  std::vector<uint8_t> dst(count * precrtDtypeSize(Dtype));
  for (auto _ : state) {
    encodeBuffer(src.data(), dst.data(), count, Dtype);
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  setTraffic(state, count * (4 + precrtDtypeSize(Dtype)));
}

template <precrt_dtype_t Dtype> void encodeStochastic(benchmark::State &state) {
  size_t count = size_t(state.range(0));
  std::vector<float> src = randomFloats(count);
  std::vector<uint8_t> dst(count * precrtDtypeSize(Dtype));
  uint64_t offset = 0;
  for (auto _ : state) {
    encodeBufferStochastic(src.data(), dst.data(), count, Dtype, 42, offset);
    offset += count;
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  setTraffic(state, count * (4 + precrtDtypeSize(Dtype)));
}

template <precrt_dtype_t Dtype> void decode(benchmark::State &state) {
  size_t count = size_t(state.range(0));
  std::vector<float> wide = randomFloats(count);
  std::vector<uint8_t> narrow(count * precrtDtypeSize(Dtype));
  encodeBuffer(wide.data(), narrow.data(), count, Dtype);
  for (auto _ : state) {
    decodeBuffer(narrow.data(), wide.data(), count, Dtype);
    benchmark::DoNotOptimize(wide.data());
    benchmark::ClobberMemory();
  }
  setTraffic(state, count * (4 + precrtDtypeSize(Dtype)));
}

/// memcpy moving the traffic of a conversion with `narrowBytes`-byte output:
/// (4 + narrowBytes) * N / 2 bytes copied.
void memcpySameTraffic(benchmark::State &state) {
  size_t count = size_t(state.range(0));
  size_t narrowBytes = size_t(state.range(1));
  size_t bytes = count * (4 + narrowBytes) / 2;
  std::vector<uint8_t> src(bytes, 1), dst(bytes);
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), bytes);
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  setTraffic(state, 2 * bytes);
}

/// Conversion and memcpy of the same traffic, alternated within each
/// iteration so that both see the same machine load; the counter
/// `vs_memcpy` is memcpy time / conversion time (1.0: memcpy speed).
template <precrt_dtype_t Dtype> void versusMemcpy(benchmark::State &state) {
  using Clock = std::chrono::steady_clock;
  size_t count = size_t(state.range(0));
  size_t narrowBytes = precrtDtypeSize(Dtype);
  std::vector<float> src = randomFloats(count);
  std::vector<uint8_t> dst(count * narrowBytes);
  size_t copyBytes = count * (4 + narrowBytes) / 2;
  std::vector<uint8_t> copySrc(copyBytes, 1), copyDst(copyBytes);
  double convertSeconds = 0, copySeconds = 0;
  for (auto _ : state) {
    auto start = Clock::now();
    encodeBuffer(src.data(), dst.data(), count, Dtype);
    benchmark::ClobberMemory();
    auto middle = Clock::now();
    std::memcpy(copyDst.data(), copySrc.data(), copyBytes);
    benchmark::ClobberMemory();
    auto end = Clock::now();
    convertSeconds += std::chrono::duration<double>(middle - start).count();
    copySeconds += std::chrono::duration<double>(end - middle).count();
    state.SetIterationTime(std::chrono::duration<double>(middle - start).count());
  }
  state.counters["vs_memcpy"] = copySeconds / convertSeconds;
  setTraffic(state, count * (4 + narrowBytes));
}

BENCHMARK_TEMPLATE(versusMemcpy, PRECRT_DTYPE_BF16)
    ->Arg(64 << 20)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(versusMemcpy, PRECRT_DTYPE_F16)
    ->Arg(64 << 20)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(versusMemcpy, PRECRT_DTYPE_F8E4M3FN)
    ->Arg(64 << 20)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(versusMemcpy, PRECRT_DTYPE_F8E5M2)
    ->Arg(64 << 20)->UseManualTime()->Unit(benchmark::kMillisecond);

BENCHMARK(memcpySameTraffic)
    ->ArgNames({"elements", "narrow_bytes"})
    ->Args({1 << 20, 2})
    ->Args({64 << 20, 2})
    ->Args({1 << 20, 1})
    ->Args({64 << 20, 1})
    ->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(encodeNearest, PRECRT_DTYPE_BF16)->Apply(sizes);
BENCHMARK_TEMPLATE(encodeNearest, PRECRT_DTYPE_F16)->Apply(sizes);
BENCHMARK_TEMPLATE(encodeNearest, PRECRT_DTYPE_F8E4M3FN)->Apply(sizes);
BENCHMARK_TEMPLATE(encodeNearest, PRECRT_DTYPE_F8E5M2)->Apply(sizes);
BENCHMARK_TEMPLATE(encodeStochastic, PRECRT_DTYPE_BF16)->Apply(sizes);
BENCHMARK_TEMPLATE(encodeStochastic, PRECRT_DTYPE_F8E4M3FN)->Apply(sizes);
BENCHMARK_TEMPLATE(decode, PRECRT_DTYPE_BF16)->Apply(sizes);
BENCHMARK_TEMPLATE(decode, PRECRT_DTYPE_F16)->Apply(sizes);
BENCHMARK_TEMPLATE(decode, PRECRT_DTYPE_F8E4M3FN)->Apply(sizes);

} // namespace

BENCHMARK_MAIN();
