//===- PrecOps.cpp - prec operations --------------------------------------===//

#include "prec/Dialect/Prec/IR/PrecOps.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/SmallSet.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <optional>
#include <type_traits>

using namespace mlir;
using namespace mlir::prec;

#include "prec/Dialect/Prec/IR/PrecInterfaces.cpp.inc"

//===----------------------------------------------------------------------===//
// AddressableShapes
//===----------------------------------------------------------------------===//

/// The bytes of the static part of `type`, or nullopt when they overflow
/// int64. Elements narrower than a byte are counted as packed.
static std::optional<int64_t> getStaticByteSize(ShapedType type) {
  int64_t elements = 1;
  for (int64_t extent : type.getShape())
    if (!ShapedType::isDynamic(extent) &&
        llvm::MulOverflow(elements, extent, elements))
      return std::nullopt;
  Type element = type.getElementType();
  int64_t bits = element.isIntOrFloat() ? element.getIntOrFloatBitWidth() : 8;
  int64_t totalBits;
  if (llvm::MulOverflow(elements, bits, totalBits)) {
    // Whole bytes per element: the bit count overflows before the byte count.
    int64_t bytes;
    if (bits % 8 != 0 || llvm::MulOverflow(elements, bits / 8, bytes))
      return std::nullopt;
    return bytes;
  }
  return llvm::divideCeil(totalBits, 8);
}

LogicalResult
mlir::OpTrait::prec::impl::verifyAddressableShapes(Operation *op) {
  auto check = [&](StringRef kind, unsigned index,
                   Type type) -> LogicalResult {
    auto shaped = dyn_cast<ShapedType>(type);
    if (!shaped || !shaped.hasRank() || getStaticByteSize(shaped))
      return success();
    return op->emitOpError("expected ")
           << kind << " #" << index << " to fit in "
           << std::numeric_limits<int64_t>::max()
           << " bytes (sizes computed from it would overflow int64), got "
           << type;
  };
  for (auto [index, type] : llvm::enumerate(op->getOperandTypes()))
    if (failed(check("operand", index, type)))
      return failure();
  for (auto [index, type] : llvm::enumerate(op->getResultTypes()))
    if (failed(check("result", index, type)))
      return failure();
  return success();
}

