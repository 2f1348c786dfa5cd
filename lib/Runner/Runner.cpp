//===- Runner.cpp - compile a prec program once for N ranks ---------------===//
//
// Preparing and compiling the entry function: its signature before lowering
// (where tensor types still say shapes and element types), the backend's
// lowering pipeline, and one JIT compilation with the runtime's entry points
// bound explicitly.
//
//===----------------------------------------------------------------------===//

#include "RunnerImpl.h"

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
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/TargetSelect.h"

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

llvm::Error RunObserver::stepFinished(int32_t, int, int, RankResults &) {
  return llvm::Error::success();
}

llvm::Error RunObserver::runFinished(int32_t, RankResults &,
                                     const RankProfile &) {
  return llvm::Error::success();
}

void RunObserver::rankCompiled(int32_t, double) {}
void RunObserver::rankFailed(int32_t, llvm::StringRef) {}

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

} // namespace

llvm::Error prec::detail::compileForHost(
    ModuleOp module, StringRef entry, const RunnerOptions &options,
    std::unique_ptr<ExecutionEngine> &engine, void (*&entryFn)(void **)) {
  // Optimize for the host: without its target machine the optimizer has no
  // cost model of the vector units and leaves the kernels' loops scalar.
  auto hostBuilder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!hostBuilder)
    return hostBuilder.takeError();
  auto hostMachine = hostBuilder->createTargetMachine();
  if (!hostMachine)
    return hostMachine.takeError();
  // The options hold a reference to the transformer, which must outlive
  // ExecutionEngine::create.
  // Emulated kernels run tests on small buffers: compiling them fast
  // matters more than running them fast.
  auto optimize = makeOptimizingTransformer(options.gpuEmulation ? 1 : 3, 0,
                                            hostMachine->get());
  ExecutionEngineOptions engineOptions;
  engineOptions.transformer = optimize;
  llvm::Expected<std::unique_ptr<ExecutionEngine>> created = [&] {
    std::lock_guard<std::mutex> lock(translationMutex);
    return ExecutionEngine::create(module, engineOptions,
                                   std::move(*hostMachine));
  }();
  if (!created)
    return makeError("JIT compilation failed: " +
                     llvm::toString(created.takeError()));
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

Runner::Runner(ModuleOp module, const RunnerOptions &options)
    : module(module), options(options), impl(std::make_unique<Impl>()) {}

Runner::~Runner() = default;

bool Runner::ranksAreThreads() const {
  return options.backend == RunnerBackend::Local ||
         (options.backend == RunnerBackend::NCCL && !launchedByMpi());
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
      (StringRef(kind) == "argument" ? signature.arguments : signature.results)
          .push_back(*spec);
    }
  return llvm::Error::success();
}

llvm::Expected<std::unique_ptr<Runner>>
Runner::create(ModuleOp module, const RunnerOptions &options) {
  if (options.numRanks < 0)
    return makeError("expected a positive number of ranks (or 0 for the size "
                     "of the module's grid), got " +
                     llvm::Twine(options.numRanks));
  if (isLowered(module))
    return makeError("the module is already lowered; run the module before "
                     "prec-lower-to-cpu (prec-lower-to-cuda) so that prec-run "
                     "knows the tensor signature of its entry function");
  std::unique_ptr<Runner> runner(new Runner(module, options));
  // A policy's output dtype changes the entry's result types: the signature
  // is read after it is applied (the pipeline applies it again, which
  // changes nothing).
  PassManager policy(module->getContext());
  policy.addPass(createPrecApplyPolicy());
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
  if (options.backend == RunnerBackend::NCCL)
    return makeError("a module lowered already runs on CPU backends only");
  if (options.numRanks <= 0 && options.backend == RunnerBackend::Local)
    return makeError("expected a positive number of ranks, got " +
                     llvm::Twine(options.numRanks));
  auto function = module.lookupSymbol<LLVM::LLVMFuncOp>(signature.name);
  if (!function || function.isExternal())
    return makeError("no lowered function @" + signature.name +
                     " with a body (run prec-lower-to-cpu first)");
  // A memref of rank r is 3 + 2r lowered parameters, a scalar one.
  unsigned expected = 0;
  for (const ValueSpec &spec : signature.arguments)
    expected += spec.isBuffer ? 3 + 2 * spec.shape.size() : 1;
  unsigned found = function.getNumArguments();
  if (expected != found)
    return makeError("@" + signature.name + " takes " + llvm::Twine(found) +
                     " lowered parameters, the " +
                     llvm::Twine(signature.arguments.size()) +
                     " buffers given describe " + llvm::Twine(expected));
  std::unique_ptr<Runner> runner(new Runner(module, options));
  runner->signature = std::move(signature);
  runner->numRanks = options.numRanks;
  runner->impl->lowered = true;
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
          "({4})",
          grid.getSymName(), shape, size, ranks, how, ranks == 1 ? "" : "s"));
  }
  return llvm::Error::success();
}

llvm::Error Runner::lower() {
  if (impl->lowered)
    return llvm::Error::success();
  PassManager pm(module->getContext());
  if (options.backend == RunnerBackend::NCCL) {
    PrecLowerToCUDAOptions gpuOptions;
    gpuOptions.chip = options.gpuChip;
    gpuOptions.format = options.gpuFormat;
    gpuOptions.foldCasts = options.fuseKernels;
    gpuOptions.fuseKernels = options.fuseKernels;
    gpuOptions.reportTraffic = options.reportTraffic;
    if (options.gpuEmulation)
      buildPrecLowerToCUDAEmulationPipeline(pm, gpuOptions);
    else
      buildPrecLowerToCUDAPipeline(pm, gpuOptions);
  } else {
    PrecLowerToCPUOptions cpuOptions;
    cpuOptions.fuseKernels = options.fuseKernels;
    cpuOptions.profile = options.profile;
    cpuOptions.gemmContractions = options.gemmContractions;
    cpuOptions.reportTraffic = options.reportTraffic;
    cpuOptions.vectorBits = options.vectorBits;
    cpuOptions.allReduceBlockBytes = options.allReduceBlockBytes;
    cpuOptions.reduceScatterBlockBytes = options.reduceScatterBlockBytes;
    cpuOptions.peerWindows = options.peerWindows;
    buildPrecLowerToCPUPipeline(pm, cpuOptions);
  }
  // Every step reads the same buffers for the arguments no result feeds, so
  // the step must leave them as they are: bufferization then copies where a
  // kernel would write one in place (ConvertElementwiseToLinalg makes an
  // elementwise op's first operand its init).
  if (auto entry = module.lookupSymbol<func::FuncOp>(signature.name))
    for (auto [i, spec] : llvm::enumerate(signature.arguments))
      if (spec.isBuffer && !signature.resultFeedsArgument(i))
        entry.setArgAttr(i,
                         bufferization::BufferizationDialect::kWritableAttrName,
                         BoolAttr::get(module->getContext(), false));
  if (failed(pm.run(module)))
    return llvm::make_error<DiagnosedError>();
  impl->lowered = true;
  return llvm::Error::success();
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
  // Translation to LLVM IR needs the interfaces of every dialect left.
  DialectRegistry translations;
  registerAllToLLVMIRTranslations(translations);
  module->getContext()->appendDialectRegistry(translations);
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  // Real GPUs: every rank compiles on its own thread (run), where the
  // kernels load into its device. Emulated kernels are host code that loads
  // into no GPU context: one engine serves every rank, as on CPUs.
  if (options.backend == RunnerBackend::NCCL && !options.gpuEmulation) {
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
