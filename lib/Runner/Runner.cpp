//===- Runner.cpp - run lowered prec programs on local ranks --------------===//
//
// The small core of what prec-run does for CPU ranks, for embedders: one JIT
// compilation shared by rank threads of the runtime's local backend, buffers
// passed as memref descriptors, and the runtime's per-rank failures reported
// as errors.
//
//===----------------------------------------------------------------------===//

#include "prec-c/Runner.h"

#include "precrt/compiled.h"
#include "precrt/precrt.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/CRunnerUtils.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

#include "llvm/ExecutionEngine/Orc/Mangling.h"
#include "llvm/Support/TargetSelect.h"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

using namespace mlir;

namespace {

/// Everything the rank threads share.
struct LocalRun {
  void (*entry)(void **) = nullptr;
  int32_t numRanks = 0;
  const PrecBuffer *arguments = nullptr;
  intptr_t numArguments = 0;
  const PrecBuffer *results = nullptr;
  intptr_t numResults = 0;
  std::mutex mutex;
  std::string error; // the first rank's failure
};

void recordFailure(LocalRun &run, int32_t rank, const std::string &message) {
  std::lock_guard<std::mutex> lock(run.mutex);
  if (run.error.empty())
    run.error = "rank " + std::to_string(rank) + ": " + message;
}

/// A memref descriptor {allocated, aligned, offset, sizes, strides} of a
/// dense row-major buffer.
std::vector<int64_t> describe(const PrecBuffer &buffer) {
  auto address = reinterpret_cast<int64_t>(buffer.data);
  std::vector<int64_t> fields = {address, address, 0};
  fields.insert(fields.end(), buffer.sizes, buffer.sizes + buffer.rank);
  std::vector<int64_t> strides(buffer.rank);
  int64_t stride = 1;
  for (int32_t d = buffer.rank - 1; d >= 0; --d) {
    strides[d] = stride;
    stride *= buffer.sizes[d];
  }
  fields.insert(fields.end(), strides.begin(), strides.end());
  return fields;
}

int64_t countElements(const PrecBuffer &buffer) {
  int64_t count = 1;
  for (int32_t d = 0; d < buffer.rank; ++d)
    count *= buffer.sizes[d];
  return count;
}

int runRank(precrt_comm_t world, void *userData) {
  auto &run = *static_cast<LocalRun *>(userData);
  int32_t rank = 0;
  precrtCommRank(world, &rank);
  precrtCompiledClearError();

  // Pack: one pointer per scalar of every descriptor, then the results.
  std::vector<std::vector<int64_t>> descriptors;
  for (intptr_t i = 0; i < run.numArguments; ++i)
    descriptors.push_back(describe(run.arguments[rank * run.numArguments + i]));
  std::vector<int64_t> resultFields;
  for (intptr_t j = 0; j < run.numResults; ++j)
    resultFields.resize(resultFields.size() + 3 +
                        2 * run.results[rank * run.numResults + j].rank);
  std::vector<void *> pointers;
  for (std::vector<int64_t> &descriptor : descriptors)
    for (int64_t &field : descriptor)
      pointers.push_back(&field);
  if (run.numResults)
    pointers.push_back(resultFields.data());
  run.entry(pointers.data());
  if (const char *error = precrtCompiledGetError()) {
    recordFailure(run, rank, error);
    return 1;
  }

  // Copy each returned buffer out, then free it unless it is an argument.
  std::vector<void *> freed;
  int64_t *field = resultFields.data();
  int status = 0;
  for (intptr_t j = 0; j < run.numResults; ++j) {
    const PrecBuffer &result = run.results[rank * run.numResults + j];
    auto *allocated = reinterpret_cast<void *>(field[0]);
    auto *aligned = reinterpret_cast<char *>(field[1]);
    int64_t offset = field[2];
    const int64_t *sizes = field + 3;
    const int64_t *strides = sizes + result.rank;
    bool dense = true;
    int64_t expectedStride = 1;
    for (int32_t d = result.rank - 1; d >= 0; --d) {
      if (sizes[d] != result.sizes[d]) {
        recordFailure(run, rank,
                      "result " + std::to_string(j) + " has size " +
                          std::to_string(sizes[d]) + " in dimension " +
                          std::to_string(d) + ", the caller's buffer " +
                          std::to_string(result.sizes[d]));
        status = 1;
      }
      dense &= sizes[d] == 1 || strides[d] == expectedStride;
      expectedStride *= sizes[d];
    }
    if (status == 0 && !dense) {
      recordFailure(run, rank,
                    "result " + std::to_string(j) + " is not dense row-major");
      status = 1;
    }
    if (status == 0)
      std::memcpy(result.data, aligned + offset * result.elementBytes,
                  countElements(result) * result.elementBytes);
    bool isArgument = false;
    for (intptr_t i = 0; i < run.numArguments; ++i)
      isArgument |= run.arguments[rank * run.numArguments + i].data ==
                    static_cast<void *>(aligned);
    if (!isArgument &&
        std::find(freed.begin(), freed.end(), allocated) == freed.end()) {
      freed.push_back(allocated);
      free(allocated);
    }
    field += 3 + 2 * result.rank;
  }
  return status;
}

/// Checks the buffers against the entry's lowered parameters: a memref of
/// rank r is 3 + 2r of them.
LogicalResult checkSignature(LLVM::LLVMFuncOp function,
                             const PrecBuffer *arguments, intptr_t numArguments,
                             std::string &error) {
  unsigned expected = 0;
  for (intptr_t i = 0; i < numArguments; ++i)
    expected += 3 + 2 * arguments[i].rank;
  unsigned found = function.getNumArguments();
  if (expected == found)
    return success();
  error = "@" + function.getSymName().str() + " takes " +
          std::to_string(found) + " lowered parameters, the " +
          std::to_string(numArguments) + " buffers given describe " +
          std::to_string(expected);
  return failure();
}

} // namespace

