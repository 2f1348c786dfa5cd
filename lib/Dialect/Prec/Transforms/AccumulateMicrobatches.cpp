//===- AccumulateMicrobatches.cpp - HSDP gradient accumulation ------------===//

#include "prec/Dialect/Prec/IR/PrecOps.h"
#include "prec/Dialect/Prec/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/SmallSet.h"

namespace mlir::prec {
#define GEN_PASS_DEF_PRECACCUMULATEMICROBATCHES
#include "prec/Dialect/Prec/Transforms/Passes.h.inc"
} // namespace mlir::prec

using namespace mlir;
using namespace mlir::prec;

namespace {

/// One HSDP gradient reduction summed over microbatches:
/// `reduce(dims = [0], all_reduce(reduce_scatter(%g)))`.
struct MicrobatchChain {
  ReduceScatterOp reduceScatter;
  AllReduceOp allReduce;
  ReduceOp microbatchSum;
};

/// The grid axes a collective reduces over, with "all axes" spelled out.
llvm::SmallSet<int16_t, 4> getReducedAxes(CollectiveOpInterface op,
                                          shard::GridOp grid) {
  llvm::SmallSet<int16_t, 4> axes;
  if (op.getGridAxes().empty())
    for (int16_t axis = 0; axis < grid.getRank(); ++axis)
      axes.insert(axis);
  else
    axes.insert(op.getGridAxes().begin(), op.getGridAxes().end());
  return axes;
}

/// Whether `kind` is linear, i.e. commutes with a sum over microbatches.
bool isLinear(ReductionKind kind) {
  return kind == ReductionKind::Sum || kind == ReductionKind::Avg;
}

template <typename ReductionOp>
LogicalResult verifyLinearWithoutDivisors(ReductionOp op) {
  if (!isLinear(op.getReduction()))
    return op.emitOpError("expected reduction = <sum> or <avg> in a ")
           << "microbatch sum, got <"
           << stringifyReductionKind(op.getReduction()) << ">";
  if (op.getPreDivisorAttr() || op.getPostDivisorAttr())
    return op.emitOpError("expected no explicit divisors in a microbatch ")
           << "sum: prec-accumulate-microbatches computes them for the whole "
           << "schedule (run it before prec-divide-factors)";
  return success();
}

/// Checks that `chain` can be scheduled with `microbatches` microbatches.
LogicalResult verifyChain(const MicrobatchChain &chain, int64_t microbatches) {
  auto [reduceScatter, allReduce, microbatchSum] = chain;
  if (!isLinear(microbatchSum.getReduction()))
    return microbatchSum.emitOpError("expected a microbatch sum with ")
           << "reduction = <sum> or <avg>, got <"
           << stringifyReductionKind(microbatchSum.getReduction()) << ">";
  if (!allReduce->hasOneUse())
    return allReduce.emitOpError("expected the microbatch sum to be the only ")
           << "user of the all_reduce";
  if (!reduceScatter || !reduceScatter->hasOneUse())
    return allReduce.emitOpError("expected the input of a microbatch ")
           << "all_reduce to be a prec.reduce_scatter used only by it";
  if (failed(verifyLinearWithoutDivisors(reduceScatter)) ||
      failed(verifyLinearWithoutDivisors(allReduce)))
    return failure();

  if (reduceScatter.getGridAttr() != allReduce.getGridAttr())
    return allReduce.emitOpError("expected the grid of its reduce_scatter, ")
           << reduceScatter.getGridAttr() << ", got "
           << allReduce.getGridAttr();
  auto grid = SymbolTable::lookupNearestSymbolFrom<shard::GridOp>(
      allReduce, allReduce.getGridAttr());
  if (!grid)
    return allReduce.emitOpError("expected grid ")
           << allReduce.getGridAttr() << " to name a 'shard.grid'";
  llvm::SmallSet<int16_t, 4> shardAxes = getReducedAxes(reduceScatter, grid);
  for (int16_t axis : getReducedAxes(allReduce, grid))
    if (shardAxes.contains(axis))
      return allReduce.emitOpError("expected replicate axes disjoint from ")
             << "the reduce_scatter's shard axes, both reduce over grid axis "
             << axis;

  if (reduceScatter.getScatterAxis() == 0)
    return reduceScatter.emitOpError("expected a scatter_axis other than the ")
           << "microbatch dimension 0";
  int64_t microbatchExtent = reduceScatter.getInput().getType().getDimSize(0);
  if (microbatchExtent != microbatches)
    return reduceScatter.emitOpError("expected dimension 0 (the microbatch ")
           << "dimension) of size " << microbatches << ", got "
           << (ShapedType::isDynamic(microbatchExtent)
                   ? std::string("?")
                   : std::to_string(microbatchExtent));
  if (!reduceScatter.getType().hasStaticShape())
    return reduceScatter.emitOpError("expected a static shard shape, got ")
           << reduceScatter.getType();
  return success();
}

/// The accumulation dtype of a microbatch sum.
FloatType getMicrobatchAccType(ReduceOp microbatchSum) {
  if (std::optional<Type> acc = microbatchSum.getAccDtype())
    return cast<FloatType>(*acc);
  return getDefaultAccumulationType(
      cast<FloatType>(microbatchSum.getInput().getType().getElementType()));
}

/// The dtypes of a collective of the chain, made explicit: the schedule
/// changes the input types, on which the defaults depend.
struct ExplicitDtypes {
  explicit ExplicitDtypes(CollectiveOpInterface op)
      : forward(TypeAttr::get(op.getEffectiveForwardDtype())),
        backward(op.getBackwardDtypeAttr() ? op.getBackwardDtypeAttr()
                                           : forward),
        acc(TypeAttr::get(op.getEffectiveAccDtype())) {}
  TypeAttr forward, backward, acc;
};

/// Of the accumulation dtypes a sum passes through, the one with the
/// narrowest exponent range decides whether the average is split.
FloatType getNarrowestRange(ArrayRef<FloatType> types) {
  return *llvm::min_element(types, [](FloatType lhs, FloatType rhs) {
    return llvm::APFloat::semanticsMaxExponent(lhs.getFloatSemantics()) <
           llvm::APFloat::semanticsMaxExponent(rhs.getFloatSemantics());
  });
}

/// Rewrites `chain` into the accumulation schedule.
LogicalResult scheduleChain(const MicrobatchChain &chain,
                            int64_t microbatches) {
  auto [reduceScatter, allReduce, microbatchSum] = chain;
  FailureOr<int64_t> shardSize =
      getStaticCollectiveGroupSize(reduceScatter, "its divide factors");
  FailureOr<int64_t> replicateSize =
      getStaticCollectiveGroupSize(allReduce, "its divide factors");
  if (failed(shardSize) || failed(replicateSize))
    return failure();

  // The divisor of the whole schedule, applied around the one sum it has.
  int64_t divisor = 1;
  if (reduceScatter.getReduction() == ReductionKind::Avg)
    divisor *= *shardSize;
  if (allReduce.getReduction() == ReductionKind::Avg)
    divisor *= *replicateSize;
  if (microbatchSum.getReduction() == ReductionKind::Avg)
    divisor *= microbatches;
  FloatType accType = getMicrobatchAccType(microbatchSum);
  auto shardAcc = cast<FloatType>(reduceScatter.getEffectiveAccDtype());
  auto replicateAcc = cast<FloatType>(allReduce.getEffectiveAccDtype());
  // Every microbatch of every rank is a term of the one sum, also when the
  // microbatches are summed rather than averaged.
  int64_t terms = *shardSize * *replicateSize * microbatches;
  ReductionDivisors divisors = getAverageDivisors(
      divisor, getNarrowestRange({shardAcc, accType, replicateAcc}), terms);

  OpBuilder builder(reduceScatter);
  Location loc = microbatchSum.getLoc();
  Value gradients = reduceScatter.getInput();
  RankedTensorType gradientsType = reduceScatter.getInput().getType();
  auto microbatchType = RankedTensorType::get(
      gradientsType.getShape().drop_front(), gradientsType.getElementType());
  auto shardType = RankedTensorType::get(
      reduceScatter.getType().getShape().drop_front(), accType);
  Type f64 = builder.getF64Type();
  FloatAttr preDivisor, postDivisor;
  if (divisors.pre != 1.0)
    preDivisor = FloatAttr::get(f64, divisors.pre);
  if (divisors.post != 1.0)
    postDivisor = FloatAttr::get(f64, divisors.post);
  auto sum = ReductionKindAttr::get(builder.getContext(), ReductionKind::Sum);

  // acc = 0; for i in [0, M): acc += reduce_scatter(g[i])
  ExplicitDtypes shardDtypes(reduceScatter);
  Value zero = arith::ConstantOp::create(
      builder, loc, shardType,
      DenseElementsAttr::get(shardType, builder.getFloatAttr(accType, 0.0)));
  Value lower = arith::ConstantIndexOp::create(builder, loc, 0);
  Value upper = arith::ConstantIndexOp::create(builder, loc, microbatches);
  Value step = arith::ConstantIndexOp::create(builder, loc, 1);
  auto loop = scf::ForOp::create(
      builder, loc, lower, upper, step, ValueRange{zero},
      [&](OpBuilder &body, Location bodyLoc, Value index, ValueRange acc) {
        int64_t rank = gradientsType.getRank();
        SmallVector<OpFoldResult> offsets(rank, body.getIndexAttr(0));
        offsets[0] = index;
        SmallVector<OpFoldResult> sizes;
        sizes.push_back(body.getIndexAttr(1));
        for (int64_t extent : microbatchType.getShape())
          sizes.push_back(body.getIndexAttr(extent));
        SmallVector<OpFoldResult> strides(rank, body.getIndexAttr(1));
        Value microbatch = tensor::ExtractSliceOp::create(
            body, bodyLoc, microbatchType, gradients, offsets, sizes, strides);
        // Stochastic rounding: each microbatch draws its own stream (the
        // seed plus the microbatch times an odd constant), so that the
        // microbatches' roundings are independent.
        Value seed = reduceScatter.getSeed();
        if (seed) {
          Value wideIndex = arith::IndexCastUIOp::create(
              body, bodyLoc, body.getI64Type(), index);
          Value stride = arith::ConstantOp::create(
              body, bodyLoc,
              body.getI64IntegerAttr(
                  static_cast<int64_t>(0xD1B54A32D192ED03ull)));
          seed = arith::AddIOp::create(
              body, bodyLoc, seed,
              arith::MulIOp::create(body, bodyLoc, wideIndex, stride));
        }
        Value shard = ReduceScatterOp::create(
            body, reduceScatter.getLoc(), shardType, microbatch,
            reduceScatter.getGridAttr(), reduceScatter.getGridAxesAttr(),
            shardDtypes.forward, shardDtypes.backward,
            reduceScatter.getRoundingAttr(), reduceScatter.getScalingAttr(),
            seed, sum, shardDtypes.acc, preDivisor, /*post_divisor=*/nullptr,
            reduceScatter.getAlgorithmAttr(),
            reduceScatter.getInterHostDtypeAttr(),
            reduceScatter.getInterHostScalingAttr(),
            body.getI64IntegerAttr(reduceScatter.getScatterAxis() - 1));
        Value next = arith::AddFOp::create(body, bodyLoc, acc.front(), shard);
        scf::YieldOp::create(body, bodyLoc, next);
      });

  // One all-reduce of the accumulated shard, after the last microbatch.
  ExplicitDtypes replicateDtypes(allReduce);
  Value reduced = AllReduceOp::create(
      builder, allReduce.getLoc(), microbatchSum.getType(), loop.getResult(0),
      allReduce.getGridAttr(), allReduce.getGridAxesAttr(),
      replicateDtypes.forward, replicateDtypes.backward,
      allReduce.getRoundingAttr(), allReduce.getScalingAttr(),
      allReduce.getSeed(), sum,
      replicateDtypes.acc, /*pre_divisor=*/nullptr, postDivisor,
      allReduce.getAlgorithmAttr(), allReduce.getInterHostDtypeAttr(),
      allReduce.getInterHostScalingAttr(),
      allReduce.getGradInterHostDtypeAttr(),
      allReduce.getGradInterHostScalingAttr());

  microbatchSum.replaceAllUsesWith(reduced);
  microbatchSum.erase();
  allReduce.erase();
  reduceScatter.erase();
  return success();
}

/// A microbatch loop written by hand (or around calls of a generated
/// backward function): `scf.for` whose iteration argument accumulates
/// `acc + all_reduce(g)` of each microbatch's gradient.
struct LoopAccumulation {
  scf::ForOp loop;
  unsigned index;
  AllReduceOp allReduce;
  arith::AddFOp add;
};

/// The accumulations of `loop` that reduce every microbatch.
SmallVector<LoopAccumulation> findLoopAccumulations(scf::ForOp loop) {
  SmallVector<LoopAccumulation> found;
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  for (auto [index, iterArg] : llvm::enumerate(loop.getRegionIterArgs())) {
    auto add = yield.getOperand(index).getDefiningOp<arith::AddFOp>();
    if (!add || !add->hasOneUse() || !iterArg.hasOneUse())
      continue;
    Value other = add.getLhs() == iterArg   ? add.getRhs()
                  : add.getRhs() == iterArg ? add.getLhs()
                                            : Value();
    auto allReduce = other ? other.getDefiningOp<AllReduceOp>() : nullptr;
    if (!allReduce || !allReduce->hasOneUse() ||
        allReduce->getParentOp() != loop ||
        allReduce.getInput().getType() != allReduce.getType())
      continue;
    found.push_back({loop, static_cast<unsigned>(index), allReduce, add});
  }
  return found;
}

/// Moves the all-reduce of `accumulation` after its loop: the loop sums the
/// microbatches' gradients, from zero, and one all-reduce reduces the sum,
/// which the loop's initial value is then added to. Sum and avg are linear,
/// so this is the same value, accumulated before the all-reduce as HSDP
/// requires, with one all-reduce instead of one per microbatch.
LogicalResult hoistAllReduce(const LoopAccumulation &accumulation,
                             int64_t microbatches) {
  auto [loop, index, allReduce, add] = accumulation;
  if (!isLinear(allReduce.getReduction()))
    return allReduce.emitOpError("expected reduction = <sum> or <avg> in a ")
           << "microbatch loop, got <"
           << stringifyReductionKind(allReduce.getReduction()) << ">";
  std::optional<APInt> tripCount = loop.getStaticTripCount();
  if (!tripCount || tripCount->getSExtValue() != microbatches)
    return loop.emitOpError("expected a microbatch loop of ")
           << microbatches << " iterations, got "
           << (tripCount ? std::to_string(tripCount->getSExtValue())
                         : std::string("?"));

  // acc' = acc + g inside the loop, from zero.
  add->replaceUsesOfWith(allReduce.getResult(), allReduce.getInput());
  OpOperand &init = loop.getInitArgsMutable()[index];
  Value initial = init.get();
  OpBuilder builder(loop);
  auto type = cast<RankedTensorType>(initial.getType());
  init.set(arith::ConstantOp::create(
      builder, loop.getLoc(), type,
      DenseElementsAttr::get(
          type, builder.getFloatAttr(type.getElementType(), 0.0))));

  // initial + all_reduce(sum over the microbatches), after the loop.
  builder.setInsertionPointAfter(loop);
  Value sum = loop.getResult(index);
  allReduce->moveAfter(loop);
  allReduce.getInputMutable().assign(sum);
  Value reduced = allReduce.getResult();
  Value total = reduced;
  if (!matchPattern(initial, m_AnyZeroFloat())) {
    builder.setInsertionPointAfter(allReduce);
    total = arith::AddFOp::create(builder, loop.getLoc(), initial, reduced);
  }
  sum.replaceAllUsesExcept(total, allReduce);
  return success();
}

struct AccumulateMicrobatchesPass
    : public prec::impl::PrecAccumulateMicrobatchesBase<
          AccumulateMicrobatchesPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    // The dialect verifies that the count is a positive integer.
    auto count =
        func->getAttrOfType<IntegerAttr>(PrecDialect::kMicrobatchesAttrName);
    if (!count)
      return markAllAnalysesPreserved();
    int64_t microbatches = count.getInt();

