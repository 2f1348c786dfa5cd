//===- BucketCollectives.cpp - few large collectives instead of many ------===//
//
// Independent collectives of one kind, on one group, under one precision
// contract merge into a single collective on a flat buffer laid out as FSDP2
// lays out its foreach all-gather and reduce-scatter buffers: per rank, the
// chunks of every member are contiguous.
//
// The merged collective computes, element by element, what each member did:
// every element keeps its dtypes, divisors and rounding, and every element of
// a reduction stays in the chunk of the rank it belonged to (so a ring sums
// it in the same rank order). Padding only ever meets padding.
//
//===----------------------------------------------------------------------===//

#include "prec/Dialect/Prec/IR/PrecOps.h"
#include "prec/Dialect/Prec/Utils/TensorBuilders.h"
#include "prec/Dialect/Prec/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

#include <tuple>

namespace mlir::prec {
#define GEN_PASS_DEF_PRECBUCKETCOLLECTIVES
#include "prec/Dialect/Prec/Transforms/Passes.h.inc"
} // namespace mlir::prec

using namespace mlir;
using namespace mlir::prec;

namespace {

//===----------------------------------------------------------------------===//
// Which collectives may share a bucket
//===----------------------------------------------------------------------===//

/// Everything that must agree for one collective to compute what several did:
/// the group, and every dtype, divisor and rounding an element goes through.
struct BucketKey {
  explicit BucketKey(OperationName kind) : kind(kind) {}

  OperationName kind;
  FlatSymbolRefAttr grid;
  SmallVector<int16_t> axes; // all axes of the grid when written as none
  Type inputElement, resultElement;
  Type forward, backward, acc;
  // The effective inter_host_dtype of a reduction, the effective
  // grad_inter_host_dtype of a gather, and a gather's
  // grad_inter_host_scaling; an all_reduce's grad_inter_host_dtype and
  // scaling (its gradient is an all_reduce of the merged op's).
  Type interHost, gradInterHost;
  Attribute gradInterHostScaling;
  RoundingMode rounding;
  ReductionKind reduction; // grad_reduction for an all_gather
  double preDivisor = 1.0, postDivisor = 1.0;
  std::optional<ReductionAlgorithm> algorithm;

