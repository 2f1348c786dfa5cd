//===- InlineKernelCallees.cpp - callees whose results feed kernels -------===//
//
// Kernel fusion works within a block: a kernel at the end of a callee (the
// unpack kernel of a generated backward function's gradient reduce-scatter)
// cannot fuse into the kernel of the caller that reads its result (the
// optimizer step). Inlining such a call puts both in one block; it moves
// operations, never changes them, so every value stays bit for bit the same.
//
//===----------------------------------------------------------------------===//

#include "prec/Dialect/Prec/Utils/ReducedPrecision.h"
#include "prec/Lowering/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/Inliner.h"
#include "mlir/Transforms/InliningUtils.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::prec {
#define GEN_PASS_DEF_PRECINLINEKERNELCALLEES
#include "prec/Lowering/Passes.h.inc"
} // namespace mlir::prec

using namespace mlir;
using namespace mlir::prec;

namespace {

/// Whether `value` is a kernel's result, seen through static reshapes and
/// slices (a bucket member is a slice of the bucket's unpacked result).
bool isKernelResult(Value value) {
  while (Operation *op = value.getDefiningOp()) {
    if (isa<linalg::GenericOp>(op))
      return true;
    if (!isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp,
             tensor::ExtractSliceOp>(op))
      return false;
    value = op->getOperand(0);
  }
  return false;
}

/// Whether `value` is read by a kernel, seen through static reshapes.
bool feedsKernel(Value value) {
  return llvm::any_of(value.getUsers(), [](Operation *user) {
    if (isa<linalg::GenericOp>(user))
      return true;
    return isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(user) &&
           feedsKernel(user->getResult(0));
  });
}

/// Inlines what a `func.call` of a one-block function does: the callee's
/// operations at the call, its returned values in place of the call's
/// results. The dialects of the operations moved (prec's among them) need no
/// say: the callee's body runs where the call ran, as the call would run it.
struct CalleeInliner : public InlinerInterface {
  using InlinerInterface::InlinerInterface;

  bool isLegalToInline(Operation *, Operation *, bool) const final {
    return true;
  }
  bool isLegalToInline(Region *, Region *, bool, IRMapping &) const final {
    return true;
  }
  bool isLegalToInline(Operation *, Region *, bool, IRMapping &) const final {
    return true;
  }
  void handleTerminator(Operation *op, ValueRange valuesToRepl) const final {
    auto ret = cast<func::ReturnOp>(op);
    for (auto [value, replacement] :
         llvm::zip_equal(valuesToRepl, ret.getOperands()))
      value.replaceAllUsesWith(replacement);
  }
};

struct InlineKernelCalleesPass
    : public prec::impl::PrecInlineKernelCalleesBase<InlineKernelCalleesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);

    SmallVector<func::CallOp> calls;
    module.walk([&](func::CallOp call) {
      auto callee = symbols.lookup<func::FuncOp>(call.getCallee());
      if (!callee || !callee.isPrivate() || callee.isExternal() ||
          !callee.getBody().hasOneBlock() ||
          callee == call->getParentOfType<func::FuncOp>())
        return;
      auto ret = cast<func::ReturnOp>(callee.getBody().front().getTerminator());
      bool profitable = llvm::any_of(
          llvm::zip_equal(call.getResults(), ret.getOperands()), [](auto pair) {
            auto [result, returned] = pair;
            return feedsKernel(result) && isKernelResult(returned);
          });
      if (profitable)
        calls.push_back(call);
    });
    if (calls.empty())
      return markAllAnalysesPreserved();

    CalleeInliner interface(&getContext());
    InlinerConfig config;
    llvm::SetVector<func::FuncOp> inlined;
    for (func::CallOp call : calls) {
      auto callee = symbols.lookup<func::FuncOp>(call.getCallee());
      // What the callee's contractions may compute below the contract goes
      // with them to the caller, neither more nor less: where the caller's
      // prec.reduced_precision differs from what holds for one of them, it
      // gets its own (the same for the callee's other calls).
      ReducedPrecision atCall = getEffectiveReducedPrecision(call);
      forEachContraction(callee.getBody().front(), [&](Operation *op) {
        ReducedPrecision own = getEffectiveReducedPrecision(op);
        if (own != atCall)
          op->setAttr(PrecDialect::kReducedPrecisionAttrName,
                      ReducedPrecisionAttr::get(op->getContext(), own));
      });
      // Cloned, not moved: the callee may have other calls.
      if (failed(inlineCall(interface, config.getCloneCallback(),
                            cast<CallOpInterface>(call.getOperation()),
                            cast<CallableOpInterface>(callee.getOperation()),
                            &callee.getBody()))) {
        call.emitOpError("could not inline the call of ") << call.getCallee();
        return signalPassFailure();
      }
      call.erase();
      inlined.insert(callee);
    }
    // A callee nothing calls any more is dead: private, no other use.
    for (func::FuncOp callee : inlined)
      if (callee->getParentOp() &&
          SymbolTable::symbolKnownUseEmpty(callee, module))
        symbols.erase(callee);
  }
};

} // namespace
