/*===- prec-capi.c - exercise the prec C API ------------------------------===*/
/* RUN: prec-capi-test 2>&1 | FileCheck %s
 */

#include "prec-c/Dialects.h"
#include "prec-c/Passes.h"

#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"

#include <stdio.h>
#include <stdlib.h>

static void printToStdout(MlirStringRef text, void *userData) {
  (void)userData;
  fwrite(text.data, 1, text.length, stdout);
}

static void printAttr(const char *label, MlirAttribute attr) {
  printf("%s: ", label);
  if (mlirAttributeIsNull(attr))
    printf("<null>");
  else
    mlirAttributePrint(attr, printToStdout, NULL);
  printf("\n");
}

static MlirLogicalResult countDiagnostic(MlirDiagnostic diagnostic,
                                         void *userData) {
  ++*(int *)userData;
  printf("diagnostic: ");
  mlirDiagnosticPrint(diagnostic, printToStdout, NULL);
  printf("\n");
  return mlirLogicalResultSuccess();
}

int main(void) {
  MlirContext ctx = mlirContextCreate();
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  precRegisterDialects(registry);
  mlirContextAppendDialectRegistry(ctx, registry);
  mlirDialectRegistryDestroy(registry);

  MlirDialect prec =
      mlirDialectHandleLoadDialect(mlirGetDialectHandle__prec__(), ctx);
  MlirStringRef ns = mlirDialectGetNamespace(prec);
  printf("namespace: %.*s\n", (int)ns.length, ns.data);
  // CHECK: namespace: prec

  int diagnostics = 0;
  mlirContextAttachDiagnosticHandler(ctx, countDiagnostic, &diagnostics, NULL);

  MlirAttribute avg = precReductionKindAttrGet(ctx, PrecReductionAvg);
  printAttr("reduction", avg);
  printf("is reduction: %d, is policy: %d, value: %d\n",
         precAttributeIsAReductionKind(avg), precAttributeIsAPolicy(avg),
         (int)precReductionKindAttrGetValue(avg));
  // CHECK: reduction: #prec.reduction<avg>
  // CHECK: is reduction: 1, is policy: 0, value: 1

  MlirAttribute rounding = precRoundingModeAttrGet(ctx, PrecRoundingStochastic);
  printAttr("rounding", rounding);
  printf("is rounding: %d\n", precAttributeIsARoundingMode(rounding));
  // CHECK: rounding: #prec.rounding<stochastic>
  // CHECK: is rounding: 1

  MlirType bf16 = mlirBF16TypeGet(ctx), f32 = mlirF32TypeGet(ctx);
  MlirAttribute policy = precPolicyAttrGet(ctx, bf16, f32, (MlirType){NULL});
  printAttr("policy", policy);
  printf("is policy: %d, output is null: %d\n", precAttributeIsAPolicy(policy),
         mlirTypeIsNull(precPolicyAttrGetOutput(policy)));
  mlirTypePrint(precPolicyAttrGetParam(policy), printToStdout, NULL);
  printf("\n");
  // CHECK: policy: #prec.policy<param = bf16, reduce = f32>
  // CHECK: is policy: 1, output is null: 1
  // CHECK: bf16

  MlirAttribute badPolicy =
      precPolicyAttrGet(ctx, mlirIntegerTypeGet(ctx, 32), f32, f32);
  printAttr("policy with i32", badPolicy);
  // CHECK: policy with i32: <null>

  MlirAttribute block = precScalingAttrGet(
      ctx, PrecScalingBlock, 0, 32, mlirFloat8E8M0FNUTypeGet(ctx));
  printAttr("scaling", block);
  printf("is scaling: %d, kind: %d\n", precAttributeIsAScaling(block),
         (int)precScalingAttrGetKind(block));
  // CHECK: scaling: #prec.scaling<block, block_size = 32, scale_dtype = f8E8M0FNU>
  // CHECK: is scaling: 1, kind: 2

  MlirAttribute badScaling =
      precScalingAttrGet(ctx, PrecScalingDelayed, 0, 0, (MlirType){NULL});
  printAttr("delayed without history", badScaling);
  // CHECK: diagnostic: expected delayed scaling with a history of at least 1 step, got 0
  // CHECK: delayed without history: <null>

  /* An enum value out of range is a null attribute, not an attribute that
   * prints nothing or crashes its readers. */
  printAttr("reduction 42",
            precReductionKindAttrGet(ctx, (PrecReductionKind)42));
  // CHECK: reduction 42: <null>
  printAttr("rounding 42", precRoundingModeAttrGet(ctx, (PrecRoundingMode)42));
  // CHECK: rounding 42: <null>
  printAttr("scaling 42", precScalingAttrGet(ctx, (PrecScalingKind)42, 1, 0,
                                             (MlirType){NULL}));
  // CHECK: diagnostic: expected a scaling kind of PrecScalingKind, got 42
  // CHECK: scaling 42: <null>

  /* A null pass manager is refused. */
  printf("pipeline on a null pass manager: %s\n",
         mlirLogicalResultIsFailure(precAddLowerToCPUPipeline(
             (MlirOpPassManager){NULL}, mlirStringRefCreateFromCString("")))
             ? "refused"
             : "added");
  // CHECK: pipeline on a null pass manager: refused

  // Values come from an unregistered op so that only prec and shard, the
  // dialects registered above, are needed.
  const char *source =
      "shard.grid @dp(shape = 4)\n"
      "%x = \"test.source\"() : () -> tensor<8xf32>\n"
      "%y = prec.all_gather %x on @dp gather_axis = 0 forward_dtype = bf16\n"
      "       : tensor<8xf32> -> tensor<32xbf16>\n";
  mlirContextSetAllowUnregisteredDialects(ctx, true);
  MlirModule module =
      mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(source));
  if (mlirModuleIsNull(module)) {
    printf("parse failed\n");
    return 1;
  }
  MlirOperation op = mlirModuleGetOperation(module);
  printf("verified: %d\n", mlirOperationVerify(op));
  mlirOperationPrint(op, printToStdout, NULL);
  printf("\n");
  // CHECK: verified: 1
  // CHECK: prec.all_gather %{{.*}} on @dp gather_axis = 0 forward_dtype = bf16 : tensor<8xf32> -> tensor<32xbf16>

  /* The delayed scaling without history and the scaling kind 42. */
  printf("diagnostics: %d\n", diagnostics);
  // CHECK: diagnostics: 2

  mlirModuleDestroy(module);
  mlirContextDestroy(ctx);

  /* The Gradients passes from C: constructed, and registered by name. */
  MlirContext gradCtx = mlirContextCreate();
  MlirDialectRegistry allDialects = mlirDialectRegistryCreate();
  precRegisterAllDialects(allDialects);
  mlirContextAppendDialectRegistry(gradCtx, allDialects);
  mlirDialectRegistryDestroy(allDialects);
  const char *forward =
      "func.func @square(%x: tensor<4xf32>) -> tensor<4xf32>\n"
      "    attributes {prec.differentiable} {\n"
      "  %y = arith.mulf %x, %x : tensor<4xf32>\n"
      "  return %y : tensor<4xf32>\n"
      "}\n";
  MlirModule forwardModule =
      mlirModuleCreateParse(gradCtx, mlirStringRefCreateFromCString(forward));
  if (mlirModuleIsNull(forwardModule)) {
    printf("parse failed\n");
    return 1;
  }
  MlirPassManager gradPm = mlirPassManagerCreate(gradCtx);
  mlirOpPassManagerAddOwnedPass(mlirPassManagerGetAsOpPassManager(gradPm),
                                mlirCreatePrecGradientsPrecGenerateBackward());
  MlirOperation forwardOp = mlirModuleGetOperation(forwardModule);
  if (mlirLogicalResultIsFailure(mlirPassManagerRunOnOp(gradPm, forwardOp))) {
    printf("prec-generate-backward failed\n");
    return 1;
  }
  mlirOperationPrint(forwardOp, printToStdout, NULL);
  printf("\n");
  // CHECK-LABEL: func.func @square_backward
  // CHECK-SAME: attributes {prec.backward_of = @square}
  mlirPassManagerDestroy(gradPm);

  mlirRegisterPrecGradientsPasses();
  MlirPassManager parsedPm = mlirPassManagerCreate(gradCtx);
  MlirLogicalResult parsed = mlirParsePassPipeline(
      mlirPassManagerGetAsOpPassManager(parsedPm),
      mlirStringRefCreateFromCString(
          "builtin.module(prec-declare-backward,prec-generate-backward)"),
      printToStdout, NULL);
  printf("\ngradients pipeline parsed: %d\n",
         mlirLogicalResultIsSuccess(parsed));
  // CHECK: gradients pipeline parsed: 1
  mlirPassManagerDestroy(parsedPm);
  mlirModuleDestroy(forwardModule);
  mlirContextDestroy(gradCtx);
  return 0;
}
