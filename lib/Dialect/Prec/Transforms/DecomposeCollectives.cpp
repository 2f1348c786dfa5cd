//===- DecomposeCollectives.cpp - pack, transport, unpack -----------------===//
//
// Every collective becomes three steps:
//
//   pack kernel      cast to the wire dtype (after a pre-divide), and lay the
//                    values out so that each destination rank's chunk is
//                    contiguous in one flat buffer;
//   prec.transport   moves the flat wire buffer;
//   unpack kernel    extends to the accumulation dtype and sums the chunks,
//                    post-divides, casts to the result type and restores the
//                    result's layout.
//
// For reductions the algorithm is the one getReductionAlgorithm names, which
// prec-error-bounds also uses: `direct` exchanges chunks with an all_to_all
// and sums them in acc_dtype in the unpack kernel, so partial sums are never
// rounded to the wire dtype (an all_reduce then all-gathers the reduced
// slices, see getAllReduceGatherType); `ring` (the
// default only when acc_dtype == forward_dtype) is the backend's own
// reduction, which rounds at every step.
//
// A collective over both levels of a grid with `prec.inter_host_axes`
// (getTwoLevelGroup) first becomes one collective per level, each then
// decomposed as above (docs/Prec.md, "Topology and two-level collectives").
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
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir::prec {
#define GEN_PASS_DEF_PRECDECOMPOSECOLLECTIVES
#include "prec/Dialect/Prec/Transforms/Passes.h.inc"
} // namespace mlir::prec

using namespace mlir;
using namespace mlir::prec;

//===----------------------------------------------------------------------===//
// Scalar conversions used inside the kernels
//===----------------------------------------------------------------------===//

/// The type arithmetic on `type` values is done in: f32 for narrower types.
static FloatType getComputeType(FloatType type) {
  return type.getWidth() >= 32 ? type : Float32Type::get(type.getContext());
}

/// The type `value / divisor` (arithmetic in `type`) is rounded to when the
/// next step stores it in `next`: `next` itself where one of the two holds
/// every value of the other, so that a quotient narrowed next is rounded
/// once instead of twice and one widened next (an f16 sum into an f32
/// result) keeps what the wider type holds, which the contract allows;
/// else `type`, as the contract says.
static FloatType getQuotientType(FloatType type, FloatType next) {
  return floatTypeContains(type, next) || floatTypeContains(next, type) ? next
                                                                        : type;
}

namespace {

//===----------------------------------------------------------------------===//
// What a collective asks of its kernels
//===----------------------------------------------------------------------===//

struct DecompositionPlan {
  FloatType wire;
  FloatType acc; // reductions only
  ReductionKind reduction = ReductionKind::Sum;
  double preDivisor = 1.0;
  double postDivisor = 1.0;
  bool wireReduction = false; // the backend reduces in the wire dtype
  int64_t groupSize = 1;
};

FailureOr<DecompositionPlan> planDecomposition(CollectiveOpInterface op,
                                               SymbolTableCollection &tables) {
  DecompositionPlan plan;
  auto grid =
      tables.lookupNearestSymbolFrom<shard::GridOp>(op, op.getGridAttr());
  if (!grid)
    return op->emitOpError("expected grid ")
           << op.getGridAttr() << " to name a 'shard.grid'";
  plan.groupSize = getCollectiveGroupSize(grid, op.getGridAxes());
  if (ShapedType::isDynamic(plan.groupSize))
    return op->emitOpError("cannot decompose a collective over grid axes of "
                           "dynamic size");
  // The transports find this rank's group from the whole grid: a dynamic
  // axis outside the group is diagnosed here, at the op that names it, not
  // at the transport that lowering would meet.
  if (llvm::any_of(grid.getShape(), ShapedType::isDynamic)) {
    InFlightDiagnostic diag =
        op->emitOpError("cannot decompose a collective on grid ")
        << op.getGridAttr() << " of shape ";
    llvm::interleave(
        grid.getShape(), diag,
        [&](int64_t extent) {
          if (ShapedType::isDynamic(extent))
            diag << "?";
          else
            diag << extent;
        },
        "x");
    return diag << ": the runtime places ranks by the whole grid, which "
                << "needs a static shape";
  }
  if (!op.getInput().getType().hasStaticShape() ||
      !op.getResult().getType().hasStaticShape())
    return op->emitOpError("cannot decompose a collective with dynamic "
                           "dimensions");
  plan.wire = cast<FloatType>(op.getEffectiveForwardDtype());
  Type inputElement = op.getInput().getType().getElementType();
  if (op.getScalingAttr() && isScaledLowPrecisionType(plan.wire) &&
      inputElement != plan.wire)
    return op->emitOpError("converts to the scaled ")
           << plan.wire << " wire: run prec-materialize-scales first, which "
           << "makes its scales explicit";
  // The verifier admits only wires a runtime moves, and block scales
  // (f8E8M0FNU) moved as bytes where nothing converts them.
  assert((isWireFloatType(plan.wire) ||
          (isa<Float8E8M0FNUType>(plan.wire) && !op.isReduction() &&
           inputElement == plan.wire)) &&
         "a wire no runtime moves");
  if (!op.isReduction())
    return plan;

  plan.acc = cast<FloatType>(op.getEffectiveAccDtype());
  plan.reduction = *op.getReduction();
  ReductionDivisors divisors = getExplicitDivisors(op);
  plan.preDivisor = divisors.pre;
  plan.postDivisor = divisors.post;
  if (plan.reduction == ReductionKind::Avg) {
    // An average left for the decomposition divides once, after summing.
    plan.reduction = ReductionKind::Sum;
    plan.postDivisor *= static_cast<double>(plan.groupSize);
  }
  plan.wireReduction = getReductionAlgorithm(op) == ReductionAlgorithm::Ring;
  return plan;
}

//===----------------------------------------------------------------------===//
// Kernel builders
//===----------------------------------------------------------------------===//

SmallVector<utils::IteratorType> parallelIterators(int64_t rank) {
  return SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel);
}

