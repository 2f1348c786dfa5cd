//===- prec-run.cpp - run a prec program on N ranks -----------------------===//
//
// A command line over the runner library (prec/Runner/Runner.h): parses the
// module, has the runner lower it with prec-lower-to-cpu (prec-lower-to-cuda
// on the nccl backend, or the registered pipeline --pipeline names) and
// JIT-compile it once, and runs its entry function
// on every rank: N threads of this process on the local backend, one
// process per rank under mpirun on the MPI backend, or one GPU per rank.
//
// Options.cpp holds the options, Arguments.cpp where arguments come from
// (--seed, --scalar, --arg, --replicate) and the files of --output-dir,
// Printing.cpp what is printed; this file compiles and runs, with a
// RunObserver that initializes each rank's arguments and prints its
// results.
//
//===----------------------------------------------------------------------===//

#include "Arguments.h"
#include "Options.h"
#include "Printing.h"
#include "Traffic.h"

#include "prec/Dialect/Prec/IR/EntryAttrs.h"
#include "prec/Gradients/GenerateBackward.h"
#include "prec/InitAllDialects.h"
#include "prec/InitAllPasses.h"
#include "prec/Runner/Checkpoint.h"
#include "prec/Runner/Runner.h"
#include "prec/Version.h"

#include "precrt/gpu.h"
#include "precrt/precrt.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/AsmParser/AsmParserState.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cstdlib>
#include <map>
#include <mutex>
#include <optional>
#include <set>

#ifdef PREC_INCLUDE_TESTS
namespace mlir::prec::test {
void registerTestPasses();
} // namespace mlir::prec::test
#endif

using namespace mlir;
using namespace prec_run;

