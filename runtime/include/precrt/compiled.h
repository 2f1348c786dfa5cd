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
#define PRECRT_COMPILED_COLLECTIVE_ON_STREAM_SYMBOL                            \
  "precrtCompiledCollectiveOnStream"
#define PRECRT_COMPILED_COLLECTIVE_START_SYMBOL "precrtCompiledCollectiveStart"
#define PRECRT_COMPILED_COLLECTIVE_WAIT_SYMBOL "precrtCompiledCollectiveWait"
#define PRECRT_COMPILED_COLLECTIVE_START_ON_STREAM_SYMBOL                      \
  "precrtCompiledCollectiveStartOnStream"
#define PRECRT_COMPILED_COLLECTIVE_WAIT_ON_STREAM_SYMBOL                       \
  "precrtCompiledCollectiveWaitOnStream"
#define PRECRT_COMPILED_GPU_STREAM_SYMBOL "precrtCompiledGpuStream"
#define PRECRT_COMPILED_GPU_MAX_BLOCKS_SYMBOL "precrtCompiledGpuMaxBlocks"
#define PRECRT_COMPILED_ALLOC_SYMBOL "precrtCompiledAlloc"
#define PRECRT_COMPILED_FREE_SYMBOL "precrtCompiledFree"
#define PRECRT_COMPILED_WORLD_RANK_SYMBOL "precrtCompiledWorldRank"
#define PRECRT_COMPILED_GRID_RANK_SYMBOL "precrtCompiledGridRank"
#define PRECRT_COMPILED_MATMUL_SYMBOL "precrtCompiledMatmul"
#define PRECRT_COMPILED_GPU_MATMUL_SYMBOL "precrtCompiledGpuMatmul"
#define PRECRT_COMPILED_WINDOW_SYMBOL "precrtCompiledWindow"
#define PRECRT_COMPILED_WINDOW_FENCE_SYMBOL "precrtCompiledWindowFence"
#define PRECRT_COMPILED_GROUP_RANK_SYMBOL "precrtCompiledGroupRank"
#define PRECRT_COMPILED_PROFILE_START_SYMBOL "precrtCompiledProfileStart"
#define PRECRT_COMPILED_PROFILE_STOP_SYMBOL "precrtCompiledProfileStop"

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
 * all_to_all and reduce_scatter split `send` into one block per rank of the
 * group: `send_count` must be a multiple of the group size.
 * Returns 0, or the precrt_status_t of the first failure of this rank. */
PRECRT_EXPORT int32_t precrtCompiledCollective(
    int32_t transport, const void *send, void *recv, int64_t send_count,
    int32_t dtype, int32_t reduction, int32_t num_dims, const int64_t *shape,
    int32_t num_axes, const int32_t *axes);

/*===--- Started transports: communication behind computation ----------===*/

/* precrtCompiledCollective's transport, started: returns at once with a
 * handle (> 0) while the data moves on the calling rank's communication
 * thread. Until the matching wait returns, `send` must not be written and
 * `recv` neither read nor written. A rank's started transports run one at a
 * time in the order started, and every collective the rank runs
 * synchronously (precrtCompiledCollective, window fences, group creation,
 * the driver's own collectives) runs after all of them, so the ranks of a
 * group still agree on the order. The communication thread is created by the
 * rank's first start and joined when the rank's world ends or the thread
 * exits (after the transports still queued have run). On a rank that has
 * already failed, or for invalid arguments, the failure is recorded and the
 * returned handle's wait returns it. Generated code run without a world (a
 * local world of one rank per call) moves the data before returning. */
PRECRT_EXPORT int64_t precrtCompiledCollectiveStart(
    int32_t transport, const void *send, void *recv, int64_t send_count,
    int32_t dtype, int32_t reduction, int32_t num_dims, const int64_t *shape,
    int32_t num_axes, const int32_t *axes);

