//===- MaterializeScales.cpp - explicit scales for fp8 collectives --------===//
//
// A collective that converts to an fp8 wire under a scaling mode becomes the
// ops that say how: amaxes, scales, prec.quantize, a collective that moves
// the quantized bytes (and block scales) unconverted, and the
// dequantization. What is left for prec-decompose-collectives moves fp8 data
// without converting it, and every scale computation is a kernel of its own
// that the rest of the pipeline lowers like any other.
//
//===----------------------------------------------------------------------===//

#include "prec/Dialect/Prec/IR/PrecOps.h"
#include "prec/Dialect/Prec/Utils/FloatCodecs.h"
#include "prec/Dialect/Prec/Utils/RandomStreams.h"
#include "prec/Dialect/Prec/Utils/TensorBuilders.h"
#include "prec/Dialect/Prec/Transforms/Passes.h"
#include "prec/Dialect/Prec/Transforms/ScaledCollectives.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir::prec {
#define GEN_PASS_DEF_PRECMATERIALIZESCALES
#include "prec/Dialect/Prec/Transforms/Passes.h.inc"
} // namespace mlir::prec

using namespace mlir;
using namespace mlir::prec;

namespace {

/// What a scaled collective asks for, checked once.
struct ScaledCollective {
  CollectiveOpInterface op;
  ScalingAttr scaling;
  FloatType wire;
  int64_t groupSize;
};

/// The verifier checked the wire, the scale dtype, the accumulation dtype
/// and that blocks divide the innermost dimension and each rank's chunk of
/// it; what is left is what only the lowering needs.
FailureOr<ScaledCollective> checkScaledCollective(CollectiveOpInterface op,
                                                  SymbolTableCollection &tables) {
  ScaledCollective scaled{op, op.getScalingAttr(),
                          cast<FloatType>(op.getEffectiveForwardDtype()), 1};
  assert(isBitManipulatedFloatType(scaled.wire) &&
         "the verifier admits only the fp8 wires the kernels convert");
  auto grid =
      tables.lookupNearestSymbolFrom<shard::GridOp>(op, op.getGridAttr());
  if (!grid)
    return op->emitOpError("expected grid ")
           << op.getGridAttr() << " to name a 'shard.grid'";
  scaled.groupSize = getCollectiveGroupSize(grid, op.getGridAxes());
  if (ShapedType::isDynamic(scaled.groupSize) ||
      !op.getInput().getType().hasStaticShape() ||
      !op.getResult().getType().hasStaticShape())
    return op->emitOpError("scaled collectives need static shapes and group "
                           "sizes");
  return scaled;
}

RankedTensorType withElementType(Type type, Type element) {
  return cast<RankedTensorType>(type).clone(element);
}

/// This rank's scales of `input`: one (rank-0, f32) per tensor, or one per
/// block of the innermost dimension.
Value buildLocalScales(OpBuilder &b, Location loc, Value input,
                       ScaledCollective scaled) {
  auto inputType = cast<RankedTensorType>(input.getType());
  FloatType f32 = b.getF32Type();
  TypeAttr element = TypeAttr::get(scaled.wire);
  if (scaled.scaling.getKind() != ScalingKind::Block) {
    auto scalarType = RankedTensorType::get({}, f32);
    Value amax = AmaxOp::create(b, loc, scalarType, input, IntegerAttr());
    return ScaleFromAmaxOp::create(b, loc, scalarType, amax, element);
  }
  int64_t blockSize = scaled.scaling.getBlockSize();
  SmallVector<int64_t> shape(inputType.getShape());
  shape.back() /= blockSize;
  Type scaleElement = scaled.scaling.getScaleDtype();
  if (!scaleElement)
    scaleElement = Float8E8M0FNUType::get(b.getContext());
  Value amax = AmaxOp::create(b, loc, RankedTensorType::get(shape, f32), input,
                              b.getI64IntegerAttr(blockSize));
  return ScaleFromAmaxOp::create(
      b, loc, RankedTensorType::get(shape, scaleElement), amax, element);
}

/// Quantizes with the collective's rounding: stochastic rounding keys its
/// stream by the seed and this rank (buildRankRoundingKey), as the pack
/// kernel of an unscaled collective does.
Value buildQuantize(OpBuilder &b, Location loc, Value input, Value scale,
                    ScaledCollective scaled) {
  RoundingModeAttr rounding = scaled.op.getRoundingAttr();
  Value key;
  if (rounding.getValue() == RoundingMode::Stochastic)
    key = buildRankRoundingKey(b, loc, scaled.op.getGridAttr(),
                               scaled.op.getSeed());
  return QuantizeOp::create(
      b, loc, withElementType(input.getType(), scaled.wire), input, scale,
      scaled.scaling, rounding, key);
}

/// The key of the stochastic rounding of the values a scaled collective
/// dequantizes (or reduces), or null where it rounds to nearest even: the
/// stream of this rank where only this rank holds them (a reduce_scatter's
/// or all_to_all's result), of the seed itself where every rank of the
/// group computes them alike (an all_gather's and an all_reduce's result),
/// so that every rank rounds them to the same bits. The rounding takes the
/// arrival words (buildArrivalWord), which the quantization never draws.
Value buildResultRoundingKey(OpBuilder &b, Location loc,
                             ScaledCollective scaled, bool sharedResult) {
  if (scaled.op.getRounding() != RoundingMode::Stochastic)
    return {};
  Value seed = scaled.op.getSeed();
  if (sharedResult)
    return seed;
  return buildRankRoundingKey(b, loc, scaled.op.getGridAttr(), seed);
}

/// `value` converted to `type`, element `index` of the result: rounded
/// stochastically by arrival word `index` of `key` where there is a key and
/// the conversion rounds to a type narrower than f32 (from f64 through f32
/// rounded to odd), else to nearest even.
Value convertResultElement(OpBuilder &b, Location loc, Value value,
                           FloatType type, Value key,
                           function_ref<Value()> index) {
  if (!key || floatTypeContains(type, cast<FloatType>(value.getType())))
    return convertFloat(b, loc, value, type);
  return convertFloatStochastic(b, loc, value, type,
                                buildArrivalWord(b, loc, key, index()));
}

/// A collective of the same group that moves `input` unconverted.
Value buildAllGather(OpBuilder &b, Location loc, CollectiveOpInterface like,
                     Value input, int64_t axis, int64_t groupSize) {
  auto type = cast<RankedTensorType>(input.getType());
  SmallVector<int64_t> shape(type.getShape());
  shape[axis] *= groupSize;
  return AllGatherOp::create(
      b, loc, type.clone(shape), input, like.getGridAttr(),
      b.getDenseI16ArrayAttr(like.getGridAxes()), /*forward_dtype=*/nullptr,
      /*backward_dtype=*/nullptr, RoundingModeAttr(), ScalingAttr(),
      /*seed=*/Value(), b.getI64IntegerAttr(axis), ReductionKindAttr(),
      /*grad_inter_host_dtype=*/TypeAttr(),
      /*grad_inter_host_scaling=*/ScalingAttr());
}

Value buildAllToAll(OpBuilder &b, Location loc, CollectiveOpInterface like,
                    Value input, int64_t splitAxis, int64_t concatAxis,
                    int64_t groupSize) {
  auto type = cast<RankedTensorType>(input.getType());
  SmallVector<int64_t> shape(type.getShape());
  shape[splitAxis] /= groupSize;
  shape[concatAxis] *= groupSize;
  return AllToAllOp::create(
      b, loc, type.clone(shape), input, like.getGridAttr(),
      b.getDenseI16ArrayAttr(like.getGridAxes()), /*forward_dtype=*/nullptr,
      /*backward_dtype=*/nullptr, RoundingModeAttr(), ScalingAttr(),
      /*seed=*/Value(),
      b.getI64IntegerAttr(splitAxis), b.getI64IntegerAttr(concatAxis));
}

/// `value` with a leading unit dimension: [1, shape...].
Value prependUnitDim(OpBuilder &b, Location loc, Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<int64_t> shape{1};
  llvm::append_range(shape, type.getShape());
  SmallVector<ReassociationIndices> groups;
  if (type.getRank() > 0) {
    groups.push_back({0, 1});
    for (int64_t d = 1; d < type.getRank(); ++d)
      groups.push_back({d + 1});
  }
  return tensor::ExpandShapeOp::create(b, loc, type.clone(shape), value,
                                       groups);
}

/// Moves this rank's quantized data and scales so that the result holds, on
/// a new leading dimension, what each source rank sent: its chunk of
/// `splitAxis` (an all_to_all), or all of it (an all_gather, no split). Per-
/// tensor scales are gathered ([N]); block scales travel like the data.
std::pair<Value, Value> exchange(OpBuilder &b, Location loc,
                                 ScaledCollective scaled, Value data,
                                 Value scales,
                                 std::optional<int64_t> splitAxis) {
  int64_t n = scaled.groupSize;
  auto move = [&](Value value) -> Value {
    Value lifted = prependUnitDim(b, loc, value);
    if (splitAxis)
      return buildAllToAll(b, loc, scaled.op, lifted, *splitAxis + 1, 0, n);
    return buildAllGather(b, loc, scaled.op, lifted, 0, n);
  };
  Value movedScales;
  if (scaled.scaling.getKind() == ScalingKind::Block)
    movedScales = move(scales);
  else
    movedScales = buildAllGather(b, loc, scaled.op,
                                 prependUnitDim(b, loc, scales), 0, n);
  return {move(data), movedScales};
}

/// The map from an element of received data [N, d...] (iteration space
/// `dims`, source rank first) to its scale.
AffineMap getReceivedScaleMap(OpBuilder &b, ArrayRef<AffineExpr> dims,
                              unsigned numDims, ScalingAttr scaling) {
  if (scaling.getKind() != ScalingKind::Block)
    return AffineMap::get(numDims, 0, dims.front(), b.getContext());
  SmallVector<AffineExpr> exprs(dims.begin(), dims.end());
  exprs.back() = exprs.back().floorDiv(scaling.getBlockSize());
  return AffineMap::get(numDims, 0, exprs, b.getContext());
}

/// `q * scale` in `type`: the fp8 value and its scale converted exactly, the
/// product rounded once.
Value dequantizeElement(OpBuilder &b, Location loc, Value q, Value scale,
                        FloatType type) {
  return arith::MulFOp::create(b, loc, convertFloat(b, loc, q, type),
                               convertFloat(b, loc, scale, type));
}

/// A received term `q * scale / preDivisor` rounded once to `acc`: the
/// product of the exact fp8 value and scale is correctly rounded in f32 for
/// an f32 accumulator; otherwise it is formed exactly in f64 (and divided
/// there, rounding at 2^-53), so that a narrow accumulator never sees the
/// scale itself, which it may not hold.
Value buildScaledTerm(OpBuilder &b, Location loc, Value q, Value scale,
                      FloatType acc, double preDivisor) {
  FloatType f32 = b.getF32Type();
  FloatType compute =
      acc == f32 && preDivisor == 1.0 ? f32 : b.getF64Type();
  Value term = dequantizeElement(b, loc, q, scale, compute);
  return convertFloat(
      b, loc, buildQuotientForRounding(b, loc, term, preDivisor, acc), acc);
}

/// Combines the received terms [N, result shape] in `acc` with `kind` (sum,
/// max or min), each dequantized with its sender's scale and pre-divided, in
/// source-rank order; then divides a sum by `postDivisor` and casts to the
/// result type.
Value buildScaledReduction(OpBuilder &b, Location loc, Value data,
                           Value scales, ScalingAttr scaling,
                           ReductionKind kind, FloatType acc, double preDivisor,
                           double postDivisor, RankedTensorType resultType,
                           Value roundingKey) {
  int64_t rank = resultType.getRank();
  // Iteration space: result dims d0..d(r-1), then the source rank, summed
  // innermost so that each element adds its terms in rank order in one pass.
  SmallVector<AffineExpr> received{b.getAffineDimExpr(rank)};
  for (int64_t d = 0; d < rank; ++d)
    received.push_back(b.getAffineDimExpr(d));
  unsigned numDims = rank + 1;
  auto dataMap = AffineMap::get(numDims, 0, received, b.getContext());
  AffineMap scaleMap = getReceivedScaleMap(b, received, numDims, scaling);
  auto outputMap = AffineMap::get(numDims, 0, ArrayRef(received).drop_front(),
                                  b.getContext());
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  iterators.push_back(utils::IteratorType::reduction);
  auto accType = RankedTensorType::get(resultType.getShape(), acc);
  Value identity =
      arith::ConstantOp::create(b, loc, getReductionIdentity(b, kind, acc));
  Value init = linalg::FillOp::create(
                   b, loc, identity,
                   tensor::EmptyOp::create(b, loc, accType.getShape(), acc)
                       .getResult())
                   .getResult(0);
  auto sum = linalg::GenericOp::create(
      b, loc, accType, ValueRange{data, scales}, init,
      ArrayRef<AffineMap>{dataMap, scaleMap, outputMap}, iterators,
      [&](OpBuilder &nb, Location nl, ValueRange args) {
        Value term =
            buildScaledTerm(nb, nl, args[0], args[1], acc, preDivisor);
        linalg::YieldOp::create(
            nb, nl, combineReduction(nb, nl, kind, args[2], term));
      });
  Value finishInit = tensor::EmptyOp::create(
      b, loc, resultType.getShape(), resultType.getElementType());
  AffineMap identityMap = b.getMultiDimIdentityMap(rank);
  auto resultElement = cast<FloatType>(resultType.getElementType());
  double divisor = postDivisor;
  auto finish = linalg::GenericOp::create(
      b, loc, resultType, sum.getResult(0), finishInit,
      ArrayRef<AffineMap>{identityMap, identityMap},
      SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
      [&](OpBuilder &nb, Location nl, ValueRange args) {
        // The quotient is rounded once, to the result where acc holds
        // every result value (stochastically with a key).
        Value value = args[0];
        if (divisor != 1.0) {
          FloatType quotientType =
              floatTypeContains(acc, resultElement) ? resultElement : acc;
          value = buildQuotientForRounding(nb, nl, value, divisor,
                                           quotientType);
          if (quotientType != resultElement)
            value = convertFloat(nb, nl, value, quotientType);
        }
        linalg::YieldOp::create(
            nb, nl,
            convertResultElement(nb, nl, value, resultElement, roundingKey,
                                 [&] {
                                   return buildLinearIndex(
                                       nb, nl, resultType.getShape(),
                                       llvm::to_vector(llvm::seq<unsigned>(
                                           0, rank)));
                                 }));
      });
  return finish.getResult(0);
}

/// Dequantizes the received chunks [N, chunk...] with their senders' scales
/// and lays them side by side along `concatAxis` of the result.
Value buildScaledConcat(OpBuilder &b, Location loc, Value data, Value scales,
                        ScalingAttr scaling, int64_t concatAxis,
                        RankedTensorType resultType, Value roundingKey) {
  auto receivedType = cast<RankedTensorType>(data.getType());
  int64_t rank = resultType.getRank();
  // Iteration space: the received shape; the output is the result with the
  // source rank as its own dimension before `concatAxis`.
  SmallVector<AffineExpr> dims;
  for (int64_t d = 0; d <= rank; ++d)
    dims.push_back(b.getAffineDimExpr(d));
  unsigned numDims = rank + 1;
  AffineMap identity = b.getMultiDimIdentityMap(numDims);
  AffineMap scaleMap = getReceivedScaleMap(b, dims, numDims, scaling);
  SmallVector<AffineExpr> outputExprs(dims.begin() + 1, dims.end());
  outputExprs.insert(outputExprs.begin() + concatAxis, dims.front());
  auto outputMap = AffineMap::get(numDims, 0, outputExprs, b.getContext());
  SmallVector<int64_t> expanded(receivedType.getShape().drop_front());
  expanded.insert(expanded.begin() + concatAxis, receivedType.getDimSize(0));
  auto resultElement = cast<FloatType>(resultType.getElementType());
  auto expandedType = RankedTensorType::get(expanded, resultElement);
  Value init = tensor::EmptyOp::create(b, loc, expanded, resultElement);
  FloatType compute = resultElement.getWidth() >= 64 || resultElement ==
                              b.getF32Type()
                          ? resultElement
                          : b.getF64Type();
  auto unpack = linalg::GenericOp::create(
      b, loc, expandedType, ValueRange{data, scales}, init,
      ArrayRef<AffineMap>{identity, scaleMap, outputMap},
      SmallVector<utils::IteratorType>(numDims, utils::IteratorType::parallel),
      [&](OpBuilder &nb, Location nl, ValueRange args) {
        Value value = dequantizeElement(nb, nl, args[0], args[1], compute);
        // Element j of the result is element j of `expanded` (row-major).
        auto index = [&] {
          SmallVector<unsigned> iterationDims;
          for (int64_t d = 0; d <= rank; ++d)
            iterationDims.push_back(d < concatAxis    ? d + 1
                                    : d == concatAxis ? 0
                                                      : d);
          return buildLinearIndex(nb, nl, expanded, iterationDims);
        };
        linalg::YieldOp::create(nb, nl,
                                convertResultElement(nb, nl, value,
                                                     resultElement,
                                                     roundingKey, index));
      });
  SmallVector<ReassociationIndices> groups;
  for (int64_t d = 0; d < rank; ++d) {
    if (d < concatAxis)
      groups.push_back({d});
    else if (d == concatAxis)
      groups.push_back({d, d + 1});
    else
      groups.push_back({d + 1});
  }
  return tensor::CollapseShapeOp::create(b, loc, resultType,
                                         unpack.getResult(0), groups);
}

/// prec.dequantize of the gathered `data` with `scale` (rank-0 per tensor,
/// or per block), the exact product `q * scale` rounded stochastically to
/// the result by arrival word j of `key`, j the element's index in the
/// result.
Value buildStochasticDequantize(OpBuilder &b, Location loc, Value data,
                                Value scale, ScalingAttr scaling,
                                RankedTensorType resultType, Value key) {
  int64_t rank = resultType.getRank();
  SmallVector<AffineExpr> dims;
  for (int64_t d = 0; d < rank; ++d)
    dims.push_back(b.getAffineDimExpr(d));
  AffineMap identity = b.getMultiDimIdentityMap(rank);
  AffineMap scaleMap = AffineMap::get(rank, 0, {}, b.getContext());
  if (scaling.getKind() == ScalingKind::Block) {
    dims.back() = dims.back().floorDiv(scaling.getBlockSize());
    scaleMap = AffineMap::get(rank, 0, dims, b.getContext());
  }
  auto resultElement = cast<FloatType>(resultType.getElementType());
  Value init =
      tensor::EmptyOp::create(b, loc, resultType.getShape(), resultElement);
  return linalg::GenericOp::create(
             b, loc, resultType, ValueRange{data, scale}, init,
             ArrayRef<AffineMap>{identity, scaleMap, identity},
             SmallVector<utils::IteratorType>(rank,
                                              utils::IteratorType::parallel),
             [&](OpBuilder &nb, Location nl, ValueRange args) {
               // Exact in f64: at most 4 significand bits times 24.
               Value value = dequantizeElement(nb, nl, args[0], args[1],
                                               nb.getF64Type());
               linalg::YieldOp::create(
                   nb, nl,
                   convertResultElement(nb, nl, value, resultElement, key, [&] {
                     return buildLinearIndex(
                         nb, nl, resultType.getShape(),
                         llvm::to_vector(llvm::seq<unsigned>(0, rank)));
                   }));
             })
      .getResult(0);
}

/// all_gather: quantize with local block scales (or take the batch's scale
/// and quantized shard), gather the bytes (and block scales), dequantize.
Value materializeGather(OpBuilder &b, ScaledCollective scaled,
                        Value tensorScale, Value quantized) {
  auto gather = cast<AllGatherOp>(scaled.op.getOperation());
  Location loc = gather.getLoc();
  int64_t axis = gather.getGatherAxis();
  Value input = gather.getInput();
  Value scale = tensorScale;
  if (!scale) {
    scale = buildLocalScales(b, loc, input, scaled);
    quantized = buildQuantize(b, loc, input, scale, scaled);
  }
  Value moved = buildAllGather(b, loc, scaled.op, quantized, axis,
                               scaled.groupSize);
  if (scaled.scaling.getKind() == ScalingKind::Block)
    scale = buildAllGather(b, loc, scaled.op, scale, axis, scaled.groupSize);
  auto resultType = cast<RankedTensorType>(gather.getType());
  auto resultElement = cast<FloatType>(resultType.getElementType());
  Value key = buildResultRoundingKey(b, loc, scaled, /*sharedResult=*/true);
  if (!key || floatTypeContains(resultElement, b.getF32Type()))
    return DequantizeOp::create(b, loc, resultType, moved, scale,
                                scaled.scaling);
  return buildStochasticDequantize(b, loc, moved, scale, scaled.scaling,
                                   resultType, key);
}

/// reduce_scatter and all_reduce: local scales travel with the data; one
/// kernel dequantizes and sums.
Value materializeReduction(OpBuilder &b, ScaledCollective scaled) {
  CollectiveOpInterface op = scaled.op;
  Location loc = op.getLoc();
  Value input = op.getInput();
  Value scales = buildLocalScales(b, loc, input, scaled);
  Value quantized = buildQuantize(b, loc, input, scales, scaled);
  std::optional<int64_t> split;
  if (auto scatter = dyn_cast<ReduceScatterOp>(op.getOperation()))
    split = scatter.getScatterAxis();
  auto [data, movedScales] = exchange(b, loc, scaled, quantized, scales, split);
  ReductionDivisors divisors = getExplicitDivisors(op);
  ReductionKind kind = *op.getReduction();
  double postDivisor = divisors.post;
  if (kind == ReductionKind::Avg) {
    kind = ReductionKind::Sum;
    postDivisor *= static_cast<double>(scaled.groupSize);
  }
  // Every rank of an all_reduce reduces all the terms (an all_gather moved
  // them), a reduce_scatter's rank only its own part.
  Value key = buildResultRoundingKey(b, loc, scaled,
                                     /*sharedResult=*/!split.has_value());
  return buildScaledReduction(
      b, loc, data, movedScales, scaled.scaling, kind,
      cast<FloatType>(op.getEffectiveAccDtype()), divisors.pre, postDivisor,
      cast<RankedTensorType>(op.getResult().getType()), key);
}

Value materializeAllToAll(OpBuilder &b, ScaledCollective scaled) {
  auto allToAll = cast<AllToAllOp>(scaled.op.getOperation());
  Location loc = allToAll.getLoc();
  Value input = allToAll.getInput();
  Value scales = buildLocalScales(b, loc, input, scaled);
  Value quantized = buildQuantize(b, loc, input, scales, scaled);
  auto [data, movedScales] = exchange(b, loc, scaled, quantized, scales,
                                      int64_t(allToAll.getSplitAxis()));
  return buildScaledConcat(
      b, loc, data, movedScales, scaled.scaling, allToAll.getConcatAxis(),
      allToAll.getType(),
      buildResultRoundingKey(b, loc, scaled, /*sharedResult=*/false));
}

/// Dynamically scaled gathers of one block and group whose amaxes travel in
/// one all_reduce, placed before the first of them.
struct AmaxBatch {
  Operation *insertionPoint;
  FlatSymbolRefAttr grid;
  SmallVector<int16_t> axes;
  SmallVector<ScaledCollective> members;
};

/// Computes the scales of a batch: local amaxes, one all_reduce(max), one
/// scale per member. The amaxes are packed and unpacked with slices, which
/// become copies on the device in the GPU pipeline (no host reads). Every
/// member's shard is quantized here too, so that the fp8 gathers that
/// follow have their inputs ready for prec-bucket-collectives to merge.
/// Returns (scale, quantized shard) per member.
SmallVector<std::pair<Value, Value>> buildBatchScales(OpBuilder &b,
                                                      const AmaxBatch &batch) {
  Location loc = batch.insertionPoint->getLoc();
  FloatType f32 = b.getF32Type();
  auto scalarType = RankedTensorType::get({}, f32);
  int64_t count = batch.members.size();
  auto packedType = RankedTensorType::get({count}, f32);
  Value packed = tensor::EmptyOp::create(b, loc, packedType.getShape(), f32);
  for (auto [i, member] : llvm::enumerate(batch.members)) {
    Value input = CollectiveOpInterface(member.op).getInput();
    Value amax = AmaxOp::create(b, loc, scalarType, input, IntegerAttr());
    packed = tensor::InsertSliceOp::create(
        b, loc, prependUnitDim(b, loc, amax), packed,
        ArrayRef<OpFoldResult>{b.getIndexAttr(i)},
        ArrayRef<OpFoldResult>{b.getIndexAttr(1)},
        ArrayRef<OpFoldResult>{b.getIndexAttr(1)});
  }
  TypeAttr f32Attr = TypeAttr::get(f32);
  Value largest = AllReduceOp::create(
      b, loc, packedType, packed, batch.grid,
      b.getDenseI16ArrayAttr(batch.axes), f32Attr, f32Attr,
      RoundingModeAttr(), ScalingAttr(), /*seed=*/Value(),
      ReductionKindAttr::get(b.getContext(), ReductionKind::Max), f32Attr,
      /*pre_divisor=*/nullptr, /*post_divisor=*/nullptr,
      /*algorithm=*/nullptr, /*inter_host_dtype=*/nullptr,
      /*inter_host_scaling=*/nullptr, /*grad_inter_host_dtype=*/nullptr,
      /*grad_inter_host_scaling=*/nullptr);
  SmallVector<std::pair<Value, Value>> scales;
  for (auto [i, member] : llvm::enumerate(batch.members)) {
    Value slice = tensor::ExtractSliceOp::create(
        b, loc, RankedTensorType::get({1}, f32), largest,
        ArrayRef<OpFoldResult>{b.getIndexAttr(i)},
        ArrayRef<OpFoldResult>{b.getIndexAttr(1)},
        ArrayRef<OpFoldResult>{b.getIndexAttr(1)});
    Value amax = reshapeTensor(b, loc, slice, scalarType);
    Value scale = ScaleFromAmaxOp::create(b, loc, scalarType, amax,
                                          TypeAttr::get(member.wire));
    Value input = CollectiveOpInterface(member.op).getInput();
    scales.push_back({scale, buildQuantize(b, loc, input, scale, member)});
  }
  return scales;
}

} // namespace

