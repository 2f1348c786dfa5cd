//===- ErrorBounds.cpp - worst-case relative error of collectives ---------===//

#include "prec/Dialect/Prec/IR/EntryAttrs.h"
#include "prec/Dialect/Prec/IR/PrecOps.h"
#include "prec/Dialect/Prec/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/SymbolTable.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <functional>
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
  CollectiveOpInterface op;
  int64_t groupSize;
  Type input, forward, acc, result;
  std::optional<ReductionAlgorithm> algorithm;
  std::optional<ReductionKind> reduction;
  double preDivisor = 1.0, postDivisor = 1.0;
  /// The dtype a direct all_reduce gathers its reduced slices in.
  Type gather;
  /// A two-level collective's hosts H and ranks per host M (docs/Prec.md),
  /// and the dtype its partial sums cross hosts in; H = M = 0 otherwise.
  int64_t hosts = 0, ranksPerHost = 0;
  Type interHost;
  ScalingAttr interHostScaling; // an fp8 interHost's
  /// Of a two-level collective's bytesPerRank: those sent to ranks of the
  /// same host and those sent to other hosts (0 for one level).
  int64_t bytesInsideHosts = 0, bytesAcrossHosts = 0;
  /// None when the summation bound is vacuous ((N - 1) u >= 1).
  std::optional<double> bound;
  /// The roundings of the input between the op that computed it and this
  /// collective (0 for an entry argument passed on unchanged), and the
  /// bound of the result relative to its exact value; none where the input
  /// is not traced (a loop's value).
  std::optional<double> inputError, endToEndBound;
  /// The entry arguments the input derives from and the gradients and
  /// entry results the result becomes: "arg0", "grad(arg1)", "result2".
  SmallVector<std::string> moves;
  /// Bytes one rank sends, as prec-report-traffic counts them.
  std::optional<int64_t> bytesPerRank;
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

/// Every source location in `loc`, in source order: a bucketed collective
/// has its members'.
SmallVector<FileLineColLoc> getSourceLocations(Location loc) {
  SmallVector<FileLineColLoc> found;
  loc->walk([&](Location nested) {
    if (auto fileLoc = dyn_cast<FileLineColLoc>(nested))
      if (!llvm::is_contained(found, fileLoc))
        found.push_back(fileLoc);
    return WalkResult::advance();
  });
  llvm::stable_sort(found, [](FileLineColLoc a, FileLineColLoc b) {
    return std::make_tuple(a.getFilename().getValue(), a.getLine(),
                           a.getColumn()) <
           std::make_tuple(b.getFilename().getValue(), b.getLine(),
                           b.getColumn());
  });
  return found;
}

/// "file:line:col", with ",line:col" for each further location in the same
/// file (",file:line:col" in another); the files without their directories.
std::string printLocations(Location loc) {
  SmallVector<FileLineColLoc> locations = getSourceLocations(loc);
  if (locations.empty())
    return llvm::sys::path::filename(printLocation(loc)).str();
  std::string text;
  llvm::raw_string_ostream os(text);
  for (auto [index, fileLoc] : llvm::enumerate(locations)) {
    if (index != 0)
      os << ",";
    if (index == 0 || fileLoc.getFilename() != locations.front().getFilename())
      os << llvm::sys::path::filename(fileLoc.getFilename().getValue()) << ":";
    os << fileLoc.getLine() << ":" << fileLoc.getColumn();
  }
  return text;
}

