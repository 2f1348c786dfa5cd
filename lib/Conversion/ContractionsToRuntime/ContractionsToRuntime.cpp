//===- ContractionsToRuntime.cpp - matmuls to precrt's gemm ---------------===//
//
// Contractions on buffers become calls of precrtCompiledMatmul, which runs
// them through a tuned gemm (OpenBLAS's sgemm, loaded at run time) under
// prec's precision contract: inputs extended exactly to f32, accumulation in
// f32, the result rounded once. Upstream's loop lowering of a matmul runs
// 35 to 80 times slower than a library on a training step's shapes.
//
//===----------------------------------------------------------------------===//

#include "prec/Conversion/ContractionsToRuntime/Gemm.h"
#include "prec/Conversion/Passes.h"
#include "prec/Dialect/Prec/IR/PrecAttrs.h"
#include "prec/Dialect/Prec/IR/PrecDialect.h"

#include "precrt/compiled.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include <array>

namespace mlir::prec {
#define GEN_PASS_DEF_CONVERTCONTRACTIONSTORUNTIME
#include "prec/Conversion/Passes.h.inc"
} // namespace mlir::prec

using namespace mlir;
using namespace mlir::prec;

int32_t mlir::prec::gemmDtype(Type type, bool input) {
  if (type.isF32())
    return PRECRT_DTYPE_F32;
  if (type.isBF16())
    return PRECRT_DTYPE_BF16;
  if (type.isF16())
    return PRECRT_DTYPE_F16;
  if (input && isa<Float8E4M3FNType>(type))
    return PRECRT_DTYPE_F8E4M3FN;
  if (input && isa<Float8E5M2Type>(type))
    return PRECRT_DTYPE_F8E5M2;
  return -1;
}

/// `value` as a block argument of `body`, looking through the exact
/// extension linalg inserts when an input is narrower than the output.
static BlockArgument inputThroughExtension(Value value, Block &body) {
  if (auto extension = value.getDefiningOp<arith::ExtFOp>())
    value = extension.getIn();
  auto argument = dyn_cast<BlockArgument>(value);
  return argument && argument.getOwner() == &body ? argument : BlockArgument();
}

/// Whether the body of `op` is `out + ext(a) * ext(b)` as the gemm computes
/// it: f32 accumulation of f32, bf16, f16 or fp8 inputs (extensions are
/// exact),
/// or a bf16 / f16 output of inputs of the same type, whose products and
/// sums the gemm keeps in f32 and rounds once (more precise than the
/// rounding at every step linalg specifies, which the contract allows). An
/// input that linalg would first round to a narrower output type is not
/// taken: its rounding is part of the program.
bool mlir::prec::hasGemmBody(linalg::LinalgOp op) {
  Block &body = op->getRegion(0).front();
  Type outType = body.getArgument(2).getType();
  if (gemmDtype(outType, /*input=*/false) < 0)
    return false;
  for (unsigned i = 0; i < 2; ++i) {
    Type inType = body.getArgument(i).getType();
    if (gemmDtype(inType, /*input=*/true) < 0 ||
        (!outType.isF32() && inType != outType))
      return false;
  }
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  auto add = yield.getValues()[0].getDefiningOp<arith::AddFOp>();
  if (!add)
    return false;
  Value lhs = add.getLhs(), rhs = add.getRhs();
  if (rhs == body.getArgument(2))
    std::swap(lhs, rhs);
  auto mul = rhs.getDefiningOp<arith::MulFOp>();
  if (lhs != body.getArgument(2) || !mul)
    return false;
  BlockArgument x = inputThroughExtension(mul.getLhs(), body);
  BlockArgument y = inputThroughExtension(mul.getRhs(), body);
  if (!x || !y || x == y || x.getArgNumber() > 1 || y.getArgNumber() > 1)
    return false;
  // Nothing else: the two extensions at most, the product, the sum.
  size_t expected = 3 + (mul.getLhs() != x) + (mul.getRhs() != y);
  return body.getOperations().size() == expected;
}

FailureOr<GemmLoops> mlir::prec::inferGemmLoops(linalg::LinalgOp op) {
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
      op->getNumRegions() != 1 || !hasGemmBody(op))
    return failure();
  for (OpOperand &operand : op->getOpOperands()) {
    AffineMap map = op.getMatchingIndexingMap(&operand);
    if (!map.isProjectedPermutation(/*allowZeroInResults=*/false))
      return failure();
  }
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  if (failed(dims) || dims->batch.size() > 1 || dims->m.size() != 1 ||
      dims->n.size() != 1 || dims->k.size() != 1 ||
      op.getNumLoops() != dims->batch.size() + 3)
    return failure();
  GemmLoops loops{std::nullopt, dims->m[0], dims->n[0], dims->k[0]};
  if (!dims->batch.empty())
    loops.batch = dims->batch[0];
  return loops;
}

