//===- TensorGradients.cpp - gradients of tensor reshapes and slices ------===//
//
// The rules of the tensor ops that move elements without arithmetic, kept in
// one table: reshapes, slices, concatenation and padding. Each is linear, so
// its rule is its transpose: a reshape back, the gradient of a slice placed
// into zeros, the gradient of a whole cut into the parts' slices. Gradients
// keep the element type of the result gradient; prec-generate-backward
// rounds them to the operands' gradient dtypes.
//
//===----------------------------------------------------------------------===//

#include "prec/Gradients/UpstreamGradients.h"

#include "prec/Gradients/PrecGradients.h"
#include "prec/Dialect/Prec/IR/PrecOps.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/StringMap.h"

using namespace mlir;
using namespace mlir::prec;

namespace {

/// A rule: the gradients of `op`'s operands (null for none) from the
/// gradient `g` of its (single) result.
using TensorRule = LogicalResult (*)(Operation *op, OpBuilder &builder,
                                     Value g, SmallVectorImpl<Value> &grads);

Type elementTypeOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getElementType();
}

/// `shaped`'s type with `g`'s element type.
RankedTensorType gradientTypeOf(Value shaped, Value g) {
  return cast<RankedTensorType>(shaped.getType()).clone(elementTypeOf(g));
}

/// `g` written into zeros shaped like `like` at `offsets`, `sizes` and
/// `strides` (the transpose of extracting that slice).
Value insertIntoZeros(OpBuilder &builder, Location loc, Value g, Value like,
                      ArrayRef<OpFoldResult> offsets,
                      ArrayRef<OpFoldResult> sizes,
                      ArrayRef<OpFoldResult> strides) {
  Value zeros = createSplatLike(builder, loc, like, elementTypeOf(g), 0.0);
  return tensor::InsertSliceOp::create(builder, loc, g, zeros, offsets, sizes,
                                       strides);
}

/// The part of `g` at `offsets`, `sizes` and `strides`, of `like`'s shape
/// (the transpose of inserting a value of that shape there).
Value extractPart(OpBuilder &builder, Location loc, Value g, Value like,
                  ArrayRef<OpFoldResult> offsets, ArrayRef<OpFoldResult> sizes,
                  ArrayRef<OpFoldResult> strides) {
  return tensor::ExtractSliceOp::create(builder, loc, gradientTypeOf(like, g),
                                        g, offsets, sizes, strides);
}

// clang-format off
/// op -> its operands' gradients from its result's. The offsets, sizes and
/// strides of slices are indices and get none.
struct TensorRuleEntry {
  StringLiteral op;
  TensorRule gradients;
};

