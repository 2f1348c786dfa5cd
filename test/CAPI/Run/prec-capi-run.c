/*===- prec-capi-run.c - lower and run a step through the C API -----------===*/
/* RUN: prec-capi-run-test 2>&1 | FileCheck %s
 * RUN: rm -rf %t && mkdir -p %t
 * RUN: prec-capi-run-test checkpoint %t 2>&1 | FileCheck %s --check-prefix=CKPT
 *
 * A partitioned step in upstream shard form, converted by the generated
 * convert-shard-to-prec constructor under the function's policy (bf16 wire,
 * f32 accumulation), lowered by prec-lower-to-cpu added from C, and run on 4
 * ranks of a 2x2 grid with buffers this program owns. The results are
 * checked against sums computed here in double precision, within the
 * tolerance the dtypes give.
 *
 * Then a runner: an SGD step compiled once by precRunnerCreate and run on 4
 * ranks for 2 steps (the updated weights fed back), then once more from the
 * weights the first run returned, each checked against a float64 reference.
 * A matmul accumulating into an argument that no result feeds runs for 3
 * steps, each of which must compute from the arguments as given.
 *
 * Bad input (null module, arguments, results or sizes, a result count or
 * rank the lowered entry does not return, a negative timeout) is an error
 * value with its message, never a crash. `prec-capi-run-test nccl` runs the
 * nccl backend alone (nccl-backend.test).
 *
 * `prec-capi-run-test checkpoint DIR`: precRunnerRunCheckpoint loads a
 * safetensors file written here into a step whose parameter of 10 rows is
 * sharded over 4 ranks (3 rows each, 2 of padding), runs 2 steps and saves;
 * the saved tensors must be exactly the reference (the step only doubles
 * and adds small dyadic values: every operation is exact in f32), and a
 * file with a wrong dtype or cut short is an error value.
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
#include <string.h>

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

static const char *kSgd =
    "shard.grid @dp(shape = 4)\n"
    "func.func @sgd(%w: tensor<16xf32>, %g: tensor<16xf32>) -> "
    "tensor<16xf32> {\n"
    "  %avg = prec.all_reduce %g on @dp grid_axes = [0] reduction = <avg>\n"
    "         forward_dtype = bf16 acc_dtype = f32\n"
    "         : tensor<16xf32> -> tensor<16xf32>\n"
    "  %w2 = arith.subf %w, %avg : tensor<16xf32>\n"
    "  return %w2 : tensor<16xf32>\n"
    "}\n";

#define SGD_SIZE 16

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

static int runSgdSteps(MlirContext ctx);
static int runAccumulatingSteps(MlirContext ctx);
static int createOnNccl(MlirContext ctx);
static int runCheckpoint(MlirContext ctx, const char *directory);

/* The message of a failed call, or "succeeded". */
static const char *failureMessage(MlirLogicalResult result,
                                  const char *error) {
  return mlirLogicalResultIsFailure(result) ? error : "succeeded";
}