namespace {

/// The buffer a view looks into, through every view.
Value rootBuffer(Value value) {
  while (auto view = value.getDefiningOp<ViewLikeOpInterface>())
    value = view.getViewSource();
  return value;
}

bool isFreshAllocation(Value buffer) {
  return buffer.getDefiningOp<memref::AllocOp>() ||
         buffer.getDefiningOp<memref::AllocaOp>();
}

FailureOr<GemmLoops> matchGemm(linalg::LinalgOp op) {
  if (!op.hasPureBufferSemantics())
    return failure();
  for (OpOperand &operand : op->getOpOperands()) {
    auto type = dyn_cast<MemRefType>(operand.get().getType());
    if (!type || !type.isStrided())
      return failure();
  }
  FailureOr<GemmLoops> loops = inferGemmLoops(op);
  if (failed(loops))
    return failure();
  // The gemm writes C while it reads A and B: they must not overlap.
  Value out = rootBuffer(op.getDpsInitOperand(0)->get());
  for (OpOperand *input : op.getDpsInputOperands()) {
    Value in = rootBuffer(input->get());
    if (in == out || (!isFreshAllocation(in) && !isFreshAllocation(out)))
      return failure();
  }
  return loops;
}

/// Where a scale of the scaled fp8 form comes from: a rank-0 f32 input of
/// the contraction, or an f32 constant (the canonicalizer inlines a constant
/// scalar input into the body).
struct ScaleSource {
  OpOperand *buffer = nullptr;
  FloatAttr constant;
};

struct ScaledFp8Gemm {
  GemmLoops loops;
  ScaleSource scales[2];
};

/// The source of `value` as a scale in the body of `op`, if it is one.
std::optional<ScaleSource> getScaleSource(linalg::LinalgOp op, Value value) {
  if (auto argument = dyn_cast<BlockArgument>(value)) {
    if (argument.getOwner() != &op->getRegion(0).front() ||
        argument.getArgNumber() < 2 ||
        argument.getArgNumber() >= op.getNumDpsInputs())
      return std::nullopt;
    return ScaleSource{op.getDpsInputOperand(argument.getArgNumber()), {}};
  }
  FloatAttr constant;
  if (matchPattern(value, m_Constant(&constant)) &&
      constant.getType().isF32())
    return ScaleSource{nullptr, constant};
  return std::nullopt;
}

/// `ext(arg data) * scale` (in either order): the scale's source; a scale
/// of 1, which the canonicalizer folds away, for `ext(arg data)` alone.
std::optional<ScaleSource> getScaledInput(linalg::LinalgOp op, Value value,
                                          unsigned data) {
  Block &body = op->getRegion(0).front();
  if (auto extension = value.getDefiningOp<arith::ExtFOp>()) {
    if (extension.getIn() != body.getArgument(data))
      return std::nullopt;
    return ScaleSource{nullptr, FloatAttr::get(Float32Type::get(op->getContext()), 1.0)};
  }
  auto mul = value.getDefiningOp<arith::MulFOp>();
  if (!mul)
    return std::nullopt;
  for (auto [x, y] : {std::pair(mul.getLhs(), mul.getRhs()),
                      std::pair(mul.getRhs(), mul.getLhs())}) {
    auto extension = x.getDefiningOp<arith::ExtFOp>();
    if (extension && extension.getIn() == body.getArgument(data))
      return getScaleSource(op, y);
  }
  return std::nullopt;
}

/// What prec-contract-fp8-with-scales makes, on buffers: fp8 inputs A and
/// B, then rank-0 f32 inputs read as scalars, an f32 output, a body
/// `out + (ext(a) * s_a) * (ext(b) * s_b)` (operands in any order; a scale
/// is a scalar input or an f32 constant), one m, n and k loop and no batch.
/// The GPU gemm takes it as cuBLASLt's fp8 gemm with the two scales.
FailureOr<ScaledFp8Gemm> matchScaledFp8Gemm(linalg::LinalgOp op) {
  unsigned inputs = op.getNumDpsInputs();
  if (!op.hasPureBufferSemantics() || inputs < 2 || inputs > 4 ||
      op.getNumDpsInits() != 1 || op->getNumRegions() != 1 ||
      op.getNumLoops() != 3 || op.getNumReductionLoops() != 1)
    return failure();
  for (OpOperand &operand : op->getOpOperands()) {
    auto type = dyn_cast<MemRefType>(operand.get().getType());
    if (!type || !type.isStrided())
      return failure();
  }
  auto isFp8 = [](Type type) {
    return isa<Float8E4M3FNType, Float8E5M2Type>(getElementTypeOrSelf(type));
  };
  Type aType = getElementTypeOrSelf(op.getDpsInputOperand(0)->get().getType());
  Type bType = getElementTypeOrSelf(op.getDpsInputOperand(1)->get().getType());
  if (!isFp8(aType) || !isFp8(bType) ||
      (isa<Float8E5M2Type>(aType) && isa<Float8E5M2Type>(bType)) ||
      !getElementTypeOrSelf(op.getDpsInitOperand(0)->get().getType()).isF32())
    return failure();
  for (unsigned i = 2; i < inputs; ++i) {
    OpOperand *scale = op.getDpsInputOperand(i);
    auto type = cast<MemRefType>(scale->get().getType());
    if (type.getRank() != 0 || !type.getElementType().isF32() ||
        op.getMatchingIndexingMap(scale).getNumResults() != 0)
      return failure();
  }
  Block &body = op->getRegion(0).front();
  Value out = body.getArgument(inputs);
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  auto add = yield.getValues()[0].getDefiningOp<arith::AddFOp>();
  if (!add || (add.getLhs() != out && add.getRhs() != out))
    return failure();
  auto mul = (add.getLhs() == out ? add.getRhs() : add.getLhs())
                 .getDefiningOp<arith::MulFOp>();
  if (!mul)
    return failure();
  ScaledFp8Gemm gemm;
  bool matched = false;
  for (auto [x, y] : {std::pair(mul.getLhs(), mul.getRhs()),
                      std::pair(mul.getRhs(), mul.getLhs())}) {
    std::optional<ScaleSource> a = getScaledInput(op, x, 0);
    std::optional<ScaleSource> b = getScaledInput(op, y, 1);
    if (a && b) {
      gemm.scales[0] = *a;
      gemm.scales[1] = *b;
      matched = true;
      break;
    }
  }
  // Nothing else: the two extensions, a product for each scale that is not
  // 1, the product, the sum and the yield; constants aside.
  unsigned scaleProducts = llvm::count_if(mul->getOperands(), [](Value side) {
    return side.getDefiningOp<arith::MulFOp>() != nullptr;
  });
  if (!matched ||
      llvm::count_if(body, [](Operation &nested) {
        return !isa<arith::ConstantOp>(nested);
      }) != 5 + scaleProducts)
    return failure();
  // Loops: k the reduction, m indexes A and C, n indexes B and C.
  AffineMap maps[3] = {
      op.getMatchingIndexingMap(op.getDpsInputOperand(0)),
      op.getMatchingIndexingMap(op.getDpsInputOperand(1)),
      op.getMatchingIndexingMap(op.getDpsInitOperand(0))};
  for (AffineMap map : maps)
    if (map.getNumResults() != 2 ||
        !map.isProjectedPermutation(/*allowZeroInResults=*/false))
      return failure();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  for (unsigned loop = 0; loop < 3; ++loop) {
    bool inA = maps[0].isFunctionOfDim(loop),
         inB = maps[1].isFunctionOfDim(loop),
         inC = maps[2].isFunctionOfDim(loop);
    if (iterators[loop] == utils::IteratorType::reduction && inA && inB &&
        !inC)
      gemm.loops.k = loop;
    else if (inA && inC && !inB)
      gemm.loops.m = loop;
    else if (inB && inC && !inA)
      gemm.loops.n = loop;
    else
      return failure();
  }
  // The gemm writes C while it reads A and B: they must not overlap.
  Value outBuffer = rootBuffer(op.getDpsInitOperand(0)->get());
  for (unsigned i = 0; i < 2; ++i) {
    Value in = rootBuffer(op.getDpsInputOperand(i)->get());
    if (in == outBuffer ||
        (!isFreshAllocation(in) && !isFreshAllocation(outBuffer)))
      return failure();
  }
  return gemm;
}

/// Whether `op` may write or free memory that `root` may reach.
bool mayClobber(Operation *op, Value root) {
  if (isMemoryEffectFree(op))
    return false;
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects)
    return true;
  SmallVector<MemoryEffects::EffectInstance> instances;
  effects.getEffects(instances);
  for (MemoryEffects::EffectInstance &instance : instances) {
    if (isa<MemoryEffects::Read, MemoryEffects::Allocate>(instance.getEffect()))
      continue;
    Value written = instance.getValue();
    if (!written)
      return true;
    Value writtenRoot = rootBuffer(written);
    // Two distinct buffers of which one is a fresh allocation cannot alias;
    // two arguments may.
    if (writtenRoot == root ||
        (!isFreshAllocation(writtenRoot) && !isFreshAllocation(root)))
      return true;
  }
  return false;
}

