//===- ScheduleTransports.cpp - transports started early, waited late -----===//
//
// Splits each transport into a start and a wait and moves them apart within
// their block: waits down to the first reader, starts (with the kernels that
// pack their wire buffers) up to where their inputs exist, all_gathers held
// back by the prefetch budget. Only places change; the runtime runs a rank's
// transports in start order, so the values do not.
//
//===----------------------------------------------------------------------===//

#include "prec/Conversion/Passes.h"
#include "prec/Dialect/Prec/IR/PrecDialect.h"
#include "prec/Dialect/Prec/IR/PrecOps.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::prec {
#define GEN_PASS_DEF_PRECSCHEDULETRANSPORTS
#include "prec/Conversion/Passes.h.inc"
} // namespace mlir::prec

using namespace mlir;
using namespace mlir::prec;

namespace {

/// The later of two ops of one block; null stands for the block's start.
Operation *getLater(Operation *a, Operation *b) {
  if (!a)
    return b;
  if (!b)
    return a;
  return a->isBeforeInBlock(b) ? b : a;
}

/// The values `op` reads: its operands and what its regions use from above.
SmallVector<Value> getReadValues(Operation *op) {
  SmallVector<Value> values(op->getOperands());
  for (Region &region : op->getRegions()) {
    llvm::SetVector<Value> above;
    getUsedValuesDefinedAbove(region, above);
    values.append(above.begin(), above.end());
  }
  return values;
}

/// The first op of `block` that reads `value` (or holds a reader), else the
/// block's last op.
Operation *getFirstReader(Value value, Block *block) {
  Operation *first = &block->back();
  for (Operation *user : value.getUsers())
    if (Operation *ancestor = block->findAncestorOpInBlock(*user);
        ancestor && ancestor->isBeforeInBlock(first))
      first = ancestor;
  return first;
}

/// The first op of `block` that reads any result of `op`.
Operation *getFirstReaderOfResults(Operation *op, Block *block) {
  Operation *first = &block->back();
  for (Value result : op->getResults())
    if (Operation *reader = getFirstReader(result, block);
        reader->isBeforeInBlock(first))
      first = reader;
  return first;
}

/// Moves the reshapes and slices of `value` in `block` (and theirs) down to
/// right before their first readers: they only say how the data is read, and
/// a wait placed before them would come before the data is needed.
void sinkViews(Value value, Block *block) {
  for (Operation *user : llvm::make_early_inc_range(value.getUsers())) {
    if (user->getBlock() != block ||
        !isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp,
             tensor::ExtractSliceOp>(user))
      continue;
    for (Value result : user->getResults())
      sinkViews(result, block);
    Operation *reader = getFirstReaderOfResults(user, block);
    if (reader != user->getNextNode())
      user->moveBefore(reader);
  }
}

/// Moves `start` and the effect-free ops of its block that compute its input
/// (the packing kernels) up to right after `barrier` or the last value they
/// need, whichever is later. Each op keeps its order relative to the others.
void hoistWithProducers(TransportStartOp start, Operation *barrier) {
  Block *block = start->getBlock();
  llvm::SetVector<Operation *> producers;
  Operation *lastNeeded = barrier;
  SmallVector<Value> worklist = getReadValues(start);
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    Operation *def = value.getDefiningOp();
    Operation *ancestor = def ? block->findAncestorOpInBlock(*def) : nullptr;
    if (!ancestor)
      continue; // A block argument or a value from outside the block.
    if (ancestor != def || !isMemoryEffectFree(def)) {
      lastNeeded = getLater(lastNeeded, ancestor);
      continue;
    }
    if (producers.insert(def))
      llvm::append_range(worklist, getReadValues(def));
  }
  SmallVector<Operation *> moved(producers.begin(), producers.end());
  llvm::sort(moved, [](Operation *a, Operation *b) {
    return a->isBeforeInBlock(b);
  });
  moved.push_back(start);
  Operation *insertAfter = lastNeeded;
  for (Operation *op : moved) {
    // An op already above the point stays: what it needs is above it.
    if (insertAfter && op->isBeforeInBlock(insertAfter))
      continue;
    if (insertAfter)
      op->moveAfter(insertAfter);
    else if (op != &block->front())
      op->moveBefore(&block->front());
    insertAfter = op;
  }
}

struct PrecScheduleTransportsPass
    : public prec::impl::PrecScheduleTransportsBase<
          PrecScheduleTransportsPass> {
  using Base::Base;

  void runOnOperation() override {
    if (prefetch < 0) {
      getOperation()->emitError()
          << "prec-schedule-transports: expected prefetch >= 0, got "
          << static_cast<int64_t>(prefetch);
      return signalPassFailure();
    }
    // Each block's transports, in program order.
    llvm::MapVector<Block *, SmallVector<TransportOp>> transports;
    getOperation()->walk([&](TransportOp op) {
      if (!op->hasAttr(PrecDialect::kThroughPeerWindowAttrName))
        transports[op->getBlock()].push_back(op);
    });
    for (auto &[block, ops] : transports)
      scheduleBlock(block, ops);
  }

  void scheduleBlock(Block *block, ArrayRef<TransportOp> transports) {
    // Split in place, then every wait down to its first reader.
    SmallVector<TransportStartOp> starts;
    for (TransportOp op : transports) {
      OpBuilder builder(op);
      auto start = TransportStartOp::create(
          builder, op.getLoc(), InFlightType::get(op.getContext(), op.getType()),
          op.getKind(),
          op.getInput(), op.getGrid(), op.getGridAxes(), op.getReductionAttr());
      start->setDiscardableAttrs(op->getDiscardableAttrDictionary());
      auto wait = TransportWaitOp::create(builder, op.getLoc(), start);
      op.replaceAllUsesWith(wait.getResult());
      op.erase();
      sinkViews(wait.getResult(), block);
      wait->moveBefore(getFirstReader(wait.getResult(), block));
      starts.push_back(start);
    }
    // Then every start up, never above the start before it (the starts
    // keep the transports' order), all_gathers within the prefetch budget.
    SmallVector<TransportWaitOp> gatherWaits;
    Operation *previousStart = nullptr;
    for (TransportStartOp start : starts) {
      Operation *previous = std::exchange(previousStart, start);
      TransportWaitOp wait = start.getWait();
      if (start.getKind() != TransportKind::AllGather) {
        hoistWithProducers(start, previous);
        continue;
      }
      int64_t index = gatherWaits.size();
      gatherWaits.push_back(wait);
      if (prefetch == 0)
        continue;
      Operation *barrier = getLater(
          previous, index >= prefetch
                        ? gatherWaits[index - prefetch].getOperation()
                        : nullptr);
      // The budget may hold a start back below where it is; never past its
      // own wait.
      if (barrier && start->isBeforeInBlock(barrier)) {
        if (barrier->isBeforeInBlock(wait))
          start->moveAfter(barrier);
        else
          start->moveBefore(wait);
        continue;
      }
      hoistWithProducers(start, barrier);
    }
  }
};

} // namespace
