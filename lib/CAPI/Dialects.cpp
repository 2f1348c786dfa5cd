//===- Dialects.cpp - C API of the prec dialect ---------------------------===//

#include "prec-c/Dialects.h"

#include "prec/Dialect/Prec/IR/PrecAttrs.h"
#include "prec/Dialect/Prec/IR/PrecDialect.h"
#include "prec/InitAllDialects.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Registration.h"
#include "mlir/CAPI/Support.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"

using namespace mlir;
using namespace mlir::prec;

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(Prec, prec, PrecDialect)

void precRegisterDialects(MlirDialectRegistry registry) {
  registerPrecDialects(*unwrap(registry));
}

void precRegisterAllDialects(MlirDialectRegistry registry) {
  registerAllDialects(*unwrap(registry));
  registerAllExtensions(*unwrap(registry));
  registerPrecDialects(*unwrap(registry));
}

MlirAttribute precReductionKindAttrGet(MlirContext ctx,
                                       PrecReductionKind kind) {
  std::optional<ReductionKind> value = symbolizeReductionKind(kind);
  if (!value)
    return MlirAttribute{nullptr};
  return wrap(ReductionKindAttr::get(unwrap(ctx), *value));
}

bool precAttributeIsAReductionKind(MlirAttribute attr) {
  return isa<ReductionKindAttr>(unwrap(attr));
}

PrecReductionKind precReductionKindAttrGetValue(MlirAttribute attr) {
  return static_cast<PrecReductionKind>(
      cast<ReductionKindAttr>(unwrap(attr)).getValue());
}

MlirAttribute precRoundingModeAttrGet(MlirContext ctx, PrecRoundingMode mode) {
  std::optional<RoundingMode> value = symbolizeRoundingMode(mode);
  if (!value)
    return MlirAttribute{nullptr};
  return wrap(RoundingModeAttr::get(unwrap(ctx), *value));
}

bool precAttributeIsARoundingMode(MlirAttribute attr) {
  return isa<RoundingModeAttr>(unwrap(attr));
}

MlirAttribute precScalingAttrGet(MlirContext ctx, PrecScalingKind kind,
                                 int64_t history, int64_t blockSize,
                                 MlirType scaleDtype) {
  MLIRContext *context = unwrap(ctx);
  std::optional<ScalingKind> value = symbolizeScalingKind(kind);
  if (!value) {
    emitError(UnknownLoc::get(context))
        << "expected a scaling kind of PrecScalingKind, got "
        << static_cast<int>(kind);
    return MlirAttribute{nullptr};
  }
  return wrap(ScalingAttr::getChecked(
      [&] { return emitError(UnknownLoc::get(context)); }, context, *value,
      history, blockSize, unwrap(scaleDtype)));
}

bool precAttributeIsAScaling(MlirAttribute attr) {
  return isa<ScalingAttr>(unwrap(attr));
}

PrecScalingKind precScalingAttrGetKind(MlirAttribute attr) {
  return static_cast<PrecScalingKind>(
      cast<ScalingAttr>(unwrap(attr)).getKind());
}

/// A null type stays null; anything else must be a float type.
static FailureOr<FloatType> unwrapOptionalFloat(MlirType type) {
  if (mlirTypeIsNull(type))
    return FloatType();
  if (auto floatType = dyn_cast<FloatType>(unwrap(type)))
    return floatType;
  return failure();
}

MlirAttribute precPolicyAttrGet(MlirContext ctx, MlirType param,
                                MlirType reduce, MlirType output) {
  FailureOr<FloatType> paramType = unwrapOptionalFloat(param);
  FailureOr<FloatType> reduceType = unwrapOptionalFloat(reduce);
  FailureOr<FloatType> outputType = unwrapOptionalFloat(output);
  if (failed(paramType) || failed(reduceType) || failed(outputType))
    return MlirAttribute{nullptr};
  return wrap(
      PolicyAttr::get(unwrap(ctx), *paramType, *reduceType, *outputType));
}

bool precAttributeIsAPolicy(MlirAttribute attr) {
  return isa<PolicyAttr>(unwrap(attr));
}

MlirType precPolicyAttrGetParam(MlirAttribute attr) {
  return wrap(cast<PolicyAttr>(unwrap(attr)).getParam());
}

MlirType precPolicyAttrGetReduce(MlirAttribute attr) {
  return wrap(cast<PolicyAttr>(unwrap(attr)).getReduce());
}

MlirType precPolicyAttrGetOutput(MlirAttribute attr) {
  return wrap(cast<PolicyAttr>(unwrap(attr)).getOutput());
}
