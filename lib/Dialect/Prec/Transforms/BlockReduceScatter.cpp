//===- BlockReduceScatter.cpp - a large reduce_scatter as a loop over blocks ==//
//
// The direct reduce_scatter of a large gradient packs the whole tensor into
// a wire buffer, moves it and sums the received chunks: the wire goes
// through main memory twice. Cut into blocks of about a megabyte, the wire
// of a block stays in cache between the pack, the transport and the sum.
// An optimizer that reads only the reduced gradient rides in the same
// blocks, so that its kernel fuses into the sum (prec-fuse-kernels) and the
// reduced gradient is never written whole. Every element is computed
// exactly as before (see the pass description), so the cut is a matter of
// speed only.
//
//===----------------------------------------------------------------------===//

#include "prec/Dialect/Prec/IR/PrecOps.h"
#include "prec/Dialect/Prec/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"

namespace mlir::prec {
#define GEN_PASS_DEF_PRECBLOCKREDUCESCATTER
#include "prec/Dialect/Prec/Transforms/Passes.h.inc"
} // namespace mlir::prec

using namespace mlir;
using namespace mlir::prec;

namespace {

/// The optimizer update that is `op`'s only reader, as its gradient, when
/// it computes each element of its results from the same elements of its
/// tensor operands: rounding to nearest even (stochastic rounding draws by
/// element position) and every tensor operand of the shard's shape.
Operation *getBlockableOptimizer(ReduceScatterOp op) {
  if (!op.getResult().hasOneUse())
    return nullptr;
  Operation *user = *op.getResult().getUsers().begin();
  if (user->getBlock() != op->getBlock())
    return nullptr;
  Value grad;
  RoundingMode rounding;
  if (auto sgd = dyn_cast<SGDOp>(user)) {
    grad = sgd.getGrad();
    rounding = sgd.getRounding();
  } else if (auto adamw = dyn_cast<AdamWOp>(user)) {
    grad = adamw.getGrad();
    rounding = adamw.getRounding();
  } else {
    return nullptr;
  }
  if (grad != op.getResult() || rounding != RoundingMode::NearestEven)
    return nullptr;
  ArrayRef<int64_t> shape = op.getType().getShape();
  auto hasShardShape = [&](Type type) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    return !tensor || tensor.getShape() == shape;
  };
  if (!llvm::all_of(user->getOperandTypes(), hasShardShape) ||
      !llvm::all_of(user->getResultTypes(), hasShardShape))
    return nullptr;
  return user;
}

/// How a reduce_scatter is cut: its tensors are viewed with the scatter
/// axis split into (rank, rows of a rank's slice), the input as
/// `group x slice` and each result (of the reduce_scatter or of the
/// optimizer it carries) as `1 x slice`, and cut along `dim` of that view,
/// `blockLength` at a time.
struct BlockPlan {
  int64_t axis;
  int64_t groupSize;
  int64_t dim;
  int64_t blockLength;
};

/// `shape` with dimension `axis` split into `(outer, shape[axis] / outer)`.
SmallVector<int64_t> splitAxis(ArrayRef<int64_t> shape, int64_t axis,
                               int64_t outer) {
  SmallVector<int64_t> split(shape.take_front(axis));
  split.push_back(outer);
  split.push_back(shape[axis] / outer);
  llvm::append_range(split, shape.drop_front(axis + 1));
  return split;
}

/// The reassociation between a shape and its splitAxis form.
SmallVector<ReassociationIndices> getSplitReassociation(int64_t rank,
                                                        int64_t axis) {
  SmallVector<ReassociationIndices> groups;
  for (int64_t d = 0, e = 0; d < rank; ++d) {
    if (d == axis) {
      groups.push_back({e, e + 1});
      e += 2;
    } else {
      groups.push_back({e++});
    }
  }
  return groups;
}

/// `value` viewed with `axis` split into `(outer, rest)`.
Value expandAxis(OpBuilder &b, Location loc, Value value, int64_t axis,
                 int64_t outer) {
  auto type = cast<RankedTensorType>(value.getType());
  auto expanded = RankedTensorType::get(
      splitAxis(type.getShape(), axis, outer), type.getElementType());
  return tensor::ExpandShapeOp::create(
      b, loc, expanded, value, getSplitReassociation(type.getRank(), axis));
}

/// `value`, of the type `expandAxis` gives `type`, viewed as `type` again.
Value collapseAxis(OpBuilder &b, Location loc, Value value,
                   RankedTensorType type, int64_t axis) {
  return tensor::CollapseShapeOp::create(
      b, loc, type, value, getSplitReassociation(type.getRank(), axis));
}