/* Waits until the started transport `handle` has completed; `send` and
 * `recv` must be the buffers it was started with (checked: a mismatch is
 * PRECRT_ERROR_INVALID_ARGUMENT, after the transport completed, as is an
 * unknown or already-waited handle). Returns 0 or the failure's status,
 * recorded as the rank's error like a failed precrtCompiledCollective; a
 * failed transport's later started ones fail with its status without
 * moving data. The time spent blocked here is the rank's exposed
 * communication (PRECRT_PROFILE_COLLECTIVE, one call per wait). */
PRECRT_EXPORT int32_t precrtCompiledCollectiveWait(int64_t handle,
                                                   const void *send,
                                                   void *recv);

/* Waits until every transport the calling rank started has completed, and
 * reports each one that was never waited as the rank's error
 * (PRECRT_ERROR_INVALID_ARGUMENT, "... started but never waited"; its
 * handle is forgotten). A driver calls it when a call of generated code
 * returns, before it reads precrtCompiledGetError() (prec-run does): a
 * step leaves nothing in flight. Returns 0 or the rank's first failure. */
PRECRT_EXPORT int32_t precrtCompiledDrain(void);

/*===--- Peer windows: transports read in place -------------------------===*/

/* The slot of the calling rank's peer window for one call of an all_gather
 * or all_to_all with `segment_bytes` per rank over the group of a grid (as
 * precrtCompiledCollective): group-size segments of segment_bytes, one per
 * rank in group-rank order. The rank writes its wire data into its own
 * segment, calls precrtCompiledWindowFence, and then reads its peers'
 * segments in place, up to its next collective on the group. A window has
 * two slots, returned in turn; where the group's ranks share a machine it is
 * memory they all map, created by the first call (a collective over the
 * group), otherwise private memory that the fence fills with the backend's
 * collectives (PRECRT_SHARED_WINDOWS=0 forces that). On failure the rank's
 * error is recorded and private memory returned; a window that no memory
 * can hold ends the process with the message, as an allocation failure
 * does. The runtime owns the memory; it lives as long as the group. */
PRECRT_EXPORT void *precrtCompiledWindow(int64_t segment_bytes,
                                         int32_t num_dims,
                                         const int64_t *shape,
                                         int32_t num_axes,
                                         const int32_t *axes);

/* Makes the segments of `slot` readable: for PRECRT_TRANSPORT_ALL_GATHER
 * every segment of `segment_count` elements of `dtype`; for
 * PRECRT_TRANSPORT_ALL_TO_ALL, where a segment holds one block per rank, the
 * calling rank's block of every segment. A collective over the group,
 * recorded like precrtCompiledCollective (precrtCompiledGetTraffic counts
 * the bytes read from peers' segments as received). Returns 0, or the
 * precrt_status_t of the first failure of this rank. */
PRECRT_EXPORT int32_t precrtCompiledWindowFence(
    int32_t transport, void *slot, int64_t segment_count, int32_t dtype,
    int32_t num_dims, const int64_t *shape, int32_t num_axes,
    const int32_t *axes);

/* The calling rank's index in the group of a grid's axes (its segment of a
 * peer window); 0 when the group cannot be formed (the failure is recorded). */
PRECRT_EXPORT int64_t precrtCompiledGroupRank(int32_t num_dims,
                                              const int64_t *shape,
                                              int32_t num_axes,
                                              const int32_t *axes);

/* The calling rank's index in its world, which is its linear index in any
 * grid over the whole world (`shard.process_linear_index`): what keys the
 * random stream of a collective's stochastic rounding on each rank. 0 for
 * generated code run without a world (one rank). */
PRECRT_EXPORT int64_t precrtCompiledWorldRank(void);

/* The calling rank's index in a grid of `grid_ranks` ranks over the whole
 * world (`shard.process_linear_index`, `shard.process_multi_index`): the
 * world rank, once the world is checked to have exactly that many ranks. A
 * world of another size is the rank's error (a coordinate computed from it
 * would be silently wrong); without a driver to report it, the process
 * ends with the message. */
PRECRT_EXPORT int64_t precrtCompiledGridRank(int64_t grid_ranks);

/*===--- Contractions of CPU code ----------------------------------------===*/

