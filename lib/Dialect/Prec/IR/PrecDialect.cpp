//===- PrecDialect.cpp - prec dialect -------------------------------------===//

#include "prec/Dialect/Prec/IR/PrecDialect.h"
#include "prec/Dialect/Prec/IR/EntryAttrs.h"
#include "prec/Dialect/Prec/IR/PrecAttrs.h"
#include "prec/Dialect/Prec/IR/PrecOps.h"

#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::prec;

#include "prec/Dialect/Prec/IR/PrecOpsDialect.cpp.inc"

void PrecDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "prec/Dialect/Prec/IR/PrecOps.cpp.inc"
      >();
  registerAttributes();
}

//===----------------------------------------------------------------------===//
// Discardable attributes
//===----------------------------------------------------------------------===//

LogicalResult PrecDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attribute) {
  if (attribute.getName() == kPolicyAttrName) {
    if (!isa<PolicyAttr>(attribute.getValue()))
      return op->emitError("expected '")
             << kPolicyAttrName << "' to be a #prec.policy, got "
             << attribute.getValue();
    return success();
  }
  if (attribute.getName() == kDifferentiableAttrName) {
    if (!isa<UnitAttr>(attribute.getValue()) || !isa<FunctionOpInterface>(op))
      return op->emitError("expected '")
             << kDifferentiableAttrName << "' to be a unit attribute on a "
             << "function, got " << attribute.getValue() << " on '"
             << op->getName() << "'";
    return success();
  }
  if (attribute.getName() == kBackwardOfAttrName) {
    if (!isa<FlatSymbolRefAttr>(attribute.getValue()) ||
        !isa<FunctionOpInterface>(op))
      return op->emitError("expected '")
             << kBackwardOfAttrName << "' to be a symbol reference on a "
             << "function, got " << attribute.getValue() << " on '"
             << op->getName() << "'";
    return success();
  }
  if (attribute.getName() == kMicrobatchesAttrName) {
    auto count = dyn_cast<IntegerAttr>(attribute.getValue());
    if (!count || count.getType().isIndex() || count.getInt() < 1)
      return op->emitError("expected '")
             << kMicrobatchesAttrName << "' to be a positive integer, got "
             << attribute.getValue();
    return success();
  }
  if (attribute.getName() == kLocalBufferAttrName) {
    if (!isa<UnitAttr>(attribute.getValue()) ||
        op->getName().getStringRef() != "memref.alloca")
      return op->emitError("expected '")
             << kLocalBufferAttrName << "' to be a unit attribute on a "
             << "memref.alloca, got " << attribute.getValue() << " on '"
             << op->getName() << "'";
    return success();
  }
  if (attribute.getName() == kPeerWindowAttrName) {
    if (!isa<UnitAttr>(attribute.getValue()) ||
        op->getName().getStringRef() != "builtin.unrealized_conversion_cast" ||
        op->getNumResults() != 1 || !isa<MemRefType>(op->getResult(0).getType()))
      return op->emitError("expected '")
             << kPeerWindowAttrName << "' to be a unit attribute on a "
             << "builtin.unrealized_conversion_cast to a memref, got "
             << attribute.getValue() << " on '" << op->getName() << "'";
    return success();
  }
  if (attribute.getName() == kGradDtypeAttrName) {
    // The gradient dtype of an op's one result (a gathered weight's), as an
    // argument's `prec.grad_dtype` is of the argument.
    auto dtype = dyn_cast<TypeAttr>(attribute.getValue());
    if (!dtype || !isa<FloatType>(dtype.getValue()) ||
        !llvm::APFloat::semanticsHasZero(
            cast<FloatType>(dtype.getValue()).getFloatSemantics()))
      return op->emitError("expected '")
             << kGradDtypeAttrName << "' to be a float type with a zero, got "
             << attribute.getValue();
    if (op->getNumResults() != 1 ||
        !isa<RankedTensorType>(op->getResult(0).getType()))
      return op->emitError("expected '")
             << kGradDtypeAttrName << "' on an op with one ranked tensor "
             << "result, got '" << op->getName() << "' with "
             << op->getNumResults() << " results";
    return success();
  }
  return op->emitError("unknown prec attribute '")
         << attribute.getName().getValue() << "' on an operation";
}