/// Whether `first` precedes `second` in their block, in time linear in
/// the distance between them. Not Operation::isBeforeInBlock: the rewrites
/// move frees, which invalidates the block's order, so that each query
/// would renumber the whole block, quadratic in the contractions of a step.
bool isBeforeNearby(Operation *first, Operation *second) {
  // Walk on from both until one meets the other or leaves the block.
  for (Operation *fromFirst = first, *fromSecond = second;;) {
    fromFirst = fromFirst->getNextNode();
    if (fromFirst == second)
      return true;
    if (!fromFirst)
      return false;
    fromSecond = fromSecond->getNextNode();
    if (fromSecond == first)
      return false;
    if (!fromSecond)
      return true;
  }
}

/// A gemm operand: the buffer the runtime reads and, for each dimension of
/// the operand as the contraction indexes it, the buffer's dimension.
struct OperandBuffer {
  Value buffer;
  SmallVector<int64_t> bufferDim;
  /// Frees of `buffer` that must move after the contraction, which now
  /// reads it.
  SmallVector<Operation *> deferredFrees = {};
};

/// Input `index` of `op`, read from the source of a `linalg.transpose` that
/// only feeds it (into a buffer nothing else uses but deallocations), with
/// the permutation folded into its strides. The transpose and its buffer
/// are then erased: the generated backward transposes a weight for every
/// matmul that multiplies by it, and the gemm takes it transposed for free.
OperandBuffer foldTranspose(linalg::LinalgOp op, unsigned index,
                            SmallVectorImpl<Operation *> &erased) {
  Value input = op.getDpsInputOperand(index)->get();
  auto rank = cast<MemRefType>(input.getType()).getRank();
  OperandBuffer identity{input, llvm::to_vector(llvm::seq<int64_t>(0, rank))};
  auto alloc = input.getDefiningOp<memref::AllocOp>();
  if (!alloc)
    return identity;
  linalg::TransposeOp transpose;
  SmallVector<Operation *> deallocs;
  unsigned reads = 0;
  for (OpOperand &use : alloc->getUses()) {
    Operation *user = use.getOwner();
    if (user == op.getOperation() && op.isDpsInput(&use)) {
      ++reads;
    } else if (auto t = dyn_cast<linalg::TransposeOp>(user);
               t && t.getInit() == input && !transpose) {
      transpose = t;
    } else if (isa<memref::DeallocOp>(user)) {
      deallocs.push_back(user);
    } else {
      return identity;
    }
  }
  if (!transpose || reads != 1 || transpose->getBlock() != op->getBlock() ||
      !transpose.hasPureBufferSemantics() || !isBeforeNearby(transpose, op))
    return identity;
  Value source = transpose.getInput();
  Value root = rootBuffer(source);
  // The gemm would read the source while it writes the output.
  Value out = rootBuffer(op.getDpsInitOperand(0)->get());
  if (root == out || (!isFreshAllocation(root) && !isFreshAllocation(out)))
    return identity;
  // The transpose is often the source's last reader, so that its buffer is
  // freed right after it: that free moves after the contraction.
  SmallVector<Operation *> deferredFrees;
  for (Operation *between = transpose->getNextNode(); between != op;
       between = between->getNextNode()) {
    auto dealloc = dyn_cast<memref::DeallocOp>(between);
    if (dealloc && rootBuffer(dealloc.getMemref()) == root)
      deferredFrees.push_back(dealloc);
    else if (mayClobber(between, root))
      return identity;
  }

  erased.push_back(transpose);
  llvm::append_range(erased, deallocs);
  erased.push_back(alloc);
  // Dimension d of the transposed buffer is dimension permutation[d] of the
  // source.
  return {source, llvm::to_vector(transpose.getPermutation()),
          std::move(deferredFrees)};
}

