//===- Pipelines.cpp - prec's lowering pipelines --------------------------===//

#include "prec/Pipelines/Pipelines.h"

#include "prec/Conversion/Passes.h"
#include "prec/Dialect/Prec/Transforms/Passes.h"
#include "prec/Gradients/Passes.h"
#include "prec/Lowering/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::prec;

void mlir::prec::populatePrecSignatureStage(OpPassManager &pm) {
  pm.addPass(createPrecApplyPolicy());
}

void mlir::prec::populatePrecCollectivesStage(
    OpPassManager &pm, const PrecCollectivesStageOptions &options) {
  // Whole-module precision semantics: generated backward functions.
  pm.addPass(createPrecGlobalsToArguments());
  pm.addPass(createPrecGenerateBackward());

  // prec on tensors: explicit dtypes and divisors, few large collectives.
  OpPassManager &funcs = pm.nest<func::FuncOp>();
  // The accumulation schedule sets its own divisors, so it runs before
  // prec-divide-factors would divide each collective as if it ran alone.
  funcs.addPass(createPrecAccumulateMicrobatches());
  funcs.addPass(createPrecInferPrecision());
  // Casts next to collectives become the collectives' own dtypes, the
  // generated backward functions' included.
  if (options.foldCasts)
    funcs.addPass(createPrecFoldCasts());
  funcs.addPass(createPrecDivideFactors());
  // fp8 wires: explicit scales, so that the quantized gathers left behind
  // are bucketed like any other.
  funcs.addPass(createPrecMaterializeScales());
  PrecBucketCollectivesOptions buckets;
  buckets.maxBucketBytes = options.maxBucketBytes;
  funcs.addPass(createPrecBucketCollectives(buckets));
  if (!options.precisionReport.empty()) {
    PrecErrorBoundsOptions bounds;
    bounds.report = options.precisionReport;
    pm.addPass(createPrecErrorBounds(bounds));
  }
}

void mlir::prec::populatePrecKernelsStage(
    OpPassManager &pm, const PrecKernelsStageOptions &options) {
  bool onCPU = options.target == PrecTarget::CPU;
  OpPassManager &funcs = pm.nest<func::FuncOp>();
  // Large direct all_reduces and reduce_scatters as loops over blocks whose
  // wire buffers stay in a CPU's cache; an optimizer reading a cut
  // reduce_scatter rides in its blocks where kernels fuse.
  bool blocks = onCPU && !options.overlap;
  if (blocks && options.allReduceBlockBytes != 0) {
    PrecBlockAllReduceOptions block;
    block.blockBytes = options.allReduceBlockBytes;
    funcs.addPass(createPrecBlockAllReduce(block));
  }
  if (blocks && options.reduceScatterBlockBytes != 0) {
    PrecBlockReduceScatterOptions block;
    block.blockBytes = options.reduceScatterBlockBytes;
    block.withOptimizers = options.fuseKernels;
    funcs.addPass(createPrecBlockReduceScatter(block));
  }
  funcs.addPass(createPrecDecomposeCollectives());
  // An amax and the quantization of the same input in one read, where the
  // quantization does not wait for the amax: a loop with a reduction, which
  // the GPU's kernel mapping (parallel kernels only) does not take.
  if (onCPU && options.fuseKernels)
    funcs.addPass(createPrecFuseAmax());
  // Per-tensor fp8 dequantization by a table of the 256 bit patterns: a
  // lookup per element, which the GPU's vectorized kernels do not take.
  if (onCPU)
    funcs.addPass(createPrecDequantizeByTable());
  // A contraction of dequantized fp8 operands reads the fp8 data and the
  // scales, which cuBLASLt's fp8 gemm multiplies by the sum of the exact
  // fp8 products; the dequantizations it read are then dead.
  if (!onCPU && options.fp8Gemm)
    funcs.addPass(createPrecContractFp8WithScales());
  funcs.addPass(createConvertPrecToLinalg());
  funcs.addPass(createConvertElementwiseToLinalgPass());
  // linalg.softmax and other ops defined by their decomposition, now that
  // the backward functions have differentiated them.
  funcs.addPass(createPrecDecomposeAggregateOps());
  // tanh (a GELU's) as arithmetic that vectorizes, rather than a libm call
  // per element; the same arithmetic on every target.
  funcs.addPass(createPrecApproximateMath());
  // A kernel that only feeds another runs inside it: a reduce-scatter's
  // unpack inside the optimizer step, a cast inside a pack kernel. The
  // generated backward function is inlined into the step first, so that its
  // gradients' unpack kernels meet the optimizer kernels that read them. On
  // the GPU a fused kernel is one launch; what it reads (arguments, received
  // buffers, scalars, constant globals) is placed on the device like any
  // kernel's operands.
  if (options.fuseKernels) {
    pm.addPass(createPrecInlineKernelCallees());
    pm.nest<func::FuncOp>().addPass(createPrecFuseKernels());
  }
  if (options.reportTraffic) {
    // The report reads the functions each one calls: a module pass first
    // keeps it out of the function pipeline of the passes before, which may
    // still be changing those functions on other threads (and drops the
    // functions nothing calls, which no step runs).
    pm.addPass(createSymbolDCEPass());
    pm.nest<func::FuncOp>().addPass(createPrecReportTraffic());
  }
  // Peer windows: kernels write and read transports' buffers in host memory
  // the group shares (the GPU's buffers live on the device). The plan reads
  // the kernels as the canonicalizer leaves them; constants stay where they
  // are until the canonicalizer after the conversion, which places them.
  if (options.overlap) {
    PrecScheduleTransportsOptions schedule;
    schedule.prefetch = options.prefetch;
    pm.nest<func::FuncOp>().addPass(createPrecScheduleTransports(schedule));
  } else if (onCPU && options.peerWindows) {
    pm.addPass(createCanonicalizerPass(
        GreedyRewriteConfig().enableConstantCSE(false)));
    pm.nest<func::FuncOp>().addPass(createPrecPlanPeerWindows());
  }
  pm.addPass(createConvertPrecToRuntime());
}

