//===- Passes.h - prec's lowering machinery ---------------------*- C++ -*-===//
//
// Passes that prepare a lowered program for execution (kernel fusion,
// buffers at function boundaries, deallocation, kernels outlined into
// functions and their profiling, float arithmetic LLVM lacks), independent of
// prec's precision semantics.
//
//===----------------------------------------------------------------------===//

#ifndef PREC_LOWERING_PASSES_H
#define PREC_LOWERING_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Pass/Pass.h"

namespace mlir::prec {

#define GEN_PASS_DECL
#include "prec/Lowering/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "prec/Lowering/Passes.h.inc"

} // namespace mlir::prec

#endif // PREC_LOWERING_PASSES_H
