//===- RunnerImpl.h - what compilation hands to the rank threads ----------===//

#ifndef PREC_LIB_RUNNER_RUNNERIMPL_H
#define PREC_LIB_RUNNER_RUNNERIMPL_H

#include "prec/Runner/Runner.h"

#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"

#include <memory>
#include <string>

namespace mlir {
namespace prec {

struct Runner::Impl {
  /// A module of host code only: one engine for every rank.
  std::unique_ptr<mlir::ExecutionEngine> engine;
  void (*entry)(void **) = nullptr;
  /// nccl: GPUs of this process; ranks as threads take device rank % count.
  int32_t deviceCount = 0;
  bool lowered = false;
  /// Per argument: whether the compiled code may write into its buffer
  /// although no result feeds it, so that the run restores it before every
  /// step after the first.
  llvm::SmallVector<bool> restoredArguments;
  /// jit succeeded: run may start.
  bool compiled = false;
  /// jit left the compiling to each rank (Runner::compilesOnRanks).
  bool compilesOnRanks = false;
  /// Features of RunnerOptions::targetCPU and targetFeatures the host
  /// lacks (comma-separated): the code compiles but cannot run here.
  std::string missingOnHost;
};

namespace detail {

/// The JIT's target: RunnerOptions::targetCPU and targetFeatures on the
/// host's triple, less the features whose bf16 conversions flush
/// subnormals. `missingOnHost` receives the features it uses that the host
/// lacks.
llvm::Expected<llvm::orc::JITTargetMachineBuilder>
getJITTargetMachineBuilder(const RunnerOptions &options,
                           std::string &missingOnHost);

/// JIT-compiles the lowered `module` for the host and runs its constructors
/// on the calling thread (GPU code loads its kernels there, on the thread's
/// device).
llvm::Error compileForHost(mlir::ModuleOp module, llvm::StringRef entry,
                           const RunnerOptions &options,
                           std::unique_ptr<mlir::ExecutionEngine> &engine,
                           void (*&entryFn)(void **));

} // namespace detail
} // namespace prec
} // namespace mlir

#endif // PREC_LIB_RUNNER_RUNNERIMPL_H
