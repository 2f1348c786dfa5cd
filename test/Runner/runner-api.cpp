//===- runner-api.cpp - the runner's C++ API, its results and errors ------===//
// REQUIRES: prec-run
// RUN: prec-runner-test 2>&1 | FileCheck %s
//
// An all-reduce step (bf16 wire, f32 accumulation) compiled once by
// prec::Runner and run on 4 local ranks with arguments from the generator
// prec-run uses; results are compared with float64 sums of the same
// arguments, within the tolerance the dtypes give. Failures are values: a
// missing entry, a run before compiling, and a rank whose observer fails,
// after which the same runner runs again.
//
// Arguments that no result feeds keep their values over the steps: a
// reduction into an argument, in a module lowered before the runner saw it
// (every argument writable), and a store into a memref argument, each run
// for 3 steps against the float64 value of the arguments as initialized.
//
// Runner::call: the test's own ranks (precrtRun) call the compiled step on
// their buffers, results checked as above; a call with the wrong number of
// arguments or before jit is an error. RunnerOptions::inspectOptimizedLLVM
// sees the optimized module, and its error fails compilation.
//
//===----------------------------------------------------------------------===//

#include "prec-c/Passes.h"
#include "prec/InitAllDialects.h"
#include "prec/Runner/Runner.h"

#include "mlir/CAPI/Pass.h"
#include "mlir/CAPI/Support.h"
#include "mlir/Pass/PassManager.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"

#include "precrt/precrt.h"

#include <atomic>
#include <cmath>
#include <vector>

using namespace mlir;

namespace {

constexpr int kRanks = 4;
constexpr int kSize = 32;

const char *kStep = R"mlir(
shard.grid @dp(shape = 4)
func.func @step(%x: tensor<32xf32>) -> tensor<32xf32> {
  %sum = prec.all_reduce %x on @dp grid_axes = [0]
           forward_dtype = bf16 acc_dtype = f32
           : tensor<32xf32> -> tensor<32xf32>
  return %sum : tensor<32xf32>
}
)mlir";

/// The results of the step on `data` outside the tolerance, for arguments
/// from the generator with seed 7: each input rounded once to bf16 (2^-8),
/// the f32 sum ((N + 1) 2^-24) and the result rounded once more to bf16 on
/// the all-gather (2^-8), relative to the sum of magnitudes.
int countOutsideSums(const prec::ValueSpec &spec, const void *data) {
  std::vector<std::vector<float>> inputs(kRanks, std::vector<float>(kSize));
  for (int r = 0; r < kRanks; ++r)
    prec::generateArgument(spec, 7, 0, r, false, inputs[r].data());
  const double bf16 = std::ldexp(1.0, -8), f32 = std::ldexp(1.0, -24);
  int outside = 0;
  for (int i = 0; i < kSize; ++i) {
    double sum = 0, magnitude = 0;
    for (int r = 0; r < kRanks; ++r) {
      sum += inputs[r][i];
      magnitude += std::fabs(inputs[r][i]);
    }
    double tolerance =
        (2 * bf16 + bf16 * bf16 + (kRanks + 1) * f32) * magnitude;
    double value = prec::readElement(spec, data, i);
    if (!(std::fabs(value - sum) <= tolerance))
      ++outside;
  }
  return outside;
}

/// Generated arguments; rank `failingRank` fails instead. Counts the
/// results outside the tolerance (countOutsideSums).
class Generated : public prec::RunObserver {
public:
  Generated(const prec::Runner &runner, int failingRank)
      : spec(runner.getSignature().arguments[0]), failingRank(failingRank) {}

  llvm::Error initializeArgument(int32_t rank, unsigned index,
                                 void *data) override {
    if (rank == failingRank)
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "no input for this rank");
    prec::generateArgument(spec, /*seed=*/7, index, rank,
                           /*replicated=*/false, data);
    return llvm::Error::success();
  }

  llvm::Error runFinished(int32_t rank, prec::RankResults &results,
                          const prec::RankProfile &) override {
    llvm::Expected<const void *> data = results.getHostResult(0);
    if (!data)
      return data.takeError();
    outside += countOutsideSums(spec, *data);
    compared += kSize;
    return llvm::Error::success();
  }

  prec::ValueSpec spec;
  int failingRank;
  std::atomic<int> compared{0}, outside{0};
};

