//===- prec-run.cpp - run a prec program on N ranks -----------------------===//
//
// Lowers a module with prec-lower-to-cpu, JIT-compiles it once, and calls its
// entry function on every rank: N threads of this process on the local
// backend, or one process per rank under mpirun on the MPI backend. On the
// nccl backend the module is lowered with prec-lower-to-cuda instead and runs
// on GPUs, one per rank: N threads of this process on N GPUs, or one process
// per GPU under mpirun.
//
// The entry function takes tensors (or memrefs) of static shape and scalars.
// Tensor arguments are initialized deterministically from --seed (different
// on every rank, or the same with --replicate) or loaded from raw files;
// scalars come from --scalar. With --steps K the function runs K times
// and every result whose type matches the argument at the same position
// feeds it in the next step (parameters, optimizer state), so a training
// step runs as a loop; rank-0 tensors and scalars (a loss) are printed at
// every step.
//
// On GPUs the arguments are initialized on the host exactly as on CPUs (the
// same seed gives the same values, so results compare across backends) and
// copied into device buffers; results come back to the host for printing and
// writing, and feed the next step as device buffers.
//
//===----------------------------------------------------------------------===//

#include "prec/InitAllDialects.h"
#include "prec/InitAllPasses.h"
#include "prec/Pipelines/Pipelines.h"

#include "Traffic.h"

#include "precrt/compiled.h"
#include "precrt/gpu.h"
#include "precrt/mgpu.h"
#include "precrt/precrt.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/ExecutionEngine/CRunnerUtils.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <dlfcn.h>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <mutex>
#include <optional>
#include <unistd.h>

using namespace mlir;
namespace cl = llvm::cl;

// Only these are listed by --help: the hundreds of LLVM options linked into
// the tool are hidden (still accepted).
static cl::OptionCategory runCategory("prec-run options");

static cl::opt<std::string> inputFilename(cl::Positional,
                                          cl::desc("<input .mlir file>"),
                                          cl::Required, cl::cat(runCategory));
static cl::opt<int>
    numRanks("ranks",
             cl::desc("ranks (threads) of the local backend, or of the nccl "
                      "backend outside mpirun (one GPU each); default: the "
                      "size of the module's only grid"),
             cl::init(0), cl::cat(runCategory));
static cl::opt<std::string>
    backendName("backend",
                cl::desc("local (threads, default), mpi (one process per "
                         "rank under mpirun) or nccl (GPUs: one per rank, "
                         "ranks as threads or one process per GPU under "
                         "mpirun)"),
                cl::init("local"), cl::cat(runCategory));
static cl::opt<std::string>
    gpuChip("gpu-chip",
            cl::desc("GPU architecture the kernels compile for on the nccl "
                     "backend"),
            cl::init("sm_90"), cl::cat(runCategory));
// PTX by default: the driver compiles it for the GPU it runs on (any
// architecture at least --gpu-chip) and no ptxas is needed where prec-run
// runs.
static cl::opt<std::string>
    gpuFormat("gpu-format",
              cl::desc("what the kernels become on the nccl backend: isa "
                       "(PTX compiled by the driver at load time, default), "
                       "bin or fatbin (ptxas from the CUDA toolkit)"),
              cl::init("isa"), cl::cat(runCategory));
// For tests only, never a backend: see docs/GPU.md, "Running the GPU code
// without a GPU".
static cl::opt<bool> gpuEmulation(
    "gpu-emulation",
    cl::desc("for tests of the nccl backend without a GPU: lower with "
             "prec-lower-to-cuda-emulation, whose kernels run on the host "
             "through the test driver of runtime/test/fakes "
             "(PRECRT_CUDA_DRIVER_LIBRARY), never a real one"),
    cl::init(false), cl::Hidden, cl::cat(runCategory));
static cl::opt<std::string>
    entryName("entry",
              cl::desc("function to run (default: the only public "
                       "function with a body)"),
              cl::init(""), cl::cat(runCategory));
static cl::opt<uint64_t> seed("seed",
                              cl::desc("seed of the argument initialization"),
                              cl::init(1), cl::cat(runCategory));
static cl::list<std::string>
    scalarArgs("scalar", cl::desc("INDEX=VALUE: value of a scalar argument"),
               cl::cat(runCategory));
static cl::list<std::string>
    fileArgs("arg",
             cl::desc("INDEX=PATH: raw little-endian contents of a tensor "
                      "argument; %r in PATH is replaced by the rank"),
             cl::cat(runCategory));
static cl::list<unsigned>
    replicatedArgs("replicate",
                   cl::desc("INDEX: give this argument the same random values "
                            "on every rank"),
                   cl::CommaSeparated, cl::cat(runCategory));
static cl::opt<int> numSteps("steps",
                             cl::desc("run the function this many "
                                      "times, feeding results back"),
                             cl::init(1), cl::cat(runCategory));
static cl::opt<std::string>
    printMode("print", cl::desc("none, summary (default) or values"),
              cl::init("summary"), cl::cat(runCategory));
static cl::opt<std::string>
    outputDir("output-dir",
              cl::desc("write every argument and result of every rank "
                       "as raw files into this directory"),
              cl::init(""), cl::cat(runCategory));
static cl::opt<int64_t>
    timeoutMs("timeout-ms",
              cl::desc("collective timeout (default: the runtime's)"),
              cl::init(0), cl::cat(runCategory));
static cl::opt<bool> cacheBuffers(
    "cache-buffers",
    cl::desc("give the program's malloc and free the runtime's caching "
             "allocator, which keeps freed buffers for the next step "
             "(default; =false: plain malloc and free)"),
    cl::init(true), cl::cat(runCategory));
static cl::opt<std::string> maxMemory(
    "max-memory",
    cl::desc("largest total size of the arguments and results of the ranks "
             "of this process, as bytes with an optional K, M, G or T "
             "(binary) suffix (default: the machine's physical memory)"),
    cl::init(""), cl::cat(runCategory));
static cl::opt<bool> fuseKernels(
    "fuse-kernels",
    cl::desc("fold casts into collectives and, on the CPU, fuse each "
             "elementwise kernel into its only consumer (default; =false: "
             "one kernel per op, the same values)"),
    cl::init(true), cl::cat(runCategory));
static cl::opt<bool> profileSteps(
    "profile",
    cl::desc("time every kernel, gemm and collective (CPU) and print, per "
             "rank, where a step's time goes"),
    cl::init(false), cl::cat(runCategory));
static cl::opt<bool> reportTraffic(
    "traffic",
    cl::desc("remark the bytes each rank sends and receives per collective "
             "and reads and writes per kernel (prec-report-traffic), and "
             "print per rank what the runtime counted in the last step"),
    cl::init(false), cl::cat(runCategory));
static cl::opt<bool> gemmContractions(
    "gemm-contractions",
    cl::desc("run matmuls through precrt's gemm (default; =false: "
             "upstream's loops, prec-lower-to-cpu{gemm-contractions=false})"),
    cl::init(true), cl::cat(runCategory));
static cl::opt<bool> dumpLowered("dump-lowered",
                                 cl::desc("print the lowered module and exit"),
                                 cl::init(false), cl::cat(runCategory));

namespace {

//===----------------------------------------------------------------------===//
// The entry function's signature, as buffers and scalars
//===----------------------------------------------------------------------===//

enum class ScalarKind {
  F64,
  F32,
  F16,
  BF16,
  F8E4M3FN,
  F8E5M2,
  F8E8M0FNU, // block scales: 2^(bits - 127)
  I64,
  I32
};

/// The runtime's dtype of a 16- or 8-bit float kind (converted through the
/// runtime's reference conversions).
precrt_dtype_t getNarrowDtype(ScalarKind kind) {
  switch (kind) {
  case ScalarKind::F16:
    return PRECRT_DTYPE_F16;
  case ScalarKind::BF16:
    return PRECRT_DTYPE_BF16;
  case ScalarKind::F8E4M3FN:
    return PRECRT_DTYPE_F8E4M3FN;
  default:
    return PRECRT_DTYPE_F8E5M2;
  }
}

struct ValueSpec {
  bool isBuffer = false;
  ScalarKind element = ScalarKind::F32;
  SmallVector<int64_t> shape; // buffers only
  std::string typeName;
  /// An index scalar: a size or a position, never negative.
  bool isIndex = false;

