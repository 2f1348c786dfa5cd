//===- MapElementwiseToGPU.cpp - bandwidth kernels as GPU launches --------===//
//
// The pack, unpack and optimizer kernels move every byte once and compute
// little, so their speed is the memory bandwidth they reach. Upstream's
// parallel-loop mapping gives one thread per element with scalar loads;
// this pass gives them what a hand-written CUDA kernel has: a grid-stride
// loop sized for the device, 16-byte vector accesses and no division per
// element.
//
//===----------------------------------------------------------------------===//

#include "prec/Conversion/Passes.h"

#include "precrt/compiled.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::prec {
#define GEN_PASS_DEF_PRECMAPELEMENTWISETOGPU
#include "prec/Conversion/Passes.h.inc"
} // namespace mlir::prec

using namespace mlir;
using namespace mlir::prec;

namespace {

/// Bytes each vector access of the narrowest operand moves.
constexpr int64_t kVectorBytes = 16;

/// An elementwise kernel on contiguous buffers of one static shape.
struct ElementwiseKernel {
  /// Buffers read element by element, or scalars read by every element.
  SmallVector<Value> inputs;
  /// Buffers written element by element.
  SmallVector<Value> outputs;
  /// Computes the outputs' elements from block arguments (inputs, then
  /// outputs) and yields them; null when the kernel stores its only input
  /// (copies and fills).
  Block *body = nullptr;
};

bool isContiguousBuffer(Value value) {
  auto type = dyn_cast<MemRefType>(value.getType());
  return type && memref::isStaticShapeAndContiguousRowMajor(type);
}

std::optional<ElementwiseKernel> matchGeneric(linalg::GenericOp op) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInits() == 0 ||
      op.getNumLoops() != op.getNumParallelLoops())
    return std::nullopt;
  for (OpOperand &operand : op->getOpOperands()) {
    AffineMap map = op.getMatchingIndexingMap(&operand);
    bool isBuffer = isa<MemRefType>(operand.get().getType());
    if (isBuffer ? !map.isIdentity() || !isContiguousBuffer(operand.get())
                 : map.getNumResults() != 0)
      return std::nullopt;
  }
  Block *body = op.getBlock();
  for (Operation &nested : body->without_terminator())
    if (isa<linalg::IndexOp>(nested) || nested.getNumRegions() != 0)
      return std::nullopt;
  return ElementwiseKernel{llvm::to_vector(op.getDpsInputs()),
                           llvm::to_vector(op.getDpsInits()), body};
}

/// The kernel `op` is, if it is one of the elementwise kinds.
std::optional<ElementwiseKernel> matchElementwiseKernel(Operation *op) {
  if (auto generic = dyn_cast<linalg::GenericOp>(op))
    return matchGeneric(generic);
  if (auto fill = dyn_cast<linalg::FillOp>(op)) {
    if (!fill.hasPureBufferSemantics() ||
        !isContiguousBuffer(fill.getOutputs()[0]))
      return std::nullopt;
    return ElementwiseKernel{{fill.value()}, {fill.getOutputs()[0]}};
  }
  Value source, target;
  if (auto copy = dyn_cast<linalg::CopyOp>(op)) {
    if (!copy.hasPureBufferSemantics())
      return std::nullopt;
    source = copy.getInputs()[0];
    target = copy.getOutputs()[0];
  } else if (auto copy = dyn_cast<memref::CopyOp>(op)) {
    source = copy.getSource();
    target = copy.getTarget();
  } else {
    return std::nullopt;
  }
  auto sourceType = dyn_cast<MemRefType>(source.getType());
  auto targetType = dyn_cast<MemRefType>(target.getType());
  if (!isContiguousBuffer(source) || !isContiguousBuffer(target) ||
      sourceType.getShape() != targetType.getShape() ||
      sourceType.getElementType() != targetType.getElementType())
    return std::nullopt;
  return ElementwiseKernel{{source}, {target}};
}