FailureOr<Value>
mlir::prec::materializeScaledReduction(OpBuilder &builder,
                                       CollectiveOpInterface op,
                                       SymbolTableCollection &tables) {
  assert(op.isReduction() && convertsToScaledWire(op) &&
         "expected a reduction to a scaled fp8 wire");
  FailureOr<ScaledCollective> scaled = checkScaledCollective(op, tables);
  if (failed(scaled))
    return failure();
  return materializeReduction(builder, *scaled);
}

namespace {

struct MaterializeScalesPass
    : public prec::impl::PrecMaterializeScalesBase<MaterializeScalesPass> {
  void runOnOperation() override {
    SymbolTableCollection tables;
    SmallVector<ScaledCollective> scaledOps;
    WalkResult walk = getOperation().walk([&](CollectiveOpInterface op) {
      if (!convertsToScaledWire(op))
        return WalkResult::advance();
      FailureOr<ScaledCollective> scaled = checkScaledCollective(op, tables);
      if (failed(scaled))
        return WalkResult::interrupt();
      scaledOps.push_back(*scaled);
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return signalPassFailure();
    if (scaledOps.empty())
      return markAllAnalysesPreserved();

    // Batch the dynamic gathers: same block and group, inputs available
    // where the batch's reduction goes.
    DominanceInfo dominance(getOperation());
    SmallVector<AmaxBatch> batches;
    DenseMap<Operation *, std::pair<size_t, size_t>> batchSlot;
    for (ScaledCollective scaled : scaledOps) {
      if (!isa<AllGatherOp>(scaled.op.getOperation()) ||
          scaled.scaling.getKind() != ScalingKind::Dynamic)
        continue;
      SmallVector<int16_t> axes(scaled.op.getGridAxes());
      auto fits = [&](const AmaxBatch &batch) {
        // The member's input and stochastic rounding seed are used where
        // the batch quantizes.
        return batch.insertionPoint->getBlock() == scaled.op->getBlock() &&
               batch.grid == scaled.op.getGridAttr() && batch.axes == axes &&
               llvm::all_of(scaled.op->getOperands(), [&](Value operand) {
                 return dominance.properlyDominates(operand,
                                                    batch.insertionPoint);
               });
      };
      auto *batch = llvm::find_if(batches, fits);
      if (batch == batches.end()) {
        batches.push_back({scaled.op, scaled.op.getGridAttr(), axes, {}});
        batch = std::prev(batches.end());
      }
      batchSlot[scaled.op] = {size_t(batch - batches.begin()),
                              batch->members.size()};
      batch->members.push_back(scaled);
    }
    SmallVector<SmallVector<std::pair<Value, Value>>> batchScales;
    for (const AmaxBatch &batch : batches) {
      OpBuilder builder(batch.insertionPoint);
      batchScales.push_back(buildBatchScales(builder, batch));
    }

    for (ScaledCollective scaled : scaledOps) {
      OpBuilder builder(scaled.op);
      Value replacement =
          TypeSwitch<Operation *, Value>(scaled.op)
              .Case([&](AllGatherOp) {
                Value scale, quantized;
                if (auto slot = batchSlot.find(scaled.op);
                    slot != batchSlot.end())
                  std::tie(scale, quantized) =
                      batchScales[slot->second.first][slot->second.second];
                return materializeGather(builder, scaled, scale, quantized);
              })
              .Case<ReduceScatterOp, AllReduceOp>([&](auto) {
                return materializeReduction(builder, scaled);
              })
              .Case([&](AllToAllOp) {
                return materializeAllToAll(builder, scaled);
              });
      scaled.op.getResult().replaceAllUsesWith(replacement);
      scaled.op->erase();
    }
  }
};

} // namespace