int main(int argc, char **argv) {
  MlirContext ctx = mlirContextCreate();
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  precRegisterAllDialects(registry);
  mlirContextAppendDialectRegistry(ctx, registry);
  mlirDialectRegistryDestroy(registry);
  mlirContextAttachDiagnosticHandler(ctx, printDiagnostic, NULL, NULL);
  precRegisterAllPasses();

  if (argc > 2 && strcmp(argv[1], "checkpoint") == 0) {
    int failed = runCheckpoint(ctx, argv[2]);
    mlirContextDestroy(ctx);
    return failed;
  }
  /* `prec-capi-run-test nccl`: the nccl backend alone (nccl-backend.test). */
  if (argc > 1 && strcmp(argv[1], "nccl") == 0) {
    int failed = createOnNccl(ctx);
    mlirContextDestroy(ctx);
    return failed;
  }

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

  /* Bad input is an error value, never a crash. */
  MlirModule nullModule = {NULL};
  MlirStringRef step = mlirStringRefCreateFromCString("step");
  printf("null module: %s\n",
         failureMessage(precRunOnLocalRanks(nullModule, step, RANKS, arguments,
                                            1, results, 2, error,
                                            sizeof(error)),
                        error));
  // CHECK: null module: expected a module, got a null one
  printf("null arguments: %s\n",
         failureMessage(precRunOnLocalRanks(module, step, RANKS, NULL, 2,
                                            results, 2, error, sizeof(error)),
                        error));
  // CHECK: null arguments: expected 2 arguments per rank, got a null pointer
  printf("no results: %s\n",
         failureMessage(precRunOnLocalRanks(module, step, RANKS, arguments, 1,
                                            NULL, 0, error, sizeof(error)),
                        error));
  // CHECK: no results: @step returns 2 values, 0 result buffers given
  PrecBuffer threeResults[RANKS * 3];
  for (int i = 0; i < RANKS * 3; ++i)
    threeResults[i] = results[0];
  printf("three results: %s\n",
         failureMessage(precRunOnLocalRanks(module, step, RANKS, arguments, 1,
                                            threeResults, 3, error,
                                            sizeof(error)),
                        error));
  // CHECK: three results: @step returns 2 values, 3 result buffers given
  PrecBuffer flatResults[RANKS * 2];
  for (int i = 0; i < RANKS * 2; ++i)
    flatResults[i] = (PrecBuffer){averages[0], 1, inputSizes, sizeof(float)};
  printf("result of another rank: %s\n",
         failureMessage(precRunOnLocalRanks(module, step, RANKS, arguments, 1,
                                            flatResults, 2, error,
                                            sizeof(error)),
                        error));
  // CHECK: result of another rank: @step returns !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> as result 0, not a memref of rank 1
  PrecBuffer noSizes = arguments[RANKS - 1];
  noSizes.sizes = NULL;
  arguments[RANKS - 1] = noSizes;
  printf("null sizes: %s\n",
         failureMessage(precRunOnLocalRanks(module, step, RANKS, arguments, 1,
                                            results, 2, error, sizeof(error)),
                        error));
  // CHECK: null sizes: argument 0 of rank 3 (memref of 4-byte elements): expected the sizes of a buffer of rank 2, got a null pointer
  arguments[RANKS - 1].sizes = inputSizes;

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
  failures += runSgdSteps(ctx);
  failures += runAccumulatingSteps(ctx);
  mlirContextDestroy(ctx);
  return failures != 0;
}

/* Rank r's weights and gradient. */
static float weight(int rank, int i) {
  return (float)(0.5 * cos(0.3 + 0.71 * i + 1.7 * rank));
}
static float gradient(int rank, int i) {
  return (float)((rank + 1) * 0.613 * sin(0.4 + 1.13 * i - 0.9 * rank));
}

/* Compares the weights of every rank after `steps` SGD steps from `w0` with
 * w0 - steps * (average of the gradients over the ranks), computed in double
 * precision. Each step's average has each gradient rounded once to bf16
 * (relative 2^-8), sums in f32 ((N + 2) 2^-24, first order, relative to the
 * mean magnitude), and its result rounded once more to bf16 on the
 * all-gather's wire; the subtraction rounds to f32 (2^-24 of |w| plus the
 * updates). Returns the number of values outside the tolerance. */
static int checkSgd(float w0[RANKS][SGD_SIZE], float g[RANKS][SGD_SIZE],
                    float w[RANKS][SGD_SIZE], int steps, const char *what) {
  const double bf16 = ldexp(1.0, -8), f32 = ldexp(1.0, -24);
  int failures = 0, compared = 0;
  double worst = 0.0;
  for (int r = 0; r < RANKS; ++r)
    for (int i = 0; i < SGD_SIZE; ++i) {
      double sum = 0, magnitude = 0;
      for (int q = 0; q < RANKS; ++q) {
        sum += g[q][i];
        magnitude += fabs((double)g[q][i]);
      }
      double expected = w0[r][i] - steps * (sum / RANKS);
      double perStep =
          (2 * bf16 + bf16 * bf16 + (RANKS + 2) * f32) * magnitude / RANKS;
      double tolerance =
          steps * perStep +
          steps * f32 * (fabs((double)w0[r][i]) + steps * magnitude / RANKS);
      double error = fabs(w[r][i] - expected);
      worst = fmax(worst, error / tolerance);
      failures += !(error <= tolerance);
      ++compared;
    }
  printf("%s: compared %d values, %d outside tolerance\n", what, compared,
         failures);
  fprintf(stderr, "%s: worst error / tolerance: %.3f\n", what, worst);
  return failures;
}

