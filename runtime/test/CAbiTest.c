/*===- CAbiTest.c - The public headers as C, against the static library --===*\
 *
 * Compiled as C99: precrt.h, gpu.h and mgpu.h must be valid C, and a C
 * program must link precrt_static and run ranks with it.
 *
\*===----------------------------------------------------------------------===*/

#include "precrt/gpu.h"
#include "precrt/mgpu.h"
#include "precrt/precrt.h"

#include <stdio.h>
#include <string.h>

enum { kRanks = 3, kCount = 5 };

static float results[kRanks][kCount];

static int body(precrt_comm_t world, void *data) {
  (void)data;
  int32_t rank = -1;
  if (precrtCommRank(world, &rank) != PRECRT_SUCCESS)
    return 1;
  float mine[kCount];
  for (int i = 0; i < kCount; ++i)
    mine[i] = (float)(rank + i);
  return precrtAllReduce(world, mine, results[rank], kCount, PRECRT_DTYPE_F32,
                         PRECRT_REDUCTION_SUM);
}

int main(void) {
  if (precrtGetApiVersion() != PRECRT_API_VERSION) {
    fprintf(stderr, "API version %d, header %d\n", precrtGetApiVersion(),
            PRECRT_API_VERSION);
    return 1;
  }
  precrt_status_t status = precrtLocalRun(kRanks, body, NULL);
  if (status != PRECRT_SUCCESS) {
    fprintf(stderr, "precrtLocalRun: %s: %s\n", precrtStatusName(status),
            precrtGetLastErrorMessage());
    return 1;
  }
  for (int rank = 0; rank < kRanks; ++rank)
    for (int i = 0; i < kCount; ++i)
      if (results[rank][i] != (float)(0 + 1 + 2 + kRanks * i)) {
        fprintf(stderr, "rank %d element %d: %g\n", rank, i,
                results[rank][i]);
        return 1;
      }
  /* Unknown dtypes are refused with a message, in C too. */
  float value = 0;
  if (precrtConvert(&value, (precrt_dtype_t)42, &value, PRECRT_DTYPE_F32, 1) !=
          PRECRT_ERROR_INVALID_ARGUMENT ||
      strlen(precrtGetLastErrorMessage()) == 0)
    return 1;
  printf("C ABI test passed\n");
  return 0;
}