  int64_t numElements() const {
    int64_t n = 1;
    for (int64_t extent : shape)
      n *= extent;
    return n;
  }
  size_t elementBytes() const {
    switch (element) {
    case ScalarKind::F64:
    case ScalarKind::I64:
      return 8;
    case ScalarKind::F32:
    case ScalarKind::I32:
      return 4;
    case ScalarKind::F16:
    case ScalarKind::BF16:
      return 2;
    case ScalarKind::F8E4M3FN:
    case ScalarKind::F8E5M2:
    case ScalarKind::F8E8M0FNU:
      return 1;
    }
    return 0;
  }
  size_t bytes() const { return elementBytes() * numElements(); }
};

FailureOr<ScalarKind> getScalarKind(Type type) {
  if (type.isF64())
    return ScalarKind::F64;
  if (type.isF32())
    return ScalarKind::F32;
  if (type.isF16())
    return ScalarKind::F16;
  if (type.isBF16())
    return ScalarKind::BF16;
  if (isa<Float8E4M3FNType>(type))
    return ScalarKind::F8E4M3FN;
  if (isa<Float8E5M2Type>(type))
    return ScalarKind::F8E5M2;
  if (isa<Float8E8M0FNUType>(type))
    return ScalarKind::F8E8M0FNU;
  if (type.isIndex() || type.isInteger(64))
    return ScalarKind::I64;
  if (type.isInteger(32))
    return ScalarKind::I32;
  return failure();
}

/// Largest tensor prec-run accepts as an argument or result (256 TiB): a
/// larger one is a mistake, and the product of its extents may overflow.
constexpr int64_t kMaxBufferBytes = int64_t(1) << 48;

/// The spec of an entry function's argument or result type; failure with
/// what is wrong with `type` in `problem`.
FailureOr<ValueSpec> getValueSpec(Type type, std::string &problem) {
  ValueSpec spec;
  llvm::raw_string_ostream(spec.typeName) << type;
  problem = "expected a float, i32, i64 or index scalar, or a tensor/memref "
            "of static shape";
  auto shaped = dyn_cast<ShapedType>(type);
  if (shaped) {
    if (!shaped.hasStaticShape())
      return failure();
    // prec-run hands the function contiguous row-major buffers.
    if (auto memref = dyn_cast<MemRefType>(type);
        memref && !memref.getLayout().isIdentity()) {
      problem = "expected an identity layout: prec-run passes contiguous "
                "buffers";
      return failure();
    }
    spec.isBuffer = true;
    spec.shape.assign(shaped.getShape().begin(), shaped.getShape().end());
    type = shaped.getElementType();
  }
  FailureOr<ScalarKind> kind = getScalarKind(type);
  if (failed(kind))
    return failure();
  spec.element = *kind;
  spec.isIndex = type.isIndex();
  if (llvm::is_contained(spec.shape, 0))
    return spec;
  int64_t bytes = static_cast<int64_t>(spec.elementBytes());
  for (int64_t extent : spec.shape)
    if (llvm::MulOverflow(bytes, extent, bytes) || bytes > kMaxBufferBytes) {
      problem = "expected at most " + std::to_string(kMaxBufferBytes) +
                " bytes (256 TiB)";
      return failure();
    }
  return spec;
}

double readElement(const ValueSpec &spec, const void *data, int64_t i) {
  auto bytes = static_cast<const uint8_t *>(data) + i * spec.elementBytes();
  switch (spec.element) {
  case ScalarKind::F64: {
    double v;
    std::memcpy(&v, bytes, 8);
    return v;
  }
  case ScalarKind::F32: {
    float v;
    std::memcpy(&v, bytes, 4);
    return v;
  }
  case ScalarKind::F16:
  case ScalarKind::BF16:
  case ScalarKind::F8E4M3FN:
  case ScalarKind::F8E5M2: {
    float v;
    precrtConvert(bytes, getNarrowDtype(spec.element), &v, PRECRT_DTYPE_F32,
                  1);
    return v;
  }
  case ScalarKind::F8E8M0FNU:
    return bytes[0] == 0xFF ? std::numeric_limits<double>::quiet_NaN()
                            : std::ldexp(1.0, int(bytes[0]) - 127);
  case ScalarKind::I64: {
    int64_t v;
    std::memcpy(&v, bytes, 8);
    return static_cast<double>(v);
  }
  case ScalarKind::I32: {
    int32_t v;
    std::memcpy(&v, bytes, 4);
    return v;
  }
  }
  return 0;
}

void writeElement(const ValueSpec &spec, void *data, int64_t i, double value) {
  auto bytes = static_cast<uint8_t *>(data) + i * spec.elementBytes();
  switch (spec.element) {
  case ScalarKind::F64:
    std::memcpy(bytes, &value, 8);
    return;
  case ScalarKind::F32: {
    auto v = static_cast<float>(value);
    std::memcpy(bytes, &v, 4);
    return;
  }
  case ScalarKind::F16:
  case ScalarKind::BF16:
  case ScalarKind::F8E4M3FN:
  case ScalarKind::F8E5M2: {
    // Through f32, the runtime's reference conversion source; values given
    // to prec-run are f32 values already (or generated as such).
    auto v = static_cast<float>(value);
    precrtConvert(&v, PRECRT_DTYPE_F32, bytes, getNarrowDtype(spec.element),
                  1);
    return;
  }
  case ScalarKind::F8E8M0FNU: {
    // The power of two at or below |value|, within E8M0's range.
    int exponent = value == 0.0 || !std::isfinite(value)
                       ? 0
                       : std::ilogb(std::fabs(value));
    bytes[0] = std::isnan(value)
                   ? 0xFF
                   : static_cast<uint8_t>(std::clamp(exponent, -127, 127) + 127);
    return;
  }
  case ScalarKind::I64: {
    auto v = static_cast<int64_t>(value);
    std::memcpy(bytes, &v, 8);
    return;
  }
  case ScalarKind::I32: {
    auto v = static_cast<int32_t>(value);
    std::memcpy(bytes, &v, 4);
    return;
  }
  }
}

/// splitmix64: a small, well-mixed, reproducible generator.
uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

//===----------------------------------------------------------------------===//
// One rank's arguments and results in the packed calling convention
//===----------------------------------------------------------------------===//

struct Buffer {
  void *data = nullptr;
  bool owned = false; // allocated by prec-run (else by the generated code)
};

/// Fields of a lowered argument: a memref descriptor (allocated, aligned,
/// offset, sizes, strides) or one scalar, each 8 bytes of storage.
struct PackedValue {
  SmallVector<int64_t, 8> fields;
};

struct Program {
  /// CPU backends: one engine for every rank.
  std::unique_ptr<ExecutionEngine> engine;
  void (*entry)(void **) = nullptr;
  /// nccl backend: every rank compiles the lowered module on its own thread,
  /// where the engine's constructors load the kernels into the context of
  /// the rank's GPU (with --gpu-emulation, `engine` serves every rank).
  bool onGpu = false;
  ModuleOp lowered;
  std::string entryName;
  /// GPUs of this process; ranks as threads take device rank % count.
  int32_t deviceCount = 0;
  bool ranksAreThreads = true;
  SmallVector<ValueSpec> args, results;
  /// --scalar values, as the 8 bytes of storage the argument is passed in.
  std::map<unsigned, int64_t> scalars;
  std::map<unsigned, std::string> files;
  std::set<unsigned> replicated;
};

struct RankOutcome {
  std::string error;
  std::vector<std::string> lines; // printed in rank order afterwards
};

std::mutex outcomesMutex;

void *allocateBuffer(size_t bytes) {
  return std::aligned_alloc(64, std::max<size_t>(64, (bytes + 63) / 64 * 64));
}

/// Result layout: the LLVM struct of the results, with natural alignment.
struct ResultLayout {
  SmallVector<size_t> offsets;
  size_t size = 0;
};

ResultLayout layoutResults(ArrayRef<ValueSpec> results) {
  ResultLayout layout;
  auto place = [&](size_t bytes, size_t align) {
    layout.size = (layout.size + align - 1) / align * align;
    layout.offsets.push_back(layout.size);
    layout.size += bytes;
  };
  for (const ValueSpec &spec : results) {
    if (spec.isBuffer)
      place(8 * (3 + 2 * spec.shape.size()), 8);
    else
      place(spec.elementBytes(), spec.elementBytes());
  }
  layout.size = (layout.size + 7) / 8 * 8;
  return layout;
}

/// One element as text: integers exactly, floats with 8 significant digits.
std::string formatElement(const ValueSpec &spec, const void *data, int64_t i) {
  auto bytes = static_cast<const uint8_t *>(data) + i * spec.elementBytes();
  if (spec.element == ScalarKind::I64) {
    int64_t v;
    std::memcpy(&v, bytes, 8);
    return std::to_string(v);
  }
  if (spec.element == ScalarKind::I32) {
    int32_t v;
    std::memcpy(&v, bytes, 4);
    return std::to_string(v);
  }
  return llvm::formatv("{0}", llvm::format("%.8g", readElement(spec, data, i)))
      .str();
}

std::string formatValues(const ValueSpec &spec, const void *data,
                         bool allValues) {
  std::string text;
  llvm::raw_string_ostream os(text);
  int64_t n = spec.isBuffer ? spec.numElements() : 1;
  double sum = 0;
  for (int64_t i = 0; i < n; ++i)
    sum += readElement(spec, data, i);
  int64_t shown = allValues ? n : std::min<int64_t>(n, 4);
  os << spec.typeName << " = [";
  for (int64_t i = 0; i < shown; ++i)
    os << (i ? ", " : "") << formatElement(spec, data, i);
  if (shown < n)
    os << ", ...";
  os << "]";
  if (!allValues && n > 1)
    os << " sum " << llvm::format("%.8g", sum);
  return text;
}

LogicalResult writeRaw(const std::string &path, const void *data, size_t bytes,
                       std::string &error) {
  std::error_code code;
  llvm::raw_fd_ostream out(path, code);
  if (!code) {
    out.write(static_cast<const char *>(data), bytes);
    out.close();
    code = out.error();
    // An error left set would be fatal when the stream is destroyed.
    out.clear_error();
  }
  if (code) {
    error = "cannot write " + path + ": " + code.message();
    return failure();
  }
  return success();
}

std::string substituteRank(StringRef pattern, int32_t rank) {
  std::string result;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == '%' && i + 1 < pattern.size() && pattern[i + 1] == 'r') {
      result += std::to_string(rank);
      ++i;
    } else {
      result += pattern[i];
    }
  }
  return result;
}