void mlir::prec::populatePrecBufferizeStage(
    OpPassManager &pm, const PrecBufferizeStageOptions &options) {
  // No CSE before bufferization: it would merge the `tensor.empty` and
  // `linalg.fill` destinations of all layers into one value with thousands of
  // uses, which one-shot bufferization's conflict analysis handles in cubic
  // time (and resolves with copies). The deallocation pipeline runs CSE on
  // buffers.
  pm.addPass(createCanonicalizerPass());
  // Transposes read only by gemms are read through the gemms' strides:
  // they never get a buffer.
  if (options.foldTransposes)
    pm.nest<func::FuncOp>().addPass(createPrecFoldTransposes());

  // Splat constant destinations (zero initial values of contractions) as
  // fills of fresh tensors, which bufferize to a fill rather than a copy of
  // a global constant.
  pm.nest<func::FuncOp>().addPass(createPrecFillSplatDestinations());
  // The entry points' signatures first: upstream would relate each of their
  // results to each argument, for callers they lack.
  pm.addPass(createPrecBufferizeEntryBoundaries());
  bufferization::OneShotBufferizePassOptions bufferization;
  bufferization.bufferizeFunctionBoundaries = true;
  // A loop may yield a fresh buffer (a collective's result) to its next
  // iteration, which upstream's deallocation then frees;
  // prec-gpu-host-to-runtime does not yet place such buffers on the device.
  bufferization.allowReturnAllocsFromLoops =
      options.target == PrecTarget::CPU;
  bufferization.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferization));
  // Local buffers die after their last use; upstream's deallocation
  // pipeline, run inside, takes the others.
  pm.addPass(createPrecDeallocateBuffers());
  // The copies deallocation inserts (a returned argument, for one) become
  // memref copies.
  pm.addPass(createConvertBufferizationToMemRefPass());
  // Every read of a peer window still precedes the next collective.
  if (options.peerWindows)
    pm.addPass(createPrecCheckPeerWindows());
}