/// precrtCompiledMatmul's arguments: batch, m, n, k, then per operand its
/// dtype, address and batch, row and column strides.
SmallVector<Type> getMatmulArgumentTypes(Builder &builder) {
  Type i32 = builder.getI32Type(), i64 = builder.getI64Type(),
       index = builder.getIndexType();
  SmallVector<Type> arguments = {i64, i64, i64, i64};
  for (int operand = 0; operand < 3; ++operand)
    arguments.append({i32, index, i64, i64, i64});
  return arguments;
}

func::FuncOp getOrCreateMatmulDecl(ModuleOp module) {
  if (auto existing =
          module.lookupSymbol<func::FuncOp>(PRECRT_COMPILED_MATMUL_SYMBOL))
    return existing;
  OpBuilder builder = OpBuilder::atBlockBegin(module.getBody());
  auto decl = func::FuncOp::create(
      builder, module.getLoc(), PRECRT_COMPILED_MATMUL_SYMBOL,
      builder.getFunctionType(getMatmulArgumentTypes(builder),
                              {builder.getI32Type()}));
  decl.setPrivate();
  return decl;
}

/// The callee of the scaled fp8 form (precrtCompiledMatmul's arguments,
/// then the addresses of the two scales), for prec-gpu-host-to-runtime.
func::FuncOp getOrCreateScaledGemmDecl(ModuleOp module) {
  if (auto existing = module.lookupSymbol<func::FuncOp>(kScaledGemmSymbol))
    return existing;
  OpBuilder builder = OpBuilder::atBlockBegin(module.getBody());
  SmallVector<Type> arguments = getMatmulArgumentTypes(builder);
  arguments.append({builder.getIndexType(), builder.getIndexType()});
  auto decl = func::FuncOp::create(
      builder, module.getLoc(), kScaledGemmSymbol,
      builder.getFunctionType(arguments, {builder.getI32Type()}));
  decl.setPrivate();
  return decl;
}