LogicalResult
mlir::OpTrait::prec::impl::verifySupportedFloatTypes(Operation *op) {
  auto check = [&](auto describe, Type type) -> LogicalResult {
    auto element = dyn_cast<FloatType>(getElementTypeOrSelf(type));
    if (!element || mlir::prec::isSupportedFloatType(element))
      return success();
    InFlightDiagnostic diag = op->emitOpError("expected ");
    describe(diag);
    diag << " of one of " << mlir::prec::kSupportedFloatTypes << ", got "
         << element;
    if (isa<FloatTF32Type>(element))
      diag << " (no LLVM type holds it; use f32 or bf16)";
    return diag;
  };
  for (auto [index, type] : llvm::enumerate(op->getOperandTypes()))
    if (failed(check([&](InFlightDiagnostic &d) { d << "operand #" << index; },
                     type)))
      return failure();
  for (auto [index, type] : llvm::enumerate(op->getResultTypes()))
    if (failed(check([&](InFlightDiagnostic &d) { d << "result #" << index; },
                     type)))
      return failure();
  for (NamedAttribute attr : op->getAttrs())
    if (auto typeAttr = dyn_cast<TypeAttr>(attr.getValue()))
      if (failed(check(
              [&](InFlightDiagnostic &d) { d << attr.getName().getValue(); },
              typeAttr.getValue())))
        return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// Keyword clauses
//===----------------------------------------------------------------------===//

namespace {

/// The keyword clauses of an op's custom assembly (`forward_dtype = bf16`,
/// `seed %s`): they parse in any order, each at most once, and print in one
/// canonical order.
class ClauseParser {
public:
  explicit ClauseParser(StringRef opName) : opName(opName) {}

  /// `keyword = value`; an untyped literal gets `type` (an integer's i64).
  template <typename AttrT>
  ClauseParser &attr(StringRef keyword, AttrT &value, Type type = {},
                     bool required = false) {
    clauses.push_back(
        {keyword, required, [&value, type](OpAsmParser &parser) {
           return failure(parser.parseEqual() ||
                          parser.parseCustomAttributeWithFallback(value, type));
         }});
    return *this;
  }

  /// `keyword %operand`.
  ClauseParser &operand(StringRef keyword,
                        std::optional<OpAsmParser::UnresolvedOperand> &value) {
    clauses.push_back(
        {keyword, /*required=*/false, [&value](OpAsmParser &parser) {
           return parser.parseOperand(value.emplace());
         }});
    return *this;
  }

  ParseResult parse(OpAsmParser &parser) {
    llvm::SmallBitVector seen(clauses.size());
    while (true) {
      SMLoc loc = parser.getCurrentLocation();
      StringRef keyword;
      if (failed(parser.parseOptionalKeyword(&keyword)))
        break;
      auto *clause = llvm::find_if(
          clauses, [&](const Clause &c) { return c.keyword == keyword; });
      if (clause == clauses.end())
        return listClauses(parser.emitError(loc)
                           << "unexpected clause '" << keyword << "' in '"
                           << opName << "', expected one of: ");
      unsigned index = clause - clauses.begin();
      if (seen.test(index))
        return parser.emitError(loc) << "clause '" << keyword
                                     << "' appears twice in '" << opName << "'";
      seen.set(index);
      if (clause->parseValue(parser))
        return failure();
    }
    for (auto [index, clause] : llvm::enumerate(clauses))
      if (clause.required && !seen.test(index))
        return parser.emitError(parser.getCurrentLocation())
               << "expected clause '" << clause.keyword << "' in '" << opName
               << "'";
    return success();
  }

private:
  struct Clause {
    StringRef keyword;
    bool required;
    std::function<ParseResult(OpAsmParser &)> parseValue;
  };

  ParseResult listClauses(InFlightDiagnostic &&diag) {
    llvm::interleaveComma(clauses, diag,
                          [&](const Clause &c) { diag << c.keyword; });
    return diag;
  }

  StringRef opName;
  SmallVector<Clause> clauses;
};

/// Prints ` keyword = value` unless `value` is null (absent or the default).
template <typename AttrT>
void printClause(OpAsmPrinter &printer, StringRef keyword, AttrT value) {
  if (!value)
    return;
  printer << ' ' << keyword << " = ";
  if constexpr (std::is_same_v<AttrT, TypeAttr> ||
                std::is_same_v<AttrT, IntegerAttr> ||
                std::is_same_v<AttrT, FloatAttr>)
    printer.printAttributeWithoutType(value);
  else
    printer.printStrippedAttrOrType(value);
}

/// `value`, or null when it is `defaultValue`: defaults are not printed.
template <typename AttrT> AttrT unlessDefault(AttrT value, AttrT defaultValue) {
  return value == defaultValue ? AttrT() : value;
}

using OptionalOperand = std::optional<OpAsmParser::UnresolvedOperand>;

void addDtypeClauses(ClauseParser &clauses, TypeAttr &forwardDtype,
                     TypeAttr &backwardDtype, RoundingModeAttr &rounding,
                     OptionalOperand &seed, ScalingAttr &scaling) {
  clauses.attr("forward_dtype", forwardDtype)
      .attr("backward_dtype", backwardDtype)
      .attr("rounding", rounding)
      .operand("seed", seed)
      .attr("scaling", scaling);
}

void printDtypeClauses(OpAsmPrinter &printer, TypeAttr forwardDtype,
                       TypeAttr backwardDtype, RoundingModeAttr rounding,
                       Value seed, ScalingAttr scaling) {
  printClause(printer, "forward_dtype", forwardDtype);
  printClause(printer, "backward_dtype", backwardDtype);
  printClause(printer, "rounding",
              unlessDefault(rounding,
                            RoundingModeAttr::get(rounding.getContext(),
                                                  RoundingMode::NearestEven)));
  if (seed)
    printer << " seed " << seed;
  printClause(printer, "scaling", scaling);
}

void addReductionClauses(ClauseParser &clauses, TypeAttr &accDtype,
                         FloatAttr &preDivisor, FloatAttr &postDivisor,
                         ReductionAlgorithmAttr &algorithm,
                         TypeAttr &interHostDtype,
                         ScalingAttr &interHostScaling, Builder &builder) {
  clauses.attr("acc_dtype", accDtype)
      .attr("pre_divisor", preDivisor, builder.getF64Type())
      .attr("post_divisor", postDivisor, builder.getF64Type())
      .attr("algorithm", algorithm)
      .attr("inter_host_dtype", interHostDtype)
      .attr("inter_host_scaling", interHostScaling);
}

void printReductionClauses(OpAsmPrinter &printer, TypeAttr accDtype,
                           FloatAttr preDivisor, FloatAttr postDivisor,
                           ReductionAlgorithmAttr algorithm,
                           TypeAttr interHostDtype,
                           ScalingAttr interHostScaling) {
  printClause(printer, "acc_dtype", accDtype);
  printClause(printer, "pre_divisor", preDivisor);
  printClause(printer, "post_divisor", postDivisor);
  printClause(printer, "algorithm", algorithm);
  printClause(printer, "inter_host_dtype", interHostDtype);
  printClause(printer, "inter_host_scaling", interHostScaling);
}

ReductionKindAttr unlessReduction(ReductionKindAttr value,
                                  ReductionKind defaultKind) {
  return unlessDefault(value,
                       ReductionKindAttr::get(value.getContext(), defaultKind));
}

DenseI16ArrayAttr unlessAllAxes(DenseI16ArrayAttr gridAxes) {
  return gridAxes.empty() ? DenseI16ArrayAttr() : gridAxes;
}

} // namespace

static ParseResult parseAllGatherClauses(
    OpAsmParser &parser, DenseI16ArrayAttr &gridAxes, IntegerAttr &gatherAxis,
    TypeAttr &forwardDtype, TypeAttr &backwardDtype, RoundingModeAttr &rounding,
    OptionalOperand &seed, ScalingAttr &scaling,
    ReductionKindAttr &gradReduction, TypeAttr &gradInterHostDtype,
    ScalingAttr &gradInterHostScaling) {
  ClauseParser clauses("prec.all_gather");
  clauses.attr("grid_axes", gridAxes)
      .attr("gather_axis", gatherAxis, parser.getBuilder().getI64Type(),
            /*required=*/true);
  addDtypeClauses(clauses, forwardDtype, backwardDtype, rounding, seed,
                  scaling);
  clauses.attr("grad_reduction", gradReduction)
      .attr("grad_inter_host_dtype", gradInterHostDtype)
      .attr("grad_inter_host_scaling", gradInterHostScaling);
  return clauses.parse(parser);
}

static void printAllGatherClauses(
    OpAsmPrinter &printer, AllGatherOp, DenseI16ArrayAttr gridAxes,
    IntegerAttr gatherAxis, TypeAttr forwardDtype, TypeAttr backwardDtype,
    RoundingModeAttr rounding, Value seed, ScalingAttr scaling,
    ReductionKindAttr gradReduction, TypeAttr gradInterHostDtype,
    ScalingAttr gradInterHostScaling) {
  printClause(printer, "grid_axes", unlessAllAxes(gridAxes));
  printClause(printer, "gather_axis", gatherAxis);
  printDtypeClauses(printer, forwardDtype, backwardDtype, rounding, seed,
                    scaling);
  printClause(printer, "grad_reduction",
              unlessReduction(gradReduction, ReductionKind::Avg));
  printClause(printer, "grad_inter_host_dtype", gradInterHostDtype);
  printClause(printer, "grad_inter_host_scaling", gradInterHostScaling);
}

static ParseResult parseReduceScatterClauses(
    OpAsmParser &parser, DenseI16ArrayAttr &gridAxes, IntegerAttr &scatterAxis,
    ReductionKindAttr &reduction, TypeAttr &forwardDtype,
    TypeAttr &backwardDtype, RoundingModeAttr &rounding, OptionalOperand &seed,
    ScalingAttr &scaling, TypeAttr &accDtype, FloatAttr &preDivisor,
    FloatAttr &postDivisor, ReductionAlgorithmAttr &algorithm,
    TypeAttr &interHostDtype, ScalingAttr &interHostScaling) {
  Builder builder = parser.getBuilder();
  ClauseParser clauses("prec.reduce_scatter");
  clauses.attr("grid_axes", gridAxes)
      .attr("scatter_axis", scatterAxis, builder.getI64Type(),
            /*required=*/true)
      .attr("reduction", reduction);
  addDtypeClauses(clauses, forwardDtype, backwardDtype, rounding, seed,
                  scaling);
  addReductionClauses(clauses, accDtype, preDivisor, postDivisor, algorithm,
                      interHostDtype, interHostScaling, builder);
  return clauses.parse(parser);
}

static void printReduceScatterClauses(
    OpAsmPrinter &printer, ReduceScatterOp, DenseI16ArrayAttr gridAxes,
    IntegerAttr scatterAxis, ReductionKindAttr reduction, TypeAttr forwardDtype,
    TypeAttr backwardDtype, RoundingModeAttr rounding, Value seed,
    ScalingAttr scaling, TypeAttr accDtype, FloatAttr preDivisor,
    FloatAttr postDivisor, ReductionAlgorithmAttr algorithm,
    TypeAttr interHostDtype, ScalingAttr interHostScaling) {
  printClause(printer, "grid_axes", unlessAllAxes(gridAxes));
  printClause(printer, "scatter_axis", scatterAxis);
  printClause(printer, "reduction",
              unlessReduction(reduction, ReductionKind::Sum));
  printDtypeClauses(printer, forwardDtype, backwardDtype, rounding, seed,
                    scaling);
  printReductionClauses(printer, accDtype, preDivisor, postDivisor, algorithm,
                        interHostDtype, interHostScaling);
}

static ParseResult
parseAllReduceClauses(OpAsmParser &parser, DenseI16ArrayAttr &gridAxes,
                      ReductionKindAttr &reduction, TypeAttr &forwardDtype,
                      TypeAttr &backwardDtype, RoundingModeAttr &rounding,
                      OptionalOperand &seed, ScalingAttr &scaling,
                      TypeAttr &accDtype, FloatAttr &preDivisor,
                      FloatAttr &postDivisor, ReductionAlgorithmAttr &algorithm,
                      TypeAttr &interHostDtype, ScalingAttr &interHostScaling,
                      TypeAttr &gradInterHostDtype,
                      ScalingAttr &gradInterHostScaling) {
  Builder builder = parser.getBuilder();
  ClauseParser clauses("prec.all_reduce");
  clauses.attr("grid_axes", gridAxes).attr("reduction", reduction);
  addDtypeClauses(clauses, forwardDtype, backwardDtype, rounding, seed,
                  scaling);
  addReductionClauses(clauses, accDtype, preDivisor, postDivisor, algorithm,
                      interHostDtype, interHostScaling, builder);
  clauses.attr("grad_inter_host_dtype", gradInterHostDtype)
      .attr("grad_inter_host_scaling", gradInterHostScaling);
  return clauses.parse(parser);
}

static void printAllReduceClauses(
    OpAsmPrinter &printer, AllReduceOp, DenseI16ArrayAttr gridAxes,
    ReductionKindAttr reduction, TypeAttr forwardDtype, TypeAttr backwardDtype,
    RoundingModeAttr rounding, Value seed, ScalingAttr scaling,
    TypeAttr accDtype, FloatAttr preDivisor, FloatAttr postDivisor,
    ReductionAlgorithmAttr algorithm, TypeAttr interHostDtype,
    ScalingAttr interHostScaling, TypeAttr gradInterHostDtype,
    ScalingAttr gradInterHostScaling) {
  printClause(printer, "grid_axes", unlessAllAxes(gridAxes));
  printClause(printer, "reduction",
              unlessReduction(reduction, ReductionKind::Sum));
  printDtypeClauses(printer, forwardDtype, backwardDtype, rounding, seed,
                    scaling);
  printReductionClauses(printer, accDtype, preDivisor, postDivisor, algorithm,
                        interHostDtype, interHostScaling);
  printClause(printer, "grad_inter_host_dtype", gradInterHostDtype);
  printClause(printer, "grad_inter_host_scaling", gradInterHostScaling);
}

static ParseResult parseAllToAllClauses(
    OpAsmParser &parser, DenseI16ArrayAttr &gridAxes, IntegerAttr &splitAxis,
    IntegerAttr &concatAxis, TypeAttr &forwardDtype, TypeAttr &backwardDtype,
    RoundingModeAttr &rounding, OptionalOperand &seed, ScalingAttr &scaling) {
  Type i64 = parser.getBuilder().getI64Type();
  ClauseParser clauses("prec.all_to_all");
  clauses.attr("grid_axes", gridAxes)
      .attr("split_axis", splitAxis, i64, /*required=*/true)
      .attr("concat_axis", concatAxis, i64, /*required=*/true);
  addDtypeClauses(clauses, forwardDtype, backwardDtype, rounding, seed,
                  scaling);
  return clauses.parse(parser);
}

static void printAllToAllClauses(OpAsmPrinter &printer, AllToAllOp,
                                 DenseI16ArrayAttr gridAxes,
                                 IntegerAttr splitAxis, IntegerAttr concatAxis,
                                 TypeAttr forwardDtype, TypeAttr backwardDtype,
                                 RoundingModeAttr rounding, Value seed,
                                 ScalingAttr scaling) {
  printClause(printer, "grid_axes", unlessAllAxes(gridAxes));
  printClause(printer, "split_axis", splitAxis);
  printClause(printer, "concat_axis", concatAxis);
  printDtypeClauses(printer, forwardDtype, backwardDtype, rounding, seed,
                    scaling);
}

static ParseResult parseCastClauses(OpAsmParser &parser,
                                    TypeAttr &backwardDtype,
                                    RoundingModeAttr &rounding,
                                    OptionalOperand &seed) {
  ClauseParser clauses("prec.cast");
  clauses.attr("backward_dtype", backwardDtype)
      .attr("rounding", rounding)
      .operand("seed", seed);
  return clauses.parse(parser);
}

static void printCastClauses(OpAsmPrinter &printer, CastOp,
                             TypeAttr backwardDtype, RoundingModeAttr rounding,
                             Value seed) {
  printDtypeClauses(printer, /*forwardDtype=*/nullptr, backwardDtype, rounding,
                    seed, /*scaling=*/nullptr);
}

static ParseResult parseReduceClauses(OpAsmParser &parser,
                                      DenseI64ArrayAttr &dims,
                                      ReductionKindAttr &reduction,
                                      TypeAttr &accDtype) {
  ClauseParser clauses("prec.reduce");
  clauses.attr("dims", dims, Type(), /*required=*/true)
      .attr("reduction", reduction)
      .attr("acc_dtype", accDtype);
  return clauses.parse(parser);
}

static void printReduceClauses(OpAsmPrinter &printer, ReduceOp,
                               DenseI64ArrayAttr dims,
                               ReductionKindAttr reduction, TypeAttr accDtype) {
  printClause(printer, "dims", dims);
  printClause(printer, "reduction",
              unlessReduction(reduction, ReductionKind::Sum));
  printClause(printer, "acc_dtype", accDtype);
}

namespace {
/// `value`, or null when it is the f64 `defaultValue`.
FloatAttr unlessDefaultF64(FloatAttr value, double defaultValue) {
  return value.getValueAsDouble() == defaultValue ? FloatAttr() : value;
}
} // namespace

static ParseResult parseSGDClauses(OpAsmParser &parser, FloatAttr &weightDecay,
                                   RoundingModeAttr &rounding,
                                   OptionalOperand &seed) {
  ClauseParser clauses("prec.sgd");
  clauses.attr("weight_decay", weightDecay, parser.getBuilder().getF64Type())
      .attr("rounding", rounding)
      .operand("seed", seed);
  return clauses.parse(parser);
}

static void printSGDClauses(OpAsmPrinter &printer, SGDOp, FloatAttr weightDecay,
                            RoundingModeAttr rounding, Value seed) {
  printClause(printer, "weight_decay", unlessDefaultF64(weightDecay, 0.0));
  printDtypeClauses(printer, /*forwardDtype=*/nullptr,
                    /*backwardDtype=*/nullptr, rounding, seed,
                    /*scaling=*/nullptr);
}

static ParseResult parseAdamWClauses(OpAsmParser &parser, FloatAttr &beta1,
                                     FloatAttr &beta2, FloatAttr &eps,
                                     FloatAttr &weightDecay,
                                     RoundingModeAttr &rounding,
                                     OptionalOperand &seed) {
  Type f64 = parser.getBuilder().getF64Type();
  ClauseParser clauses("prec.adamw");
  clauses.attr("beta1", beta1, f64)
      .attr("beta2", beta2, f64)
      .attr("eps", eps, f64)
      .attr("weight_decay", weightDecay, f64)
      .attr("rounding", rounding)
      .operand("seed", seed);
  return clauses.parse(parser);
}

static void printAdamWClauses(OpAsmPrinter &printer, AdamWOp, FloatAttr beta1,
                              FloatAttr beta2, FloatAttr eps,
                              FloatAttr weightDecay, RoundingModeAttr rounding,
                              Value seed) {
  // The defaults of the ODS arguments.
  printClause(printer, "beta1", unlessDefaultF64(beta1, 0.9));
  printClause(printer, "beta2", unlessDefaultF64(beta2, 0.999));
  printClause(printer, "eps", unlessDefaultF64(eps, 1.0e-08));
  printClause(printer, "weight_decay", unlessDefaultF64(weightDecay, 1.0e-02));
  printDtypeClauses(printer, /*forwardDtype=*/nullptr,
                    /*backwardDtype=*/nullptr, rounding, seed,
                    /*scaling=*/nullptr);
}

static ParseResult parseQuantizeClauses(OpAsmParser &parser,
                                        ScalingAttr &scaling,
                                        RoundingModeAttr &rounding,
                                        OptionalOperand &seed) {
  ClauseParser clauses("prec.quantize");
  clauses.attr("scaling", scaling, Type(), /*required=*/true)
      .attr("rounding", rounding)
      .operand("seed", seed);
  return clauses.parse(parser);
}

static void printQuantizeClauses(OpAsmPrinter &printer, QuantizeOp,
                                 ScalingAttr scaling, RoundingModeAttr rounding,
                                 Value seed) {
  printClause(printer, "scaling", scaling);
  printDtypeClauses(printer, /*forwardDtype=*/nullptr,
                    /*backwardDtype=*/nullptr, rounding, seed,
                    /*scaling=*/nullptr);
}

static ParseResult parseTransportClauses(OpAsmParser &parser,
                                         DenseI16ArrayAttr &gridAxes,
                                         ReductionKindAttr &reduction) {
  ClauseParser clauses("prec.transport");
  clauses.attr("grid_axes", gridAxes).attr("reduction", reduction);
  return clauses.parse(parser);
}

static void printTransportClauses(OpAsmPrinter &printer, Operation *,
                                  DenseI16ArrayAttr gridAxes,
                                  ReductionKindAttr reduction) {
  printClause(printer, "grid_axes", unlessAllAxes(gridAxes));
  printClause(printer, "reduction", reduction);
}

#define GET_OP_CLASSES
#include "prec/Dialect/Prec/IR/PrecOps.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "prec/Dialect/Prec/IR/PrecOpsTypes.cpp.inc"

void PrecDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "prec/Dialect/Prec/IR/PrecOpsTypes.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Helpers shared by the verifiers and the passes
//===----------------------------------------------------------------------===//

bool mlir::prec::floatTypeContains(FloatType wide, FloatType narrow) {
  return wide == narrow || llvm::APFloat::isRepresentableBy(
                               narrow.getFloatSemantics(),
                               wide.getFloatSemantics());
}

FloatType mlir::prec::getDefaultAccumulationType(FloatType forwardType) {
  if (forwardType.getWidth() > 32)
    return forwardType;
  return Float32Type::get(forwardType.getContext());
}

FloatType mlir::prec::getExactDivisionType(FloatType type, double divisor) {
  MLIRContext *context = type.getContext();
  // Wider than f64 (f80, f128): every double is exact already.
  if (type.getWidth() > 64)
    return type;
  for (FloatType candidate : {type, cast<FloatType>(Float32Type::get(context)),
                              cast<FloatType>(Float64Type::get(context))}) {
    if (candidate.getWidth() < type.getWidth())
      continue;
    llvm::APFloat value(divisor);
    bool losesInfo = false;
    if (value.convert(candidate.getFloatSemantics(),
                      llvm::APFloat::rmNearestTiesToEven,
                      &losesInfo) == llvm::APFloat::opOK &&
        !losesInfo)
      return candidate;
  }
  return Float64Type::get(context);
}

bool mlir::prec::isScaledLowPrecisionType(Type type) {
  auto floatType = dyn_cast<FloatType>(type);
  return floatType && floatType.getWidth() <= 8 &&
         !isa<Float8E8M0FNUType>(floatType);
}

int64_t mlir::prec::getCollectiveGroupSize(shard::GridOp grid,
                                           ArrayRef<int16_t> axes) {
  ArrayRef<int64_t> shape = grid.getShape();
  int64_t size = 1;
  auto multiply = [&](int64_t extent) {
    if (ShapedType::isDynamic(extent) || ShapedType::isDynamic(size))
      size = ShapedType::kDynamic;
    else
      size *= extent;
  };
  if (axes.empty())
    llvm::for_each(shape, multiply);
  for (int16_t axis : axes)
    multiply(shape[axis]);
  return size;
}

FailureOr<int64_t>
mlir::prec::getStaticCollectiveGroupSize(CollectiveOpInterface op,
                                         StringRef purpose) {
  auto grid = SymbolTable::lookupNearestSymbolFrom<shard::GridOp>(
      op, op.getGridAttr());
  if (!grid)
    return op->emitOpError("expected grid ")
           << op.getGridAttr() << " to name a 'shard.grid'";
  int64_t size = getCollectiveGroupSize(grid, op.getGridAxes());
  if (ShapedType::isDynamic(size))
    return op->emitOpError("needs a static group size for ")
           << purpose << ", but grid " << op.getGridAttr()
           << " has a dynamic size on a reduced axis";
  return size;
}

std::optional<int64_t>
mlir::prec::getRegroupableGroupSize(CollectiveOpInterface op,
                                    SymbolTableCollection &tables,
                                    RegroupRequirements requirements) {
  RankedTensorType inputType = op.getInput().getType();
  if (!inputType.hasStaticShape() ||
      !op.getResult().getType().hasStaticShape() ||
      (requirements.nonEmpty && inputType.getNumElements() == 0))
    return std::nullopt;
  if (op.getScalingAttr() || op.getInterHostScalingAttr() ||
      op.getRounding() != RoundingMode::NearestEven)
    return std::nullopt;
  if (requirements.direct &&
      (!op.isReduction() ||
       getReductionAlgorithm(op) != ReductionAlgorithm::Direct))
    return std::nullopt;
  auto grid =
      tables.lookupNearestSymbolFrom<shard::GridOp>(op, op.getGridAttr());
  if (!grid)
    return std::nullopt;
  int64_t groupSize = getCollectiveGroupSize(grid, op.getGridAxes());
  if (ShapedType::isDynamic(groupSize) ||
      (requirements.severalRanks && groupSize <= 1))
    return std::nullopt;
  return groupSize;
}

ReductionAlgorithm mlir::prec::getReductionAlgorithm(CollectiveOpInterface op) {
  assert(op.isReduction() && "only reducing collectives have an algorithm");
  if (ReductionAlgorithmAttr algorithm = op.getAlgorithmAttr())
    return algorithm.getValue();
  return op.getEffectiveAccDtype() == op.getEffectiveForwardDtype()
             ? ReductionAlgorithm::Ring
             : ReductionAlgorithm::Direct;
}

FloatType mlir::prec::getAllReduceGatherType(CollectiveOpInterface op,
                                             int64_t groupSize) {
  if (!isa<AllReduceOp>(op.getOperation()) || groupSize <= 1 ||
      getReductionAlgorithm(op) != ReductionAlgorithm::Direct)
    return {};
  auto wire = cast<FloatType>(op.getEffectiveForwardDtype());
  if (op.getScalingAttr() && isScaledLowPrecisionType(wire))
    return {};
  auto result = cast<FloatType>(op.getResult().getType().getElementType());
  return result.getWidth() <= wire.getWidth() ? result : wire;
}

ArrayRef<int16_t> mlir::prec::getInterHostAxes(shard::GridOp grid) {
  if (auto axes = grid->getAttrOfType<DenseI16ArrayAttr>(
          PrecDialect::kInterHostAxesAttrName))
    return axes.asArrayRef();
  return {};
}

std::optional<TwoLevelGroup>
mlir::prec::getTwoLevelGroup(CollectiveOpInterface op, shard::GridOp grid) {
  ArrayRef<int16_t> interHost = getInterHostAxes(grid);
  if (interHost.empty() ||
      !isa<AllGatherOp, ReduceScatterOp, AllReduceOp>(op.getOperation()))
    return std::nullopt;
  if (op.getScalingAttr() || op.getRounding() != RoundingMode::NearestEven ||
      !op.getInput().getType().hasStaticShape() ||
      !op.getResult().getType().hasStaticShape() ||
      llvm::any_of(grid.getShape(), ShapedType::isDynamic))
    return std::nullopt;
  // Partial sums cross hosts in the inter-host dtype (acc_dtype by
  // default): one no runtime moves keeps the reduction one level.
  if (isa<ReduceScatterOp, AllReduceOp>(op.getOperation()) &&
      !isWireFloatType(getEffectiveInterHostDtype(op)))
    return std::nullopt;
  TwoLevelGroup group;
  if (op.getGridAxes().empty()) {
    for (int16_t axis = 0; axis < grid.getRank(); ++axis)
      group.axes.push_back(axis);
  } else {
    group.axes.assign(op.getGridAxes().begin(), op.getGridAxes().end());
  }
  for (int16_t axis : group.axes) {
    int64_t extent = grid.getShape()[axis];
    if (llvm::is_contained(interHost, axis)) {
      group.interHostAxes.push_back(axis);
      group.hosts *= extent;
    } else {
      group.intraHostAxes.push_back(axis);
      group.ranksPerHost *= extent;
    }
  }
  if (group.hosts <= 1 || group.ranksPerHost <= 1)
    return std::nullopt;
  return group;
}

FloatType mlir::prec::getEffectiveInterHostDtype(CollectiveOpInterface op) {
  if (TypeAttr dtype = op.getInterHostDtypeAttr())
    return cast<FloatType>(dtype.getValue());
  return cast<FloatType>(op.getEffectiveAccDtype());
}

int64_t mlir::prec::getTwoLevelAllReduceSlice(AllReduceOp op,
                                              int64_t ranksPerHost) {
  int64_t slice =
      llvm::divideCeil(op.getType().getNumElements(), ranksPerHost);
  ScalingAttr scaling = op.getInterHostScalingAttr();
  if (scaling && scaling.getKind() == ScalingKind::Block)
    slice = llvm::alignTo(slice, scaling.getBlockSize());
  return slice;
}

FloatType mlir::prec::getEffectiveGradInterHostDtype(AllGatherOp gather) {
  if (TypeAttr dtype = gather.getGradInterHostDtypeAttr())
    return cast<FloatType>(dtype.getValue());
  return getDefaultAccumulationType(
      cast<FloatType>(gather.getEffectiveBackwardDtype()));
}

LogicalResult mlir::prec::verifyInterHostWireDtype(
    function_ref<InFlightDiagnostic()> emitError, StringRef clause,
    FloatType dtype, FloatType accDtype, ScalingAttr scaling,
    StringRef scalingClause) {
  StringRef article =
      StringRef("aeiou").contains(clause.front()) ? "an " : "a ";
  if (!isWireFloatType(dtype))
    return emitError() << "expected " << article << clause
                       << " the runtimes move (" << kWireFloatTypes << "), got "
                       << dtype;
  if (!floatTypeContains(accDtype, dtype))
    return emitError() << "expected " << article << clause << " that acc_dtype "
                       << accDtype << " holds (partial sums are summed in it), "
                       << "got " << dtype;
  bool fp8 = isScaledLowPrecisionType(dtype);
  if (fp8 && !scaling)
    return emitError() << "expected " << scalingClause << " for the " << dtype
                       << " " << clause << ": an fp8 wire needs scales";
  if (!fp8 && scaling)
    return emitError() << scalingClause << " given but " << clause << " "
                       << dtype << " is not an fp8 type";
  if (scaling && scaling.getKind() == ScalingKind::Delayed)
    return emitError() << "expected " << scalingClause
                       << " <dynamic> or <block, ...>: delayed scaling keeps "
                          "an amax history across steps, which a collective "
                          "has no operand for";
  if (fp8 && accDtype.getWidth() > 32)
    return emitError() << "expected an acc_dtype of 32 bits or fewer with the "
                       << dtype << " " << clause << ", got " << accDtype
                       << ": scales are f32, and partial sums beyond its "
                          "range would saturate";
  return success();
}

ReductionDivisors mlir::prec::getExplicitDivisors(CollectiveOpInterface op) {
  ReductionDivisors divisors;
  if (FloatAttr pre = op.getPreDivisorAttr())
    divisors.pre = pre.getValueAsDouble();
  if (FloatAttr post = op.getPostDivisorAttr())
    divisors.post = post.getValueAsDouble();
  return divisors;
}

ReductionDivisors mlir::prec::getAverageDivisors(int64_t divisor,
                                                 FloatType accType,
                                                 int64_t terms) {
  assert(divisor >= 1 && "expected a positive divisor");
  const llvm::fltSemantics &f32 = llvm::APFloat::IEEEsingle();
  if (llvm::APFloat::semanticsMaxExponent(accType.getFloatSemantics()) >=
      llvm::APFloat::semanticsMaxExponent(f32))
    return {1.0, static_cast<double>(divisor)};
  terms = std::max(terms, divisor);
  int64_t pre = 1;
  while (4 * pre * pre <= 2 * terms && 2 * pre <= divisor)
    pre *= 2;
  return {static_cast<double>(pre),
          static_cast<double>(divisor) / static_cast<double>(pre)};
}

/// Shapes are written as in tensor types, `?` for dynamic extents.
static std::string formatExtent(int64_t extent) {
  return ShapedType::isDynamic(extent) ? "?" : std::to_string(extent);
}

/// Verifies that `type` (or its element type) can hold the values ops
/// compute with: a float type without a zero (f8E8M0FNU, a scale-only type)
/// cannot accumulate, average or carry data, only scales.
static LogicalResult verifyValueFloatType(Operation *op, StringRef name,
                                          Type type) {
  auto floatType = dyn_cast<FloatType>(getElementTypeOrSelf(type));
  if (!floatType ||
      llvm::APFloat::semanticsHasZero(floatType.getFloatSemantics()))
    return success();
  return op->emitOpError("expected ")
         << name << " of a float type with a zero, got " << floatType
         << " (a scale-only type)";
}

/// Stochastic rounding draws its random words from a stream keyed by a
/// seed operand; round-to-nearest needs none.
static LogicalResult verifySeed(Operation *op, RoundingMode rounding,
                                Value seed) {
  if (rounding == RoundingMode::Stochastic && !seed)
    return op->emitOpError("expected a seed operand for stochastic rounding "
                           "(`seed %s` with an i64 value)");
  if (rounding != RoundingMode::Stochastic && seed)
    return op->emitOpError("seed given, but rounding is nearest_even");
  return success();
}

//===----------------------------------------------------------------------===//
// CastOp
//===----------------------------------------------------------------------===//

Type CastOp::getEffectiveBackwardDtype() {
  if (std::optional<Type> dtype = getBackwardDtype())
    return *dtype;
  return getElementTypeOrSelf(getInput().getType());
}

LogicalResult CastOp::verify() {
  if (failed(verifySeed(*this, getRounding(), getSeed())))
    return failure();
  Type inputType = getInput().getType(), resultType = getType();
  if (failed(verifyValueFloatType(*this, "input", inputType)) ||
      failed(verifyValueFloatType(*this, "result", resultType)) ||
      failed(verifyValueFloatType(*this, "backward_dtype",
                                  getEffectiveBackwardDtype())))
    return failure();
  auto inputShaped = dyn_cast<ShapedType>(inputType);
  auto resultShaped = dyn_cast<ShapedType>(resultType);
  if (static_cast<bool>(inputShaped) != static_cast<bool>(resultShaped) ||
      (inputShaped && failed(verifyCompatibleShape(inputShaped.getShape(),
                                                   resultShaped.getShape()))))
    return emitOpError("expected input and result of the same shape, got ")
           << inputType << " and " << resultType;
  return success();
}

/// A cast whose gradient is cast back to its own input type, i.e. one that
/// says nothing about the backward pass beyond the forward types.
static bool hasDefaultBackwardDtype(CastOp cast) {
  return cast.getEffectiveBackwardDtype() ==
         getElementTypeOrSelf(cast.getInput().getType());
}

OpFoldResult CastOp::fold(FoldAdaptor) {
  if (!hasDefaultBackwardDtype(*this))
    return {};
  if (getInput().getType() == getType())
    return getInput();

  // A -> B -> C is A -> C when B holds every value of A and of C: the first
  // cast is exact forwards and the gradient's C -> B is exact backwards, so
  // each direction still rounds exactly once.
  auto producer = getInput().getDefiningOp<CastOp>();
  if (!producer || !hasDefaultBackwardDtype(producer))
    return {};
  auto source = cast<FloatType>(getElementTypeOrSelf(producer.getInput()));
  auto middle = cast<FloatType>(getElementTypeOrSelf(producer.getType()));
  auto target = cast<FloatType>(getElementTypeOrSelf(getType()));
  if (!floatTypeContains(middle, source) || !floatTypeContains(middle, target))
    return {};
  if (producer.getInput().getType() == getType())
    return producer.getInput();
  getInputMutable().assign(producer.getInput());
  return getResult();
}

//===----------------------------------------------------------------------===//
// ReduceOp
//===----------------------------------------------------------------------===//

/// Verifies that `dims` are distinct dimensions of a tensor of rank `rank`.
static LogicalResult verifyDimList(Operation *op, StringRef name,
                                   ArrayRef<int64_t> dims, int64_t rank) {
  llvm::SmallSet<int64_t, 4> seen;
  for (int64_t dim : dims) {
    if (dim < 0 || dim >= rank)
      return op->emitOpError("expected ")
             << name << " in [0, " << rank << "), got " << dim;
    if (!seen.insert(dim).second)
      return op->emitOpError("expected distinct ")
             << name << ", got " << dim << " twice";
  }
  return success();
}

/// Verifies that `acc` can accumulate values of `input` without rounding them
/// first.
static LogicalResult verifyAccumulationType(Operation *op, Type acc,
                                            Type input, StringRef inputName) {
  if (floatTypeContains(cast<FloatType>(acc), cast<FloatType>(input)))
    return success();
  return op->emitOpError("expected acc_dtype that represents every value of ")
         << inputName << " " << input << ", got " << acc;
}

LogicalResult ReduceOp::verify() {
  RankedTensorType inputType = getInput().getType();
  if (failed(verifyValueFloatType(*this, "input", inputType)) ||
      failed(verifyValueFloatType(*this, "result", getType())) ||
      (getAccDtype() &&
       failed(verifyValueFloatType(*this, "acc_dtype", *getAccDtype()))))
    return failure();
  if (failed(verifyDimList(*this, "dims", getDims(), inputType.getRank())))
    return failure();
  SmallVector<int64_t> expectedShape;
  for (auto [dim, extent] : llvm::enumerate(inputType.getShape()))
    if (!llvm::is_contained(getDims(), static_cast<int64_t>(dim)))
      expectedShape.push_back(extent);
  if (failed(verifyCompatibleShape(expectedShape, getType().getShape())))
    return emitOpError("expected result shape [")
           << llvm::map_range(expectedShape, formatExtent)
           << "] (input shape without dims), got " << getType();
  if (std::optional<Type> acc = getAccDtype())
    return verifyAccumulationType(*this, *acc, inputType.getElementType(),
                                  "the input type");
  return success();
}

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

bool mlir::prec::convertsToScaledWire(CollectiveOpInterface op) {
  Type forward = op.getEffectiveForwardDtype();
  return op.getScalingAttr() && isScaledLowPrecisionType(forward) &&
         op.getInput().getType().getElementType() != forward;
}

/// An fp8 result is the wire's own data; converting to it on arrival would
/// need a scale that nothing provides.
static LogicalResult verifyFp8Result(CollectiveOpInterface op) {
  Type forward = op.getEffectiveForwardDtype();
  Type result = op.getResult().getType().getElementType();
  if (!isScaledLowPrecisionType(result) || result == forward)
    return success();
  return op->emitOpError("expected an fp8 result to be the wire dtype, got ")
         << result << " from the " << forward
         << " wire: a conversion to fp8 needs a scale; quantize with "
         << "prec.quantize and move the fp8 tensor";
}

/// Checks of a collective that need no grid: axes, dtypes, scaling.
static LogicalResult verifyCollectiveLocally(CollectiveOpInterface op) {
  Operation *operation = op.getOperation();
  llvm::SmallSet<int16_t, 4> seen;
  for (int16_t axis : op.getGridAxes()) {
    if (axis < 0)
      return operation->emitOpError("expected non-negative grid axes, got ")
             << axis;
    if (!seen.insert(axis).second)
      return operation->emitOpError("expected distinct grid axes, got ")
             << axis << " twice";
  }

  // The seed is not data, so the shape traits cannot say this.
  RankedTensorType inputType = op.getInput().getType();
  RankedTensorType resultType = op.getResult().getType();
  if (isa<AllReduceOp>(operation)) {
    if (failed(verifyCompatibleShape(inputType.getShape(),
                                     resultType.getShape())))
      return operation->emitOpError("requires the same shape for input and "
                                    "result, got ")
             << inputType << " and " << resultType;
  } else if (inputType.getRank() != resultType.getRank()) {
    return operation->emitOpError("requires the same rank for input and "
                                  "result, got ")
           << inputType << " and " << resultType;
  }
  Value seed = op.getSeed();
  if (failed(verifySeed(operation, op.getRounding(), seed)))
    return failure();

  if (failed(verifyFp8Result(op)))
    return failure();
  Type forward = op.getEffectiveForwardDtype();
  // A gather or all_to_all rounds stochastically on the wire; converting the
  // received values to a narrower result would round them again, on every
  // receiving rank.
  auto wireType = dyn_cast<FloatType>(forward);
  auto resultFloat = dyn_cast<FloatType>(resultType.getElementType());
  if (!op.isReduction() && seed && !op.getScalingAttr() && wireType &&
      resultFloat && !floatTypeContains(resultFloat, wireType))
    return operation->emitOpError("rounds stochastically on the wire: "
                                  "expected a result element type that "
                                  "holds every forward_dtype ")
           << wireType << " value, got " << resultFloat
           << " (round once, on the wire: forward_dtype = the result element "
              "type)";
  TypeAttr acc = op.getAccDtypeAttr();
  std::pair<StringRef, Type> valueTypes[] = {
      {"input", op.getInput().getType()},
      {"result", op.getResult().getType()},
      {"forward_dtype", forward},
      {"backward_dtype", op.getEffectiveBackwardDtype()},
      {"acc_dtype", acc ? acc.getValue() : Type()}};
  // Scale-only types (f8E8M0FNU block scales) may move, unconverted; they
  // cannot be reduced or converted to.
  Type inputElement = op.getInput().getType().getElementType();
  bool movesUnconverted = !op.isReduction() && forward == inputElement &&
                          op.getResult().getType().getElementType() ==
                              inputElement;
  for (auto [name, type] : valueTypes)
    if (type && !movesUnconverted &&
        failed(verifyValueFloatType(operation, name, type)))
      return failure();
  if (acc && failed(verifyAccumulationType(operation, acc.getValue(), forward,
                                           "forward_dtype")))
    return failure();
  // Wires are what a runtime moves: one it cannot move has no lowering,
  // whichever passes run before (folding casts may narrow a wire, but the
  // program must be valid without it). Block scales move as bytes.
  std::pair<StringRef, TypeAttr> wires[] = {
      {"forward_dtype", op.getForwardDtypeAttr()},
      {"backward_dtype", op.getBackwardDtypeAttr()}};
  for (auto [name, attr] : wires) {
    Type wire = attr ? attr.getValue() : forward;
    if (isWireFloatType(wire) ||
        (movesUnconverted && isa<Float8E8M0FNUType>(wire)))
      continue;
    InFlightDiagnostic diag = operation->emitOpError("expected ") << name;
    if (!attr)
      diag << (name == "forward_dtype" ? " (the input element type)"
                                       : " (the forward_dtype)");
    return diag << " to be a wire dtype the runtimes move (" << kWireFloatTypes
                << "), got " << wire;
  }

  ScalingAttr scaling = op.getScalingAttr();
  TypeAttr backward = op.getBackwardDtypeAttr();
  // A conversion to fp8 needs a scale; fp8 data that is already quantized
  // (the input of the forward pass, the result of the backward pass) moves
  // as it is. The backward wire is the effective one: prec-infer-precision
  // writes the default down, which must verify as well.
  Type resultElement = op.getResult().getType().getElementType();
  Type backwardWire = op.getEffectiveBackwardDtype();
  if (forward != inputElement && isScaledLowPrecisionType(forward) &&
      !scaling)
    return operation->emitOpError("expected a scaling mode for the ")
           << forward << " wire dtype: an fp8 collective needs scales";
  if (backwardWire != resultElement &&
      isScaledLowPrecisionType(backwardWire) && !scaling) {
    InFlightDiagnostic diag = operation->emitOpError(
        "expected a scaling mode for the ")
        << backwardWire << " wire dtype of the gradient";
    if (!backward)
      diag << " (backward_dtype defaults to forward_dtype)";
    return diag << ": an fp8 collective needs scales; or a backward_dtype "
                   "the gradient's "
                << resultElement << " converts to without one";
  }
  if (scaling && !isScaledLowPrecisionType(forward) &&
      !(backward && isScaledLowPrecisionType(backward.getValue())))
    return operation->emitOpError("scaling given but neither forward_dtype ")
           << forward << " nor backward_dtype is an fp8 type";
  if (!scaling)
    return success();
  if (scaling.getKind() == ScalingKind::Delayed)
    return operation->emitOpError(
        "delayed scaling keeps an amax history across steps, which a "
        "collective has no operand for: compute the scale from the history "
        "and quantize with prec.quantize before the collective");
  if (isScaledLowPrecisionType(resultElement) && inputElement != forward)
    return operation->emitOpError("expected a result wider than the ")
           << forward << " wire: a scaled fp8 result would lose its scale; "
           << "quantize with prec.quantize and move the fp8 tensor instead";
  if (!convertsToScaledWire(op))
    return success();
  // The terms are dequantized before they are combined: in a type with
  // arithmetic, never in an fp8 type.
  if (Type accType = op.getEffectiveAccDtype();
      accType && isScaledLowPrecisionType(accType))
    return operation->emitOpError("expected an acc_dtype with arithmetic "
                                  "(f16 or wider) for the scaled ")
           << forward << " wire, got " << accType;
  if (scaling.getKind() != ScalingKind::Block)
    return success();
  // One scale per block of the innermost dimension.
  int64_t blockSize = scaling.getBlockSize();
  if (inputType.getRank() == 0)
    return operation->emitOpError("block scaling needs an input of rank >= 1, "
                                  "got ")
           << inputType;
  int64_t innermost = inputType.getShape().back();
  if (!ShapedType::isDynamic(innermost) && innermost % blockSize != 0)
    return operation->emitOpError("expected the innermost dimension of ")
           << inputType << " to be a multiple of block_size " << blockSize;
  return success();
}

/// For a collective that converts to a block-scaled fp8 wire and splits the
/// innermost dimension among the ranks (`splitAxis`): each rank's chunk must
/// hold whole blocks.
static LogicalResult verifyScaledChunks(CollectiveOpInterface op,
                                        int64_t splitAxis, int64_t groupSize) {
  ScalingAttr scaling = op.getScalingAttr();
  RankedTensorType inputType = op.getInput().getType();
  int64_t last = inputType.getRank() - 1;
  if (!scaling || scaling.getKind() != ScalingKind::Block ||
      !convertsToScaledWire(op) || splitAxis != last ||
      ShapedType::isDynamic(groupSize) ||
      ShapedType::isDynamic(inputType.getShape().back()))
    return success();
  int64_t chunk = inputType.getShape().back() / groupSize;
  if (chunk % scaling.getBlockSize() == 0)
    return success();
  return op->emitOpError("expected the chunks of dimension ")
         << last << " sent to each rank (" << chunk
         << " elements) to be a multiple of block_size "
         << scaling.getBlockSize();
}

/// Verifies that the dimensions of input and result agree, except
/// `exceptDims`, which the collective resizes.
static LogicalResult verifySameExtentsExcept(CollectiveOpInterface op,
                                             ArrayRef<int64_t> exceptDims) {
  ArrayRef<int64_t> inputShape = op.getInput().getType().getShape();
  ArrayRef<int64_t> resultShape = op.getResult().getType().getShape();
  for (auto [dim, extents] :
       llvm::enumerate(llvm::zip_equal(inputShape, resultShape))) {
    auto [in, out] = extents;
    if (llvm::is_contained(exceptDims, static_cast<int64_t>(dim)) ||
        ShapedType::isDynamic(in) || ShapedType::isDynamic(out) || in == out)
      continue;
    return op->emitOpError("expected result dimension ")
           << dim << " to equal the input's (" << in << "), got " << out;
  }
  return success();
}

/// Resolves the grid an op names and checks the axes against it.
static FailureOr<shard::GridOp> verifyGridUse(Operation *op,
                                              FlatSymbolRefAttr gridName,
                                              ArrayRef<int16_t> axes,
                                              SymbolTableCollection &symbolTable) {
  Operation *symbol = symbolTable.lookupNearestSymbolFrom(op, gridName);
  if (!symbol)
    return op->emitOpError("expected grid ")
           << gridName << " to name a 'shard.grid', found no such symbol";
  auto grid = dyn_cast<shard::GridOp>(symbol);
  if (!grid)
    return op->emitOpError("expected grid ")
           << gridName << " to name a 'shard.grid', found '"
           << symbol->getName() << "'";
  for (int16_t axis : axes)
    if (axis >= grid.getRank())
      return op->emitOpError("expected grid axes of ")
             << gridName << " in [0, " << grid.getRank() << "), got " << axis;
  // Group sizes divide shapes and scale results: they must be positive and
  // fit the runtime's 32-bit ranks.
  int64_t ranks = 1;
  for (auto [axis, extent] : llvm::enumerate(grid.getShape())) {
    if (ShapedType::isDynamic(extent))
      continue;
    if (extent < 1)
      return op->emitOpError("expected grid ")
             << gridName << " to have axes of positive size, got " << extent
             << " on axis " << axis;
    if (llvm::MulOverflow(ranks, extent, ranks) ||
        ranks > std::numeric_limits<int32_t>::max())
      return op->emitOpError("expected grid ")
             << gridName << " of at most "
             << std::numeric_limits<int32_t>::max() << " ranks";
  }
  return grid;
}

static FailureOr<shard::GridOp>
verifyGridUse(CollectiveOpInterface op, SymbolTableCollection &symbolTable) {
  return verifyGridUse(op, op.getGridAttr(), op.getGridAxes(), symbolTable);
}

/// Verifies `large == small * groupSize`, where a dynamic extent on either
/// side (or a dynamic group) defers the check to run time.
static LogicalResult verifyScaledExtent(CollectiveOpInterface op,
                                        StringRef which, int64_t dim,
                                        int64_t small, int64_t large,
                                        int64_t groupSize) {
  if (ShapedType::isDynamic(small) || ShapedType::isDynamic(large) ||
      ShapedType::isDynamic(groupSize))
    return success();
  int64_t expected;
  if (llvm::MulOverflow(small, groupSize, expected))
    return op->emitOpError("expected ")
           << which << " dimension " << dim << " to be " << small
           << " x group size " << groupSize << ", which overflows int64";
  if (large == expected)
    return success();
  return op->emitOpError("expected ")
         << which << " dimension " << dim << " to be " << expected << " ("
         << small << " x group size " << groupSize << "), got " << large;
}

static LogicalResult verifyInterHostDtype(CollectiveOpInterface op,
                                          shard::GridOp grid, TypeAttr dtype,
                                          StringRef clause);

/// Block-scaled partial sums cross hosts in whole blocks of the innermost
/// dimension of `shard`, what a reduce_scatter leaves on each rank (an
/// all_reduce pads its slices to whole blocks).
static LogicalResult verifyInterHostBlocks(Operation *op, StringRef clause,
                                           ScalingAttr scaling,
                                           RankedTensorType shard) {
  if (!scaling || scaling.getKind() != ScalingKind::Block)
    return success();
  int64_t innermost = shard.getRank() ? shard.getShape().back() : 1;
  if (ShapedType::isDynamic(innermost) ||
      innermost % scaling.getBlockSize() == 0)
    return success();
  return op->emitOpError("expected the innermost dimension of ")
         << shard << " to be a multiple of the block_size "
         << scaling.getBlockSize() << " of " << clause
         << " (partial sums cross hosts in whole blocks)";
}

/// The group size of a collective whose grid use was verified.
static FailureOr<int64_t> verifiedGroupSize(CollectiveOpInterface op,
                                            SymbolTableCollection &tables) {
  FailureOr<shard::GridOp> grid = verifyGridUse(op, tables);
  if (failed(grid))
    return failure();
  return getCollectiveGroupSize(*grid, op.getGridAxes());
}

static LogicalResult verifyAxisInRange(Operation *op, StringRef name,
                                       int64_t axis, int64_t rank) {
  if (axis >= 0 && axis < rank)
    return success();
  return op->emitOpError("expected ")
         << name << " in [0, " << rank << "), got " << axis;
}

/// The gradient reduction's inter_host_dtype (an all_gather's or an
/// all_reduce's `grad_inter_host_dtype`), under that reduction's rules: it
/// accumulates in the default dtype of backward_dtype and keeps the forward
/// op's scaling (it always rounds to nearest even).
template <typename OpTy>
static LogicalResult verifyGradInterHostDtype(OpTy op) {
  if (op.getGradInterHostScalingAttr() && !op.getGradInterHostDtypeAttr())
    return op.emitOpError("grad_inter_host_scaling given without an fp8 "
                          "grad_inter_host_dtype");
  TypeAttr gradInterHost = op.getGradInterHostDtypeAttr();
  if (!gradInterHost)
    return success();
  auto emit = [&] { return op.emitOpError(); };
  if (failed(verifyInterHostWireDtype(
          emit, "grad_inter_host_dtype",
          cast<FloatType>(gradInterHost.getValue()),
          getDefaultAccumulationType(
              cast<FloatType>(op.getEffectiveBackwardDtype())),
          op.getGradInterHostScalingAttr(), "grad_inter_host_scaling")))
    return failure();
  if (op.getScalingAttr())
    return op.emitOpError("expected no scaling with grad_inter_host_dtype "
                          "(the gradient keeps this op's scaling, and "
                          "two-level reductions do not scale)");
  return success();
}

LogicalResult AllGatherOp::verify() {
  // The gradient is a reduce_scatter with this reduction; only the linear
  // ones are a transpose of the gather.
  ReductionKind gradReduction = getGradReduction();
  if (gradReduction != ReductionKind::Sum &&
      gradReduction != ReductionKind::Avg)
    return emitOpError("expected grad_reduction <sum> or <avg>, got <")
           << stringifyReductionKind(gradReduction) << ">";
  if (failed(verifyGradInterHostDtype(*this)))
    return failure();
  if (getGradInterHostDtypeAttr() &&
      failed(verifyInterHostBlocks(*this, "grad_inter_host_scaling",
                                   getGradInterHostScalingAttr(),
                                   getInput().getType())))
    return failure();
  if (failed(verifyCollectiveLocally(*this)) ||
      failed(verifyAxisInRange(*this, "gather_axis", static_cast<int64_t>(getGatherAxis()),
                               getInput().getType().getRank())))
    return failure();
  return verifySameExtentsExcept(*this, {static_cast<int64_t>(getGatherAxis())});
}

LogicalResult
AllGatherOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  FailureOr<shard::GridOp> grid = verifyGridUse(*this, symbolTable);
  if (failed(grid) ||
      failed(verifyInterHostDtype(*this, *grid, getGradInterHostDtypeAttr(),
                                  "grad_inter_host_dtype")))
    return failure();
  int64_t groupSize = getCollectiveGroupSize(*grid, getGridAxes());
  int64_t axis = static_cast<int64_t>(getGatherAxis());
  return verifyScaledExtent(*this, "result", axis,
                            getInput().getType().getDimSize(axis),
                            getType().getDimSize(axis), groupSize);
}

