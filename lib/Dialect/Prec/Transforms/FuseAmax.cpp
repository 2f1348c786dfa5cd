//===- FuseAmax.cpp - amaxes in the read of the quantizing kernel ---------===//
//
// prec.amax reads its whole input and prec.quantize of the same input reads
// it again. Where the quantization does not wait for that amax, one kernel
// does both:
//
// - block (MX) scaling: a block's amax, its scale and its quantized elements
//   depend on that block alone, so one loop over tiles of whole blocks
//   computes a tile's amaxes and scales and quantizes the tile while it is
//   in cache;
// - a per-tensor scale that does not depend on the amax (delayed scaling,
//   whose scale comes from earlier steps): one kernel writes the quantized
//   tensor and the amax.
//
// A dynamic per-tensor scale needs the amax of the whole tensor, of every
// rank, before the first element is quantized: that stays two passes.
// Every value is computed by the same operations as in the separate
// kernels, and a maximum is exact in any order: the results are the same
// bits.
//
//===----------------------------------------------------------------------===//

#include "prec/Dialect/Prec/IR/PrecOps.h"
#include "prec/Dialect/Prec/Utils/FloatCodecs.h"
#include "prec/Dialect/Prec/Utils/Quantization.h"
#include "prec/Dialect/Prec/Utils/TensorBuilders.h"
#include "prec/Dialect/Prec/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Dominance.h"

#include <algorithm>

namespace mlir::prec {
#define GEN_PASS_DEF_PRECFUSEAMAX
#include "prec/Dialect/Prec/Transforms/Passes.h.inc"
} // namespace mlir::prec

using namespace mlir;
using namespace mlir::prec;

