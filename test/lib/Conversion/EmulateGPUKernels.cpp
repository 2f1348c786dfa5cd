//===- EmulateGPUKernels.cpp - outlined kernels as host loops, for tests --===//
//
// Tests run the GPU code prec-lower-to-cuda generates on machines without a
// GPU: the kernel bodies exactly as prec's mapping wrote them, in loops over
// blocks and threads on the host, launched through the same mgpuLaunchKernel
// call on the same stream, against the test driver of runtime/test/fakes.
// Only upstream's NVVM code generation is left out.
//
//===----------------------------------------------------------------------===//

#include "TestPasses.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"

namespace mlir::prec::test {
#define GEN_PASS_DEF_PRECEMULATEGPUKERNELS
#include "TestPasses.h.inc"
} // namespace mlir::prec::test

using namespace mlir;
using namespace mlir::prec;

namespace {

/// What the launch argument of an emulated kernel points to (the test
/// driver's `EmulatedLaunch`): grid and block sizes, then the driver's check
/// that a buffer lies in device memory.
enum LaunchField : int32_t {
  kGrid = 0,
  kBlock = 3,
  kInDeviceMemory = 6,
  kOutOfBounds = 7
};

/// The key in a launch's `extra` before the sizes of its parameters (the
/// test driver's; "PREC").
constexpr int64_t kEmulatedParamSizes = 0x50524543;

/// The image emulated code loads through the driver before its first launch.
/// The test driver takes it; a CUDA driver rejects it as an invalid image,
/// and then no host function reaches its cuLaunchKernel.
constexpr llvm::StringLiteral kMarkerImage = "prec-emulated-kernels";
constexpr llvm::StringLiteral kRefusedMessage =
    "emulated kernels need the test CUDA driver (runtime/test/fakes, named "
    "by PRECRT_CUDA_DRIVER_LIBRARY): the CUDA driver loaded rejects their "
    "marker module, so no kernel is launched\n";

/// The type a kernel argument of type `type` is passed as in `params`.
Type getSlotType(Type type) {
  MLIRContext *context = type.getContext();
  auto i64 = IntegerType::get(context, 64);
  if (auto memref = dyn_cast<MemRefType>(type)) {
    auto pointer = LLVM::LLVMPointerType::get(context);
    SmallVector<Type> fields{pointer, pointer, i64};
    if (memref.getRank() > 0) {
      auto array = LLVM::LLVMArrayType::get(i64, memref.getRank());
      fields.append({array, array});
    }
    return LLVM::LLVMStructType::getLiteral(context, fields);
  }
  if (type.isIndex())
    return i64;
  return type;
}

/// Why `type` cannot be a kernel argument of the emulation, or "".
std::string checkArgumentType(Type type) {
  if (auto memref = dyn_cast<MemRefType>(type)) {
    if (memref.getMemorySpace())
      return "a memref in a memory space other than the default";
    return "";
  }
  if (type.isIndex() || LLVM::isCompatibleType(type))
    return "";
  return "a value of a type without an LLVM equivalent";
}

/// The i64 in field `field` of the launch struct.
Value loadLaunchField(OpBuilder &builder, Location loc, Value launch,
                      int32_t field) {
  auto i64 = builder.getI64Type();
  auto pointer = LLVM::LLVMPointerType::get(builder.getContext());
  Value address = LLVM::GEPOp::create(builder, loc, pointer, i64, launch,
                                      ArrayRef<LLVM::GEPArg>{field});
  return LLVM::LoadOp::create(builder, loc, i64, address);
}

/// Emulates one kernel of the launches it receives.
class KernelEmulator {
public:
  KernelEmulator(ModuleOp module, gpu::GPUModuleOp gpuModule,
                 gpu::GPUFuncOp kernel)
      : module(module), gpuModule(gpuModule), kernel(kernel) {}

