//===- GenerateBackward.cpp - create backward functions -------------------===//
//
// Reverse-mode differentiation of a forward function into a new backward
// function: the forward body is recomputed, then every op's gradient rule
// (BackwardOpInterface) runs in reverse order.
//
//===----------------------------------------------------------------------===//

#include "prec/Gradients/GenerateBackward.h"
#include "prec/Dialect/Prec/IR/PrecOps.h"
#include "prec/Dialect/Prec/Utils/ReducedPrecision.h"
#include "prec/Gradients/Passes.h"
#include "prec/Gradients/PrecGradients.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringExtras.h"

namespace mlir::prec {
#define GEN_PASS_DEF_PRECDECLAREBACKWARD
#define GEN_PASS_DEF_PRECGENERATEBACKWARD
#include "prec/Gradients/Passes.h.inc"
} // namespace mlir::prec

using namespace mlir;
using namespace mlir::prec;

namespace {

Type getElementType(Value value) {
  return cast<RankedTensorType>(value.getType()).getElementType();
}

/// The gradient contributions of the values of one backward function, each
/// summed once when the gradient of its value is taken.
class GradientTable {
public:
  void add(Value value, Value gradient) {
    contributions[value].push_back(gradient);
  }

  /// The gradient of `value` with element type `gradientType`, or null when
  /// no contribution reached it. Contributions are summed in `gradientType`
  /// when they all have it, else in f32 (f64 when one of them or
  /// `gradientType` is wider than f32); the sum is rounded once to
  /// `gradientType`.
  Value take(OpBuilder &builder, Value value, Type gradientType) {
    auto it = contributions.find(value);
    if (it == contributions.end())
      return {};
    SmallVector<Value, 1> parts = std::move(it->second);
    contributions.erase(it);

    Location loc = value.getLoc();
    if (parts.size() == 1)
      return createElementTypeCast(builder, loc, parts.front(), gradientType);
    Type sumType = gradientType;
    if (llvm::any_of(parts, [&](Value part) {
          return getElementType(part) != gradientType;
        })) {
      auto widest = cast<FloatType>(gradientType);
      for (Value part : parts) {
        auto partType = cast<FloatType>(getElementType(part));
        if (partType.getWidth() > widest.getWidth())
          widest = partType;
      }
      sumType = getDefaultAccumulationType(widest);
    }
    Value sum = createElementTypeCast(builder, loc, parts.front(), sumType);
    for (Value part : llvm::drop_begin(parts))
      sum = arith::AddFOp::create(
          builder, loc, sum,
          createElementTypeCast(builder, loc, part, sumType));
    return createElementTypeCast(builder, loc, sum, gradientType);
  }

private:
  DenseMap<Value, SmallVector<Value, 1>> contributions;
};

/// Builds the backward function of one forward function.
class BackwardBuilder {
public:
  BackwardBuilder(func::FuncOp forward, SymbolTable &symbols)
      : forward(forward), symbols(symbols) {}

  LogicalResult run();

private:
  /// Checks what the backward function relies on and collects the
  /// differentiable arguments and results.
  LogicalResult analyzeForward();

  /// The backward function's type: the forward arguments and the results'
  /// gradients in, the arguments' gradients out.
  FunctionType getBackwardType();

  /// Creates the empty backward function with its signature, or takes the
  /// declaration of it that the module already has.
  FailureOr<func::FuncOp> createFunction();

  /// Applies the gradient rules of the recomputed ops in reverse order.
  LogicalResult propagate(OpBuilder &builder, ArrayRef<Operation *> recomputed);

  /// Marks the recomputed values that depend on a differentiable argument
  /// through values that could carry a derivative (all but integers and
  /// indices).
  void findActiveValues(Block &entry, ArrayRef<Operation *> recomputed);

  /// A diagnostic if `op`, which a gradient reaches, has an active operand
  /// of a type without gradients (a complex or scalar float).
  LogicalResult checkActiveOperands(Operation *op);

  /// A diagnostic if `op`'s regions capture an active value that its rule
  /// gave no gradient: any, when the rule returned none for captures
  /// (`captureGradients` empty), else one of a type without gradients.
  LogicalResult checkActiveCaptures(Operation *op,
                                    ArrayRef<Value> captureGradients);