/// Checks the explicit divisors and the algorithm of a reducing collective:
/// divisors are positive, finite and only combine with a plain sum (an `avg`
/// with divisors would divide twice); a ring re-rounds partial sums to the
/// wire dtype, which the contract allows only when that is the acc_dtype.
template <typename ReductionOp>
static LogicalResult verifyReductionScalingAndAlgorithm(ReductionOp op) {
  std::pair<StringRef, FloatAttr> divisors[] = {
      {"pre_divisor", op.getPreDivisorAttr()},
      {"post_divisor", op.getPostDivisorAttr()}};
  for (auto [name, divisor] : divisors) {
    if (!divisor)
      continue;
    double value = divisor.getValueAsDouble();
    if (!std::isfinite(value) || value <= 0.0)
      return op.emitOpError("expected a positive finite ")
             << name << ", got " << value;
    // The quotient lives in acc_dtype: a divisor outside its normal range
    // sends every value of the type to 0 or to infinity (x / 1e39 in f32).
    auto acc = cast<FloatType>(op.getEffectiveAccDtype());
    const llvm::fltSemantics &semantics = acc.getFloatSemantics();
    llvm::APFloat converted(value);
    bool losesInfo = false;
    converted.convert(semantics, llvm::APFloat::rmNearestTiesToEven,
                      &losesInfo);
    if (!converted.isFiniteNonZero() || converted.isDenormal()) {
      SmallString<16> smallest, largest;
      llvm::APFloat::getSmallestNormalized(semantics).toString(smallest);
      llvm::APFloat::getLargest(semantics).toString(largest);
      return op.emitOpError("expected a ")
             << name << " in the normal range of acc_dtype " << acc << " ["
             << smallest << ", " << largest << "], got " << value;
    }
    if (op.getReduction() != ReductionKind::Sum)
      return op.emitOpError("expected reduction = <sum> with ")
             << name << ", got <" << stringifyReductionKind(op.getReduction())
             << ">";
  }
  Type acc = op.getEffectiveAccDtype();
  // With a scaled fp8 accumulation the scale is chosen from the values being
  // summed, so a divisor applied before it changes nothing: the sum needs
  // headroom in the scale, which a divisor cannot express.
  if (op.getReduction() == ReductionKind::Avg && isScaledLowPrecisionType(acc))
    return op.emitOpError("cannot average in the scaled accumulation dtype ")
           << acc << ": a divisor gives the sum no headroom";
  if (op.getInterHostScalingAttr() && !op.getInterHostDtypeAttr())
    return op.emitOpError("inter_host_scaling given without an fp8 "
                          "inter_host_dtype");
  if (TypeAttr interHost = op.getInterHostDtypeAttr()) {
    auto emit = [&] { return op.emitOpError(); };
    if (failed(verifyInterHostWireDtype(
            emit, "inter_host_dtype", cast<FloatType>(interHost.getValue()),
            cast<FloatType>(acc), op.getInterHostScalingAttr(),
            "inter_host_scaling")))
      return failure();
    if (op.getScalingAttr() || op.getRounding() != RoundingMode::NearestEven)
      return op.emitOpError("expected rounding = <nearest_even> and no "
                            "scaling with inter_host_dtype (two-level "
                            "reductions round to nearest even)");
  }
  if (op.getAlgorithm() != ReductionAlgorithm::Ring)
    return success();
  Type forward = op.getEffectiveForwardDtype();
  if (acc == forward)
    return success();
  return op.emitOpError("expected acc_dtype equal to forward_dtype ")
         << forward << " for a ring reduction (it rounds partial sums to the "
         << "wire dtype), got " << acc;
}