/* C[b] += A[b] x B[b] for b in [0, batch): the matmuls (transposed forms and
 * batch matmuls included) that convert-contractions-to-runtime takes out of
 * CPU code. Element (b, i, p) of A is at `a + b * a_batch_stride +
 * i * a_row_stride + p * a_col_stride` (strides in elements, 0 for a
 * broadcast batch), and likewise B (k x n) and C (m x n); a transposed
 * operand is one with swapped strides.
 *
 * The precision contract (docs/Prec.md, "Contractions"): A and B, each f32,
 * bf16, f16, f8E4M3FN or f8E5M2, are extended exactly to f32; C is f32,
 * bf16 or f16; every product and every partial
 * sum, the initial value of C included, is kept in f32; a bf16 or f16 C is
 * rounded once, to nearest even, at the end. Subnormal inputs and results
 * are kept (no flush to zero). Kernels: for two bf16 operands precrt's own,
 * which sums each element's products in one order on every host (pairs of k
 * in order, the odd product first, as VDPBF16PS does; the CPU's fastest of
 * AVX512_BF16, AVX-512, AVX2 or scalar code, or PRECRT_BF16_GEMM_KERNEL's
 * choice); otherwise OpenBLAS's cblas_sgemm, loaded at
 * run time (PRECRT_BLAS_LIBRARY, default libopenblas.so.0; `none` selects the
 * builtin kernel) and run single-threaded on the calling thread, or a
 * builtin kernel with the same contract where OpenBLAS is absent.
 * Returns 0, or PRECRT_ERROR_INVALID_ARGUMENT (recorded as the thread's
 * error) for a dtype or size it cannot take. */
PRECRT_EXPORT int32_t precrtCompiledMatmul(
    int64_t batch, int64_t m, int64_t n, int64_t k, int32_t a_dtype,
    const void *a, int64_t a_batch_stride, int64_t a_row_stride,
    int64_t a_col_stride, int32_t b_dtype, const void *b,
    int64_t b_batch_stride, int64_t b_row_stride, int64_t b_col_stride,
    int32_t c_dtype, void *c, int64_t c_batch_stride, int64_t c_row_stride,
    int64_t c_col_stride);

/* What precrtCompiledMatmul computes with: OpenBLAS's configuration
 * ("OpenBLAS 0.3.21 DYNAMIC_ARCH ... Zen ...") or
 * "builtin" (with the reason OpenBLAS is not used), then the bf16 kernel
 * ("; bf16 x bf16: avx512bf16"). Loads the library on first use. */
PRECRT_EXPORT const char *precrtCompiledMatmulKernel(void);

/*===--- Where a step's time goes ----------------------------------------===*/

/* The kinds of work a rank's time is summed by. The runtime times its own
 * entry points always (a clock read at each end); kernels are timed where
 * the compiler instrumented them (prec-lower-to-cpu's `profile` option,
 * prec-run --profile). */
typedef enum precrt_profile_kind_t {
  /* precrtCompiledMatmul. */
  PRECRT_PROFILE_GEMM = 0,
  /* Kernels that neither write a collective's send buffer nor read its
   * received buffer: the model's elementwise work, losses, optimizers. */
  PRECRT_PROFILE_COMPUTE_KERNEL = 1,
  /* Kernels around collectives: casts and scales into the wire buffer,
   * reductions and unpacking out of the received one. */
  PRECRT_PROFILE_PACK_KERNEL = 2,
  /* precrtCompiledCollective, waiting for peers included, and the time
   * blocked in precrtCompiledCollectiveWait(OnStream): the communication
   * the rank's work did not hide. */
  PRECRT_PROFILE_COLLECTIVE = 3,
  /* The part of COLLECTIVE spent waiting for the other ranks to arrive
   * (local backend; other backends wait inside their library, counted in
   * COLLECTIVE only). Synchronous collectives only. */
  PRECRT_PROFILE_WAIT = 4,
  /* Started transports (precrtCompiledCollectiveStart): the time the rank's
   * communication thread spent moving them, one call per transport, hidden
   * behind the rank's work or not. The part the rank waited for is in
   * COLLECTIVE (precrtCompiledCollectiveWait), so BACKGROUND minus the
   * waits' share of COLLECTIVE is the communication computation hid.
   * Counted when the rank collects the transport (its wait, or a drain). */
  PRECRT_PROFILE_BACKGROUND = 5,
} precrt_profile_kind_t;
#define PRECRT_PROFILE_NUM_KINDS 6