Value flatten(OpBuilder &b, Location loc, Value tensor) {
  auto type = cast<RankedTensorType>(tensor.getType());
  return reshapeTensor(
      b, loc, tensor,
      RankedTensorType::get({type.getNumElements()}, type.getElementType()));
}

/// `shape` with dimension `dim` split into [outer, shape[dim] / outer].
SmallVector<int64_t> splitDim(ArrayRef<int64_t> shape, int64_t dim,
                              int64_t outer) {
  SmallVector<int64_t> result(shape.begin(), shape.begin() + dim);
  result.push_back(outer);
  result.push_back(shape[dim] / outer);
  result.append(shape.begin() + dim + 1, shape.end());
  return result;
}

/// Reassociation merging dimensions [dim, dim + 1] of a tensor of rank
/// `rank + 1` back into one.
SmallVector<ReassociationIndices> mergeDimReassociation(int64_t rank,
                                                        int64_t dim) {
  SmallVector<ReassociationIndices> groups;
  for (int64_t i = 0; i < rank; ++i) {
    if (i < dim)
      groups.push_back({i});
    else if (i == dim)
      groups.push_back({i, i + 1});
    else
      groups.push_back({i + 1});
  }
  return groups;
}

/// An elementwise kernel over `output`'s iteration space reading `input`
/// through `inputMap`, applying `body` to each element.
Value buildElementwise(OpBuilder &b, Location loc, Value input,
                       AffineMap inputMap, RankedTensorType outputType,
                       function_ref<Value(OpBuilder &, Location, Value)> body) {
  Value init = tensor::EmptyOp::create(b, loc, outputType.getShape(),
                                       outputType.getElementType());
  AffineMap identity = b.getMultiDimIdentityMap(outputType.getRank());
  auto generic = linalg::GenericOp::create(
      b, loc, outputType, input, init, ArrayRef<AffineMap>{inputMap, identity},
      parallelIterators(outputType.getRank()),
      [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        linalg::YieldOp::create(nested, nestedLoc,
                                body(nested, nestedLoc, args[0]));
      });
  return generic.getResult(0);
}

/// The key of `op`'s stochastic rounding on this rank, or null when it
/// rounds to nearest even.
Value buildRoundingKey(OpBuilder &b, CollectiveOpInterface op) {
  if (op.getRounding() != RoundingMode::Stochastic)
    return {};
  return buildRankRoundingKey(b, op.getLoc(), op.getGridAttr(), op.getSeed());
}

/// The key of the stochastic rounding of values every rank of the group
/// holds alike (a ring all_reduce's result): the seed itself, so that every
/// rank rounds them to the same bits. Null when `op` rounds to nearest even.
Value buildSharedRoundingKey(CollectiveOpInterface op) {
  if (op.getRounding() != RoundingMode::Stochastic)
    return {};
  return op.getSeed();
}

/// The pack kernel: `cast(x / preDivisor, wire)` laid out so that the chunks
/// of `splitDim` (one per destination rank) are contiguous and leading. With
/// no split the layout is the input's. Returns the flat wire buffer. With a
/// `roundingKey` the cast rounds stochastically, element i of the input
/// (row-major) by word i of the key's Philox stream.
Value buildPack(OpBuilder &b, Location loc, Value input,
                std::optional<int64_t> splitDimension, int64_t groupSize,
                FloatType wire, double preDivisor, Value roundingKey) {
  auto inputType = cast<RankedTensorType>(input.getType());
  auto inputElement = cast<FloatType>(inputType.getElementType());
  FloatType compute = getComputeType(inputElement);
  // The iteration dimension of each input dimension (split: of each
  // dimension of the [.., N, k, ..] view), for the element index.
  SmallVector<int64_t> indexedShape(inputType.getShape());
  SmallVector<unsigned> iterationDims;
  if (splitDimension) {
    int64_t s = *splitDimension;
    indexedShape = splitDim(inputType.getShape(), s, groupSize);
    for (int64_t e = 0; e <= inputType.getRank(); ++e)
      iterationDims.push_back(e < s ? e + 1 : (e == s ? 0 : e));
  } else {
    for (int64_t d = 0; d < inputType.getRank(); ++d)
      iterationDims.push_back(d);
  }
  // Nothing to convert: the kernel only moves values (fp8 bytes and block
  // scales included, which arithmetic could not round-trip).
  bool identityValues = inputElement == wire && preDivisor == 1.0;
  auto kernelBody = [&](OpBuilder &nb, Location nl, Value x) {
    if (identityValues)
      return x;
    FloatType quotientType = getQuotientType(inputElement, wire);
    Value scaled = buildQuotientForRounding(
        nb, nl, convertFloat(nb, nl, x, compute), preDivisor, quotientType);
    if (quotientType != wire)
      scaled = convertFloat(nb, nl, scaled, quotientType);
    if (!roundingKey)
      return convertFloat(nb, nl, scaled, wire);
    Value word = buildPhiloxWord(
        nb, nl, roundingKey,
        buildLinearIndex(nb, nl, indexedShape, iterationDims));
    return convertFloatStochastic(nb, nl, scaled, wire, word);
  };

  // Chunks already leading: the input is the buffer.
  if (identityValues && (!splitDimension || *splitDimension == 0))
    return flatten(b, loc, input);

  if (!splitDimension) {
    auto packedType = RankedTensorType::get(inputType.getShape(), wire);
    Value packed = buildElementwise(
        b, loc, input, b.getMultiDimIdentityMap(inputType.getRank()),
        packedType, kernelBody);
    return flatten(b, loc, packed);
  }

  // input [.., N*k (at s), ..] is read as [.., N, k, ..]; the packed buffer
  // is [N, .., k, ..].
  int64_t s = *splitDimension;
  int64_t rank = inputType.getRank();
  SmallVector<int64_t> expandedShape =
      splitDim(inputType.getShape(), s, groupSize);
  Value expanded = tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get(expandedShape, inputElement), input,
      mergeDimReassociation(rank, s));
  SmallVector<int64_t> packedShape{groupSize};
  for (auto [i, extent] : llvm::enumerate(expandedShape))
    if (static_cast<int64_t>(i) != s)
      packedShape.push_back(extent);
  // Packed dims p0..pn; expanded dim s is p0, dims before s are p1..ps, dims
  // after s keep their index.
  SmallVector<AffineExpr> inputExprs;
  for (int64_t e = 0; e <= rank; ++e) {
    if (e < s)
      inputExprs.push_back(b.getAffineDimExpr(e + 1));
    else if (e == s)
      inputExprs.push_back(b.getAffineDimExpr(0));
    else
      inputExprs.push_back(b.getAffineDimExpr(e));
  }
  auto inputMap = AffineMap::get(rank + 1, 0, inputExprs, b.getContext());
  Value packed =
      buildElementwise(b, loc, expanded, inputMap,
                       RankedTensorType::get(packedShape, wire), kernelBody);
  return flatten(b, loc, packed);
}