/// An `inter_host_dtype` (or a gather's `grad_inter_host_dtype`, named by
/// `clause`) needs a grid with a topology and a group with axes on both
/// levels: anywhere else there are no partial sums between hosts.
static LogicalResult verifyInterHostDtype(CollectiveOpInterface op,
                                          shard::GridOp grid, TypeAttr dtype,
                                          StringRef clause) {
  if (!dtype)
    return success();
  ArrayRef<int16_t> interHost = getInterHostAxes(grid);
  if (interHost.empty())
    return op->emitOpError("has ")
           << clause << ", but grid " << op.getGridAttr() << " declares no '"
           << PrecDialect::kInterHostAxesAttrName << "'";
  SmallVector<int16_t> axes(op.getGridAxes());
  if (axes.empty())
    for (int16_t axis = 0; axis < grid.getRank(); ++axis)
      axes.push_back(axis);
  // An axis of extent 1 takes no rank to another host or another device:
  // a level needs an axis of another extent.
  auto spans = [&](bool acrossHosts) {
    return llvm::any_of(axes, [&](int16_t axis) {
      return llvm::is_contained(interHost, axis) == acrossHosts &&
             grid.getShape()[axis] != 1;
    });
  };
  if (spans(/*acrossHosts=*/true) && spans(/*acrossHosts=*/false))
    return success();
  InFlightDiagnostic diag = op->emitOpError("has ")
                            << clause << ", but its group (grid axes [";
  llvm::interleaveComma(axes, diag);
  diag << "] of " << op.getGridAttr() << ") does not span both levels (inter-"
       << "host axes [";
  llvm::interleaveComma(interHost, diag);
  return diag << "]; axes of extent 1 span neither)";
}

