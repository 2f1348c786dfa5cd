//===- Passes.h - prec conversion passes ------------------------*- C++ -*-===//

#ifndef PREC_CONVERSION_PASSES_H
#define PREC_CONVERSION_PASSES_H

#include "prec/Conversion/PrecToLinalg/PrecToLinalg.h"
#include "prec/Conversion/PrecToRuntime/PrecToRuntime.h"
#include "prec/Conversion/ShardToPrec/ShardToPrec.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "prec/Dialect/Prec/IR/PrecDialect.h"
#include "mlir/Pass/Pass.h"

namespace mlir::prec {

#define GEN_PASS_DECL
#include "prec/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "prec/Conversion/Passes.h.inc"

} // namespace mlir::prec

#endif // PREC_CONVERSION_PASSES_H
