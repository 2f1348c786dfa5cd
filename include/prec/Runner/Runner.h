//===- Runner.h - compile a prec program once, run it on N ranks -*- C++
//-*-===//
//
// The library behind prec-run, for embedders: a Runner lowers a module's
// entry function (prec-lower-to-cpu, or prec-lower-to-cuda on the nccl
// backend), JIT-compiles it once, and runs any number of steps of it on the
// ranks of a backend: threads of this process (local), one process per rank
// under mpirun (mpi), or GPUs (nccl). What a run does on each rank besides
// calling the entry function (where arguments come from, what happens to
// results) is a RunObserver's business; errors are values, never exits.
// docs/Embedding.md, "The runner from C++", has a whole program and what a
// run guarantees across these classes.
//
//===----------------------------------------------------------------------===//

#ifndef PREC_RUNNER_RUNNER_H
#define PREC_RUNNER_RUNNER_H

#include "prec/Pipelines/Pipelines.h"
#include "prec/Runner/Values.h"

#include "precrt/compiled.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class Module;
class TargetMachine;
} // namespace llvm

namespace mlir {
class ExecutionEngine;

namespace prec {

enum class RunnerBackend {
  /// Every rank a thread of this process.
  Local,
  /// One process per rank, started by mpirun.
  MPI,
  /// One GPU per rank: threads of this process, or one process per GPU
  /// under mpirun.
  NCCL,
};

struct RunnerOptions {
  RunnerBackend backend = RunnerBackend::Local;
  /// The function to run; empty: the only public function with a body.
  std::string entry;
  /// Ranks of a backend that runs them as threads; 0: the size of the
  /// module's only grid. Under mpirun, the launcher says.
  int numRanks = 0;
  /// nccl: the GPU architecture kernels compile for, and their format (isa:
  /// PTX compiled by the driver; bin or fatbin: ptxas).
  std::string gpuChip = "sm_90";
  std::string gpuFormat = "isa";
  /// How the entry is lowered, stage by stage (prec/Pipelines/Pipelines.h):
  /// prec-lower-to-cpu takes all of it; prec-lower-to-cuda (nccl) the
  /// collectives' stage and the kernels' fusion and traffic report.
  /// `lowering.hostCodegen.profile` also has the runner read each rank's
  /// profile (RankProfile); with `lowering.kernels.reportTraffic` the
  /// runtime's own counts of the last step are read on the rank's thread
  /// with precrtCompiledGetTraffic.
  PrecLoweringOptions lowering;
  /// A pipeline of the pass pipeline registry (as prec-opt names them) that
  /// lowers the entry in place of the backend's; empty: the backend's,
  /// prec-lower-to-cpu or prec-lower-to-cuda (nccl). It is given the options
  /// the backend's pipeline would get (`lowering`, and on nccl `gpuChip`
  /// and `gpuFormat`) as an option string, and must take them; its first
  /// stage may be the signature stage, which has run already and changes
  /// nothing when it runs again.
  std::string pipeline;
  /// The program's malloc and free through the runtime's caching allocator.
  bool cacheBuffers = true;
  /// Collective timeout; 0: the runtime's default; negative: an error.
  int64_t timeoutMs = 0;
  /// The CPU the JIT compiles host code for: "host" (this machine's), or an
  /// LLVM CPU name ("x86-64", "x86-64-v3", "znver4"), and features added to
  /// or removed from it ("+avx2,-avx512f"). Whatever they say, the
  /// instructions that convert to bf16 with other semantics than prec's
  /// (docs/Runtime.md, "The same numbers on every host") are never used, so
  /// results do not depend on the CPU. Running code for a CPU whose
  /// features the host lacks is an error; compiling it (dumpObject) is not.
  std::string targetCPU = "host";
  std::string targetFeatures;
  /// LLVM's optimization level (0 to 3) of the host code the JIT compiles
  /// (makeHostOptimizer); the kernels of a GPU are compiled by the driver
  /// from what the pipeline made of them.
  unsigned optLevel = 3;
  /// Keep the JIT's object file, for Runner::dumpObject.
  bool keepObject = false;
  /// Called by jit with the LLVM IR it optimized, before code generation
  /// (to write it out or look at it); an error fails jit.
  std::function<llvm::Error(const llvm::Module &)> inspectOptimizedLLVM;
};

/// The entry function as the runner calls it.
struct EntrySignature {
  std::string name;
  llvm::SmallVector<ValueSpec, 0> arguments;
  llvm::SmallVector<ValueSpec, 0> results;

