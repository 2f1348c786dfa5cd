/*===- prec-c/Runner.h - run prec programs from C -----------------*- C -*-===*\
|*                                                                            *|
|* The runner from C: compile a module's entry function once, then run any   *|
|* number of steps of it on N ranks, on buffers the caller owns or on        *|
|* arguments generated from a seed. Also a one-shot call that runs a module  *|
|* lowered already on the local backend.                                     *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef PREC_C_RUNNER_H
#define PREC_C_RUNNER_H

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#include <stdbool.h>
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
/// ranks of the arguments are checked against the entry's parameters, those
/// of the results against what it returns, and each result's sizes against
/// the buffer the program returns; the lowered code has no static shapes
/// left to check an argument's sizes against, so they must be those of the
/// function before lowering. A null module, or null `arguments` or
/// `results` with a positive count, is an error.
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

/*===----------------------------------------------------------------------===*
 * A runner: compile once, run many steps
 *===----------------------------------------------------------------------===*/

/// A compiled entry function; see prec/Runner/Runner.h.
typedef struct PrecRunner {
  void *ptr;
} PrecRunner;

typedef enum PrecRunnerBackend {
  /// Every rank a thread of the calling process.
  PREC_RUNNER_BACKEND_LOCAL = 0,
  /// One process per rank, started by mpirun.
  PREC_RUNNER_BACKEND_MPI = 1,
  /// One GPU per rank (where the runtime finds CUDA and NCCL).
  PREC_RUNNER_BACKEND_NCCL = 2,
} PrecRunnerBackend;

typedef struct PrecRunnerOptions {
  /// The function to run; empty: the only public function with a body.
  MlirStringRef entry;
  /// A PrecRunnerBackend.
  int32_t backend;
  /// Ranks of the local (or threaded nccl) backend; 0: the size of the
  /// module's only grid.
  int32_t numRanks;
  /// Collective timeout; 0: the runtime's default; negative: an error.
  int64_t timeoutMs;
} PrecRunnerOptions;

/// The defaults: the only public function, local backend, the grid's size.
MLIR_CAPI_EXPORTED PrecRunnerOptions precRunnerOptionsGetDefault(void);

/// Lowers `module` (parsed, not lowered: its entry function takes tensors
/// or memrefs of static shape and scalars) in place with prec-lower-to-cpu
/// (prec-lower-to-cuda on the nccl backend) and JIT-compiles its entry
/// function. The module must outlive the runner. Returns a null runner on
/// failure, with a message in `error` (when not null) of at most
/// `errorSize - 1` characters; diagnostics of the module go to its
/// context's handler.
MLIR_CAPI_EXPORTED PrecRunner precRunnerCreate(MlirModule module,
                                               const PrecRunnerOptions *options,
                                               char *error, intptr_t errorSize);

static inline bool precRunnerIsNull(PrecRunner runner) { return !runner.ptr; }

MLIR_CAPI_EXPORTED void precRunnerDestroy(PrecRunner runner);

/// The ranks a run has on a backend of threads, and the entry's numbers of
/// arguments and results; -1 for a null runner.
MLIR_CAPI_EXPORTED int32_t precRunnerGetNumRanks(PrecRunner runner);
MLIR_CAPI_EXPORTED intptr_t precRunnerGetNumArguments(PrecRunner runner);
MLIR_CAPI_EXPORTED intptr_t precRunnerGetNumResults(PrecRunner runner);

/// Runs `numSteps` steps on every rank of this process. Before the first,
/// rank `r`'s argument `i` is a copy of `arguments[r * numArguments + i]`
/// (a scalar: a buffer of rank 0), or, when `arguments` is null, values
/// drawn from `seed` as prec-run draws them (floats uniform in [-1, 1),
/// integers in their `prec.range`, else [0, 2) for i1, [0, 64)) (an entry
/// with scalar arguments needs `arguments`). After each
/// step, every result whose type is that of the argument at the same
/// position feeds it (parameters, optimizer state); the other arguments are
/// the same at every step. After the last, result
/// `j` of rank `r` is copied into `results[r * numResults + j]` (when
/// `results` is not null). Buffers must have the sizes and element sizes of
/// the entry's types (a buffer of positive rank with null `sizes` is an
/// error). Under mpirun, each process gives the buffers of its own rank
/// only, as rank 0's. Fails on a mismatch or a rank's failure, with
/// a message as precRunnerCreate's.
MLIR_CAPI_EXPORTED MlirLogicalResult
precRunnerRun(PrecRunner runner, int32_t numSteps, const PrecBuffer *arguments,
              const PrecBuffer *results, uint64_t seed, char *error,
              intptr_t errorSize);

/// Runs `numSteps` steps on every rank of this process on a checkpoint in
/// safetensors (prec/Runner/Checkpoint.h). Before the first, each argument
/// whose name (`prec.name`) is a tensor of the file at `loadPath` is filled
/// from it (an argument with `prec.shard`: the rank's block, padding zero);
/// the file must hold every parameter (a sharded argument not named
/// `exp_avg.*` or `exp_avg_sq.*`) with the argument's dtype and whole shape.
/// Optimizer state the file lacks starts at zero, scalars at their
/// `prec.default`, other tensors drawn from `seed` as precRunnerRun draws
/// them. An empty `loadPath` loads nothing. The file is checked against the
/// entry before any rank starts. After the last step, when `savePath` is not
/// empty, the state the steps fed back is written to it: each result that
/// feeds an argument under the argument's name, sharded ones whole (from
/// the ranks of the first replica), scalars as tensors of shape []; under
/// mpirun every process calls this, and the process of rank 0 writes the
/// file. Fails with a message as precRunnerCreate's.
MLIR_CAPI_EXPORTED MlirLogicalResult precRunnerRunCheckpoint(
    PrecRunner runner, int32_t numSteps, MlirStringRef loadPath,
    MlirStringRef savePath, uint64_t seed, char *error, intptr_t errorSize);

#ifdef __cplusplus
}
#endif

#endif /* PREC_C_RUNNER_H */