namespace {

/// Most ranks the local backend runs, one thread each.
constexpr int kMaxLocalRanks = 1024;

/// Reports `error` unless its diagnostics were printed already.
void reportError(llvm::Error error) {
  llvm::handleAllErrors(
      std::move(error), [](const prec::DiagnosedError &) {},
      [](const llvm::ErrorInfoBase &info) {
        llvm::errs() << "prec-run: error: " << info.message() << "\n";
      });
}

/// Gives every argument of a public function that has no `prec.name` the
/// SSA name it has in the source (`%lr`: "lr"), which MLIR's parser does
/// not keep in the IR; `parserState` recorded where each was defined.
void nameArgumentsFromSource(ModuleOp module,
                             const AsmParserState &parserState) {
  for (auto function : module.getOps<func::FuncOp>()) {
    if (function.isExternal() || function.isPrivate())
      continue;
    const AsmParserState::BlockDefinition *definition =
        parserState.getBlockDef(&function.getBody().front());
    if (!definition)
      continue;
    Builder builder(module.getContext());
    for (auto [i, argument] : llvm::enumerate(definition->arguments)) {
      if (i >= function.getNumArguments() ||
          function.getArgAttr(i, prec::kNameAttrName))
        continue;
      const char *start = argument.loc.Start.getPointer();
      const char *end = argument.loc.End.getPointer();
      if (!start || end <= start)
        continue;
      StringRef name = StringRef(start, end - start).ltrim('%');
      // Names as prec.name takes them; %0 stays a position.
      if (name.empty() || llvm::isDigit(name[0]) ||
          !llvm::all_of(name, [](char c) {
            return llvm::isAlnum(c) || c == '_' || c == '.' || c == '-';
          }))
        continue;
      function.setArgAttr(i, prec::kNameAttrName,
                          builder.getStringAttr(name));
    }
  }
}

/// The element type of `spec`: `bf16` of `tensor<4x8xbf16>`.
std::string getDtypeName(const prec::ValueSpec &spec) {
  StringRef type = spec.typeName;
  if (!spec.isBuffer)
    return type.str();
  // Between `tensor<` (`memref<`) and the closing `>`, after the extents.
  type = type.drop_until([](char c) { return c == '<'; }).drop_front();
  type = type.take_until([](char c) { return c == ',' || c == '>'; });
  return type.rsplit('x').second.empty() ? type.str()
                                         : type.rsplit('x').second.str();
}

/// The role of argument `index`: fed back by a result, or the same at every
/// step (data), or a scalar.
std::string getRole(const prec::EntrySignature &signature, unsigned index) {
  if (signature.feedsBack(index))
    return "state";
  return signature.arguments[index].isBuffer ? "data" : "scalar";
}

/// --list-args: the entry function's arguments and results, one a line.
void listArguments(const prec::EntrySignature &signature) {
  auto &os = llvm::outs();
  os << "@" << signature.name << ": " << signature.arguments.size()
     << " arguments, " << signature.results.size() << " results\n";
  size_t nameWidth = 4, typeWidth = 4;
  for (const auto *list : {&signature.arguments, &signature.results})
    for (const prec::ValueSpec &spec : *list) {
      nameWidth = std::max(nameWidth, spec.name.size());
      typeWidth = std::max(typeWidth, spec.typeName.size());
    }
  auto row = [&](StringRef position, StringRef name, StringRef type,
                 StringRef role, StringRef notes) {
    std::string line;
    llvm::raw_string_ostream row(line);
    row << "  " << llvm::left_justify(position, 9)
        << llvm::left_justify(name, nameWidth + 1)
        << llvm::left_justify(type, typeWidth + 1) << llvm::left_justify(role, 7)
        << notes;
    os << StringRef(line).rtrim() << "\n";
  };
  row("argument", "name", "type", "role", "");
  for (auto [i, spec] : llvm::enumerate(signature.arguments)) {
    std::string notes;
    if (signature.feedsBack(i))
      notes = "fed back by result " + std::to_string(i);
    if (!spec.defaultValue.empty())
      notes += (notes.empty() ? "" : ", ") + ("default " + spec.defaultValue);
    else if (!spec.isBuffer)
      notes += (notes.empty() ? "" : ", ") +
               ("required: --scalar " + spec.name + "=VALUE");
    row(std::to_string(i), spec.name, spec.typeName, getRole(signature, i),
        notes);
  }
  row("result", "name", "type", "", "");
  for (auto [i, spec] : llvm::enumerate(signature.results))
    row(std::to_string(i), spec.name, spec.typeName, "",
        signature.feedsBack(i) ? "feeds argument " + std::to_string(i) : "");
}

/// Writes DIR/manifest.json: every argument and result with its name, type,
/// dtype, shape and the file of each rank.
llvm::Error writeManifest(const prec::EntrySignature &signature,
                          int64_t ranks) {
  using llvm::json::Array;
  using llvm::json::Object;
  auto describe = [&](const prec::ValueSpec &spec, unsigned index,
                      StringRef fileKind) {
    Array shape, files;
    for (int64_t extent : spec.shape)
      shape.push_back(extent);
    for (int64_t rank = 0; rank < ranks; ++rank)
      files.push_back("rank" + std::to_string(rank) + "_" + fileKind.str() +
                      std::to_string(index) + ".bin");
    return Object{{"index", index},
                  {"name", spec.name},
                  {"type", spec.typeName},
                  {"dtype", getDtypeName(spec)},
                  {"shape", std::move(shape)},
                  {"bytes", static_cast<int64_t>(spec.bytes())},
                  {"files", std::move(files)}};
  };
  Array arguments, results;
  for (auto [i, spec] : llvm::enumerate(signature.arguments)) {
    Object object = describe(spec, i, "arg");
    object["role"] = getRole(signature, i);
    if (!spec.defaultValue.empty())
      object["default"] = spec.defaultValue;
    arguments.push_back(std::move(object));
  }
  for (auto [i, spec] : llvm::enumerate(signature.results)) {
    Object object = describe(spec, i, "result");
    if (signature.feedsBack(i))
      object["feeds_argument"] = static_cast<int64_t>(i);
    results.push_back(std::move(object));
  }
  llvm::json::Value manifest =
      Object{{"entry", signature.name},
             {"ranks", ranks},
             {"steps", numSteps.getValue()},
             {"arguments", std::move(arguments)},
             {"results", std::move(results)}};
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::formatv("{0:2}", manifest) << "\n";
  return writeRaw(outputDir + "/manifest.json", text.data(), text.size());
}

/// "rank N: " in a process of a job that mpirun started with several
/// processes, so that the job's progress and timing lines say whose they are.
std::string rankLabel() {
  static const std::string label = [] {
    std::optional<int64_t> size = prec::getMpiWorldSize();
    std::optional<int64_t> rank = prec::getMpiWorldRank();
    if (!size || *size < 2 || !rank)
      return std::string();
    return "rank " + std::to_string(*rank) + ": ";
  }();
  return label;
}

/// Initializes each rank's arguments as the options say, and collects what
/// each rank prints.
class CommandLineObserver : public prec::RunObserver {
public:
  CommandLineObserver(const prec::Runner &runner, const ArgumentPlan &plan)
      : signature(runner.getSignature()), plan(plan),
        ranksAreThreads(runner.ranksAreThreads()) {
    if (!savePath.empty())
      saver = std::make_unique<prec::CheckpointSaver>(signature);
  }

