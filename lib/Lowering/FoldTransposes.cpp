//===- FoldTransposes.cpp - transposes into the gemms that read them ------===//
//
// torch-mlir lowers nn.Linear to a transpose of the weight and a matmul, and
// the generated backward transposes the weight (or its f32 extension) back
// for the matmul of the input's gradient. Each transpose is a strided copy
// of a whole weight, and the gemm reads any operand layout through its
// strides for free. On tensors, every contraction that reads a transpose
// (through exact extensions and more transposes) reads the source instead,
// its indexing map composed with the permutation; the transposes are then
// dead and never get a buffer.
//
// The weight's gradient comes out the other way round: a contraction in the
// transposed layout, rounded to the weight's type, then transposed. A
// transpose of a contraction's result (through elementwise kernels) is
// computed by the contraction itself, its output map permuted: the gemm
// writes a transposed output in place as the product of the transposed
// inputs.
//
//===----------------------------------------------------------------------===//

#include "prec/Conversion/ContractionsToRuntime/Gemm.h"
#include "prec/Lowering/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"

namespace mlir::prec {
#define GEN_PASS_DEF_PRECFOLDTRANSPOSES
#include "prec/Lowering/Passes.h.inc"
} // namespace mlir::prec

using namespace mlir;
using namespace mlir::prec;

