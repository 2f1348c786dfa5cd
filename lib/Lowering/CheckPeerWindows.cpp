//===- CheckPeerWindows.cpp - reads of a window before the next collective ===//
//
// A peer window's slot is rewritten by the peers once every rank has passed
// the fence of the window's other slot, which a rank reaches only at a later
// collective: a read of the slot after the next collective may see the next
// use's values. prec-plan-peer-windows only plans windows whose readers
// precede the next collective; this pass checks that it still holds after
// bufferization and deallocation, which insert and place copies.
//
//===----------------------------------------------------------------------===//

#include "prec/Conversion/RuntimeCalls.h"
#include "prec/Dialect/Prec/IR/PrecDialect.h"
#include "prec/Lowering/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMTypes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::prec {
#define GEN_PASS_DEF_PRECCHECKPEERWINDOWS
#include "prec/Lowering/Passes.h.inc"
} // namespace mlir::prec

using namespace mlir;
using namespace mlir::prec;

namespace {

/// The fence of the window `slot`: the call of precrtCompiledWindowFence on
/// its address.
func::CallOp findFence(Value slot) {
  for (Operation *user : slot.getUsers()) {
    auto address = dyn_cast<memref::ExtractAlignedPointerAsIndexOp>(user);
    if (!address)
      continue;
    for (Operation *addressUser : address->getUsers())
      if (auto call = dyn_cast<func::CallOp>(addressUser);
          call && call.getCallee() == PRECRT_COMPILED_WINDOW_FENCE_SYMBOL)
        return call;
  }
  return nullptr;
}

/// Whether a value of `type` may carry the slot's memory or its address.
bool mayCarryTheSlot(Type type) {
  return isa<BaseMemRefType, IndexType, LLVM::LLVMPointerType>(type);
}

/// Checks every use of `value` (the slot, a view of it, its address or
/// anything computed from them). Ops without effects pass it on through
/// their results (views, selects, address arithmetic), wherever they are;
/// every other op that takes it (a kernel, a copy, a call, a loop, a
/// terminator) reads it there, and must lie in `block`, or be nested in an op
/// of it, before `end` (null: the block's terminator), and not be the
/// terminator. Ops with results that may carry it pass it on as well.
LogicalResult checkUses(Value value, Block *block, Operation *end,
                        Operation *fence, DenseSet<Value> &visited) {
  if (!visited.insert(value).second)
    return success();
  for (OpOperand &use : value.getUses()) {
    Operation *user = use.getOwner();
    if (user == fence)
      continue;
    bool passesOn = llvm::any_of(user->getResultTypes(), mayCarryTheSlot);
    if (!(passesOn && isMemoryEffectFree(user) && user->getNumRegions() == 0)) {
      Operation *ancestor = block->findAncestorOpInBlock(*user);
      bool inTime = ancestor && ancestor != block->getTerminator() &&
                    (!end || ancestor->isBeforeInBlock(end));
      if (!inTime) {
        InFlightDiagnostic diagnostic = user->emitError(
            "prec-check-peer-windows: this op uses a peer window's slot "
            "after the next collective (or out of the slot's block), where "
            "the peers may already rewrite it; expected every use before "
            "the next collective after the window's fence");
        if (end)
          diagnostic.attachNote(end->getLoc()) << "the next collective";
        return failure();
      }
    }
    for (Value result : user->getResults())
      if (mayCarryTheSlot(result.getType()) &&
          failed(checkUses(result, block, end, fence, visited)))
        return failure();
  }
  return success();
}

struct PrecCheckPeerWindowsPass
    : public prec::impl::PrecCheckPeerWindowsBase<PrecCheckPeerWindowsPass> {
  void runOnOperation() override {
    WalkResult result = getOperation().walk([](Operation *op) {
      if (!op->hasAttr(PrecDialect::kPeerWindowAttrName) ||
          op->getNumResults() != 1)
        return WalkResult::advance();
      Value slot = op->getResult(0);
      func::CallOp fence = findFence(slot);
      if (!fence || fence->getBlock() != op->getBlock()) {
        op->emitError("prec-check-peer-windows: expected the window's fence "
                      "(a call of " PRECRT_COMPILED_WINDOW_FENCE_SYMBOL
                      " on its address) in its block");
        return WalkResult::interrupt();
      }
      Block *block = op->getBlock();
      Operation *end = nullptr;
      for (Operation *next = fence->getNextNode(); next;
           next = next->getNextNode())
        if (mayRunCollective(next)) {
          end = next;
          break;
        }
      DenseSet<Value> visited;
      return failed(checkUses(slot, block, end, fence, visited))
                 ? WalkResult::interrupt()
                 : WalkResult::advance();
    });
    if (result.wasInterrupted())
      return signalPassFailure();
    // A check: the IR is as it was.
    markAllAnalysesPreserved();
  }
};

} // namespace