  llvm::Error initializeArgument(int32_t rank, unsigned index,
                                 void *data) override {
    return prec_run::initializeArgument(signature, plan, index, rank, data);
  }

  llvm::Error updateArgument(int32_t rank, int step, unsigned index, void *data,
                             bool &updated) override {
    updated = plan.data.count(index);
    if (!updated)
      return llvm::Error::success();
    return readStepData(signature, plan, index, step, rank, data);
  }

  /// --save under mpirun: each rank's part goes to rank 0.
  std::string takeRankData(int32_t rank) override {
    std::lock_guard<std::mutex> lock(mutex);
    std::string part = std::move(checkpointParts[rank]);
    checkpointParts.erase(rank);
    return part;
  }

  llvm::Error receiveRankData(ArrayRef<std::string> parts) override {
    if (!saver)
      return llvm::Error::success();
    for (auto [rank, part] : llvm::enumerate(parts))
      if (llvm::Error error = saver->addRankPart(rank, part))
        return error;
    return llvm::Error::success();
  }

  /// --save, in the process of rank 0 after a successful run.
  llvm::Error writeCheckpoint() {
    if (!saver || !hasRank(0))
      return llvm::Error::success();
    return saver->write(savePath);
  }

  llvm::Error argumentsInitialized(int32_t rank,
                                   ArrayRef<const void *> args) override {
    if (rank == 0)
      runStart = lastReport = lastStepEnd = std::chrono::steady_clock::now();
    {
      std::lock_guard<std::mutex> lock(mutex);
      ranksHere.insert(rank);
    }
    if (outputDir.empty())
      return llvm::Error::success();
    for (auto [i, spec] : llvm::enumerate(signature.arguments))
      if (llvm::Error error =
              writeRaw(outputDir + "/rank" + std::to_string(rank) + "_arg" +
                           std::to_string(i) + ".bin",
                       args[i], spec.bytes()))
        return error;
    return llvm::Error::success();
  }

  llvm::Error stepFinished(int32_t rank, int step, int numSteps,
                           prec::RankResults &results) override {
    if (rank != 0)
      return llvm::Error::success();
    reportProgress(step, numSteps);
    // Scalars and rank-0 tensors (a loss) are reported at every step.
    if (printMode == "none" || numSteps == 1)
      return llvm::Error::success();
    for (auto [i, spec] : llvm::enumerate(signature.results))
      if (!spec.isBuffer || spec.shape.empty()) {
        llvm::Expected<const void *> value = results.getHostResult(i);
        if (!value)
          return value.takeError();
        addLine(rank, llvm::formatv("step {0}: result {1} = {2}", step, i,
                                    formatElement(spec, *value, 0)));
      }
    return llvm::Error::success();
  }

