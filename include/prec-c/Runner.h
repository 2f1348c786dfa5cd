/*===- prec-c/Runner.h - run lowered prec programs from C ---------*- C -*-===*\
|*                                                                            *|
|* Runs a module lowered by prec-lower-to-cpu on N ranks as threads of the   *|
|* calling process (the runtime's local backend), on buffers the caller      *|
|* owns.                                                                     *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef PREC_C_RUNNER_H
#define PREC_C_RUNNER_H

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// A dense row-major buffer the caller owns: `rank` sizes, elements of
/// `elementBytes` bytes each, of the type the entry function declares.
typedef struct PrecBuffer {
  void *data;
  int32_t rank;
  const int64_t *sizes;
  int64_t elementBytes;
} PrecBuffer;

/// JIT-compiles `entry` of `module` (lowered by prec-lower-to-cpu: the LLVM
/// dialect, each tensor argument and result a memref of identity layout)
/// and calls it once on each of `numRanks` ranks, threads sharing the
/// compiled code. `arguments[r * numArguments + i]` is argument `i` of rank
/// `r`, read by the program; `results[r * numResults + j]` receives result
/// `j` of rank `r`, copied out of the buffer the program returns (which is
/// then freed). Every argument and result must be a memref. The number and
/// ranks of the arguments are checked against the entry's parameters, and
/// each result's sizes against the buffer the program returns; the lowered
/// code has no static shapes left to check an argument's sizes against, so
/// they must be those of the function before lowering.
///
/// `numRanks` must be the size of the module's grids: a collective on a grid
/// of another size fails, and so does a grid coordinate
/// (`shard.process_multi_index`), which the runtime checks against the
/// world's size.
///
/// Fails on a mismatch, a compilation error, or a rank's failed collective;
/// `error` (when not null) then holds a message of at most `errorSize - 1`
/// characters.
MLIR_CAPI_EXPORTED MlirLogicalResult precRunOnLocalRanks(
    MlirModule module, MlirStringRef entry, int32_t numRanks,
    const PrecBuffer *arguments, intptr_t numArguments,
    const PrecBuffer *results, intptr_t numResults, char *error,
    intptr_t errorSize);

#ifdef __cplusplus
}
#endif

#endif /* PREC_C_RUNNER_H */
