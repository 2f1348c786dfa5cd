//===- LowerToCUDAEmulation.cpp - prec-lower-to-cuda, kernels on the host -===//
//
// Tests run the GPU code of --backend nccl on machines without a GPU:
// prec-lower-to-cuda up to the outlined kernels, whose bodies then run on
// the host (prec-emulate-gpu-kernels) through the test driver of
// runtime/test/fakes. prec-run lowers with it by name
// (--pipeline=prec-lower-to-cuda-emulation).
//
//===----------------------------------------------------------------------===//

#include "TestPasses.h"

#include "prec/Conversion/Passes.h"
#include "prec/Lowering/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::prec;

void mlir::prec::test::buildPrecLowerToCUDAEmulationPipeline(
    OpPassManager &pm, const PrecLowerToCUDAOptions &options) {
  populatePrecSignatureStage(pm);
  buildPrecToGPUKernelsPipeline(pm, options);

  // The kernels become host functions that the same launches call through
  // the driver; then everything is host code, lowered as on the CPU.
  pm.addPass(createPrecEmulateGPUKernels());
  // The host runs every kernel's fp8 rounding in integer arithmetic, which
  // stands for PTX's conversion on sm_89 and later (docs/GPU.md).
  PrecExpandFp8ArithOptions expandFp8;
  expandFp8.include16Bit = true;
  pm.addPass(createPrecExpandFp8Arith(expandFp8));
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  arith::ArithExpandOpsPassOptions expand;
  expand.includeBf16 = true;
  pm.addPass(arith::createArithExpandOpsPass(expand));
  // Math the kernels' gradient rules use and LLVM has no intrinsic for
  // (erf) calls libm, as on the CPU; libm has no rsqrt. Integer powers
  // become multiplications.
  math::MathExpandOpsPassOptions expandMath;
  expandMath.opMnemonics = {"rsqrt", "fpowi"};
  pm.addPass(math::createMathExpandOpsPass(expandMath));
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createSCFToControlFlowPass());
  if (options.cInterface)
    pm.nest<func::FuncOp>().addPass(createPrecRequestCInterfaces());
  pm.addPass(createGpuToLLVMConversionPass());
  pm.addPass(createConvertToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
}

void mlir::prec::test::registerTestPasses() {
  registerPrecTestPasses();
  PassPipelineRegistration<PrecLowerToCUDAOptions>(
      "prec-lower-to-cuda-emulation",
      "for tests only: prec-lower-to-cuda with the kernels run on the host "
      "(loops over blocks and threads) through the launches of the test "
      "driver in runtime/test/fakes, instead of compiled through NVVM",
      buildPrecLowerToCUDAEmulationPipeline);
}
