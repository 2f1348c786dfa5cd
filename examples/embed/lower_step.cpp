//===- lower_step.cpp - prec as the backend of another compiler -----------===//
//
// What a compiler that emits prec IR does with it: registers prec's dialects
// next to its own, builds prec-lower-to-cpu into its pass manager and
// translates the result to LLVM IR, here for the module in argv[1]. It prints
// the public functions (the entry points a program calls) and the runtime
// functions they call.
//
//===----------------------------------------------------------------------===//

#include "prec/InitAllDialects.h"
#include "prec/Pipelines/Pipelines.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

int main(int argc, char **argv) {
  if (argc != 2) {
    llvm::errs() << "usage: prec-embed-example FILE.mlir\n";
    return 2;
  }
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::registerAllToLLVMIRTranslations(registry);
  mlir::prec::registerPrecDialects(registry);
  mlir::MLIRContext context(registry);

  // Diagnostics of the parser and the passes point into the file.
  llvm::SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  auto file = llvm::MemoryBuffer::getFileOrSTDIN(argv[1]);
  if (!file) {
    llvm::errs() << "prec-embed-example: cannot read " << argv[1] << ": "
                 << file.getError().message() << "\n";
    return 1;
  }
  sourceMgr.AddNewSourceBuffer(std::move(*file), llvm::SMLoc());
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(sourceMgr, &context);
  if (!module)
    return 1; // the parser has reported why

  std::vector<std::string> entryPoints;
  for (auto function : module->getOps<mlir::func::FuncOp>())
    if (function.isPublic() && !function.isExternal())
      entryPoints.push_back(function.getName().str());

  mlir::PassManager pm(&context);
  // The stages with their defaults; each has its own options struct.
  mlir::prec::buildPrecLowerToCPUPipeline(pm, mlir::prec::PrecLoweringOptions());
  if (mlir::failed(pm.run(*module)))
    return 1; // the passes have reported why

  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      mlir::translateModuleToLLVMIR(*module, llvmContext);
  if (!llvmModule) {
    llvm::errs() << "prec-embed-example: translation to LLVM IR failed\n";
    return 1;
  }
  for (const std::string &name : entryPoints)
    if (llvm::Function *function = llvmModule->getFunction(name))
      llvm::outs() << "entry point: " << name << " ("
                   << function->arg_size() << " arguments)\n";
  for (const llvm::Function &function : *llvmModule)
    if (function.isDeclaration() && function.getName().starts_with("precrt"))
      llvm::outs() << "runtime call: " << function.getName() << "\n";
  return 0;
}