LogicalResult ReduceScatterOp::verify() {
  if (failed(verifyCollectiveLocally(*this)) ||
      failed(verifyReductionScalingAndAlgorithm(*this)) ||
      failed(verifyInterHostBlocks(*this, "inter_host_scaling",
                                   getInterHostScalingAttr(), getType())) ||
      failed(verifyAxisInRange(*this, "scatter_axis", static_cast<int64_t>(getScatterAxis()),
                               getInput().getType().getRank())))
    return failure();
  return verifySameExtentsExcept(*this, {static_cast<int64_t>(getScatterAxis())});
}

LogicalResult
ReduceScatterOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  FailureOr<shard::GridOp> grid = verifyGridUse(*this, symbolTable);
  if (failed(grid) ||
      failed(verifyInterHostDtype(*this, *grid, getInterHostDtypeAttr(),
                                  "inter_host_dtype")))
    return failure();
  int64_t groupSize = getCollectiveGroupSize(*grid, getGridAxes());
  int64_t axis = static_cast<int64_t>(getScatterAxis());
  if (failed(
          verifyScaledExtent(*this, "input", axis, getType().getDimSize(axis),
                             getInput().getType().getDimSize(axis), groupSize)))
    return failure();
  return verifyScaledChunks(*this, axis, groupSize);
}

