//===- Bf16Gemm.cpp - bf16 contractions in one order on every host --------===//
//
// A GotoBLAS-style gemm: both operands are packed into panels of MR rows of
// A and NR columns of B, pair of k by pair of k, and a micro-kernel keeps an
// MR x NR tile of C in registers while it runs through a block of pairs.
// Blocking k is free here: a tile is stored to C and loaded again between
// blocks, which rounds nothing, so each C element still sums its products
// in the one order of Bf16Gemm.h.
//
// Why VDPBF16PS is safe where it is used: the product of two bf16 values has
// at most 16 significant bits and is exact in f32, so an FMA of it and a
// multiply-then-add round alike, and VDPBF16PS's two FMAs per lane (odd
// product first; checked against the hardware by Bf16GemmTest) are exactly
// the order above, except that it treats subnormal inputs as zero and
// flushes subnormal results. Every product is a multiple of
// 2^(ea + eb - 14) (ea, eb the least exponents of A's and B's nonzero
// elements) and every initial C value of 2^(ec - 23), so every partial sum,
// rounded or not, is a multiple of the least of them: when that is at least
// 2^-126 and no operand is subnormal, infinite or NaN, no subnormal can
// arise and VDPBF16PS computes the FMAs' bits. A and B are checked as they
// are packed (else the call runs the f32 FMA kernel), C tile by tile (else
// that tile is computed with std::fma).
//
//===----------------------------------------------------------------------===//

#include "kernels/Bf16Gemm.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define PRECRT_BF16_GEMM_X86 1
#endif

