//===- prec-opt.cpp - the prec optimizer driver ---------------------------===//
//
// mlir-opt with prec's dialect and passes on top of every upstream dialect
// and pass that prec's pipelines lower through.
//
//===----------------------------------------------------------------------===//

#include "prec/InitAllDialects.h"
#include "prec/InitAllPasses.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mlir::prec::registerPrecPasses();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  // prec-lower-to-cuda translates kernels to LLVM IR to compile them.
  mlir::registerAllToLLVMIRTranslations(registry);
  mlir::prec::registerPrecDialects(registry);

  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "prec optimizer driver\n", registry));
}
