//===- PrecOps.h - prec operations ------------------------------*- C++ -*-===//

#ifndef PREC_DIALECT_PREC_IR_PRECOPS_H
#define PREC_DIALECT_PREC_IR_PRECOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "prec/Dialect/Prec/IR/PrecAttrs.h"
#include "prec/Dialect/Prec/IR/PrecDialect.h"

namespace mlir::prec {
/// The accumulation dtype used when none is annotated: f64 for f64 inputs,
/// f32 for everything narrower (PyTorch's rule).
FloatType getDefaultAccumulationType(FloatType forwardType);
} // namespace mlir::prec

#include "prec/Dialect/Prec/IR/PrecInterfaces.h.inc"

namespace mlir::OpTrait::prec {
namespace impl {
LogicalResult verifyAddressableShapes(Operation *op);
LogicalResult verifySupportedFloatTypes(Operation *op);
} // namespace impl

/// Every statically shaped operand and result of the op fits an int64 byte
/// count, so that the sizes lowering and the runtime compute from its shapes
/// cannot wrap around.
template <typename ConcreteType>
class AddressableShapes : public TraitBase<ConcreteType, AddressableShapes> {
public:
  static LogicalResult verifyTrait(Operation *op) {
    return impl::verifyAddressableShapes(op);
  }
};

/// Every float element type of the op's operands and results, and every
/// float type attribute, is one prec's kernels convert
/// (mlir::prec::isSupportedFloatType).
template <typename ConcreteType>
class SupportedFloatTypes
    : public TraitBase<ConcreteType, SupportedFloatTypes> {
public:
  static LogicalResult verifyTrait(Operation *op) {
    return impl::verifySupportedFloatTypes(op);
  }
};
} // namespace mlir::OpTrait::prec

namespace mlir::prec {
/// The order of a rank's transports (prec.transport_start and
/// prec.transport_wait read and write it, so that no pass reorders them).
struct CommunicationResource
    : public SideEffects::Resource::Base<CommunicationResource> {
  StringRef getName() final { return "prec.communication"; }
};
} // namespace mlir::prec

#define GET_TYPEDEF_CLASSES
#include "prec/Dialect/Prec/IR/PrecOpsTypes.h.inc"

#define GET_OP_CLASSES
#include "prec/Dialect/Prec/IR/PrecOps.h.inc"