/// Elements per vector access: 16 bytes of the narrowest buffer element,
/// or 1 when some operation or element type cannot be vectorized.
int64_t getVectorWidth(const ElementwiseKernel &kernel) {
  if (kernel.body)
    for (Operation &op : kernel.body->without_terminator())
      if (!OpTrait::hasElementwiseMappableTraits(&op) &&
          !isa<arith::ConstantOp>(op))
        return 1;
  int64_t narrowest = kVectorBytes;
  for (Value value : llvm::concat<const Value>(kernel.inputs, kernel.outputs)) {
    auto type = dyn_cast<MemRefType>(value.getType());
    Type element = type ? type.getElementType() : value.getType();
    if (!element.isIntOrFloat() || element.getIntOrFloatBitWidth() < 8 ||
        element.getIntOrFloatBitWidth() % 8 != 0)
      return 1;
    if (type)
      narrowest =
          std::min(narrowest, int64_t(element.getIntOrFloatBitWidth() / 8));
  }
  return kVectorBytes / narrowest;
}

/// How a division by a value that is the same for every element is
/// computed without dividing per element.
struct InvertedDivisor {
  Value divisor;
  Value reciprocal;
  /// The reciprocal is exact (a power of two): one multiplication.
  bool exact;
  /// Whether the reciprocal is a normal number (else every quotient takes
  /// the division); null when exact.
  Value reciprocalIsNormal;
};

/// Whether |value| lies in [smallest normal, largest finite] of its type:
/// false for zero, subnormals, infinities and NaN.
Value buildIsNormal(OpBuilder &builder, Location loc, Value value) {
  auto type = cast<FloatType>(getElementTypeOrSelf(value.getType()));
  auto bound = [&](APFloat limit) -> Value {
    Value scalar =
        arith::ConstantOp::create(builder, loc, FloatAttr::get(type, limit));
    if (isa<VectorType>(value.getType()))
      return vector::BroadcastOp::create(builder, loc, value.getType(), scalar);
    return scalar;
  };
  const llvm::fltSemantics &semantics = type.getFloatSemantics();
  Value magnitude = math::AbsFOp::create(builder, loc, value);
  Value aboveMin =
      arith::CmpFOp::create(builder, loc, arith::CmpFPredicate::OGE, magnitude,
                            bound(APFloat::getSmallestNormalized(semantics)));
  Value belowMax =
      arith::CmpFOp::create(builder, loc, arith::CmpFPredicate::OLE, magnitude,
                            bound(APFloat::getLargest(semantics)));
  return arith::AndIOp::create(builder, loc, aboveMin, belowMax);
}

/// Builds the kernel's computation on scalars (width 1) or on vectors of
/// `width` elements.
class KernelBodyBuilder {
public:
  KernelBodyBuilder(OpBuilder &builder, Location loc,
                    const ElementwiseKernel &kernel, int64_t width,
                    const DenseMap<Operation *, InvertedDivisor> &divisors)
      : builder(builder), loc(loc), kernel(kernel), width(width),
        divisors(divisors) {}

  /// The outputs' values from the loaded `elements` (inputs then outputs;
  /// null for outputs the body does not read).
  SmallVector<Value> build(ValueRange elements) {
    if (!kernel.body)
      return {elements.front()};
    IRMapping mapping;
    mapping.map(kernel.body->getArguments(), elements);
    for (Operation &op : kernel.body->without_terminator())
      buildOp(op, mapping);
    return llvm::map_to_vector(
        kernel.body->getTerminator()->getOperands(),
        [&](Value yielded) { return lookup(yielded, mapping); });
  }

  /// `value` as one lane: itself for scalars, broadcast for vectors.
  Value splat(Value value) {
    if (width == 1)
      return value;
    return vector::BroadcastOp::create(builder, loc, vectorOf(value.getType()),
                                       value);
  }

  Type vectorOf(Type element) const {
    return width == 1 ? element : VectorType::get({width}, element);
  }

private:
  /// The kernel-side value of `value`: computed in the body, or defined
  /// above the kernel and the same for every element.
  Value lookup(Value value, IRMapping &mapping) {
    if (Value mapped = mapping.lookupOrNull(value))
      return mapped;
    Value lane = splat(value);
    mapping.map(value, lane);
    return lane;
  }