typedef struct precrt_profile_t {
  double seconds[PRECRT_PROFILE_NUM_KINDS];
  int64_t calls[PRECRT_PROFILE_NUM_KINDS];
} precrt_profile_t;

/* What instrumented kernels call around themselves: the start time, then
 * the kind and that start time. */
PRECRT_EXPORT int64_t precrtCompiledProfileStart(void);
PRECRT_EXPORT void precrtCompiledProfileStop(int32_t kind, int64_t start);

/* The calling thread's (rank's) sums since the last reset. */
PRECRT_EXPORT void precrtCompiledGetProfile(precrt_profile_t *profile);
PRECRT_EXPORT void precrtCompiledResetProfile(void);

/*===--- What a step moves ------------------------------------------------===*/

/* One compiled collective as the runtime ran it: what the code asked for
 * and the payload bytes this rank sent and received for it, from the
 * counters of the group's communicator (precrtCommGetTraffic: counted where
 * the backend moves the data; the nccl backend counts none). */
typedef struct precrt_compiled_traffic_t {
  int32_t transport;  /* precrt_transport_t */
  int32_t dtype;      /* precrt_dtype_t */
  int64_t send_count; /* elements of this rank's wire buffer */
  int32_t group_size;
  int32_t backend; /* precrt_backend_t of the group */
  uint64_t bytes_sent;
  uint64_t bytes_received;
  /* Of those, to and from ranks on other hosts (precrt_traffic_t). */
  uint64_t bytes_sent_across_hosts;
  uint64_t bytes_received_across_hosts;
} precrt_compiled_traffic_t;

/* The maximum number of records kept between two resets; later calls are
 * still run, and counted by precrtCompiledGetTraffic's result. */
#define PRECRT_COMPILED_TRAFFIC_RECORDS 65536

/* The compiled collectives the calling thread (rank) completed since the
 * last reset, in call order: copies the first min(capacity, kept) records
 * into `records` (which may be NULL when capacity is 0) and returns the
 * number of collectives completed. */
PRECRT_EXPORT int64_t
precrtCompiledGetTraffic(precrt_compiled_traffic_t *records, int64_t capacity);
PRECRT_EXPORT void precrtCompiledResetTraffic(void);

/*===--- Host buffers of CPU code -----------------------------------------===*/

/* CPU code allocates its wire, receive and result buffers with malloc and
 * frees them with free on every call; blocks of 32 MiB and more are then
 * fresh pages from the kernel each time, whose faults and zeroing can cost
 * more than the collective. A driver binds the code's malloc and free to
 * these two (prec-run does), which keep freed blocks by size and hand them
 * out again, as a training framework's caching allocator does. The cache
 * holds at most twice as many bytes as were ever in use at once (a freed
 * block that does not fit goes to free), so memory stays within three times
 * the program's peak. Thread-safe; the ranks of a local world share the cache.
 *
 * A block from precrtCompiledAlloc goes back through precrtCompiledFree,
 * also when the code returns it to its caller. precrtCompiledFree of a
 * pointer it did not hand out passes it to free; of a block already freed,
 * it reports the double free on stderr and aborts, as the C library would. */
PRECRT_EXPORT void *precrtCompiledAlloc(size_t bytes);
PRECRT_EXPORT void precrtCompiledFree(void *data);

/* Frees the blocks the cache keeps; blocks in use stay valid. Returns the
 * number of bytes released. */
PRECRT_EXPORT size_t precrtCompiledReleaseCached(void);

/* The bytes of the blocks the calling thread (a rank of a local world) got
 * from precrtCompiledAlloc and that are not yet freed, by whichever thread,
 * and the most there were at once since the last reset (or the start): the
 * buffers one rank's generated CPU code has live. Cached blocks do not
 * count. */