/// Where a block of `shape` lies in a tensor cut along `dim`: at `offset`
/// along `dim`, at 0 along the others, with unit strides.
struct BlockPlace {
  SmallVector<OpFoldResult> offsets, sizes, strides;
};
BlockPlace getBlockPlace(OpBuilder &b, ArrayRef<int64_t> shape, int64_t dim,
                         OpFoldResult offset) {
  BlockPlace place;
  place.offsets.assign(shape.size(), b.getIndexAttr(0));
  place.strides.assign(shape.size(), b.getIndexAttr(1));
  for (int64_t size : shape)
    place.sizes.push_back(b.getIndexAttr(size));
  place.offsets[dim] = offset;
  return place;
}

/// The slice of `view` that is a block: `length` from `offset` along
/// `dim`, everything along the other dimensions.
Value extractBlock(OpBuilder &b, Location loc, Value view, int64_t dim,
                   OpFoldResult offset, int64_t length) {
  auto type = cast<RankedTensorType>(view.getType());
  SmallVector<int64_t> shape(type.getShape());
  shape[dim] = length;
  BlockPlace place = getBlockPlace(b, shape, dim, offset);
  return tensor::ExtractSliceOp::create(
      b, loc, RankedTensorType::get(shape, type.getElementType()), view,
      place.offsets, place.sizes, place.strides);
}

/// `block` inserted into `destination` at `offset` along `dim`.
Value insertBlock(OpBuilder &b, Location loc, Value block, Value destination,
                  int64_t dim, OpFoldResult offset) {
  BlockPlace place = getBlockPlace(
      b, cast<RankedTensorType>(block.getType()).getShape(), dim, offset);
  return tensor::InsertSliceOp::create(b, loc, block, destination,
                                       place.offsets, place.sizes,
                                       place.strides);
}

/// The reduce_scatter `op` and the optimizer it carries (or null) on the
/// block of `length` from `offset`, the block's reduce_scatter appended to
/// `blocks`; the block of each result is inserted into the matching
/// `destinations` (views with the scatter axis split).
SmallVector<Value> buildBlock(OpBuilder &b, Location loc, ReduceScatterOp op,
                              Operation *optimizer, const BlockPlan &plan,
                              Value inputView, ValueRange operandViews,
                              OpFoldResult offset, int64_t length,
                              ValueRange destinations,
                              SmallVectorImpl<ReduceScatterOp> &blocks) {
  auto blockType = [&](Type type) {
    auto tensor = cast<RankedTensorType>(type);
    SmallVector<int64_t> shape =
        splitAxis(tensor.getShape(), plan.axis, /*outer=*/1);
    shape[plan.dim] = length;
    return RankedTensorType::get(shape, tensor.getElementType());
  };
  IRMapping mapping;
  mapping.map(op.getInput(), extractBlock(b, loc, inputView, plan.dim, offset,
                                          length));
  Operation *reduced = b.clone(*op, mapping);
  reduced->getResult(0).setType(blockType(op.getType()));
  blocks.push_back(cast<ReduceScatterOp>(reduced));
  Operation *last = reduced;
  if (optimizer) {
    mapping.map(op.getResult(), reduced->getResult(0));
    for (auto [operand, view] :
         llvm::zip_equal(optimizer->getOperands(), operandViews))
      if (view)
        mapping.map(operand, extractBlock(b, loc, view, plan.dim, offset,
                                          length));
    last = b.clone(*optimizer, mapping);
    for (OpResult result : last->getResults())
      result.setType(blockType(result.getType()));
  }
  SmallVector<Value> updated;
  for (auto [result, destination] :
       llvm::zip_equal(last->getResults(), destinations))
    updated.push_back(
        insertBlock(b, loc, result, destination, plan.dim, offset));
  return updated;
}