  void buildOp(Operation &op, IRMapping &mapping) {
    if (auto division = dyn_cast<arith::DivFOp>(op)) {
      auto inverted = divisors.find(&op);
      if (inverted != divisors.end()) {
        mapping.map(division.getResult(),
                    buildDivision(lookup(division.getLhs(), mapping),
                                  inverted->second));
        return;
      }
    }
    if (width == 1) {
      builder.clone(op, mapping);
      return;
    }
    if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
      auto type = cast<VectorType>(vectorOf(constant.getType()));
      Value lane = arith::ConstantOp::create(
          builder, loc, type,
          DenseElementsAttr::get(type, cast<TypedAttr>(constant.getValue())));
      mapping.map(constant.getResult(), lane);
      return;
    }
    OperationState state(loc, op.getName());
    for (Value operand : op.getOperands())
      state.operands.push_back(lookup(operand, mapping));
    for (Type type : op.getResultTypes())
      state.types.push_back(vectorOf(type));
    state.attributes = op.getAttrs();
    Operation *vectorOp = builder.create(state);
    mapping.map(op.getResults(), vectorOp->getResults());
  }

  /// x / d as x * (1 / d), exact for a power of two; otherwise refined by
  /// one fused correction step, which gives the correctly rounded quotient
  /// when the reciprocal and the quotient are normal numbers (Markstein).
  /// Zero dividends keep the product (its sign is right); the rare
  /// elements outside that range (infinities, NaN, subnormal or overflowing
  /// quotients, divisors whose reciprocal is not normal) take a real
  /// division, in a branch that the common case skips.
  Value buildDivision(Value dividend, const InvertedDivisor &inverted) {
    Value reciprocal = splat(inverted.reciprocal);
    Value quotient = arith::MulFOp::create(builder, loc, dividend, reciprocal);
    if (inverted.exact)
      return quotient;
    Value divisor = splat(inverted.divisor);
    Value negated = arith::NegFOp::create(builder, loc, quotient);
    Value remainder =
        math::FmaOp::create(builder, loc, negated, divisor, dividend);
    Value refined =
        math::FmaOp::create(builder, loc, remainder, reciprocal, quotient);

    Type type = dividend.getType();
    Value zero =
        arith::ConstantOp::create(builder, loc, builder.getZeroAttr(type));
    Value isZero = arith::CmpFOp::create(
        builder, loc, arith::CmpFPredicate::OEQ, dividend, zero);
    Value fast =
        arith::SelectOp::create(builder, loc, isZero, quotient, refined);
    Value inRange = arith::OrIOp::create(
        builder, loc, buildIsNormal(builder, loc, refined), isZero);
    Value good = arith::AndIOp::create(builder, loc, inRange,
                                       splat(inverted.reciprocalIsNormal));

    Value anyBad;
    if (width == 1) {
      anyBad = arith::XOrIOp::create(
          builder, loc, good, arith::ConstantIntOp::create(builder, loc, 1, 1));
    } else {
      Value allGood = vector::ReductionOp::create(
          builder, loc, vector::CombiningKind::AND, good);
      anyBad = arith::XOrIOp::create(
          builder, loc, allGood,
          arith::ConstantIntOp::create(builder, loc, 1, 1));
    }
    auto branch = scf::IfOp::create(
        builder, loc, anyBad,
        [&](OpBuilder &inner, Location innerLoc) {
          Value exact =
              arith::DivFOp::create(inner, innerLoc, dividend, divisor);
          Value merged =
              arith::SelectOp::create(inner, innerLoc, good, fast, exact);
          scf::YieldOp::create(inner, innerLoc, merged);
        },
        [&](OpBuilder &inner, Location innerLoc) {
          scf::YieldOp::create(inner, innerLoc, fast);
        });
    return branch.getResult(0);
  }

  OpBuilder &builder;
  Location loc;
  const ElementwiseKernel &kernel;
  int64_t width;
  const DenseMap<Operation *, InvertedDivisor> &divisors;
};

/// The divisions of `body` by a value that is the same for every element.
SmallVector<arith::DivFOp> getInvariantDivisions(Block *body) {
  SmallVector<arith::DivFOp> divisions;
  if (!body)
    return divisions;
  for (Operation &op : body->without_terminator()) {
    auto division = dyn_cast<arith::DivFOp>(op);
    if (!division)
      continue;
    Value divisor = division.getRhs();
    if (divisor.getParentBlock() != body ||
        divisor.getDefiningOp<arith::ConstantOp>())
      divisions.push_back(division);
  }
  return divisions;
}