typedef struct precrt_compiled_memory_t {
  size_t in_use_bytes;
  size_t peak_in_use_bytes;
} precrt_compiled_memory_t;
PRECRT_EXPORT void precrtCompiledGetMemory(precrt_compiled_memory_t *memory);
/* Sets the calling thread's peak to what it has in use now. */
PRECRT_EXPORT void precrtCompiledResetPeakMemory(void);

/* A memref as lowered code passes it to `memrefCopy`: its rank and a
 * pointer to its descriptor (allocated and aligned pointers, offset, then
 * `rank` sizes and `rank` strides, all 64-bit). */
typedef struct precrt_unranked_memref_t {
  int64_t rank;
  void *descriptor;
} precrt_unranked_memref_t;

/* upstream's `memrefCopy` (mlir_c_runner_utils), which copies between
 * buffers of general layout one element at a time, with each run that both
 * layouts hold contiguously copied at once; a driver binds the code's
 * `memrefCopy` to it (prec-run does). */
PRECRT_EXPORT void precrtCompiledMemrefCopy(int64_t element_bytes,
                                            const precrt_unranked_memref_t *src,
                                            const precrt_unranked_memref_t *dst);

/*===--- GPU code (prec-lower-to-cuda) ------------------------------------===*/

/* Lowered GPU code enqueues everything it does (allocations, copies, kernels)
 * on one compute stream per rank, which it obtains once per call of a
 * lowered function, and returns without synchronizing it: the driver
 * synchronizes the stream after the call. The GPU entry points below record
 * a failure like a failed compiled collective: as the rank's error for
 * precrtCompiledGetError(), or, without a driver, on stderr before ending
 * the process. The device is the calling thread's (precrtGpuSetDevice; an
 * nccl world sets it to the rank's GPU). */

/* The compute stream of the calling rank (thread) on its current device, as
 * a CUstream. Created on first use (non-blocking: it does not wait for the
 * legacy default stream), owned by the runtime, the same for every call of
 * the thread, and destroyed when the thread exits. Without a driver and with
 * PRECRT_BACKEND=nccl, the process joins that world first, which selects its
 * GPU. NULL on failure. */
PRECRT_EXPORT void *precrtCompiledGpuStream(void);

/* The largest grid whose blocks of `threads_per_block` threads can all be
 * resident at once on the current device: multiprocessors x (max resident
 * threads per multiprocessor / threads_per_block), at least 1. The device's
 * attributes are read once and cached. Grid-stride kernels launch this many
 * blocks (or fewer); 1 on failure. */
PRECRT_EXPORT int64_t precrtCompiledGpuMaxBlocks(int64_t threads_per_block);

/* precrtCompiledCollective on device buffers that work enqueued on `stream`
 * (the compute stream) writes before the call and reads after it. The world
 * must run on the nccl backend; on another, the call fails with "GPU code
 * needs the nccl backend, the world runs on <name>". The collective runs on
 * the stream of the group's NCCL communicator (its own, one per group,
 * created once with the cached communicator), which first
 * waits for an event recorded on `stream`; afterwards `stream` waits for an
 * event recorded on the group's stream, so the kernels enqueued next see the
 * result. The events are created once per thread. The call returns when the
 * collective is done on the GPU (or timed out). */
PRECRT_EXPORT int32_t precrtCompiledCollectiveOnStream(
    int32_t transport, const void *send, void *recv, int64_t send_count,
    int32_t dtype, int32_t reduction, int32_t num_dims, const int64_t *shape,
    int32_t num_axes, const int32_t *axes, void *stream);

/* precrtCompiledCollectiveStart on device buffers that work enqueued on
 * `stream` (the compute stream) writes before the call: records an event on
 * `stream` and returns; the communication thread makes the group's stream
 * wait for that event, enqueues the NCCL collective and records a
 * completion event on the group's stream. The events come from a pool of
 * the calling thread's, created once. */
PRECRT_EXPORT int64_t precrtCompiledCollectiveStartOnStream(
    int32_t transport, const void *send, void *recv, int64_t send_count,
    int32_t dtype, int32_t reduction, int32_t num_dims, const int64_t *shape,
    int32_t num_axes, const int32_t *axes, void *stream);

