// Hand-written AVX2 loops to compare the generated conversion kernels with
// on one core, timed against memcpy of the same bytes in the same run
// (docs/performance.md, "Pack kernel against memcpy" and "fp8 quantization
// kernel against memcpy"). Outside the CMake build (LLVM's build checks that
// every source in a target's directory belongs to it):
//
//   gcc -O2 -mavx2 -mfma -ffp-contract=off -o /tmp/handwritten_loops
//       bench/handwritten/handwritten_loops.c && /tmp/handwritten_loops 67108864
//
// f32 -> bf16: the kernels' rounding (NaN to 0x7FC0, round to nearest even)
// with ordinary and with non-temporal stores, and a truncation without
// rounding; baseline memcpy of 3N bytes. f32 -> f8E4M3FN divided by a scale:
// by vdivps and by the reciprocal with one fused correction step, the same
// branch-free encoding (finite inputs); baseline memcpy of 5N bytes.
// Prints memcpy time / loop time, best of 5.
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static __m128i roundToBF16(__m256i bits) {
  __m256i magnitude = _mm256_and_si256(bits, _mm256_set1_epi32(0x7FFFFFFF));
  __m256i nan = _mm256_cmpgt_epi32(magnitude, _mm256_set1_epi32(0x7F800000));
  bits = _mm256_blendv_epi8(bits, _mm256_set1_epi32(0x7FC00000), nan);
  __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(bits, 16), _mm256_set1_epi32(1));
  bits = _mm256_srli_epi32(
      _mm256_add_epi32(_mm256_add_epi32(bits, _mm256_set1_epi32(0x7FFF)), lsb), 16);
  return _mm_packus_epi32(_mm256_castsi256_si128(bits),
                          _mm256_extracti128_si256(bits, 1));
}

// f32 (finite) -> f8E4M3FN, nearest even, saturating.
static uint64_t encodeE4M3(__m256 q) {
  __m256i bits = _mm256_castps_si256(q);
  __m256i magnitude = _mm256_and_si256(bits, _mm256_set1_epi32(0x7FFFFFFF));
  __m256i sign = _mm256_srli_epi32(
      _mm256_andnot_si256(_mm256_set1_epi32(0x7FFFFFFF), bits), 24);
  __m256i rebased = _mm256_sub_epi32(magnitude, _mm256_set1_epi32(120 << 23));
  __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(magnitude, 20), _mm256_set1_epi32(1));
  __m256i normal = _mm256_srli_epi32(
      _mm256_add_epi32(_mm256_add_epi32(rebased, _mm256_set1_epi32((1 << 19) - 1)), lsb), 20);
  __m256 sum = _mm256_add_ps(_mm256_castsi256_ps(magnitude), _mm256_set1_ps(0.5f));
  __m256i subnormal = _mm256_sub_epi32(_mm256_castps_si256(sum), _mm256_set1_epi32(0x3F000000));
  __m256i isSubnormal = _mm256_cmpgt_epi32(_mm256_set1_epi32(121 << 23), magnitude);
  __m256i result = _mm256_blendv_epi8(normal, subnormal, isSubnormal);
  result = _mm256_or_si256(_mm256_min_epi32(result, _mm256_set1_epi32(0x7E)), sign);
  __m128i half = _mm_packus_epi32(_mm256_castsi256_si128(result),
                                  _mm256_extracti128_si256(result, 1));
  return (uint64_t)_mm_cvtsi128_si64(_mm_packus_epi16(half, half));
}

int main(int argc, char **argv) {
  size_t n = argc > 1 ? (size_t)atol(argv[1]) : (size_t)1 << 26;
  n &= ~(size_t)31;
  float *in = aligned_alloc(64, n * 4);
  uint16_t *half = aligned_alloc(64, n * 2);
  uint8_t *quarter = aligned_alloc(64, n);
  char *source = aligned_alloc(64, n * 5), *copy = aligned_alloc(64, n * 5);
  for (size_t i = 0; i < n; ++i)
    in[i] = (float)((i * 2654435761u) % 1000) / 1000.f;
  memset(half, 0, n * 2), memset(quarter, 0, n);
  memset(source, 1, n * 5), memset(copy, 0, n * 5);
  const float scale = 1.37f / 448;
  __m256 vscale = _mm256_set1_ps(scale), reciprocal = _mm256_set1_ps(1 / scale);
  double best[7] = {1e9, 1e9, 1e9, 1e9, 1e9, 1e9, 1e9};
  for (int rep = 0; rep < 5; ++rep) {
    double t[8];
    t[0] = now();
    memcpy(copy, source, n * 3);
    t[1] = now();
    for (size_t i = 0; i < n; i += 8)
      _mm_storeu_si128((__m128i *)(half + i),
                       roundToBF16(_mm256_loadu_si256((const __m256i *)(in + i))));
    t[2] = now();
    for (size_t i = 0; i < n; i += 8)
      _mm_stream_si128((__m128i *)(half + i),
                       roundToBF16(_mm256_loadu_si256((const __m256i *)(in + i))));
    _mm_sfence();
    t[3] = now();
    for (size_t i = 0; i < n; i += 16) {
      __m256i a = _mm256_srli_epi32(_mm256_loadu_si256((const __m256i *)(in + i)), 16);
      __m256i b = _mm256_srli_epi32(_mm256_loadu_si256((const __m256i *)(in + i + 8)), 16);
      _mm256_storeu_si256((__m256i *)(half + i), _mm256_packus_epi32(a, b));
    }
    t[4] = now();
    memcpy(copy, source, n * 5);
    t[5] = now();
    for (size_t i = 0; i < n; i += 8)
      *(uint64_t *)(quarter + i) = encodeE4M3(_mm256_div_ps(_mm256_loadu_ps(in + i), vscale));
    t[6] = now();
    for (size_t i = 0; i < n; i += 8) {
      __m256 x = _mm256_loadu_ps(in + i);
      __m256 y = _mm256_mul_ps(x, reciprocal);
      y = _mm256_fmadd_ps(_mm256_fnmadd_ps(y, vscale, x), reciprocal, y);
      *(uint64_t *)(quarter + i) = encodeE4M3(y);
    }
    t[7] = now();
    for (int k = 0; k < 7; ++k)
      if (t[k + 1] - t[k] < best[k])
        best[k] = t[k + 1] - t[k];
  }
  printf("%zu elements, best of 5, memcpy time / loop time:\n", n);
  printf("  f32 -> bf16 rounding, ordinary stores       %.2f\n", best[0] / best[1]);
  printf("  f32 -> bf16 rounding, non-temporal stores   %.2f\n", best[0] / best[2]);
  printf("  f32 -> bf16 truncation, no rounding         %.2f\n", best[0] / best[3]);
  printf("  f32 / scale -> e4m3 by vdivps               %.2f (%.1f ms)\n", best[4] / best[5], best[5] * 1e3);
  printf("  f32 * (1/scale), corrected -> e4m3          %.2f (%.1f ms)\n", best[4] / best[6], best[6] * 1e3);
  printf("  (memcpy of 3N bytes %.1f ms, of 5N bytes %.1f ms)\n", best[0] * 1e3, best[4] * 1e3);
  return 0;
}
