//===- PrecDialect.cpp - prec dialect -------------------------------------===//

#include "prec/Dialect/Prec/IR/PrecDialect.h"
#include "prec/Dialect/Prec/IR/PrecAttrs.h"
#include "prec/Dialect/Prec/IR/PrecOps.h"

#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace mlir::prec;

#include "prec/Dialect/Prec/IR/PrecOpsDialect.cpp.inc"

void PrecDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "prec/Dialect/Prec/IR/PrecOps.cpp.inc"
      >();
  registerAttributes();
}

//===----------------------------------------------------------------------===//
// Discardable attributes
//===----------------------------------------------------------------------===//

LogicalResult PrecDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attribute) {
  if (attribute.getName() == kPolicyAttrName) {
    if (!isa<PolicyAttr>(attribute.getValue()))
      return op->emitError("expected '")
             << kPolicyAttrName << "' to be a #prec.policy, got "
             << attribute.getValue();
    return success();
  }
  if (attribute.getName() == kDifferentiableAttrName) {
    if (!isa<UnitAttr>(attribute.getValue()) || !isa<FunctionOpInterface>(op))
      return op->emitError("expected '")
             << kDifferentiableAttrName << "' to be a unit attribute on a "
             << "function, got " << attribute.getValue() << " on '"
             << op->getName() << "'";
    return success();
  }
  if (attribute.getName() == kBackwardOfAttrName) {
    if (!isa<FlatSymbolRefAttr>(attribute.getValue()) ||
        !isa<FunctionOpInterface>(op))
      return op->emitError("expected '")
             << kBackwardOfAttrName << "' to be a symbol reference on a "
             << "function, got " << attribute.getValue() << " on '"
             << op->getName() << "'";
    return success();
  }
  if (attribute.getName() == kMicrobatchesAttrName) {
    auto count = dyn_cast<IntegerAttr>(attribute.getValue());
    if (!count || count.getType().isIndex() || count.getInt() < 1)
      return op->emitError("expected '")
             << kMicrobatchesAttrName << "' to be a positive integer, got "
             << attribute.getValue();
    return success();
  }
  if (attribute.getName() == kLocalBufferAttrName) {
    if (!isa<UnitAttr>(attribute.getValue()) ||
        op->getName().getStringRef() != "memref.alloca")
      return op->emitError("expected '")
             << kLocalBufferAttrName << "' to be a unit attribute on a "
             << "memref.alloca, got " << attribute.getValue() << " on '"
             << op->getName() << "'";
    return success();
  }
  if (attribute.getName() == kPeerWindowAttrName) {
    if (!isa<UnitAttr>(attribute.getValue()) ||
        op->getName().getStringRef() != "builtin.unrealized_conversion_cast" ||
        op->getNumResults() != 1 || !isa<MemRefType>(op->getResult(0).getType()))
      return op->emitError("expected '")
             << kPeerWindowAttrName << "' to be a unit attribute on a "
             << "builtin.unrealized_conversion_cast to a memref, got "
             << attribute.getValue() << " on '" << op->getName() << "'";
    return success();
  }
  if (attribute.getName() == kGradDtypeAttrName) {
    // The gradient dtype of an op's one result (a gathered weight's), as an
    // argument's `prec.grad_dtype` is of the argument.
    auto dtype = dyn_cast<TypeAttr>(attribute.getValue());
    if (!dtype || !isa<FloatType>(dtype.getValue()) ||
        !llvm::APFloat::semanticsHasZero(
            cast<FloatType>(dtype.getValue()).getFloatSemantics()))
      return op->emitError("expected '")
             << kGradDtypeAttrName << "' to be a float type with a zero, got "
             << attribute.getValue();
    if (op->getNumResults() != 1 ||
        !isa<RankedTensorType>(op->getResult(0).getType()))
      return op->emitError("expected '")
             << kGradDtypeAttrName << "' on an op with one ranked tensor "
             << "result, got '" << op->getName() << "' with "
             << op->getNumResults() << " results";
    return success();
  }
  return op->emitError("unknown prec attribute '")
         << attribute.getName().getValue() << "' on an operation";
}

LogicalResult PrecDialect::verifyRegionArgAttribute(Operation *op,
                                                    unsigned regionIndex,
                                                    unsigned argIndex,
                                                    NamedAttribute attribute) {
  if (attribute.getName() == kNoGradAttrName) {
    if (!isa<UnitAttr>(attribute.getValue()))
      return op->emitError("expected '")
             << kNoGradAttrName << "' of argument " << argIndex
             << " to be a unit attribute, got " << attribute.getValue();
    return success();
  }
  if (attribute.getName() != kGradDtypeAttrName)
    return op->emitError("unknown prec attribute '")
           << attribute.getName().getValue() << "' on an argument";
  auto dtype = dyn_cast<TypeAttr>(attribute.getValue());
  if (!dtype || !isa<FloatType>(dtype.getValue()))
    return op->emitError("expected '")
           << kGradDtypeAttrName << "' of argument " << argIndex
           << " to be a float type, got " << attribute.getValue();
  // A gradient is summed and zeroed: a scale-only type can do neither.
  if (!llvm::APFloat::semanticsHasZero(
          cast<FloatType>(dtype.getValue()).getFloatSemantics()))
    return op->emitError("expected '")
           << kGradDtypeAttrName << "' of argument " << argIndex
           << " to be a float type with a zero, got " << dtype.getValue()
           << " (a scale-only type)";
  return success();
}