/// acc + the column sums of x: a reduction whose init is argument 1.
const char *kColumnSums = R"mlir(
func.func @column_sums(%x: tensor<4x8xf32>, %acc: tensor<8xf32>)
    -> tensor<8xf32> {
  %r = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>],
      iterator_types = ["reduction", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%acc : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}
)mlir";

/// The same sums, stored into a memref argument first: the program writes
/// its own buffer.
const char *kMemrefSums = R"mlir(
func.func @memref_sums(%x: tensor<4x8xf32>, %acc: memref<8xf32>)
    -> tensor<8xf32> {
  %xb = bufferization.to_buffer %x read_only : tensor<4x8xf32> to memref<4x8xf32>
  linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>],
      iterator_types = ["reduction", "parallel"]}
      ins(%xb : memref<4x8xf32>) outs(%acc : memref<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  }
  %r = bufferization.to_tensor %acc restrict : memref<8xf32> to tensor<8xf32>
  return %r : tensor<8xf32>
}
)mlir";

/// Generated arguments of a 4x8 x and an 8-element acc; counts the results
/// outside acc + the column sums of x, 5 terms summed in f32 in any order:
/// off by at most 4 u sum(|terms|) (u = 2^-24).
class ColumnSums : public prec::RunObserver {
public:
  explicit ColumnSums(const prec::Runner &runner)
      : signature(runner.getSignature()) {}

  llvm::Error initializeArgument(int32_t rank, unsigned index,
                                 void *data) override {
    prec::generateArgument(signature.arguments[index], /*seed=*/3, index, rank,
                           /*replicated=*/false, data);
    return llvm::Error::success();
  }

  llvm::Error runFinished(int32_t rank, prec::RankResults &results,
                          const prec::RankProfile &) override {
    llvm::Expected<const void *> data = results.getHostResult(0);
    if (!data)
      return data.takeError();
    std::vector<float> x(32), acc(8);
    prec::generateArgument(signature.arguments[0], 3, 0, rank, false, x.data());
    prec::generateArgument(signature.arguments[1], 3, 1, rank, false,
                           acc.data());
    const double u = std::ldexp(1.0, -24);
    for (int j = 0; j < 8; ++j) {
      double sum = acc[j], magnitude = std::fabs(acc[j]);
      for (int i = 0; i < 4; ++i) {
        sum += x[8 * i + j];
        magnitude += std::fabs(x[8 * i + j]);
      }
      double value = prec::readElement(signature.results[0], *data, j);
      if (!(std::fabs(value - sum) <= 4 * u * magnitude))
        ++outside;
    }
    compared += 8;
    return llvm::Error::success();
  }

  const prec::EntrySignature &signature;
  std::atomic<int> compared{0}, outside{0};
};

/// Runs `runner` for 3 steps on 2 ranks and prints how many results are
/// outside the tolerance.
bool runColumnSums(prec::Runner &runner, llvm::StringRef what) {
  ColumnSums observer(runner);
  if (llvm::Error error = runner.run(3, observer)) {
    llvm::outs() << what << ": " << llvm::toString(std::move(error)) << "\n";
    return false;
  }
  llvm::outs() << what << ": " << observer.compared << " values, "
               << observer.outside << " outside tolerance\n";
  return observer.compared == 16 && observer.outside == 0;
}