static int runSgdSteps(MlirContext ctx) {
  char error[512];
  MlirModule module =
      mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(kSgd));
  if (mlirModuleIsNull(module)) {
    printf("parse failed\n");
    return 1;
  }

  /* A function the module lacks: an error, no runner. */
  PrecRunnerOptions options = precRunnerOptionsGetDefault();
  options.entry = mlirStringRefCreateFromCString("nowhere");
  PrecRunner missing = precRunnerCreate(module, &options, error, sizeof(error));
  printf("missing entry: %s\n", precRunnerIsNull(missing) ? error : "created");
  // CHECK: missing entry: no function @nowhere to run (public functions: @sgd)
  printf("null runner: %d ranks, %d arguments, %d results, run %s\n",
         (int)precRunnerGetNumRanks(missing),
         (int)precRunnerGetNumArguments(missing),
         (int)precRunnerGetNumResults(missing),
         mlirLogicalResultIsFailure(precRunnerRun(missing, 1, NULL, NULL, 0,
                                                  error, sizeof(error)))
             ? error
             : "succeeded");
  // CHECK: null runner: -1 ranks, -1 arguments, -1 results, run expected a runner, got a null one

  /* Bad input is an error value, never a crash. */
  MlirModule nullModule = {NULL};
  options = precRunnerOptionsGetDefault();
  PrecRunner none = precRunnerCreate(nullModule, &options, error,
                                     sizeof(error));
  printf("runner of a null module: %s\n",
         precRunnerIsNull(none) ? error : "created");
  // CHECK: runner of a null module: expected a module, got a null one
  options.timeoutMs = -1;
  none = precRunnerCreate(module, &options, error, sizeof(error));
  printf("negative timeout: %s\n", precRunnerIsNull(none) ? error : "created");
  // CHECK: negative timeout: expected a collective timeout of at least 0 ms (0: the runtime's default), got -1

  /* The only public function, on as many ranks as the grid has. */
  options = precRunnerOptionsGetDefault();
  PrecRunner runner = precRunnerCreate(module, &options, error, sizeof(error));
  if (precRunnerIsNull(runner)) {
    printf("runner failed: %s\n", error);
    return 1;
  }
  printf("runner: %d ranks, %d arguments, %d results\n",
         (int)precRunnerGetNumRanks(runner),
         (int)precRunnerGetNumArguments(runner),
         (int)precRunnerGetNumResults(runner));
  // CHECK: runner: 4 ranks, 2 arguments, 1 results

  static float w0[RANKS][SGD_SIZE], g[RANKS][SGD_SIZE];
  static float afterTwo[RANKS][SGD_SIZE], afterThree[RANKS][SGD_SIZE];
  int64_t sizes[] = {SGD_SIZE};
  int64_t wrongSizes[] = {SGD_SIZE / 2};
  PrecBuffer arguments[RANKS * 2], results[RANKS];
  for (int r = 0; r < RANKS; ++r) {
    for (int i = 0; i < SGD_SIZE; ++i) {
      w0[r][i] = weight(r, i);
      g[r][i] = gradient(r, i);
    }
    arguments[2 * r] = (PrecBuffer){w0[r], 1, sizes, sizeof(float)};
    arguments[2 * r + 1] = (PrecBuffer){g[r], 1, sizes, sizeof(float)};
    results[r] = (PrecBuffer){afterTwo[r], 1, sizes, sizeof(float)};
  }

  /* A buffer of other sizes is refused, naming the rank and argument. */
  arguments[2 * 3 + 1].sizes = wrongSizes;
  MlirLogicalResult mismatch =
      precRunnerRun(runner, 1, arguments, results, 0, error, sizeof(error));
  printf("wrong sizes: %s\n",
         mlirLogicalResultIsFailure(mismatch) ? error : "accepted");
  // CHECK: wrong sizes: argument 1 of rank 3 (tensor<16xf32>): expected size 16 in dimension 0, got 8
  arguments[2 * 3 + 1].sizes = NULL;
  printf("null sizes: %s\n",
         failureMessage(precRunnerRun(runner, 1, arguments, results, 0, error,
                                      sizeof(error)),
                        error));
  // CHECK: null sizes: argument 1 of rank 3 (tensor<16xf32>): expected the sizes of a buffer of rank 1, got a null pointer
  arguments[2 * 3 + 1].sizes = sizes;

  /* Two steps: the weights the first returns are the second's. */
  if (mlirLogicalResultIsFailure(
          precRunnerRun(runner, 2, arguments, results, 0, error,
                        sizeof(error)))) {
    printf("run failed: %s\n", error);
    return 1;
  }
  int failures = checkSgd(w0, g, afterTwo, 2, "2 steps");
  // CHECK: 2 steps: compared 64 values, 0 outside tolerance

  /* The same compiled step again, from the weights it returned. */
  for (int r = 0; r < RANKS; ++r) {
    arguments[2 * r].data = afterTwo[r];
    results[r].data = afterThree[r];
  }
  if (mlirLogicalResultIsFailure(
          precRunnerRun(runner, 1, arguments, results, 0, error,
                        sizeof(error)))) {
    printf("run failed: %s\n", error);
    return 1;
  }
  failures += checkSgd(w0, g, afterThree, 3, "1 more step");
  // CHECK: 1 more step: compared 64 values, 0 outside tolerance

  precRunnerDestroy(runner);
  mlirModuleDestroy(module);
  return failures;
}