/// Replaces `op` (and the optimizer it carries, or null) by a loop over its
/// full blocks and, where blocks do not divide the cut dimension, one more
/// block after it; the blocks' reduce_scatters are appended to `blocks`.
void cutIntoBlocks(ReduceScatterOp op, Operation *optimizer,
                   const BlockPlan &plan,
                   SmallVectorImpl<ReduceScatterOp> &blocks) {
  // After the optimizer's other operands, which the reduce_scatter's
  // operand dominates too.
  Operation *anchor = optimizer ? optimizer : op.getOperation();
  OpBuilder b(anchor);
  Location loc = anchor->getLoc();
  Value inputView = expandAxis(b, loc, op.getInput(), plan.axis, plan.groupSize);
  SmallVector<Value> operandViews;
  if (optimizer)
    for (Value operand : optimizer->getOperands())
      operandViews.push_back(
          operand != op.getResult() && isa<RankedTensorType>(operand.getType())
              ? expandAxis(b, loc, operand, plan.axis, /*outer=*/1)
              : Value());
  SmallVector<Value> destinations;
  for (Type type : anchor->getResultTypes()) {
    auto tensor = cast<RankedTensorType>(type);
    destinations.push_back(tensor::EmptyOp::create(
        b, loc, splitAxis(tensor.getShape(), plan.axis, /*outer=*/1),
        tensor.getElementType()));
  }

  int64_t length = cast<RankedTensorType>(inputView.getType()).getDimSize(plan.dim);
  int64_t fullBlocks = length / plan.blockLength;
  int64_t rest = length % plan.blockLength;
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value end = arith::ConstantIndexOp::create(b, loc, fullBlocks * plan.blockLength);
  Value step = arith::ConstantIndexOp::create(b, loc, plan.blockLength);
  auto loop = scf::ForOp::create(
      b, loc, zero, end, step, destinations,
      [&](OpBuilder &nb, Location nl, Value offset, ValueRange carried) {
        scf::YieldOp::create(
            nb, nl,
            buildBlock(nb, nl, op, optimizer, plan, inputView, operandViews,
                       offset, plan.blockLength, carried, blocks));
      });
  SmallVector<Value> results(loop.getResults());
  if (rest)
    results = buildBlock(b, loc, op, optimizer, plan, inputView, operandViews,
                         b.getIndexAttr(fullBlocks * plan.blockLength), rest,
                         results, blocks);
  for (auto [old, blocked] : llvm::zip_equal(anchor->getResults(), results))
    old.replaceAllUsesWith(collapseAxis(
        b, loc, blocked, cast<RankedTensorType>(old.getType()), plan.axis));
  if (optimizer)
    optimizer->erase();
  op->erase();
}

/// How to cut `op` into blocks of at most `blockBytes` of input, when
/// cutting computes the same bits as the whole op, saves passes over memory
/// and leaves more than one block; std::nullopt otherwise.
std::optional<BlockPlan> planBlocks(ReduceScatterOp op, int64_t blockBytes,
                                    SymbolTableCollection &tables) {
  RankedTensorType inputType = op.getInput().getType();
  RegroupRequirements requirements;
  requirements.nonEmpty = true;
  requirements.direct = true;
  requirements.severalRanks = true;
  std::optional<int64_t> regroupable = getRegroupableGroupSize(
      cast<CollectiveOpInterface>(op.getOperation()), tables, requirements);
  if (!regroupable)
    return std::nullopt;
  int64_t groupSize = *regroupable;
  int64_t axis = op.getScatterAxis();
  if (axis < 0 || axis >= inputType.getRank() ||
      inputType.getDimSize(axis) % groupSize)
    return std::nullopt;
  // The outermost dimension of the split view, other than the ranks', that
  // has more than one index: each block then covers a contiguous run of
  // every rank's slice, or of the whole input.
  SmallVector<int64_t> view = splitAxis(inputType.getShape(), axis, groupSize);
  std::optional<int64_t> dim;
  for (int64_t d = 0, e = view.size(); d < e && !dim; ++d)
    if (d != axis && view[d] > 1)
      dim = d;
  if (!dim)
    return std::nullopt;
  int64_t elementBytes =
      (inputType.getElementType().getIntOrFloatBitWidth() + 7) / 8;
  int64_t bytesPerIndex =
      inputType.getNumElements() / view[*dim] * elementBytes;
  int64_t blockLength = std::max<int64_t>(1, blockBytes / bytesPerIndex);
  if (blockLength >= view[*dim])
    return std::nullopt;
  return BlockPlan{axis, groupSize, *dim, blockLength};
}

struct BlockReduceScatterPass
    : public prec::impl::PrecBlockReduceScatterBase<BlockReduceScatterPass> {
  using Base::Base;

  /// Checked when the pass manager starts, before any pass runs.
  LogicalResult initialize(MLIRContext *context) override {
    if (blockBytes >= 0)
      return success();
    return emitError(UnknownLoc::get(context))
           << "prec-block-reduce-scatter: expected block-bytes >= 0 (0: "
              "reduce_scatters stay whole), got "
           << static_cast<int64_t>(blockBytes);
  }

  void runOnOperation() override {
    if (blockBytes == 0)
      return markAllAnalysesPreserved();
    SymbolTableCollection tables;
    SmallVector<ReduceScatterOp> worklist;
    getOperation().walk([&](ReduceScatterOp op) { worklist.push_back(op); });
    // A block holds at least one index of the cut dimension; where one
    // index is larger than block-bytes, the block is cut again along the
    // next dimension (a loop in the loop). Blocks within block-bytes are
    // left as they are.
    bool cut = false;
    while (!worklist.empty()) {
      ReduceScatterOp op = worklist.pop_back_val();
      std::optional<BlockPlan> plan = planBlocks(op, blockBytes, tables);
      if (!plan)
        continue;
      Operation *optimizer =
          withOptimizers ? getBlockableOptimizer(op) : nullptr;
      cutIntoBlocks(op, optimizer, *plan, worklist);
      cut = true;
    }
    if (!cut)
      markAllAnalysesPreserved();
  }
};

} // namespace
