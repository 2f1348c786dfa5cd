//===- DequantizeByTable.cpp - per-tensor dequantization as a lookup ------===//
//
// With one scale for the whole tensor, an fp8 element's dequantized value
// depends on its 8 bits alone: the kernel can dequantize the 256 bit
// patterns once and look every element up, instead of decoding it and
// forming the exact product per element. The table is the same
// prec.dequantize applied to the 256 patterns, so every element is the bits
// the direct kernel would write.
//
//===----------------------------------------------------------------------===//

#include "prec/Dialect/Prec/IR/PrecOps.h"
#include "prec/Dialect/Prec/Utils/FloatCodecs.h"
#include "prec/Dialect/Prec/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mlir::prec {
#define GEN_PASS_DEF_PRECDEQUANTIZEBYTABLE
#include "prec/Dialect/Prec/Transforms/Passes.h.inc"
} // namespace mlir::prec

using namespace mlir;
using namespace mlir::prec;

namespace {

/// Below this many elements the table (256 products) costs more than it
/// saves.
constexpr int64_t kMinElements = 4096;

bool isTabulable(DequantizeOp op) {
  RankedTensorType input = op.getInput().getType();
  return op.getScale().getType().getRank() == 0 &&
         isBitManipulatedFloatType(input.getElementType()) &&
         input.hasStaticShape() && input.getNumElements() >= kMinElements;
}

void tabulate(DequantizeOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  auto codeType = cast<FloatType>(op.getInput().getType().getElementType());
  RankedTensorType resultType = op.getType();
  Type resultElement = resultType.getElementType();

  // Every bit pattern of the fp8 type, and its dequantized value.
  SmallVector<APFloat> codes;
  for (unsigned bits = 0; bits < 256; ++bits)
    codes.emplace_back(codeType.getFloatSemantics(), APInt(8, bits));
  auto codesType = RankedTensorType::get({256}, codeType);
  Value allCodes = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(codesType, codes));
  Value table =
      DequantizeOp::create(b, loc, RankedTensorType::get({256}, resultElement),
                           allCodes, op.getScale(), op.getScaling());

  int64_t rank = resultType.getRank();
  Value init =
      tensor::EmptyOp::create(b, loc, resultType.getShape(), resultElement);
  AffineMap identity = b.getMultiDimIdentityMap(rank);
  auto lookup = linalg::GenericOp::create(
      b, loc, resultType, op.getInput(), init,
      ArrayRef<AffineMap>{identity, identity},
      SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
      [&](OpBuilder &nb, Location nl, ValueRange args) {
        Value bits = arith::BitcastOp::create(nb, nl, nb.getI8Type(), args[0]);
        Value wide = arith::ExtUIOp::create(nb, nl, nb.getI32Type(), bits);
        Value index =
            arith::IndexCastUIOp::create(nb, nl, nb.getIndexType(), wide);
        Value value =
            tensor::ExtractOp::create(nb, nl, table, ValueRange{index});
        linalg::YieldOp::create(nb, nl, value);
      });
  op.getResult().replaceAllUsesWith(lookup.getResult(0));
  op->erase();
}

struct DequantizeByTablePass
    : public prec::impl::PrecDequantizeByTableBase<DequantizeByTablePass> {
  void runOnOperation() override {
    SmallVector<DequantizeOp> dequantizations;
    getOperation().walk([&](DequantizeOp op) {
      if (isTabulable(op))
        dequantizations.push_back(op);
    });
    if (dequantizations.empty())
      return markAllAnalysesPreserved();
    for (DequantizeOp op : dequantizations)
      tabulate(op);
  }
};

} // namespace