  FailureOr<func::FuncOp> run() {
    if (failed(checkKernel()))
      return failure();
    MLIRContext *context = module.getContext();
    Location loc = kernel.getLoc();
    auto pointer = LLVM::LLVMPointerType::get(context);
    OpBuilder builder = OpBuilder::atBlockEnd(module.getBody());
    std::string name =
        ("__prec_emulated_" + gpuModule.getName() + "_" + kernel.getName())
            .str();
    auto function = func::FuncOp::create(
        builder, loc, name, builder.getFunctionType({pointer, pointer}, {}));
    function.setPrivate();
    Block *entry = function.addEntryBlock();
    builder.setInsertionPointToStart(entry);
    Value params = entry->getArgument(0);
    Value launch = entry->getArgument(1);

    // The arguments, from the slots the launch filled.
    IRMapping mapping;
    SmallVector<Value> buffers;
    for (auto [index, argument] : llvm::enumerate(kernel.getArguments())) {
      Type type = argument.getType();
      Value slotAddress =
          LLVM::GEPOp::create(builder, loc, pointer, pointer, params,
                              ArrayRef<LLVM::GEPArg>{int32_t(index)});
      Value slot = LLVM::LoadOp::create(builder, loc, pointer, slotAddress);
      Value value = LLVM::LoadOp::create(builder, loc, getSlotType(type), slot);
      if (isa<MemRefType>(type)) {
        value = UnrealizedConversionCastOp::create(builder, loc, type, value)
                    .getResult(0);
        buffers.push_back(value);
      } else if (type.isIndex()) {
        value = arith::IndexCastOp::create(builder, loc, type, value);
      }
      mapping.map(argument, value);
    }

    // The launch's sizes, x y z.
    Type indexType = builder.getIndexType();
    auto loadSize = [&](int32_t field) -> Value {
      return arith::IndexCastOp::create(
          builder, loc, indexType,
          loadLaunchField(builder, loc, launch, field));
    };
    for (int32_t dim = 0; dim < 3; ++dim) {
      gridSizes.push_back(loadSize(kGrid + dim));
      blockSizes.push_back(loadSize(kBlock + dim));
    }

    // Every buffer in device memory, or the driver fails the launch and no
    // thread runs.
    Value allInDevice =
        checkBuffersInDeviceMemory(builder, loc, launch, buffers);
    auto ifInDevice = scf::IfOp::create(builder, loc, allInDevice,
                                        /*withElseRegion=*/false);
    builder.setInsertionPointToStart(ifInDevice.thenBlock());

    // Blocks, then threads, each z y x, one after another.
    Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
    Value one = arith::ConstantIndexOp::create(builder, loc, 1);
    for (int level = 0; level < 2; ++level) {
      SmallVector<Value> &sizes = level == 0 ? gridSizes : blockSizes;
      SmallVector<Value> &ids = level == 0 ? blockIds : threadIds;
      ids.assign(3, Value());
      for (int dim = 2; dim >= 0; --dim) {
        auto loop = scf::ForOp::create(builder, loc, zero, sizes[dim], one);
        ids[dim] = loop.getInductionVar();
        builder.setInsertionPointToStart(loop.getBody());
      }
    }

    Block &body = kernel.getBody().front();
    for (Operation &op : body.without_terminator())
      builder.clone(op, mapping);
    builder.setInsertionPointToEnd(entry);
    func::ReturnOp::create(builder, loc);

    replaceIdOps(function);
    checkAccesses(function, launch);
    return function;
  }

private:
  LogicalResult checkKernel() {
    if (!kernel.getWorkgroupAttributions().empty() ||
        !kernel.getPrivateAttributions().empty())
      return kernel.emitOpError()
             << "uses shared or private memory, which the host emulation of "
                "kernels does not run";
    if (!kernel.getBody().hasOneBlock())
      return kernel.emitOpError()
             << "has more than one block; the host emulation runs "
                "structured kernels (before scf lowering)";
    for (BlockArgument argument : kernel.getArguments()) {
      std::string problem = checkArgumentType(argument.getType());
      if (!problem.empty())
        return kernel.emitOpError()
               << "takes " << problem << " (" << argument.getType()
               << "), which the host emulation cannot pass";
    }
    WalkResult result =
        kernel.walk([&](Operation *op) {
          if (!isa<gpu::GPUDialect>(op->getDialect()) || op == kernel)
            return WalkResult::advance();
          if (isa<gpu::BlockIdOp, gpu::ThreadIdOp, gpu::BlockDimOp,
                  gpu::GridDimOp, gpu::GlobalIdOp, gpu::ReturnOp>(op))
            return WalkResult::advance();
          op->emitOpError()
              << "in kernel " << gpuModule.getName() << "::" << kernel.getName()
              << ": the host emulation runs threads one after another and "
                 "supports no operation that needs them to run together";
          return WalkResult::interrupt();
        });
    return failure(result.wasInterrupted());
  }