void mlir::prec::populatePrecHostCodegenStage(
    OpPassManager &pm, const PrecHostCodegenStageOptions &options) {
  // Contractions (and the transposes that only feed them) to a tuned gemm
  // in the runtime; what it cannot honour stays for the loops below.
  if (options.gemmContractions)
    pm.addPass(createConvertContractionsToRuntime());
  // Buffers to loops to LLVM, each kernel in a function of its own so that
  // lowering its loops does not split the step's one long block.
  pm.addPass(createPrecOutlineKernels());
  if (options.profile)
    pm.addPass(createPrecProfileKernels());
  pm.nest<func::FuncOp>().addPass(createConvertLinalgToLoopsPass());
  if (options.vectorBits != 0) {
    PrecHintVectorWidthOptions hint;
    hint.vectorBits = options.vectorBits;
    pm.addPass(createPrecHintVectorWidth(hint));
  }
  // libm has no rsqrt; integer powers (PyTorch's x**3 in a GELU) become
  // multiplications (LLVM's powi takes no i64 exponent), before the bf16
  // arithmetic below computes the multiplications of a bf16 power.
  math::MathExpandOpsPassOptions expandMath;
  expandMath.opMnemonics = {"rsqrt", "fpowi"};
  pm.addPass(math::createMathExpandOpsPass(expandMath));
  // bf16 arithmetic (a model run in bf16: PyTorch rounds after every op)
  // in f32, each result rounded to bf16 by the integer conversion below:
  // x86 has no bf16 arithmetic, and LLVM would round each op's f32 result
  // through a libcall, one element at a time. The same bits: f32 holds a
  // bf16 product exactly, and its 24 bits are more than 2 x 8 + 2, so an
  // f32 sum, difference or quotient rounded again to bf16 is the correctly
  // rounded bf16 result.
  if (options.expandBF16) {
    arith::ArithEmulateUnsupportedFloatsOptions emulate;
    emulate.sourceTypeStrs = {"bf16"};
    emulate.targetTypeStr = "f32";
    pm.addPass(arith::createArithEmulateUnsupportedFloats(emulate));
  }
  PrecExpandFp8ArithOptions expandFp8;
  expandFp8.include16Bit = options.expandBF16;
  pm.addPass(createPrecExpandFp8Arith(expandFp8));
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  if (options.expandBF16) {
    arith::ArithExpandOpsPassOptions expand;
    expand.includeBf16 = true;
    pm.addPass(arith::createArithExpandOpsPass(expand));
  }
  // Math LLVM has no intrinsic for (erf, from gradient rules) calls libm.
  // sqrt and fma are instructions, which vectorize, rather than libm calls.
  pm.addPass(createPrecMathToIntrinsics());
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createSCFToControlFlowPass());
  // Kernels and other private functions internal to the LLVM module, for
  // LLVM to inline and drop rather than compile each as an entry point.
  pm.addPass(createPrecInternalizeFunctions());
  pm.addPass(createConvertToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
}

/// Stages 2 to 4: prec on tensors to kernels and runtime calls on buffers,
/// the part of the lowering that CPUs and GPUs share.
static void populateToBuffers(OpPassManager &pm,
                              const PrecCollectivesStageOptions &collectives,
                              const PrecKernelsStageOptions &kernels,
                              bool gemmContractions) {
  populatePrecCollectivesStage(pm, collectives);
  populatePrecKernelsStage(pm, kernels);
  PrecBufferizeStageOptions buffers;
  buffers.target = kernels.target;
  buffers.peerWindows = kernels.target == PrecTarget::CPU &&
                        kernels.peerWindows && !kernels.overlap;
  buffers.foldTransposes = gemmContractions;
  populatePrecBufferizeStage(pm, buffers);
}

/// The collectives stage's options of a registered pipeline's.
template <typename PipelineOptions>
static PrecCollectivesStageOptions
getCollectivesStage(const PipelineOptions &options) {
  PrecCollectivesStageOptions stage;
  stage.foldCasts = options.foldCasts;
  stage.precisionReport = options.precisionReport;
  stage.maxBucketBytes = options.maxBucketBytes;
  return stage;
}

PrecLoweringOptions
mlir::prec::getLoweringOptions(const PrecLowerToCPUOptions &options) {
  PrecLoweringOptions lowering;
  lowering.collectives = getCollectivesStage(options);
  lowering.kernels.fuseKernels = options.fuseKernels;
  lowering.kernels.reportTraffic = options.reportTraffic;
  lowering.kernels.allReduceBlockBytes = options.allReduceBlockBytes;
  lowering.kernels.reduceScatterBlockBytes = options.reduceScatterBlockBytes;
  lowering.kernels.peerWindows = options.peerWindows;
  lowering.kernels.overlap = options.overlap;
  lowering.kernels.prefetch = options.prefetch;
  lowering.hostCodegen.gemmContractions = options.gemmContractions;
  lowering.hostCodegen.profile = options.profile;
  lowering.hostCodegen.vectorBits = options.vectorBits;
  lowering.hostCodegen.expandBF16 = options.expandBF16;
  return lowering;
}

void mlir::prec::buildPrecLowerToCPUAfterSignaturePipeline(
    OpPassManager &pm, const PrecLoweringOptions &options) {
  PrecKernelsStageOptions kernels = options.kernels;
  kernels.target = PrecTarget::CPU;
  populateToBuffers(pm, options.collectives, kernels,
                    options.hostCodegen.gemmContractions);
  populatePrecHostCodegenStage(pm, options.hostCodegen);
}

void mlir::prec::buildPrecLowerToCPUPipeline(
    OpPassManager &pm, const PrecLoweringOptions &options) {
  populatePrecSignatureStage(pm);
  buildPrecLowerToCPUAfterSignaturePipeline(pm, options);
}

