//===- Passes.h - prec's reverse-mode differentiation -----------*- C++ -*-===//
//
// The passes that generate backward functions from the gradient rules, and
// declare the ones a module calls before they are generated.
//
//===----------------------------------------------------------------------===//

#ifndef PREC_GRADIENTS_PASSES_H
#define PREC_GRADIENTS_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"

namespace mlir::prec {

#define GEN_PASS_DECL
#include "prec/Gradients/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "prec/Gradients/Passes.h.inc"

} // namespace mlir::prec

#endif // PREC_GRADIENTS_PASSES_H