  /// Whether the result at argument `index`'s position has its type: that
  /// result feeds the argument after each step. An argument no result feeds
  /// keeps its initial value over all steps.
  bool feedsBack(unsigned index) const;
};

/// Where a rank's steps spent their time (RunnerOptions::lowering's
/// hostCodegen.profile).
struct RankProfile {
  /// Time in calls of the entry function, over all steps.
  double stepSeconds = 0;
  int steps = 0;
  /// The runtime's counters of the rank's thread.
  precrt_profile_t counters{};
  /// The peak of the bytes the generated code had allocated at once during
  /// the steps, over what it held before them (CPU buffers of the caching
  /// allocator; 0 without it).
  size_t peakBufferBytes = 0;
};

/// A rank's results after a step, as the entry function returned them.
class RankResults {
public:
  virtual ~RankResults();
  /// Result `index` in host memory (copied from the GPU first on the nccl
  /// backend). Valid until the next step starts.
  virtual llvm::Expected<const void *> getHostResult(unsigned index) = 0;
};

/// What a run does on each rank besides calling the entry function. Every
/// method is called on the rank's thread, concurrently for ranks that are
/// threads; an error fails the rank (and, through its collectives, the
/// others).
class RunObserver {
public:
  virtual ~RunObserver();
  /// Fills argument `index` of `rank` before the first step: `spec.bytes()`
  /// bytes of a buffer, or the 8 bytes a scalar is passed in.
  virtual llvm::Error initializeArgument(int32_t rank, unsigned index,
                                         void *data) = 0;
  /// Every argument of `rank` is initialized (host memory).
  virtual llvm::Error argumentsInitialized(int32_t rank,
                                           llvm::ArrayRef<const void *> args);
  /// Before step `step` (from 1 on), for each tensor argument no result
  /// feeds: may write the step's own values of argument `index` of `rank`
  /// into `data` (its host buffer, as initializeArgument filled it for step
  /// 0) and set `updated`, so that the step reads them (copied to the GPU on
  /// nccl). By default the argument keeps its values.
  virtual llvm::Error updateArgument(int32_t rank, int step, unsigned index,
                                     void *data, bool &updated);
  /// Step `step` of `numSteps` ended on `rank`. Results that match the
  /// argument at the same position feed it after this.
  virtual llvm::Error stepFinished(int32_t rank, int step, int numSteps,
                                   RankResults &results);
  /// The last step ended on `rank`: its results are final. `profile` is
  /// filled when the lowering profiles (hostCodegen.profile).
  virtual llvm::Error runFinished(int32_t rank, RankResults &results,
                                  const RankProfile &profile);
  /// A process per rank (mpirun, MPI or NCCL backend), after runFinished:
  /// the text `rank` has for the job's output. The runner sends every
  /// rank's to rank 0, whose printRankReports gets them all, in rank order
  /// (mpirun does not keep the order of what its processes print).
  virtual std::string takeRankReport(int32_t rank);
  virtual void printRankReports(llvm::ArrayRef<std::string> reports);
  /// The same for bytes rather than text (a rank's part of a checkpoint):
  /// after takeRankReport, rank `rank`'s data goes to rank 0, whose
  /// receiveRankData gets every rank's, in rank order; an error fails rank
  /// 0.
  virtual std::string takeRankData(int32_t rank);
  virtual llvm::Error receiveRankData(llvm::ArrayRef<std::string> data);
  /// nccl: `rank` compiled the program for its GPU in `seconds`.
  virtual void rankCompiled(int32_t rank, double seconds);
  /// `rank` failed with `message`; called before run returns. A process of
  /// mpirun may leave here: its peers would otherwise wait for it in a
  /// collective until the timeout.
  virtual void rankFailed(int32_t rank, llvm::StringRef message);
};

/// The results of one Runner::call, as the entry function returned them.
/// The buffers the program allocated for them are the caller's until
/// release() (or the destructor) returns them to the runtime.
class CallResults {
public:
  CallResults() = default;
  CallResults(const CallResults &) = delete;
  CallResults &operator=(const CallResults &) = delete;
  ~CallResults() { release(); }

