//===- Pipelines.h - prec's lowering pipelines ------------------*- C++ -*-===//
//
// Pipelines are API: embedders build them into their own pass managers with
// the builders below; prec-opt registers them by name.
//
//===----------------------------------------------------------------------===//

#ifndef PREC_PIPELINES_PIPELINES_H
#define PREC_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassOptions.h"

namespace mlir {
class OpPassManager;

namespace prec {

struct PrecLowerToCPUOptions
    : public PassPipelineOptions<PrecLowerToCPUOptions> {
  PassOptions::Option<bool> expandBF16{
      *this, "expand-bf16",
      llvm::cl::desc("lower bf16 conversions with integer arithmetic "
                     "(portable, bit-exact round-to-nearest-even)"),
      llvm::cl::init(true)};
};

/// Lowers a module of prec ops on tensors to the LLVM dialect for the host:
/// dtypes made explicit, collectives decomposed into kernels and runtime
/// calls, local ops to linalg, one-shot bufferization, loops, LLVM.
void buildPrecLowerToCPUPipeline(OpPassManager &pm,
                                 const PrecLowerToCPUOptions &options);

/// Registers `prec-lower-to-cpu` with the global pass pipeline registry.
void registerPrecPipelines();

} // namespace prec
} // namespace mlir

#endif // PREC_PIPELINES_PIPELINES_H