namespace mlir::prec {

/// Whether every finite value, infinity and NaN of `narrow` is exactly
/// representable in `wide` (e.g. f32 contains bf16 and f16, but bf16 and f16
/// do not contain each other).
bool floatTypeContains(FloatType wide, FloatType narrow);

/// The type to divide a value of type `type` by `divisor` in: `type` where
/// it represents `divisor` exactly, else the first of f32 and f64 at least
/// as wide as `type` that does (an average over 131072 f16 values cannot
/// divide by an f16 +inf).
FloatType getExactDivisionType(FloatType type, double divisor);

/// Whether `type` is an fp8-or-narrower element type that needs a scale
/// (f8E8M0FNU, a scale-only type, excluded).
bool isScaledLowPrecisionType(Type type);

/// Whether `op` converts its input to an fp8 wire under a scaling mode (the
/// scales are computed for it, by prec-materialize-scales).
bool convertsToScaledWire(CollectiveOpInterface op);

/// The ranks a collective reduces or gathers over: the product of the grid
/// sizes of its axes (all axes when none are listed), or
/// ShapedType::kDynamic when one of them is not static.
int64_t getCollectiveGroupSize(shard::GridOp grid, ArrayRef<int16_t> axes);

/// The group size of `op` when the grid sizes of its axes are static;
/// otherwise emits an error on `op` saying that `purpose` needs it.
FailureOr<int64_t> getStaticCollectiveGroupSize(CollectiveOpInterface op,
                                                StringRef purpose);

/// What a pass that regroups the elements of collectives needs beyond what
/// every such pass needs (getRegroupableGroupSize).
struct RegroupRequirements {
  /// The tensors hold at least one element.
  bool nonEmpty = false;
  /// A reduction combined by the `direct` algorithm.
  bool direct = false;
  /// The group has more than one rank.
  bool severalRanks = false;
};

/// The group size of `op` when its elements may be regrouped, cut into
/// blocks or merged with other collectives' into one buffer, without
/// changing a bit of any result: static shapes, no scaling of the wire or of
/// the partial sums between hosts (a scale is computed over a whole tensor
/// or block), rounding to nearest even
/// (stochastic rounding draws by element position), a grid of static size on
/// its axes, and `requirements`. std::nullopt otherwise.
std::optional<int64_t>
getRegroupableGroupSize(CollectiveOpInterface op, SymbolTableCollection &tables,
                        RegroupRequirements requirements = {});

/// The algorithm a reducing collective combines its group with: `algorithm`
/// when given, else the one the lowering picks: `direct` (all-to-all, then a
/// fused sum in acc_dtype) when acc_dtype is wider than forward_dtype, `ring`
/// (partial sums rounded to the wire dtype at every hop) otherwise.
ReductionAlgorithm getReductionAlgorithm(CollectiveOpInterface op);

/// The dtype in which a `direct` all_reduce over more than one rank gathers
/// its reduced slices: it is lowered as a direct reduce-scatter (wire chunks
/// summed in acc_dtype) followed by an all-gather of each slice, finished
/// and rounded once, in this dtype. That is the result type when it is no
/// wider than the wire (nothing rounds more than with a gathered sum), else
/// the wire dtype (one more rounding, to the wire, then an exact or rounded
/// conversion to the result type). Null when the all_reduce is a ring, has a
/// group of one (nothing moves: the sum is local), or has a scaled wire
/// (prec-materialize-scales lowers those).
FloatType getAllReduceGatherType(CollectiveOpInterface op, int64_t groupSize);

/// The inter-host axes `grid` declares with `prec.inter_host_axes`, empty
/// when it declares none.
ArrayRef<int16_t> getInterHostAxes(shard::GridOp grid);

/// A collective's group seen as hosts of ranks: the group's axes as listed
/// (all of the grid's, in order, when the op lists none), split into those
/// that cross hosts and those inside a host, each in listed order.
struct TwoLevelGroup {
  SmallVector<int16_t> axes, interHostAxes, intraHostAxes;
  /// H: the ranks of the group with the same intra-host coordinates.
  int64_t hosts = 1;
  /// M: the ranks of the group with the same inter-host coordinates.
  int64_t ranksPerHost = 1;
};

/// The two levels `op` reduces or gathers in (docs/Prec.md, "Topology and
/// two-level collectives"): set for an all_gather, reduce_scatter or
/// all_reduce on a grid with `prec.inter_host_axes` whose group has more
/// than one host and more than one rank per host, with static shapes and
/// sizes, rounding to nearest even and no scaling. std::nullopt otherwise:
/// the collective stays one level.
std::optional<TwoLevelGroup> getTwoLevelGroup(CollectiveOpInterface op,
                                              shard::GridOp grid);

/// The dtype the partial sums of a two-level reduction cross hosts in:
/// `inter_host_dtype`, else the accumulation dtype.
FloatType getEffectiveInterHostDtype(CollectiveOpInterface op);

/// The slice of a two-level all_reduce's flat input that each rank of a host
/// reduces across hosts: ceil(count / `ranksPerHost`), rounded up to whole
/// blocks where block scales carry the partial sums.
int64_t getTwoLevelAllReduceSlice(AllReduceOp op, int64_t ranksPerHost);

/// The inter-host dtype of the reduce_scatter that is `gather`'s gradient:
/// `grad_inter_host_dtype`, else that reduce_scatter's accumulation dtype
/// (the default one of the gather's effective `backward_dtype`).
FloatType getEffectiveGradInterHostDtype(AllGatherOp gather);

/// Checks that `dtype` can carry partial sums accumulated in `accDtype`
/// between hosts: a wire dtype that `accDtype` holds, with `scaling` (named
/// `scalingClause`) exactly when it is fp8, and not delayed (a collective
/// has no operand for an amax history); an fp8 one with an `accDtype` of
/// at most 32 bits (scales are f32). `clause` names the dtype's
/// attribute in the diagnostics `emitError` starts.
LogicalResult
verifyInterHostWireDtype(function_ref<InFlightDiagnostic()> emitError,
                         StringRef clause, FloatType dtype, FloatType accDtype,
                         ScalingAttr scaling, StringRef scalingClause);

/// The divisors of a reducing collective: `pre` divides each input before
/// the wire cast, `post` the accumulated sum.
struct ReductionDivisors {
  double pre = 1.0;
  double post = 1.0;
};

/// The explicit `pre_divisor` and `post_divisor` of `op`, 1 when absent. An
/// `avg` reduction is not folded in.
ReductionDivisors getExplicitDivisors(CollectiveOpInterface op);

/// How an average over `divisor` values is split around a sum accumulated in
/// `accType`, with `pre * post == divisor`.
///
/// Accumulation types with f32's exponent range (f32, bf16, f64) cannot
/// overflow by summing a group, so the whole divisor is applied once, after
/// the sum. Narrower ranges (f16) get `pre` = the power of two nearest to
/// sqrt(divisor), ties upwards, i.e. the largest power of two `f` with
/// `f * f <= 2 * divisor`, and `post = divisor / pre`.
///
/// A sum of more `terms` than the divisor (microbatches summed before one
/// average over ranks) takes `f` from the terms instead, so that its partial
/// sums keep the same headroom, at most `divisor` (`post >= 1`).
ReductionDivisors getAverageDivisors(int64_t divisor, FloatType accType,
                                     int64_t terms = 0);

} // namespace mlir::prec

#endif // PREC_DIALECT_PREC_IR_PRECOPS_H
