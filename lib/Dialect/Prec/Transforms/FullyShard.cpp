//===- FullyShard.cpp - a loss function becomes a sharded training step ---===//
//
// FSDP2's `fully_shard` as a compiler pass: parameters sharded on dimension
// 0, gathered at use in the policy's dtype, gradients reduce-scattered by
// the generated backward, a fused optimizer, the loss averaged over the
// ranks. The step's arguments say which block of which parameter they hold
// (`prec.shard`), so that checkpoints can be read and written by name.
//
//===----------------------------------------------------------------------===//

#include "prec/Dialect/Prec/Transforms/Passes.h"

#include "prec/Dialect/Prec/IR/EntryAttrs.h"
#include "prec/Dialect/Prec/IR/PrecOps.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/GlobPattern.h"

namespace mlir::prec {
#define GEN_PASS_DEF_PRECFULLYSHARD
#include "prec/Dialect/Prec/Transforms/Passes.h.inc"
} // namespace mlir::prec

using namespace mlir;
using namespace mlir::prec;

namespace {

/// One parameter of the loss and how it is sharded.
struct Parameter {
  unsigned argIndex;      // position in the loss
  std::string name;       // `prec.name`, else `arg<i>`
  RankedTensorType type;  // as the loss computes with it
  RankedTensorType shard; // this rank's block, in the master dtype
  FloatType paramDtype;   // gather wire
  FloatType reduceDtype;  // gradient wire
  FloatType interHostDtype; // gradient partial sums across hosts, or null
  ScalingAttr interHostScaling; // its scales, for an fp8 one
};

/// The grid the step runs on: the last axis shards, the others replicate;
/// with `hosts` an FSDP mesh N is hosts x N / hosts, both axes sharding.
struct Mesh {
  shard::GridOp grid;
  FlatSymbolRefAttr gridRef;
  SmallVector<int16_t> shardAxes;
  SmallVector<int16_t> replicateAxes;
  int64_t shardSize;
};

bool isFp8(Type type) {
  return isa<Float8E4M3FNType, Float8E5M2Type>(type);
}

class FullyShardPass
    : public mlir::prec::impl::PrecFullyShardBase<FullyShardPass> {
public:
  using PrecFullyShardBase::PrecFullyShardBase;

  void runOnOperation() override;

private:
  FailureOr<FloatType> parseDtype(StringRef text, StringRef option);
  FailureOr<Mesh> getMesh(func::FuncOp loss);
  LogicalResult resolvePolicies(func::FuncOp loss,
                                MutableArrayRef<Parameter> params);
  LogicalResult resolveInterHostDtype(const Mesh &mesh,
                                      MutableArrayRef<Parameter> params);
  Value gather(OpBuilder &b, Location loc, const Parameter &param,
               Value shard, const Mesh &mesh);
  Value reduceScatter(OpBuilder &b, Location loc, const Parameter &param,
                      Value grad, const Mesh &mesh);
  func::FuncOp buildShardedLoss(func::FuncOp loss,
                                ArrayRef<Parameter> params,
                                const Mesh &mesh);
};

FailureOr<FloatType> FullyShardPass::parseDtype(StringRef text,
                                                 StringRef option) {
  MLIRContext *context = &getContext();
  Type type = text.empty() ? Type() : parseType(text, context);
  auto dtype = dyn_cast_or_null<FloatType>(type);
  if (!dtype) {
    getOperation().emitError() << "prec-fully-shard: " << option << "='"
                               << text << "' is not a float type";
    return failure();
  }
  return dtype;
}

FailureOr<Mesh> FullyShardPass::getMesh(func::FuncOp loss) {
  ModuleOp module = getOperation();
  Mesh mesh;
  if (hosts < 1) {
    module.emitError() << "prec-fully-shard: hosts="
                       << static_cast<int64_t>(hosts)
                       << ": expected a positive number of hosts";
    return failure();
  }
  if (hosts > 1 && this->mesh.empty()) {
    module.emitError() << "prec-fully-shard: hosts="
                       << static_cast<int64_t>(hosts)
                       << " needs mesh=N or mesh=RxN (a module's own grid "
                          "names the axes across hosts with '"
                       << PrecDialect::kInterHostAxesAttrName << "')";
    return failure();
  }
  SmallVector<int16_t> interHostAxes;
  bool shardsAcrossHosts = false;
  if (!this->mesh.empty()) {
    SmallVector<int64_t> shape;
    for (StringRef extent : llvm::split(StringRef(this->mesh), 'x')) {
      int64_t size;
      if (extent.trim().getAsInteger(10, size) || size < 1) {
        module.emitError() << "prec-fully-shard: mesh='" << this->mesh
                           << "': expected positive extents such as 4 or "
                              "2x4 (replicas x shards)";
        return failure();
      }
      shape.push_back(size);
    }
    if (hosts > 1 && shape.size() == 1) {
      // FSDP over hosts x ranks per host: both axes shard, so that the
      // group order, and every rank's shard, is the flat mesh's.
      if (shape[0] % hosts) {
        module.emitError() << "prec-fully-shard: hosts="
                           << static_cast<int64_t>(hosts)
                           << " does not divide mesh=" << this->mesh
                           << ": expected N ranks on hosts of N / hosts "
                              "ranks each";
        return failure();
      }
      shape = {hosts, shape[0] / hosts};
      interHostAxes.push_back(0);
      shardsAcrossHosts = true;
    } else if (hosts > 1) {
      // HSDP: the replicas are the hosts, each shards inside its host.
      int64_t replicas = 1;
      for (int64_t extent : ArrayRef(shape).drop_back())
        replicas *= extent;
      if (replicas != hosts) {
        module.emitError() << "prec-fully-shard: hosts="
                           << static_cast<int64_t>(hosts)
                           << " with mesh=" << this->mesh
                           << " (HSDP): expected hosts equal to the "
                           << replicas
                           << " replicas (each replica shards inside one host)";
        return failure();
      }
      for (int16_t axis = 0, e = shape.size() - 1; axis < e; ++axis)
        interHostAxes.push_back(axis);
    }
    if (SymbolTable::lookupSymbolIn(module, gridName)) {
      module.emitError() << "prec-fully-shard: the module already has a "
                            "symbol @"
                         << gridName << "; name the grid with grid=NAME";
      return failure();
    }
    OpBuilder b(module.getBodyRegion());
    mesh.grid = shard::GridOp::create(b, loss.getLoc(),
                                      b.getStringAttr(gridName),
                                      b.getDenseI64ArrayAttr(shape));
    if (!interHostAxes.empty())
      mesh.grid->setAttr(PrecDialect::kInterHostAxesAttrName,
                         b.getDenseI16ArrayAttr(interHostAxes));
  } else {
    SmallVector<shard::GridOp> grids(module.getOps<shard::GridOp>());
    if (grids.size() != 1) {
      module.emitError() << "prec-fully-shard: expected mesh=N (FSDP) or "
                            "mesh=RxN (HSDP), or exactly one shard.grid in "
                            "the module; found "
                         << grids.size() << " grids";
      return failure();
    }
    mesh.grid = grids.front();
  }
  mesh.gridRef = FlatSymbolRefAttr::get(mesh.grid.getSymNameAttr());
  ArrayRef<int64_t> shape = mesh.grid.getShape();
  if (shape.empty() || llvm::any_of(shape, ShapedType::isDynamic)) {
    mesh.grid.emitError() << "prec-fully-shard: expected a grid of static "
                             "shape";
    return failure();
  }
  if (shardsAcrossHosts) {
    mesh.shardAxes = {0, 1};
    mesh.shardSize = shape[0] * shape[1];
    return mesh;
  }
  int16_t shardAxis = shape.size() - 1;
  mesh.shardAxes = {shardAxis};
  for (int16_t axis = 0; axis < shardAxis; ++axis)
    mesh.replicateAxes.push_back(axis);
  mesh.shardSize = shape.back();
  return mesh;
}

LogicalResult
FullyShardPass::resolveInterHostDtype(const Mesh &mesh,
                                      MutableArrayRef<Parameter> params) {
  if (interHostReduceDtype.empty())
    return success();
  ModuleOp module = getOperation();
  FailureOr<FloatType> dtype =
      parseDtype(interHostReduceDtype, "inter-host-reduce-dtype");
  if (failed(dtype))
    return failure();
  auto error = [&]() -> InFlightDiagnostic {
    InFlightDiagnostic diag = module.emitError();
    diag << "prec-fully-shard: inter-host-reduce-dtype=" << interHostReduceDtype
         << ": ";
    return diag;
  };
  if (hosts <= 1) {
    error() << "expected hosts=H with H > 1 (partial sums cross hosts only "
               "on a grid of several hosts)";
    return failure();
  }
  if (!mesh.replicateAxes.empty()) {
    error() << "expected an FSDP mesh=N: with HSDP the gradients cross "
               "hosts in the replicas' all_reduce, whose group lies across "
               "hosts only (one level); reduce-dtype sets its wire";
    return failure();
  }
  if (mesh.shardSize == hosts) {
    error() << "expected more than one rank per host (mesh=" << this->mesh
            << " on hosts=" << static_cast<int64_t>(hosts)
            << " reduces in one level)";
    return failure();
  }
  for (Parameter &param : params) {
    // A scaled (fp8) gradient reduces in one level: no partial sums cross
    // hosts, so it keeps none.
    if (isFp8(param.paramDtype) || isFp8(param.reduceDtype))
      continue;
    // An fp8 one gets a scale per rank's partial sums, as an fp8 `param`
    // dtype gets one per tensor.
    ScalingAttr scaling;
    if (isFp8(*dtype))
      scaling = ScalingAttr::get(module.getContext(), ScalingKind::Dynamic, 0,
                                 0, Type());
    if (failed(verifyInterHostWireDtype(
            error, "inter-host-reduce-dtype", *dtype,
            getDefaultAccumulationType(param.reduceDtype), scaling,
            "its scaling")))
      return failure();
    param.interHostDtype = *dtype;
    param.interHostScaling = scaling;
  }
  return success();
}

/// Whether `selector` (a glob over names, or `rank:N`) picks `param`.
FailureOr<bool> matches(StringRef selector, const Parameter &param) {
  if (selector.consume_front("rank:")) {
    int64_t rank;
    if (selector.getAsInteger(10, rank))
      return failure();
    return rank == param.type.getRank();
  }
  llvm::Expected<llvm::GlobPattern> pattern =
      llvm::GlobPattern::create(selector);
  if (!pattern) {
    llvm::consumeError(pattern.takeError());
    return failure();
  }
  return pattern->match(param.name);
}

LogicalResult FullyShardPass::resolvePolicies(
    func::FuncOp loss, MutableArrayRef<Parameter> params) {
  ModuleOp module = getOperation();
  FloatType defaultParam, defaultReduce;
  if (!paramDtype.empty()) {
    FailureOr<FloatType> dtype = parseDtype(paramDtype, "param-dtype");
    if (failed(dtype))
      return failure();
    defaultParam = *dtype;
  }
  if (!reduceDtype.empty()) {
    FailureOr<FloatType> dtype = parseDtype(reduceDtype, "reduce-dtype");
    if (failed(dtype))
      return failure();
    defaultReduce = *dtype;
  }
  // The function's or module's policy, below the options.
  for (Operation *scope : {loss.getOperation(), module.getOperation()}) {
    auto policy = scope->getAttrOfType<PolicyAttr>(PrecDialect::kPolicyAttrName);
    if (!policy)
      continue;
    if (!defaultParam)
      defaultParam = policy.getParam();
    if (!defaultReduce)
      defaultReduce = policy.getReduce();
  }

  // SELECTOR=DTYPE entries; the first that matches wins.
  struct Override {
    std::string selector;
    FloatType dtype;
  };
  auto parseOverrides = [&](ArrayRef<std::string> entries, StringRef option)
      -> FailureOr<SmallVector<Override>> {
    SmallVector<Override> overrides;
    for (StringRef entry : entries) {
      auto [selector, dtypeText] = entry.rsplit('=');
      if (selector.empty() || dtypeText.empty()) {
        module.emitError() << "prec-fully-shard: " << option << "='" << entry
                           << "': expected SELECTOR=DTYPE";
        return failure();
      }
      FailureOr<FloatType> dtype = parseDtype(dtypeText, option);
      if (failed(dtype))
        return failure();
      bool matchesAny = false;
      for (const Parameter &param : params) {
        FailureOr<bool> match = matches(selector, param);
        if (failed(match)) {
          module.emitError() << "prec-fully-shard: " << option << "='"
                             << entry << "': '" << selector
                             << "' is neither a glob over parameter names "
                                "nor rank:N";
          return failure();
        }
        matchesAny |= *match;
      }
      if (!matchesAny) {
        InFlightDiagnostic diag =
            module.emitError() << "prec-fully-shard: " << option << "='"
                               << entry << "' names no parameter; they are";
        for (const Parameter &param : params)
          diag << " " << param.name;
        return failure();
      }
      overrides.push_back({selector.str(), *dtype});
    }
    return overrides;
  };
  FailureOr<SmallVector<Override>> paramOverrides =
      parseOverrides(paramDtypes, "param-dtypes");
  if (failed(paramOverrides))
    return failure();
  FailureOr<SmallVector<Override>> reduceOverrides =
      parseOverrides(reduceDtypes, "reduce-dtypes");
  if (failed(reduceOverrides))
    return failure();
  auto firstMatch = [](ArrayRef<Override> overrides,
                       const Parameter &param) -> FloatType {
    for (const Override &override : overrides) {
      FailureOr<bool> match = matches(override.selector, param);
      if (succeeded(match) && *match)
        return override.dtype;
    }
    return {};
  };

  for (Parameter &param : params) {
    auto own = loss.getArgAttrOfType<PolicyAttr>(param.argIndex,
                                                 PrecDialect::kPolicyAttrName);
    auto pick = [&](FloatType fromAttr, FloatType fromOverride,
                    FloatType fromDefault) {
      if (fromAttr)
        return fromAttr;
      if (fromOverride)
        return fromOverride;
      if (fromDefault)
        return fromDefault;
      return cast<FloatType>(param.type.getElementType());
    };
    param.paramDtype =
        pick(own ? own.getParam() : FloatType(),
             firstMatch(*paramOverrides, param), defaultParam);
    param.reduceDtype =
        pick(own ? own.getReduce() : FloatType(),
             firstMatch(*reduceOverrides, param), defaultReduce);
  }
  return success();
}

Value FullyShardPass::gather(OpBuilder &b, Location loc,
                             const Parameter &param, Value shard,
                             const Mesh &mesh) {
  MLIRContext *context = b.getContext();
  SmallVector<int64_t> gatheredShape(param.shard.getShape());
  gatheredShape[0] *= mesh.shardSize;
  auto gatheredType = param.type.clone(gatheredShape);
  // fp8 travels with a scale per tensor, as torchao's fp8 all-gather.
  ScalingAttr scaling;
  if (isFp8(param.paramDtype) || isFp8(param.reduceDtype))
    scaling = ScalingAttr::get(context, ScalingKind::Dynamic, 0, 0, Type());
  Value gathered = AllGatherOp::create(
      b, loc, gatheredType, shard, mesh.gridRef,
      b.getDenseI16ArrayAttr(mesh.shardAxes), TypeAttr::get(param.paramDtype),
      TypeAttr::get(param.reduceDtype), RoundingModeAttr(), scaling,
      /*seed=*/Value(), b.getI64IntegerAttr(0), ReductionKindAttr(),
      param.interHostDtype ? TypeAttr::get(param.interHostDtype) : TypeAttr(),
      param.interHostScaling);
  if (gatheredShape[0] == param.type.getDimSize(0))
    return gathered;
  // Padding rows are cut off; their gradient is zero.
  SmallVector<OpFoldResult> offsets(param.type.getRank(), b.getIndexAttr(0));
  SmallVector<OpFoldResult> strides(param.type.getRank(), b.getIndexAttr(1));
  SmallVector<OpFoldResult> sizes;
  for (int64_t extent : param.type.getShape())
    sizes.push_back(b.getIndexAttr(extent));
  return tensor::ExtractSliceOp::create(b, loc, param.type, gathered, offsets,
                                        sizes, strides);
}

Value FullyShardPass::reduceScatter(OpBuilder &b, Location loc,
                                    const Parameter &param, Value grad,
                                    const Mesh &mesh) {
  auto gradType = cast<RankedTensorType>(grad.getType());
  SmallVector<int64_t> paddedShape(param.shard.getShape());
  paddedShape[0] *= mesh.shardSize;
  if (paddedShape[0] != gradType.getDimSize(0)) {
    // Zero rows for the padding, so that every shard has its full block.
    Value zero = arith::ConstantOp::create(
        b, loc, b.getZeroAttr(gradType.getElementType()));
    Value empty = tensor::EmptyOp::create(b, loc, paddedShape,
                                          gradType.getElementType());
    Value zeros =
        linalg::FillOp::create(b, loc, zero, empty).getResult(0);
    SmallVector<OpFoldResult> offsets(gradType.getRank(), b.getIndexAttr(0));
    SmallVector<OpFoldResult> strides(gradType.getRank(), b.getIndexAttr(1));
    SmallVector<OpFoldResult> sizes;
    for (int64_t extent : gradType.getShape())
      sizes.push_back(b.getIndexAttr(extent));
    grad = tensor::InsertSliceOp::create(b, loc, grad, zeros, offsets, sizes,
                                         strides);
  }
  ScalingAttr scaling;
  if (isFp8(param.reduceDtype))
    scaling = ScalingAttr::get(b.getContext(), ScalingKind::Dynamic, 0, 0,
                               Type());
  // What the gather's gradient would be (the gather's transpose).
  return ReduceScatterOp::create(
      b, loc, param.shard, grad, mesh.gridRef.getValue(), mesh.shardAxes,
      TypeAttr::get(param.reduceDtype), TypeAttr(), RoundingMode::NearestEven,
      scaling, /*seed=*/Value(), ReductionKind::Avg, /*acc_dtype=*/TypeAttr(),
      /*pre_divisor=*/FloatAttr(), /*post_divisor=*/FloatAttr(),
      /*algorithm=*/ReductionAlgorithmAttr(),
      param.interHostDtype ? TypeAttr::get(param.interHostDtype) : TypeAttr(),
      param.interHostScaling, /*scatter_axis=*/0);
}

/// `@<loss>_sharded(shards..., batch...)`: the loss with its parameters
/// gathered at the top, differentiable, so that its backward gathers again.
func::FuncOp FullyShardPass::buildShardedLoss(func::FuncOp loss,
                                              ArrayRef<Parameter> params,
                                              const Mesh &mesh) {
  OpBuilder b(loss);
  Location loc = loss.getLoc();
  SmallVector<Type> argTypes(loss.getArgumentTypes());
  for (const Parameter &param : params)
    argTypes[param.argIndex] = param.shard;
  auto sharded = func::FuncOp::create(
      b, loc, (loss.getSymName() + "_sharded").str(),
      b.getFunctionType(argTypes, loss.getResultTypes()));
  sharded.setPrivate();
  sharded->setAttr(PrecDialect::kDifferentiableAttrName, b.getUnitAttr());
  // Its contractions are the loss's: they may compute as the loss's do.
  if (Attribute reduced = loss->getAttr(PrecDialect::kReducedPrecisionAttrName))
    sharded->setAttr(PrecDialect::kReducedPrecisionAttrName, reduced);
  for (unsigned i = 0, e = loss.getNumArguments(); i < e; ++i)
    if (DictionaryAttr attrs = loss.getArgAttrDict(i))
      sharded.setArgAttrs(i, attrs);
  Block *body = sharded.addEntryBlock();
  b.setInsertionPointToStart(body);

  IRMapping mapping;
  for (auto [from, to] :
       llvm::zip(loss.getArguments(), body->getArguments()))
    mapping.map(from, to);
  for (const Parameter &param : params) {
    sharded.removeArgAttr(param.argIndex, PrecDialect::kPolicyAttrName);
    mapping.map(loss.getArgument(param.argIndex),
                gather(b, loc, param, body->getArgument(param.argIndex),
                       mesh));
  }
  for (Operation &op : loss.front())
    b.clone(op, mapping);
  return sharded;
}

void FullyShardPass::runOnOperation() {
  ModuleOp module = getOperation();
  MLIRContext *context = &getContext();
  SymbolTable symbols(module);

  auto loss = symbols.lookup<func::FuncOp>(lossName);
  if (!loss || loss.isExternal()) {
    module.emitError() << "prec-fully-shard: expected a function @"
                       << lossName << " with a body (option loss=NAME)";
    return signalPassFailure();
  }
  auto lossType = loss.getNumResults() >= 1
                      ? dyn_cast<RankedTensorType>(loss.getResultTypes()[0])
                      : RankedTensorType();
  if (!lossType || lossType.getRank() != 0 ||
      !isa<FloatType>(lossType.getElementType())) {
    loss.emitOpError("prec-fully-shard: expected the loss as the first ")
        << "result, a 0-d float tensor such as tensor<f32>; found "
        << loss.getFunctionType();
    return signalPassFailure();
  }
  // Results after the loss are state (a dropout seed, as
  // prec-globals-to-arguments makes it): the k-th last of k feeds the k-th
  // last argument.
  unsigned numState = loss.getNumResults() - 1;
  for (unsigned i = 0; i < numState; ++i) {
    Type type = loss.getResultTypes()[1 + i];
    unsigned arg = loss.getNumArguments() - numState + i;
    if (loss.getNumArguments() < numState ||
        loss.getArgumentTypes()[arg] != type ||
        isa<FloatType>(getElementTypeOrSelf(type))) {
      loss.emitOpError("prec-fully-shard: expected result ")
          << 1 + i << " (state after the loss) to be an integer value fed "
          << "back into argument " << arg << " of the same type, as "
          << "prec-globals-to-arguments makes a dropout seed; found "
          << loss.getFunctionType();
      return signalPassFailure();
    }
  }
  if (!loss.getBody().hasOneBlock()) {
    loss.emitOpError("prec-fully-shard: expected a body of one block");
    return signalPassFailure();
  }
  if (symbols.lookup(entryName) ||
      symbols.lookup((loss.getSymName() + "_sharded").str())) {
    module.emitError() << "prec-fully-shard: the module already has @"
                       << entryName << " or @" << loss.getSymName()
                       << "_sharded";
    return signalPassFailure();
  }
  if (optimizer != "sgd" && optimizer != "adamw") {
    module.emitError() << "prec-fully-shard: optimizer='" << optimizer
                       << "': expected sgd or adamw";
    return signalPassFailure();
  }

  FailureOr<Mesh> mesh = getMesh(loss);
  if (failed(mesh))
    return signalPassFailure();

  FloatType master;
  if (!masterDtype.empty()) {
    FailureOr<FloatType> dtype = parseDtype(masterDtype, "master-dtype");
    if (failed(dtype))
      return signalPassFailure();
    master = *dtype;
  }

  // The parameters: float tensors that want a gradient.
  SmallVector<Parameter> params;
  for (unsigned i = 0, e = loss.getNumArguments(); i < e; ++i) {
    auto type = dyn_cast<RankedTensorType>(loss.getArgumentTypes()[i]);
    bool isFloat = type && isa<FloatType>(type.getElementType());
    bool isParam = numParams >= 0
                       ? static_cast<int64_t>(i) < numParams
                       : isFloat && !loss.getArgAttr(i, PrecDialect::kNoGradAttrName);
    if (!isParam)
      continue;
    auto name = loss.getArgAttrOfType<StringAttr>(i, kNameAttrName);
    if (!isFloat || !type.hasStaticShape() || type.getRank() == 0) {
      InFlightDiagnostic diag = loss.emitOpError("prec-fully-shard: parameter ")
                                << i;
      if (name)
        diag << " ('" << name.getValue() << "')";
      diag << " must be a float tensor of static shape and rank >= 1 "
           << "(it is sharded on dimension 0); found " << type;
      if (type && type.getRank() == 0)
        diag << ": give a scalar parameter the shape [1] "
             << "(nn.Parameter(torch.tensor([v])) in PyTorch)";
      return signalPassFailure();
    }
    Parameter param;
    param.argIndex = i;
    param.name = name ? name.str() : "arg" + std::to_string(i);
    param.type = type;
    SmallVector<int64_t> shardShape(type.getShape());
    shardShape[0] = llvm::divideCeil(shardShape[0], mesh->shardSize);
    param.shard = RankedTensorType::get(
        shardShape, master ? master : type.getElementType());
    params.push_back(param);
  }
  if (params.empty()) {
    loss.emitOpError("prec-fully-shard: no parameter: every float tensor ")
        << "argument is marked prec.no_grad (or num-params=0)";
    return signalPassFailure();
  }
  if (failed(resolvePolicies(loss, params)) ||
      failed(resolveInterHostDtype(*mesh, params)))
    return signalPassFailure();

  // The batch: every other argument; float ones need no gradient.
  DenseSet<unsigned> paramIndices;
  for (const Parameter &param : params)
    paramIndices.insert(param.argIndex);
  // State first, so that its results feed it at the same positions.
  SmallVector<unsigned> batch;
  unsigned firstState = loss.getNumArguments() - numState;
  for (unsigned i = firstState, e = loss.getNumArguments(); i < e; ++i)
    batch.push_back(i);
  for (unsigned i = 0; i < firstState; ++i)
    if (!paramIndices.contains(i))
      batch.push_back(i);
  for (unsigned i : batch)
    loss.setArgAttr(i, PrecDialect::kNoGradAttrName, UnitAttr::get(context));

  // The forward and backward the step calls: gathers inside them, or here.
  OpBuilder b(context);
  func::FuncOp forward = loss;
  if (reshardAfterForward)
    forward = buildShardedLoss(loss, params, *mesh);
  else
    loss->setAttr(PrecDialect::kDifferentiableAttrName, UnitAttr::get(context));
  loss.setPrivate();
  SmallVector<Type> gradTypes;
  for (unsigned i = 0, e = forward.getNumArguments(); i < e; ++i)
    if (paramIndices.contains(i))
      gradTypes.push_back(forward.getArgumentTypes()[i]);
  SmallVector<Type> backwardArgs(forward.getArgumentTypes());
  backwardArgs.push_back(lossType);
  b.setInsertionPointAfter(forward);
  auto backward = func::FuncOp::create(
      b, forward.getLoc(), (forward.getSymName() + "_backward").str(),
      b.getFunctionType(backwardArgs, gradTypes));
  backward.setPrivate();

  // The step's signature.
  bool adamw = optimizer == "adamw";
  SmallVector<Type> stepArgs, stepResults;
  SmallVector<NamedAttrList> argAttrs;
  Type f32 = b.getF32Type();
  auto shardAttr = [&](const Parameter &param) {
    SmallVector<Attribute> axes;
    for (int16_t axis : mesh->shardAxes)
      axes.push_back(b.getI64IntegerAttr(axis));
    return b.getDictionaryAttr({
        b.getNamedAttr("grid", mesh->gridRef),
        b.getNamedAttr("grid_axes", b.getArrayAttr(axes)),
        b.getNamedAttr("dim", b.getI64IntegerAttr(0)),
        b.getNamedAttr("size", b.getI64IntegerAttr(param.type.getDimSize(0))),
    });
  };
  auto addArg = [&](Type type, StringRef name, DictionaryAttr shard) {
    stepArgs.push_back(type);
    NamedAttrList attrs;
    attrs.set(kNameAttrName, b.getStringAttr(name));
    if (shard)
      attrs.set(kShardAttrName, shard);
    argAttrs.push_back(attrs);
  };
  for (const Parameter &param : params)
    addArg(param.shard, param.name, shardAttr(param));
  if (adamw) {
    // Moments start at zero, as a fresh torch.optim.AdamW's.
    for (StringRef prefix : {"exp_avg.", "exp_avg_sq."})
      for (const Parameter &param : params) {
        addArg(param.shard, (prefix + param.name).str(), shardAttr(param));
        argAttrs.back().set(kDefaultAttrName,
                            b.getFloatAttr(param.shard.getElementType(), 0.0));
      }
    addArg(f32, "step", {});
    argAttrs.back().set(kDefaultAttrName, b.getF32FloatAttr(1.0f));
  }
  stepResults = stepArgs;
  llvm::append_range(stepResults, loss.getResultTypes().drop_front());
  unsigned firstBatch = stepArgs.size();
  for (auto [position, i] : llvm::enumerate(batch)) {
    auto name = loss.getArgAttrOfType<StringAttr>(i, kNameAttrName);
    addArg(loss.getArgumentTypes()[i],
           name ? name.str() : "input" + std::to_string(position), {});
    if (Attribute value = loss.getArgAttr(i, kDefaultAttrName))
      argAttrs.back().set(kDefaultAttrName, value);
    // Token ids: integer inputs wide enough for the range (an i1 input is a
    // mask, and keeps its own range).
    auto intType = dyn_cast<RankedTensorType>(loss.getArgumentTypes()[i]);
    auto element =
        intType ? dyn_cast<IntegerType>(intType.getElementType()) : nullptr;
    if (tokenRange > 0 && element && element.getWidth() > 1 &&
        (element.getWidth() >= 64 ||
         tokenRange <= (int64_t(1) << (element.getWidth() - 1))))
      argAttrs.back().set(kRangeAttrName,
                          b.getArrayAttr({b.getI64IntegerAttr(0),
                                          b.getI64IntegerAttr(tokenRange)}));
  }
  addArg(f32, "lr", {});
  argAttrs.back().set(kDefaultAttrName, b.getF32FloatAttr(lr));
  stepResults.push_back(lossType);

  b.setInsertionPointToEnd(module.getBody());
  Location loc = loss.getLoc();
  auto step = func::FuncOp::create(b, loc, entryName,
                                   b.getFunctionType(stepArgs, stepResults));
  for (auto [i, attrs] : llvm::enumerate(argAttrs))
    step.setArgAttrs(i, attrs.getDictionary(context));
  step.setResultAttr(stepResults.size() - 1, kNameAttrName,
                     b.getStringAttr("loss"));
  Block *body = step.addEntryBlock();
  b.setInsertionPointToStart(body);
  ValueRange shards = body->getArguments().take_front(params.size());

  // The forward's arguments: shards (or gathered parameters) and the batch.
  SmallVector<Value> forwardArgs(loss.getNumArguments());
  for (auto [param, shard] : llvm::zip(params, shards))
    forwardArgs[param.argIndex] =
        reshardAfterForward ? shard : gather(b, loc, param, shard, *mesh);
  for (auto [position, i] : llvm::enumerate(batch))
    forwardArgs[i] = body->getArgument(firstBatch + position);

  auto forwardCall = func::CallOp::create(b, loc, forward, forwardArgs);
  Value localLoss = forwardCall.getResult(0);
  auto one = DenseElementsAttr::get(
      lossType, b.getFloatAttr(lossType.getElementType(), 1.0));
  SmallVector<Value> backwardOperands(forwardArgs);
  backwardOperands.push_back(arith::ConstantOp::create(b, loc, one));
  ValueRange grads =
      func::CallOp::create(b, loc, backward, backwardOperands).getResults();

  SmallVector<Value> results(params.size());
  SmallVector<Value> nextAvg, nextAvgSq;
  Value lrValue = body->getArguments().back();
  Value stepValue =
      adamw ? body->getArgument(3 * params.size()) : Value();
  double decay = weightDecay >= 0 ? weightDecay : (adamw ? 0.01 : 0.0);
  for (auto [index, param] : llvm::enumerate(params)) {
    Value grad = grads[index];
    if (!reshardAfterForward)
      grad = reduceScatter(b, loc, param, grad, *mesh);
    if (!mesh->replicateAxes.empty())
      grad = AllReduceOp::create(
          b, loc, param.shard, grad, mesh->gridRef.getValue(),
          mesh->replicateAxes, TypeAttr::get(param.reduceDtype), TypeAttr(),
          RoundingMode::NearestEven, ScalingAttr(), ReductionKind::Avg,
          TypeAttr());
    if (adamw) {
      auto update = AdamWOp::create(
          b, loc, param.shard, param.shard, param.shard, /*shard=*/Type(),
          shards[index], grad, body->getArgument(params.size() + index),
          body->getArgument(2 * params.size() + index), lrValue, stepValue,
          b.getF64FloatAttr(beta1), b.getF64FloatAttr(beta2),
          b.getF64FloatAttr(eps), b.getF64FloatAttr(decay),
          RoundingModeAttr(), /*seed=*/Value());
      results[index] = update.getNewParam();
      nextAvg.push_back(update.getNewExpAvg());
      nextAvgSq.push_back(update.getNewExpAvgSq());
    } else {
      results[index] =
          SGDOp::create(b, loc, param.shard, /*shard=*/Type(), shards[index],
                        grad, lrValue, b.getF64FloatAttr(decay),
                        RoundingModeAttr(), /*seed=*/Value())
              .getNewParam();
    }
  }
  if (adamw) {
    llvm::append_range(results, nextAvg);
    llvm::append_range(results, nextAvgSq);
    Value oneF32 = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(1.0f));
    results.push_back(arith::AddFOp::create(b, loc, stepValue, oneF32));
  }
  llvm::append_range(results, forwardCall.getResults().drop_front());
  // The loss of the whole batch: the mean over every rank.
  results.push_back(AllReduceOp::create(
      b, loc, lossType, localLoss, mesh->gridRef.getValue(), {},
      TypeAttr::get(lossType.getElementType()), TypeAttr(),
      RoundingMode::NearestEven, ScalingAttr(), ReductionKind::Avg,
      TypeAttr()));
  func::ReturnOp::create(b, loc, results);
}

} // namespace