namespace {

/// Elements of the tile a block-scaled kernel quantizes while it is in
/// cache (16 KiB of f32), and the most columns of the per-tensor kernel's
/// view, whose maxima it keeps.
constexpr int64_t kTileElements = 4096;

/// Whether the kernels built here handle `quantize`: round to nearest (the
/// stochastic stream is keyed by the element's index in the whole tensor),
/// static shapes, and the types convert-prec-to-linalg lowers, which
/// otherwise reports what it does not.
bool isFusible(QuantizeOp quantize) {
  if (quantize.getSeed() || !quantize.getInput().getType().hasStaticShape() ||
      quantize.getInput().getType().getRank() == 0)
    return false;
  Type input = quantize.getInput().getType().getElementType();
  return isa<Float16Type, BFloat16Type, Float32Type, Float64Type>(input) &&
         isBitManipulatedFloatType(quantize.getType().getElementType());
}

/// `destination` filled with f32 zeros.
Value buildZeros(OpBuilder &b, Location loc, Value destination) {
  FloatType f32 = b.getF32Type();
  Value zero = arith::ConstantOp::create(b, loc, f32, b.getFloatAttr(f32, 0.0));
  return linalg::FillOp::create(b, loc, zero, destination).getResult(0);
}

Value buildZeros(OpBuilder &b, Location loc, ArrayRef<int64_t> shape) {
  return buildZeros(b, loc,
                    tensor::EmptyOp::create(b, loc, shape, b.getF32Type()));
}

Value buildQuantizedElement(OpBuilder &b, Location loc, Value x, Value scale,
                            Type element) {
  return convertFloat(b, loc, buildQuantizeQuotient(b, loc, x, scale),
                      cast<FloatType>(element));
}

/// Row `row` of the [rows, columns] tensor `matrix`, as a 1-D tensor.
Value extractRow(OpBuilder &b, Location loc, Value matrix, Value row) {
  auto type = cast<RankedTensorType>(matrix.getType());
  auto rowType =
      RankedTensorType::get({type.getDimSize(1)}, type.getElementType());
  return tensor::ExtractSliceOp::create(
      b, loc, rowType, matrix, ArrayRef<OpFoldResult>{row, b.getIndexAttr(0)},
      ArrayRef<OpFoldResult>{b.getIndexAttr(1),
                             b.getIndexAttr(type.getDimSize(1))},
      ArrayRef<OpFoldResult>{b.getIndexAttr(1), b.getIndexAttr(1)});
}

Value insertRow(OpBuilder &b, Location loc, Value rowValue, Value matrix,
                Value row) {
  auto type = cast<RankedTensorType>(matrix.getType());
  return tensor::InsertSliceOp::create(
      b, loc, rowValue, matrix, ArrayRef<OpFoldResult>{row, b.getIndexAttr(0)},
      ArrayRef<OpFoldResult>{b.getIndexAttr(1),
                             b.getIndexAttr(type.getDimSize(1))},
      ArrayRef<OpFoldResult>{b.getIndexAttr(1), b.getIndexAttr(1)});
}

/// A 1-D tensor of `blocks * blockSize` elements as [blocks, blockSize].
Value splitBlocks(OpBuilder &b, Location loc, Value row, int64_t blockSize) {
  auto type = cast<RankedTensorType>(row.getType());
  return tensor::ExpandShapeOp::create(
      b, loc,
      RankedTensorType::get({type.getDimSize(0) / blockSize, blockSize},
                            type.getElementType()),
      row, ArrayRef<ReassociationIndices>{{0, 1}});
}

/// amax (block_size B) -> scale_from_amax -> quantize of one input, as one
/// loop over rows of whole blocks (at most kTileElements elements). Each
/// iteration runs three kernels on its row: the amaxes of its blocks, their
/// scales, and the quantization; the row is read from memory once.
void fuseBlockScaled(AmaxOp amax, ScaleFromAmaxOp scaleOp,
                     QuantizeOp quantize) {
  OpBuilder b(amax);
  Location loc =
      b.getFusedLoc({amax.getLoc(), scaleOp.getLoc(), quantize.getLoc()});
  Value input = quantize.getInput();
  auto inputType = cast<RankedTensorType>(input.getType());
  int64_t blockSize = static_cast<int64_t>(*amax.getBlockSize());
  int64_t blocks = inputType.getNumElements() / blockSize;
  int64_t blocksPerRow = getLargestDivisor(
      blocks, std::max<int64_t>(kTileElements / blockSize, 1));
  int64_t rows = blocks / blocksPerRow;
  int64_t columns = blocksPerRow * blockSize;
  Type dataElement = quantize.getType().getElementType();
  Type scaleElement = scaleOp.getType().getElementType();
  auto elementType = cast<FloatType>(scaleOp.getElementType());

  // Blocks are consecutive elements of the innermost dimension, so the
  // row-major [rows, columns] view keeps each block whole and its scale at
  // the same position of the [rows, blocksPerRow] view of the scales.
  Value matrix = reshapeTensor(
      b, loc, input,
      RankedTensorType::get({rows, columns}, inputType.getElementType()));
  Value dataInit =
      tensor::EmptyOp::create(b, loc, ArrayRef{rows, columns}, dataElement);
  Value scalesInit = tensor::EmptyOp::create(
      b, loc, ArrayRef{rows, blocksPerRow}, scaleElement);
  // One row's amaxes, carried by the loop so that every row reuses one
  // buffer instead of allocating its own.
  Value amaxesInit =
      tensor::EmptyOp::create(b, loc, ArrayRef{blocksPerRow}, b.getF32Type());
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value end = arith::ConstantIndexOp::create(b, loc, rows);
  MLIRContext *context = b.getContext();
  AffineExpr j = getAffineDimExpr(0, context), k = getAffineDimExpr(1, context);
  auto elementMap = AffineMap::get(2, 0, {j, k}, context);
  auto blockMap = AffineMap::get(2, 0, {j}, context);
  auto loop = scf::ForOp::create(
      b, loc, zero, end, one, ValueRange{dataInit, scalesInit, amaxesInit},
      [&](OpBuilder &nb, Location nl, Value row, ValueRange carried) {
        Value tile =
            splitBlocks(nb, nl, extractRow(nb, nl, matrix, row), blockSize);
        auto amaxes = linalg::GenericOp::create(
            nb, nl,
            TypeRange{RankedTensorType::get({blocksPerRow}, nb.getF32Type())},
            tile, buildZeros(nb, nl, carried[2]),
            ArrayRef{elementMap, blockMap},
            ArrayRef{utils::IteratorType::parallel,
                     utils::IteratorType::reduction},
            [&](OpBuilder &kb, Location kl, ValueRange args) {
              linalg::YieldOp::create(
                  kb, kl,
                  buildAmaxMaximum(kb, kl, args[1],
                                   buildAmaxTerm(kb, kl, args[0])));
            });
        Value scalesRow = extractRow(nb, nl, carried[1], row);
        auto scales = linalg::GenericOp::create(
            nb, nl, scalesRow.getType(), amaxes.getResult(0), scalesRow,
            ArrayRef{nb.getMultiDimIdentityMap(1),
                     nb.getMultiDimIdentityMap(1)},
            ArrayRef{utils::IteratorType::parallel},
            [&](OpBuilder &kb, Location kl, ValueRange args) {
              linalg::YieldOp::create(
                  kb, kl,
                  buildScaleFromAmax(kb, kl, args[0], elementType,
                                     cast<FloatType>(scaleElement)));
            });
        Value dataRow =
            splitBlocks(nb, nl, extractRow(nb, nl, carried[0], row), blockSize);
        auto quantized = linalg::GenericOp::create(
            nb, nl, dataRow.getType(), ValueRange{tile, scales.getResult(0)},
            dataRow, ArrayRef{elementMap, blockMap, elementMap},
            ArrayRef{utils::IteratorType::parallel,
                     utils::IteratorType::parallel},
            [&](OpBuilder &kb, Location kl, ValueRange args) {
              linalg::YieldOp::create(
                  kb, kl,
                  buildQuantizedElement(kb, kl, args[0], args[1], dataElement));
            });
        Value flatData = tensor::CollapseShapeOp::create(
            nb, nl, quantized.getResult(0),
            ArrayRef<ReassociationIndices>{{0, 1}});
        scf::YieldOp::create(
            nb, nl,
            ValueRange{insertRow(nb, nl, flatData, carried[0], row),
                       insertRow(nb, nl, scales.getResult(0), carried[1], row),
                       amaxes.getResult(0)});
      });
  Value data = reshapeTensor(b, loc, loop.getResult(0), quantize.getType());
  Value scales = reshapeTensor(b, loc, loop.getResult(1), scaleOp.getType());
  quantize.getResult().replaceAllUsesWith(data);
  scaleOp.getResult().replaceAllUsesWith(scales);
  quantize->erase();
  scaleOp->erase();
  amax->erase();
}

/// A per-tensor amax and the quantization of its input with a scale that
/// does not depend on it, as one kernel at `insertionPoint` (where one of
/// the two was). The input is viewed as [rows, columns], iterated row by row:
/// the kernel writes each quantized element and keeps the largest term of
/// each column in a [columns] tensor, so that the innermost loop reads and
/// writes consecutive elements (and vectorizes); a small kernel then takes
/// the largest of the columns.
void fusePerTensor(AmaxOp amax, QuantizeOp quantize,
                   Operation *insertionPoint) {
  OpBuilder b(insertionPoint);
  Location loc = b.getFusedLoc({amax.getLoc(), quantize.getLoc()});
  Value input = quantize.getInput();
  auto inputType = cast<RankedTensorType>(input.getType());
  int64_t elements = inputType.getNumElements();
  int64_t columns = getAmaxColumns(elements);
  int64_t rows = elements / columns;
  Type dataElement = quantize.getType().getElementType();

  Value matrix = reshapeTensor(
      b, loc, input,
      RankedTensorType::get({rows, columns}, inputType.getElementType()));
  Value dataInit =
      tensor::EmptyOp::create(b, loc, ArrayRef{rows, columns}, dataElement);
  MLIRContext *context = b.getContext();
  AffineExpr i = getAffineDimExpr(0, context), j = getAffineDimExpr(1, context);
  auto elementMap = AffineMap::get(2, 0, {i, j}, context);
  auto kernel = linalg::GenericOp::create(
      b, loc,
      TypeRange{RankedTensorType::get({columns}, b.getF32Type()),
                dataInit.getType()},
      ValueRange{matrix, quantize.getScale()},
      ValueRange{buildZeros(b, loc, {columns}), dataInit},
      ArrayRef{elementMap, AffineMap::get(2, 0, {}, context),
               AffineMap::get(2, 0, {j}, context), elementMap},
      ArrayRef{utils::IteratorType::reduction, utils::IteratorType::parallel},
      [&](OpBuilder &kb, Location kl, ValueRange args) {
        Value largest =
            buildAmaxMaximum(kb, kl, args[2], buildAmaxTerm(kb, kl, args[0]));
        linalg::YieldOp::create(
            kb, kl,
            ValueRange{largest, buildQuantizedElement(kb, kl, args[0], args[1],
                                                      dataElement)});
      });
  Value largest = buildLargestPartialAmax(b, loc, kernel.getResult(0));
  quantize.getResult().replaceAllUsesWith(
      reshapeTensor(b, loc, kernel.getResult(1), quantize.getType()));
  amax.getResult().replaceAllUsesWith(largest);
  quantize->erase();
  amax->erase();
}

/// Whether every use of `op`'s results comes after `point`.
bool areUsesAfter(Operation *op, Operation *point, DominanceInfo &dominance) {
  return llvm::all_of(op->getUsers(), [&](Operation *user) {
    return dominance.properlyDominates(point, user);
  });
}

struct FuseAmaxPass : public prec::impl::PrecFuseAmaxBase<FuseAmaxPass> {
  void runOnOperation() override {
    DominanceInfo dominance(getOperation());
    SmallVector<std::tuple<AmaxOp, ScaleFromAmaxOp, QuantizeOp>> blockScaled;
    SmallVector<std::tuple<AmaxOp, QuantizeOp, Operation *>> perTensor;
    DenseSet<Operation *> claimed;
    getOperation().walk([&](QuantizeOp quantize) {
      if (!isFusible(quantize))
        return;
      Value input = quantize.getInput();
      Block *block = quantize->getBlock();
      if (quantize.getScaling().getKind() == ScalingKind::Block) {
        auto scaleOp = quantize.getScale().getDefiningOp<ScaleFromAmaxOp>();
        auto amax =
            scaleOp ? scaleOp.getAmax().getDefiningOp<AmaxOp>() : AmaxOp();
        if (!amax || amax.getInput() != input || !amax->hasOneUse() ||
            amax.getBlockSize() !=
                uint64_t(quantize.getScaling().getBlockSize()) ||
            amax->getBlock() != block || scaleOp->getBlock() != block ||
            claimed.contains(amax))
          return;
        claimed.insert(amax);
        blockScaled.push_back({amax, scaleOp, quantize});
        return;
      }
      for (Operation *user : input.getUsers()) {
        auto amax = dyn_cast<AmaxOp>(user);
        if (!amax || amax.getBlockSize() || amax->getBlock() != block ||
            claimed.contains(amax))
          continue;
        // One kernel where the earlier of the two was, if the later one's
        // operands are known there; otherwise where the later one was, if
        // what uses the earlier one's result comes after it. Neither holds
        // for a scale computed from this amax, as dynamic scaling does.
        bool amaxFirst = amax->isBeforeInBlock(quantize);
        Operation *earlier = amaxFirst ? amax.getOperation() : quantize;
        Operation *later = amaxFirst ? quantize.getOperation() : amax;
        Operation *insertionPoint = nullptr;
        if (llvm::all_of(later->getOperands(), [&](Value operand) {
              return dominance.properlyDominates(operand, earlier);
            }))
          insertionPoint = earlier;
        else if (areUsesAfter(earlier, later, dominance))
          insertionPoint = later;
        else
          continue;
        claimed.insert(amax);
        perTensor.push_back({amax, quantize, insertionPoint});
        return;
      }
    });
    if (blockScaled.empty() && perTensor.empty())
      return markAllAnalysesPreserved();
    for (auto [amax, scaleOp, quantize] : blockScaled)
      fuseBlockScaled(amax, scaleOp, quantize);
    for (auto [amax, quantize, later] : perTensor)
      fusePerTensor(amax, quantize, later);
  }
};

} // namespace
