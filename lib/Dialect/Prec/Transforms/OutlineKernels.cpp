//===- OutlineKernels.cpp - one function per kernel on buffers ------------===//
//
// Lowering a kernel to loops and the loops to a CFG splits the block that
// holds it, and a split moves every op after the kernel to a new block: in
// a training step, one block of thousands of kernels, that is quadratic in
// time and, because the conversion journals every move, in memory. A kernel
// in a function of its own splits only that function.
//
//===----------------------------------------------------------------------===//

#include "prec/Dialect/Prec/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/RegionUtils.h"

namespace mlir::prec {
#define GEN_PASS_DEF_PRECOUTLINEKERNELS
#include "prec/Dialect/Prec/Transforms/Passes.h.inc"
} // namespace mlir::prec

using namespace mlir;
using namespace mlir::prec;

namespace {

/// Replaces `kernel` by a call of a new private function `name` holding it;
/// its operands and the values its body uses from above become arguments.
void outlineKernel(linalg::LinalgOp kernel, StringRef name,
                   SymbolTable &symbols) {
  SetVector<Value> arguments(kernel->getOperands().begin(),
                             kernel->getOperands().end());
  getUsedValuesDefinedAbove(kernel->getRegions(), arguments);

  Location loc = kernel.getLoc();
  OpBuilder builder(kernel->getContext());
  auto type = builder.getFunctionType(
      llvm::map_to_vector(arguments, [](Value v) { return v.getType(); }), {});
  auto function = func::FuncOp::create(builder, loc, name, type);
  function.setPrivate();
  symbols.insert(function);

  Block *body = function.addEntryBlock();
  builder.setInsertionPointToStart(body);
  IRMapping mapping;
  mapping.map(arguments.getArrayRef(), body->getArguments());
  builder.clone(*kernel, mapping);
  func::ReturnOp::create(builder, loc);

  builder.setInsertionPoint(kernel);
  func::CallOp::create(builder, loc, function, arguments.getArrayRef());
  kernel->erase();
}

struct PrecOutlineKernelsPass
    : public prec::impl::PrecOutlineKernelsBase<PrecOutlineKernelsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    for (auto function : llvm::to_vector(module.getOps<func::FuncOp>())) {
      SmallVector<linalg::LinalgOp> kernels;
      function.walk([&](linalg::LinalgOp kernel) {
        // Host code only: a kernel already mapped to a device stays there.
        if (kernel.hasPureBufferSemantics() &&
            !kernel->getParentOfType<gpu::LaunchOp>())
          kernels.push_back(kernel);
      });
      std::string prefix = (function.getName() + "_kernel").str();
      for (linalg::LinalgOp kernel : kernels)
        outlineKernel(kernel, prefix, symbols);
    }
  }
};

} // namespace