namespace {

/// Whether `op` only moves its input's elements, extending them exactly at
/// most: one tensor input and output, parallel loops indexing both by
/// permutations, a body that yields the input element or its `arith.extf`.
/// `linalg.transpose` is one, and so is the extension of a weight to f32.
bool isReindexing(linalg::LinalgOp op) {
  if (!op.hasPureTensorSemantics() || op.getNumDpsInputs() != 1 ||
      op.getNumDpsInits() != 1 || op->getNumResults() != 1 ||
      op.getNumLoops() != op.getNumParallelLoops() ||
      !llvm::all_of(op.getIndexingMapsArray(),
                    [](AffineMap map) { return map.isPermutation(); }))
    return false;
  Block *body = op.getBlock();
  Value yielded = body->getTerminator()->getOperand(0);
  size_t ops = 1;
  if (auto extension = yielded.getDefiningOp<arith::ExtFOp>()) {
    yielded = extension.getIn();
    ++ops;
  }
  return yielded == body->getArgument(0) && body->getOperations().size() == ops;
}

/// The element type a reindexing op extends from, or null.
Type extendedType(linalg::LinalgOp reindexing) {
  Block *body = reindexing.getBlock();
  if (body->getTerminator()->getOperand(0).getDefiningOp<arith::ExtFOp>())
    return body->getArgument(0).getType();
  return {};
}

/// The input that result `result` of `producer` copies, extended exactly at
/// most, and the type it extends from (null if none): an all-parallel
/// kernel that yields, for that result, one of its input elements or that
/// element's `arith.extf`, both indexed by permutations. Such a kernel may
/// compute other results too (the fuser merges a widening read by a gemm
/// with the one a reduction reads); a gemm can read the input instead, and
/// the kernel computes its other results as before.
std::optional<std::pair<OpOperand *, Type>>
copiedInput(linalg::LinalgOp producer, OpResult result) {
  if (!producer.hasPureTensorSemantics() ||
      producer.getNumLoops() != producer.getNumParallelLoops() ||
      !producer.getIndexingMapMatchingResult(result).isPermutation())
    return std::nullopt;
  Block *body = producer.getBlock();
  Value yielded = body->getTerminator()->getOperand(result.getResultNumber());
  Type extendedFrom;
  if (auto extension = yielded.getDefiningOp<arith::ExtFOp>()) {
    yielded = extension.getIn();
    extendedFrom = yielded.getType();
  }
  auto argument = dyn_cast<BlockArgument>(yielded);
  if (!argument || argument.getOwner() != body ||
      argument.getArgNumber() >= producer.getNumDpsInputs())
    return std::nullopt;
  OpOperand *input = producer.getDpsInputOperand(argument.getArgNumber());
  if (!producer.getMatchingIndexingMap(input).isPermutation())
    return std::nullopt;
  return std::make_pair(input, extendedFrom);
}

/// Whether `use` is an input of a contraction the gemm computes that can
/// read the value's source instead, extended from `extendedFrom` (if set)
/// in its body: the gemm takes a narrow input only into an f32 output.
bool isGemmRead(OpOperand &use, Type extendedFrom) {
  auto op = dyn_cast<linalg::LinalgOp>(use.getOwner());
  if (!op || !op.hasPureTensorSemantics() || !op.isDpsInput(&use) ||
      failed(inferGemmLoops(op)))
    return false;
  if (!extendedFrom)
    return true;
  Type output = getElementTypeOrSelf(op.getDpsInitOperand(0)->get());
  return output.isF32() && getElementTypeOrSelf(use.get()).isF32() &&
         gemmDtype(extendedFrom, /*input=*/true) >= 0;
}

/// Whether every read of `value` is a gemm's or a reindexing op's whose
/// result is read the same way: then all of them can read what `value` was
/// computed from, and nothing needs `value` itself. One extension at most
/// along each path, from `extendedFrom` if set.
bool isOnlyReadByGemms(Value value, Type extendedFrom) {
  if (value.use_empty())
    return false;
  for (OpOperand &use : value.getUses()) {
    auto reader = dyn_cast<linalg::LinalgOp>(use.getOwner());
    if (reader && isReindexing(reader)) {
      Type extension = extendedType(reader);
      if ((extension && extendedFrom) ||
          !isOnlyReadByGemms(reader->getResult(0),
                             extension ? extension : extendedFrom))
        return false;
      continue;
    }
    if (!isGemmRead(use, extendedFrom))
      return false;
  }
  return true;
}

/// A linalg.generic with `op`'s body, iterators and discardable attributes
/// (its kernel markers) on other operands, maps and result types, created
/// before `op`.
linalg::GenericOp cloneAsGeneric(RewriterBase &rewriter, linalg::LinalgOp op,
                                 TypeRange resultTypes, ValueRange inputs,
                                 ValueRange inits, ArrayRef<AffineMap> maps) {
  rewriter.setInsertionPoint(op);
  auto generic =
      linalg::GenericOp::create(rewriter, op.getLoc(), resultTypes, inputs,
                                inits, maps, op.getIteratorTypesArray());
  for (NamedAttribute attribute : op->getDiscardableAttrs())
    generic->setAttr(attribute.getName(), attribute.getValue());
  rewriter.cloneRegionBefore(op->getRegion(0), generic.getRegion(),
                             generic.getRegion().end());
  return generic;
}

/// Whether `op` is an elementwise kernel a transpose of its result can move
/// above: one input and one output, every map the identity, every loop
/// parallel, no use of the loops' indices, a fresh output (`tensor.empty`),
/// and no reader but the next op of the chain.
bool isElementwiseLink(linalg::GenericOp op) {
  return op.hasPureTensorSemantics() && op.getNumDpsInputs() == 1 &&
         op.getNumDpsInits() == 1 && op->getNumResults() == 1 &&
         op->getResult(0).hasOneUse() &&
         op.getNumLoops() == op.getNumParallelLoops() &&
         llvm::all_of(op.getIndexingMapsArray(),
                      [](AffineMap map) { return map.isIdentity(); }) &&
         op.getDpsInits()[0].getDefiningOp<tensor::EmptyOp>() &&
         op.getBlock()->getOps<linalg::IndexOp>().empty();
}

/// The value `init` (a contraction's initial output: a splat constant, or
/// a fill of a fresh tensor) holds, as a tensor of `type`; null if it is
/// something else.
Value buildTransposedInit(RewriterBase &rewriter, Value init,
                          RankedTensorType type) {
  Location loc = init.getLoc();
  DenseElementsAttr splat;
  if (matchPattern(init, m_Constant(&splat)) && splat.isSplat())
    return arith::ConstantOp::create(rewriter, loc, type,
                                     splat.resizeSplat(type));
  auto fill = init.getDefiningOp<linalg::FillOp>();
  if (!fill || !fill.getDpsInits()[0].getDefiningOp<tensor::EmptyOp>())
    return {};
  Value empty = tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                        type.getElementType());
  return linalg::FillOp::create(rewriter, loc, fill.getInputs(), empty)
      .getResult(0);
}