/// The unpack kernel of data-moving collectives: the flat buffer holds N
/// chunks of `chunkShape`, which land side by side along `concatDim` of the
/// result, converted to the result's element type.
Value buildGatherUnpack(OpBuilder &b, Location loc, Value flat,
                        ArrayRef<int64_t> chunkShape, int64_t concatDim,
                        int64_t groupSize, RankedTensorType resultType) {
  auto wire =
      cast<FloatType>(cast<RankedTensorType>(flat.getType()).getElementType());
  int64_t rank = chunkShape.size();
  SmallVector<int64_t> receivedShape{groupSize};
  receivedShape.append(chunkShape.begin(), chunkShape.end());
  auto resultElement = cast<FloatType>(resultType.getElementType());
  // Chunks land along the leading dimension in their received order.
  if (concatDim == 0 && resultElement == wire)
    return reshapeTensor(b, loc, flat, resultType);
  Value received =
      reshapeTensor(b, loc, flat, RankedTensorType::get(receivedShape, wire));

  SmallVector<int64_t> expandedResult(chunkShape.begin(), chunkShape.end());
  expandedResult.insert(expandedResult.begin() + concatDim, groupSize);
  // Result dims r0..rn with rc the source rank: received = [rc, r0.., r(c+1),
  // ..].
  SmallVector<AffineExpr> inputExprs{b.getAffineDimExpr(concatDim)};
  for (int64_t r = 0; r <= rank; ++r)
    if (r != concatDim)
      inputExprs.push_back(b.getAffineDimExpr(r));
  auto inputMap = AffineMap::get(rank + 1, 0, inputExprs, b.getContext());
  Value unpacked =
      buildElementwise(b, loc, received, inputMap,
                       RankedTensorType::get(expandedResult, resultElement),
                       [&](OpBuilder &nb, Location nl, Value w) {
                         return convertFloat(nb, nl, w, resultElement);
                       });
  return tensor::CollapseShapeOp::create(
      b, loc, resultType, unpacked, mergeDimReassociation(rank, concatDim));
}

/// The flat `buffer` extended with zeros to `size` elements.
Value padWithZeros(OpBuilder &b, Location loc, Value buffer, int64_t size) {
  auto type = cast<RankedTensorType>(buffer.getType());
  auto element = cast<FloatType>(type.getElementType());
  int64_t count = type.getNumElements();
  Value zero = arith::ConstantOp::create(b, loc, b.getFloatAttr(element, 0.0));
  Value tail = tensor::EmptyOp::create(b, loc, {size - count}, element);
  tail = linalg::FillOp::create(b, loc, zero, tail).getResult(0);
  Value result = tensor::EmptyOp::create(b, loc, {size}, element);
  SmallVector<OpFoldResult> stride{b.getIndexAttr(1)};
  result = tensor::InsertSliceOp::create(
      b, loc, tail, result, SmallVector<OpFoldResult>{b.getIndexAttr(count)},
      SmallVector<OpFoldResult>{b.getIndexAttr(size - count)}, stride);
  return tensor::InsertSliceOp::create(
      b, loc, buffer, result, SmallVector<OpFoldResult>{b.getIndexAttr(0)},
      SmallVector<OpFoldResult>{b.getIndexAttr(count)}, stride);
}

/// `cast(acc / postDivisor, result element type)` on one element of a
/// tensor of `shape` (iteration dimensions in order). With a `roundingKey`
/// the cast rounds stochastically, element j (row-major) by the arrival
/// word j of the key's stream (buildArrivalWord).
Value finishElement(OpBuilder &b, Location loc, Value accumulated,
                    const DecompositionPlan &plan, FloatType resultElement,
                    ArrayRef<int64_t> shape, Value roundingKey) {
  auto accElement = cast<FloatType>(accumulated.getType());
  if (plan.postDivisor == 1.0 && accElement == resultElement)
    return accumulated;
  FloatType quotientType = getQuotientType(accElement, resultElement);
  Value scaled = buildQuotientForRounding(
      b, loc, convertFloat(b, loc, accumulated, getComputeType(accElement)),
      plan.postDivisor, quotientType);
  if (quotientType != resultElement)
    scaled = convertFloat(b, loc, scaled, quotientType);
  auto from = cast<FloatType>(scaled.getType());
  if (!roundingKey || floatTypeContains(resultElement, from))
    return convertFloat(b, loc, scaled, resultElement);
  SmallVector<unsigned> dims;
  for (unsigned d = 0; d < shape.size(); ++d)
    dims.push_back(d);
  Value word = buildArrivalWord(b, loc, roundingKey,
                                buildLinearIndex(b, loc, shape, dims));
  return convertFloatStochastic(b, loc, scaled, resultElement, word);
}