/* C + A B: the matmul accumulates into its init, argument 2, which no result
 * feeds (the result's type is not argument 0's). */
static const char *kAccumulate =
    "func.func @acc(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>,\n"
    "               %c: tensor<4x4xf32>) -> tensor<4x4xf32> {\n"
    "  %r = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x4xf32>)\n"
    "                     outs(%c : tensor<4x4xf32>) -> tensor<4x4xf32>\n"
    "  return %r : tensor<4x4xf32>\n"
    "}\n";

#define ACC_RANKS 2

/* Three steps of @acc on 2 ranks: every step computes from the arguments as
 * given, so the result is the one step's bit for bit, and C + A B within
 * f32's tolerance: 9 terms summed in f32 in any order, off by at most
 * 8 u sum(|terms|), plus u |product| for each product rounded (u = 2^-24).
 * A step that wrote into C would return C + 3 A B. */
static int runAccumulatingSteps(MlirContext ctx) {
  char error[512];
  MlirModule module =
      mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(kAccumulate));
  if (mlirModuleIsNull(module)) {
    printf("parse failed\n");
    return 1;
  }
  PrecRunnerOptions options = precRunnerOptionsGetDefault();
  options.numRanks = ACC_RANKS;
  PrecRunner runner = precRunnerCreate(module, &options, error, sizeof(error));
  if (precRunnerIsNull(runner)) {
    printf("runner failed: %s\n", error);
    return 1;
  }
  static float a[ACC_RANKS][32], b[ACC_RANKS][32], c[ACC_RANKS][16];
  static float one[ACC_RANKS][16], three[ACC_RANKS][16];
  int64_t aSizes[] = {4, 8}, bSizes[] = {8, 4}, cSizes[] = {4, 4};
  PrecBuffer arguments[ACC_RANKS * 3], results[ACC_RANKS];
  for (int r = 0; r < ACC_RANKS; ++r) {
    for (int i = 0; i < 32; ++i) {
      a[r][i] = input(r, i);
      b[r][i] = input(r + 2, i);
    }
    for (int i = 0; i < 16; ++i)
      c[r][i] = input(r + 4, i);
    arguments[3 * r] = (PrecBuffer){a[r], 2, aSizes, sizeof(float)};
    arguments[3 * r + 1] = (PrecBuffer){b[r], 2, bSizes, sizeof(float)};
    arguments[3 * r + 2] = (PrecBuffer){c[r], 2, cSizes, sizeof(float)};
    results[r] = (PrecBuffer){one[r], 2, cSizes, sizeof(float)};
  }
  if (mlirLogicalResultIsFailure(precRunnerRun(runner, 1, arguments, results,
                                               0, error, sizeof(error)))) {
    printf("run failed: %s\n", error);
    return 1;
  }
  for (int r = 0; r < ACC_RANKS; ++r)
    results[r].data = three[r];
  if (mlirLogicalResultIsFailure(precRunnerRun(runner, 3, arguments, results,
                                               0, error, sizeof(error)))) {
    printf("run failed: %s\n", error);
    return 1;
  }
  const double u = ldexp(1.0, -24);
  int compared = 0, failures = 0, unlike = 0;
  for (int r = 0; r < ACC_RANKS; ++r)
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j) {
        double sum = c[r][4 * i + j], magnitude = fabs(sum), products = 0;
        for (int k = 0; k < 8; ++k) {
          double product = (double)a[r][8 * i + k] * b[r][4 * k + j];
          sum += product;
          products += fabs(product);
        }
        magnitude += products;
        double tolerance = 8 * u * magnitude + u * products;
        failures += !(fabs(three[r][4 * i + j] - sum) <= tolerance);
        unlike += memcmp(&three[r][4 * i + j], &one[r][4 * i + j],
                         sizeof(float)) != 0;
        ++compared;
      }
  printf("3 steps: compared %d values, %d outside tolerance, %d unlike 1 "
         "step\n",
         compared, failures, unlike);
  // CHECK: 3 steps: compared 32 values, 0 outside tolerance, 0 unlike 1 step
  precRunnerDestroy(runner);
  mlirModuleDestroy(module);
  return failures + unlike;
}

