//===- Passes.cpp - C API of prec's passes and pipelines ------------------===//

#include "prec-c/Passes.h"

#include "prec/InitAllPasses.h"

#include "mlir/CAPI/Pass.h"
#include "mlir/CAPI/Support.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"

using namespace mlir;
using namespace mlir::prec;

// The generated definitions call each pass's create/register function
// unqualified.
#ifdef __cplusplus
extern "C" {
#endif
#include "prec/Conversion/Passes.capi.cpp.inc"
#include "prec/Dialect/Prec/Transforms/Passes.capi.cpp.inc"
#include "prec/Gradients/Passes.capi.cpp.inc"
#include "prec/Lowering/Passes.capi.cpp.inc"
#ifdef __cplusplus
}
#endif

void precRegisterAllPasses(void) { registerPrecPasses(); }

/// Parses `options` into `Options` and adds the pipeline `build` makes.
template <typename Options>
static MlirLogicalResult
addPipeline(MlirOpPassManager pm, MlirStringRef options,
            void (*build)(OpPassManager &, const Options &)) {
  if (!pm.ptr || (!options.data && options.length))
    return mlirLogicalResultFailure();
  std::unique_ptr<Options> parsed = Options::createFromString(unwrap(options));
  if (!parsed)
    return mlirLogicalResultFailure();
  build(*unwrap(pm), *parsed);
  return mlirLogicalResultSuccess();
}

MlirLogicalResult precAddLowerToCPUPipeline(MlirOpPassManager pm,
                                            MlirStringRef options) {
  return addPipeline<PrecLowerToCPUOptions>(pm, options,
                                            buildPrecLowerToCPUPipeline);
}

MlirLogicalResult precAddLowerToCUDAPipeline(MlirOpPassManager pm,
                                             MlirStringRef options) {
  return addPipeline<PrecLowerToCUDAOptions>(pm, options,
                                             buildPrecLowerToCUDAPipeline);
}
