//===- RequestCInterfaces.cpp - C entry points for compiled programs ------===//

#include "prec/Conversion/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace mlir::prec {
#define GEN_PASS_DEF_PRECREQUESTCINTERFACES
#include "prec/Conversion/Passes.h.inc"
} // namespace mlir::prec

using namespace mlir;

namespace {

struct PrecRequestCInterfacesPass
    : public prec::impl::PrecRequestCInterfacesBase<
          PrecRequestCInterfacesPass> {
  void runOnOperation() override {
    func::FuncOp function = getOperation();
    if (function.isPublic() && !function.isExternal())
      function->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                        UnitAttr::get(&getContext()));
  }
};

} // namespace
