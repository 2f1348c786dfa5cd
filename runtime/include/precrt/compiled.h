/*===- precrt/compiled.h - entry points of generated code ---------*- C -*-===*\
 *
 * What code lowered by prec's compiler (convert-prec-to-runtime) calls. The
 * compiler includes this header for the symbol names and enum values, so the
 * two cannot drift apart.
 *
 * Generated code cannot propagate a status through the tensor program, so a
 * failure is recorded per rank (per calling thread) and every later compiled
 * collective of that rank returns at once with the same status; the driver
 * (prec-run, or an embedding program) checks precrtCompiledGetError() after
 * the program returns. Peers of a failed rank fail through the runtime's
 * timeout, never hang. Code run without a driver (mlir-runner) gets an
 * implicit world from PRECRT_BACKEND, and a failure ends the process
 * (docs/Runtime.md, "Generated code without a driver").
 *
\*===----------------------------------------------------------------------===*/

#ifndef PRECRT_COMPILED_H
#define PRECRT_COMPILED_H

#include "precrt/precrt.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PRECRT_COMPILED_COLLECTIVE_SYMBOL "precrtCompiledCollective"

/* The data movement of a prec.transport; values are emitted by the compiler. */
typedef enum precrt_transport_t {
  PRECRT_TRANSPORT_ALL_GATHER = 0,
  PRECRT_TRANSPORT_ALL_TO_ALL = 1,
  PRECRT_TRANSPORT_REDUCE_SCATTER = 2,
  PRECRT_TRANSPORT_ALL_REDUCE = 3,
} precrt_transport_t;

/* Runs one transport of `send_count` elements of `send` (the whole flat wire
 * buffer of this rank) into `recv`, over the group of the calling rank's
 * world given by a grid of shape `shape[0..num_dims)` and its `axes`
 * (num_axes == 0: all axes). `reduction` is read for reducing transports.
 * Returns 0, or the precrt_status_t of the first failure of this rank. */
PRECRT_EXPORT int32_t precrtCompiledCollective(
    int32_t transport, const void *send, void *recv, int64_t send_count,
    int32_t dtype, int32_t reduction, int32_t num_dims, const int64_t *shape,
    int32_t num_axes, const int32_t *axes);

/* The message of the first failure of a compiled collective on the calling
 * thread since the last clear, or NULL. */
PRECRT_EXPORT const char *precrtCompiledGetError(void);
PRECRT_EXPORT void precrtCompiledClearError(void);

#ifdef __cplusplus
}
#endif

#endif /* PRECRT_COMPILED_H */