/// The loops that index the rows and the columns of each operand.
std::array<std::array<std::optional<unsigned>, 2>, 3>
matrixLoops(const GemmLoops &loops) {
  return {{{loops.m, loops.k}, {loops.k, loops.n}, {loops.m, loops.n}}};
}

/// Whether the buffer of operand `index` has a static unit stride (or a
/// single element) along the loop `loop`.
bool hasUnitStrideAlong(linalg::LinalgOp op, unsigned index,
                        const OperandBuffer &buffer, unsigned loop) {
  auto type = cast<MemRefType>(buffer.buffer.getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)))
    return false;
  // A, B, or C (the output, after every input).
  OpOperand &operand = index < 2 ? *op.getDpsInputOperand(index)
                                 : *op.getDpsInitOperand(0);
  AffineMap map = op.getMatchingIndexingMap(&operand);
  for (auto [position, result] : llvm::enumerate(map.getResults())) {
    if (cast<AffineDimExpr>(result).getPosition() != loop)
      continue;
    int64_t dim = buffer.bufferDim[position];
    return strides[dim] == 1 || type.getDimSize(dim) == 1;
  }
  return false;
}

/// Whether cuBLASLt takes operand `index` from `buffer`: a unit stride along
/// its rows or its columns, so that it is a column-major matrix or the
/// transpose of one.
bool cublasLtTakesOperand(linalg::LinalgOp op, const GemmLoops &loops,
                          unsigned index, const OperandBuffer &buffer) {
  auto [rows, cols] = matrixLoops(loops)[index];
  return hasUnitStrideAlong(op, index, buffer, *rows) ||
         hasUnitStrideAlong(op, index, buffer, *cols);
}

/// Whether cuBLASLt's fp8 gemm takes input `index` from `buffer`: a unit
/// stride along k, and a static leading dimension (the other stride) and
/// offset that are multiples of 16 elements (16 bytes of fp8), as its
/// kernels need.
bool hasFp8GemmLayout(linalg::LinalgOp op, const GemmLoops &loops,
                      unsigned index, const OperandBuffer &buffer) {
  if (!hasUnitStrideAlong(op, index, buffer, loops.k))
    return false;
  auto type = cast<MemRefType>(buffer.buffer.getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) ||
      ShapedType::isDynamic(offset) || offset % 16 != 0)
    return false;
  return llvm::all_of(strides, [](int64_t stride) {
    return !ShapedType::isDynamic(stride) && (stride == 1 || stride % 16 == 0);
  });
}

/// The input type cuBLASLt computes `op` in, or null: A and B of one type
/// (f32, bf16, f16) and C f32 or of theirs. Inputs of other types are
/// widened exactly to the narrowest type holding both (fp8 to bf16 or f16,
/// bf16 and f16 together to f32), which keeps the contract: the products and
/// sums are f32 either way.
Type cublasLtInputType(linalg::LinalgOp op) {
  Type a = getElementTypeOrSelf(op.getDpsInputOperand(0)->get().getType());
  Type b = getElementTypeOrSelf(op.getDpsInputOperand(1)->get().getType());
  Type c = getElementTypeOrSelf(op.getDpsInitOperand(0)->get().getType());
  auto isFp8 = [](Type type) {
    return isa<Float8E4M3FNType, Float8E5M2Type>(type);
  };
  auto join = [&](Type x, Type y) -> Type {
    if (x == y)
      return isFp8(x) ? BFloat16Type::get(x.getContext()) : x;
    if (isFp8(x))
      std::swap(x, y);
    // y is fp8 (exact in bf16 and f16), or x and y are two of f32, bf16, f16.
    if (isFp8(y))
      return isFp8(x) ? BFloat16Type::get(x.getContext()) : x;
    return Float32Type::get(x.getContext());
  };
  Type input = join(a, b);
  if (!input.isF32() && !input.isBF16() && !input.isF16())
    return Type();
  return c.isF32() || c == input ? input : Type();
}

