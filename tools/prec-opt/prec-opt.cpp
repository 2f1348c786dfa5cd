//===- prec-opt.cpp - the prec optimizer driver ---------------------------===//
//
// mlir-opt with prec's dialect and passes on top of every upstream dialect
// and pass that prec's pipelines lower through.
//
//===----------------------------------------------------------------------===//

#include "prec/Gradients/GenerateBackward.h"
#include "prec/Gradients/Passes.h"
#include "prec/InitAllDialects.h"
#include "prec/InitAllPasses.h"
#include "prec/Version.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/ToolOutputFile.h"

#include <algorithm>
#include <cstdio>

#ifdef PREC_INCLUDE_TESTS
namespace mlir::prec::test {
void registerTestPasses();
} // namespace mlir::prec::test
#endif

namespace {

/// MlirOptMain's configuration from the command line, but the input is
/// parsed without verification and `prec-declare-backward` runs before the
/// first pass: a module may call `@f_backward` before
/// `prec-generate-backward` creates it, which the verifier of `func.call`
/// would reject at parse time. The pass verifies the module once the
/// declarations are in, so invalid input is reported as before.
class PrecOptMainConfig : public mlir::MlirOptMainConfig {
public:
  explicit PrecOptMainConfig(mlir::MlirOptMainConfig config)
      : MlirOptMainConfig(std::move(config)) {
    // An unverified parse that was asked for, and a round trip check (which
    // runs before any pass), see the input as parsed.
    if (!shouldVerifyOnParsing() || shouldVerifyRoundtrip())
      return;
    verifyOnParsing(false);
    setPassPipelineSetupFn(
        [populate = std::move(passPipelineCallback)](mlir::PassManager &pm) {
          std::unique_ptr<mlir::Pass> declare =
              mlir::prec::createPrecDeclareBackward();
          mlir::Pass &declarePass = *declare;
          pm.addPass(std::move(declare));
          if (populate && failed(populate(pm)))
            return mlir::failure();
          // The functions the pipeline's prec-generate-backward is told to
          // differentiate are known once the pipeline is.
          llvm::SmallVector<std::string> functions =
              mlir::prec::getFunctionsNamedToDifferentiate(pm);
          if (functions.empty())
            return mlir::success();
          return declarePass.initializeOptions(
              "functions=" + llvm::join(functions, ","),
              [&](const llvm::Twine &message) {
                return mlir::emitError(mlir::UnknownLoc::get(pm.getContext()))
                       << message;
              });
        });
  }
};

/// MlirOptMain(argc, argv, ...) with prec's configuration.
mlir::LogicalResult precOptMain(int argc, char **argv,
                                mlir::DialectRegistry &registry) {
  auto [inputFilename, outputFilename] = mlir::registerAndParseCLIOptions(
      argc, argv,
      "prec optimizer driver\n\n"
      "  prec's own passes and pipelines alone: prec-opt --help-prec\n",
      registry);
  PrecOptMainConfig config(mlir::MlirOptMainConfig::createFromCLOptions());
  if (config.shouldShowDialects()) {
    llvm::outs() << "Available Dialects: ";
    llvm::interleave(registry.getDialectNames(), llvm::outs(), ",");
    llvm::outs() << "\n";
    return mlir::success();
  }
  if (config.shouldListPasses()) {
    mlir::printRegisteredPasses();
    return mlir::success();
  }
  if (inputFilename == "-" &&
      llvm::sys::Process::FileDescriptorIsDisplayed(fileno(stdin)))
    llvm::errs() << "(processing input from stdin now, hit ctrl-c/ctrl-d to "
                    "interrupt)\n";
  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> file =
      mlir::openInputFile(inputFilename, &errorMessage);
  if (!file) {
    llvm::errs() << errorMessage << "\n";
    return mlir::failure();
  }
  std::unique_ptr<llvm::ToolOutputFile> output =
      mlir::openOutputFile(outputFilename, &errorMessage);
  if (!output) {
    llvm::errs() << errorMessage << "\n";
    return mlir::failure();
  }
  if (failed(
          mlir::MlirOptMain(output->os(), std::move(file), registry, config)))
    return mlir::failure();
  output->keep();
  return mlir::success();
}

} // namespace

/// `--help-prec`: prec's passes and named pipelines with their options,
/// without the ~700 upstream ones that --help lists beside them.
static bool wantsPrecHelp(int argc, char **argv) {
  for (int i = 1; i < argc; ++i)
    if (llvm::StringRef(argv[i]) == "--help-prec" ||
        llvm::StringRef(argv[i]) == "-help-prec")
      return true;
  return false;
}

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  llvm::cl::SetVersionPrinter(
      [](llvm::raw_ostream &os) { mlir::prec::printVersion(os, "prec-opt"); });
  if (wantsPrecHelp(argc, argv)) {
    // Only prec's registrations, so the registry lists prec's alone (not
    // the test passes of a build with tests).
    mlir::prec::registerPrecPasses();
    llvm::outs() << "OVERVIEW: prec optimizer driver: prec's passes and "
                    "pipelines\n\nUSAGE: prec-opt [options] <input file>"
                    "\n\n--help lists every option and every upstream pass as "
                    "well.\n\n";
    llvm::SmallVector<const mlir::PassPipelineInfo *> pipelines;
    size_t width = 0;
    for (llvm::StringRef name : mlir::prec::getPrecPipelineNames())
      if (const mlir::PassPipelineInfo *info =
              mlir::PassPipelineInfo::lookup(name)) {
        pipelines.push_back(info);
        width = std::max(width, info->getOptionWidth() + 4);
      }
    llvm::outs() << "Pass Pipelines:\n";
    for (const mlir::PassPipelineInfo *info : pipelines)
      info->printHelpStr(/*indent=*/2, width);
    llvm::outs() << "\n";
    mlir::printRegisteredPasses();
    return 0;
  }

  mlir::registerAllPasses();
  mlir::prec::registerPrecPasses();
#ifdef PREC_INCLUDE_TESTS
  mlir::prec::test::registerTestPasses();
#endif

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  // prec-lower-to-cuda translates kernels to LLVM IR to compile them.
  mlir::registerAllToLLVMIRTranslations(registry);
  mlir::prec::registerPrecDialects(registry);

  return mlir::asMainReturnCode(precOptMain(argc, argv, registry));
}