void mlir::prec::buildPrecLowerToCPUPipeline(
    OpPassManager &pm, const PrecLowerToCPUOptions &options) {
  buildPrecLowerToCPUPipeline(pm, getLoweringOptions(options));
}

/// Whether `chip` (`sm_89`, `sm_90a`, ...) has fp8 tensor cores: Ada
/// (sm_89) and later.
static bool hasFp8TensorCores(StringRef chip) {
  unsigned version = 0;
  if (!chip.consume_front("sm_"))
    return false;
  chip = chip.take_while(llvm::isDigit);
  return !chip.getAsInteger(10, version) && version >= 89;
}

void mlir::prec::buildPrecToGPUKernelsPipeline(
    OpPassManager &pm, const PrecLowerToCUDAOptions &options) {
  PrecKernelsStageOptions kernels;
  kernels.target = PrecTarget::CUDA;
  kernels.fuseKernels = options.fuseKernels;
  kernels.reportTraffic = options.reportTraffic;
  kernels.overlap = options.overlap;
  kernels.prefetch = options.prefetch;
  kernels.fp8Gemm =
      options.gemmContractions && hasFp8TensorCores(options.chip);
  populateToBuffers(pm, getCollectivesStage(options), kernels,
                    options.gemmContractions);
  // Contractions cuBLASLt computes under the contract to the runtime's GPU
  // gemm (prec-gpu-host-to-runtime puts them on the stream); the others
  // become loop kernels below.
  if (options.gemmContractions) {
    ConvertContractionsToRuntimeOptions gemms;
    gemms.gpu = true;
    gemms.fp8Gemm = hasFp8TensorCores(options.chip);
    pm.addPass(createConvertContractionsToRuntime(gemms));
  }

  // Kernels to GPU launches: the bandwidth-bound elementwise kernels by
  // prec, contractions and reductions by upstream's parallel-loop mapping
  // (tiles of 16 x 16 threads).
  PrecMapElementwiseToGPUOptions elementwise;
  elementwise.threadsPerBlock = options.threadsPerBlock;
  pm.addPass(createPrecMapElementwiseToGPU(elementwise));
  OpPassManager &funcs = pm.nest<func::FuncOp>();
  funcs.addPass(createConvertLinalgToParallelLoopsPass());
  funcs.addPass(createParallelLoopTilingPass({16, 16},
                                             /*noMinMaxBounds=*/true));
  funcs.addPass(createGpuMapParallelLoopsPass());
  funcs.addPass(createConvertParallelLoopToGpuPass());
  pm.addPass(createPrecGPUHostToRuntime());
  // Constants the rewrites above hoisted to the host go back into the
  // kernels rather than becoming kernel parameters.
  pm.nest<func::FuncOp>().addPass(createGpuLaunchSinkIndexComputationsPass());
  pm.addPass(createGpuKernelOutliningPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createCanonicalizerPass());
}

void mlir::prec::buildPrecLowerToCUDAPipeline(
    OpPassManager &pm, const PrecLowerToCUDAOptions &options) {
  populatePrecSignatureStage(pm);
  buildPrecLowerToCUDAAfterSignaturePipeline(pm, options);
}