  /// Result `index`: a buffer's data, dense row-major as the signature says,
  /// or a scalar's value. Valid until release().
  const void *get(unsigned index) const { return data[index]; }
  void release();

private:
  friend class Runner;
  std::vector<int64_t> storage;
  llvm::SmallVector<void *, 2> data;
  llvm::SmallVector<void *, 2> allocations;
};

/// A rank's failure, as run returns it (joined with the others').
class RankError : public llvm::ErrorInfo<RankError> {
public:
  static char ID;
  RankError(int32_t rank, std::string message)
      : rank(rank), message(std::move(message)) {}
  void log(llvm::raw_ostream &os) const override;
  std::error_code convertToErrorCode() const override;
  int32_t getRank() const { return rank; }
  llvm::StringRef getMessage() const { return message; }

private:
  int32_t rank;
  std::string message;
};

/// A failure already reported as diagnostics of the module's context (a
/// verifier or pass error, an entry function the runner cannot call); its
/// text only points at the diagnostics.
class DiagnosedError : public llvm::ErrorInfo<DiagnosedError> {
public:
  static char ID;
  void log(llvm::raw_ostream &os) const override;
  std::error_code convertToErrorCode() const override;
};

class Runner {
public:
  ~Runner();

  /// Prepares `module` (parsed, not lowered; the caller keeps it alive while
  /// the runner lives) for running: applies its precision policy, reads the
  /// entry function's signature and erases the functions it does not reach.
  /// Nothing is compiled yet.
  static llvm::Expected<std::unique_ptr<Runner>>
  create(mlir::ModuleOp module, const RunnerOptions &options);

  /// Runs a module already lowered to the LLVM dialect, whose entry function
  /// takes and returns what `signature` says (lowering erased the shapes;
  /// the number and ranks of both are checked against the lowered function).
  /// Compiles it at once. CPU backends only. Its arguments were lowered
  /// writable: run restores those that no result feeds before each step.
  static llvm::Expected<std::unique_ptr<Runner>>
  createLowered(mlir::ModuleOp module, EntrySignature signature,
                const RunnerOptions &options);

  /// create, checkRanks, lower and jit: a runner ready to run.
  static llvm::Expected<std::unique_ptr<Runner>>
  compile(mlir::ModuleOp module, const RunnerOptions &options);

  /// Fails unless every grid of static size the module uses has `ranks`
  /// ranks; `how` says where the number came from.
  llvm::Error checkRanks(int64_t ranks, llvm::StringRef how) const;
  /// Lowers the module with RunnerOptions::pipeline. The entry's tensor
  /// arguments that no result feeds are marked `bufferization.writable =
  /// false` first, so that a step that writes into one (a matmul
  /// accumulating into it, a loop carrying it) writes into a copy, while an
  /// argument fed back may still be updated in place. A memref argument the
  /// program stores into is restored from its initial value before each
  /// step instead.
  llvm::Error lower();
  /// JIT-compiles the lowered module for the host, once for every rank;
  /// on nccl, a module that embeds GPU binaries is compiled by each rank
  /// when it runs instead, since its kernels load into the rank's device
  /// (compilesOnRanks).
  llvm::Error jit();
  /// Whether each rank compiles the program when it starts (after jit: the
  /// lowered module embeds GPU binaries, which load into the rank's
  /// device), rather than jit once for all (host code only).
  bool compilesOnRanks() const;
  /// Writes the object file jit compiled (RunnerOptions::keepObject; a
  /// module that jit compiled once for all ranks).
  llvm::Error dumpObject(llvm::StringRef path);