  /// `inDeviceMemory(launch, address, bytes)` of every buffer, and-ed.
  Value checkBuffersInDeviceMemory(OpBuilder &builder, Location loc,
                                   Value launch, ArrayRef<Value> buffers) {
    MLIRContext *context = builder.getContext();
    auto i32 = builder.getI32Type();
    auto i64 = builder.getI64Type();
    auto pointer = LLVM::LLVMPointerType::get(context);
    Value checkAddress =
        LLVM::GEPOp::create(builder, loc, pointer, i64, launch,
                            ArrayRef<LLVM::GEPArg>{kInDeviceMemory});
    Value check = LLVM::LoadOp::create(builder, loc, pointer, checkAddress);
    auto checkType = LLVM::LLVMFunctionType::get(i32, {pointer, i64, i64});
    Value all = arith::ConstantIntOp::create(builder, loc, 1, 1);
    for (Value buffer : buffers) {
      auto type = cast<MemRefType>(buffer.getType());
      // Indices are i64, as in the slots (a gather's gradient keeps its
      // recomputed indices in buffers).
      int64_t elementBytes =
          type.getElementType().isIndex()
              ? 8
              : llvm::divideCeil(type.getElementTypeBitWidth(), 8);
      auto metadata =
          memref::ExtractStridedMetadataOp::create(builder, loc, buffer);
      // The buffer spans [aligned + offset, ... + last element]: one
      // element plus (size - 1) x stride per dimension, none if empty.
      Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
      Value one = arith::ConstantIndexOp::create(builder, loc, 1);
      Value span = one;
      Value empty = arith::ConstantIntOp::create(builder, loc, 0, 1);
      for (auto [size, stride] :
           llvm::zip(metadata.getSizes(), metadata.getStrides())) {
        Value isEmpty = arith::CmpIOp::create(
            builder, loc, arith::CmpIPredicate::eq, size, zero);
        empty = arith::OrIOp::create(builder, loc, empty, isEmpty);
        Value last = arith::SubIOp::create(builder, loc, size, one);
        Value reach = arith::MulIOp::create(builder, loc, last, stride);
        span = arith::AddIOp::create(builder, loc, span, reach);
      }
      Value elementSize =
          arith::ConstantIndexOp::create(builder, loc, elementBytes);
      Value bytes = arith::MulIOp::create(builder, loc, span, elementSize);
      bytes = arith::SelectOp::create(builder, loc, empty, zero, bytes);
      Value aligned =
          memref::ExtractAlignedPointerAsIndexOp::create(builder, loc, buffer);
      Value offsetBytes = arith::MulIOp::create(
          builder, loc, metadata.getOffset(), elementSize);
      Value start = arith::AddIOp::create(builder, loc, aligned, offsetBytes);
      SmallVector<Value> operands{
          check, launch, arith::IndexCastOp::create(builder, loc, i64, start),
          arith::IndexCastOp::create(builder, loc, i64, bytes)};
      Value inDevice =
          LLVM::CallOp::create(builder, loc, checkType, operands).getResult();
      Value zero32 = arith::ConstantIntOp::create(builder, loc, 0, 32);
      Value ok = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::ne,
                                       inDevice, zero32);
      all = arith::AndIOp::create(builder, loc, all, ok);
    }
    return all;
  }