/// Whether `path` can hold the contents of argument `index`: a readable
/// file of exactly its size.
LogicalResult checkArgumentFile(const ValueSpec &spec, unsigned index,
                                const std::string &path, std::string &error) {
  llvm::sys::fs::file_status status;
  if (std::error_code code = llvm::sys::fs::status(path, status)) {
    error = "cannot open " + path + " for argument " + std::to_string(index) +
            ": " + code.message();
    return failure();
  }
  if (llvm::sys::fs::is_directory(status)) {
    error = path + " is a directory, not the contents of argument " +
            std::to_string(index);
    return failure();
  }
  if (status.getSize() != spec.bytes()) {
    error = path + " has " + std::to_string(status.getSize()) +
            " bytes, argument " + std::to_string(index) + " (" + spec.typeName +
            ") needs " + std::to_string(spec.bytes());
    return failure();
  }
  return success();
}

/// Fills argument `index` of `rank`: from a file, the scalar table, or the
/// seeded generator.
LogicalResult initializeArgument(const Program &program, unsigned index,
                                 int32_t rank, void *data, std::string &error) {
  const ValueSpec &spec = program.args[index];
  if (!spec.isBuffer) {
    auto it = program.scalars.find(index);
    if (it == program.scalars.end()) {
      error = "argument " + std::to_string(index) + " (" + spec.typeName +
              ") is a scalar: give it with --scalar " + std::to_string(index) +
              "=VALUE";
      return failure();
    }
    std::memcpy(data, &it->second, sizeof(it->second));
    return success();
  }
  if (auto it = program.files.find(index); it != program.files.end()) {
    std::string path = substituteRank(it->second, rank);
    if (failed(checkArgumentFile(spec, index, path, error)))
      return failure();
    std::ifstream in(path, std::ios::binary);
    in.read(static_cast<char *>(data), spec.bytes());
    if (!in) {
      error = "cannot read " + path + " for argument " + std::to_string(index);
      return failure();
    }
    return success();
  }
  uint64_t stream =
      mix(seed ^ mix(index + 1) ^
          (program.replicated.count(index) ? 0 : mix(~uint64_t(rank))));
  for (int64_t i = 0; i < spec.numElements(); ++i) {
    uint64_t bits = mix(stream + static_cast<uint64_t>(i));
    // Uniform in [-1, 1) with 24 bits: exactly an f32 value.
    double uniform = static_cast<double>(bits >> 40) * 0x1.0p-24;
    writeElement(spec, data, i, 2.0 * uniform - 1.0);
  }
  return success();
}

/// Visits the entry points of precrt that lowered code calls, which the JIT
/// binds explicitly so that it never depends on how the process exports
/// them.
void forEachRuntimeSymbol(
    llvm::function_ref<void(StringRef, llvm::orc::ExecutorAddr)> visit) {
  auto bind = [&](StringRef name, auto *function) {
    visit(name, llvm::orc::ExecutorAddr::fromPtr(function));
  };
  // Lowered copies between buffers of general layout, a row at a time.
  bind("memrefCopy", &precrtCompiledMemrefCopy);
  // Buffers the program allocates on every step: wire, received, results.
  if (cacheBuffers) {
    bind("malloc", &precrtCompiledAlloc);
    bind("free", &precrtCompiledFree);
  }
  bind(PRECRT_COMPILED_COLLECTIVE_SYMBOL, &precrtCompiledCollective);
  bind(PRECRT_COMPILED_GRID_RANK_SYMBOL, &precrtCompiledGridRank);
  bind(PRECRT_COMPILED_MATMUL_SYMBOL, &precrtCompiledMatmul);
  bind(PRECRT_COMPILED_PROFILE_START_SYMBOL, &precrtCompiledProfileStart);
  bind(PRECRT_COMPILED_PROFILE_STOP_SYMBOL, &precrtCompiledProfileStop);
  bind(PRECRT_COMPILED_COLLECTIVE_ON_STREAM_SYMBOL,
       &precrtCompiledCollectiveOnStream);
  bind(PRECRT_COMPILED_GPU_STREAM_SYMBOL, &precrtCompiledGpuStream);
  bind(PRECRT_COMPILED_GPU_MAX_BLOCKS_SYMBOL, &precrtCompiledGpuMaxBlocks);
  // What gpu-to-llvm and the embedded kernels' constructors call.
  bind("mgpuModuleLoad", &mgpuModuleLoad);
  bind("mgpuModuleLoadJIT", &mgpuModuleLoadJIT);
  bind("mgpuModuleUnload", &mgpuModuleUnload);
  bind("mgpuModuleGetFunction", &mgpuModuleGetFunction);
  bind("mgpuLaunchKernel", &mgpuLaunchKernel);
  bind("mgpuLaunchClusterKernel", &mgpuLaunchClusterKernel);
  bind("mgpuStreamCreate", &mgpuStreamCreate);
  bind("mgpuStreamDestroy", &mgpuStreamDestroy);
  bind("mgpuStreamSynchronize", &mgpuStreamSynchronize);
  bind("mgpuStreamWaitEvent", &mgpuStreamWaitEvent);
  bind("mgpuEventCreate", &mgpuEventCreate);
  bind("mgpuEventDestroy", &mgpuEventDestroy);
  bind("mgpuEventSynchronize", &mgpuEventSynchronize);
  bind("mgpuEventRecord", &mgpuEventRecord);
  bind("mgpuMemAlloc", &mgpuMemAlloc);
  bind("mgpuMemFree", &mgpuMemFree);
  bind("mgpuMemcpy", &mgpuMemcpy);
  bind("mgpuMemset32", &mgpuMemset32);
  bind("mgpuMemset16", &mgpuMemset16);
  bind("mgpuMemHostRegister", &mgpuMemHostRegister);
  bind("mgpuMemHostRegisterMemRef", &mgpuMemHostRegisterMemRef);
  bind("mgpuMemHostUnregister", &mgpuMemHostUnregister);
  bind("mgpuMemHostUnregisterMemRef", &mgpuMemHostUnregisterMemRef);
  bind("mgpuSetDefaultDevice", &mgpuSetDefaultDevice);
}

llvm::orc::SymbolMap runtimeSymbols(llvm::orc::MangleAndInterner interner) {
  llvm::orc::SymbolMap symbols;
  forEachRuntimeSymbol([&](StringRef name, llvm::orc::ExecutorAddr address) {
    symbols[interner(name)] = {address, llvm::JITSymbolFlags::Exported};
  });
  return symbols;
}

/// Fails, at the declaration, when the lowered program calls a function
/// that has no body and that neither the runtime nor the process defines
/// (a forgotten `prec.differentiable`, say); the JIT would only name the
/// missing symbol.
LogicalResult checkDeclarationsResolve(ModuleOp module) {
  llvm::StringSet<> runtime;
  forEachRuntimeSymbol(
      [&](StringRef name, llvm::orc::ExecutorAddr) { runtime.insert(name); });
  for (auto function : module.getOps<LLVM::LLVMFuncOp>()) {
    StringRef name = function.getSymName();
    if (!function.isExternal() || runtime.contains(name) ||
        dlsym(RTLD_DEFAULT, name.str().c_str()))
      continue;
    return function.emitError()
           << "@" << name
           << " is called but has no body, and neither the runtime nor a "
              "library loaded by prec-run defines it";
  }
  return success();
}

/// Translation reads the MLIR module, which ranks compiling on their own
/// threads share.
std::mutex translationMutex;

