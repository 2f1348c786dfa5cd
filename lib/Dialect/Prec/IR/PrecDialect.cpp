//===- PrecDialect.cpp - prec dialect -------------------------------------===//

#include "prec/Dialect/Prec/IR/PrecDialect.h"
#include "prec/Dialect/Prec/IR/EntryAttrs.h"
#include "prec/Dialect/Prec/IR/PrecAttrs.h"
#include "prec/Dialect/Prec/IR/PrecOps.h"

#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/SmallSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::prec;

#include "prec/Dialect/Prec/IR/PrecOpsDialect.cpp.inc"

void PrecDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "prec/Dialect/Prec/IR/PrecOps.cpp.inc"
      >();
  registerAttributes();
  registerTypes();
}

//===----------------------------------------------------------------------===//
// Discardable attributes
//===----------------------------------------------------------------------===//

ReducedPrecision mlir::prec::getEffectiveReducedPrecision(Operation *op) {
  for (; op; op = op->getParentOp())
    if (auto reduced = op->getAttrOfType<ReducedPrecisionAttr>(
            PrecDialect::kReducedPrecisionAttrName))
      return reduced.getValue();
  return ReducedPrecision::none;
}

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
  if (attribute.getName() == kThroughPeerWindowAttrName) {
    auto transport = dyn_cast<TransportOp>(op);
    if (!isa<UnitAttr>(attribute.getValue()) || !transport ||
        (transport.getKind() != TransportKind::AllGather &&
         transport.getKind() != TransportKind::AllToAll))
      return op->emitError("expected '")
             << kThroughPeerWindowAttrName << "' to be a unit attribute on "
             << "an all_gather or all_to_all prec.transport, got "
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
  if (attribute.getName() == kInterHostAxesAttrName) {
    auto grid = dyn_cast<shard::GridOp>(op);
    auto axes = dyn_cast<DenseI16ArrayAttr>(attribute.getValue());
    if (!grid || !axes)
      return op->emitError("expected '")
             << kInterHostAxesAttrName << "' to be an array<i16> of axes on "
             << "a 'shard.grid', got " << attribute.getValue() << " on '"
             << op->getName() << "'";
    llvm::SmallSet<int16_t, 4> seen;
    for (int16_t axis : axes.asArrayRef()) {
      if (axis < 0 || axis >= grid.getRank())
        return op->emitError("expected '")
               << kInterHostAxesAttrName << "' to name axes of grid @"
               << grid.getSymName() << " in [0, " << grid.getRank() << "), got "
               << axis;
      if (!seen.insert(axis).second)
        return op->emitError("expected distinct '")
               << kInterHostAxesAttrName << "', got axis " << axis << " twice";
    }
    return success();
  }
  if (attribute.getName() == kReducedPrecisionAttrName) {
    if (!isa<ReducedPrecisionAttr>(attribute.getValue()))
      return op->emitError("expected '")
             << kReducedPrecisionAttrName
             << "' to be a #prec.reduced_precision, got "
             << attribute.getValue();
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
  // A number would read as a position, '=' and glob characters as the
  // syntax of prec-run's options. A leading digit is fine: PyTorch names
  // the parameters of a top-level nn.Sequential "0.weight".
  if (!name || name.getValue().empty() ||
      llvm::all_of(name.getValue(), llvm::isDigit) ||
      !llvm::all_of(name.getValue(), isNameChar))
    return op->emitError("expected '")
           << kNameAttrName << "' of " << kind << " " << index
           << " to be a string of letters, digits, '_', '.' and '-' that "
              "is not a number, got "
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
  // On a tensor (or the memref it becomes), the value of every element.
  Type type = function.getArgumentTypes()[index];
  if (auto shaped = dyn_cast<ShapedType>(type))
    type = shaped.getElementType();
  if (!type.isIntOrIndexOrFloat())
    return op->emitError("expected '")
           << kDefaultAttrName << "' only on arguments of numbers or "
           << "tensors of them, argument " << index << " has type " << type;
  auto typed = dyn_cast<TypedAttr>(value);
  if (!typed || !isa<FloatAttr, IntegerAttr>(value) || typed.getType() != type)
    return op->emitError("expected '")
           << kDefaultAttrName << "' of argument " << index
           << " to be a number of its type " << type << ", got " << value;
  return success();
}

/// The type of argument `index` of function `op`; null when `op` is no
/// function.
static Type getArgumentType(Operation *op, unsigned index) {
  auto function = dyn_cast<FunctionOpInterface>(op);
  if (!function || index >= function.getNumArguments())
    return {};
  return function.getArgumentTypes()[index];
}

/// Whether `type` is one a runner passes (builtin): lowered functions (LLVM
/// pointers in place of memrefs) keep only the attribute's form checked.
static bool isBuiltinArgumentType(Type type) {
  return type && (isa<ShapedType>(type) || type.isIntOrIndexOrFloat());
}

/// Checks a `prec.shard` on argument `index` of `op`: {grid = @g, grid_axes
/// = [...], dim = D : i64, size = S : i64} on a ranked tensor or memref,
/// `dim` one of its dimensions, `grid` a shard.grid whose axes `grid_axes`
/// lists (distinct), and, where the group size G and the extent are static,
/// ceil(S / G) rows a rank.
static LogicalResult verifyShard(Operation *op, unsigned index,
                                 Attribute value) {
  auto emit = [&]() {
    return op->emitError("expected '")
           << kShardAttrName << "' of argument " << index;
  };
  auto dict = dyn_cast<DictionaryAttr>(value);
  if (!dict)
    return emit() << " to be a dictionary {grid = @g, grid_axes = [...], dim "
                     "= D : i64, size = S : i64}, got "
                  << value;
  for (NamedAttribute entry : dict)
    if (!llvm::is_contained({"grid", "grid_axes", "dim", "size"},
                            entry.getName().getValue()))
      return emit() << " to have only the keys grid, grid_axes, dim and "
                       "size, got '"
                    << entry.getName().getValue() << "'";
  auto grid = dict.getAs<FlatSymbolRefAttr>("grid");
  if (!grid)
    return emit() << " to have a symbol 'grid', got " << dict.get("grid");
  auto axes = dict.getAs<ArrayAttr>("grid_axes");
  if (!axes)
    return emit() << " to have an array 'grid_axes', got "
                  << dict.get("grid_axes");
  SmallVector<int64_t> axisList;
  for (Attribute axis : axes) {
    auto integer = dyn_cast<IntegerAttr>(axis);
    if (!integer || !integer.getType().isInteger(64))
      return emit() << " to have 'grid_axes' of i64 integers, got " << axes;
    axisList.push_back(integer.getInt());
  }
  auto dim = dict.getAs<IntegerAttr>("dim");
  auto size = dict.getAs<IntegerAttr>("size");
  if (!dim || !dim.getType().isInteger(64))
    return emit() << " to have an i64 'dim', got " << dict.get("dim");
  if (!size || !size.getType().isInteger(64) || size.getInt() < 0)
    return emit() << " to have a non-negative i64 'size', got "
                  << dict.get("size");
  Type type = getArgumentType(op, index);
  if (!isBuiltinArgumentType(type))
    return success();
  auto shaped = dyn_cast<ShapedType>(type);
  if (!shaped || !shaped.hasRank())
    return op->emitError("expected '")
           << kShardAttrName
           << "' only on ranked tensor or memref arguments, argument "
           << index << " has type " << type;
  if (dim.getInt() < 0 || dim.getInt() >= shaped.getRank())
    return emit() << " to have 'dim' in [0, " << shaped.getRank()
                  << ") for type " << type << ", got " << dim.getInt();
  auto gridOp = SymbolTable::lookupNearestSymbolFrom<shard::GridOp>(
      op, grid.getAttr());
  if (!gridOp)
    return emit() << " to name a shard.grid, got " << grid;
  ArrayRef<int64_t> gridShape = gridOp.getShape();
  int64_t groupSize = 1;
  for (auto [i, axis] : llvm::enumerate(axisList)) {
    if (axis < 0 || axis >= static_cast<int64_t>(gridShape.size()))
      return emit() << " to have 'grid_axes' in [0, " << gridShape.size()
                    << ") of grid " << grid << ", got " << axis;
    if (llvm::is_contained(ArrayRef<int64_t>(axisList).take_front(i), axis))
      return emit() << " to have distinct 'grid_axes', got " << axes;
  }
  for (auto [axis, extent] : llvm::enumerate(gridShape))
    if (axisList.empty() || llvm::is_contained(axisList, int64_t(axis))) {
      if (ShapedType::isDynamic(extent))
        return success(); // sized at run time
      groupSize *= extent;
    }
  int64_t extent = shaped.getDimSize(dim.getInt());
  if (ShapedType::isDynamic(extent) || groupSize == 0)
    return success();
  int64_t rows = llvm::divideCeil(size.getInt(), groupSize);
  if (rows != extent)
    return emit() << " to split size " << size.getInt() << " over the "
                  << groupSize << " ranks of its group in blocks of ceil("
                  << size.getInt() << " / " << groupSize << ") = " << rows
                  << ", the extent of dimension " << dim.getInt()
                  << " of type " << type << ", got " << extent;
  return success();
}

/// Checks a `prec.range` on argument `index` of `op`: [lo, hi], two i64
/// with lo < hi, on an integer or index argument (or a shaped one of
/// them) whose type holds every value in [lo, hi).
static LogicalResult verifyRange(Operation *op, unsigned index,
                                 Attribute value) {
  auto emit = [&]() {
    return op->emitError("expected '")
           << kRangeAttrName << "' of argument " << index;
  };
  auto array = dyn_cast<ArrayAttr>(value);
  IntegerAttr lo, hi;
  if (array && array.size() == 2) {
    lo = dyn_cast<IntegerAttr>(array[0]);
    hi = dyn_cast<IntegerAttr>(array[1]);
  }
  if (!lo || !hi || !lo.getType().isInteger(64) ||
      !hi.getType().isInteger(64))
    return emit() << " to be [lo, hi], two i64 integers, got " << value;
  if (lo.getInt() >= hi.getInt())
    return emit() << " to be [lo, hi] with lo < hi, got " << value;
  Type type = getArgumentType(op, index);
  if (!isBuiltinArgumentType(type))
    return success();
  Type element = getElementTypeOrSelf(type);
  if (!element.isIntOrIndex())
    return op->emitError("expected '")
           << kRangeAttrName << "' only on integer arguments, argument "
           << index << " has type " << type;
  if (element.isIndex() || element.isInteger(64))
    return success();
  unsigned bits = element.getIntOrFloatBitWidth();
  // i1 holds 0 and 1; iN the signed N-bit values.
  int64_t lowest = bits == 1 ? 0 : -(int64_t(1) << (bits - 1));
  int64_t end = bits == 1 ? 2 : int64_t(1) << (bits - 1);
  if (lo.getInt() < lowest || hi.getInt() > end)
    return emit() << " to lie within [" << lowest << ", " << end
                  << ") of its element type " << element << ", got " << value;
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