/// `transpose` of a contraction's result, through elementwise kernels,
/// computed by the contraction in the transposed layout: its output map
/// permuted, the kernels on the transposed shape. Returns whether it
/// rewrote.
bool foldTransposeOfContraction(RewriterBase &rewriter,
                                linalg::TransposeOp transpose) {
  SmallVector<linalg::GenericOp> chain; // from the transpose up
  Value source = transpose.getInput();
  while (auto link = source.getDefiningOp<linalg::GenericOp>()) {
    if (!isElementwiseLink(link))
      break;
    chain.push_back(link);
    source = link.getDpsInputs()[0];
  }
  auto contraction = source.getDefiningOp<linalg::LinalgOp>();
  // Static shapes: the transposed tensors are made without size operands.
  if (!contraction || !contraction.hasPureTensorSemantics() ||
      contraction->getNumResults() != 1 || !source.hasOneUse() ||
      !transpose.getInit().getType().hasStaticShape() ||
      failed(inferGemmLoops(contraction)))
    return false;

  ArrayRef<int64_t> permutation = transpose.getPermutation();
  auto permuted = [&](RankedTensorType type) {
    SmallVector<int64_t> shape;
    for (int64_t dimension : permutation)
      shape.push_back(type.getDimSize(dimension));
    return RankedTensorType::get(shape, type.getElementType());
  };
  auto resultType = cast<RankedTensorType>(source.getType());
  rewriter.setInsertionPoint(contraction);
  Value init = buildTransposedInit(
      rewriter, contraction.getDpsInits()[0], permuted(resultType));
  if (!init)
    return false;

  // Output dimension i of the transpose is its input's dimension
  // permutation[i]: so is the contraction's new output map.
  SmallVector<AffineMap> maps = contraction.getIndexingMapsArray();
  AffineMap output = maps.back();
  SmallVector<AffineExpr> results;
  for (int64_t dimension : permutation)
    results.push_back(output.getResult(dimension));
  maps.back() = AffineMap::get(output.getNumDims(), 0, results,
                               rewriter.getContext());
  auto generic =
      cloneAsGeneric(rewriter, contraction, TypeRange{init.getType()},
                     contraction.getDpsInputs(), ValueRange{init}, maps);

  Value value = generic->getResult(0);
  for (linalg::GenericOp link : llvm::reverse(chain)) {
    rewriter.setInsertionPoint(link);
    auto type = permuted(cast<RankedTensorType>(link->getResultTypes()[0]));
    Value empty = tensor::EmptyOp::create(rewriter, link.getLoc(),
                                          type.getShape(),
                                          type.getElementType());
    value = cloneAsGeneric(rewriter, link, TypeRange{type}, ValueRange{value},
                           ValueRange{empty}, link.getIndexingMapsArray())
                ->getResult(0);
  }
  rewriter.replaceOp(transpose, value);
  for (linalg::GenericOp link : chain)
    rewriter.eraseOp(link);
  rewriter.eraseOp(contraction);
  return true;
}

/// What input `index` of a contraction reads once folded.
struct FoldedInput {
  unsigned index;
  Value source;
  AffineMap map;
  /// The type the contraction's body extends the source from, or null.
  Type extendedFrom;
};