  llvm::Error runFinished(int32_t rank, prec::RankResults &results,
                          const prec::RankProfile &profile) override {
    if (saver && ranksAreThreads) {
      if (llvm::Error error = saver->addRank(rank, results))
        return error;
    } else if (saver) {
      llvm::Expected<std::string> part = saver->takeRankPart(rank, results);
      if (!part)
        return part.takeError();
      std::lock_guard<std::mutex> lock(mutex);
      checkpointParts[rank] = std::move(*part);
    }
    if (profileSteps)
      addLine(rank, describeProfile(rank, profile));
    if (trafficRequested())
      addLine(rank, trafficFull()
                        ? describeTraffic(rank)
                        : summarizeTraffic(rank, rank == 0 ? compilerTraffic
                                                           : std::string()));
    for (auto [i, spec] : llvm::enumerate(signature.results)) {
      llvm::Expected<const void *> value = results.getHostResult(i);
      if (!value)
        return value.takeError();
      if (printMode != "none")
        addLine(rank, llvm::formatv(
                          "rank {0}: result {1}: {2}", rank, i,
                          formatValues(spec, *value, printMode == "values")));
      if (!outputDir.empty())
        if (llvm::Error error =
                writeRaw(outputDir + "/rank" + std::to_string(rank) +
                             "_result" + std::to_string(i) + ".bin",
                         *value, spec.bytes()))
          return error;
    }
    return llvm::Error::success();
  }

  /// Under mpirun, rank 0 prints every rank's lines (report() prints the
  /// ranks' own otherwise).
  std::string takeRankReport(int32_t rank) override {
    std::lock_guard<std::mutex> lock(mutex);
    std::string text;
    for (const std::string &line : outcomes[rank].lines)
      text += line + "\n";
    outcomes[rank].lines.clear();
    return text;
  }

  void printRankReports(ArrayRef<std::string> reports) override {
    std::string text;
    for (const std::string &report : reports)
      text += report;
    llvm::outs() << text;
    llvm::outs().flush();
  }

  void rankCompiled(int32_t rank, double seconds) override {
    if (rank == 0 || !ranksAreThreads)
      llvm::errs() << llvm::formatv("prec-run: {0}compiled @{1} in {2:f2} s\n",
                                    rankLabel(), signature.name, seconds)
                          .str();
  }

  void rankFailed(int32_t rank, StringRef message) override {
    RankOutcome outcome;
    {
      std::lock_guard<std::mutex> lock(mutex);
      outcomes[rank].error = message.str();
      outcome = outcomes[rank];
    }
    // A process of mpirun that failed leaves at once: finalizing MPI would
    // wait for peers that may wait in a collective for this rank until the
    // timeout, while mpirun ends the whole job when a process exits with a
    // failure.
    if (!ranksAreThreads) {
      reportOutcome(rank, outcome);
      llvm::outs().flush();
      std::_Exit(1);
    }
  }

  /// Prints what the ranks printed, in rank order, then their errors: first
  /// the ranks' own, then those of ranks that only saw a peer exit, so a
  /// cause precedes its echoes. On the MPI backend, each process holds (and
  /// writes) its own rank only. Returns whether a rank failed.
  bool report() {
    auto isEcho = [](const RankOutcome &outcome) {
      return StringRef(outcome.error)
          .contains(" exited while the others waited");
    };
    bool failedRank = false;
    for (auto &[rank, outcome] : outcomes)
      if (outcome.error.empty() || !isEcho(outcome))
        failedRank |= reportOutcome(rank, outcome);
    for (auto &[rank, outcome] : outcomes)
      if (!outcome.error.empty() && isEcho(outcome))
        failedRank |= reportOutcome(rank, outcome);
    return failedRank;
  }