/// `cast(acc / postDivisor, result type)` elementwise.
Value buildFinish(OpBuilder &b, Location loc, Value accumulated,
                  const DecompositionPlan &plan, RankedTensorType resultType,
                  Value roundingKey) {
  auto resultElement = cast<FloatType>(resultType.getElementType());
  auto accType = cast<RankedTensorType>(accumulated.getType());
  if (plan.postDivisor == 1.0 && accType.getElementType() == resultElement)
    return accumulated;
  return buildElementwise(
      b, loc, accumulated, b.getMultiDimIdentityMap(accType.getRank()),
      resultType, [&](OpBuilder &nb, Location nl, Value v) {
        return finishElement(nb, nl, v, plan, resultElement,
                             resultType.getShape(), roundingKey);
      });
}

/// Groups up to this size sum their terms in one elementwise kernel with an
/// operand per source rank; larger groups use a reduction loop.
constexpr int64_t kMaxFusedTerms = 16;

/// The unpack kernel of a direct reduction: N chunks of the result's shape in
/// the wire dtype, summed in the accumulation dtype, then finished (with
/// `roundingKey`'s arrival words where that rounds stochastically).
Value buildReduceUnpack(OpBuilder &b, Location loc, Value flat,
                        const DecompositionPlan &plan,
                        RankedTensorType resultType, Value roundingKey) {
  int64_t rank = resultType.getRank();
  SmallVector<int64_t> receivedShape{plan.groupSize};
  receivedShape.append(resultType.getShape().begin(),
                       resultType.getShape().end());
  Value received = reshapeTensor(
      b, loc, flat, RankedTensorType::get(receivedShape, plan.wire));

  if (plan.groupSize <= kMaxFusedTerms) {
    // One pass: each element reads its N terms from the N received chunks,
    // sums them in order in the accumulation dtype and is finished in
    // registers, with no accumulator to fill and read back.
    SmallVector<Value> chunks;
    SmallVector<OpFoldResult> sizes{b.getIndexAttr(1)};
    for (int64_t extent : resultType.getShape())
      sizes.push_back(b.getIndexAttr(extent));
    SmallVector<OpFoldResult> strides(rank + 1, b.getIndexAttr(1));
    for (int64_t source = 0; source < plan.groupSize; ++source) {
      SmallVector<OpFoldResult> offsets(rank + 1, b.getIndexAttr(0));
      offsets[0] = b.getIndexAttr(source);
      chunks.push_back(tensor::ExtractSliceOp::create(
          b, loc,
          RankedTensorType::get(resultType.getShape(), plan.wire), received,
          offsets, sizes, strides));
    }
    auto resultElement = cast<FloatType>(resultType.getElementType());
    Value init = tensor::EmptyOp::create(b, loc, resultType.getShape(),
                                         resultElement);
    SmallVector<AffineMap> maps(plan.groupSize + 1,
                                b.getMultiDimIdentityMap(rank));
    auto unpack = linalg::GenericOp::create(
        b, loc, resultType, chunks, init, maps, parallelIterators(rank),
        [&](OpBuilder &nb, Location nl, ValueRange args) {
          Value sum = arith::ConstantOp::create(
              nb, nl, getReductionIdentity(nb, plan.reduction, plan.acc));
          for (Value term : args.drop_back())
            sum = combineReduction(nb, nl, plan.reduction, sum,
                                   convertFloat(nb, nl, term, plan.acc));
          linalg::YieldOp::create(
              nb, nl,
              finishElement(nb, nl, sum, plan, resultElement,
                            resultType.getShape(), roundingKey));
        });
    return unpack.getResult(0);
  }

  auto accType = RankedTensorType::get(resultType.getShape(), plan.acc);
  Value empty = tensor::EmptyOp::create(b, loc, accType.getShape(), plan.acc);
  Value identity = arith::ConstantOp::create(
      b, loc, getReductionIdentity(b, plan.reduction, plan.acc));
  Value init = linalg::FillOp::create(b, loc, identity, empty).getResult(0);

  // The source rank is the innermost dimension, so that the loops sum each
  // element's N terms in one pass over the accumulator instead of N passes
  // (the order of the terms, and so the rounding, is the same).
  SmallVector<AffineExpr> inputExprs{b.getAffineDimExpr(rank)};
  for (int64_t d = 0; d < rank; ++d)
    inputExprs.push_back(b.getAffineDimExpr(d));
  auto inputMap = AffineMap::get(rank + 1, 0, inputExprs, b.getContext());
  auto outputMap = AffineMap::get(
      rank + 1, 0, ArrayRef(inputExprs).drop_front(), b.getContext());
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  iterators.push_back(utils::IteratorType::reduction);
  auto sum = linalg::GenericOp::create(
      b, loc, accType, received, init, ArrayRef<AffineMap>{inputMap, outputMap},
      iterators, [&](OpBuilder &nb, Location nl, ValueRange args) {
        Value term = convertFloat(nb, nl, args[0], plan.acc);
        linalg::YieldOp::create(
            nb, nl, combineReduction(nb, nl, plan.reduction, args[1], term));
      });
  return buildFinish(b, loc, sum.getResult(0), plan, resultType, roundingKey);
}

Value buildTransport(OpBuilder &b, Location loc, CollectiveOpInterface op,
                     TransportKind kind, Value flat, int64_t resultSize,
                     std::optional<ReductionKind> reduction) {
  auto type = RankedTensorType::get(
      {resultSize}, cast<RankedTensorType>(flat.getType()).getElementType());
  ReductionKindAttr reductionAttr;
  if (reduction)
    reductionAttr = ReductionKindAttr::get(b.getContext(), *reduction);
  return TransportOp::create(
      b, loc, type, TransportKindAttr::get(b.getContext(), kind), flat,
      op.getGridAttr(),
      DenseI16ArrayAttr::get(b.getContext(), op.getGridAxes()), reductionAttr);
}

