//===- ErrorBounds.cpp - worst-case relative error of collectives ---------===//

#include "prec/Dialect/Prec/IR/PrecOps.h"
#include "prec/Dialect/Prec/Transforms/Passes.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <optional>

namespace mlir::prec {
#define GEN_PASS_DEF_PRECERRORBOUNDS
#include "prec/Dialect/Prec/Transforms/Passes.h.inc"
} // namespace mlir::prec

using namespace mlir;
using namespace mlir::prec;

namespace {

/// Unit roundoff of round-to-nearest in `type`: 2^-p, with p the precision
/// counting the implicit bit.
double getUnitRoundoff(Type type) {
  auto floatType = cast<FloatType>(type);
  return std::ldexp(1.0, -static_cast<int>(llvm::APFloat::semanticsPrecision(
                             floatType.getFloatSemantics())));
}

/// The relative error of converting a value of type `from` to `to`: none
/// when `to` represents every value of `from`, else one rounding.
double getConversionError(Type from, Type to) {
  if (floatTypeContains(cast<FloatType>(to), cast<FloatType>(from)))
    return 0.0;
  return getUnitRoundoff(to);
}

/// The relative error of dividing a `type` value by `divisor` and rounding
/// the quotient to `type`: none for powers of two (only the exponent
/// changes), else one rounding of the exact quotient, whether or not `type`
/// holds the divisor (buildQuotientForRounding).
double getDivisionError(double divisor, Type type) {
  int exponent;
  if (std::frexp(divisor, &exponent) == 0.5)
    return 0.0;
  return getUnitRoundoff(type);
}

/// Higham's gamma_k = k u / (1 - k u), the worst-case relative error of k
/// rounded additions; none when k u >= 1 (the bound says nothing).
std::optional<double> getGamma(int64_t k, double u) {
  double ku = static_cast<double>(k) * u;
  if (ku >= 1.0)
    return std::nullopt;
  return ku / (1.0 - ku);
}

/// Everything the bound of one collective is derived from, and the bound.
struct CollectiveBound {
  Operation *op;
  int64_t groupSize;
  Type input, forward, acc, result;
  std::optional<ReductionAlgorithm> algorithm;
  std::optional<ReductionKind> reduction;
  double preDivisor = 1.0, postDivisor = 1.0;
  /// The dtype a direct all_reduce gathers its reduced slices in.
  Type gather;
  /// None when the summation bound is vacuous ((N - 1) u >= 1).
  std::optional<double> bound;
};

std::string printType(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  type.print(os);
  return text;
}

std::string printLocation(Location loc) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (auto fileLoc = loc->findInstanceOf<FileLineColLoc>())
    os << fileLoc.getFilename().getValue() << ":" << fileLoc.getLine() << ":"
       << fileLoc.getColumn();
  else
    loc.print(os);
  return text;
}

/// Whether `op`'s fp8 wire uses OCP MX power-of-two block scales.
bool hasPowerOfTwoScales(Operation *op) {
  auto scaling = op->getAttrOfType<ScalingAttr>("scaling");
  return scaling && scaling.getKind() == ScalingKind::Block &&
         !isa_and_nonnull<Float32Type>(scaling.getScaleDtype());
}

/// Rounding added by the scaling of an fp8 wire (docs/Prec.md): the
/// quotient x / scale, rounded in f32 (in the input type where that is
/// wider), and the product q * scale, rounded once in the receiver's type.
/// Both are exact with power-of-two scales, as long as they stay normal.
std::pair<double, double> getScalingErrors(Operation *op, Type input,
                                           Type receiver) {
  if (!op->getAttrOfType<ScalingAttr>("scaling") ||
      !isScaledLowPrecisionType(
          cast<CollectiveOpInterface>(op).getEffectiveForwardDtype()))
    return {0.0, 0.0};
  if (hasPowerOfTwoScales(op))
    return {0.0, 0.0};
  auto inputType = cast<FloatType>(input);
  Type quotient = inputType.getWidth() > 32
                      ? inputType
                      : Float32Type::get(input.getContext());
  return {getUnitRoundoff(quotient), getUnitRoundoff(receiver)};
}