  /// Whether `rank` ran in this process.
  bool hasRank(int32_t rank) const { return ranksHere.count(rank); }

private:
  void addLine(int32_t rank, std::string line) {
    std::lock_guard<std::mutex> lock(mutex);
    outcomes[rank].lines.push_back(std::move(line));
  }

  /// Long runs say how far they got, at most once a second, on stderr.
  void reportProgress(int step, int numSteps) {
    auto now = std::chrono::steady_clock::now();
    // Every step's own time, for medians: the progress below is sampled.
    if (stepTimes) {
      llvm::errs()
          << llvm::formatv(
                 "prec-run: {0}step {1}/{2} took {3:f6} s\n", rankLabel(),
                 step + 1, numSteps,
                 std::chrono::duration<double>(now - lastStepEnd).count())
                 .str();
      lastStepEnd = now;
    }
    if (numSteps == 1 ||
        (now - lastReport < std::chrono::seconds(1) && step + 1 < numSteps))
      return;
    lastReport = now;
    llvm::errs() << llvm::formatv(
                        "prec-run: {0}step {1}/{2} after {3:f2} s\n",
                        rankLabel(), step + 1, numSteps,
                        std::chrono::duration<double>(now - runStart).count())
                        .str();
  }

  const prec::EntrySignature &signature;
  const ArgumentPlan &plan;
  bool ranksAreThreads;
  std::mutex mutex;
  std::map<int32_t, RankOutcome> outcomes;
  std::set<int32_t> ranksHere;
  std::unique_ptr<prec::CheckpointSaver> saver;
  std::map<int32_t, std::string> checkpointParts;

public:
  /// The entry function's remark of prec-report-traffic, less its prefix.
  std::string compilerTraffic;
  /// Rank 0's progress.
  std::chrono::steady_clock::time_point runStart, lastReport, lastStepEnd;
};

/// Checks the number of ranks of this process's run against the module's
/// grids before anything is compiled.
LogicalResult checkRanks(const prec::Runner &runner) {
  std::optional<int64_t> mpiWorldSize = prec::getMpiWorldSize();
  llvm::Error error = llvm::Error::success();
  if (runner.ranksAreThreads()) {
    int ranks = runner.getNumRanks();
    if (ranks < 1) {
      llvm::errs() << "prec-run: error: give the number of ranks with "
                      "--ranks (the module does not have exactly one "
                      "grid of static size)\n";
      return failure();
    }
    if (backendName == "local" && ranks > kMaxLocalRanks) {
      llvm::errs() << "prec-run: error: " << ranks
                   << " ranks: the local backend runs every rank as a "
                      "thread of one process, at most "
                   << kMaxLocalRanks << "; run more under mpirun\n";
      return failure();
    }
    error = runner.checkRanks(ranks, "--ranks " + std::to_string(ranks));
  } else if (mpiWorldSize) {
    error = runner.checkRanks(*mpiWorldSize,
                              "mpirun -np " + std::to_string(*mpiWorldSize));
  } else if (!prec::launchedByMpi()) {
    error = runner.checkRanks(1, "one process: start it under mpirun");
  } // else a launcher that does not say the size: the runtime checks.
  if (!error)
    return success();
  reportError(std::move(error));
  return failure();
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  prec::registerPrecPasses();
#ifdef PREC_INCLUDE_TESTS
  prec::test::registerTestPasses();
#endif
  llvm::cl::HideUnrelatedOptions(runCategory);
  llvm::cl::SetVersionPrinter([](llvm::raw_ostream &os) {
    prec::printVersion(os, "prec-run");
    os << "  runtime API " << PRECRT_API_VERSION << "\n";
  });
  llvm::cl::ParseCommandLineOptions(
      argc, argv, "prec-run: run a prec program on N ranks\n");
  if (failed(checkOptions()))
    return 1;

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
  // Parsed as parseSourceFile does, keeping where the SSA names were, and
  // verified only once the backward functions it calls are declared.
  AsmParserState parserState;
  Block parsed;
  ParserConfig config(&context, /*verifyAfterParse=*/false);
  if (failed(parseAsmSourceFile(sourceMgr, &parsed, config, &parserState)))
    return 1;
  OwningOpRef<ModuleOp> module =
      detail::constructContainerOpForParserIfNecessary<ModuleOp>(
          &parsed, &context,
          FileLineColLoc::get(&context,
                              sourceMgr.getMemoryBuffer(1)->getBufferIdentifier(),
                              0, 0));
  if (!module || failed(prec::declareCalledBackwardFunctions(*module)) ||
      failed(verify(*module)))
    return 1;
  nameArgumentsFromSource(*module, parserState);

  if (backendName != "local" && backendName != "mpi" && backendName != "nccl") {
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
  // Say what is missing (the CUDA driver, NCCL, a GPU) before anything
  // starts; lowering alone (--dump-lowered) needs none of it.
  int32_t deviceCount = 0;
  // Compiling alone (--dump-lowered, --dump-object) runs nothing.
  bool compileOnly = dumpLowered || !dumpObject.empty();
  if (backendName == "nccl" && !compileOnly) {
    if (precrtBackendAvailable(PRECRT_BACKEND_NCCL) != PRECRT_SUCCESS) {
      llvm::errs() << "prec-run: error: --backend nccl: "
                   << precrtGetLastErrorMessage() << "\n";
      return 1;
    }
    if (precrt_status_t status = precrtGpuGetDeviceCount(&deviceCount)) {
      llvm::errs() << "prec-run: error: --backend nccl: "
                   << precrtStatusName(status) << ": "
                   << precrtGetLastErrorMessage() << "\n";
      return 1;
    }
  }
  std::optional<int64_t> mpiWorldSize = prec::getMpiWorldSize();
  if (backendName == "local" && mpiWorldSize.value_or(1) > 1) {
    llvm::errs() << "prec-run: error: started by mpirun as one of "
                 << *mpiWorldSize
                 << " processes, but the local backend runs every rank in one "
                    "process: add --backend mpi\n";
    return 1;
  }

  auto started = std::chrono::steady_clock::now();
  auto created = prec::Runner::create(*module, getRunnerOptions());
  if (!created) {
    reportError(created.takeError());
    return 1;
  }
  prec::Runner &runner = **created;
  if (listArgs) {
    listArguments(runner.getSignature());
    return 0;
  }
  // What needs no compiling is checked before compiling.
  ArgumentPlan plan;
  if (runner.ranksAreThreads()) {
    plan.worldRanks = runner.getNumRanks();
    for (int32_t rank = 0; rank < runner.getNumRanks(); ++rank)
      plan.ranksHere.push_back(rank);
  } else {
    plan.worldRanks = prec::getMpiWorldSize().value_or(1);
    plan.ranksHere.push_back(prec::getMpiWorldRank().value_or(0));
  }
  if (!compileOnly) {
    if (failed(parseArgumentOptions(runner.getSignature(), plan)))
      return 1;
    if (!outputDir.empty())
      if (std::error_code code = llvm::sys::fs::create_directories(outputDir)) {
        llvm::errs() << "prec-run: error: cannot create --output-dir "
                     << outputDir << ": " << code.message() << "\n";
        return 1;
      }
    if (failed(checkRanks(runner)) ||
        failed(checkMemory(runner.getSignature(), runner.ranksAreThreads()
                                                      ? runner.getNumRanks()
                                                      : 1)))
      return 1;
  }
  auto loweringStarted = std::chrono::steady_clock::now();
  // --traffic: the remarks of prec-report-traffic on each op and function
  // are --traffic=full's; the summary keeps the entry function's, callees
  // included, and shows it beside the runtime's counts.
  std::string compilerTraffic;
  {
    std::string entryPrefix = "traffic: @" + runner.getSignature().name + ": ";
    ScopedDiagnosticHandler trafficFilter(&context, [&](Diagnostic &diag) {
      if (!trafficRequested() || trafficFull() ||
          diag.getSeverity() != DiagnosticSeverity::Remark)
        return failure();
      std::string message = diag.str();
      if (!StringRef(message).starts_with("traffic: "))
        return failure();
      if (!StringRef(message).starts_with(entryPrefix))
        return success();
      compilerTraffic = message.substr(entryPrefix.size());
      for (const Diagnostic &note : diag.getNotes())
        compilerTraffic += "; " + note.str();
      return success();
    });
    if (llvm::Error error = runner.lower()) {
      reportError(std::move(error));
      return 1;
    }
  }
  auto lowered = std::chrono::steady_clock::now();
  if (dumpLowered) {
    module->print(llvm::outs());
    return 0;
  }
  // NCCL cannot run two ranks of one communicator on one device.
  if (!compileOnly && backendName == "nccl" && runner.ranksAreThreads() &&
      runner.getNumRanks() > deviceCount) {
    llvm::errs() << llvm::formatv(
        "prec-run: error: --backend nccl runs one rank per GPU: {0} "
        "ranks need {0} GPUs, this machine has {1}; run a grid of at most "
        "{1} ranks, or one process per GPU under mpirun\n",
        runner.getNumRanks(), deviceCount);
    return 1;
  }
  auto jitStarted = std::chrono::steady_clock::now();
  if (llvm::Error error = runner.jit()) {
    reportError(std::move(error));
    return 1;
  }
  if (!dumpObject.empty()) {
    if (llvm::Error error = runner.dumpObject(dumpObject)) {
      reportError(std::move(error));
      return 1;
    }
    return 0;
  }
  // GPU binaries: each rank compiles for its device when it starts, and
  // says so (CommandLineObserver::rankCompiled).
  if (!runner.compilesOnRanks()) {
    auto now = std::chrono::steady_clock::now();
    auto seconds = [](auto from, auto to) {
      return std::chrono::duration<double>(to - from).count();
    };
    // One write per line: the processes of mpirun share stderr.
    llvm::errs() << llvm::formatv("prec-run: {0}compiled @{1} in {2:f2} s "
                                  "(lowering {3:f2} s, JIT {4:f2} s)\n",
                                  rankLabel(), runner.getSignature().name,
                                  seconds(started, now),
                                  seconds(loweringStarted, lowered),
                                  seconds(jitStarted, now))
                        .str();
  }

  CommandLineObserver observer(runner, plan);
  observer.compilerTraffic = compilerTraffic;
  started = std::chrono::steady_clock::now();
  llvm::Error runError = runner.run(numSteps, observer);
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started)
          .count();
  // The ranks' failures are in their outcomes already; what is left is the
  // runtime's own.
  std::string runtimeError;
  llvm::handleAllErrors(
      std::move(runError), [](const prec::RankError &) {},
      [&](const llvm::ErrorInfoBase &info) { runtimeError = info.message(); });
  bool failedRank = observer.report();
  if (!runtimeError.empty()) {
    if (!failedRank)
      llvm::errs() << "prec-run: error: " << runtimeError << "\n";
    return 1;
  }
  if (failedRank)
    return 1;
  if (llvm::Error error = observer.writeCheckpoint()) {
    reportError(std::move(error));
    return 1;
  }
  // The process of rank 0 describes what every rank wrote.
  if (!outputDir.empty() && observer.hasRank(0)) {
    int64_t ranks = runner.ranksAreThreads()
                        ? runner.getNumRanks()
                        : prec::getMpiWorldSize().value_or(1);
    if (llvm::Error error = writeManifest(runner.getSignature(), ranks)) {
      reportError(std::move(error));
      return 1;
    }
  }
  llvm::errs() << llvm::formatv("prec-run: {0}{1} step(s) in {2:f3} s\n",
                                rankLabel(), numSteps.getValue(), seconds)
                      .str();
  return 0;
}