/* The SGD step on the nccl backend: precRunnerCreate lowers it with
 * prec-lower-to-cuda (whose GPU module translates to LLVM IR) and checks
 * that the runtime finds the GPUs; the test doubles then refuse the kernels
 * when a run loads them. */
static int createOnNccl(MlirContext ctx) {
  char error[512];
  MlirModule module =
      mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(kSgd));
  if (mlirModuleIsNull(module)) {
    printf("parse failed\n");
    return 1;
  }
  PrecRunnerOptions options = precRunnerOptionsGetDefault();
  options.backend = PREC_RUNNER_BACKEND_NCCL;
  PrecRunner runner = precRunnerCreate(module, &options, error, sizeof(error));
  if (precRunnerIsNull(runner)) {
    printf("nccl runner failed: %s\n", error);
    mlirModuleDestroy(module);
    return 1;
  }
  printf("nccl runner: %d ranks\n", (int)precRunnerGetNumRanks(runner));
  MlirLogicalResult run =
      precRunnerRun(runner, 1, NULL, NULL, 0, error, sizeof(error));
  printf("nccl run: %s\n", failureMessage(run, error));
  precRunnerDestroy(runner);
  mlirModuleDestroy(module);
  return 0;
}

/* exp_avg' = exp_avg + w, w' = 2 w, step' = step + 1; w of 10 rows sharded
 * over 4 ranks. */