namespace precrt {
namespace kernels {
namespace {

float widen(uint16_t bits) {
  uint32_t wide = uint32_t(bits) << 16;
  float value;
  std::memcpy(&value, &wide, sizeof value);
  return value;
}

float lowHalf(uint32_t word) { return widen(uint16_t(word)); }
float highHalf(uint32_t word) { return widen(uint16_t(word >> 16)); }

uint16_t elementAt(const Bf16Matrix &matrix, int64_t row, int64_t col) {
  return matrix.data[row * matrix.rowStride + col * matrix.colStride];
}

/// The order itself, one element at a time, reading the operands in place.
void scalarGemm(int64_t m, int64_t n, int64_t k, const Bf16Matrix &a,
                const Bf16Matrix &b, float *c, int64_t ldc) {
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      float sum = c[i * ldc + j];
      for (int64_t p = 0; p < k; p += 2) {
        // An odd k pairs its last element with a zero, as the packed kernels
        // do: fma(0, 0, -0) is +0 on every path.
        float aOdd = p + 1 < k ? widen(elementAt(a, i, p + 1)) : 0.0f;
        float bOdd = p + 1 < k ? widen(elementAt(b, p + 1, j)) : 0.0f;
        sum = std::fma(aOdd, bOdd, sum);
        sum = std::fma(widen(elementAt(a, i, p)), widen(elementAt(b, p, j)),
                       sum);
      }
      c[i * ldc + j] = sum;
    }
  }
}

/// Packs the rows x k matrix `source` into panels of R rows, pair of k by
/// pair of k: word r of pair q of panel p holds element (p R + r, 2q) in its
/// low half and (p R + r, 2q + 1) in its high half (VDPBF16PS's layout);
/// zero past the rows and past k.
template <int R>
void packPairs(const Bf16Matrix &source, int64_t rows, int64_t k,
               std::vector<uint32_t> &out) {
  int64_t pairs = (k + 1) / 2, panels = (rows + R - 1) / R;
  // Grown only, like the f32 scratch of Matmul.cpp.
  if (out.size() < size_t(panels * pairs * R))
    out.resize(size_t(panels * pairs * R));
  for (int64_t p = 0; p < panels; ++p) {
    uint32_t *panel = out.data() + p * pairs * R;
    int64_t valid = std::min<int64_t>(R, rows - p * R);
    if (source.colStride == 1) {
      // Rows contiguous along k (A as it usually is): a pair is one word.
      for (int64_t r = 0; r < R; ++r) {
        if (r >= valid) {
          for (int64_t q = 0; q < pairs; ++q)
            panel[q * R + r] = 0;
          continue;
        }
        const uint16_t *row = source.data + (p * R + r) * source.rowStride;
        for (int64_t q = 0; q < k / 2; ++q) {
          uint32_t word;
          std::memcpy(&word, row + 2 * q, sizeof word);
          panel[q * R + r] = word;
        }
        if (k % 2)
          panel[(pairs - 1) * R + r] = row[k - 1];
      }
      continue;
    }
    // Otherwise along the rows (B^T of a row-major B is contiguous there).
    for (int64_t q = 0; q < pairs; ++q) {
      const uint16_t *even =
          source.data + p * R * source.rowStride + 2 * q * source.colStride;
      const uint16_t *odd = even + source.colStride;
      bool hasOdd = 2 * q + 1 < k;
      for (int64_t r = 0; r < R; ++r) {
        uint32_t low = r < valid ? even[r * source.rowStride] : 0;
        uint32_t high = r < valid && hasOdd ? odd[r * source.rowStride] : 0;
        panel[q * R + r] = low | high << 16;
      }
    }
  }
}

/// The packed pairs widened for the f32 kernels: pair q of a panel becomes
/// R floats of its odd elements, then R of its even ones.
template <int R>
void widenPairs(const std::vector<uint32_t> &pairs, size_t words,
                std::vector<float> &out) {
  if (out.size() < 2 * words)
    out.resize(2 * words);
  for (size_t base = 0; base < words; base += R) {
    for (int r = 0; r < R; ++r) {
      out[2 * base + r] = highHalf(pairs[base + r]);
      out[2 * base + R + r] = lowHalf(pairs[base + r]);
    }
  }
}

/// The least exponent field of the nonzero values among `count` bf16 halves
/// of packed words (255 when there are none), and whether any is subnormal,
/// infinite or NaN.
struct ExponentRange {
  unsigned least = 255;
  bool special = false;
};

#ifdef PRECRT_BF16_GEMM_X86
ExponentRange rangeOfPairs(const uint32_t *words, size_t count) {
  unsigned least = 255, special = 0;
  for (size_t i = 0; i < count; ++i) {
    for (uint32_t half : {words[i] & 0xFFFFu, words[i] >> 16}) {
      unsigned exponent = (half >> 7) & 0xFF, mantissa = half & 0x7F;
      special |= unsigned(exponent == 0xFF) | unsigned(exponent == 0 && mantissa);
      least = std::min(least, (half & 0x7FFF) ? exponent : 255u);
    }
  }
  return {least, special != 0};
}

/// Whether VDPBF16PS computes the FMAs' bits for these operands' products
/// (the file comment): they are multiples of 2^(fa + fb - 268) for exponent
/// fields fa, fb, which must be at least 2^-126. C's values are checked
/// tile by tile (tileAllowsVdpbf16ps).
bool noSubnormalCanArise(ExponentRange a, ExponentRange b) {
  return !a.special && !b.special && a.least + b.least >= 142;
}
#endif

using MicroKernel = void (*)(int64_t pairs, const void *a, const void *b,
                             float *c, int64_t ldc);

#ifdef PRECRT_BF16_GEMM_X86
#if defined(__GNUC__) && !defined(__clang__)
// GCC 12's AVX-512 intrinsics pass an undefined vector through to the masked
// builtins they wrap, and its uninitialized-use analysis says so.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
// The VDPBF16PS path's packing and range checks, on 32 bf16 lanes: scalar,
// they took longer than its products for a row block of 64.

/// rangeOfPairs on AVX-512.
__attribute__((target("avx512f,avx512bw"))) ExponentRange
rangeOfPairsAvx512(const uint32_t *words, size_t count) {
  const __m512i exponentMask = _mm512_set1_epi16(0xFF);
  const __m512i magnitudeMask = _mm512_set1_epi16(0x7FFF);
  __m512i least = exponentMask;
  __mmask32 special = 0;
  size_t i = 0;
  for (; i + 16 <= count; i += 16) {
    __m512i halves = _mm512_loadu_si512(words + i);
    __m512i exponents =
        _mm512_and_si512(_mm512_srli_epi16(halves, 7), exponentMask);
    __mmask32 nonzero = _mm512_test_epi16_mask(halves, magnitudeMask);
    least = _mm512_mask_min_epu16(least, nonzero, least, exponents);
    special |= _mm512_cmpeq_epi16_mask(exponents, exponentMask) |
               (_mm512_testn_epi16_mask(exponents, exponents) & nonzero);
  }
  alignas(64) uint16_t lanes[32];
  _mm512_store_si512(lanes, least);
  ExponentRange tail = rangeOfPairs(words + i, count - i);
  for (uint16_t lane : lanes)
    tail.least = std::min<unsigned>(tail.least, lane);
  tail.special |= special != 0;
  return tail;
}

/// Transposes 16 x 16 words in place: block[c] becomes column c.
__attribute__((target("avx512f"))) void transpose16x16(__m512i block[16]) {
  // Within 128-bit lanes: pairs of rows interleaved by word, then by two
  // words, so that u[4 g + j] holds, in lane l, column 4 l + j of rows
  // 4 g to 4 g + 3.
  __m512i t[16], u[16];
  for (int i = 0; i < 16; i += 2) {
    t[i] = _mm512_unpacklo_epi32(block[i], block[i + 1]);
    t[i + 1] = _mm512_unpackhi_epi32(block[i], block[i + 1]);
  }
  for (int g = 0; g < 4; ++g) {
    __m512i *rows = t + 4 * g;
    u[4 * g + 0] = _mm512_unpacklo_epi64(rows[0], rows[2]);
    u[4 * g + 1] = _mm512_unpackhi_epi64(rows[0], rows[2]);
    u[4 * g + 2] = _mm512_unpacklo_epi64(rows[1], rows[3]);
    u[4 * g + 3] = _mm512_unpackhi_epi64(rows[1], rows[3]);
  }
  // Then across lanes: column 4 l + j is lane l of u[j], u[4 + j], u[8 + j]
  // and u[12 + j].
  for (int j = 0; j < 4; ++j) {
    __m512i even01 = _mm512_shuffle_i32x4(u[j], u[4 + j], 0x88);
    __m512i odd01 = _mm512_shuffle_i32x4(u[j], u[4 + j], 0xDD);
    __m512i even23 = _mm512_shuffle_i32x4(u[8 + j], u[12 + j], 0x88);
    __m512i odd23 = _mm512_shuffle_i32x4(u[8 + j], u[12 + j], 0xDD);
    block[j] = _mm512_shuffle_i32x4(even01, even23, 0x88);
    block[8 + j] = _mm512_shuffle_i32x4(even01, even23, 0xDD);
    block[4 + j] = _mm512_shuffle_i32x4(odd01, odd23, 0x88);
    block[12 + j] = _mm512_shuffle_i32x4(odd01, odd23, 0xDD);
  }
}

/// packPairs<32> on AVX-512, panel by panel, and the panels' range.
__attribute__((target("avx512f,avx512bw"))) ExponentRange
packPairs32Avx512(const Bf16Matrix &source, int64_t rows, int64_t k,
                  std::vector<uint32_t> &out) {
  constexpr int64_t R = 32;
  int64_t pairs = (k + 1) / 2, panels = (rows + R - 1) / R;
  if (out.size() < size_t(panels * pairs * R))
    out.resize(size_t(panels * pairs * R));
  // Word c of 16 takes element c of the even row (low half) and of the odd
  // row (high half): indices into the concatenation (even, odd).
  alignas(64) uint16_t lowIndices[32], highIndices[32];
  for (int e = 0; e < 32; ++e) {
    lowIndices[e] = uint16_t((e % 2) * 32 + e / 2);
    highIndices[e] = uint16_t((e % 2) * 32 + 16 + e / 2);
  }
  const __m512i low = _mm512_load_si512(lowIndices);
  const __m512i high = _mm512_load_si512(highIndices);
  ExponentRange range;
  for (int64_t p = 0; p < panels; ++p) {
    uint32_t *panel = out.data() + p * pairs * R;
    int64_t valid = std::min<int64_t>(R, rows - p * R);
    if (source.rowStride == 1) {
      // The 32 rows are 32 neighbours of each k: interleave two k's.
      __mmask32 lanes = valid == R ? ~__mmask32(0) : (__mmask32(1) << valid) - 1;
      for (int64_t q = 0; q < pairs; ++q) {
        const uint16_t *even = source.data + p * R + 2 * q * source.colStride;
        __m512i evens = _mm512_maskz_loadu_epi16(lanes, even);
        __m512i odds = 2 * q + 1 < k ? _mm512_maskz_loadu_epi16(
                                           lanes, even + source.colStride)
                                     : _mm512_setzero_si512();
        _mm512_storeu_si512(panel + q * R,
                            _mm512_permutex2var_epi16(evens, low, odds));
        _mm512_storeu_si512(panel + q * R + 16,
                            _mm512_permutex2var_epi16(evens, high, odds));
      }
    } else if (source.colStride == 1) {
      // Rows contiguous along k: 16 words (pairs) of 16 rows at a time,
      // transposed in registers.
      for (int64_t r0 = 0; r0 < R; r0 += 16) {
        int64_t groupRows = std::clamp<int64_t>(valid - r0, 0, 16);
        const uint16_t *base = source.data + (p * R + r0) * source.rowStride;
        for (int64_t q0 = 0; q0 < k / 2; q0 += 16) {
          int64_t words = std::min<int64_t>(16, k / 2 - q0);
          __mmask16 loaded = __mmask16((1u << words) - 1);
          __m512i block[16];
          for (int64_t t = 0; t < 16; ++t)
            block[t] = t < groupRows
                           ? _mm512_maskz_loadu_epi32(
                                 loaded, base + t * source.rowStride + 2 * q0)
                           : _mm512_setzero_si512();
          transpose16x16(block);
          for (int64_t w = 0; w < words; ++w)
            _mm512_storeu_si512(panel + (q0 + w) * R + r0, block[w]);
        }
        if (k % 2) {
          for (int64_t t = 0; t < 16; ++t)
            panel[(pairs - 1) * R + r0 + t] =
                t < groupRows ? base[t * source.rowStride + k - 1] : 0;
        }
      }
    } else {
      Bf16Matrix rest = {source.data + p * R * source.rowStride,
                         source.rowStride, source.colStride};
      std::vector<uint32_t> one;
      packPairs<R>(rest, valid, k, one);
      std::copy(one.begin(), one.begin() + pairs * R, panel);
    }
    ExponentRange panelRange = rangeOfPairsAvx512(panel, size_t(pairs * R));
    range.least = std::min(range.least, panelRange.least);
    range.special |= panelRange.special;
  }
  return range;
}

/// C[8 x 32] += A panel x B panel with VDPBF16PS.
__attribute__((target("avx512f,avx512bf16"))) void
microAvx512Bf16(int64_t pairs, const void *aPanel, const void *bPanel,
                float *c, int64_t ldc) {
  auto *a = static_cast<const uint32_t *>(aPanel);
  auto *b = static_cast<const uint32_t *>(bPanel);
  __m512 acc[8][2];
  for (int r = 0; r < 8; ++r) {
    acc[r][0] = _mm512_loadu_ps(c + r * ldc);
    acc[r][1] = _mm512_loadu_ps(c + r * ldc + 16);
  }
  for (int64_t q = 0; q < pairs; ++q) {
    __m512i b0 = _mm512_loadu_si512(b + q * 32);
    __m512i b1 = _mm512_loadu_si512(b + q * 32 + 16);
    for (int r = 0; r < 8; ++r) {
      __m512i ar = _mm512_set1_epi32(int(a[q * 8 + r]));
      acc[r][0] = _mm512_dpbf16_ps(acc[r][0], (__m512bh)ar, (__m512bh)b0);
      acc[r][1] = _mm512_dpbf16_ps(acc[r][1], (__m512bh)ar, (__m512bh)b1);
    }
  }
  for (int r = 0; r < 8; ++r) {
    _mm512_storeu_ps(c + r * ldc, acc[r][0]);
    _mm512_storeu_ps(c + r * ldc + 16, acc[r][1]);
  }
}

/// Whether an 8 x 32 tile of C (row stride ldc) allows VDPBF16PS: no
/// value subnormal, infinite or NaN, and every nonzero one a multiple of
/// 2^-126 (exponent field at least 24; the file comment). Checked where the
/// micro-kernel is about to load the tile anyway, rather than in a pass of
/// its own over C, which for a weight's gradient (C large, k the tokens of
/// a batch) read as much memory as the product itself.
__attribute__((target("avx512f"))) bool tileAllowsVdpbf16ps(const float *c,
                                                            int64_t ldc) {
  const __m512i exponentMask = _mm512_set1_epi32(0xFF);
  const __m512i magnitudeMask = _mm512_set1_epi32(0x7FFFFFFF);
  const __m512i leastExponent = _mm512_set1_epi32(24);
  __mmask16 refused = 0;
  for (int r = 0; r < 8; ++r) {
    for (int half = 0; half < 2; ++half) {
      __m512i bits =
          _mm512_castps_si512(_mm512_loadu_ps(c + r * ldc + 16 * half));
      __m512i exponents =
          _mm512_and_si512(_mm512_srli_epi32(bits, 23), exponentMask);
      __mmask16 nonzero = _mm512_test_epi32_mask(bits, magnitudeMask);
      refused |= _mm512_cmpeq_epi32_mask(exponents, exponentMask) |
                 (_mm512_cmplt_epi32_mask(exponents, leastExponent) & nonzero);
    }
  }
  return refused == 0;
}

/// C[8 x 32] += A panel x B panel over all `pairs`, one element at a time
/// with std::fma in the order: a tile whose C refused VDPBF16PS.
void exactTile(int64_t pairs, const uint32_t *a, const uint32_t *b, float *c,
               int64_t ldc) {
  for (int r = 0; r < 8; ++r) {
    for (int col = 0; col < 32; ++col) {
      float sum = c[r * ldc + col];
      for (int64_t q = 0; q < pairs; ++q) {
        uint32_t x = a[q * 8 + r], y = b[q * 32 + col];
        sum = std::fma(highHalf(x), highHalf(y), sum);
        sum = std::fma(lowHalf(x), lowHalf(y), sum);
      }
      c[r * ldc + col] = sum;
    }
  }
}

/// C[8 x 32] += A panel x B panel with f32 FMAs on 16 lanes.
__attribute__((target("avx512f"))) void
microAvx512(int64_t pairs, const void *aPanel, const void *bPanel, float *c,
            int64_t ldc) {
  auto *a = static_cast<const float *>(aPanel);
  auto *b = static_cast<const float *>(bPanel);
  __m512 acc[8][2];
  for (int r = 0; r < 8; ++r) {
    acc[r][0] = _mm512_loadu_ps(c + r * ldc);
    acc[r][1] = _mm512_loadu_ps(c + r * ldc + 16);
  }
  for (int64_t q = 0; q < pairs; ++q) {
    const float *aq = a + q * 16, *bq = b + q * 64;
    __m512 odd0 = _mm512_loadu_ps(bq), odd1 = _mm512_loadu_ps(bq + 16);
    for (int r = 0; r < 8; ++r) {
      __m512 ar = _mm512_set1_ps(aq[r]);
      acc[r][0] = _mm512_fmadd_ps(ar, odd0, acc[r][0]);
      acc[r][1] = _mm512_fmadd_ps(ar, odd1, acc[r][1]);
    }
    __m512 even0 = _mm512_loadu_ps(bq + 32), even1 = _mm512_loadu_ps(bq + 48);
    for (int r = 0; r < 8; ++r) {
      __m512 ar = _mm512_set1_ps(aq[8 + r]);
      acc[r][0] = _mm512_fmadd_ps(ar, even0, acc[r][0]);
      acc[r][1] = _mm512_fmadd_ps(ar, even1, acc[r][1]);
    }
  }
  for (int r = 0; r < 8; ++r) {
    _mm512_storeu_ps(c + r * ldc, acc[r][0]);
    _mm512_storeu_ps(c + r * ldc + 16, acc[r][1]);
  }
}

/// C[4 x 16] += A panel x B panel with f32 FMAs on 8 lanes: 8 accumulators
/// cover the FMA's latency on two pipes and leave registers for B (with 6
/// rows, GCC kept the accumulators on the stack).
__attribute__((target("avx2,fma"))) void microAvx2(int64_t pairs,
                                                   const void *aPanel,
                                                   const void *bPanel,
                                                   float *c, int64_t ldc) {
  auto *a = static_cast<const float *>(aPanel);
  auto *b = static_cast<const float *>(bPanel);
  __m256 acc[4][2];
  for (int r = 0; r < 4; ++r) {
    acc[r][0] = _mm256_loadu_ps(c + r * ldc);
    acc[r][1] = _mm256_loadu_ps(c + r * ldc + 8);
  }
  for (int64_t q = 0; q < pairs; ++q) {
    const float *aq = a + q * 8, *bq = b + q * 32;
    __m256 odd0 = _mm256_loadu_ps(bq), odd1 = _mm256_loadu_ps(bq + 8);
    for (int r = 0; r < 4; ++r) {
      __m256 ar = _mm256_broadcast_ss(aq + r);
      acc[r][0] = _mm256_fmadd_ps(ar, odd0, acc[r][0]);
      acc[r][1] = _mm256_fmadd_ps(ar, odd1, acc[r][1]);
    }
    __m256 even0 = _mm256_loadu_ps(bq + 16), even1 = _mm256_loadu_ps(bq + 24);
    for (int r = 0; r < 4; ++r) {
      __m256 ar = _mm256_broadcast_ss(aq + 4 + r);
      acc[r][0] = _mm256_fmadd_ps(ar, even0, acc[r][0]);
      acc[r][1] = _mm256_fmadd_ps(ar, even1, acc[r][1]);
    }
  }
  for (int r = 0; r < 4; ++r) {
    _mm256_storeu_ps(c + r * ldc, acc[r][0]);
    _mm256_storeu_ps(c + r * ldc + 8, acc[r][1]);
  }
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
#endif

/// Runs `micro` over every MR x NR tile of C, in blocks of pairs (a B panel's
/// block stays in L1 while the A panels of a block of rows pass it). `T`
/// values per pair and row of a panel: 1 word of two bf16, or 2 floats.
template <int MR, int NR, int ValuesPerPair, typename T>
void runTiles(MicroKernel micro, const T *aPacked, const T *bPacked,
              int64_t m, int64_t n, int64_t k, float *c, int64_t ldc) {
  constexpr int64_t kPairsPerBlock = 128;
  constexpr int64_t kPanelsPerRowBlock = std::max(1, 96 / MR);
  int64_t pairs = (k + 1) / 2;
  int64_t rowPanels = (m + MR - 1) / MR, colPanels = (n + NR - 1) / NR;
  for (int64_t q0 = 0; q0 < pairs; q0 += kPairsPerBlock) {
    int64_t blockPairs = std::min(kPairsPerBlock, pairs - q0);
    for (int64_t ip0 = 0; ip0 < rowPanels; ip0 += kPanelsPerRowBlock) {
      int64_t ipEnd = std::min(rowPanels, ip0 + kPanelsPerRowBlock);
      for (int64_t jp = 0; jp < colPanels; ++jp) {
        const T *bBlock = bPacked + (jp * pairs + q0) * NR * ValuesPerPair;
        int64_t cols = std::min<int64_t>(NR, n - jp * NR);
        for (int64_t ip = ip0; ip < ipEnd; ++ip) {
          const T *aBlock = aPacked + (ip * pairs + q0) * MR * ValuesPerPair;
          int64_t rows = std::min<int64_t>(MR, m - ip * MR);
          float *tile = c + ip * MR * ldc + jp * NR;
          if (rows == MR && cols == NR) {
            micro(blockPairs, aBlock, bBlock, tile, ldc);
            continue;
          }
          // An edge tile goes through a full one; its extra rows and
          // columns meet the panels' zeros.
          float full[MR * NR] = {};
          for (int64_t r = 0; r < rows; ++r)
            std::copy(tile + r * ldc, tile + r * ldc + cols, full + r * NR);
          micro(blockPairs, aBlock, bBlock, full, NR);
          for (int64_t r = 0; r < rows; ++r)
            std::copy(full + r * NR, full + r * NR + cols, tile + r * ldc);
        }
      }
    }
  }
}

#ifdef PRECRT_BF16_GEMM_X86
/// runTiles for the VDPBF16PS path, whose operands' exponents have been
/// checked: each tile's C is checked where its first block of pairs starts,
/// and a tile it refuses is computed whole by exactTile.
void runTilesVdpbf16ps(const uint32_t *aPacked, const uint32_t *bPacked,
                       int64_t m, int64_t n, int64_t k, float *c,
                       int64_t ldc) {
  constexpr int64_t MR = 8, NR = 32;
  constexpr int64_t kPairsPerBlock = 128, kPanelsPerRowBlock = 12;
  int64_t pairs = (k + 1) / 2;
  int64_t rowPanels = (m + MR - 1) / MR, colPanels = (n + NR - 1) / NR;
  std::vector<bool> exact(size_t(rowPanels * colPanels), false);
  for (int64_t q0 = 0; q0 < pairs; q0 += kPairsPerBlock) {
    int64_t blockPairs = std::min(kPairsPerBlock, pairs - q0);
    for (int64_t ip0 = 0; ip0 < rowPanels; ip0 += kPanelsPerRowBlock) {
      int64_t ipEnd = std::min(rowPanels, ip0 + kPanelsPerRowBlock);
      for (int64_t jp = 0; jp < colPanels; ++jp) {
        const uint32_t *bPanel = bPacked + jp * pairs * NR;
        int64_t cols = std::min<int64_t>(NR, n - jp * NR);
        for (int64_t ip = ip0; ip < ipEnd; ++ip) {
          if (exact[ip * colPanels + jp])
            continue;
          const uint32_t *aPanel = aPacked + ip * pairs * MR;
          int64_t rows = std::min<int64_t>(MR, m - ip * MR);
          float *tile = c + ip * MR * ldc + jp * NR;
          // An edge tile goes through a full one, as in runTiles.
          float full[MR * NR] = {};
          bool edge = rows != MR || cols != NR;
          if (edge)
            for (int64_t r = 0; r < rows; ++r)
              std::copy(tile + r * ldc, tile + r * ldc + cols, full + r * NR);
          float *target = edge ? full : tile;
          int64_t ld = edge ? NR : ldc;
          if (q0 == 0 && !tileAllowsVdpbf16ps(target, ld)) {
            exact[ip * colPanels + jp] = true;
            exactTile(pairs, aPanel, bPanel, target, ld);
          } else {
            microAvx512Bf16(blockPairs, aPanel + q0 * MR, bPanel + q0 * NR,
                            target, ld);
          }
          if (edge)
            for (int64_t r = 0; r < rows; ++r)
              std::copy(full + r * NR, full + r * NR + cols, tile + r * ldc);
        }
      }
    }
  }
}
#endif

/// Packed operands reused across the calls of a rank (thread).
struct Scratch {
  std::vector<uint32_t> aPairs, bPairs;
  std::vector<float> aWide, bWide;
  /// Buffers over 256 MiB go back after the call that needed them: kept,
  /// a rank would hold copies of its largest operands for good.
  void releaseLarge() {
    constexpr size_t kKeptBytes = size_t(256) << 20;
    auto release = [](auto &buffer) {
      if (buffer.capacity() * sizeof(buffer[0]) > kKeptBytes)
        std::decay_t<decltype(buffer)>().swap(buffer);
    };
    release(aPairs);
    release(bPairs);
    release(aWide);
    release(bWide);
  }
};
thread_local Scratch scratch;

/// B^T as a matrix: the B panels are packed like A's, from B's columns.
Bf16Matrix transposed(const Bf16Matrix &matrix) {
  return {matrix.data, matrix.colStride, matrix.rowStride};
}

template <int MR, int NR>
void fmaGemm(MicroKernel micro, int64_t m, int64_t n, int64_t k,
             const Bf16Matrix &a, const Bf16Matrix &b, float *c, int64_t ldc) {
  int64_t pairs = (k + 1) / 2;
  size_t aWords = size_t(((m + MR - 1) / MR) * pairs * MR);
  size_t bWords = size_t(((n + NR - 1) / NR) * pairs * NR);
  packPairs<MR>(a, m, k, scratch.aPairs);
  packPairs<NR>(transposed(b), n, k, scratch.bPairs);
  widenPairs<MR>(scratch.aPairs, aWords, scratch.aWide);
  widenPairs<NR>(scratch.bPairs, bWords, scratch.bWide);
  runTiles<MR, NR, 2>(micro, scratch.aWide.data(), scratch.bWide.data(), m, n,
                      k, c, ldc);
}

bool hasCpuFeature(const char *feature) {
#ifdef PRECRT_BF16_GEMM_X86
  // __builtin_cpu_supports wants a literal.
  if (std::strcmp(feature, "avx512bf16") == 0)
    return __builtin_cpu_supports("avx512f") &&
           __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512bf16");
  if (std::strcmp(feature, "avx512f") == 0)
    return __builtin_cpu_supports("avx512f");
  if (std::strcmp(feature, "avx2") == 0)
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#endif
  (void)feature;
  return false;
}

struct Selection {
  Bf16GemmKernel kernel = Bf16GemmKernel::Scalar;
  std::string error;
};

} // namespace

bool cpuRuns(Bf16GemmKernel kernel) {
  switch (kernel) {
  case Bf16GemmKernel::Avx512Bf16:
    return hasCpuFeature("avx512bf16");
  case Bf16GemmKernel::Avx512:
    return hasCpuFeature("avx512f");
  case Bf16GemmKernel::Avx2:
    return hasCpuFeature("avx2");
  case Bf16GemmKernel::Scalar:
    return true;
  }
  return false;
}

const char *bf16GemmKernelName(Bf16GemmKernel kernel) {
  switch (kernel) {
  case Bf16GemmKernel::Avx512Bf16:
    return "avx512bf16";
  case Bf16GemmKernel::Avx512:
    return "avx512";
  case Bf16GemmKernel::Avx2:
    return "avx2";
  case Bf16GemmKernel::Scalar:
    return "scalar";
  }
  return "?";
}

precrt_status_t selectedBf16GemmKernel(Bf16GemmKernel &kernel,
                                       std::string &message) {
  static const Selection selection = [] {
    constexpr Bf16GemmKernel kFastestFirst[] = {
        Bf16GemmKernel::Avx512Bf16, Bf16GemmKernel::Avx512,
        Bf16GemmKernel::Avx2, Bf16GemmKernel::Scalar};
    Selection result;
    const char *choice = std::getenv("PRECRT_BF16_GEMM_KERNEL");
    if (!choice || !*choice || std::strcmp(choice, "auto") == 0) {
      for (Bf16GemmKernel candidate : kFastestFirst) {
        if (cpuRuns(candidate)) {
          result.kernel = candidate;
          break;
        }
      }
      return result;
    }
    for (Bf16GemmKernel candidate : kFastestFirst) {
      if (std::strcmp(choice, bf16GemmKernelName(candidate)) != 0)
        continue;
      result.kernel = candidate;
      if (!cpuRuns(candidate))
        result.error = std::string("PRECRT_BF16_GEMM_KERNEL=") + choice +
                       ": this CPU cannot run that kernel";
      return result;
    }
    result.error = std::string("PRECRT_BF16_GEMM_KERNEL=") + choice +
                   ": expected auto, avx512bf16, avx512, avx2 or scalar";
    return result;
  }();
  if (!selection.error.empty()) {
    message = selection.error;
    return PRECRT_ERROR_INVALID_ARGUMENT;
  }
  kernel = selection.kernel;
  return PRECRT_SUCCESS;
}

void bf16Gemm(Bf16GemmKernel kernel, int64_t m, int64_t n, int64_t k,
              const Bf16Matrix &a, const Bf16Matrix &b, float *c,
              int64_t ldc) {
  if (m <= 0 || n <= 0 || k <= 0)
    return;
  struct Release {
    ~Release() { scratch.releaseLarge(); }
  } release;
#ifdef PRECRT_BF16_GEMM_X86
  switch (kernel) {
  case Bf16GemmKernel::Avx512Bf16: {
    int64_t pairs = (k + 1) / 2;
    size_t aWords = size_t(((m + 7) / 8) * pairs * 8);
    packPairs<8>(a, m, k, scratch.aPairs);
    ExponentRange bRange =
        packPairs32Avx512(transposed(b), n, k, scratch.bPairs);
    if (noSubnormalCanArise(rangeOfPairsAvx512(scratch.aPairs.data(), aWords),
                            bRange)) {
      runTilesVdpbf16ps(scratch.aPairs.data(), scratch.bPairs.data(), m, n, k,
                        c, ldc);
      return;
    }
    fmaGemm<8, 32>(microAvx512, m, n, k, a, b, c, ldc);
    return;
  }
  case Bf16GemmKernel::Avx512:
    fmaGemm<8, 32>(microAvx512, m, n, k, a, b, c, ldc);
    return;
  case Bf16GemmKernel::Avx2:
    fmaGemm<4, 16>(microAvx2, m, n, k, a, b, c, ldc);
    return;
  case Bf16GemmKernel::Scalar:
    break;
  }
#endif
  (void)kernel;
  scalarGemm(m, n, k, a, b, c, ldc);
}

} // namespace kernels
} // namespace precrt