  /// The gpu id and size ops of the cloned body as the loops' values.
  void replaceIdOps(func::FuncOp function) {
    SmallVector<Operation *> idOps;
    function.walk([&](Operation *op) {
      if (isa<gpu::BlockIdOp, gpu::ThreadIdOp, gpu::BlockDimOp, gpu::GridDimOp,
              gpu::GlobalIdOp>(op))
        idOps.push_back(op);
    });
    for (Operation *op : idOps) {
      auto dim = unsigned(
          op->getAttrOfType<gpu::DimensionAttr>("dimension").getValue());
      Value replacement;
      if (isa<gpu::BlockIdOp>(op)) {
        replacement = blockIds[dim];
      } else if (isa<gpu::ThreadIdOp>(op)) {
        replacement = threadIds[dim];
      } else if (isa<gpu::BlockDimOp>(op)) {
        replacement = blockSizes[dim];
      } else if (isa<gpu::GridDimOp>(op)) {
        replacement = gridSizes[dim];
      } else {
        OpBuilder builder(op);
        Value base = arith::MulIOp::create(builder, op->getLoc(), blockIds[dim],
                                           blockSizes[dim]);
        replacement =
            arith::AddIOp::create(builder, op->getLoc(), base, threadIds[dim]);
      }
      op->getResult(0).replaceAllUsesWith(replacement);
      op->erase();
    }
  }

  /// The address of a NUL-terminated constant `text`, a global of `module`.
  Value getStringAddress(OpBuilder &builder, Location loc, StringRef name,
                         StringRef text) {
    MLIRContext *context = builder.getContext();
    auto type =
        LLVM::LLVMArrayType::get(IntegerType::get(context, 8), text.size() + 1);
    auto global = module.lookupSymbol<LLVM::GlobalOp>(name);
    if (!global) {
      OpBuilder moduleBuilder = OpBuilder::atBlockEnd(module.getBody());
      global = LLVM::GlobalOp::create(
          moduleBuilder, loc, type, /*isConstant=*/true,
          LLVM::Linkage::Internal, name,
          moduleBuilder.getStringAttr((text + Twine('\0')).str()));
    }
    return LLVM::AddressOfOp::create(builder, loc, global);
  }

  /// Checks before every element access of the body that it stays inside
  /// its buffer (each index in [0, size), a vector's last `n` elements too);
  /// outside, the driver's `outOfBounds(message)` reports the kernel and
  /// ends the process, as a GPU's memory fault ends the context.
  void checkAccesses(func::FuncOp function, Value launch) {
    std::string message = ("out-of-bounds access in kernel " +
                           gpuModule.getName() + "::" + kernel.getName())
                              .str();
    std::string messageName = (function.getName() + "_out_of_bounds").str();
    function.walk([&](Operation *op) {
      Value buffer;
      ValueRange indices;
      ArrayRef<int64_t> vectorShape;
      if (auto load = dyn_cast<memref::LoadOp>(op)) {
        buffer = load.getMemRef();
        indices = load.getIndices();
      } else if (auto store = dyn_cast<memref::StoreOp>(op)) {
        buffer = store.getMemRef();
        indices = store.getIndices();
      } else if (auto load = dyn_cast<vector::LoadOp>(op)) {
        buffer = load.getBase();
        indices = load.getIndices();
        vectorShape = load.getVectorType().getShape();
      } else if (auto store = dyn_cast<vector::StoreOp>(op)) {
        buffer = store.getBase();
        indices = store.getIndices();
        vectorShape = store.getVectorType().getShape();
      } else {
        return;
      }
      OpBuilder builder(op);
      Location loc = op->getLoc();
      Value inBounds = arith::ConstantIntOp::create(builder, loc, 1, 1);
      Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
      size_t rank = indices.size();
      for (auto [dim, index] : llvm::enumerate(indices)) {
        int64_t extent = 1;
        size_t vectorDim = dim + vectorShape.size();
        if (vectorDim >= rank)
          extent = vectorShape[vectorDim - rank];
        Value size = memref::DimOp::create(builder, loc, buffer, dim);
        Value end = arith::AddIOp::create(
            builder, loc, index,
            arith::ConstantIndexOp::create(builder, loc, extent));
        Value notNegative = arith::CmpIOp::create(
            builder, loc, arith::CmpIPredicate::sge, index, zero);
        Value fits = arith::CmpIOp::create(
            builder, loc, arith::CmpIPredicate::sle, end, size);
        inBounds = arith::AndIOp::create(builder, loc, inBounds, notNegative);
        inBounds = arith::AndIOp::create(builder, loc, inBounds, fits);
      }
      Value outside = arith::XOrIOp::create(
          builder, loc, inBounds,
          arith::ConstantIntOp::create(builder, loc, 1, 1));
      auto ifOutside = scf::IfOp::create(builder, loc, outside,
                                         /*withElseRegion=*/false);
      builder.setInsertionPointToStart(ifOutside.thenBlock());
      MLIRContext *context = builder.getContext();
      auto pointer = LLVM::LLVMPointerType::get(context);
      Value reportAddress =
          LLVM::GEPOp::create(builder, loc, pointer, builder.getI64Type(),
                              launch, ArrayRef<LLVM::GEPArg>{kOutOfBounds});
      Value report = LLVM::LoadOp::create(builder, loc, pointer, reportAddress);
      Value text = getStringAddress(builder, loc, messageName, message);
      auto reportType = LLVM::LLVMFunctionType::get(
          LLVM::LLVMVoidType::get(context), {pointer});
      LLVM::CallOp::create(builder, loc, reportType, ValueRange{report, text});
    });
  }