  bool operator==(const BucketKey &other) const {
    auto fields = [](const BucketKey &key) {
      return std::tie(key.kind, key.grid, key.axes, key.inputElement,
                      key.resultElement, key.forward, key.backward, key.acc,
                      key.interHost, key.gradInterHost,
                      key.gradInterHostScaling, key.rounding,
                      key.reduction,
                      key.preDivisor, key.postDivisor, key.algorithm);
    };
    return fields(*this) == fields(other);
  }
};

/// The bucket key of `op` and the size of its group, or nullopt when `op`
/// stays on its own: gathers and scatters along another axis than 0, dynamic
/// shapes or groups, empty tensors, conversions to scaled (fp8) dtypes, and
/// stochastic rounding (whose random bits may depend on an element's
/// position), and fp8 partial sums between hosts (getRegroupableGroupSize:
/// their scales are their tensor's). Gathers of quantized fp8 data (and of
/// block scales) that move unconverted, as prec-materialize-scales leaves
/// them, are bucketed.
std::optional<std::pair<BucketKey, int64_t>>
getBucketKey(CollectiveOpInterface op, SymbolTableCollection &tables) {
  if (auto gather = dyn_cast<AllGatherOp>(op.getOperation())) {
    if (gather.getGatherAxis() != 0)
      return std::nullopt;
  } else if (auto scatter = dyn_cast<ReduceScatterOp>(op.getOperation())) {
    if (scatter.getScatterAxis() != 0)
      return std::nullopt;
  } else if (!isa<AllReduceOp>(op.getOperation())) {
    return std::nullopt;
  }

  RegroupRequirements requirements;
  requirements.nonEmpty = true;
  std::optional<int64_t> groupSize =
      getRegroupableGroupSize(op, tables, requirements);
  if (!groupSize)
    return std::nullopt;

  RankedTensorType inputType = op.getInput().getType();
  RankedTensorType resultType = op.getResult().getType();

  BucketKey key(op->getName());
  key.grid = op.getGridAttr();
  key.inputElement = inputType.getElementType();
  key.resultElement = resultType.getElementType();
  key.forward = op.getEffectiveForwardDtype();
  key.backward = op.getEffectiveBackwardDtype();
  key.acc = op.getEffectiveAccDtype();
  bool movesUnconverted = !op.isReduction() &&
                          key.inputElement == key.forward &&
                          key.resultElement == key.forward &&
                          key.backward == key.forward;
  if (!movesUnconverted &&
      llvm::any_of(
          ArrayRef<Type>{key.forward, key.backward, key.acc},
          [](Type type) {
            return type && (isScaledLowPrecisionType(type) ||
                            isa<Float8E8M0FNUType>(type));
          }))
    return std::nullopt;
  key.rounding = RoundingMode::NearestEven;
  if (op.isReduction()) {
    key.reduction = *op.getReduction();
    ReductionDivisors divisors = getExplicitDivisors(op);
    key.preDivisor = divisors.pre;
    key.postDivisor = divisors.post;
    key.algorithm = getReductionAlgorithm(op);
    // The merged op is a clone of the first member: equal effective dtypes
    // keep every member's.
    key.interHost = getEffectiveInterHostDtype(op);
    if (auto allReduce = dyn_cast<AllReduceOp>(op.getOperation())) {
      if (TypeAttr dtype = allReduce.getGradInterHostDtypeAttr())
        key.gradInterHost = dtype.getValue();
      key.gradInterHostScaling = allReduce.getGradInterHostScalingAttr();
    }
  } else {
    auto gather = cast<AllGatherOp>(op.getOperation());
    key.reduction = gather.getGradReduction();
    // The merged gather's gradient is one reduce_scatter.
    key.interHost = getEffectiveGradInterHostDtype(gather);
    key.gradInterHostScaling = gather.getGradInterHostScalingAttr();
  }

  key.axes.assign(op.getGridAxes().begin(), op.getGridAxes().end());
  if (key.axes.empty()) {
    auto grid = tables.lookupNearestSymbolFrom<shard::GridOp>(op, key.grid);
    for (int16_t axis = 0; axis < grid.getRank(); ++axis)
      key.axes.push_back(axis);
  }
  return std::make_pair(std::move(key), *groupSize);
}

//===----------------------------------------------------------------------===//
// Layout
//===----------------------------------------------------------------------===//

/// The bucket is a [rows, columns] matrix whose row r is what the merged
/// collective sends to (reduce_scatter) or reduces with the chunk of (ring
/// all_reduce) rank r; an all_gather sends a single row. A member of `count`
/// elements is cut into `rows` chunks as the runtime cuts a buffer (the first
/// `count % rows` chunks one element longer) and occupies
/// `ceil(count / rows)` columns, zero padded.
struct ChunkLayout {
  int64_t rows;
  int64_t count;