const TensorRuleEntry kTensorRules[] = {
  // A reshape's gradient is the result gradient reshaped back.
  {"tensor.expand_shape", [](Operation *op, OpBuilder &b, Value g,
                             SmallVectorImpl<Value> &grads) -> LogicalResult {
    auto expand = cast<tensor::ExpandShapeOp>(op);
    grads.push_back(tensor::CollapseShapeOp::create(
        b, op->getLoc(), gradientTypeOf(expand.getSrc(), g), g,
        expand.getReassociationIndices()));
    return success();
  }},
  {"tensor.collapse_shape", [](Operation *op, OpBuilder &b, Value g,
                               SmallVectorImpl<Value> &grads) -> LogicalResult {
    auto collapse = cast<tensor::CollapseShapeOp>(op);
    if (!collapse.getSrcType().hasStaticShape())
      return op->emitOpError("has no gradient rule for a dynamic shape");
    grads.push_back(tensor::ExpandShapeOp::create(
        b, op->getLoc(), gradientTypeOf(collapse.getSrc(), g), g,
        collapse.getReassociationIndices()));
    return success();
  }},
  // A slice's gradient is placed into zeros where the slice was taken
  // (rank-reduced slices included: the insert takes the reduced shape).
  {"tensor.extract_slice", [](Operation *op, OpBuilder &b, Value g,
                              SmallVectorImpl<Value> &grads) -> LogicalResult {
    auto slice = cast<tensor::ExtractSliceOp>(op);
    grads.push_back(insertIntoZeros(
        b, op->getLoc(), g, slice.getSource(), slice.getMixedOffsets(),
        slice.getMixedSizes(), slice.getMixedStrides()));
    return success();
  }},
  // The inserted value gets the gradient of its slice, the destination the
  // rest (zeros where it was overwritten).
  {"tensor.insert_slice", [](Operation *op, OpBuilder &b, Value g,
                             SmallVectorImpl<Value> &grads) -> LogicalResult {
    auto insert = cast<tensor::InsertSliceOp>(op);
    Location loc = op->getLoc();
    SmallVector<OpFoldResult> offsets = insert.getMixedOffsets(),
                              sizes = insert.getMixedSizes(),
                              strides = insert.getMixedStrides();
    grads.push_back(
        extractPart(b, loc, g, insert.getSource(), offsets, sizes, strides));
    Value zeros = createSplatLike(b, loc, insert.getSource(),
                                  elementTypeOf(g), 0.0);
    grads.push_back(tensor::InsertSliceOp::create(b, loc, zeros, g, offsets,
                                                  sizes, strides));
    return success();
  }},
  // Each input of a concatenation gets its part of the gradient.
  {"tensor.concat", [](Operation *op, OpBuilder &b, Value g,
                       SmallVectorImpl<Value> &grads) -> LogicalResult {
    auto concat = cast<tensor::ConcatOp>(op);
    Location loc = op->getLoc();
    int64_t rank = concat.getRank();
    uint64_t dim = concat.getDim();
    SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
    OpFoldResult offset = b.getIndexAttr(0);
    for (Value input : concat.getInputs()) {
      SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, input);
      SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
      offsets[dim] = offset;
      grads.push_back(extractPart(b, loc, g, input, offsets, sizes, strides));
      std::optional<int64_t> start = getConstantIntValue(offset);
      std::optional<int64_t> size = getConstantIntValue(sizes[dim]);
      if (!start || !size)
        return op->emitOpError("has no gradient rule for a dynamic size "
                               "along the concatenated dimension");
      offset = b.getIndexAttr(*start + *size);
    }
    return success();
  }},
  // A padded tensor's gradient is the part of `g` the source fills; the
  // padding value is a scalar and gets none.
  {"tensor.pad", [](Operation *op, OpBuilder &b, Value g,
                    SmallVectorImpl<Value> &grads) -> LogicalResult {
    auto pad = cast<tensor::PadOp>(op);
    Location loc = op->getLoc();
    if (pad.getNofold() || !pad.getConstantPaddingValue())
      return op->emitOpError("has no gradient rule for a padding that is "
                             "not a constant value");
    int64_t rank = pad.getSourceType().getRank();
    grads.push_back(extractPart(
        b, loc, g, pad.getSource(), pad.getMixedLowPad(),
        tensor::getMixedSizes(b, loc, pad.getSource()),
        SmallVector<OpFoldResult>(rank, b.getIndexAttr(1))));
    grads.append(op->getNumOperands() - 1, Value());
    return success();
  }},
};
// clang-format on

TensorRule lookupTensorRule(Operation *op) {
  static const llvm::StringMap<TensorRule> rules = [] {
    llvm::StringMap<TensorRule> map;
    for (const TensorRuleEntry &rule : kTensorRules)
      map[rule.op] = rule.gradients;
    return map;
  }();
  return rules.lookup(op->getName().getStringRef());
}

/// The table's rule; operands after the ones it returns (offsets, sizes)
/// get no gradient.
template <typename OpTy>
struct TensorBackwardModel
    : public BackwardOpInterface::ExternalModel<TensorBackwardModel<OpTy>,
                                                OpTy> {
  LogicalResult buildGradients(Operation *op, OpBuilder &builder,
                               ArrayRef<Value> resultGradients,
                               SmallVectorImpl<Value> &operandGradients) const {
    TensorRule rule = lookupTensorRule(op);
    assert(rule && "attached to an op the table has no rule for");
    if (failed(rule(op, builder, resultGradients[0], operandGradients)))
      return failure();
    operandGradients.resize(op->getNumOperands(), Value());
    return success();
  }
};

template <typename... OpTys>
void attachTensorModels(MLIRContext *context) {
  (OpTys::template attachInterface<TensorBackwardModel<OpTys>>(*context), ...);
}

} // namespace

void mlir::prec::registerTensorBackwardModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, tensor::TensorDialect *) {
    attachTensorModels<tensor::ExpandShapeOp, tensor::CollapseShapeOp,
                       tensor::ExtractSliceOp, tensor::InsertSliceOp,
                       tensor::ConcatOp, tensor::PadOp>(context);
  });
}