  func::FuncOp forward;
  SymbolTable &symbols;
  std::string name;
  /// The module's declaration of the backward function, if it has one.
  func::FuncOp declared;
  /// Whether the module holds the backward function this pass made already.
  bool alreadyGenerated = false;
  /// Indices of the arguments that get a gradient, and its type.
  SmallVector<unsigned> differentiableArgs;
  SmallVector<Type> argGradientTypes;
  /// Indices of the results that take a gradient.
  SmallVector<unsigned> differentiableResults;
  GradientTable gradients;
  /// Values that depend on a differentiable argument.
  DenseSet<Value> active;
};

/// Whether values of `type` are legitimately without a gradient: integers
/// and indices (and tensors of them), whose derivative is zero wherever it
/// exists.
bool isGradientFree(Type type) {
  return isa<IntegerType, IndexType>(getElementTypeOrSelf(type));
}

/// Whether running `op` again is harmless: it has no side effects but
/// assertions (PyTorch exports check the bounds of indices in linalg
/// bodies), which held when the forward ran.
bool isRecomputable(Operation *op) {
  if (isa<cf::AssertOp>(op))
    return true;
  if (auto effects = dyn_cast<MemoryEffectOpInterface>(op)) {
    if (!effects.hasNoEffect())
      return false;
  } else if (!op->hasTrait<OpTrait::HasRecursiveMemoryEffects>()) {
    return false;
  }
  if (!op->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
    return true;
  for (Region &region : op->getRegions())
    for (Operation &nested : region.getOps())
      if (!isRecomputable(&nested))
        return false;
  return true;
}

/// Calls `fn` on every value `op`'s regions read from outside `op`.
void forEachCapture(Operation *op, function_ref<void(OpOperand &)> fn) {
  if (op->getNumRegions() == 0)
    return;
  op->walk([&](Operation *nested) {
    if (nested == op)
      return;
    for (OpOperand &operand : nested->getOpOperands())
      if (!op->isAncestor(operand.get().getParentRegion()->getParentOp()))
        fn(operand);
  });
}

} // namespace

void BackwardBuilder::findActiveValues(Block &entry,
                                       ArrayRef<Operation *> recomputed) {
  for (unsigned index : differentiableArgs)
    active.insert(entry.getArgument(index));
  for (Operation *op : recomputed) {
    bool reads = llvm::any_of(op->getOperands(),
                              [&](Value v) { return active.contains(v); });
    forEachCapture(op, [&](OpOperand &operand) {
      reads |= active.contains(operand.get());
    });
    if (!reads)
      continue;
    for (Value result : op->getResults())
      if (!isGradientFree(result.getType()))
        active.insert(result);
  }
}

LogicalResult BackwardBuilder::checkActiveOperands(Operation *op) {
  for (OpOperand &operand : op->getOpOperands()) {
    Type type = operand.get().getType();
    if (!active.contains(operand.get()) ||
        BackwardOpInterface::isDifferentiable(type))
      continue;
    return op->emitOpError("has no gradient rule for operand #")
           << operand.getOperandNumber() << " of type " << type
           << ", which depends on a differentiable argument: gradients flow "
              "through ranked tensors of floats only";
  }
  return success();
}

LogicalResult
BackwardBuilder::checkActiveCaptures(Operation *op,
                                     ArrayRef<Value> captureGradients) {
  LogicalResult result = success();
  forEachCapture(op, [&](OpOperand &operand) {
    if (failed(result) || !active.contains(operand.get()))
      return;
    // A rule that returns gradients for the captured values covers the
    // differentiable ones.
    if (!captureGradients.empty() &&
        BackwardOpInterface::isDifferentiable(operand.get().getType()))
      return;
    InFlightDiagnostic diag =
        op->emitOpError("has no gradient rule for a value its body captures ")
        << "from outside, which depends on a differentiable argument: pass "
           "it as an operand";
    diag.attachNote(operand.getOwner()->getLoc()) << "captured here";
    result = diag;
  });
  return result;
}

LogicalResult BackwardBuilder::analyzeForward() {
  if (forward.isExternal())
    return forward.emitOpError("cannot be differentiated without a body");
  if (!forward.getBody().hasOneBlock())
    return forward.emitOpError("expected a single-block body to "
                               "differentiate, got ")
           << forward.getBody().getBlocks().size() << " blocks";
  name = (forward.getSymName() + "_backward").str();
  // A declaration of the backward function lets the module call it before
  // it is generated; any other symbol of that name is in the way.
  if (Operation *existing = symbols.lookup(name)) {
    declared = dyn_cast<func::FuncOp>(existing);
    // Made by an earlier run of this pass: nothing to do if it still fits
    // (run() compares its type once the signature is known).
    alreadyGenerated = declared && !declared.isExternal() &&
                       declared->getAttr(PrecDialect::kBackwardOfAttrName) ==
                           FlatSymbolRefAttr::get(forward.getSymNameAttr());
    if (!alreadyGenerated && (!declared || !declared.isExternal()))
      return forward.emitOpError("cannot create its backward function '")
             << name << "': the symbol exists and is not a declaration";
  }

  // The backward function runs the forward ops again: only ops without
  // side effects may be repeated.
  for (Operation &op : forward.getBody().front().without_terminator())
    if (!isRecomputable(&op))
      return op.emitOpError("has side effects, but the backward function ")
             << "recomputes the forward ops";

  FunctionType type = forward.getFunctionType();
  for (auto [index, argType] : llvm::enumerate(type.getInputs())) {
    auto gradDtype = forward.getArgAttrOfType<TypeAttr>(
        index, PrecDialect::kGradDtypeAttrName);
    bool noGrad =
        forward.getArgAttr(index, PrecDialect::kNoGradAttrName) != nullptr;
    if (noGrad && gradDtype)
      return forward.emitOpError("argument ")
             << index << " has both '" << PrecDialect::kNoGradAttrName
             << "' and '" << PrecDialect::kGradDtypeAttrName << "'";
    if (noGrad)
      continue;
    if (!BackwardOpInterface::isDifferentiable(argType)) {
      if (gradDtype)
        return forward.emitOpError("argument ")
               << index << " of type " << argType << " has a '"
               << PrecDialect::kGradDtypeAttrName
               << "' but no gradient: only ranked float tensors have one";
      continue;
    }
    auto tensorType = cast<RankedTensorType>(argType);
    differentiableArgs.push_back(index);
    argGradientTypes.push_back(
        gradDtype ? tensorType.clone(gradDtype.getValue()) : tensorType);
  }
  for (auto [index, resultType] : llvm::enumerate(type.getResults()))
    if (BackwardOpInterface::isDifferentiable(resultType))
      differentiableResults.push_back(index);
  return success();
}

/// The backward function's type: the forward arguments and the gradients of
/// the differentiable results in, the gradients of the differentiable
/// arguments (of their `prec.grad_dtype`, if any) out; an argument marked
/// `prec.no_grad` has none.
static FunctionType getBackwardFunctionType(func::FuncOp forward) {
  FunctionType type = forward.getFunctionType();
  SmallVector<Type> inputs(type.getInputs());
  for (Type resultType : type.getResults())
    if (BackwardOpInterface::isDifferentiable(resultType))
      inputs.push_back(resultType);
  SmallVector<Type> outputs;
  for (auto [index, argType] : llvm::enumerate(type.getInputs())) {
    if (!BackwardOpInterface::isDifferentiable(argType) ||
        forward.getArgAttr(index, PrecDialect::kNoGradAttrName))
      continue;
    auto tensorType = cast<RankedTensorType>(argType);
    auto gradDtype = forward.getArgAttrOfType<TypeAttr>(
        index, PrecDialect::kGradDtypeAttrName);
    outputs.push_back(gradDtype ? tensorType.clone(gradDtype.getValue())
                                : tensorType);
  }
  return FunctionType::get(forward.getContext(), inputs, outputs);
}

FunctionType BackwardBuilder::getBackwardType() {
  return getBackwardFunctionType(forward);
}

FailureOr<func::FuncOp> BackwardBuilder::createFunction() {
  FunctionType backwardType = getBackwardType();
  if (declared) {
    if (declared.getFunctionType() != backwardType)
      return declared.emitOpError("declares the backward function of @")
             << forward.getSymName() << " with type "
             << declared.getFunctionType() << ", expected " << backwardType;
    return declared;
  }
  auto backward = func::FuncOp::create(forward.getLoc(), name, backwardType);
  backward.setVisibility(forward.getVisibility());
  symbols.insert(backward, std::next(forward->getIterator()));
  return backward;
}

/// The ops a gradient rule built with the location of the forward op `op`
/// get it named "gradient of <op name>": a diagnostic or report on them
/// (the precision report's remarks on a transposed collective) points at
/// the forward op, and says it is about its gradient.
static void labelGradientOps(Operation *op, Block::iterator begin,
                             Block::iterator end) {
  Location forwardLoc = op->getLoc();
  Location gradientLoc = NameLoc::get(
      StringAttr::get(op->getContext(),
                      Twine(PrecDialect::kGradientLocPrefix) + op->getName().getStringRef()),
      forwardLoc);
  for (Operation &created : llvm::make_range(begin, end))
    created.walk([&](Operation *nested) {
      if (nested->getLoc() == forwardLoc)
        nested->setLoc(gradientLoc);
    });
}

LogicalResult BackwardBuilder::propagate(OpBuilder &builder,
                                         ArrayRef<Operation *> recomputed) {
  for (Operation *op : llvm::reverse(recomputed)) {
    // A result's gradient has its element type, or the op's
    // `prec.grad_dtype` (which the dialect verifies).
    auto gradDtype = op->getAttrOfType<TypeAttr>(PrecDialect::kGradDtypeAttrName);
    SmallVector<Value> resultGradients;
    for (Value result : op->getResults())
      resultGradients.push_back(
          BackwardOpInterface::isDifferentiable(result.getType())
              ? gradients.take(builder, result,
                               gradDtype ? gradDtype.getValue()
                                         : getElementType(result))
              : Value());
    // Ops that no gradient reaches, or that have no differentiable operand
    // (tensor.empty, constants), pass nothing back; but an active value
    // that no rule can reach would get a silent zero.
    if (llvm::none_of(resultGradients,
                      [](Value gradient) { return bool(gradient); }))
      continue;
    if (failed(checkActiveOperands(op)))
      return failure();
    SmallVector<Value> captured = getCapturedValues(op);
    bool capturesActive = llvm::any_of(
        captured, [&](Value value) { return active.contains(value); });
    if (!capturesActive && llvm::none_of(op->getOperandTypes(),
                                         BackwardOpInterface::isDifferentiable))
      continue;

    auto rule = dyn_cast<BackwardOpInterface>(op);
    if (!rule)
      return op->emitOpError("has no gradient rule (it does not implement ")
             << "BackwardOpInterface)";
    SmallVector<Value> operandGradients;
    Block *block = builder.getInsertionBlock();
    Operation *last = block->empty() ? nullptr : &block->back();
    if (failed(rule.buildGradients(builder, resultGradients, operandGradients)))
      return failure();
    auto created = llvm::make_range(
        last ? std::next(last->getIterator()) : block->begin(), block->end());
    labelGradientOps(op, created.begin(), created.end());
    // The gradient's contractions compute as the forward op may (the
    // backward function has the forward function's permission).
    pinReducedPrecision(created, getEffectiveReducedPrecision(op),
                        getEffectiveReducedPrecision(forward));
    // Trailing operands nothing differentiates (a stochastic rounding seed)
    // get no gradient.
    while (operandGradients.size() < op->getNumOperands() &&
           !BackwardOpInterface::isDifferentiable(
               op->getOperand(operandGradients.size()).getType()))
      operandGradients.push_back(Value());
    // Then, optionally, one per captured value.
    ArrayRef<Value> captureGradients;
    if (!captured.empty() &&
        operandGradients.size() == op->getNumOperands() + captured.size())
      captureGradients =
          ArrayRef<Value>(operandGradients).drop_front(op->getNumOperands());
    else if (operandGradients.size() != op->getNumOperands())
      return op->emitOpError("gradient rule returned ")
             << operandGradients.size() << " gradients for "
             << op->getNumOperands() << " operands";
    if (failed(checkActiveCaptures(op, captureGradients)))
      return failure();
    for (auto [value, gradient] : llvm::zip(captured, captureGradients)) {
      if (!gradient || !BackwardOpInterface::isDifferentiable(value.getType()))
        continue;
      if (cast<RankedTensorType>(gradient.getType()).getShape() !=
          cast<RankedTensorType>(value.getType()).getShape())
        return op->emitOpError("gradient rule returned ")
               << gradient.getType() << " for a captured value of type "
               << value.getType() << ", expected a float tensor of its shape";
      gradients.add(value, gradient);
    }
    operandGradients.truncate(op->getNumOperands());
    for (auto [index, operand, gradient] :
         llvm::enumerate(op->getOperands(), operandGradients)) {
      if (!gradient ||
          !BackwardOpInterface::isDifferentiable(operand.getType()))
        continue;
      auto operandType = cast<RankedTensorType>(operand.getType());
      auto gradientType = dyn_cast<RankedTensorType>(gradient.getType());
      if (!BackwardOpInterface::isDifferentiable(gradient.getType()) ||
          gradientType.getShape() != operandType.getShape())
        return op->emitOpError("gradient rule returned ")
               << gradient.getType() << " for operand " << index << " of type "
               << operandType << ", expected a float tensor of its shape";
      gradients.add(operand, gradient);
    }
  }
  return success();
}

LogicalResult BackwardBuilder::run() {
  if (failed(analyzeForward()))
    return failure();
  if (alreadyGenerated) {
    if (declared.getFunctionType() == getBackwardType())
      return success();
    return declared.emitOpError("was generated as the backward function of @")
           << forward.getSymName() << " with type "
           << declared.getFunctionType() << ", but @" << forward.getSymName()
           << " now needs " << getBackwardType();
  }
  FailureOr<func::FuncOp> created = createFunction();
  if (failed(created))
    return failure();
  func::FuncOp backward = *created;
  backward->setAttr(PrecDialect::kBackwardOfAttrName,
                    FlatSymbolRefAttr::get(forward.getSymNameAttr()));
  // The backward's contractions compute as the forward's may.
  if (Attribute reduced =
          forward->getAttr(PrecDialect::kReducedPrecisionAttrName))
    backward->setAttr(PrecDialect::kReducedPrecisionAttrName, reduced);
  Block *entry = backward.addEntryBlock();
  OpBuilder builder = OpBuilder::atBlockEnd(entry);

  // Recompute the forward values.
  Block &forwardBody = forward.getBody().front();
  IRMapping mapping;
  mapping.map(forwardBody.getArguments(),
              entry->getArguments().take_front(forward.getNumArguments()));
  SmallVector<Operation *> recomputed;
  for (Operation &op : forwardBody.without_terminator())
    recomputed.push_back(builder.clone(op, mapping));

  findActiveValues(*entry, recomputed);

  // Seed the results' gradients with the gradient arguments.
  Operation *forwardReturn = forwardBody.getTerminator();
  for (auto [position, index] : llvm::enumerate(differentiableResults))
    gradients.add(mapping.lookupOrDefault(forwardReturn->getOperand(index)),
                  entry->getArgument(forward.getNumArguments() + position));

  if (failed(propagate(builder, recomputed))) {
    if (declared) {
      backward.getBody().dropAllReferences();
      backward.getBody().getBlocks().clear();
      backward->removeAttr(PrecDialect::kBackwardOfAttrName);
    } else {
      symbols.erase(backward);
    }
    return failure();
  }

  SmallVector<Value> argGradients;
  for (auto [index, gradientType] :
       llvm::zip_equal(differentiableArgs, argGradientTypes)) {
    Value arg = entry->getArgument(index);
    Type elementType = cast<RankedTensorType>(gradientType).getElementType();
    Value gradient = gradients.take(builder, arg, elementType);
    argGradients.push_back(gradient ? gradient
                                    : createSplatLike(builder, arg.getLoc(),
                                                      arg, elementType, 0.0));
  }
  func::ReturnOp::create(builder, forwardReturn->getLoc(), argGradients);

  // Drop the recomputed values no gradient uses.
  for (Operation &op :
       llvm::make_early_inc_range(llvm::reverse(entry->getOperations())))
    if (isOpTriviallyDead(&op) ||
        (op.getNumResults() != 0 && op.use_empty() && isRecomputable(&op)))
      op.erase();
  return success();
}

/// Whether `forward`'s signature is one the backward function's type can be
/// derived from before the verifier has seen it: argument attributes for
/// every argument, and float gradient dtypes. Else the verifier reports it.
static bool hasDerivableSignature(func::FuncOp forward) {
  ArrayAttr argAttrs = forward.getArgAttrsAttr();
  if (!argAttrs)
    return true;
  if (argAttrs.size() != forward.getNumArguments())
    return false;
  for (unsigned index = 0, e = forward.getNumArguments(); index != e; ++index) {
    if (!isa_and_nonnull<DictionaryAttr>(argAttrs[index]))
      return false;
    Attribute gradDtype =
        forward.getArgAttr(index, PrecDialect::kGradDtypeAttrName);
    if (gradDtype && !(isa<TypeAttr>(gradDtype) &&
                       isa<FloatType>(cast<TypeAttr>(gradDtype).getValue())))
      return false;
  }
  return true;
}

LogicalResult
mlir::prec::declareCalledBackwardFunctions(ModuleOp module,
                                           ArrayRef<std::string> functions) {
  // The module is not verified yet: symbols are looked up one by one, since
  // a symbol table assumes unique names.
  llvm::SetVector<func::FuncOp> forwards;
  LogicalResult result = success();
  module.walk([&](func::CallOp call) {
    StringRef callee = call.getCallee();
    StringRef forwardName = callee;
    if (!forwardName.consume_back("_backward") || module.lookupSymbol(callee))
      return;
    auto forward = module.lookupSymbol<func::FuncOp>(forwardName);
    // Anything else is the verifier's to report.
    if (!forward || forward.isExternal() || !hasDerivableSignature(forward))
      return;
    // The functions prec-generate-backward differentiates: the named ones,
    // else the marked ones.
    if (!functions.empty()) {
      if (!llvm::is_contained(functions, forwardName)) {
        call.emitError("'@")
            << callee << "' is called but not declared; name " << forwardName
            << " in prec-generate-backward's option functions="
            << llvm::join(functions, ",") << " to generate it";
        result = failure();
      } else {
        forwards.insert(forward);
      }
      return;
    }
    if (!forward->hasAttr(PrecDialect::kDifferentiableAttrName)) {
      call.emitError("'@") << callee << "' is called but not declared; give @"
                           << forwardName << " the unit attribute '"
                           << PrecDialect::kDifferentiableAttrName
                           << "' to generate it";
      result = failure();
      return;
    }
    forwards.insert(forward);
  });
  if (failed(result))
    return failure();
  for (func::FuncOp forward : forwards) {
    auto backward = func::FuncOp::create(
        forward.getLoc(), (forward.getSymName() + "_backward").str(),
        getBackwardFunctionType(forward));
    backward.setPrivate();
    module.getBody()->getOperations().insert(std::next(forward->getIterator()),
                                             backward);
  }
  return success();
}

namespace {

struct DeclareBackwardPass
    : public prec::impl::PrecDeclareBackwardBase<DeclareBackwardPass> {
  using Base::Base;

  void runOnOperation() override {
    Operation *op = getOperation();
    auto module = dyn_cast<ModuleOp>(op);
    bool declared = false;
    if (module) {
      size_t before = module.getBody()->getOperations().size();
      if (failed(declareCalledBackwardFunctions(module, *functions)))
        return signalPassFailure();
      declared = module.getBody()->getOperations().size() != before;
    }
    // The input was parsed without verification.
    if (failed(verify(op)))
      return signalPassFailure();
    if (!declared)
      markAllAnalysesPreserved();
  }
};

struct GenerateBackwardPass
    : public prec::impl::PrecGenerateBackwardBase<GenerateBackwardPass> {
  using Base::Base;

  ArrayRef<std::string> getFunctions() { return *functions; }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // A function named twice is differentiated once.
    llvm::SetVector<func::FuncOp> forwards;
    if (functions.empty()) {
      for (auto function : module.getOps<func::FuncOp>())
        if (function->hasAttr(PrecDialect::kDifferentiableAttrName))
          forwards.insert(function);
    }
    for (const std::string &functionName : functions) {
      auto function = module.lookupSymbol<func::FuncOp>(functionName);
      if (!function) {
        // Reported at the module's location, without printing the module.
        emitError(module.getLoc(), "expected a function named '")
            << functionName << "' to differentiate";
        return signalPassFailure();
      }
      forwards.insert(function);
    }

    SymbolTable symbols(module);
    for (func::FuncOp forward : forwards)
      if (failed(BackwardBuilder(forward, symbols).run()))
        signalPassFailure();
  }
};

} // namespace

SmallVector<std::string>
mlir::prec::getFunctionsNamedToDifferentiate(OpPassManager &pm) {
  SmallVector<std::string> named;
  for (Pass &pass : pm.getPasses()) {
    if (pass.getTypeID() != TypeID::get<GenerateBackwardPass>())
      continue;
    for (const std::string &name :
         static_cast<GenerateBackwardPass &>(pass).getFunctions())
      if (!llvm::is_contained(named, name))
        named.push_back(name);
  }
  return named;
}