MlirLogicalResult
precRunOnLocalRanks(MlirModule module, MlirStringRef entry, int32_t numRanks,
                    const PrecBuffer *arguments, intptr_t numArguments,
                    const PrecBuffer *results, intptr_t numResults, char *error,
                    intptr_t errorSize) {
  std::string message;
  auto fail = [&]() {
    if (error && errorSize > 0) {
      std::strncpy(error, message.c_str(), errorSize - 1);
      error[errorSize - 1] = '\0';
    }
    return mlirLogicalResultFailure();
  };
  if (numRanks <= 0 || numArguments < 0 || numResults < 0) {
    message = "expected a positive number of ranks and no negative counts";
    return fail();
  }
  ModuleOp lowered = unwrap(module);
  StringRef entryName = unwrap(entry);
  auto function = lowered.lookupSymbol<LLVM::LLVMFuncOp>(entryName);
  if (!function || function.isExternal()) {
    message = "no lowered function @" + entryName.str() +
              " with a body (run prec-lower-to-cpu first)";
    return fail();
  }
  if (failed(checkSignature(function, arguments, numArguments, message)))
    return fail();

  // Translation to LLVM IR needs the interfaces of every dialect left.
  DialectRegistry translations;
  registerAllToLLVMIRTranslations(translations);
  lowered->getContext()->appendDialectRegistry(translations);
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  ExecutionEngineOptions options;
  auto transformer = makeOptimizingTransformer(3, 0, nullptr);
  options.transformer = transformer;
  auto engine = ExecutionEngine::create(lowered, options);
  if (!engine) {
    message = "JIT compilation failed: " + llvm::toString(engine.takeError());
    return fail();
  }
  (*engine)->registerSymbols([](llvm::orc::MangleAndInterner interner) {
    llvm::orc::SymbolMap symbols;
    auto bind = [&](StringRef name, auto *function) {
      symbols[interner(name)] = {llvm::orc::ExecutorAddr::fromPtr(function),
                                 llvm::JITSymbolFlags::Exported};
    };
    bind("memrefCopy", &memrefCopy);
    bind(PRECRT_COMPILED_COLLECTIVE_SYMBOL, &precrtCompiledCollective);
    bind(PRECRT_COMPILED_WORLD_RANK_SYMBOL, &precrtCompiledWorldRank);
    bind(PRECRT_COMPILED_GRID_RANK_SYMBOL, &precrtCompiledGridRank);
    return symbols;
  });
  (*engine)->initialize();
  auto packed = (*engine)->lookupPacked(entryName);
  if (!packed) {
    message = llvm::toString(packed.takeError());
    return fail();
  }

  LocalRun run;
  run.entry = *packed;
  run.numRanks = numRanks;
  run.arguments = arguments;
  run.numArguments = numArguments;
  run.results = results;
  run.numResults = numResults;
  precrt_status_t status = precrtLocalRun(numRanks, runRank, &run);
  if (!run.error.empty()) {
    message = run.error;
    return fail();
  }
  if (status != PRECRT_SUCCESS) {
    message = std::string(precrtStatusName(status)) + ": " +
              precrtGetLastErrorMessage();
    return fail();
  }
  return mlirLogicalResultSuccess();
}