void mlir::prec::buildPrecLowerToCUDAAfterSignaturePipeline(
    OpPassManager &pm, const PrecLowerToCUDAOptions &options) {
  buildPrecToGPUKernelsPipeline(pm, options);

  // Kernels to NVVM. The math prec's kernels use goes to LLVM intrinsics
  // first: NVPTX then emits the correctly rounded instructions
  // (sqrt.rn.f32) and no call into libdevice, which a machine with only the
  // driver does not have.
  GpuNVVMAttachTargetOptions target;
  target.chip = options.chip;
  target.features = options.features;
  target.optLevel = options.optLevel;
  pm.addPass(createGpuNVVMAttachTarget(target));
  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  kernels.addPass(createSCFToControlFlowPass());
  // fp8 rounding in PTX's paired conversion where the target has it (sm_89
  // and later), in integer arithmetic elsewhere.
  kernels.addPass(createPrecGPUFp8ToNVVM());
  kernels.addPass(createPrecExpandFp8Arith());
  // Integer powers (PyTorch's x**2) become multiplications.
  math::MathExpandOpsPassOptions expandPowers;
  expandPowers.opMnemonics = {"fpowi"};
  kernels.addPass(math::createMathExpandOpsPass(expandPowers));
  kernels.addPass(createPrecMathToIntrinsics());
  kernels.addPass(createConvertGpuOpsToNVVMOps());
  kernels.addPass(createCanonicalizerPass());
  kernels.addPass(createCSEPass());
  kernels.addPass(createReconcileUnrealizedCastsPass());

  // The host to LLVM, the kernels to a binary embedded in it.
  pm.addPass(createSCFToControlFlowPass());
  if (options.cInterface)
    pm.nest<func::FuncOp>().addPass(createPrecRequestCInterfaces());
  pm.addPass(createGpuToLLVMConversionPass());
  GpuModuleToBinaryPassOptions binary;
  binary.compilationTarget = options.format;
  pm.addPass(createGpuModuleToBinaryPass(binary));
  pm.addPass(createConvertToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
}

// Every pipeline registerPrecPipelines registers.
static constexpr llvm::StringLiteral kPipelineNames[] = {
    "prec-lower-to-cpu", "prec-lower-to-cuda", "prec-precision-report",
    "prec-from-torch"};

llvm::ArrayRef<llvm::StringLiteral> mlir::prec::getPrecPipelineNames() {
  return kPipelineNames;
}

void mlir::prec::buildPrecPrecisionReportPipeline(
    OpPassManager &pm, const PrecPrecisionReportOptions &options) {
  PrecCollectivesStageOptions collectives;
  collectives.foldCasts = options.foldCasts;
  collectives.precisionReport = options.format;
  populatePrecSignatureStage(pm);
  populatePrecCollectivesStage(pm, collectives);
}

LogicalResult mlir::prec::buildPrecFromTorchPipeline(
    OpPassManager &pm, StringRef fullyShardOptions,
    function_ref<LogicalResult(const Twine &)> errorHandler) {
  std::unique_ptr<Pass> fullyShard = createPrecFullyShard();
  if (failed(fullyShard->initializeOptions(fullyShardOptions, errorHandler)))
    return failure();
  pm.addPass(createPrecGlobalsToArguments());
  pm.addPass(std::move(fullyShard));
  pm.addPass(createPrecGenerateBackward());
  return success();
}

void mlir::prec::registerPrecPipelines() {
  // Registered by hand: its options are prec-fully-shard's, passed through.
  registerPassPipeline(
      kPipelineNames[3],
      "a loss exported by torch-mlir (linalg on tensors) to a sharded "
      "training step: prec-globals-to-arguments, prec-fully-shard with the "
      "options given (see its help), prec-generate-backward",
      [](OpPassManager &pm, StringRef options,
         function_ref<LogicalResult(const Twine &)> errorHandler) {
        return buildPrecFromTorchPipeline(pm, options, errorHandler);
      },
      [](function_ref<void(const detail::PassOptions &)>) {});
  PassPipelineRegistration<PrecPrecisionReportOptions>(
      kPipelineNames[2],
      "print the dtypes, algorithm and error bounds of every collective as "
      "prec-lower-to-cpu will run it: after backward generation and "
      "bucketing",
      buildPrecPrecisionReportPipeline);
  PassPipelineRegistration<PrecLowerToCPUOptions>(
      kPipelineNames[0],
      "lower prec on tensors to the LLVM dialect for the host, calling the "
      "precrt runtime for communication",
      [](OpPassManager &pm, const PrecLowerToCPUOptions &options) {
        buildPrecLowerToCPUPipeline(pm, options);
      });
  // Registered by hand to check `format`: upstream's gpu-module-to-binary
  // reports an unknown one but does not fail.
  registerPassPipeline(
      kPipelineNames[1],
      "lower prec on tensors for NVIDIA GPUs: kernels compiled through NVVM "
      "and embedded in host code in the LLVM dialect that launches them and "
      "calls the precrt runtime (NCCL) on the rank's stream",
      [](OpPassManager &pm, StringRef text,
         function_ref<LogicalResult(const Twine &)> errorHandler) {
        PrecLowerToCUDAOptions options;
        if (failed(options.parseFromString(text)))
          return failure();
        // Upstream's names, with its aliases.
        StringRef format = options.format;
        if (!llvm::is_contained({"isa", "assembly", "bin", "binary", "fatbin",
                                 "fatbinary", "llvm", "offloading"},
                                format))
          return errorHandler("prec-lower-to-cuda: expected format isa, bin "
                              "or fatbin (or upstream's assembly, binary, "
                              "fatbinary, llvm, offloading), got '" +
                              format + "'");
        buildPrecLowerToCUDAPipeline(pm, options);
        return success();
      },
      [](function_ref<void(const detail::PassOptions &)> printOptions) {
        printOptions(PrecLowerToCUDAOptions());
      });
}