/// JIT-compiles the lowered `module` for the host and runs its constructors
/// on the calling thread (GPU code loads its kernels there, on the thread's
/// device).
LogicalResult compileForHost(ModuleOp module, StringRef entry,
                             std::unique_ptr<ExecutionEngine> &engine,
                             void (*&entryFn)(void **), std::string &error) {
  // Optimize for the host: without its target machine the optimizer has no
  // cost model of the vector units and leaves the kernels' loops scalar.
  auto hostBuilder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!hostBuilder) {
    error = llvm::toString(hostBuilder.takeError());
    return failure();
  }
  auto hostMachine = hostBuilder->createTargetMachine();
  if (!hostMachine) {
    error = llvm::toString(hostMachine.takeError());
    return failure();
  }
  // The options hold a reference to the transformer, which must outlive
  // ExecutionEngine::create.
  // Emulated kernels run tests on small buffers: compiling them fast
  // matters more than running them fast.
  auto optimize =
      makeOptimizingTransformer(gpuEmulation ? 1 : 3, 0, hostMachine->get());
  ExecutionEngineOptions engineOptions;
  engineOptions.transformer = optimize;
  llvm::Expected<std::unique_ptr<ExecutionEngine>> created = [&] {
    std::lock_guard<std::mutex> lock(translationMutex);
    return ExecutionEngine::create(module, engineOptions,
                                   std::move(*hostMachine));
  }();
  if (!created) {
    error = "JIT compilation failed: " + llvm::toString(created.takeError());
    return failure();
  }
  engine = std::move(*created);
  engine->registerSymbols(runtimeSymbols);
  engine->initialize();
  auto found = engine->lookupPacked(entry);
  if (!found) {
    error = llvm::toString(found.takeError());
    return failure();
  }
  entryFn = *found;
  return success();
}

/// A failed precrt GPU call as a rank's error: what prec-run was doing and
/// the runtime's reason.
std::string describeGpuFailure(precrt_status_t status, const Twine &what) {
  return (what + ": " + precrtStatusName(status) + ": " +
          precrtGetLastErrorMessage())
      .str();
}

/// Runs every step on one rank. Returns the rank's failure, if any.
/// Where a rank's steps spent their time, per step: the calls of the step
/// function (`stepSeconds` over `steps`) split into the runtime's gemms and
/// collectives (waiting for peers among them), the instrumented compute and
/// pack/unpack kernels, and the rest (host code between them: allocation,
/// copies, loops over calls).
std::string describeProfile(int32_t rank, double stepSeconds, int steps,
                            size_t bytesBeforeSteps) {
  precrt_profile_t profile;
  precrtCompiledGetProfile(&profile);
  auto ms = [&](double seconds) { return seconds * 1e3 / steps; };
  double accounted = profile.seconds[PRECRT_PROFILE_GEMM] +
                     profile.seconds[PRECRT_PROFILE_COMPUTE_KERNEL] +
                     profile.seconds[PRECRT_PROFILE_PACK_KERNEL] +
                     profile.seconds[PRECRT_PROFILE_COLLECTIVE];
  auto part = [&](StringRef name, precrt_profile_kind_t kind) {
    double seconds = profile.seconds[kind];
    return llvm::formatv("  {0,-26}{1,9:f3} ms {2,5:f1}% {3,6} calls\n", name,
                         ms(seconds),
                         stepSeconds > 0 ? 100 * seconds / stepSeconds : 0.0,
                         profile.calls[kind] / steps)
        .str();
  };
  std::string text =
      llvm::formatv("rank {0}: profile, per step of {1} (gemm: {2}):\n", rank,
                    steps, precrtCompiledMatmulKernel())
          .str();
  text += llvm::formatv("  {0,-26}{1,9:f3} ms\n", "step", ms(stepSeconds));
  text += part("gemm (precrtCompiledMatmul)", PRECRT_PROFILE_GEMM);
  text += part("compute kernels", PRECRT_PROFILE_COMPUTE_KERNEL);
  text += part("pack/unpack kernels", PRECRT_PROFILE_PACK_KERNEL);
  text += part("collectives", PRECRT_PROFILE_COLLECTIVE);
  text += part("  of which waiting", PRECRT_PROFILE_WAIT);
  double rest = stepSeconds - accounted;
  text += llvm::formatv("  {0,-26}{1,9:f3} ms {2,5:f1}%\n", "other host code",
                        ms(rest),
                        stepSeconds > 0 ? 100 * rest / stepSeconds : 0.0);
  // The most bytes the rank's generated code had allocated at once (CPU
  // buffers through the caching allocator, results included).
  precrt_compiled_memory_t memory;
  precrtCompiledGetMemory(&memory);
  text += llvm::formatv("  {0,-26}{1,9} bytes", "peak buffers in use",
                        memory.peak_in_use_bytes - bytesBeforeSteps);
  return text;
}

