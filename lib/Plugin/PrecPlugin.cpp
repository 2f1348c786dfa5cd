//===- PrecPlugin.cpp - prec as an mlir-opt plugin ------------------------===//

#include "prec/InitAllDialects.h"
#include "prec/InitAllPasses.h"

#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/Compiler.h"

extern "C" LLVM_ATTRIBUTE_WEAK mlir::DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "Prec", LLVM_VERSION_STRING,
          [](mlir::DialectRegistry *registry) {
            mlir::prec::registerPrecDialects(*registry);
          }};
}

extern "C" LLVM_ATTRIBUTE_WEAK mlir::PassPluginLibraryInfo
mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "Prec", LLVM_VERSION_STRING,
          []() { mlir::prec::registerPrecPasses(); }};
}