//===----------------------------------------------------------------------===//
// One decomposition per collective
//===----------------------------------------------------------------------===//

Value decompose(OpBuilder &b, AllGatherOp op, const DecompositionPlan &plan) {
  Location loc = op.getLoc();
  RankedTensorType inputType = op.getInput().getType();
  Value packed = buildPack(b, loc, op.getInput(), std::nullopt, plan.groupSize,
                           plan.wire, 1.0, buildRoundingKey(b, op));
  Value moved =
      buildTransport(b, loc, op, TransportKind::AllGather, packed,
                     inputType.getNumElements() * plan.groupSize, std::nullopt);
  return buildGatherUnpack(b, loc, moved, inputType.getShape(),
                           op.getGatherAxis(), plan.groupSize, op.getType());
}

Value decompose(OpBuilder &b, AllToAllOp op, const DecompositionPlan &plan) {
  Location loc = op.getLoc();
  RankedTensorType inputType = op.getInput().getType();
  int64_t split = op.getSplitAxis();
  Value packed = buildPack(b, loc, op.getInput(), split, plan.groupSize,
                           plan.wire, 1.0, buildRoundingKey(b, op));
  Value moved = buildTransport(b, loc, op, TransportKind::AllToAll, packed,
                               inputType.getNumElements(), std::nullopt);
  SmallVector<int64_t> chunkShape(inputType.getShape());
  chunkShape[split] /= plan.groupSize;
  return buildGatherUnpack(b, loc, moved, chunkShape, op.getConcatAxis(),
                           plan.groupSize, op.getType());
}

Value decompose(OpBuilder &b, ReduceScatterOp op,
                const DecompositionPlan &plan) {
  Location loc = op.getLoc();
  RankedTensorType resultType = op.getType();
  // Each rank's result is its own: the rank's stream rounds it again.
  Value roundingKey = buildRoundingKey(b, op);
  Value packed =
      buildPack(b, loc, op.getInput(), op.getScatterAxis(), plan.groupSize,
                plan.wire, plan.preDivisor, roundingKey);
  int64_t chunk = resultType.getNumElements();
  if (plan.wireReduction) {
    Value reduced = buildTransport(b, loc, op, TransportKind::ReduceScatter,
                                   packed, chunk, plan.reduction);
    Value shaped =
        reshapeTensor(b, loc, reduced,
                      RankedTensorType::get(resultType.getShape(), plan.wire));
    return buildFinish(b, loc, shaped, plan, resultType, roundingKey);
  }
  Value exchanged = buildTransport(b, loc, op, TransportKind::AllToAll, packed,
                                   chunk * plan.groupSize, std::nullopt);
  return buildReduceUnpack(b, loc, exchanged, plan, resultType, roundingKey);
}

Value decompose(OpBuilder &b, AllReduceOp op, const DecompositionPlan &plan) {
  Location loc = op.getLoc();
  RankedTensorType resultType = op.getType();
  Value roundingKey = buildRoundingKey(b, op);
  Value packed =
      buildPack(b, loc, op.getInput(), std::nullopt, plan.groupSize, plan.wire,
                plan.preDivisor, roundingKey);
  int64_t count = resultType.getNumElements();
  if (plan.wireReduction) {
    Value reduced = buildTransport(b, loc, op, TransportKind::AllReduce, packed,
                                   count, plan.reduction);
    Value shaped =
        reshapeTensor(b, loc, reduced,
                      RankedTensorType::get(resultType.getShape(), plan.wire));
    // Every rank holds the same reduced values and must round them alike.
    return buildFinish(b, loc, shaped, plan, resultType,
                       buildSharedRoundingKey(op));
  }
  FloatType sliceType = getAllReduceGatherType(op, plan.groupSize);
  if (!sliceType) {
    // One rank: the gather is a copy and the sum is local.
    Value gathered = buildTransport(b, loc, op, TransportKind::AllGather,
                                    packed, count * plan.groupSize,
                                    std::nullopt);
    return buildReduceUnpack(b, loc, gathered, plan, resultType, roundingKey);
  }

  // A direct reduce-scatter of `slice` elements per rank, then an all-gather
  // of the finished slices: each rank receives 2 (N - 1) slices instead of
  // the N - 1 whole buffers an all-gather of the inputs would move. A count
  // that does not divide by N is padded with zeros to N slices; the padding
  // is reduced like the rest and dropped after the gather. A rank rounds its
  // reduced slice to the gathered dtype with its own stream's arrival words
  // (stochastically where the op does), so every rank receives the same
  // bits for it.
  int64_t slice = llvm::divideCeil(count, plan.groupSize);
  int64_t padded = slice * plan.groupSize;
  if (padded != count)
    packed = padWithZeros(b, loc, packed, padded);
  Value exchanged = buildTransport(b, loc, op, TransportKind::AllToAll, packed,
                                   padded, std::nullopt);
  Value reduced =
      buildReduceUnpack(b, loc, exchanged, plan,
                        RankedTensorType::get({slice}, sliceType), roundingKey);
  Value gathered = buildTransport(b, loc, op, TransportKind::AllGather,
                                  reduced, padded, std::nullopt);
  if (padded != count)
    gathered = tensor::ExtractSliceOp::create(
        b, loc, RankedTensorType::get({count}, sliceType), gathered,
        ArrayRef<OpFoldResult>{b.getIndexAttr(0)},
        ArrayRef<OpFoldResult>{b.getIndexAttr(count)},
        ArrayRef<OpFoldResult>{b.getIndexAttr(1)});
  auto shapedType = RankedTensorType::get(resultType.getShape(), sliceType);
  Value shaped = reshapeTensor(b, loc, gathered, shapedType);
  auto resultElement = cast<FloatType>(resultType.getElementType());
  if (sliceType == resultElement)
    return shaped;
  return buildElementwise(b, loc, shaped,
                          b.getMultiDimIdentityMap(resultType.getRank()),
                          resultType, [&](OpBuilder &nb, Location nl, Value v) {
                            return convertFloat(nb, nl, v, resultElement);
                          });
}