int runRank(const Program &program, int32_t rank, RankOutcome &outcome) {
  size_t numArgs = program.args.size();
  SmallVector<Buffer> args(numArgs);
  SmallVector<int64_t, 8> scalarStorage(numArgs, 0);
  auto fail = [&](std::string message) {
    outcome.error = std::move(message);
    return 1;
  };

  // GPU ranks compile for themselves and stage every buffer through the
  // compute stream that the generated code enqueues its work on.
  std::unique_ptr<ExecutionEngine> rankEngine;
  void (*entry)(void **) = program.entry;
  void *stream = nullptr;
  if (program.onGpu && !program.engine) {
    auto started = std::chrono::steady_clock::now();
    std::string error;
    if (failed(compileForHost(program.lowered, program.entryName, rankEngine,
                              entry, error)))
      return fail(error);
    if (const char *loadError = precrtCompiledGetError())
      return fail(std::string("loading the kernels: ") + loadError);
    if (rank == 0)
      llvm::errs() << llvm::formatv(
                          "prec-run: compiled @{0} in {1:f2} s\n",
                          program.entryName,
                          std::chrono::duration<double>(
                              std::chrono::steady_clock::now() - started)
                              .count())
                          .str();
  }
  if (program.onGpu) {
    stream = precrtCompiledGpuStream();
    if (!stream)
      return fail(std::string("no compute stream: ") +
                  precrtCompiledGetError());
  }
  auto synchronize = [&](const Twine &what, std::string &error) {
    precrt_status_t status = precrtGpuStreamSynchronize(stream);
    if (status == PRECRT_SUCCESS)
      return success();
    error = describeGpuFailure(status, what);
    return failure();
  };

  for (unsigned i = 0; i < numArgs; ++i) {
    const ValueSpec &spec = program.args[i];
    void *data = spec.isBuffer ? allocateBuffer(spec.bytes())
                               : static_cast<void *>(&scalarStorage[i]);
    if (!data)
      return fail("cannot allocate " + std::to_string(spec.bytes()) +
                  " bytes for argument " + std::to_string(i) + " (" +
                  spec.typeName + ")");
    args[i] = {data, spec.isBuffer};
    std::string error;
    if (failed(initializeArgument(program, i, rank, data, error)))
      return fail(error);
  }
  if (!outputDir.empty())
    for (unsigned i = 0; i < numArgs; ++i) {
      std::string error;
      if (failed(writeRaw(outputDir + "/rank" + std::to_string(rank) + "_arg" +
                              std::to_string(i) + ".bin",
                          args[i].data, program.args[i].bytes(), error)))
        return fail(error);
    }

  // What the entry function receives: the host buffers, or their copies in
  // device memory on the nccl backend.
  SmallVector<void *> callBuffers(numArgs, nullptr);
  for (unsigned i = 0; i < numArgs; ++i) {
    const ValueSpec &spec = program.args[i];
    if (!spec.isBuffer)
      continue;
    if (!program.onGpu) {
      callBuffers[i] = args[i].data;
      continue;
    }
    // cuMemAlloc refuses 0 bytes; an empty tensor still needs an address.
    if (precrt_status_t status =
            precrtGpuMalloc(&callBuffers[i], std::max<size_t>(spec.bytes(), 1)))
      return fail(describeGpuFailure(
          status, "allocating argument " + Twine(i) + " on the GPU"));
    if (precrt_status_t status = precrtGpuMemcpyAsync(
            callBuffers[i], args[i].data, spec.bytes(), stream))
      return fail(describeGpuFailure(
          status, "copying argument " + Twine(i) + " to the GPU"));
  }

  ResultLayout layout = layoutResults(program.results);
  std::vector<int64_t> resultStorage(layout.size / 8 + 1, 0);
  auto *resultBytes = reinterpret_cast<uint8_t *>(resultStorage.data());
  SmallVector<void *> resultData(program.results.size(), nullptr);
  // Host copies of GPU result buffers, for printing and writing.
  SmallVector<std::vector<uint8_t>> resultCopies(program.results.size());
  // Result buffers the program allocated; they belong to the caller. GPU
  // code allocates them on the compute stream: they go back in stream order.
  SmallVector<void *> resultAllocations;
  auto releaseResults = [&](std::string &error) {
    precrt_status_t status = PRECRT_SUCCESS;
    for (void *allocation : resultAllocations) {
      if (!program.onGpu)
        precrtCompiledFree(allocation); // free() unless it came from the cache
      else if (precrt_status_t freed = precrtGpuFreeAsync(allocation, stream);
               freed && !status)
        status = freed;
    }
    resultAllocations.clear();
    if (status == PRECRT_SUCCESS)
      return success();
    error = describeGpuFailure(status, "freeing a result on the GPU");
    return failure();
  };
  // The result on the host: GPU result buffers are copied back first.
  auto hostResult = [&](unsigned i, std::string &error) -> const void * {
    const ValueSpec &spec = program.results[i];
    if (!program.onGpu || !spec.isBuffer)
      return resultData[i];
    std::vector<uint8_t> &copy = resultCopies[i];
    copy.resize(spec.bytes());
    if (precrt_status_t status = precrtGpuMemcpyAsync(
            copy.data(), resultData[i], spec.bytes(), stream)) {
      error = describeGpuFailure(status,
                                 "copying result " + Twine(i) + " to the host");
      return nullptr;
    }
    if (failed(synchronize("copying result " + Twine(i) + " to the host",
                           error)))
      return nullptr;
    return copy.data();
  };

  // Long runs say how far they got, at most once a second, on stderr.
  auto runStart = std::chrono::steady_clock::now();
  auto lastReport = runStart;
  auto reportProgress = [&](int step) {
    auto now = std::chrono::steady_clock::now();
    if (numSteps == 1 ||
        (now - lastReport < std::chrono::seconds(1) && step + 1 < numSteps))
      return;
    lastReport = now;
    std::string line = llvm::formatv(
        "prec-run: step {0}/{1} after {2:f2} s\n", step + 1,
        numSteps.getValue(),
        std::chrono::duration<double>(now - runStart).count());
    llvm::errs() << line;
  };

  precrtCompiledResetProfile();
  precrtCompiledResetPeakMemory();
  precrt_compiled_memory_t memoryBeforeSteps;
  precrtCompiledGetMemory(&memoryBeforeSteps);
  double stepSeconds = 0;
  for (int step = 0; step < numSteps; ++step) {
    precrtCompiledResetTraffic();
    std::string error;
    if (failed(releaseResults(error)))
      return fail(error);
    // Pack: one pointer per lowered scalar argument.
    SmallVector<PackedValue> packed(numArgs);
    SmallVector<void *> pointers;
    for (unsigned i = 0; i < numArgs; ++i) {
      const ValueSpec &spec = program.args[i];
      PackedValue &value = packed[i];
      if (spec.isBuffer) {
        auto address = reinterpret_cast<int64_t>(callBuffers[i]);
        value.fields = {address, address, 0};
        value.fields.append(spec.shape.begin(), spec.shape.end());
        int64_t stride = 1;
        SmallVector<int64_t> strides(spec.shape.size());
        for (int64_t d = static_cast<int64_t>(spec.shape.size()) - 1; d >= 0;
             --d) {
          strides[d] = stride;
          stride *= spec.shape[d];
        }
        value.fields.append(strides.begin(), strides.end());
      } else {
        value.fields = {scalarStorage[i]};
      }
    }
    for (PackedValue &value : packed)
      for (int64_t &field : value.fields)
        pointers.push_back(&field);
    if (!program.results.empty())
      pointers.push_back(resultBytes);

    auto stepStart = std::chrono::steady_clock::now();
    entry(pointers.data());
    stepSeconds += std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - stepStart)
                       .count();
    // A failed collective may leave work on the stream that never finishes:
    // look at the rank's error before waiting for the stream.
    if (const char *compiledError = precrtCompiledGetError())
      return fail(std::string("step ") + std::to_string(step) + ": " +
                  compiledError);
    if (program.onGpu &&
        failed(synchronize("step " + Twine(step) + " on the GPU", error)))
      return fail(error);
    if (rank == 0)
      reportProgress(step);

    for (auto [i, spec] : llvm::enumerate(program.results)) {
      uint8_t *field = resultBytes + layout.offsets[i];
      if (spec.isBuffer) {
        void *allocated;
        std::memcpy(&allocated, field, 8);
        bool isArgument = llvm::is_contained(callBuffers, allocated);
        if (!isArgument && !llvm::is_contained(resultAllocations, allocated))
          resultAllocations.push_back(allocated);
        int64_t aligned;
        std::memcpy(&aligned, field + 8, 8);
        int64_t offset;
        std::memcpy(&offset, field + 16, 8);
        resultData[i] =
            reinterpret_cast<uint8_t *>(aligned) + offset * spec.elementBytes();
      } else {
        resultData[i] = field;
      }
    }

    // Scalars and rank-0 tensors (a loss) are reported at every step.
    if (printMode != "none" && rank == 0 && numSteps > 1)
      for (auto [i, spec] : llvm::enumerate(program.results))
        if (!spec.isBuffer || spec.shape.empty()) {
          const void *value = hostResult(i, error);
          if (!value)
            return fail(error);
          outcome.lines.push_back(llvm::formatv("step {0}: result {1} = {2}",
                                                step, i,
                                                formatElement(spec, value, 0))
                                      .str());
        }

    // Results feed the arguments of the same type at the same position.
    if (step + 1 < numSteps)
      for (unsigned i = 0; i < std::min(numArgs, program.results.size()); ++i) {
        const ValueSpec &arg = program.args[i];
        if (arg.typeName != program.results[i].typeName)
          continue;
        if (!arg.isBuffer)
          std::memcpy(&scalarStorage[i], resultData[i], arg.elementBytes());
        else if (!program.onGpu)
          std::memcpy(args[i].data, resultData[i], arg.bytes());
        else if (resultData[i] != callBuffers[i])
          if (precrt_status_t status = precrtGpuMemcpyAsync(
                  callBuffers[i], resultData[i], arg.bytes(), stream))
            return fail(describeGpuFailure(
                status, "feeding result " + Twine(i) + " to the next step"));
      }
  }

  if (profileSteps)
    outcome.lines.push_back(describeProfile(
        rank, stepSeconds, numSteps, memoryBeforeSteps.in_use_bytes));
  if (reportTraffic)
    outcome.lines.push_back(precrun::describeTraffic(rank));

  for (auto [i, spec] : llvm::enumerate(program.results)) {
    std::string error;
    const void *value = hostResult(i, error);
    if (!value)
      return fail(error);
    if (printMode != "none")
      outcome.lines.push_back(
          llvm::formatv("rank {0}: result {1}: {2}", rank, i,
                        formatValues(spec, value, printMode == "values"))
              .str());
    if (!outputDir.empty() &&
        failed(writeRaw(outputDir + "/rank" + std::to_string(rank) + "_result" +
                            std::to_string(i) + ".bin",
                        value, spec.bytes(), error)))
      return fail(error);
  }
  std::string error;
  if (failed(releaseResults(error)))
    return fail(error);
  if (program.onGpu) {
    if (failed(synchronize("freeing the results on the GPU", error)))
      return fail(error);
    for (void *buffer : callBuffers)
      if (buffer)
        if (precrt_status_t status = precrtGpuFree(buffer))
          return fail(describeGpuFailure(status, "freeing an argument"));
  }
  for (Buffer &buffer : args)
    if (buffer.owned)
      std::free(buffer.data);
  return 0;
}

struct RunState {
  const Program *program;
  std::vector<RankOutcome> outcomes;
};

/// Prints what `rank` printed and, if it failed, why. Returns whether it
/// failed.
bool reportOutcome(size_t rank, const RankOutcome &outcome) {
  // One write per rank: the processes of mpirun share stdout and stderr.
  std::string lines;
  for (const std::string &line : outcome.lines)
    lines += line + "\n";
  llvm::outs() << lines;
  llvm::outs().flush();
  if (outcome.error.empty())
    return false;
  // One write: the processes of mpirun share stderr.
  llvm::errs() << "prec-run: error: rank " + std::to_string(rank) + ": " +
                      outcome.error + "\n";
  return true;
}

int rankMain(precrt_comm_t world, void *userData) {
  auto *state = static_cast<RunState *>(userData);
  int32_t rank = 0;
  precrtCommRank(world, &rank);
  RankOutcome outcome;
  const Program &program = *state->program;
  int status = 0;
  // Before anything GPU happens on this thread. Under mpirun the runtime
  // already chose the GPU of the process's node-local rank.
  if (program.onGpu && program.ranksAreThreads)
    if (precrt_status_t selected =
            precrtGpuSetDevice(rank % program.deviceCount)) {
      outcome.error = describeGpuFailure(selected, "selecting the GPU");
      status = 1;
    }
  if (status == 0)
    status = runRank(program, rank, outcome);
  // A process of mpirun that failed leaves at once: finalizing MPI would
  // wait for peers that may wait in a collective for this rank until the
  // timeout, while mpirun ends the whole job when a process exits with a
  // failure.
  if (status != 0 && !program.ranksAreThreads) {
    reportOutcome(rank, outcome);
    llvm::outs().flush();
    std::_Exit(1);
  }
  std::lock_guard<std::mutex> lock(outcomesMutex);
  if (static_cast<size_t>(rank) >= state->outcomes.size())
    state->outcomes.resize(rank + 1);
  state->outcomes[rank] = std::move(outcome);
  return status;
}

//===----------------------------------------------------------------------===//
// Compilation
//===----------------------------------------------------------------------===//

