//===- Runner.cpp - compile a prec program once for N ranks ---------------===//
//
// Preparing and compiling the entry function: its signature before lowering
// (where tensor types still say shapes and element types), the backend's
// lowering pipeline, and one JIT compilation with the runtime's entry points
// bound explicitly.
//
//===----------------------------------------------------------------------===//

#include "RunnerImpl.h"

#include "prec/Dialect/Prec/IR/EntryAttrs.h"
#include "prec/Dialect/Prec/Transforms/Passes.h"
#include "prec/Pipelines/Pipelines.h"

#include "precrt/compiled.h"
#include "precrt/gpu.h"
#include "precrt/mgpu.h"
#include "precrt/precrt.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"
#include "llvm/IR/Module.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/SubtargetFeature.h"

#include <cstdlib>
#include <dlfcn.h>
#include <limits>
#include <mutex>

using namespace mlir;
using namespace mlir::prec;

char RankError::ID = 0;
char DiagnosedError::ID = 0;

void RankError::log(llvm::raw_ostream &os) const {
  os << "rank " << rank << ": " << message;
}

std::error_code RankError::convertToErrorCode() const {
  return llvm::inconvertibleErrorCode();
}

void DiagnosedError::log(llvm::raw_ostream &os) const {
  os << "the module's diagnostics say what failed";
}

std::error_code DiagnosedError::convertToErrorCode() const {
  return llvm::inconvertibleErrorCode();
}

RankResults::~RankResults() = default;
RunObserver::~RunObserver() = default;

llvm::Error RunObserver::argumentsInitialized(int32_t,
                                              llvm::ArrayRef<const void *>) {
  return llvm::Error::success();
}

llvm::Error RunObserver::updateArgument(int32_t, int, unsigned, void *,
                                        bool &updated) {
  updated = false;
  return llvm::Error::success();
}

llvm::Error RunObserver::stepFinished(int32_t, int, int, RankResults &) {
  return llvm::Error::success();
}

llvm::Error RunObserver::runFinished(int32_t, RankResults &,
                                     const RankProfile &) {
  return llvm::Error::success();
}

std::string RunObserver::takeRankReport(int32_t) { return {}; }

void RunObserver::printRankReports(llvm::ArrayRef<std::string>) {}

std::string RunObserver::takeRankData(int32_t) { return {}; }

llvm::Error RunObserver::receiveRankData(llvm::ArrayRef<std::string>) {
  return llvm::Error::success();
}

void RunObserver::rankCompiled(int32_t, double) {}
void RunObserver::rankFailed(int32_t, llvm::StringRef) {}

bool EntrySignature::feedsBack(unsigned index) const {
  if (index >= arguments.size() || index >= results.size())
    return false;
  // The type's name says it all, except for signatures described from
  // buffers alone (precRunOnLocalRanks).
  const ValueSpec &argument = arguments[index], &result = results[index];
  return argument.typeName == result.typeName &&
         argument.isBuffer == result.isBuffer &&
         argument.shape == result.shape &&
         argument.elementBytes() == result.elementBytes();
}

namespace {

llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// Visits the entry points of precrt that lowered code calls, which the JIT
/// binds explicitly so that it never depends on how the process exports
/// them.
void forEachRuntimeSymbol(
    bool cacheBuffers,
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
  bind(PRECRT_COMPILED_COLLECTIVE_START_SYMBOL, &precrtCompiledCollectiveStart);
  bind(PRECRT_COMPILED_COLLECTIVE_WAIT_SYMBOL, &precrtCompiledCollectiveWait);
  bind(PRECRT_COMPILED_COLLECTIVE_START_ON_STREAM_SYMBOL,
       &precrtCompiledCollectiveStartOnStream);
  bind(PRECRT_COMPILED_COLLECTIVE_WAIT_ON_STREAM_SYMBOL,
       &precrtCompiledCollectiveWaitOnStream);
  bind(PRECRT_COMPILED_GPU_STREAM_SYMBOL, &precrtCompiledGpuStream);
  bind(PRECRT_COMPILED_GPU_MATMUL_SYMBOL, &precrtCompiledGpuMatmul);
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

LogicalResult checkDeclarationsResolve(ModuleOp module) {
  llvm::StringSet<> runtime;
  forEachRuntimeSymbol(
      /*cacheBuffers=*/true,
      [&](StringRef name, llvm::orc::ExecutorAddr) { runtime.insert(name); });
  for (auto function : module.getOps<LLVM::LLVMFuncOp>()) {
    StringRef name = function.getSymName();
    if (!function.isExternal() || runtime.contains(name) ||
        dlsym(RTLD_DEFAULT, name.str().c_str()))
      continue;
    InFlightDiagnostic diag =
        function.emitError()
        << "@" << name
        << " is called but has no body, and neither the runtime nor a "
           "library loaded by prec-run defines it";
    // The usual cause: a backward function declared for a forward function
    // that prec-generate-backward was not asked to differentiate.
    StringRef forwardName = name;
    if (forwardName.consume_back("_backward"))
      diag.attachNote()
          << "to generate it as the backward function of @" << forwardName
          << ", give @" << forwardName
          << " the unit attribute 'prec.differentiable' (or name it in "
             "prec-generate-backward's option functions="
          << forwardName << ")";
    return diag;
  }
  return success();
}

/// Translation reads the MLIR module, which ranks compiling on their own
/// threads share.
std::mutex translationMutex;

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

std::string listPublicFunctions(ModuleOp module) {
  std::string list;
  for (auto func : module.getOps<func::FuncOp>())
    if (!func.isExternal() && !func.isPrivate())
      list += (list.empty() ? "@" : ", @") + func.getSymName().str();
  return list.empty() ? "none" : list;
}

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
        if (auto callee =
                symbols.lookup<func::FuncOp>(reference.getRootReference()))
          reached.insert(callee);
      });
    });
  }
  for (auto func : llvm::make_early_inc_range(module.getOps<func::FuncOp>()))
    if (!reached.contains(func))
      func.erase();
}

