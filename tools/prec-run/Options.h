//===- Options.h - prec-run's command line --------------------*- C++ -*-===//
//
// Every option of prec-run, defined in Options.cpp: one place to add one.
//
//===----------------------------------------------------------------------===//

#ifndef PREC_TOOLS_PREC_RUN_OPTIONS_H
#define PREC_TOOLS_PREC_RUN_OPTIONS_H

#include "prec/Runner/Runner.h"

#include "mlir/Support/LogicalResult.h"
#include "llvm/Support/CommandLine.h"

#include <string>

namespace prec_run {

extern llvm::cl::OptionCategory runCategory;

extern llvm::cl::opt<std::string> inputFilename;
extern llvm::cl::opt<int> numRanks;
extern llvm::cl::opt<std::string> backendName;
extern llvm::cl::opt<std::string> gpuChip;
extern llvm::cl::opt<std::string> gpuFormat;
extern llvm::cl::opt<std::string> pipelineName;
extern llvm::cl::opt<unsigned> optLevel;
extern llvm::cl::opt<std::string> entryName;
extern llvm::cl::opt<uint64_t> seed;
extern llvm::cl::list<std::string> scalarArgs;
extern llvm::cl::list<std::string> fileArgs;
extern llvm::cl::list<std::string> zeroArgs;
extern llvm::cl::list<std::string> replicatedArgs;
extern llvm::cl::opt<std::string> loadPath;
extern llvm::cl::opt<std::string> savePath;
extern llvm::cl::list<std::string> dataArgs;
extern llvm::cl::opt<bool> listArgs;
extern llvm::cl::opt<int> numSteps;
extern llvm::cl::opt<std::string> printMode;
extern llvm::cl::opt<std::string> outputDir;
extern llvm::cl::opt<int64_t> timeoutMs;
extern llvm::cl::opt<bool> cacheBuffers;
extern llvm::cl::opt<std::string> maxMemory;
extern llvm::cl::opt<bool> fuseKernels;
extern llvm::cl::opt<bool> profileSteps;
extern llvm::cl::opt<bool> stepTimes;
extern llvm::cl::opt<bool> gemmContractions;
extern llvm::cl::opt<int64_t> vectorBits;
extern llvm::cl::opt<std::string> trafficMode;
extern llvm::cl::opt<std::string> precisionReport;
extern llvm::cl::opt<bool> dumpLowered;
extern llvm::cl::opt<std::string> dumpObject;

/// Whether --traffic was given, and whether as --traffic=full.
bool trafficRequested();
bool trafficFull();

/// Checks the options that need no module; says what is wrong on stderr.
mlir::LogicalResult checkOptions();

/// The runner's options as the command line gives them.
mlir::prec::RunnerOptions getRunnerOptions();

} // namespace prec_run

#endif // PREC_TOOLS_PREC_RUN_OPTIONS_H
