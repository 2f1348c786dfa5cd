//===- GenerateBackward.h - declaring backward functions --------*- C++ -*-===//
//
// What a driver can do for `prec-generate-backward` between parsing a module
// and verifying it.
//
//===----------------------------------------------------------------------===//

#ifndef PREC_DIALECT_PREC_TRANSFORMS_GENERATEBACKWARD_H
#define PREC_DIALECT_PREC_TRANSFORMS_GENERATEBACKWARD_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

namespace mlir::prec {

/// Declares `@f_backward` for every function `@f` marked
/// `prec.differentiable` whose backward function the module refers to but
/// does not declare, with the signature `prec-generate-backward` gives it,
/// so that the module calls it before it is generated. Fails with a
/// diagnostic when the module refers to an undeclared `@f_backward` of a
/// function `@f` that is not marked. Runs on a module that has been parsed
/// but not yet verified, since the verifier rejects a call to an undeclared
/// function.
LogicalResult declareCalledBackwardFunctions(ModuleOp module);

} // namespace mlir::prec

#endif // PREC_DIALECT_PREC_TRANSFORMS_GENERATEBACKWARD_H