/* precrtCompiledCollectiveWait of a transport started on `stream`: makes
 * `stream` wait for the completion event, so the kernels enqueued after the
 * call see the result. It returns once the communication thread has seen
 * the collective complete on the GPU: the thread polls the group's stream
 * as precrtCompiledCollectiveOnStream does, so a collective that never
 * completes is PRECRT_ERROR_TIMEOUT after the world's timeout (and its
 * NCCL communicator is aborted), never a hang. */
PRECRT_EXPORT int32_t precrtCompiledCollectiveWaitOnStream(int64_t handle,
                                                           const void *send,
                                                           void *recv,
                                                           void *stream);

/* Arithmetic below the gemm's contract that a program allows, as the bits of
 * its #prec.reduced_precision attribute (the values are the attribute's). */
typedef enum precrt_reduced_precision_t {
  PRECRT_REDUCED_PRECISION_NONE = 0,
  /* f32 inputs rounded to TF32 (CUBLAS_COMPUTE_32F_FAST_TF32). */
  PRECRT_REDUCED_PRECISION_TF32 = 1,
  /* Split-K partial sums of a bf16 or f16 C summed in C's type. */
  PRECRT_REDUCED_PRECISION_OUTPUT_TYPE_REDUCTION = 2,
  /* fp8 A and B on fp8 tensor cores, whose partial sums keep fewer bits
   * than f32 until cuBLASLt promotes them. */
  PRECRT_REDUCED_PRECISION_FP8_ACCUMULATION = 4,
} precrt_reduced_precision_t;

/* precrtCompiledMatmul on device buffers, enqueued on `stream` (the compute
 * stream) through cuBLASLt, under the same contract: every product and
 * partial sum in f32 (CUBLAS_COMPUTE_32F, never TF32; split-K partial sums
 * in f32, never in a bf16 or f16 output), the initial value of C included,
 * and a bf16 or f16 C rounded once at the end, unless `reduced_precision`
 * (a set of precrt_reduced_precision_t bits) allows less. A and B are of one
 * dtype (f32, bf16 or f16) with `a_scale` and `b_scale` NULL, or both fp8
 * (f8E4M3FN or f8E5M2, not both f8E5M2) with their dequantization scales:
 * `a_scale` and `b_scale` point to one f32 each in device memory, and
 * C += a_scale * b_scale * (A B), the products of the fp8 values exact in
 * f32 (cuBLASLt's fp8 gemm, compute capability 8.9 or later; each of A and
 * B with a unit stride along k, cuBLASLt's fp8 layout), only with
 * PRECRT_REDUCED_PRECISION_FP8_ACCUMULATION. C is f32 or of A's
 * dtype (bf16 or f16 for fp8 inputs); each operand needs a unit stride
 * along its rows or its columns. cuBLASLt is loaded on the first call
 * (PRECRT_CUBLASLT_LIBRARY, else libcublasLt.so.13, else libcublasLt.so.12)
 * and a handle and a 32 MiB workspace are created once per device. Returns
 * 0, or the failure (recorded as the rank's error): PRECRT_ERROR_UNAVAILABLE
 * with "cuBLASLt unavailable: ..." when the library is missing,
 * PRECRT_ERROR_INVALID_ARGUMENT for operands it cannot take. */
PRECRT_EXPORT int32_t precrtCompiledGpuMatmul(
    int64_t batch, int64_t m, int64_t n, int64_t k, int32_t a_dtype,
    const void *a, int64_t a_batch_stride, int64_t a_row_stride,
    int64_t a_col_stride, int32_t b_dtype, const void *b,
    int64_t b_batch_stride, int64_t b_row_stride, int64_t b_col_stride,
    int32_t c_dtype, void *c, int64_t c_batch_stride, int64_t c_row_stride,
    int64_t c_col_stride, const void *a_scale, const void *b_scale,
    int32_t reduced_precision, void *stream);

/* The message of the first failure of a compiled entry point on the calling
 * thread since the last clear, or NULL. */
PRECRT_EXPORT const char *precrtCompiledGetError(void);
PRECRT_EXPORT void precrtCompiledClearError(void);

#ifdef __cplusplus
}
#endif

#endif /* PRECRT_COMPILED_H */
