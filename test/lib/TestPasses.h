//===- TestPasses.h - prec's test-only passes and pipelines -----*- C++ -*-===//
//
// What test/lib builds (PrecTestPasses): passes and pipelines that exist for
// prec's tests alone. prec-opt and prec-run register them when built with
// PREC_INCLUDE_TESTS; no product library links them.
//
//===----------------------------------------------------------------------===//

#ifndef PREC_TEST_LIB_TESTPASSES_H
#define PREC_TEST_LIB_TESTPASSES_H

#include "prec/Pipelines/Pipelines.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Pass/Pass.h"

namespace mlir::prec::test {

#define GEN_PASS_DECL
#include "TestPasses.h.inc"

#define GEN_PASS_REGISTRATION
#include "TestPasses.h.inc"

/// prec-lower-to-cuda up to the outlined kernels, whose bodies then run on
/// the host in loops over blocks and threads, launched through the same
/// driver calls on the same stream (prec-emulate-gpu-kernels, docs/GPU.md).
/// The result is host code only: it runs against the test driver of
/// runtime/test/fakes. `chip`, `features`, `format` and `opt-level` are
/// ignored.
void buildPrecLowerToCUDAEmulationPipeline(
    OpPassManager &pm, const PrecLowerToCUDAOptions &options);

/// Registers the test passes and `prec-lower-to-cuda-emulation`.
void registerTestPasses();

} // namespace mlir::prec::test

#endif // PREC_TEST_LIB_TESTPASSES_H
