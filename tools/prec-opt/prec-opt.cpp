//===- prec-opt.cpp - the prec optimizer driver ---------------------------===//
//
// mlir-opt with prec's dialect and passes on top of every upstream dialect
// and pass that prec's pipelines lower through.
//
//===----------------------------------------------------------------------===//

#include "prec/InitAllDialects.h"
#include "prec/InitAllPasses.h"
#include "prec/Version.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"

#include <algorithm>

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
  llvm::cl::SetVersionPrinter(
      [](llvm::raw_ostream &os) { mlir::prec::printVersion(os, "prec-opt"); });
  if (wantsPrecHelp(argc, argv)) {
    // Only prec's registrations, so the registry lists prec's alone.
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

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  // prec-lower-to-cuda translates kernels to LLVM IR to compile them.
  mlir::registerAllToLLVMIRTranslations(registry);
  mlir::prec::registerPrecDialects(registry);

  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv,
      "prec optimizer driver\n\n"
      "  prec's own passes and pipelines alone: prec-opt --help-prec\n",
      registry));
}