    SmallVector<MicrobatchChain> chains;
    func.walk([&](ReduceOp reduce) {
      auto allReduce = reduce.getInput().getDefiningOp<AllReduceOp>();
      if (!allReduce || reduce.getDims() != ArrayRef<int64_t>{0})
        return;
      chains.push_back({allReduce.getInput().getDefiningOp<ReduceScatterOp>(),
                        allReduce, reduce});
    });
    SmallVector<LoopAccumulation> accumulations;
    func.walk([&](scf::ForOp loop) {
      llvm::append_range(accumulations, findLoopAccumulations(loop));
    });
    if (chains.empty() && accumulations.empty()) {
      func.emitOpError("has ")
          << PrecDialect::kMicrobatchesAttrName
          << " but no microbatch sum 'prec.reduce dims = [0]' of a "
          << "prec.all_reduce of a prec.reduce_scatter, and no microbatch "
          << "loop accumulating a prec.all_reduce";
      return signalPassFailure();
    }
    for (const MicrobatchChain &chain : chains)
      if (failed(verifyChain(chain, microbatches)) ||
          failed(scheduleChain(chain, microbatches)))
        return signalPassFailure();
    for (const LoopAccumulation &accumulation : accumulations)
      if (failed(hoistAllReduce(accumulation, microbatches)))
        return signalPassFailure();
    // The count is consumed: a scheduled function has no microbatch sum left,
    // and running the pass (or a pipeline containing it) again must not
    // look for one.
    func->removeAttr(PrecDialect::kMicrobatchesAttrName);
  }
};

} // namespace