/// Checks a `prec.name` on value `index` of `kind` ("argument", "result")
/// of `op`: a name a command line can write, and no other argument or
/// result of the function has it.
static LogicalResult verifyValueName(Operation *op, StringRef kind,
                                     unsigned index, Attribute value) {
  auto name = dyn_cast<StringAttr>(value);
  auto isNameChar = [](char c) {
    return llvm::isAlnum(c) || c == '_' || c == '.' || c == '-';
  };
  // A leading digit would read as a position, '=' and glob characters as
  // the syntax of prec-run's options.
  if (!name || name.getValue().empty() || llvm::isDigit(name.getValue()[0]) ||
      !llvm::all_of(name.getValue(), isNameChar))
    return op->emitError("expected '")
           << kNameAttrName << "' of " << kind << " " << index
           << " to be a string of letters, digits, '_', '.' and '-' that "
              "does not start with a digit, got "
           << value;
  auto function = dyn_cast<FunctionOpInterface>(op);
  if (!function)
    return success();
  bool isResult = kind == "result";
  unsigned count =
      isResult ? function.getNumResults() : function.getNumArguments();
  for (unsigned other = 0; other < count; ++other) {
    if (other == index)
      continue;
    Attribute otherName =
        isResult ? function.getResultAttr(other, kNameAttrName)
                 : function.getArgAttr(other, kNameAttrName);
    if (otherName == name)
      return op->emitError("expected distinct '")
             << kNameAttrName << "' on " << kind << "s, got "
             << name << " on " << kind << "s " << std::min(index, other)
             << " and " << std::max(index, other);
  }
  return success();
}

/// Checks a `prec.default` on argument `index` of `op`: a number of the
/// argument's own type, which must be a scalar.
static LogicalResult verifyDefault(Operation *op, unsigned index,
                                   Attribute value) {
  auto function = dyn_cast<FunctionOpInterface>(op);
  if (!function)
    return op->emitError("expected '")
           << kDefaultAttrName
           << "' on the argument of a function";
  Type type = function.getArgumentTypes()[index];
  if (!type.isIntOrIndexOrFloat())
    return op->emitError("expected '")
           << kDefaultAttrName << "' only on scalar arguments, "
           << "argument " << index << " has type " << type;
  auto typed = dyn_cast<TypedAttr>(value);
  if (!typed || !isa<FloatAttr, IntegerAttr>(value) || typed.getType() != type)
    return op->emitError("expected '")
           << kDefaultAttrName << "' of argument " << index
           << " to be a number of its type " << type << ", got " << value;
  return success();
}

/// Checks a `prec.shard` on argument `index` of `op` (EntryAttrs.h).
static LogicalResult verifyShard(Operation *op, unsigned index,
                                 Attribute value) {
  auto fail = [&]() {
    return op->emitError("expected '")
           << kShardAttrName << "' of argument " << index
           << " to be {grid = @GRID, grid_axes = [i64, ...], dim = i64, "
              "size = i64}, got "
           << value;
  };
  auto dict = dyn_cast<DictionaryAttr>(value);
  if (!dict || dict.size() != 4)
    return fail();
  auto grid = dict.getAs<FlatSymbolRefAttr>("grid");
  auto axes = dict.getAs<ArrayAttr>("grid_axes");
  auto dim = dict.getAs<IntegerAttr>("dim");
  auto size = dict.getAs<IntegerAttr>("size");
  if (!grid || !axes || !dim || !size ||
      !llvm::all_of(axes, llvm::IsaPred<IntegerAttr>))
    return fail();
  auto function = dyn_cast<FunctionOpInterface>(op);
  // A tensor, or the memref it becomes in lowering.
  auto type = function ? dyn_cast<ShapedType>(function.getArgumentTypes()[index])
                       : ShapedType();
  if (!type || !type.hasRank() || dim.getInt() < 0 || dim.getInt() >= type.getRank() ||
      size.getInt() < 1)
    return op->emitError("expected '")
           << kShardAttrName << "' of argument " << index
           << " on a ranked tensor with 0 <= dim < rank and size >= 1, got "
           << value << " on " << (function ? function.getArgumentTypes()[index]
                                           : Type());
  auto gridOp = SymbolTable::lookupNearestSymbolFrom<shard::GridOp>(op, grid);
  if (!gridOp)
    return op->emitError("'")
           << kShardAttrName << "' of argument " << index << " names @"
           << grid.getValue() << ", which is not a shard.grid";
  int64_t groupSize = 1;
  for (Attribute axis : axes) {
    int64_t a = cast<IntegerAttr>(axis).getInt();
    if (a < 0 || a >= static_cast<int64_t>(gridOp.getShape().size()))
      return op->emitError("'")
             << kShardAttrName << "' of argument " << index << ": grid axis "
             << a << " is not an axis of @" << grid.getValue();
    int64_t extent = gridOp.getShape()[a];
    if (ShapedType::isDynamic(extent))
      return success();
    groupSize *= extent;
  }
  int64_t block = llvm::divideCeil(size.getInt(), groupSize);
  int64_t extent = type.getDimSize(dim.getInt());
  if (!ShapedType::isDynamic(extent) && extent != block)
    return op->emitError("'")
           << kShardAttrName << "' of argument " << index << ": a block of "
           << size.getInt() << " over " << groupSize << " ranks has " << block
           << " elements, but dimension " << dim.getInt() << " of " << type
           << " has " << extent;
  return success();
}

