//===- Convert.cpp - Vectorized float conversion kernels ------------------===//
//
// Buffer versions of the references in precrt/numerics.h. The loops are
// branch-free code without variable shifts that the compiler vectorizes
// (SSE2 at baseline; AVX2 and AVX-512 clones picked at load time on x86-64).
// The encoders (numerics/Convert.h) avoid the AVX-512 BF16 conversion
// instructions on purpose: they flush subnormals, so they cannot give the
// reference's bits.
//
//===----------------------------------------------------------------------===//

#include "numerics/Convert.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <vector>

using namespace precrt::numerics;

// The clones are chosen by an ifunc resolver that runs while the dynamic
// linker relocates the library, before any sanitizer runtime is ready, so
// sanitized builds use the baseline loops only.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) &&        \
    defined(__linux__) && !defined(__SANITIZE_ADDRESS__) &&                    \
    !defined(__SANITIZE_THREAD__)
#define PRECRT_VECTOR_CLONES                                                   \
  __attribute__((target_clones("default", "avx2", "arch=x86-64-v4")))
#else
#define PRECRT_VECTOR_CLONES
#endif

namespace {

/// Elements converted per step of stochastic rounding: random words and the
/// block stay in the first-level cache.
constexpr size_t kStochasticBlock = 1024;

template <const NarrowFormat &Format, typename Narrow>
PRECRT_VECTOR_CLONES void encodeGeneric(const float *__restrict src,
                                        Narrow *__restrict dst, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    uint32_t bits;
    std::memcpy(&bits, &src[i], sizeof(bits));
    dst[i] = static_cast<Narrow>(encodeBranchFree<Format>(bits));
  }
}

PRECRT_VECTOR_CLONES
void decodeBF16(const uint16_t *__restrict src, float *__restrict dst,
                size_t count) {
  for (size_t i = 0; i < count; ++i) {
    uint32_t bits = uint32_t(src[i]) << 16;
    std::memcpy(&dst[i], &bits, sizeof(bits));
  }
}

/// Decoding by table: 2^16 (f16) or 2^8 (fp8) entries built once from the
/// reference.
template <const NarrowFormat &Format> const float *decodeTable() {
  static const std::vector<float> table = [] {
    size_t size = size_t(1) << (Format.mantissaBits + Format.exponentBits + 1);
    std::vector<float> values(size);
    for (size_t bits = 0; bits < size; ++bits)
      values[bits] = decode(static_cast<uint32_t>(bits), Format);
    return values;
  }();
  return table.data();
}

template <const NarrowFormat &Format, typename Narrow>
void decodeByTable(const Narrow *__restrict src, float *__restrict dst,
                   size_t count) {
  const float *table = decodeTable<Format>();
  for (size_t i = 0; i < count; ++i)
    dst[i] = table[src[i]];
}

/// Words [first, first + count) of the Philox stream keyed by `seed`: the
/// blocks are computed side by side (one vector lane per block), then
/// unpacked in stream order.
PRECRT_VECTOR_CLONES
void philoxWords(uint64_t seed, uint64_t first, size_t count,
                 uint32_t *__restrict words) {
  constexpr size_t kMaxBlocks = kStochasticBlock / 4 + 2;
  uint32_t c0[kMaxBlocks], c1[kMaxBlocks], c2[kMaxBlocks], c3[kMaxBlocks];
  uint64_t firstBlock = first / 4;
  size_t skip = first % 4;
  size_t blocks = (skip + count + 3) / 4;
  for (size_t j = 0; j < blocks; ++j) {
    uint64_t block = firstBlock + j;
    c0[j] = uint32_t(block);
    c1[j] = uint32_t(block >> 32);
    c2[j] = 0;
    c3[j] = 0;
  }
  uint32_t key0 = uint32_t(seed), key1 = uint32_t(seed >> 32);
  for (int round = 0; round < 10; ++round) {
    for (size_t j = 0; j < blocks; ++j) {
      uint64_t product0 = uint64_t(0xD2511F53u) * c0[j];
      uint64_t product1 = uint64_t(0xCD9E8D57u) * c2[j];
      uint32_t next0 = uint32_t(product1 >> 32) ^ c1[j] ^ key0;
      uint32_t next2 = uint32_t(product0 >> 32) ^ c3[j] ^ key1;
      c1[j] = uint32_t(product1);
      c3[j] = uint32_t(product0);
      c0[j] = next0;
      c2[j] = next2;
    }
    key0 += 0x9E3779B9u;
    key1 += 0xBB67AE85u;
  }
  uint32_t interleaved[4 * kMaxBlocks];
  for (size_t j = 0; j < blocks; ++j) {
    interleaved[4 * j] = c0[j];
    interleaved[4 * j + 1] = c1[j];
    interleaved[4 * j + 2] = c2[j];
    interleaved[4 * j + 3] = c3[j];
  }
  std::memcpy(words, interleaved + skip, count * sizeof(uint32_t));
}