/// Operand `index` of `op` as it is.
OperandBuffer wholeOperand(linalg::LinalgOp op, unsigned index) {
  Value value = op->getOperand(index);
  return {value, llvm::to_vector(llvm::seq<int64_t>(
                     0, cast<MemRefType>(value.getType()).getRank()))};
}

/// Replaces the contraction `op` by a call of precrtCompiledMatmul (or, for
/// the `scaled` fp8 form, of the scaled gemm); for GPU code only where
/// cuBLASLt takes it (false, and nothing changed, where it does not).
bool rewriteGemm(linalg::LinalgOp op, const GemmLoops &loops, func::FuncOp decl,
                 bool gpu, const ScaleSource *scales = nullptr) {
  bool scaled = scales != nullptr;
  // What folding each input's transpose would erase.
  SmallVector<Operation *> folded[2];
  unsigned outIndex = op.getDpsInitOperand(0)->getOperandNumber();
  OperandBuffer buffers[3] = {
      scaled ? wholeOperand(op, 0) : foldTranspose(op, 0, folded[0]),
      scaled ? wholeOperand(op, 1) : foldTranspose(op, 1, folded[1]),
      wholeOperand(op, outIndex)};
  // Inputs cuBLASLt reads widened first, into buffers of its type.
  Type widenedType;
  bool widen[2] = {false, false};
  if (scaled) {
    // C with its rows contiguous and a leading dimension of 16 elements'
    // multiples, as cuBLASLt's fp8 D needs.
    auto outType = cast<MemRefType>(buffers[2].buffer.getType());
    SmallVector<int64_t> outStrides;
    int64_t outOffset;
    if (!hasUnitStrideAlong(op, 2, buffers[2], loops.n) ||
        failed(outType.getStridesAndOffset(outStrides, outOffset)) ||
        llvm::any_of(outStrides,
                      [](int64_t stride) {
                        return ShapedType::isDynamic(stride) ||
                               (stride != 1 && stride % 16 != 0);
                      }) ||
        !hasFp8GemmLayout(op, loops, 0, buffers[0]) ||
        !hasFp8GemmLayout(op, loops, 1, buffers[1]))
      return false;
  } else if (gpu) {
    widenedType = cublasLtInputType(op);
    if (!widenedType || !cublasLtTakesOperand(op, loops, 2, buffers[2]))
      return false;
    for (unsigned i = 0; i < 2; ++i) {
      auto type = cast<MemRefType>(buffers[i].buffer.getType());
      if (type.getElementType() != widenedType) {
        // The widened copy has the identity layout cuBLASLt reads.
        if (!type.hasStaticShape())
          return false;
        widen[i] = true;
        continue;
      }
      if (cublasLtTakesOperand(op, loops, i, buffers[i]))
        continue;
      // A transpose whose source cuBLASLt cannot read stays, and the gemm
      // reads its result.
      Value input = op.getDpsInputOperand(i)->get();
      OperandBuffer identity{
          input, llvm::to_vector(llvm::seq<int64_t>(
                     0, cast<MemRefType>(input.getType()).getRank()))};
      if (!cublasLtTakesOperand(op, loops, i, identity))
        return false;
      buffers[i] = std::move(identity);
      folded[i].clear();
    }
  }
  SmallVector<Operation *> erased(folded[0]);
  llvm::append_range(erased, folded[1]);

  OpBuilder builder(op);
  Location loc = op.getLoc();
  Type i64 = builder.getI64Type();
  SmallVector<Value> widenedBuffers;
  for (unsigned i = 0; i < 2; ++i) {
    if (!widen[i])
      continue;
    auto type = cast<MemRefType>(buffers[i].buffer.getType());
    auto widenedBufferType = MemRefType::get(type.getShape(), widenedType);
    Value widened = memref::AllocOp::create(builder, loc, widenedBufferType);
    SmallVector<AffineMap> maps(2,
                                builder.getMultiDimIdentityMap(type.getRank()));
    SmallVector<utils::IteratorType> iterators(type.getRank(),
                                               utils::IteratorType::parallel);
    linalg::GenericOp::create(
        builder, loc, ValueRange{buffers[i].buffer}, ValueRange{widened}, maps,
        iterators, [&](OpBuilder &b, Location loc, ValueRange args) {
          Value extended = arith::ExtFOp::create(b, loc, widenedType, args[0]);
          linalg::YieldOp::create(b, loc, extended);
        });
    buffers[i].buffer = widened;
    widenedBuffers.push_back(widened);
  }
  auto toI64 = [&](Value value) -> Value {
    return arith::IndexCastOp::create(builder, loc, i64, value);
  };
  // One constant per value and type: most arguments are constants, and
  // many of them equal (1, a shared size).
  DenseMap<std::pair<Type, int64_t>, Value> constants;
  auto constant = [&](Type type, int64_t value) {
    Value &result = constants[{type, value}];
    if (!result)
      result = arith::ConstantOp::create(builder, loc, type,
                                         builder.getIntegerAttr(type, value));
    return result;
  };
  Value zero = constant(i64, 0);
  // The address of a buffer's first element: its aligned pointer plus its
  // offset in bytes, a constant where the type fixes the offset.
  auto addressOf = [&](Value buffer, int64_t staticOffset,
                       function_ref<Value()> dynamicOffset) -> Value {
    Value address =
        memref::ExtractAlignedPointerAsIndexOp::create(builder, loc, buffer);
    int64_t elementBytes =
        cast<MemRefType>(buffer.getType()).getElementTypeBitWidth() / 8;
    Type index = builder.getIndexType();
    if (ShapedType::isDynamic(staticOffset))
      return arith::AddIOp::create(
          builder, loc, address,
          arith::MulIOp::create(builder, loc, dynamicOffset(),
                                constant(index, elementBytes)));
    if (staticOffset != 0)
      return arith::AddIOp::create(
          builder, loc, address, constant(index, staticOffset * elementBytes));
    return address;
  };

  // Per operand: the address of its first element and its stride along each
  // loop (0 along a loop that does not index it). What the buffer's type
  // fixes is a constant; only the rest is read from its descriptor, which
  // keeps a step of thousands of contractions from leaving tens of
  // thousands of ops for the next pass to fold.
  SmallVector<Value> arguments(4);
  DenseMap<unsigned, Value> loopSizes;
  auto rowsCols = matrixLoops(loops);
  OpOperand *operands[3] = {op.getDpsInputOperand(0), op.getDpsInputOperand(1),
                            op.getDpsInitOperand(0)};
  for (unsigned i = 0; i < 3; ++i) {
    Value buffer = buffers[i].buffer;
    auto type = cast<MemRefType>(buffer.getType());
    SmallVector<int64_t> staticStrides;
    int64_t staticOffset;
    if (failed(type.getStridesAndOffset(staticStrides, staticOffset))) {
      staticStrides.assign(type.getRank(), ShapedType::kDynamic);
      staticOffset = ShapedType::kDynamic;
    }
    memref::ExtractStridedMetadataOp metadata;
    auto getMetadata = [&] {
      if (!metadata)
        metadata =
            memref::ExtractStridedMetadataOp::create(builder, loc, buffer);
      return metadata;
    };
    // `value` as an i64, from the descriptor where the type leaves it open.
    auto i64Value = [&](int64_t value, function_ref<Value()> dynamic) {
      return ShapedType::isDynamic(value) ? toI64(dynamic())
                                          : constant(i64, value);
    };

    Value address = addressOf(buffer, staticOffset,
                              [&] { return getMetadata().getOffset(); });

    DenseMap<unsigned, Value> strides;
    AffineMap map = op.getMatchingIndexingMap(operands[i]);
    for (auto [position, result] : llvm::enumerate(map.getResults())) {
      unsigned loop = cast<AffineDimExpr>(result).getPosition();
      int64_t dim = buffers[i].bufferDim[position];
      strides[loop] = i64Value(staticStrides[dim],
                               [&] { return getMetadata().getStrides()[dim]; });
      if (!loopSizes.count(loop))
        loopSizes[loop] = i64Value(type.getDimSize(dim), [&] {
          return getMetadata().getSizes()[dim];
        });
    }
    auto strideAlong = [&](std::optional<unsigned> loop) {
      return loop && strides.count(*loop) ? strides[*loop] : zero;
    };
    arguments.append(
        {constant(builder.getI32Type(), gemmDtype(type.getElementType(),
                                                  /*input=*/i < 2)),
         address, strideAlong(loops.batch), strideAlong(rowsCols[i][0]),
         strideAlong(rowsCols[i][1])});
  }
  arguments[0] = loops.batch ? loopSizes[*loops.batch] : constant(i64, 1);
  arguments[1] = loopSizes[loops.m];
  arguments[2] = loopSizes[loops.n];
  arguments[3] = loopSizes[loops.k];
  // The scales' addresses: one f32 each; a constant is put in a constant
  // global, which prec-gpu-host-to-runtime copies to the device.
  for (unsigned i = 0; scaled && i < 2; ++i) {
    Value buffer;
    if (scales[i].buffer) {
      buffer = scales[i].buffer->get();
    } else {
      auto module = op->getParentOfType<ModuleOp>();
      auto type = MemRefType::get({}, builder.getF32Type());
      // A constant global of the value: one made before, or a new one
      // under a name no symbol has.
      auto value = DenseElementsAttr::get(
          RankedTensorType::get({}, builder.getF32Type()),
          ArrayRef<Attribute>{scales[i].constant});
      std::string name;
      for (unsigned n = 0;; ++n) {
        name = "__prec_gemm_scale_" + std::to_string(n);
        Operation *existing = module.lookupSymbol(name);
        if (!existing)
          break;
        auto global = dyn_cast<memref::GlobalOp>(existing);
        if (global && global.getType() == type && global.getConstant() &&
            global.getInitialValueAttr() == value)
          break;
      }
      if (!module.lookupSymbol(name)) {
        OpBuilder global = OpBuilder::atBlockBegin(module.getBody());
        memref::GlobalOp::create(global, loc, name,
                                 global.getStringAttr("private"), type, value,
                                 /*constant=*/true, /*alignment=*/nullptr);
      }
      buffer = memref::GetGlobalOp::create(builder, loc, type, name);
    }
    SmallVector<int64_t> strides;
    int64_t offset = ShapedType::kDynamic;
    (void)cast<MemRefType>(buffer.getType())
        .getStridesAndOffset(strides, offset);
    arguments.push_back(addressOf(buffer, offset, [&] {
      return memref::ExtractStridedMetadataOp::create(builder, loc, buffer)
          .getOffset();
    }));
  }
  auto call = func::CallOp::create(builder, loc, decl, arguments);
  // The GPU gemm takes what the program allows below the contract
  // (prec-gpu-host-to-runtime passes it); the CPU's computes the contract
  // whatever the program allows, which exceeds it.
  if (ReducedPrecision reduced = getEffectiveReducedPrecision(op);
      gpu && reduced != ReducedPrecision::none)
    call->setAttr(PrecDialect::kReducedPrecisionAttrName,
                  ReducedPrecisionAttr::get(op->getContext(), reduced));
  builder.setInsertionPointAfter(call);
  for (Value widened : widenedBuffers)
    memref::DeallocOp::create(builder, loc, widened);
  for (OperandBuffer &buffer : buffers)
    for (Operation *free : llvm::reverse(buffer.deferredFrees))
      free->moveAfter(call);

  op->erase();
  for (Operation *dead : erased)
    dead->erase();
  return true;
}

