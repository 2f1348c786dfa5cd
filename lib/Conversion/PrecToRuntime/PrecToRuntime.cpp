//===- PrecToRuntime.cpp - prec.transport to precrt calls -----------------===//

#include "PeerWindows.h"

#include "prec/Conversion/Passes.h"
#include "prec/Dialect/Prec/Utils/StaticSlices.h"
#include "prec/Dialect/Prec/IR/PrecOps.h"

#include "precrt/compiled.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::prec {
#define GEN_PASS_DEF_CONVERTPRECTORUNTIME
#include "prec/Conversion/Passes.h.inc"
} // namespace mlir::prec

using namespace mlir;
using namespace mlir::prec;

namespace {

/// The runtime's dtype code of a wire element type, if it has one.
std::optional<precrt_dtype_t> getRuntimeDtype(Type type) {
  if (type.isF64())
    return PRECRT_DTYPE_F64;
  if (type.isF32())
    return PRECRT_DTYPE_F32;
  if (type.isF16())
    return PRECRT_DTYPE_F16;
  if (type.isBF16())
    return PRECRT_DTYPE_BF16;
  if (isa<Float8E4M3FNType>(type))
    return PRECRT_DTYPE_F8E4M3FN;
  if (isa<Float8E5M2Type>(type))
    return PRECRT_DTYPE_F8E5M2;
  // Block scales only move (the verifier rejects their reduction).
  if (isa<Float8E8M0FNUType>(type))
    return PRECRT_DTYPE_BYTES;
  return std::nullopt;
}

precrt_reduction_t getRuntimeReduction(ReductionKind kind) {
  switch (kind) {
  case ReductionKind::Sum:
    return PRECRT_REDUCTION_SUM;
  case ReductionKind::Avg:
    return PRECRT_REDUCTION_AVG;
  case ReductionKind::Max:
    return PRECRT_REDUCTION_MAX;
  case ReductionKind::Min:
    return PRECRT_REDUCTION_MIN;
  }
  llvm_unreachable("unknown reduction kind");
}

precrt_transport_t getRuntimeTransport(TransportKind kind) {
  switch (kind) {
  case TransportKind::AllGather:
    return PRECRT_TRANSPORT_ALL_GATHER;
  case TransportKind::AllToAll:
    return PRECRT_TRANSPORT_ALL_TO_ALL;
  case TransportKind::ReduceScatter:
    return PRECRT_TRANSPORT_REDUCE_SCATTER;
  case TransportKind::AllReduce:
    return PRECRT_TRANSPORT_ALL_REDUCE;
  }
  llvm_unreachable("unknown transport kind");
}

/// A private constant global holding `values`, created once per module.
memref::GlobalOp getOrCreateConstantGlobal(OpBuilder &builder, ModuleOp module,
                                           StringRef name,
                                           DenseElementsAttr values) {
  if (auto existing = module.lookupSymbol<memref::GlobalOp>(name))
    return existing;
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(module.getBody());
  auto type = MemRefType::get(values.getType().getShape(),
                              values.getType().getElementType());
  return memref::GlobalOp::create(builder, module.getLoc(), name,
                                  builder.getStringAttr("private"), type,
                                  values, /*constant=*/true,
                                  /*alignment=*/nullptr);
}

/// The aligned pointer of a memref, as the index the runtime reads as a
/// pointer (same width on every supported target).
Value getAlignedPointer(OpBuilder &builder, Location loc, Value memref) {
  return memref::ExtractAlignedPointerAsIndexOp::create(builder, loc, memref);
}

/// The private declaration of runtime function `name`, created once.
func::FuncOp getOrCreateDecl(OpBuilder &builder, ModuleOp module,
                             StringRef name, FunctionType type) {
  if (auto existing = module.lookupSymbol<func::FuncOp>(name))
    return existing;
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(module.getBody());
  auto decl = func::FuncOp::create(builder, module.getLoc(), name, type);
  decl.setPrivate();
  return decl;
}

func::FuncOp getOrCreateRuntimeDecl(OpBuilder &builder, ModuleOp module) {
  Type i32 = builder.getI32Type(), i64 = builder.getI64Type(),
       index = builder.getIndexType();
  return getOrCreateDecl(
      builder, module, PRECRT_COMPILED_COLLECTIVE_SYMBOL,
      builder.getFunctionType(
          {i32, index, index, i64, i32, i32, i32, index, i32, index}, {i32}));
}

/// The calling rank's index in a grid of `gridRanks` ranks over the whole
/// world, as an index; the runtime checks that the world has that many.
Value createGridRank(OpBuilder &builder, Location loc, ModuleOp module,
                     int64_t gridRanks) {
  Type i64 = builder.getI64Type();
  func::FuncOp decl =
      getOrCreateDecl(builder, module, PRECRT_COMPILED_GRID_RANK_SYMBOL,
                      builder.getFunctionType({i64}, {i64}));
  Value size = arith::ConstantOp::create(builder, loc, i64,
                                         builder.getI64IntegerAttr(gridRanks));
  Value rank =
      func::CallOp::create(builder, loc, decl, ValueRange{size}).getResult(0);
  return arith::IndexCastUIOp::create(builder, loc, builder.getIndexType(),
                                      rank);
}

/// The static shape of the grid `op` names, or a diagnostic.
FailureOr<ArrayRef<int64_t>> getStaticGridShape(Operation *op,
                                                FlatSymbolRefAttr name) {
  auto grid = SymbolTable::lookupNearestSymbolFrom<shard::GridOp>(op, name);
  if (!grid || llvm::any_of(grid.getShape(), ShapedType::isDynamic)) {
    op->emitOpError("expected a grid of static shape");
    return failure();
  }
  return grid.getShape();
}

/// The ranks of a grid of static `shape` (at most 2^31 - 1, as verified).
int64_t getGridRanks(ArrayRef<int64_t> shape) {
  int64_t ranks = 1;
  for (int64_t extent : shape)
    ranks *= extent;
  return ranks;
}

/// The grid axes an op names; none means all of them, in order.
SmallVector<int64_t> getAxesOrAll(ArrayRef<int16_t> axes, size_t rank) {
  if (axes.empty())
    return llvm::to_vector(llvm::seq<int64_t>(0, rank));
  return llvm::to_vector(llvm::map_range(
      axes, [](int16_t axis) { return static_cast<int64_t>(axis); }));
}

/// `shard.process_linear_index` of a grid over the whole world: the calling
/// rank's index in its world (the key of stochastic rounding on each rank).
struct ProcessLinearIndexOpLowering
    : OpConversionPattern<shard::ProcessLinearIndexOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(shard::ProcessLinearIndexOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<ArrayRef<int64_t>> shape =
        getStaticGridShape(op, op.getGridAttr());
    if (failed(shape))
      return failure();
    rewriter.replaceOp(op, createGridRank(rewriter, op.getLoc(),
                                          op->getParentOfType<ModuleOp>(),
                                          getGridRanks(*shape)));
    return success();
  }
};

