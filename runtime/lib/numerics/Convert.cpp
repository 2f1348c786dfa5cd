//===- Convert.cpp - Vectorized float conversion kernels ------------------===//
//
// Buffer versions of the references in precrt/numerics.h. The loops are
// branch-free integer code that the compiler vectorizes (SSE2 at baseline;
// AVX2 and AVX-512 clones picked at load time on x86-64). Integer arithmetic
// is deliberate: the AVX-512 BF16 conversion instructions flush subnormals,
// so they cannot give the reference's bits.
//
//===----------------------------------------------------------------------===//

#include "numerics/Convert.h"

#include <algorithm>
#include <array>
#include <mutex>
#include <vector>

using namespace precrt::numerics;

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) &&        \
    defined(__linux__)
#define PRECRT_VECTOR_CLONES                                                   \
  __attribute__((target_clones("default", "avx2", "arch=x86-64-v4")))
#else
#define PRECRT_VECTOR_CLONES
#endif

namespace {

PRECRT_VECTOR_CLONES
void encodeBF16(const float *__restrict src, uint16_t *__restrict dst,
                size_t count) {
  for (size_t i = 0; i < count; ++i) {
    uint32_t bits;
    std::memcpy(&bits, &src[i], sizeof(bits));
    // Adding 0x7FFF plus the kept lsb rounds to nearest even; a carry moves
    // into the exponent and past the largest finite value lands on infinity.
    uint32_t rounded = (bits + 0x7FFFu + ((bits >> 16) & 1u)) >> 16;
    bool isNaN = (bits & 0x7FFFFFFFu) > 0x7F800000u;
    dst[i] = static_cast<uint16_t>(isNaN ? kBF16.canonicalNaNBits : rounded);
  }
}

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

template <const NarrowFormat &Format, typename Narrow>
void encodeStochasticGeneric(const float *__restrict src,
                             Narrow *__restrict dst, size_t count,
                             uint64_t seed, uint64_t offset) {
  std::array<uint32_t, 2> key = {uint32_t(seed), uint32_t(seed >> 32)};
  size_t i = 0;
  while (i < count) {
    uint64_t index = offset + i;
    uint64_t block = index / 4;
    std::array<uint32_t, 4> words =
        philox4x32_10({uint32_t(block), uint32_t(block >> 32), 0, 0}, key);
    for (size_t word = index % 4; word < 4 && i < count; ++word, ++i)
      dst[i] = static_cast<Narrow>(encodeStochastic(src[i], Format, words[word]));
  }
}

} // namespace

namespace precrt {
namespace numerics {

void encodeBuffer(const float *src, void *dst, size_t count,
                  precrt_dtype_t dstDtype) {
  switch (dstDtype) {
  case PRECRT_DTYPE_BF16:
    return encodeBF16(src, static_cast<uint16_t *>(dst), count);
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