int getDefaultRanks(ModuleOp module) {
  SmallVector<shard::GridOp> grids(module.getOps<shard::GridOp>());
  if (grids.size() != 1)
    return 0;
  int64_t size = 1;
  for (int64_t extent : grids.front().getShape())
    if (ShapedType::isDynamic(extent) ||
        llvm::MulOverflow(size, extent, size) ||
        size > std::numeric_limits<int32_t>::max())
      return 0;
  return static_cast<int>(size);
}

/// Features whose f32 to bf16 conversion (vcvtneps2bf16) treats subnormal
/// inputs as zero, where prec's kernels round them (docs/Runtime.md, "The
/// same numbers on every host"). LLVM selects it for any bf16 value it
/// widens to f32 and back (a select of bf16 lanes, for one), so the JIT
/// never targets them: results would depend on the host. AVX10's bf16
/// arithmetic implies AVX512_BF16 and goes with it.
constexpr llvm::StringLiteral kBF16FlushingFeatures[] = {"avx512bf16",
                                                         "avxneconvert"};

/// The processor features LLVM knows for `triple` and `cpu`.
llvm::StringSet<> getKnownFeatures(const llvm::Target &target,
                                   const llvm::Triple &triple, StringRef cpu) {
  std::unique_ptr<llvm::MCSubtargetInfo> info(
      target.createMCSubtargetInfo(triple, cpu, ""));
  llvm::StringSet<> known;
  for (const llvm::SubtargetFeatureKV &feature :
       info->getAllProcessorFeatures())
    known.insert(feature.Key);
  return known;
}

/// Lowering a GPU module and JIT-compiling translate to LLVM IR: the
/// runner registers the translations it needs itself, so that an embedder
/// (C included) need not.
void registerTranslations(MLIRContext *context) {
  DialectRegistry translations;
  registerAllToLLVMIRTranslations(translations);
  context->appendDialectRegistry(translations);
}

} // namespace

llvm::Expected<llvm::orc::JITTargetMachineBuilder>
prec::detail::getJITTargetMachineBuilder(const RunnerOptions &options,
                                         std::string &missingOnHost) {
  llvm::InitializeNativeTarget();
  auto builder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!builder)
    return builder.takeError();
  llvm::Triple triple = builder->getTargetTriple();
  std::string message;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, message);
  if (!target)
    return makeError(message);
  StringRef cpu = options.targetCPU;
  if (cpu.empty())
    cpu = "host";
  if (cpu != "host") {
    std::unique_ptr<llvm::MCSubtargetInfo> probe(
        target->createMCSubtargetInfo(triple, "", ""));
    if (!probe->isCPUStringValid(cpu))
      return makeError("unknown target CPU '" + cpu + "' for " +
                       triple.str() +
                       " (LLVM's names: x86-64, x86-64-v2, x86-64-v3, "
                       "x86-64-v4, znver3, znver4, sapphirerapids, ...)");
    // A named CPU brings its own features.
    builder->setCPU(cpu.str());
    builder->getFeatures() = llvm::SubtargetFeatures();
  }
  llvm::StringSet<> known = getKnownFeatures(*target, triple, builder->getCPU());
  SmallVector<StringRef> requested;
  StringRef(options.targetFeatures)
      .split(requested, ',', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  for (StringRef feature : requested) {
    feature = feature.trim();
    if (!llvm::SubtargetFeatures::hasFlag(feature) ||
        !known.contains(llvm::SubtargetFeatures::StripFlag(feature)))
      return makeError("expected target features as +name or -name of " +
                       triple.str() + "'s features (+avx2,-avx512f), got '" +
                       feature + "'");
    builder->getFeatures().AddFeature(feature);
  }
  for (StringRef feature : kBF16FlushingFeatures)
    if (known.contains(feature))
      builder->getFeatures().AddFeature(feature, /*Enable=*/false);

  // What the target uses that the host lacks: code for it cannot run here.
  missingOnHost.clear();
  std::unique_ptr<llvm::MCSubtargetInfo> selected(
      target->createMCSubtargetInfo(triple, builder->getCPU(),
                                    builder->getFeatures().getString()));
  // Only instruction-set extensions that code generation selects on its
  // own count: a virtual machine hides system features (mwaitx, pku, ...)
  // that no generated code uses.
  static constexpr llvm::StringLiteral kGeneratedCodeFeatures[] = {
      "sse",  "avx",      "fma",   "f16c",   "bmi",       "lzcnt", "popcnt",
      "movbe", "amx",     "vaes",  "vpclmulqdq", "gfni",  "sha",   "aes",
      "pclmul", "adx",    "cx16",  "cmov",   "evex512",   "xop",   "tbm"};
  llvm::StringMap<bool> host = llvm::sys::getHostCPUFeatures();
  for (const llvm::SubtargetFeatureKV &feature :
       selected->getAllProcessorFeatures()) {
    auto onHost = host.find(feature.Key);
    if (onHost == host.end() || onHost->second ||
        llvm::none_of(kGeneratedCodeFeatures, [&](StringRef prefix) {
          return StringRef(feature.Key).starts_with(prefix);
        }))
      continue;
    if (selected->checkFeatures(("+" + StringRef(feature.Key)).str()))
      missingOnHost += (missingOnHost.empty() ? "" : ", ") +
                       std::string(feature.Key);
  }
  return std::move(*builder);
}