/// Inverts each divisor once, at the start of the kernel.
DenseMap<Operation *, InvertedDivisor>
buildInvertedDivisors(OpBuilder &builder, Location loc, Block *body) {
  DenseMap<Operation *, InvertedDivisor> divisors;
  for (arith::DivFOp division : getInvariantDivisions(body)) {
    Value divisor = division.getRhs();
    Type type = divisor.getType();
    FloatAttr constant;
    APFloat inverse(0.0);
    if (matchPattern(divisor, m_Constant(&constant)) &&
        constant.getValue().getExactInverse(&inverse)) {
      Value exact = arith::ConstantOp::create(builder, loc,
                                              FloatAttr::get(type, inverse));
      divisors[division] = {divisor, exact, /*exact=*/true, Value()};
      continue;
    }
    if (divisor.getParentBlock() == body)
      divisor = builder.clone(*divisor.getDefiningOp())->getResult(0);
    Value one =
        arith::ConstantOp::create(builder, loc, FloatAttr::get(type, 1.0));
    Value reciprocal = arith::DivFOp::create(builder, loc, one, divisor);
    divisors[division] = {divisor, reciprocal, /*exact=*/false,
                          buildIsNormal(builder, loc, reciprocal)};
  }
  return divisors;
}

/// `value` as a 1-D buffer (rank 0 as one element).
Value flatten(OpBuilder &builder, Location loc, Value value) {
  auto type = dyn_cast<MemRefType>(value.getType());
  if (!type)
    return value;
  if (type.getRank() == 0)
    return memref::ExpandShapeOp::create(builder, loc, ArrayRef<int64_t>{1},
                                         value,
                                         ArrayRef<ReassociationIndices>{});
  SmallVector<ReassociationIndices> all(1);
  for (int64_t dim = 0; dim < type.getRank(); ++dim)
    all.front().push_back(dim);
  MemRefType flat =
      type.getRank() == 1
          ? type
          : memref::CollapseShapeOp::computeCollapsedType(type, all);
  auto [strides, offset] = flat.getStridesAndOffset();
  if (strides.front() != 1 && type.getNumElements() == 1) {
    // One element may have any stride (a view of one element of a row, or
    // dims of size 1 collapsed to the outer dim's stride), which vector
    // accesses reject: view it with unit stride instead.
    OpFoldResult elementOffset =
        ShapedType::isDynamic(offset)
            ? OpFoldResult(
                  memref::ExtractStridedMetadataOp::create(builder, loc, value)
                      .getOffset())
            : OpFoldResult(builder.getIndexAttr(offset));
    auto unitStride = MemRefType::get(
        {1}, type.getElementType(),
        StridedLayoutAttr::get(builder.getContext(), offset, {1}),
        type.getMemorySpace());
    OpFoldResult one = builder.getIndexAttr(1);
    return memref::ReinterpretCastOp::create(builder, loc, unitStride, value,
                                             elementOffset, {one}, {one});
  }
  if (type.getRank() == 1)
    return value;
  return memref::CollapseShapeOp::create(builder, loc, value, all);
}

Value indexConstant(OpBuilder &builder, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(builder, loc, value);
}

/// Whether every buffer of `buffers` starts at a 16-byte boundary.
Value buildAllAligned(OpBuilder &builder, Location loc, ValueRange buffers) {
  Value aligned = arith::ConstantIntOp::create(builder, loc, 1, 1);
  Value vectorBytes = indexConstant(builder, loc, kVectorBytes);
  Value zero = indexConstant(builder, loc, 0);
  for (Value buffer : buffers) {
    auto type = cast<MemRefType>(buffer.getType());
    auto metadata =
        memref::ExtractStridedMetadataOp::create(builder, loc, buffer);
    Value base =
        memref::ExtractAlignedPointerAsIndexOp::create(builder, loc, buffer);
    Value offsetBytes = arith::MulIOp::create(
        builder, loc, metadata.getOffset(),
        indexConstant(builder, loc,
                      type.getElementType().getIntOrFloatBitWidth() / 8));
    Value start = arith::AddIOp::create(builder, loc, base, offsetBytes);
    Value misalignment =
        arith::RemUIOp::create(builder, loc, start, vectorBytes);
    Value isAligned = arith::CmpIOp::create(
        builder, loc, arith::CmpIPredicate::eq, misalignment, zero);
    aligned = arith::AndIOp::create(builder, loc, aligned, isAligned);
  }
  return aligned;
}

