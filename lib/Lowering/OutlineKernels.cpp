//===- OutlineKernels.cpp - one function per kernel on buffers ------------===//
//
// Lowering a kernel to loops and the loops to a CFG splits the block that
// holds it, and a split moves every op after the kernel to a new block: in
// a training step, one block of thousands of kernels, that is quadratic in
// time and, because the conversion journals every move, in memory. A kernel
// in a function of its own splits only that function.
//
//===----------------------------------------------------------------------===//

#include "prec/Lowering/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/RegionUtils.h"

namespace mlir::prec {
#define GEN_PASS_DEF_PRECOUTLINEKERNELS
#include "prec/Lowering/Passes.h.inc"
} // namespace mlir::prec

using namespace mlir;
using namespace mlir::prec;

namespace {

/// Outlined kernels by a hash of their function, to reuse one for every
/// kernel of the same structure: a step of L identical layers needs a few
/// functions, not one per kernel, which keeps the module small for the
/// conversions after this pass and for LLVM.
class KernelFunctions {
public:
  explicit KernelFunctions(ModuleOp module) : symbols(module) {}

  /// The function equal to `candidate` (a function not in the module yet),
  /// which is then erased; otherwise `candidate`, now in the module.
  func::FuncOp getOrInsert(func::FuncOp candidate) {
    llvm::hash_code hash = hashFunction(candidate);
    for (func::FuncOp existing : byHash[hash]) {
      if (existing.getFunctionType() == candidate.getFunctionType() &&
          OperationEquivalence::isRegionEquivalentTo(
              &existing.getBody(), &candidate.getBody(),
              OperationEquivalence::IgnoreLocations)) {
        candidate.erase();
        return existing;
      }
    }
    symbols.insert(candidate);
    byHash[hash].push_back(candidate);
    return candidate;
  }

private:
  static llvm::hash_code hashFunction(func::FuncOp function) {
    llvm::hash_code hash = hash_value(function.getFunctionType());
    function.getBody().walk([&](Operation *op) {
      hash = llvm::hash_combine(
          hash, OperationEquivalence::computeHash(
                    op, OperationEquivalence::ignoreHashValue,
                    OperationEquivalence::ignoreHashValue,
                    OperationEquivalence::IgnoreLocations));
    });
    return hash;
  }