llvm::Error prec::detail::compileForHost(
    ModuleOp module, StringRef entry, const RunnerOptions &options,
    std::unique_ptr<ExecutionEngine> &engine, void (*&entryFn)(void **)) {
  // Optimize for the target CPU (the host's by default): without its
  // target machine the optimizer has no cost model of the vector units and
  // leaves the kernels' loops scalar.
  std::string missingOnHost; // Runner::jit keeps it
  auto hostBuilder = getJITTargetMachineBuilder(options, missingOnHost);
  if (!hostBuilder)
    return hostBuilder.takeError();
  auto hostMachine = hostBuilder->createTargetMachine();
  if (!hostMachine)
    return hostMachine.takeError();
  // The options hold a reference to the transformer, which must outlive
  // ExecutionEngine::create.
  // ExecutionEngine::create takes a transformer's error for a bug
  // (cantFail): the inspector's is kept here and returned after it.
  llvm::Error inspectError = llvm::Error::success();
  auto optimize = [&inspectError, &inspect = options.inspectOptimizedLLVM,
                   optimizer = makeHostOptimizer(hostMachine->get(),
                                                 options.optLevel)](
                      llvm::Module *llvmModule) -> llvm::Error {
    if (llvm::Error error = optimizer(llvmModule))
      return error;
    if (inspect)
      inspectError = inspect(*llvmModule);
    return llvm::Error::success();
  };
  ExecutionEngineOptions engineOptions;
  engineOptions.transformer = optimize;
  engineOptions.enableObjectDump = options.keepObject;
  llvm::Expected<std::unique_ptr<ExecutionEngine>> created = [&] {
    std::lock_guard<std::mutex> lock(translationMutex);
    return ExecutionEngine::create(module, engineOptions,
                                   std::move(*hostMachine));
  }();
  if (!created) {
    llvm::consumeError(std::move(inspectError));
    return makeError("JIT compilation failed: " +
                     llvm::toString(created.takeError()));
  }
  if (inspectError)
    return makeError("JIT compilation failed: " +
                     llvm::toString(std::move(inspectError)));
  engine = std::move(*created);
  bool cacheBuffers = options.cacheBuffers;
  engine->registerSymbols([&](llvm::orc::MangleAndInterner interner) {
    llvm::orc::SymbolMap symbols;
    forEachRuntimeSymbol(
        cacheBuffers, [&](StringRef name, llvm::orc::ExecutorAddr address) {
          symbols[interner(name)] = {address, llvm::JITSymbolFlags::Exported};
        });
    return symbols;
  });
  engine->initialize();
  auto found = engine->lookupPacked(entry);
  if (!found)
    return found.takeError();
  entryFn = *found;
  return llvm::Error::success();
}

std::function<llvm::Error(llvm::Module *)>
prec::makeHostOptimizer(llvm::TargetMachine *targetMachine, unsigned optLevel) {
  return [targetMachine, optLevel](llvm::Module *module) -> llvm::Error {
    llvm::OptimizationLevel level;
    switch (optLevel) {
    case 0:
      level = llvm::OptimizationLevel::O0;
      break;
    case 1:
      level = llvm::OptimizationLevel::O1;
      break;
    case 2:
      level = llvm::OptimizationLevel::O2;
      break;
    default:
      level = llvm::OptimizationLevel::O3;
      break;
    }
    llvm::PipelineTuningOptions tuning;
    tuning.LoopUnrolling = false;
    tuning.LoopInterleaving = true;
    tuning.LoopVectorization = true;
    tuning.SLPVectorization = true;
    llvm::LoopAnalysisManager loops;
    llvm::FunctionAnalysisManager functions;
    llvm::CGSCCAnalysisManager sccs;
    llvm::ModuleAnalysisManager modules;
    llvm::PassBuilder builder(targetMachine, tuning);
    builder.registerModuleAnalyses(modules);
    builder.registerCGSCCAnalyses(sccs);
    builder.registerFunctionAnalyses(functions);
    builder.registerLoopAnalyses(loops);
    builder.crossRegisterProxies(loops, functions, sccs, modules);
    llvm::ModulePassManager passes =
        level == llvm::OptimizationLevel::O0
            ? builder.buildO0DefaultPipeline(level)
            : builder.buildPerModuleDefaultPipeline(level);
    passes.run(*module, modules);
    return llvm::Error::success();
  };
}