static const char *kCheckpointStep =
    "shard.grid @fsdp(shape = 4)\n"
    "func.func @step(\n"
    "    %w: tensor<3x2xf32> {prec.name = \"w\", prec.shard = {grid = @fsdp, "
    "grid_axes = [0], dim = 0 : i64, size = 10 : i64}},\n"
    "    %m: tensor<3x2xf32> {prec.name = \"exp_avg.w\", prec.shard = {grid = "
    "@fsdp, grid_axes = [0], dim = 0 : i64, size = 10 : i64}},\n"
    "    %step: f32 {prec.name = \"step\", prec.default = 0.0 : f32})\n"
    "    -> (tensor<3x2xf32>, tensor<3x2xf32>, f32) {\n"
    "  %m2 = arith.addf %m, %w : tensor<3x2xf32>\n"
    "  %w2 = arith.addf %w, %w : tensor<3x2xf32>\n"
    "  %one = arith.constant 1.0 : f32\n"
    "  %s2 = arith.addf %step, %one : f32\n"
    "  return %w2, %m2, %s2 : tensor<3x2xf32>, tensor<3x2xf32>, f32\n"
    "}\n";

/* Writes a safetensors file of one tensor "w" of `dtype` and shape [10, 2]
 * holding `values` (f32) and a 0-d "step", cut short by `cut` bytes. */
static int writeCheckpoint(const char *path, const char *dtype,
                           const float *values, float step, int cut) {
  char header[256];
  int length = snprintf(header, sizeof header,
                        "{\"step\":{\"dtype\":\"F32\",\"shape\":[],"
                        "\"data_offsets\":[80,84]},\"w\":{\"dtype\":\"%s\","
                        "\"shape\":[10,2],\"data_offsets\":[0,80]}}",
                        dtype);
  while (length % 8)
    header[length++] = ' ';
  unsigned char size[8];
  for (int i = 0; i < 8; ++i)
    size[i] = (unsigned char)(((uint64_t)length >> (8 * i)) & 0xff);
  unsigned char data[84];
  memcpy(data, values, 80);
  memcpy(data + 80, &step, 4);
  FILE *file = fopen(path, "wb");
  if (!file)
    return 1;
  fwrite(size, 1, 8, file);
  fwrite(header, 1, length, file);
  fwrite(data, 1, sizeof data - cut, file);
  return fclose(file) != 0;
}

/* The tensor `name` of the safetensors file `path` into `out` (at most
 * `capacity` bytes); its byte count, or -1. */
static long readTensor(const char *path, const char *name, void *out,
                       long capacity, char *shape, size_t shapeSize) {
  FILE *file = fopen(path, "rb");
  if (!file)
    return -1;
  unsigned char size[8];
  if (fread(size, 1, 8, file) != 8) {
    fclose(file);
    return -1;
  }
  uint64_t length = 0;
  for (int i = 0; i < 8; ++i)
    length |= (uint64_t)size[i] << (8 * i);
  char *header = calloc(length + 1, 1);
  long begin = -1, end = -1;
  if (fread(header, 1, length, file) == length) {
    char key[64];
    snprintf(key, sizeof key, "\"%s\":", name);
    const char *entry = strstr(header, key);
    const char *offsets = entry ? strstr(entry, "\"data_offsets\":[") : NULL;
    const char *dims = entry ? strstr(entry, "\"shape\":[") : NULL;
    if (offsets)
      sscanf(offsets, "\"data_offsets\":[%ld,%ld]", &begin, &end);
    if (dims) {
      size_t n = strcspn(dims + 9, "]");
      snprintf(shape, shapeSize, "[%.*s]", (int)n, dims + 9);
    }
  }
  long bytes = -1;
  if (begin >= 0 && end - begin <= capacity &&
      fseek(file, (long)(8 + length + begin), SEEK_SET) == 0 &&
      fread(out, 1, end - begin, file) == (size_t)(end - begin))
    bytes = end - begin;
  free(header);
  fclose(file);
  return bytes;
}