/// One grid-stride loop over elements [begin, end) of the flat buffers,
/// `width` elements per iteration starting at element `width * i`.
void buildGridStrideLoop(
    OpBuilder &builder, Location loc, const ElementwiseKernel &kernel,
    ValueRange inputs, ValueRange outputs, Value begin, Value end, Value stride,
    int64_t width, const DenseMap<Operation *, InvertedDivisor> &divisors) {
  auto loop = scf::ForOp::create(builder, loc, begin, end, stride);
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(loop.getBody());
  Value element = loop.getInductionVar();
  if (width > 1)
    element = arith::MulIOp::create(builder, loc, element,
                                    indexConstant(builder, loc, width));
  KernelBodyBuilder body(builder, loc, kernel, width, divisors);

  auto load = [&](Value buffer) -> Value {
    auto type = cast<MemRefType>(buffer.getType());
    if (width == 1)
      return memref::LoadOp::create(builder, loc, buffer, element);
    return vector::LoadOp::create(
        builder, loc, VectorType::get({width}, type.getElementType()), buffer,
        element, /*nontemporal=*/false, llvm::MaybeAlign(kVectorBytes));
  };
  SmallVector<Value> elements;
  for (Value input : inputs)
    elements.push_back(isa<MemRefType>(input.getType()) ? load(input)
                                                        : body.splat(input));
  for (auto [index, output] : llvm::enumerate(outputs)) {
    bool read = kernel.body &&
                !kernel.body->getArgument(inputs.size() + index).use_empty();
    elements.push_back(read ? load(output) : Value());
  }
  for (auto [value, output] : llvm::zip(body.build(elements), outputs)) {
    if (width == 1)
      memref::StoreOp::create(builder, loc, value, output, element);
    else
      vector::StoreOp::create(builder, loc, value, output, element,
                              /*nontemporal=*/false,
                              llvm::MaybeAlign(kVectorBytes));
  }
}

/// Replaces `op` by a gpu.launch of `blocks` x `threadsPerBlock` threads
/// running `kernel` as grid-stride loops.
void buildLaunch(OpBuilder &builder, Operation *op,
                 const ElementwiseKernel &kernel, Value maxBlocks,
                 int64_t threadsPerBlock) {
  Location loc = op->getLoc();
  builder.setInsertionPoint(op);
  auto shaped = cast<MemRefType>(kernel.outputs.front().getType());
  int64_t numElements = shaped.getNumElements();
  int64_t width = getVectorWidth(kernel);

  auto flatAll = [&](ArrayRef<Value> values) {
    return llvm::map_to_vector(
        values, [&](Value value) { return flatten(builder, loc, value); });
  };
  SmallVector<Value> inputs = flatAll(kernel.inputs);
  SmallVector<Value> outputs = flatAll(kernel.outputs);

  int64_t elementsPerBlock = threadsPerBlock * width;
  Value neededBlocks = indexConstant(
      builder, loc,
      std::max<int64_t>(1, llvm::divideCeil(numElements, elementsPerBlock)));
  Value blocks = arith::MinSIOp::create(builder, loc, neededBlocks, maxBlocks);
  Value one = indexConstant(builder, loc, 1);
  Value threads = indexConstant(builder, loc, threadsPerBlock);
  auto launch =
      gpu::LaunchOp::create(builder, loc, blocks, one, one, threads, one, one);

  builder.setInsertionPointToStart(&launch.getBody().front());
  Value blockStart = arith::MulIOp::create(builder, loc, launch.getBlockIds().x,
                                           launch.getBlockSize().x);
  Value first =
      arith::AddIOp::create(builder, loc, blockStart, launch.getThreadIds().x);
  Value stride = arith::MulIOp::create(builder, loc, launch.getGridSize().x,
                                       launch.getBlockSize().x);
  DenseMap<Operation *, InvertedDivisor> divisors =
      buildInvertedDivisors(builder, loc, kernel.body);

  Value total = indexConstant(builder, loc, numElements);
  Value scalarStart = first;
  if (width > 1) {
    SmallVector<Value> buffers;
    for (Value value : llvm::concat<Value>(inputs, outputs))
      if (isa<MemRefType>(value.getType()))
        buffers.push_back(value);
    Value aligned = buildAllAligned(builder, loc, buffers);
    Value vectors = arith::SelectOp::create(
        builder, loc, aligned, indexConstant(builder, loc, numElements / width),
        indexConstant(builder, loc, 0));
    buildGridStrideLoop(builder, loc, kernel, inputs, outputs, first, vectors,
                        stride, width, divisors);
    Value vectorElements = arith::MulIOp::create(
        builder, loc, vectors, indexConstant(builder, loc, width));
    scalarStart = arith::AddIOp::create(builder, loc, vectorElements, first);
  }
  buildGridStrideLoop(builder, loc, kernel, inputs, outputs, scalarStart, total,
                      stride, /*width=*/1, divisors);
  gpu::TerminatorOp::create(builder, loc);
  op->erase();
}

