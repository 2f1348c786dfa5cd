//===- BufferizeEntryBoundaries.cpp - memref signatures for entry points --===//
//
// A function that nothing in the module refers to is called only from
// outside, with buffers, so its boundary needs none of the cross-function
// analysis of one-shot module bufferization: each tensor argument is a
// buffer the function owns the only view of, and each result is the buffer
// of the returned tensor. Rewriting the signature here, in time linear in
// its size, keeps upstream from relating every result to every argument.
//
//===----------------------------------------------------------------------===//

#include "prec/Lowering/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::prec {
#define GEN_PASS_DEF_PRECBUFFERIZEENTRYBOUNDARIES
#include "prec/Lowering/Passes.h.inc"
} // namespace mlir::prec

using namespace mlir;
using namespace mlir::prec;

namespace {

/// The buffer type of a function-boundary tensor: identity layout, the
/// layout one-shot bufferization gives function boundaries in prec's
/// pipelines. Null for tensors it does not take over (unranked, encoded).
MemRefType getBoundaryBufferType(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || tensor.getEncoding())
    return nullptr;
  return MemRefType::get(tensor.getShape(), tensor.getElementType());
}

/// Whether every tensor of `function`'s signature has a boundary buffer type
/// and upstream's own boundary handling has no attribute to honour.
bool hasConvertibleSignature(func::FuncOp function) {
  auto convertible = [](Type type) {
    return !isa<TensorType>(type) || getBoundaryBufferType(type);
  };
  if (!llvm::all_of(function.getArgumentTypes(), convertible) ||
      !llvm::all_of(function.getResultTypes(), convertible))
    return false;
  for (unsigned i = 0, e = function.getNumArguments(); i < e; ++i)
    if (function.getArgAttr(
            i, bufferization::BufferizationDialect::kBufferLayoutAttrName))
      return false;
  return true;
}

/// Gives `function` memref arguments and results. Inside, each argument is
/// read through a `restrict` tensor (writable unless the argument says
/// `bufferization.writable = false`, as upstream treats it), and each
/// returned tensor leaves as a buffer the function does not write after
/// the return, which is all `read_only` says (callers own it).
void bufferizeSignature(func::FuncOp function) {
  Block &entry = function.getBody().front();
  auto builder = OpBuilder::atBlockBegin(&entry);
  SmallVector<Type> argumentTypes;
  for (BlockArgument argument : entry.getArguments()) {
    MemRefType bufferType = getBoundaryBufferType(argument.getType());
    if (!bufferType) {
      argumentTypes.push_back(argument.getType());
      continue;
    }
    Type tensorType = argument.getType();
    auto writable = function.getArgAttrOfType<BoolAttr>(
        argument.getArgNumber(),
        bufferization::BufferizationDialect::kWritableAttrName);
    function.removeArgAttr(
        argument.getArgNumber(),
        bufferization::BufferizationDialect::kWritableAttrName);
    argument.setType(bufferType);
    auto tensor = bufferization::ToTensorOp::create(
        builder, argument.getLoc(), tensorType, argument, /*restrict=*/true,
        /*writable=*/!writable || writable.getValue());
    argument.replaceAllUsesExcept(tensor.getResult(), tensor);
    argumentTypes.push_back(bufferType);
  }

  auto returnOp = cast<func::ReturnOp>(entry.getTerminator());
  builder.setInsertionPoint(returnOp);
  SmallVector<Type> resultTypes;
  for (OpOperand &returned : returnOp->getOpOperands()) {
    MemRefType bufferType = getBoundaryBufferType(returned.get().getType());
    if (!bufferType) {
      resultTypes.push_back(returned.get().getType());
      continue;
    }
    returned.set(bufferization::ToBufferOp::create(
        builder, returnOp.getLoc(), bufferType, returned.get(),
        /*read_only=*/true));
    resultTypes.push_back(bufferType);
  }
  function.setFunctionType(
      builder.getFunctionType(argumentTypes, resultTypes));
}

struct PrecBufferizeEntryBoundariesPass
    : prec::impl::PrecBufferizeEntryBoundariesBase<
          PrecBufferizeEntryBoundariesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();

    // One walk finds every function the module refers to (a call, a
    // function constant, anything that names it). Where the walk cannot
    // tell (an unknown op that may be a symbol table), any function may be
    // referred to, and all stay upstream's.
    std::optional<SymbolTable::UseRange> uses =
        SymbolTable::getSymbolUses(&module.getBodyRegion());
    if (!uses)
      return;
    DenseSet<StringAttr> referenced;
    for (const SymbolTable::SymbolUse &use : *uses)
      referenced.insert(use.getSymbolRef().getRootReference());

    for (auto function : module.getOps<func::FuncOp>()) {
      // One block ending in the function's only return: the shape one-shot
      // bufferization requires of functions anyway.
      if (function.isExternal() || !function.getBody().hasOneBlock() ||
          !isa<func::ReturnOp>(function.getBody().front().getTerminator()) ||
          referenced.contains(function.getSymNameAttr()) ||
          !hasConvertibleSignature(function))
        continue;
      bufferizeSignature(function);
    }
  }
};

} // namespace