struct ConvertContractionsToRuntimePass
    : public prec::impl::ConvertContractionsToRuntimeBase<
          ConvertContractionsToRuntimePass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<std::pair<linalg::LinalgOp, GemmLoops>> gemms;
    SmallVector<std::pair<linalg::LinalgOp, ScaledFp8Gemm>> scaledGemms;
    module.walk([&](linalg::LinalgOp op) {
      // Host code only: kernels already mapped to a GPU stay there.
      for (Operation *parent = op->getParentOp(); parent;
           parent = parent->getParentOp())
        if (parent->getDialect() &&
            parent->getDialect()->getNamespace() == "gpu")
          return;
      if (FailureOr<GemmLoops> loops = matchGemm(op); succeeded(loops))
        gemms.emplace_back(op, *loops);
      // fp8 operands with their scales: cuBLASLt's fp8 gemm.
      else if (FailureOr<ScaledFp8Gemm> scaled = matchScaledFp8Gemm(op);
               gpu && fp8Gemm && succeeded(scaled) &&
               bitEnumContainsAll(getEffectiveReducedPrecision(op),
                                  ReducedPrecision::fp8_accumulation))
        scaledGemms.emplace_back(op, *scaled);
    });
    if (!scaledGemms.empty()) {
      func::FuncOp scaledDecl = getOrCreateScaledGemmDecl(module);
      bool rewritten = false;
      for (auto &[op, scaled] : scaledGemms)
        rewritten |=
            rewriteGemm(op, scaled.loops, scaledDecl, gpu, scaled.scales);
      if (!rewritten && scaledDecl.symbolKnownUseEmpty(module))
        scaledDecl.erase();
    }
    if (gemms.empty())
      return;
    bool declared = static_cast<bool>(
        module.lookupSymbol<func::FuncOp>(PRECRT_COMPILED_MATMUL_SYMBOL));
    func::FuncOp decl = getOrCreateMatmulDecl(module);
    bool rewritten = false;
    for (auto &[op, loops] : gemms)
      rewritten |= rewriteGemm(op, loops, decl, gpu);
    if (!rewritten && !declared)
      decl.erase();
  }
};

} // namespace
