//===- Reduce.h - Element-wise reduction steps ------------------*- C++ -*-===//
//
// One step of a reduction, rounded to the dtype, as NCCL's kernels do: every
// backend's ring applies these steps in the same order, so every backend and
// every rank gets the same bits.
//
//===----------------------------------------------------------------------===//

#ifndef PRECRT_LIB_CORE_REDUCE_H
#define PRECRT_LIB_CORE_REDUCE_H

#include "precrt/precrt.h"

#include <cstddef>

namespace precrt {

/// acc[i] = round_dtype(acc[i] op src[i]); SUM and AVG add (AVG divides once
/// at the end, see divideInPlace). MAX and MIN propagate NaN. Not for bytes.
void accumulate(void *acc, const void *src, size_t count, precrt_dtype_t dtype,
                precrt_reduction_t reduction);

/// buf[i] = round_dtype(buf[i] / divisor): the final step of AVG.
void divideInPlace(void *buf, size_t count, precrt_dtype_t dtype, int divisor);

} // namespace precrt

#endif // PRECRT_LIB_CORE_REDUCE_H