/// The forward op whose gradient prec-generate-backward built `loc`'s op
/// for ("prec.all_gather"), or "" for another op.
std::string getGradientOf(Location loc) {
  std::string forward;
  loc->walk([&](Location nested) {
    auto named = dyn_cast<NameLoc>(nested);
    if (named && named.getName().getValue().starts_with(PrecDialect::kGradientLocPrefix)) {
      forward =
          named.getName().getValue().drop_front(PrecDialect::kGradientLocPrefix.size());
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return forward;
}

/// Whether `op`'s fp8 wire uses OCP MX power-of-two block scales.
bool hasPowerOfTwoScales(ScalingAttr scaling) {
  return scaling && scaling.getKind() == ScalingKind::Block &&
         !isa_and_nonnull<Float32Type>(scaling.getScaleDtype());
}

bool hasPowerOfTwoScales(CollectiveOpInterface op) {
  return hasPowerOfTwoScales(op.getScalingAttr());
}

/// Rounding added by the scaling of an fp8 wire (docs/Prec.md): the
/// quotient x / scale, rounded in f32 (in the input type where that is
/// wider), and the product q * scale, rounded once in the receiver's type.
/// Both are exact with power-of-two scales, as long as they stay normal.
std::pair<double, double> getScalingErrors(CollectiveOpInterface op, Type input,
                                           Type receiver) {
  if (!op.getScalingAttr() ||
      !isScaledLowPrecisionType(op.getEffectiveForwardDtype()))
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
double getWireError(ScalingAttr scaling, Type input, Type wire,
                    double rounding) {
  double error = rounding * getConversionError(input, wire);
  if (!isScaledLowPrecisionType(wire) || !hasPowerOfTwoScales(scaling))
    return error;
  llvm::APFloat largest =
      llvm::APFloat::getLargest(cast<FloatType>(wire).getFloatSemantics());
  double saturation =
      1.0 - largest.convertToDouble() / std::ldexp(1.0, llvm::ilogb(largest) + 1);
  return std::max(error, saturation);
}

double getWireError(CollectiveOpInterface op, Type input, Type wire,
                    double rounding) {
  return getWireError(op.getScalingAttr(), input, wire, rounding);
}

/// The relative error a partial sum in `acc` gets on its way across hosts
/// in `interHost`: none where that holds it, else one rounding to it; for a
/// scaled fp8 one also the quotient by the scale (in f32) and the product
/// with it (in `acc`), as getScalingErrors counts them on a wire.
double getInterHostError(Type acc, Type interHost, ScalingAttr scaling) {
  double error = getWireError(scaling, acc, interHost, /*rounding=*/1.0);
  if (!scaling || hasPowerOfTwoScales(scaling))
    return error;
  Type quotient = cast<FloatType>(acc).getWidth() > 32
                      ? acc
                      : Float32Type::get(acc.getContext());
  return (1.0 + getUnitRoundoff(quotient)) * (1.0 + error) *
             (1.0 + getUnitRoundoff(acc)) -
         1.0;
}

/// Stochastic rounding is unbiased but may land on either neighbour: its
/// worst case is one unit in the last place, twice round-to-nearest's.
double getRoundingFactor(RoundingMode rounding) {
  return rounding == RoundingMode::Stochastic ? 2.0 : 1.0;
}

/// Bytes one rank sends for `op`'s input on the wire, as prec-report-traffic
/// counts a transport's payload (fp8 scales aside); none for dynamic shapes.
std::optional<int64_t> getBytesPerRank(CollectiveOpInterface op,
                                       int64_t groupSize) {
  RankedTensorType input = op.getInput().getType();
  if (!input.hasStaticShape())
    return std::nullopt;
  int64_t count = input.getNumElements();
  int64_t elementBytes =
      (op.getEffectiveForwardDtype().getIntOrFloatBitWidth() + 7) / 8;
  int64_t peers = groupSize - 1;
  StringRef name = op->getName().stripDialect();
  if (name == "all_gather")
    return peers * count * elementBytes;
  if (name == "all_reduce")
    return 2 * peers * llvm::divideCeil(count, groupSize) * elementBytes;
  return peers * (count / groupSize) * elementBytes;
}

int64_t getElementBytes(Type type) {
  return (type.getIntOrFloatBitWidth() + 7) / 8;
}

/// The bytes one rank sends inside its host and to other hosts in the
/// two-level form of `info.op` (DecomposeCollectives.cpp): per level what
/// getBytesPerRank counts for that level's collective, in its wire dtype.
void setBytesPerLinkClass(CollectiveBound &info, Type gatherAcrossHosts) {
  CollectiveOpInterface op = info.op;
  int64_t hosts = info.hosts, perHost = info.ranksPerHost;
  int64_t count = op.getInput().getType().getNumElements();
  int64_t wire = getElementBytes(info.forward);
  if (isa<AllGatherOp>(op.getOperation())) {
    info.bytesAcrossHosts = (hosts - 1) * count * wire;
    info.bytesInsideHosts = (perHost - 1) * hosts * count * wire;
  } else if (isa<ReduceScatterOp>(op.getOperation())) {
    info.bytesInsideHosts = (perHost - 1) * (count / perHost) * wire;
    info.bytesAcrossHosts = (hosts - 1) * (count / (hosts * perHost)) *
                            getElementBytes(info.interHost);
  } else {
    // Inside: the reduce_scatter of the wire values and the all_gather of
    // the finished slices. Across: the all_reduce of each slice, its
    // partial sums in the inter-host dtype, its finished part in the
    // gathered dtype; or, where a scaled fp8 level gathers each rank's
    // quantized slice on every other host, the slice in the inter-host
    // dtype.
    int64_t slice =
        getTwoLevelAllReduceSlice(cast<AllReduceOp>(op.getOperation()), perHost);
    info.bytesInsideHosts =
        (perHost - 1) * slice * (wire + getElementBytes(info.gather));
    if (info.interHostScaling) {
      info.bytesAcrossHosts =
          (hosts - 1) * slice * getElementBytes(info.interHost);
    } else {
      int64_t part = llvm::divideCeil(slice, hosts);
      info.bytesAcrossHosts = (hosts - 1) * part *
                              (getElementBytes(info.interHost) +
                               getElementBytes(gatherAcrossHosts));
    }
  }
  info.bytesPerRank = info.bytesInsideHosts + info.bytesAcrossHosts;
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
  info.bytesPerRank = getBytesPerRank(op, info.groupSize);
  if (auto grid = SymbolTable::lookupNearestSymbolFrom<shard::GridOp>(
          op, op.getGridAttr()))
    if (std::optional<TwoLevelGroup> group = getTwoLevelGroup(op, grid)) {
      info.hosts = group->hosts;
      info.ranksPerHost = group->ranksPerHost;
    }
  // The value that is cast to the result type: the sum in acc_dtype for
  // reductions, the wire value otherwise.
  Type received = info.forward;
  double rounding = getRoundingFactor(op.getRounding());
  double product =
      1.0 + getWireError(op, info.input, info.forward, rounding);
  if (op.isReduction()) {
    info.acc = op.getEffectiveAccDtype();
    info.algorithm = getReductionAlgorithm(op);
    info.reduction = op.getReduction();
    ReductionDivisors divisors = getExplicitDivisors(op);
    info.preDivisor = divisors.pre;
    info.postDivisor = divisors.post;
    if (*info.reduction == ReductionKind::Avg)
      info.postDivisor = static_cast<double>(info.groupSize);
    received = info.acc;
    product *= 1.0 + getDivisionError(info.preDivisor, info.input);
    product *= 1.0 + getDivisionError(info.postDivisor, info.acc);
    // max and min select a value: they round nothing.
    bool sums = *info.reduction == ReductionKind::Sum ||
                *info.reduction == ReductionKind::Avg;
    Type sumType =
        *info.algorithm == ReductionAlgorithm::Ring ? info.forward : info.acc;
    if (info.hosts) {
      // M - 1 additions inside the host, the partial sum rounded once to
      // the inter-host dtype, then H - 1 additions in acc_dtype: each term
      // is multiplied by at most (1 + gamma(M - 1))(1 + e_inter)(1 +
      // gamma(H - 1)).
      info.interHost = getEffectiveInterHostDtype(op);
      info.interHostScaling = op.getInterHostScalingAttr();
      product *= 1.0 + getInterHostError(info.acc, info.interHost,
                                         info.interHostScaling);
      if (sums) {
        std::optional<double> intra =
            getGamma(info.ranksPerHost - 1, getUnitRoundoff(sumType));
        std::optional<double> inter =
            getGamma(info.hosts - 1, getUnitRoundoff(info.acc));
        if (!intra || !inter)
          return info;
        product *= (1.0 + *intra) * (1.0 + *inter);
      }
    } else if (sums) {
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
  Type gatherAcrossHosts;
  info.gather = getAllReduceGatherType(op, info.groupSize);
  if (info.hosts && isa<AllReduceOp>(op.getOperation())) {
    // The slices are finished across hosts into the gathered dtype (the
    // result type for a ring), which a direct inter-host all_reduce
    // gathers in the narrower of it and the inter-host dtype
    // (getAllReduceGatherType of that level). A scaled fp8 level gathers
    // every host's quantized partial sums and sums them on each rank.
    Type gathered = info.gather ? info.gather : info.result;
    Type finished = gathered;
    bool interHostRing = info.algorithm == ReductionAlgorithm::Ring &&
                         info.interHost == info.acc;
    if (!interHostRing && !info.interHostScaling &&
        cast<FloatType>(gathered).getWidth() >
            cast<FloatType>(info.interHost).getWidth())
      finished = info.interHost;
    product *= 1.0 + getConversionError(received, finished);
    product *= 1.0 + getConversionError(finished, gathered);
    info.gather = gathered;
    gatherAcrossHosts = finished;
    received = gathered;
  } else if (info.gather) {
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
  if (info.hosts)
    setBytesPerLinkClass(info, gatherAcrossHosts);
  return info;
}

/// What is known of a value on its way to a collective: the relative error
/// it carries on top of its exact value (none: not traced), and the entry
/// arguments it was read from.
struct Provenance {
  std::optional<double> error = 0.0;
  SmallVector<std::string> arguments;

  void merge(const Provenance &other) {
    if (!error || !other.error)
      error = std::nullopt;
    else
      error = std::max(*error, *other.error);
    for (const std::string &argument : other.arguments)
      if (!llvm::is_contained(arguments, argument))
        arguments.push_back(argument);
  }
};

/// Ops that only rearrange their first operand's elements: each result
/// element is one of them, unchanged.
bool movesElementsOnly(Operation *op) {
  return isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp, tensor::ReshapeOp,
             tensor::ExtractSliceOp, tensor::CastOp, linalg::TransposeOp,
             linalg::BroadcastOp>(op);
}

/// Conversions of every element: one rounding where the result type does
/// not hold the input's values.
std::optional<double> getElementConversionError(Operation *op) {
  if (!isa<CastOp, arith::ExtFOp, arith::TruncFOp>(op))
    return std::nullopt;
  Type from = getElementTypeOrSelf(op->getOperand(0).getType());
  Type to = getElementTypeOrSelf(op->getResult(0).getType());
  if (!isa<FloatType>(from) || !isa<FloatType>(to))
    return std::nullopt;
  auto castOp = dyn_cast<CastOp>(op);
  RoundingMode rounding =
      castOp ? castOp.getRounding() : RoundingMode::NearestEven;
  return getRoundingFactor(rounding) * getConversionError(from, to);
}

/// The relative error of `saturate(round(x / scale))` against `x / scale`:
/// the quotient rounds in f32 (exact with power-of-two scales), the result
/// once in its fp8 type, or, with MX power-of-two block scales, up to the
/// saturation of a block's largest elements (getWireError).
double getQuantizationError(QuantizeOp op) {
  Type input = getElementTypeOrSelf(op->getOperand(0).getType());
  Type scale = getElementTypeOrSelf(op->getOperand(1).getType());
  auto result = cast<FloatType>(getElementTypeOrSelf(op->getResult(0)));
  double rounding =
      getRoundingFactor(op.getRounding()) * getUnitRoundoff(result);
  if (!isa<Float32Type, Float64Type, Float16Type, BFloat16Type>(scale)) {
    llvm::APFloat largest =
        llvm::APFloat::getLargest(result.getFloatSemantics());
    double saturation = 1.0 - largest.convertToDouble() /
                                  std::ldexp(1.0, llvm::ilogb(largest) + 1);
    return std::max(rounding, saturation);
  }
  Type quotient = cast<FloatType>(input).getWidth() > 32
                      ? input
                      : Float32Type::get(op->getContext());
  return (1.0 + getUnitRoundoff(quotient)) * (1.0 + rounding) - 1.0;
}

/// Traces values through calls, data movement and conversions to the entry
/// arguments they are read from or the ops that computed them, and results
/// to the gradients and entry results they become.
class ValueTracer {
public:
  ValueTracer(ModuleOp module,
              llvm::function_ref<std::optional<double>(Operation *)> endToEnd)
      : endToEnd(endToEnd) {
    module.walk([&](func::CallOp call) {
      callers[call.getCalleeAttr().getAttr()].push_back(call);
    });
    for (auto func : module.getOps<func::FuncOp>())
      if (func.isPublic() && !func.isDeclaration())
        entries.push_back(func);
    symbols = std::make_unique<SymbolTable>(module);
  }

  /// The roundings of `value` since the op that computed it (whose own
  /// rounding to its dtype counts; what it computed from does not), or
  /// none since the entry argument it passes on.
  Provenance traceBack(Value value, int depth = 0) {
    if (depth > kMaxDepth)
      return {std::nullopt, {}};
    // Each value once: a value reached again while it is traced (recursive
    // calls) is not traced.
    auto [cached, inserted] =
        traced.try_emplace(value, Provenance{std::nullopt, {}});
    if (!inserted)
      return cached->second;
    Provenance provenance = traceBackUncached(value, depth);
    traced[value] = provenance;
    return provenance;
  }

  /// The gradients ("grad(arg0)", from generated backward functions) and
  /// entry results ("result1") that `value`'s elements become.
  void traceForward(Value value, SmallVectorImpl<std::string> &names) {
    llvm::DenseSet<Value> visited;
    traceForward(value, names, visited);
  }

private:
  static constexpr int kMaxDepth = 64;

  Provenance traceBackUncached(Value value, int depth) {
    if (auto argument = dyn_cast<BlockArgument>(value)) {
      auto func = dyn_cast<func::FuncOp>(argument.getOwner()->getParentOp());
      if (!func || argument.getOwner() != &func.getBody().front())
        return {std::nullopt, {}};
      unsigned index = argument.getArgNumber();
      auto found = callers.find(func.getSymNameAttr());
      if (func.isPublic() || found == callers.end())
        return {0.0, {getName(func, "arg", index)}};
      Provenance merged;
      for (func::CallOp call : found->second)
        merged.merge(traceBack(call.getOperand(index), depth + 1));
      return merged;
    }
    Operation *op = value.getDefiningOp();
    if (movesElementsOnly(op))
      return traceBack(op->getOperand(0), depth + 1);
    if (auto concat = dyn_cast<tensor::ConcatOp>(op)) {
      Provenance merged;
      for (Value input : concat.getInputs())
        merged.merge(traceBack(input, depth + 1));
      return merged;
    }
    if (std::optional<double> conversion = getElementConversionError(op)) {
      Provenance provenance = traceBack(op->getOperand(0), depth + 1);
      if (provenance.error)
        provenance.error =
            (1.0 + *provenance.error) * (1.0 + *conversion) - 1.0;
      return provenance;
    }
    if (auto quantize = dyn_cast<QuantizeOp>(op)) {
      Provenance provenance = traceBack(op->getOperand(0), depth + 1);
      if (provenance.error)
        provenance.error =
            (1.0 + *provenance.error) * (1.0 + getQuantizationError(quantize)) -
            1.0;
      return provenance;
    }
    if (auto call = dyn_cast<func::CallOp>(op)) {
      auto callee = symbols->lookup<func::FuncOp>(call.getCallee());
      if (!callee || callee.isDeclaration())
        return {std::nullopt, {}};
      unsigned index = cast<OpResult>(value).getResultNumber();
      Provenance merged;
      callee.walk([&](func::ReturnOp ret) {
        merged.merge(traceBack(ret.getOperand(index), depth + 1));
      });
      return merged;
    }
    // Another collective's result carries its end-to-end bound. A sum's is
    // relative to the magnitudes of its terms, and so is then every bound
    // downstream: |v| <= (1 + e) sum_i |x*_i| / divisor bounds what the
    // next rounding is relative to.
    if (auto collective = dyn_cast<CollectiveOpInterface>(op)) {
      Provenance provenance = traceBack(collective.getInput(), depth + 1);
      provenance.error = endToEnd(op);
      return provenance;
    }
    auto floatType = dyn_cast<FloatType>(getElementTypeOrSelf(value));
    if (!floatType)
      return {std::nullopt, {}};
    return {getUnitRoundoff(floatType), {}};
  }

  void traceForward(Value value, SmallVectorImpl<std::string> &names,
                    llvm::DenseSet<Value> &visited) {
    if (!visited.insert(value).second)
      return;
    for (OpOperand &use : value.getUses()) {
      Operation *user = use.getOwner();
      if (use.getOperandNumber() == 0 && user->getNumResults() == 1 &&
          (movesElementsOnly(user) || getElementConversionError(user))) {
        traceForward(user->getResult(0), names, visited);
        continue;
      }
      auto add = [&](std::string name) {
        if (!llvm::is_contained(names, name))
          names.push_back(std::move(name));
      };
      // An optimizer's gradient operand: the gradient of its parameter.
      if (isa<SGDOp, AdamWOp>(user) && use.getOperandNumber() == 1) {
        for (const std::string &argument :
             traceBack(user->getOperand(0)).arguments)
          add("grad(" + argument + ")");
        continue;
      }
      if (!isa<func::ReturnOp>(user))
        continue;
      auto func = user->getParentOfType<func::FuncOp>();
      unsigned index = use.getOperandNumber();
      if (func->hasAttr(PrecDialect::kBackwardOfAttrName) &&
          index < func.getNumArguments()) {
        for (const std::string &argument :
             traceBack(func.getArgument(index)).arguments)
          add("grad(" + argument + ")");
      } else if (func.isPublic()) {
        add(getName(func, "result", index));
      } else if (auto found = callers.find(func.getSymNameAttr());
                 found != callers.end()) {
        for (func::CallOp call : found->second)
          traceForward(call.getResult(index), names, visited);
      }
    }
  }

  /// The argument's or result's `prec.name`, else `arg0` / `result0`;
  /// `@f:` before it where the module has several entry functions.
  std::string getName(func::FuncOp func, StringRef kind, unsigned index) {
    StringAttr named =
        kind == "arg"
            ? func.getArgAttrOfType<StringAttr>(index, kNameAttrName)
            : func.getResultAttrOfType<StringAttr>(index, kNameAttrName);
    std::string name =
        named ? named.getValue().str() : (kind + Twine(index)).str();
    if (entries.size() == 1 && entries.front() == func)
      return name;
    return ("@" + func.getSymName() + ":" + name).str();
  }

  llvm::function_ref<std::optional<double>(Operation *)> endToEnd;
  llvm::DenseMap<StringAttr, SmallVector<func::CallOp>> callers;
  SmallVector<func::FuncOp> entries;
  std::unique_ptr<SymbolTable> symbols;
  llvm::DenseMap<Value, Provenance> traced;
};

std::string describeScaling(ScalingAttr scaling) {
  if (!scaling)
    return "none";
  std::string text;
  llvm::raw_string_ostream os(text);
  Attribute(scaling).print(os);
  return StringRef(text).ltrim("#prec.scaling").str();
}

std::string describeScaling(CollectiveOpInterface op) {
  return describeScaling(op.getScalingAttr());
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
  if (info.hosts) {
    os << "; two-level: H = " << info.hosts
       << " hosts x M = " << info.ranksPerHost << " ranks";
    if (info.interHost)
      os << ", partial sums across hosts in " << info.interHost;
    if (info.interHostScaling)
      os << " with " << describeScaling(info.interHostScaling) << " scales";
    if (info.bytesInsideHosts || info.bytesAcrossHosts)
      os << ", bytes per rank " << info.bytesInsideHosts << " inside hosts and "
         << info.bytesAcrossHosts << " across";
  }
  return text;
}

std::string formatBound(double bound) {
  return llvm::formatv("{0:e3}", bound).str();
}

llvm::json::Value optionalValue(std::optional<double> value) {
  return value ? llvm::json::Value(*value) : llvm::json::Value(nullptr);
}

std::string getFunctionName(Operation *op) {
  auto func = op->getParentOfType<func::FuncOp>();
  return func ? ("@" + func.getSymName()).str() : std::string("?");
}

/// `@dp`, or `@hsdp[1]` for a group on some of the grid's axes.
std::string describeGroup(const CollectiveBound &info) {
  CollectiveOpInterface op = info.op;
  std::string text = "@" + op.getGridAttr().getValue().str();
  if (!op.getGridAxes().empty()) {
    text += "[";
    llvm::raw_string_ostream os(text);
    llvm::interleave(op.getGridAxes(), os, ",");
    text += "]";
  }
  return text;
}

std::string describeRounding(CollectiveOpInterface op) {
  return getRoundingFactor(op.getRounding()) == 2.0 ? "stochastic"
                                                    : "nearest_even";
}

std::string formatOptionalBound(std::optional<double> bound) {
  return bound ? formatBound(*bound) : "none";
}

/// One table per function: a collective per row, columns padded to their
/// widest entry.
void writeTable(llvm::raw_ostream &os, ArrayRef<CollectiveBound> bounds) {
  os << "precision of every collective: own bound relative to its input x "
        "(|out - f(x)| <= own * s(x)),\n"
        "end to end relative to its exact value (|out - f(x*)| <= e2e * "
        "s(x*), x* the exact input);\n"
        "s = |x| for moves, sum_i |x_i| / divisor for reductions, and for "
        "values a sum produced, over the terms of every sum on the way;\n"
        "input err: the roundings of x since the op that computed it (its "
        "own rounding to its dtype included; none for an entry argument "
        "passed on)\n";
  SmallVector<std::string> header = {
      "op",         "location", "moves",     "group",
      "N",          "input",    "wire",      "acc",
      "result",     "scaling",  "rounding",  "algorithm",
      "bytes/rank", "own",      "input err", "end to end"};
  std::string function;
  SmallVector<SmallVector<std::string>> rows;
  auto flush = [&] {
    if (rows.empty())
      return;
    SmallVector<size_t> widths(header.size(), 0);
    for (const auto &row : rows)
      for (auto [i, cell] : llvm::enumerate(row))
        widths[i] = std::max(widths[i], cell.size());
    os << "\n" << function << ":\n";
    for (const auto &row : rows) {
      os << " ";
      for (auto [i, cell] : llvm::enumerate(row)) {
        os << " " << cell;
        if (i + 1 != row.size())
          os << std::string(widths[i] - cell.size(), ' ');
      }
      os << "\n";
    }
    rows.clear();
  };
  for (const CollectiveBound &info : bounds) {
    std::string name = getFunctionName(info.op);
    auto func = info.op->getParentOfType<func::FuncOp>();
    if (auto primal = func ? func->getAttrOfType<FlatSymbolRefAttr>(
                                 PrecDialect::kBackwardOfAttrName)
                           : nullptr)
      name += " (backward of @" + primal.getValue().str() + ")";
    if (name != function) {
      flush();
      function = name;
      rows.push_back(header);
    }
    std::string location = printLocations(info.op->getLoc());
    std::string gradientOf = getGradientOf(info.op->getLoc());
    if (!gradientOf.empty())
      location += " (gradient of " +
                  StringRef(gradientOf).split('.').second.str() + ")";
    std::string moves = llvm::join(info.moves, ",");
    std::string algorithm =
        info.algorithm ? stringifyReductionAlgorithm(*info.algorithm).str()
                       : "-";
    if (info.gather)
      algorithm += ", gathered in " + printType(info.gather);
    rows.push_back(
        {info.op->getName().stripDialect().str(), location,
         moves.empty() ? "-" : moves, describeGroup(info),
         std::to_string(info.groupSize), printType(info.input),
         printType(info.forward), info.acc ? printType(info.acc) : "-",
         printType(info.result), describeScaling(info.op),
         describeRounding(info.op), algorithm,
         info.bytesPerRank ? std::to_string(*info.bytesPerRank) : "?",
         formatOptionalBound(info.bound), formatOptionalBound(info.inputError),
         formatOptionalBound(info.endToEndBound)});
  }
  flush();
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
        json.attribute("bound", optionalValue(info.bound));
        json.attribute("input_error", optionalValue(info.inputError));
        json.attribute("end_to_end_bound", optionalValue(info.endToEndBound));
        json.attribute("function", getFunctionName(info.op));
        json.attribute("group", describeGroup(info));
        json.attribute("scaling", describeScaling(info.op));
        json.attribute("rounding", describeRounding(info.op));
        if (info.hosts) {
          json.attribute("hosts", info.hosts);
          json.attribute("ranks_per_host", info.ranksPerHost);
          if (info.interHost)
            json.attribute("inter_host_dtype", printType(info.interHost));
          if (info.interHostScaling)
            json.attribute("inter_host_scaling",
                           describeScaling(info.interHostScaling));
          if (info.bytesInsideHosts || info.bytesAcrossHosts) {
            json.attribute("bytes_inside_hosts", info.bytesInsideHosts);
            json.attribute("bytes_across_hosts", info.bytesAcrossHosts);
          }
        }
        json.attribute("bytes_per_rank",
                       info.bytesPerRank ? llvm::json::Value(*info.bytesPerRank)
                                         : llvm::json::Value(nullptr));
        json.attributeArray("moves", [&] {
          for (const std::string &name : info.moves)
            json.value(name);
        });
        json.attributeArray("locations", [&] {
          for (FileLineColLoc fileLoc : getSourceLocations(info.op->getLoc()))
            json.value(printLocation(fileLoc));
        });
        std::string gradientOf = getGradientOf(info.op->getLoc());
        json.attribute("gradient_of", gradientOf.empty()
                                          ? llvm::json::Value(nullptr)
                                          : llvm::json::Value(gradientOf));
      });
    }
  });
  os << "\n";
}

struct ErrorBoundsPass
    : public prec::impl::PrecErrorBoundsBase<ErrorBoundsPass> {
  using Base::Base;

  LogicalResult initialize(MLIRContext *context) override {
    if (!llvm::is_contained({"remarks", "table", "json"}, report))
      return emitError(UnknownLoc::get(context),
                       "prec-error-bounds: expected report=remarks, table "
                       "or json, got '")
             << report << "'";
    return success();
  }

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
    });
    addEndToEndBounds(bounds);
    for (const CollectiveBound &info : bounds)
      check(info, failedAny);
    if (report == "table")
      writeTable(llvm::outs(), bounds);
    else if (report == "json")
      writeJson(llvm::outs(), bounds);
    llvm::outs().flush();
    if (!jsonPath.empty() && failed(emitJson(bounds)))
      failedAny = true;
    if (failedAny)
      signalPassFailure();
  }

