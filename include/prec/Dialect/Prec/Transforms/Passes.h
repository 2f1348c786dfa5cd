//===- Passes.h - prec transformation passes --------------------*- C++ -*-===//

#ifndef PREC_DIALECT_PREC_TRANSFORMS_PASSES_H
#define PREC_DIALECT_PREC_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Shard/IR/ShardDialect.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"

namespace mlir::prec {

#define GEN_PASS_DECL
#include "prec/Dialect/Prec/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "prec/Dialect/Prec/Transforms/Passes.h.inc"

} // namespace mlir::prec

#endif // PREC_DIALECT_PREC_TRANSFORMS_PASSES_H