/// `shard.process_multi_index`: the calling rank's coordinates on a grid over
/// the whole world, row-major (last axis fastest) as the runtime numbers the
/// ranks of a grid.
struct ProcessMultiIndexOpLowering
    : OpConversionPattern<shard::ProcessMultiIndexOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(shard::ProcessMultiIndexOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<ArrayRef<int64_t>> shape =
        getStaticGridShape(op, op.getGridAttr());
    if (failed(shape))
      return failure();
    Location loc = op.getLoc();
    Value rank = createGridRank(rewriter, loc, op->getParentOfType<ModuleOp>(),
                                getGridRanks(*shape));
    SmallVector<Value> results;
    for (int64_t axis : getAxesOrAll(op.getAxes(), shape->size())) {
      int64_t stride = 1;
      for (int64_t inner : shape->drop_front(axis + 1))
        stride *= inner;
      Value strided = arith::DivUIOp::create(
          rewriter, loc, rank,
          arith::ConstantIndexOp::create(rewriter, loc, stride));
      results.push_back(arith::RemUIOp::create(
          rewriter, loc, strided,
          arith::ConstantIndexOp::create(rewriter, loc, (*shape)[axis])));
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// `shard.grid_shape` of a static grid: constants.
struct GridShapeOpLowering : OpConversionPattern<shard::GridShapeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(shard::GridShapeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<ArrayRef<int64_t>> shape =
        getStaticGridShape(op, op.getGridAttr());
    if (failed(shape))
      return failure();
    SmallVector<Value> results;
    for (int64_t axis : getAxesOrAll(op.getAxes(), shape->size()))
      results.push_back(arith::ConstantIndexOp::create(rewriter, op.getLoc(),
                                                       (*shape)[axis]));
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// How the runtime names a transport's group: the grid's shape and the axes
/// (none: all), as constant globals it reads through pointers.
struct GridOperands {
  Value numDims, shape, numAxes, axes;
};

GridOperands createGridOperands(OpBuilder &builder, Location loc,
                                Operation *op, StringRef gridName,
                                ArrayRef<int16_t> gridAxes,
                                shard::GridOp grid) {
  auto module = op->getParentOfType<ModuleOp>();
  ArrayRef<int64_t> shape = grid.getShape();
  memref::GlobalOp shapeGlobal = getOrCreateConstantGlobal(
      builder, module, ("__prec_grid_" + gridName).str(),
      DenseElementsAttr::get(
          RankedTensorType::get({static_cast<int64_t>(shape.size())},
                                builder.getI64Type()),
          shape));
  SmallVector<int32_t> axes(gridAxes.begin(), gridAxes.end());
  std::string axesName = ("__prec_grid_" + gridName + "_axes").str();
  for (int32_t axis : axes)
    axesName += "_" + std::to_string(axis);
  GridOperands operands;
  operands.numDims = arith::ConstantIntOp::create(
      builder, loc, static_cast<int64_t>(shape.size()), 32);
  operands.shape = getAlignedPointer(
      builder, loc,
      memref::GetGlobalOp::create(builder, loc, shapeGlobal.getType(),
                                  shapeGlobal.getSymName()));
  operands.numAxes = arith::ConstantIntOp::create(
      builder, loc, static_cast<int64_t>(axes.size()), 32);
  // A zero-length memref cannot hold a global; all axes are passed as none.
  if (axes.empty()) {
    operands.axes = arith::ConstantIndexOp::create(builder, loc, 0);
    return operands;
  }
  memref::GlobalOp axesGlobal = getOrCreateConstantGlobal(
      builder, module, axesName,
      DenseElementsAttr::get(
          RankedTensorType::get({static_cast<int64_t>(axes.size())},
                                builder.getI32Type()),
          ArrayRef<int32_t>(axes)));
  operands.axes = getAlignedPointer(
      builder, loc,
      memref::GetGlobalOp::create(builder, loc, axesGlobal.getType(),
                                  axesGlobal.getSymName()));
  return operands;
}

GridOperands createGridOperands(OpBuilder &builder, Location loc,
                                TransportOp op, shard::GridOp grid) {
  return createGridOperands(builder, loc, op, op.getGrid(), op.getGridAxes(),
                            grid);
}

/// The input's buffer as it is, at any offset: a slice of a larger buffer
/// (a microbatch's rows) is not copied, so that the buffer a started
/// transport reads is the same at its start and at its wait.
Value getContiguousInputBuffer(OpBuilder &builder, Location loc,
                               Value input) {
  auto type = cast<RankedTensorType>(input.getType());
  auto layout = StridedLayoutAttr::get(builder.getContext(),
                                       ShapedType::kDynamic, {1});
  return bufferization::ToBufferOp::create(
      builder, loc,
      MemRefType::get(type.getShape(), type.getElementType(), layout), input,
      /*readOnly=*/true);
}

/// The address of the first element of a 1-D buffer: its aligned pointer
/// plus its offset.
Value getFirstElementAddress(OpBuilder &builder, Location loc, Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  Value aligned = getAlignedPointer(builder, loc, buffer);
  if (type.getLayout().isIdentity())
    return aligned;
  auto metadata =
      memref::ExtractStridedMetadataOp::create(builder, loc, buffer);
  Value bytes = arith::MulIOp::create(
      builder, loc, metadata.getOffset(),
      arith::ConstantIndexOp::create(
          builder, loc, type.getElementTypeBitWidth() / 8));
  return arith::AddIOp::create(builder, loc, aligned, bytes);
}

/// The operands of precrtCompiledCollective (and its start) for a transport
/// of `input` into `result`, both buffers.
SmallVector<Value> createTransportCallOperands(
    OpBuilder &builder, Location loc, Operation *op, TransportKind kind,
    std::optional<ReductionKind> reduction, StringRef gridName,
    ArrayRef<int16_t> gridAxes, shard::GridOp grid, Value input,
    Value result) {
  auto inputType = cast<MemRefType>(input.getType());
  std::optional<precrt_dtype_t> dtype =
      getRuntimeDtype(inputType.getElementType());
  assert(dtype && "the verifier admits only wires a runtime moves");
  GridOperands gridOperands =
      createGridOperands(builder, loc, op, gridName, gridAxes, grid);
  auto i32 = [&](int64_t value) -> Value {
    return arith::ConstantIntOp::create(builder, loc, value, 32);
  };
  return {i32(getRuntimeTransport(kind)),
          getFirstElementAddress(builder, loc, input),
          getAlignedPointer(builder, loc, result),
          arith::ConstantIntOp::create(builder, loc,
                                       inputType.getNumElements(), 64),
          i32(*dtype),
          i32(reduction ? getRuntimeReduction(*reduction) : 0),
          gridOperands.numDims,
          gridOperands.shape,
          gridOperands.numAxes,
          gridOperands.axes};
}

/// The static grid a transport runs on, or a diagnostic.
FailureOr<shard::GridOp> getStaticGrid(Operation *op,
                                       FlatSymbolRefAttr name) {
  auto grid = SymbolTable::lookupNearestSymbolFrom<shard::GridOp>(op, name);
  if (!grid || llvm::any_of(grid.getShape(), ShapedType::isDynamic))
    return op->emitOpError("expected a grid of static shape");
  return grid;
}

/// A fresh, aligned buffer for what a transport receives.
Value allocateReceived(OpBuilder &builder, Location loc,
                       RankedTensorType type) {
  return memref::AllocOp::create(
      builder, loc, MemRefType::get(type.getShape(), type.getElementType()),
      builder.getI64IntegerAttr(64));
}

Value getInputBuffer(OpBuilder &builder, Location loc, Value input) {
  auto type = cast<RankedTensorType>(input.getType());
  return bufferization::ToBufferOp::create(
      builder, loc, MemRefType::get(type.getShape(), type.getElementType()),
      input, /*readOnly=*/true);
}

struct TransportOpLowering : OpConversionPattern<TransportOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(TransportOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    FailureOr<shard::GridOp> grid = getStaticGrid(op, op.getGridAttr());
    if (failed(grid))
      return failure();
    func::FuncOp decl =
        getOrCreateRuntimeDecl(rewriter, op->getParentOfType<ModuleOp>());
    Value input = getInputBuffer(rewriter, loc, adaptor.getInput());
    Value result = allocateReceived(rewriter, loc, op.getType());
    func::CallOp::create(
        rewriter, loc, decl,
        createTransportCallOperands(rewriter, loc, op, op.getKind(),
                                    op.getReduction(), op.getGrid(),
                                    op.getGridAxes(), *grid, input, result));
    rewriter.replaceOpWithNewOp<bufferization::ToTensorOp>(
        op, op.getType(), result, /*restrict=*/true, /*writable=*/true);
    return success();
  }
};

/// The tensor a started transport reads, made safe to read in place from its
/// start to its wait. A slice (possibly reshaped) may bufferize to a strided
/// view, which the transport could only read through a copy, and one copy
/// per read would be two buffers: it gets one contiguous copy here. A
/// received buffer the input is a view of (the first level of a two-level
/// collective) becomes read-only: the canonicalizer folds the wait's second
/// read of such a tensor into the buffer itself, and bufferization would
/// then no longer see that read, and might write into the buffer in place
/// while the data moves.
Value prepareStartedInput(OpBuilder &builder, Location loc, Value input) {
  Value root = input;
  bool sliced = false;
  while (Operation *def = root.getDefiningOp()) {
    if (!isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp,
             tensor::ExtractSliceOp>(def))
      break;
    sliced |= isa<tensor::ExtractSliceOp>(def);
    root = def->getOperand(0);
  }
  if (auto received = root.getDefiningOp<bufferization::ToTensorOp>())
    received.setWritable(false);
  if (!sliced)
    return input;
  return bufferization::AllocTensorOp::create(
      builder, loc, cast<RankedTensorType>(input.getType()),
      /*dynamicSizes=*/ValueRange(), /*copy=*/input);
}

/// A started transport: the runtime's start where the start was, its wait
/// where the wait is. The wait call reads the input's buffer again, so that
/// bufferization neither writes nor frees it while the data moves; the
/// received buffer becomes a tensor only after the wait.
LogicalResult lowerStartedTransport(TransportStartOp start) {
  FailureOr<shard::GridOp> grid = getStaticGrid(start, start.getGridAttr());
  if (failed(grid))
    return failure();
  TransportWaitOp wait = start.getWait();
  Location loc = start.getLoc();
  auto module = start->getParentOfType<ModuleOp>();
  OpBuilder builder(start);
  Type i32 = builder.getI32Type(), i64 = builder.getI64Type(),
       index = builder.getIndexType();
  func::FuncOp startDecl = getOrCreateDecl(
      builder, module, PRECRT_COMPILED_COLLECTIVE_START_SYMBOL,
      builder.getFunctionType(
          {i32, index, index, i64, i32, i32, i32, index, i32, index}, {i64}));
  func::FuncOp waitDecl = getOrCreateDecl(
      builder, module, PRECRT_COMPILED_COLLECTIVE_WAIT_SYMBOL,
      builder.getFunctionType({i64, index, index}, {i32}));

  RankedTensorType resultType = start.getInFlight().getType().getResult();
  Value inputTensor = prepareStartedInput(builder, loc, start.getInput());
  Value input = getContiguousInputBuffer(builder, loc, inputTensor);
  Value result = allocateReceived(builder, loc, resultType);
  Value handle =
      func::CallOp::create(
          builder, loc, startDecl,
          createTransportCallOperands(
              builder, loc, start, start.getKind(), start.getReduction(),
              start.getGrid(), start.getGridAxes(), *grid, input, result))
          .getResult(0);

  builder.setInsertionPoint(wait);
  Location waitLoc = wait.getLoc();
  Value inputAtWait = getContiguousInputBuffer(builder, waitLoc, inputTensor);
  // The status is also the rank's recorded error, which the driver reports
  // after the step (as for a synchronous transport).
  func::CallOp::create(builder, waitLoc, waitDecl,
                       ValueRange{handle,
                                  getFirstElementAddress(builder, waitLoc,
                                                         inputAtWait),
                                  getAlignedPointer(builder, waitLoc, result)});
  Value received = bufferization::ToTensorOp::create(
      builder, waitLoc, resultType, result, /*restrict=*/true,
      /*writable=*/true);
  wait.replaceAllUsesWith(received);
  wait.erase();
  start.erase();
  return success();
}

/// The slices a received tensor is read through, and the reshapes in
/// between. Collected only if the tensor has no other use.
struct SliceTree {
  SmallVector<Operation *> reshapes;
  SmallVector<tensor::ExtractSliceOp> slices;
};

/// Walks the uses of `value`, through static reshapes, down to static slices.
/// Fails on any other use.
LogicalResult collectSliceTree(Value value, SliceTree &tree) {
  for (Operation *user : value.getUsers()) {
    if (auto slice = dyn_cast<tensor::ExtractSliceOp>(user)) {
      if (!slice.hasUnitStride() || !slice.getOffsets().empty() ||
          !slice.getSizes().empty())
        return failure();
      tree.slices.push_back(slice);
      continue;
    }
    if (!isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(user) ||
        !cast<ShapedType>(user->getResult(0).getType()).hasStaticShape())
      return failure();
    tree.reshapes.push_back(user);
    if (failed(collectSliceTree(user->getResult(0), tree)))
      return failure();
  }
  return success();
}

/// Whether the slices are pairwise disjoint, known from one dimension along
/// which all of them slice the same tensor without overlap.
bool areDisjoint(MutableArrayRef<tensor::ExtractSliceOp> slices) {
  Value source = slices.front().getSource();
  if (llvm::any_of(slices, [&](tensor::ExtractSliceOp slice) {
        return slice.getSource() != source;
      }))
    return false;
  return areSeparatedAlongOneDimension(slices);
}

/// The memref type of each reshape of `tree` applied to `buffer`; failure
/// if one of them has no memref counterpart.
FailureOr<DenseMap<Operation *, MemRefType>>
getViewTypes(const SliceTree &tree, Value tensor, MemRefType buffer) {
  DenseMap<Value, MemRefType> types{{tensor, buffer}};
  DenseMap<Operation *, MemRefType> reshapeTypes;
  for (Operation *reshape : tree.reshapes) {
    MemRefType source = types.lookup(reshape->getOperand(0));
    FailureOr<MemRefType> type = failure();
    if (auto expand = dyn_cast<tensor::ExpandShapeOp>(reshape))
      type = memref::ExpandShapeOp::computeExpandedType(
          source, expand.getResultType().getShape(),
          expand.getReassociationIndices());
    else if (auto collapse = cast<tensor::CollapseShapeOp>(reshape);
             memref::CollapseShapeOp::isGuaranteedCollapsible(
                 source, collapse.getReassociationIndices()))
      type = memref::CollapseShapeOp::computeCollapsedType(
          source, collapse.getReassociationIndices());
    if (failed(type))
      return failure();
    types[reshape->getResult(0)] = *type;
    reshapeTypes[reshape] = *type;
  }
  return reshapeTypes;
}

/// A bucketed collective's result is read member by member through slices of
/// one tensor. One-shot bufferization's conflict analysis visits every alias
/// of a tensor for each use of any of them, so L slices of one tensor cost
/// O(L^2). Slicing the received buffer instead (memref views, one
/// `to_tensor` per member) gives every member a tensor of its own; the
/// buffers and the code after bufferization are the same.
///
/// The members are taken where the received tensor was, so that each holds
/// the buffer's contents at that point even where a slice sat in a loop
/// that writes into it. Only disjoint slices are split: `restrict` promises
/// that no other tensor aliases a member.
void splitIntoMemberTensors(bufferization::ToTensorOp received) {
  SliceTree tree;
  if (failed(collectSliceTree(received.getResult(), tree)) ||
      tree.slices.size() < 2 || !areDisjoint(tree.slices))
    return;
  FailureOr<DenseMap<Operation *, MemRefType>> viewTypes =
      getViewTypes(tree, received.getResult(),
                   cast<MemRefType>(received.getBuffer().getType()));
  if (failed(viewTypes))
    return;

  // Members in the order of their offsets, the order of the bucket.
  llvm::stable_sort(tree.slices, [](tensor::ExtractSliceOp a,
                                    tensor::ExtractSliceOp b) {
    ArrayRef<int64_t> x = a.getStaticOffsets(), y = b.getStaticOffsets();
    return std::lexicographical_compare(x.begin(), x.end(), y.begin(), y.end());
  });

  IRMapping views;
  views.map(received.getResult(), received.getBuffer());
  OpBuilder builder(received.getContext());
  builder.setInsertionPointAfter(received);
  for (Operation *reshape : tree.reshapes) {
    Value source = views.lookup(reshape->getOperand(0));
    Value view;
    if (auto expand = dyn_cast<tensor::ExpandShapeOp>(reshape))
      view = memref::ExpandShapeOp::create(
          builder, reshape->getLoc(), viewTypes->lookup(reshape), source,
          expand.getReassociationIndices());
    else
      view = memref::CollapseShapeOp::create(
          builder, reshape->getLoc(), source,
          cast<tensor::CollapseShapeOp>(reshape).getReassociationIndices());
    views.map(reshape->getResult(0), view);
  }
  for (tensor::ExtractSliceOp slice : tree.slices) {
    Value source = views.lookup(slice.getSource());
    auto type = memref::SubViewOp::inferRankReducedResultType(
        slice.getType().getShape(), cast<MemRefType>(source.getType()),
        slice.getStaticOffsets(), slice.getStaticSizes(),
        slice.getStaticStrides());
    Value member = memref::SubViewOp::create(
        builder, slice.getLoc(), type, source, slice.getStaticOffsets(),
        slice.getStaticSizes(), slice.getStaticStrides());
    slice.replaceAllUsesWith(
        bufferization::ToTensorOp::create(builder, slice.getLoc(),
                                          slice.getType(), member,
                                          /*restrict=*/true,
                                          received.getWritable())
            .getResult());
  }
  // Erased last: the op after `received`, where the members go, may be one
  // of them.
  for (tensor::ExtractSliceOp slice : tree.slices)
    slice.erase();
  for (Operation *reshape : llvm::reverse(tree.reshapes))
    reshape->erase();
  received.erase();
}

//===----------------------------------------------------------------------===//
// Peer windows: transports whose kernels write and read in place
//===----------------------------------------------------------------------===//

/// A memref<bytes x i8> of memory the runtime owns at `pointer`: its
/// descriptor built in the LLVM dialect and cast, which the conversion to
/// LLVM folds away.
Value wrapRuntimeBuffer(OpBuilder &builder, Location loc, Value pointer,
                        int64_t bytes) {
  MLIRContext *context = builder.getContext();
  Type i64 = builder.getI64Type();
  auto array = LLVM::LLVMArrayType::get(i64, 1);
  auto descriptorType = LLVM::LLVMStructType::getLiteral(
      context, {pointer.getType(), pointer.getType(), i64, array, array});
  Value descriptor = LLVM::PoisonOp::create(builder, loc, descriptorType);
  auto insert = [&](Value value, ArrayRef<int64_t> position) {
    descriptor =
        LLVM::InsertValueOp::create(builder, loc, descriptor, value, position);
  };
  auto constant = [&](int64_t value) -> Value {
    return LLVM::ConstantOp::create(builder, loc, i64,
                                    builder.getI64IntegerAttr(value));
  };
  insert(pointer, {0});
  insert(pointer, {1});
  insert(constant(0), {2});
  insert(constant(bytes), {3, 0});
  insert(constant(1), {4, 0});
  auto slot = UnrealizedConversionCastOp::create(
      builder, loc, MemRefType::get({bytes}, builder.getI8Type()), descriptor);
  slot->setAttr(PrecDialect::kPeerWindowAttrName, builder.getUnitAttr());
  return slot.getResult(0);
}

/// A transport prec-plan-peer-windows marked, through a peer window:
///
///   %slot = call @precrtCompiledWindow(segment bytes, grid), made a memref
///   %own  = subview of segment `group rank` of %slot
///   <producer writes into %own>            (materialize_in_destination)
///   call @precrtCompiledWindowFence(kind, %slot, count, dtype, grid)
///   <readers read views of %slot in place>
///
/// The received views become tensors (`restrict`, not writable).
struct PeerWindowTransportLowering : OpConversionPattern<TransportOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(TransportOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!op->hasAttr(PrecDialect::kThroughPeerWindowAttrName))
      return rewriter.notifyMatchFailure(op, "not planned for a peer window");
    FailureOr<PeerWindowPlan> plan = planPeerWindow(op);
    if (failed(plan))
      return rewriter.notifyMatchFailure(op, "does not fit a peer window");
    lowerThroughPeerWindow(op, *plan, rewriter);
    return success();
  }

private:
  static void lowerThroughPeerWindow(TransportOp op, PeerWindowPlan &plan,
                                     ConversionPatternRewriter &builder);
};

