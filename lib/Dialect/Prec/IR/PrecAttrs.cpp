//===- PrecAttrs.cpp - prec attributes ------------------------------------===//

#include "prec/Dialect/Prec/IR/PrecAttrs.h"
#include "prec/Dialect/Prec/IR/PrecDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::prec;

#include "prec/Dialect/Prec/IR/PrecEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "prec/Dialect/Prec/IR/PrecAttrs.cpp.inc"

void PrecDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "prec/Dialect/Prec/IR/PrecAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// ScalingAttr
//===----------------------------------------------------------------------===//

// `<dynamic>`, `<delayed, history = H>` or
// `<block, block_size = B (, scale_dtype = T)?>`.
Attribute ScalingAttr::parse(AsmParser &parser, Type) {
  SMLoc loc = parser.getCurrentLocation();
  StringRef kindName;
  if (parser.parseLess() || parser.parseKeyword(&kindName))
    return {};
  std::optional<ScalingKind> kind = symbolizeScalingKind(kindName);
  if (!kind) {
    parser.emitError(loc, "expected scaling kind 'dynamic', 'delayed' or "
                          "'block', got '")
        << kindName << "'";
    return {};
  }
  int64_t history = 0, blockSize = 0;
  Type scaleDtype;
  while (succeeded(parser.parseOptionalComma())) {
    SMLoc keyLoc = parser.getCurrentLocation();
    StringRef key;
    if (parser.parseKeyword(&key) || parser.parseEqual())
      return {};
    ParseResult parsed = failure();
    if (key == "history")
      parsed = parser.parseInteger(history);
    else if (key == "block_size")
      parsed = parser.parseInteger(blockSize);
    else if (key == "scale_dtype")
      parsed = parser.parseType(scaleDtype);
    else
      return parser.emitError(keyLoc, "expected 'history', 'block_size' or "
                                      "'scale_dtype', got '")
                 << key << "'",
             Attribute();
    if (failed(parsed))
      return {};
  }
  if (parser.parseGreater())
    return {};
  return getChecked([&] { return parser.emitError(loc); }, parser.getContext(),
                    *kind, history, blockSize, scaleDtype);
}

void ScalingAttr::print(AsmPrinter &printer) const {
  printer << '<' << stringifyScalingKind(getKind());
  if (getKind() == ScalingKind::Delayed)
    printer << ", history = " << getHistory();
  if (getKind() == ScalingKind::Block) {
    printer << ", block_size = " << getBlockSize();
    if (getScaleDtype())
      printer << ", scale_dtype = " << getScaleDtype();
  }
  printer << '>';
}

bool mlir::prec::isSupportedFloatType(Type type) {
  return isWireFloatType(type) ||
         isa<Float80Type, Float128Type, Float8E8M0FNUType>(type);
}

bool mlir::prec::isWireFloatType(Type type) {
  return isa<Float64Type, Float32Type, Float16Type, BFloat16Type,
             Float8E4M3FNType, Float8E5M2Type>(type);
}

LogicalResult PolicyAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 FloatType param, FloatType reduce,
                                 FloatType output) {
  for (auto [entry, dtype] : {std::pair{"param", param},
                              std::pair{"reduce", reduce},
                              std::pair{"output", output}})
    if (dtype && !llvm::APFloat::semanticsHasZero(dtype.getFloatSemantics()))
      return emitError() << "expected the policy's '" << entry
                         << "' to be a float type with a zero, got " << dtype
                         << " (a scale-only type)";
  // 'param' and 'reduce' become wire dtypes of collectives, which a
  // runtime moves; 'output' is a cast's result type.
  for (auto [entry, dtype] :
       {std::pair{"param", param}, std::pair{"reduce", reduce}})
    if (dtype && !isWireFloatType(dtype))
      return emitError() << "expected the policy's '" << entry
                         << "' to be a wire dtype the runtimes move ("
                         << kWireFloatTypes << "), got " << dtype;
  if (output && !isSupportedFloatType(output))
    return emitError() << "expected the policy's 'output' to be one of "
                       << kSupportedFloatTypes << ", got " << output;
  return success();
}

LogicalResult ScalingAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                  ScalingKind kind, int64_t history,
                                  int64_t blockSize, Type scaleDtype) {
  if (kind == ScalingKind::Delayed && history < 1)
    return emitError() << "expected delayed scaling with a history of at "
                          "least 1 step, got "
                       << history;
  if (kind != ScalingKind::Delayed && history != 0)
    return emitError() << "history is only meaningful for delayed scaling";
  if (kind == ScalingKind::Block && blockSize < 1)
    return emitError() << "expected block scaling with a block_size of at "
                          "least 1, got "
                       << blockSize;
  if (kind != ScalingKind::Block && (blockSize != 0 || scaleDtype))
    return emitError() << "block_size and scale_dtype are only meaningful "
                          "for block scaling";
  // The scales the kernels compute and the runtimes move with the blocks.
  if (scaleDtype && !isa<Float8E8M0FNUType, Float32Type>(scaleDtype))
    return emitError() << "expected scale_dtype f8E8M0FNU or f32, got "
                       << scaleDtype;
  return success();
}