static int runCheckpoint(MlirContext ctx, const char *directory) {
  char error[512], load[512], save[512], bad[512];
  MlirModule module = mlirModuleCreateParse(
      ctx, mlirStringRefCreateFromCString(kCheckpointStep));
  if (mlirModuleIsNull(module)) {
    printf("parse failed\n");
    return 1;
  }
  PrecRunnerOptions options = precRunnerOptionsGetDefault();
  PrecRunner runner = precRunnerCreate(module, &options, error, sizeof(error));
  if (precRunnerIsNull(runner)) {
    printf("runner failed: %s\n", error);
    return 1;
  }
  float w[20];
  for (int i = 0; i < 20; ++i)
    w[i] = (float)((i % 7) - 3) * 0.375f + 0.125f * (float)(i / 7);
  snprintf(load, sizeof load, "%s/init.safetensors", directory);
  snprintf(save, sizeof save, "%s/saved.safetensors", directory);
  if (writeCheckpoint(load, "F32", w, 5.0f, 0)) {
    printf("cannot write %s\n", load);
    return 1;
  }
  MlirLogicalResult run = precRunnerRunCheckpoint(
      runner, 2, mlirStringRefCreateFromCString(load),
      mlirStringRefCreateFromCString(save), 0, error, sizeof error);
  printf("checkpoint run: %s\n", failureMessage(run, error));
  // CKPT: checkpoint run: succeeded
  /* After 2 steps: w = 4 w0, exp_avg = w0 + 2 w0 (it started at zero, the
   * file has none), step = 5 + 2. */
  float got[20], step = 0;
  char shape[64] = "", stepShape[64] = "", momentShape[64] = "";
  int failures = 0;
  failures += readTensor(save, "w", got, sizeof got, shape, sizeof shape) != 80;
  for (int i = 0; i < 20; ++i)
    failures += got[i] != 4 * w[i];
  failures += readTensor(save, "exp_avg.w", got, sizeof got, momentShape,
                         sizeof momentShape) != 80;
  for (int i = 0; i < 20; ++i)
    failures += got[i] != 3 * w[i];
  failures += readTensor(save, "step", &step, sizeof step, stepShape,
                         sizeof stepShape) != 4;
  failures += step != 7.0f;
  printf("saved: w %s, exp_avg.w %s, step %s = %g; %d mismatches\n", shape,
         momentShape, stepShape, step, failures);
  // CKPT: saved: w [10,2], exp_avg.w [10,2], step [] = 7; 0 mismatches

  snprintf(bad, sizeof bad, "%s/bf16.safetensors", directory);
  writeCheckpoint(bad, "BF16", w, 5.0f, 0);
  run = precRunnerRunCheckpoint(runner, 1, mlirStringRefCreateFromCString(bad),
                                mlirStringRefCreate(NULL, 0), 0, error,
                                sizeof error);
  printf("wrong dtype: %s\n", failureMessage(run, error));
  // CKPT: wrong dtype: {{.*}}bf16.safetensors: not a valid safetensors file: tensor 'w': its data_offsets [0, 80] hold 80 bytes, its dtype BF16 and shape [10, 2] need 40
  snprintf(bad, sizeof bad, "%s/short.safetensors", directory);
  writeCheckpoint(bad, "F32", w, 5.0f, 3);
  run = precRunnerRunCheckpoint(runner, 1, mlirStringRefCreateFromCString(bad),
                                mlirStringRefCreate(NULL, 0), 0, error,
                                sizeof error);
  printf("cut short: %s\n", failureMessage(run, error));
  // CKPT: cut short: {{.*}}short.safetensors: not a valid safetensors file: tensor 'step': its data_offsets [80, 84] end beyond the 81 bytes of data in the file (truncated?)
  run = precRunnerRunCheckpoint((PrecRunner){NULL}, 1,
                                mlirStringRefCreate(NULL, 0),
                                mlirStringRefCreate(NULL, 0), 0, error,
                                sizeof error);
  printf("null runner: %s\n", failureMessage(run, error));
  // CKPT: null runner: expected a runner, got a null one
  precRunnerDestroy(runner);
  mlirModuleDestroy(module);
  return failures;
}