/// The relative error of rounding to the fp8 wire: half a spacing, or, with
/// MX block scales, the saturation of the elements that lie between the
/// largest finite value and 2^(emax + 1) times the scale (the scale of a
/// block puts its amax in [2^emax, 2^(emax + 1))): 1 - max / 2^(emax + 1),
/// 1/8 for both f8E4M3FN and f8E5M2.
double getWireError(Operation *op, Type input, Type wire, double rounding) {
  double error = rounding * getConversionError(input, wire);
  if (!isScaledLowPrecisionType(wire) || !hasPowerOfTwoScales(op))
    return error;
  llvm::APFloat largest =
      llvm::APFloat::getLargest(cast<FloatType>(wire).getFloatSemantics());
  double saturation =
      1.0 - largest.convertToDouble() / std::ldexp(1.0, llvm::ilogb(largest) + 1);
  return std::max(error, saturation);
}

/// Stochastic rounding is unbiased but may land on either neighbour: its
/// worst case is one unit in the last place, twice round-to-nearest's.
double getRoundingFactor(Operation *op) {
  auto rounding = op->getAttrOfType<RoundingModeAttr>("rounding");
  return rounding && rounding.getValue() == RoundingMode::Stochastic ? 2.0
                                                                     : 1.0;
}

FailureOr<CollectiveBound> computeBound(CollectiveOpInterface op) {
  FailureOr<int64_t> groupSize =
      getStaticCollectiveGroupSize(op, "its error bound");
  if (failed(groupSize))
    return failure();
  CollectiveBound info{};
  info.op = op;
  info.groupSize = *groupSize;
  info.input = op.getInput().getType().getElementType();
  info.forward = op.getEffectiveForwardDtype();
  info.result = op.getResult().getType().getElementType();
  // The value that is cast to the result type: the sum in acc_dtype for
  // reductions, the wire value otherwise.
  Type received = info.forward;
  double rounding = getRoundingFactor(op);
  double product =
      1.0 + getWireError(op, info.input, info.forward, rounding);
  if (op.isReduction()) {
    info.acc = getEffectiveAccDtype(op);
    info.algorithm = getReductionAlgorithm(op);
    info.reduction =
        op->getAttrOfType<ReductionKindAttr>("reduction").getValue();
    ReductionDivisors divisors = getExplicitDivisors(op);
    info.preDivisor = divisors.pre;
    info.postDivisor = divisors.post;
    if (*info.reduction == ReductionKind::Avg)
      info.postDivisor = static_cast<double>(info.groupSize);
    received = info.acc;
    product *= 1.0 + getDivisionError(info.preDivisor, info.input);
    product *= 1.0 + getDivisionError(info.postDivisor, info.acc);
    // max and min select a value: they round nothing.
    if (*info.reduction == ReductionKind::Sum ||
        *info.reduction == ReductionKind::Avg) {
      Type sumType =
          *info.algorithm == ReductionAlgorithm::Ring ? info.forward : info.acc;
      std::optional<double> gamma =
          getGamma(info.groupSize - 1, getUnitRoundoff(sumType));
      if (!gamma)
        return info;
      product *= 1.0 + *gamma;
    }
  }
  // Moves dequantize straight into the result type (stochastically where
  // the op rounds so and the result is narrower than f32), reductions into
  // the sum.
  auto [quantizeError, dequantizeError] = getScalingErrors(
      op, info.input, op.isReduction() ? info.acc : info.result);
  if (!op.isReduction() &&
      getUnitRoundoff(info.result) > getUnitRoundoff(
                                         Float32Type::get(op->getContext())))
    dequantizeError *= rounding;
  product *= (1.0 + quantizeError) * (1.0 + dequantizeError);
  info.gather = getAllReduceGatherType(op, info.groupSize);
  if (info.gather) {
    // The reduced slices are rounded to the gathered dtype, then converted
    // to the result type. max and min (undivided) select a wire value,
    // which the wire dtype holds exactly.
    bool selectsWireValue =
        (*info.reduction == ReductionKind::Max ||
         *info.reduction == ReductionKind::Min) &&
        info.postDivisor == 1.0 && info.gather == info.forward;
    if (!selectsWireValue)
      product *= 1.0 + rounding * getConversionError(received, info.gather);
    received = info.gather;
  }
  product *= 1.0 + rounding * getConversionError(received, info.result);
  info.bound = product - 1.0;
  return info;
}

