//===- run_step.cpp - compile a step once, run it on 4 ranks --------------===//
//
// What a program that embeds the runner does: parses a step, has
// prec::Runner lower and JIT-compile it once, and runs it on 4 ranks as
// threads of this process, with a RunObserver that gives each rank its
// arguments and checks its results against a float64 reference. The step
// all-reduces (sums) each rank's gradient on a bf16 wire with f32
// accumulation, and runs twice: its result is also its first argument, so
// the second step sums the sums.
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
#include <cstring>

namespace {

constexpr int kRanks = 4;
constexpr int kSize = 64;

const char *kStep = R"mlir(
shard.grid @dp(shape = 4)
func.func @step(%x: tensor<64xf32>) -> tensor<64xf32> {
  %sum = prec.all_reduce %x on @dp grid_axes = [0]
           forward_dtype = bf16 acc_dtype = f32
           : tensor<64xf32> -> tensor<64xf32>
  return %sum : tensor<64xf32>
}
)mlir";

float input(int rank, int i) {
  return static_cast<float>((rank + 1) * std::sin(0.37 * i + 1.1 * rank));
}

/// Gives rank r the values input(r, i), and checks after the last step that
/// every rank holds N * sum_r input(r, i) (two sums of N ranks): each input
/// rounded to bf16 once (2^-8), the first step's sum rounded to bf16 on the
/// second's wire (2^-8 more) and on the all-gather of both steps (2^-8
/// each), f32 sums ((N + 1) 2^-24 each), all relative to N times the sum of
/// magnitudes.
class CheckSums : public mlir::prec::RunObserver {
public:
  llvm::Error initializeArgument(int32_t rank, unsigned, void *data) override {
    auto *values = static_cast<float *>(data);
    for (int i = 0; i < kSize; ++i)
      values[i] = input(rank, i);
    return llvm::Error::success();
  }

  llvm::Error runFinished(int32_t rank, mlir::prec::RankResults &results,
                          const mlir::prec::RankProfile &) override {
    llvm::Expected<const void *> data = results.getHostResult(0);
    if (!data)
      return data.takeError();
    const auto *values = static_cast<const float *>(*data);
    const double bf16 = std::ldexp(1.0, -8), f32 = std::ldexp(1.0, -24);
    for (int i = 0; i < kSize; ++i) {
      double sum = 0, magnitude = 0;
      for (int r = 0; r < kRanks; ++r) {
        sum += input(r, i);
        magnitude += std::fabs(input(r, i));
      }
      double tolerance = (4 * bf16 + 6 * bf16 * bf16 + 2 * (kRanks + 1) * f32) *
                         kRanks * magnitude;
      if (!(std::fabs(values[i] - kRanks * sum) <= tolerance))
        ++outside;
    }
    compared += kSize;
    (void)rank;
    return llvm::Error::success();
  }

  std::atomic<int> compared{0}, outside{0};
};

} // namespace

int main() {
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::prec::registerPrecDialects(registry);
  mlir::MLIRContext context(registry);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(kStep, &context);
  if (!module)
    return 1; // the parser has reported why

  // Compiled once; the ranks (4) are the grid's.
  auto runner = mlir::prec::Runner::compile(*module, {});
  if (!runner) {
    llvm::errs() << "prec-run-example: " << llvm::toString(runner.takeError())
                 << "\n";
    return 1;
  }
  CheckSums check;
  if (llvm::Error error = (*runner)->run(/*numSteps=*/2, check)) {
    llvm::errs() << "prec-run-example: " << llvm::toString(std::move(error))
                 << "\n";
    return 1;
  }
  llvm::outs() << "ran @" << (*runner)->getSignature().name << " on "
               << (*runner)->getNumRanks() << " ranks: " << check.compared
               << " values, " << check.outside << " outside tolerance\n";
  return check.outside != 0 || check.compared != kRanks * kSize;
}