/// Whether `module` is host code in the LLVM dialect already, with kernels
/// embedded as gpu.binary ops.
bool isLowered(ModuleOp module) {
  if (module.getBody()->empty())
    return false;
  bool lowered = true;
  module.walk([&](Operation *op) {
    if (op != module.getOperation() &&
        !isa<LLVM::LLVMDialect>(op->getDialect()) && !isa<gpu::BinaryOp>(op))
      lowered = false;
  });
  return lowered;
}

/// --gpu-emulation passes host functions as kernels: only the test driver
/// runs them, a real one would jump to a host address on the GPU.
LogicalResult checkEmulationDriver() {
  if (backendName != "nccl") {
    llvm::errs() << "prec-run: error: --gpu-emulation runs the GPU code of "
                    "--backend nccl, got --backend "
                 << backendName << "\n";
    return failure();
  }
  const char *driver = std::getenv("PRECRT_CUDA_DRIVER_LIBRARY");
  void *handle = driver ? dlopen(driver, RTLD_NOW | RTLD_LOCAL) : nullptr;
  bool emulates = handle && dlsym(handle, "fakeCudaRunsEmulatedKernels");
  if (handle)
    dlclose(handle);
  if (!emulates) {
    llvm::errs() << "prec-run: error: --gpu-emulation runs kernels on the "
                    "host and needs the test CUDA driver of "
                    "runtime/test/fakes in PRECRT_CUDA_DRIVER_LIBRARY ("
                 << (driver ? driver : "unset") << ")\n";
    return failure();
  }
  return success();
}

/// Launched by mpirun (Open MPI, or an MPICH-style process manager): one
/// process per rank.
bool launchedByMpi() {
  for (const char *name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"})
    if (std::getenv(name))
      return true;
  return false;
}

/// The number of processes mpirun started, where its environment says so.
std::optional<int64_t> getMpiWorldSize() {
  for (const char *name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"})
    if (const char *value = std::getenv(name)) {
      int64_t size;
      if (!StringRef(value).getAsInteger(10, size))
        return size;
    }
  return std::nullopt;
}

std::string listPublicFunctions(ModuleOp module) {
  std::string list;
  for (auto func : module.getOps<func::FuncOp>())
    if (!func.isExternal() && !func.isPrivate())
      list += (list.empty() ? "@" : ", @") + func.getSymName().str();
  return list.empty() ? "none" : list;
}

/// The entry function's signature before lowering, where tensor types still
/// say shapes and element types.
LogicalResult readSignature(ModuleOp module, Program &program,
                            std::string &name) {
  // About the module as a whole: one line, with the functions to choose
  // from, rather than a diagnostic that prints the module.
  auto fail = [&](const Twine &message) {
    llvm::errs() << "prec-run: error: " << message
                 << " (public functions: " << listPublicFunctions(module)
                 << ")\n";
    return failure();
  };
  func::FuncOp entry;
  if (!entryName.empty()) {
    entry = module.lookupSymbol<func::FuncOp>(entryName);
    if (!entry)
      return fail("no function @" + entryName + " to run");
    if (entry.isExternal())
      return fail("@" + entryName + " is a declaration: it has no body to run");
  } else {
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.isExternal() || func.isPrivate())
        continue;
      if (entry)
        return fail("several public functions: choose one with --entry");
      entry = func;
    }
    if (!entry)
      return fail("no public function with a body to run");
  }
  name = entry.getSymName().str();
  for (auto [kind, types] : {std::pair{"argument", entry.getArgumentTypes()},
                             std::pair{"result", entry.getResultTypes()}})
    for (auto [i, type] : llvm::enumerate(types)) {
      std::string problem;
      FailureOr<ValueSpec> spec = getValueSpec(type, problem);
      if (failed(spec))
        return entry.emitError("cannot run @")
               << name << ": " << kind << " " << i << " has type " << type
               << "; " << problem;
      (StringRef(kind) == "argument" ? program.args : program.results)
          .push_back(*spec);
    }
  return success();
}

/// Erases the functions the entry does not reach through symbol references
/// (and the forward functions of backward functions it reaches): what is not
/// run need not lower (another public function may take types
/// prec-run cannot pass, or ops that do not lower).
void eraseUnreachableFunctions(ModuleOp module, StringRef entry) {
  SymbolTable symbols(module);
  llvm::SetVector<func::FuncOp> reached;
  reached.insert(symbols.lookup<func::FuncOp>(entry));
  for (size_t next = 0; next < reached.size(); ++next) {
    func::FuncOp func = reached[next];
    // prec-generate-backward fills in @f_backward from @f.
    if (StringRef name = func.getSymName(); name.ends_with("_backward"))
      if (auto forward = symbols.lookup<func::FuncOp>(
              name.drop_back(StringRef("_backward").size())))
        reached.insert(forward);
    func.walk([&](Operation *op) {
      op->getAttrDictionary().walk([&](SymbolRefAttr reference) {
        if (auto callee = symbols.lookup<func::FuncOp>(
                reference.getRootReference()))
          reached.insert(callee);
      });
    });
  }
  for (auto func : llvm::make_early_inc_range(module.getOps<func::FuncOp>()))
    if (!reached.contains(func))
      func.erase();
}

/// The size of the module's only grid; 0 when there is not exactly one, or
/// its size is dynamic or beyond 32-bit ranks.
int getDefaultRanks(ModuleOp module) {
  SmallVector<shard::GridOp> grids(module.getOps<shard::GridOp>());
  if (grids.size() != 1)
    return 0;
  int64_t size = 1;
  for (int64_t extent : grids.front().getShape())
    if (ShapedType::isDynamic(extent) || llvm::MulOverflow(size, extent, size) ||
        size > std::numeric_limits<int32_t>::max())
      return 0;
  return static_cast<int>(size);
}

/// Whether the decimal `text` has a non-zero digit before its exponent, i.e.
/// names a non-zero number (hexadecimal floats are not looked into).
bool hasNonZeroSignificand(StringRef text) {
  if (text.contains_insensitive("0x"))
    return false;
  StringRef significand = text.take_until([](char c) {
    return c == 'e' || c == 'E';
  });
  return llvm::any_of(significand, [](char c) { return c >= '1' && c <= '9'; });
}

/// Parses `text` as the value of scalar argument `spec` into the 8 bytes it
/// is passed in: integers exactly and in range, floats as numbers.
LogicalResult parseScalar(const ValueSpec &spec, StringRef text,
                          int64_t &storage, std::string &problem) {
  storage = 0;
  if (spec.element == ScalarKind::I64 || spec.element == ScalarKind::I32) {
    int64_t value;
    StringRef digits = text;
    if (digits.starts_with("+") && digits.size() > 1 &&
        llvm::isDigit(digits[1]))
      digits = digits.drop_front();
    if (digits.getAsInteger(10, value)) {
      problem = "expected an integer";
      return failure();
    }
    if (spec.isIndex && value < 0) {
      problem = "expected a non-negative integer (an index is a size or a "
                "position)";
      return failure();
    }
    if (spec.element == ScalarKind::I64) {
      storage = value;
      return success();
    }
    if (value < std::numeric_limits<int32_t>::min() ||
        value > std::numeric_limits<int32_t>::max()) {
      problem = "expected an integer in the range of i32";
      return failure();
    }
    auto narrow = static_cast<int32_t>(value);
    std::memcpy(&storage, &narrow, sizeof(narrow));
    return success();
  }
  double value;
  if (text.empty() || !llvm::to_float(text, value)) {
    problem = "expected a number";
    return failure();
  }
  // A finite value must stay finite in the argument's type.
  const llvm::fltSemantics *semantics = nullptr;
  switch (spec.element) {
  case ScalarKind::F32:
    semantics = &llvm::APFloat::IEEEsingle();
    break;
  case ScalarKind::F16:
    semantics = &llvm::APFloat::IEEEhalf();
    break;
  case ScalarKind::BF16:
    semantics = &llvm::APFloat::BFloat();
    break;
  default:
    break;
  }
  llvm::APFloat converted(value);
  bool losesInfo = false;
  llvm::APFloat::opStatus status =
      semantics ? converted.convert(*semantics,
                                    llvm::APFloat::rmNearestTiesToEven,
                                    &losesInfo)
                : llvm::APFloat::opOK;
  // The decimal itself may lie beyond f64 (1e400 parses as infinity, 1e-400
  // as 0); only the spellings of infinity and NaN mean those values.
  std::string lower = text.lower();
  bool spellsNonFinite = StringRef(lower).contains("inf") ||
                         StringRef(lower).contains("nan");
  if ((std::isfinite(value) && (status & llvm::APFloat::opOverflow)) ||
      (!std::isfinite(value) && !spellsNonFinite)) {
    problem = "expected a number in the range of " + spec.typeName;
    return failure();
  }
  if (hasNonZeroSignificand(text) &&
      (value == 0.0 || (semantics && converted.isZero()))) {
    problem = "expected a number in the range of " + spec.typeName +
              " (it rounds to 0)";
    return failure();
  }
  // 16-bit floats straight from the decimal's double, rounded once (through
  // f32 first, 1.0039062500000002 would round to 1 in bf16, not 1.0078125).
  if (spec.element == ScalarKind::F16 || spec.element == ScalarKind::BF16) {
    auto bits =
        static_cast<uint16_t>(converted.bitcastToAPInt().getZExtValue());
    std::memcpy(&storage, &bits, sizeof(bits));
    return success();
  }
  // fp8 scalars convert as prec.cast does: saturating, through f32.
  writeElement(spec, &storage, 0, value);
  return success();
}

