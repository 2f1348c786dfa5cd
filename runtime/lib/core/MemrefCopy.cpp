//===- MemrefCopy.cpp - copies between strided buffers --------------------===//
//
// `memref.copy` between buffers whose layouts LLVM lowering cannot prove
// contiguous (a bucket member's view into the flat wire buffer) becomes a
// call of `memrefCopy`, which upstream's runner utilities implement one
// element at a time. This one copies the longest run both layouts hold
// contiguously with one memcpy: a row of a bucketed weight at once.
//
//===----------------------------------------------------------------------===//

#include "precrt/compiled.h"

#include <cstring>
#include <vector>

namespace {

/// The descriptor of a ranked memref of any element type, as lowered code
/// passes it: allocated and aligned pointers, the offset, then `rank` sizes
/// and `rank` strides.
struct Descriptor {
  char *allocated;
  char *aligned;
  int64_t offset;
  int64_t sizesAndStrides[];
};

} // namespace

extern "C" void precrtCompiledMemrefCopy(int64_t elementBytes,
                                         const precrt_unranked_memref_t *src,
                                         const precrt_unranked_memref_t *dst) {
  auto *from = static_cast<const Descriptor *>(src->descriptor);
  auto *to = static_cast<const Descriptor *>(dst->descriptor);
  int64_t rank = src->rank;
  const char *source = from->aligned + from->offset * elementBytes;
  char *target = to->aligned + to->offset * elementBytes;
  const int64_t *sizes = from->sizesAndStrides;
  const int64_t *srcStrides = from->sizesAndStrides + rank;
  const int64_t *dstStrides = to->sizesAndStrides + rank;
  for (int64_t d = 0; d < rank; ++d)
    if (sizes[d] == 0)
      return;

  // The innermost dimensions both layouts hold contiguously, as one run.
  int64_t run = 1, outer = rank - 1;
  while (outer >= 0 &&
         (sizes[outer] == 1 ||
          (srcStrides[outer] == run && dstStrides[outer] == run))) {
    run *= sizes[outer];
    --outer;
  }
  size_t runBytes = size_t(run * elementBytes);
  if (outer < 0) {
    std::memcpy(target, source, runBytes);
    return;
  }
  // One run per index of the outer dimensions, innermost fastest.
  std::vector<int64_t> index(size_t(outer + 1), 0);
  for (;;) {
    std::memcpy(target, source, runBytes);
    int64_t d = outer;
    for (; d >= 0; --d) {
      source += srcStrides[d] * elementBytes;
      target += dstStrides[d] * elementBytes;
      if (++index[d] < sizes[d])
        break;
      source -= sizes[d] * srcStrides[d] * elementBytes;
      target -= sizes[d] * dstStrides[d] * elementBytes;
      index[d] = 0;
    }
    if (d < 0)
      return;
  }
}
