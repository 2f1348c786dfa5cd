//===- Options.cpp - prec-run's command line ------------------------------===//

#include "Options.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

using namespace mlir;
namespace cl = llvm::cl;

namespace prec_run {

// Only these are listed by --help: the hundreds of LLVM options linked into
// the tool are hidden (still accepted). Each says briefly what it does; the
// README's "Running programs" owns the details.
cl::OptionCategory runCategory("prec-run options",
                               "What each does in full: README.md, "
                               "\"Running programs\".");

cl::opt<std::string> inputFilename(cl::Positional,
                                   cl::desc("<input .mlir file>"), cl::Required,
                                   cl::cat(runCategory));
cl::opt<int>
    numRanks("ranks",
             cl::desc("ranks (threads) of the local backend, or of the nccl "
                      "backend outside mpirun (one GPU each); default: the "
                      "size of the module's only grid"),
             cl::init(0), cl::cat(runCategory));
cl::opt<std::string>
    backendName("backend",
                cl::desc("local (threads, default), mpi (one process per "
                         "rank under mpirun) or nccl (GPUs: one per rank, "
                         "ranks as threads or one process per GPU under "
                         "mpirun)"),
                cl::init("local"), cl::cat(runCategory));
cl::opt<std::string>
    gpuChip("gpu-chip",
            cl::desc("GPU architecture the kernels compile for on the nccl "
                     "backend"),
            cl::init("sm_90"), cl::cat(runCategory));
// PTX by default: the driver compiles it for the GPU it runs on (any
// architecture at least --gpu-chip) and no ptxas is needed where prec-run
// runs.
cl::opt<std::string>
    gpuFormat("gpu-format",
              cl::desc("what the kernels become on the nccl backend: isa "
                       "(PTX compiled by the driver at load time, default), "
                       "bin or fatbin (ptxas from the CUDA toolkit)"),
              cl::init("isa"), cl::cat(runCategory));
cl::opt<std::string> pipelineName(
    "pipeline",
    cl::desc("NAME: lower with this registered pass pipeline instead of the "
             "backend's (prec-lower-to-cpu; prec-lower-to-cuda on nccl), "
             "which takes the backend's pipeline's options"),
    cl::init(""), cl::cat(runCategory));
cl::opt<unsigned>
    optLevel("opt-level",
             cl::desc("LLVM optimization level of the host code the JIT "
                      "compiles, 0 to 3"),
             cl::init(3), cl::cat(runCategory));
cl::opt<std::string>
    entryName("entry",
              cl::desc("function to run (default: the only public "
                       "function with a body)"),
              cl::init(""), cl::cat(runCategory));
cl::opt<uint64_t> seed("seed", cl::desc("seed of the argument initialization"),
                       cl::init(1), cl::cat(runCategory));
cl::list<std::string>
    scalarArgs("scalar",
               cl::desc("NAME=VALUE or INDEX=VALUE: value of a scalar "
                        "argument (default: its prec.default)"),
               cl::cat(runCategory));
cl::list<std::string>
    fileArgs("arg",
             cl::desc("NAME=PATH or INDEX=PATH: raw little-endian contents "
                      "of a tensor argument; %r in PATH is replaced by the "
                      "rank"),
             cl::cat(runCategory));
cl::list<std::string>
    zeroArgs("zeros",
             cl::desc("NAME, GLOB or INDEX: fill these tensor arguments with "
                      "zeros (optimizer state: --zeros 'm_*,v_*')"),
             cl::CommaSeparated, cl::cat(runCategory));
cl::list<std::string>
    replicatedArgs("replicate",
                   cl::desc("NAME, GLOB or INDEX: give these arguments the "
                            "same random values on every rank"),
                   cl::CommaSeparated, cl::cat(runCategory));
cl::opt<std::string> loadPath(
    "load",
    cl::desc("FILE.safetensors: fill the arguments from a PyTorch "
             "checkpoint, by name (a sharded one with the rank's block)"),
    cl::init(""), cl::cat(runCategory));
cl::opt<std::string> savePath(
    "save",
    cl::desc("FILE.safetensors: after the last step, write the state the "
             "step feeds back, by name, sharded tensors whole"),
    cl::init(""), cl::cat(runCategory));
cl::list<std::string> dataArgs(
    "data",
    cl::desc("NAME[:DTYPE]=PATH: a tensor argument's own values at every "
             "step, read from a stream of little-endian tokens (each step "
             "and rank its own window; %s and %r in PATH: a file per step "
             "and rank)"),
    cl::cat(runCategory));
cl::opt<bool>
    listArgs("list-args",
             cl::desc("list the entry function's arguments and results "
                      "(position, name, type, role, default) and exit"),
             cl::init(false), cl::cat(runCategory));
cl::opt<int> numSteps("steps",
                      cl::desc("run the function this many "
                               "times, feeding results back"),
                      cl::init(1), cl::cat(runCategory));
cl::opt<std::string> printMode("print",
                               cl::desc("none, summary (default) or values"),
                               cl::init("summary"), cl::cat(runCategory));
cl::opt<std::string>
    outputDir("output-dir",
              cl::desc("write every argument and result of every rank "
                       "as raw files into this directory, with "
                       "manifest.json"),
              cl::init(""), cl::cat(runCategory));
cl::opt<int64_t>
    timeoutMs("timeout-ms",
              cl::desc("collective timeout (default: the runtime's)"),
              cl::init(0), cl::cat(runCategory));
cl::opt<bool>
    cacheBuffers("cache-buffers",
                 cl::desc("the program's buffers through the runtime's caching "
                          "allocator (default; =false: plain malloc and free)"),
                 cl::init(true), cl::cat(runCategory));
cl::opt<std::string> maxMemory(
    "max-memory",
    cl::desc("BYTES (K, M, G, T suffixes): the most the ranks of this "
             "process may hold in arguments and results (default: the "
             "machine's physical memory)"),
    cl::init(""), cl::cat(runCategory));
cl::opt<bool> fuseKernels(
    "fuse-kernels",
    cl::desc("the pipeline's fold-casts and fuse-kernels (default; =false: "
             "one kernel per op, the same values)"),
    cl::init(true), cl::cat(runCategory));
cl::opt<bool> profileSteps(
    "profile",
    cl::desc("time every kernel, gemm and collective (CPU) and print, per "
             "rank, where a step's time goes"),
    cl::init(false), cl::cat(runCategory));
cl::opt<bool> stepTimes(
    "step-times",
    cl::desc("print the wall time of every step of rank 0 as it ends"),
    cl::init(false), cl::cat(runCategory));
cl::opt<std::string> trafficMode(
    "traffic",
    cl::desc("print the bytes each rank moves per step, the compiler's "
             "figure (prec-report-traffic) beside the runtime's counts: per "
             "collective kind (summary, default) or per collective (full)"),
    cl::ValueOptional, cl::value_desc("summary|full"), cl::init(""),
    cl::cat(runCategory));
cl::opt<std::string> precisionReport(
    "precision-report",
    cl::desc("print, before running, the error bounds of every collective "
             "as it will run (prec-error-bounds): =table (default) or "
             "=json"),
    cl::ValueOptional, cl::init(""), cl::cat(runCategory));
cl::opt<bool> gemmContractions(
    "gemm-contractions",
    cl::desc("run matmuls through precrt's gemm, cuBLASLt on GPUs (default; "
             "=false: loops, {gemm-contractions=false} of prec-lower-to-cpu "
             "and prec-lower-to-cuda)"),
    cl::init(true), cl::cat(runCategory));
cl::opt<int64_t> vectorBits(
    "vector-bits",
    cl::desc("prec-lower-to-cpu{vector-bits}: vector register bits of "
             "the loops converting between element widths (default 256; 0: "
             "LLVM's choice)"),
    cl::init(256), cl::cat(runCategory));
cl::opt<int64_t> allReduceBlockBytes(
    "all-reduce-block-bytes",
    cl::desc("prec-lower-to-cpu{all-reduce-block-bytes}: input bytes per "
             "block of a large all_reduce (default 1 MiB; 0: whole)"),
    cl::init(1048576), cl::cat(runCategory));
cl::opt<int64_t> reduceScatterBlockBytes(
    "reduce-scatter-block-bytes",
    cl::desc("prec-lower-to-cpu{reduce-scatter-block-bytes}: input bytes "
             "per block of a large reduce_scatter and its optimizer (default "
             "1 MiB; 0: whole)"),
    cl::init(1048576), cl::cat(runCategory));
cl::opt<bool> peerWindows(
    "peer-windows",
    cl::desc("prec-lower-to-cpu{peer-windows}: kernels read the group's "
             "buffers in place (default; =false: through the runtime's "
             "transports, the same values)"),
    cl::init(true), cl::cat(runCategory));
cl::opt<bool> overlap(
    "overlap",
    cl::desc("start each transport as early and wait for it as late as the "
             "step allows, so that communication runs while the rank "
             "computes ({overlap} of the lowering pipelines; the same "
             "values)"),
    cl::init(false), cl::cat(runCategory));
cl::opt<int64_t> prefetch(
    "prefetch",
    cl::desc("with --overlap: all_gathers in flight ahead of the one in use "
             "(default 1, as FSDP2)"),
    cl::init(1), cl::cat(runCategory));
cl::opt<int64_t> maxBucketBytes(
    "max-bucket-bytes",
    cl::desc("the most wire bytes one bucketed collective sends (default 25 "
             "MiB, DDP's bucket_cap_mb; 0: no limit); with --overlap, how "
             "much one started transport carries"),
    cl::init(26214400), cl::cat(runCategory));
cl::opt<std::string> targetCPU(
    "target-cpu",
    cl::desc("the CPU the JIT compiles host code for: host (default), or an "
             "LLVM CPU name such as x86-64, x86-64-v3 or znver4; the results "
             "are the same on every CPU"),
    cl::value_desc("name"), cl::init("host"), cl::cat(runCategory));
cl::opt<std::string> targetFeatures(
    "target-features",
    cl::desc("CPU features added to or removed from --target-cpu's "
             "(+avx2,-avx512f)"),
    cl::value_desc("list"), cl::init(""), cl::cat(runCategory));
cl::opt<std::string> dumpObject(
    "dump-object",
    cl::desc("write the JIT-compiled host object file to this path and exit "
             "without running (for a --target-cpu this host cannot run, too)"),
    cl::value_desc("path"), cl::init(""), cl::cat(runCategory));
cl::opt<bool> dumpLowered("dump-lowered",
                          cl::desc("print the lowered module and exit"),
                          cl::init(false), cl::cat(runCategory));

bool trafficRequested() { return trafficMode.getNumOccurrences() > 0; }

bool trafficFull() { return trafficRequested() && trafficMode == "full"; }

LogicalResult checkOptions() {
  if (trafficRequested() && !trafficMode.empty() && trafficMode != "summary" &&
      trafficMode != "full") {
    llvm::errs() << "prec-run: error: --traffic takes summary (the default) "
                    "or full, got '"
                 << trafficMode << "'\n";
    return failure();
  }
  if (printMode != "none" && printMode != "summary" && printMode != "values") {
    llvm::errs()
        << "prec-run: error: --print must be none, summary or values\n";
    return failure();
  }
  if (precisionReport.getNumOccurrences() != 0 && !precisionReport.empty() &&
      precisionReport != "table" && precisionReport != "json") {
    llvm::errs() << "prec-run: error: --precision-report must be table or "
                    "json, got '"
                 << precisionReport << "'\n";
    return failure();
  }
  if (numSteps < 1) {
    llvm::errs() << "prec-run: error: --steps must be at least 1\n";
    return failure();
  }
  if (numRanks < 0) {
    llvm::errs() << "prec-run: error: --ranks must be positive (or 0 for "
                    "the size of the module's grid), got "
                 << numRanks << "\n";
    return failure();
  }
  if (optLevel > 3) {
    llvm::errs() << "prec-run: error: --opt-level must be 0 to 3, got "
                 << optLevel << "\n";
    return failure();
  }
  if (timeoutMs < 0) {
    llvm::errs() << "prec-run: error: --timeout-ms must not be negative, got "
                 << timeoutMs << "\n";
    return failure();
  }
  // The pipeline's passes validate the lowering's options (vector bits,
  // block bytes), before anything runs.
  return success();
}

/// Whether this process is the first of its mpirun job, or runs alone.
static bool isFirstProcess() {
  for (const char *name : {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"})
    if (const char *value = std::getenv(name))
      return StringRef(value) == "0";
  return true;
}

prec::RunnerOptions getRunnerOptions() {
  prec::RunnerOptions options;
  options.backend = backendName == "mpi"    ? prec::RunnerBackend::MPI
                    : backendName == "nccl" ? prec::RunnerBackend::NCCL
                                            : prec::RunnerBackend::Local;
  options.entry = entryName;
  options.numRanks = numRanks;
  options.gpuChip = gpuChip;
  options.gpuFormat = gpuFormat;
  options.pipeline = pipelineName;
  options.optLevel = optLevel;
  prec::PrecLoweringOptions &lowering = options.lowering;
  // --fuse-kernels: casts folded into collectives and kernels fused.
  lowering.collectives.foldCasts = fuseKernels;
  // A bare --precision-report gives the empty value cl::ValueOptional
  // passes; checkOptions tells it from an absent one. Under mpirun every
  // process lowers the same module: the first prints the report.
  lowering.collectives.precisionReport =
      precisionReport.getNumOccurrences() == 0 || !isFirstProcess()
          ? ""
          : (precisionReport.empty() ? std::string("table")
                                     : precisionReport.getValue());
  lowering.kernels.fuseKernels = fuseKernels;
  lowering.kernels.reportTraffic = trafficRequested();
  lowering.kernels.allReduceBlockBytes = allReduceBlockBytes;
  lowering.kernels.reduceScatterBlockBytes = reduceScatterBlockBytes;
  lowering.kernels.peerWindows = peerWindows;
  lowering.kernels.overlap = overlap;
  lowering.kernels.prefetch = prefetch;
  lowering.collectives.maxBucketBytes = maxBucketBytes;
  lowering.hostCodegen.gemmContractions = gemmContractions;
  lowering.hostCodegen.profile = profileSteps;
  lowering.hostCodegen.vectorBits = vectorBits;
  options.cacheBuffers = cacheBuffers;
  options.timeoutMs = timeoutMs;
  options.targetCPU = targetCPU;
  options.targetFeatures = targetFeatures;
  options.keepObject = !dumpObject.empty();
  return options;
}

} // namespace prec_run
