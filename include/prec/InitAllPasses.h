//===- InitAllPasses.h - register prec's passes -----------------*- C++ -*-===//

#ifndef PREC_INITALLPASSES_H
#define PREC_INITALLPASSES_H

#include "prec/Dialect/Prec/Transforms/Passes.h"

namespace mlir::prec {

/// Registers every prec pass (and, as they exist, prec's named pipelines)
/// with the global pass registry.
inline void registerPrecPasses() { registerPrecTransformsPasses(); }

} // namespace mlir::prec

#endif // PREC_INITALLPASSES_H
