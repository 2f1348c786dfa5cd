//===- CheckPeerWindows.cpp - reads of a window before the next collective ===//
//
// A peer window's slot is rewritten by the peers once every rank has passed
// the fence of the window's other slot, which a rank reaches only at a later
// collective: a read of the slot after the next collective may see the next
// use's values. convert-prec-to-runtime only makes windows whose readers
// precede the next collective; this pass checks that it still holds after
// bufferization and deallocation, which insert and place copies.
//
//===----------------------------------------------------------------------===//

#include "prec/Dialect/Prec/IR/PrecDialect.h"
#include "prec/Lowering/Passes.h"

#include "precrt/compiled.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir::prec {
#define GEN_PASS_DEF_PRECCHECKPEERWINDOWS
#include "prec/Lowering/Passes.h.inc"
} // namespace mlir::prec

using namespace mlir;
using namespace mlir::prec;

namespace {

/// The callee of `call` if it is a direct call, else empty.
StringRef getCalleeName(CallOpInterface call) {
  if (auto symbol = dyn_cast_if_present<SymbolRefAttr>(
          call.getCallableForCallee()))
    return symbol.getLeafReference().getValue();
  return {};
}

/// Whether `op` is or holds a call that may run a collective: any call but
/// the window helpers, which only hand out memory and the rank.
bool mayRunCollective(Operation *op) {
  return op
      ->walk([](CallOpInterface call) {
        StringRef callee = getCalleeName(call);
        return callee == PRECRT_COMPILED_WINDOW_SYMBOL ||
                       callee == PRECRT_COMPILED_GROUP_RANK_SYMBOL
                   ? WalkResult::advance()
                   : WalkResult::interrupt();
      })
      .wasInterrupted();
}

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

/// Checks every use of `value` (the slot, or a view of it): a view is
/// followed; any other use must be an op of `block`, or nested in one, that
/// comes before `end` (null: the block's terminator) and is not the
/// terminator itself.
LogicalResult checkUses(Value value, Block *block, Operation *end,
                        Operation *fence) {
  for (OpOperand &use : value.getUses()) {
    Operation *user = use.getOwner();
    if (user == fence)
      continue;
    if (isa<ViewLikeOpInterface, memref::ExtractStridedMetadataOp>(user) &&
        user->getNumResults() == 1 && user->getOperand(0) == value) {
      if (failed(checkUses(user->getResult(0), block, end, fence)))
        return failure();
      continue;
    }
    if (isa<memref::ExtractAlignedPointerAsIndexOp>(user) &&
        llvm::all_of(user->getUsers(),
                     [&](Operation *u) { return u == fence; }))
      continue;
    Operation *ancestor = block->findAncestorOpInBlock(*user);
    bool inTime = ancestor && ancestor != block->getTerminator() &&
                  (!end || ancestor->isBeforeInBlock(end));
    if (!inTime) {
      InFlightDiagnostic diagnostic =
          user->emitError("prec-check-peer-windows: this op uses a peer "
                          "window's slot after the next collective (or out "
                          "of the slot's block), where the peers may already "
                          "rewrite it; expected every use before the next "
                          "collective after the window's fence");
      if (end)
        diagnostic.attachNote(end->getLoc()) << "the next collective";
      return failure();
    }
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
      return failed(checkUses(slot, block, end, fence))
                 ? WalkResult::interrupt()
                 : WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