  ModuleOp module;
  gpu::GPUModuleOp gpuModule;
  gpu::GPUFuncOp kernel;
  SmallVector<Value> gridSizes, blockSizes, blockIds, threadIds;
};

/// Declares the external function `name` of type `type`, once.
LLVM::LLVMFuncOp getOrDeclare(ModuleOp module, StringRef name,
                              LLVM::LLVMFunctionType type) {
  if (auto existing = module.lookupSymbol<LLVM::LLVMFuncOp>(name))
    return existing;
  OpBuilder builder = OpBuilder::atBlockBegin(module.getBody());
  return LLVM::LLVMFuncOp::create(builder, module.getLoc(), name, type);
}

/// Declares `mgpuLaunchKernel` as upstream's translation calls it.
LLVM::LLVMFuncOp getOrDeclareLaunch(ModuleOp module) {
  MLIRContext *context = module.getContext();
  auto pointer = LLVM::LLVMPointerType::get(context);
  auto i64 = IntegerType::get(context, 64);
  auto i32 = IntegerType::get(context, 32);
  auto type = LLVM::LLVMFunctionType::get(
      LLVM::LLVMVoidType::get(context), {pointer, i64, i64, i64, i64, i64, i64,
                                         i32, pointer, pointer, pointer, i64});
  return getOrDeclare(module, "mgpuLaunchKernel", type);
}

/// A constant global holding `text` and its terminating NUL.
LLVM::GlobalOp getOrCreateString(ModuleOp module, StringRef name,
                                 StringRef text) {
  if (auto existing = module.lookupSymbol<LLVM::GlobalOp>(name))
    return existing;
  MLIRContext *context = module.getContext();
  auto type =
      LLVM::LLVMArrayType::get(IntegerType::get(context, 8), text.size() + 1);
  OpBuilder builder = OpBuilder::atBlockEnd(module.getBody());
  return LLVM::GlobalOp::create(
      builder, module.getLoc(), type, /*isConstant=*/true,
      LLVM::Linkage::Internal, name,
      builder.getStringAttr((text + Twine('\0')).str()));
}