/// Rewrites `op` as a linalg.generic that reads the folded inputs, with the
/// same body (extending where an extension was folded).
void rewriteContraction(RewriterBase &rewriter, linalg::LinalgOp op,
                        ArrayRef<FoldedInput> folded) {
  SmallVector<Value> inputs = op.getDpsInputs();
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  for (const FoldedInput &input : folded) {
    inputs[input.index] = input.source;
    maps[input.index] = input.map;
  }
  auto generic = cloneAsGeneric(rewriter, op, op->getResultTypes(), inputs,
                                op.getDpsInits(), maps);
  Block &body = generic.getRegion().front();
  rewriter.setInsertionPointToStart(&body);
  for (const FoldedInput &input : folded) {
    if (!input.extendedFrom)
      continue;
    BlockArgument argument = body.getArgument(input.index);
    Type wide = argument.getType();
    argument.setType(input.extendedFrom);
    auto extension =
        arith::ExtFOp::create(rewriter, op.getLoc(), wide, argument);
    rewriter.replaceAllUsesExcept(argument, extension, extension);
  }
  rewriter.replaceOp(op, generic->getResults());
}

struct PrecFoldTransposesPass
    : public prec::impl::PrecFoldTransposesBase<PrecFoldTransposesPass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    // Transposes of results first: a contraction in the transposed layout
    // may then read transposes of its inputs, folded below.
    SmallVector<linalg::TransposeOp> transposes;
    getOperation()->walk(
        [&](linalg::TransposeOp op) { transposes.push_back(op); });
    for (linalg::TransposeOp transpose : transposes)
      if (transpose.hasPureTensorSemantics())
        foldTransposeOfContraction(rewriter, transpose);

    // Every decision on the program as it is, then every rewrite: a
    // transpose folds only where all its readers do.
    SmallVector<std::pair<linalg::LinalgOp, SmallVector<FoldedInput>>> plans;
    SetVector<Operation *> foldedOps;
    getOperation()->walk([&](linalg::LinalgOp op) {
      if (!op.hasPureTensorSemantics() || failed(inferGemmLoops(op)))
        return;
      SmallVector<FoldedInput> folded;
      for (OpOperand *operand : op.getDpsInputOperands()) {
        FoldedInput input{operand->getOperandNumber(), operand->get(),
                          op.getMatchingIndexingMap(operand), Type()};
        while (auto producer = input.source.getDefiningOp<linalg::LinalgOp>()) {
          auto result = cast<OpResult>(input.source);
          OpOperand *source;
          Type extension;
          if (isReindexing(producer)) {
            // Folded where all its readers fold, then dead.
            extension = extendedType(producer);
            if ((extension && input.extendedFrom) ||
                !isOnlyReadByGemms(result, extension))
              break;
            source = producer.getDpsInputOperand(0);
            foldedOps.insert(producer);
          } else if (auto copied = copiedInput(producer, result)) {
            // Read from its input by this gemm; computed for its others.
            std::tie(source, extension) = *copied;
            if ((extension && input.extendedFrom) ||
                (extension && !isGemmRead(*operand, extension)))
              break;
          } else {
            break;
          }
          // The producer's result, indexed as its loops through the inverse
          // of its output's map, is its input through its input's map.
          input.map = producer.getMatchingIndexingMap(source)
                          .compose(inversePermutation(
                              producer.getIndexingMapMatchingResult(result)))
                          .compose(input.map);
          if (extension)
            input.extendedFrom = extension;
          input.source = source->get();
        }
        if (input.source != operand->get())
          folded.push_back(input);
      }
      if (!folded.empty())
        plans.emplace_back(op, std::move(folded));
    });

    for (auto &[op, folded] : plans)
      rewriteContraction(rewriter, op, folded);
    // The folded ops are dead now, and so are their destinations; a chain
    // goes from its last reader up.
    SmallVector<Operation *> dead = foldedOps.takeVector();
    while (!dead.empty()) {
      size_t before = dead.size();
      llvm::erase_if(dead, [&](Operation *op) {
        if (!op->use_empty())
          return false;
        SmallVector<Value> destinations =
            cast<linalg::LinalgOp>(op).getDpsInits();
        rewriter.eraseOp(op);
        for (Value destination : destinations)
          if (Operation *defining = destination.getDefiningOp();
              defining && isOpTriviallyDead(defining))
            rewriter.eraseOp(defining);
        return true;
      });
      assert(dead.size() < before && "a folded op still has readers");
      (void)before;
    }
  }
};

} // namespace