/// A module lowered by prec-lower-to-cpu (through the C API's pipeline, as
/// an embedder would), then run by Runner::createLowered.
bool runLoweredColumnSums(MLIRContext &context) {
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(kColumnSums, &context);
  PassManager pm(&context);
  if (mlirLogicalResultIsFailure(
          precAddLowerToCPUPipeline(wrap(static_cast<OpPassManager *>(&pm)),
                                    mlirStringRefCreate("", 0))) ||
      failed(pm.run(*module)))
    return false;
  prec::EntrySignature signature;
  signature.name = "column_sums";
  std::string problem;
  auto f32 = Float32Type::get(&context);
  for (Type type : {Type(RankedTensorType::get({4, 8}, f32)),
                    Type(RankedTensorType::get({8}, f32))})
    signature.arguments.push_back(*prec::getValueSpec(type, problem));
  signature.results.push_back(signature.arguments[1]);
  prec::RunnerOptions options;
  options.numRanks = 2;
  auto runner = prec::Runner::createLowered(*module, signature, options);
  if (!runner) {
    llvm::outs() << llvm::toString(runner.takeError()) << "\n";
    return false;
  }
  return runColumnSums(**runner, "lowered before, 3 steps");
}

bool runMemrefSums(MLIRContext &context) {
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(kMemrefSums, &context);
  prec::RunnerOptions options;
  options.numRanks = 2;
  auto runner = prec::Runner::compile(*module, options);
  if (!runner) {
    llvm::outs() << llvm::toString(runner.takeError()) << "\n";
    return false;
  }
  return runColumnSums(**runner, "memref argument, 3 steps");
}

/// Each rank of the test's own precrtRun calls the step twice on its
/// buffer, between barriers of its own.
struct CallState {
  const prec::Runner *runner;
  std::atomic<int> compared{0}, outside{0}, failed{0};
};

int callRank(precrt_comm_t world, void *userData) {
  auto &state = *static_cast<CallState *>(userData);
  int32_t rank = 0;
  precrtCommRank(world, &rank);
  const prec::ValueSpec &spec = state.runner->getSignature().arguments[0];
  std::vector<float> x(kSize);
  prec::generateArgument(spec, 7, 0, rank, false, x.data());
  void *args[] = {x.data()};
  for (int call = 0; call < 2; ++call) {
    if (precrtBarrier(world) != PRECRT_SUCCESS)
      return ++state.failed, 1;
    prec::CallResults results;
    if (llvm::Error error = state.runner->call(args, results)) {
      llvm::outs() << "rank " << rank << ": "
                   << llvm::toString(std::move(error)) << "\n";
      return ++state.failed, 1;
    }
    state.outside += countOutsideSums(spec, results.get(0));
    state.compared += kSize;
  }
  return 0;
}

bool callOnOwnRanks(const prec::Runner &runner) {
  CallState state{&runner};
  precrt_init_options init{};
  init.backend = PRECRT_BACKEND_LOCAL;
  init.num_local_ranks = kRanks;
  precrt_status_t status = precrtRun(&init, callRank, &state);
  llvm::outs() << "call on " << kRanks << " ranks: " << state.compared
               << " values, " << state.outside << " outside tolerance, "
               << state.failed << " failed\n";
  return status == PRECRT_SUCCESS && state.failed == 0 && state.outside == 0 &&
         state.compared == 2 * kRanks * kSize;
}

/// inspectOptimizedLLVM sees the module the JIT compiles; its error fails
/// the compilation.
bool inspectOptimizedLLVM(MLIRContext &context) {
  bool sawEntry = false;
  for (bool failing : {false, true}) {
    OwningOpRef<ModuleOp> module =
        parseSourceString<ModuleOp>(kColumnSums, &context);
    prec::RunnerOptions options;
    options.numRanks = 1;
    options.inspectOptimizedLLVM =
        [&](const llvm::Module &llvmModule) -> llvm::Error {
      const llvm::Function *entry = llvmModule.getFunction("column_sums");
      sawEntry = entry && !entry->isDeclaration();
      if (failing)
        return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                       "refused by the inspector");
      return llvm::Error::success();
    };
    auto runner = prec::Runner::compile(*module, options);
    llvm::outs() << "inspected, " << (failing ? "failing" : "passing") << ": "
                 << (sawEntry ? "saw @column_sums" : "no @column_sums") << ", "
                 << (runner ? "compiled" : llvm::toString(runner.takeError()))
                 << "\n";
  }
  return sawEntry;
}

} // namespace

