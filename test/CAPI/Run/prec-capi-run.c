/*===- prec-capi-run.c - lower and run a step through the C API -----------===*/
/* RUN: prec-capi-run-test 2>&1 | FileCheck %s
 *
 * A partitioned step in upstream shard form, converted by the generated
 * convert-shard-to-prec constructor under the function's policy (bf16 wire,
 * f32 accumulation), lowered by prec-lower-to-cpu added from C, and run on 4
 * ranks of a 2x2 grid with buffers this program owns. The results are
 * checked against sums computed here in double precision, within the
 * tolerance the dtypes give.
 */

#include "prec-c/Dialects.h"
#include "prec-c/Passes.h"
#include "prec-c/Runner.h"

#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define RANKS 4
#define ROWS 8
#define COLS 4
#define SLICE_ROWS (ROWS / RANKS)

static const char *kStep =
    "shard.grid @grid(shape = 2x2)\n"
    "func.func @step(%x: tensor<8x4xf32>) -> (tensor<8x4xf32>, "
    "tensor<2x4xf32>)\n"
    "    attributes {prec.policy = #prec.policy<reduce = bf16>} {\n"
    "  %avg = shard.all_reduce %x on @grid grid_axes = [1] reduction = "
    "average\n"
    "         : tensor<8x4xf32> -> tensor<8x4xf32>\n"
    "  %sum = shard.reduce_scatter %x on @grid grid_axes = [0, 1] "
    "scatter_axis = 0\n"
    "         : tensor<8x4xf32> -> tensor<2x4xf32>\n"
    "  return %avg, %sum : tensor<8x4xf32>, tensor<2x4xf32>\n"
    "}\n";

static void printToStderr(MlirStringRef text, void *userData) {
  (void)userData;
  fwrite(text.data, 1, text.length, stderr);
}

static MlirLogicalResult printDiagnostic(MlirDiagnostic diagnostic,
                                         void *userData) {
  (void)userData;
  fprintf(stderr, "diagnostic: ");
  mlirDiagnosticPrint(diagnostic, printToStderr, NULL);
  fprintf(stderr, "\n");
  return mlirLogicalResultSuccess();
}

/* Rank r's input: distinct magnitudes and signs per rank and element, most
 * not representable in bf16. */
static float input(int rank, int i) {
  return (float)((rank + 1) * 0.731 * sin(1.0 + 0.917 * i + 2.3 * rank));
}