  int64_t base() const { return count / rows; }
  int64_t longer() const { return count % rows; }
  int64_t columns() const { return base() + (longer() ? 1 : 0); }
};

int64_t getRows(Operation *op, int64_t groupSize) {
  return isa<AllGatherOp>(op) ? 1 : groupSize;
}

SmallVector<OpFoldResult> indexAttrs(OpBuilder &b, ArrayRef<int64_t> values) {
  return llvm::map_to_vector(values, [&](int64_t value) -> OpFoldResult {
    return b.getIndexAttr(value);
  });
}

Value extractSlice(OpBuilder &b, Location loc, Value source,
                   ArrayRef<int64_t> offsets, ArrayRef<int64_t> sizes) {
  if (llvm::all_of(offsets, [](int64_t offset) { return offset == 0; }) &&
      cast<RankedTensorType>(source.getType()).getShape() == sizes)
    return source;
  SmallVector<int64_t> strides(offsets.size(), 1);
  return tensor::ExtractSliceOp::create(b, loc, source, indexAttrs(b, offsets),
                                        indexAttrs(b, sizes),
                                        indexAttrs(b, strides));
}

Value insertSlice(OpBuilder &b, Location loc, Value source, Value dest,
                  ArrayRef<int64_t> offsets) {
  auto sizes = cast<RankedTensorType>(source.getType()).getShape();
  SmallVector<int64_t> strides(offsets.size(), 1);
  return tensor::InsertSliceOp::create(
      b, loc, source, dest, indexAttrs(b, offsets), indexAttrs(b, sizes),
      indexAttrs(b, strides));
}

/// Writes the flat `member` into columns [column, column + columns()) of the
/// 2-D `bucket`, chunk r into row r.
Value insertChunks(OpBuilder &b, Location loc, Value member, Value bucket,
                   const ChunkLayout &layout, int64_t column) {
  Type element = cast<RankedTensorType>(member.getType()).getElementType();
  int64_t longRows = layout.longer(), longWidth = layout.base() + 1;
  int64_t shortRows = layout.rows - longRows, shortWidth = layout.base();
  if (longRows == 0)
    return insertSlice(
        b, loc,
        reshapeTensor(b, loc, member,
                      RankedTensorType::get({shortRows, shortWidth}, element)),
        bucket, {0, column});
  Value longChunks = reshapeTensor(
      b, loc, extractSlice(b, loc, member, {0}, {longRows * longWidth}),
      RankedTensorType::get({longRows, longWidth}, element));
  bucket = insertSlice(b, loc, longChunks, bucket, {0, column});
  if (shortWidth == 0)
    return bucket;
  Value shortChunks =
      reshapeTensor(b, loc,
                    extractSlice(b, loc, member, {longRows * longWidth},
                                 {shortRows * shortWidth}),
                    RankedTensorType::get({shortRows, shortWidth}, element));
  return insertSlice(b, loc, shortChunks, bucket, {longRows, column});
}

/// The inverse of insertChunks: the flat member read back from `bucket`.
Value extractChunks(OpBuilder &b, Location loc, Value bucket,
                    const ChunkLayout &layout, int64_t column) {
  Type element = cast<RankedTensorType>(bucket.getType()).getElementType();
  auto flatType = RankedTensorType::get({layout.count}, element);
  int64_t longRows = layout.longer(), longWidth = layout.base() + 1;
  int64_t shortRows = layout.rows - longRows, shortWidth = layout.base();
  if (longRows == 0)
    return reshapeTensor(
        b, loc,
        extractSlice(b, loc, bucket, {0, column}, {shortRows, shortWidth}),
        flatType);
  auto longType = RankedTensorType::get({longRows * longWidth}, element);
  Value longChunks = reshapeTensor(
      b, loc, extractSlice(b, loc, bucket, {0, column}, {longRows, longWidth}),
      longType);
  if (shortWidth == 0)
    return longChunks;
  auto shortType = RankedTensorType::get({shortRows * shortWidth}, element);
  Value shortChunks = reshapeTensor(
      b, loc,
      extractSlice(b, loc, bucket, {longRows, column}, {shortRows, shortWidth}),
      shortType);
  Value flat = tensor::EmptyOp::create(b, loc, flatType.getShape(), element);
  flat = insertSlice(b, loc, longChunks, flat, {0});
  return insertSlice(b, loc, shortChunks, flat, {longRows * longWidth});
}

//===----------------------------------------------------------------------===//
// Buckets
//===----------------------------------------------------------------------===//

struct Bucket {
  BucketKey key;
  int64_t groupSize;
  SmallVector<CollectiveOpInterface> members;
  int64_t wireBytes = 0;
  /// Where the merged collective would go (see findInsertionPoint), and the
  /// first op of the block that uses a member; kept as members join, so that
  /// growing a bucket costs the new member's uses only.
  Operation *insertionPoint = nullptr;
  Operation *firstUse = nullptr;
  DenseSet<Operation *> memberOps;
};

/// The bytes of the flat buffer the merged collective reads, in its wire
/// dtype, that `op` contributes.
int64_t getWireBytes(CollectiveOpInterface op, const BucketKey &key,
                     int64_t groupSize) {
  ChunkLayout layout{getRows(op, groupSize),
                     op.getInput().getType().getNumElements()};
  int64_t elements = layout.rows * layout.columns();
  return elements *
         llvm::divideCeil(cast<FloatType>(key.forward).getWidth(), 8);
}

/// The op of `block` that is or contains `op`.
Operation *getAncestorIn(Block *block, Operation *op) {
  return block->findAncestorOpInBlock(*op);
}

/// The first op of `block` that uses the result of `op` (or holds a use),
/// null when none does; `earliest` if that comes first.
Operation *findFirstUse(Block *block, Operation *op, Operation *earliest) {
  for (Operation *user : op->getUsers()) {
    Operation *ancestor = getAncestorIn(block, user);
    if (ancestor && (!earliest || ancestor->isBeforeInBlock(earliest)))
      earliest = ancestor;
  }
  return earliest;
}

/// Whether `member` can join `bucket` (whose members come before it in
/// their block) such that the merged collective has a place: before the
/// first member, or later if an input is defined after it, and before any
/// use of a member. A member that uses another's result never can. Updates
/// the bucket's insertion point and first use when it can.
bool tryJoin(Bucket &bucket, CollectiveOpInterface member) {
  Block *block = member->getBlock();
  Operation *point =
      bucket.insertionPoint ? bucket.insertionPoint : member.getOperation();
  Operation *def = member.getInput().getDefiningOp();
  if (def && def->getBlock() == block) {
    if (bucket.memberOps.contains(def))
      return false;
    if (!def->isBeforeInBlock(point))
      point = def->getNextNode();
  }
  Operation *firstUse = findFirstUse(block, member, bucket.firstUse);
  if (firstUse && (firstUse->isBeforeInBlock(point) || firstUse == member))
    return false;
  bucket.insertionPoint = point;
  bucket.firstUse = firstUse;
  bucket.memberOps.insert(member);
  return true;
}

/// Where the merged collective of `members` (in block order) can go, as
/// tryJoin decides; null when some use of a member comes before that point
/// or is itself a member, i.e. when the members are not independent.
Operation *findInsertionPoint(ArrayRef<CollectiveOpInterface> members) {
  Bucket bucket{BucketKey(members.front()->getName()), 0, {}};
  for (CollectiveOpInterface member : members) {
    if (!tryJoin(bucket, member))
      return nullptr;
    bucket.members.push_back(member);
  }
  return bucket.insertionPoint;
}

/// Replaces the members of `bucket` by one collective on a flat buffer. The
/// members stay in place, without uses, for the caller to erase. Fails, and
/// leaves the bucket alone, when an earlier merge made it infeasible.
LogicalResult mergeBucket(Bucket &bucket) {
  Operation *point = findInsertionPoint(bucket.members);
  if (!point)
    return failure();
  CollectiveOpInterface first = bucket.members.front();
  MLIRContext *context = first->getContext();
  OpBuilder b(point);
  Location loc =
      FusedLoc::get(context, llvm::map_to_vector(bucket.members,
                                                 [](CollectiveOpInterface op) {
                                                   return op.getLoc();
                                                 }));
  int64_t groupSize = bucket.groupSize;
  int64_t rows = getRows(first, groupSize);

  SmallVector<ChunkLayout> layouts;
  SmallVector<int64_t> columns;
  int64_t totalColumns = 0;
  for (CollectiveOpInterface member : bucket.members) {
    ChunkLayout layout{rows, member.getInput().getType().getNumElements()};
    layouts.push_back(layout);
    columns.push_back(totalColumns);
    totalColumns += layout.columns();
  }

  // Pack: every member's chunks into its own [rows, columns] block (zero
  // padded where its chunks are uneven), the blocks side by side in one
  // tensor.concat. A chain of insert_slices into one bucket tensor would
  // make one-shot bufferization's conflict analysis superlinear in the
  // number of members.
  Type inputElement = bucket.key.inputElement;
  Value zero;
  SmallVector<Value> blocks;
  for (auto [member, layout] : llvm::zip_equal(bucket.members, layouts)) {
    auto flatType = RankedTensorType::get({layout.count}, inputElement);
    Value flat = reshapeTensor(b, loc, member.getInput(), flatType);
    auto blockType =
        RankedTensorType::get({rows, layout.columns()}, inputElement);
    if (layout.longer() == 0) {
      blocks.push_back(reshapeTensor(b, loc, flat, blockType));
      continue;
    }
    if (!zero)
      zero = arith::ConstantOp::create(b, loc, inputElement,
                                       b.getZeroAttr(inputElement));
    Value block =
        tensor::EmptyOp::create(b, loc, blockType.getShape(), inputElement);
    block = linalg::FillOp::create(b, loc, zero, block).getResult(0);
    blocks.push_back(insertChunks(b, loc, flat, block, layout, /*column=*/0));
  }
  Value packed =
      blocks.size() == 1
          ? blocks.front()
          : tensor::ConcatOp::create(b, loc, /*dim=*/1, blocks).getResult();
  int64_t sent = rows * totalColumns;
  Value flatInput = reshapeTensor(b, loc, packed,
                                  RankedTensorType::get({sent}, inputElement));

  // The merged collective: the first member with the flat buffer and its
  // dtypes spelled out.
  int64_t resultSize = isa<AllGatherOp>(first)       ? sent * groupSize
                       : isa<ReduceScatterOp>(first) ? sent / groupSize
                                                     : sent;
  Type resultElement = bucket.key.resultElement;
  Operation *merged = b.clone(*first);
  merged->setLoc(loc);
  merged->setOperand(0, flatInput);
  merged->getResult(0).setType(
      RankedTensorType::get({resultSize}, resultElement));
  auto collective = cast<CollectiveOpInterface>(merged);
  collective.setForwardDtypeAttr(TypeAttr::get(bucket.key.forward));
  collective.setBackwardDtypeAttr(TypeAttr::get(bucket.key.backward));
  if (bucket.key.acc)
    collective.setAccDtypeAttr(TypeAttr::get(bucket.key.acc));
  Value result = merged->getResult(0);

  // Unpack: every member's result from its columns. A gathered or reduced
  // buffer is read as [N, columns]; a scattered one is this rank's row.
  Value received = result;
  if (!isa<ReduceScatterOp>(first))
    received = reshapeTensor(
        b, loc, result,
        RankedTensorType::get({groupSize, totalColumns}, resultElement));
  for (auto [member, layout, column] :
       llvm::zip_equal(bucket.members, layouts, columns)) {
    Value flat;
    if (isa<AllGatherOp>(first))
      // Its [N, count] block, read row by row, is its shards concatenated
      // along dim 0.
      flat = extractSlice(b, loc, received, {0, column},
                          {groupSize, layout.count});
    else if (isa<ReduceScatterOp>(first))
      flat = extractSlice(b, loc, received, {column}, {layout.columns()});
    else
      flat = extractChunks(b, loc, received, layout, column);
    Value replacement =
        reshapeTensor(b, loc, flat, member.getResult().getType());
    member.getResult().replaceAllUsesWith(replacement);
  }
  return success();
}

struct BucketCollectivesPass
    : public prec::impl::PrecBucketCollectivesBase<BucketCollectivesPass> {
  using Base::Base;

  void runOnOperation() override {
    if (maxBucketBytes < 0) {
      emitError(getOperation().getLoc(),
                "expected max-bucket-bytes >= 0 (0: no cap), got ")
          << static_cast<int64_t>(maxBucketBytes);
      return signalPassFailure();
    }
    SmallVector<Block *> blocks;
    getOperation()->walk([&](Block *block) { blocks.push_back(block); });
    SymbolTableCollection tables;
    SmallVector<Operation *> merged;
    for (Block *block : blocks)
      bucketBlock(*block, tables, merged);
    for (Operation *op : merged)
      op->erase();
  }

  /// Groups the collectives of `block` in order of appearance: each joins
  /// the open bucket of its key while the members stay independent and the
  /// bucket stays under the byte cap, and starts a new bucket otherwise.
  void bucketBlock(Block &block, SymbolTableCollection &tables,
                   SmallVectorImpl<Operation *> &merged) {
    SmallVector<Bucket, 4> open, closed;
    for (Operation &op : block) {
      auto collective = dyn_cast<CollectiveOpInterface>(&op);
      if (!collective)
        continue;
      auto keyAndSize = getBucketKey(collective, tables);
      if (!keyAndSize)
        continue;
      auto &[key, groupSize] = *keyAndSize;
      int64_t bytes = getWireBytes(collective, key, groupSize);
      auto *bucket = llvm::find_if(open, [&, &key = key](const Bucket &b) {
        return b.key == key && b.groupSize == groupSize;
      });
      if (bucket != open.end()) {
        // The merged buffer, and a gather's result of group size times it,
        // must stay addressable however large the members are.
        int64_t mergedBytes, gatheredBytes;
        bool fits =
            !llvm::AddOverflow(bucket->wireBytes, bytes, mergedBytes) &&
            !llvm::MulOverflow(mergedBytes, groupSize, gatheredBytes) &&
            (maxBucketBytes <= 0 || mergedBytes <= maxBucketBytes);
        if (fits && tryJoin(*bucket, collective)) {
          bucket->members.push_back(collective);
          bucket->wireBytes += bytes;
          continue;
        }
        closed.push_back(std::move(*bucket));
        open.erase(bucket);
      }
      Bucket fresh{std::move(key), groupSize, {}, bytes};
      tryJoin(fresh, collective);
      fresh.members.push_back(collective);
      open.push_back(std::move(fresh));
    }
    for (Bucket &bucket : open)
      closed.push_back(std::move(bucket));
    // Merge in the order of the first members, so that a bucket fed by
    // another usually comes after it; one that an earlier merge made
    // infeasible (its input now defined after a use) stays as it is.
    llvm::stable_sort(closed, [](const Bucket &lhs, const Bucket &rhs) {
      return lhs.members.front()->isBeforeInBlock(rhs.members.front());
    });
    for (Bucket &bucket : closed) {
      if (bucket.members.size() < 2)
        continue;
      if (failed(mergeBucket(bucket)))
        continue;
      for (CollectiveOpInterface member : bucket.members)
        merged.push_back(member);
    }
  }
};

} // namespace