std::string describe(const CollectiveBound &info) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "N = " << info.groupSize << ", input " << info.input << ", wire "
     << info.forward;
  if (info.acc)
    os << ", accumulation " << info.acc << ", "
       << stringifyReductionAlgorithm(*info.algorithm);
  if (info.gather)
    os << ", slices gathered in " << info.gather;
  os << ", result " << info.result;
  return text;
}

std::string formatBound(double bound) {
  return llvm::formatv("{0:e3}", bound).str();
}

void writeJson(llvm::raw_ostream &os, ArrayRef<CollectiveBound> bounds) {
  llvm::json::OStream json(os, /*IndentSize=*/2);
  json.array([&] {
    for (const CollectiveBound &info : bounds) {
      json.object([&] {
        json.attribute("op", info.op->getName().getStringRef());
        json.attribute("location", printLocation(info.op->getLoc()));
        json.attribute("group_size", info.groupSize);
        json.attribute("input_dtype", printType(info.input));
        json.attribute("forward_dtype", printType(info.forward));
        json.attribute("acc_dtype", info.acc
                                        ? llvm::json::Value(printType(info.acc))
                                        : llvm::json::Value(nullptr));
        json.attribute("result_dtype", printType(info.result));
        json.attribute("algorithm",
                       info.algorithm
                           ? llvm::json::Value(
                                 stringifyReductionAlgorithm(*info.algorithm))
                           : llvm::json::Value(nullptr));
        json.attribute("gather_dtype",
                       info.gather ? llvm::json::Value(printType(info.gather))
                                   : llvm::json::Value(nullptr));
        json.attribute("bound", info.bound ? llvm::json::Value(*info.bound)
                                           : llvm::json::Value(nullptr));
      });
    }
  });
  os << "\n";
}

struct ErrorBoundsPass
    : public prec::impl::PrecErrorBoundsBase<ErrorBoundsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<CollectiveBound> bounds;
    bool failedAny = false;
    getOperation().walk([&](CollectiveOpInterface op) {
      FailureOr<CollectiveBound> info = computeBound(op);
      if (failed(info)) {
        failedAny = true;
        return;
      }
      bounds.push_back(*info);
      report(*info, failedAny);
    });
    if (!jsonPath.empty() && failed(emitJson(bounds)))
      failedAny = true;
    if (failedAny)
      signalPassFailure();
  }

private:
  /// A remark with the bound, or an error when it exceeds max-rel-error.
  void report(const CollectiveBound &info, bool &failedAny) {
    bool limited = maxRelError >= 0.0;
    if (!info.bound) {
      std::string message = "no relative error bound: (N - 1) * u >= 1 for "
                            "the summation (" +
                            describe(info) + ")";
      if (limited) {
        info.op->emitError(message)
            << "; max-rel-error=" << formatBound(maxRelError);
        failedAny = true;
      } else {
        info.op->emitRemark(message);
      }
      return;
    }
    StringRef relativeTo = info.acc ? "sum_i |x_i| / divisor" : "|x|";
    if (limited && *info.bound > maxRelError) {
      info.op->emitError("relative error bound ")
          << formatBound(*info.bound)
          << " exceeds max-rel-error=" << formatBound(maxRelError) << " ("
          << describe(info) << ")";
      failedAny = true;
      return;
    }
    info.op->emitRemark("relative error bound ")
        << formatBound(*info.bound) << " (|error| <= bound * " << relativeTo
        << "): " << describe(info);
  }

  LogicalResult emitJson(ArrayRef<CollectiveBound> bounds) {
    if (jsonPath == "-") {
      writeJson(llvm::outs(), bounds);
      llvm::outs().flush();
      return success();
    }
    std::error_code error;
    llvm::raw_fd_ostream file(jsonPath, error, llvm::sys::fs::OF_Text);
    if (error)
      return getOperation().emitError("cannot write the error bounds to '")
             << jsonPath << "': " << error.message();
    writeJson(file, bounds);
    return success();
  }
};

} // namespace