  SymbolTable symbols;
  DenseMap<llvm::hash_code, SmallVector<func::FuncOp, 1>> byHash;
};

/// Adds LLVM function attributes (`passthrough`) to `function`.
void addLLVMAttributes(func::FuncOp function, ArrayRef<StringRef> names) {
  SmallVector<Attribute> attributes;
  if (auto existing = function->getAttrOfType<ArrayAttr>("passthrough"))
    llvm::append_range(attributes, existing);
  for (StringRef name : names)
    attributes.push_back(StringAttr::get(function.getContext(), name));
  function->setAttr("passthrough",
                    ArrayAttr::get(function.getContext(), attributes));
}

/// LLVM sees two kinds of code: kernels, loop nests that do the work, and
/// host functions, one basic block of thousands of kernel and runtime calls
/// per step. Kernels stay out of the host (`noinline`): inlined, LLVM's
/// loop passes (IndVarSimplify) go quadratic in the step's size, and
/// nothing is gained. The host is compiled as written (`optnone`): its
/// instruction scheduling after register allocation is quadratic in the
/// block's size, and it computes almost nothing (its floating point, a
/// step counter, rounds as IEEE says either way).
void markKernelsAndHost(ModuleOp module,
                        const DenseSet<Operation *> &kernels) {
  DenseSet<Operation *> host;
  bool changed = true;
  while (changed) {
    changed = false;
    for (auto function : module.getOps<func::FuncOp>()) {
      if (function.isExternal() || kernels.contains(function) ||
          host.contains(function))
        continue;
      WalkResult callsWork = function.walk([&](func::CallOp call) {
        Operation *callee = module.lookupSymbol(call.getCalleeAttr());
        return kernels.contains(callee) || host.contains(callee)
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      });
      if (callsWork.wasInterrupted()) {
        host.insert(function);
        changed = true;
      }
    }
  }
  for (Operation *kernel : kernels)
    addLLVMAttributes(cast<func::FuncOp>(kernel), {"noinline"});
  for (Operation *function : host)
    addLLVMAttributes(cast<func::FuncOp>(function), {"noinline", "optnone"});
}

/// Replaces `kernel` (a linalg op, or a loop nest of loads and stores) by a
/// call of a private function `name` (or of an equal one outlined before)
/// holding it, and returns that function. Its operands and the values its body
/// uses from above become arguments, except constants, which are cloned
/// into the function so that LLVM can still fold them.
func::FuncOp outlineKernel(Operation *kernel, StringRef name,
                           KernelFunctions &functions) {
  SetVector<Value> used(kernel->getOperands().begin(),
                        kernel->getOperands().end());
  getUsedValuesDefinedAbove(kernel->getRegions(), used);
  SmallVector<Value> arguments;
  SmallVector<Operation *> constants;
  for (Value value : used) {
    Operation *definition = value.getDefiningOp();
    if (definition && definition->hasTrait<OpTrait::ConstantLike>())
      constants.push_back(definition);
    else
      arguments.push_back(value);
  }

  Location loc = kernel->getLoc();
  OpBuilder builder(kernel->getContext());
  auto type = builder.getFunctionType(
      llvm::map_to_vector(arguments, [](Value v) { return v.getType(); }), {});
  auto function = func::FuncOp::create(builder, loc, name, type);
  function.setPrivate();

  Block *body = function.addEntryBlock();
  builder.setInsertionPointToStart(body);
  IRMapping mapping;
  mapping.map(arguments, body->getArguments());
  for (Operation *constant : constants)
    builder.clone(*constant, mapping);
  builder.clone(*kernel, mapping);
  func::ReturnOp::create(builder, loc);
  function = functions.getOrInsert(function);

  builder.setInsertionPoint(kernel);
  func::CallOp::create(builder, loc, function, arguments);
  kernel->erase();
  return function;
}

/// Whether `loop` is a kernel of its own: a loop on buffers without results
/// that holds no host work (calls, allocations, launches).
bool isLoopKernel(scf::ForOp loop) {
  if (loop->getNumResults() != 0)
    return false;
  bool accessesBuffers = false;
  WalkResult hostWork = loop->walk([&](Operation *op) {
    if (isa<func::CallOp, memref::AllocOp, memref::AllocaOp, memref::DeallocOp,
            gpu::LaunchOp>(op))
      return WalkResult::interrupt();
    accessesBuffers |= isa<memref::LoadOp, memref::StoreOp>(op);
    return WalkResult::advance();
  });
  return !hostWork.wasInterrupted() && accessesBuffers;
}

struct PrecOutlineKernelsPass
    : public prec::impl::PrecOutlineKernelsBase<PrecOutlineKernelsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    KernelFunctions functions(module);
    DenseSet<Operation *> outlined;
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
        outlined.insert(outlineKernel(kernel, prefix, functions));
      // Loop nests that only load and store (the scatter-add of a gather's
      // gradient) are kernels too: left in the host, they would be compiled
      // without optimization and split its block. A function that calls
      // nothing (upstream's deallocation helper) is no host and keeps its
      // loops.
      bool callsFunctions =
          function.walk([](func::CallOp) { return WalkResult::interrupt(); })
              .wasInterrupted();
      if (!callsFunctions)
        continue;
      SmallVector<scf::ForOp> loops;
      function.walk<WalkOrder::PreOrder>([&](scf::ForOp loop) {
        if (loop->getParentOfType<gpu::LaunchOp>())
          return WalkResult::skip();
        if (isLoopKernel(loop)) {
          loops.push_back(loop);
          return WalkResult::skip();
        }
        return WalkResult::advance();
      });
      for (scf::ForOp loop : loops)
        outlined.insert(outlineKernel(loop, prefix, functions));
    }
    markKernelsAndHost(module, outlined);
  }
};

} // namespace
