/*===- prec-c/Passes.h - C API of prec's passes and pipelines -----*- C -*-===*\
|*                                                                            *|
|* Registration and constructors of every prec pass (generated from the      *|
|* passes' TableGen), and prec's lowering pipelines added to a pass manager. *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef PREC_C_PASSES_H
#define PREC_C_PASSES_H

#include "mlir-c/Pass.h"
#include "mlir-c/Support.h"

#include "prec/Conversion/Passes.capi.h.inc"
#include "prec/Dialect/Prec/Transforms/Passes.capi.h.inc"
#include "prec/Gradients/Passes.capi.h.inc"
#include "prec/Lowering/Passes.capi.h.inc"

#ifdef __cplusplus
extern "C" {
#endif

/// Registers every prec pass and prec's named pipelines with MLIR's global
/// registries (as prec-opt does), so that textual pipelines
/// (mlirParsePassPipeline) can name them.
MLIR_CAPI_EXPORTED void precRegisterAllPasses(void);

/// Adds `prec-lower-to-cpu` to `pm`, which must be anchored on
/// builtin.module. `options` is the pipeline's option string as on the
/// command line (`expand-bf16=false`), empty for the defaults. Fails,
/// reporting through the context's diagnostics, on an invalid option string,
/// and on a null pass manager.
MLIR_CAPI_EXPORTED MlirLogicalResult
precAddLowerToCPUPipeline(MlirOpPassManager pm, MlirStringRef options);

/// Adds `prec-lower-to-cuda` to `pm` (builtin.module), with options as on
/// the command line (`chip=sm_90 format=isa`).
MLIR_CAPI_EXPORTED MlirLogicalResult
precAddLowerToCUDAPipeline(MlirOpPassManager pm, MlirStringRef options);

#ifdef __cplusplus
}
#endif

#endif /* PREC_C_PASSES_H */
