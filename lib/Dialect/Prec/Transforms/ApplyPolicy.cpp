//===- ApplyPolicy.cpp - FSDP-style policies become op attributes ---------===//

#include "prec/Dialect/Prec/IR/PrecOps.h"
#include "prec/Dialect/Prec/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/IR/Verifier.h"

namespace mlir::prec {
#define GEN_PASS_DEF_PRECAPPLYPOLICY
#include "prec/Dialect/Prec/Transforms/Passes.h.inc"
} // namespace mlir::prec

using namespace mlir;
using namespace mlir::prec;

namespace {

/// The policy that governs `func`: its own, else the nearest enclosing one.
PolicyAttr getGoverningPolicy(func::FuncOp func) {
  for (Operation *op = func; op; op = op->getParentOp())
    if (auto policy =
            op->getAttrOfType<PolicyAttr>(PrecDialect::kPolicyAttrName))
      return policy;
  return {};
}

/// Sets the dtype attribute `name` of a collective from the policy unless the
/// op already has one. fp8 needs scales, which a policy cannot provide; a
/// dtype that does not fit the op's explicit attributes (an `acc_dtype`, a
/// ring algorithm, a scaling mode) is reported with the verifier's reason.
LogicalResult setFromPolicy(CollectiveOpInterface op, StringRef name,
                            FloatType dtype, StringRef policyEntry) {
  if (!dtype || op->hasAttr(name))
    return success();
  auto fail = [&](const Twine &reason) {
    return op->emitOpError("cannot take ")
           << name << " " << dtype << " from the policy's '" << policyEntry
           << "' entry: " << reason;
  };
  if (isScaledLowPrecisionType(dtype) && !op->hasAttr("scaling"))
    return fail("an fp8 collective needs a scaling mode");
  op->setAttr(name, TypeAttr::get(dtype));
  std::string reason;
  {
    ScopedDiagnosticHandler capture(op->getContext(), [&](Diagnostic &diag) {
      if (reason.empty())
        reason = diag.str();
      return success();
    });
    if (succeeded(verify(op, /*verifyRecursively=*/false)))
      return success();
  }
  op->removeAttr(name);
  return fail(reason);
}

LogicalResult applyToCollectives(func::FuncOp func, PolicyAttr policy) {
  WalkResult result = func.walk([&](CollectiveOpInterface op) {
    LogicalResult applied = success();
    if (isa<AllGatherOp>(op)) {
      applied = setFromPolicy(op, "forward_dtype", policy.getParam(), "param");
      if (succeeded(applied))
        applied =
            setFromPolicy(op, "backward_dtype", policy.getReduce(), "reduce");
    } else if (op.isReduction()) {
      applied =
          setFromPolicy(op, "forward_dtype", policy.getReduce(), "reduce");
    }
    return failed(applied) ? WalkResult::interrupt() : WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

/// Casts the floating-point results of `func` to `output` before returning.
LogicalResult applyOutputDtype(func::FuncOp func, FloatType output,
                               ModuleOp module) {
  // What prec.cast takes: float scalars and ranked float tensors.
  auto needsCast = [&](Type type) {
    if (!isa<FloatType, RankedTensorType>(type))
      return false;
    auto element = dyn_cast<FloatType>(getElementTypeOrSelf(type));
    return element && element != output;
  };
  if (func.isExternal() || !llvm::any_of(func.getResultTypes(), needsCast))
    return success();
  std::optional<SymbolTable::UseRange> uses =
      SymbolTable::getSymbolUses(func, module);
  if (!uses || !uses->empty())
    return func.emitOpError("cannot apply the policy's output dtype ")
           << output << ": the function is referenced in the module and its "
           << "result types would change under its users";

  SmallVector<Type> resultTypes;
  func.walk([&](func::ReturnOp ret) {
    OpBuilder builder(ret);
    resultTypes.clear();
    for (OpOperand &operand : ret->getOpOperands()) {
      Type type = operand.get().getType();
      if (needsCast(type)) {
        Type castType = isa<ShapedType>(type)
                            ? cast<ShapedType>(type).clone(output)
                            : Type(output);
        operand.set(
            CastOp::create(builder, ret.getLoc(), castType, operand.get()));
      }
      resultTypes.push_back(operand.get().getType());
    }
  });
  func.setFunctionType(FunctionType::get(func.getContext(),
                                         func.getArgumentTypes(), resultTypes));
  return success();
}

struct ApplyPolicyPass
    : public prec::impl::PrecApplyPolicyBase<ApplyPolicyPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (auto func : module.getOps<func::FuncOp>()) {
      PolicyAttr policy = getGoverningPolicy(func);
      if (!policy)
        continue;
      if (failed(applyToCollectives(func, policy)))
        return signalPassFailure();
      if (FloatType output = policy.getOutput())
        if (failed(applyOutputDtype(func, output, module)))
          return signalPassFailure();
    }
  }
};

} // namespace
