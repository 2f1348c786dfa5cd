/*===- prec-c/Dialects.h - C API of the prec dialect --------------*- C -*-===*\
|*                                                                            *|
|* The embedding surface for compilers written against MLIR's C API: the     *|
|* dialect handle and constructors/predicates for prec's attributes.         *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef PREC_C_DIALECTS_H
#define PREC_C_DIALECTS_H

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#ifdef __cplusplus
extern "C" {
#endif

MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(Prec, prec);

/// Registers prec and the dialects prec IR refers to (shard) into `registry`,
/// through the same registration point as prec-opt.
MLIR_CAPI_EXPORTED void precRegisterDialects(MlirDialectRegistry registry);

/// Registers, besides prec's, every upstream dialect and extension (as
/// prec-opt does), so that a C front end can parse and build whole training
/// steps (func, arith, tensor, linalg, scf, ...).
MLIR_CAPI_EXPORTED void precRegisterAllDialects(MlirDialectRegistry registry);

/// Reduction kinds, rounding modes and scaling kinds, as in the dialect.
typedef enum {
  PrecReductionSum = 0,
  PrecReductionAvg = 1,
  PrecReductionMax = 2,
  PrecReductionMin = 3,
} PrecReductionKind;

typedef enum {
  PrecRoundingNearestEven = 0,
  PrecRoundingStochastic = 1,
} PrecRoundingMode;

typedef enum {
  PrecScalingDynamic = 0,
  PrecScalingDelayed = 1,
  PrecScalingBlock = 2,
} PrecScalingKind;

/// `#prec.reduction<kind>`; a null attribute for a kind out of range (as
/// for every enum below).
MLIR_CAPI_EXPORTED MlirAttribute precReductionKindAttrGet(MlirContext ctx,
                                                          PrecReductionKind kind);
MLIR_CAPI_EXPORTED bool precAttributeIsAReductionKind(MlirAttribute attr);
MLIR_CAPI_EXPORTED PrecReductionKind
precReductionKindAttrGetValue(MlirAttribute attr);

/// `#prec.rounding<mode>`.
MLIR_CAPI_EXPORTED MlirAttribute precRoundingModeAttrGet(MlirContext ctx,
                                                         PrecRoundingMode mode);
MLIR_CAPI_EXPORTED bool precAttributeIsARoundingMode(MlirAttribute attr);

/// `#prec.scaling<...>`; `history` is read for delayed scaling, `blockSize`
/// and `scaleDtype` (null for none) for block scaling. Returns a null
/// attribute, after emitting a diagnostic, when the parameters are invalid.
MLIR_CAPI_EXPORTED MlirAttribute precScalingAttrGet(MlirContext ctx,
                                                    PrecScalingKind kind,
                                                    int64_t history,
                                                    int64_t blockSize,
                                                    MlirType scaleDtype);
MLIR_CAPI_EXPORTED bool precAttributeIsAScaling(MlirAttribute attr);
MLIR_CAPI_EXPORTED PrecScalingKind precScalingAttrGetKind(MlirAttribute attr);

/// `#prec.policy<param = ..., reduce = ..., output = ...>`; a null type
/// leaves that entry unset. Non-float types give a null attribute.
MLIR_CAPI_EXPORTED MlirAttribute precPolicyAttrGet(MlirContext ctx,
                                                   MlirType param,
                                                   MlirType reduce,
                                                   MlirType output);
MLIR_CAPI_EXPORTED bool precAttributeIsAPolicy(MlirAttribute attr);
MLIR_CAPI_EXPORTED MlirType precPolicyAttrGetParam(MlirAttribute attr);
MLIR_CAPI_EXPORTED MlirType precPolicyAttrGetReduce(MlirAttribute attr);
MLIR_CAPI_EXPORTED MlirType precPolicyAttrGetOutput(MlirAttribute attr);

#ifdef __cplusplus
}
#endif

#endif // PREC_C_DIALECTS_H
