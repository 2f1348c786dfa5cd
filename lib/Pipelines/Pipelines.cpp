//===- Pipelines.cpp - prec's lowering pipelines --------------------------===//

#include "prec/Pipelines/Pipelines.h"

#include "prec/Conversion/Passes.h"
#include "prec/Dialect/Prec/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void mlir::prec::buildPrecLowerToCPUPipeline(
    OpPassManager &pm, const PrecLowerToCPUOptions &options) {
  // Whole-module precision semantics: policies, generated backward functions.
  pm.addPass(createPrecApplyPolicy());
  pm.addPass(createPrecGenerateBackward());

  // prec on tensors: explicit dtypes and divisors, few large collectives,
  // then kernels and transports.
  OpPassManager &funcs = pm.nest<func::FuncOp>();
  // The accumulation schedule sets its own divisors, so it runs before
  // prec-divide-factors would divide each collective as if it ran alone.
  funcs.addPass(createPrecAccumulateMicrobatches());
  funcs.addPass(createPrecInferPrecision());
  funcs.addPass(createPrecDivideFactors());
  funcs.addPass(createPrecBucketCollectives());
  funcs.addPass(createPrecDecomposeCollectives());
  funcs.addPass(createConvertPrecToLinalg());
  funcs.addPass(createConvertElementwiseToLinalgPass());
  pm.addPass(createConvertPrecToRuntime());
  // No CSE before bufferization: it would merge the `tensor.empty` and
  // `linalg.fill` destinations of all layers into one value with thousands of
  // uses, which one-shot bufferization's conflict analysis handles in cubic
  // time (and resolves with copies). The deallocation pipeline runs CSE on
  // buffers.
  pm.addPass(createCanonicalizerPass());

  // Tensors to buffers.
  bufferization::OneShotBufferizePassOptions bufferization;
  bufferization.bufferizeFunctionBoundaries = true;
  bufferization.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferization));
  bufferization::BufferDeallocationPipelineOptions deallocation;
  bufferization::buildBufferDeallocationPipeline(pm, deallocation);
  // The copies deallocation inserts (a returned argument, for one) become
  // memref copies.
  pm.addPass(createConvertBufferizationToMemRefPass());

  // Buffers to loops to LLVM.
  pm.nest<func::FuncOp>().addPass(createConvertLinalgToLoopsPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  if (options.expandBF16) {
    arith::ArithExpandOpsPassOptions expand;
    expand.includeBf16 = true;
    pm.addPass(arith::createArithExpandOpsPass(expand));
  }
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
}

void mlir::prec::registerPrecPipelines() {
  PassPipelineRegistration<PrecLowerToCPUOptions>(
      "prec-lower-to-cpu",
      "lower prec on tensors to the LLVM dialect for the host, calling the "
      "precrt runtime for communication",
      buildPrecLowerToCPUPipeline);
}