int main() {
  DialectRegistry registry;
  registerAllDialects(registry);
  registerAllExtensions(registry);
  prec::registerPrecDialects(registry);
  MLIRContext context(registry);

  {
    OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(kStep, &context);
    prec::RunnerOptions options;
    options.entry = "nowhere";
    auto runner = prec::Runner::compile(*module, options);
    llvm::outs() << "missing entry: "
                 << (runner ? "compiled" : llvm::toString(runner.takeError()))
                 << "\n";
    // CHECK: missing entry: no function @nowhere to run (public functions:
    // @step)
  }

  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(kStep, &context);
  auto created = prec::Runner::create(*module, {});
  if (!created) {
    llvm::outs() << llvm::toString(created.takeError()) << "\n";
    return 1;
  }
  prec::Runner &runner = **created;
  llvm::outs() << "@" << runner.getSignature().name << ": "
               << runner.getNumRanks() << " ranks, "
               << runner.getSignature().arguments[0].typeName << "\n";
  // CHECK: @step: 4 ranks, tensor<32xf32>
  {
    Generated observer(runner, -1);
    llvm::outs() << "before jit: " << llvm::toString(runner.run(1, observer))
                 << "\n";
    // CHECK: before jit: the program is not compiled: call jit() first
    prec::CallResults results;
    float x[kSize] = {};
    void *args[] = {x};
    llvm::outs() << "call before jit: "
                 << llvm::toString(runner.call(args, results)) << "\n";
    // CHECK: call before jit: the program is not compiled: call jit() first
  }
  if (llvm::Error error = runner.jit()) {
    llvm::outs() << llvm::toString(std::move(error)) << "\n";
    return 1;
  }

  // Rank 2 fails: the run returns its error (and those of the ranks left
  // waiting for it), and the process goes on.
  {
    Generated observer(runner, 2);
    llvm::Error error = runner.run(1, observer);
    bool sawRank2 = false;
    int failedRanks = 0;
    llvm::handleAllErrors(std::move(error), [&](const prec::RankError &rank) {
      ++failedRanks;
      if (rank.getRank() == 2)
        sawRank2 = rank.getMessage() == "no input for this rank";
    });
    llvm::outs() << "failing rank: " << failedRanks << " failed, rank 2 "
                 << (sawRank2 ? "says why" : "missing") << "\n";
    // CHECK: failing rank: 4 failed, rank 2 says why
  }

  // The same compiled step, twice more.
  int failures = 0;
  for (int run = 0; run < 2; ++run) {
    Generated observer(runner, -1);
    if (llvm::Error error = runner.run(1, observer)) {
      llvm::outs() << llvm::toString(std::move(error)) << "\n";
      return 1;
    }
    llvm::outs() << "run " << run << ": " << observer.compared << " values, "
                 << observer.outside << " outside tolerance\n";
    failures += observer.outside + (observer.compared != kRanks * kSize);
  }
  // CHECK: run 0: 128 values, 0 outside tolerance
  // CHECK: run 1: 128 values, 0 outside tolerance

  failures += !callOnOwnRanks(runner);
  // CHECK: call on 4 ranks: 256 values, 0 outside tolerance, 0 failed
  {
    prec::CallResults results;
    float x[kSize] = {};
    void *args[] = {x, x};
    llvm::outs() << "call with 2 arguments: "
                 << llvm::toString(runner.call(args, results)) << "\n";
    // CHECK: call with 2 arguments: expected 1 arguments, got 2
  }
  failures += !inspectOptimizedLLVM(context);
  // CHECK: inspected, passing: saw @column_sums, compiled
  // CHECK: inspected, failing: saw @column_sums, JIT compilation failed:
  // CHECK-SAME: refused by the inspector

  failures += !runLoweredColumnSums(context);
  // CHECK: lowered before, 3 steps: 16 values, 0 outside tolerance
  failures += !runMemrefSums(context);
  // CHECK: memref argument, 3 steps: 16 values, 0 outside tolerance
  return failures != 0;
}