bool prec::launchedByMpi() {
  for (const char *name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"})
    if (std::getenv(name))
      return true;
  return false;
}

std::optional<int64_t> prec::getMpiWorldSize() {
  for (const char *name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"})
    if (const char *value = std::getenv(name)) {
      int64_t size;
      if (!StringRef(value).getAsInteger(10, size))
        return size;
    }
  return std::nullopt;
}

std::optional<int64_t> prec::getMpiWorldRank() {
  for (const char *name : {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"})
    if (const char *value = std::getenv(name)) {
      int64_t rank;
      if (!StringRef(value).getAsInteger(10, rank))
        return rank;
    }
  return std::nullopt;
}

Runner::Runner(ModuleOp module, const RunnerOptions &options)
    : module(module), options(options), impl(std::make_unique<Impl>()) {
  registerTranslations(module->getContext());
}

Runner::~Runner() = default;

bool Runner::ranksAreThreads() const {
  return options.backend == RunnerBackend::Local ||
         (options.backend == RunnerBackend::NCCL && !launchedByMpi());
}

static llvm::Error checkOptions(const RunnerOptions &options) {
  if (options.timeoutMs < 0)
    return makeError("expected a collective timeout of at least 0 ms (0: the "
                     "runtime's default), got " +
                     llvm::Twine(options.timeoutMs));
  if (options.optLevel > 3)
    return makeError("expected an optimization level of 0 to 3, got " +
                     llvm::Twine(options.optLevel));
  return llvm::Error::success();
}

/// Whether `type` is what a result of `spec` lowers to: the descriptor of a
/// memref of its rank (two pointers, an offset, sizes and strides), or a
/// scalar of its width.
static bool isLoweredResult(const ValueSpec &spec, Type type) {
  if (!spec.isBuffer)
    return isa<IntegerType, FloatType>(type) &&
           type.getIntOrFloatBitWidth() ==
               (spec.element == ElementKind::I1 ? 1 : 8 * spec.elementBytes());
  auto descriptor = dyn_cast<LLVM::LLVMStructType>(type);
  if (!descriptor || descriptor.isOpaque())
    return false;
  ArrayRef<Type> fields = descriptor.getBody();
  size_t rank = spec.shape.size();
  if (fields.size() != (rank ? 5u : 3u) ||
      !isa<LLVM::LLVMPointerType>(fields[0]) ||
      !isa<LLVM::LLVMPointerType>(fields[1]) || !fields[2].isInteger(64))
    return false;
  for (Type field : fields.drop_front(3)) {
    auto array = dyn_cast<LLVM::LLVMArrayType>(field);
    if (!array || array.getNumElements() != rank ||
        !array.getElementType().isInteger(64))
      return false;
  }
  return true;
}

/// Checks the lowered `function` against `signature`, which the caller
/// describes: the packed call passes one pointer per lowered parameter and
/// has the function write its results into storage laid out as the
/// signature says, so a mismatch would read or write past either.
static llvm::Error checkLoweredSignature(LLVM::LLVMFuncOp function,
                                         const EntrySignature &signature) {
  StringRef name = function.getSymName();
  // A memref of rank r is 3 + 2r lowered parameters: two pointers and
  // integers; a scalar one of its width.
  ArrayRef<Type> params = function.getFunctionType().getParams();
  unsigned expected = 0;
  for (const ValueSpec &spec : signature.arguments)
    expected += spec.isBuffer ? 3 + 2 * spec.shape.size() : 1;
  if (expected != params.size())
    return makeError("@" + name + " takes " + llvm::Twine(params.size()) +
                     " lowered parameters, the " +
                     llvm::Twine(signature.arguments.size()) +
                     " buffers given describe " + llvm::Twine(expected));
  size_t next = 0;
  for (auto [i, spec] : llvm::enumerate(signature.arguments)) {
    bool matches;
    if (spec.isBuffer) {
      size_t count = 3 + 2 * spec.shape.size();
      ArrayRef<Type> own = params.slice(next, count);
      matches = isa<LLVM::LLVMPointerType>(own[0]) &&
                isa<LLVM::LLVMPointerType>(own[1]) &&
                llvm::all_of(own.drop_front(2),
                             [](Type type) { return type.isInteger(64); });
      next += count;
    } else {
      matches = isLoweredResult(spec, params[next++]);
    }
    if (!matches)
      return makeError(llvm::formatv(
          "@{0}'s lowered parameters do not take argument {1} as {2}", name, i,
          spec.isBuffer
              ? "a memref of rank " + std::to_string(spec.shape.size())
              : spec.typeName));
  }
  // One result is returned as it lowers, several in a struct of them.
  Type returned = function.getFunctionType().getReturnType();
  SmallVector<Type> results;
  if (auto fields = dyn_cast<LLVM::LLVMStructType>(returned);
      fields && !fields.isOpaque() && !fields.getBody().empty() &&
      !isa<LLVM::LLVMPointerType>(fields.getBody().front()))
    llvm::append_range(results, fields.getBody());
  else if (!isa<LLVM::LLVMVoidType>(returned))
    results.push_back(returned);
  if (results.size() != signature.results.size())
    return makeError(llvm::formatv(
        "@{0} returns {1} value{2}, {3} result buffer{4} given", name,
        results.size(), results.size() == 1 ? "" : "s",
        signature.results.size(), signature.results.size() == 1 ? "" : "s"));
  for (auto [j, spec] : llvm::enumerate(signature.results))
    if (!isLoweredResult(spec, results[j])) {
      std::string found;
      llvm::raw_string_ostream(found) << results[j];
      return makeError(llvm::formatv(
          "@{0} returns {1} as result {2}, not {3}", name, found, j,
          spec.isBuffer
              ? "a memref of rank " + std::to_string(spec.shape.size())
              : spec.typeName));
    }
  return llvm::Error::success();
}

/// An argument's `prec.shard` and `prec.range` (verified by the dialect) into
/// `spec`, with the shape of the grid the shard names.
static llvm::Error readShardAndRange(ModuleOp module, DictionaryAttr attrs,
                                     ValueSpec &spec) {
  if (auto range = dyn_cast_if_present<ArrayAttr>(attrs.get(kRangeAttrName));
      range && range.size() == 2)
    if (auto lo = dyn_cast<IntegerAttr>(range[0]))
      if (auto hi = dyn_cast<IntegerAttr>(range[1]))
        spec.range = {lo.getInt(), hi.getInt()};
  auto shard = dyn_cast_if_present<DictionaryAttr>(attrs.get(kShardAttrName));
  if (!shard)
    return llvm::Error::success();
  ShardSpec result;
  auto grid = shard.getAs<FlatSymbolRefAttr>("grid");
  auto dim = shard.getAs<IntegerAttr>("dim");
  auto size = shard.getAs<IntegerAttr>("size");
  if (!grid || !dim || !size)
    return makeError("argument '" + spec.name + "': a malformed prec.shard");
  result.grid = grid.getValue().str();
  result.dim = dim.getInt();
  result.size = size.getInt();
  if (auto axes = shard.getAs<ArrayAttr>("grid_axes"))
    for (Attribute axis : axes)
      if (auto integer = dyn_cast<IntegerAttr>(axis))
        result.gridAxes.push_back(integer.getInt());
  if (auto gridOp = module.lookupSymbol<shard::GridOp>(grid.getAttr()))
    if (llvm::none_of(gridOp.getShape(), ShapedType::isDynamic))
      result.gridShape.assign(gridOp.getShape().begin(),
                              gridOp.getShape().end());
  spec.shard = std::move(result);
  return llvm::Error::success();
}

/// The entry function's signature before lowering, where tensor types still
/// say shapes and element types.
static llvm::Error readSignature(ModuleOp module, StringRef entryName,
                                 EntrySignature &signature) {
  // About the module as a whole: one line, with the functions to choose
  // from, rather than a diagnostic that prints the module.
  auto fail = [&](const llvm::Twine &message) {
    return makeError(
        message + " (public functions: " + listPublicFunctions(module) + ")");
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
  signature.name = entry.getSymName().str();
  for (auto [kind, types] : {std::pair{"argument", entry.getArgumentTypes()},
                             std::pair{"result", entry.getResultTypes()}})
    for (auto [i, type] : llvm::enumerate(types)) {
      std::string problem;
      FailureOr<ValueSpec> spec = getValueSpec(type, problem);
      if (failed(spec)) {
        entry.emitError("cannot run @")
            << signature.name << ": " << kind << " " << i << " has type "
            << type << "; " << problem;
        return llvm::make_error<DiagnosedError>();
      }
      bool isArgument = StringRef(kind) == "argument";
      DictionaryAttr attrs =
          isArgument ? entry.getArgAttrDict(i) : entry.getResultAttrDict(i);
      if (auto name = dyn_cast_if_present<StringAttr>(
              attrs ? attrs.get(kNameAttrName) : Attribute()))
        spec->name = name.str();
      if (Attribute value =
              attrs ? attrs.get(kDefaultAttrName) : Attribute()) {
        if (auto number = dyn_cast<FloatAttr>(value)) {
          // The shortest text that reads back as the same value of its type.
          const APFloat &exact = number.getValue();
          SmallString<32> text;
          for (unsigned digits = 1; digits <= 40; ++digits) {
            text.clear();
            exact.toString(text, digits);
            APFloat parsed(exact.getSemantics());
            auto status =
                parsed.convertFromString(text, APFloat::rmNearestTiesToEven);
            if (status && parsed.bitwiseIsEqual(exact))
              break;
          }
          spec->defaultValue = text.str().str();
        } else if (auto number = dyn_cast<IntegerAttr>(value)) {
          spec->defaultValue =
              isa<IndexType>(type)
                  ? llvm::toString(number.getValue(), 10, /*Signed=*/true)
                  : llvm::toString(number.getValue(), 10,
                                   !number.getType().isUnsignedInteger());
        }
      }
      if (isArgument && attrs)
        if (llvm::Error error = readShardAndRange(module, attrs, *spec))
          return error;
      (isArgument ? signature.arguments : signature.results).push_back(*spec);
    }
  // Unnamed values go by their position; a result that feeds an argument
  // back is that argument's next value, and goes by its name.
  for (auto [i, spec] : llvm::enumerate(signature.arguments))
    if (spec.name.empty())
      spec.name = "arg" + std::to_string(i);
  for (auto [i, spec] : llvm::enumerate(signature.results))
    if (spec.name.empty())
      spec.name = signature.feedsBack(i) ? signature.arguments[i].name
                                         : "result" + std::to_string(i);
  return llvm::Error::success();
}

llvm::Expected<std::unique_ptr<Runner>>
Runner::create(ModuleOp module, const RunnerOptions &options) {
  if (!module)
    return makeError("expected a module, got a null one");
  if (llvm::Error error = checkOptions(options))
    return error;
  if (options.numRanks < 0)
    return makeError("expected a positive number of ranks (or 0 for the size "
                     "of the module's grid), got " +
                     llvm::Twine(options.numRanks));
  if (isLowered(module))
    return makeError("the module is already lowered; run the module before "
                     "prec-lower-to-cpu (prec-lower-to-cuda) so that prec-run "
                     "knows the tensor signature of its entry function");
  // An unknown target is said before anything is lowered.
  std::string missingOnHost;
  if (auto target = detail::getJITTargetMachineBuilder(options, missingOnHost);
      !target)
    return target.takeError();
  std::unique_ptr<Runner> runner(new Runner(module, options));
  // A policy's output dtype changes the entry's result types: the signature
  // is read after the pipelines' signature stage, and compile lowers with
  // the stages after it.
  PassManager policy(module->getContext());
  populatePrecSignatureStage(policy);
  if (failed(policy.run(module)))
    return llvm::make_error<DiagnosedError>();
  if (llvm::Error error =
          readSignature(module, options.entry, runner->signature))
    return std::move(error);
  eraseUnreachableFunctions(module, runner->signature.name);
  runner->numRanks =
      options.numRanks ? options.numRanks : getDefaultRanks(module);
  return std::move(runner);
}

llvm::Expected<std::unique_ptr<Runner>>
Runner::createLowered(ModuleOp module, EntrySignature signature,
                      const RunnerOptions &options) {
  if (!module)
    return makeError("expected a module, got a null one");
  if (llvm::Error error = checkOptions(options))
    return error;
  if (options.backend == RunnerBackend::NCCL)
    return makeError("a module lowered already runs on CPU backends only");
  if (options.numRanks <= 0 && options.backend == RunnerBackend::Local)
    return makeError("expected a positive number of ranks, got " +
                     llvm::Twine(options.numRanks));
  auto function = module.lookupSymbol<LLVM::LLVMFuncOp>(signature.name);
  if (!function || function.isExternal())
    return makeError("no lowered function @" + signature.name +
                     " with a body (run prec-lower-to-cpu first)");
  if (llvm::Error error = checkLoweredSignature(function, signature))
    return error;
  std::unique_ptr<Runner> runner(new Runner(module, options));
  runner->signature = std::move(signature);
  runner->numRanks = options.numRanks;
  runner->impl->lowered = true;
  // Lowered with every argument writable: the run restores those that no
  // result feeds.
  for (auto [i, spec] : llvm::enumerate(runner->signature.arguments))
    runner->impl->restoredArguments.push_back(spec.isBuffer &&
                                              !runner->signature.feedsBack(i));
  if (llvm::Error error = runner->jit())
    return std::move(error);
  return std::move(runner);
}

llvm::Expected<std::unique_ptr<Runner>>
Runner::compile(ModuleOp module, const RunnerOptions &options) {
  auto runner = create(module, options);
  if (!runner)
    return runner.takeError();
  if ((*runner)->ranksAreThreads()) {
    if ((*runner)->numRanks < 1)
      return makeError("give the number of ranks (the module does not have "
                       "exactly one grid of static size)");
    if (llvm::Error error = (*runner)->checkRanks(
            (*runner)->numRanks,
            (llvm::Twine((*runner)->numRanks) + " ranks").str()))
      return std::move(error);
  } else if (std::optional<int64_t> worldSize = getMpiWorldSize()) {
    if (llvm::Error error = (*runner)->checkRanks(
            *worldSize, "mpirun -np " + std::to_string(*worldSize)))
      return std::move(error);
  }
  if (llvm::Error error = (*runner)->lower())
    return std::move(error);
  if (llvm::Error error = (*runner)->jit())
    return std::move(error);
  return runner;
}

llvm::Error Runner::checkRanks(int64_t ranks, StringRef how) const {
  ModuleOp module = this->module;
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
    if (size != ranks)
      return makeError(llvm::formatv(
          "grid @{0} has shape {1} ({2} ranks), but the run has {3} rank{5} "
          "({4}): run {2} ranks, or make the program for {3} (a step from "
          "prec-fully-shard: mesh={3}; from python -m prec_torch: --mesh {3})",
          grid.getSymName(), shape, size, ranks, how, ranks == 1 ? "" : "s"));
  }
  return llvm::Error::success();
}

/// The options of prec-lower-to-cuda that `options` stand for.
static void getCUDAOptions(const RunnerOptions &options,
                           PrecLowerToCUDAOptions &gpuOptions) {
  const PrecLoweringOptions &lowering = options.lowering;
  gpuOptions.chip = options.gpuChip;
  gpuOptions.format = options.gpuFormat;
  gpuOptions.foldCasts = lowering.collectives.foldCasts;
  gpuOptions.precisionReport = lowering.collectives.precisionReport;
  gpuOptions.fuseKernels = lowering.kernels.fuseKernels;
  gpuOptions.reportTraffic = lowering.kernels.reportTraffic;
  gpuOptions.gemmContractions = lowering.hostCodegen.gemmContractions;
  gpuOptions.overlap = lowering.kernels.overlap;
  gpuOptions.prefetch = lowering.kernels.prefetch;
  gpuOptions.maxBucketBytes = lowering.collectives.maxBucketBytes;
}

/// The options of prec-lower-to-cpu that `lowering` stands for (the inverse
/// of getLoweringOptions).
static void getCPUOptions(const PrecLoweringOptions &lowering,
                          PrecLowerToCPUOptions &cpuOptions) {
  cpuOptions.foldCasts = lowering.collectives.foldCasts;
  cpuOptions.precisionReport = lowering.collectives.precisionReport;
  cpuOptions.fuseKernels = lowering.kernels.fuseKernels;
  cpuOptions.reportTraffic = lowering.kernels.reportTraffic;
  cpuOptions.allReduceBlockBytes = lowering.kernels.allReduceBlockBytes;
  cpuOptions.reduceScatterBlockBytes = lowering.kernels.reduceScatterBlockBytes;
  cpuOptions.peerWindows = lowering.kernels.peerWindows;
  cpuOptions.overlap = lowering.kernels.overlap;
  cpuOptions.prefetch = lowering.kernels.prefetch;
  cpuOptions.maxBucketBytes = lowering.collectives.maxBucketBytes;
  cpuOptions.gemmContractions = lowering.hostCodegen.gemmContractions;
  cpuOptions.profile = lowering.hostCodegen.profile;
  cpuOptions.vectorBits = lowering.hostCodegen.vectorBits;
  cpuOptions.expandBF16 = lowering.hostCodegen.expandBF16;
}

/// Options as the text a registered pipeline parses: their printed form
/// without its braces.
static std::string
getOptionString(const mlir::detail::PassOptions &passOptions) {
  std::string text;
  llvm::raw_string_ostream os(text);
  passOptions.print(os);
  StringRef inner = StringRef(text).trim();
  if (inner.consume_front("{"))
    inner.consume_back("}");
  return inner.str();
}

/// Adds RunnerOptions::pipeline, from the pass pipeline registry, to `pm`
/// with the options of the backend's own pipeline.
static llvm::Error addNamedPipeline(OpPassManager &pm,
                                    const RunnerOptions &options) {
  const PassPipelineInfo *info = PassPipelineInfo::lookup(options.pipeline);
  if (!info)
    return makeError("unknown pipeline '" + options.pipeline +
                     "': expected a registered pass pipeline, such as "
                     "prec-lower-to-cpu or prec-lower-to-cuda");
  bool onGpu = options.backend == RunnerBackend::NCCL;
  StringRef backend = onGpu                                   ? "nccl"
                      : options.backend == RunnerBackend::MPI ? "mpi"
                                                              : "local";
  StringRef backendPipeline =
      onGpu ? "prec-lower-to-cuda" : "prec-lower-to-cpu";
  std::string text;
  if (onGpu) {
    PrecLowerToCUDAOptions gpuOptions;
    getCUDAOptions(options, gpuOptions);
    text = getOptionString(gpuOptions);
  } else {
    PrecLowerToCPUOptions cpuOptions;
    getCPUOptions(options.lowering, cpuOptions);
    text = getOptionString(cpuOptions);
  }
  std::string reason;
  // A pipeline's option parser reports what it rejects on stderr; the
  // error says which options they were.
  if (failed(info->addToPipeline(pm, text, [&](const llvm::Twine &message) {
        reason = message.str();
        return failure();
      })))
    return makeError("pipeline '" + options.pipeline +
                     "' does not take the options of " + backendPipeline +
                     ", the pipeline of the " + backend + " backend" +
                     (reason.empty() ? "" : ": " + reason));
  return llvm::Error::success();
}

llvm::Error Runner::lower() {
  if (impl->lowered)
    return llvm::Error::success();
  protectArguments();
  // Names and defaults were read into the signature; LLVM has no use for
  // them and would warn about each.
  module.walk([](func::FuncOp function) {
    for (unsigned i = 0; i < function.getNumArguments(); ++i) {
      function.removeArgAttr(i, kNameAttrName);
      function.removeArgAttr(i, kDefaultAttrName);
      function.removeArgAttr(i, kShardAttrName);
      function.removeArgAttr(i, kRangeAttrName);
    }
    for (unsigned i = 0; i < function.getNumResults(); ++i)
      function.removeResultAttr(i, StringAttr::get(function.getContext(),
                                                   kNameAttrName));
  });
  // The pipeline's result is verified once, at the end: verifying the whole
  // module after each of its passes took half the lowering's time (a step
  // of thousands of layers is one function, which every function pass
  // verifies whole). prec-opt, which verifies after each pass, names the
  // pass that broke the IR.
  PassManager pm(module->getContext());
  pm.enableVerifier(false);
  if (!options.pipeline.empty()) {
    if (llvm::Error error = addNamedPipeline(pm, options))
      return error;
  } else if (options.backend == RunnerBackend::NCCL) {
    PrecLowerToCUDAOptions gpuOptions;
    getCUDAOptions(options, gpuOptions);
    buildPrecLowerToCUDAAfterSignaturePipeline(pm, gpuOptions);
  } else {
    buildPrecLowerToCPUAfterSignaturePipeline(pm, options.lowering);
  }
  if (failed(pm.run(module)) || failed(verify(module)))
    return llvm::make_error<DiagnosedError>();
  impl->lowered = true;
  return llvm::Error::success();
}

/// Every step reads the arguments no result feeds as they were initialized.
/// Bufferization writes into a writable argument's buffer (a matmul
/// accumulating into it, a loop carrying it), so those of tensor type are
/// marked read-only, and bufferization copies one only where a step writes
/// it. An argument fed back may be updated in place: the result overwrites
/// it anyway. A memref argument is the program's buffer, which it may store
/// into: the run restores those that no result feeds before every step.
void Runner::protectArguments() {
  impl->restoredArguments.assign(signature.arguments.size(), false);
  auto entry = module.lookupSymbol<func::FuncOp>(signature.name);
  for (auto [i, spec] : llvm::enumerate(signature.arguments)) {
    if (!spec.isBuffer || signature.feedsBack(i))
      continue;
    if (!entry || !isa<TensorType>(entry.getArgumentTypes()[i])) {
      impl->restoredArguments[i] = true;
      continue;
    }
    entry.setArgAttr(i, bufferization::BufferizationDialect::kWritableAttrName,
                     BoolAttr::get(module->getContext(), false));
  }
}

llvm::Error Runner::jit() {
  if (llvm::Error error = lower())
    return error;
  if (failed(checkDeclarationsResolve(module)))
    return llvm::make_error<DiagnosedError>();
  // Lowering alone needs no GPU; running does.
  if (options.backend == RunnerBackend::NCCL) {
    if (precrtBackendAvailable(PRECRT_BACKEND_NCCL) != PRECRT_SUCCESS)
      return makeError(llvm::Twine("the nccl backend: ") +
                       precrtGetLastErrorMessage());
    if (precrt_status_t status = precrtGpuGetDeviceCount(&impl->deviceCount))
      return makeError(llvm::Twine("the nccl backend: ") +
                       precrtStatusName(status) + ": " +
                       precrtGetLastErrorMessage());
  }
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  // The target is checked here, where every backend passes, and what the
  // host lacks of it is remembered for run.
  auto target =
      prec::detail::getJITTargetMachineBuilder(options, impl->missingOnHost);
  if (!target)
    return target.takeError();
  // GPU binaries load into the device of the thread that runs the module's
  // constructors: every rank compiles on its own thread (run). Host code
  // alone loads into no GPU context: one engine serves every rank, as on
  // CPUs.
  impl->compilesOnRanks = options.backend == RunnerBackend::NCCL &&
                          !module.getOps<gpu::BinaryOp>().empty();
  if (impl->compilesOnRanks) {
    impl->compiled = true;
    return llvm::Error::success();
  }
  if (llvm::Error error = prec::detail::compileForHost(
          module, signature.name, options, impl->engine, impl->entry))
    return error;
  // The gemm library loads now rather than inside the first step, which
  // profiling would count as gemm time.
  if (module.lookupSymbol(PRECRT_COMPILED_MATMUL_SYMBOL))
    (void)precrtCompiledMatmulKernel();
  impl->compiled = true;
  return llvm::Error::success();
}

bool Runner::compilesOnRanks() const { return impl->compilesOnRanks; }

llvm::Error Runner::dumpObject(StringRef path) {
  if (!impl->engine)
    return makeError("no host object to write: call jit() first (a module "
                     "with GPU binaries compiles on each rank when it runs)");
  if (!options.keepObject)
    return makeError("the runner was created without keepObject");
  // A file left from before must not pass for this one.
  (void)llvm::sys::fs::remove(path);
  impl->engine->dumpToObjectFile(path);
  if (!llvm::sys::fs::exists(path))
    return makeError("cannot write the object file " + path);
  return llvm::Error::success();
}
