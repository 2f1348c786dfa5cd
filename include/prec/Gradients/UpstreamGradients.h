//===- UpstreamGradients.h - gradient rules of upstream ops -----*- C++ -*-===//
//
// The BackwardOpInterface models prec attaches to upstream MLIR ops so that
// prec-generate-backward can differentiate the models frontends write in
// linalg, arith and math. They live outside prec's IR library, as upstream
// keeps its dialects' external models out of the dialects they extend.
//
//===----------------------------------------------------------------------===//

#ifndef PREC_GRADIENTS_UPSTREAMGRADIENTS_H
#define PREC_GRADIENTS_UPSTREAMGRADIENTS_H

#include "mlir/IR/DialectRegistry.h"

namespace mlir::prec {

/// Attaches the gradient rules of upstream ops: the linalg contractions,
/// softmax, transpose and fill (registerLinalgBackwardModels) and the
/// elementwise table (registerElementwiseBackwardModels), and the tensor
/// reshapes and slices (registerTensorBackwardModels).
void registerUpstreamBackwardOpInterfaceExternalModels(
    DialectRegistry &registry);

/// The rules of `linalg.matmul`, `linalg.batch_matmul`, `linalg.softmax`,
/// `linalg.transpose`, `linalg.fill` and `tensor.cast`.
void registerLinalgBackwardModels(DialectRegistry &registry);

/// Attaches the rules of the elementwise table (ElementwiseGradients.cpp) to
/// the arith and math ops it lists, on tensors, and the rule of linalg ops
/// with a body of such ops (linalg.generic, map, reduce, broadcast and the
/// elementwise named ops) to those.
void registerElementwiseBackwardModels(DialectRegistry &registry);

/// The rules of the tensor table (TensorGradients.cpp): `tensor.expand_shape`,
/// `collapse_shape`, `extract_slice`, `insert_slice`, `concat` and `pad`.
void registerTensorBackwardModels(DialectRegistry &registry);

} // namespace mlir::prec

#endif // PREC_GRADIENTS_UPSTREAMGRADIENTS_H
