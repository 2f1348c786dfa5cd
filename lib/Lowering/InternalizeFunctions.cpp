//===- InternalizeFunctions.cpp - private functions internal to LLVM ------===//
//
// The conversion to LLVM gives every function external linkage, whatever
// its symbol visibility: LLVM must then keep and compile each one as it is,
// and the JIT's execution engine adds a packed wrapper for each. Private
// functions are internal to the module, which lets LLVM inline them and
// drop what is no longer called.
//
//===----------------------------------------------------------------------===//

#include "prec/Lowering/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMAttrs.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace mlir::prec {
#define GEN_PASS_DEF_PRECINTERNALIZEFUNCTIONS
#include "prec/Lowering/Passes.h.inc"
} // namespace mlir::prec

using namespace mlir;
using namespace mlir::prec;

namespace {

/// The attribute of a `func.func` that the conversion to LLVM takes as the
/// linkage of the `llvm.func` it creates.
constexpr StringLiteral kLinkageAttrName = "llvm.linkage";

struct PrecInternalizeFunctionsPass
    : public prec::impl::PrecInternalizeFunctionsBase<
          PrecInternalizeFunctionsPass> {
  void runOnOperation() override {
    auto internal =
        LLVM::LinkageAttr::get(&getContext(), LLVM::Linkage::Internal);
    for (auto function : getOperation().getOps<func::FuncOp>())
      if (function.isPrivate() && !function.isExternal())
        function->setAttr(kLinkageAttrName, internal);
  }
};

} // namespace