//===----------------------------------------------------------------------===//
// Two-level collectives: one collective per level of the grid's topology
//===----------------------------------------------------------------------===//

/// `value` with its dimension `dim`, read as chunks of the extents
/// `chunkExtents` (row-major) followed by the rest, holding them in the order
/// `permutation` gives: chunk dimension i of the result is chunk dimension
/// permutation[i] of `value`. Nothing is built for the identity.
Value permuteChunks(OpBuilder &b, Location loc, Value value, int64_t dim,
                    ArrayRef<int64_t> chunkExtents,
                    ArrayRef<int64_t> permutation) {
  if (llvm::equal(permutation, llvm::seq<int64_t>(0, permutation.size())))
    return value;
  auto type = cast<RankedTensorType>(value.getType());
  int64_t chunks = 1;
  for (int64_t extent : chunkExtents)
    chunks *= extent;
  SmallVector<int64_t> expanded(type.getShape().take_front(dim));
  expanded.append(chunkExtents.begin(), chunkExtents.end());
  expanded.push_back(type.getDimSize(dim) / chunks);
  expanded.append(type.getShape().begin() + dim + 1, type.getShape().end());
  SmallVector<ReassociationIndices> groups;
  int64_t k = chunkExtents.size();
  for (int64_t d = 0; d < type.getRank(); ++d) {
    if (d < dim)
      groups.push_back({d});
    else if (d == dim)
      groups.push_back(llvm::to_vector(llvm::seq<int64_t>(d, d + k + 1)));
    else
      groups.push_back({d + k});
  }
  Value source = tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get(expanded, type.getElementType()), value,
      groups);
  SmallVector<int64_t> transposition, transposed(expanded);
  for (int64_t d = 0; d < static_cast<int64_t>(expanded.size()); ++d)
    transposition.push_back(d);
  for (auto [i, from] : llvm::enumerate(permutation)) {
    transposition[dim + i] = dim + from;
    transposed[dim + i] = expanded[dim + from];
  }
  Value init =
      tensor::EmptyOp::create(b, loc, transposed, type.getElementType());
  Value moved = linalg::TransposeOp::create(b, loc, source, init, transposition)
                    .getResult()[0];
  return tensor::CollapseShapeOp::create(b, loc, type, moved, groups);
}

/// The grid extents of `axes`.
SmallVector<int64_t> getExtents(shard::GridOp grid, ArrayRef<int16_t> axes) {
  SmallVector<int64_t> extents;
  for (int16_t axis : axes)
    extents.push_back(grid.getShape()[axis]);
  return extents;
}

/// The permutation that reads `to` out of `from` (both lists of the same
/// axes): to[i] == from[result[i]].
SmallVector<int64_t> getAxisPermutation(ArrayRef<int16_t> from,
                                        ArrayRef<int16_t> to) {
  SmallVector<int64_t> permutation;
  for (int16_t axis : to)
    permutation.push_back(llvm::find(from, axis) - from.begin());
  return permutation;
}

/// What the two levels of a reduction share: each level's op fields.
struct LevelDtypes {
  TypeAttr wire, acc, interHost;
  ScalingAttr interHostScaling; // an fp8 inter-host dtype's
  ReductionKindAttr reduction;
  FloatAttr preDivisor, postDivisor;
  ReductionAlgorithmAttr intraAlgorithm, interAlgorithm;
};

/// The attributes of the intra-host and inter-host reductions `op` becomes:
/// inside a host the op's wire, pre-divisor and algorithm with partial sums
/// in acc_dtype; across hosts the inter-host dtype with the post-divisor (an
/// `avg` becomes a sum divided once by the whole group at the end). The
/// inter-host level is a ring only where the op's is and the partial sums
/// travel in acc_dtype; else each partial sum is rounded once to the
/// inter-host dtype (direct).
LevelDtypes getLevelDtypes(OpBuilder &b, CollectiveOpInterface op,
                           int64_t groupSize) {
  MLIRContext *context = b.getContext();
  LevelDtypes levels;
  levels.wire = TypeAttr::get(op.getEffectiveForwardDtype());
  levels.acc = TypeAttr::get(op.getEffectiveAccDtype());
  levels.interHost = TypeAttr::get(getEffectiveInterHostDtype(op));
  levels.interHostScaling = op.getInterHostScalingAttr();
  ReductionKind kind = *op.getReduction();
  ReductionDivisors divisors = getExplicitDivisors(op);
  double post = divisors.post;
  if (kind == ReductionKind::Avg) {
    kind = ReductionKind::Sum;
    post *= static_cast<double>(groupSize);
  }
  levels.reduction = ReductionKindAttr::get(context, kind);
  if (divisors.pre != 1.0)
    levels.preDivisor = b.getF64FloatAttr(divisors.pre);
  if (post != 1.0)
    levels.postDivisor = b.getF64FloatAttr(post);
  ReductionAlgorithm algorithm = getReductionAlgorithm(op);
  levels.intraAlgorithm = ReductionAlgorithmAttr::get(context, algorithm);
  levels.interAlgorithm = ReductionAlgorithmAttr::get(
      context,
      algorithm == ReductionAlgorithm::Ring && levels.interHost == levels.acc
          ? ReductionAlgorithm::Ring
          : ReductionAlgorithm::Direct);
  return levels;
}

DenseI16ArrayAttr getAxesAttr(OpBuilder &b, ArrayRef<int16_t> axes) {
  return b.getDenseI16ArrayAttr(axes);
}