void PeerWindowTransportLowering::lowerThroughPeerWindow(
    TransportOp op, PeerWindowPlan &plan, ConversionPatternRewriter &builder) {
  Location loc = op.getLoc();
  auto module = op->getParentOfType<ModuleOp>();
  MLIRContext *context = op.getContext();
  builder.setInsertionPoint(plan.producer);
  Type i32 = builder.getI32Type(), i64 = builder.getI64Type(),
       index = builder.getIndexType();
  auto wireType = op.getInput().getType();
  Type element = wireType.getElementType();
  int64_t segment = wireType.getNumElements();
  int64_t n = plan.groupSize;
  int64_t elementBytes = llvm::divideCeil(element.getIntOrFloatBitWidth(), 8);

  GridOperands gridOperands = createGridOperands(builder, loc, op, plan.grid);
  auto pointer = LLVM::LLVMPointerType::get(context);
  func::FuncOp windowDecl = getOrCreateDecl(
      builder, module, PRECRT_COMPILED_WINDOW_SYMBOL,
      builder.getFunctionType({i64, i32, index, i32, index}, {pointer}));
  func::FuncOp rankDecl = getOrCreateDecl(
      builder, module, PRECRT_COMPILED_GROUP_RANK_SYMBOL,
      builder.getFunctionType({i32, index, i32, index}, {i64}));
  func::FuncOp fenceDecl = getOrCreateDecl(
      builder, module, PRECRT_COMPILED_WINDOW_FENCE_SYMBOL,
      builder.getFunctionType({i32, index, i64, i32, i32, index, i32, index},
                              {i32}));

  Value slotPointer =
      func::CallOp::create(
          builder, loc, windowDecl,
          ValueRange{arith::ConstantIntOp::create(builder, loc,
                                                  segment * elementBytes, 64),
                     gridOperands.numDims, gridOperands.shape,
                     gridOperands.numAxes, gridOperands.axes})
          .getResult(0);
  // The runtime owns the window: a memref made of its address, which no
  // deallocation takes for a buffer of the function's (a call's memref
  // result would be).
  Value slotBytes =
      wrapRuntimeBuffer(builder, loc, slotPointer, n * segment * elementBytes);
  Value rank64 = func::CallOp::create(builder, loc, rankDecl,
                                      ValueRange{gridOperands.numDims,
                                                 gridOperands.shape,
                                                 gridOperands.numAxes,
                                                 gridOperands.axes})
                     .getResult(0);
  Value rank = arith::IndexCastOp::create(builder, loc, index, rank64);
  Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
  auto slotType = MemRefType::get({n, segment}, element);
  Value slot =
      memref::ViewOp::create(builder, loc, slotType, slotBytes, zero, {});

  // The producer writes its segment in place.
  auto one = builder.getIndexAttr(1);
  Value own = memref::SubViewOp::create(
      builder, loc,
      memref::SubViewOp::inferRankReducedResultType(
          {segment}, slotType, {ShapedType::kDynamic, 0}, {1, segment}, {1, 1}),
      slot, ArrayRef<OpFoldResult>{rank, builder.getIndexAttr(0)},
      ArrayRef<OpFoldResult>{one, builder.getIndexAttr(segment)},
      ArrayRef<OpFoldResult>{one, one});
  Value producedView = own;
  RankedTensorType producedType =
      cast<RankedTensorType>(plan.producer->getResult(0).getType());
  if (plan.flatten) {
    SmallVector<OpFoldResult> shape;
    for (int64_t extent : producedType.getShape())
      shape.push_back(builder.getIndexAttr(extent));
    producedView = memref::ExpandShapeOp::create(
        builder, loc, producedType.getShape(), own,
        plan.flatten.getReassociationIndices(), shape);
  }
  Value destination = bufferization::ToTensorOp::create(
      builder, loc, producedType, producedView, /*restrict=*/true,
      /*writable=*/true);
  OpOperand *init = plan.producer.getDpsInitOperand(0);
  Operation *empty = init->get().getDefiningOp();
  builder.modifyOpInPlace(plan.producer, [&] { init->set(destination); });
  builder.eraseOp(empty);
  builder.setInsertionPointAfter(plan.producer);
  auto materialize = bufferization::MaterializeInDestinationOp::create(
      builder, loc, plan.producer->getResult(0), producedView);
  materialize.setRestrict(true);
  materialize.setWritable(true);

  // The fence, where the transport was.
  builder.setInsertionPoint(op);
  func::CallOp::create(
      builder, loc, fenceDecl,
      ValueRange{
          arith::ConstantIntOp::create(builder, loc,
                                       getRuntimeTransport(op.getKind()), 32),
          getAlignedPointer(builder, loc, slotBytes),
          arith::ConstantIntOp::create(builder, loc, segment, 64),
          arith::ConstantIntOp::create(
              builder, loc, *getRuntimeDtype(element), 32),
          gridOperands.numDims, gridOperands.shape, gridOperands.numAxes,
          gridOperands.axes});

  auto takeTensor = [&](Value view, RankedTensorType type) {
    return bufferization::ToTensorOp::create(
        builder, loc, type, view, /*restrict=*/true, /*writable=*/false);
  };
  if (op.getKind() == TransportKind::AllGather) {
    // Every segment, one after another: the gathered buffer itself.
    Value flat = memref::ViewOp::create(
        builder, loc, MemRefType::get({n * segment}, element), slotBytes, zero,
        {});
    builder.replaceOp(op, takeTensor(flat, op.getType()));
    return;
  }
  // all_to_all: block `rank` of every segment.
  int64_t chunk = segment / n;
  Value blockOffset = arith::MulIOp::create(
      builder, loc, rank, arith::ConstantIndexOp::create(builder, loc, chunk));
  Value blocks = memref::SubViewOp::create(
      builder, loc, slot,
      ArrayRef<OpFoldResult>{builder.getIndexAttr(0), blockOffset},
      ArrayRef<OpFoldResult>{builder.getIndexAttr(n),
                             builder.getIndexAttr(chunk)},
      ArrayRef<OpFoldResult>{one, one});
  for (tensor::ExpandShapeOp expand : plan.expansions) {
    RankedTensorType type = expand.getResultType();
    Value view = blocks;
    if (type.getRank() != 2 || type.getDimSize(1) != chunk) {
      SmallVector<ReassociationIndices> groups{{0}, {}};
      SmallVector<OpFoldResult> shape;
      for (int64_t d = 0; d < type.getRank(); ++d) {
        if (d > 0)
          groups[1].push_back(d);
        shape.push_back(builder.getIndexAttr(type.getDimSize(d)));
      }
      view = memref::ExpandShapeOp::create(builder, loc, type.getShape(),
                                           blocks, groups, shape);
    }
    builder.replaceOp(expand, takeTensor(view, type));
  }
  builder.eraseOp(op);
}