LogicalResult AllReduceOp::verify() {
  if (failed(verifyCollectiveLocally(*this)) ||
      failed(verifyGradInterHostDtype(*this)))
    return failure();
  // Only a linear reduction has a gradient all_reduce to cross hosts.
  if ((getGradInterHostDtypeAttr() || getGradInterHostScalingAttr()) &&
      getReduction() != ReductionKind::Sum &&
      getReduction() != ReductionKind::Avg)
    return emitOpError("expected reduction <sum> or <avg> with "
                       "grad_inter_host_dtype (only they have a gradient "
                       "all_reduce), got <")
           << stringifyReductionKind(getReduction()) << ">";
  // The gradient all_reduce pads its slices to whole blocks, as this one
  // does (getTwoLevelAllReduceSlice).
  return verifyReductionScalingAndAlgorithm(*this);
}

LogicalResult
AllReduceOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  FailureOr<shard::GridOp> grid = verifyGridUse(*this, symbolTable);
  if (failed(grid) ||
      failed(verifyInterHostDtype(*this, *grid, getInterHostDtypeAttr(),
                                  "inter_host_dtype")))
    return failure();
  return verifyInterHostDtype(*this, *grid, getGradInterHostDtypeAttr(),
                              "grad_inter_host_dtype");
}

LogicalResult AllToAllOp::verify() {
  int64_t rank = getInput().getType().getRank();
  if (failed(verifyCollectiveLocally(*this)) ||
      failed(verifyAxisInRange(*this, "split_axis", static_cast<int64_t>(getSplitAxis()), rank)) ||
      failed(verifyAxisInRange(*this, "concat_axis", static_cast<int64_t>(getConcatAxis()), rank)))
    return failure();
  return verifySameExtentsExcept(*this, {static_cast<int64_t>(getSplitAxis()), static_cast<int64_t>(getConcatAxis())});
}

