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

/// The dtype attributes of a collective that a policy sets.
enum class PolicyAttribute { ForwardDtype, BackwardDtype };

StringRef getName(PolicyAttribute attribute) {
  return attribute == PolicyAttribute::ForwardDtype ? "forward_dtype"
                                                    : "backward_dtype";
}

TypeAttr getDtype(CollectiveOpInterface op, PolicyAttribute attribute) {
  return attribute == PolicyAttribute::ForwardDtype ? op.getForwardDtypeAttr()
                                                    : op.getBackwardDtypeAttr();
}

void setDtype(CollectiveOpInterface op, PolicyAttribute attribute,
              TypeAttr dtype) {
  if (attribute == PolicyAttribute::ForwardDtype)
    op.setForwardDtypeAttr(dtype);
  else
    op.setBackwardDtypeAttr(dtype);
}

/// A dtype attribute of a collective and the policy entry it comes from.
struct PolicyDtype {
  PolicyAttribute attribute;
  FloatType dtype;
  StringRef entry;
};

/// Sets the dtype attributes the policy gives `op` where the op has none of
/// its own. fp8 needs scales, which a policy cannot provide; dtypes that do
/// not fit the op's explicit attributes (an `acc_dtype`, a ring algorithm, a
/// scaling mode) are reported with the verifier's reason. The attributes
/// are verified together: one may only be valid next to another.
LogicalResult applyToCollective(CollectiveOpInterface op,
                                ArrayRef<PolicyDtype> dtypes) {
  SmallVector<PolicyDtype> applied;
  for (const PolicyDtype &entry : dtypes)
    if (entry.dtype && !getDtype(op, entry.attribute))
      applied.push_back(entry);
  if (applied.empty())
    return success();
  auto fail = [&](const Twine &reason) -> LogicalResult {
    InFlightDiagnostic diag = op->emitOpError("cannot take ");
    for (auto [index, entry] : llvm::enumerate(applied))
      diag << (index ? " and " : "") << getName(entry.attribute) << " "
           << entry.dtype << " from the policy's '" << entry.entry << "' entry";
    diag << ": " << reason;
    return failure();
  };
  for (const PolicyDtype &entry : applied)
    if (isScaledLowPrecisionType(entry.dtype) && !op.getScalingAttr())
      return fail("an fp8 collective needs a scaling mode");

  for (const PolicyDtype &entry : applied)
    setDtype(op, entry.attribute, TypeAttr::get(entry.dtype));
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
  for (const PolicyDtype &entry : applied)
    setDtype(op, entry.attribute, TypeAttr());
  // The verifier's message names the op, which this one does already.
  StringRef why = reason;
  if (size_t opPrefix = why.find("' op "); opPrefix != StringRef::npos)
    why = why.drop_front(opPrefix + 5);
  return fail(why);
}

LogicalResult applyToCollectives(func::FuncOp func, PolicyAttr policy) {
  WalkResult result = func.walk([&](CollectiveOpInterface op) {
    SmallVector<PolicyDtype, 2> dtypes;
    if (isa<AllGatherOp>(op)) {
      dtypes.push_back(
          {PolicyAttribute::ForwardDtype, policy.getParam(), "param"});
      dtypes.push_back(
          {PolicyAttribute::BackwardDtype, policy.getReduce(), "reduce"});
    } else if (op.isReduction()) {
      dtypes.push_back(
          {PolicyAttribute::ForwardDtype, policy.getReduce(), "reduce"});
    }
    return failed(applyToCollective(op, dtypes)) ? WalkResult::interrupt()
                                                 : WalkResult::advance();
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
      // A backward function prec-generate-backward made got its dtypes from
      // its forward function, which the policy governed already.
      if (!policy || func->hasAttr(PrecDialect::kBackwardOfAttrName))
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