/// Whether `buffer` is a view of a peer window's slot.
bool isPeerWindowView(Value buffer) {
  while (Operation *def = buffer.getDefiningOp()) {
    if (def->hasAttr(PrecDialect::kPeerWindowAttrName))
      return true;
    if (!isa<memref::ViewOp, memref::SubViewOp, memref::ExpandShapeOp>(def))
      return false;
    buffer = def->getOperand(0);
  }
  return false;
}

struct ConvertPrecToRuntimePass
    : public prec::impl::ConvertPrecToRuntimeBase<ConvertPrecToRuntimePass> {
  using Base::Base;

  void runOnOperation() override {
    // The runtime call takes an element count and the received buffer is
    // allocated here.
    WalkResult shapes = getOperation().walk([](Operation *op) {
      RankedTensorType input, result;
      if (auto transport = dyn_cast<TransportOp>(op)) {
        input = transport.getInput().getType();
        result = transport.getType();
      } else if (auto start = dyn_cast<TransportStartOp>(op)) {
        input = start.getInput().getType();
        result = start.getInFlight().getType().getResult();
      } else {
        return WalkResult::advance();
      }
      if (input.hasStaticShape() && result.hasStaticShape())
        return WalkResult::advance();
      op->emitOpError("expected tensors of static shape, got ")
          << input << " -> " << result;
      return WalkResult::interrupt();
    });
    if (shapes.wasInterrupted())
      return signalPassFailure();

    SmallVector<TransportStartOp> starts;
    getOperation().walk(
        [&](TransportStartOp start) { starts.push_back(start); });
    for (TransportStartOp start : starts)
      if (failed(lowerStartedTransport(start)))
        return signalPassFailure();

    // Planned windows first, then every other op: the module declares the
    // window's entry points before the collective's.
    RewritePatternSet patterns(&getContext());
    populatePrecToRuntimeConversionPatterns(patterns);
    FrozenRewritePatternSet frozen(std::move(patterns));
    ConversionTarget windows(getContext());
    windows.addDynamicallyLegalOp<TransportOp>([](TransportOp op) {
      return !op->hasAttr(PrecDialect::kThroughPeerWindowAttrName);
    });
    windows.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    if (failed(applyPartialConversion(getOperation(), windows, frozen)))
      return signalPassFailure();
    ConversionTarget target(getContext());
    target.addIllegalOp<TransportOp, shard::ProcessLinearIndexOp,
                        shard::ProcessMultiIndexOp, shard::GridShapeOp>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    if (failed(applyPartialConversion(getOperation(), target, frozen)))
      return signalPassFailure();

    // Received buffers are fresh allocations owned by their one `to_tensor`,
    // or views of a peer window's slot.
    SmallVector<bufferization::ToTensorOp> received;
    getOperation().walk([&](bufferization::ToTensorOp toTensor) {
      if (!toTensor.getRestrict())
        return;
      Value buffer = toTensor.getBuffer();
      if (buffer.getDefiningOp<memref::AllocOp>() ||
          (!toTensor.getWritable() && isPeerWindowView(buffer)))
        received.push_back(toTensor);
    });
    for (bufferization::ToTensorOp toTensor : received)
      splitIntoMemberTensors(toTensor);

    // The grids now live on as constant globals; grids nothing refers to
    // any more would only stop translation to LLVM IR.
    ModuleOp module = getOperation();
    for (auto grid : llvm::make_early_inc_range(module.getOps<shard::GridOp>()))
      if (SymbolTable::symbolKnownUseEmpty(grid, module))
        grid.erase();
  }
};

} // namespace

void mlir::prec::populatePrecToRuntimeConversionPatterns(
    RewritePatternSet &patterns) {
  patterns.add<TransportOpLowering, ProcessLinearIndexOpLowering,
               ProcessMultiIndexOpLowering, GridShapeOpLowering>(
      patterns.getContext());
  // Before the runtime's collective, for the transports it fits.
  patterns.add<PeerWindowTransportLowering>(patterns.getContext(),
                                            /*benefit=*/2);
}