/// `__prec_emulated_kernels_ready() -> i1`: whether the driver loaded takes
/// emulated kernels. The first call in the process loads the marker image
/// through mgpuModuleLoad (and unloads it); where the driver rejects it, it
/// says why on stderr, the failed load is the rank's error, and every call
/// answers false, so that no launch is made. Ranks share the answer: one
/// driver serves the process.
func::FuncOp buildReadyCheck(ModuleOp module) {
  MLIRContext *context = module.getContext();
  Location loc = module.getLoc();
  auto pointer = LLVM::LLVMPointerType::get(context);
  auto i64 = IntegerType::get(context, 64);
  auto i32 = IntegerType::get(context, 32);
  auto i1 = IntegerType::get(context, 1);
  OpBuilder builder = OpBuilder::atBlockEnd(module.getBody());

  // 0: not asked yet, 1: the driver took the marker, 2: it rejected it.
  auto state = LLVM::GlobalOp::create(
      builder, loc, i32, /*isConstant=*/false, LLVM::Linkage::Internal,
      "__prec_emulated_kernels_state", builder.getI32IntegerAttr(0));
  LLVM::GlobalOp marker =
      getOrCreateString(module, "__prec_emulated_kernels_marker", kMarkerImage);
  LLVM::GlobalOp message = getOrCreateString(
      module, "__prec_emulated_kernels_refused", kRefusedMessage);
  LLVM::LLVMFuncOp load =
      getOrDeclare(module, "mgpuModuleLoad",
                   LLVM::LLVMFunctionType::get(pointer, {pointer, i64}));
  LLVM::LLVMFuncOp unload = getOrDeclare(
      module, "mgpuModuleUnload",
      LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(context), {pointer}));
  LLVM::LLVMFuncOp write = getOrDeclare(
      module, "write", LLVM::LLVMFunctionType::get(i64, {i32, pointer, i64}));

  builder.setInsertionPointToEnd(module.getBody());
  auto function =
      func::FuncOp::create(builder, loc, "__prec_emulated_kernels_ready",
                           builder.getFunctionType({}, {i1}));
  function.setPrivate();
  builder.setInsertionPointToStart(function.addEntryBlock());
  Value stateAddress = LLVM::AddressOfOp::create(builder, loc, state);
  Value known = LLVM::LoadOp::create(
      builder, loc, i32, stateAddress, /*alignment=*/4, /*isVolatile=*/false,
      /*isNonTemporal=*/false, /*isInvariant=*/false,
      /*isInvariantGroup=*/false, LLVM::AtomicOrdering::monotonic);
  Value zero = arith::ConstantIntOp::create(builder, loc, 0, 32);
  Value one = arith::ConstantIntOp::create(builder, loc, 1, 32);
  Value two = arith::ConstantIntOp::create(builder, loc, 2, 32);
  Value unasked = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::eq,
                                        known, zero);
  auto ifUnasked = scf::IfOp::create(builder, loc, TypeRange{i1}, unasked,
                                     /*withElseRegion=*/true);

  builder.setInsertionPointToStart(ifUnasked.thenBlock());
  Value image = LLVM::AddressOfOp::create(builder, loc, marker);
  Value imageBytes = LLVM::ConstantOp::create(builder, loc, i64,
                                              int64_t(kMarkerImage.size() + 1));
  Value loadedModule =
      LLVM::CallOp::create(builder, loc, load, ValueRange{image, imageBytes})
          .getResult();
  Value null = LLVM::ZeroOp::create(builder, loc, pointer);
  Value loaded = LLVM::ICmpOp::create(builder, loc, LLVM::ICmpPredicate::ne,
                                      loadedModule, null);
  auto ifLoaded = scf::IfOp::create(builder, loc, loaded,
                                    /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(ifLoaded.thenBlock());
    LLVM::CallOp::create(builder, loc, unload, ValueRange{loadedModule});
    builder.setInsertionPointToStart(ifLoaded.elseBlock());
    Value stderrFd = LLVM::ConstantOp::create(builder, loc, i32, 2);
    Value text = LLVM::AddressOfOp::create(builder, loc, message);
    Value textBytes = LLVM::ConstantOp::create(builder, loc, i64,
                                               int64_t(kRefusedMessage.size()));
    LLVM::CallOp::create(builder, loc, write,
                         ValueRange{stderrFd, text, textBytes});
  }
  Value answer = arith::SelectOp::create(builder, loc, loaded, one, two);
  LLVM::StoreOp::create(builder, loc, answer, stateAddress, /*alignment=*/4,
                        /*isVolatile=*/false, /*isNonTemporal=*/false,
                        /*isInvariantGroup=*/false,
                        LLVM::AtomicOrdering::monotonic);
  scf::YieldOp::create(builder, loc, loaded);

  builder.setInsertionPointToStart(ifUnasked.elseBlock());
  Value took =
      arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::eq, known, one);
  scf::YieldOp::create(builder, loc, took);

  builder.setInsertionPointAfter(ifUnasked);
  func::ReturnOp::create(builder, loc, ifUnasked.getResult(0));
  return function;
}

