//===- ContractFp8WithScales.cpp - fp8 gemm operands with their scales ----===//
//
// A contraction of two per-tensor dequantized fp8 tensors multiplies
// `q_a * s_a` by `q_b * s_b`: the same as `s_a * s_b` times the products of
// the fp8 values, which a GPU's fp8 tensor cores compute from the fp8 data
// and the two scales (cuBLASLt's A and B scale pointers). Their partial sums
// keep fewer bits than f32 between cuBLASLt's promotions, so a program asks
// for them (#prec.reduced_precision<fp8_accumulation>). The contraction is
// rewritten to read the fp8 tensors and the scales itself, so that the
// dequantized tensors are never made for it.
//
//===----------------------------------------------------------------------===//

#include "prec/Conversion/ContractionsToRuntime/Gemm.h"
#include "prec/Dialect/Prec/IR/PrecAttrs.h"
#include "prec/Dialect/Prec/IR/PrecOps.h"
#include "prec/Lowering/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace mlir::prec {
#define GEN_PASS_DEF_PRECCONTRACTFP8WITHSCALES
#include "prec/Lowering/Passes.h.inc"
} // namespace mlir::prec

using namespace mlir;
using namespace mlir::prec;

namespace {

/// The fp8 tensor and per-tensor scale a contraction input dequantizes, and
/// the map that reads the fp8 tensor as the contraction read its input
/// (through a 2-D transpose between them).
struct ScaledOperand {
  Value data, scale;
  AffineMap map;
};

std::optional<ScaledOperand> getScaledOperand(linalg::LinalgOp op,
                                              OpOperand &operand) {
  AffineMap map = op.getMatchingIndexingMap(&operand);
  Value value = operand.get();
  if (auto transpose = value.getDefiningOp<linalg::TransposeOp>()) {
    if (transpose.getPermutation() != ArrayRef<int64_t>{1, 0})
      return std::nullopt;
    // Dimension d of the transposed tensor is dimension permutation[d] of
    // the source, so the source's dimensions are read in swapped order.
    map = AffineMap::get(map.getNumDims(), 0,
                         {map.getResult(1), map.getResult(0)},
                         op->getContext());
    value = transpose.getInput();
  }
  auto dequantize = value.getDefiningOp<DequantizeOp>();
  if (!dequantize)
    return std::nullopt;
  auto dataType = dequantize.getInput().getType();
  auto scaleType = cast<RankedTensorType>(dequantize.getScale().getType());
  // Only a result with f32's exponent range (f32, bf16): there the product
  // kept in f32 is the program's value or a closer one, where an f16 result
  // would overflow to infinity.
  Type resultType = dequantize.getType().getElementType();
  if (!resultType.isF32() && !resultType.isBF16())
    return std::nullopt;
  if (!isa<Float8E4M3FNType, Float8E5M2Type>(dataType.getElementType()) ||
      !dataType.hasStaticShape() || scaleType.getRank() != 0 ||
      !scaleType.getElementType().isF32() ||
      dequantize.getScaling().getKind() == ScalingKind::Block)
    return std::nullopt;
  return ScaledOperand{dequantize.getInput(), dequantize.getScale(), map};
}

/// Whether cuBLASLt's fp8 gemm takes the operand read through `map`: k its
/// innermost dimension, a multiple of 16 elements (its leading dimension).
bool isFp8GemmLayout(const ScaledOperand &operand, unsigned k) {
  auto type = cast<RankedTensorType>(operand.data.getType());
  return type.getRank() == 2 && operand.map.getNumResults() == 2 &&
         operand.map.getResult(1) ==
             getAffineDimExpr(k, operand.map.getContext()) &&
         type.getDimSize(1) % 16 == 0;
}

/// The contraction `op` of two scaled fp8 operands as one that reads the
/// fp8 data and the scales: `out + (ext(q_a) * s_a) * (ext(q_b) * s_b)`
/// in f32, or failure when cuBLASLt's fp8 gemm would not take it.
LogicalResult contractWithScales(linalg::LinalgOp op) {
  // fp8 tensor cores keep fewer bits than f32 in their partial sums: only
  // where the program allows it.
  if (!bitEnumContainsAll(getEffectiveReducedPrecision(op),
                          ReducedPrecision::fp8_accumulation))
    return failure();
  FailureOr<GemmLoops> loops = inferGemmLoops(op);
  if (failed(loops) || loops->batch ||
      !getElementTypeOrSelf(op.getDpsInitOperand(0)->get().getType()).isF32() ||
      !op.hasPureTensorSemantics())
    return failure();
  std::optional<ScaledOperand> a =
      getScaledOperand(op, *op.getDpsInputOperand(0));
  std::optional<ScaledOperand> b =
      getScaledOperand(op, *op.getDpsInputOperand(1));
  // n a multiple of 16 too: the leading dimension of cuBLASLt's fp8 D.
  auto outType = cast<RankedTensorType>(op.getDpsInitOperand(0)->get().getType());
  AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  if (!a || !b || !isFp8GemmLayout(*a, loops->k) ||
      !isFp8GemmLayout(*b, loops->k) || !outType.hasStaticShape() ||
      outType.getRank() != 2 ||
      outMap.getResult(1) != getAffineDimExpr(loops->n, op->getContext()) ||
      outType.getDimSize(1) % 16 != 0)
    return failure();
  Type aType = getElementTypeOrSelf(a->data.getType());
  Type bType = getElementTypeOrSelf(b->data.getType());
  // cuBLASLt has no fp8 gemm of two f8E5M2 operands.
  if (isa<Float8E5M2Type>(aType) && isa<Float8E5M2Type>(bType))
    return failure();

  OpBuilder builder(op);
  Location loc = op.getLoc();
  MLIRContext *context = op->getContext();
  unsigned numLoops = op.getNumLoops();
  AffineMap scalar = AffineMap::get(numLoops, 0, {}, context);
  SmallVector<AffineMap> maps = {
      a->map, b->map, scalar, scalar,
      op.getMatchingIndexingMap(op.getDpsInitOperand(0))};
  Type f32 = builder.getF32Type();
  auto generic = linalg::GenericOp::create(
      builder, loc, op->getResultTypes(),
      ValueRange{a->data, b->data, a->scale, b->scale},
      ValueRange{op.getDpsInitOperand(0)->get()}, maps,
      op.getIteratorTypesArray(),
      [&](OpBuilder &b, Location loc, ValueRange args) {
        Value x = arith::MulFOp::create(
            b, loc, arith::ExtFOp::create(b, loc, f32, args[0]), args[2]);
        Value y = arith::MulFOp::create(
            b, loc, arith::ExtFOp::create(b, loc, f32, args[1]), args[3]);
        Value sum = arith::AddFOp::create(
            b, loc, args[4], arith::MulFOp::create(b, loc, x, y));
        linalg::YieldOp::create(b, loc, sum);
      });
  // What the program allowed the contraction, it keeps.
  for (NamedAttribute attribute : op->getDiscardableAttrs())
    generic->setAttr(attribute.getName(), attribute.getValue());
  op->replaceAllUsesWith(generic->getResults());
  op->erase();
  return success();
}

struct ContractFp8WithScalesPass
    : public prec::impl::PrecContractFp8WithScalesBase<
          ContractFp8WithScalesPass> {
  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> contractions;
    getOperation()->walk([&](linalg::LinalgOp op) {
      if (op.getNumDpsInputs() == 2)
        contractions.push_back(op);
    });
    for (linalg::LinalgOp op : contractions)
      (void)contractWithScales(op);
  }
};

} // namespace
