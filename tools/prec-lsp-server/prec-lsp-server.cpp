//===- prec-lsp-server.cpp - language server for prec IR ------------------===//
//
// Debian's mlir-lsp-server cannot load dialect plugins, so prec ships its
// own server with the same dialects as prec-opt.
//
//===----------------------------------------------------------------------===//

#include "prec/InitAllDialects.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Tools/mlir-lsp-server/MlirLspServerMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::prec::registerPrecDialects(registry);
  return mlir::failed(mlir::MlirLspServerMain(argc, argv, registry));
}
