//===- StaticSlices.h - disjointness of static tensor slices ----*- C++ -*-===//
//
// Shared by the passes that split one tensor's users by slice: the fusion of
// a bucket's unpack kernel into its members' kernels, and the in-place
// receive of a bucket's members.
//
//===----------------------------------------------------------------------===//

#ifndef PREC_DIALECT_PREC_UTILS_STATICSLICES_H
#define PREC_DIALECT_PREC_UTILS_STATICSLICES_H

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Sequence.h"

namespace mlir::prec {

/// Whether `slices` (static offsets and sizes, of tensors of one rank) are
/// pairwise disjoint, known from one dimension along which no slice
/// overlaps another. False when no single dimension separates them all,
/// even if they are disjoint in a more intricate way.
inline bool areSeparatedAlongOneDimension(
    ArrayRef<tensor::ExtractSliceOp> slices) {
  if (slices.size() < 2)
    return true;
  tensor::ExtractSliceOp first = slices.front();
  int64_t rank = first.getSourceType().getRank();
  for (int64_t dim = 0; dim < rank; ++dim) {
    SmallVector<std::pair<int64_t, int64_t>> intervals;
    for (tensor::ExtractSliceOp slice : slices)
      intervals.emplace_back(slice.getStaticOffsets()[dim],
                             slice.getStaticOffsets()[dim] +
                                 slice.getStaticSizes()[dim]);
    llvm::sort(intervals);
    if (llvm::all_of(llvm::seq<size_t>(1, intervals.size()), [&](size_t i) {
          return intervals[i - 1].second <= intervals[i].first;
        }))
      return true;
  }
  return false;
}

} // namespace mlir::prec

#endif // PREC_DIALECT_PREC_UTILS_STATICSLICES_H