/// The launch as the driver call with the emulated kernel as the function.
LogicalResult rewriteLaunch(ModuleOp module, gpu::LaunchFuncOp launch,
                            func::FuncOp emulated, func::FuncOp ready) {
  MLIRContext *context = module.getContext();
  Location loc = launch.getLoc();
  auto pointer = LLVM::LLVMPointerType::get(context);
  auto i64 = IntegerType::get(context, 64);
  auto i32 = IntegerType::get(context, 32);
  if (launch.hasClusterSize())
    return launch.emitOpError()
           << "uses thread block clusters, which the host emulation of "
              "kernels does not run";
  if (launch.getAsyncObject())
    return launch.emitOpError()
           << "names its stream as an async object; expected the stream of "
              "prec-gpu-host-to-runtime as its async dependency";

  // The slots live in the entry block of the host function, the launch
  // fills them: a launch in a loop does not grow the stack.
  auto function = launch->getParentOfType<FunctionOpInterface>();
  if (!function)
    return launch.emitOpError() << "is not in a function";
  OpBuilder entryBuilder =
      OpBuilder::atBlockBegin(&function.getFunctionBody().front());
  Value one = LLVM::ConstantOp::create(entryBuilder, loc, i64, 1);
  ValueRange arguments = launch.getKernelOperands();
  Value params = LLVM::AllocaOp::create(
      entryBuilder, loc, pointer,
      LLVM::LLVMArrayType::get(pointer, std::max<size_t>(arguments.size(), 1)),
      one);

  OpBuilder builder(launch);
  for (auto [index, argument] : llvm::enumerate(arguments)) {
    Type slotType = getSlotType(argument.getType());
    Value slot =
        LLVM::AllocaOp::create(entryBuilder, loc, pointer, slotType, one);
    Value value = argument;
    if (isa<MemRefType>(value.getType()))
      value = UnrealizedConversionCastOp::create(builder, loc, slotType, value)
                  .getResult(0);
    else if (value.getType().isIndex())
      value = arith::IndexCastOp::create(builder, loc, i64, value);
    LLVM::StoreOp::create(builder, loc, value, slot);
    Value slotAddress =
        LLVM::GEPOp::create(builder, loc, pointer, pointer, params,
                            ArrayRef<LLVM::GEPArg>{int32_t(index)});
    LLVM::StoreOp::create(builder, loc, slot, slotAddress);
  }

  Value stream;
  if (launch.getAsyncDependencies().empty()) {
    stream = LLVM::ZeroOp::create(builder, loc, pointer);
  } else if (launch.getAsyncDependencies().size() == 1) {
    stream = UnrealizedConversionCastOp::create(
                 builder, loc, pointer, launch.getAsyncDependencies().front())
                 .getResult(0);
  } else {
    return launch.emitOpError()
           << "waits for several tokens; the host emulation expects the one "
              "stream of prec-gpu-host-to-runtime";
  }

  Value kernel = func::ConstantOp::create(
      builder, loc, emulated.getFunctionType(), emulated.getSymName());
  kernel = UnrealizedConversionCastOp::create(builder, loc, pointer, kernel)
               .getResult(0);
  auto toI64 = [&](Value size) -> Value {
    return arith::IndexCastOp::create(builder, loc, i64, size);
  };
  gpu::KernelDim3 grid = launch.getGridSizeOperandValues();
  gpu::KernelDim3 block = launch.getBlockSizeOperandValues();
  Value sharedMemory = launch.getDynamicSharedMemorySize();
  if (!sharedMemory)
    sharedMemory = LLVM::ConstantOp::create(builder, loc, i32, 0);
  // The driver runs the kernel in stream order, after this function may
  // have returned: `extra` gives it the sizes of the slots to copy at the
  // launch, {kEmulatedParamSizes, {count, size...}, end}.
  DataLayout layout = DataLayout::closest(launch);
  Value sizes = LLVM::AllocaOp::create(
      entryBuilder, loc, pointer,
      LLVM::LLVMArrayType::get(i64, arguments.size() + 1), one);
  for (auto [index, argument] : llvm::enumerate(arguments)) {
    Type slotType = getSlotType(argument.getType());
    Value size = LLVM::ConstantOp::create(
        builder, loc, i64, int64_t(layout.getTypeSize(slotType)));
    Value address =
        LLVM::GEPOp::create(builder, loc, pointer, i64, sizes,
                            ArrayRef<LLVM::GEPArg>{int32_t(index + 1)});
    LLVM::StoreOp::create(builder, loc, size, address);
  }
  LLVM::StoreOp::create(
      builder, loc,
      LLVM::ConstantOp::create(builder, loc, i64, int64_t(arguments.size())),
      sizes);
  Value extra = LLVM::AllocaOp::create(
      entryBuilder, loc, pointer, LLVM::LLVMArrayType::get(pointer, 3), one);
  Value keyValue =
      LLVM::ConstantOp::create(builder, loc, i64, kEmulatedParamSizes);
  Value key = LLVM::IntToPtrOp::create(builder, loc, pointer, keyValue);
  Value end = LLVM::ZeroOp::create(builder, loc, pointer);
  SmallVector<Value> extraEntries{key, sizes, end};
  for (auto [index, value] : llvm::enumerate(extraEntries)) {
    Value address = LLVM::GEPOp::create(builder, loc, pointer, pointer, extra,
                                        ArrayRef<LLVM::GEPArg>{int32_t(index)});
    LLVM::StoreOp::create(builder, loc, value, address);
  }
  Value count =
      LLVM::ConstantOp::create(builder, loc, i64, int64_t(arguments.size()));
  // Only a driver that took the marker is given a host function as kernel.
  Value isReady =
      func::CallOp::create(builder, loc, ready, ValueRange{}).getResult(0);
  auto ifReady = scf::IfOp::create(builder, loc, isReady,
                                   /*withElseRegion=*/false);
  builder.setInsertionPointToStart(ifReady.thenBlock());
  LLVM::CallOp::create(builder, loc, getOrDeclareLaunch(module),
                       ValueRange{kernel, toI64(grid.x), toI64(grid.y),
                                  toI64(grid.z), toI64(block.x), toI64(block.y),
                                  toI64(block.z), sharedMemory, stream, params,
                                  extra, count});

  // The stream orders what follows: the launch's token is its dependency.
  if (Value token = launch.getAsyncToken()) {
    if (launch.getAsyncDependencies().empty())
      return launch.emitOpError()
             << "returns a token without waiting for one; expected the "
                "stream of prec-gpu-host-to-runtime";
    token.replaceAllUsesWith(launch.getAsyncDependencies().front());
  }
  launch.erase();
  return success();
}

