//===- GlobalsToArguments.cpp - mutable globals as function state ---------===//
//
// Mutable ml_program globals (PyTorch's dropout seed) become an argument and
// a result of the functions that use them, so that those functions are free
// of side effects and can be recomputed by their backward functions.
//
//===----------------------------------------------------------------------===//

#include "prec/Dialect/Prec/Transforms/Passes.h"

#include "prec/Dialect/Prec/IR/EntryAttrs.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MLProgram/IR/MLProgram.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/MapVector.h"

namespace mlir::prec {
#define GEN_PASS_DEF_PRECGLOBALSTOARGUMENTS
#include "prec/Dialect/Prec/Transforms/Passes.h.inc"
} // namespace mlir::prec

using namespace mlir;
using namespace mlir::prec;

namespace {

/// The mutable global `op` (a load or a store) refers to, or null.
ml_program::GlobalOp getMutableGlobal(Operation *op, SymbolTable &symbols) {
  SymbolRefAttr name;
  if (auto load = dyn_cast<ml_program::GlobalLoadOp>(op))
    name = load.getGlobalAttr();
  else if (auto store = dyn_cast<ml_program::GlobalStoreOp>(op))
    name = store.getGlobalAttr();
  if (!name)
    return {};
  auto global = symbols.lookup<ml_program::GlobalOp>(name.getLeafReference());
  return global && global.getIsMutable() ? global : nullptr;
}

LogicalResult convertFunction(func::FuncOp function, SymbolTable &symbols,
                              ModuleOp module) {
  if (function.isExternal())
    return success();
  // Where each global's value lives: its argument, then what was stored.
  llvm::MapVector<ml_program::GlobalOp, Value> current;
  llvm::MapVector<ml_program::GlobalOp, bool> stored;
  LogicalResult result = success();
  function.walk([&](Operation *op) {
    ml_program::GlobalOp global = getMutableGlobal(op, symbols);
    if (!global || failed(result))
      return;
    if (op->getParentOp() != function) {
      result = op->emitOpError("cannot become function state: expected it ")
               << "in the body of '@" << function.getSymName()
               << "', not in a nested region";
      return;
    }
    current.insert({global, Value()});
  });
  if (failed(result) || current.empty())
    return result;
  if (!function.getBody().hasOneBlock())
    return function.emitOpError("uses a mutable global but has ")
           << function.getBody().getBlocks().size()
           << " blocks: expected one to make it an argument";
  if (std::optional<SymbolTable::UseRange> uses =
          SymbolTable::getSymbolUses(function, module);
      uses && !uses->empty())
    return function.emitOpError("uses a mutable global and is referenced in ")
           << "the module: its callers would have to pass the global";

  Block &entry = function.getBody().front();
  for (auto &[global, value] : current)
    value = entry.addArgument(global.getType(), global.getLoc());
  for (Operation &op : llvm::make_early_inc_range(entry)) {
    ml_program::GlobalOp global = getMutableGlobal(&op, symbols);
    if (!global)
      continue;
    if (auto load = dyn_cast<ml_program::GlobalLoadOp>(op)) {
      load.getResult().replaceAllUsesWith(current[global]);
    } else {
      current[global] = cast<ml_program::GlobalStoreOp>(op).getValue();
      stored[global] = true;
    }
    op.erase();
  }

  // The stored values follow the results, in the order of the arguments.
  SmallVector<Type> resultTypes(function.getResultTypes());
  SmallVector<Value> extra;
  for (auto &[global, value] : current)
    if (stored.lookup(global)) {
      extra.push_back(value);
      resultTypes.push_back(value.getType());
    }
  if (!extra.empty())
    function.walk(
        [&](func::ReturnOp ret) { ret.getOperandsMutable().append(extra); });
  function.setFunctionType(FunctionType::get(
      function.getContext(), entry.getArgumentTypes(), resultTypes));
  // Argument and result attributes keep one entry per argument and result.
  if (ArrayAttr argAttrs = function.getAllArgAttrs()) {
    SmallVector<Attribute> attrs(argAttrs.begin(), argAttrs.end());
    attrs.resize(entry.getNumArguments(),
                 DictionaryAttr::get(function.getContext()));
    function.setAllArgAttrs(attrs);
  }
  // Each new argument is named after its global and starts, where a runner
  // generates it, at the global's initial value when that is one number.
  unsigned first = entry.getNumArguments() - current.size();
  for (auto [i, entryValue] : llvm::enumerate(current)) {
    ml_program::GlobalOp global = entryValue.first;
    function.setArgAttr(first + i, kNameAttrName, global.getSymNameAttr());
    if (auto splat =
            dyn_cast_if_present<SplatElementsAttr>(global.getValueAttr()))
      function.setArgAttr(first + i, kDefaultAttrName,
                          splat.getSplatValue<Attribute>());
  }
  if (ArrayAttr resAttrs = function.getAllResultAttrs()) {
    SmallVector<Attribute> attrs(resAttrs.begin(), resAttrs.end());
    attrs.resize(resultTypes.size(),
                 DictionaryAttr::get(function.getContext()));
    function.setAllResultAttrs(attrs);
  }
  return success();
}

struct GlobalsToArgumentsPass
    : public prec::impl::PrecGlobalsToArgumentsBase<GlobalsToArgumentsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    for (auto function :
         llvm::make_early_inc_range(module.getOps<func::FuncOp>()))
      if (failed(convertFunction(function, symbols, module)))
        return signalPassFailure();
    for (auto global :
         llvm::make_early_inc_range(module.getOps<ml_program::GlobalOp>()))
      if (global.getIsMutable() &&
          SymbolTable::symbolKnownUseEmpty(global, module))
        global.erase();
  }
};

} // namespace
