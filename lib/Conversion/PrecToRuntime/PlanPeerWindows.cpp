//===- PlanPeerWindows.cpp - Transports that go through a peer window -----===//
//
// A peer window holds while its readers precede the next collective, which
// only holds as long as nothing moves a read: the plan is made on IR the
// canonicalizer has left, and convert-prec-to-runtime lowers it right after.
//
//===----------------------------------------------------------------------===//

#include "PeerWindows.h"

#include "prec/Conversion/Passes.h"
#include "prec/Conversion/RuntimeCalls.h"
#include "prec/Dialect/Prec/IR/PrecDialect.h"

#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

namespace mlir::prec {
#define GEN_PASS_DEF_PRECPLANPEERWINDOWS
#include "prec/Conversion/Passes.h.inc"
} // namespace mlir::prec

using namespace mlir;
using namespace mlir::prec;

namespace {

/// Whether no op strictly between `first` and `last` (same block, in order)
/// may run a collective.
bool noCollectiveBetween(Operation *first, Operation *last) {
  for (Operation *op = first->getNextNode(); op && op != last;
       op = op->getNextNode())
    if (mayRunCollective(op))
      return false;
  return true;
}

/// Whether `op` only moves its inputs' elements: a copy, transpose or
/// broadcast, as a named op or a generic whose body yields input elements.
/// Such a kernel may be removed or folded into its readers later, and the
/// received view would outlive the reads planned here.
bool yieldsInputsOnly(linalg::LinalgOp op) {
  if (isa<linalg::TransposeOp, linalg::BroadcastOp, linalg::CopyOp>(op))
    return true;
  Block *body = op.getBlock();
  if (!body || !body->without_terminator().empty())
    return false;
  return llvm::all_of(body->getTerminator()->getOperands(), [&](Value v) {
    auto argument = dyn_cast<BlockArgument>(v);
    return argument && argument.getOwner() == body &&
           op.isDpsInput(op.getMatchingOpOperand(argument));
  });
}

/// Collects into `readers` the ops that read `value` in place: kernels
/// (linalg ops reading it as an input), reached through static views
/// (extract_slice, reshapes). Fails on any other use, so that nothing
/// keeps the value (or a view of it) beyond those reads.
LogicalResult collectInPlaceReaders(Value value,
                                    SmallVectorImpl<Operation *> &readers) {
  for (OpOperand &use : value.getUses()) {
    Operation *user = use.getOwner();
    if (isa<tensor::ExtractSliceOp, tensor::ExpandShapeOp,
            tensor::CollapseShapeOp>(user)) {
      readers.push_back(user);
      if (failed(collectInPlaceReaders(user->getResult(0), readers)))
        return failure();
      continue;
    }
    auto linalgOp = dyn_cast<linalg::LinalgOp>(user);
    if (!linalgOp || !linalgOp.isDpsInput(&use) || yieldsInputsOnly(linalgOp))
      return failure();
    readers.push_back(user);
  }
  return success();
}

} // namespace

FailureOr<PeerWindowPlan> mlir::prec::planPeerWindow(TransportOp op,
                                                     std::string *whyNot) {
  auto reject = [&](StringRef reason) -> FailureOr<PeerWindowPlan> {
    if (whyNot)
      *whyNot = reason.str();
    return failure();
  };
  if (op.getKind() != TransportKind::AllGather &&
      op.getKind() != TransportKind::AllToAll)
    return reject("an all_gather or all_to_all");
  PeerWindowPlan plan;
  plan.grid =
      SymbolTable::lookupNearestSymbolFrom<shard::GridOp>(op, op.getGridAttr());
  if (!plan.grid || llvm::any_of(plan.grid.getShape(), ShapedType::isDynamic))
    return reject("a grid of static shape");
  ArrayRef<int64_t> shape = plan.grid.getShape();
  if (op.getGridAxes().empty())
    for (int64_t extent : shape)
      plan.groupSize *= extent;
  for (int16_t axis : op.getGridAxes())
    plan.groupSize *= shape[axis];
  if (plan.groupSize < 2)
    return reject("a group of more than one rank");

  Value wire = op.getInput();
  if (!wire.hasOneUse())
    return reject("a wire buffer that nothing else reads");
  plan.flatten = wire.getDefiningOp<tensor::CollapseShapeOp>();
  if (plan.flatten) {
    wire = plan.flatten.getSrc();
    if (!wire.hasOneUse())
      return reject("a wire buffer that nothing else reads");
  }
  plan.producer = wire.getDefiningOp<linalg::LinalgOp>();
  if (!plan.producer || plan.producer->getNumResults() != 1 ||
      plan.producer->getBlock() != op->getBlock())
    return reject("a wire buffer that one kernel of the transport's block "
                  "writes");
  Value init = plan.producer.getDpsInitOperand(0)->get();
  if (!init.getDefiningOp<tensor::EmptyOp>() || !init.hasOneUse())
    return reject("a kernel whose destination is a tensor.empty of its own");

  SmallVector<Operation *> readers;
  if (failed(collectInPlaceReaders(op.getResult(), readers)))
    return reject("a received buffer that only kernels read (through static "
                  "slices and reshapes), none of which only moves data");
  Operation *last = op;
  for (Operation *reader : readers) {
    if (reader->getBlock() != op->getBlock())
      return reject("readers in the transport's block");
    if (last->isBeforeInBlock(reader))
      last = reader;
  }
  if (!noCollectiveBetween(plan.producer, op) || !noCollectiveBetween(op, last))
    return reject("no other collective from the kernel that writes the wire "
                  "buffer to the last reader");

  if (op.getKind() == TransportKind::AllToAll) {
    // Each source's block lies in its own segment: the received buffer is a
    // strided [N, chunk] view, which only an expansion to [N, ...] reads.
    for (Operation *user : op->getUsers()) {
      auto expand = dyn_cast<tensor::ExpandShapeOp>(user);
      if (!expand || expand.getReassociationIndices().size() != 1 ||
          expand.getResultType().getDimSize(0) != plan.groupSize)
        return reject("an all_to_all read only through expansions to "
                      "[group size, ...]");
      plan.expansions.push_back(expand);
    }
  }
  return plan;
}

namespace {

struct PrecPlanPeerWindowsPass
    : public prec::impl::PrecPlanPeerWindowsBase<PrecPlanPeerWindowsPass> {
  void runOnOperation() override {
    getOperation()->walk([](TransportOp op) {
      if (succeeded(planPeerWindow(op)))
        op->setAttr(PrecDialect::kThroughPeerWindowAttrName,
                    UnitAttr::get(op.getContext()));
      else
        op->removeAttr(PrecDialect::kThroughPeerWindowAttrName);
    });
  }
};

} // namespace
