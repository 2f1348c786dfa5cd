//===- BlockAllReduce.cpp - a large all_reduce as a loop over blocks ------===//
//
// The direct all_reduce of a large tensor runs five passes over buffers of
// the whole tensor (pack, all-to-all, sum, all-gather, widen), each through
// main memory. Cut into blocks of about a megabyte, the same passes run on
// buffers that stay in cache between one and the next. Every element is
// computed exactly as before (see the pass description), so the cut is a
// matter of speed only.
//
//===----------------------------------------------------------------------===//

#include "prec/Dialect/Prec/IR/PrecOps.h"
#include "prec/Dialect/Prec/Utils/TensorBuilders.h"
#include "prec/Dialect/Prec/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"

namespace mlir::prec {
#define GEN_PASS_DEF_PRECBLOCKALLREDUCE
#include "prec/Dialect/Prec/Transforms/Passes.h.inc"
} // namespace mlir::prec

using namespace mlir;
using namespace mlir::prec;

namespace {

/// Elements of a full block: blocks are cut in granules of 16 x N elements,
/// so that each rank's slice of a block is a whole number of 16-element
/// vectors and needs no padding.
int64_t getBlockElements(int64_t blockBytes, int64_t elementBytes,
                         int64_t groupSize) {
  int64_t granule = 16 * groupSize;
  return std::max<int64_t>(1, blockBytes / elementBytes / granule) * granule;
}

/// The group size of `op` when cutting it into blocks computes the same
/// bits as the whole op and saves passes over memory; std::nullopt
/// otherwise.
std::optional<int64_t> getBlockableGroupSize(AllReduceOp op,
                                             SymbolTableCollection &tables) {
  auto collective = cast<CollectiveOpInterface>(op.getOperation());
  RegroupRequirements requirements;
  requirements.direct = true;
  requirements.severalRanks = true;
  std::optional<int64_t> groupSize =
      getRegroupableGroupSize(collective, tables, requirements);
  if (!groupSize)
    return std::nullopt;
  // A gathered dtype exists: the all_reduce is not scaled, and the direct
  // decomposition honours the contract elementwise.
  FloatType gathered = getAllReduceGatherType(collective, *groupSize);
  if (!gathered)
    return std::nullopt;
  // Gathered slices already of the result type are the result: no kernel
  // would write a block's result in place, and copying each block's
  // gathered buffer into the result costs what the blocks save.
  if (gathered == op.getType().getElementType())
    return std::nullopt;
  return groupSize;
}

/// `op` on `length` elements of the flat input from `offset`, inserted into
/// `destination` at the same place.
Value buildBlock(OpBuilder &b, Location loc, AllReduceOp op, Value flatInput,
                 OpFoldResult offset, int64_t length, Value destination) {
  auto inputElement = op.getInput().getType().getElementType();
  auto resultElement = op.getType().getElementType();
  Value block = tensor::ExtractSliceOp::create(
      b, loc, RankedTensorType::get({length}, inputElement), flatInput,
      ArrayRef<OpFoldResult>{offset},
      ArrayRef<OpFoldResult>{b.getIndexAttr(length)},
      ArrayRef<OpFoldResult>{b.getIndexAttr(1)});
  IRMapping mapping;
  mapping.map(op.getInput(), block);
  Operation *blockOp = b.clone(*op, mapping);
  Value reduced = blockOp->getResult(0);
  reduced.setType(RankedTensorType::get({length}, resultElement));
  return tensor::InsertSliceOp::create(
      b, loc, reduced, destination, ArrayRef<OpFoldResult>{offset},
      ArrayRef<OpFoldResult>{b.getIndexAttr(length)},
      ArrayRef<OpFoldResult>{b.getIndexAttr(1)});
}

void cutIntoBlocks(AllReduceOp op, int64_t blockElements) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  RankedTensorType inputType = op.getInput().getType();
  RankedTensorType resultType = op.getType();
  int64_t count = inputType.getNumElements();
  int64_t fullBlocks = count / blockElements;
  int64_t rest = count % blockElements;

  Value flatInput = reshapeTensor(
      b, loc, op.getInput(),
      RankedTensorType::get({count}, inputType.getElementType()));
  Value result = tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{count},
                                         resultType.getElementType());
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value end = arith::ConstantIndexOp::create(b, loc, fullBlocks * blockElements);
  Value step = arith::ConstantIndexOp::create(b, loc, blockElements);
  auto loop = scf::ForOp::create(
      b, loc, zero, end, step, ValueRange{result},
      [&](OpBuilder &nb, Location nl, Value offset, ValueRange carried) {
        Value updated = buildBlock(nb, nl, op, flatInput, offset,
                                   blockElements, carried.front());
        scf::YieldOp::create(nb, nl, updated);
      });
  result = loop.getResult(0);
  if (rest)
    result = buildBlock(b, loc, op, flatInput,
                        b.getIndexAttr(fullBlocks * blockElements), rest,
                        result);
  op.getResult().replaceAllUsesWith(reshapeTensor(b, loc, result, resultType));
  op->erase();
}

struct BlockAllReducePass
    : public prec::impl::PrecBlockAllReduceBase<BlockAllReducePass> {
  using Base::Base;

  /// Checked when the pass manager starts, before any pass runs.
  LogicalResult initialize(MLIRContext *context) override {
    if (blockBytes >= 0)
      return success();
    return emitError(UnknownLoc::get(context))
           << "prec-block-all-reduce: expected block-bytes >= 0 (0: "
              "all_reduces stay whole), got "
           << static_cast<int64_t>(blockBytes);
  }

  void runOnOperation() override {
    if (blockBytes == 0)
      return markAllAnalysesPreserved();
    SymbolTableCollection tables;
    SmallVector<std::pair<AllReduceOp, int64_t>> toCut;
    getOperation().walk([&](AllReduceOp op) {
      std::optional<int64_t> groupSize = getBlockableGroupSize(op, tables);
      if (!groupSize)
        return;
      RankedTensorType inputType = op.getInput().getType();
      int64_t elementBytes =
          (inputType.getElementType().getIntOrFloatBitWidth() + 7) / 8;
      int64_t blockElements =
          getBlockElements(blockBytes, elementBytes, *groupSize);
      if (inputType.getNumElements() > blockElements)
        toCut.push_back({op, blockElements});
    });
    if (toCut.empty())
      return markAllAnalysesPreserved();
    for (auto [op, blockElements] : toCut)
      cutIntoBlocks(op, blockElements);
  }
};

} // namespace
