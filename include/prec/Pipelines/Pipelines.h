//===- Pipelines.h - prec's lowering pipelines ------------------*- C++ -*-===//
//
// Pipelines are API: embedders build them into their own pass managers with
// the builders below; prec-opt registers them by name.
//
//===----------------------------------------------------------------------===//

#ifndef PREC_PIPELINES_PIPELINES_H
#define PREC_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassOptions.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>

namespace mlir {
class OpPassManager;

namespace prec {

//===----------------------------------------------------------------------===//
// Stages. Each lowering pipeline is a composition of these, in this order;
// an embedder that needs a pipeline of its own composes them too. Each
// stage's options are a small plain struct: only what that stage's passes
// take, with one meaning on every target. The passes validate their values.
//===----------------------------------------------------------------------===//

/// Whose kernels a stage writes: what the kernels of a target take differs
/// (the GPU's vectorized elementwise kernels take no reduction and no table
/// lookup, and its host code does not yet place a buffer a loop carries on
/// the device).
enum class PrecTarget { CPU, CUDA };

/// Stage 1, the entry's signature: policies applied (prec-apply-policy),
/// whose output dtypes change the entry's result types. The runner reads the
/// signature after this stage and lowers with the stages after it.
void populatePrecSignatureStage(OpPassManager &pm);

struct PrecCollectivesStageOptions {
  /// Fold casts next to collectives into the collectives' dtypes
  /// (prec-fold-casts); the values are the same either way.
  bool foldCasts = true;
  /// `table` or `json`: print the precision of every collective at the end
  /// of the stage (prec-error-bounds); empty: none.
  std::string precisionReport;
  /// The `max-bucket-bytes` of prec-bucket-collectives: the most wire bytes
  /// one merged collective sends (0: no limit). With `overlap`, it decides
  /// how much one started transport carries (one layer's parameters, say).
  int64_t maxBucketBytes = 26214400;
};

/// Stage 2, the collectives as they will run: globals to arguments,
/// generated backward functions, dtypes and divisors explicit, fp8 scales
/// materialized, collectives bucketed.
void populatePrecCollectivesStage(OpPassManager &pm,
                                  const PrecCollectivesStageOptions &options);

struct PrecKernelsStageOptions {
  PrecTarget target = PrecTarget::CPU;
  /// prec-inline-kernel-callees and prec-fuse-kernels, on CPUs also
  /// prec-fuse-amax; the values are the same either way.
  bool fuseKernels = true;
  /// Remark the bytes of every transport and kernel (prec-report-traffic).
  bool reportTraffic = false;
  /// CPU: the `block-bytes` of prec-block-all-reduce and
  /// prec-block-reduce-scatter; 0: collectives whole.
  int64_t allReduceBlockBytes = 1048576;
  int64_t reduceScatterBlockBytes = 1048576;
  /// CPU: prec-plan-peer-windows (after a canonicalize); off: no windows.
  bool peerWindows = true;
  /// Start transports early and wait for them late
  /// (prec-schedule-transports), so that communication overlaps compute;
  /// the values are the same either way. Collectives then stay whole (no
  /// blocks) and no peer windows are planned: both would put the
  /// communication back in line with the kernels.
  bool overlap = false;
  /// prec-schedule-transports' budget: all_gathers in flight ahead of the
  /// one in use.
  int64_t prefetch = 1;
  /// GPU: contractions of per-tensor dequantized fp8 operands read the fp8
  /// data and the scales (prec-contract-fp8-with-scales), for cuBLASLt's
  /// fp8 gemm; set for chips with fp8 tensor cores when contractions go to
  /// cuBLASLt.
  bool fp8Gemm = false;
};

/// Stage 3, kernels and transports on tensors: collectives decomposed into
/// pack and unpack kernels and runtime transports, local ops to linalg,
/// kernels fused.
void populatePrecKernelsStage(OpPassManager &pm,
                              const PrecKernelsStageOptions &options);

struct PrecBufferizeStageOptions {
  PrecTarget target = PrecTarget::CPU;
  /// The kernels stage ran with peer windows: check that every read of one
  /// precedes the next collective (prec-check-peer-windows).
  bool peerWindows = false;
  /// Contractions will run as gemms (the host code stage's
  /// gemmContractions): a transpose read only by gemms is read through
  /// their strides and never gets a buffer (prec-fold-transposes).
  bool foldTransposes = false;
};

/// Stage 4, tensors to buffers: one-shot bufferization of the module, each
/// local buffer freed after its last use.
void populatePrecBufferizeStage(OpPassManager &pm,
                                const PrecBufferizeStageOptions &options);

struct PrecHostCodegenStageOptions {
  /// Matmuls and batch matmuls through precrt's gemm rather than loops
  /// (convert-contractions-to-runtime).
  bool gemmContractions = true;
  /// Time every kernel by kind (prec-profile-kernels).
  bool profile = false;
  /// Vector register bits loops converting between element widths are
  /// vectorized for (prec-hint-vector-width); 0: LLVM's choice.
  int64_t vectorBits = 256;
  /// bf16 conversions in integer arithmetic (arith-expand, bit-exact
  /// round-to-nearest-even) and f16 truncations with the runtime's NaN.
  bool expandBF16 = true;
};

/// Stage 5 on CPUs, buffers to the LLVM dialect: each kernel outlined into
/// a function of its own, loops, LLVM.
void populatePrecHostCodegenStage(OpPassManager &pm,
                                  const PrecHostCodegenStageOptions &options);

/// The options of every stage, as the runner and tools that lower for
/// either target hold them; their defaults are the pipelines'. The CPU
/// pipeline takes all of them; the CUDA pipelines take the collectives',
/// and of the kernels' only fuseKernels and reportTraffic.
struct PrecLoweringOptions {
  PrecCollectivesStageOptions collectives;
  PrecKernelsStageOptions kernels;
  PrecHostCodegenStageOptions hostCodegen;
};

//===----------------------------------------------------------------------===//
// The registered pipelines.
//===----------------------------------------------------------------------===//

struct PrecLowerToCPUOptions
    : public PassPipelineOptions<PrecLowerToCPUOptions> {
  PassOptions::Option<bool> expandBF16{
      *this, "expand-bf16",
      llvm::cl::desc("lower bf16 conversions with integer arithmetic "
                     "(portable, bit-exact round-to-nearest-even) and give "
                     "f16 truncations the runtime's canonical NaN"),
      llvm::cl::init(PrecHostCodegenStageOptions().expandBF16)};
  PassOptions::Option<bool> foldCasts{
      *this, "fold-casts",
      llvm::cl::desc("fold casts into collectives (prec-fold-casts); the "
                     "values are the same either way"),
      llvm::cl::init(PrecCollectivesStageOptions().foldCasts)};
  PassOptions::Option<bool> fuseKernels{
      *this, "fuse-kernels",
      llvm::cl::desc("fuse kernels (prec-inline-kernel-callees, "
                     "prec-fuse-kernels, prec-fuse-amax); the values are the "
                     "same either way"),
      llvm::cl::init(PrecKernelsStageOptions().fuseKernels)};
  PassOptions::Option<bool> gemmContractions{
      *this, "gemm-contractions",
      llvm::cl::desc("run matmuls and batch matmuls through precrt's gemm "
                     "rather than upstream's loops "
                     "(convert-contractions-to-runtime, prec-fold-transposes)"),
      llvm::cl::init(PrecHostCodegenStageOptions().gemmContractions)};
  PassOptions::Option<bool> profile{
      *this, "profile",
      llvm::cl::desc("time every kernel by kind for precrtCompiledGetProfile "
                     "(prec-profile-kernels; prec-run --profile)"),
      llvm::cl::init(PrecHostCodegenStageOptions().profile)};
  PassOptions::Option<bool> reportTraffic{
      *this, "report-traffic",
      llvm::cl::desc("remark the bytes each rank sends and receives per "
                     "collective and reads and writes per kernel "
                     "(prec-report-traffic; prec-run --traffic)"),
      llvm::cl::init(PrecKernelsStageOptions().reportTraffic)};
  PassOptions::Option<std::string> precisionReport{
      *this, "precision-report",
      llvm::cl::desc("print the precision of every collective after "
                     "bucketing: `table` or `json` (prec-error-bounds; "
                     "prec-run --precision-report); empty: none"),
      llvm::cl::init("")};
  PassOptions::Option<int64_t> vectorBits{
      *this, "vector-bits",
      llvm::cl::desc("bits of the vector registers that loops converting "
                     "between element widths are vectorized for "
                     "(prec-hint-vector-width); 0 leaves the width to LLVM"),
      llvm::cl::init(PrecHostCodegenStageOptions().vectorBits)};
  PassOptions::Option<int64_t> allReduceBlockBytes{
      *this, "all-reduce-block-bytes",
      llvm::cl::desc("input bytes per cache-sized block of a large "
                     "all_reduce (prec-block-all-reduce{block-bytes}); 0 "
                     "leaves all_reduces whole"),
      llvm::cl::init(PrecKernelsStageOptions().allReduceBlockBytes)};
  PassOptions::Option<int64_t> reduceScatterBlockBytes{
      *this, "reduce-scatter-block-bytes",
      llvm::cl::desc("input bytes per cache-sized block of a large "
                     "reduce_scatter and, with fuse-kernels, of the optimizer "
                     "that reads it (prec-block-reduce-scatter{block-bytes}); "
                     "0 leaves reduce_scatters whole"),
      llvm::cl::init(PrecKernelsStageOptions().reduceScatterBlockBytes)};
  PassOptions::Option<bool> peerWindows{
      *this, "peer-windows",
      llvm::cl::desc("kernels read and write the buffers of all_gathers and "
                     "all_to_alls in place (prec-plan-peer-windows); the "
                     "values are the same either way"),
      llvm::cl::init(PrecKernelsStageOptions().peerWindows)};
  PassOptions::Option<bool> overlap{
      *this, "overlap",
      llvm::cl::desc("start each transport as early and wait for it as late "
                     "as the program allows, so that communication runs "
                     "while the rank computes (prec-schedule-transports); "
                     "the values are the same either way"),
      llvm::cl::init(PrecKernelsStageOptions().overlap)};
  PassOptions::Option<int64_t> prefetch{
      *this, "prefetch",
      llvm::cl::desc("with overlap: all_gathers in flight ahead of the one "
                     "in use (FSDP2's default is 1)"),
      llvm::cl::init(PrecKernelsStageOptions().prefetch)};
  PassOptions::Option<int64_t> maxBucketBytes{
      *this, "max-bucket-bytes",
      llvm::cl::desc("the most wire bytes one bucketed collective sends "
                     "(prec-bucket-collectives); 0: no limit"),
      llvm::cl::init(PrecCollectivesStageOptions().maxBucketBytes)};
};

/// Lowers a module of prec ops on tensors to the LLVM dialect for the host:
/// every stage above, in order, with the options given.
void buildPrecLowerToCPUPipeline(OpPassManager &pm,
                                 const PrecLowerToCPUOptions &options);

void buildPrecLowerToCPUPipeline(OpPassManager &pm,
                                 const PrecLoweringOptions &options);

/// buildPrecLowerToCPUPipeline without its first stage: for a module whose
/// signature stage has run (the runner reads the entry's signature between
/// the two).
void buildPrecLowerToCPUAfterSignaturePipeline(
    OpPassManager &pm, const PrecLoweringOptions &options);

/// The stages' options that prec-lower-to-cpu's options stand for.
PrecLoweringOptions getLoweringOptions(const PrecLowerToCPUOptions &options);

struct PrecLowerToCUDAOptions
    : public PassPipelineOptions<PrecLowerToCUDAOptions> {
  PassOptions::Option<std::string> chip{
      *this, "chip", llvm::cl::desc("the GPU architecture kernels compile for"),
      llvm::cl::init("sm_90")};
  PassOptions::Option<std::string> features{
      *this, "features",
      llvm::cl::desc("PTX features of the target (sm_90 needs PTX 8.0)"),
      llvm::cl::init("+ptx80")};
  PassOptions::Option<std::string> format{
      *this, "format",
      llvm::cl::desc("what the kernels become: `isa` (PTX, compiled by the "
                     "driver at load time), `bin` (cubin) or `fatbin` (both; "
                     "`bin` and `fatbin` run ptxas from the CUDA toolkit)"),
      llvm::cl::init("fatbin")};
  PassOptions::Option<int64_t> threadsPerBlock{
      *this, "threads-per-block",
      llvm::cl::desc("threads of each block of the bandwidth kernels"),
      llvm::cl::init(256)};
  PassOptions::Option<int64_t> optLevel{
      *this, "opt-level",
      llvm::cl::desc("LLVM optimization level of the kernels"),
      llvm::cl::init(3)};
  PassOptions::Option<bool> cInterface{
      *this, "c-interface",
      llvm::cl::desc("give every public function a `_mlir_ciface_<name>` "
                     "wrapper that takes memrefs as pointers to descriptors, "
                     "the entry point ahead-of-time programs call from C"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> foldCasts{
      *this, "fold-casts",
      llvm::cl::desc("fold casts into collectives (prec-fold-casts); the "
                     "values are the same either way"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> fuseKernels{
      *this, "fuse-kernels",
      llvm::cl::desc("fuse kernels (prec-inline-kernel-callees, "
                     "prec-fuse-kernels), fewer launches; the values are the "
                     "same either way"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> gemmContractions{
      *this, "gemm-contractions",
      llvm::cl::desc("run matmuls and batch matmuls through cuBLASLt "
                     "(precrtCompiledGpuMatmul, loaded at run time) rather "
                     "than loop kernels (convert-contractions-to-runtime "
                     "with gpu, prec-fold-transposes)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> reportTraffic{
      *this, "report-traffic",
      llvm::cl::desc("remark the bytes each rank sends and receives per "
                     "collective and reads and writes per kernel "
                     "(prec-report-traffic; prec-run --traffic)"),
      llvm::cl::init(false)};
  PassOptions::Option<std::string> precisionReport{
      *this, "precision-report",
      llvm::cl::desc("print the precision of every collective after "
                     "bucketing: `table` or `json` (prec-error-bounds; "
                     "prec-run --precision-report); empty: none"),
      llvm::cl::init("")};
  PassOptions::Option<bool> overlap{
      *this, "overlap",
      llvm::cl::desc("start each transport as early and wait for it as late "
                     "as the program allows: NCCL runs on the group's stream "
                     "while kernels run on the compute stream "
                     "(prec-schedule-transports); the values are the same "
                     "either way"),
      llvm::cl::init(PrecKernelsStageOptions().overlap)};
  PassOptions::Option<int64_t> prefetch{
      *this, "prefetch",
      llvm::cl::desc("with overlap: all_gathers in flight ahead of the one "
                     "in use (FSDP2's default is 1)"),
      llvm::cl::init(PrecKernelsStageOptions().prefetch)};
  PassOptions::Option<int64_t> maxBucketBytes{
      *this, "max-bucket-bytes",
      llvm::cl::desc("the most wire bytes one bucketed collective sends "
                     "(prec-bucket-collectives); 0: no limit"),
      llvm::cl::init(PrecCollectivesStageOptions().maxBucketBytes)};
};

/// Lowers the same module as buildPrecLowerToCPUPipeline for NVIDIA GPUs:
/// every kernel becomes a gpu.func in a gpu.module compiled through NVVM
/// (elementwise kernels as vectorized grid-stride loops), buffers live in
/// device memory, and the host code launches kernels and runs collectives
/// through the precrt runtime on the calling rank's stream (docs/GPU.md).
void buildPrecLowerToCUDAPipeline(OpPassManager &pm,
                                  const PrecLowerToCUDAOptions &options);

/// buildPrecLowerToCUDAPipeline without its first stage.
void buildPrecLowerToCUDAAfterSignaturePipeline(
    OpPassManager &pm, const PrecLowerToCUDAOptions &options);

/// The part of buildPrecLowerToCUDAPipeline after its first stage and
/// before NVVM: prec on tensors to outlined kernels (gpu.func in gpu.module)
/// and host code that launches them and runs collectives on the rank's
/// stream, for pipelines that compile or run the kernels otherwise.
void buildPrecToGPUKernelsPipeline(OpPassManager &pm,
                                   const PrecLowerToCUDAOptions &options);

struct PrecPrecisionReportOptions
    : public PassPipelineOptions<PrecPrecisionReportOptions> {
  PassOptions::Option<std::string> format{
      *this, "format", llvm::cl::desc("`table` (default) or `json`"),
      llvm::cl::init("table")};
  PassOptions::Option<bool> foldCasts{
      *this, "fold-casts",
      llvm::cl::desc("fold casts into collectives first (prec-fold-casts), "
                     "as the lowering pipelines do by default"),
      llvm::cl::init(true)};
};

/// The first two stages of the lowering pipelines (policies, generated
/// backward functions, inferred dtypes, divisors, fp8 scales, buckets), then
/// prec-error-bounds' report of every collective on stdout.
void buildPrecPrecisionReportPipeline(
    OpPassManager &pm, const PrecPrecisionReportOptions &options);

/// Registers `prec-precision-report`, `prec-lower-to-cpu`, `prec-lower-to-cuda`
/// and `prec-from-torch` with the global pass pipeline registry.
/// `prec-from-torch`: a loss exported by torch-mlir (linalg on tensors) to a
/// training step prec-run runs: prec-globals-to-arguments, prec-fully-shard
/// with `fullyShardOptions` (its option string, e.g. "mesh=4
/// optimizer=adamw"), prec-generate-backward. Fails when the options do not
/// parse, reporting through `errorHandler`.
LogicalResult buildPrecFromTorchPipeline(
    OpPassManager &pm, llvm::StringRef fullyShardOptions,
    llvm::function_ref<LogicalResult(const llvm::Twine &)> errorHandler);

void registerPrecPipelines();

/// The names of the pipelines registerPrecPipelines registers, for tools
/// that list prec's own (prec-opt --help-prec).
llvm::ArrayRef<llvm::StringLiteral> getPrecPipelineNames();

} // namespace prec
} // namespace mlir

#endif // PREC_PIPELINES_PIPELINES_H