/// Parses --max-memory: bytes with an optional binary K, M, G or T suffix.
std::optional<uint64_t> parseByteSize(StringRef text) {
  unsigned shift = 0;
  if (!text.empty()) {
    switch (llvm::toUpper(text.back())) {
    case 'K':
      shift = 10;
      break;
    case 'M':
      shift = 20;
      break;
    case 'G':
      shift = 30;
      break;
    case 'T':
      shift = 40;
      break;
    }
  }
  if (shift)
    text = text.drop_back();
  uint64_t value;
  if (text.getAsInteger(10, value) || value > (UINT64_MAX >> shift))
    return std::nullopt;
  return value << shift;
}

/// Checks, before anything is allocated, that the arguments and results of
/// the ranks of this process fit in --max-memory (the machine's memory by
/// default): the kernel would otherwise kill the process without a word
/// once the buffers are touched. Intermediate buffers come on top.
LogicalResult checkMemory(const Program &program, int64_t ranksInProcess) {
  uint64_t limit;
  std::string limitName;
  if (!maxMemory.empty()) {
    std::optional<uint64_t> parsed = parseByteSize(maxMemory);
    if (!parsed) {
      llvm::errs() << "prec-run: error: expected --max-memory as bytes with "
                      "an optional K, M, G or T suffix, got '"
                   << maxMemory << "'\n";
      return failure();
    }
    limit = *parsed;
    limitName = "--max-memory " + maxMemory;
  } else {
    long pages = sysconf(_SC_PHYS_PAGES), pageSize = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || pageSize <= 0)
      return success(); // Unknown: nothing to compare with.
    limit = static_cast<uint64_t>(pages) * static_cast<uint64_t>(pageSize);
    limitName = "the machine's memory; --max-memory changes the limit";
  }
  // Each spec is at most 2^48 bytes and there are at most a few thousand of
  // them per rank, so the sum cannot overflow; the product is checked.
  uint64_t perRank = 0;
  for (const ValueSpec &spec : program.args)
    perRank += spec.isBuffer ? spec.bytes() : 8;
  for (const ValueSpec &spec : program.results)
    perRank += spec.isBuffer ? spec.bytes() : 8;
  auto ranks = static_cast<uint64_t>(ranksInProcess);
  if (ranks == 0 || perRank <= limit / ranks)
    return success();
  llvm::errs() << "prec-run: error: the arguments and results of "
               << ranksInProcess << " rank(s) in this process take "
               << perRank << " bytes each, more than " << limit << " bytes ("
               << limitName << ")\n";
  return failure();
}

/// Reads --scalar, --arg and --replicate against the entry function's
/// signature, and checks once, before anything is compiled, what does not
/// depend on the rank.
LogicalResult parseIndexedOptions(Program &program) {
  auto fail = [](const Twine &message) {
    llvm::errs() << "prec-run: error: " << message << "\n";
    return failure();
  };
  auto describe = [&](unsigned i) {
    return "argument " + std::to_string(i) + " (" + program.args[i].typeName +
           ")";
  };
  auto inRange = [&](unsigned i) {
    if (i < program.args.size())
      return success();
    return fail("argument index " + Twine(i) +
                " out of range: the entry function has " +
                Twine(program.args.size()) + " arguments");
  };
  // The option that gave each argument its value.
  std::map<unsigned, std::string> givenBy;
  auto claim = [&](unsigned i, const std::string &option) {
    auto [it, inserted] = givenBy.try_emplace(i, option);
    if (inserted)
      return success();
    return fail("argument " + Twine(i) + " is given twice: " + it->second +
                " and " + option);
  };

  for (StringRef entry : scalarArgs) {
    std::string option = ("--scalar " + entry).str();
    auto [index, value] = entry.split('=');
    unsigned i;
    if (index.getAsInteger(10, i) || !entry.contains('='))
      return fail("expected --scalar INDEX=NUMBER, got '" + entry + "'");
    if (failed(inRange(i)) || failed(claim(i, option)))
      return failure();
    if (program.args[i].isBuffer)
      return fail(option + ": " + describe(i) +
                  " is a tensor: give its contents with --arg " + Twine(i) +
                  "=PATH");
    std::string problem;
    if (failed(
            parseScalar(program.args[i], value, program.scalars[i], problem)))
      return fail(option + ": " + describe(i) + ": " + problem + ", got '" +
                  value + "'");
  }
  for (StringRef entry : fileArgs) {
    std::string option = ("--arg " + entry).str();
    auto [index, path] = entry.split('=');
    unsigned i;
    if (index.getAsInteger(10, i) || path.empty())
      return fail("expected --arg INDEX=PATH, got '" + entry + "'");
    if (failed(inRange(i)) || failed(claim(i, option)))
      return failure();
    if (!program.args[i].isBuffer)
      return fail(option + ": " + describe(i) +
                  " is a scalar: give it with --scalar " + Twine(i) + "=VALUE");
    program.files[i] = path.str();
    // A path without %r is the same file on every rank: check it once.
    std::string problem;
    if (!path.contains("%r") &&
        failed(checkArgumentFile(program.args[i], i, path.str(), problem)))
      return fail(problem);
  }
  for (unsigned i : replicatedArgs) {
    if (failed(inRange(i)))
      return failure();
    if (!program.args[i].isBuffer)
      return fail("--replicate " + Twine(i) + ": " + describe(i) +
                  " is a scalar, the same on every rank already");
    if (program.files.count(i))
      return fail("--replicate " + Twine(i) + ": " + describe(i) +
                  " is read from " + program.files[i] +
                  ", not generated from the seed");
    program.replicated.insert(i);
  }
  for (auto [i, spec] : llvm::enumerate(program.args))
    if (!spec.isBuffer && !program.scalars.count(i))
      return fail(describe(i) + " is a scalar: give it with --scalar " +
                  Twine(i) + "=VALUE");
  return success();
}

/// Most ranks the local backend runs, one thread each.
constexpr int kMaxLocalRanks = 1024;