int main(void) {
  MlirContext ctx = mlirContextCreate();
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  precRegisterAllDialects(registry);
  mlirContextAppendDialectRegistry(ctx, registry);
  mlirDialectRegistryDestroy(registry);
  mlirContextAttachDiagnosticHandler(ctx, printDiagnostic, NULL, NULL);
  precRegisterAllPasses();

  MlirModule module =
      mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(kStep));
  if (mlirModuleIsNull(module)) {
    printf("parse failed\n");
    return 1;
  }

  /* A bad option string is an error, not a crash. */
  MlirPassManager rejected = mlirPassManagerCreate(ctx);
  MlirLogicalResult badOptions = precAddLowerToCPUPipeline(
      mlirPassManagerGetAsOpPassManager(rejected),
      mlirStringRefCreateFromCString("no-such-option=1"));
  printf("bad options: %s\n",
         mlirLogicalResultIsFailure(badOptions) ? "rejected" : "accepted");
  // CHECK: bad options: rejected
  mlirPassManagerDestroy(rejected);

  MlirPassManager pm = mlirPassManagerCreate(ctx);
  MlirOpPassManager modulePm = mlirPassManagerGetAsOpPassManager(pm);
  mlirOpPassManagerAddOwnedPass(modulePm,
                                mlirCreatePrecConversionConvertShardToPrec());
  if (mlirLogicalResultIsFailure(precAddLowerToCPUPipeline(
          modulePm, mlirStringRefCreateFromCString(""))))
    return 1;
  if (mlirLogicalResultIsFailure(
          mlirPassManagerRunOnOp(pm, mlirModuleGetOperation(module)))) {
    printf("lowering failed\n");
    return 1;
  }
  printf("lowered\n");
  // CHECK: lowered

  static float inputs[RANKS][ROWS * COLS];
  static float averages[RANKS][ROWS * COLS];
  static float sums[RANKS][SLICE_ROWS * COLS];
  int64_t inputSizes[] = {ROWS, COLS};
  int64_t sliceSizes[] = {SLICE_ROWS, COLS};
  PrecBuffer arguments[RANKS];
  PrecBuffer results[RANKS * 2];
  for (int r = 0; r < RANKS; ++r) {
    for (int i = 0; i < ROWS * COLS; ++i)
      inputs[r][i] = input(r, i);
    arguments[r] = (PrecBuffer){inputs[r], 2, inputSizes, sizeof(float)};
    results[2 * r] = (PrecBuffer){averages[r], 2, inputSizes, sizeof(float)};
    results[2 * r + 1] = (PrecBuffer){sums[r], 2, sliceSizes, sizeof(float)};
  }

  char error[512];
  /* Buffers that do not describe the entry's parameters are refused. */
  MlirLogicalResult mismatch = precRunOnLocalRanks(
      module, mlirStringRefCreateFromCString("step"), RANKS, arguments, 0,
      results, 2, error, sizeof(error));
  printf("mismatch: %s\n",
         mlirLogicalResultIsFailure(mismatch) ? error : "accepted");
  // CHECK: mismatch: @step takes 7 lowered parameters, the 0 buffers given describe 0

  if (mlirLogicalResultIsFailure(precRunOnLocalRanks(
          module, mlirStringRefCreateFromCString("step"), RANKS, arguments, 1,
          results, 2, error, sizeof(error)))) {
    printf("run failed: %s\n", error);
    return 1;
  }

  /* Each input rounded once to bf16 (relative 2^-8), sums of n terms in f32
   * ((n + 1) 2^-24 relative to the sum of magnitudes, first order). The
   * all-reduce gathers its reduced slices on the bf16 wire: one more 2^-8
   * of at most the magnitude. */
  const double bf16 = ldexp(1.0, -8), f32 = ldexp(1.0, -24);
  int compared = 0, failures = 0;
  double worst = 0.0;
  for (int r = 0; r < RANKS; ++r) {
    /* grid_axes = [1]: the ranks that share r's row of the 2x2 grid. */
    int first = (r / 2) * 2;
    for (int i = 0; i < ROWS * COLS; ++i) {
      double sum = inputs[first][i] + (double)inputs[first + 1][i];
      double magnitude =
          fabs((double)inputs[first][i]) + fabs((double)inputs[first + 1][i]);
      double tolerance = (2 * bf16 + bf16 * bf16 + 3 * f32) * magnitude / 2;
      double error = fabs(averages[r][i] - sum / 2);
      worst = fmax(worst, error / tolerance);
      failures += !(error <= tolerance);
      ++compared;
    }
    /* grid_axes = [0, 1]: all ranks; rank r keeps rows 2r and 2r + 1. */
    for (int i = 0; i < SLICE_ROWS * COLS; ++i) {
      double sum = 0, magnitude = 0;
      for (int q = 0; q < RANKS; ++q) {
        sum += inputs[q][r * SLICE_ROWS * COLS + i];
        magnitude += fabs((double)inputs[q][r * SLICE_ROWS * COLS + i]);
      }
      double tolerance = (bf16 + (RANKS + 1) * f32) * magnitude;
      double error = fabs(sums[r][i] - sum);
      worst = fmax(worst, error / tolerance);
      failures += !(error <= tolerance);
      ++compared;
    }
  }
  printf("compared %d values, %d outside tolerance\n", compared, failures);
  // CHECK: compared 160 values, 0 outside tolerance
  fprintf(stderr, "worst error / tolerance: %.3f\n", worst);

  mlirPassManagerDestroy(pm);
  mlirModuleDestroy(module);
  mlirContextDestroy(ctx);
  return failures != 0;
}
