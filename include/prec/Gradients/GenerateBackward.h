//===- GenerateBackward.h - declaring backward functions --------*- C++ -*-===//
//
// What a driver can do for `prec-generate-backward` between parsing a module
// and verifying it.
//
//===----------------------------------------------------------------------===//

#ifndef PREC_GRADIENTS_GENERATEBACKWARD_H
#define PREC_GRADIENTS_GENERATEBACKWARD_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

#include <string>

namespace mlir {
class OpPassManager;
} // namespace mlir

namespace mlir::prec {

/// Declares `@f_backward` for every function `@f` that
/// `prec-generate-backward` differentiates (named in `functions`, or when
/// that is empty, marked `prec.differentiable`) whose backward function the
/// module calls but does not declare, with the signature the pass gives it,
/// so that the module calls it before it is generated. Fails with a
/// diagnostic that says what would generate it when the module calls an
/// undeclared `@f_backward` of a function `@f` the pass does not
/// differentiate. Runs on a module that has been parsed but not yet
/// verified, since the verifier rejects a call to an undeclared function.
LogicalResult
declareCalledBackwardFunctions(ModuleOp module,
                               ArrayRef<std::string> functions = {});

/// The functions named by the `functions` option of the
/// `prec-generate-backward` passes at the top level of `pm`.
SmallVector<std::string> getFunctionsNamedToDifferentiate(OpPassManager &pm);

} // namespace mlir::prec

#endif // PREC_GRADIENTS_GENERATEBACKWARD_H