/// The inter-host level's result: `across` itself, or, where the partial
/// sums cross hosts in a scaled fp8 dtype, what prec-materialize-scales
/// makes of it (it has run; scaled collectives are its to lower).
FailureOr<Value> finishInterHostLevel(OpBuilder &b, CollectiveOpInterface across,
                                      SymbolTableCollection &tables) {
  if (!across.getScalingAttr())
    return across.getResult();
  FailureOr<Value> materialized =
      materializeScaledReduction(b, across, tables);
  across->erase();
  return materialized;
}

/// reduce_scatter over hosts x ranks per host: the chunks are reordered so
/// that each rank of a host receives the chunks of its intra-host
/// coordinates for every host, a reduce_scatter inside the host sums them
/// into partial sums in acc_dtype, and a reduce_scatter across hosts sums
/// those, leaving on each rank exactly the chunk the one-level op would.
FailureOr<Value> splitTwoLevel(OpBuilder &b, ReduceScatterOp op,
                               shard::GridOp grid, const TwoLevelGroup &group,
                               int64_t groupSize,
                               SymbolTableCollection &tables) {
  Location loc = op.getLoc();
  LevelDtypes levels = getLevelDtypes(b, op, groupSize);
  int64_t dim = op.getScatterAxis();
  SmallVector<int16_t> hostMajor(group.intraHostAxes);
  hostMajor.append(group.interHostAxes);
  Value input =
      permuteChunks(b, loc, op.getInput(), dim, getExtents(grid, group.axes),
                    getAxisPermutation(group.axes, hostMajor));
  SmallVector<int64_t> partialShape(op.getType().getShape());
  partialShape[dim] *= group.hosts;
  auto partialType = RankedTensorType::get(
      partialShape, cast<FloatType>(levels.acc.getValue()));
  Value partial = ReduceScatterOp::create(
      b, loc, partialType, input, op.getGridAttr(),
      getAxesAttr(b, group.intraHostAxes), levels.wire,
      op.getBackwardDtypeAttr(), op.getRoundingAttr(), ScalingAttr(),
      /*seed=*/Value(), levels.reduction, levels.acc, levels.preDivisor,
      /*post_divisor=*/nullptr, levels.intraAlgorithm,
      /*inter_host_dtype=*/nullptr, /*inter_host_scaling=*/nullptr,
      op.getScatterAxisAttr());
  auto across = ReduceScatterOp::create(
      b, loc, op.getType(), partial, op.getGridAttr(),
      getAxesAttr(b, group.interHostAxes), levels.interHost,
      op.getBackwardDtypeAttr(), op.getRoundingAttr(), levels.interHostScaling,
      /*seed=*/Value(), levels.reduction, levels.acc,
      /*pre_divisor=*/nullptr, levels.postDivisor, levels.interAlgorithm,
      /*inter_host_dtype=*/nullptr, /*inter_host_scaling=*/nullptr,
      op.getScatterAxisAttr());
  return finishInterHostLevel(b, across, tables);
}

/// all_gather over hosts x ranks per host: across hosts first (each rank
/// receives one chunk per other host), then inside the host (the host's
/// chunks of every host), then the chunks are put back in group order.
/// Neither level keeps `grad_inter_host_dtype` (or its scaling): each spans
/// one level, and the gradients were generated before.
FailureOr<Value> splitTwoLevel(OpBuilder &b, AllGatherOp op,
                               shard::GridOp grid, const TwoLevelGroup &group,
                               int64_t groupSize, SymbolTableCollection &) {
  Location loc = op.getLoc();
  TypeAttr wire = TypeAttr::get(op.getEffectiveForwardDtype());
  int64_t dim = op.getGatherAxis();
  SmallVector<int64_t> acrossShape(op.getInput().getType().getShape());
  acrossShape[dim] *= group.hosts;
  Value across = AllGatherOp::create(
      b, loc, RankedTensorType::get(acrossShape, wire.getValue()),
      op.getInput(), op.getGridAttr(), getAxesAttr(b, group.interHostAxes),
      wire, op.getBackwardDtypeAttr(), op.getRoundingAttr(), ScalingAttr(),
      /*seed=*/Value(), op.getGatherAxisAttr(), op.getGradReductionAttr(),
      /*grad_inter_host_dtype=*/nullptr, /*grad_inter_host_scaling=*/nullptr);
  Value gathered = AllGatherOp::create(
      b, loc, op.getType(), across, op.getGridAttr(),
      getAxesAttr(b, group.intraHostAxes), wire, op.getBackwardDtypeAttr(),
      op.getRoundingAttr(), ScalingAttr(), /*seed=*/Value(),
      op.getGatherAxisAttr(), op.getGradReductionAttr(),
      /*grad_inter_host_dtype=*/nullptr, /*grad_inter_host_scaling=*/nullptr);
  SmallVector<int16_t> hostMajor(group.intraHostAxes);
  hostMajor.append(group.interHostAxes);
  return permuteChunks(b, loc, gathered, dim, getExtents(grid, hostMajor),
                       getAxisPermutation(hostMajor, group.axes));
}