struct PrecEmulateGPUKernelsPass
    : public prec::test::impl::PrecEmulateGPUKernelsBase<
          PrecEmulateGPUKernelsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    DenseMap<Operation *, func::FuncOp> emulated;
    for (auto gpuModule : module.getOps<gpu::GPUModuleOp>()) {
      for (auto kernel : gpuModule.getOps<gpu::GPUFuncOp>()) {
        if (!kernel.isKernel())
          continue;
        FailureOr<func::FuncOp> function =
            KernelEmulator(module, gpuModule, kernel).run();
        if (failed(function))
          return signalPassFailure();
        emulated[kernel] = *function;
      }
    }

    SmallVector<gpu::LaunchFuncOp> launches;
    module.walk([&](gpu::LaunchFuncOp launch) { launches.push_back(launch); });
    func::FuncOp ready;
    if (!launches.empty())
      ready = buildReadyCheck(module);
    for (gpu::LaunchFuncOp launch : launches) {
      auto kernel = SymbolTable::lookupNearestSymbolFrom<gpu::GPUFuncOp>(
          launch, launch.getKernel());
      auto found = emulated.find(kernel);
      if (found == emulated.end()) {
        launch.emitOpError() << "launches " << launch.getKernel()
                             << ", which is no kernel of this module";
        return signalPassFailure();
      }
      if (failed(rewriteLaunch(module, launch, found->second, ready)))
        return signalPassFailure();
    }
    for (auto gpuModule :
         llvm::make_early_inc_range(module.getOps<gpu::GPUModuleOp>()))
      gpuModule.erase();
  }
};

} // namespace