LogicalResult
AllToAllOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  FailureOr<int64_t> groupSize = verifiedGroupSize(*this, symbolTable);
  if (failed(groupSize))
    return failure();
  int64_t split = static_cast<int64_t>(getSplitAxis()), concat = static_cast<int64_t>(getConcatAxis());
  if (failed(verifyScaledChunks(*this, split, *groupSize)))
    return failure();
  RankedTensorType inputType = getInput().getType(), resultType = getType();
  if (split == concat) {
    int64_t in = inputType.getDimSize(split), out = resultType.getDimSize(split);
    // The dimension is exchanged in group-size chunks.
    if (!ShapedType::isDynamic(in) && !ShapedType::isDynamic(*groupSize) &&
        in % *groupSize != 0)
      return emitOpError("expected dimension ")
             << split << " (" << in << ") to be divisible by the group size "
             << *groupSize;
    if (ShapedType::isDynamic(in) || ShapedType::isDynamic(out) || in == out)
      return success();
    return emitOpError("expected result dimension ")
           << split << " to equal the input's (" << in << "), got " << out;
  }
  if (failed(verifyScaledExtent(*this, "input", split,
                                resultType.getDimSize(split),
                                inputType.getDimSize(split), *groupSize)))
    return failure();
  return verifyScaledExtent(*this, "result", concat,
                            inputType.getDimSize(concat),
                            resultType.getDimSize(concat), *groupSize);
}

//===----------------------------------------------------------------------===//
// Quantization
//===----------------------------------------------------------------------===//

/// Verifies the scale operand against the scaling mode: rank-0 for per-tensor
/// scaling; one scale per block of the innermost dimension for block scaling.
static LogicalResult verifyScale(Operation *op, RankedTensorType dataType,
                                 RankedTensorType scaleType,
                                 ScalingAttr scaling) {
  // Scales that f32 holds exactly: quotients and products then round once.
  if (!isa<Float32Type, Float8E8M0FNUType>(scaleType.getElementType()))
    return op->emitOpError("expected an f32 or f8E8M0FNU scale, got ")
           << scaleType.getElementType();
  if (scaling.getKind() != ScalingKind::Block) {
    if (scaleType.getRank() != 0)
      return op->emitOpError("expected a rank-0 scale for ")
             << stringifyScalingKind(scaling.getKind())
             << " scaling, got " << scaleType;
    return success();
  }
  if (dataType.getRank() == 0)
    return op->emitOpError("block scaling needs a tensor of rank >= 1");
  if (Type scaleDtype = scaling.getScaleDtype();
      scaleDtype && scaleType.getElementType() != scaleDtype)
    return op->emitOpError("expected scale element type ")
           << scaleDtype << " (the scale_dtype), got "
           << scaleType.getElementType();
  int64_t blockSize = scaling.getBlockSize();
  int64_t inner = dataType.getShape().back();
  if (!ShapedType::isDynamic(inner) && inner % blockSize != 0)
    return op->emitOpError("expected innermost dimension (")
           << inner << ") to be a multiple of block_size " << blockSize;
  SmallVector<int64_t> expected(dataType.getShape());
  if (!ShapedType::isDynamic(inner))
    expected.back() = inner / blockSize;
  if (failed(verifyCompatibleShape(expected, scaleType.getShape())))
    return op->emitOpError("expected scale shape [")
           << llvm::map_range(expected, formatExtent)
           << "] (one scale per block of " << blockSize << "), got "
           << scaleType;
  return success();
}

/// Shared by quantize and dequantize: `low` is the low-precision side.
static LogicalResult verifyQuantization(Operation *op, RankedTensorType wide,
                                        RankedTensorType low,
                                        RankedTensorType scale,
                                        ScalingAttr scaling) {
  if (!isScaledLowPrecisionType(low.getElementType()))
    return op->emitOpError("expected an fp8 (or narrower) quantized type, got ")
           << low.getElementType();
  if (failed(verifyCompatibleShape(wide.getShape(), low.getShape())))
    return op->emitOpError("expected input and result of the same shape, got ")
           << op->getOperand(0).getType() << " and "
           << op->getResult(0).getType();
  return verifyScale(op, wide, scale, scaling);
}

LogicalResult QuantizeOp::verify() {
  if (failed(verifySeed(*this, getRounding(), getSeed())))
    return failure();
  if (failed(verifyValueFloatType(*this, "input", getInput().getType())))
    return failure();
  return verifyQuantization(*this, getInput().getType(), getType(),
                            getScale().getType(), getScaling());
}

LogicalResult DequantizeOp::verify() {
  if (failed(verifyValueFloatType(*this, "result", getType())))
    return failure();
  return verifyQuantization(*this, getType(), getInput().getType(),
                            getScale().getType(), getScaling());
}

LogicalResult AmaxOp::verify() {
  RankedTensorType inputType = getInput().getType();
  if (failed(verifyValueFloatType(*this, "input", inputType)))
    return failure();
  auto resultType = cast<ShapedType>(getType());
  std::optional<uint64_t> blockSize = getBlockSize();
  if (!blockSize) {
    if (!resultType.hasRank() || resultType.getRank() != 0)
      return emitOpError("expected a rank-0 result without block_size, got ")
             << resultType;
    return success();
  }
  auto block = static_cast<int64_t>(*blockSize);
  if (block < 1)
    return emitOpError("expected a block_size of at least 1, got ") << block;
  if (inputType.getRank() == 0)
    return emitOpError("block_size needs an input of rank >= 1");
  SmallVector<int64_t> expected(inputType.getShape());
  int64_t inner = expected.back();
  if (!ShapedType::isDynamic(inner)) {
    if (inner % block != 0)
      return emitOpError("expected innermost dimension (")
             << inner << ") to be a multiple of block_size " << block;
    expected.back() = inner / block;
  }
  if (!resultType.hasRank() ||
      failed(verifyCompatibleShape(expected, resultType.getShape())))
    return emitOpError("expected result shape [")
           << llvm::map_range(expected, formatExtent)
           << "] (one amax per block of " << block << "), got " << resultType;
  return success();
}

