//===- InitAllPasses.h - register prec's passes -----------------*- C++ -*-===//

#ifndef PREC_INITALLPASSES_H
#define PREC_INITALLPASSES_H

#include "prec/Conversion/Passes.h"
#include "prec/Dialect/Prec/Transforms/Passes.h"
#include "prec/Gradients/Passes.h"
#include "prec/Lowering/Passes.h"
#include "prec/Pipelines/Pipelines.h"

namespace mlir::prec {

/// Registers every prec pass and prec's named pipelines with the global
/// registries.
inline void registerPrecPasses() {
  registerPrecTransformsPasses();
  registerPrecGradientsPasses();
  registerPrecLoweringPasses();
  registerPrecConversionPasses();
  registerPrecPipelines();
}

} // namespace mlir::prec

#endif // PREC_INITALLPASSES_H