/// Checks a `prec.range` on argument `index` of `op` (EntryAttrs.h).
static LogicalResult verifyRange(Operation *op, unsigned index,
                                 Attribute value) {
  auto range = dyn_cast<ArrayAttr>(value);
  auto function = dyn_cast<FunctionOpInterface>(op);
  auto type = function ? dyn_cast<ShapedType>(function.getArgumentTypes()[index])
                       : ShapedType();
  if (!range || range.size() != 2 ||
      !llvm::all_of(range, llvm::IsaPred<IntegerAttr>) || !type ||
      !isa<IntegerType>(type.getElementType()) ||
      cast<IntegerAttr>(range[0]).getInt() >=
          cast<IntegerAttr>(range[1]).getInt())
    return op->emitError("expected '")
           << kRangeAttrName << "' of argument " << index
           << " to be [lo, hi] with lo < hi on an integer tensor, got "
           << value;
  return success();
}

LogicalResult PrecDialect::verifyRegionArgAttribute(Operation *op,
                                                    unsigned regionIndex,
                                                    unsigned argIndex,
                                                    NamedAttribute attribute) {
  if (attribute.getName() == kNoGradAttrName) {
    if (!isa<UnitAttr>(attribute.getValue()))
      return op->emitError("expected '")
             << kNoGradAttrName << "' of argument " << argIndex
             << " to be a unit attribute, got " << attribute.getValue();
    return success();
  }
  if (attribute.getName() == kNameAttrName)
    return verifyValueName(op, "argument", argIndex, attribute.getValue());
  if (attribute.getName() == kDefaultAttrName)
    return verifyDefault(op, argIndex, attribute.getValue());
  if (attribute.getName() == kShardAttrName)
    return verifyShard(op, argIndex, attribute.getValue());
  if (attribute.getName() == kRangeAttrName)
    return verifyRange(op, argIndex, attribute.getValue());
  // A parameter's own policy (prec-fully-shard).
  if (attribute.getName() == kPolicyAttrName) {
    if (!isa<PolicyAttr>(attribute.getValue()))
      return op->emitError("expected '")
             << kPolicyAttrName << "' of argument " << argIndex
             << " to be a #prec.policy, got " << attribute.getValue();
    return success();
  }
  if (attribute.getName() != kGradDtypeAttrName)
    return op->emitError("unknown prec attribute '")
           << attribute.getName().getValue() << "' on an argument";
  auto dtype = dyn_cast<TypeAttr>(attribute.getValue());
  if (!dtype || !isa<FloatType>(dtype.getValue()))
    return op->emitError("expected '")
           << kGradDtypeAttrName << "' of argument " << argIndex
           << " to be a float type, got " << attribute.getValue();
  // A gradient is summed and zeroed: a scale-only type can do neither.
  if (!llvm::APFloat::semanticsHasZero(
          cast<FloatType>(dtype.getValue()).getFloatSemantics()))
    return op->emitError("expected '")
           << kGradDtypeAttrName << "' of argument " << argIndex
           << " to be a float type with a zero, got " << dtype.getValue()
           << " (a scale-only type)";
  return success();
}


LogicalResult PrecDialect::verifyRegionResultAttribute(
    Operation *op, unsigned regionIndex, unsigned resultIndex,
    NamedAttribute attribute) {
  if (attribute.getName() == kNameAttrName)
    return verifyValueName(op, "result", resultIndex, attribute.getValue());
  return op->emitError("unknown prec attribute '")
         << attribute.getName().getValue() << "' on a result";
}