template <const NarrowFormat &Format, typename Narrow>
PRECRT_VECTOR_CLONES void
encodeStochasticBlock(const float *__restrict src, Narrow *__restrict dst,
                      size_t count, const uint32_t *__restrict words) {
  for (size_t i = 0; i < count; ++i) {
    uint32_t bits;
    std::memcpy(&bits, &src[i], sizeof(bits));
    dst[i] = static_cast<Narrow>(encodeStochasticNormal<Format>(bits, words[i]));
  }
}

template <const NarrowFormat &Format, typename Narrow>
void encodeStochasticGeneric(const float *src, Narrow *dst, size_t count,
                             uint64_t seed, uint64_t offset) {
  uint32_t words[kStochasticBlock];
  for (size_t begin = 0; begin < count; begin += kStochasticBlock) {
    size_t n = std::min(kStochasticBlock, count - begin);
    philoxWords(seed, offset + begin, n, words);
    encodeStochasticBlock<Format>(src + begin, dst + begin, n, words);
    // Results below the smallest normal (rare in practice) take the
    // reference, while the block is still in cache.
    for (size_t i = 0; i < n; ++i)
      if (!isStochasticFastPath<Format>(floatBits(src[begin + i])))
        dst[begin + i] = static_cast<Narrow>(
            encodeStochastic(src[begin + i], Format, words[i]));
  }
}

} // namespace

namespace precrt {
namespace numerics {

void encodeBuffer(const float *src, void *dst, size_t count,
                  precrt_dtype_t dstDtype) {
  switch (dstDtype) {
  case PRECRT_DTYPE_BF16:
    return encodeGeneric<kBF16>(src, static_cast<uint16_t *>(dst), count);
  case PRECRT_DTYPE_F16:
    return encodeGeneric<kF16>(src, static_cast<uint16_t *>(dst), count);
  case PRECRT_DTYPE_F8E4M3FN:
    return encodeGeneric<kF8E4M3FN>(src, static_cast<uint8_t *>(dst), count);
  case PRECRT_DTYPE_F8E5M2:
    return encodeGeneric<kF8E5M2>(src, static_cast<uint8_t *>(dst), count);
  default:
    return;
  }
}

void decodeBuffer(const void *src, float *dst, size_t count,
                  precrt_dtype_t srcDtype) {
  switch (srcDtype) {
  case PRECRT_DTYPE_BF16:
    return decodeBF16(static_cast<const uint16_t *>(src), dst, count);
  case PRECRT_DTYPE_F16:
    return decodeByTable<kF16>(static_cast<const uint16_t *>(src), dst, count);
  case PRECRT_DTYPE_F8E4M3FN:
    return decodeByTable<kF8E4M3FN>(static_cast<const uint8_t *>(src), dst,
                                    count);
  case PRECRT_DTYPE_F8E5M2:
    return decodeByTable<kF8E5M2>(static_cast<const uint8_t *>(src), dst,
                                  count);
  default:
    return;
  }
}

void encodeBufferStochastic(const float *src, void *dst, size_t count,
                            precrt_dtype_t dstDtype, uint64_t seed,
                            uint64_t offset) {
  switch (dstDtype) {
  case PRECRT_DTYPE_BF16:
    return encodeStochasticGeneric<kBF16>(src, static_cast<uint16_t *>(dst),
                                          count, seed, offset);
  case PRECRT_DTYPE_F16:
    return encodeStochasticGeneric<kF16>(src, static_cast<uint16_t *>(dst),
                                         count, seed, offset);
  case PRECRT_DTYPE_F8E4M3FN:
    return encodeStochasticGeneric<kF8E4M3FN>(
        src, static_cast<uint8_t *>(dst), count, seed, offset);
  case PRECRT_DTYPE_F8E5M2:
    return encodeStochasticGeneric<kF8E5M2>(src, static_cast<uint8_t *>(dst),
                                            count, seed, offset);
  default:
    return;
  }
}

} // namespace numerics
} // namespace precrt
