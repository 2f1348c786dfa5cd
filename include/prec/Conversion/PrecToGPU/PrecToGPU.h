//===- PrecToGPU.h - prec's kernels and host code for the GPU ---*- C++ -*-===//
//
// The GPU half of prec-lower-to-cuda: elementwise kernels mapped to GPU
// launches (prec-map-elementwise-to-gpu), math ops as correctly rounded
// NVVM intrinsics (prec-gpu-math-to-intrinsics), host code staged through
// prec's runtime (prec-gpu-host-to-runtime). The passes are declared in
// prec/Conversion/Passes.td; the tests' emulation of the kernels on the host
// is test/lib's.
//
//===----------------------------------------------------------------------===//

#ifndef PREC_CONVERSION_PRECTOGPU_PRECTOGPU_H
#define PREC_CONVERSION_PRECTOGPU_PRECTOGPU_H

#include "mlir/IR/PatternMatch.h"

namespace mlir::prec {

/// Patterns rewriting `math.sqrt`, `math.fma` and `math.absf` on f32 or f64
/// (scalars or vectors) into calls of the LLVM intrinsics that NVPTX lowers
/// to correctly rounded instructions (`sqrt.rn`, `fma.rn`, `abs`), rather
/// than the libdevice calls of convert-gpu-to-nvvm, which link only where
/// the CUDA toolkit is installed.
void populateGPUMathToIntrinsicsPatterns(RewritePatternSet &patterns);

} // namespace mlir::prec

#endif // PREC_CONVERSION_PRECTOGPU_PRECTOGPU_H