/// all_reduce over hosts x ranks per host: a reduce_scatter inside the host
/// of the flat (zero-padded) input into partial sums in acc_dtype, an
/// all_reduce across hosts of the 1/M slice, and an all_gather inside the
/// host of the finished slices, in the dtype a one-level direct all_reduce
/// gathers in (getAllReduceGatherType; the result type for a ring).
FailureOr<Value> splitTwoLevel(OpBuilder &b, AllReduceOp op,
                               shard::GridOp grid, const TwoLevelGroup &group,
                               int64_t groupSize,
                               SymbolTableCollection &tables) {
  Location loc = op.getLoc();
  LevelDtypes levels = getLevelDtypes(b, op, groupSize);
  RankedTensorType resultType = op.getType();
  auto resultElement = cast<FloatType>(resultType.getElementType());
  FloatType gathered = getAllReduceGatherType(op, groupSize);
  if (!gathered)
    gathered = resultElement;
  int64_t count = resultType.getNumElements();
  int64_t slice = getTwoLevelAllReduceSlice(op, group.ranksPerHost);
  int64_t padded = slice * group.ranksPerHost;
  Value flat = flatten(b, loc, op.getInput());
  if (padded != count)
    flat = padWithZeros(b, loc, flat, padded);
  auto acc = cast<FloatType>(levels.acc.getValue());
  IntegerAttr axis0 = b.getI64IntegerAttr(0);
  Value partial = ReduceScatterOp::create(
      b, loc, RankedTensorType::get({slice}, acc), flat, op.getGridAttr(),
      getAxesAttr(b, group.intraHostAxes), levels.wire,
      op.getBackwardDtypeAttr(), op.getRoundingAttr(), ScalingAttr(),
      /*seed=*/Value(), levels.reduction, levels.acc, levels.preDivisor,
      /*post_divisor=*/nullptr, levels.intraAlgorithm,
      /*inter_host_dtype=*/nullptr, /*inter_host_scaling=*/nullptr, axis0);
  auto across = AllReduceOp::create(
      b, loc, RankedTensorType::get({slice}, gathered), partial,
      op.getGridAttr(), getAxesAttr(b, group.interHostAxes), levels.interHost,
      op.getBackwardDtypeAttr(), op.getRoundingAttr(), levels.interHostScaling,
      /*seed=*/Value(), levels.reduction, levels.acc,
      /*pre_divisor=*/nullptr, levels.postDivisor, levels.interAlgorithm,
      /*inter_host_dtype=*/nullptr, /*inter_host_scaling=*/nullptr,
      /*grad_inter_host_dtype=*/nullptr, /*grad_inter_host_scaling=*/nullptr);
  FailureOr<Value> reduced = finishInterHostLevel(b, across, tables);
  if (failed(reduced))
    return failure();
  Value all = AllGatherOp::create(
      b, loc, RankedTensorType::get({padded}, gathered), *reduced,
      op.getGridAttr(), getAxesAttr(b, group.intraHostAxes),
      TypeAttr::get(gathered), op.getBackwardDtypeAttr(), op.getRoundingAttr(),
      ScalingAttr(), /*seed=*/Value(), axis0,
      ReductionKindAttr::get(b.getContext(), ReductionKind::Sum),
      /*grad_inter_host_dtype=*/nullptr, /*grad_inter_host_scaling=*/nullptr);
  if (padded != count)
    all = tensor::ExtractSliceOp::create(
        b, loc, RankedTensorType::get({count}, gathered), all,
        ArrayRef<OpFoldResult>{b.getIndexAttr(0)},
        ArrayRef<OpFoldResult>{b.getIndexAttr(count)},
        ArrayRef<OpFoldResult>{b.getIndexAttr(1)});
  Value shaped = reshapeTensor(
      b, loc, all, RankedTensorType::get(resultType.getShape(), gathered));
  if (gathered == resultElement)
    return shaped;
  return buildElementwise(b, loc, shaped,
                          b.getMultiDimIdentityMap(resultType.getRank()),
                          resultType, [&](OpBuilder &nb, Location nl, Value v) {
                            return convertFloat(nb, nl, v, resultElement);
                          });
}

/// Replaces every collective over both levels of its grid's topology by
/// one collective per level.
LogicalResult splitTwoLevelCollectives(Operation *root,
                                       SymbolTableCollection &tables) {
  SmallVector<CollectiveOpInterface> collectives;
  root->walk([&](CollectiveOpInterface op) { collectives.push_back(op); });
  for (CollectiveOpInterface op : collectives) {
    auto grid =
        tables.lookupNearestSymbolFrom<shard::GridOp>(op, op.getGridAttr());
    if (!grid)
      continue; // planDecomposition names the op
    std::optional<TwoLevelGroup> group = getTwoLevelGroup(op, grid);
    if (!group || op.getResult().getType().getNumElements() == 0)
      continue;
    int64_t groupSize = group->hosts * group->ranksPerHost;
    OpBuilder b(op);
    FailureOr<Value> replacement =
        TypeSwitch<Operation *, FailureOr<Value>>(op)
            .Case<AllGatherOp, ReduceScatterOp, AllReduceOp>(
                [&](auto concrete) {
                  return splitTwoLevel(b, concrete, grid, *group, groupSize,
                                       tables);
                });
    if (failed(replacement))
      return failure();
    op.getResult().replaceAllUsesWith(*replacement);
    op->erase();
  }
  return success();
}

struct DecomposeCollectivesPass
    : public prec::impl::PrecDecomposeCollectivesBase<
          DecomposeCollectivesPass> {
  void runOnOperation() override {
    SymbolTableCollection tables;
    if (failed(splitTwoLevelCollectives(getOperation(), tables)))
      return signalPassFailure();
    SmallVector<CollectiveOpInterface> collectives;
    getOperation().walk(
        [&](CollectiveOpInterface op) { collectives.push_back(op); });
    for (CollectiveOpInterface op : collectives) {
      FailureOr<DecompositionPlan> plan = planDecomposition(op, tables);
      if (failed(plan))
        return signalPassFailure();
      OpBuilder builder(op);
      // Nothing to send: every rank knows the empty result.
      auto resultType = cast<RankedTensorType>(op.getResult().getType());
      if (resultType.getNumElements() == 0) {
        op.getResult().replaceAllUsesWith(
            tensor::EmptyOp::create(builder, op.getLoc(), resultType.getShape(),
                                    resultType.getElementType()));
        op->erase();
        continue;
      }
      Value replacement =
          TypeSwitch<Operation *, Value>(op)
              .Case<AllGatherOp, AllToAllOp, ReduceScatterOp, AllReduceOp>(
                  [&](auto concrete) {
                    return decompose(builder, concrete, *plan);
                  });
      op.getResult().replaceAllUsesWith(replacement);
      op->erase();
    }
  }
};

} // namespace