  /// Runs `numSteps` steps on every rank of the backend. Each rank allocates
  /// its arguments (64-byte aligned host memory; on nccl copied to device
  /// buffers once), has `observer` fill them, calls the entry function
  /// `numSteps` times, feeding every result whose type is that of the
  /// argument at the same position into it, and shows `observer` the
  /// results. Every other argument is the same at every step (see lower).
  /// Fails with a RankError per failed rank, joined.
  ///
  /// The runtime finalizes MPI at the end of a run when it initialized it:
  /// a process of mpirun that runs several times initializes MPI itself
  /// first (MPI_Init_thread), or its second run fails.
  llvm::Error run(int numSteps, RunObserver &observer);

  /// Calls the compiled entry function once on the calling thread with the
  /// caller's `arguments` (per argument of the signature: a buffer's data,
  /// or the address of a scalar's value), for a program that starts the
  /// ranks itself (precrtRun) and calls the entry between calls of its own,
  /// as a benchmark that times each call between its own barriers does. CPU
  /// backends. Its collectives run on the calling thread's world; it may
  /// write into arguments that run would restore (see lower). A failure of
  /// the compiled code (precrtCompiledGetError) is returned.
  llvm::Error call(llvm::ArrayRef<void *> arguments,
                   CallResults &results) const;

  const EntrySignature &getSignature() const { return signature; }
  const RunnerOptions &getOptions() const { return options; }
  mlir::ModuleOp getModule() const { return module; }
  /// The ranks of a backend that runs them as threads; 0 when the module
  /// has no single grid of static size to take it from.
  int getNumRanks() const { return numRanks; }
  /// Whether the ranks are threads of this process (else processes of
  /// mpirun, one rank each).
  bool ranksAreThreads() const;

  /// Implementation details, shared with the rank threads.
  struct Impl;

private:
  Runner(mlir::ModuleOp module, const RunnerOptions &options);
  void protectArguments();

  mlir::ModuleOp module;
  RunnerOptions options;
  EntrySignature signature;
  int numRanks = 0;
  std::unique_ptr<Impl> impl;
};

/// Whether this process was started by mpirun (Open MPI, or an MPICH-style
/// process manager).
bool launchedByMpi();

/// The number of processes mpirun started, where its environment says so.
std::optional<int64_t> getMpiWorldSize();
/// This process's rank in mpirun's world, from the launcher's environment;
/// none outside mpirun.
std::optional<int64_t> getMpiWorldRank();

/// LLVM's optimization of a lowered module before the JIT generates code
/// for `targetMachine` (the host's: without it the vectorizers have no cost
/// model and leave loops scalar), as the runner applies it: LLVM's default
/// pipeline at `optLevel` with the loop and SLP vectorizers, but without
/// loop unrolling. Unrolled completely, a kernel's constant-trip loops
/// become one straight-line block per kernel (a 16 x 64 row sum through
/// memory: 1,024 loads, adds and stores), whose instruction scheduling
/// takes time quadratic in its length; the vectorizer's interleaving still
/// unrolls the loops that run long.
std::function<llvm::Error(llvm::Module *)>
makeHostOptimizer(llvm::TargetMachine *targetMachine, unsigned optLevel);

} // namespace prec
} // namespace mlir

#endif // PREC_RUNNER_RUNNER_H