/// Checks the number of ranks against every grid the module uses before
/// anything is compiled: the runtime needs each grid to cover all ranks.
LogicalResult checkRanks(ModuleOp module, int64_t ranks, StringRef how) {
  for (auto grid : module.getOps<shard::GridOp>()) {
    // Grids of dynamic size are sized at run time.
    if (SymbolTable::symbolKnownUseEmpty(grid, module) ||
        llvm::any_of(grid.getShape(), ShapedType::isDynamic))
      continue;
    int64_t size = 1;
    std::string shape;
    for (int64_t extent : grid.getShape()) {
      size *= extent; // verified to fit 32-bit ranks
      shape += (shape.empty() ? "" : "x") + std::to_string(extent);
    }
    if (size != ranks) {
      llvm::errs() << llvm::formatv(
          "prec-run: error: grid @{0} has shape {1} ({2} ranks), but the run "
          "has {3} rank{5} ({4})\n",
          grid.getSymName(), shape, size, ranks, how, ranks == 1 ? "" : "s");
      return failure();
    }
  }
  return success();
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  prec::registerPrecPasses();
  cl::HideUnrelatedOptions(runCategory);
  cl::ParseCommandLineOptions(argc, argv,
                              "prec-run: run a prec program on N ranks\n");
  if (printMode != "none" && printMode != "summary" && printMode != "values") {
    llvm::errs()
        << "prec-run: error: --print must be none, summary or values\n";
    return 1;
  }
  if (numSteps < 1) {
    llvm::errs() << "prec-run: error: --steps must be at least 1\n";
    return 1;
  }
  if (numRanks < 0) {
    llvm::errs() << "prec-run: error: --ranks must be positive (or 0 for "
                    "the size of the module's grid), got "
                 << numRanks << "\n";
    return 1;
  }
  if (timeoutMs < 0) {
    llvm::errs() << "prec-run: error: --timeout-ms must not be negative, got "
                 << timeoutMs << "\n";
    return 1;
  }

  DialectRegistry registry;
  registerAllDialects(registry);
  registerAllExtensions(registry);
  prec::registerPrecDialects(registry);
  registerAllToLLVMIRTranslations(registry);
  MLIRContext context(registry);
  // Diagnostics point into the input; the op in generic form adds nothing.
  context.printOpOnDiagnostic(false);

  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> file =
      openInputFile(inputFilename, &errorMessage);
  if (!file) {
    llvm::errs() << "prec-run: error: " << errorMessage << "\n";
    return 1;
  }
  sourceMgr.AddNewSourceBuffer(std::move(file), SMLoc());
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return 1;

  if (backendName != "local" && backendName != "mpi" &&
      backendName != "nccl") {
    llvm::errs() << "prec-run: error: --backend must be local, mpi or nccl, "
                    "got '"
                 << backendName << "'\n";
    return 1;
  }
  if (gpuFormat != "isa" && gpuFormat != "bin" && gpuFormat != "fatbin") {
    llvm::errs() << "prec-run: error: --gpu-format must be isa, bin or "
                    "fatbin, got '"
                 << gpuFormat << "'\n";
    return 1;
  }
  if (gpuEmulation && failed(checkEmulationDriver()))
    return 1;
  Program program;
  // Say what is missing (the CUDA driver, NCCL, a GPU) before anything
  // starts; lowering alone (--dump-lowered) needs none of it.
  if (backendName == "nccl" && !dumpLowered) {
    if (precrtBackendAvailable(PRECRT_BACKEND_NCCL) != PRECRT_SUCCESS) {
      llvm::errs() << "prec-run: error: --backend nccl: "
                   << precrtGetLastErrorMessage() << "\n";
      return 1;
    }
    if (precrt_status_t status =
            precrtGpuGetDeviceCount(&program.deviceCount)) {
      llvm::errs() << "prec-run: error: --backend nccl: "
                   << precrtStatusName(status) << ": "
                   << precrtGetLastErrorMessage() << "\n";
      return 1;
    }
  }
  std::optional<int64_t> mpiWorldSize = getMpiWorldSize();
  if (backendName == "local" && mpiWorldSize.value_or(1) > 1) {
    llvm::errs() << "prec-run: error: started by mpirun as one of "
                 << *mpiWorldSize
                 << " processes, but the local backend runs every rank in one "
                    "process: add --backend mpi\n";
    return 1;
  }
  program.onGpu = backendName == "nccl";
  program.ranksAreThreads = backendName == "local" ||
                            (program.onGpu && !launchedByMpi());
  std::string &entry = program.entryName;
  auto started = std::chrono::steady_clock::now();
  if (!isLowered(*module)) {
    // A policy's output dtype changes the entry's result types: the
    // signature is read after it is applied (the pipeline applies it again,
    // which changes nothing).
    PassManager policy(&context);
    policy.addPass(prec::createPrecApplyPolicy());
    if (failed(policy.run(*module)))
      return 1;
    if (failed(readSignature(*module, program, entry)))
      return 1;
    eraseUnreachableFunctions(*module, entry);
    if (numRanks == 0)
      numRanks = getDefaultRanks(*module);
    // What needs no compiling is checked before compiling.
    if (!dumpLowered) {
      if (failed(parseIndexedOptions(program)))
        return 1;
      if (!outputDir.empty())
        if (std::error_code code =
                llvm::sys::fs::create_directories(outputDir)) {
          llvm::errs() << "prec-run: error: cannot create --output-dir "
                       << outputDir << ": " << code.message() << "\n";
          return 1;
        }
      if (program.ranksAreThreads) {
        if (numRanks < 1) {
          llvm::errs() << "prec-run: error: give the number of ranks with "
                          "--ranks (the module does not have exactly one "
                          "grid of static size)\n";
          return 1;
        }
        if (backendName == "local" && numRanks > kMaxLocalRanks) {
          llvm::errs() << "prec-run: error: " << numRanks
                       << " ranks: the local backend runs every rank as a "
                          "thread of one process, at most "
                       << kMaxLocalRanks << "; run more under mpirun\n";
          return 1;
        }
        if (failed(checkRanks(*module, numRanks,
                              "--ranks " + std::to_string(numRanks))))
          return 1;
      } else if (mpiWorldSize) {
        if (failed(checkRanks(*module, *mpiWorldSize,
                              "mpirun -np " + std::to_string(*mpiWorldSize))))
          return 1;
      } else if (!launchedByMpi()) {
        if (failed(checkRanks(*module, 1,
                              "one process: start it under mpirun")))
          return 1;
      } // else a launcher that does not say the size: the runtime checks.
      if (failed(checkMemory(program, program.ranksAreThreads ? numRanks : 1)))
        return 1;
    }
    PassManager pm(&context);
    if (program.onGpu) {
      prec::PrecLowerToCUDAOptions gpuOptions;
      gpuOptions.chip = gpuChip;
      gpuOptions.format = gpuFormat;
      gpuOptions.foldCasts = fuseKernels;
      gpuOptions.reportTraffic = reportTraffic;
      if (gpuEmulation)
        prec::buildPrecLowerToCUDAEmulationPipeline(pm, gpuOptions);
      else
        prec::buildPrecLowerToCUDAPipeline(pm, gpuOptions);
    } else {
      prec::PrecLowerToCPUOptions cpuOptions;
      cpuOptions.fuseKernels = fuseKernels;
      cpuOptions.profile = profileSteps;
      cpuOptions.gemmContractions = gemmContractions;
      cpuOptions.reportTraffic = reportTraffic;
      prec::buildPrecLowerToCPUPipeline(pm, cpuOptions);
    }
    if (failed(pm.run(*module)))
      return 1;
  } else {
    llvm::errs() << "prec-run: error: the module is already lowered; run the "
                    "module before prec-lower-to-cpu (prec-lower-to-cuda) so "
                    "that prec-run knows the tensor signature of its entry "
                    "function\n";
    return 1;
  }
  if (dumpLowered) {
    module->print(llvm::outs());
    return 0;
  }
  if (failed(checkDeclarationsResolve(*module)))
    return 1;

  precrt_init_options options{};
  if (backendName == "local") {
    options.backend = PRECRT_BACKEND_LOCAL;
    options.num_local_ranks = numRanks;
  } else if (backendName == "mpi") {
    options.backend = PRECRT_BACKEND_MPI;
  } else {
    options.backend = PRECRT_BACKEND_NCCL;
    if (program.ranksAreThreads) {
      // NCCL cannot run two ranks of one communicator on one device.
      if (numRanks > program.deviceCount) {
        llvm::errs() << llvm::formatv(
            "prec-run: error: --backend nccl runs one rank per GPU: {0} "
            "ranks need {0} GPUs, this machine has {1}; run a grid of at most "
            "{1} ranks, or one process per GPU under mpirun\n",
            numRanks.getValue(), program.deviceCount);
        return 1;
      }
      options.nccl_bootstrap = PRECRT_NCCL_BOOTSTRAP_THREADS;
      options.num_local_ranks = numRanks;
    } else {
      options.nccl_bootstrap = PRECRT_NCCL_BOOTSTRAP_MPI;
    }
  }
  options.timeout_ms = timeoutMs;

  if (program.onGpu && !gpuEmulation) {
    // Every rank compiles on its own thread (runRank).
    program.lowered = *module;
  } else {
    // Emulated kernels are host code that loads into no GPU context: one
    // engine serves every rank, as on CPUs.
    std::string error;
    if (failed(compileForHost(*module, entry, program.engine, program.entry,
                              error))) {
      llvm::errs() << "prec-run: error: " << error << "\n";
      return 1;
    }
    // The gemm library loads now rather than inside the first step, which
    // --profile would count as gemm time.
    if (module->lookupSymbol(PRECRT_COMPILED_MATMUL_SYMBOL))
      (void)precrtCompiledMatmulKernel();
    // One write per line: the processes of mpirun share stderr.
    llvm::errs() << llvm::formatv(
                        "prec-run: compiled @{0} in {1:f2} s\n", entry,
                        std::chrono::duration<double>(
                            std::chrono::steady_clock::now() - started)
                            .count())
                        .str();
  }

  RunState state{&program, {}};
  started = std::chrono::steady_clock::now();
  precrt_status_t status = precrtRun(&options, rankMain, &state);
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started)
          .count();

  // On the MPI backend, each process holds (and writes) its own rank only.
  // Results come in rank order, then the errors: first the ranks' own, then
  // those of ranks that only saw a peer exit, so a cause precedes its echoes.
  auto isEcho = [](const RankOutcome &outcome) {
    return StringRef(outcome.error).contains(" exited while the others waited");
  };
  bool failedRank = false;
  for (auto [rank, outcome] : llvm::enumerate(state.outcomes))
    if (outcome.error.empty() || !isEcho(outcome))
      failedRank |= reportOutcome(rank, outcome);
  for (auto [rank, outcome] : llvm::enumerate(state.outcomes))
    if (!outcome.error.empty() && isEcho(outcome))
      failedRank |= reportOutcome(rank, outcome);
  if (status != PRECRT_SUCCESS) {
    if (!failedRank)
      llvm::errs() << "prec-run: error: " << precrtStatusName(status) << ": "
                   << precrtGetLastErrorMessage() << "\n";
    return 1;
  }
  llvm::errs() << llvm::formatv("prec-run: {0} step(s) in {1:f3} s\n",
                                numSteps.getValue(), seconds)
                      .str();
  return failedRank ? 1 : 0;
}