private:
  /// Traces every collective's input and result, and bounds its result
  /// relative to its exact value: (1 + input error)(1 + own bound) - 1, the
  /// input error counting what the moves that fed it added.
  void addEndToEndBounds(MutableArrayRef<CollectiveBound> bounds) {
    llvm::DenseMap<Operation *, CollectiveBound *> byOp;
    for (CollectiveBound &info : bounds)
      byOp[info.op] = &info;
    llvm::DenseSet<Operation *> visiting;
    std::function<std::optional<double>(Operation *)> endToEnd;
    std::unique_ptr<ValueTracer> tracer;
    endToEnd = [&](Operation *op) -> std::optional<double> {
      CollectiveBound *info = byOp.lookup(op);
      if (!info || !visiting.insert(op).second)
        return std::nullopt;
      if (!info->endToEndBound && info->bound) {
        Provenance input =
            tracer->traceBack(cast<CollectiveOpInterface>(op).getInput());
        info->inputError = input.error;
        if (input.error)
          info->endToEndBound =
              (1.0 + *input.error) * (1.0 + *info->bound) - 1.0;
      }
      visiting.erase(op);
      return info->endToEndBound;
    };
    tracer = std::make_unique<ValueTracer>(getOperation(), endToEnd);
    for (CollectiveBound &info : bounds) {
      endToEnd(info.op);
      CollectiveOpInterface op = info.op;
      info.moves = tracer->traceBack(op.getInput()).arguments;
      tracer->traceForward(op.getResult(), info.moves);
    }
  }

  /// A remark with the bounds (report=remarks), or an error when one
  /// exceeds max-rel-error. Diagnostics go to the op's location without the
  /// op itself, and name the op: generated backward ops share their forward
  /// op's location.
  void check(const CollectiveBound &info, bool &failedAny) {
    bool limited = maxRelError >= 0.0;
    std::string what =
        (info.op->getName().getStringRef() + " in " + getFunctionName(info.op))
            .str();
    // A generated op is at its forward op's location: say it is its
    // gradient, and where all of a bucket's members are.
    std::string gradientOf = getGradientOf(info.op->getLoc());
    std::string locations = printLocations(info.op->getLoc());
    if (!gradientOf.empty())
      what += " (the gradient of the " + gradientOf + " at " + locations + ")";
    else if (getSourceLocations(info.op->getLoc()).size() > 1)
      what += " (the bucket of the ops at " + locations + ")";
    what += ": ";
    Location loc = info.op->getLoc();
    if (!info.bound) {
      std::string message = what +
                            "no relative error bound: (N - 1) * u >= 1 for "
                            "the summation (" +
                            describe(info) + ")";
      if (limited) {
        emitError(loc, message)
            << "; max-rel-error=" << formatBound(maxRelError);
        failedAny = true;
      } else if (report == "remarks") {
        emitRemark(loc, message);
      }
      return;
    }
    StringRef relativeTo = info.acc ? "sum_i |x_i| / divisor" : "|x|";
    std::optional<double> worst = info.endToEndBound;
    if (limited && std::max(*info.bound, worst.value_or(0.0)) > maxRelError) {
      bool own = *info.bound > maxRelError;
      emitError(loc, what) << (own ? "relative error bound "
                                   : "end-to-end error bound ")
                           << formatBound(own ? *info.bound : *worst)
                           << " exceeds max-rel-error="
                           << formatBound(maxRelError) << " (" << describe(info)
                           << ")";
      failedAny = true;
      return;
    }
    if (report != "remarks")
      return;
    InFlightDiagnostic remark = emitRemark(loc, what);
    remark << "relative error bound " << formatBound(*info.bound)
           << " (|error| <= bound * " << relativeTo << "): " << describe(info)
           << "; end to end " << formatOptionalBound(info.endToEndBound);
    if (info.inputError && *info.inputError != 0.0)
      remark << " (input rounded by " << formatBound(*info.inputError) << ")";
    if (!info.moves.empty())
      remark << "; moves " << llvm::join(info.moves, ", ");
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
