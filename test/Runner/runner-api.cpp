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
//===----------------------------------------------------------------------===//

#include "prec/InitAllDialects.h"
#include "prec/Runner/Runner.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/raw_ostream.h"

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

/// Generated arguments; rank `failingRank` fails instead. Counts the
/// results outside the tolerance: each input rounded once to bf16 (2^-8),
/// the f32 sum ((N + 1) 2^-24) and the result rounded once more to bf16 on
/// the all-gather (2^-8), relative to the sum of magnitudes.
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
    std::vector<std::vector<float>> inputs(kRanks, std::vector<float>(kSize));
    for (int r = 0; r < kRanks; ++r)
      prec::generateArgument(spec, 7, 0, r, false, inputs[r].data());
    const double bf16 = std::ldexp(1.0, -8), f32 = std::ldexp(1.0, -24);
    for (int i = 0; i < kSize; ++i) {
      double sum = 0, magnitude = 0;
      for (int r = 0; r < kRanks; ++r) {
        sum += inputs[r][i];
        magnitude += std::fabs(inputs[r][i]);
      }
      double tolerance =
          (2 * bf16 + bf16 * bf16 + (kRanks + 1) * f32) * magnitude;
      double value = prec::readElement(spec, *data, i);
      if (!(std::fabs(value - sum) <= tolerance))
        ++outside;
    }
    compared += kSize;
    return llvm::Error::success();
  }

  prec::ValueSpec spec;
  int failingRank;
  std::atomic<int> compared{0}, outside{0};
};

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
  return failures != 0;
}
