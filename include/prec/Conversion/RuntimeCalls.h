//===- RuntimeCalls.h - What a call into precrt may do ----------*- C++ -*-===//
//
// Peer windows (prec-plan-peer-windows, convert-prec-to-runtime) hold while
// no collective runs between a window's acquisition and its last read; the
// plan is made by this and prec-check-peer-windows checks it after
// bufferization, with the same notion of a collective.
//
//===----------------------------------------------------------------------===//

#ifndef PREC_CONVERSION_RUNTIMECALLS_H
#define PREC_CONVERSION_RUNTIMECALLS_H

#include "prec/Dialect/Prec/IR/PrecOps.h"

#include "precrt/compiled.h"

#include "mlir/Interfaces/CallInterfaces.h"

namespace mlir::prec {

/// Whether a call of `callee` (empty: an indirect call) may run a
/// collective: the runtime's collectives and window fences do, and so may
/// any function but the runtime's other entry points, which only hand out
/// memory, ranks and clocks or run local work.
inline bool mayCallRunCollective(StringRef callee) {
  if (!callee.starts_with("precrtCompiled"))
    return true;
  return callee == PRECRT_COMPILED_COLLECTIVE_SYMBOL ||
         callee == PRECRT_COMPILED_COLLECTIVE_ON_STREAM_SYMBOL ||
         callee == PRECRT_COMPILED_COLLECTIVE_START_SYMBOL ||
         callee == PRECRT_COMPILED_COLLECTIVE_START_ON_STREAM_SYMBOL ||
         callee == PRECRT_COMPILED_COLLECTIVE_WAIT_SYMBOL ||
         callee == PRECRT_COMPILED_COLLECTIVE_WAIT_ON_STREAM_SYMBOL ||
         callee == PRECRT_COMPILED_WINDOW_FENCE_SYMBOL;
}

/// Whether `op` is or holds a transport (or half of one) or a call that may
/// run a collective.
inline bool mayRunCollective(Operation *op) {
  return op
      ->walk([](Operation *nested) {
        if (isa<TransportOp, TransportStartOp, TransportWaitOp>(nested))
          return WalkResult::interrupt();
        auto call = dyn_cast<CallOpInterface>(nested);
        if (!call)
          return WalkResult::advance();
        auto callee =
            dyn_cast_if_present<SymbolRefAttr>(call.getCallableForCallee());
        return mayCallRunCollective(
                   callee ? callee.getLeafReference().getValue() : StringRef())
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      })
      .wasInterrupted();
}

} // namespace mlir::prec

#endif // PREC_CONVERSION_RUNTIMECALLS_H