LogicalResult ScaleFromAmaxOp::verify() {
  Type element = getElementType();
  if (!isScaledLowPrecisionType(element))
    return emitOpError("expected an fp8 (or narrower) element_type, got ")
           << element;
  auto amaxType = cast<ShapedType>(getAmax().getType());
  if (!amaxType.hasRank() ||
      failed(verifyCompatibleShape(amaxType.getShape(),
                                   getType().getShape())))
    return emitOpError("expected result of the amax's shape, got ")
           << getType() << " for " << amaxType;
  return success();
}

//===----------------------------------------------------------------------===//
// Optimizers
//===----------------------------------------------------------------------===//

static LogicalResult verifyOptimizer(Operation *op, RankedTensorType param,
                                     RankedTensorType grad,
                                     TypedValue<RankedTensorType> shard) {
  if (failed(verifyCompatibleShape(param.getShape(), grad.getShape())))
    return op->emitOpError("expected grad of the param's shape, got param ")
           << param << " and grad " << grad;
  if (!floatTypeContains(cast<FloatType>(param.getElementType()),
                         cast<FloatType>(grad.getElementType())))
    return op->emitOpError("expected a master dtype that represents every ")
           << "grad value, got master " << param.getElementType()
           << " and grad " << grad.getElementType();
  if (shard &&
      failed(verifyCompatibleShape(param.getShape(), shard.getType().getShape())))
    return op->emitOpError("expected shard of the param's shape, got param ")
           << param << " and shard " << shard.getType();
  return success();
}

/// Checks a hyperparameter that the update uses as a constant of the master
/// dtype: finite and non-negative (as torch.optim requires), and when not 0
/// a normal value of the master dtype, which it would otherwise become 0,
/// a subnormal or infinity in.
static LogicalResult verifyHyperparameter(Operation *op, StringRef name,
                                          const llvm::APFloat &value,
                                          RankedTensorType param) {
  // Written so that NaN fails too.
  if (!(value.convertToDouble() >= 0.0) || value.isInfinity())
    return op->emitOpError("expected a finite non-negative ")
           << name << ", got " << value.convertToDouble();
  if (value.isZero())
    return success();
  auto master = cast<FloatType>(param.getElementType());
  llvm::APFloat converted = value;
  bool losesInfo = false;
  converted.convert(master.getFloatSemantics(),
                    llvm::APFloat::rmNearestTiesToEven, &losesInfo);
  if (converted.isFiniteNonZero() && !converted.isDenormal())
    return success();
  return op->emitOpError("expected ")
         << name << " 0 or a normal value of the master dtype " << master
         << ", got " << value.convertToDouble();
}

LogicalResult SGDOp::verify() {
  if (failed(verifySeed(*this, getRounding(), getSeed())) ||
      failed(verifyOptimizer(*this, getParam().getType(), getGrad().getType(),
                             getShard())))
    return failure();
  return verifyHyperparameter(*this, "weight_decay", getWeightDecay(),
                              getParam().getType());
}

LogicalResult AdamWOp::verify() {
  if (failed(verifySeed(*this, getRounding(), getSeed())))
    return failure();
  // Written so that NaN fails too.
  auto inUnitInterval = [](const llvm::APFloat &value) {
    double v = value.convertToDouble();
    return v >= 0.0 && v < 1.0;
  };
  if (!inUnitInterval(getBeta1()) || !inUnitInterval(getBeta2()))
    return emitOpError("expected beta1 and beta2 in [0, 1), got ")
           << getBeta1().convertToDouble() << " and "
           << getBeta2().convertToDouble();
  if (failed(verifyOptimizer(*this, getParam().getType(), getGrad().getType(),
                             getShard())) ||
      failed(verifyHyperparameter(*this, "eps", getEps(),
                                  getParam().getType())))
    return failure();
  return verifyHyperparameter(*this, "weight_decay", getWeightDecay(),
                              getParam().getType());
}

//===----------------------------------------------------------------------===//
// TransportOp
//===----------------------------------------------------------------------===//

static bool isReducingTransport(TransportKind kind) {
  return kind == TransportKind::ReduceScatter ||
         kind == TransportKind::AllReduce;
}

/// What prec.transport and prec.transport_start verify alike: one wire
/// dtype in and out, a reduction exactly where the kind reduces, distinct
/// axes.
static LogicalResult verifyTransport(Operation *op, TransportKind kind,
                                     RankedTensorType inputType,
                                     RankedTensorType resultType,
                                     ArrayRef<int16_t> gridAxes,
                                     std::optional<ReductionKind> reduction) {
  Type inputElement = inputType.getElementType();
  Type resultElement = resultType.getElementType();
  if (inputElement != resultElement)
    return op->emitOpError("expected input and result of one wire dtype, got ")
           << inputElement << " and " << resultElement;
  if (isReducingTransport(kind) != reduction.has_value())
    return op->emitOpError("expected a reduction exactly for reduce_scatter "
                           "and all_reduce transports");
  // Block scales (f8E8M0FNU) move as bytes, never reduced.
  if (!isWireFloatType(inputElement) &&
      !(isa<Float8E8M0FNUType>(inputElement) && !isReducingTransport(kind)))
    return op->emitOpError("expected a wire dtype the runtimes move (")
           << kWireFloatTypes << "), got " << inputElement;
  llvm::SmallSet<int16_t, 4> seen;
  for (int16_t axis : gridAxes)
    if (axis < 0 || !seen.insert(axis).second)
      return op->emitOpError("expected distinct non-negative grid axes, got ")
             << axis;
  return success();
}

/// The result size a transport's kind gives its input over the group.
static LogicalResult
verifyTransportSizes(Operation *op, SymbolTableCollection &symbolTable,
                     FlatSymbolRefAttr gridName, ArrayRef<int16_t> gridAxes,
                     TransportKind kind, RankedTensorType inputType,
                     RankedTensorType resultType) {
  FailureOr<shard::GridOp> grid =
      verifyGridUse(op, gridName, gridAxes, symbolTable);
  if (failed(grid))
    return failure();
  int64_t groupSize = getCollectiveGroupSize(*grid, gridAxes);
  int64_t in = inputType.getDimSize(0);
  int64_t out = resultType.getDimSize(0);
  if (ShapedType::isDynamic(groupSize) || ShapedType::isDynamic(in) ||
      ShapedType::isDynamic(out))
    return success();
  int64_t expected = in;
  switch (kind) {
  case TransportKind::AllGather:
    if (llvm::MulOverflow(in, groupSize, expected))
      return op->emitOpError("expected ")
             << in << " x group size " << groupSize
             << " result elements, which overflows int64";
    break;
  case TransportKind::ReduceScatter:
    if (in % groupSize != 0)
      return op->emitOpError(
                 "expected an input size divisible by the group size ")
             << groupSize << ", got " << in;
    expected = in / groupSize;
    break;
  case TransportKind::AllToAll:
    if (in % groupSize != 0)
      return op->emitOpError(
                 "expected an input size divisible by the group size ")
             << groupSize << ", got " << in;
    break;
  case TransportKind::AllReduce:
    break;
  }
  if (out != expected)
    return op->emitOpError("expected ")
           << expected << " result elements for "
           << stringifyTransportKind(kind) << " of " << in << " over "
           << groupSize << " ranks, got " << out;
  return success();
}

LogicalResult TransportOp::verify() {
  return verifyTransport(*this, getKind(), getInput().getType(), getType(),
                         getGridAxes(), getReduction());
}

LogicalResult
TransportOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  return verifyTransportSizes(*this, symbolTable, getGridAttr(), getGridAxes(),
                              getKind(), getInput().getType(), getType());
}

//===----------------------------------------------------------------------===//
// InFlightType, TransportStartOp, TransportWaitOp
//===----------------------------------------------------------------------===//

LogicalResult
InFlightType::verify(function_ref<InFlightDiagnostic()> emitError,
                     RankedTensorType result) {
  if (result.getRank() != 1)
    return emitError() << "expected the result of a transport, a 1-D tensor, "
                          "got "
                       << result;
  return success();
}

TransportWaitOp TransportStartOp::getWait() {
  Value inFlight = getInFlight();
  if (!inFlight.hasOneUse())
    return nullptr;
  return dyn_cast<TransportWaitOp>(*inFlight.getUsers().begin());
}

LogicalResult TransportStartOp::verify() {
  RankedTensorType resultType = getInFlight().getType().getResult();
  if (failed(verifyTransport(*this, getKind(), getInput().getType(),
                             resultType, getGridAxes(), getReduction())))
    return failure();
  // A transport nobody waits for would still be moving data when the step
  // returns; one waited for twice would be completed twice.
  TransportWaitOp wait = getWait();
  if (wait && wait->getBlock() == getOperation()->getBlock())
    return success();
  InFlightDiagnostic diagnostic =
      emitOpError("expected exactly one 'prec.transport_wait' of its "
                  "result, in the same block, got ")
      << std::distance(getInFlight().use_begin(), getInFlight().use_end())
      << " use(s)";
  if (wait)
    diagnostic << " (the wait is in another block)";
  else if (getInFlight().hasOneUse())
    diagnostic << " (by '" << getInFlight().getUsers().begin()->getName()
               << "')";
  return diagnostic;
}

LogicalResult
TransportStartOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  return verifyTransportSizes(*this, symbolTable, getGridAttr(), getGridAxes(),
                              getKind(), getInput().getType(),
                              getInFlight().getType().getResult());
}

LogicalResult TransportWaitOp::verify() {
  if (!getInFlight().getDefiningOp<TransportStartOp>())
    return emitOpError("expected a value of 'prec.transport_start'");
  return success();
}
