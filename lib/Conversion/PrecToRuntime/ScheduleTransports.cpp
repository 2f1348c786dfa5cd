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

/// Whether `op` computes from values of `derived` alone, and constants and
/// fresh destinations (ops without operands or effects).
bool computesFrom(Operation *op, const DenseSet<Value> &derived) {
  return llvm::all_of(getReadValues(op), [&](Value value) {
    if (derived.contains(value))
      return true;
    Operation *def = value.getDefiningOp();
    return def && def->getNumOperands() == 0 && def->getNumRegions() == 0 &&
           isMemoryEffectFree(def);
  });
}

/// Moves the effect-free ops of `block` that compute from `value` alone (its
/// unpacking: reshapes, slices, casts, sums of received chunks, constant
/// scales), and theirs, down to right before their first readers: a wait
/// placed before them would come before the data is needed.
void sinkUnpacking(Value value, Block *block, DenseSet<Value> &derived) {
  derived.insert(value);
  for (Operation *user : llvm::make_early_inc_range(value.getUsers())) {
    // A transport of the result is the next level of a two-level
    // collective. A gather's moves down with the unpacking, so that both
    // levels end at the layer that needs them (the slow one, started first,
    // runs while the layer before computes); a reduction's stays, so that
    // its second level starts as soon as the first has delivered.
    auto transport = dyn_cast<TransportOp>(user);
    if (user->getBlock() != block ||
        (transport && (transport.getKind() != TransportKind::AllGather ||
                       transport->hasAttr(
                           PrecDialect::kThroughPeerWindowAttrName))) ||
        !isMemoryEffectFree(user) || user->hasTrait<OpTrait::IsTerminator>() ||
        !computesFrom(user, derived))
      continue;
    // Reached before through another of its operands: placed already.
    if (llvm::any_of(user->getResults(),
                     [&](Value result) { return derived.contains(result); }))
      continue;
    for (Value result : user->getResults())
      sinkUnpacking(result, block, derived);
    Operation *reader = getFirstReaderOfResults(user, block);
    if (reader != user && reader != user->getNextNode())
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
    // A transport planned for a peer window keeps its place.
    if (ancestor != def || !isMemoryEffectFree(def) ||
        def->hasAttr(PrecDialect::kThroughPeerWindowAttrName)) {
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

/// The next level of a two-level reduction whose first level `start` is: a
/// reduction of `block` on the same grid over other axes whose input is
/// computed from `start`'s result alone (sums, casts, reshapes). Null for
/// any other transport that reads the result (a gather of updated
/// parameters, the all_reduce of a norm over the same group).
TransportStartOp findNextLevel(TransportStartOp start, Block *block) {
  TransportWaitOp wait = start.getWait();
  DenseSet<Value> derived{wait.getResult()};
  SmallVector<Value> worklist{wait.getResult()};
  TransportStartOp next;
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    for (Operation *user : value.getUsers()) {
      if (user->getBlock() != block || !computesFrom(user, derived))
        continue;
      if (auto candidate = dyn_cast<TransportStartOp>(user)) {
        bool disjointAxes = llvm::none_of(
            candidate.getGridAxes(), [&](int16_t axis) {
              return llvm::is_contained(start.getGridAxes(), axis);
            });
        if (candidate.getKind() != TransportKind::AllGather &&
            candidate.getGrid() == start.getGrid() &&
            !candidate.getGridAxes().empty() &&
            !start.getGridAxes().empty() && disjointAxes &&
            (!next || candidate->isBeforeInBlock(next)))
          next = candidate;
        continue;
      }
      if (!isMemoryEffectFree(user))
        continue;
      for (Value result : user->getResults())
        if (derived.insert(result).second)
          worklist.push_back(result);
    }
  }
  return next;
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
      DenseSet<Value> derived;
      sinkUnpacking(wait.getResult(), block, derived);
      wait->moveBefore(getFirstReader(wait.getResult(), block));
      starts.push_back(start);
    }
    // The next levels of two-level reductions, placed after their first.
    DenseSet<Operation *> nextLevels;
    for (TransportStartOp start : starts)
      if (start.getKind() != TransportKind::AllGather)
        if (TransportStartOp next = findNextLevel(start, block))
          nextLevels.insert(next);
    // Then every start up, each kind never above the one before it (the
    // starts keep their order), all_gathers within the prefetch budget.
    SmallVector<TransportWaitOp> gatherWaits;
    Operation *previousGather = nullptr, *previousReduction = nullptr;
    for (TransportStartOp start : starts) {
      TransportWaitOp wait = start.getWait();
      if (start.getKind() != TransportKind::AllGather) {
        if (!nextLevels.contains(start))
          hoistWithProducers(start, std::exchange(previousReduction, start));
        continue;
      }
      Operation *previous = std::exchange(previousGather, start);
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
    // A reduction's next level starts once its first has delivered: that
    // wait goes before the next transport started after its own start (the
    // compute in between is what the first level hides behind), and the
    // next level starts right after it, while the rest of the step
    // computes.
    for (TransportStartOp start : starts) {
      if (start.getKind() == TransportKind::AllGather)
        continue;
      TransportWaitOp wait = start.getWait();
      TransportStartOp next = findNextLevel(start, block);
      if (!next)
        continue;
      Operation *following = start->getNextNode();
      while (following && (!isa<TransportStartOp>(following) ||
                           nextLevels.contains(following)))
        following = following->getNextNode();
      if (following && following->isBeforeInBlock(wait))
        wait->moveBefore(following);
      hoistWithProducers(next, wait);
    }
  }
};

} // namespace