/// `precrtCompiledGpuMaxBlocks`, declared once per module.
func::FuncOp getOrDeclareMaxBlocks(ModuleOp module) {
  StringRef name = PRECRT_COMPILED_GPU_MAX_BLOCKS_SYMBOL;
  if (auto existing = module.lookupSymbol<func::FuncOp>(name))
    return existing;
  OpBuilder builder = OpBuilder::atBlockBegin(module.getBody());
  Type i64 = builder.getI64Type();
  auto declaration = func::FuncOp::create(
      builder, module.getLoc(), name, builder.getFunctionType({i64}, {i64}));
  declaration.setPrivate();
  return declaration;
}

struct PrecMapElementwiseToGPUPass
    : public prec::impl::PrecMapElementwiseToGPUBase<
          PrecMapElementwiseToGPUPass> {
  using Base::Base;

  void runOnOperation() override {
    if (threadsPerBlock <= 0 || threadsPerBlock > 1024) {
      getOperation().emitError()
          << "threads-per-block must be in [1, 1024], got "
          << static_cast<int64_t>(threadsPerBlock);
      return signalPassFailure();
    }
    ModuleOp module = getOperation();
    // NVPTX has no f80 or f128 arithmetic: LLVM would abort in instruction
    // selection. Say so at the op that computes in it.
    WalkResult wide = module.walk([](linalg::LinalgOp kernel) {
      auto reject = [&](Type type) {
        if (!isa<Float80Type, Float128Type>(getElementTypeOrSelf(type)))
          return false;
        kernel->emitOpError("computes in ")
            << getElementTypeOrSelf(type)
            << ", which GPU kernels do not support: use f64 or narrower";
        return true;
      };
      // Its operands, and the values its body computes.
      if (llvm::any_of(kernel->getOperandTypes(), reject))
        return WalkResult::interrupt();
      WalkResult body = kernel->walk([&](Operation *op) {
        return llvm::any_of(op->getResultTypes(), reject)
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      });
      return body;
    });
    if (wide.wasInterrupted())
      return signalPassFailure();
    for (auto function : module.getOps<func::FuncOp>())
      if (!function.isExternal())
        mapFunction(module, function);
  }

  void mapFunction(ModuleOp module, func::FuncOp function) {
    SmallVector<std::pair<Operation *, ElementwiseKernel>> kernels;
    SmallVector<memref::CopyOp> stridedCopies;
    function.walk([&](Operation *op) {
      if (op->getParentOfType<gpu::LaunchOp>())
        return;
      if (std::optional<ElementwiseKernel> kernel = matchElementwiseKernel(op))
        kernels.emplace_back(op, std::move(*kernel));
      else if (auto copy = dyn_cast<memref::CopyOp>(op))
        stridedCopies.push_back(copy);
    });
    // Copies between strided views become loops on the GPU like any other
    // linalg op; the host must not touch device memory.
    for (memref::CopyOp copy : stridedCopies) {
      OpBuilder builder(copy);
      linalg::CopyOp::create(builder, copy.getLoc(), copy.getSource(),
                             copy.getTarget());
      copy.erase();
    }
    if (kernels.empty())
      return;

    // The device's resident block count, asked once per call.
    OpBuilder builder = OpBuilder::atBlockBegin(&function.getBody().front());
    Location loc = function.getLoc();
    func::FuncOp maxBlocksFn = getOrDeclareMaxBlocks(module);
    Value threads = arith::ConstantIntOp::create(builder, loc, threadsPerBlock,
                                                 /*width=*/64);
    Value maxBlocks =
        func::CallOp::create(builder, loc, maxBlocksFn, threads).getResult(0);
    maxBlocks = arith::IndexCastOp::create(builder, loc, builder.getIndexType(),
                                           maxBlocks);

    for (auto &[op, kernel] : kernels)
      buildLaunch(builder, op, kernel, maxBlocks, threadsPerBlock);
  }
};

} // namespace
